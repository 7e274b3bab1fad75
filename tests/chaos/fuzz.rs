//! Fuzzing with proptest: the card, case, trajectory, anchor and policy imports and the reader of
//! model replies get arbitrary bytes and mutations of valid files (the seed corpus in
//! tests/chaos/corpus/<target>/). Every input must end in `Ok` or a typed error with a message;
//! a panic fails the test, and proptest shrinks it and stores the case in
//! tests/chaos/fuzz.proptest-regressions so it is replayed first from then on.
//!
//! Iterations: 256 cases per target in CI; with `CHAOS_LONG=1` 20,000 per target, 10,000 for
//! cards (each card import lints the card against the whole library); `PROPTEST_CASES=n` sets any
//! other number for every target.

use crate::common_faults::long_run;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use psebench::api::Engine;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn config(slow: bool) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(match (long_run(), slow) {
        (false, false) => 256,
        (false, true) => 256,
        (true, false) => 20_000,
        (true, true) => 10_000,
    });
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/chaos/fuzz.proptest-regressions"))),
        // Shrinking a slow import can take long; a found panic is reported either way.
        max_shrink_iters: 2000,
        ..Config::default()
    }
}

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/chaos/corpus").join(target);
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seed files in {}", dir.display());
    files
}

/// Tokens that often break readers: structure, escapes, extreme numbers, odd Unicode.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ",",
    ":",
    "\n",
    "\r\n",
    "null",
    "true",
    "-0",
    "1e999",
    "-9223372036854775809",
    "18446744073709551616",
    "\u{0}",
    "\u{feff}",
    "\u{202e}",
    "\u{fffd}",
    "```",
    "```json\n",
    "#",
    "## ",
    "\t",
    "\"\"",
    ",,",
    "{}",
    "[]",
    "\\u0000",
    "\\ud800",
    "💥",
    "../../x",
    ".hidden",
];

#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Token(usize, usize),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(i, t)| Edit::Token(i, t)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<usize>(), 1usize..256).prop_map(|(i, n)| Edit::Duplicate(i, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len();
        let at = |i: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Flip(i, b) if len > 0 => bytes[i % len] ^= b | 1,
            Edit::Flip(..) => {}
            Edit::Insert(i, b) => {
                let p = at(*i);
                bytes.splice(p..p, b.iter().copied());
            }
            Edit::Token(i, t) => {
                let p = at(*i);
                bytes.splice(p..p, TOKENS[*t].bytes());
            }
            Edit::Delete(i, n) => {
                let p = at(*i);
                let end = (p + n).min(len);
                bytes.drain(p..end);
            }
            Edit::Duplicate(i, n) => {
                let p = at(*i);
                let end = (p + n).min(len);
                let chunk: Vec<u8> = bytes[p..end].to_vec();
                bytes.splice(p..p, chunk);
            }
            Edit::Truncate(i) => bytes.truncate(at(*i)),
        }
    }
    bytes
}

/// A structural change to a JSON value: some node becomes another kind of value.
#[derive(Debug, Clone)]
enum Shape {
    Null,
    Number(f64),
    Big,
    Text(String),
    Long,
    EmptyArray,
    EmptyObject,
    Deep,
    DropKey,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Null),
        any::<f64>().prop_map(Shape::Number),
        Just(Shape::Big),
        ".{0,40}".prop_map(Shape::Text),
        Just(Shape::Long),
        Just(Shape::EmptyArray),
        Just(Shape::EmptyObject),
        Just(Shape::Deep),
        Just(Shape::DropKey),
    ]
}

fn reshape(v: &mut Value, path: &[usize], s: &Shape) {
    // Walk down the tree following `path` (indices taken modulo the children), then change the node.
    let mut node = v;
    for (depth, i) in path.iter().enumerate() {
        let n = match node {
            Value::Object(m) if !m.is_empty() => m.len(),
            Value::Array(a) if !a.is_empty() => a.len(),
            _ => break,
        };
        if depth + 1 == path.len() {
            if let (Shape::DropKey, Value::Object(m)) = (s, &mut *node) {
                let k = m.keys().nth(i % n).cloned().unwrap();
                m.shift_remove(&k);
                return;
            }
        }
        node = match node {
            Value::Object(m) => m.values_mut().nth(i % n).unwrap(),
            Value::Array(a) => &mut a[i % n],
            _ => unreachable!(),
        };
    }
    *node = match s {
        Shape::Null | Shape::DropKey => Value::Null,
        Shape::Number(f) => serde_json::Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null),
        Shape::Big => serde_json::json!(u64::MAX),
        Shape::Text(t) => Value::String(t.clone()),
        Shape::Long => Value::String("x".repeat(300_000)),
        Shape::EmptyArray => serde_json::json!([]),
        Shape::EmptyObject => serde_json::json!({}),
        Shape::Deep => {
            let mut d = serde_json::json!("bottom");
            for _ in 0..200 {
                d = serde_json::json!([d]);
            }
            d
        }
    };
}

