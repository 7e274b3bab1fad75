//! Embedded, timestamped schema changes. Each runs in its own transaction and is recorded in
//! `schema_migrations`; a database that records a change this build does not know is refused.

use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};

use super::{OpenReport, StoreError};

pub struct Migration {
    /// `YYYYMMDDHHMMSS_name`, sorted by time.
    pub id: &'static str,
    pub sql: &'static str,
}

macro_rules! migration {
    ($id:literal) => {
        Migration { id: $id, sql: include_str!(concat!("../../migrations/", $id, ".sql")) }
    };
}

/// All schema changes this build knows, oldest first.
pub static MIGRATIONS: &[Migration] = &[
    migration!("20261122070000_policies_and_cards"),
    migration!("20261122070100_cases_and_official_text"),
    migration!("20261122090000_models_cache_calls"),
    migration!("20261122100000_runs_and_trajectories"),
    migration!("20261124090000_anchors_and_generation"),
    migration!("20261124120000_review"),
    migration!("20261125150000_case_counts_index"),
    migration!("20261125180000_review_closing"),
    migration!("20261125181000_run_claims"),
    migration!("20261125182000_pack_seals_and_key_links"),
    migration!("20261125200000_author_extractions"),
    migration!("20261125210000_author_drafts"),
    migration!("20261125210100_runs_authoring_kind"),
    migration!("20261125220000_clause_screen_stage"),
    migration!("20261125220100_label_audit"),
    migration!("20261125223000_review_rationale_task"),
    migration!("20261126020000_anchor_jobs"),
    migration!("20261126030000_llm_batches"),
    migration!("20261128090000_run_kinds_checked_in_rust"),
    migration!("20261128100000_call_ledger"),
    migration!("20261129090000_tables_named_for_their_concept"),
    migration!("20261129100000_models_simulation"),
    migration!("20261129120000_change_counters"),
    migration!("20261129130000_extraction_failures"),
];

const BOOKKEEPING: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    id          TEXT PRIMARY KEY,
    applied_at  TEXT NOT NULL,
    app_version TEXT NOT NULL
)";

pub(super) fn applied(conn: &Connection) -> Result<Vec<String>, rusqlite::Error> {
    let exists: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
        [],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare("SELECT id FROM schema_migrations ORDER BY id")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    rows.collect()
}

fn backup_path(path: &Path, last: &str) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("psebench.db");
    let schema = last.split('_').next().unwrap_or("0");
    path.with_file_name(format!("{name}.before-upgrade-{schema}-{stamp}.bak"))
}

/// First line of a migration that must run with foreign keys off (it rebuilds a table).
const FOREIGN_KEYS_OFF: &str = "-- psebench: foreign-keys-off";

fn apply(conn: &mut Connection, m: &Migration, check_references: bool) -> Result<(), StoreError> {
    let failed = |message: String| {
        tracing::error!(migration = m.id, error = %message, "a schema change failed; it was rolled back");
        StoreError::Migration { migration: m.id.to_string(), message }
    };
    let tx = conn.transaction()?;
    tracing::debug!(migration = m.id, "applying a schema change");
    tx.execute_batch(m.sql).map_err(|e| failed(e.to_string()))?;
    if check_references {
        let broken: i64 = tx.query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |r| r.get(0))?;
        if broken > 0 {
            return Err(failed(format!(
                "{} would point at rows that no longer exist",
                crate::util::format::count(broken, "row")
            )));
        }
    }
    tx.execute(
        "INSERT INTO schema_migrations (id, applied_at, app_version) VALUES (?1, ?2, ?3)",
        params![m.id, crate::util::now_rfc3339(), crate::version()],
    )?;
    tx.commit()?;
    Ok(())
}

pub(super) fn migrate(
    conn: &mut Connection,
    path: &Path,
    existed: bool,
    upto: usize,
) -> Result<OpenReport, StoreError> {
    let done = applied(conn)?;
    let known: Vec<&str> = MIGRATIONS.iter().map(|m| m.id).collect();
    if let Some(unknown) = done.iter().find(|id| !known.contains(&id.as_str())) {
        return Err(StoreError::NewerSchema { path: path.display().to_string(), found: unknown.clone() });
    }
    let pending: Vec<&Migration> =
        MIGRATIONS[..upto.min(MIGRATIONS.len())].iter().filter(|m| !done.iter().any(|d| d == m.id)).collect();
    let mut report = OpenReport { created: !existed, ..Default::default() };
    if pending.is_empty() {
        return Ok(report);
    }
    // Existing data gets a full copy before anything changes.
    if existed && !done.is_empty() {
        let target = backup_path(path, done.last().map(String::as_str).unwrap_or("0"));
        conn.backup(rusqlite::MAIN_DB, &target, None).map_err(|e| {
            tracing::error!(path = %path.display(), error = %e, "could not back up the store before upgrading it");
            StoreError::Backup { message: e.to_string() }
        })?;
        // The copy holds everything the database does: owner-only, like the database.
        crate::util::private_files::restrict_file(&target).map_err(|e| {
            tracing::error!(backup = %target.display(), error = %e, "could not make the store backup owner-only");
            StoreError::Backup { message: format!("could not restrict access to {}: {e}", target.display()) }
        })?;
        tracing::info!(backup = %target.display(), "store backed up before upgrading it");
        report.backup = Some(target);
    }
    conn.execute_batch(BOOKKEEPING)?;
    for m in pending {
        // A change that rebuilds a table others point at runs with foreign keys off (SQLite only
        // switches them outside a transaction), and every reference is checked before it commits.
        let rebuilds = m.sql.starts_with(FOREIGN_KEYS_OFF);
        if rebuilds {
            conn.pragma_update(None, "foreign_keys", "OFF")?;
        }
        let applied = apply(conn, m, rebuilds);
        if rebuilds {
            conn.pragma_update(None, "foreign_keys", "ON")?;
        }
        applied?;
        report.applied.push(m.id.to_string());
    }
    Ok(report)
}
