//! Anchors in the store.

use rusqlite::{params, Connection, OptionalExtension, Row};
use sha2::{Digest, Sha256};

use super::{Anchor, AnchorFilter, AnchorSummary};
use crate::error::{ApiError, ApiResult};
use crate::util::now_rfc3339;

/// The duplicate key of an anchor: its text with runs of whitespace collapsed.
pub fn content_sha(text: &str) -> String {
    let norm = text.split_whitespace().collect::<Vec<_>>().join(" ");
    hex::encode(Sha256::digest(norm.as_bytes()))
}

const COLS: &str =
    "anchor_id, text, source, language, clause_id, bucket_origin, bucket_note, original_text, original_language, \
                    translated_by, content_sha, origin, file_name, created_at, updated_at";

fn row(r: &Row<'_>) -> rusqlite::Result<Anchor> {
    Ok(Anchor {
        anchor_id: r.get(0)?,
        text: r.get(1)?,
        source: r.get(2)?,
        language: r.get(3)?,
        clause_id: r.get(4)?,
        bucket_origin: r.get(5)?,
        bucket_note: r.get(6)?,
        original_text: r.get(7)?,
        original_language: r.get(8)?,
        translated_by: r.get(9)?,
        content_sha: r.get(10)?,
        origin: r.get(11)?,
        file_name: r.get(12)?,
        created_at: r.get(13)?,
        updated_at: r.get(14)?,
    })
}

pub fn get(conn: &Connection, id: &str) -> ApiResult<Option<Anchor>> {
    Ok(conn.query_row(&format!("SELECT {COLS} FROM anchors WHERE anchor_id = ?1"), [id], row).optional()?)
}

pub fn require(conn: &Connection, id: &str) -> ApiResult<Anchor> {
    get(conn, id)?.ok_or_else(|| ApiError::not_found(format!("There is no anchor \"{id}\" in this store.")))
}

pub fn by_sha(conn: &Connection, sha: &str) -> ApiResult<Option<String>> {
    Ok(conn.query_row("SELECT anchor_id FROM anchors WHERE content_sha = ?1", [sha], |r| r.get(0)).optional()?)
}

pub struct NewAnchor<'a> {
    pub anchor_id: &'a str,
    pub text: &'a str,
    pub source: &'a str,
    pub language: &'a str,
    pub clause_id: Option<&'a str>,
    pub bucket_origin: Option<&'a str>,
    pub origin: &'a str,
    pub file_name: Option<&'a str>,
}

pub fn insert(conn: &Connection, a: &NewAnchor<'_>) -> ApiResult<()> {
    let now = now_rfc3339();
    conn.execute(
        "INSERT INTO anchors (anchor_id, text, source, language, clause_id, bucket_origin, content_sha, origin, file_name, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
        params![a.anchor_id, a.text, a.source, a.language, a.clause_id, a.bucket_origin, content_sha(a.text), a.origin, a.file_name, now],
    )?;
    Ok(())
}

/// Refresh a built-in anchor's text and source (its bucket too, unless a person changed it).
pub fn refresh_builtin(conn: &Connection, a: &NewAnchor<'_>) -> ApiResult<()> {
    conn.execute(
        "UPDATE anchors SET text = ?2, source = ?3, language = ?4, content_sha = ?5, updated_at = ?6,
                clause_id = CASE WHEN bucket_origin = 'builtin' THEN ?7 ELSE clause_id END
         WHERE anchor_id = ?1 AND origin = 'builtin' AND content_sha <> ?5",
        params![a.anchor_id, a.text, a.source, a.language, content_sha(a.text), now_rfc3339(), a.clause_id],
    )?;
    Ok(())
}

pub fn set_bucket(
    conn: &Connection,
    id: &str,
    clause_id: Option<&str>,
    origin: &str,
    note: Option<&str>,
) -> ApiResult<()> {
    conn.execute(
        "UPDATE anchors SET clause_id = ?2, bucket_origin = CASE WHEN ?2 IS NULL THEN NULL ELSE ?3 END, bucket_note = ?4, updated_at = ?5
         WHERE anchor_id = ?1",
        params![id, clause_id, origin, note, now_rfc3339()],
    )?;
    Ok(())
}

pub fn set_translation(conn: &Connection, id: &str, translation: &str, model: &str) -> ApiResult<()> {
    conn.execute(
        "UPDATE anchors SET original_text = text, original_language = language, text = ?2, language = 'en',
                translated_by = ?3, updated_at = ?4
         WHERE anchor_id = ?1 AND original_text IS NULL",
        params![id, translation, model, now_rfc3339()],
    )?;
    Ok(())
}

pub fn remove(conn: &Connection, id: &str) -> ApiResult<bool> {
    Ok(conn.execute("DELETE FROM anchors WHERE anchor_id = ?1", [id])? > 0)
}

pub fn list(conn: &Connection, f: &AnchorFilter) -> ApiResult<Vec<Anchor>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLS} FROM anchors
         WHERE (?1 IS NULL OR clause_id = ?1) AND (?2 IS NULL OR origin = ?2) AND (?3 = 0 OR clause_id IS NULL)
           AND (?4 IS NULL OR language = ?4)
         ORDER BY coalesce(clause_id, ''), anchor_id"
    ))?;
    let rows = stmt
        .query_map(params![f.clause_id, f.origin, f.unbucketed_only as i64, f.language], row)?
        .collect::<Result<Vec<_>, _>>()?;
    let words: Vec<String> = f.search.as_deref().unwrap_or("").split_whitespace().map(str::to_lowercase).collect();
    if words.is_empty() {
        return Ok(rows);
    }
    Ok(rows.into_iter().filter(|a| matches_words(a, &words)).collect())
}

/// Whether every word occurs in the anchor's text, original text, id or source (lower-cased).
fn matches_words(a: &Anchor, words: &[String]) -> bool {
    let hay = format!(
        "{}\n{}\n{}\n{}",
        a.text.to_lowercase(),
        a.original_text.as_deref().unwrap_or("").to_lowercase(),
        a.anchor_id.to_lowercase(),
        a.source.to_lowercase()
    );
    words.iter().all(|w| hay.contains(w.as_str()))
}

pub fn summary(a: &Anchor) -> AnchorSummary {
    let preview: String = a.text.split_whitespace().take(24).collect::<Vec<_>>().join(" ");
    AnchorSummary {
        anchor_id: a.anchor_id.clone(),
        clause_id: a.clause_id.clone(),
        bucket_origin: a.bucket_origin.clone(),
        source: a.source.clone(),
        language: a.language.clone(),
        origin: a.origin.clone(),
        translated: a.original_text.is_some(),
        words: a.text.split_whitespace().count() as u32,
        preview,
    }
}

/// Anchors per topical bucket (clause id, or None for unsorted).
pub fn bucket_counts(conn: &Connection) -> ApiResult<Vec<(Option<String>, String, u32)>> {
    let mut stmt = conn.prepare(
        "SELECT clause_id, origin, count(*) FROM anchors GROUP BY clause_id, origin ORDER BY clause_id, origin",
    )?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, Option<String>>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)? as u32)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
