//! SQLite store: one place that opens the database, sets its pragmas, guards its schema version,
//! backs it up before migrating, and applies the embedded migrations.
//!
//! A file store has one writer connection (behind a mutex) and a small pool of read-only
//! connections: in WAL mode readers see the last committed state and never wait for the writer,
//! so a long Results load does not hold up a heartbeat or an accounting row. An in-memory store
//! has a single connection for both. Async code reaches the store through [`Store::call`],
//! [`Store::call_read`], [`Store::call_tx`] and [`Store::call_grouped`], which run the work on
//! tokio's blocking threads; it never calls the sync methods itself (a test reads the source).

mod disk_errors;
mod group;
mod migrations;
mod read_pool;
pub mod settings;
mod stored_json;

pub use migrations::{Migration, MIGRATIONS};
pub use stored_json::{corrupt_json_in, CorruptJson, StoredColumn};

use rusqlite::{Connection, OpenFlags, Transaction};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::private_files;
use group::GroupQueue;
use read_pool::ReadPool;

/// Read-only connections of a file store.
const READERS: usize = 4;

/// How long a writer waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "The database at {path} was written by a newer version of PSEBench Studio (it has schema change \
         \"{found}\", which this build does not know). Nothing was changed. Install the newer version, or \
         open a different database with --db or PSEBENCH_DB."
    )]
    NewerSchema { path: String, found: String },
    #[error("Could not open the database at {path}: {message}")]
    Open { path: String, message: String },
    #[error("Could not back up the database before upgrading it ({message}); nothing was changed.")]
    Backup { message: String },
    #[error("Upgrading the database failed at step {migration} ({message}); the database was left as it was before that step.")]
    Migration { migration: String, message: String },
    #[error("Database error: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The store (or its folder) cannot be written, or the disk under it is full.
    #[error("{}", disk_errors::api_error(*problem, Some(Path::new(path)), message.clone()).message)]
    Disk { path: String, problem: crate::util::disk::DiskProblem, message: String },
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        let code = match e {
            StoreError::NewerSchema { .. } | StoreError::Open { .. } | StoreError::Backup { .. } => {
                ErrorCode::StoreUnavailable
            }
            StoreError::Migration { .. } | StoreError::Sql(_) => ErrorCode::StoreFailed,
            StoreError::Disk { path, problem, message } => {
                return disk_errors::api_error(problem, Some(Path::new(&path)), message)
            }
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<CorruptJson> for ApiError {
    fn from(e: CorruptJson) -> Self {
        tracing::error!(table = e.column.table, column = e.column.column, row = %e.row, "{e}");
        ApiError::new(ErrorCode::StoreFailed, e.to_string())
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        if let Some(c) = corrupt_json_in(&e) {
            return c.clone().into();
        }
        if let Some(problem) = disk_errors::problem_of(&e) {
            tracing::warn!(error = %e, "a store write failed on the disk");
            return disk_errors::api_error(problem, None, e.to_string());
        }
        tracing::warn!(error = %e, "a store operation failed");
        ApiError::new(ErrorCode::StoreFailed, "The database could not complete the operation; nothing was changed.")
            .with_detail(e.to_string())
    }
}

/// What happened when the store was opened.
#[derive(Debug, Clone, Default)]
pub struct OpenReport {
    pub created: bool,
    pub applied: Vec<String>,
    pub backup: Option<PathBuf>,
}

/// The application store. Cheap to clone; all clones share the same connections.
#[derive(Clone)]
pub struct Store {
    path: PathBuf,
    conn: Arc<Mutex<Connection>>,
    /// Read-only connections (file stores only; an in-memory store reads through `conn`).
    readers: Option<Arc<ReadPool>>,
    report: Arc<OpenReport>,
    /// Writes waiting to be committed together (see [`Store::call_grouped`]).
    group: Arc<GroupQueue>,
    /// How many of this store's calls from async code may be on blocking threads at once.
    lanes: Arc<Lanes>,
}

/// Bounds on the blocking threads a store's async calls occupy. More than the connections can
/// serve would only wait on a lock, each on a thread of its own: thousands of calls at once (a
/// paper-scale batch round) once grew the runtime's blocking pool to its 512-thread limit, each
/// thread with its own stack and heap arena. Waiting here costs a few bytes instead.
struct Lanes {
    reads: tokio::sync::Semaphore,
    writes: tokio::sync::Semaphore,
}

impl Default for Lanes {
    fn default() -> Self {
        // One writer works while the next call waits ready behind it; each reader has a call.
        Lanes { reads: tokio::sync::Semaphore::new(READERS), writes: tokio::sync::Semaphore::new(2) }
    }
}

async fn lane(s: &tokio::sync::Semaphore) -> ApiResult<tokio::sync::SemaphorePermit<'_>> {
    s.acquire().await.map_err(|_| ApiError::internal("the store is closing"))
}

