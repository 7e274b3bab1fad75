//! Reading user-supplied files with clear, located errors: size limits, UTF-8 checks, JSON parse
//! errors with line and column, and a streaming JSONL reader.

use serde_json::Value;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::error::{ApiError, ErrorCode};

/// Largest single JSON document (one card, one policy file) we accept.
pub const MAX_JSON_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Largest line in a JSONL file (one case, one trajectory, one card).
pub const MAX_JSONL_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Largest Markdown document we import (official policy text).
pub const MAX_TEXT_FILE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug)]
pub enum ReadError {
    NotFound { path: PathBuf },
    Io { path: PathBuf, message: String },
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    LineTooLong { path: PathBuf, line: usize, limit: usize },
    NotUtf8 { path: PathBuf, line: usize, column: usize },
    Json { path: PathBuf, line: usize, column: usize, message: String },
}

fn mb(n: u64) -> String {
    format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound { path } => write!(f, "{}: file or folder not found", path.display()),
            ReadError::Io { path, message } => write!(f, "{}: could not be read ({message})", path.display()),
            ReadError::TooLarge { path, size, limit } => write!(
                f,
                "{}: the file is {} but at most {} is accepted here; check that you picked the right file",
                path.display(),
                mb(*size),
                mb(*limit)
            ),
            ReadError::LineTooLong { path, line, limit } => write!(
                f,
                "{}:{line}: this line is longer than {} — a JSONL file must hold one record per line",
                path.display(),
                mb(*limit as u64)
            ),
            ReadError::NotUtf8 { path, line, column } => write!(
                f,
                "{}:{line}:{column}: the file is not UTF-8 text; save it as UTF-8 and try again",
                path.display()
            ),
            ReadError::Json { path, line, column, message } => {
                write!(f, "{}:{line}:{column}: not valid JSON ({message})", path.display())
            }
        }
    }
}

impl From<ReadError> for ApiError {
    fn from(e: ReadError) -> Self {
        let code = match e {
            ReadError::NotFound { .. } => ErrorCode::NotFound,
            ReadError::Io { .. } => ErrorCode::Io,
            _ => ErrorCode::InvalidInput,
        };
        ApiError::new(code, e.to_string())
    }
}

fn io_err(path: &Path, e: std::io::Error) -> ReadError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ReadError::NotFound { path: path.to_path_buf() }
    } else {
        ReadError::Io { path: path.to_path_buf(), message: e.to_string() }
    }
}

/// Line and column (1-based) of a byte offset in `bytes`.
fn locate(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    (line, col)
}

/// Decode bytes as UTF-8 (a leading BOM is dropped) or say where the first bad byte is.
pub fn decode_utf8(path: &Path, bytes: Vec<u8>) -> Result<String, ReadError> {
    let bytes = if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) { bytes[3..].to_vec() } else { bytes };
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let (line, column) = locate(e.as_bytes(), offset);
            Err(ReadError::NotUtf8 { path: path.to_path_buf(), line, column })
        }
    }
}

/// Read a whole text file, refusing files over `limit` bytes and non-UTF-8 content.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| io_err(path, e))?;
    if meta.is_dir() {
        return Err(ReadError::Io { path: path.to_path_buf(), message: "it is a folder, not a file".into() });
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { path: path.to_path_buf(), size: meta.len(), limit });
    }
    let mut f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    let mut buf = Vec::with_capacity(meta.len() as usize);
    f.by_ref().take(limit + 1).read_to_end(&mut buf).map_err(|e| io_err(path, e))?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge { path: path.to_path_buf(), size: buf.len() as u64, limit });
    }
    decode_utf8(path, buf)
}

/// Parse JSON text, reporting the file, line and column of the first problem.
pub fn parse_json(path: &Path, text: &str) -> Result<Value, ReadError> {
    serde_json::from_str(text).map_err(|e| ReadError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: json_message(&e),
    })
}

/// serde_json's message without its trailing " at line X column Y" (we print the location ourselves).
pub fn json_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Read and parse one JSON document.
pub fn read_json(path: &Path) -> Result<Value, ReadError> {
    let text = read_text(path, MAX_JSON_FILE_BYTES)?;
    parse_json(path, &text)
}

/// One non-empty line of a JSONL file, parsed.
pub struct JsonlRecord {
    pub line: usize,
    pub value: Value,
}

/// Stream a JSONL file, calling `f` for each non-blank line. Stops at the first error (including
/// an error returned by `f`).
pub fn for_each_jsonl<E: From<ReadError>>(
    path: &Path,
    mut f: impl FnMut(JsonlRecord) -> Result<(), E>,
) -> Result<(), E> {
    let file = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(ReadError::Io { path: path.to_path_buf(), message: "it is a folder, not a file".into() }.into());
    }
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    loop {
        buf.clear();
        line_no += 1;
        let n = read_line_limited(&mut reader, &mut buf, MAX_JSONL_LINE_BYTES).map_err(|e| match e {
            LineError::Io(e) => io_err(path, e),
            LineError::TooLong => {
                ReadError::LineTooLong { path: path.to_path_buf(), line: line_no, limit: MAX_JSONL_LINE_BYTES }
            }
        })?;
        if n == 0 {
            break;
        }
        let bytes = std::mem::take(&mut buf);
        let text = decode_utf8(path, bytes).map_err(|e| match e {
            ReadError::NotUtf8 { path, column, .. } => ReadError::NotUtf8 { path, line: line_no, column },
            other => other,
        })?;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(trimmed).map_err(|e| ReadError::Json {
            path: path.to_path_buf(),
            line: line_no,
            column: e.column(),
            message: json_message(&e),
        })?;
        f(JsonlRecord { line: line_no, value })?;
    }
    Ok(())
}

