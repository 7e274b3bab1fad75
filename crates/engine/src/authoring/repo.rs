//! Storage of extractions (`authoring_extractions`); the model calls behind them are in the call
//! ledger (`llm::ledger`), linked by extraction id.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{AuthoringCall, Extraction, ExtractionFailure, ExtractionSummary};
use crate::error::{ApiError, ApiResult};
use crate::llm::ledger;
use crate::policy::extraction::ApprovedExtraction;

pub(super) fn json<T: serde::Serialize>(v: &T) -> ApiResult<String> {
    serde_json::to_string(v).map_err(|e| ApiError::internal(format!("could not encode authoring data: {e}")))
}

pub(super) fn parse<T: serde::de::DeserializeOwned>(text: &str, id: &str, what: &str) -> ApiResult<T> {
    serde_json::from_str(text).map_err(|e| ApiError::internal(format!("the stored {what} of {id} cannot be read: {e}")))
}

/// The next version number for a clause.
pub fn next_version(conn: &Connection, policy: &str, clause: &str) -> ApiResult<i64> {
    let v: Option<i64> = conn.query_row(
        "SELECT MAX(version) FROM authoring_extractions WHERE policy_id = ?1 AND clause_id = ?2",
        params![policy, clause],
        |r| r.get(0),
    )?;
    Ok(v.unwrap_or(0) + 1)
}

pub fn insert(conn: &Connection, x: &Extraction) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO authoring_extractions (id, policy_id, clause_id, version, edition, source_hash, sections_json,
            proposed_json, rejected_ids_json, problems_json, self_check_json, document, attempts, model,
            prompt_versions, status, approved_by, approved_at, notes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
        params![
            x.extraction_id,
            x.policy_id,
            x.clause_id,
            x.version,
            x.edition,
            x.source_hash,
            json(&x.sections)?,
            json(&x.proposed)?,
            json(&x.rejected_ids)?,
            json(&x.problems)?,
            json(&x.self_check)?,
            x.document,
            x.attempts,
            x.model,
            json(&x.prompt_versions)?,
            x.status,
            x.approved_by,
            x.approved_at,
            x.notes,
            x.created_at,
        ],
    )?;
    insert_calls(conn, CallOwner::Extraction, &x.extraction_id, &x.calls)?;
    Ok(())
}

/// The approved extraction with the highest version for (policy, clause), if any.
pub fn approved_extraction(
    conn: &Connection,
    policy_id: &str,
    clause_id: &str,
) -> ApiResult<Option<ApprovedExtraction>> {
    Ok(conn
        .query_row(
            "SELECT id, clause_id, version, document, COALESCE(approved_by, '') FROM authoring_extractions
             WHERE policy_id = ?1 AND clause_id = ?2 AND status = 'approved'
             ORDER BY version DESC LIMIT 1",
            params![policy_id, clause_id],
            |r| {
                Ok(ApprovedExtraction {
                    extraction_id: r.get(0)?,
                    clause_id: r.get(1)?,
                    version: r.get(2)?,
                    document: r.get(3)?,
                    approved_by: r.get(4)?,
                })
            },
        )
        .optional()?)
}

