//! The card library in the store: every edit is a new version (old ones kept), with an audit
//! status, the auditor's name and notes, and an audit log.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{AuditStatus, ClauseCard};
use crate::error::{ApiError, ApiResult};
use crate::util::now_rfc3339;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardRow {
    pub card_id: String,
    pub policy_id: String,
    pub clause_id: String,
    pub event_type: String,
    pub current_version: i64,
    pub status: String,
    pub auditor: Option<String>,
    pub audit_notes: Option<String>,
    pub audited_at: Option<String>,
    pub origin: String,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardVersion {
    pub version: i64,
    pub author: String,
    pub note: Option<String>,
    pub created_at: String,
    pub content_sha: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AuditEntry {
    pub version: i64,
    pub status: String,
    pub auditor: String,
    pub notes: Option<String>,
    pub at: String,
}

pub fn content_sha(json: &str) -> String {
    // Hash the compact form so whitespace changes are not new content.
    let compact = serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|v| serde_json::to_string(&v).ok())
        .unwrap_or_else(|| json.to_string());
    hex::encode(Sha256::digest(compact.as_bytes()))
}

const ROW_COLS: &str = "card_id, policy_id, clause_id, event_type, current_version, status, auditor, audit_notes, audited_at, origin, created_at, updated_at";

fn row(r: &Row<'_>) -> rusqlite::Result<CardRow> {
    Ok(CardRow {
        card_id: r.get(0)?,
        policy_id: r.get(1)?,
        clause_id: r.get(2)?,
        event_type: r.get(3)?,
        current_version: r.get(4)?,
        status: r.get(5)?,
        auditor: r.get(6)?,
        audit_notes: r.get(7)?,
        audited_at: r.get(8)?,
        origin: r.get(9)?,
        created_at: r.get(10)?,
        updated_at: r.get(11)?,
    })
}

/// How many cards belong to a policy pack.
pub fn count_for_policy(conn: &Connection, policy_id: &str) -> ApiResult<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM cards WHERE policy_id = ?1", [policy_id], |r| r.get(0))?)
}

/// How many cards there are per audit status, by status.
pub fn count_by_status(conn: &Connection) -> ApiResult<Vec<(String, i64)>> {
    let mut stmt = conn.prepare("SELECT status, count(*) FROM cards GROUP BY status ORDER BY status")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// How many cards there are per event type, by type.
pub fn count_by_event_type(conn: &Connection) -> ApiResult<Vec<(String, i64)>> {
    let mut stmt = conn.prepare("SELECT event_type, count(*) FROM cards GROUP BY event_type ORDER BY event_type")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn get_row(conn: &Connection, card_id: &str) -> ApiResult<Option<CardRow>> {
    Ok(conn.query_row(&format!("SELECT {ROW_COLS} FROM cards WHERE card_id = ?1"), [card_id], row).optional()?)
}

pub fn require_row(conn: &Connection, card_id: &str) -> ApiResult<CardRow> {
    get_row(conn, card_id)?
        .ok_or_else(|| ApiError::not_found(format!("There is no card \"{card_id}\" in the library.")))
}

pub fn list_rows(conn: &Connection, policy_id: Option<&str>, clause_id: Option<&str>) -> ApiResult<Vec<CardRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {ROW_COLS} FROM cards WHERE (?1 IS NULL OR policy_id = ?1) AND (?2 IS NULL OR clause_id = ?2)
         ORDER BY policy_id, clause_id, card_id"
    ))?;
    let rows = stmt.query_map(params![policy_id, clause_id], row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The JSON of a card at a version (the current one when `version` is None).
/// The current version of a card as stored.
pub const CARD_JSON: crate::store::StoredColumn = crate::store::StoredColumn {
    table: "card_versions",
    column: "card_json",
    what: "current version",
    row_kind: "card",
};

pub fn card_json(conn: &Connection, card_id: &str, version: Option<i64>) -> ApiResult<String> {
    let json: Option<String> = match version {
        Some(v) => conn
            .query_row("SELECT card_json FROM card_versions WHERE card_id = ?1 AND version = ?2", params![card_id, v], |r| r.get(0))
            .optional()?,
        None => conn
            .query_row(
                "SELECT v.card_json FROM card_versions v JOIN cards c ON c.card_id = v.card_id AND c.current_version = v.version
                 WHERE c.card_id = ?1",
                [card_id],
                |r| r.get(0),
            )
            .optional()?,
    };
    json.ok_or_else(|| match version {
        Some(v) => ApiError::not_found(format!("Card \"{card_id}\" has no version {v}.")),
        None => ApiError::not_found(format!("There is no card \"{card_id}\" in the library.")),
    })
}

/// Every current card of a policy as (row, json), in one query.
pub fn current_cards(conn: &Connection, policy_id: &str) -> ApiResult<Vec<(CardRow, String)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {}, v.card_json FROM cards c JOIN card_versions v ON v.card_id = c.card_id AND v.version = c.current_version
         WHERE c.policy_id = ?1 ORDER BY c.clause_id, c.card_id",
        ROW_COLS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ")
    ))?;
    let rows =
        stmt.query_map([policy_id], |r| Ok((row(r)?, r.get::<_, String>(12)?)))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub struct NewCard<'a> {
    pub policy_id: &'a str,
    pub card: &'a ClauseCard,
    pub json: &'a str,
    pub status: AuditStatus,
    pub auditor: Option<&'a str>,
    pub origin: &'a str,
    pub author: &'a str,
    pub note: Option<&'a str>,
}

