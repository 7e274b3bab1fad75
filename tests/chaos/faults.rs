//! Provider faults on a fifth of all calls: 429 with Retry-After, 500, a hang longer than the
//! client's timeout, a malformed JSON body, a body cut off mid-way and a reset connection, drawn
//! at random (seeded) by the mock provider. An evaluation run and a generation run must complete,
//! keep every retried failure on the case it happened in, stay within the retry policy's bound,
//! and end with exactly the results of the same run without faults.

use crate::common_faults::{long_run, s, start_mock, Env, Mock};
use psebench::mock::{Fault, FaultRate, Script};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Instant;

/// Share of calls that fail, spread evenly over the six kinds of fault.
const FAULT_SHARE: f64 = 0.20;

/// The mock's random seed; `CHAOS_SEED` picks another one.
pub fn seed() -> u64 {
    std::env::var("CHAOS_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1)
}

/// Attempts a single call may make: the first one plus the default policy's retries.
fn max_attempts() -> usize {
    psebench::llm::retry::RetryPolicy::default().max_retries as usize + 1
}

fn faults(seed: u64) -> (u64, Vec<FaultRate>) {
    let kinds = vec![
        Fault::RateLimit { retry_after_secs: Some(0.05) },
        Fault::ServerError,
        // The models are registered with a 1 s timeout; the mock holds these for 1.5 s.
        Fault::Timeout { hang_ms: 1_500 },
        Fault::MalformedJson,
        Fault::Truncated,
        Fault::Reset,
    ];
    // The mock tries each kind in turn, so the chance that a call fails is 1 - (1 - r)^kinds.
    let rate = 1.0 - (1.0 - FAULT_SHARE).powf(1.0 / kinds.len() as f64);
    (seed, kinds.into_iter().map(|fault| FaultRate { fault, rate }).collect())
}

pub fn with_faults(mut script: Script, seed: u64) -> Script {
    let (seed, f) = faults(seed);
    script.seed = seed;
    script.faults = f;
    script
}

/// Requests the mock saw, keyed by their exact body: (answered, failed on purpose).
fn calls_by_body(mock: &Mock) -> BTreeMap<String, (usize, usize)> {
    let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in mock.server.requests() {
        let e = m.entry(r.body.to_string()).or_default();
        if r.outcome == "ok" {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    m
}

/// The same logical calls were made with and without faults and no call failed more often than
/// the retry policy allows. With one call at a time (`strict`) each call is also answered exactly
/// as often; with several in flight, two identical calls may race past the response cache, so only
/// the set of calls is compared. Returns (answered calls, failed attempts, kinds seen).
pub fn compare_calls(clean: &Mock, faulty: &Mock, strict: bool) -> (usize, usize, BTreeMap<String, usize>) {
    let (a, b) = (calls_by_body(clean), calls_by_body(faulty));
    assert!(a.values().all(|(_, failed)| *failed == 0), "the fault-free mock failed a call");
    let answered_a: BTreeMap<_, _> = a.iter().map(|(k, v)| (k.clone(), v.0)).collect();
    let answered_b: BTreeMap<_, _> = b.iter().map(|(k, v)| (k.clone(), v.0)).collect();
    if strict {
        assert!(answered_a == answered_b, "the faulty run did not make the same successful calls as the clean one");
    } else {
        assert!(
            answered_a.keys().eq(answered_b.keys()),
            "the faulty run did not make the same successful calls as the clean one"
        );
        assert!(answered_b.values().all(|n| *n > 0), "a call of the faulty run was never answered");
    }
    for (answered, failed) in b.values() {
        assert!(
            *failed <= (max_attempts() - 1) * answered,
            "a call failed {failed} times for {answered} answers: more than the retry policy allows"
        );
    }
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for r in faulty.server.requests() {
        if r.outcome != "ok" {
            *kinds.entry(r.outcome).or_default() += 1;
        }
    }
    let failed = kinds.values().sum();
    (answered_b.values().sum(), failed, kinds)
}

fn register(env: &Env, mock: &Mock, names: &[&str]) {
    let base = mock.server.openai_base();
    for name in names {
        env.ok(&[
            "models",
            "add",
            name,
            "--kind",
            "openai-compatible",
            "--model",
            &format!("{name}-id"),
            "--base-url",
            &base,
            "--timeout",
            "1",
            "--price-in",
            "1",
            "--price-out",
            "2",
        ]);
    }
}

fn eval_script() -> Script {
    let answer = json!({
        "action": "ANSWER", "ask_question": null, "final_verdict": "Reportable",
        "targeted_clause": "Care Management Events clause 1",
        "clause_and_guidance_evidence": ["Care Management Events clause 1", "General Recommendation 1"],
        "rationale": "The facts meet the clause and the harm bar."
    });
    serde_json::from_value(json!({
        "rules": [
            {"name": "info", "when": {"system_contains": "look-up service", "last_user_regex": "- field: (\\w+)"},
             "reply": {"json": {"status": "answered", "answer_to_eval": "The record for {{1}} says so.", "fields_used": ["{{1}}"]}}},
            {"name": "judge", "when": {"system_contains": "You review the written reasoning", "last_user_regex": "- name: (\\w+)"},
             "reply": {"json": {"hits": ["{{1}}"], "explanations": {"{{1}}": "engaged"}}}},
            {"name": "ask", "when": {"model": "asker-id", "user_turns_max": 1},
             "reply": {"json": {"action": "ASK", "ask_question": "What does the first recorded field say?", "final_verdict": null, "targeted_clause": null, "clause_and_guidance_evidence": null, "rationale": null}}},
            {"name": "answer", "when": {"model": "asker-id"}, "reply": {"json": answer}}
        ]
    }))
    .unwrap()
}

struct EvaluationOutcome {
    run_id: String,
    metrics: Value,
    trajectories: Vec<Value>,
    seconds: f64,
}

fn eval_once(env: &Env, mock: &Mock, cases: usize, concurrency: u32) -> EvaluationOutcome {
    register(env, mock, &["asker", "info", "judge"]);
    env.ok(&["demo", "load"]);
    let started = Instant::now();
    let summary = env.json(&[
        "eval",
        "run",
        "--cases",
        &format!("origin=demo,limit={cases}"),
        "--model",
        "asker",
        "--info-model",
        "info",
        "--judge-model",
        "judge",
        "--concurrency",
        &concurrency.to_string(),
    ]);
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(summary["status"], "completed", "{summary}");
    assert_eq!(summary["counts"]["done"], cases as u64, "{summary}");
    assert_eq!(summary["counts"]["with_errors"], 0, "{summary}");
    let run_id = summary["run_id"].as_str().unwrap().to_string();
    let metrics = env.json(&["metrics", "--run", &run_id]);
    let out = env.path("run.jsonl");
    env.ok(&["eval", "export", &run_id, "--out", s(&out)]);
    let trajectories =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    EvaluationOutcome { run_id, metrics, trajectories, seconds }
}

/// A JSON value with one run id replaced by a fixed word, so two runs can be compared.
fn without_run_id(v: &Value, run_id: &str) -> Value {
    serde_json::from_str(&v.to_string().replace(run_id, "RUN")).unwrap()
}

/// The failed attempts a turn (eval, info) or judgement noted.
fn noted(extra: &Value) -> usize {
    extra.get("failed_attempts").and_then(Value::as_array).map(Vec::len).unwrap_or(0)
}

#[test]
fn an_evaluation_with_a_fifth_of_calls_failing_ends_like_the_fault_free_run() {
    // CI: one case at a time, so the two runs make exactly the same calls; long: four at a time.
    let (cases, concurrency) = if long_run() { (60, 4) } else { (16, 1) };
    let clean_mock = start_mock(eval_script());
    let clean = eval_once(&Env::new(), &clean_mock, cases, concurrency);
    let faulty_mock = start_mock(with_faults(eval_script(), seed()));
    let faulty = eval_once(&Env::new(), &faulty_mock, cases, concurrency);

    // The metrics are those of the run without faults.
    assert_eq!(
        without_run_id(&faulty.metrics, &faulty.run_id),
        without_run_id(&clean.metrics, &clean.run_id),
        "metrics differ between the faulty and the clean run"
    );
    let (calls, failed, kinds) = compare_calls(&clean_mock, &faulty_mock, concurrency == 1);
    assert!(failed * 100 >= calls * 10, "too few faults to mean anything: {failed} of {calls} calls");
    if !long_run() {
        assert_eq!(kinds.len(), 6, "every kind of fault was drawn at least once: {kinds:?}");
    }

    // Every retried failure is on its case: per turn and judgement, and summed per trajectory.
    let mut on_cases = 0;
    for t in &faulty.trajectories {
        let mut per_case = 0;
        for turn in t["turns"].as_array().unwrap() {
            let n = noted(turn);
            assert!(n < max_attempts(), "a turn noted {n} failed attempts");
            per_case += n;
        }
        if let Some(j) = t.get("judge").filter(|j| !j.is_null()) {
            per_case += noted(j);
        }
        let total = t.get("failed_attempts").and_then(Value::as_u64).unwrap_or(0) as usize;
        assert_eq!(total, per_case, "case {}: the trajectory's total disagrees with its turns", t["case_id"]);
        on_cases += per_case;
    }
    assert_eq!(on_cases, failed, "every failure the mock produced is recorded on a case");
    eprintln!(
        "chaos-faults eval: {cases} cases, {concurrency} at a time, {calls} answered calls, {failed} failed attempts {kinds:?}; \
         clean run {:.2} s, faulty run {:.2} s",
        clean.seconds, faulty.seconds
    );
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
          "chaos_fall_in_care": {"value": true, "meaning": "The patient fell under the facility's care.", "corresponding_basic_event_elements": ["fall_description"]},
          "chaos_serious_injury": {"value": true, "meaning": "The fall seriously injured the patient.", "corresponding_basic_event_elements": ["injury_outcome"]}
        }
      },
      "basic_event_elements": {
        "fall_description": {"field_type": "string", "meaning": "How and where the patient fell.", "allowed_content": "a", "disallowed_content": "b"},
        "injury_outcome": {"field_type": "string", "meaning": "The injury and its course.", "allowed_content": "a", "disallowed_content": "b"}
      },
      "constraints_on_basic_event_elements_instantiation": [],
      "missing_information_variants": [{
        "missing_variant_id": "missing_injury", "summary": "The fall without the injury.",
        "masked_boundary_conditions": ["chaos_serious_injury"], "masked_basic_event_elements": ["injury_outcome"],
        "why_reasonable_in_real_world": "Filed before imaging.", "why_not_classifiable_from_remaining_event_description": "Fits a no-harm fall card too."
      }]
    })
}

