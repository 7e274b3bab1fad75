//! Exclusive execution of a run across processes. Before working on a run, a process claims it
//! in the store with a conditional update (the run's status, holder and heartbeat as read must
//! still be there), so of two processes resuming the same run only one gets it; the other is told
//! where the run is executing. The holder renews its heartbeat on a connection of its own, and
//! only while the claim is still its own. A claim whose heartbeat went stale (or whose process is
//! gone from this computer) may be taken over; the takeover is logged.

use rusqlite::{params, Connection, OptionalExtension};
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

use super::{RunStatus, HEARTBEAT_EVERY, HEARTBEAT_STALE_SECS};
use crate::error::{ApiError, ApiResult};
use crate::store::Store;
use crate::util::now_rfc3339;

static PROCESS_LABEL: OnceLock<String> = OnceLock::new();

/// Name this process in messages about runs it executes ("psebench CLI", "psebench serve", "the
/// desktop app"). Set once at startup; later calls are ignored.
pub fn set_process_label(label: &str) {
    // Only the first name counts: a process does not change what it is.
    let _ = PROCESS_LABEL.set(label.to_string());
}

fn process_label() -> String {
    let name = PROCESS_LABEL.get().map(String::as_str).unwrap_or("PSEBench Studio");
    format!("{name} (pid {})", std::process::id())
}

/// This computer's name, as far as it can be found ("" when it cannot).
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its whole length; gethostname writes at most that much.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if rc == 0 {
            let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).into_owned();
        }
        String::new()
    }
    #[cfg(not(unix))]
    {
        std::env::var("COMPUTERNAME").unwrap_or_default()
    }
}

/// Whether a process with this id exists on this computer. Unknown counts as alive, so a run is
/// never taken from a process that might still be working on it before its heartbeat is stale.
fn process_alive(pid: i64) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return true };
        if pid <= 0 {
            return true;
        }
        // SAFETY: signal 0 only checks whether the process exists; nothing is sent.
        let rc = unsafe { libc::kill(pid, 0) };
        rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// The identity an engine claims runs with: this computer, this process, and a random id of this
/// engine (two engines in one process are two owners).
#[derive(Debug, Clone)]
pub struct RunOwner {
    id: String,
    host: String,
    pid: u32,
}

impl Default for RunOwner {
    fn default() -> Self {
        let (host, pid) = (host_name(), std::process::id());
        let launch = uuid::Uuid::new_v4().simple().to_string();
        RunOwner { id: format!("{host}/{pid}/{launch}"), host, pid }
    }
}

impl RunOwner {
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Who holds a run according to the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub status: String,
    pub owner_id: Option<String>,
    pub label: Option<String>,
    pub host: Option<String>,
    pub pid: Option<i64>,
    pub heartbeat_at: Option<String>,
}

impl Holder {
    /// Seconds since the holder last renewed its claim (`None`: never, or unreadable).
    pub fn silent_secs(&self) -> Option<i64> {
        let at = chrono::DateTime::parse_from_rfc3339(self.heartbeat_at.as_deref()?).ok()?;
        Some((chrono::Utc::now() - at.with_timezone(&chrono::Utc)).num_seconds().max(0))
    }

    fn on_this_computer(&self) -> bool {
        self.host.as_deref() == Some(host_name().as_str())
    }

    /// The holder stopped renewing, or its process no longer exists on this computer.
    fn gone(&self) -> bool {
        let stale = self.silent_secs().is_none_or(|s| s > HEARTBEAT_STALE_SECS);
        let dead = self.on_this_computer() && self.pid.is_some_and(|p| !process_alive(p));
        stale || dead
    }

    /// "psebench CLI (pid 4242) on this computer, last seen 3 s ago".
    pub fn describe(&self) -> String {
        let who = self.label.clone().unwrap_or_else(|| "an older version of PSEBench Studio".to_string());
        let place = match self.host.as_deref() {
            _ if self.on_this_computer() => "this computer".to_string(),
            Some(h) if !h.is_empty() => format!("the computer \"{h}\""),
            Some(_) => "another computer".to_string(),
            None => "this or another computer".to_string(),
        };
        let seen = match self.silent_secs() {
            Some(s) => format!("last seen {s} s ago"),
            None => "not seen yet".to_string(),
        };
        format!("{who} on {place}, {seen}")
    }
}

