//! Review sessions in the store (SQL only; the rules live in the other files of this module).

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::answers::{AnswerParts, AnswerRecord};
use super::pack::PackSeal;
use super::rationale::{RationaleSource, RationaleTask};
use super::{AdjudicationDecision, RevealMaterial, ReviewAdjudication, ReviewSelection, ReviewVerdict, SessionRole};
use crate::case::CaseType;
use crate::error::{ApiError, ApiResult};

#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub session_id: String,
    pub name: String,
    pub role: SessionRole,
    pub guidelines: String,
    pub overlap: u32,
    pub seed: Option<u64>,
    pub selection: Option<ReviewSelection>,
    pub fingerprint: String,
    pub created_at: String,
    pub opened_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ItemRow {
    pub case_id: String,
    pub ord: u32,
    pub case_type: CaseType,
    pub clause_id: String,
    pub expected: ReviewVerdict,
    pub narrative: String,
    pub reveal: RevealMaterial,
    /// The rationale task, when the item has one.
    pub rationale: Option<RationaleTask>,
    /// Where the rationale came from and the judge's hits (in the owner's store only).
    pub rationale_source: Option<RationaleSource>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AnswerRow {
    pub reviewer: String,
    pub item_no: u32,
    pub case_id: String,
    pub record: AnswerRecord,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TokenRow {
    pub session_id: String,
    pub reviewer: String,
    pub kind: String,
    pub revoked: bool,
}

fn corrupt(what: &str) -> ApiError {
    ApiError::internal(format!("A stored review {what} is unreadable; the database may have been edited by hand."))
}

const SESSION_COLS: &str =
    "session_id, name, role, guidelines, overlap, seed, selection_json, fingerprint, created_at, opened_at";

fn session_from(r: &Row<'_>) -> rusqlite::Result<(SessionRow, String, Option<String>)> {
    let role: String = r.get(2)?;
    let seed: Option<i64> = r.get(5)?;
    let selection: Option<String> = r.get(6)?;
    Ok((
        SessionRow {
            session_id: r.get(0)?,
            name: r.get(1)?,
            role: SessionRole::Owner,
            guidelines: r.get(3)?,
            overlap: r.get::<_, i64>(4)?.max(0) as u32,
            seed: seed.map(|s| s as u64),
            selection: None,
            fingerprint: r.get(7)?,
            created_at: r.get(8)?,
            opened_at: r.get(9)?,
        },
        role,
        selection,
    ))
}

fn finish_session((mut s, role, selection): (SessionRow, String, Option<String>)) -> ApiResult<SessionRow> {
    s.role = SessionRole::parse(&role).ok_or_else(|| corrupt("session"))?;
    s.selection = match selection {
        Some(j) => Some(serde_json::from_str(&j).map_err(|_| corrupt("session"))?),
        None => None,
    };
    Ok(s)
}

pub fn insert_session(conn: &Connection, s: &SessionRow) -> ApiResult<()> {
    let selection = match &s.selection {
        Some(sel) => Some(serde_json::to_string(sel).map_err(|e| ApiError::internal(e.to_string()))?),
        None => None,
    };
    conn.execute(
        &format!("INSERT INTO review_sessions ({SESSION_COLS}, app_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"),
        params![
            s.session_id,
            s.name,
            s.role.as_str(),
            s.guidelines,
            s.overlap as i64,
            s.seed.map(|x| x as i64),
            selection,
            s.fingerprint,
            s.created_at,
            s.opened_at,
            crate::version()
        ],
    )?;
    Ok(())
}

pub fn get_session(conn: &Connection, session_id: &str) -> ApiResult<Option<SessionRow>> {
    let row = conn
        .query_row(
            &format!("SELECT {SESSION_COLS} FROM review_sessions WHERE session_id = ?1"),
            [session_id],
            session_from,
        )
        .optional()?;
    row.map(finish_session).transpose()
}

pub fn list_sessions(conn: &Connection) -> ApiResult<Vec<SessionRow>> {
    let mut stmt =
        conn.prepare(&format!("SELECT {SESSION_COLS} FROM review_sessions ORDER BY created_at DESC, session_id"))?;
    let rows = stmt.query_map([], session_from)?.collect::<Result<Vec<_>, _>>()?;
    rows.into_iter().map(finish_session).collect()
}

/// A session by id, or by name when exactly one session has that name.
pub fn resolve_session(conn: &Connection, key: &str) -> ApiResult<SessionRow> {
    let key = key.trim();
    if let Some(s) = get_session(conn, key)? {
        return Ok(s);
    }
    let all = list_sessions(conn)?;
    let named: Vec<&SessionRow> = all.iter().filter(|s| s.name == key).collect();
    match named.len() {
        1 => Ok(named[0].clone()),
        0 => Err(ApiError::not_found(format!(
            "There is no review session \"{key}\" in this store.{}",
            if all.is_empty() {
                " None has been created yet.".to_string()
            } else {
                " `psebench review list` shows the sessions.".to_string()
            }
        ))),
        _ => Err(ApiError::conflict(format!(
            "{} review sessions are named \"{key}\"; use the session id instead ({}).",
            named.len(),
            named.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

pub fn set_guidelines(conn: &Connection, session_id: &str, text: &str) -> ApiResult<()> {
    conn.execute("UPDATE review_sessions SET guidelines = ?2 WHERE session_id = ?1", params![session_id, text])?;
    Ok(())
}

pub fn delete_session(conn: &Connection, session_id: &str) -> ApiResult<()> {
    // Children without a direct cascade path are removed explicitly, deepest first.
    conn.execute("DELETE FROM review_adjudications WHERE session_id = ?1", [session_id])?;
    conn.execute("DELETE FROM review_tokens WHERE session_id = ?1", [session_id])?;
    conn.execute("DELETE FROM review_answers WHERE session_id = ?1", [session_id])?;
    conn.execute("DELETE FROM review_assignments WHERE session_id = ?1", [session_id])?;
    conn.execute("DELETE FROM review_sessions WHERE session_id = ?1", [session_id])?;
    Ok(())
}

/// The names of the sessions whose rationale task took rationales from a run (they keep their
/// own copies of them).
pub fn sessions_with_rationales_from(conn: &Connection, run_id: &str) -> ApiResult<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT s.name FROM review_sessions s
         WHERE EXISTS (SELECT 1 FROM review_items i WHERE i.session_id = s.session_id
                         AND json_valid(i.rationale_source_json)
                         AND json_extract(i.rationale_source_json, '$.run_id') = ?1)
         ORDER BY s.created_at, s.name",
    )?;
    let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn insert_reviewer(
    conn: &Connection,
    session_id: &str,
    reviewer: &str,
    ord: u32,
    pack_token: Option<&str>,
) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO review_reviewers (session_id, reviewer, ord, pack_token) VALUES (?1, ?2, ?3, ?4)",
        params![session_id, reviewer, ord as i64, pack_token],
    )?;
    Ok(())
}

pub fn reviewers(conn: &Connection, session_id: &str) -> ApiResult<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT reviewer FROM review_reviewers WHERE session_id = ?1 ORDER BY ord, reviewer")?;
    let rows = stmt.query_map([session_id], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
    Ok(rows)
}

pub fn pack_token(conn: &Connection, session_id: &str, reviewer: &str) -> ApiResult<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT pack_token FROM review_reviewers WHERE session_id = ?1 AND reviewer = ?2",
            params![session_id, reviewer],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten())
}

pub fn set_pack_token(conn: &Connection, session_id: &str, reviewer: &str, token: &str) -> ApiResult<()> {
    conn.execute(
        "UPDATE review_reviewers SET pack_token = ?3 WHERE session_id = ?1 AND reviewer = ?2",
        params![session_id, reviewer, token],
    )?;
    Ok(())
}

/// Where a pack was opened: what its owner issued with it (see `pack::PackSeal`).
pub fn pack_seal(conn: &Connection, session_id: &str, reviewer: &str) -> ApiResult<Option<PackSeal>> {
    let text: Option<String> = conn
        .query_row(
            "SELECT pack_seal_json FROM review_reviewers WHERE session_id = ?1 AND reviewer = ?2",
            params![session_id, reviewer],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten();
    match text {
        None => Ok(None),
        Some(t) => serde_json::from_str(&t).map(Some).map_err(|e| {
            ApiError::internal("the stored review pack seal is damaged; open the pack again").with_detail(e.to_string())
        }),
    }
}

pub fn set_pack_seal(conn: &Connection, session_id: &str, reviewer: &str, seal: &PackSeal) -> ApiResult<()> {
    let text = serde_json::to_string(seal).map_err(|e| ApiError::internal(e.to_string()))?;
    conn.execute(
        "UPDATE review_reviewers SET pack_seal_json = ?3 WHERE session_id = ?1 AND reviewer = ?2",
        params![session_id, reviewer, text],
    )?;
    Ok(())
}

fn to_json_opt<T: serde::Serialize>(v: &Option<T>) -> ApiResult<Option<String>> {
    v.as_ref().map(|x| serde_json::to_string(x).map_err(|e| ApiError::internal(e.to_string()))).transpose()
}

pub fn insert_item(conn: &Connection, session_id: &str, it: &ItemRow) -> ApiResult<()> {
    let reveal = serde_json::to_string(&it.reveal).map_err(|e| ApiError::internal(e.to_string()))?;
    conn.execute(
        "INSERT INTO review_items (session_id, case_id, ord, case_type, clause_id, expected_verdict, narrative, reveal_json,
                                   rationale_json, rationale_source_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            session_id,
            it.case_id,
            it.ord as i64,
            it.case_type.as_str(),
            it.clause_id,
            it.expected.as_str(),
            it.narrative,
            reveal,
            to_json_opt(&it.rationale)?,
            to_json_opt(&it.rationale_source)?
        ],
    )?;
    Ok(())
}

const ITEM_COLS: &str =
    "case_id, ord, case_type, clause_id, expected_verdict, narrative, reveal_json, rationale_json, rationale_source_json";

type ItemCols = (String, i64, String, String, String, String, String, Option<String>, Option<String>);

fn item_from(r: &Row<'_>) -> rusqlite::Result<ItemCols> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
}

fn finish_item(t: ItemCols) -> ApiResult<ItemRow> {
    let (case_id, ord, case_type, clause_id, expected, narrative, reveal, rationale, source) = t;
    let parse_opt = |j: Option<String>| -> ApiResult<Option<serde_json::Value>> {
        j.map(|j| serde_json::from_str(&j).map_err(|_| corrupt("case"))).transpose()
    };
    let rationale: Option<RationaleTask> =
        parse_opt(rationale)?.map(serde_json::from_value).transpose().map_err(|_| corrupt("case"))?;
    let rationale_source: Option<RationaleSource> =
        parse_opt(source)?.map(serde_json::from_value).transpose().map_err(|_| corrupt("case"))?;
    Ok(ItemRow {
        case_id,
        ord: ord.max(0) as u32,
        case_type: CaseType::parse(&case_type).ok_or_else(|| corrupt("case"))?,
        clause_id,
        expected: ReviewVerdict::parse(&expected).ok_or_else(|| corrupt("case"))?,
        narrative,
        reveal: serde_json::from_str(&reveal).map_err(|_| corrupt("case"))?,
        rationale,
        rationale_source,
    })
}

pub fn items(conn: &Connection, session_id: &str) -> ApiResult<Vec<ItemRow>> {
    let mut stmt =
        conn.prepare(&format!("SELECT {ITEM_COLS} FROM review_items WHERE session_id = ?1 ORDER BY ord, case_id"))?;
    let rows = stmt.query_map([session_id], item_from)?.collect::<Result<Vec<_>, _>>()?;
    rows.into_iter().map(finish_item).collect()
}

pub fn item(conn: &Connection, session_id: &str, case_id: &str) -> ApiResult<Option<ItemRow>> {
    let row = conn
        .query_row(
            &format!("SELECT {ITEM_COLS} FROM review_items WHERE session_id = ?1 AND case_id = ?2"),
            params![session_id, case_id],
            item_from,
        )
        .optional()?;
    row.map(finish_item).transpose()
}

/// Assign a case to a reviewer as item `item_no`, with an empty answer.
pub fn insert_assignment(
    conn: &Connection,
    session_id: &str,
    reviewer: &str,
    item_no: u32,
    case_id: &str,
) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO review_assignments (session_id, reviewer, item_no, case_id) VALUES (?1, ?2, ?3, ?4)",
        params![session_id, reviewer, item_no as i64, case_id],
    )?;
    conn.execute(
        "INSERT INTO review_answers (session_id, reviewer, case_id) VALUES (?1, ?2, ?3)",
        params![session_id, reviewer, case_id],
    )?;
    Ok(())
}

