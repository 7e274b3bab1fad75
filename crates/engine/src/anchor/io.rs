//! Reading anchor files: JSONL (one object per line), CSV with a header row, a single `.txt`
//! file, or a folder of `.txt` files. Everything is checked before anything is stored, and every
//! problem names its file and line.

use crate::util::format::count;
use serde_json::Value;
use std::path::Path;

use crate::error::{ApiError, ErrorCode};
use crate::util::files::{read_text, MAX_TEXT_FILE_BYTES};

/// Longest anchor text accepted (characters). Incident reports are short; a longer text is
/// almost always a whole document pasted by mistake.
pub const MAX_ANCHOR_CHARS: usize = 20_000;

/// One anchor as read from a file, before defaults and bucket checks are applied.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorRecord {
    pub anchor_id: Option<String>,
    pub text: String,
    pub source: Option<String>,
    pub language: Option<String>,
    pub clause_id: Option<String>,
    /// `file.jsonl:3`, `file.csv:row 4`, `folder/x.txt`: where the record came from.
    pub location: String,
    /// A fallback id (file stem plus line) for records without one.
    pub fallback_id: String,
}

/// The base of a file name (no folder, no extension) made to follow the id rule
/// (`util::ids::check_id`): any character but `A-Z a-z 0-9 . _ -` becomes `_` (so `Übelkeit`
/// becomes `_belkeit`). A leading dot is kept: the callers decide about hidden files.
fn stem(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let s = base.rsplit_once('.').map(|(a, _)| a).unwrap_or(base);
    let cleaned: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    if cleaned.is_empty() {
        "anchor".into()
    } else {
        cleaned
    }
}

fn problem(problems: &[String], file: &str) -> ApiError {
    let first = problems.first().cloned().unwrap_or_default();
    ApiError::new(
        ErrorCode::InvalidInput,
        format!("{file}: {} found, so no anchor was imported. First: {first}", count(problems.len(), "problem")),
    )
    .with_detail(problems.join("\n"))
}

fn opt_str(v: Option<&Value>, field: &str, loc: &str, problems: &mut Vec<String>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(Value::Number(n)) if field == "anchor_id" => Some(n.to_string()),
        Some(other) => {
            problems.push(format!("{loc}: \"{field}\" must be text, not {other}"));
            None
        }
    }
}

fn check_text(text: &str, loc: &str, problems: &mut Vec<String>) {
    if text.trim().is_empty() {
        problems.push(format!("{loc}: the text is empty; an anchor needs the incident description itself"));
    } else if text.chars().count() > MAX_ANCHOR_CHARS {
        problems.push(format!(
            "{loc}: the text has {} characters but at most {MAX_ANCHOR_CHARS} are accepted; split long documents into one incident per anchor",
            text.chars().count()
        ));
    }
}

/// JSONL: `{"anchor_id", "text", "source", "language", "clause_id"?}` per line.
pub fn parse_jsonl(file: &str, text: &str) -> Result<Vec<AnchorRecord>, ApiError> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() {
            continue;
        }
        let loc = format!("{file}:{}", i + 1);
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{loc}: not valid JSON ({e})"));
                continue;
            }
        };
        let Some(obj) = v.as_object() else {
            problems.push(format!("{loc}: each line must be one JSON object with at least \"text\""));
            continue;
        };
        let text = match obj.get("text") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                problems.push(format!("{loc}: \"text\" must be a string"));
                continue;
            }
            None => {
                problems.push(format!("{loc}: \"text\" is missing; every anchor needs its text"));
                continue;
            }
        };
        check_text(&text, &loc, &mut problems);
        out.push(AnchorRecord {
            anchor_id: opt_str(obj.get("anchor_id"), "anchor_id", &loc, &mut problems),
            source: opt_str(obj.get("source"), "source", &loc, &mut problems),
            language: opt_str(obj.get("language"), "language", &loc, &mut problems),
            clause_id: opt_str(obj.get("clause_id"), "clause_id", &loc, &mut problems),
            text,
            fallback_id: format!("{}_{}", stem(file).trim_start_matches('.'), i + 1),
            location: loc,
        });
    }
    if !problems.is_empty() {
        return Err(problem(&problems, file));
    }
    Ok(out)
}

/// CSV with a header row naming the same columns as the JSONL fields (`text` required; other
/// columns are ignored).
pub fn parse_csv(file: &str, text: &str) -> Result<Vec<AnchorRecord>, ApiError> {
    let mut rdr = csv::ReaderBuilder::new().flexible(false).from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let headers: Vec<String> = match rdr.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_lowercase()).collect(),
        Err(e) => return Err(ApiError::invalid(format!("{file}: the header row could not be read ({e})"))),
    };
    let col = |name: &str| headers.iter().position(|h| h == name);
    let Some(text_col) = col("text") else {
        return Err(ApiError::invalid(format!(
            "{file}: the header row has no \"text\" column (found: {}). Use the columns anchor_id, text, source, language, clause_id.",
            headers.join(", ")
        )));
    };
    let (id_col, source_col, lang_col, clause_col) =
        (col("anchor_id"), col("source"), col("language"), col("clause_id"));
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let row = i + 2; // 1-based, after the header
        let loc = format!("{file}:{row}");
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{loc}: this row could not be read ({e})"));
                continue;
            }
        };
        let get =
            |c: Option<usize>| c.and_then(|c| rec.get(c)).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let text = rec.get(text_col).unwrap_or("").to_string();
        check_text(&text, &loc, &mut problems);
        out.push(AnchorRecord {
            anchor_id: get(id_col),
            text,
            source: get(source_col),
            language: get(lang_col),
            clause_id: get(clause_col),
            fallback_id: format!("{}_{}", stem(file).trim_start_matches('.'), row),
            location: loc,
        });
    }
    if !problems.is_empty() {
        return Err(problem(&problems, file));
    }
    Ok(out)
}

