//! Generation runs in the store: the inputs snapshot, candidates, attempts and calls. Every
//! attempt is committed (with all its calls) the moment it finishes, so a crash loses at most the
//! attempts in flight, and those cost nothing to redo because their replies are cached.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use super::plan::{PlannedCandidate, PlannedCard};
use super::{
    GenerationCandidateFilter, GenerationCandidateView, GenerationCounts, GenerationTypeCounts, ProvenanceAttempt,
    ProvenanceCall,
};
use crate::error::{ApiError, ApiResult};
use crate::llm::ledger;
use crate::store::StoredColumn;
use crate::util::now_rfc3339;

pub fn insert_inputs(
    conn: &Connection,
    run_id: &str,
    cards: &[PlannedCard],
    anchors: &std::collections::BTreeMap<String, String>,
) -> ApiResult<()> {
    let mut c = conn.prepare(
        "INSERT INTO generation_run_cards (run_id, card_id, card_version, card_json, context_md) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for pc in cards {
        c.execute(params![run_id, pc.card.clause_card_id, pc.version, pc.json, pc.context])?;
    }
    let mut a = conn.prepare("INSERT INTO generation_run_anchors (run_id, anchor_id, text) VALUES (?1, ?2, ?3)")?;
    for (id, text) in anchors {
        a.execute(params![run_id, id, text])?;
    }
    Ok(())
}

pub fn insert_candidates(conn: &Connection, run_id: &str, cands: &[PlannedCandidate]) -> ApiResult<()> {
    let mut stmt = conn.prepare(
        "INSERT INTO generation_candidates (candidate_id, run_id, ord, unit, clause_card_id, clause_id, event_type, case_type, anchor_id,
                                     missing_variant_id, parent_candidate_id, status)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'pending')",
    )?;
    for c in cands {
        stmt.execute(params![
            c.candidate_id,
            run_id,
            c.ord as i64,
            c.unit as i64,
            c.card_id,
            c.clause_id,
            c.event_type.as_str(),
            c.case_type.as_str(),
            c.anchor_id,
            c.variant,
            c.parent
        ])?;
    }
    Ok(())
}

/// A run's stored card: (version, card JSON, context).
pub fn run_cards(conn: &Connection, run_id: &str) -> ApiResult<Vec<(String, i64, String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT card_id, card_version, card_json, context_md FROM generation_run_cards WHERE run_id = ?1 ORDER BY card_id",
    )?;
    let rows = stmt
        .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn run_anchor(conn: &Connection, run_id: &str, anchor_id: &str) -> ApiResult<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT text FROM generation_run_anchors WHERE run_id = ?1 AND anchor_id = ?2",
            params![run_id, anchor_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// Forget the copy of an anchor's text that generation runs keep (the anchor is being deleted).
pub fn forget_anchor(conn: &Connection, anchor_id: &str) -> ApiResult<()> {
    conn.execute("DELETE FROM generation_run_anchors WHERE anchor_id = ?1", [anchor_id])?;
    Ok(())
}

pub fn run_anchors(conn: &Connection, run_id: &str) -> ApiResult<Vec<(String, String)>> {
    let mut stmt = conn.prepare("SELECT anchor_id, text FROM generation_run_anchors WHERE run_id = ?1")?;
    let rows = stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// A candidate as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateRow {
    pub candidate_id: String,
    pub run_id: String,
    pub ord: i64,
    pub unit: i64,
    pub clause_card_id: String,
    pub clause_id: String,
    pub event_type: String,
    pub case_type: String,
    pub anchor_id: String,
    pub missing_variant_id: Option<String>,
    pub parent_candidate_id: Option<String>,
    pub status: String,
    pub drop_stage: Option<String>,
    pub drop_reason: Option<String>,
    pub case_id: Option<String>,
    pub slot_values_json: Option<String>,
    pub narrative: Option<String>,
    pub finished_at: Option<String>,
}

const CAND_COLS: &str = "candidate_id, run_id, ord, unit, clause_card_id, clause_id, event_type, case_type, anchor_id, missing_variant_id, \
                         parent_candidate_id, status, drop_stage, drop_reason, case_id, slot_values_json, narrative, finished_at";

fn cand(r: &Row<'_>) -> rusqlite::Result<CandidateRow> {
    Ok(CandidateRow {
        candidate_id: r.get(0)?,
        run_id: r.get(1)?,
        ord: r.get(2)?,
        unit: r.get(3)?,
        clause_card_id: r.get(4)?,
        clause_id: r.get(5)?,
        event_type: r.get(6)?,
        case_type: r.get(7)?,
        anchor_id: r.get(8)?,
        missing_variant_id: r.get(9)?,
        parent_candidate_id: r.get(10)?,
        status: r.get(11)?,
        drop_stage: r.get(12)?,
        drop_reason: r.get(13)?,
        case_id: r.get(14)?,
        slot_values_json: r.get(15)?,
        narrative: r.get(16)?,
        finished_at: r.get(17)?,
    })
}

pub fn candidates(conn: &Connection, run_id: &str) -> ApiResult<Vec<CandidateRow>> {
    let mut stmt =
        conn.prepare(&format!("SELECT {CAND_COLS} FROM generation_candidates WHERE run_id = ?1 ORDER BY ord"))?;
    let rows = stmt.query_map([run_id], cand)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn candidate(conn: &Connection, id: &str) -> ApiResult<Option<CandidateRow>> {
    Ok(conn
        .query_row(&format!("SELECT {CAND_COLS} FROM generation_candidates WHERE candidate_id = ?1"), [id], cand)
        .optional()?)
}

/// The candidate behind a case id (they are the same string for generated cases).
pub fn candidate_for_case(conn: &Connection, case_id: &str) -> ApiResult<Option<CandidateRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {CAND_COLS} FROM generation_candidates WHERE case_id = ?1 OR candidate_id = ?1"),
            [case_id],
            cand,
        )
        .optional()?)
}