/// (item number, case id) of a reviewer's items, in item order.
pub fn assignments_of(conn: &Connection, session_id: &str, reviewer: &str) -> ApiResult<Vec<(u32, String)>> {
    let mut stmt = conn.prepare(
        "SELECT item_no, case_id FROM review_assignments WHERE session_id = ?1 AND reviewer = ?2 ORDER BY item_no",
    )?;
    let rows = stmt
        .query_map(params![session_id, reviewer], |r| Ok((r.get::<_, i64>(0)?.max(0) as u32, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

const ANSWER_COLS: &str =
    "a.realism, a.realism_at, a.plausibility, a.plausibility_at, a.blind_verdict, a.blind_verdict_at, a.revealed_at,
     a.agree, a.agree_at, a.comment, a.comment_at, a.time_spent_secs, a.time_spent_at,
     a.rationale_established_json, a.rationale_at,
     (SELECT i.rationale_json IS NOT NULL FROM review_items i WHERE i.session_id = a.session_id AND i.case_id = a.case_id)";

/// The stored ticks of the rationale task, as they were written (unreadable JSON reads as none).
type RawRecord = (AnswerRecord, Option<String>, Option<String>);

/// Columns read at `base..base+16` of a row into a record (the verdict and the rationale ticks as
/// text, checked later).
fn record_from(r: &Row<'_>, base: usize) -> rusqlite::Result<RawRecord> {
    let rating = |i: usize| -> rusqlite::Result<Option<u8>> {
        Ok(r.get::<_, Option<i64>>(base + i)?.map(|v| v.clamp(0, 255) as u8))
    };
    Ok((
        AnswerRecord {
            parts: AnswerParts {
                realism: rating(0)?,
                realism_at: r.get(base + 1)?,
                plausibility: rating(2)?,
                plausibility_at: r.get(base + 3)?,
                blind_verdict: None,
                blind_verdict_at: r.get(base + 5)?,
                revealed_at: r.get(base + 6)?,
                agree: r.get::<_, Option<i64>>(base + 7)?.map(|v| v != 0),
                agree_at: r.get(base + 8)?,
                comment: r.get(base + 9)?,
                comment_at: r.get(base + 10)?,
                rationale_established: None,
                rationale_at: r.get(base + 14)?,
            },
            time_spent_secs: r.get(base + 11)?,
            time_spent_at: r.get(base + 12)?,
            rationale_required: r.get::<_, Option<bool>>(base + 15)?.unwrap_or(false),
        },
        r.get(base + 4)?,
        r.get(base + 13)?,
    ))
}

fn finish_record((mut rec, verdict, ticks): RawRecord) -> ApiResult<AnswerRecord> {
    rec.blind_verdict = match verdict {
        Some(v) => Some(ReviewVerdict::parse(&v).ok_or_else(|| corrupt("answer"))?),
        None => None,
    };
    rec.rationale_established = match ticks {
        Some(j) => Some(serde_json::from_str(&j).map_err(|_| corrupt("answer"))?),
        None => None,
    };
    Ok(rec)
}

pub fn answer(conn: &Connection, session_id: &str, reviewer: &str, case_id: &str) -> ApiResult<AnswerRecord> {
    let row = conn
        .query_row(
            &format!("SELECT {ANSWER_COLS} FROM review_answers a WHERE a.session_id = ?1 AND a.reviewer = ?2 AND a.case_id = ?3"),
            params![session_id, reviewer, case_id],
            |r| record_from(r, 0),
        )
        .optional()?;
    finish_record(row.ok_or_else(|| corrupt("answer"))?)
}

pub fn write_answer(
    conn: &Connection,
    session_id: &str,
    reviewer: &str,
    case_id: &str,
    a: &AnswerRecord,
) -> ApiResult<()> {
    conn.execute(
        "UPDATE review_answers SET realism = ?4, realism_at = ?5, plausibility = ?6, plausibility_at = ?7, blind_verdict = ?8,
                blind_verdict_at = ?9, revealed_at = ?10, agree = ?11, agree_at = ?12, comment = ?13, comment_at = ?14,
                time_spent_secs = ?15, time_spent_at = ?16, rationale_established_json = ?17, rationale_at = ?18
         WHERE session_id = ?1 AND reviewer = ?2 AND case_id = ?3",
        params![
            session_id,
            reviewer,
            case_id,
            a.realism.map(|v| v as i64),
            a.realism_at,
            a.plausibility.map(|v| v as i64),
            a.plausibility_at,
            a.blind_verdict.map(|v| v.as_str()),
            a.blind_verdict_at,
            a.revealed_at,
            a.agree.map(|v| v as i64),
            a.agree_at,
            a.comment,
            a.comment_at,
            a.time_spent_secs,
            a.time_spent_at,
            to_json_opt(&a.rationale_established)?,
            a.rationale_at
        ],
    )?;
    Ok(())
}

/// Answers of one reviewer (or all reviewers), with item numbers, in reviewer then item order.
pub fn answers(conn: &Connection, session_id: &str, reviewer: Option<&str>) -> ApiResult<Vec<AnswerRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT s.reviewer, s.item_no, s.case_id, {ANSWER_COLS}
         FROM review_assignments s
         JOIN review_answers a ON a.session_id = s.session_id AND a.reviewer = s.reviewer AND a.case_id = s.case_id
         JOIN review_reviewers v ON v.session_id = s.session_id AND v.reviewer = s.reviewer
         WHERE s.session_id = ?1 AND (?2 IS NULL OR s.reviewer = ?2)
         ORDER BY v.ord, s.reviewer, s.item_no"
    ))?;
    let rows = stmt
        .query_map(params![session_id, reviewer], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?, record_from(r, 3)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(reviewer, item_no, case_id, rec)| {
            Ok(AnswerRow { reviewer, item_no: item_no.max(0) as u32, case_id, record: finish_record(rec)? })
        })
        .collect()
}

pub fn insert_token(
    conn: &Connection,
    token_hash: &str,
    session_id: &str,
    reviewer: &str,
    kind: &str,
    now: &str,
) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO review_tokens (token_hash, session_id, reviewer, kind, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(token_hash) DO UPDATE SET revoked_at = NULL",
        params![token_hash, session_id, reviewer, kind, now],
    )?;
    Ok(())
}

