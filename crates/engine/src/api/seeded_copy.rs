//! A new store that already holds what the first open seeds (built-in policies, library and
//! anchors), made by copying a template: for test suites that create hundreds of stores, where
//! seeding each one costs over a second in a debug build. Only with the `mock` feature.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::context::Engine;
use crate::error::{ApiError, ApiResult};

/// Unless a store is already at `db`, put there a copy of a store that was created and seeded by
/// this build (once per process). Opening the copy is opening a store from an earlier start: its
/// seed fingerprints match, so nothing is seeded again. Tests of first creation and seeding
/// start from an empty path instead.
pub fn put_seeded_store(db: &Path) -> ApiResult<()> {
    static TEMPLATE: OnceLock<Result<(tempfile::TempDir, PathBuf), String>> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| make_template().map_err(|e| e.to_string()));
    let (_, template) = template.as_ref().map_err(|e| ApiError::internal(format!("seeded store template: {e}")))?;
    if db.exists() {
        return Ok(());
    }
    if let Some(parent) = db.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
    }
    std::fs::copy(template, db).map_err(|e| io_error(db, e))?;
    Ok(())
}

fn io_error(path: &Path, e: std::io::Error) -> ApiError {
    ApiError::internal(format!("{}: {e}", path.display()))
}

fn make_template() -> ApiResult<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().map_err(|e| io_error(&std::env::temp_dir(), e))?;
    let path = dir.path().join("template.db");
    drop(Engine::open(&path)?);
    // Leave WAL mode so the template is one self-contained file; this needs every connection to
    // it closed, so it also proves the engine above let go of it.
    let conn = rusqlite::Connection::open(&path)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=DELETE", [], |r| r.get(0))?;
    if mode != "delete" {
        return Err(ApiError::internal(format!("the template store stayed in {mode} mode")));
    }
    Ok((dir, path))
}