/// Apply the shape change to every JSON document in the file (one per line for JSONL).
fn reshape_file(bytes: &[u8], path: &[usize], s: &Shape) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(mut v) = serde_json::from_str::<Value>(&text) {
        reshape(&mut v, path, s);
        return serde_json::to_vec_pretty(&v).unwrap();
    }
    let mut out = String::new();
    for line in text.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(mut v) => {
                reshape(&mut v, path, s);
                out.push_str(&v.to_string());
            }
            Err(_) => out.push_str(line),
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// Inputs for one target: raw bytes, byte-level edits of a seed file, or a structural change
/// followed by edits. Returns (seed file name, bytes).
fn inputs(target: &'static str) -> impl Strategy<Value = (String, Vec<u8>)> {
    let seeds = corpus(target);
    let n = seeds.len();
    let pick = move |i: usize| seeds[i % n].clone();
    let pick2 = pick.clone();
    prop_oneof![
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 0..4096))
            .prop_map(move |(i, b)| (pick(i).0, b)),
        2 => (any::<usize>(), proptest::collection::vec(edit(), 1..8))
            .prop_map(move |(i, e)| { let (name, bytes) = pick2(i); (name, apply(bytes, &e)) }),
        2 => (any::<usize>(), proptest::collection::vec(any::<usize>(), 1..6), shape(), proptest::collection::vec(edit(), 0..3))
            .prop_map(move |(i, path, s, e)| {
                let seeds = corpus(target);
                let (name, bytes) = seeds[i % seeds.len()].clone();
                (name, apply(reshape_file(&bytes, &path, &s), &e))
            }),
    ]
}

/// An engine on a fresh store (seeded as after a first start), and a folder for the inputs.
fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    psebench::api::seeded_copy::put_seeded_store(&dir.path().join("store.db")).unwrap();
    let e = Engine::open(&dir.path().join("store.db")).unwrap();
    (dir, e)
}

fn write_input(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join("in").join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The outcome must be Ok or an error a person can read.
fn typed<T>(r: Result<T, psebench::ApiError>) -> Result<(), TestCaseError> {
    if let Err(e) = r {
        prop_assert!(!e.message.trim().is_empty(), "an error without a message: {e:?}");
        prop_assert!(e.code != psebench::ErrorCode::Internal, "an internal error for user input: {e:?}");
    }
    Ok(())
}

/// Run one fuzz target and print its iteration count and time.
fn fuzz(target: &'static str, slow: bool, check: impl Fn(&Path, &Engine, &str, &[u8]) -> Result<(), TestCaseError>) {
    let (dir, e) = engine();
    let cfg = config(slow);
    let cases = cfg.cases;
    let started = Instant::now();
    let mut runner = proptest::test_runner::TestRunner::new_with_rng(
        cfg,
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let result = runner.run(&inputs(target), |(name, bytes)| check(dir.path(), &e, &name, &bytes));
    if let Err(err) = result {
        panic!("fuzz target {target}: {err}");
    }
    eprintln!("chaos-fuzz {target}: {cases} cases in {:.2} s", started.elapsed().as_secs_f64());
}

#[test]
fn card_import_never_panics() {
    fuzz("cards", true, |dir, e, name, bytes| typed(e.cards_import(&[write_input(dir, name, bytes)], "mn29", "fuzz")));
}

#[test]
fn case_import_never_panics() {
    fuzz("cases", false, |dir, e, name, bytes| {
        typed(e.cases_import(&write_input(dir, name, bytes), false, "imported"))
    });
}

#[test]
fn trajectory_import_never_panics() {
    fuzz("trajectories", false, |dir, e, name, bytes| typed(e.evaluation_import(&write_input(dir, name, bytes))));
}

#[test]
fn anchor_import_never_panics() {
    fuzz("anchors", false, |dir, e, name, bytes| {
        let opts = psebench::anchor::AnchorImportOptions::default();
        typed(e.anchors_import(&write_input(dir, name, bytes), &opts))?;
        typed(e.anchors_import_text(name, &String::from_utf8_lossy(bytes), &opts))
    });
}

#[test]
fn policy_text_import_never_panics() {
    fuzz("policy", false, |dir, e, name, bytes| {
        let p = write_input(dir, name, bytes);
        let req = psebench::policy::actions::PolicyImportRequest {
            policy: "mn29".into(),
            clauses: name.starts_with("clauses").then(|| p.clone()),
            guidance: (!name.starts_with("clauses")).then(|| p.clone()),
        };
        typed(e.policy_import(&req))
    });
}

#[test]
fn model_reply_readers_never_panic() {
    fuzz("model_output", false, |_, _, _, bytes| {
        let text = String::from_utf8_lossy(bytes);
        let _ = psebench::llm::json_extract::extract_json_object(&text);
        let _ = psebench::evaluation::parse::eval_reply(&text, true);
        let _ = psebench::evaluation::parse::eval_reply(&text, false);
        let _ = psebench::llm::reasoning::split_inline(&text);
        let _ = psebench::evaluation::parse::info_reply(&text, &["outcome_type", "allergy_record"]);
        let _ = psebench::evaluation::parse::judge_reply(&text, &["harm_present"]);
        Ok(())
    });
}
