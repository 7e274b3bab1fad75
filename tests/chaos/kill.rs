//! kill -9 at seeded random moments of a generation run and of an evaluation run (the mock
//! answering after 20 ms), each time resumed by a new process, then finished. Checked: nothing a
//! killed process had committed is lost or redone, no call is paid twice except the one in flight
//! at a kill, and the final export equals an uninterrupted run's apart from times and run ids.

use serde_json::{json, Value};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{kill9, normalised, repeated_bodies, s, Env, MockProcess, Rng};

pub const LATENCY_MS: u64 = 20;

fn kill_points() -> usize {
    if crate::support::long() {
        10
    } else {
        3
    }
}

fn seed() -> u64 {
    std::env::var("CHAOS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(13)
}

pub fn eval_script() -> Value {
    let answer = r#"{"action": "ANSWER", "ask_question": null, "final_verdict": "Non-reportable", "targeted_clause": null, "clause_and_guidance_evidence": ["Care Management Events clause 1"], "rationale": "The harm stayed below the reporting threshold."}"#;
    json!({
        "latency_ms": LATENCY_MS,
        "rules": [
            {"name": "info", "when": {"system_contains": "look-up service"}, "reply": {"json": {"status": "unknown", "answer_to_eval": "The record does not say.", "fields_used": []}}},
            {"name": "judge", "when": {"system_contains": "You review the written reasoning", "last_user_regex": "- name: (\\w+)"}, "reply": {"json": {"hits": ["{{1}}"], "explanations": {}}}},
            {"name": "ask", "when": {"user_turns_max": 1}, "reply": {"json": {"action": "ASK", "ask_question": "What was the outcome for the patient?", "final_verdict": null, "targeted_clause": null, "clause_and_guidance_evidence": null, "rationale": null}}},
            {"name": "model", "reply": {"text": answer}}
        ]
    })
}

fn generation_card() -> Value {
    json!({
      "clause_card_id": "CardRep_93_CareManagement_7",
      "clause_card_definition": "A patient in the facility's care falls and the fall causes a serious injury.",
      "clause_id": "CareManagement_7_Fall",
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "A fall with serious injury.", "value": ["Care Management Events clause 7"]},
        "boundary_conditions": {
          "chaos_fall_in_care": {"value": true, "meaning": "The fall happened under the facility's care.", "corresponding_basic_event_elements": ["fall_description"]},
          "chaos_serious_injury": {"value": true, "meaning": "The fall injured the patient seriously.", "corresponding_basic_event_elements": ["injury_outcome"]}
        }
      },
      "basic_event_elements": {
        "fall_description": {"field_type": "string", "meaning": "Where and how the fall happened.", "allowed_content": "a", "disallowed_content": "b"},
        "injury_outcome": {"field_type": "string", "meaning": "The injury and what followed.", "allowed_content": "a", "disallowed_content": "b"}
      },
      "constraints_on_basic_event_elements_instantiation": [],
      "missing_information_variants": [{
        "missing_variant_id": "missing_injury", "summary": "The fall, without the injury.",
        "masked_boundary_conditions": ["chaos_serious_injury"], "masked_basic_event_elements": ["injury_outcome"],
        "why_reasonable_in_real_world": "Reported before any imaging was done.", "why_not_classifiable_from_remaining_event_description": "A fall without harm fits another card."
      }]
    })
}

