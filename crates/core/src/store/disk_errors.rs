//! SQLite's ways of saying "the disk is full" and "the database is read-only", turned into the
//! plain messages of `util::disk`.

use rusqlite::ffi;
use std::path::Path;

use crate::error::{ApiError, ErrorCode};
use crate::util::disk::{self, DiskProblem};

/// The disk condition behind a SQLite error, if there is one.
///
/// SQLite reports SQLITE_FULL only for ENOSPC; any other failed write (EFBIG when a file-size
/// limit is reached, EDQUOT, a failing drive) comes back as SQLITE_IOERR_WRITE. Those are
/// reported as a full disk too: the message names both, and the remedy is the same.
pub fn problem_of(e: &rusqlite::Error) -> Option<DiskProblem> {
    let rusqlite::Error::SqliteFailure(f, _) = e else { return None };
    match f.code {
        rusqlite::ErrorCode::DiskFull => Some(DiskProblem::Full),
        rusqlite::ErrorCode::ReadOnly => Some(DiskProblem::ReadOnly),
        rusqlite::ErrorCode::SystemIoFailure
            if matches!(
                f.extended_code,
                ffi::SQLITE_IOERR_WRITE
                    | ffi::SQLITE_IOERR_FSYNC
                    | ffi::SQLITE_IOERR_TRUNCATE
                    | ffi::SQLITE_IOERR_SHMSIZE
            ) =>
        {
            Some(DiskProblem::Full)
        }
        _ => None,
    }
}

/// The API error for a store write that failed for `problem`.
pub fn api_error(problem: DiskProblem, path: Option<&Path>, detail: String) -> ApiError {
    let store = match path {
        Some(p) => format!("the store at {}", p.display()),
        None => "the store".to_string(),
    };
    let (code, message) = match problem {
        DiskProblem::Full => (ErrorCode::StoreFailed, disk::message(problem, &store)),
        DiskProblem::ReadOnly => (ErrorCode::StoreUnavailable, disk::message(problem, &capitalised(&store))),
    };
    ApiError::new(code, message).with_detail(detail)
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