pub fn view(c: &CandidateRow) -> GenerationCandidateView {
    GenerationCandidateView {
        candidate_id: c.candidate_id.clone(),
        run_id: c.run_id.clone(),
        case_type: c.case_type.clone(),
        clause_card_id: c.clause_card_id.clone(),
        clause_id: c.clause_id.clone(),
        event_type: c.event_type.clone(),
        anchor_id: c.anchor_id.clone(),
        missing_variant_id: c.missing_variant_id.clone(),
        parent_candidate_id: c.parent_candidate_id.clone(),
        status: c.status.clone(),
        drop_stage: c.drop_stage.clone(),
        drop_reason: c.drop_reason.clone(),
        case_id: c.case_id.clone(),
        narrative_words: c.narrative.as_deref().map(|n| n.split_whitespace().count() as u32),
    }
}

pub fn list_views(
    conn: &Connection,
    run_id: &str,
    f: &GenerationCandidateFilter,
) -> ApiResult<Vec<GenerationCandidateView>> {
    Ok(candidates(conn, run_id)?
        .iter()
        .filter(|c| f.status.as_deref().map(|s| s == c.status).unwrap_or(true))
        .filter(|c| f.case_type.as_deref().map(|s| s == c.case_type).unwrap_or(true))
        .filter(|c| f.clause_id.as_deref().map(|s| s == c.clause_id).unwrap_or(true))
        .filter(|c| f.clause_card_id.as_deref().map(|s| s == c.clause_card_id).unwrap_or(true))
        .map(view)
        .collect())
}

pub fn mark_accepted(
    conn: &Connection,
    id: &str,
    case_id: &str,
    slot_values: &Value,
    narrative: &str,
) -> ApiResult<()> {
    conn.execute(
        "UPDATE generation_candidates SET status = 'accepted', case_id = ?2, slot_values_json = ?3, narrative = ?4, drop_stage = NULL,
                drop_reason = NULL, finished_at = ?5 WHERE candidate_id = ?1",
        params![id, case_id, slot_values.to_string(), narrative, now_rfc3339()],
    )?;
    Ok(())
}

/// Store the verified instantiation on a candidate still in progress (its missing variants use it).
pub fn set_slot_values(conn: &Connection, id: &str, slot_values: &Value) -> ApiResult<()> {
    conn.execute(
        "UPDATE generation_candidates SET slot_values_json = ?2 WHERE candidate_id = ?1",
        params![id, slot_values.to_string()],
    )?;
    Ok(())
}

pub fn mark_finished(conn: &Connection, id: &str, status: &str, stage: &str, reason: &str) -> ApiResult<()> {
    conn.execute(
        "UPDATE generation_candidates SET status = ?2, drop_stage = ?3, drop_reason = ?4, finished_at = ?5 WHERE candidate_id = ?1",
        params![id, status, stage, reason, now_rfc3339()],
    )?;
    Ok(())
}

/// One model call of an attempt: its row in the call ledger (written by the LLM client) and the
/// reading of its reply, added to that row when the attempt is stored.
#[derive(Debug, Clone)]
pub struct CallRecord {
    pub call_id: Option<i64>,
    pub parsed: Option<Value>,
    pub parse_notes: Vec<String>,
}

/// One attempt of one stage.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub stage: String,
    pub attempt: u32,
    pub passed: bool,
    pub issues: Vec<String>,
    pub guard_findings: Vec<String>,
    pub output: Value,
    pub extracted: Option<Value>,
    pub verifier: Option<Value>,
    pub calls: Vec<CallRecord>,
}

