//! Long-running work as resumable jobs: a run record with a persisted status, progress events
//! broadcast to whoever listens (CLI progress bar, desktop app, HTTP clients), cancellation, and
//! an exclusive claim with a heartbeat (see `claim`): one process at a time executes a run, and a
//! run whose process died shows up as interrupted rather than running forever.

pub mod budget;
mod claim;
pub mod concurrency;
mod config;
pub mod problems;
pub mod runner;
mod state;
mod stopper;

pub use claim::{
    claim, ensure_free, host_name, release, renew, set_process_label, ClaimRenewer, Heartbeat, Holder, RunOwner,
};
pub use config::RunModel;
pub use problems::{assess as assess_problems, ProblemWords, RunProblems};
pub use state::{RunKind, RunStatus, StoredRunError, UnknownValue};
pub use stopper::{is_fatal, RunStopper, CONSECUTIVE_FAILURES_TO_STOP};

use indexmap::IndexMap;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::error::{ApiError, ApiResult};
use crate::util::now_rfc3339;

/// A heartbeat older than this means the process working on the run is gone.
pub const HEARTBEAT_STALE_SECS: i64 = 30;

/// Progress of a run, as pushed to listeners and shown in progress bars.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Progress {
    pub run_id: String,
    pub kind: RunKind,
    pub status: RunStatus,
    pub total: u64,
    pub done: u64,
    /// Named counters (asks, parse failures, tokens, cost, accepted, dropped, …).
    pub counters: IndexMap<String, f64>,
    pub elapsed_secs: f64,
    pub eta_secs: Option<f64>,
    pub message: Option<String>,
}

impl Progress {
    pub fn counter(&self, k: &str) -> f64 {
        self.counters.get(k).copied().unwrap_or(0.0)
    }
}

/// Where progress goes and how runs are cancelled.
pub struct JobHub {
    tx: broadcast::Sender<Progress>,
    cancels: Mutex<HashMap<String, CancellationToken>>,
    /// The latest progress of every run seen in this process (for listeners that arrive late).
    last: Mutex<HashMap<String, Progress>>,
    /// Who this engine is when it claims runs in the store.
    owner: RunOwner,
}

impl Default for JobHub {
    fn default() -> Self {
        let (tx, _) = broadcast::channel(1024);
        JobHub { tx, cancels: Mutex::new(HashMap::new()), last: Mutex::new(HashMap::new()), owner: RunOwner::default() }
    }
}

impl JobHub {
    /// The identity this engine claims runs with.
    pub fn owner(&self) -> &RunOwner {
        &self.owner
    }
    pub fn subscribe(&self) -> broadcast::Receiver<Progress> {
        self.tx.subscribe()
    }
    pub fn publish(&self, p: Progress) {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).insert(p.run_id.clone(), p.clone());
        // An error only means nobody is listening right now; the latest progress is kept above.
        let _ = self.tx.send(p);
    }
    /// The latest progress of a run, if it reported any in this process.
    pub fn last(&self, run_id: &str) -> Option<Progress> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).get(run_id).cloned()
    }
    /// Latest progress of the runs working in this process right now.
    pub fn active(&self) -> Vec<Progress> {
        let running: Vec<String> = self.cancels.lock().unwrap_or_else(|p| p.into_inner()).keys().cloned().collect();
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<Progress> = running.iter().filter_map(|r| last.get(r).cloned()).collect();
        out.sort_by(|a, b| a.run_id.cmp(&b.run_id));
        out
    }
    /// A token for a run starting in this process; fails if it is already running here.
    pub fn register(&self, run_id: &str) -> ApiResult<CancellationToken> {
        let mut m = self.cancels.lock().unwrap_or_else(|p| p.into_inner());
        if m.contains_key(run_id) {
            return Err(ApiError::conflict(format!("Run {run_id} is already running.")));
        }
        let t = CancellationToken::new();
        m.insert(run_id.to_string(), t.clone());
        Ok(t)
    }
    pub fn finish(&self, run_id: &str) {
        self.cancels.lock().unwrap_or_else(|p| p.into_inner()).remove(run_id);
    }
    /// Ask a run of this process to stop. Returns whether it was running here.
    pub fn cancel(&self, run_id: &str) -> bool {
        match self.cancels.lock().unwrap_or_else(|p| p.into_inner()).get(run_id) {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }
    pub fn is_running_here(&self, run_id: &str) -> bool {
        self.cancels.lock().unwrap_or_else(|p| p.into_inner()).contains_key(run_id)
    }
}