fn generation_script() -> Value {
    let story = "Late evening on the orthopaedic ward. The patient was found beside the chair after standing up without help; {{1}}";
    json!({
        "latency_ms": LATENCY_MS,
        "rules": [
            {"name": "inst", "when": {"system_contains": "You fill in the facts"}, "reply": {"json": {"slot_values": {"fall_description": "Found beside the chair after standing up without help", "injury_outcome": "Wrist fracture set in theatre; 6 days in hospital"}}}},
            {"name": "iver", "when": {"system_contains": "strict reviewer"}, "reply": {"json": {"pass": true, "issues": []}}},
            {"name": "narr", "when": {"system_contains": "You write the free-text description", "last_user_regex": "# Anchor\\s+(\\S+ \\S+)"}, "reply": {"json": {"event_narrative": format!("{story} imaging showed a wrist fracture, set the same night.")}}},
            {"name": "mnarr", "when": {"system_contains": "You write the first, incomplete report", "last_user_regex": "# Anchor\\s+(\\S+ \\S+)"}, "reply": {"json": {"event_narrative": format!("PARTIAL {story} staff helped the patient back to the chair.")}}},
            {"name": "extr-m", "when": {"system_contains": "You read a description", "last_user_contains": "PARTIAL"}, "reply": {"json": {"slot_values": {"fall_description": "found beside the chair", "injury_outcome": null}}}},
            {"name": "extr", "when": {"system_contains": "You read a description"}, "reply": {"json": {"slot_values": {"fall_description": "found beside the chair", "injury_outcome": "wrist fracture"}}}},
            {"name": "nver", "when": {"system_contains": "kept the facts"}, "reply": {"json": {"pass": true, "issues": []}}},
            {"name": "screen", "when": {"system_contains": "You screen one event's facts"}, "reply": {"json": {"clauses_met": [{"clause_id": "CareManagement_7_Fall", "why": "a fall in care with a fracture"}], "open_question": {"present": false, "section_id": null, "why": null}, "verdict": "Reportable"}}},
            {"name": "mver", "when": {"system_contains": "intentionally incomplete"}, "reply": {"json": {"per_bc_check": [{"boundary_condition": "chaos_serious_injury", "leak_verdict": "indeterminate", "evidence_phrase": null, "explanation": "open"}], "pass": true, "issues": []}}}
        ]
    })
}

/// One kind of run, as the chaos loop (and the provider-fault runs of `faults_kinds`) drive it.
pub trait Scenario {
    fn name(&self) -> &'static str;
    fn script(&self) -> Value;
    /// Models registered at the mock's `base` URL and whatever the run works on.
    fn setup(&self, env: &Env, base: &str);
    /// Arguments that create and execute a new run (or, for a kind that works on an existing
    /// run such as re-judging, execute it).
    fn start_args(&self, env: &Env) -> Vec<String>;
    /// The group of subcommands (`eval` or `generate`) with `list`, `show` and `resume`.
    fn group(&self) -> &'static str;
    /// How many model calls the run keeps in flight at once: that many of the newest requests
    /// before a kill may have been unanswered when it came, and may be asked again.
    fn calls_in_flight(&self) -> u64 {
        1
    }
    /// The run the start command made, once it exists (default: the newest of `GROUP list`).
    fn run_id(&self, env: &Env) -> Option<String> {
        let list = env.json(&[self.group(), "list"]);
        list.as_array()?.first()?.get("run_id")?.as_str().map(str::to_string)
    }
    /// Arguments that go on with a killed run (default: `GROUP resume RUN`). A kind without a
    /// resume subcommand resumes by its own means.
    fn resume_args(&self, run: &str) -> Vec<String> {
        vec![self.group().to_string(), "resume".into(), run.to_string(), "--json".into()]
    }
    /// Whether a command's JSON output (it exited 0) says the run is complete.
    fn completed(&self, _env: &Env, out: &Value) -> bool {
        out["status"] == "completed"
    }
    /// Every unit the run committed, one JSON object per line.
    fn export(&self, env: &Env, run: &str) -> String;
}

/// The arguments as `&str`, for `Env::ok` and `Env::command`.
pub fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

struct Eval;

impl Scenario for Eval {
    fn name(&self) -> &'static str {
        "evaluation"
    }
    fn script(&self) -> Value {
        eval_script()
    }
    fn setup(&self, env: &Env, base: &str) {
        for name in ["m", "info", "judge"] {
            env.ok(&["models", "add", name, "--kind", "openai-compatible", "--model", name, "--base-url", base]);
        }
        env.ok(&["demo", "load"]);
    }
    fn start_args(&self, _env: &Env) -> Vec<String> {
        let limit = if crate::support::long() { 40 } else { 14 };
        [
            "eval",
            "run",
            "--cases",
            &format!("origin=demo,limit={limit}"),
            "--model",
            "m",
            "--info-model",
            "info",
            "--judge-model",
            "judge",
            "--concurrency",
            "1",
            "--json",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    }
    fn group(&self) -> &'static str {
        "eval"
    }
    fn export(&self, env: &Env, run: &str) -> String {
        let out = env.path("export.jsonl");
        env.ok(&["eval", "export", run, "--out", s(&out)]);
        std::fs::read_to_string(out).unwrap()
    }
}

