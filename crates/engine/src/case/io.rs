//! Reading and writing `cases.jsonl` with located, plain-language errors.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::validate::check_case;
use super::Case;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::policy::PolicyVocab;
use crate::util::files::{for_each_jsonl, write_atomic, MAX_JSONL_LINE_BYTES};
use crate::util::ids::check_id;
use crate::util::parallel::in_parts;

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
///
/// Files without problems take a quick path (the file read in one go, lines decoded straight
/// into cases on parallel threads, then checked in order); on any problem the file is read again
/// line by line, which finds and words the first problem.
pub fn read_cases(path: &Path, vocab_for: &dyn Fn(&str) -> Option<PolicyVocab>) -> ApiResult<Vec<Case>> {
    match read_cases_quickly(path, vocab_for) {
        Some(cases) => Ok(cases),
        None => read_cases_line_by_line(path, vocab_for),
    }
}

/// Largest file the quick path reads in one go.
const QUICK_READ_LIMIT: u64 = 512 * 1024 * 1024;

/// The quick path of [`read_cases`]; None when the line-by-line read must decide.
fn read_cases_quickly(path: &Path, vocab_for: &dyn Fn(&str) -> Option<PolicyVocab>) -> Option<Vec<Case>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > QUICK_READ_LIMIT {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    // As the line-by-line read sees them: split at \n, a byte-order mark dropped from the start
    // of a line, then trimmed; blank lines skipped.
    let mut lines = Vec::new();
    for raw in text.split_inclusive('\n') {
        if raw.len() > MAX_JSONL_LINE_BYTES {
            return None;
        }
        let line = raw.strip_prefix('\u{feff}').unwrap_or(raw).trim();
        if !line.is_empty() {
            lines.push(line);
        }
    }
    let cases = decode_in_parallel(&lines)?;
    // One vocabulary per policy named, looked up before the parallel checks.
    let mut vocabs: HashMap<&str, PolicyVocab> = HashMap::new();
    for case in &cases {
        if !vocabs.contains_key(case.policy.as_str()) {
            vocabs.insert(case.policy.as_str(), vocab_for(&case.policy)?);
        }
    }
    let each_valid = |part: &[Case]| {
        part.iter().all(|case| {
            vocabs.get(case.policy.as_str()).is_some_and(|vocab| {
                check_id("case id", &case.case_id).is_ok() && check_case(case, Some(vocab)).is_empty()
            })
        })
    };
    if !in_parts(&cases, 256, |_, part| each_valid(part))?.into_iter().all(|ok| ok) {
        return None;
    }
    let mut seen: HashSet<&str> = HashSet::with_capacity(cases.len());
    if !cases.iter().all(|case| seen.insert(case.case_id.as_str())) {
        return None;
    }
    Some(cases)
}

/// Decode each line as a case, on parallel threads for large files; None if any line fails.
fn decode_in_parallel(lines: &[&str]) -> Option<Vec<Case>> {
    let decode =
        |part: &[&str]| part.iter().map(|l| serde_json::from_str::<Case>(l).ok()).collect::<Option<Vec<Case>>>();
    let mut cases = Vec::with_capacity(lines.len());
    for part in in_parts(lines, 256, |_, part| decode(part))? {
        cases.extend(part?);
    }
    Some(cases)
}