/// A stored run. `C` is its configuration: raw JSON as read from the store, or the typed
/// configuration of its kind (see `typed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunRow<C> {
    pub run_id: String,
    pub kind: RunKind,
    /// As stored, except `running` with a stale heartbeat is reported as `interrupted`.
    pub status: RunStatus,
    pub label: Option<String>,
    pub config: C,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub error: Option<String>,
    pub app_version: String,
}

/// A run as read from the store, its configuration not yet typed.
pub type StoredRun = RunRow<serde_json::Value>;

impl StoredRun {
    /// The same run with its configuration read as `C` (the configuration of its kind). Fields
    /// that older runs lack take their defaults; a configuration that does not fit is an error
    /// naming the run.
    pub fn typed<C: serde::de::DeserializeOwned>(self) -> Result<RunRow<C>, StoredRunError> {
        match C::deserialize(&self.config) {
            Ok(config) => Ok(self.with_config(config)),
            Err(e) => Err(StoredRunError::ConfigShape { run_id: self.run_id, reason: e.to_string() }),
        }
    }
}

fn effective_status(status: RunStatus, heartbeat: Option<String>) -> RunStatus {
    if status != RunStatus::Running {
        return status;
    }
    let stale = heartbeat
        .and_then(|h| chrono::DateTime::parse_from_rfc3339(&h).ok())
        .map(|t| (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds() > HEARTBEAT_STALE_SECS)
        .unwrap_or(true);
    if stale {
        RunStatus::Interrupted
    } else {
        status
    }
}

const COLS: &str =
    "run_id, kind, status, label, config_json, created_at, started_at, finished_at, error, app_version, heartbeat_at";

/// A `runs` row as SQLite holds it: kind, status and configuration still text.
struct RawRun {
    run: RunRow<()>,
    kind: String,
    status: String,
    config: String,
    heartbeat: Option<String>,
}

fn raw(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        run: RunRow {
            run_id: r.get(0)?,
            kind: RunKind::Eval,
            status: RunStatus::Pending,
            label: r.get(3)?,
            config: (),
            created_at: r.get(5)?,
            started_at: r.get(6)?,
            finished_at: r.get(7)?,
            error: r.get(8)?,
            app_version: r.get(9)?,
        },
        kind: r.get(1)?,
        status: r.get(2)?,
        config: r.get(4)?,
        heartbeat: r.get(10)?,
    })
}

impl RawRun {
    fn check(self) -> Result<StoredRun, StoredRunError> {
        let RawRun { run, kind, status, config, heartbeat } = self;
        let unknown = |source| StoredRunError::Unknown { run_id: run.run_id.clone(), source };
        let kind = kind.parse::<RunKind>().map_err(unknown)?;
        let status = status.parse::<RunStatus>().map_err(unknown)?;
        let config = serde_json::from_str(&config)
            .map_err(|e| StoredRunError::Config { run_id: run.run_id.clone(), reason: e.to_string() })?;
        let mut out = run.with_config(config);
        out.kind = kind;
        out.status = effective_status(status, heartbeat);
        Ok(out)
    }
}

impl<C> RunRow<C> {
    fn with_config<D>(self, config: D) -> RunRow<D> {
        RunRow {
            run_id: self.run_id,
            kind: self.kind,
            status: self.status,
            label: self.label,
            config,
            created_at: self.created_at,
            started_at: self.started_at,
            finished_at: self.finished_at,
            error: self.error,
            app_version: self.app_version,
        }
    }
}

pub fn new_run_id(kind: RunKind) -> String {
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S");
    let short = &uuid::Uuid::new_v4().simple().to_string()[..6];
    format!("{}-{stamp}-{short}", kind.id_prefix())
}

