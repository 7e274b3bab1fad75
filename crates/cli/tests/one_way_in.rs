//! One way in: every `psebench` subcommand reaches the engine through the API table
//! (`psebench::api::rpc`), the same one the desktop app and `psebench serve` call.
//!
//! The test walks clap's command tree (`Cli::command()`), so a new subcommand without an entry in
//! `ROUTES` fails it. Each routed subcommand runs against a scratch store with `-vv`, where the
//! dispatcher logs every method it serves (`api call <method>`): the run must log at least one
//! method, and only methods its entry lists, each of which exists in the table. A failing command
//! (an unknown run, say) counts too, as long as it failed inside an API method. A second test
//! reads the CLI's source: the engine is reachable only through `src/api.rs`.

use clap::CommandFactory;
use psebench_cli::Cli;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

enum Route {
    /// Arguments after the subcommand's path, and the API methods it may call.
    Api(&'static [&'static str], &'static [&'static str]),
    /// Not engine work on the user's store; the reason is the entry's documentation.
    Local(&'static str),
}
use Route::{Api, Local};

/// `FILE_JSON`, `FILE_MD`, `OUT` and `MISSING` in arguments are replaced by scratch paths.
const ROUTES: &[(&str, Route)] = &[
    ("status", Api(&[], &["store.info"])),
    ("policy list", Api(&[], &["policies.list"])),
    ("policy show", Api(&["nope"], &["policy.show"])),
    ("policy import", Api(&["--clauses", "MISSING"], &["policy.import_files"])),
    ("policy create", Api(&["FILE_POLICY"], &["policy.create"])),
    ("policy delete", Api(&["nope"], &["policy.delete"])),
    ("cards lint", Api(&["--library"], &["cards.lint_library", "cards.lint_paths"])),
    ("cards coverage", Api(&["--clause", "nope"], &["cards.coverage"])),
    ("cards import", Api(&["MISSING"], &["cards.import_files"])),
    ("cards list", Api(&[], &["cards.list"])),
    ("cards show", Api(&["nope"], &["card.show"])),
    ("cards save", Api(&["--author", "A", "nope", "FILE_JSON"], &["card.save"])),
    ("cards audit", Api(&["--status", "audited", "--auditor", "A", "nope"], &["card.audit"])),
    ("cards history", Api(&["nope"], &["card.show"])),
    ("cards diff", Api(&["nope", "1", "2"], &["card.diff"])),
    ("cards export", Api(&["--out", "OUT"], &["cards.export_to"])),
    ("cases import", Api(&["MISSING"], &["cases.import_file"])),
    ("cases export", Api(&["--out", "OUT"], &["cases.export_to", "cases.export_dataset"])),
    ("cases list", Api(&[], &["cases.list"])),
    ("cases screen", Api(&["--cases", "all", "--models", "nope"], LABEL_AUDIT)),
    ("label-audit", Api(&["--cases", "all", "--models", "nope"], LABEL_AUDIT)),
    ("cases show", Api(&["nope"], &["case.show", "generation.provenance"])),
    ("demo load", Api(&[], &["demo.load"])),
    ("demo results", Api(&[], &["demo.example_results"])),
    ("eval delete", Api(&["nope", "--yes"], &["evaluation.delete_preview", "evaluation.delete"])),
    ("anchors import", Api(&["MISSING"], &["anchors.import_file"])),
    ("anchors list", Api(&[], &["anchors.list"])),
    ("anchors show", Api(&["nope"], &["anchor.show"])),
    ("anchors buckets", Api(&[], &["anchors.buckets"])),
    ("anchors bucket", Api(&["nope", "none"], &["anchor.set_bucket"])),
    ("anchors presort", Api(&["--model", "nope"], ANCHOR_JOB)),
    ("anchors translate", Api(&["--model", "nope"], ANCHOR_JOB)),
    ("anchors jobs", Api(&[], &["anchor_job.list"])),
    ("anchors resume", Api(&["nope"], ANCHOR_JOB)),
    ("anchors remove", Api(&["nope"], &["anchors.remove"])),
    (
        "author extract",
        Api(
            &["--clause", "nope", "--model", "nope"],
            &["authoring.extract", "authoring.extraction_show", "authoring.approve"],
        ),
    ),
    ("author draft", Api(&["--clause", "nope", "--kind", "complete", "--model", "nope"], &["authoring.draft"])),
    (
        "author draft-all",
        Api(
            &["--model", "nope"],
            &[
                "authoring.draft_all_plan",
                "authoring.draft_all_create",
                "authoring.draft_all_execute",
                "authoring.draft_all_list",
                "authoring.draft_all_cancel",
            ],
        ),
    ),
    ("author accept", Api(&["--by", "A", "nope"], &["authoring.accept"])),
    ("author reject", Api(&["--by", "A", "--reason", "R", "nope"], &["authoring.reject"])),
    ("author list", Api(&[], &["authoring.extractions", "authoring.drafts"])),
    ("author show", Api(&["nope"], &["authoring.extraction_show", "authoring.draft_show"])),
    ("author sections", Api(&[], &["authoring.sections"])),
    ("generate", Api(&["--cards", "all", "--model", "nope"], GENERATION_RUN)),
    ("generate resume", Api(&["nope"], GENERATION_RUN)),
    ("generate list", Api(&[], &["generation.list"])),
    ("generate batches", Api(&["nope"], &["batches.list"])),
    ("generate show", Api(&["nope"], &["generation.show"])),
    ("generate candidates", Api(&["nope"], &["generation.candidates"])),
    ("generate provenance", Api(&["nope"], &["generation.provenance"])),
    ("stats generation", Api(&["nope"], &["generation.stats"])),
    ("stats library", Api(&[], &["library.stats"])),
    ("eval run", Api(&["--model", "nope", "--info-model", "nope", "--judge-model", "nope"], EVALUATION_RUN)),
    ("eval batches", Api(&["nope"], &["batches.list"])),
    ("eval resume", Api(&["nope"], EVALUATION_RUN)),
    ("eval list", Api(&[], &["evaluation.list"])),
    ("eval show", Api(&["nope"], &["evaluation.show"])),
    ("eval export", Api(&["--out", "OUT", "nope"], &["evaluation.export_to"])),
    ("eval import", Api(&["MISSING"], &["evaluation.import_file"])),
    ("eval rejudge", Api(&["--judge-model", "nope", "nope"], &["evaluation.rejudge_execute", "evaluation.cancel"])),
    ("models discover", Api(&["--port", "1"], &["models.discover", "model.add"])),
    ("models add", Api(&["--kind", "nope", "--model", "m", "nope"], &["model.add"])),
    ("models list", Api(&[], &["models.list"])),
    ("models test", Api(&["nope"], &["model.test"])),
    ("models remove", Api(&["nope"], &["model.remove"])),
    ("models set-key", Api(&["nope"], &["model.set_key"])),
    ("cache stats", Api(&[], &["cache.stats"])),
    ("cache clear", Api(&[], &["cache.clear"])),
    ("mock-llm serve", Local("the loopback mock provider: a server of its own, no store")),
    ("bench llm", Local("a benchmark on a scratch store of its own, measuring the engine itself")),
    ("bench metrics", Local("a benchmark on synthetic files, measuring the metrics code itself")),
    ("bench load-results", Api(&["--cases", "20", "--models", "1"], &["cases.import_file", "evaluation.import_file"])),
    ("bench store", Local("a benchmark on a scratch store of its own (it calls store.info over HTTP)")),
    ("bench serve-flood", Local("a benchmark of an in-process server on a scratch store")),
    ("bench eval-throughput", Local("a benchmark on a scratch store of its own, measuring the engine itself")),
    ("bench batch-scale", Local("a benchmark on scratch stores of its own")),
    ("bench durability", Local("a benchmark on scratch stores of its own")),
    ("metrics", Api(&["--run", "nope"], &["metrics.compute_runs", "metrics.files"])),
    ("report", Api(&["--run", "nope", "--out", "OUT"], &["report.write"])),
    // Without --review it would serve until stopped; the owner's server sends every request
    // through `rpc::call` itself (crates/server/tests/server.rs).
    ("serve", Api(&["--review", "nope", "--port", "0"], &["review.show", "review.links"])),
    ("review create", Api(&["--name", "N", "--reviewers", "a,b"], &["review.create"])),
    ("review list", Api(&[], &["review.list"])),
    ("review show", Api(&["nope"], &["review.show"])),
    ("review available", Api(&[], &["review.available"])),
    ("review guidelines", Api(&["nope"], &["review.show", "review.set_guidelines"])),
    ("review delete", Api(&["nope", "--yes"], &["review.delete", "review.show"])),
    ("review close", Api(&["nope"], &["review.close"])),
    ("review reopen", Api(&["nope"], &["review.reopen"])),
    ("review links", Api(&["nope"], &["review.links"])),
    ("review me", Api(&["--token", "nope"], &["review.me"])),
    ("review item", Api(&["--token", "nope", "--item", "1"], &["review.item"])),
    ("review answer", Api(&["--token", "nope", "--item", "1", "--realism", "3"], &["review.answer"])),
    ("review reveal", Api(&["--token", "nope", "--item", "1"], &["review.reveal"])),
    ("review rate", Api(&["nope", "--reviewer", "r"], REVIEWER)),
    ("review stats", Api(&["nope"], &["review.stats"])),
    ("review queue", Api(&["nope"], &["review.queue"])),
    ("review adjudicate", Api(&["--decision", "accept", "--by", "A", "nope", "c"], &["review.adjudicate"])),
    ("review history", Api(&["nope"], &["review.adjudications"])),
    ("review export", Api(&["--out", "OUT", "nope"], &["review.export_to"])),
    ("review summary", Api(&["--out", "OUT", "nope"], &["review.summary_write"])),
    ("review pack export", Api(&["--reviewer", "r", "--out", "OUT", "nope"], &["review.pack_export_to"])),
    ("review pack open", Api(&["MISSING"], &["review.pack_open_file"])),
    ("review pack answers", Api(&["--out", "OUT", "nope"], &["review.pack_answers_to"])),
    ("review pack merge", Api(&["MISSING"], &["review.pack_merge_file"])),
];

