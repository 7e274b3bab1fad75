//! Cases in the store.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::{Case, CaseType};
use crate::error::{ApiError, ApiResult};
use crate::util::now_rfc3339;

/// A compact row for lists and pickers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseSummary {
    pub case_id: String,
    pub case_type: String,
    pub clause_id: String,
    pub clause_card_id: String,
    pub gold_verdict: String,
    pub origin: String,
    pub excluded: bool,
    pub narrative_words: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(default)]
pub struct CaseFilter {
    pub case_type: Option<CaseType>,
    pub clause_id: Option<String>,
    pub clause_card_id: Option<String>,
    pub origin: Option<String>,
    pub include_excluded: bool,
}

pub fn case_json(case: &Case) -> ApiResult<String> {
    serde_json::to_string(case)
        .map_err(|e| ApiError::internal(format!("case {} could not be encoded: {e}", case.case_id)))
}

/// Stored JSON of a case, if present.
/// Where a case is stored as JSON.
pub const CASE_JSON: crate::store::StoredColumn =
    crate::store::StoredColumn { table: "cases", column: "case_json", what: "JSON", row_kind: "case" };

pub fn stored_json(conn: &Connection, case_id: &str) -> ApiResult<Option<String>> {
    Ok(conn.query_row("SELECT case_json FROM cases WHERE case_id = ?1", [case_id], |r| r.get(0)).optional()?)
}

pub fn insert_case(conn: &Connection, case: &Case, json: &str, origin: &str) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO cases (case_id, case_type, policy, clause_id, clause_card_id, missing_variant_id, gold_verdict,
                            gold_clause, narrative, case_json, origin, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            case.case_id,
            case.case_type.as_str(),
            case.policy,
            case.clause_id,
            case.clause_card_id,
            case.missing_variant_id,
            case.gold_verdict.as_str(),
            case.gold_clause,
            case.narrative,
            json,
            origin,
            now_rfc3339()
        ],
    )?;
    Ok(())
}

pub fn replace_case(conn: &Connection, case: &Case, json: &str, origin: &str) -> ApiResult<()> {
    conn.execute("DELETE FROM cases WHERE case_id = ?1", [&case.case_id])?;
    insert_case(conn, case, json, origin)
}

fn decode(json: &str) -> ApiResult<Case> {
    serde_json::from_str(json).map_err(|e| ApiError::internal(format!("a stored case is unreadable: {e}")))
}

pub fn get_case(conn: &Connection, case_id: &str) -> ApiResult<Case> {
    let json = stored_json(conn, case_id)?
        .ok_or_else(|| ApiError::not_found(format!("There is no case \"{case_id}\" in this store.")))?;
    decode(&json)
}

const FILTER: &str =
    "(?1 IS NULL OR case_type = ?1) AND (?2 IS NULL OR clause_id = ?2) AND (?3 IS NULL OR clause_card_id = ?3)
     AND (?4 IS NULL OR origin = ?4) AND (?5 = 1 OR excluded = 0)";

pub fn list_cases(conn: &Connection, f: &CaseFilter) -> ApiResult<Vec<Case>> {
    let mut stmt = conn.prepare(&format!("SELECT case_json FROM cases WHERE {FILTER} ORDER BY case_id"))?;
    let rows = stmt
        .query_map(
            params![
                f.case_type.map(|t| t.as_str()),
                f.clause_id,
                f.clause_card_id,
                f.origin,
                f.include_excluded as i64
            ],
            |r| r.get::<_, String>(0),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    rows.iter().map(|j| decode(j)).collect()
}

pub fn list_summaries(conn: &Connection, f: &CaseFilter) -> ApiResult<Vec<CaseSummary>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT case_id, case_type, clause_id, clause_card_id, gold_verdict, origin, excluded, narrative
         FROM cases WHERE {FILTER} ORDER BY case_id"
    ))?;
    let rows = stmt
        .query_map(
            params![
                f.case_type.map(|t| t.as_str()),
                f.clause_id,
                f.clause_card_id,
                f.origin,
                f.include_excluded as i64
            ],
            |r| {
                let narrative: String = r.get(7)?;
                Ok(CaseSummary {
                    case_id: r.get(0)?,
                    case_type: r.get(1)?,
                    clause_id: r.get(2)?,
                    clause_card_id: r.get(3)?,
                    gold_verdict: r.get(4)?,
                    origin: r.get(5)?,
                    excluded: r.get::<_, i64>(6)? != 0,
                    narrative_words: narrative.split_whitespace().count(),
                })
            },
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn count_by_type(conn: &Connection) -> ApiResult<Vec<(String, i64)>> {
    let mut stmt =
        conn.prepare("SELECT case_type, count(*) FROM cases WHERE excluded = 0 GROUP BY case_type ORDER BY case_type")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// What the store knows about a case beyond its content: where it came from and whether runs
/// leave it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseMeta {
    /// `demo`, `imported` or `generated`.
    pub origin: String,
    pub excluded: bool,
    pub excluded_reason: Option<String>,
    pub created_at: String,
}

pub fn case_meta(conn: &Connection, case_id: &str) -> ApiResult<CaseMeta> {
    conn.query_row(
        "SELECT origin, excluded, excluded_reason, created_at FROM cases WHERE case_id = ?1",
        [case_id],
        |r| {
            Ok(CaseMeta {
                origin: r.get(0)?,
                excluded: r.get::<_, i64>(1)? != 0,
                excluded_reason: r.get(2)?,
                created_at: r.get(3)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found(format!("There is no case \"{case_id}\" in this store.")))
}

/// Whether a case is flagged excluded in the dataset, and why (None when the case is not stored).
pub fn exclusion(conn: &Connection, case_id: &str) -> ApiResult<Option<(bool, Option<String>)>> {
    Ok(conn
        .query_row("SELECT excluded, excluded_reason FROM cases WHERE case_id = ?1", [case_id], |r| {
            Ok((r.get::<_, i64>(0)? != 0, r.get::<_, Option<String>>(1)?))
        })
        .optional()?)
}

/// How many stored cases belong to a policy pack.
pub fn count_for_policy(conn: &Connection, policy_id: &str) -> ApiResult<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM cases WHERE policy = ?1", [policy_id], |r| r.get(0))?)
}

pub fn set_excluded(conn: &Connection, case_id: &str, excluded: bool, reason: Option<&str>) -> ApiResult<()> {
    let n = conn.execute(
        "UPDATE cases SET excluded = ?2, excluded_reason = ?3 WHERE case_id = ?1",
        params![case_id, excluded as i64, reason],
    )?;
    if n == 0 {
        return Err(ApiError::not_found(format!("There is no case \"{case_id}\" in this store.")));
    }
    Ok(())
}