/// Store a new pending run. The configuration is stored as JSON, in the order of its fields.
pub fn insert_run<C: Serialize>(
    conn: &Connection,
    run_id: &str,
    kind: RunKind,
    label: Option<&str>,
    config: &C,
) -> ApiResult<()> {
    let config = serde_json::to_string(config)
        .map_err(|e| ApiError::internal(format!("run {run_id}: the configuration could not be encoded: {e}")))?;
    conn.execute(
        "INSERT INTO runs (run_id, kind, status, label, config_json, created_at, app_version) VALUES (?1, ?2, 'pending', ?3, ?4, ?5, ?6)",
        params![run_id, kind.as_str(), label, config, now_rfc3339(), crate::version()],
    )?;
    Ok(())
}

pub fn get_run(conn: &Connection, run_id: &str) -> ApiResult<StoredRun> {
    let raw = conn
        .query_row(&format!("SELECT {COLS} FROM runs WHERE run_id = ?1"), [run_id], raw)
        .optional()?
        .ok_or_else(|| ApiError::not_found(format!("There is no run \"{run_id}\" in this store.")))?;
    Ok(raw.check()?)
}

pub fn list_runs(conn: &Connection, kind: Option<RunKind>) -> ApiResult<Vec<StoredRun>> {
    let mut stmt =
        conn.prepare(&format!("SELECT {COLS} FROM runs WHERE (?1 IS NULL OR kind = ?1) ORDER BY created_at DESC"))?;
    let rows = stmt.query_map([kind.map(RunKind::as_str)], raw)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows.into_iter().map(RawRun::check).collect::<Result<Vec<_>, _>>()?)
}

pub fn set_status(conn: &Connection, run_id: &str, status: RunStatus, error: Option<&str>) -> ApiResult<()> {
    let now = now_rfc3339();
    conn.execute(
        "UPDATE runs SET status = ?2, error = ?3,
            started_at = CASE WHEN ?2 = 'running' AND started_at IS NULL THEN ?4 ELSE started_at END,
            finished_at = CASE WHEN ?2 IN ('completed', 'failed', 'cancelled', 'cost_capped') THEN ?4 ELSE NULL END,
            heartbeat_at = CASE WHEN ?2 = 'running' THEN ?4 ELSE heartbeat_at END
         WHERE run_id = ?1",
        params![run_id, status.as_str(), error, now],
    )?;
    Ok(())
}

/// Replace a run's stored configuration (a resume that changes the spending cap).
pub fn set_config<C: Serialize>(conn: &Connection, run_id: &str, config: &C) -> ApiResult<()> {
    let config = serde_json::to_string(config)
        .map_err(|e| ApiError::internal(format!("run {run_id}: the configuration could not be encoded: {e}")))?;
    conn.execute("UPDATE runs SET config_json = ?2 WHERE run_id = ?1", params![run_id, config])?;
    Ok(())
}

/// Set one top-level field of a run's stored configuration, the rest left as it is (a re-judging
/// records its judge model).
pub fn set_config_field<V: Serialize>(conn: &Connection, run_id: &str, field: &str, value: &V) -> ApiResult<()> {
    let value = serde_json::to_string(value)
        .map_err(|e| ApiError::internal(format!("run {run_id}: the configuration could not be encoded: {e}")))?;
    conn.execute(
        "UPDATE runs SET config_json = json_set(config_json, ?2, json(?3)) WHERE run_id = ?1",
        params![run_id, format!("$.\"{field}\""), value],
    )?;
    Ok(())
}

/// Whether a run of this kind exists in the store.
pub fn run_exists(conn: &Connection, run_id: &str, kind: RunKind) -> ApiResult<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM runs WHERE run_id = ?1 AND kind = ?2", params![run_id, kind.as_str()], |_| Ok(()))
        .optional()?
        .is_some())
}

