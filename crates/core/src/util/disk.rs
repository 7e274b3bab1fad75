//! Recognising a full disk and a read-only file system in I/O errors, so every layer can tell the
//! user the plain reason ("The disk is full", "… is read-only") instead of an OS error number.

use std::io;
use std::path::Path;

/// A disk condition the user can fix, as opposed to a bug or a broken file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskProblem {
    /// No space left, a quota reached, or a file larger than the system allows.
    Full,
    /// The file system, the folder or the file cannot be written.
    ReadOnly,
}

/// The disk condition behind an I/O error, if it is one of those.
pub fn problem_of(e: &io::Error) -> Option<DiskProblem> {
    let code = e.raw_os_error()?;
    #[cfg(unix)]
    {
        if code == libc::ENOSPC || code == libc::EFBIG || code == libc::EDQUOT {
            return Some(DiskProblem::Full);
        }
        if code == libc::EROFS {
            return Some(DiskProblem::ReadOnly);
        }
    }
    #[cfg(windows)]
    {
        // ERROR_HANDLE_DISK_FULL, ERROR_DISK_FULL; ERROR_WRITE_PROTECT.
        if code == 39 || code == 112 {
            return Some(DiskProblem::Full);
        }
        if code == 19 {
            return Some(DiskProblem::ReadOnly);
        }
    }
    let _ = code;
    None
}

/// Whether `path` (an existing file) or, failing that, its folder cannot be written. Used after
/// something already failed, to name the reason; it never changes the file.
pub fn is_read_only(path: &Path) -> bool {
    let refused =
        |e: &io::Error| e.kind() == io::ErrorKind::PermissionDenied || problem_of(e) == Some(DiskProblem::ReadOnly);
    if path.exists() {
        if let Err(e) = std::fs::OpenOptions::new().append(true).open(path) {
            return refused(&e);
        }
    }
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else { return false };
    let probe = dir.join(format!(".psebench-write-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            // Only our own probe file is removed; if that fails it is an empty file left behind.
            let _ = std::fs::remove_file(&probe);
            false
        }
        Err(e) => refused(&e),
    }
}

/// A sentence for writing `what` (a file path or "the store") that failed for `problem`.
pub fn message(problem: DiskProblem, what: &str) -> String {
    match problem {
        DiskProblem::Full => format!(
            "The disk is full: {what} could not be written, and nothing of this step was kept. \
             Free some space on that drive (or write somewhere else) and try again."
        ),
        DiskProblem::ReadOnly => format!(
            "{what} is read-only: nothing could be written there, and nothing was changed. \
             Make it writable (or choose another place) and try again."
        ),
    }
}
