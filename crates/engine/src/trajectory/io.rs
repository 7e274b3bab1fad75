//! Reading and writing `trajectories.jsonl`.

use std::path::Path;

use super::Trajectory;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::files::{for_each_jsonl, write_atomic};

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

/// Read every trajectory of a JSONL file; the first malformed line stops the read with its location.
pub fn read_trajectories(path: &Path) -> ApiResult<Vec<Trajectory>> {
    let shown = path.display().to_string();
    let mut out = Vec::new();
    for_each_jsonl::<ApiError>(path, |rec| {
        let t = trajectory_from_value(rec.value)
            .map_err(|m| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{}: {m}", rec.line)))?;
        out.push(t);
        Ok(())
    })?;
    Ok(out)
}

pub fn write_trajectories(path: &Path, items: &[Trajectory]) -> ApiResult<()> {
    let mut s = String::new();
    for t in items {
        s.push_str(&serde_json::to_string(t).map_err(|e| ApiError::internal(e.to_string()))?);
        s.push('\n');
    }
    write_atomic(path, s.as_bytes())
}
