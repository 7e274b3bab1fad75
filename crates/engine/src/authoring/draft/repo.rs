//! Storage of drafts (`authoring_drafts`); the model calls behind them are in the call ledger, linked
//! by draft id.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{Draft, DraftKind, DraftSummary};
use crate::authoring::repo::{calls_of, insert_calls, json, parse, CallOwner};
use crate::card::lint::Severity;
use crate::error::{ApiError, ApiResult};

/// How many drafts a clause has had (the next one's number is this plus one).
pub fn count_for_clause(conn: &Connection, policy: &str, clause: &str) -> ApiResult<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM authoring_drafts WHERE policy_id = ?1 AND clause_id = ?2",
        params![policy, clause],
        |r| r.get(0),
    )?)
}

pub fn insert(conn: &Connection, d: &Draft) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO authoring_drafts (id, policy_id, clause_id, kind, parent_card_id, extraction_id, extraction_version,
            items_json, problems_json, self_check_json, coverage_json, attempts, model, prompt_versions, status,
            decided_by, decided_at, decision_notes, accepted_ids_json, edited_by, edited_at, run_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
        params![
            d.draft_id,
            d.policy_id,
            d.clause_id,
            d.kind.as_str(),
            d.parent_card_id,
            d.extraction_id,
            d.extraction_version,
            json(&d.items)?,
            json(&d.problems)?,
            json(&d.self_check)?,
            d.coverage.as_ref().map(json).transpose()?,
            d.attempts,
            d.model,
            json(&d.prompt_versions)?,
            d.status,
            d.decided_by,
            d.decided_at,
            d.decision_notes,
            json(&d.accepted_ids)?,
            d.edited_by,
            d.edited_at,
            d.run_id,
            d.created_at,
        ],
    )?;
    insert_calls(conn, CallOwner::Draft, &d.draft_id, &d.calls)
}

/// Replace the content and decision fields of a stored draft (edits, acceptance, rejection).
pub fn update(conn: &Connection, d: &Draft) -> ApiResult<()> {
    conn.execute(
        "UPDATE authoring_drafts SET items_json = ?2, problems_json = ?3, coverage_json = ?4, status = ?5,
            decided_by = ?6, decided_at = ?7, decision_notes = ?8, accepted_ids_json = ?9, edited_by = ?10,
            edited_at = ?11
         WHERE id = ?1",
        params![
            d.draft_id,
            json(&d.items)?,
            json(&d.problems)?,
            d.coverage.as_ref().map(json).transpose()?,
            d.status,
            d.decided_by,
            d.decided_at,
            d.decision_notes,
            json(&d.accepted_ids)?,
            d.edited_by,
            d.edited_at,
        ],
    )?;
    Ok(())
}

const COLS: &str = "id, policy_id, clause_id, kind, parent_card_id, extraction_id, extraction_version, items_json,
    problems_json, self_check_json, coverage_json, attempts, model, prompt_versions, status, decided_by, decided_at,
    decision_notes, accepted_ids_json, edited_by, edited_at, run_id, created_at";

/// A row as stored; JSON columns are decoded in `from_raw`, where errors can name the draft.
struct RawDraft {
    id: String,
    policy_id: String,
    clause_id: String,
    kind: String,
    parent: Option<String>,
    extraction_id: String,
    extraction_version: i64,
    items: String,
    problems: String,
    self_check: String,
    coverage: Option<String>,
    attempts: i64,
    model: String,
    versions: String,
    status: String,
    decided_by: Option<String>,
    decided_at: Option<String>,
    notes: Option<String>,
    accepted: String,
    edited_by: Option<String>,
    edited_at: Option<String>,
    run_id: Option<String>,
    created_at: String,
}

