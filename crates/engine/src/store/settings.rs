//! The `settings` table: one text value per key, for any module that keeps a small fact in the
//! store (built-in fingerprints, the review signing key). The store owns the table; modules own
//! their keys.

use rusqlite::{params, Connection, OptionalExtension};

/// The value stored under `key`, if any.
pub fn get(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).optional()
}

/// Store `value` under `key`, replacing what was there.
pub fn set(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// Store `value` under `key` unless the key already has a value (the first writer wins).
pub fn set_if_absent(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO NOTHING", params![key, value])?;
    Ok(())
}