const ANCHOR_JOB: &[&str] = &[
    "anchor_job.plan",
    "anchor_job.create",
    "anchor_job.check_resumable",
    "anchor_job.execute",
    "anchor_job.show",
    "anchor_job.cancel",
];
const LABEL_AUDIT: &[&str] = &["label_audit.plan", "label_audit.create", "label_audit.execute", "label_audit.results"];
const GENERATION_RUN: &[&str] = &[
    "generation.plan",
    "generation.create",
    "generation.prepare_resume",
    "generation.execute",
    "generation.cancel",
    "generation.abort",
    "batches.list",
];
const EVALUATION_RUN: &[&str] =
    &["evaluation.plan", "evaluation.create", "evaluation.prepare_resume", "evaluation.execute", "evaluation.cancel"];
const REVIEWER: &[&str] = &["review.local_token", "review.me", "review.item", "review.answer", "review.reveal"];

/// Every runnable command path of the tree: leaves, and groups whose subcommand is optional.
fn command_paths(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let path = if prefix.is_empty() { sub.get_name().to_string() } else { format!("{prefix} {}", sub.get_name()) };
        if sub.has_subcommands() {
            if !sub.is_subcommand_required_set() {
                out.push(path.clone());
            }
            command_paths(sub, &path, out);
        } else {
            out.push(path);
        }
    }
}