/// Revoke a reviewer's active tokens of a kind; returns how many were active.
pub fn revoke_tokens(conn: &Connection, session_id: &str, reviewer: &str, kind: &str, now: &str) -> ApiResult<usize> {
    Ok(conn.execute(
        "UPDATE review_tokens SET revoked_at = ?4 WHERE session_id = ?1 AND reviewer = ?2 AND kind = ?3 AND revoked_at IS NULL",
        params![session_id, reviewer, kind, now],
    )?)
}

pub fn active_tokens(conn: &Connection, session_id: &str, reviewer: &str, kind: &str) -> ApiResult<u32> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM review_tokens WHERE session_id = ?1 AND reviewer = ?2 AND kind = ?3 AND revoked_at IS NULL",
        params![session_id, reviewer, kind],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u32)
}

pub fn token(conn: &Connection, token_hash: &str) -> ApiResult<Option<TokenRow>> {
    Ok(conn
        .query_row(
            "SELECT session_id, reviewer, kind, revoked_at IS NOT NULL FROM review_tokens WHERE token_hash = ?1",
            [token_hash],
            |r| Ok(TokenRow { session_id: r.get(0)?, reviewer: r.get(1)?, kind: r.get(2)?, revoked: r.get(3)? }),
        )
        .optional()?)
}

