//! Runs the real `psebench` binary.

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

use psebench::util::format::count;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// A scratch folder whose store is already seeded (as after a first start; seeding a new
    /// store takes over a second in a debug build, and most tests make one).
    fn new() -> Env {
        let env = Env::empty();
        psebench::api::seeded_copy::put_seeded_store(&env.db()).unwrap();
        env
    }
    /// A scratch folder with no store: the first command creates it.
    fn empty() -> Env {
        Env { dir: tempfile::tempdir().unwrap() }
    }
    fn db(&self) -> PathBuf {
        self.dir.path().join("data/psebench.db")
    }
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_psebench"))
            .args(args)
            .env("PSEBENCH_DB", self.db())
            // Batch mode gathers and polls quickly here (the mock ends batches in milliseconds).
            .env("PSEBENCH_BATCH_GATHER_MS", "50")
            .env("PSEBENCH_BATCH_POLL_MS", "50")
            .env("PSEBENCH_TEST_KEY", "k-test-000000")
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap()
    }
    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(
            o.status.success(),
            "psebench {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }
    fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_str(&self.ok(&a)).unwrap()
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn card(id: &str) -> Value {
    json!({
      "clause_card_id": id,
      "clause_card_definition": "Drug given despite a recorded allergy, with serious harm.",
      "clause_id": "CareManagement_1_MedicationError",
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "m", "value": ["Care Management Events clause 1"]},
        "boundary_conditions": {
          "harm_present": {"value": true, "meaning": "Serious harm.", "corresponding_basic_event_elements": ["outcome"]}
        }
      },
      "basic_event_elements": {
        "outcome": {"field_type": "string", "meaning": "What happened.", "allowed_content": "a", "disallowed_content": "b"}
      },
      "constraints_on_basic_event_elements_instantiation": []
    })
}

