//! Reading and writing `trajectories.jsonl`. Reading is the slow part of scoring at benchmark
//! scale (76k trajectories), so lines are decoded straight into the typed struct, in parallel;
//! the slower path that names the bad field runs only for a line that fails.

use std::path::Path;

use super::Trajectory;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::files::{decode_utf8, write_atomic, ReadError};

/// Largest trajectories file accepted.
pub const MAX_TRAJECTORY_FILE_BYTES: u64 = 4 * 1024 * 1024 * 1024;

pub fn trajectory_from_value(v: serde_json::Value) -> Result<Trajectory, String> {
    serde_path_to_error::deserialize::<_, Trajectory>(v).map_err(|e| {
        let path = e.path().to_string();
        let mut inner = crate::util::files::json_message(e.inner());
        if let Some(rest) = inner.strip_prefix("missing field `") {
            inner = format!("required field \"{}\" is missing", rest.trim_end_matches('`'));
        }
        if path == "." || path.is_empty() {
            inner
        } else {
            format!("field \"{path}\": {inner}")
        }
    })
}

/// A located explanation of why one line is not a trajectory.
fn explain(line: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(line) {
        Err(e) => format!("not valid JSON ({}) at column {}", crate::util::files::json_message(&e), e.column()),
        Ok(v) => trajectory_from_value(v).err().unwrap_or_else(|| "not a trajectory".into()),
    }
}

/// Decode JSON texts into trajectories on all cores. Errors carry the index of the bad text.
pub fn parse_many<S: AsRef<str> + Sync>(texts: &[S]) -> Result<Vec<Trajectory>, (usize, String)> {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 8);
    if texts.len() < 2048 || threads == 1 {
        return texts
            .iter()
            .enumerate()
            .map(|(i, t)| serde_json::from_str::<Trajectory>(t.as_ref()).map_err(|_| (i, explain(t.as_ref()))))
            .collect();
    }
    let chunk = texts.len().div_ceil(threads);
    let results: Vec<Result<Vec<Trajectory>, (usize, String)>> = std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| {
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(i, t)| serde_json::from_str::<Trajectory>(t.as_ref()).map_err(|_| (k * chunk + i, explain(t.as_ref()))))
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err((0, "a parser thread failed".into())))).collect()
    });
    let mut out = Vec::with_capacity(texts.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// Read every trajectory of a JSONL file; the first malformed line stops the read with its location.
pub fn read_trajectories(path: &Path) -> ApiResult<Vec<Trajectory>> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        ApiError::from(if e.kind() == std::io::ErrorKind::NotFound {
            ReadError::NotFound { path: path.to_path_buf() }
        } else {
            ReadError::Io { path: path.to_path_buf(), message: e.to_string() }
        })
    })?;
    if bytes.len() as u64 > MAX_TRAJECTORY_FILE_BYTES {
        return Err(ReadError::TooLarge { path: path.to_path_buf(), size: bytes.len() as u64, limit: MAX_TRAJECTORY_FILE_BYTES }.into());
    }
    let text = decode_utf8(path, bytes)?;
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect();
    let texts: Vec<&str> = lines.iter().map(|(_, l)| *l).collect();
    parse_many(&texts).map_err(|(i, msg)| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{}: {msg}", lines[i].0)))
}

pub fn write_trajectories(path: &Path, items: &[Trajectory]) -> ApiResult<()> {
    let mut s = String::new();
    for t in items {
        s.push_str(&serde_json::to_string(t).map_err(|e| ApiError::internal(e.to_string()))?);
        s.push('\n');
    }
    write_atomic(path, s.as_bytes())
}