/// One adjudication decision to record.
#[derive(Clone, Copy)]
pub struct NewAdjudication<'a> {
    pub session_id: &'a str,
    pub case_id: &'a str,
    pub decision: &'a AdjudicationDecision,
    pub adjudicator: &'a str,
    pub note: Option<&'a str>,
    pub now: &'a str,
    /// The decision took the case out of runs, or brought it back.
    pub excluded_case: bool,
    pub restored_case: bool,
}

pub fn insert_adjudication(conn: &Connection, a: &NewAdjudication<'_>) -> ApiResult<i64> {
    let NewAdjudication { session_id, case_id, decision, adjudicator, note, now, excluded_case, restored_case } = *a;
    let verdict = match decision {
        AdjudicationDecision::Relabel { verdict } => Some(verdict.as_str()),
        _ => None,
    };
    conn.execute(
        "INSERT INTO review_adjudications (session_id, case_id, decision, verdict, adjudicator, note, decided_at, excluded_case, restored_case)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![session_id, case_id, decision.kind(), verdict, adjudicator, note, now, excluded_case as i64, restored_case as i64],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Decisions of a session (or of one case), oldest first, each marked superseded when a later
/// decision on the same case exists.
pub fn adjudications(conn: &Connection, session_id: &str, case_id: Option<&str>) -> ApiResult<Vec<ReviewAdjudication>> {
    let mut stmt = conn.prepare(
        "SELECT id, case_id, decision, verdict, adjudicator, note, decided_at, excluded_case, restored_case,
                EXISTS (SELECT 1 FROM review_adjudications b WHERE b.session_id = a.session_id AND b.case_id = a.case_id AND b.id > a.id)
         FROM review_adjudications a WHERE session_id = ?1 AND (?2 IS NULL OR case_id = ?2) ORDER BY id",
    )?;
    let rows = stmt
        .query_map(params![session_id, case_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, bool>(7)?,
                r.get::<_, bool>(8)?,
                r.get::<_, bool>(9)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(id, case_id, kind, verdict, adjudicator, note, decided_at, excluded_case, restored_case, superseded)| {
            let decision = match (kind.as_str(), verdict.as_deref().and_then(ReviewVerdict::parse)) {
                ("accept", _) => AdjudicationDecision::Accept,
                ("reject", _) => AdjudicationDecision::Reject,
                ("relabel", Some(v)) => AdjudicationDecision::Relabel { verdict: v },
                _ => return Err(corrupt("decision")),
            };
            Ok(ReviewAdjudication {
                id: id.max(0) as u32,
                session_id: session_id.to_string(),
                case_id,
                decision,
                adjudicator,
                note,
                decided_at,
                excluded_case,
                restored_case,
                superseded,
            })
        })
        .collect()
}

/// A minimal item for the pure functions' unit tests.
#[cfg(test)]
pub(crate) fn test_item(case_id: &str, case_type: CaseType, expected: ReviewVerdict) -> ItemRow {
    ItemRow {
        case_id: case_id.into(),
        ord: 0,
        case_type,
        clause_id: "C".into(),
        expected,
        narrative: String::new(),
        reveal: RevealMaterial {
            case_id: case_id.into(),
            case_type,
            expected_verdict: expected,
            explanation: String::new(),
            clause_label: None,
            clause_id: "C".into(),
            card_id: "K".into(),
            card_definition: None,
            legal_basis: vec![],
            legal_basis_meaning: None,
            boundary_conditions: vec![],
            withheld_elements: vec![],
            missing_summary: None,
            why_not_classifiable: None,
        },
        rationale: None,
        rationale_source: None,
    }
}
