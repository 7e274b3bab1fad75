//! Policy packs and imported official text in the store.

use rusqlite::{params, Connection, OptionalExtension};

use super::{OfficialSection, PolicyPack};
use crate::error::{ApiError, ApiResult};
use crate::util::now_rfc3339;

/// Insert or refresh a built-in pack (official text imported by the user is kept).
pub fn upsert_pack(conn: &Connection, pack: &PolicyPack, builtin: bool) -> ApiResult<()> {
    let json = serde_json::to_string(pack)
        .map_err(|e| ApiError::internal(format!("pack {} could not be encoded: {e}", pack.id)))?;
    let now = now_rfc3339();
    conn.execute(
        "INSERT INTO policies (id, name, edition, pack_json, builtin, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, edition = excluded.edition,
             pack_json = excluded.pack_json, builtin = excluded.builtin, updated_at = excluded.updated_at
         WHERE policies.pack_json <> excluded.pack_json",
        params![pack.id, pack.name, pack.edition, json, builtin as i64, now],
    )?;
    Ok(())
}

pub fn load_pack(conn: &Connection, id: &str) -> ApiResult<PolicyPack> {
    let json: Option<String> =
        conn.query_row("SELECT pack_json FROM policies WHERE id = ?1", [id], |r| r.get(0)).optional()?;
    let json = json.ok_or_else(|| ApiError::not_found(format!("There is no policy pack \"{id}\" in this store.")))?;
    serde_json::from_str(&json).map_err(|e| ApiError::internal(format!("stored pack {id} is unreadable: {e}")))
}

pub fn list_pack_ids(conn: &Connection) -> ApiResult<Vec<String>> {
    let mut stmt = conn.prepare("SELECT id FROM policies ORDER BY id")?;
    let ids = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    Ok(ids)
}

pub fn official_sections(conn: &Connection, policy_id: &str) -> ApiResult<Vec<OfficialSection>> {
    let mut stmt = conn.prepare(
        "SELECT source, ord, level, heading, evidence_id, matched, body, file_name, imported_at
         FROM policy_official_sections WHERE policy_id = ?1 ORDER BY source, ord",
    )?;
    let rows = stmt
        .query_map([policy_id], |r| {
            Ok(OfficialSection {
                source: r.get(0)?,
                ord: r.get(1)?,
                level: r.get(2)?,
                heading: r.get(3)?,
                evidence_id: r.get(4)?,
                matched: r.get::<_, i64>(5)? != 0,
                body: r.get(6)?,
                file_name: r.get(7)?,
                imported_at: r.get(8)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Replace the official sections of one source document (`clauses` or `guidance`).
pub fn replace_official_sections(
    conn: &Connection,
    policy_id: &str,
    source: &str,
    sections: &[OfficialSection],
) -> ApiResult<()> {
    conn.execute(
        "DELETE FROM policy_official_sections WHERE policy_id = ?1 AND source = ?2",
        params![policy_id, source],
    )?;
    let mut stmt = conn.prepare(
        "INSERT INTO policy_official_sections
         (policy_id, source, ord, level, heading, evidence_id, matched, body, file_name, imported_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for s in sections {
        stmt.execute(params![
            policy_id,
            source,
            s.ord,
            s.level,
            s.heading,
            s.evidence_id,
            s.matched as i64,
            s.body,
            s.file_name,
            s.imported_at
        ])?;
    }
    Ok(())
}

/// Store a pack written by a user (refused by the primary key if the id exists).
pub fn insert_user_pack(conn: &Connection, pack: &PolicyPack) -> ApiResult<()> {
    let json = serde_json::to_string(pack)
        .map_err(|e| ApiError::internal(format!("pack {} could not be encoded: {e}", pack.id)))?;
    let now = now_rfc3339();
    let n = conn.execute(
        "INSERT INTO policies (id, name, edition, pack_json, builtin, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5) ON CONFLICT(id) DO NOTHING",
        params![pack.id, pack.name, pack.edition, json, now],
    )?;
    if n == 0 {
        return Err(ApiError::conflict(format!("There is already a policy pack \"{}\"; choose another id.", pack.id)));
    }
    Ok(())
}

/// `Some(true)` for a built-in pack, `Some(false)` for a user pack, `None` when there is none.
pub fn is_builtin(conn: &Connection, id: &str) -> ApiResult<Option<bool>> {
    let b: Option<i64> = conn.query_row("SELECT builtin FROM policies WHERE id = ?1", [id], |r| r.get(0)).optional()?;
    Ok(b.map(|b| b != 0))
}

/// Delete a user pack and its official text. What other modules made from the pack (cards,
/// cases, extractions) is theirs to check or delete first: `api::removals::policy_delete` does.
pub fn delete_pack(conn: &Connection, id: &str) -> ApiResult<()> {
    conn.execute("DELETE FROM policy_official_sections WHERE policy_id = ?1", [id])?;
    conn.execute("DELETE FROM policies WHERE id = ?1 AND builtin = 0", [id])?;
    Ok(())
}