fn read_holder(conn: &Connection, run_id: &str) -> ApiResult<Holder> {
    conn.query_row(
        "SELECT status, owner_id, owner_label, owner_host, owner_pid, heartbeat_at FROM runs WHERE run_id = ?1",
        [run_id],
        |r| {
            Ok(Holder {
                status: r.get(0)?,
                owner_id: r.get(1)?,
                label: r.get(2)?,
                host: r.get(3)?,
                pid: r.get(4)?,
                heartbeat_at: r.get(5)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found(format!("There is no run \"{run_id}\" in this store.")))
}

fn busy_message(h: &Holder) -> String {
    format!(
        "This run is already running in {}. Stop it there, or wait: once it has been silent for {HEARTBEAT_STALE_SECS} s \
         (a stopped or crashed process no longer renews its claim) it can be resumed here.",
        h.describe()
    )
}

/// Fail with the Conflict [`claim`] would give if another live process holds the run; changes
/// nothing. Lets a request that starts work in the background be refused at once.
pub fn ensure_free(conn: &Connection, run_id: &str, owner: &RunOwner) -> ApiResult<()> {
    let h = read_holder(conn, run_id)?;
    let held_elsewhere = h.status == RunStatus::Running.as_str() && h.owner_id.as_deref() != Some(owner.id());
    if held_elsewhere && !h.gone() {
        return Err(ApiError::conflict(busy_message(&h)));
    }
    Ok(())
}

/// Claim `run_id` for `owner` and mark it running. Refused with a Conflict naming the holder when
/// another live process holds it. Returns the previous holder when its stale claim was taken over.
pub fn claim(conn: &Connection, run_id: &str, owner: &RunOwner) -> ApiResult<Option<Holder>> {
    // A lost race (another process changed the row between our read and our update) is read again.
    for _ in 0..3 {
        let h = read_holder(conn, run_id)?;
        let held_elsewhere = h.status == RunStatus::Running.as_str() && h.owner_id.as_deref() != Some(owner.id());
        if held_elsewhere && !h.gone() {
            return Err(ApiError::conflict(busy_message(&h)));
        }
        let now = now_rfc3339();
        let changed = conn.execute(
            "UPDATE runs SET status = 'running', error = NULL, finished_at = NULL,
                started_at = COALESCE(started_at, ?5), heartbeat_at = ?5, claimed_at = ?5,
                owner_id = ?6, owner_label = ?7, owner_host = ?8, owner_pid = ?9
             WHERE run_id = ?1 AND status = ?2 AND owner_id IS ?3 AND heartbeat_at IS ?4",
            params![
                run_id,
                h.status,
                h.owner_id,
                h.heartbeat_at,
                now,
                owner.id,
                process_label(),
                owner.host,
                owner.pid
            ],
        )?;
        if changed == 1 {
            if held_elsewhere {
                tracing::warn!(run = %run_id, previous = %h.describe(), "took over a run whose holder stopped renewing its claim");
                return Ok(Some(h));
            }
            return Ok(None);
        }
    }
    Err(ApiError::conflict(busy_message(&read_holder(conn, run_id)?)))
}

/// Renew `owner`'s claim. `false` when the claim is no longer ours (another process took it over).
pub fn renew(conn: &Connection, run_id: &str, owner_id: &str) -> ApiResult<bool> {
    let changed = conn.execute(
        "UPDATE runs SET heartbeat_at = ?3 WHERE run_id = ?1 AND owner_id = ?2 AND status = 'running'",
        params![run_id, owner_id, now_rfc3339()],
    )?;
    Ok(changed == 1)
}

fn lost_message(h: &Holder) -> String {
    format!(
        "This run was taken over by {}, so this process stopped working on it. Everything finished here is kept.",
        h.describe()
    )
}

/// Record how the run ended, if the claim is still `owner`'s. Otherwise nothing is written and the
/// error says who took the run over.
pub fn release(
    conn: &Connection,
    run_id: &str,
    owner: &RunOwner,
    status: RunStatus,
    error: Option<&str>,
) -> ApiResult<()> {
    let changed = conn.execute(
        "UPDATE runs SET status = ?3, error = ?4,
            finished_at = CASE WHEN ?3 IN ('completed', 'failed', 'cancelled', 'cost_capped') THEN ?5 ELSE NULL END
         WHERE run_id = ?1 AND owner_id = ?2 AND status = 'running'",
        params![run_id, owner.id, status.as_str(), error, now_rfc3339()],
    )?;
    if changed == 1 {
        return Ok(());
    }
    Err(ApiError::conflict(lost_message(&read_holder(conn, run_id)?)))
}

/// Renews one claim on a connection of its own (when the store has files), so work holding the
/// store's shared writer connection cannot hold the renewal up.
pub struct ClaimRenewer {
    store: Store,
    own: Option<Mutex<Connection>>,
    run_id: String,
    owner_id: String,
}

impl ClaimRenewer {
    pub fn new(store: &Store, run_id: &str, owner: &RunOwner) -> ClaimRenewer {
        let own = match store.own_connection() {
            Ok(c) => c.map(Mutex::new),
            Err(e) => {
                tracing::warn!(run = %run_id, error = %e, "the heartbeat shares the store's connection (it could not open its own)");
                None
            }
        };
        ClaimRenewer { store: store.clone(), own, run_id: run_id.to_string(), owner_id: owner.id.clone() }
    }

    /// Renew now (blocking). `false` when the claim is no longer ours.
    pub fn renew(&self) -> ApiResult<bool> {
        match &self.own {
            Some(c) => renew(&c.lock().unwrap_or_else(|p| p.into_inner()), &self.run_id, &self.owner_id),
            None => self.store.with_conn(|c| renew(c, &self.run_id, &self.owner_id)),
        }
    }

    /// Give the claim up without finishing the run: it reads as interrupted and anyone may resume it.
    fn let_go(&self) -> ApiResult<()> {
        let sql = "UPDATE runs SET heartbeat_at = NULL WHERE run_id = ?1 AND owner_id = ?2 AND status = 'running'";
        match &self.own {
            Some(c) => c.lock().unwrap_or_else(|p| p.into_inner()).execute(sql, params![self.run_id, self.owner_id])?,
            None => self.store.with_conn(|c| c.execute(sql, params![self.run_id, self.owner_id]))?,
        };
        Ok(())
    }

    /// The message for a claim found lost.
    fn lost(&self) -> String {
        match self.store.with_read(|c| read_holder(c, &self.run_id)) {
            Ok(h) => lost_message(&h),
            Err(_) => "Another process took this run over, so this process stopped working on it.".to_string(),
        }
    }
}

/// Keeps a run's claim fresh while work is in progress in this process. The work ends with
/// [`Heartbeat::end`] and then records the run's status. If the guard is dropped instead (the
/// work's future was dropped midway), the claim is let go at once, so the run shows up as
/// interrupted and can be resumed anywhere; a run whose process died goes the same way once its
/// heartbeat is stale. If the claim turns out to be lost, the work is cancelled through `on_lost`
/// and [`Heartbeat::lost`] says why.
pub struct Heartbeat {
    stop: CancellationToken,
    lost: Arc<Mutex<Option<String>>>,
    renewer: Arc<ClaimRenewer>,
    ended: bool,
}

impl Heartbeat {
    /// Start beating for `run_id` (needs a tokio runtime).
    pub fn start(store: &Store, run_id: &str, owner: &RunOwner, on_lost: Vec<CancellationToken>) -> Heartbeat {
        let stop = CancellationToken::new();
        let lost = Arc::new(Mutex::new(None));
        let renewer = Arc::new(ClaimRenewer::new(store, run_id, owner));
        let (stopped, lost_here, run, beats) = (stop.clone(), lost.clone(), run_id.to_string(), renewer.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(HEARTBEAT_EVERY) => {
                        let r = beats.clone();
                        let beat = tokio::task::spawn_blocking(move || match r.renew() {
                            Ok(true) => Ok(None),
                            Ok(false) => Ok(Some(r.lost())),
                            Err(e) => Err(e),
                        })
                        .await;
                        match beat {
                            Ok(Ok(None)) => {}
                            Ok(Ok(Some(why))) => {
                                tracing::warn!(run = %run, "{why}");
                                *lost_here.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                                for t in &on_lost {
                                    t.cancel();
                                }
                                break;
                            }
                            // The work goes on; if beats keep failing the run will look interrupted.
                            Ok(Err(e)) => tracing::warn!(run = %run, error = %e, "could not refresh the run's heartbeat"),
                            Err(e) => tracing::warn!(run = %run, error = %e, "the heartbeat task stopped unexpectedly"),
                        }
                    }
                    _ = stopped.cancelled() => break,
                }
            }
        });
        Heartbeat { stop, lost, renewer, ended: false }
    }

    /// Stop beating because the work is over; the caller records the run's status next.
    pub fn end(mut self) {
        self.ended = true;
        self.stop.cancel();
    }

    /// Why this process lost the run to another one, if it did.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.cancel();
        if !self.ended {
            if let Err(e) = self.renewer.let_go() {
                tracing::warn!(run = %self.renewer.run_id, error = %e, "could not let go of an abandoned run; it frees itself when its heartbeat is stale");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{get_run, insert_run, RunKind};

    fn file_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        store.with_conn(|c| insert_run(c, "eval-1", RunKind::Eval, None, &serde_json::json!({}))).unwrap();
        (dir, store)
    }

    #[test]
    fn a_live_claim_is_refused_to_another_owner_with_where_it_runs() {
        let (_d, store) = file_store();
        let (a, b) = (RunOwner::default(), RunOwner::default());
        set_process_label("psebench CLI");
        assert_eq!(store.with_conn(|c| claim(c, "eval-1", &a)).unwrap(), None);
        let err = store.with_conn(|c| claim(c, "eval-1", &b)).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Conflict);
        let pid = std::process::id();
        assert!(
            err.message.starts_with(&format!(
                "This run is already running in psebench CLI (pid {pid}) on this computer, last seen 0 s ago."
            )),
            "{}",
            err.message
        );
        // The holder itself may claim again (a resume in the same engine).
        assert_eq!(store.with_conn(|c| claim(c, "eval-1", &a)).unwrap(), None);
        assert_eq!(store.with_conn(|c| get_run(c, "eval-1")).unwrap().status, RunStatus::Running);
    }

    #[test]
    fn a_stale_claim_is_taken_over_and_the_old_holder_can_no_longer_renew_or_finish() {
        let (_d, store) = file_store();
        let (a, b) = (RunOwner::default(), RunOwner::default());
        store.with_conn(|c| claim(c, "eval-1", &a)).unwrap();
        store
            .with_conn(|c| {
                c.execute("UPDATE runs SET heartbeat_at = '2020-01-01T00:00:00.000Z' WHERE run_id = 'eval-1'", [])
            })
            .unwrap();
        let previous = store.with_conn(|c| claim(c, "eval-1", &b)).unwrap().expect("taken over");
        assert_eq!(previous.owner_id.as_deref(), Some(a.id()));
        assert!(!store.with_conn(|c| renew(c, "eval-1", a.id())).unwrap());
        let err = store.with_conn(|c| release(c, "eval-1", &a, RunStatus::Completed, None)).unwrap_err();
        assert!(err.message.starts_with("This run was taken over by"), "{}", err.message);
        assert!(store.with_conn(|c| renew(c, "eval-1", b.id())).unwrap());
        store.with_conn(|c| release(c, "eval-1", &b, RunStatus::Completed, None)).unwrap();
        assert_eq!(store.with_conn(|c| get_run(c, "eval-1")).unwrap().status, RunStatus::Completed);
        // A finished run can be claimed by anyone again.
        assert_eq!(store.with_conn(|c| claim(c, "eval-1", &a)).unwrap(), None);
    }

    #[test]
    fn a_claim_whose_process_is_gone_from_this_computer_is_taken_over_at_once() {
        let (_d, store) = file_store();
        let (a, b) = (RunOwner::default(), RunOwner::default());
        store.with_conn(|c| claim(c, "eval-1", &a)).unwrap();
        // A process id that cannot exist: the holder's process is gone although its beat is fresh.
        store.with_conn(|c| c.execute("UPDATE runs SET owner_pid = 2147483000 WHERE run_id = 'eval-1'", [])).unwrap();
        assert!(store.with_conn(|c| claim(c, "eval-1", &b)).unwrap().is_some());
    }

    #[test]
    fn the_heartbeat_lands_while_the_shared_writer_connection_is_held_by_a_long_query() {
        let (_d, store) = file_store();
        let owner = RunOwner::default();
        store.with_conn(|c| claim(c, "eval-1", &owner)).unwrap();
        store
            .with_conn(|c| {
                c.execute("UPDATE runs SET heartbeat_at = '2020-01-01T00:00:00.000Z' WHERE run_id = 'eval-1'", [])
            })
            .unwrap();
        let renewer = ClaimRenewer::new(&store, "eval-1", &owner);
        let (held_tx, held_rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let long = {
            let store = store.clone();
            std::thread::spawn(move || {
                store.with_conn(|c| {
                    held_tx.send(()).unwrap();
                    // A long read on the shared connection, kept going until the beat has landed
                    // (or 10 s passed, which fails the test below).
                    let started = std::time::Instant::now();
                    while done_rx.try_recv().is_err() && started.elapsed() < std::time::Duration::from_secs(10) {
                        c.query_row(
                            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT count(*) FROM n",
                            [],
                            |r| r.get::<_, i64>(0),
                        )?;
                    }
                    Ok::<_, rusqlite::Error>(started.elapsed())
                })
            })
        };
        held_rx.recv().unwrap();
        assert!(renewer.renew().unwrap());
        // The long query may already have given up (when the beat waited for it); the check below says so.
        let _ = done_tx.send(());
        let held_for = long.join().unwrap().unwrap();
        assert!(held_for < std::time::Duration::from_secs(10), "the beat waited for the shared connection");
        let silent = store.with_read(|c| read_holder(c, "eval-1")).unwrap().silent_secs();
        assert_eq!(silent, Some(0));
    }
}
