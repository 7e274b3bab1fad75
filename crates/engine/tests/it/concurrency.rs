//! A run asking for more requests in flight than its model was registered for gets them (the
//! mock sees them at once), says so in its plan and progress, and a burst of rate-limit replies
//! still cuts the limit, visibly.

use psebench::api::models::ModelAddRequest;
use psebench::evaluation::EvaluationRunRequest;
use psebench::jobs::concurrency::{ConcurrencyBound, ALLOWED, CEILING, CUTS, IN_FLIGHT};
use psebench::jobs::Progress;
use psebench::mock::{Fault, MockServer, Reply, Rule, Script, When};
use serde_json::json;

/// Every model turn answers at once; the judge finds nothing. Every reply takes `latency_ms`.
fn script(latency_ms: u64, rate_limited_first: usize) -> Script {
    let answer = json!({
        "action": "ANSWER", "ask_question": null, "final_verdict": "Reportable",
        "targeted_clause": null, "clause_and_guidance_evidence": [], "rationale": "An answer."
    });
    let judge = Rule {
        name: Some("judge".into()),
        when: When { system_contains: Some("You review the written reasoning".into()), ..Default::default() },
        reply: Some(Reply::Json { json: json!({"hits": [], "explanations": {}}) }),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    };
    let model = Rule {
        name: Some("model".into()),
        when: When::default(),
        reply: Some(Reply::Json { json: answer }),
        replies: vec![],
        fail_first: vec![Fault::RateLimit { retry_after_secs: Some(0.02) }; rate_limited_first],
        latency_ms: None,
        usage: None,
    };
    Script { latency_ms, rules: vec![judge, model], ..Default::default() }
}

/// A model registered without any concurrency option (the default endpoint limit, 8).
fn register(e: &psebench::api::Engine, mock: &MockServer) -> psebench::llm::ModelConfig {
    e.model_add(&ModelAddRequest {
        name: "plain".into(),
        kind: "openai-compatible".into(),
        model: "plain-id".into(),
        base_url: Some(mock.openai_base()),
        ..Default::default()
    })
    .unwrap();
    e.model_get("plain").unwrap().config
}

fn request(concurrency: u32) -> EvaluationRunRequest {
    EvaluationRunRequest {
        cases: "origin=demo".into(),
        model: "plain".into(),
        info_model: "plain".into(),
        judge_model: "plain".into(),
        turns: 10,
        concurrency,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_lifts_the_endpoint_limit_to_its_concurrency_and_gives_it_back() {
    // Replies slow enough that the requests stay in flight across several progress ticks even on a
    // loaded machine (CI runs the Rust tests beside the browser tests and the Windows build).
    let mock = MockServer::start_with(script(400, 0), 0, false).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    e.demo_load().unwrap();
    let cfg = register(&e, &mock);
    assert_eq!(cfg.concurrency, 8, "the default endpoint limit");

    let plan = e.evaluation_plan(&request(32)).unwrap();
    assert_eq!(plan.concurrency.len(), 1, "three roles, one endpoint: {:?}", plan.concurrency);
    let c = &plan.concurrency[0];
    assert_eq!((c.asked, c.registered_limit, c.effective_limit, c.max_in_flight), (32, 8, 32, 32));
    assert_eq!(c.bound_by, ConcurrencyBound::Run);
    assert!(c.note.contains("registered for 8") && c.note.contains("lifts that to 32"), "{}", c.note);
    assert_eq!(c.models.len(), 3);
    // A run asking for fewer than the endpoint allows is bounded by its own workers.
    let small = e.evaluation_plan(&request(4)).unwrap();
    assert_eq!((small.concurrency[0].effective_limit, small.concurrency[0].max_in_flight), (8, 4));

    let mut events = e.jobs().subscribe();
    let run = e.evaluation_create(&request(32)).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert!(mock.peak_in_flight() > 8, "the mock saw at most {} requests at once", mock.peak_in_flight());
    assert!(mock.peak_in_flight() <= 32, "never more than the run asked for: {}", mock.peak_in_flight());
    let mut seen: Vec<Progress> = Vec::new();
    while let Ok(p) = events.try_recv() {
        seen.push(p);
    }
    let running: Vec<&Progress> = seen.iter().filter(|p| p.run_id == run && p.status == "running").collect();
    assert!(!running.is_empty());
    assert!(running.iter().all(|p| p.counter(CEILING) == 32.0 && p.counter(CUTS) == 0.0));
    assert!(running.iter().any(|p| p.counter(IN_FLIGHT) > 8.0), "progress shows the requests in flight");
    // The run is over: the registered limit is back.
    let after = e.llm().endpoint_snapshot(&cfg);
    assert_eq!((after.ceiling, after.limit, after.in_flight), (8, 8, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_rate_limits_cuts_the_lifted_limit_and_progress_shows_it() {
    let mock = MockServer::start_with(script(30, 6), 0, false).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    e.demo_load().unwrap();
    register(&e, &mock);
    let mut events = e.jobs().subscribe();
    let run = e.evaluation_create(&request(32)).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    let mut seen: Vec<Progress> = Vec::new();
    while let Ok(p) = events.try_recv() {
        seen.push(p);
    }
    let running: Vec<&Progress> = seen.iter().filter(|p| p.run_id == run && p.status == "running").collect();
    let cut = running.iter().find(|p| p.counter(CUTS) >= 1.0).expect("a progress event counts the cut");
    assert!(cut.counter(ALLOWED) < 32.0, "the cut limit is shown: {:?}", cut.counters);
    assert_eq!(cut.counter(CEILING), 32.0);
}