fn generation_script() -> Script {
    let narrative = "Night shift on the surgical ward. At 02:30 the patient was found on the floor next to the bed after getting up alone ({{1}});";
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
            {"name": "mver", "when": {"system_contains": "intentionally incomplete"}, "reply": {"json": {"per_bc_check": [{"boundary_condition": "chaos_serious_injury", "leak_verdict": "indeterminate", "evidence_phrase": null, "explanation": "open"}], "pass": true, "issues": []}}}
        ]
    }))
    .unwrap()
}

struct GenerationOutcome {
    run_id: String,
    summary: Value,
    cases: String,
    /// Failed attempts noted on the stored calls of the run's candidates.
    noted: usize,
}

fn generate_once(env: &Env, mock: &Mock, anchors: usize, concurrency: u32) -> GenerationOutcome {
    register(env, mock, &["w"]);
    let card = env.file("cards/c.json", &serde_json::to_string_pretty(&generation_card()).unwrap());
    env.ok(&["cards", "import", s(&card)]);
    env.ok(&["cards", "audit", "CardRep_91_CareManagement_7", "--status", "approved", "--auditor", "T"]);
    let lines: String = (0..anchors)
        .map(|i| {
            format!(
                "{}\n",
                json!({"anchor_id": format!("chaos-{i}"), "text": format!("Patient number {i} slipped on ward {i} and hit the floor."), "source": "chaos"})
            )
        })
        .collect();
    let f = env.file("anchors.jsonl", &lines);
    env.ok(&["anchors", "import", s(&f), "--clause", "CareManagement_7_Fall"]);
    let summary = env.json(&[
        "generate",
        "--cards",
        "CardRep_91_CareManagement_7",
        "--anchors-per-card",
        &anchors.to_string(),
        "--model",
        "w",
        "--anchors-from",
        "imported",
        "--concurrency",
        &concurrency.to_string(),
    ]);
    assert_eq!(summary["status"], "completed", "{summary}");
    let run_id = summary["run_id"].as_str().unwrap().to_string();
    let out = env.path("cases.jsonl");
    env.ok(&["cases", "export", "--out", s(&out), "--clause", "CareManagement_7_Fall"]);
    let cases = std::fs::read_to_string(&out).unwrap().replace(&run_id, "RUN");
    let store = psebench::store::Store::open(&env.db()).unwrap();
    let requests: Vec<String> = store
        .with_conn(|c| {
            // The call ledger keeps each call's failed tries as a JSON list of their own.
            let mut st =
                c.prepare("SELECT failed_attempts FROM llm_calls WHERE run_id = ?1 AND failed_attempts IS NOT NULL")?;
            let rows = st.query_map([&run_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
            Ok::<_, psebench::ApiError>(rows)
        })
        .unwrap();
    let noted =
        requests.iter().map(|r| serde_json::from_str::<Value>(r).unwrap().as_array().map(Vec::len).unwrap_or(0)).sum();
    GenerationOutcome { run_id, summary, cases, noted }
}

#[test]
fn a_generation_run_with_a_fifth_of_calls_failing_ends_like_the_fault_free_run() {
    let (anchors, concurrency) = if long_run() { (20, 4) } else { (4, 1) };
    let clean_mock = start_mock(generation_script());
    let clean = generate_once(&Env::new(), &clean_mock, anchors, concurrency);
    let faulty_mock = start_mock(with_faults(generation_script(), seed()));
    let faulty = generate_once(&Env::new(), &faulty_mock, anchors, concurrency);

    let counts = |o: &GenerationOutcome| {
        let mut c = without_run_id(&o.summary["counts"], &o.run_id);
        if concurrency > 1 {
            // Identical calls in flight together may both miss the response cache, which moves
            // the cache and token figures from run to run with or without faults.
            for k in ["cache_hits", "input_tokens", "output_tokens", "cost_usd"] {
                c.as_object_mut().unwrap().remove(k);
            }
        }
        c
    };
    assert_eq!(counts(&faulty), counts(&clean));
    assert_eq!(clean.summary["counts"]["accepted"], json!(anchors * 2), "{}", clean.summary);
    assert!(faulty.cases == clean.cases, "the generated cases differ between the faulty and the clean run");
    let (calls, failed, kinds) = compare_calls(&clean_mock, &faulty_mock, concurrency == 1);
    assert!(failed > 0, "no fault was drawn in {calls} calls");
    assert_eq!(clean.noted, 0);
    assert_eq!(faulty.noted, failed, "every failure the mock produced is kept with its call");
    eprintln!("chaos-faults generation: {anchors} anchors, {calls} answered calls, {failed} failed attempts {kinds:?}");
}