fn all_paths() -> Vec<String> {
    let mut out = Vec::new();
    command_paths(&Cli::command(), "", &mut out);
    out
}

/// The routes of the subcommands this build has: `bench …` exists only with the CLI's `bench`
/// feature (scripts/test-all tests with it, so those routes are checked there too).
fn routes() -> impl Iterator<Item = &'static (&'static str, Route)> {
    ROUTES.iter().filter(|(p, _)| cfg!(feature = "bench") || !p.starts_with("bench "))
}

/// The binaries users install are built without the `bench` feature: no `psebench bench`.
#[cfg(not(feature = "bench"))]
#[test]
fn the_default_build_has_no_bench_command() {
    let paths = all_paths();
    assert!(!paths.iter().any(|p| p == "bench" || p.starts_with("bench ")), "{paths:?}");
}

#[test]
fn every_subcommand_has_a_route_and_every_route_a_subcommand() {
    let paths: BTreeSet<String> = all_paths().into_iter().collect();
    let routed: BTreeSet<String> = routes().map(|(p, _)| p.to_string()).collect();
    let missing: Vec<&String> = paths.difference(&routed).collect();
    assert!(
        missing.is_empty(),
        "these subcommands have no entry in ROUTES (crates/cli/tests/one_way_in.rs): {missing:?}. \
         Route their engine work through an API method (crate::api::Api::call) and list it there."
    );
    let stale: Vec<&String> = routed.difference(&paths).collect();
    assert!(stale.is_empty(), "ROUTES lists commands that do not exist: {stale:?}");
    let known: BTreeSet<&str> =
        psebench::api::rpc::METHODS.iter().chain(psebench::api::rpc::CLI_METHODS).map(|(n, _)| *n).collect();
    for (path, route) in ROUTES {
        match route {
            Api(_, methods) => {
                assert!(!methods.is_empty(), "{path}: a route names at least one method");
                for m in *methods {
                    assert!(known.contains(m), "{path}: \"{m}\" is not a method of the API table");
                }
            }
            Local(reason) => assert!(!reason.is_empty(), "{path}: say why it does not use the store"),
        }
    }
}