fn raw(r: &Row<'_>) -> rusqlite::Result<RawDraft> {
    Ok(RawDraft {
        id: r.get(0)?,
        policy_id: r.get(1)?,
        clause_id: r.get(2)?,
        kind: r.get(3)?,
        parent: r.get(4)?,
        extraction_id: r.get(5)?,
        extraction_version: r.get(6)?,
        items: r.get(7)?,
        problems: r.get(8)?,
        self_check: r.get(9)?,
        coverage: r.get(10)?,
        attempts: r.get(11)?,
        model: r.get(12)?,
        versions: r.get(13)?,
        status: r.get(14)?,
        decided_by: r.get(15)?,
        decided_at: r.get(16)?,
        notes: r.get(17)?,
        accepted: r.get(18)?,
        edited_by: r.get(19)?,
        edited_at: r.get(20)?,
        run_id: r.get(21)?,
        created_at: r.get(22)?,
    })
}

fn from_raw(r: RawDraft) -> ApiResult<Draft> {
    let id = r.id;
    let kind = DraftKind::parse(&r.kind)
        .ok_or_else(|| ApiError::internal(format!("draft {id} has an unknown kind \"{}\" in the store", r.kind)))?;
    let mut d = Draft {
        policy_id: r.policy_id,
        clause_id: r.clause_id,
        kind,
        parent_card_id: r.parent,
        extraction_id: r.extraction_id,
        extraction_version: r.extraction_version,
        items: parse(&r.items, &id, "items")?,
        item_ids: vec![],
        problems: parse(&r.problems, &id, "problems")?,
        self_check: parse(&r.self_check, &id, "self-check")?,
        coverage: r.coverage.map(|c| parse(&c, &id, "coverage report")).transpose()?,
        nearest: vec![],
        cited: vec![],
        attempts: r.attempts as u32,
        model: r.model,
        prompt_versions: parse(&r.versions, &id, "prompt versions")?,
        status: r.status,
        decided_by: r.decided_by,
        decided_at: r.decided_at,
        decision_notes: r.notes,
        accepted_ids: parse(&r.accepted, &id, "accepted ids")?,
        edited_by: r.edited_by,
        edited_at: r.edited_at,
        run_id: r.run_id,
        created_at: r.created_at,
        calls: vec![],
        draft_id: id,
    };
    d.item_ids = super::item_ids(d.kind, &d.items);
    Ok(d)
}

pub fn get(conn: &Connection, id: &str) -> ApiResult<Option<Draft>> {
    let row = conn.query_row(&format!("SELECT {COLS} FROM authoring_drafts WHERE id = ?1"), [id], raw).optional()?;
    let Some(row) = row else { return Ok(None) };
    let mut d = from_raw(row)?;
    d.calls = calls_of(conn, CallOwner::Draft, id)?;
    Ok(Some(d))
}

/// Drafts, newest last, optionally of one policy, clause, status or job.
pub fn list(
    conn: &Connection,
    policy: Option<&str>,
    clause: Option<&str>,
    status: Option<&str>,
    run_id: Option<&str>,
) -> ApiResult<Vec<Draft>> {
    let mut st = conn.prepare(&format!(
        "SELECT {COLS} FROM authoring_drafts
         WHERE (?1 IS NULL OR policy_id = ?1) AND (?2 IS NULL OR clause_id = ?2) AND (?3 IS NULL OR status = ?3)
           AND (?4 IS NULL OR run_id = ?4)
         ORDER BY created_at, rowid"
    ))?;
    let rows = st.query_map(params![policy, clause, status, run_id], raw)?.collect::<Result<Vec<_>, _>>()?;
    rows.into_iter().map(from_raw).collect()
}

pub fn summary(d: &Draft) -> DraftSummary {
    DraftSummary {
        draft_id: d.draft_id.clone(),
        policy_id: d.policy_id.clone(),
        clause_id: d.clause_id.clone(),
        kind: d.kind,
        parent_card_id: d.parent_card_id.clone(),
        status: d.status.clone(),
        item_ids: d.item_ids.clone(),
        errors: d.problems.iter().filter(|p| p.severity == Severity::Error).count(),
        warnings: d.problems.iter().filter(|p| p.severity == Severity::Warning).count(),
        attempts: d.attempts,
        model: d.model.clone(),
        created_at: d.created_at.clone(),
        run_id: d.run_id.clone(),
    }
}