/// The database path used when neither `--db` nor `PSEBENCH_DB` is given: the per-OS data folder.
pub fn default_db_path() -> PathBuf {
    if let Ok(p) = std::env::var("PSEBENCH_DB") {
        if !p.trim().is_empty() {
            return PathBuf::from(p);
        }
    }
    dirs::data_dir().unwrap_or_else(std::env::temp_dir).join("psebench").join("psebench.db")
}

/// Whether connections opened from now on trade durability for speed (`synchronous=NORMAL`).
/// Only the durability benchmark turns this on, to measure what the default costs.
static RELAXED_SYNC: AtomicBool = AtomicBool::new(false);

/// Open later connections with `synchronous=NORMAL` (`true`) or the default `FULL` (`false`).
/// For the durability benchmark only.
#[doc(hidden)]
pub fn relax_sync_for_benchmark(relaxed: bool) {
    RELAXED_SYNC.store(relaxed, Ordering::SeqCst);
}

/// Every connection gets the same pragmas, set here and nowhere else.
///
/// `synchronous=FULL`: in WAL mode every commit is flushed to the disk before it returns, so a
/// finished case or candidate survives a power cut or an OS crash, not only a crash of the app
/// (NORMAL only flushes at checkpoints and could lose the last commits). The cost is measured by
/// `psebench bench durability`.
fn configure(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    let sync = if RELAXED_SYNC.load(Ordering::SeqCst) { "NORMAL" } else { "FULL" };
    conn.pragma_update(None, "synchronous", sync)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| StoreError::Open { path: path.display().to_string(), message: e.to_string() })?;
    configure(&conn).map_err(|e| StoreError::Open { path: path.display().to_string(), message: e.to_string() })?;
    Ok(conn)
}