enum LineError {
    Io(std::io::Error),
    TooLong,
}

fn read_line_limited(r: &mut impl BufRead, out: &mut Vec<u8>, limit: usize) -> Result<usize, LineError> {
    let mut total = 0;
    loop {
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LineError::Io(e)),
        };
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let len = chunk.len();
        if total + len > limit {
            return Err(LineError::TooLong);
        }
        out.extend_from_slice(chunk);
        r.consume(len);
        total += len;
        if done {
            return Ok(total);
        }
    }
}

/// The error for an export whose file name `windows` refuses or would change (`CON.csv` is the
/// console there, `a?b.csv` cannot be created, `notes.` loses its dot), before anything is written.
/// Other systems accept those names, so they are only refused on Windows.
pub fn refuse_file_name(path: &Path, windows: bool) -> Result<(), ApiError> {
    if !windows {
        return Ok(());
    }
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return Ok(()) };
    match crate::util::file_names::windows_problem(name) {
        Some(why) => Err(ApiError::invalid(format!(
            "{}: Windows cannot save a file under this name: {why}. Choose another name.",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// Write a file atomically enough for exports: write to a sibling temp file, then rename.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), ApiError> {
    refuse_file_name(path, cfg!(windows))?;
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            std::fs::create_dir_all(parent).map_err(|e| {
                ApiError::new(ErrorCode::Io, format!("{}: could not create the folder ({e})", parent.display()))
            })?;
        }
    }
    let tmp = path.with_extension(format!(
        "{}.tmp{}",
        path.extension().and_then(|s| s.to_str()).unwrap_or(""),
        std::process::id()
    ));
    let written = std::fs::write(&tmp, contents).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        // A half-written temporary file is never left behind (on a full disk it is most of the
        // reason the write failed); the target keeps its old contents or stays absent.
        let _ = std::fs::remove_file(&tmp);
        return Err(write_error(path, &e));
    }
    Ok(())
}

/// The error for a file that could not be written: a full disk and a read-only place are named.
pub fn write_error(path: &Path, e: &std::io::Error) -> ApiError {
    let message = match super::disk::problem_of(e) {
        Some(problem @ super::disk::DiskProblem::Full) => super::disk::message(problem, &path.display().to_string()),
        Some(problem @ super::disk::DiskProblem::ReadOnly) => {
            super::disk::message(problem, &format!("The folder of {}", path.display()))
        }
        None if e.kind() == std::io::ErrorKind::PermissionDenied => format!(
            "{}: could not write there: the folder is read-only for you or you may not write to it ({e}). \
             Choose another place or change its permissions.",
            path.display()
        ),
        None => format!("{}: could not write ({e})", path.display()),
    };
    ApiError::new(ErrorCode::Io, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_windows_refuses_are_refused_there_only() {
        for bad in ["CON.csv", "nul.jsonl", "a?b.csv", "what*.md", "notes."] {
            let e = refuse_file_name(&Path::new("out").join(bad), true).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{bad}");
            assert!(e.message.contains("Windows cannot save a file under this name"), "{bad}: {}", e.message);
            assert!(refuse_file_name(&Path::new("out").join(bad), false).is_ok(), "{bad}");
        }
        assert!(refuse_file_name(Path::new("out/results.csv"), true).is_ok());
        assert!(refuse_file_name(Path::new("console.csv"), true).is_ok());
    }

    #[test]
    fn locates_bad_utf8() {
        let p = Path::new("x.json");
        let err = decode_utf8(p, b"{\n  \"a\": \"\xff\"}".to_vec()).unwrap_err();
        assert_eq!(err.to_string(), "x.json:2:9: the file is not UTF-8 text; save it as UTF-8 and try again");
    }

    #[test]
    fn json_errors_carry_position() {
        let err = parse_json(Path::new("c.json"), "{\n \"a\": 1,\n}").unwrap_err();
        let s = err.to_string();
        assert!(s.starts_with("c.json:3:1: not valid JSON"), "{s}");
    }

    #[test]
    fn jsonl_line_limit_is_enforced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.jsonl");
        std::fs::write(&p, vec![b'x'; MAX_JSONL_LINE_BYTES + 10]).unwrap();
        let err = for_each_jsonl::<ReadError>(&p, |_| Ok(())).unwrap_err();
        assert!(matches!(err, ReadError::LineTooLong { line: 1, .. }));
    }
}
