//! Logs for every shell: the engine emits `tracing` events; the shells call [`init`] once to
//! decide where they go (a rotating file in the data folder, and/or standard error).
//!
//! Events never carry secrets: provider errors are scrubbed of keys before they are logged, and
//! request bodies are not logged at all.

use crate::util::private_files;
use std::path::{Path, PathBuf};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Environment variable that overrides the levels (`tracing` filter syntax, e.g. `psebench=debug`).
pub const LOG_ENV: &str = "PSEBENCH_LOG";

/// How many daily log files are kept; older ones are deleted.
pub const KEEP_FILES: usize = 7;

/// How verbose a log is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    /// The level for a count of `-v` flags: none → warnings and errors only, 1 → info, 2 → debug, 3+ → trace.
    pub fn from_verbosity(count: u8) -> LogLevel {
        match count {
            0 => LogLevel::Warn,
            1 => LogLevel::Info,
            2 => LogLevel::Debug,
            _ => LogLevel::Trace,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }
}

/// Where logs go.
#[derive(Debug, Clone, PartialEq)]
pub struct LogOptions {
    /// Folder of the rotating file log (`None`: no file).
    pub file_dir: Option<PathBuf>,
    /// Level of the file log.
    pub file_level: LogLevel,
    /// Level printed on standard error (`None`: nothing).
    pub stderr_level: Option<LogLevel>,
}

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("Could not create the log folder {path}: {message}")]
    Folder { path: String, message: String },
    #[error("Could not open the log file in {path}: {message}")]
    File { path: String, message: String },
}

/// Keeps the file log writing; dropping it flushes what is still buffered. Hold it until the
/// process ends.
#[must_use = "the file log stops when this guard is dropped"]
pub struct LogGuard {
    _file: Option<tracing_appender::non_blocking::WorkerGuard>,
}

/// The log folder that goes with a store: `logs/` next to the database file.
pub fn log_dir_for(db_path: &Path) -> PathBuf {
    match db_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join("logs"),
        _ => PathBuf::from("logs"),
    }
}

/// Lines waiting for the file log's writer thread before a logging thread waits for it.
const LOG_QUEUE_LINES: usize = 1024;

/// Log file names start with this (then the date, then `.log`).
pub const FILE_PREFIX: &str = "psebench";

fn filter(level: LogLevel) -> EnvFilter {
    if let Ok(spec) = std::env::var(LOG_ENV) {
        if let Ok(f) = EnvFilter::try_new(spec.trim()) {
            return f;
        }
    }
    // This program's crates at the chosen level; libraries (HTTP, TLS) only when they warn.
    let l = level.as_str();
    EnvFilter::new(format!("warn,psebench={l},psebench_cli={l},psebench_studio={l}"))
}

/// Make this program's log files in `dir` owner-only (they may quote case text and model output).
/// Files written after a later daily rotation stay in the owner-only folder the log lives in.
fn restrict_log_files(dir: &Path) -> Result<(), LogError> {
    let err = |e: std::io::Error| LogError::File { path: dir.display().to_string(), message: e.to_string() };
    for entry in std::fs::read_dir(dir).map_err(err)? {
        let path = entry.map_err(err)?.path();
        let ours = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(FILE_PREFIX));
        if ours && path.is_file() {
            private_files::restrict_file(&path).map_err(err)?;
        }
    }
    Ok(())
}

/// Install the process-wide subscriber. Calling it again (tests, a second shell in one process)
/// leaves the first one in place and returns a guard that does nothing.
pub fn init(opts: &LogOptions) -> Result<LogGuard, LogError> {
    let mut guard = LogGuard { _file: None };
    let file_layer = match &opts.file_dir {
        Some(dir) => {
            private_files::create_private_dir_all(dir)
                .map_err(|e| LogError::Folder { path: dir.display().to_string(), message: e.to_string() })?;
            let appender = tracing_appender::rolling::Builder::new()
                .rotation(tracing_appender::rolling::Rotation::DAILY)
                .filename_prefix(FILE_PREFIX)
                .filename_suffix("log")
                .max_log_files(KEEP_FILES)
                .build(dir)
                .map_err(|e| LogError::File { path: dir.display().to_string(), message: e.to_string() })?;
            restrict_log_files(dir)?;
            // A short queue that makes a logging thread wait when it is full, rather than drop
            // lines: the library's default queue (128,000 lines, allocated whole at start) took
            // 4 MB of the desktop app's memory for a log that writes a few lines a minute.
            let (writer, g) = tracing_appender::non_blocking::NonBlockingBuilder::default()
                .buffered_lines_limit(LOG_QUEUE_LINES)
                .lossy(false)
                .finish(appender);
            guard._file = Some(g);
            Some(
                tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .with_ansi(false)
                    .with_filter(filter(opts.file_level)),
            )
        }
        None => None,
    };
    let stderr_layer = opts.stderr_level.map(|level| {
        let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(colour)
            .with_target(false)
            .compact()
            .with_filter(filter(level))
    });
    if tracing_subscriber::registry().with(file_layer).with(stderr_layer).try_init().is_err() {
        // Someone installed a subscriber first; theirs stays.
        return Ok(LogGuard { _file: None });
    }
    tracing::info!(version = crate::version(), file = ?opts.file_dir, "logging started");
    Ok(guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbosity_levels_and_the_log_folder() {
        assert_eq!(LogLevel::from_verbosity(0), LogLevel::Warn);
        assert_eq!(LogLevel::from_verbosity(1), LogLevel::Info);
        assert_eq!(LogLevel::from_verbosity(2), LogLevel::Debug);
        assert_eq!(LogLevel::from_verbosity(9), LogLevel::Trace);
        assert_eq!(log_dir_for(Path::new("/data/psebench/psebench.db")), PathBuf::from("/data/psebench/logs"));
        assert_eq!(log_dir_for(Path::new("s.db")), PathBuf::from("logs"));
    }

    /// The file log's queue is short (a few lines a minute are usual), so a burst longer than the
    /// queue must make the logging threads wait for the writer, not lose lines. The only test in
    /// this binary that installs the process-wide subscriber.
    #[test]
    fn a_burst_of_lines_longer_than_the_queue_reaches_the_file_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logs");
        let opts = LogOptions { file_dir: Some(dir.clone()), file_level: LogLevel::Info, stderr_level: None };
        let guard = init(&opts).unwrap();
        assert!(guard._file.is_some(), "another test installed the subscriber first");
        let threads: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    for i in 0..LOG_QUEUE_LINES {
                        tracing::info!(target: "psebench", "burst line {t}-{i}");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        drop(guard);
        let mut lines = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            lines += text.lines().filter(|l| l.contains("burst line")).count();
        }
        assert_eq!(lines, 4 * LOG_QUEUE_LINES);
    }

    #[cfg(unix)]
    #[test]
    fn log_files_are_made_owner_only_and_other_files_are_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logs");
        std::fs::create_dir_all(&dir).unwrap();
        private_files::restrict_dir(&dir).unwrap();
        let ours = dir.join("psebench.2026-11-25.log");
        let other = dir.join("notes.txt");
        for f in [&ours, &other] {
            std::fs::write(f, "x").unwrap();
            std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        restrict_log_files(&dir).unwrap();
        assert_eq!(mode(&ours), 0o600);
        assert_eq!(mode(&other), 0o644);
    }
}