/// The ids of the runs of one kind, newest first (for messages).
pub fn run_ids(conn: &Connection, kind: RunKind) -> ApiResult<Vec<String>> {
    let mut stmt = conn.prepare("SELECT run_id FROM runs WHERE kind = ?1 ORDER BY created_at DESC")?;
    let rows = stmt.query_map([kind.as_str()], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Delete a run; the rows of its items go with it (foreign keys cascade).
pub fn delete_run(conn: &Connection, run_id: &str) -> ApiResult<()> {
    conn.execute("DELETE FROM runs WHERE run_id = ?1", [run_id])?;
    Ok(())
}

/// How often a working run renews its claim (its heartbeat).
pub const HEARTBEAT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Estimated seconds left from the pace so far.
pub fn eta(elapsed_secs: f64, done: u64, total: u64) -> Option<f64> {
    if done == 0 || done >= total {
        return if done >= total { Some(0.0) } else { None };
    }
    Some(elapsed_secs / done as f64 * (total - done) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_run_that_does_not_fit_is_an_error_naming_it() {
        let store = crate::store::Store::open_in_memory().unwrap();
        store
            .with_conn(|c| {
                insert_run(c, "eval-1", RunKind::Eval, None, &serde_json::json!({"model": "m"}))?;
                set_status(c, "eval-1", RunStatus::Completed, None)?;
                let run = get_run(c, "eval-1")?;
                assert_eq!(
                    (run.kind, run.status, run.config["model"].as_str()),
                    (RunKind::Eval, RunStatus::Completed, Some("m"))
                );
                c.execute("UPDATE runs SET status = 'paused' WHERE run_id = 'eval-1'", [])?;
                let err = get_run(c, "eval-1").unwrap_err();
                assert!(
                    err.message.contains("Run eval-1") && err.message.contains("\"paused\" is not a run status"),
                    "{}",
                    err.message
                );
                c.execute(
                    "UPDATE runs SET status = 'completed', config_json = '{not json' WHERE run_id = 'eval-1'",
                    [],
                )?;
                let err = list_runs(c, Some(RunKind::Eval)).unwrap_err();
                assert!(err.message.contains("run eval-1 (table runs, column config_json)"), "{}", err.message);
                Ok::<_, ApiError>(())
            })
            .unwrap();
    }

    #[test]
    fn run_kinds_are_checked_in_rust_not_by_the_table() {
        let store = crate::store::Store::open_in_memory().unwrap();
        store
            .with_conn(|c| {
                let sql: String =
                    c.query_row("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'", [], |r| r.get(0))?;
                assert!(!sql.contains("CHECK"), "the runs table still lists kinds: {sql}");
                // Every kind this build knows is stored and read back as itself.
                for kind in RunKind::ALL {
                    let id = format!("{}-x", kind.as_str());
                    insert_run(c, &id, kind, None, &serde_json::json!({}))?;
                    assert_eq!(get_run(c, &id)?.kind, kind);
                }
                // A kind this build does not know (written by a newer one) is refused when read, naming the run.
                c.execute(
                    "INSERT INTO runs (run_id, kind, status, config_json, created_at, app_version) VALUES ('later-1', 'sorting', 'pending', '{}', '2026-11-28T00:00:00Z', 'x')",
                    [],
                )?;
                let err = get_run(c, "later-1").unwrap_err();
                assert!(err.message.contains("later-1") && err.message.contains("\"sorting\" is not a run kind"), "{}", err.message);
                Ok::<_, ApiError>(())
            })
            .unwrap();
    }

    #[test]
    fn one_field_of_a_stored_configuration_is_set_in_place() {
        let store = crate::store::Store::open_in_memory().unwrap();
        store
            .with_conn(|c| {
                insert_run(c, "eval-1", RunKind::Eval, None, &serde_json::json!({"model": "m", "judge_model": "j"}))?;
                set_config_field(c, "eval-1", "judge_model", &"judge 2")?;
                set_config_field(c, "eval-1", "note", &serde_json::json!({"a": 1}))?;
                let config = get_run(c, "eval-1")?.config;
                assert_eq!(config, serde_json::json!({"model": "m", "judge_model": "judge 2", "note": {"a": 1}}));
                Ok::<_, ApiError>(())
            })
            .unwrap();
    }

    #[test]
    fn a_running_run_without_a_fresh_heartbeat_reads_as_interrupted() {
        let store = crate::store::Store::open_in_memory().unwrap();
        store
            .with_conn(|c| {
                insert_run(c, "gen-1", RunKind::Generation, Some("x"), &serde_json::json!({}))?;
                set_status(c, "gen-1", RunStatus::Running, None)?;
                assert_eq!(get_run(c, "gen-1")?.status, RunStatus::Running);
                c.execute("UPDATE runs SET heartbeat_at = '2020-01-01T00:00:00Z' WHERE run_id = 'gen-1'", [])?;
                assert_eq!(get_run(c, "gen-1")?.status, RunStatus::Interrupted);
                Ok::<_, ApiError>(())
            })
            .unwrap();
    }
}
