//! Every table has one owner (issue 26, item 4): the module that reads and writes it. Another module
//! that needs the rows calls the owner; it does not name the table in its own SQL. This test
//!
//! - reads the schema from the migrations (CREATE TABLE, ALTER TABLE … RENAME TO, DROP TABLE, in
//!   order) and checks that every table in it has exactly one owner in [`TABLE_OWNERS`], so a new
//!   table without an owner fails here;
//! - finds the SQL string literals in the non-test source of the engine's crates (core, llm and
//!   engine; server, mock and bench outside the stack), the CLI and the desktop shell, the tables
//!   each one names (after FROM, JOIN, INTO, UPDATE, TABLE), and fails with
//!   `file:line: module M names table T owned by O` wherever M is not O.
//!
//! A table is named only through its owner's module; the layer test (`layers.rs`) then decides
//! who may call that module. Where the owner is above the module that needs the rows, the caller
//! above both does the work (see the report of issue 26 for the cases).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::layers::{non_test_lines, rust_files};

/// Table → the engine module that owns it. Every table of the schema is here exactly once.
/// Tables named for model calls belong to `llm` even when not listed (see [`CALL_WORDS`]).
const TABLE_OWNERS: &[(&str, &str)] = &[
    // Bookkeeping and the key/value settings every module may keep a key in (through `store`).
    ("schema_migrations", "store"),
    ("settings", "store"),
    // Change counters bumped by triggers, read by the engine's change feed.
    ("change_counters", "context"),
    // The LLM layer: registered models, the response cache, calls and provider batches.
    ("models", "llm"),
    ("llm_cache", "llm"),
    ("llm_calls", "llm"),
    ("llm_batches", "llm"),
    ("llm_batch_requests", "llm"),
    // Long-running work.
    ("runs", "jobs"),
    // Domain records.
    ("policies", "policy"),
    ("policy_official_sections", "policy"),
    ("cases", "case"),
    ("cards", "card"),
    ("card_versions", "card"),
    ("card_audit_log", "card"),
    ("anchors", "anchor"),
    ("anchor_job_items", "anchor"),
    ("label_audit_results", "label_audit"),
    // Pipelines and workflows.
    ("evaluation_items", "evaluation"),
    ("generation_run_cards", "generation"),
    ("generation_run_anchors", "generation"),
    ("generation_candidates", "generation"),
    ("generation_attempts", "generation"),
    ("authoring_extractions", "authoring"),
    ("authoring_extraction_failures", "authoring"),
    ("authoring_drafts", "authoring"),
    ("review_sessions", "review"),
    ("review_reviewers", "review"),
    ("review_items", "review"),
    ("review_assignments", "review"),
    ("review_answers", "review"),
    ("review_tokens", "review"),
    ("review_adjudications", "review"),
];

/// A table whose name has one of these words (split at `_`) belongs to `llm`: the model calls of
/// every run kind (`llm_calls`, `gen_calls`, the call ledger), listed or not.
const CALL_WORDS: &[&str] = &["call", "calls"];

fn is_calls_table(table: &str) -> bool {
    table.split('_').any(|w| CALL_WORDS.contains(&w))
}

/// Tables created by code rather than by a migration file.
const BOOKKEEPING_TABLES: &[&str] = &["schema_migrations"];

fn owner_of(table: &str) -> Option<&'static str> {
    TABLE_OWNERS.iter().find(|(t, _)| *t == table).map(|(_, m)| *m).or_else(|| is_calls_table(table).then_some("llm"))
}

// ---------------------------------------------------------------------------------------------
// The schema