fn js(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// Commit one attempt and its calls in one transaction-sized unit (the caller wraps it).
pub fn insert_attempt(conn: &Connection, run_id: &str, candidate_id: &str, a: &AttemptRecord) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO generation_attempts (candidate_id, run_id, stage, attempt, passed, issues_json, guard_findings_json, output_json,
                                   extracted_json, verifier_json, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            candidate_id,
            run_id,
            a.stage,
            a.attempt,
            a.passed as i64,
            js(&a.issues),
            js(&a.guard_findings),
            a.output.to_string(),
            a.extracted.as_ref().map(|v| v.to_string()),
            a.verifier.as_ref().map(|v| v.to_string()),
            now_rfc3339()
        ],
    )?;
    // The calls were written to the ledger by the client as they were made: link them to this
    // attempt and add their reading.
    for c in &a.calls {
        if let Some(id) = c.call_id {
            let done = ledger::Completion {
                item: Some(candidate_id.to_string()),
                step: Some(a.stage.clone()),
                attempt: Some(a.attempt),
                parsed: c.parsed.clone(),
                parse_notes: c.parse_notes.clone(),
            };
            ledger::complete(conn, id, &done)?;
        }
    }
    Ok(())
}

/// A JSON column of generation attempts (`generation_attempts`) or candidates.
const fn col(table: &'static str, column: &'static str, what: &'static str, row_kind: &'static str) -> StoredColumn {
    StoredColumn { table, column, what, row_kind }
}
const ATTEMPT_ISSUES: StoredColumn = col("generation_attempts", "issues_json", "issues", "attempt");
const ATTEMPT_FINDINGS: StoredColumn = col("generation_attempts", "guard_findings_json", "guard findings", "attempt");
const ATTEMPT_OUTPUT: StoredColumn = col("generation_attempts", "output_json", "output", "attempt");
const ATTEMPT_EXTRACTED: StoredColumn = col("generation_attempts", "extracted_json", "extracted values", "attempt");
const ATTEMPT_VERIFIER: StoredColumn = col("generation_attempts", "verifier_json", "verifier verdict", "attempt");
/// Slot values of a candidate (`generation_candidates.slot_values_json`).
pub const CANDIDATE_SLOT_VALUES: StoredColumn =
    col("generation_candidates", "slot_values_json", "slot values", "candidate");