/// Insert a card that is not yet stored (version 1).
pub fn insert_card(conn: &Connection, n: &NewCard<'_>) -> ApiResult<()> {
    let now = now_rfc3339();
    let audited_at = n.auditor.map(|_| now.clone());
    conn.execute(
        "INSERT INTO cards (card_id, policy_id, clause_id, event_type, current_version, status, auditor, audit_notes,
                            audited_at, origin, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, NULL, ?7, ?8, ?9, ?9)",
        params![
            n.card.clause_card_id,
            n.policy_id,
            n.card.clause_id,
            n.card.event_type.as_str(),
            n.status.as_str(),
            n.auditor,
            audited_at,
            n.origin,
            now
        ],
    )?;
    conn.execute(
        "INSERT INTO card_versions (card_id, version, card_json, content_sha, author, note, created_at)
         VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6)",
        params![n.card.clause_card_id, n.json, content_sha(n.json), n.author, n.note, now],
    )?;
    if let Some(a) = n.auditor {
        conn.execute(
            "INSERT INTO card_audit_log (card_id, version, status, auditor, notes, at) VALUES (?1, 1, ?2, ?3, ?4, ?5)",
            params![n.card.clause_card_id, n.status.as_str(), a, n.note, now],
        )?;
    }
    Ok(())
}

/// New content for a stored card: who wrote it, why, and the audit status it returns to.
#[derive(Clone, Copy)]
pub struct NewVersion<'a> {
    pub card: &'a ClauseCard,
    pub json: &'a str,
    pub author: &'a str,
    pub note: Option<&'a str>,
    pub status: AuditStatus,
    pub auditor: Option<&'a str>,
    pub origin: &'a str,
}

/// Store new content for an existing card as a new version. Returns the new version number, or
/// None when the content is unchanged. The audit status goes back to `status`.
pub fn add_version(conn: &Connection, v: &NewVersion<'_>) -> ApiResult<Option<i64>> {
    let NewVersion { card, json, author, note, status, auditor, origin } = *v;
    let current = require_row(conn, &card.clause_card_id)?;
    let sha = content_sha(json);
    let cur_sha: String = conn.query_row(
        "SELECT content_sha FROM card_versions WHERE card_id = ?1 AND version = ?2",
        params![card.clause_card_id, current.current_version],
        |r| r.get(0),
    )?;
    if cur_sha == sha {
        return Ok(None);
    }
    let version = current.current_version + 1;
    let now = now_rfc3339();
    conn.execute(
        "INSERT INTO card_versions (card_id, version, card_json, content_sha, author, note, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![card.clause_card_id, version, json, sha, author, note, now],
    )?;
    conn.execute(
        "UPDATE cards SET current_version = ?2, clause_id = ?3, event_type = ?4, status = ?5, auditor = ?6,
                audit_notes = NULL, audited_at = CASE WHEN ?6 IS NULL THEN NULL ELSE ?7 END, origin = ?8, updated_at = ?7
         WHERE card_id = ?1",
        params![card.clause_card_id, version, card.clause_id, card.event_type.as_str(), status.as_str(), auditor, now, origin],
    )?;
    if let Some(a) = auditor {
        conn.execute(
            "INSERT INTO card_audit_log (card_id, version, status, auditor, notes, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![card.clause_card_id, version, status.as_str(), a, note, now],
        )?;
    }
    Ok(Some(version))
}

pub fn set_audit(
    conn: &Connection,
    card_id: &str,
    status: AuditStatus,
    auditor: &str,
    notes: Option<&str>,
) -> ApiResult<CardRow> {
    let row0 = require_row(conn, card_id)?;
    let now = now_rfc3339();
    conn.execute(
        "UPDATE cards SET status = ?2, auditor = ?3, audit_notes = ?4, audited_at = ?5, updated_at = ?5 WHERE card_id = ?1",
        params![card_id, status.as_str(), auditor, notes, now],
    )?;
    conn.execute(
        "INSERT INTO card_audit_log (card_id, version, status, auditor, notes, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![card_id, row0.current_version, status.as_str(), auditor, notes, now],
    )?;
    require_row(conn, card_id)
}

pub fn versions(conn: &Connection, card_id: &str) -> ApiResult<Vec<CardVersion>> {
    let mut stmt = conn.prepare(
        "SELECT version, author, note, created_at, content_sha FROM card_versions WHERE card_id = ?1 ORDER BY version DESC",
    )?;
    let rows = stmt
        .query_map([card_id], |r| {
            Ok(CardVersion {
                version: r.get(0)?,
                author: r.get(1)?,
                note: r.get(2)?,
                created_at: r.get(3)?,
                content_sha: r.get(4)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn audit_log(conn: &Connection, card_id: &str) -> ApiResult<Vec<AuditEntry>> {
    let mut stmt = conn.prepare(
        "SELECT version, status, auditor, notes, at FROM card_audit_log WHERE card_id = ?1 ORDER BY id DESC",
    )?;
    let rows = stmt
        .query_map([card_id], |r| {
            Ok(AuditEntry {
                version: r.get(0)?,
                status: r.get(1)?,
                auditor: r.get(2)?,
                notes: r.get(3)?,
                at: r.get(4)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