/// SQL with `--` comments removed, split into words (identifiers, keywords) and single punctuation.
fn sql_tokens(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in sql.lines() {
        let code = line.find("--").map_or(line, |p| &line[..p]);
        let mut word = String::new();
        for c in code.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// Applies one migration's CREATE / RENAME / DROP of tables to `tables` (name → migration file).
fn apply_migration(tables: &mut BTreeMap<String, String>, file: &str, sql: &str) {
    let t = sql_tokens(sql);
    let up = |i: usize| t.get(i).map(|s| s.to_ascii_uppercase()).unwrap_or_default();
    let mut i = 0;
    while i < t.len() {
        match (up(i).as_str(), up(i + 1).as_str()) {
            ("CREATE", "TABLE") => {
                let mut j = i + 2;
                if up(j) == "IF" {
                    j += 3; // IF NOT EXISTS
                }
                tables.insert(t[j].clone(), file.to_string());
                i = j + 1;
            }
            ("DROP", "TABLE") => {
                let mut j = i + 2;
                if up(j) == "IF" {
                    j += 2; // IF EXISTS
                }
                tables.remove(&t[j]);
                i = j + 1;
            }
            ("ALTER", "TABLE") if up(i + 3) == "RENAME" && up(i + 4) == "TO" => {
                let from = &t[i + 2];
                let created = tables.remove(from).unwrap_or_else(|| file.to_string());
                tables.insert(t[i + 5].clone(), created);
                i += 6;
            }
            _ => i += 1,
        }
    }
}

/// The tables the migrations leave, each with the migration that created it.
fn schema_tables() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/migrations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("sql"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no migrations in {}", dir.display());
    let mut tables = BTreeMap::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        apply_migration(&mut tables, &name, &std::fs::read_to_string(f).unwrap());
    }
    for t in BOOKKEEPING_TABLES {
        tables.insert(t.to_string(), "store/migrations.rs".to_string());
    }
    tables
}

#[test]
fn every_table_in_the_schema_has_exactly_one_owner() {
    let tables = schema_tables();
    assert!(tables.contains_key("runs") && tables.contains_key("cases"), "schema not read: {tables:?}");
    let mut problems = Vec::new();
    let mut listed = BTreeMap::<&str, usize>::new();
    for (t, _) in TABLE_OWNERS {
        *listed.entry(t).or_default() += 1;
    }
    for (t, n) in &listed {
        if *n > 1 {
            problems.push(format!("TABLE_OWNERS lists `{t}` {n} times: a table has one owner"));
        }
        if !tables.contains_key(*t) {
            problems.push(format!("TABLE_OWNERS lists `{t}`, which the migrations do not leave: remove it"));
        }
    }
    for (t, m) in TABLE_OWNERS {
        if is_calls_table(t) && *m != "llm" {
            problems.push(format!("TABLE_OWNERS gives the calls table `{t}` to `{m}`; calls tables belong to `llm`"));
        }
    }
    for (t, created) in &tables {
        if owner_of(t).is_none() {
            problems.push(format!("table `{t}` (created in {created}) has no owner: add it to TABLE_OWNERS"));
        }
    }
    let modules = engine_modules();
    for (t, m) in TABLE_OWNERS {
        if !modules.contains(*m) {
            problems.push(format!("TABLE_OWNERS gives `{t}` to `{m}`, which is not an engine module"));
        }
    }
    assert!(problems.is_empty(), "table ownership:\n{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// SQL in the source

/// A string literal of Rust source: its text (escapes left as written, line continuations kept as
/// line breaks) and the line it starts on.
#[derive(Debug)]
struct Literal {
    line: usize,
    text: String,
}

/// The string literals (plain, byte and raw) of the given numbered lines, skipping comments and
/// char literals. A literal may span lines.
fn string_literals(lines: &[(usize, String)]) -> Vec<Literal> {
    // Join the lines, remembering each character's line number.
    let mut chars = Vec::new();
    let mut line_of = Vec::new();
    for (n, l) in lines {
        for c in l.chars().chain(std::iter::once('\n')) {
            chars.push(c);
            line_of.push(*n);
        }
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev_ident = i > 0 && ident(chars[i - 1]);
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if chars.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c == 'r' && !prev_ident && matches!(chars.get(i + 1), Some('"') | Some('#')) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                i = j;
                continue;
            }
            let start = j + 1;
            let mut k = start;
            let close = |k: usize| chars[k] == '"' && (1..=hashes).all(|h| chars.get(k + h) == Some(&'#'));
            while k < chars.len() && !close(k) {
                k += 1;
            }
            out.push(Literal { line: line_of[i], text: chars[start..k.min(chars.len())].iter().collect() });
            i = k + 1 + hashes;
        } else if c == '"' {
            let start = i + 1;
            let mut k = start;
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            let end = k.min(chars.len());
            out.push(Literal { line: line_of[i], text: chars[start..end].iter().collect() });
            i = k + 1;
        } else if ident(c) {
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Words that make a string SQL rather than prose; written in capitals, as the engine's SQL is.
const SQL_KEYWORDS: &[&str] =
    &["SELECT", "INSERT", "UPDATE", "DELETE", "FROM", "JOIN", "INTO", "CREATE", "ALTER", "DROP", "WHERE", "VALUES"];

/// Keywords a table name follows.
const TABLE_BEFORE: &[&str] = &["FROM", "JOIN", "INTO", "UPDATE", "TABLE"];

/// The words of a string with their offsets (identifier characters only).
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let w = c.is_ascii_alphanumeric() || c == '_';
        match (w, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &text[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The names a string of SQL gives as tables, each with its line offset in the string. Prose (a
/// string with no SQL keyword in capitals) names none.
fn sql_table_names(text: &str) -> Vec<(usize, String)> {
    let ws = words(text);
    if !ws.iter().any(|(_, w)| SQL_KEYWORDS.contains(w)) {
        return vec![];
    }
    let mut out = Vec::new();
    for (k, (_, w)) in ws.iter().enumerate() {
        if !TABLE_BEFORE.contains(w) {
            continue;
        }
        let mut j = k + 1;
        // CREATE TABLE IF NOT EXISTS x, DROP TABLE IF EXISTS x
        while ws.get(j).is_some_and(|(_, w)| matches!(*w, "IF" | "NOT" | "EXISTS")) {
            j += 1;
        }
        let Some(&(at, name)) = ws.get(j) else { continue };
        // The name must follow the keyword directly (or after `IF [NOT] EXISTS`): `FROM (SELECT …)`
        // and `FROM {table}` name no table here.
        let (kw_at, kw) = ws[k];
        let gap: String = text[kw_at + kw.len()..at].chars().filter(|c| !c.is_whitespace()).collect();
        let gap = gap.trim_start_matches("IFNOTEXISTS").trim_start_matches("IFEXISTS");
        if !gap.is_empty() {
            continue;
        }
        // `main.x`: the table is x.
        let (at, name, j) = match ws.get(j + 1) {
            Some(&(next, n)) if name == "main" && text[at + name.len()..next].trim() == "." => (next, n, j + 1),
            _ => (at, name, j),
        };
        out.push((text[..at].matches('\n').count(), name.to_string()));
        // FROM a x, b AS y: more tables after commas, each possibly with a lower-case alias.
        if !matches!(*w, "FROM" | "JOIN") {
            continue;
        }
        let gap_to = |m: usize| -> Option<&str> {
            let (s, w) = ws.get(m - 1)?;
            let (next, _) = ws.get(m)?;
            Some(text[s + w.len()..*next].trim())
        };
        let is_alias = |m: usize| {
            gap_to(m) == Some("")
                && ws.get(m).is_some_and(|(_, w)| *w == "AS" || w.chars().all(|c| !c.is_ascii_uppercase()))
        };
        let mut m = j + 1;
        loop {
            if is_alias(m) {
                m += if ws[m].1 == "AS" { 2 } else { 1 };
            }
            if gap_to(m) != Some(",") {
                break;
            }
            let (at, name) = ws[m];
            out.push((text[..at].matches('\n').count(), name.to_string()));
            m += 1;
        }
    }
    out
}

/// The modules of the stack's crates (`STACK_SOURCES`).
fn engine_modules() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    STACK_SOURCES
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap().flatten())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            let n = n.strip_suffix(".rs").map(str::to_string).unwrap_or(n);
            (n != "lib" && n != "main").then_some(n)
        })
        .collect()
}

/// The source folders of the engine's stack, one crate each (layers.rs, `STACK_CRATES`): the
/// first folder (or file) under each is the module.
const STACK_SOURCES: &[&str] = &["crates/core/src", "crates/llm/src", "crates/engine/src"];

fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs") || name == "fixtures.rs"
}

/// `file:line: module M names table T owned by O` for every SQL string of `text` that names a
/// table another module owns. `module` is the engine module of the file (for the CLI and the
/// desktop shell, their crate: they own no table).
fn violations(rel: &str, module: &str, text: &str, tables: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for lit in string_literals(&non_test_lines(text)) {
        for (offset, table) in sql_table_names(&lit.text) {
            if !tables.contains_key(&table) {
                continue; // an alias, a CTE, sqlite_master, a test's table
            }
            let Some(owner) = owner_of(&table) else { continue };
            if owner == module {
                continue;
            }
            out.push(format!("{rel}:{}: module {module} names table {table} owned by {owner}", lit.line + offset));
        }
    }
    out
}

#[test]
fn sql_names_only_tables_its_module_owns() {
    let tables = schema_tables();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut problems = Vec::new();
    let mut sql_seen = 0;
    // (source folder, module name for files directly in it or None = the first folder under it)
    let trees: &[(&str, Option<&str>)] = &[
        (STACK_SOURCES[0], None),
        (STACK_SOURCES[1], None),
        (STACK_SOURCES[2], None),
        // Outside the stack: each crate is one module of the old layout.
        ("crates/server/src", Some("server")),
        ("crates/mock/src", Some("mock")),
        ("crates/bench/src", Some("bench")),
        ("crates/cli/src", Some("cli")),
        ("src-tauri/src", Some("src-tauri")),
    ];
    for (dir, fixed) in trees {
        let dir = root.join(dir);
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        files.sort();
        for file in files {
            if is_test_file(&file) {
                continue;
            }
            let rel_in = file.strip_prefix(&dir).unwrap();
            let module = match fixed {
                Some(m) => m.to_string(),
                None => {
                    let first = rel_in.components().next().unwrap().as_os_str().to_string_lossy().to_string();
                    first.trim_end_matches(".rs").to_string()
                }
            };
            let text = std::fs::read_to_string(&file).unwrap();
            let rel = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
            sql_seen += string_literals(&non_test_lines(&text))
                .iter()
                .filter(|l| sql_table_names(&l.text).iter().any(|(_, t)| tables.contains_key(t)))
                .count();
            problems.extend(violations(&rel, &module, &text, &tables));
        }
    }
    assert!(sql_seen > 50, "the scanner found only {sql_seen} SQL strings naming tables: it is broken");
    assert!(problems.is_empty(), "SQL naming a table another module owns:\n{}", problems.join("\n"));
}

#[test]
fn the_sql_scanner_reports_a_foreign_table_and_not_prose() {
    let mut tables = BTreeMap::new();
    for t in ["runs", "evaluation_items", "review_items", "generation_run_anchors"] {
        tables.insert(t.to_string(), "m.sql".to_string());
    }
    let code = r##"
fn f(c: &Connection) {
    // SELECT * FROM runs (a comment, not code)
    c.query_row("SELECT status FROM runs WHERE run_id = ?1", [id], |r| r.get(0));
    c.prepare(
        "SELECT e.case_id, r.reviewer
         FROM review_items r
         JOIN evaluation_items e ON e.case_id = r.case_id",
    );
    c.execute(r#"DELETE FROM generation_run_anchors WHERE anchor_id = ?1"#, [id]);
    let quote = '"';
    Err(ApiError::not_found("no run from runs of that id; select another"));
    c.execute("INSERT INTO review_items (session_id) VALUES (?1)", [id]);
    c.execute(&format!("SELECT x FROM {table}"), []);
}
#[cfg(test)]
mod tests {
    fn t(c: &Connection) {
        c.execute("DELETE FROM runs", []);
    }
}
"##;
    let got = violations("src/review/repo.rs", "review", code, &tables);
    assert_eq!(
        got,
        vec![
            "src/review/repo.rs:4: module review names table runs owned by jobs",
            "src/review/repo.rs:8: module review names table evaluation_items owned by evaluation",
            "src/review/repo.rs:10: module review names table generation_run_anchors owned by generation",
        ]
    );
    // Comma joins and aliases; a CREATE TABLE IF NOT EXISTS.
    let names: Vec<String> =
        sql_table_names("SELECT 1 FROM runs r, evaluation_items e WHERE 1").into_iter().map(|(_, t)| t).collect();
    assert_eq!(names, vec!["runs", "evaluation_items"]);
    let names: Vec<String> =
        sql_table_names("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT)").into_iter().map(|(_, t)| t).collect();
    assert_eq!(names, vec!["schema_migrations"]);
    let names: Vec<String> = sql_table_names("UPDATE main.runs SET x = 1").into_iter().map(|(_, t)| t).collect();
    assert_eq!(names, vec!["runs"]);
    // Prose: no keyword in capitals, so no table even though `from runs` reads like SQL.
    assert!(sql_table_names("could not read from runs into the table").is_empty());
    // Calls tables belong to the LLM layer, listed or not.
    assert_eq!(owner_of("call_ledger"), Some("llm"));
    assert_eq!(owner_of("author_draft_calls"), Some("llm"));
    assert_eq!(owner_of("recall_notes"), None);
}

#[test]
fn the_schema_reader_follows_renames_and_drops() {
    let mut t = BTreeMap::new();
    apply_migration(
        &mut t,
        "1.sql",
        "CREATE TABLE runs (kind TEXT); -- CREATE TABLE not_this (x)\nCREATE TABLE old (x);",
    );
    apply_migration(
        &mut t,
        "2.sql",
        "CREATE TABLE runs_rebuilt (kind TEXT);\nDROP TABLE runs;\nALTER TABLE runs_rebuilt RENAME TO runs;\n\
         ALTER TABLE old RENAME COLUMN x TO y;\nDROP TABLE IF EXISTS old;",
    );
    assert_eq!(t.keys().cloned().collect::<Vec<_>>(), vec!["runs"]);
}
