//! Group commit: many small writes from concurrent tasks (a call's accounting row and cache
//! entry, a finished case) share one transaction and so one flush to the disk.
//!
//! A write is queued; the first write queued while no drain is scheduled schedules one (one
//! blocking-thread hop for a whole group, not one per write). The drain runs every queued
//! write in one transaction, each inside its own savepoint (a failing write is rolled back alone
//! and its caller gets the error), commits, and hands each caller its result. Writes are run in
//! the order they were queued, so a write that finished queueing before another one is never
//! committed after it. Callers wait for the commit: nothing is reported written before it is.

use rusqlite::Connection;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::error::{ApiError, ApiResult};

/// What a queued write does once its transaction is committed (or failed to commit).
type Finish = Box<dyn FnOnce(ApiResult<()>) + Send>;
/// A queued write: runs against the writer connection and says whether it succeeded.
type Job = Box<dyn FnOnce(&Connection) -> (bool, Finish) + Send>;

#[derive(Default)]
pub(super) struct GroupQueue {
    jobs: Mutex<Vec<Job>>,
    /// A drain is scheduled that has not yet taken the queue: writes queued now will be in it.
    scheduled: AtomicBool,
}

impl GroupQueue {
    /// Queue `f`; the returned receiver gets its result once it is committed.
    pub(super) fn push<T, F>(&self, f: F) -> tokio::sync::oneshot::Receiver<ApiResult<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |c| match f(c) {
            Ok(v) => {
                let finish: Finish = Box::new(move |committed| {
                    // The caller may have stopped waiting; the write is done either way.
                    let _ = tx.send(committed.map(|_| v));
                });
                (true, finish)
            }
            Err(e) => {
                let finish: Finish = Box::new(move |_| {
                    let _ = tx.send(Err(e));
                });
                (false, finish)
            }
        });
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).push(job);
        rx
    }

    /// Whether the caller, having queued a write, must schedule a drain: true for the first write
    /// queued after the last drain took the queue.
    pub(super) fn needs_drain(&self) -> bool {
        !self.scheduled.swap(true, Ordering::SeqCst)
    }

    /// Run every queued write in one transaction on `conn` (the writer connection, held by the
    /// caller). Does nothing when another task already took them.
    pub(super) fn drain(&self, conn: &Connection) {
        // From here on a newly queued write schedules the next drain (which waits for this one).
        self.scheduled.store(false, Ordering::SeqCst);
        let jobs: Vec<Job> = std::mem::take(&mut *self.jobs.lock().unwrap_or_else(|p| p.into_inner()));
        if jobs.is_empty() {
            return;
        }
        if let Err(e) = cached(conn, "BEGIN IMMEDIATE") {
            let e: ApiError = e.into();
            for job in jobs {
                // Without a transaction each write runs (and commits) on its own.
                let (_, finish) = job(conn);
                finish(Ok(()));
            }
            tracing::debug!(error = %e.message, "group commit could not open a transaction; writes ran one by one");
            return;
        }
        if jobs.len() == 1 {
            // A group of one needs no savepoint: the transaction is the write's own.
            if let Some(job) = jobs.into_iter().next() {
                let (ok, finish) = job(conn);
                let end = cached(conn, if ok { "COMMIT" } else { "ROLLBACK" });
                if let Err(e) = &end {
                    tracing::warn!(error = %e, "could not end the transaction of a grouped write");
                    if !conn.is_autocommit() {
                        if let Err(e) = conn.execute_batch("ROLLBACK") {
                            tracing::warn!(error = %e, "could not roll back a grouped write whose commit failed");
                        }
                    }
                }
                finish(end.map_err(ApiError::from));
            }
            return;
        }
        let mut finishes: Vec<Finish> = Vec::with_capacity(jobs.len());
        for job in jobs {
            let saved = cached(conn, "SAVEPOINT grouped_write");
            let (ok, finish) = job(conn);
            if saved.is_ok() {
                let end = if ok {
                    cached(conn, "RELEASE grouped_write")
                } else {
                    conn.execute_batch("ROLLBACK TO grouped_write; RELEASE grouped_write")
                };
                if let Err(e) = end {
                    tracing::warn!(error = %e, "could not close a savepoint of a grouped write");
                }
            }
            finishes.push(finish);
        }
        let committed: ApiResult<()> = cached(conn, "COMMIT").map_err(ApiError::from);
        if committed.is_err() {
            // Nothing of this group was kept; every caller hears so.
            if let Err(e) = conn.execute_batch("ROLLBACK") {
                tracing::warn!(error = %e, "could not roll back a grouped write whose commit failed");
            }
        }
        for finish in finishes {
            finish(committed.clone());
        }
    }
}