/// Run `psebench -vv --db DB ARGS…` (stdin empty, killed after a minute); returns the API methods
/// it logged, and its standard error for messages.
fn api_calls(db: &Path, args: &[String]) -> (Vec<String>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_psebench"))
        .arg("-vv")
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("PSEBENCH_DB")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start psebench");
    // One line then end of input: a key for `models set-key`; prompts read it as "no".
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"sk-test-not-a-key\n");
    }
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let err = reader.join().unwrap_or_default();
    let calls = err
        .lines()
        .filter_map(|l| l.split("api call ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect();
    (calls, err)
}

#[test]
fn every_subcommand_reaches_the_engine_through_the_api_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    std::fs::write(dir.path().join("card.json"), "{}").unwrap();
    std::fs::write(dir.path().join("policy.json"), "{}").unwrap();
    let fill = |a: &str, i: usize| -> String {
        match a {
            "FILE_JSON" => dir.path().join("card.json").display().to_string(),
            "FILE_POLICY" => dir.path().join("policy.json").display().to_string(),
            "MISSING" => dir.path().join("missing.jsonl").display().to_string(),
            "OUT" => dir.path().join(format!("out-{i}")).display().to_string(),
            other => other.to_string(),
        }
    };
    let mut problems = Vec::new();
    for (i, (path, route)) in routes().enumerate() {
        let Api(args, allowed) = route else { continue };
        let mut argv: Vec<String> = path.split(' ').map(str::to_string).collect();
        argv.extend(args.iter().map(|a| fill(a, i)));
        let (calls, err) = api_calls(&db, &argv);
        if calls.is_empty() {
            let tail: Vec<&str> = err.lines().rev().take(3).collect();
            problems.push(format!("`psebench {}` called no API method (stderr ends: {tail:?})", argv.join(" ")));
        }
        for c in &calls {
            if !allowed.contains(&c.as_str()) {
                problems.push(format!("`psebench {path}` called {c}, which its route does not list"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The CLI's source reaches the engine only through `src/api.rs`: nowhere else names the engine
/// type, opens a store or calls the engine's file readers and scorers directly. (`bench.rs`
/// builds scratch stores for the benchmarks that are `Local` routes.)
#[test]
fn only_the_api_client_holds_the_engine() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let forbidden = [
        "Engine",
        "engine.",
        "store::Store",
        "::io::read_",
        "::io::write_",
        "metrics::compute",
        "write_report_files",
        "rpc::call(",
        "jobs().",
    ];
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().and_then(|x| x.to_str()) == Some("rs") {
                files.push(p);
            }
        }
    }
    let mut problems = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if rel == "api.rs" || rel == "commands/bench.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for w in forbidden {
                if code.contains(w) {
                    problems.push(format!("src/{rel}:{}: `{w}` — call an API method through crate::api::Api", n + 1));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