struct Generation;

impl Scenario for Generation {
    fn name(&self) -> &'static str {
        "generation"
    }
    fn script(&self) -> Value {
        generation_script()
    }
    fn setup(&self, env: &Env, base: &str) {
        env.ok(&["models", "add", "w", "--kind", "openai-compatible", "--model", "w", "--base-url", base]);
        let card = env.file("cards/c.json", &serde_json::to_string_pretty(&generation_card()).unwrap());
        env.ok(&["cards", "import", s(&card)]);
        env.ok(&["cards", "audit", "CardRep_93_CareManagement_7", "--status", "approved", "--auditor", "chaos"]);
        let places =
            ["bathroom", "corridor", "dining room", "lift lobby", "garden path", "day room", "x-ray suite", "car park"];
        let lines: String = places
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!("{{\"anchor_id\": \"chaos-{i}\", \"text\": \"The patient slipped in the {p} during the afternoon round.\"}}\n")
            })
            .collect();
        let f = env.file("anchors.jsonl", &lines);
        env.ok(&["anchors", "import", s(&f), "--clause", "CareManagement_7_Fall"]);
    }
    fn start_args(&self, _env: &Env) -> Vec<String> {
        let per_card = if crate::support::long() { "12" } else { "8" };
        [
            "generate",
            "--cards",
            "CardRep_93_CareManagement_7",
            "--anchors-per-card",
            per_card,
            "--model",
            "w",
            "--concurrency",
            "1",
            "--json",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    }
    fn group(&self) -> &'static str {
        "generate"
    }
    fn export(&self, env: &Env, _run: &str) -> String {
        let out = env.path("cases.jsonl");
        env.ok(&["cases", "export", "--out", s(&out)]);
        std::fs::read_to_string(out).unwrap()
    }
}

/// What the chaos loop saw, for the report.
#[derive(Debug, serde::Serialize)]
pub struct KillFigures {
    pub scenario: &'static str,
    pub kill_points: usize,
    pub killed_mid_run: usize,
    pub units: usize,
    pub lost_units: usize,
    pub requests_reference: usize,
    pub requests_chaos: usize,
    pub repeated_in_flight: usize,
    pub repeated_other: usize,
    /// Turns of the final export answered from the cache (calls answered before a kill).
    pub turns_from_cache: usize,
    pub cache_hits: u64,
    pub identical_export: bool,
    pub reference_ms: u128,
}