/// Run one statement through the connection's statement cache (a group runs these for every write).
fn cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

#[cfg(test)]
mod tests {
    use crate::error::{ApiError, ApiResult};
    use crate::store::Store;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writes_all_land_and_a_failing_one_is_rolled_back_alone() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("t.db")).unwrap();
        s.with_conn(|c| c.execute_batch("CREATE TABLE t (v INTEGER)")).unwrap();
        let mut tasks = Vec::new();
        for i in 0..32i64 {
            let s = s.clone();
            tasks.push(tokio::spawn(async move {
                let mut results = Vec::new();
                for j in 0..10i64 {
                    let v = i * 100 + j;
                    let r = s
                        .call_grouped(move |c| -> ApiResult<i64> {
                            c.execute("INSERT INTO t VALUES (?1)", [v])?;
                            if v % 7 == 0 {
                                return Err(ApiError::invalid("refused on purpose"));
                            }
                            Ok(v)
                        })
                        .await;
                    results.push((v, r.is_ok()));
                }
                results
            }));
        }
        let mut expected: Vec<i64> = Vec::new();
        for t in tasks {
            for (v, ok) in t.await.unwrap() {
                assert_eq!(ok, v % 7 != 0);
                if ok {
                    expected.push(v);
                }
            }
        }
        expected.sort();
        // Read on another connection: everything reported written is committed.
        let stored: Vec<i64> = s
            .with_read(|c| {
                let mut st = c.prepare("SELECT v FROM t ORDER BY v")?;
                let rows = st.query_map([], |r| r.get(0))?;
                rows.collect::<Result<Vec<i64>, _>>()
            })
            .unwrap();
        assert_eq!(stored, expected);
    }

    fn count(s: &Store) -> i64 {
        s.with_read(|c| c.query_row("SELECT count(*) FROM t", [], |r| r.get(0))).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_queued_write_waits_for_the_next_flush_and_commits_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("t.db")).unwrap();
        s.with_conn(|c| c.execute_batch("CREATE TABLE t (v INTEGER)")).unwrap();
        let first = s.queue_grouped(|c| -> ApiResult<usize> { Ok(c.execute("INSERT INTO t VALUES (1)", [])?) });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(count(&s), 0, "nothing commits a queued write until someone flushes");
        // A write made the ordinary way commits the queued one with it (queued first, so never after it).
        s.call_grouped(|c| -> ApiResult<usize> { Ok(c.execute("INSERT INTO t VALUES (2)", [])?) }).await.unwrap();
        assert_eq!(count(&s), 2);
        assert_eq!(first.committed().await.unwrap(), 1);
        // A queued write on its own is committed by a flush.
        let third = s.queue_grouped(|c| -> ApiResult<usize> { Ok(c.execute("INSERT INTO t VALUES (3)", [])?) });
        s.flush_grouped();
        assert_eq!(third.committed().await.unwrap(), 1);
        assert_eq!(count(&s), 3);
    }

    #[test]
    fn a_failing_write_alone_in_its_group_is_rolled_back_and_the_next_one_lands() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("t.db")).unwrap();
        s.with_conn(|c| c.execute_batch("CREATE TABLE t (v INTEGER)")).unwrap();
        // No runtime here: the flush commits on this thread.
        let bad = s.queue_grouped(|c| -> ApiResult<()> {
            c.execute("INSERT INTO t VALUES (1)", [])?;
            Err(ApiError::invalid("refused on purpose"))
        });
        s.flush_grouped();
        let good = s.queue_grouped(|c| -> ApiResult<()> {
            c.execute("INSERT INTO t VALUES (2)", []).map(|_| ())?;
            Ok(())
        });
        s.flush_grouped();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert!(rt.block_on(bad.committed()).is_err());
        rt.block_on(good.committed()).unwrap();
        let kept: i64 = s.with_read(|c| c.query_row("SELECT coalesce(sum(v), 0) FROM t", [], |r| r.get(0))).unwrap();
        assert_eq!(kept, 2);
    }
}
