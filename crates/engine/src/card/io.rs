//! Reading card documents from files, folders and `cards.jsonl`, and writing them back out.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::to_pretty;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::files::{for_each_jsonl, read_json, write_atomic, ReadError};

/// One card document and where it came from (`file.json` or `cards.jsonl:12`).
#[derive(Debug, Clone)]
pub struct CardDoc {
    pub origin: String,
    pub value: Value,
}

/// A file that could not be read as card JSON.
#[derive(Debug)]
pub struct LoadFailure {
    pub origin: String,
    pub error: ReadError,
}

fn is_jsonl(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).map(|e| e.eq_ignore_ascii_case("jsonl")).unwrap_or(false)
}

fn is_json(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).map(|e| e.eq_ignore_ascii_case("json")).unwrap_or(false)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        if p.is_dir() {
            walk(&p, out)?;
        } else if is_json(&p) || is_jsonl(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// Expand the given paths: files as they are, folders into their `*.json` / `*.jsonl` files.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ReadError> {
    let mut out = Vec::new();
    for p in paths {
        if !p.exists() {
            return Err(ReadError::NotFound { path: p.clone() });
        }
        if p.is_dir() {
            walk(p, &mut out).map_err(|e| ReadError::Io { path: p.clone(), message: e.to_string() })?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Read every card document under `paths`. Unreadable files are returned separately so the linter
/// can report them alongside rule findings.
pub fn load_docs(paths: &[PathBuf]) -> Result<(Vec<CardDoc>, Vec<LoadFailure>), ReadError> {
    let files = expand_paths(paths)?;
    let mut docs = Vec::new();
    let mut failures = Vec::new();
    for f in files {
        let shown = f.display().to_string();
        if is_jsonl(&f) {
            let mut local = Vec::new();
            let res = for_each_jsonl::<ReadError>(&f, |rec| {
                local.push(CardDoc { origin: format!("{shown}:{}", rec.line), value: rec.value });
                Ok(())
            });
            match res {
                Ok(()) => docs.extend(local),
                Err(error) => failures.push(LoadFailure { origin: shown, error }),
            }
        } else {
            match read_json(&f) {
                Ok(value) => docs.push(CardDoc { origin: shown, value }),
                Err(error) => failures.push(LoadFailure { origin: shown, error }),
            }
        }
    }
    Ok((docs, failures))
}

/// The file name (without extension) an id gets in an export folder: letters, digits, '_' and '-'
/// only, and never a name Windows keeps for a device (a card id "CON" becomes "_CON"). Card exports
/// and dataset exports both name their files with it.
pub fn export_file_stem(id: &str) -> String {
    let plain: String = id.chars().map(|c| if c.is_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    crate::util::file_names::portable_file_name(&plain)
}

/// Where an export goes: a folder of `<clause_id>/<card_id>.json` files or one JSONL file.
pub fn export_docs(cards: &[(String, String, Value)], out: &Path) -> ApiResult<usize> {
    if is_jsonl(out) {
        let mut s = String::new();
        for (_, _, v) in cards {
            let line = serde_json::to_string(v).map_err(|e| ApiError::internal(e.to_string()))?;
            s.push_str(&line);
            s.push('\n');
        }
        write_atomic(out, s.as_bytes())?;
    } else {
        if out.exists() && !out.is_dir() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("{}: exists and is not a folder; give a folder or a file ending in .jsonl", out.display()),
            ));
        }
        for (clause_id, card_id, v) in cards {
            let path = out.join(export_file_stem(clause_id)).join(format!("{}.json", export_file_stem(card_id)));
            write_atomic(&path, to_pretty(v).as_bytes())?;
        }
    }
    Ok(cards.len())
}
