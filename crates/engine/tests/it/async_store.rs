//! Blocking SQLite work never runs on the async runtime's worker threads (issue 12, item 7): inside
//! an `async fn` or an `async` block, the store is reached through its async wrappers
//! (`Store::call`, `call_read`, `call_tx`, `call_grouped`), which run the work on a blocking
//! thread. This test reads the non-test source of the engine's crates and fails on a sync store call
//! (`.with_conn(`, `.with_read(`, `.with_tx(`; only `Store` has methods of these names) made
//! directly in async code, naming file, function and line. Code inside the arguments of
//! `call`/`call_read`/`call_tx`/`call_grouped`/`spawn_blocking`/`blocking` runs on a blocking
//! thread and is not flagged.

use std::path::Path;

use super::layers::{non_test_lines, rust_files};

const SYNC_CALLS: &[&str] = &[".with_conn(", ".with_read(", ".with_tx("];

/// Calls whose arguments run on a blocking thread.
const OFF_RUNTIME: &[&str] = &[".call(", ".call_read(", ".call_tx(", ".call_grouped(", "spawn_blocking(", "blocking("];

/// The store module (crates/core) defines the sync methods and their async wrappers.
const ALLOWED_FILES: &[&str] = &["store/mod.rs"];

/// The code with comments, string and char literals blanked out (same length, same line breaks), so
/// braces and parentheses inside them do not count.
fn blank_literals(code: &str) -> String {
    let b: Vec<char> = code.chars().collect();
    let mut out: Vec<char> = b.clone();
    let mut i = 0;
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in out.iter_mut().take(to).skip(from) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            '/' if b.get(i + 1) == Some(&'/') => {
                let mut j = i;
                while j < b.len() && b[j] != '\n' {
                    j += 1;
                }
                blank(&mut out, i, j);
                i = j;
            }
            '/' if b.get(i + 1) == Some(&'*') => {
                let mut j = i + 2;
                while j + 1 < b.len() && !(b[j] == '*' && b[j + 1] == '/') {
                    j += 1;
                }
                blank(&mut out, i, (j + 2).min(b.len()));
                i = j + 2;
            }
            'r' if (b.get(i + 1) == Some(&'"') || b.get(i + 1) == Some(&'#'))
                && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_')) =>
            {
                // Raw string: r"…", r#"…"#.
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                blank(&mut out, i, j);
                i = j;
            }
            '"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != '"' {
                    if b[j] == '\\' {
                        j += 1;
                    }
                    j += 1;
                }
                blank(&mut out, i, (j + 1).min(b.len()));
                i = j + 1;
            }
            '\'' => {
                // A char literal ('x', '\n', '\u{1F600}'), not a lifetime ('a).
                if b.get(i + 1) == Some(&'\\') {
                    let mut j = i + 2;
                    while j < b.len() && b[j] != '\'' {
                        j += 1;
                    }
                    blank(&mut out, i, (j + 1).min(b.len()));
                    i = j + 1;
                } else if b.get(i + 2) == Some(&'\'') {
                    blank(&mut out, i, i + 3);
                    i += 3;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out.into_iter().collect()
}

/// Index just past the bracket that closes the one at `open` (`{`/`}` or `(`/`)`).
fn matching(b: &[char], open: usize) -> usize {
    let (o, c) = if b[open] == '{' { ('{', '}') } else { ('(', ')') };
    let mut depth = 0usize;
    for (k, ch) in b.iter().enumerate().skip(open) {
        if *ch == o {
            depth += 1;
        } else if *ch == c {
            depth -= 1;
            if depth == 0 {
                return k + 1;
            }
        }
    }
    b.len()
}

fn find_all(hay: &[char], needle: &str) -> Vec<usize> {
    let n: Vec<char> = needle.chars().collect();
    (0..hay.len().saturating_sub(n.len() - 1)).filter(|&i| hay[i..i + n.len()] == n[..]).collect()
}

fn word_before(b: &[char], at: usize) -> bool {
    at > 0 && (b[at - 1].is_alphanumeric() || b[at - 1] == '_')
}

/// Sync store calls made directly in async code: (line, async function) of each. `code` is the
/// file's non-test text.
fn sync_store_calls_in_async(code: &str) -> Vec<(usize, String)> {
    let text = blank_literals(code);
    let b: Vec<char> = text.chars().collect();
    let line_of = |pos: usize| b[..pos].iter().filter(|c| **c == '\n').count() + 1;
    // Async bodies: (start, end, name).
    let mut bodies: Vec<(usize, usize, String)> = Vec::new();
    for at in find_all(&b, "async") {
        if word_before(&b, at) {
            continue;
        }
        let mut j = at + "async".len();
        while j < b.len() && b[j].is_whitespace() {
            j += 1;
        }
        let rest: String = b[j..(j + 3).min(b.len())].iter().collect();
        if rest == "fn " {
            let name: String = b[j + 3..]
                .iter()
                .skip_while(|c| c.is_whitespace())
                .take_while(|c| c.is_alphanumeric() || **c == '_')
                .collect();
            // The body is the first brace after the signature (outside its parentheses and generics).
            let mut k = j + 3;
            let mut parens = 0i32;
            while k < b.len() {
                match b[k] {
                    '(' => parens += 1,
                    ')' => parens -= 1,
                    ';' if parens == 0 => break, // a declaration without a body
                    '{' if parens == 0 => {
                        bodies.push((k, matching(&b, k), name.clone()));
                        break;
                    }
                    _ => {}
                }
                k += 1;
            }
        } else {
            // `async {` / `async move {`: named after the async fn that holds it, if any.
            let mut k = j;
            if b[k..].iter().take(4).collect::<String>() == "move" {
                k += 4;
                while k < b.len() && b[k].is_whitespace() {
                    k += 1;
                }
            }
            if b.get(k) == Some(&'{') {
                bodies.push((k, matching(&b, k), String::new()));
            }
        }
    }
    // Argument lists that run on a blocking thread.
    let mut off: Vec<(usize, usize)> = Vec::new();
    for call in OFF_RUNTIME {
        for at in find_all(&b, call) {
            if !call.starts_with('.') && word_before(&b, at) {
                continue;
            }
            let open = at + call.chars().count() - 1;
            off.push((open, matching(&b, open)));
        }
    }
    let mut found = Vec::new();
    for call in SYNC_CALLS {
        for at in find_all(&b, call) {
            let Some(inner) = bodies.iter().filter(|(s, e, _)| *s < at && at < *e).max_by_key(|(s, _, _)| *s) else {
                continue;
            };
            if off.iter().any(|(s, e)| inner.0 < *s && *s < at && at < *e) {
                continue;
            }
            let name = if inner.2.is_empty() {
                bodies
                    .iter()
                    .filter(|(s, e, n)| *s < at && at < *e && !n.is_empty())
                    .max_by_key(|(s, _, _)| *s)
                    .map(|(_, _, n)| format!("an async block in {n}"))
                    .unwrap_or_else(|| "an async block".to_string())
            } else {
                inner.2.clone()
            };
            found.push((line_of(at), name));
        }
    }
    found.sort();
    found
}

/// The file's text with test-only items blanked (line numbers kept).
fn non_test_text(text: &str) -> String {
    let kept: std::collections::HashMap<usize, String> = non_test_lines(text).into_iter().collect();
    (1..=text.lines().count()).map(|n| kept.get(&n).cloned().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The engine's crates: the stack (core, llm, engine) and those outside it.
const CRATES: &[&str] = &["crates/core", "crates/llm", "crates/engine", "crates/server", "crates/mock", "crates/bench"];

#[test]
fn async_code_reaches_the_store_only_through_its_async_wrappers() {
    let mut problems = Vec::new();
    for dir in CRATES {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(dir).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        for file in &files {
            let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if ALLOWED_FILES.contains(&rel.as_str()) || name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let text = non_test_text(&std::fs::read_to_string(file).unwrap());
            for (line, func) in sync_store_calls_in_async(&text) {
                problems
                    .push(format!("{dir}/src/{rel}:{line}: `{func}` calls the store synchronously on an async thread"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "sync store calls in async code (use Store::call / call_read / call_tx, or run the work in spawn_blocking):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_async_store_checker_sees_calls_and_skips_blocking_closures() {
    let code = r##"
async fn bad(e: &Engine) -> ApiResult<()> {
    let s = "{ not a brace";
    let n = e.store()
        .with_conn(|c| count(c))?;
    e.store().call(|c| { let x = '{'; Ok(()) }).await?;
    Ok(())
}
fn fine(e: &Engine) { e.store().with_tx(|t| go(t)).unwrap(); }
async fn ok(e: &Engine) {
    let st = e.store().clone();
    tokio::task::spawn_blocking(move || st.with_read(|c| go(c))).await;
    e.blocking(|e| e.store().with_conn(|c| go(c))).await;
    tokio::spawn(async move { st.with_tx(|t| go(t)) });
}
"##;
    let found = sync_store_calls_in_async(code);
    assert_eq!(found, vec![(5, "bad".to_string()), (14, "an async block in ok".to_string())]);
}