/// Delete every extraction and draft made from a policy pack, with their model calls: they were
/// made from the pack's text and must not come back as the context of a new pack that reuses the id.
pub fn delete_for_policy(conn: &Connection, policy_id: &str) -> ApiResult<()> {
    let mut st = conn.prepare(
        "SELECT id FROM authoring_extractions WHERE policy_id = ?1 UNION ALL SELECT id FROM authoring_drafts WHERE policy_id = ?1",
    )?;
    let items = st.query_map([policy_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    ledger::forget_items(conn, &items)?;
    conn.execute("DELETE FROM authoring_extractions WHERE policy_id = ?1", [policy_id])?;
    conn.execute("DELETE FROM authoring_extraction_failures WHERE policy_id = ?1", [policy_id])?;
    conn.execute("DELETE FROM authoring_drafts WHERE policy_id = ?1", [policy_id])?;
    Ok(())
}

/// Whose calls: an extraction's or a draft's (both are items of the call ledger).
#[derive(Clone, Copy)]
pub enum CallOwner {
    Extraction,
    Draft,
}

/// Link the model calls behind an extraction or a draft (written to the call ledger by the LLM
/// client as they were made) to it, with the reading of each reply.
pub fn insert_calls(conn: &Connection, _owner: CallOwner, id: &str, calls: &[AuthoringCall]) -> ApiResult<()> {
    for c in calls {
        if let Some(call_id) = c.call_id {
            let done = ledger::Completion {
                item: Some(id.to_string()),
                step: None,
                attempt: Some(c.attempt),
                parsed: c.parsed.clone(),
                parse_notes: c.parse_notes.clone(),
            };
            ledger::complete(conn, call_id, &done)?;
        }
    }
    Ok(())
}

const COLS: &str = "id, policy_id, clause_id, version, edition, source_hash, sections_json, proposed_json,
    rejected_ids_json, problems_json, self_check_json, document, attempts, model, prompt_versions, status,
    approved_by, approved_at, notes, created_at";

type RawRow = (Vec<String>, Vec<Option<String>>, i64, i64);

fn raw(r: &Row<'_>) -> rusqlite::Result<RawRow> {
    let mut texts = Vec::new();
    for i in [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 19] {
        texts.push(r.get::<_, String>(i)?);
    }
    let opt = vec![r.get::<_, Option<String>>(16)?, r.get(17)?, r.get(18)?];
    Ok((texts, opt, r.get(3)?, r.get(12)?))
}

fn from_raw((t, o, version, attempts): RawRow) -> ApiResult<Extraction> {
    let id = t[0].clone();
    Ok(Extraction {
        policy_id: t[1].clone(),
        clause_id: t[2].clone(),
        version,
        edition: t[3].clone(),
        source_hash: t[4].clone(),
        sections: parse(&t[5], &id, "sections")?,
        proposed: parse(&t[6], &id, "proposal")?,
        rejected_ids: parse(&t[7], &id, "rejected ids")?,
        problems: parse(&t[8], &id, "problems")?,
        self_check: parse(&t[9], &id, "self-check")?,
        document: t[10].clone(),
        attempts: attempts as u32,
        model: t[11].clone(),
        prompt_versions: parse(&t[12], &id, "prompt versions")?,
        status: t[13].clone(),
        created_at: t[14].clone(),
        approved_by: o[0].clone(),
        approved_at: o[1].clone(),
        notes: o[2].clone(),
        calls: vec![],
        extraction_id: id,
    })
}

pub fn get(conn: &Connection, id: &str) -> ApiResult<Option<Extraction>> {
    let row =
        conn.query_row(&format!("SELECT {COLS} FROM authoring_extractions WHERE id = ?1"), [id], raw).optional()?;
    let Some(row) = row else { return Ok(None) };
    let mut x = from_raw(row)?;
    x.calls = calls_of(conn, CallOwner::Extraction, id)?;
    Ok(Some(x))
}

pub fn list(conn: &Connection, policy: Option<&str>, clause: Option<&str>) -> ApiResult<Vec<ExtractionSummary>> {
    let mut st = conn.prepare(&format!(
        "SELECT {COLS} FROM authoring_extractions
         WHERE (?1 IS NULL OR policy_id = ?1) AND (?2 IS NULL OR clause_id = ?2)
         ORDER BY policy_id, clause_id, version"
    ))?;
    let rows = st.query_map(params![policy, clause], raw)?.collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|r| {
            let x = from_raw(r)?;
            Ok(ExtractionSummary {
                sections: x.sections.iter().map(|s| s.section_id.clone()).collect(),
                extraction_id: x.extraction_id,
                policy_id: x.policy_id,
                clause_id: x.clause_id,
                version: x.version,
                status: x.status,
                model: x.model,
                approved_by: x.approved_by,
                created_at: x.created_at,
            })
        })
        .collect()
}

/// The model calls behind an extraction or a draft, in order (from the call ledger).
pub fn calls_of(conn: &Connection, _owner: CallOwner, id: &str) -> ApiResult<Vec<AuthoringCall>> {
    Ok(ledger::of_item(conn, None, id)?
        .into_iter()
        .map(|c| AuthoringCall {
            request: c.request_with_failures(),
            role: c.role.unwrap_or(c.stage),
            attempt: c.attempt.unwrap_or(1),
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

/// Record an approval with the final selection and its document.
pub fn approve(conn: &Connection, x: &Extraction) -> ApiResult<()> {
    conn.execute(
        "UPDATE authoring_extractions SET sections_json = ?2, document = ?3, status = 'approved', approved_by = ?4,
            approved_at = ?5, notes = ?6 WHERE id = ?1 AND status = 'proposed'",
        params![x.extraction_id, json(&x.sections)?, x.document, x.approved_by, x.approved_at, x.notes],
    )?;
    Ok(())
}

/// Keep a clause's failed extraction, replacing an earlier failure of the clause.
pub fn record_failure(conn: &Connection, f: &ExtractionFailure) -> ApiResult<()> {
    conn.execute(
        "INSERT OR REPLACE INTO authoring_extraction_failures (policy_id, clause_id, model, attempts, reason, message, failed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![f.policy_id, f.clause_id, f.model, f.attempts, f.reason, f.message, f.failed_at],
    )?;
    Ok(())
}

/// Forget a clause's failed extraction (a later extraction of it succeeded).
pub fn clear_failure(conn: &Connection, policy: &str, clause: &str) -> ApiResult<()> {
    conn.execute(
        "DELETE FROM authoring_extraction_failures WHERE policy_id = ?1 AND clause_id = ?2",
        params![policy, clause],
    )?;
    Ok(())
}

/// Failed extractions, optionally of one policy and/or one clause.
pub fn failures(conn: &Connection, policy: Option<&str>, clause: Option<&str>) -> ApiResult<Vec<ExtractionFailure>> {
    let mut st = conn.prepare(
        "SELECT policy_id, clause_id, model, attempts, reason, message, failed_at FROM authoring_extraction_failures
         WHERE (?1 IS NULL OR policy_id = ?1) AND (?2 IS NULL OR clause_id = ?2) ORDER BY policy_id, clause_id",
    )?;
    let rows = st
        .query_map(params![policy, clause], |r| {
            Ok(ExtractionFailure {
                policy_id: r.get(0)?,
                clause_id: r.get(1)?,
                model: r.get(2)?,
                attempts: r.get(3)?,
                reason: r.get(4)?,
                message: r.get(5)?,
                failed_at: r.get(6)?,
                status: "failed".into(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
