//! Provider faults on a fifth of all calls (the mix of `faults.rs`: 429 with Retry-After, 500, a
//! hang past the client's timeout, a malformed body, a body cut off, a reset connection) for the
//! four kinds of job beyond evaluation and generation: re-judging, "draft every clause", the label
//! audit and an anchor pre-sort job. Each, set up and run as in `kinds.rs` with one call at a
//! time, must complete and end with exactly the units of the same run without faults, having made
//! exactly the same successful calls (no call paid twice) and retried no failure more often than
//! the retry policy allows.

use serde_json::Value;
use std::time::Instant;

use crate::common_faults::{start_mock, Env, Mock};
use crate::faults::{compare_calls, seed, with_faults};
use crate::kill::{strs, Scenario};
use crate::kinds::{AnchorPresort, DraftAll, LabelAudit, Rejudge};
use crate::support::normalised;

/// The scenario's script without any latency (faults bring their own delays).
fn script(sc: &dyn Scenario) -> psebench::mock::Script {
    let mut v = sc.script();
    v["latency_ms"] = Value::from(0);
    for rule in v["rules"].as_array_mut().unwrap() {
        if let Some(r) = rule.as_object_mut() {
            r.remove("latency_ms");
        }
    }
    serde_json::from_value(v).unwrap()
}

/// A unit without the record of its retried failures (which only the faulty run has).
fn without_failed_attempts(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("failed_attempts");
            m.values_mut().for_each(without_failed_attempts);
        }
        Value::Array(a) => a.iter_mut().for_each(without_failed_attempts),
        _ => {}
    }
}

/// Set up, run to the end without interruption, and export: the units, normalised, and seconds.
fn run_once(sc: &dyn Scenario, mock: &Mock) -> (Vec<Value>, f64) {
    let env = Env::new();
    sc.setup(&env, &mock.server.openai_base());
    let args = sc.start_args(&env);
    let started = Instant::now();
    let out: Value = serde_json::from_str(&env.ok(&strs(&args))).unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert!(sc.completed(&env, &out), "{}: {out}", sc.name());
    let run = sc.run_id(&env).unwrap();
    let mut units = normalised(&sc.export(&env, &run), &[&run]);
    units.iter_mut().for_each(without_failed_attempts);
    (units, seconds)
}

fn with_a_fifth_failing(sc: &dyn Scenario) {
    let clean_mock = start_mock(script(sc));
    let (clean, clean_s) = run_once(sc, &clean_mock);
    let faulty_mock = start_mock(with_faults(script(sc), seed()));
    let (faulty, faulty_s) = run_once(sc, &faulty_mock);
    assert!(!clean.is_empty(), "{}: the run committed nothing", sc.name());
    if faulty != clean {
        let dump = |v: &[Value]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n");
        let dir = std::env::temp_dir();
        std::fs::write(dir.join(format!("chaos-faults-{}-clean.jsonl", sc.name())), dump(&clean)).unwrap();
        std::fs::write(dir.join(format!("chaos-faults-{}-faulty.jsonl", sc.name())), dump(&faulty)).unwrap();
        panic!("{}: the units differ between the faulty and the clean run (both in {})", sc.name(), dir.display());
    }
    let (calls, failed, kinds) = compare_calls(&clean_mock, &faulty_mock, true);
    assert!(failed > 0, "{}: no fault was drawn in {calls} calls", sc.name());
    eprintln!(
        "chaos-faults {}: {} units, {calls} answered calls, {failed} failed attempts {kinds:?}; clean run {clean_s:.2} s, faulty run {faulty_s:.2} s",
        sc.name(),
        clean.len()
    );
}

#[test]
fn a_rejudging_with_a_fifth_of_calls_failing_ends_like_the_fault_free_run() {
    with_a_fifth_failing(&Rejudge);
}

#[test]
fn a_draft_every_clause_job_with_a_fifth_of_calls_failing_ends_like_the_fault_free_run() {
    with_a_fifth_failing(&DraftAll);
}

#[test]
fn a_label_audit_with_a_fifth_of_calls_failing_ends_like_the_fault_free_run() {
    with_a_fifth_failing(&LabelAudit);
}

#[test]
fn an_anchor_presort_job_with_a_fifth_of_calls_failing_ends_like_the_fault_free_run() {
    with_a_fifth_failing(&AnchorPresort);
}
