//! A small pool of read-only connections to a WAL database. Connections are opened when first
//! needed, up to a fixed number; a caller that finds none free waits for one to come back.

use rusqlite::{Connection, OpenFlags};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::BUSY_TIMEOUT;

pub(super) struct ReadPool {
    path: PathBuf,
    max: usize,
    state: Mutex<PoolState>,
    returned: Condvar,
}

struct PoolState {
    idle: Vec<Connection>,
    /// Connections opened so far (idle or lent out).
    opened: usize,
}

/// A connection lent out; it goes back to the pool when dropped, also after a panic.
struct Lent<'a> {
    pool: &'a ReadPool,
    conn: Option<Connection>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.conn.take() {
            self.pool.lock().idle.push(c);
            self.pool.returned.notify_one();
        }
    }
}

fn open_reader(path: &std::path::Path) -> Result<Connection, rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "query_only", "ON")?;
    conn.pragma_update(None, "cache_size", -READER_CACHE_KIB)?;
    Ok(conn)
}

/// The page cache of each read connection, in KiB (SQLite's default is 2,000). The reads that
/// scan much of the store (Results, metrics) pass through the operating system's file cache
/// anyway: at the paper's scale a smaller cache drew Results as fast and left the desktop app
/// 4 MB smaller with four readers (BENCHMARKS.md, "Desktop app", round five).
const READER_CACHE_KIB: i64 = 512;

impl ReadPool {
    pub(super) fn new(path: PathBuf, max: usize) -> ReadPool {
        ReadPool {
            path,
            max: max.max(1),
            state: Mutex::new(PoolState { idle: Vec::new(), opened: 0 }),
            returned: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // The state is a list of connections and a counter; a panic elsewhere cannot break it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take(&self) -> Result<Lent<'_>, rusqlite::Error> {
        let mut st = self.lock();
        loop {
            if let Some(c) = st.idle.pop() {
                return Ok(Lent { pool: self, conn: Some(c) });
            }
            if st.opened < self.max {
                st.opened += 1;
                drop(st);
                return match open_reader(&self.path) {
                    Ok(c) => Ok(Lent { pool: self, conn: Some(c) }),
                    Err(e) => {
                        tracing::warn!(path = %self.path.display(), error = %e, "could not open a read connection to the store");
                        self.lock().opened -= 1;
                        self.returned.notify_one();
                        Err(e)
                    }
                };
            }
            st = self.returned.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Run `f` on an idle connection, if one is idle right now (never opens one, never waits).
    pub(super) fn try_with<T, E: From<rusqlite::Error>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Option<Result<T, E>> {
        let conn = self.lock().idle.pop()?;
        let lent = Lent { pool: self, conn: Some(conn) };
        let c = lent.conn.as_ref()?;
        Some(f(c))
    }

    pub(super) fn with<T, E: From<rusqlite::Error>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let lent = self.take()?;
        // `conn` is only emptied by `drop`, so it is always present here.
        let Some(c) = lent.conn.as_ref() else { return Err(rusqlite::Error::InvalidQuery.into()) };
        f(c)
    }
}