pub fn chaos(sc: &dyn Scenario) -> KillFigures {
    // The uninterrupted reference run.
    let ref_mock = MockProcess::start(&sc.script());
    let reference = Env::new();
    sc.setup(&reference, &ref_mock.base);
    let ref_args = sc.start_args(&reference);
    let t = Instant::now();
    let done: Value = serde_json::from_str(&reference.ok(&strs(&ref_args))).unwrap();
    let reference_ms = t.elapsed().as_millis();
    assert!(sc.completed(&reference, &done), "{done}");
    let ref_run = sc.run_id(&reference).unwrap();
    let ref_export = sc.export(&reference, &ref_run);
    let requests_reference = ref_mock.requests().len();

    // The same run, killed with SIGKILL at seeded random moments and resumed each time.
    let mock = MockProcess::start(&sc.script());
    let env = Env::new();
    sc.setup(&env, &mock.base);
    let args = sc.start_args(&env);
    let args = strs(&args);
    let mut rng = Rng::new(seed() ^ sc.name().len() as u64);
    let (mut run, mut killed_mid_run) = (None::<String>, 0);
    let mut committed: Vec<Value> = Vec::new();
    let mut last_seq_at_kill: Vec<u64> = Vec::new();
    let mut kills_left = kill_points();
    for _ in 0..kill_points() {
        let resume: Vec<String>;
        let step: Vec<&str> = match &run {
            Some(r) => {
                resume = sc.resume_args(r);
                strs(&resume)
            }
            None => args.clone(),
        };
        // A random point of the work still ahead: after the k-th answer from now, plus a random
        // part of the next call (so kills land before, during and after commits).
        let answered = mock.requests().len();
        let ahead = requests_reference.saturating_sub(answered).max(2) as u64;
        let k = answered as u64 + rng.between(1, (ahead / kills_left as u64).max(2));
        let jitter = Duration::from_millis(rng.between(0, 2 * LATENCY_MS));
        kills_left -= 1;
        let mut child = env.command(&step).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let started = Instant::now();
        let mut finished = false;
        loop {
            if child.try_wait().unwrap().is_some() {
                finished = true;
                break;
            }
            if mock.requests().len() as u64 >= k || started.elapsed() > Duration::from_secs(120) {
                std::thread::sleep(jitter);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if !finished && child.try_wait().unwrap().is_none() {
            kill9(&mut child);
            killed_mid_run += 1;
        }
        last_seq_at_kill.push(mock.requests().iter().filter_map(|r| r["seq"].as_u64()).max().unwrap_or(0));
        if run.is_none() {
            run = sc.run_id(&env);
        }
        if let Some(r) = &run {
            // What the killed process had committed: it must all be in the final export, unchanged.
            committed.extend(normalised(&sc.export(&env, r), &[r]));
        }
    }
    let run = match run {
        Some(r) => {
            let out: Value = serde_json::from_str(&env.ok(&strs(&sc.resume_args(&r)))).unwrap();
            assert!(sc.completed(&env, &out), "{out}");
            r
        }
        None => {
            let out: Value = serde_json::from_str(&env.ok(&args)).unwrap();
            assert!(sc.completed(&env, &out), "{out}");
            sc.run_id(&env).unwrap()
        }
    };
    let final_export = sc.export(&env, &run);
    let final_lines = normalised(&final_export, &[&run]);
    let lost_units = {
        let mut seen = committed.clone();
        seen.sort_by_key(|v| v.to_string());
        seen.dedup();
        seen.iter().filter(|v| !final_lines.contains(v)).count()
    };
    let requests = mock.requests();
    let repeats = repeated_bodies(&requests);
    let window = sc.calls_in_flight();
    let repeated_in_flight = repeats
        .iter()
        .filter(|(first, _)| last_seq_at_kill.iter().any(|last| *first <= *last && *first + window > *last))
        .count();
    let cache = env.json(&["cache", "stats"]);
    let figures = KillFigures {
        scenario: sc.name(),
        kill_points: kill_points(),
        killed_mid_run,
        units: final_lines.len(),
        lost_units,
        requests_reference,
        requests_chaos: requests.len(),
        repeated_in_flight,
        repeated_other: repeats.len() - repeated_in_flight,
        turns_from_cache: final_export.matches("\"cache_hit\":true").count(),
        cache_hits: cache["hits"].as_u64().or_else(|| cache["reused"].as_u64()).unwrap_or(0),
        identical_export: {
            let reference = normalised(&ref_export, &[&ref_run]);
            if final_lines != reference {
                let dump = |v: &[Value]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n");
                std::fs::write(
                    std::env::temp_dir().join(format!("chaos-{}-final.jsonl", sc.name())),
                    dump(&final_lines),
                )
                .unwrap();
                std::fs::write(
                    std::env::temp_dir().join(format!("chaos-{}-reference.jsonl", sc.name())),
                    dump(&reference),
                )
                .unwrap();
            }
            final_lines == reference
        },
        reference_ms,
    };
    eprintln!("CHAOS {}", json!({"kill": &figures}));
    assert_eq!(figures.lost_units, 0, "committed work was lost or redone: {figures:?}");
    assert_eq!(figures.repeated_other, 0, "a call answered before a kill was paid again: {figures:?}");
    assert!(figures.identical_export, "the final export differs from the uninterrupted run's: {figures:?}");
    assert!(figures.killed_mid_run >= 1, "no kill landed while the run was working: {figures:?}");
    figures
}

#[test]
fn an_evaluation_killed_at_random_moments_resumes_without_loss_or_repeated_calls() {
    chaos(&Eval);
}

#[test]
fn a_generation_killed_at_random_moments_resumes_without_loss_or_repeated_calls() {
    chaos(&Generation);
}