impl Store {
    /// Open (creating if needed) the database at `path` and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Self::open_upto(path, MIGRATIONS.len())
    }

    /// Open applying only the first `upto` migrations. Tests use it to build older databases.
    #[doc(hidden)]
    pub fn open_upto(path: &Path, upto: usize) -> Result<Store, StoreError> {
        Self::open_upto_inner(path, upto).map_err(|e| Self::name_disk_problem(path, e))
    }

    /// An open that failed on a full disk or on a store that cannot be written says so plainly.
    fn name_disk_problem(path: &Path, e: StoreError) -> StoreError {
        let problem = match &e {
            StoreError::Sql(s) => disk_errors::problem_of(s),
            StoreError::Open { .. } | StoreError::Migration { .. } | StoreError::Backup { .. } => {
                crate::util::disk::is_read_only(path).then_some(crate::util::disk::DiskProblem::ReadOnly)
            }
            StoreError::NewerSchema { .. } | StoreError::Disk { .. } => None,
        };
        match problem {
            Some(problem) => StoreError::Disk { path: path.display().to_string(), problem, message: e.to_string() },
            None => e,
        }
    }

    fn open_upto_inner(path: &Path, upto: usize) -> Result<Store, StoreError> {
        let open_err =
            |e: std::io::Error| StoreError::Open { path: path.display().to_string(), message: e.to_string() };
        let is_uri = path.to_str().is_some_and(|p| p.starts_with("file:"));
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() && !is_uri {
                private_files::create_private_dir_all(parent).map_err(open_err)?;
            }
        }
        let existed = path.exists() && std::fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false);
        // A new database file is made owner-only before SQLite writes to it; SQLite gives the WAL
        // and shared-memory files it creates later the database file's mode.
        let new_file = !is_uri && !path.exists();
        if new_file {
            std::fs::File::create_new(path).map_err(open_err)?;
            private_files::restrict_file(path).map_err(open_err)?;
        }
        let mut conn = open_connection(path)?;
        let report = migrations::migrate(&mut conn, path, existed, upto)?;
        if new_file {
            for suffix in ["-wal", "-shm"] {
                let mut side = path.as_os_str().to_os_string();
                side.push(suffix);
                let side = PathBuf::from(side);
                if side.exists() {
                    private_files::restrict_file(&side).map_err(open_err)?;
                }
            }
        }
        if !report.applied.is_empty() {
            tracing::info!(path = %path.display(), applied = ?report.applied, backup = ?report.backup, "store schema brought up to date");
        }
        let readers = Some(Arc::new(ReadPool::new(path.to_path_buf(), READERS)));
        Ok(Store {
            path: path.to_path_buf(),
            conn: Arc::new(Mutex::new(conn)),
            readers,
            report: Arc::new(report),
            group: Arc::default(),
            lanes: Arc::default(),
        })
    }

    /// An in-memory store (tests and one-off computations).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        configure(&conn)?;
        let report = migrations::migrate(&mut conn, Path::new(":memory:"), false, MIGRATIONS.len())?;
        Ok(Store {
            path: PathBuf::from(":memory:"),
            conn: Arc::new(Mutex::new(conn)),
            readers: None,
            report: Arc::new(report),
            group: Arc::default(),
            lanes: Arc::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn open_report(&self) -> &OpenReport {
        &self.report
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (transactions roll back
        // on drop), so a poisoned lock is safe to reuse.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Run `f` with the writer connection (single statements, and reads that must see this
    /// connection's own writes).
    pub fn with_conn<T, E: From<rusqlite::Error>>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        let conn = self.lock();
        f(&conn)
    }

    /// Run `f` with a read-only connection from the pool (a file store), or with the one
    /// connection (an in-memory store). Never waits for the writer. Writing fails here.
    pub fn with_read<T, E: From<rusqlite::Error>>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        match &self.readers {
            Some(pool) => pool.with(f),
            None => self.with_conn(f),
        }
    }

    /// [`Store::with_conn`] for async code: the work runs on a blocking thread.
    pub async fn call<T, F>(&self, f: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        let store = self.clone();
        let _lane = lane(&self.lanes.writes).await?;
        blocking(move || store.with_conn(f)).await
    }

    /// [`Store::call`] for small writes many tasks make at once (a model call's accounting row,
    /// a finished case): the write is committed in one transaction with the other writes queued
    /// meanwhile, so they share one flush to the disk. It returns once the write is committed;
    /// a write that fails is rolled back alone. `f` must not open a transaction of its own.
    pub async fn call_grouped<T, F>(&self, f: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        let done = self.queue_grouped(f);
        self.flush_grouped();
        done.committed().await
    }

    /// Queue a grouped write (see [`Store::call_grouped`]) without starting its commit: it joins
    /// the next group another write or [`Store::flush_grouped`] commits, after every write queued
    /// before it. For a chain of writes whose last one is awaited anyway: they share its commit.
    pub fn queue_grouped<T, F>(&self, f: F) -> GroupedWrite<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        GroupedWrite { done: self.group.push(f) }
    }

    /// Start committing the queued grouped writes, unless a commit that will take them is
    /// already on its way. Needs a tokio runtime; without one they are committed here.
    pub fn flush_grouped(&self) {
        if !self.group.needs_drain() {
            return;
        }
        // One blocking-thread hop drains the whole group; writes queued meanwhile join it.
        let store = self.clone();
        let drain = move || {
            let conn = store.lock();
            store.group.drain(&conn);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => drop(rt.spawn_blocking(drain)),
            Err(_) => drain(),
        }
    }

    /// [`Store::with_tx`] for async code: `f` runs in one transaction on a blocking thread,
    /// committed if it returns Ok and rolled back otherwise.
    pub async fn call_tx<T, F>(&self, f: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> ApiResult<T> + Send + 'static,
    {
        let store = self.clone();
        let _lane = lane(&self.lanes.writes).await?;
        blocking(move || store.with_tx(f)).await
    }

    /// A point read by key (tens of microseconds) from async code: run here when a read
    /// connection is idle, which saves a hop to a blocking thread on every model call; otherwise
    /// as [`Store::call_read`]. Never for scans or anything that may take longer.
    pub async fn call_read_by_key<T, F>(&self, f: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        let Some(pool) = &self.readers else { return self.call_read(f).await };
        let mut f = Some(f);
        let here = pool.try_with(|c| match f.take() {
            Some(f) => f(c),
            None => Err(ApiError::internal("a store read ran twice")),
        });
        match (here, f) {
            (Some(r), _) => r,
            (None, Some(f)) => self.call_read(f).await,
            (None, None) => Err(ApiError::internal("a store read was lost")),
        }
    }

    /// [`Store::with_read`] for async code: the work runs on a blocking thread.
    pub async fn call_read<T, F>(&self, f: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        let store = self.clone();
        let _lane = lane(&self.lanes.reads).await?;
        blocking(move || store.with_read(f)).await
    }

    /// A connection of its own for short writes that must not wait behind the shared writer
    /// connection (a run's heartbeat): long work holding that connection cannot delay it, and
    /// SQLite itself only makes it wait for another write transaction (up to the busy timeout).
    /// `None` for an in-memory store, which has only one connection.
    pub fn own_connection(&self) -> Result<Option<Connection>, StoreError> {
        if self.readers.is_none() {
            return Ok(None);
        }
        open_connection(&self.path).map(Some)
    }

    /// Run `f` in one transaction: committed if `f` returns Ok, rolled back otherwise.
    pub fn with_tx<T, E: From<rusqlite::Error>>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Applied schema changes, oldest first.
    pub fn applied_migrations(&self) -> Result<Vec<String>, rusqlite::Error> {
        self.with_read(migrations::applied)
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("a store task stopped unexpectedly: {e}")))?
}

/// A grouped write queued with [`Store::queue_grouped`]: its result once committed.
pub struct GroupedWrite<T> {
    done: tokio::sync::oneshot::Receiver<ApiResult<T>>,
}

impl<T> GroupedWrite<T> {
    /// Wait for the write's commit (it must have been flushed, by the caller or another write).
    pub async fn committed(self) -> ApiResult<T> {
        // The drain holds the connection until every write it took is committed (or failed).
        self.done.await.map_err(|_| ApiError::internal("a grouped store write was dropped before it finished"))?
    }
}
