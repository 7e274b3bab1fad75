//! Long-running work as resumable jobs: a run record with a persisted status, progress events
//! broadcast to whoever listens (CLI progress bar, desktop app, HTTP clients), cancellation, and
//! a heartbeat so a run whose process died shows up as interrupted rather than running forever.

mod stopper;

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
    pub kind: String,
    pub status: String,
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
}

impl Default for JobHub {
    fn default() -> Self {
        let (tx, _) = broadcast::channel(1024);
        JobHub { tx, cancels: Mutex::new(HashMap::new()), last: Mutex::new(HashMap::new()) }
    }
}

impl JobHub {
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

/// A stored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunRow {
    pub run_id: String,
    pub kind: String,
    /// As stored, except `running` with a stale heartbeat is reported as `interrupted`.
    pub status: String,
    pub label: Option<String>,
    pub config: serde_json::Value,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub error: Option<String>,
    pub app_version: String,
}

fn effective_status(status: String, heartbeat: Option<String>) -> String {
    if status != "running" {
        return status;
    }
    let stale = heartbeat
        .and_then(|h| chrono::DateTime::parse_from_rfc3339(&h).ok())
        .map(|t| (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds() > HEARTBEAT_STALE_SECS)
        .unwrap_or(true);
    if stale {
        "interrupted".into()
    } else {
        status
    }
}

const COLS: &str = "run_id, kind, status, label, config_json, created_at, started_at, finished_at, error, app_version, heartbeat_at";

/// Where a run's configuration is stored.
const RUN_CONFIG: crate::store::StoredColumn =
    crate::store::StoredColumn { table: "runs", column: "config_json", what: "configuration", row_kind: "run" };

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunRow> {
    let run_id: String = r.get(0)?;
    let config: String = r.get(4)?;
    Ok(RunRow {
        config: RUN_CONFIG.parse_in_row(&config, &run_id, 4)?,
        run_id,
        kind: r.get(1)?,
        status: effective_status(r.get(2)?, r.get(10)?),
        label: r.get(3)?,
        created_at: r.get(5)?,
        started_at: r.get(6)?,
        finished_at: r.get(7)?,
        error: r.get(8)?,
        app_version: r.get(9)?,
    })
}

pub fn new_run_id(kind: &str) -> String {
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S");
    let short = &uuid::Uuid::new_v4().simple().to_string()[..6];
    format!("{kind}-{stamp}-{short}")
}

pub fn insert_run(conn: &Connection, run_id: &str, kind: &str, label: Option<&str>, config: &serde_json::Value) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO runs (run_id, kind, status, label, config_json, created_at, app_version) VALUES (?1, ?2, 'pending', ?3, ?4, ?5, ?6)",
        params![run_id, kind, label, config.to_string(), now_rfc3339(), crate::version()],
    )?;
    Ok(())
}

pub fn get_run(conn: &Connection, run_id: &str) -> ApiResult<RunRow> {
    conn.query_row(&format!("SELECT {COLS} FROM runs WHERE run_id = ?1"), [run_id], row)
        .optional()?
        .ok_or_else(|| ApiError::not_found(format!("There is no run \"{run_id}\" in this store.")))
}

pub fn list_runs(conn: &Connection, kind: Option<&str>) -> ApiResult<Vec<RunRow>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLS} FROM runs WHERE (?1 IS NULL OR kind = ?1) ORDER BY created_at DESC"))?;
    let rows = stmt.query_map([kind], row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn set_status(conn: &Connection, run_id: &str, status: &str, error: Option<&str>) -> ApiResult<()> {
    let now = now_rfc3339();
    conn.execute(
        "UPDATE runs SET status = ?2, error = ?3,
            started_at = CASE WHEN ?2 = 'running' AND started_at IS NULL THEN ?4 ELSE started_at END,
            finished_at = CASE WHEN ?2 IN ('completed', 'failed', 'cancelled') THEN ?4 ELSE NULL END,
            heartbeat_at = CASE WHEN ?2 = 'running' THEN ?4 ELSE heartbeat_at END
         WHERE run_id = ?1",
        params![run_id, status, error, now],
    )?;
    Ok(())
}

pub fn heartbeat(conn: &Connection, run_id: &str) -> ApiResult<()> {
    conn.execute("UPDATE runs SET heartbeat_at = ?2 WHERE run_id = ?1", params![run_id, now_rfc3339()])?;
    Ok(())
}

/// Keeps a run's heartbeat fresh while work is in progress in this process. The beat stops when
/// the guard is dropped — when the work ends, and also if the work's future is dropped midway —
/// so a run whose process died or stopped shows up as interrupted.
pub struct Heartbeat {
    stop: CancellationToken,
}

/// How often a working run refreshes its heartbeat.
pub const HEARTBEAT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

impl Heartbeat {
    /// Start beating for `run_id` (needs a tokio runtime).
    pub fn start(store: &crate::store::Store, run_id: &str) -> Heartbeat {
        let stop = CancellationToken::new();
        let (store, run, stopped) = (store.clone(), run_id.to_string(), stop.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(HEARTBEAT_EVERY) => {
                        let id = run.clone();
                        if let Err(e) = store.call(move |c| heartbeat(c, &id)).await {
                            // The work goes on; if beats keep failing the run will look interrupted.
                            tracing::warn!(run = %run, error = %e, "could not refresh the run's heartbeat");
                        }
                    }
                    _ = stopped.cancelled() => break,
                }
            }
        });
        Heartbeat { stop }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Estimated seconds left from the pace so far.
pub fn eta(elapsed_secs: f64, done: u64, total: u64) -> Option<f64> {
    if done == 0 || done >= total {
        return if done >= total { Some(0.0) } else { None };
    }
    Some(elapsed_secs / done as f64 * (total - done) as f64)
}