/// The line-by-line read: streams the file and stops at the first problem with its location.
fn read_cases_line_by_line(path: &Path, vocab_for: &dyn Fn(&str) -> Option<PolicyVocab>) -> ApiResult<Vec<Case>> {
    let shown = path.display().to_string();
    let mut out: Vec<Case> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    // Looked up once per policy: building a vocabulary copies the policy pack.
    let mut vocabs: HashMap<String, Option<PolicyVocab>> = HashMap::new();
    for_each_jsonl::<ApiError>(path, |rec| {
        let case = case_from_value(rec.value)
            .map_err(|m| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{}: {m}", rec.line)))?;
        check_id("case id", &case.case_id)
            .map_err(|e| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{}: {e}", rec.line)))?;
        if !vocabs.contains_key(&case.policy) {
            vocabs.insert(case.policy.clone(), vocab_for(&case.policy));
        }
        let vocab = vocabs.get(&case.policy).and_then(Option::as_ref);
        if vocab.is_none() {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!(
                    "{shown}:{}: case \"{}\" belongs to policy \"{}\", which is not installed",
                    rec.line, case.case_id, case.policy
                ),
            ));
        }
        let problems = check_case(&case, vocab);
        if let Some(first) = problems.first() {
            let more = if problems.len() > 1 {
                format!(" (and {})", crate::util::format::count(problems.len() - 1, "more problem"))
            } else {
                String::new()
            };
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{shown}:{}: case \"{}\": {first}{more}", rec.line, case.case_id),
            )
            .with_detail(problems.join("\n")));
        }
        if let Some(prev) = seen.insert(case.case_id.clone(), rec.line) {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!(
                    "{shown}:{}: case id \"{}\" was already used on line {prev}; case ids must be unique",
                    rec.line, case.case_id
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(p: &str) -> Option<PolicyVocab> {
        crate::policy::builtin_pack(p).map(|pk| pk.vocab(&[]))
    }

    fn both(text: &str) -> (ApiResult<Vec<Case>>, ApiResult<Vec<Case>>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.jsonl");
        std::fs::write(&path, text).unwrap();
        (read_cases(&path, &vocab), read_cases_line_by_line(&path, &vocab))
    }

    fn lines() -> Vec<String> {
        let (cases, _) = crate::metrics::synthetic_benchmark(600, 1, 4);
        cases.iter().map(|c| serde_json::to_string(c).unwrap()).collect()
    }

    #[test]
    fn the_quick_path_reads_what_the_line_by_line_read_reads() {
        let mut ls = lines();
        ls[0].insert(0, '\u{feff}');
        ls[1] = ls[1].replace("\"value\":\"value 1\"", "\"value\":12.50");
        ls[2] = ls[2].replacen('{', "{\"x\":{\"deep\":[1,\"\\u00e9\"]},", 1);
        let text = format!("\n{}\r\n  \n", ls.join("\r\n"));
        assert!(read_cases_quickly_from(&text).is_some());
        let (quick, slow) = both(&text);
        let quick = quick.unwrap();
        assert_eq!(quick, slow.unwrap());
        assert_eq!(quick.len(), 600);
        assert_eq!(quick[1].elements[0].value.as_deref(), Some("12.5"));
        // A repeated key (the last one counts) is left to the line-by-line read.
        ls[3] = ls[3].replacen('{', "{\"case_id\":\"overwritten\",", 1);
        let text = ls.join("\n");
        assert!(read_cases_quickly_from(&text).is_none());
        let (quick, slow) = both(&text);
        assert_eq!(quick.unwrap(), slow.unwrap());
    }

    fn read_cases_quickly_from(text: &str) -> Option<Vec<Case>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.jsonl");
        std::fs::write(&path, text).unwrap();
        read_cases_quickly(&path, &vocab)
    }

    #[test]
    fn problems_give_the_line_by_line_message() {
        let good = lines();
        let bad = [
            "not json".to_string(),
            good[0].clone(), // a repeated case id
            good[5].replace("\"policy\":\"mn29\"", "\"policy\":\"nope\""),
            good[5].replace("\"clause_id\":\"", "\"clause_id\":\"x"),
            good[5].replace("\"gold_verdict\":", "\"gold_verdict\":1,\"y\":"),
            "{\"case_id\": 3}".to_string(),
            good[5].replacen("\"case_id\":\"", "\"case_id\":\"../", 1),
        ];
        // In the first and the last part of the parallel decode and checks.
        for (b, at) in bad.iter().flat_map(|b| [(b, 300), (b, 598)]) {
            let mut ls = good.clone();
            ls.insert(at, b.clone());
            let (quick, slow) = both(&ls.join("\n"));
            assert_eq!(quick.unwrap_err().to_string(), slow.unwrap_err().to_string());
        }
        let mut ls = good.clone();
        ls.insert(300, good[5].replacen("\"case_id\":\"", "\"case_id\":\"/tmp/", 1));
        let msg = both(&ls.join("\n")).0.unwrap_err().to_string();
        assert!(msg.contains("cases.jsonl:301: the case id \"/tmp/"), "{msg}");
        assert!(msg.contains("path separator"), "{msg}");
        let (quick, slow) = both("\u{e9}\n");
        assert_eq!(quick.unwrap_err().to_string(), slow.unwrap_err().to_string());
    }
}