#[test]
fn store_is_created_in_the_given_place_and_mn29_is_loaded() {
    let env = Env::empty();
    let out = env.ok(&["status"]);
    assert!(out.contains("created now"), "{out}");
    assert!(out.contains(&format!("Logs:      {}", s(&env.dir.path().join("data/logs")))), "{out}");
    assert!(env.db().exists());
    let list = env.json(&["policy", "list"]);
    assert_eq!(list[0]["id"], "mn29");
    assert_eq!(list[0]["clauses"], 29);
    // --db wins over PSEBENCH_DB
    let other = env.dir.path().join("other.db");
    let o = env.run(&["--db", s(&other), "status", "--json"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["path"], s(&other));
    assert_eq!(v["log_folder"], s(&env.dir.path().join("logs")));
}

#[test]
fn policy_show_json_has_the_contract_fields() {
    let env = Env::new();
    let v = env.json(&["policy", "show", "mn29"]);
    assert_eq!(v["id"], "mn29");
    assert!(v["name"].as_str().unwrap().contains("Minnesota"));
    let c = &v["clauses"][11];
    for k in ["clause_id", "label", "category", "local_no", "short_title", "summary"] {
        assert!(c.get(k).is_some(), "clause field {k}");
    }
    assert_eq!(c["label"], "Care Management Events clause 1");
    let ev = v["evidence"].as_array().unwrap();
    assert!(ev.iter().all(|e| e.get("id").is_some() && e.get("kind").is_some() && e.get("title").is_some()));
    assert!(ev.iter().any(|e| e["id"] == "General Recommendation 3"));
    let human = env.ok(&["policy", "show", "mn29"]);
    assert!(human.contains("summary edition") || human.contains("NOTE:"), "the summary-edition notice is shown");
}

#[test]
fn policy_create_list_show_and_delete() {
    let env = Env::new();
    let pack = json!({
        "id": "harbour", "name": "Harbour incident rule", "jurisdiction": "Harbour District",
        "reporting_deadline": "within 5 days",
        "clauses": [
            {"clause_id": "HB_1_Burn", "label": "Burns clause 1", "category": "Burns", "text": "A burn needing grafting."},
            {"clause_id": "HB_2_Lost", "label": "Missing patient clause 1", "category": "Absence", "text": "A patient missing for more than four hours."},
            {"clause_id": "HB_3_Gas", "label": "Gases clause 1", "category": "Gases", "text": "The wrong medical gas is given."}
        ],
        "guidance_markdown": "# Grafting\nAny skin graft.\n\n# Missing\nFrom the moment staff notice.\n"
    });
    let file = env.file("harbour.json", &pack.to_string());
    let made = env.json(&["policy", "create", s(&file)]);
    assert_eq!(made["id"], "harbour");
    assert_eq!(made["clauses"], json!(["HB_1_Burn", "HB_2_Lost", "HB_3_Gas"]));
    assert_eq!(made["guidance_sections"], json!(["Grafting", "Missing"]));
    let list = env.json(&["policy", "list"]);
    let mine = list.as_array().unwrap().iter().find(|p| p["id"] == "harbour").unwrap();
    assert_eq!((mine["clauses"].as_u64(), mine["builtin"].as_bool()), (Some(3), Some(false)));
    let shown = env.json(&["policy", "show", "harbour"]);
    assert_eq!(shown["jurisdiction"], "Harbour District");
    assert_eq!(shown["guidance"][1]["summary"], "From the moment staff notice.");
    // The same file again: refused with the field named, exit code not 0.
    let again = env.run(&["policy", "create", s(&file)]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("id:"), "{}", String::from_utf8_lossy(&again.stderr));
    let bad = env.file("bad.json", r#"{"id": "x", "nmae": "typo"}"#);
    let o = env.run(&["policy", "create", s(&bad)]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("nmae"));
    assert!(!env.run(&["policy", "delete", "mn29"]).status.success(), "the built-in pack stays");
    assert_eq!(env.json(&["policy", "delete", "harbour"])["deleted"], true);
    assert!(!env.run(&["policy", "show", "harbour"]).status.success());
}

#[test]
fn lint_exit_codes_and_json_shape() {
    let env = Env::new();
    let good = env.file("cards/good.json", &serde_json::to_string_pretty(&card("CardCli_1")).unwrap());
    let o = env.run(&["cards", "lint", s(&good)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let mut bad = card("CardCli_2");
    bad["fixed_fields"]["governing_legal_basis"]["value"] = json!([]);
    let badp = env.file("cards/bad.json", &serde_json::to_string_pretty(&bad).unwrap());
    let o = env.run(&["cards", "lint", "--policy", "mn29", "--json", s(&badp)]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["errors"], 1);
    assert_eq!(v["warnings"], 0);
    let p = &v["problems"][0];
    assert_eq!(p["rule"], "legal-basis-empty");
    assert_eq!(p["severity"], "error");
    assert_eq!(p["pointer"], "/fixed_fields/governing_legal_basis/value");
    assert_eq!(p["clause_card_id"], "CardCli_2");
    assert!(p["path"].as_str().unwrap().ends_with("bad.json"));
    assert!(p["message"].as_str().unwrap().len() > 20);
    // a warning alone exits 0
    let mut warn = card("CardCli_3");
    let el = warn["basic_event_elements"]["outcome"].clone();
    warn["basic_event_elements"] = json!({"Outcome": el});
    warn["fixed_fields"]["boundary_conditions"]["harm_present"]["corresponding_basic_event_elements"] =
        json!(["Outcome"]);
    let wp = env.file("w/warn.json", &serde_json::to_string(&warn).unwrap());
    assert_eq!(env.run(&["cards", "lint", s(&wp)]).status.code(), Some(0));
    // the stored library lints clean
    let o = env.run(&["cards", "lint", "--library", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(if v["errors"] == 0 { 0 } else { 1 }));
}

#[test]
fn card_import_list_show_audit_export() {
    let env = Env::new();
    let p = env.file("in/c.json", &serde_json::to_string_pretty(&card("CardCli_9")).unwrap());
    let r = env.json(&["cards", "import", s(&p)]);
    assert_eq!(r["added"], json!(["CardCli_9"]));
    let list = env.json(&["cards", "list", "--clause", "CareManagement_1_MedicationError"]);
    let mine = list.as_array().unwrap().iter().find(|c| c["card_id"] == "CardCli_9").unwrap();
    assert_eq!(mine["status"], "draft");
    let shown = env.json(&["cards", "show", "CardCli_9"]);
    assert_eq!(shown["card"], card("CardCli_9"));
    let a = env.json(&["cards", "audit", "CardCli_9", "--status", "approved", "--auditor", "R. Nurse"]);
    assert_eq!(a["summary"]["status"], "approved");
    let out = env.dir.path().join("export.jsonl");
    env.ok(&["cards", "export", "--out", s(&out), "--clause", "CareManagement_1_MedicationError"]);
    assert!(std::fs::read_to_string(&out).unwrap().contains("CardCli_9"));
    // unknown card: exit 1 with a sentence on stderr
    let o = env.run(&["cards", "show", "Nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("There is no card \"Nope\""));
    let o = env.run(&["cards", "show", "Nope", "--json"]);
    let e: Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(e["error"]["code"], "not_found");
}

#[test]
fn cases_import_export_and_bad_input() {
    let env = Env::new();
    let case = json!({
      "case_id": "c1", "case_type": "complete", "policy": "mn29", "clause_id": "CareManagement_1_MedicationError",
      "clause_card_id": "CardCli_9", "missing_variant_id": null, "gold_verdict": "Non-reportable", "gold_clause": null,
      "gold_legal_basis": ["Care Management Events clause 1"], "boundary_conditions": [], "elements": [],
      "masked_elements": [], "narrative": "A nurse noticed the wrong label before giving anything.", "anchor_id": null
    });
    let p = env.file("cases.jsonl", &(serde_json::to_string(&case).unwrap() + "\n"));
    let r = env.json(&["cases", "import", s(&p)]);
    assert_eq!(r["imported"], 1);
    let out = env.dir.path().join("out/cases.jsonl");
    env.ok(&["cases", "export", "--out", s(&out)]);
    let back: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    assert_eq!(back, case);
    let bad = env.file("bad.jsonl", "{\"case_id\": \"c2\"\n");
    let o = env.run(&["cases", "import", s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.jsonl:1:") && err.contains("not valid JSON"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let env = Env::new();
    assert_eq!(env.run(&["cards", "frobnicate"]).status.code(), Some(2));
}

/// A mock provider kept alive for the duration of a test.
struct Mock {
    _rt: tokio::runtime::Runtime,
    server: psebench::mock::MockServer,
}

fn start_mock(script: psebench::mock::Script) -> Mock {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = rt.block_on(psebench::mock::MockServer::start(script, 0)).unwrap();
    Mock { _rt: rt, server }
}

/// A store with the demo loaded and the models m, info and judge registered at a mock that answers
/// with `eval_script`; the mock is returned so it lives as long as the test.
fn env_with_demo_and_mock_models() -> (Env, Mock) {
    let env = Env::new();
    let mock = start_mock(eval_script());
    let base = mock.server.openai_base();
    for name in ["m", "info", "judge"] {
        env.ok(&["models", "add", name, "--kind", "openai-compatible", "--model", name, "--base-url", &base]);
    }
    env.ok(&["demo", "load"]);
    (env, mock)
}

fn eval_script() -> psebench::mock::Script {
    let answer = r#"{"action": "ANSWER", "ask_question": null, "final_verdict": "Non-reportable", "targeted_clause": null, "clause_and_guidance_evidence": ["Care Management Events clause 1"], "rationale": "The harm stayed below the threshold."}"#;
    serde_json::from_value(json!({
        "rules": [
            {"name": "info", "when": {"system_contains": "look-up service"}, "reply": {"json": {"status": "unknown", "answer_to_eval": "Not in the record.", "fields_used": []}}},
            {"name": "judge", "when": {"system_contains": "You review the written reasoning", "last_user_regex": "- name: (\\w+)"}, "reply": {"json": {"hits": ["{{1}}"], "explanations": {}}}},
            {"name": "model", "reply": {"text": answer}}
        ]
    }))
    .unwrap()
}

#[test]
fn eval_run_metrics_report_export_import_through_the_cli() {
    let (env, _mock) = env_with_demo_and_mock_models();
    let out = env.ok(&[
        "eval",
        "run",
        "--cases",
        "origin=demo,type=complete,limit=5",
        "--model",
        "m",
        "--info-model",
        "info",
        "--judge-model",
        "judge",
        "--json",
    ]);
    let summary: Value = serde_json::from_str(&out).unwrap();
    let run_id = summary["run_id"].as_str().unwrap().to_string();
    assert_eq!(summary["status"], "completed");
    assert_eq!(summary["counts"]["done"], 5);
    let m = env.json(&["metrics", "--run", &run_id]);
    assert_eq!(m["models"][0]["model"], "m");
    assert_eq!(m["models"][0]["cases"], 5);
    assert!(m["models"][0]["M1"].as_f64().is_some());
    let report_dir = env.dir.path().join("report");
    env.ok(&["report", "--run", &run_id, "--out", s(&report_dir)]);
    for f in [
        "index.md",
        "tables/table1_overall.csv",
        "tables/table1_overall.tex",
        "charts/m5_m6_scatter.svg",
        "charts/per_clause_difficulty.png",
    ] {
        assert!(report_dir.join(f).exists(), "{f} missing");
    }
    let traj = env.dir.path().join("t.jsonl");
    env.ok(&["eval", "export", &run_id, "--out", s(&traj)]);
    assert_eq!(std::fs::read_to_string(&traj).unwrap().lines().count(), 5);
    let first: Value = serde_json::from_str(std::fs::read_to_string(&traj).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["model"], "m", "the exported model is the registered name");
    let imported = env.json(&["eval", "import", s(&traj)]);
    assert_eq!(imported["runs"].as_array().unwrap().len(), 1);
    let list = env.json(&["eval", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 2);
    // file-mode metrics over all 30 complete demo cases: the 25 without a trajectory count as wrong
    let cases_file = env.dir.path().join("c.jsonl");
    env.ok(&["cases", "export", "--out", s(&cases_file), "--type", "complete"]);
    let files = env.json(&["metrics", "--cases", s(&cases_file), "--trajectories", s(&traj)]);
    assert_eq!(files["models"][0]["cases"], 30);
    let (run_m1, file_m1) = (m["models"][0]["M1"].as_f64().unwrap(), files["models"][0]["M1"].as_f64().unwrap());
    assert!((file_m1 - run_m1 * 5.0 / 30.0).abs() < 1e-9, "{file_m1} vs {run_m1}");

    // A paper run beside the studio one: marked in `metrics` and `report`, still paired (same cases).
    let paper = env.json(&[
        "eval",
        "run",
        "--cases",
        "origin=demo,type=complete,limit=5",
        "--model",
        "m",
        "--info-model",
        "info",
        "--judge-model",
        "judge",
        "--protocol",
        "paper",
    ]);
    let paper_id = paper["run_id"].as_str().unwrap().to_string();
    let both = env.json(&["metrics", "--run", &run_id, &paper_id, "--bootstrap", "0"]);
    assert_eq!(both["comparability"]["comparable"], false);
    assert_eq!(both["comparability"]["marks"][1]["differs"][0], "protocol: paper");
    assert_eq!(both["models"].as_array().unwrap().len(), 2, "the existing keys are kept");
    assert_eq!(both["paired_tests"].as_array().unwrap().len(), 1);
    let human = env.ok(&["metrics", "--run", &run_id, &paper_id, "--bootstrap", "0"]);
    assert!(human.starts_with("Not directly comparable: These runs differ in protocol"), "{human}");
    assert!(human.contains(&format!("m [{paper_id}] †")), "{human}");
    assert!(human.contains(&format!("† m [{paper_id}] (run {paper_id}): protocol: paper")), "{human}");
    let marked_dir = env.dir.path().join("marked");
    let said = env.ok(&["report", "--run", &run_id, &paper_id, "--out", s(&marked_dir)]);
    assert!(said.contains("Not directly comparable: These runs differ in protocol"), "{said}");
    let written = env.json(&["report", "--run", &run_id, &paper_id, "--out", s(&marked_dir)]);
    assert_eq!(written["comparability"]["comparable"], false);
    assert!(written["files"].as_array().is_some_and(|f| !f.is_empty()));
    let csv = std::fs::read_to_string(marked_dir.join("tables/table1_overall.csv")).unwrap();
    assert!(csv.contains(&format!("m [{paper_id}] †")), "{csv}");
}

/// `eval run --batch`: the plan gives the online and batch cost, the calls go out as provider
/// batches (OpenAI's files + batches shape) and `eval batches` lists them.
#[test]
fn eval_run_in_batch_mode_through_the_cli() {
    let env = Env::new();
    let mut script = eval_script();
    script.batch.delay_ms = 30;
    let mock = start_mock(script);
    let base = mock.server.openai_base();
    for name in ["m", "info", "judge"] {
        env.ok(&[
            "models",
            "add",
            name,
            "--kind",
            "openai",
            "--model",
            name,
            "--base-url",
            &base,
            "--api-key-env",
            "PSEBENCH_TEST_KEY",
            "--price-in",
            "2",
            "--price-out",
            "4",
        ]);
    }
    env.ok(&["demo", "load"]);
    let args = [
        "eval",
        "run",
        "--cases",
        "origin=demo,type=complete,limit=3",
        "--model",
        "m",
        "--info-model",
        "info",
        "--judge-model",
        "judge",
        "--batch",
        "--yes",
    ];
    let o = env.run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("in batch mode about $"), "{err}");
    assert!(err.contains("Batch mode: the calls of m, info, judge go out as provider batches"), "{err}");
    let list = env.json(&["eval", "list"]);
    let run_id = list[0]["run_id"].as_str().unwrap().to_string();
    assert_eq!(list[0]["config"]["batch"], true);
    let batches = env.json(&["eval", "batches", &run_id]);
    let batches = batches.as_array().unwrap();
    assert!(!batches.is_empty());
    assert!(batches.iter().all(|b| b["state"] == "ended" && b["provider"] == "openai"), "{batches:?}");
    let answered: u64 = batches.iter().map(|b| b["succeeded"].as_u64().unwrap()).sum();
    assert_eq!(answered, mock.server.request_count());
    let text = env.ok(&["eval", "batches", &run_id]);
    assert!(text.contains("PROVIDER SAYS") && text.contains("completed"), "{text}");
}

#[test]
fn eval_max_cost_stops_the_run_as_cost_capped_and_a_higher_cap_finishes_it() {
    let env = Env::new();
    // Every reply reports 10,000 input and 5,000 output tokens: US$ 0.02 a call at these prices.
    let mut script = eval_script();
    for r in &mut script.rules {
        r.usage = Some(psebench::mock::UsageOverride {
            input_tokens: Some(10_000),
            output_tokens: Some(5_000),
            ..Default::default()
        });
    }
    let mock = start_mock(script);
    let base = mock.server.openai_base();
    for name in ["m", "info", "judge"] {
        env.ok(&[
            "models",
            "add",
            name,
            "--kind",
            "openai-compatible",
            "--model",
            name,
            "--base-url",
            &base,
            "--price-in",
            "1",
            "--price-out",
            "2",
        ]);
    }
    env.ok(&["demo", "load"]);
    let run = |extra: &[&str]| {
        let mut a = vec![
            "eval",
            "run",
            "--cases",
            "origin=demo,type=complete,limit=5",
            "--model",
            "m",
            "--info-model",
            "info",
            "--judge-model",
            "judge",
            "--concurrency",
            "1",
        ];
        a.extend_from_slice(extra);
        env.run(&a)
    };
    let o = run(&["--max-cost", "0.1", "--json"]);
    assert!(!o.status.success(), "a capped run does not exit as completed");
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let run_id = summary["run_id"].as_str().unwrap().to_string();
    assert_eq!(summary["status"], "cost_capped", "{summary}");
    let done = summary["counts"]["done"].as_u64().unwrap();
    assert!(done > 0 && done < 5, "{summary}");
    assert!(summary["counts"]["cost_usd"].as_f64().unwrap() <= 0.1 + 1e-12);
    assert!(summary["message"].as_str().unwrap().starts_with("Stopped at the cost cap: US$ "), "{summary}");
    let list = env.ok(&["eval", "list"]);
    assert!(list.contains("stopped: cost cap"), "{list}");
    let shown = env.ok(&["eval", "show", &run_id]);
    assert!(shown.starts_with(&format!("Run {run_id} — stopped: cost cap\nSpending cap: $0.10")), "{shown}");
    // The same cap again is refused in plain words.
    let o = env.run(&["eval", "resume", &run_id]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("higher cap"), "{err}");
    let o = env.run(&["eval", "resume", &run_id, "--max-cost", "0"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("above zero"));
    let s = env.json(&["eval", "resume", &run_id, "--max-cost", "5"]);
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(s["counts"]["done"], 5);
    let shown = env.json(&["eval", "show", &run_id]);
    assert_eq!(shown["config"]["max_cost_usd"], 5.0);
    // A cap the estimate passes is announced with the plan.
    let o = run(&["--max-cost", "0.01"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Spending cap $0.01") && err.contains("expected to allow 0 of 5"), "{err}");
    // The generation commands take the same options.
    let o = env.run(&["generate", "resume", "gen-none", "--max-cost", "2"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("There is no run \"gen-none\""));
    let o = env.run(&["generate", "--cards", "all", "--model", "m", "--max-cost", "0", "--plan"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("above zero"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_remote_run_needs_confirmation_when_not_interactive() {
    let env = Env::new();
    env.ok(&["demo", "load"]);
    for name in ["r", "i", "j"] {
        env.ok(&[
            "models",
            "add",
            name,
            "--kind",
            "openai-compatible",
            "--model",
            name,
            "--base-url",
            "https://llm.example.org/v1",
        ]);
    }
    let o = env.run(&[
        "eval",
        "run",
        "--cases",
        "origin=demo,limit=1",
        "--model",
        "r",
        "--info-model",
        "i",
        "--judge-model",
        "j",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("remote") && err.contains("--yes"), "{err}");
    assert!(env.json(&["eval", "list"]).as_array().unwrap().is_empty(), "nothing was started");
}

#[test]
fn eval_delete_and_removing_example_results_say_what_goes_and_ask_first() {
    let env = Env::new();
    env.ok(&["demo", "results"]);
    let runs = |env: &Env| -> Vec<String> {
        let mut ids: Vec<String> = env
            .json(&["eval", "list"])
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["run_id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(runs(&env), vec!["example-average", "example-careful", "example-overconfident"]);

    // Without a terminal and without --yes: what would go is printed, then a refusal naming --yes.
    let o = env.run(&["eval", "delete", "example-average"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Run example-average (example-average"), "{err}");
    assert!(err.contains("removes: The run and its results on 90 cases (90 finished transcripts"), "{err}");
    assert!(err.contains("keeps:"), "{err}");
    assert!(err.contains("Nothing was deleted") && err.contains("--yes"), "{err}");
    assert_eq!(runs(&env).len(), 3, "nothing was deleted");

    // With --yes it goes; an unknown run is an error that names it.
    let out = env.ok(&["eval", "delete", "example-average", "--yes"]);
    assert!(out.contains("Deleted run example-average (90 cases, 90 transcripts)."), "{out}");
    assert_eq!(runs(&env), vec!["example-careful", "example-overconfident"]);
    let o = env.run(&["eval", "delete", "example-average", "--yes"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("There is no run \"example-average\""));

    // The example results as a whole: refused without --yes, removed with it; the demo cases stay.
    let o = env.run(&["demo", "results", "--remove"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Removes the 2 example runs of fictional models") && err.contains("--yes"), "{err}");
    let gone = env.json(&["demo", "results", "--remove", "--yes"]);
    assert_eq!(gone["runs"].as_array().unwrap().len(), 2);
    assert!(runs(&env).is_empty());
    assert_eq!(env.json(&["cases", "list"]).as_array().unwrap().len(), 90);
    let again = env.ok(&["demo", "results", "--remove"]);
    assert!(again.contains("There are no example results in this store."), "{again}");
}

fn generation_card() -> Value {
    json!({
      "clause_card_id": "CardRep_91_CareManagement_7",
      "clause_card_definition": "A patient falls while under care and is seriously injured.",
      "clause_id": "CareManagement_7_Fall",
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "Fall with serious injury.", "value": ["Care Management Events clause 7"]},
        "boundary_conditions": {
          "cli_fall_in_care": {"value": true, "meaning": "The patient fell under the facility's care.", "corresponding_basic_event_elements": ["fall_description"]},
          "cli_serious_injury": {"value": true, "meaning": "The fall seriously injured the patient.", "corresponding_basic_event_elements": ["injury_outcome"]}
        }
      },
      "basic_event_elements": {
        "fall_description": {"field_type": "string", "meaning": "How and where the patient fell.", "allowed_content": "a", "disallowed_content": "b"},
        "injury_outcome": {"field_type": "string", "meaning": "The injury and its course.", "allowed_content": "a", "disallowed_content": "b"}
      },
      "constraints_on_basic_event_elements_instantiation": [],
      "missing_information_variants": [{
        "missing_variant_id": "missing_injury", "summary": "The fall without the injury.",
        "masked_boundary_conditions": ["cli_serious_injury"], "masked_basic_event_elements": ["injury_outcome"],
        "why_reasonable_in_real_world": "Filed before imaging.", "why_not_classifiable_from_remaining_event_description": "Fits a no-harm fall card too."
      }]
    })
}

fn generation_script() -> psebench::mock::Script {
    let narrative = "Night shift on the surgical ward. At 02:30 the patient was found on the floor next to the bed after getting up alone; {{1}}";
    serde_json::from_value(json!({
        "rules": [
            {"name": "inst", "when": {"system_contains": "You fill in the facts"}, "reply": {"json": {"slot_values": {"fall_description": "Found on the floor beside the bed at 02:30 after getting up alone", "injury_outcome": "Hip fracture repaired the next day; 9 days in hospital"}}}},
            {"name": "iver", "when": {"system_contains": "strict reviewer"}, "reply": {"json": {"pass": true, "issues": []}}},
            {"name": "narr", "when": {"system_contains": "You write the free-text description", "last_user_regex": "# Anchor\\s+(\\S+ \\S+)"}, "reply": {"json": {"event_narrative": format!("{narrative} an X-ray showed a hip fracture, repaired the next day.")}}},
            {"name": "mnarr", "when": {"system_contains": "You write the first, incomplete report", "last_user_regex": "# Anchor\\s+(\\S+ \\S+)"}, "reply": {"json": {"event_narrative": format!("MISSING {narrative} staff helped the patient back to bed.")}}},
            {"name": "extr-m", "when": {"system_contains": "You read a description", "last_user_contains": "MISSING"}, "reply": {"json": {"slot_values": {"fall_description": "found on the floor", "injury_outcome": null}}}},
            {"name": "extr", "when": {"system_contains": "You read a description"}, "reply": {"json": {"slot_values": {"fall_description": "found on the floor", "injury_outcome": "hip fracture"}}}},
            {"name": "nver", "when": {"system_contains": "kept the facts"}, "reply": {"json": {"pass": true, "issues": []}}},
            {"name": "screen", "when": {"system_contains": "You screen one event's facts"}, "reply": {"json": {"clauses_met": [{"clause_id": "CareManagement_7_Fall", "why": "a fall in care with a fracture"}], "open_question": {"present": false, "section_id": null, "why": null}, "verdict": "Reportable"}}},
            {"name": "mver", "when": {"system_contains": "intentionally incomplete"}, "reply": {"json": {"per_bc_check": [{"boundary_condition": "cli_serious_injury", "leak_verdict": "indeterminate", "evidence_phrase": null, "explanation": "open"}], "pass": true, "issues": []}}}
        ]
    }))
    .unwrap()
}

#[test]
fn anchors_generation_stats_provenance_and_report_through_the_cli() {
    let env = Env::new();
    let mock = start_mock(generation_script());
    let base = mock.server.openai_base();
    env.ok(&["models", "add", "w", "--kind", "openai-compatible", "--model", "w", "--base-url", &base]);
    let card = env.file("cards/c.json", &serde_json::to_string_pretty(&generation_card()).unwrap());
    env.ok(&["cards", "import", s(&card)]);
    env.ok(&["cards", "audit", "CardRep_91_CareManagement_7", "--status", "approved", "--auditor", "T"]);

    // Anchors: built-in samples are there; import ours into the fall bucket.
    let anchors = env.json(&["anchors", "list", "--clause", "CareManagement_7_Fall"]);
    let fall_builtin = psebench::builtin::anchor_files()
        .iter()
        .filter(|f| f.path.ends_with("CareManagement_7_Fall.jsonl"))
        .map(|f| f.text.lines().filter(|l| !l.trim().is_empty()).count())
        .sum::<usize>();
    assert_eq!(anchors.as_array().unwrap().len(), fall_builtin);
    let f = env.file("ours.jsonl", "{\"anchor_id\": \"ours-1\", \"text\": \"Patient slipped in the shower on ward 3 and hit her head.\", \"source\": \"our reports\"}\n");
    let r = env.json(&["anchors", "import", s(&f), "--clause", "CareManagement_7_Fall"]);
    assert_eq!(r["added"], json!(["ours-1"]));
    let again = env.json(&["anchors", "import", s(&f)]);
    assert_eq!(again["duplicates"][0]["duplicate_of"], "ours-1");
    assert_eq!(env.json(&["anchors", "show", "ours-1"])["clause_id"], "CareManagement_7_Fall");

    // Plan only, then a real run limited to our imported anchor.
    let plan = env.json(&[
        "generate",
        "--cards",
        "CardRep_91_CareManagement_7",
        "--anchors-per-card",
        "2",
        "--model",
        "w",
        "--plan",
    ]);
    assert_eq!(plan["candidates"], 4);
    assert_eq!(plan["sends_data_off_machine"], false);
    let out = env.json(&[
        "generate",
        "--cards",
        "CardRep_91_CareManagement_7",
        "--anchors-per-card",
        "2",
        "--model",
        "w",
        "--anchors-from",
        "imported",
    ]);
    let run = out["run_id"].as_str().unwrap().to_string();
    assert_eq!(out["status"], "completed", "{out}");
    assert_eq!(out["counts"]["accepted"], 2);
    let list = env.json(&["generate", "list"]);
    assert_eq!(list[0]["run_id"], json!(run));

    let stats = env.json(&["stats", "generation", &run]);
    assert_eq!(stats["success"][0]["success_pct"], 100.0);
    assert_eq!(stats["winning_attempts"][2]["attempts"], json!([1, 0, 0]));
    let text = env.ok(&["stats", "generation", &run]);
    assert!(text.contains("Winning attempt per stage") && text.contains("| Missing narration"), "{text}");
    let lib = env.json(&["stats", "library"]);
    assert!(lib["cards"].as_u64().unwrap() > 100);

    let case_id = format!("{run}__CardRep_91_CareManagement_7__ours-1__missing_injury");
    let story = env.ok(&["cases", "show", &case_id, "--provenance"]);
    for needle in [
        "instantiation attempt 1 (parent case): PASS",
        "narration attempt 1 (parent case): PASS",
        "clause_screen attempt 1 (parent case): PASS",
        "screen: Reportable; clauses met: CareManagement_7_Fall; open question: no",
        "missing_narration attempt 1: PASS",
        "missing_verifier",
        "gen_missing_narrator@",
    ] {
        assert!(story.contains(needle), "{needle} missing in:\n{story}");
    }
    let pj = env.json(&["cases", "show", &case_id, "--provenance"]);
    assert_eq!(
        pj["attempts"].as_array().unwrap().len(),
        4,
        "instantiation, narration, clause screen, missing narration"
    );
    let o = env.run(&["cases", "show", "nope", "--provenance"]);
    assert_eq!(o.status.code(), Some(1));

    let dir = env.dir.path().join("report");
    env.ok(&["report", "--generation", &run, "--out", s(&dir)]);
    for f in [
        "generation.md",
        "generation.json",
        "library.json",
        "tables/gen_success.tex",
        "tables/gen_cases_by_clause.csv",
        "tables/lib_card_shape.md",
        "tables/lib_clause_counts.tex",
    ] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let resume = env.json(&["generate", "resume", &run]);
    assert_eq!(resume["status"], "completed");
}

impl Env {
    /// Run with text on standard input (the terminal questionnaire).
    fn ok_with_input(&self, args: &[&str], input: &str) -> String {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_psebench"))
            .args(args)
            .env("PSEBENCH_DB", self.db())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "psebench {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }
}

/// Five answers per item for `review rate`: realism, plausibility, verdict (1 = Reportable), agree, comment.
fn rate_input(items: usize) -> String {
    "4\n3\n1\ny\n\n".repeat(items)
}

#[test]
fn expert_review_from_creation_to_merged_packs_and_exports() {
    let env = Env::new();
    env.ok(&["demo", "load"]);
    let created = env.json(&[
        "review",
        "create",
        "--name",
        "CLI review",
        "--sample",
        "3,3,3",
        "--reviewers",
        "Ana,Ben",
        "--seed",
        "5",
    ]);
    let sid = created["summary"]["session_id"].as_str().unwrap().to_string();
    assert_eq!(created["summary"]["cases"], 9);
    assert_eq!(created["summary"]["assignments"], 18);
    assert_eq!(env.json(&["review", "list"])[0]["session_id"], sid.as_str());

    // Personal links; blind-first through the CLI.
    let links = env.json(&["review", "links", &sid]);
    let ana = links["links"][0]["token"].as_str().unwrap().to_string();
    assert_eq!(links["links"][0]["reviewer"], "Ana");
    let o = env.run(&["review", "reveal", "--token", &ana, "--item", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Give your own verdict"));
    let saved = env.json(&[
        "review",
        "answer",
        "--token",
        &ana,
        "--item",
        "1",
        "--realism",
        "5",
        "--verdict",
        "missing",
        "--time",
        "12",
    ]);
    assert_eq!(saved["changed"], json!(["realism", "blind_verdict", "time_spent_secs"]));
    let o = env.run(&["review", "answer", "--token", &ana, "--item", "1", "--agree", "yes"]);
    assert_eq!(o.status.code(), Some(1), "agree before the reveal is refused");
    let rev = env.json(&["review", "reveal", "--token", &ana, "--item", "1"]);
    assert_eq!(rev["your_blind_verdict"], "Missing information");
    let o = env.run(&["review", "answer", "--token", &ana, "--item", "1", "--verdict", "uncertain", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(err["error"]["code"], "forbidden");
    let wrong = "f".repeat(64);
    assert_eq!(env.run(&["review", "me", "--token", &wrong]).status.code(), Some(1));

    // Ana finishes in the terminal questionnaire (one process), resuming at item 1.
    let out = env
        .ok_with_input(&["review", "rate", &sid, "--reviewer", "Ana"], &("4\n3\ny\n\n".to_string() + &rate_input(8)));
    assert!(out.contains("All 9 items are complete"), "{out}");
    let me = env.json(&["review", "me", &sid, "--reviewer", "Ana"]);
    assert_eq!(me["progress"]["completed"], 9);
    assert!(me["resume_item_no"].is_null());

    // Ben reviews from a pack in another store, and his answers are merged back twice.
    let pack = env.dir.path().join("ben-pack.json");
    env.ok(&["review", "pack", "export", &sid, "--reviewer", "Ben", "--out", s(&pack)]);
    let other = env.dir.path().join("ben/psebench.db");
    let opened = env.json(&["--db", s(&other), "review", "pack", "open", s(&pack)]);
    assert_eq!(opened["items"], 9);
    let o = {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_psebench"))
            .args(["--db", s(&other), "review", "rate", &sid, "--reviewer", "Ben"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(rate_input(9).as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let answers = env.dir.path().join("ben-answers.json");
    env.ok(&["--db", s(&other), "review", "pack", "answers", &sid, "--out", s(&answers)]);
    let m1 = env.json(&["review", "pack", "merge", s(&answers)]);
    assert_eq!(m1["items_changed"], 9);
    let m2 = env.json(&["review", "pack", "merge", s(&answers)]);
    assert_eq!((m2["items_changed"].as_u64(), m2["fields_updated"].as_u64()), (Some(0), Some(0)));

    // Results, adjudication, exports.
    let stats = env.json(&["review", "stats", &sid]);
    assert_eq!(stats["completed"], 18);
    assert_eq!(stats["by_type"][3]["realism"]["n"], 18);
    let human = env.ok(&["review", "stats", &sid]);
    assert!(human.contains("Cohen's kappa, Ana & Ben"), "{human}");
    // Agreement between reviewers is also given for each case type (JSON and text).
    let types: Vec<&str> =
        stats["inter_rater_by_type"].as_array().unwrap().iter().map(|t| t["case_type"].as_str().unwrap()).collect();
    assert_eq!(types, ["complete", "missing", "uncertain"]);
    assert!(human.contains("Between reviewers, per case type"), "{human}");
    assert!(human.lines().any(|l| l.starts_with("missing ")), "{human}");
    let queue = env.json(&["review", "queue", &sid]);
    // Both said Reportable everywhere: every case not built to be Reportable is queued.
    let queued = queue["items"].as_array().unwrap();
    assert!(!queued.is_empty());
    let case = queued[0]["case_id"].as_str().unwrap().to_string();
    let d = env.json(&[
        "review",
        "adjudicate",
        &sid,
        &case,
        "--decision",
        "reject",
        "--exclude",
        "--by",
        "Dr Lee",
        "--note",
        "test",
    ]);
    assert_eq!(d["excluded_case"], true);
    let hist = env.json(&["review", "history", &sid]);
    assert_eq!(hist.as_array().unwrap().len(), 1);
    assert_eq!(
        env.run(&["review", "adjudicate", &sid, &case, "--decision", "maybe", "--by", "X"]).status.code(),
        Some(1)
    );
    let csv = env.dir.path().join("out/answers.csv");
    let r = env.json(&["review", "export", &sid, "--out", s(&csv)]);
    let rows = r["rows"].as_u64().unwrap();
    assert!(rows >= 18 * 5, "{rows}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count() as u64, rows + 1);
    let dir = env.dir.path().join("out/summary");
    env.ok(&["review", "summary", &sid, "--out", s(&dir)]);
    assert!(std::fs::read_to_string(dir.join("review-summary.md")).unwrap().contains("| Complete | 3 |"));
    assert!(std::fs::read_to_string(dir.join("review-summary.tex")).unwrap().contains("\\bottomrule"));
    assert_eq!(env.run(&["review", "delete", &sid]).status.code(), Some(1), "delete asks for --yes");
    env.ok(&["review", "delete", &sid, "--yes"]);
    assert_eq!(env.json(&["review", "list"]), json!([]));
}

#[test]
fn a_closed_review_refuses_its_links_until_reopened_and_lan_links_warn_about_plain_http() {
    use std::io::{BufRead, BufReader};
    let env = Env::new();
    env.ok(&["demo", "load"]);
    let created =
        env.json(&["review", "create", "--name", "Closing", "--sample", "1,1,1", "--reviewers", "Ana", "--seed", "2"]);
    let sid = created["summary"]["session_id"].as_str().unwrap().to_string();

    // Served on the LAN over plain HTTP: the output says so and how to close the review.
    let mut child = Command::new(env!("CARGO_BIN_EXE_psebench"))
        .args(["serve", "--review", &sid, "--lan", "--port", "0"])
        .env("PSEBENCH_DB", env.db())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut printed = String::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        printed.push_str(&line);
        printed.push('\n');
        if line.contains("review close") {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(printed.contains("plain HTTP") && printed.contains("unencrypted"), "{printed}");
    assert!(printed.contains("--tls-cert"), "{printed}");
    assert!(printed.contains(&format!("psebench review close {sid}")), "{printed}");
    let token = printed.split("/review/").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    assert_eq!(env.json(&["review", "me", "--token", &token])["reviewer"], "Ana");

    let closed = env.json(&["review", "close", &sid]);
    assert!(closed["closed_at"].is_string());
    let o = env.run(&["review", "me", "--token", &token]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("This review has been closed by its organiser"));
    // Nothing is served for a closed review; its answers stay readable to the owner.
    let o = env.run(&["serve", "--review", &sid, "--port", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is closed"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(env.json(&["review", "show", &sid])["summary"]["closed_at"], closed["closed_at"]);

    env.ok(&["review", "reopen", &sid]);
    assert_eq!(env.json(&["review", "me", "--token", &token])["reviewer"], "Ana");

    // Certificate files that cannot be read are explained.
    let o =
        env.run(&["serve", "--port", "0", "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("certificate file /nonexistent/cert.pem could not be read"));
}

#[test]
fn author_extract_approve_list_show_through_the_cli() {
    let env = Env::new();
    let script: psebench::mock::Script = serde_json::from_value(json!({
        "rules": [
            {"name": "extract", "when": {"system_contains": "You help a compliance team build a library"},
             "replies": [
                {"json": {"relevant_sections": [{"section_id": "General Recommendation 42", "criteria": ["scope"], "why": "made up"}]}},
                {"json": {"relevant_sections": [{"section_id": "General Recommendation 1", "criteria": ["defines_term"], "why": "defines serious injury"}]}}
             ]},
            {"name": "check", "when": {"system_contains": "You review a selection of policy sections"},
             "reply": {"json": {"add": [{"section_id": "General Recommendation 2", "reason": "sets the threshold"}], "remove": []}}}
        ]
    }))
    .unwrap();
    let mock = start_mock(script);
    env.ok(&[
        "models",
        "add",
        "a",
        "--kind",
        "openai-compatible",
        "--model",
        "a",
        "--base-url",
        &mock.server.openai_base(),
    ]);
    let clause = "CareManagement_1_MedicationError";
    let r = env.json(&["author", "extract", "--policy", "mn29", "--clause", clause, "--model", "a"]);
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["extraction_id", "clause_id", "sections", "rejected_ids", "attempts"]);
    assert_eq!(r["attempts"], 2);
    assert_eq!(r["rejected_ids"], json!([]));
    assert_eq!(r["sections"][0]["section_id"], "General Recommendation 1");
    let id = r["extraction_id"].as_str().unwrap().to_string();

    // No approval without a name.
    let o = env.run(&["author", "extract", "--approve", &id]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("named person"), "{}", String::from_utf8_lossy(&o.stderr));
    let a = env.json(&["author", "extract", "--approve", &id, "--by", "Dana", "--add", "General Recommendation 2"]);
    assert_eq!(a["status"], "approved");
    assert_eq!(a["approved_by"], "Dana");
    assert_eq!(a["sections"].as_array().unwrap().len(), 2);

    let list = env.json(&["author", "list", "--clause", clause]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["status"], "approved");
    let shown = env.ok(&["author", "show", &id]);
    assert!(shown.contains("approved by Dana") && shown.contains("## Section [General Recommendation 2]"), "{shown}");

    // Drafting from the approved extraction: a reply that never passes the checks is kept with its
    // problems after three attempts, and can be rejected with a reason.
    mock.server.set_script(
        serde_json::from_value(json!({"rules": [
            {"name": "draft", "when": {"system_contains": "You draft clause cards for a patient-safety test library"},
             "reply": {"json": {"target_clause_id": clause, "clause_cards": [{"clause_card_id": "CardRep_1_CareManagement_1", "event_type": "Reportable"}]}}}
        ]}))
        .unwrap(),
    );
    let d =
        env.json(&["author", "draft", "--policy", "mn29", "--clause", clause, "--kind", "complete", "--model", "a"]);
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["draft_id", "cards", "attempts", "problems"]);
    assert_eq!(d["attempts"], 3);
    assert_eq!(d["cards"], json!(["CardRep_1_CareManagement_1"]));
    let rules: Vec<&str> = d["problems"].as_array().unwrap().iter().filter_map(|p| p["rule"].as_str()).collect();
    assert!(rules.contains(&"schema") && rules.contains(&"draft-id-taken"), "{rules:?}");
    let draft = d["draft_id"].as_str().unwrap().to_string();
    let o = env.run(&["author", "draft", "--clause", clause, "--kind", "sideways", "--model", "a"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("complete, missing or uncertain"));
    let listed = env.ok(&["author", "list", "--drafts"]);
    assert!(listed.contains(&draft) && listed.contains("failed"), "{listed}");
    let shown = env.ok(&["author", "show", &draft]);
    assert!(shown.contains("Problems:") && shown.contains("draft-id-taken"), "{shown}");
    let refused = env.run(&["author", "accept", &draft, "--by", "Dana"]);
    assert!(!refused.status.success());
    let r = env.json(&["author", "reject", &draft, "--by", "Dana", "--reason", "not a card"]);
    assert_eq!((r["status"].as_str(), r["decision_notes"].as_str()), (Some("rejected"), Some("not a card")));
}

#[test]
fn review_create_with_a_rationale_task_and_its_judge_agreement_in_stats() {
    let env = Env::new();
    env.ok(&["demo", "load"]);
    let id = "demo_CareManagement_1_MedicationError_complete_1";
    let case = env.json(&["cases", "show", id]);
    let names: Vec<String> = case["boundary_conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect();
    let line = json!({
        "run_id": "elsewhere", "model": "tested", "case_id": id, "turns": [],
        "final": {"final_verdict": "Reportable", "targeted_clause": null, "clause_and_guidance_evidence": [], "rationale": "The injury was serious and followed the error."},
        "judge": {"hits": [names[0]]}, "usage": {}
    });
    let traj = env.file("judged.jsonl", &format!("{line}\n"));
    let run = env.json(&["eval", "import", s(&traj)])["runs"][0].as_str().unwrap().to_string();
    let o =
        env.run(&["review", "create", "--name", "R", "--cases", id, "--reviewers", "Ana", "--rationale-from", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no evaluation run \"nope\""));
    let created =
        env.json(&["review", "create", "--name", "R", "--cases", id, "--reviewers", "Ana", "--rationale-from", &run]);
    assert_eq!(created["rationale_items"], 1);
    assert_eq!(created["rationale_runs"], json!([run]));
    let sid = created["summary"]["session_id"].as_str().unwrap().to_string();
    let who = ["--reviewer", "Ana", "--item", "1"];
    let answer = |extra: &[&str]| {
        let mut a = vec!["review", "answer", sid.as_str()];
        a.extend(who);
        a.extend(extra);
        env.run(&a)
    };
    assert!(answer(&["--realism", "4", "--plausibility", "4", "--verdict", "reportable"]).status.success());
    let early = answer(&["--rationale", "none"]);
    assert_eq!(early.status.code(), Some(1), "the rationale waits for the reveal");
    env.ok(&["review", "reveal", &sid, "--reviewer", "Ana", "--item", "1"]);
    assert!(answer(&["--agree", "yes"]).status.success());
    let shown = env.ok(&["review", "item", &sid, "--reviewer", "Ana", "--item", "1"]);
    assert!(shown.contains("The injury was serious") && shown.contains(&names[1]), "{shown}");
    let out = answer(&["--rationale", &names[0]]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats = env.json(&["review", "stats", &sid]);
    let pooled = &stats["rationale"]["pooled"];
    assert_eq!(pooled["kappa"]["n"], names.len());
    assert_eq!(pooled["observed_agreement"], 1.0);
    assert_eq!((pooled["both"].as_u64(), pooled["neither"].as_u64()), (Some(1), Some(names.len() as u64 - 1)));
    let text = env.ok(&["review", "stats", &sid]);
    assert!(
        text.contains("The M4 judge against reviewers")
            && text.contains(&format!("Only {}:", count(names.len(), "decision"))),
        "{text}"
    );
    assert!(text.contains("Per case type (all reviewers pooled):"), "{text}");
    assert!(stats["rationale"]["by_type"].as_array().is_some_and(|t| !t.is_empty()), "{stats}");
}

fn audit_case(id: &str, case_type: &str, verdict: &str, fact: &str) -> Value {
    json!({
      "case_id": id, "case_type": case_type, "policy": "mn29", "clause_id": "CareManagement_7_Fall",
      "clause_card_id": format!("CardCli_{id}"), "missing_variant_id": null, "gold_verdict": verdict,
      "gold_clause": if verdict == "Reportable" { json!("Care Management Events clause 7") } else { Value::Null },
      "gold_legal_basis": ["Care Management Events clause 7"], "boundary_conditions": [],
      "elements": [{"name": "fall_description", "meaning": "How the patient fell.", "value": fact}],
      "masked_elements": [], "narrative": format!("Ward notes. {fact}"), "anchor_id": null
    })
}

fn audit_script() -> psebench::mock::Script {
    let screen = "You screen one event's facts";
    let met = |c: &[&str]| {
        json!({"clauses_met": c.iter().map(|x| json!({"clause_id": x, "why": "in the facts"})).collect::<Vec<_>>(),
               "open_question": {"present": false, "section_id": null, "why": null},
               "verdict": if c.is_empty() { "Non-reportable" } else { "Reportable" }})
    };
    let open = json!({"clauses_met": [], "open_question": {"present": true, "section_id": "Care Management Event Recommendation 5", "why": "lowering"}, "verdict": "Uncertain"});
    serde_json::from_value(json!({
        "rules": [
            {"name": "loose-n1", "when": {"model": "loose", "system_contains": screen, "last_user_contains": "FACT-NON1"}, "reply": {"json": met(&["Environmental_3_Burn"])}},
            {"name": "loose-u1", "when": {"model": "loose", "system_contains": screen, "last_user_contains": "FACT-UNC"}, "reply": {"json": met(&["CareManagement_7_Fall"])}},
            {"name": "rep", "when": {"system_contains": screen, "last_user_contains": "FACT-REP"}, "reply": {"json": met(&["CareManagement_7_Fall"])}},
            {"name": "non", "when": {"system_contains": screen, "last_user_contains": "FACT-NON"}, "reply": {"json": met(&[])}},
            {"name": "unc", "when": {"system_contains": screen, "last_user_contains": "FACT-UNC"}, "reply": {"json": open}}
        ]
    }))
    .unwrap()
}

#[test]
fn cases_screen_reports_the_labels_a_majority_of_models_dispute() {
    let env = Env::new();
    let mock = start_mock(audit_script());
    let base = mock.server.openai_base();
    for m in ["strict", "loose"] {
        env.ok(&["models", "add", m, "--kind", "openai-compatible", "--model", m, "--base-url", &base]);
    }
    let cases = [
        audit_case("r1", "complete", "Reportable", "FACT-REP found on the floor with a hip fracture"),
        audit_case("n1", "complete", "Non-reportable", "FACT-NON1 caught by a nurse; a hot-pack burn was noticed"),
        audit_case("u1", "uncertain", "Uncertain", "FACT-UNC lowered to the floor by two aides"),
    ];
    let text: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let f = env.file("audit.jsonl", &text);
    assert_eq!(env.json(&["cases", "import", s(&f)])["imported"], 3);

    let plan = env.json(&["cases", "screen", "--cases", "all", "--models", "strict,loose", "--plan"]);
    assert_eq!((plan["cases"].clone(), plan["calls"].clone()), (json!(3), json!(6)));

    let out = env.json(&["cases", "screen", "--cases", "all", "--models", "strict,loose"]);
    let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
    assert_eq!(keys, vec!["screened", "agree", "disputed"]);
    assert_eq!((out["screened"].clone(), out["agree"].clone()), (json!(3), json!(1)));
    assert_eq!(
        out["disputed"],
        json!([
            {"case_id": "n1", "label": "Non-reportable", "verdicts": {
                "strict": {"verdict": "Non-reportable", "clauses_met": [], "open_question": false, "agrees": true},
                "loose": {"verdict": "Reportable", "clauses_met": ["Environmental_3_Burn"], "open_question": false, "agrees": false}}},
            {"case_id": "u1", "label": "Uncertain", "verdicts": {
                "strict": {"verdict": "Uncertain", "clauses_met": [], "open_question": true, "agrees": true},
                "loose": {"verdict": "Reportable", "clauses_met": ["CareManagement_7_Fall"], "open_question": false, "agrees": false}}}
        ])
    );

    let human = env.ok(&["cases", "screen", "--cases", "type:Non-reportable", "--models", "strict,loose"]);
    assert!(human.contains("DISPUTED") && human.contains("n1"), "{human}");
    assert!(human.contains("a majority disputes 1 (100.0%)") && human.contains("a tie"), "{human}");
    let o = env.run(&["cases", "screen", "--cases", "nope", "--models", "strict"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("neither a stored case id"));
}

#[test]
fn cases_export_dataset_writes_a_folder_and_refuses_both_outputs_at_once() {
    let env = Env::new();
    env.ok(&["demo", "load"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ds");
    let r = env.json(&["cases", "export", "--dataset", out.to_str().unwrap(), "--type", "uncertain"]);
    assert_eq!(r["counts"]["uncertain"], 30);
    assert_eq!(r["counts"]["complete"], 0);
    assert!(out.join("data/uncertain.jsonl").exists() && out.join("README.md").exists());
    let text = env.ok(&["cases", "export", "--dataset", out.to_str().unwrap()]);
    assert!(text.contains("Fill in `license`"), "{text}");
    let o = env.run(&["cases", "export", "--dataset", "x", "--out", "y.jsonl"]);
    assert!(!o.status.success());
    let o = env.run(&["cases", "export"]);
    assert!(!o.status.success());
}

#[test]
fn anchors_presort_and_translate_run_as_jobs_that_can_be_planned_listed_and_resumed() {
    let env = Env::new();
    // No rule yet: every request is refused, so the job stops with its anchors pending.
    let mock = start_mock(psebench::mock::Script::default());
    let base = mock.server.openai_base();
    env.ok(&["models", "add", "sorter", "--kind", "openai-compatible", "--model", "s", "--base-url", &base]);
    let f = env.file(
        "new.jsonl",
        "{\"anchor_id\": \"n1\", \"text\": \"A patient slipped in the shower.\"}\n{\"anchor_id\": \"n2\", \"text\": \"患者が転倒した。\", \"language\": \"ja\"}\n",
    );
    env.ok(&["anchors", "import", s(&f)]);

    let plan = env.json(&["anchors", "presort", "--model", "sorter", "--plan"]);
    assert_eq!(
        (plan["anchors"].clone(), plan["calls"].clone(), plan["kind"].clone()),
        (json!(2), json!(2), json!("presort"))
    );
    assert_eq!(plan["sends_data_off_machine"], json!(false));
    assert_eq!(mock.server.request_count(), 0, "a plan sends nothing");

    let o = env.run(&["anchors", "presort", "--model", "sorter", "--concurrency", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("2 anchors processed, 0 changed, 2 failed") && out.contains("psebench anchors resume"),
        "{out}"
    );
    let jobs = env.json(&["anchors", "jobs"]);
    let job = &jobs[0];
    assert_eq!(
        (job["kind"].clone(), job["status"].clone(), job["pending"].clone()),
        (json!("presort"), json!("failed"), json!(2))
    );
    let run_id = job["run_id"].as_str().unwrap().to_string();
    assert!(run_id.starts_with("anchors-"));

    mock.server.set_script(
        serde_json::from_value(json!({"rules": [
            {"when": {"system_contains": "You sort short healthcare incident texts"}, "reply": {"json": {"clause_id": "CareManagement_7_Fall", "reason": "a fall"}}},
            {"when": {"system_contains": "You translate healthcare incident reports"}, "reply": {"json": {"translation": "The patient fell."}}}
        ]}))
        .unwrap(),
    );
    let resumed = env.json(&["anchors", "resume", &run_id]);
    assert_eq!(
        (resumed["processed"].clone(), resumed["changed"].clone(), resumed["failed"].clone()),
        (json!(2), json!(2), json!(0))
    );
    assert_eq!(env.json(&["anchors", "show", "n1"])["clause_id"], "CareManagement_7_Fall");
    let human = env.ok(&["anchors", "jobs"]);
    assert!(human.contains(&run_id) && human.contains("completed") && human.contains("2/2"), "{human}");

    let t = env.json(&["anchors", "translate", "--model", "sorter"]);
    assert_eq!((t["processed"].clone(), t["changed"].clone()), (json!(1), json!(1)));
    let n2 = env.json(&["anchors", "show", "n2"]);
    assert_eq!(
        (n2["text"].clone(), n2["original_text"].clone()),
        (json!("The patient fell."), json!("患者が転倒した。"))
    );
    assert_eq!(env.json(&["anchors", "jobs"]).as_array().unwrap().len(), 2);
}

#[test]
fn eval_run_plan_prints_the_requests_in_flight_per_endpoint() {
    let env = Env::new();
    let mock = start_mock(eval_script());
    let base = mock.server.openai_base();
    // Registered without --concurrency: the endpoint's default limit is 8.
    env.ok(&["models", "add", "m", "--kind", "openai-compatible", "--model", "m", "--base-url", &base]);
    env.ok(&["demo", "load"]);
    let args = [
        "eval",
        "run",
        "--cases",
        "origin=demo",
        "--model",
        "m",
        "--info-model",
        "m",
        "--judge-model",
        "m",
        "--concurrency",
        "64",
        "--plan",
    ];
    let o = env.run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(
        text.contains(&format!(
            "Requests in flight at {base}: up to 64 (asked 64, model registered for 8, starting limit 64)."
        )),
        "{text}"
    );
    assert!(text.contains("lifts that to 64"), "{text}");
    let plan = env.json(&args);
    let c = &plan["concurrency"][0];
    assert_eq!(
        (c["asked"].as_u64(), c["registered_limit"].as_u64(), c["effective_limit"].as_u64()),
        (Some(64), Some(8), Some(64))
    );
    assert_eq!(c["bound_by"], "run");
    // Only a plan: no run was created and no model was called.
    assert_eq!(env.json(&["eval", "list"]).as_array().unwrap().len(), 0);
    assert_eq!(mock.server.request_count(), 0);
}

/// The columns of the first data row of the table whose header line starts with `first_header`,
/// by header name.
fn table_row(out: &str, first_header: &str) -> std::collections::HashMap<String, String> {
    let mut lines = out.lines().skip_while(|l| !l.starts_with(first_header));
    let headers: Vec<String> = lines.next().unwrap().split_whitespace().map(str::to_string).collect();
    let row: Vec<String> = lines.nth(1).unwrap().split_whitespace().map(str::to_string).collect();
    headers.into_iter().zip(row).collect()
}

/// "Answered" is one number everywhere: the CLI's metrics table shows under ANSWERED exactly
/// what the app's leaderboard shows under "Answered" (cases with a readable verdict, from
/// `metrics.runs`), and cases with a trajectory are TRANSCRIPTS.
#[test]
fn the_metrics_table_and_the_leaderboard_mean_the_same_by_answered() {
    let (env, _mock) = env_with_demo_and_mock_models();
    let args = ["--model", "m", "--info-model", "info", "--judge-model", "judge", "--json"];
    let out = env.ok(&[&["eval", "run", "--cases", "origin=demo,type=complete,limit=5"][..], &args[..]].concat());
    let run_id = serde_json::from_str::<Value>(&out).unwrap()["run_id"].as_str().unwrap().to_string();
    // Two of the five transcripts lose their final answer: transcripts 5, answered 3.
    let traj = env.dir.path().join("t.jsonl");
    env.ok(&["eval", "export", &run_id, "--out", s(&traj)]);
    let lines: Vec<String> = std::fs::read_to_string(&traj)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["run_id"] = json!("unreadable");
            if i < 2 {
                v["final"] = Value::Null;
            }
            v.to_string()
        })
        .collect();
    let edited = env.file("edited.jsonl", &(lines.join("\n") + "\n"));
    let imported = env.json(&["eval", "import", s(&edited)]);
    let run = imported["runs"][0].as_str().unwrap().to_string();

    let table = table_row(&env.ok(&["metrics", "--run", &run, "--bootstrap", "0"]), "MODEL");
    let leaderboard = {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let e = psebench::api::Engine::open(&env.db()).unwrap();
        let owner = psebench::api::rpc::Caller::Owner;
        rt.block_on(psebench::api::rpc::call(&e, &owner, "metrics.runs", json!({"run_ids": [run]}))).unwrap()
    };
    let m = &leaderboard["models"][0];
    let answered = m["cases"].as_u64().unwrap() - m["no_verdict"].as_u64().unwrap();
    assert_eq!(answered, 3);
    assert_eq!(table["ANSWERED"], answered.to_string(), "the leaderboard's Answered is the table's ANSWERED");
    assert_eq!(table["TRANSCRIPTS"], m["trajectories"].to_string());
    assert_eq!(table["CASES"], "5");

    // Scored against all 30 complete demo cases: 25 have no transcript, and still 3 are answered.
    let cases_file = env.dir.path().join("c.jsonl");
    env.ok(&["cases", "export", "--out", s(&cases_file), "--type", "complete"]);
    let out = env.ok(&["metrics", "--cases", s(&cases_file), "--trajectories", s(&edited), "--bootstrap", "0"]);
    let files = table_row(&out, "MODEL");
    assert_eq!((files["CASES"].as_str(), files["TRANSCRIPTS"].as_str(), files["ANSWERED"].as_str()), ("30", "5", "3"));
    assert!(out.contains("ANSWERED = cases with a readable verdict"), "{out}");
}

/// `models test` makes one request and says what is wrong in a plain sentence.
#[test]
fn models_test_fails_fast_with_a_plain_sentence() {
    let env = Env::new();
    let script: psebench::mock::Script = serde_json::from_value(json!({
        "require_key": "the-right-key",
        "rules": [{"name": "any", "reply": {"text": "ready"}}]
    }))
    .unwrap();
    let mock = start_mock(script);
    env.ok(&[
        "models",
        "add",
        "keyed",
        "--kind",
        "openai-compatible",
        "--model",
        "x",
        "--base-url",
        &mock.server.openai_base(),
    ]);
    let o = env.run(&["models", "test", "keyed"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("The API key is wrong or missing: the server refused it (HTTP 401"), "{err}");
    assert_eq!(mock.server.request_count(), 1, "one attempt, not the run-time retry policy");

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    env.ok(&["models", "add", "down", "--kind", "openai-compatible", "--model", "x", "--base-url", &url]);
    let o = env.run(&["models", "test", "down"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("Nothing is listening at 127.0.0.1:{port}")), "{err}");
}

#[test]
fn review_links_show_a_serve_command_that_names_the_store_quoted() {
    let env = Env::new();
    let folder = env.dir.path().join("My studies");
    std::fs::create_dir_all(&folder).unwrap();
    let db = folder.join("store.db");
    let db_arg = db.display().to_string();
    let with_db = |args: &[&str]| {
        let mut a = vec!["--db", db_arg.as_str()];
        a.extend_from_slice(args);
        env.run(&a)
    };
    assert!(with_db(&["demo", "load"]).status.success());
    let created =
        with_db(&["--json", "review", "create", "--name", "Spaces", "--sample", "1,1,1", "--reviewers", "Ana"]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let sid = serde_json::from_slice::<Value>(&created.stdout).unwrap()["summary"]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let o = with_db(&["review", "links", &sid]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed = String::from_utf8_lossy(&o.stdout);
    #[cfg(unix)]
    let expected = format!("psebench --db '{db_arg}' serve --review {sid} --lan --port 8766");
    #[cfg(windows)]
    let expected = format!("psebench --db \"{db_arg}\" serve --review {sid} --lan --port 8766");
    assert!(printed.contains(&expected), "{printed}");
}
