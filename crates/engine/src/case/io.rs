//! Reading and writing `cases.jsonl` with located, plain-language errors.

use std::collections::HashMap;
use std::path::Path;

use super::validate::check_case;
use super::Case;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::policy::PolicyVocab;
use crate::util::files::{for_each_jsonl, write_atomic};

/// Decode one JSON value as a case, naming the field that is wrong.
pub fn case_from_value(v: serde_json::Value) -> Result<Case, String> {
    serde_path_to_error::deserialize::<_, Case>(v).map_err(|e| {
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

/// Read and check every case of a JSONL file. The first problem stops the read: imports are all
/// or nothing, so a located message is more useful than a partial load.
pub fn read_cases(path: &Path, vocab_for: &dyn Fn(&str) -> Option<PolicyVocab>) -> ApiResult<Vec<Case>> {
    let shown = path.display().to_string();
    let mut out: Vec<Case> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    // Looked up once per policy: building a vocabulary copies the policy pack.
    let mut vocabs: HashMap<String, Option<PolicyVocab>> = HashMap::new();
    for_each_jsonl::<ApiError>(path, |rec| {
        let case = case_from_value(rec.value)
            .map_err(|m| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{}: {m}", rec.line)))?;
        if !vocabs.contains_key(&case.policy) {
            vocabs.insert(case.policy.clone(), vocab_for(&case.policy));
        }
        let vocab = vocabs.get(&case.policy).and_then(Option::as_ref);
        if vocab.is_none() {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{shown}:{}: case \"{}\" belongs to policy \"{}\", which is not installed", rec.line, case.case_id, case.policy),
            ));
        }
        let problems = check_case(&case, vocab);
        if let Some(first) = problems.first() {
            let more = if problems.len() > 1 { format!(" (and {} more problem(s))", problems.len() - 1) } else { String::new() };
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{shown}:{}: case \"{}\": {first}{more}", rec.line, case.case_id),
            )
            .with_detail(problems.join("\n")));
        }
        if let Some(prev) = seen.insert(case.case_id.clone(), rec.line) {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{shown}:{}: case id \"{}\" was already used on line {prev}; case ids must be unique", rec.line, case.case_id),
            ));
        }
        out.push(case);
        Ok(())
    })?;
    Ok(out)
}

/// Write cases as JSONL (one object per line, FORMATS.md field order).
pub fn write_cases(path: &Path, cases: &[Case]) -> ApiResult<()> {
    let mut s = String::with_capacity(cases.len() * 2048);
    for c in cases {
        s.push_str(&serde_json::to_string(c).map_err(|e| ApiError::internal(e.to_string()))?);
        s.push('\n');
    }
    write_atomic(path, s.as_bytes())
}