/// Stored attempts of a candidate (without calls), in order: what a resumed candidate replays.
pub fn attempts(conn: &Connection, candidate_id: &str) -> ApiResult<Vec<(i64, AttemptRecord, String)>> {
    let mut stmt = conn.prepare(
        "SELECT id, stage, attempt, passed, issues_json, guard_findings_json, output_json, extracted_json, verifier_json, created_at
         FROM generation_attempts WHERE candidate_id = ?1 ORDER BY id",
    )?;
    let rows = stmt
        .query_map([candidate_id], |r| {
            let id = r.get::<_, i64>(0)?;
            let row = format!("{id} of candidate {candidate_id}");
            Ok((
                id,
                AttemptRecord {
                    stage: r.get(1)?,
                    attempt: r.get::<_, i64>(2)? as u32,
                    passed: r.get::<_, i64>(3)? != 0,
                    issues: ATTEMPT_ISSUES.parse_in_row(&r.get::<_, String>(4)?, &row, 4)?,
                    guard_findings: ATTEMPT_FINDINGS.parse_in_row(&r.get::<_, String>(5)?, &row, 5)?,
                    output: ATTEMPT_OUTPUT.parse_in_row(&r.get::<_, String>(6)?, &row, 6)?,
                    extracted: ATTEMPT_EXTRACTED.parse_opt_in_row(r.get(7)?, &row, 7)?,
                    verifier: ATTEMPT_VERIFIER.parse_opt_in_row(r.get(8)?, &row, 8)?,
                    calls: Vec::new(),
                },
                r.get::<_, String>(9)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The ledger's calls of one attempt (candidate, stage, attempt number) of a run, in order.
pub fn calls(
    conn: &Connection,
    run_id: &str,
    candidate_id: &str,
    stage: &str,
    attempt: u32,
) -> ApiResult<Vec<ProvenanceCall>> {
    let f = ledger::CallFilter {
        run_id: Some(run_id.to_string()),
        item: Some(candidate_id.to_string()),
        step: Some(stage.to_string()),
        attempt: Some(attempt),
        limit: Some(ledger::MAX_LIMIT),
        ..Default::default()
    };
    Ok(ledger::list(conn, &f)?
        .into_iter()
        .map(|c| ProvenanceCall {
            request: c.request_with_failures(),
            role: c.role.unwrap_or(c.stage),
            prompt_name: c.prompt_name.unwrap_or_default(),
            prompt_versions: c.prompt_versions,
            model: c.model,
            response_text: c.response_text,
            parsed: c.parsed,
            parse_notes: c.parse_notes,
            input_tokens: c.input_tokens,
            output_tokens: c.output_tokens,
            cached_input_tokens: c.cached_input_tokens,
            cost_usd: c.cost_usd,
            latency_ms: c.latency_ms,
            cache_hit: c.cache_hit,
            call_id: Some(c.id),
        })
        .collect())
}

/// Every attempt of a candidate with its calls (provenance).
pub fn provenance_attempts(conn: &Connection, candidate_id: &str) -> ApiResult<Vec<ProvenanceAttempt>> {
    attempts(conn, candidate_id)?
        .into_iter()
        .map(|(id, a, at)| {
            let run: String =
                conn.query_row("SELECT run_id FROM generation_attempts WHERE id = ?1", [id], |r| r.get(0))?;
            let calls = calls(conn, &run, candidate_id, &a.stage, a.attempt)?;
            Ok(ProvenanceAttempt {
                candidate_id: candidate_id.to_string(),
                stage: a.stage,
                attempt: a.attempt,
                passed: a.passed,
                issues: a.issues,
                guard_findings: a.guard_findings,
                output: a.output,
                extracted: a.extracted,
                verifier: a.verifier,
                calls,
                created_at: at,
            })
        })
        .collect()
}

/// Counts for progress and summaries.
/// US$ spent so far on the calls of one (card, anchor) unit of a run.
pub fn unit_cost(conn: &Connection, run_id: &str, unit: i64) -> ApiResult<f64> {
    let mut st =
        conn.prepare_cached("SELECT candidate_id FROM generation_candidates WHERE run_id = ?1 AND unit = ?2")?;
    let ids = st.query_map(params![run_id, unit], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    ledger::items_cost(conn, run_id, &ids)
}

pub fn counts(conn: &Connection, run_id: &str) -> ApiResult<GenerationCounts> {
    let mut c = GenerationCounts::default();
    let mut stmt = conn.prepare(
        "SELECT case_type, status, count(*) FROM generation_candidates WHERE run_id = ?1 GROUP BY case_type, status",
    )?;
    let rows = stmt
        .query_map([run_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)? as u64)))?
        .collect::<Result<Vec<_>, _>>()?;
    for t in ["complete", "missing", "uncertain"] {
        c.by_type.push(GenerationTypeCounts { case_type: t.into(), ..Default::default() });
    }
    for (t, s, n) in rows {
        c.total += n;
        let e = match c.by_type.iter_mut().find(|x| x.case_type == t) {
            Some(e) => e,
            None => return Err(ApiError::internal(format!("unknown case type {t} in run {run_id}"))),
        };
        e.total += n;
        match s.as_str() {
            "accepted" => {
                c.accepted += n;
                e.accepted += n
            }
            "dropped" => {
                c.dropped += n;
                e.dropped += n
            }
            "skipped" => {
                c.skipped += n;
                e.skipped += n
            }
            _ => {
                c.pending += n;
                e.pending += n
            }
        }
    }
    c.done = c.total - c.pending;
    // Dropped candidates with a reply that could not be read among their calls.
    let unreadable = ledger::items_with_unreadable_reply(conn, run_id)?;
    if !unreadable.is_empty() {
        let mut st = conn.prepare_cached(
            "SELECT candidate_id FROM generation_candidates WHERE run_id = ?1 AND status = 'dropped'",
        )?;
        let dropped = st.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
        c.unreadable = dropped.iter().filter(|id| unreadable.contains(*id)).count() as u64;
    }
    let (units_total, units_done): (i64, i64) = conn.query_row(
        "SELECT count(DISTINCT unit), count(DISTINCT unit) - count(DISTINCT CASE WHEN status = 'pending' THEN unit END)
         FROM generation_candidates WHERE run_id = ?1",
        [run_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    c.units_total = units_total as u64;
    c.units_done = units_done as u64;
    let (attempts, retries): (i64, i64) = conn.query_row(
        // A screen's attempt number is its Instantiator attempt's, so screens are no retries.
        "SELECT count(*), coalesce(sum(attempt > 1 AND stage <> 'clause_screen'), 0) FROM generation_attempts WHERE run_id = ?1",
        [run_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    c.attempts = attempts as u64;
    c.retries = retries as u64;
    let t = crate::llm::accounting::run_call_totals(conn, run_id)?;
    c.calls = t.calls;
    c.cache_hits = t.cache_hits;
    c.input_tokens = t.input_tokens;
    c.output_tokens = t.output_tokens;
    c.cost_usd = t.cost_usd;
    Ok(c)
}