/// A single `.txt` file is one anchor; its id is the file name without extension. Windows line
/// ends (CR LF, what Notepad writes) are stored as plain LF, so the same report saved on Windows
/// and on Linux is one text (and the second import is skipped as a duplicate).
pub fn parse_txt(file: &str, text: &str) -> Result<Vec<AnchorRecord>, ApiError> {
    let text = &text.replace("\r\n", "\n");
    let mut problems = Vec::new();
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    if base.starts_with('.') {
        // The file name becomes the anchor id, and ids never start with a dot. A hidden file is
        // refused rather than skipped, so that no report in the folder is left out unnoticed.
        let visible = base.trim_start_matches('.');
        problems.push(format!(
            "{file}: the file name starts with a dot (a hidden file), and a .txt file's name becomes the anchor id, which \
             may not start with a dot; rename it (for example to \"{}\") or move it out of the folder",
            if visible.is_empty() { "report.txt" } else { visible }
        ));
    }
    check_text(text, file, &mut problems);
    if !problems.is_empty() {
        return Err(problem(&problems, file));
    }
    Ok(vec![AnchorRecord {
        anchor_id: Some(stem(file)),
        text: text.trim().to_string(),
        source: None,
        language: None,
        clause_id: None,
        location: file.to_string(),
        fallback_id: stem(file),
    }])
}

/// Choose the reader by the file name's extension.
pub fn parse_named(file_name: &str, text: &str) -> Result<Vec<AnchorRecord>, ApiError> {
    let lower = file_name.to_lowercase();
    if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
        parse_jsonl(file_name, text)
    } else if lower.ends_with(".csv") {
        parse_csv(file_name, text)
    } else if lower.ends_with(".txt") {
        parse_txt(file_name, text)
    } else {
        Err(ApiError::invalid(format!(
            "{file_name}: anchors can be imported from .jsonl, .csv or .txt files, or a folder of .txt files"
        )))
    }
}

/// Read a file or a folder of `.txt` files from disk.
pub fn read_path(path: &Path) -> Result<Vec<AnchorRecord>, ApiError> {
    if path.is_dir() {
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(path)
            .map_err(|e| {
                ApiError::new(ErrorCode::Io, format!("{}: the folder could not be read ({e})", path.display()))
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.extension().and_then(|e| e.to_str()).map(|e| e.eq_ignore_ascii_case("txt")).unwrap_or(false)
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(ApiError::invalid(format!(
                "{}: the folder has no .txt files; put one incident report per .txt file, or import a .jsonl or .csv file",
                path.display()
            )));
        }
        let mut out = Vec::new();
        let mut problems = Vec::new();
        for f in files {
            let shown = f.display().to_string();
            match read_text(&f, MAX_TEXT_FILE_BYTES) {
                Ok(text) => match parse_txt(&shown, &text) {
                    Ok(mut r) => out.append(&mut r),
                    Err(e) => problems.push(e.message),
                },
                Err(e) => problems.push(e.to_string()),
            }
        }
        if !problems.is_empty() {
            return Err(problem(&problems, &path.display().to_string()));
        }
        return Ok(out);
    }
    let text = read_text(path, MAX_TEXT_FILE_BYTES)?;
    parse_named(&path.display().to_string(), &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_csv_and_txt_read_the_same_fields() {
        let j = parse_jsonl("a.jsonl", "{\"anchor_id\": \"x1\", \"text\": \"Fell in bathroom.\", \"language\": \"en\"}\n\n{\"text\": \"Second\"}\n").unwrap();
        assert_eq!(j.len(), 2);
        assert_eq!(j[0].anchor_id.as_deref(), Some("x1"));
        assert_eq!(j[1].anchor_id, None);
        assert_eq!(j[1].fallback_id, "a_3");
        let c = parse_csv("b.csv", "anchor_id,text,source,language,clause_id\nc1,\"Pump, misprogrammed\",s,en,CareManagement_1_MedicationError\n").unwrap();
        assert_eq!(c[0].text, "Pump, misprogrammed");
        assert_eq!(c[0].clause_id.as_deref(), Some("CareManagement_1_MedicationError"));
        assert_eq!(c[0].location, "b.csv:2");
        let t = parse_named("dir/report 7.txt", "  Burn from a warming pad.\n").unwrap();
        assert_eq!(t[0].anchor_id.as_deref(), Some("report_7"));
        assert_eq!(t[0].text, "Burn from a warming pad.");
        let w = parse_named("C:\\Users\\ana\\fall 2.txt", "Found on the floor.\r\nNo injury seen.\r\n").unwrap();
        assert_eq!(w[0].anchor_id.as_deref(), Some("fall_2"));
        assert_eq!(w[0].text, "Found on the floor.\nNo injury seen.");
    }

    #[test]
    fn bad_lines_are_all_reported_with_their_place() {
        let e = parse_jsonl("a.jsonl", "{\"text\": \"\"}\nnot json\n[1]\n{\"anchor_id\": \"z\"}\n").unwrap_err();
        let d = e.detail.unwrap();
        assert!(e.message.contains("4 problems found"), "{}", e.message);
        for needle in ["a.jsonl:1", "a.jsonl:2", "a.jsonl:3", "a.jsonl:4"] {
            assert!(d.contains(needle), "{d}");
        }
        let e = parse_csv("b.csv", "id,body\n1,x\n").unwrap_err();
        assert!(e.message.contains("no \"text\" column"));
        assert!(parse_named("c.docx", "x").is_err());
    }
}
