//! Storage of extractions (`author_extractions`) and of every model call behind them
//! (`author_calls`).

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use super::{AuthorCall, Extraction, ExtractionSummary};
use crate::error::{ApiError, ApiResult};
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
        "SELECT MAX(version) FROM author_extractions WHERE policy_id = ?1 AND clause_id = ?2",
        params![policy, clause],
        |r| r.get(0),
    )?;
    Ok(v.unwrap_or(0) + 1)
}

pub fn insert(conn: &Connection, x: &Extraction) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO author_extractions (id, policy_id, clause_id, version, edition, source_hash, sections_json,
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
            "SELECT id, clause_id, version, document, COALESCE(approved_by, '') FROM author_extractions
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
    conn.execute(
        "DELETE FROM author_calls WHERE extraction_id IN (SELECT id FROM author_extractions WHERE policy_id = ?1)",
        [policy_id],
    )?;
    conn.execute("DELETE FROM author_extractions WHERE policy_id = ?1", [policy_id])?;
    conn.execute(
        "DELETE FROM author_draft_calls WHERE draft_id IN (SELECT id FROM author_drafts WHERE policy_id = ?1)",
        [policy_id],
    )?;
    conn.execute("DELETE FROM author_drafts WHERE policy_id = ?1", [policy_id])?;
    Ok(())
}

/// Whose calls: an extraction's or a draft's (each has its own table).
#[derive(Clone, Copy)]
pub enum CallOwner {
    Extraction,
    Draft,
}

impl CallOwner {
    fn table_and_key(self) -> (&'static str, &'static str) {
        match self {
            CallOwner::Extraction => ("author_calls", "extraction_id"),
            CallOwner::Draft => ("author_draft_calls", "draft_id"),
        }
    }
}

/// Store the model calls behind an extraction or a draft, in order.
pub fn insert_calls(conn: &Connection, owner: CallOwner, id: &str, calls: &[AuthorCall]) -> ApiResult<()> {
    let (table, key) = owner.table_and_key();
    for (seq, c) in calls.iter().enumerate() {
        conn.execute(
            &format!(
                "INSERT INTO {table} ({key}, seq, role, attempt, prompt_name, prompt_versions, model,
                    request_json, response_text, parsed_json, parse_notes, input_tokens, output_tokens,
                    cached_input_tokens, cost_usd, latency_ms, cache_hit)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
            ),
            params![
                id,
                seq as i64,
                c.role,
                c.attempt,
                c.prompt_name,
                json(&c.prompt_versions)?,
                c.model,
                json(&c.request)?,
                c.response_text,
                c.parsed.as_ref().map(json).transpose()?,
                json(&c.parse_notes)?,
                c.input_tokens as i64,
                c.output_tokens as i64,
                c.cached_input_tokens as i64,
                c.cost_usd,
                c.latency_ms as i64,
                c.cache_hit,
            ],
        )?;
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
    let row = conn.query_row(&format!("SELECT {COLS} FROM author_extractions WHERE id = ?1"), [id], raw).optional()?;
    let Some(row) = row else { return Ok(None) };
    let mut x = from_raw(row)?;
    x.calls = calls_of(conn, CallOwner::Extraction, id)?;
    Ok(Some(x))
}

pub fn list(conn: &Connection, policy: Option<&str>, clause: Option<&str>) -> ApiResult<Vec<ExtractionSummary>> {
    let mut st = conn.prepare(&format!(
        "SELECT {COLS} FROM author_extractions
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

/// The model calls behind an extraction or a draft, in order.
pub fn calls_of(conn: &Connection, owner: CallOwner, id: &str) -> ApiResult<Vec<AuthorCall>> {
    let (table, key) = owner.table_and_key();
    let mut st = conn.prepare(&format!(
        "SELECT role, attempt, prompt_name, prompt_versions, model, request_json, response_text, parsed_json,
                parse_notes, input_tokens, output_tokens, cached_input_tokens, cost_usd, latency_ms, cache_hit
         FROM {table} WHERE {key} = ?1 ORDER BY seq"
    ))?;
    #[allow(clippy::type_complexity)]
    let rows = st
        .query_map([id], |r| {
            Ok((
                (r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?),
                (r.get::<_, String>(4)?, r.get::<_, String>(5)?, r.get::<_, Option<String>>(6)?),
                (r.get::<_, Option<String>>(7)?, r.get::<_, Option<String>>(8)?),
                (r.get::<_, i64>(9)?, r.get::<_, i64>(10)?, r.get::<_, i64>(11)?, r.get::<_, f64>(12)?),
                (r.get::<_, i64>(13)?, r.get::<_, bool>(14)?),
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|((role, attempt, prompt_name, pv), (model, req, resp), (parsed, notes), (i, o, ci, cost), (lat, hit))| {
            Ok(AuthorCall {
                role,
                attempt: attempt as u32,
                prompt_name,
                prompt_versions: parse(&pv, id, "call prompt versions")?,
                model,
                request: parse::<Value>(&req, id, "call request")?,
                response_text: resp,
                parsed: parsed.map(|p| parse::<Value>(&p, id, "parsed reply")).transpose()?,
                parse_notes: notes.map(|n| parse(&n, id, "parse notes")).transpose()?.unwrap_or_default(),
                input_tokens: i as u64,
                output_tokens: o as u64,
                cached_input_tokens: ci as u64,
                cost_usd: cost,
                latency_ms: lat as u64,
                cache_hit: hit,
            })
        })
        .collect()
}

/// Record an approval with the final selection and its document.
pub fn approve(conn: &Connection, x: &Extraction) -> ApiResult<()> {
    conn.execute(
        "UPDATE author_extractions SET sections_json = ?2, document = ?3, status = 'approved', approved_by = ?4,
            approved_at = ?5, notes = ?6 WHERE id = ?1 AND status = 'proposed'",
        params![x.extraction_id, json(&x.sections)?, x.document, x.approved_by, x.approved_at, x.notes],
    )?;
    Ok(())
}
