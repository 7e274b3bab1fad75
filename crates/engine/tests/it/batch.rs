//! Batch mode through the mock's batch endpoints (OpenAI files + batches, Anthropic Message
//! Batches, Gemini batchGenerateContent) with the real HTTP client: an evaluation in batch mode
//! gives the same trajectories and metrics as a direct one at half the price; requests that fail
//! inside a batch, or that a batch leaves unanswered when it expires, go into the next round; a
//! run whose process died while its batches were out picks them up again without paying twice.

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::evaluation::EvaluationRunRequest;
use psebench::llm::batch::BatchSettings;
use psebench::llm::retry::RetryPolicy;
use psebench::llm::ClientOptions;
use psebench::metrics::MetricsOptions;
use psebench::mock::{BatchBehaviour, MockServer, Script};
use psebench::secrets::MemoryStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::eval::{cases_file, script, CASES};

/// Short waits, but a quiet time long enough that one round's requests (sent by concurrent case
/// tasks) still gather into one batch when the machine is loaded: with 60 ms, CI (tests beside a
/// build on two cores) once split a first round of four requests into a batch of three and one.
fn fast_batches() -> BatchSettings {
    BatchSettings {
        quiet: Duration::from_millis(300),
        max_gather: Duration::from_secs(2),
        poll: Duration::from_millis(40),
        ..BatchSettings::default()
    }
}

fn engine_at(db: &Path, secrets: Arc<MemoryStore>) -> Engine {
    let opts = EngineOptions {
        secrets,
        client: ClientOptions {
            retry: RetryPolicy { base: Duration::from_millis(2), cap: Duration::from_millis(10), ..Default::default() },
            batch: fast_batches(),
            ..Default::default()
        },
    };
    crate::common::seeded_store(db);
    Engine::open_with(db, opts).unwrap()
}

/// Register a model at the mock with a key (batch APIs need one) and, when given, prices in US$
/// per million input and output tokens.
fn add_keyed(e: &Engine, name: &str, kind: &str, model_id: &str, base: String, prices: Option<(f64, f64)>) {
    e.model_add(&ModelAddRequest {
        name: name.into(),
        kind: kind.into(),
        model: model_id.into(),
        base_url: Some(base),
        api_key: Some(format!("k-{model_id}-000000")),
        price_in: prices.map(|p| p.0),
        price_out: prices.map(|p| p.1),
        ..Default::default()
    })
    .unwrap();
}

/// The model under test on OpenAI's API, the information provider on Anthropic's, the judge on
/// Gemini's: one run exercises all three batch APIs.
fn register(e: &Engine, mock: &MockServer) {
    for (name, kind, base) in
        [("asker", "openai", mock.openai_base()), ("info", "anthropic", mock.root()), ("judge", "gemini", mock.root())]
    {
        add_keyed(e, name, kind, &format!("{name}-id"), base, Some((1.0, 2.0)));
    }
}

fn request(file: &Path, batch: bool) -> EvaluationRunRequest {
    EvaluationRunRequest {
        cases: file.display().to_string(),
        model: "asker".into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        concurrency: 2,
        batch,
        ..Default::default()
    }
}

async fn mock_batches(mock: &MockServer) -> Vec<Value> {
    let url = format!("{}/_mock/batches", mock.root());
    reqwest::get(url).await.unwrap().json::<Vec<Value>>().await.unwrap()
}

/// Verdict per case of a run.
fn verdicts(e: &Engine, run: &str) -> BTreeMap<String, Option<String>> {
    e.evaluation_trajectories(run)
        .unwrap()
        .into_iter()
        .map(|t| (t.case_id.clone(), t.predicted_verdict().map(|v| v.as_str().to_string())))
        .collect()
}

fn run_cost(e: &Engine, run: &str) -> (f64, u64, u64) {
    let totals = psebench::llm::accounting::totals_by_stage(e.store(), Some(run)).unwrap();
    let t = psebench::llm::accounting::sum(&totals);
    (t.cost_usd, t.batch_calls, t.calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evaluation_in_batch_mode_matches_the_direct_run_at_half_the_price() {
    let mut s = script();
    s.batch = BatchBehaviour { delay_ms: 80, ..Default::default() };
    let mock = MockServer::start(s, 0).await.unwrap();

    // The same cases, once directly and once in batch mode, in two stores (no shared cache).
    let dir = tempfile::tempdir().unwrap();
    let direct = engine_at(&dir.path().join("direct.db"), Arc::new(MemoryStore::default()));
    register(&direct, &mock);
    let file = cases_file(&direct, dir.path());
    let run_direct = direct.evaluation_create(&request(&file, false)).unwrap();
    assert_eq!(direct.evaluation_execute(&run_direct).await.unwrap().status, "completed");
    assert!(mock_batches(&mock).await.is_empty(), "a direct run sends no batch");
    let direct_requests = mock.request_count();

    let batched = engine_at(&dir.path().join("batch.db"), Arc::new(MemoryStore::default()));
    register(&batched, &mock);
    batched.demo_load().unwrap();
    let plan = batched.evaluation_plan(&request(&file, true)).unwrap();
    assert!(plan.batch.requested);
    assert_eq!(plan.batch.batched_models, vec!["asker", "info", "judge"]);
    assert!(plan.batch.completion_window.is_some());
    let (online, batch_usd) = (plan.estimate.usd.unwrap(), plan.estimate.usd_batch.unwrap());
    assert!((batch_usd - online / 2.0).abs() < 1e-9, "{online} vs {batch_usd}");

    let run = batched.evaluation_create(&request(&file, true)).unwrap();
    let summary = batched.evaluation_execute(&run).await.unwrap();
    assert_eq!((summary.status.as_str(), summary.counts.done), ("completed", CASES.len() as u64), "{summary:?}");

    // Every request went through a batch, none twice, and the three shapes were used.
    assert_eq!(mock.request_count() - direct_requests, direct_requests, "the same requests as the direct run");
    let batches = mock_batches(&mock).await;
    let apis: std::collections::BTreeSet<&str> = batches.iter().filter_map(|b| b["api"].as_str()).collect();
    assert_eq!(apis, ["anthropic", "gemini", "openai"].into_iter().collect());
    // The first round of the model under test is one batch with a request per case.
    let first_openai = batches.iter().find(|b| b["api"] == "openai").unwrap();
    assert_eq!(first_openai["requests"], CASES.len());
    let stored = batched.batches_list(Some(&run)).unwrap();
    assert_eq!(stored.len(), batches.len());
    assert!(stored.iter().all(|b| b.state == "ended" && b.failed == 0 && b.waiting == 0), "{stored:?}");

    // Same trajectories and metrics; half the cost, every call accounted as a batch call.
    assert_eq!(verdicts(&batched, &run), verdicts(&direct, &run_direct));
    let m_direct = direct.metrics_for_runs(std::slice::from_ref(&run_direct), &MetricsOptions::default()).unwrap();
    let m_batch = batched.metrics_for_runs(std::slice::from_ref(&run), &MetricsOptions::default()).unwrap();
    let scores = |m: &psebench::metrics::MetricsReport| {
        let v = serde_json::to_value(&m.models[0]).unwrap();
        ["m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "by_case_type"].map(|k| v[k].clone())
    };
    assert_eq!(scores(&m_batch), scores(&m_direct));
    let (cost_direct, batch_calls_direct, calls_direct) = run_cost(&direct, &run_direct);
    let (cost_batch, batch_calls, calls) = run_cost(&batched, &run);
    assert_eq!(batch_calls_direct, 0);
    assert_eq!((batch_calls, calls), (calls_direct, calls_direct));
    assert!((cost_batch - cost_direct / 2.0).abs() < 1e-9, "{cost_batch} vs {cost_direct}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_failing_inside_a_batch_or_left_by_its_expiry_go_into_the_next_round() {
    for behaviour in [
        BatchBehaviour { delay_ms: 30, fail_every: 2, fail_batches: 2, ..Default::default() },
        BatchBehaviour { delay_ms: 30, expire_batches: 1, ..Default::default() },
    ] {
        let mut s: Script = script();
        s.batch = behaviour.clone();
        let mock = MockServer::start(s, 0).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let e = engine_at(&dir.path().join("s.db"), Arc::new(MemoryStore::default()));
        register(&e, &mock);
        let file = cases_file(&e, dir.path());
        let run = e.evaluation_create(&request(&file, true)).unwrap();
        let summary = e.evaluation_execute(&run).await.unwrap();
        assert_eq!(summary.status, "completed", "{behaviour:?}: {summary:?}");
        let batches = mock_batches(&mock).await;
        let lost: u64 = batches.iter().map(|b| b["failed"].as_u64().unwrap() + b["expired"].as_u64().unwrap()).sum();
        assert!(lost > 0, "{behaviour:?}: the mock should have failed or expired some requests");
        // What failed was asked again in a later batch, and answered there.
        let answered: u64 = batches.iter().map(|b| b["answered"].as_u64().unwrap()).sum();
        let (_, batch_calls, calls) = run_cost(&e, &run);
        assert_eq!(answered, batch_calls, "{behaviour:?}");
        assert_eq!(batch_calls, calls);
        let stored = e.batches_list(Some(&run)).unwrap();
        assert!(stored.iter().any(|b| b.failed > 0), "{stored:?}");
    }
}

/// A request that fails in every round fails its call after the bounded number of rounds, with
/// a plain reason; the run stops as failed and keeps what was done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_failing_in_every_round_fails_after_the_bounded_rounds() {
    let mut s = script();
    s.batch = BatchBehaviour { delay_ms: 10, fail_every: 1, fail_batches: 100, ..Default::default() };
    let mock = MockServer::start(s, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_at(&dir.path().join("s.db"), Arc::new(MemoryStore::default()));
    register(&e, &mock);
    let file = cases_file(&e, dir.path());
    let run = e.evaluation_create(&request(&file, true)).unwrap();
    let summary = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(summary.status, "failed");
    assert_eq!(summary.counts.done, 0);
    // One batch per round for the model under test, three rounds.
    let openai = mock_batches(&mock).await.into_iter().filter(|b| b["api"] == "openai").count();
    assert_eq!(openai, 3);
    let errors: Vec<String> = e
        .store()
        .with_read(|c| {
            let mut st =
                c.prepare("SELECT last_error FROM evaluation_items WHERE run_id = ?1 AND last_error IS NOT NULL")?;
            let rows = st.query_map([&run], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
            Ok::<_, psebench::ApiError>(rows)
        })
        .unwrap();
    assert!(!errors.is_empty());
    assert!(errors[0].contains("did not answer this request in 3 rounds;"), "{}", errors[0]);
}

/// The process working on a batch-mode run dies while its batch is out. Reopening the app finds
/// the interrupted run and resumes it: the stored batch is polled again, its answers collected,
/// and no request is sent a second time.
#[test]
fn a_run_whose_process_died_with_batches_out_resumes_without_paying_twice() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let secrets = Arc::new(MemoryStore::default());
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut s = script();
    s.batch = BatchBehaviour { delay_ms: 700, ..Default::default() };
    let mock = rt.block_on(MockServer::start(s, 0)).unwrap();

    // The first process: starts the run, then dies (its runtime is dropped) once a batch is out.
    let first_rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let first = engine_at(&db, secrets.clone());
    register(&first, &mock);
    let file = cases_file(&first, dir.path());
    let run = first.evaluation_create(&request(&file, true)).unwrap();
    let (e1, r1) = (first.clone(), run.clone());
    first_rt.spawn(async move { e1.evaluation_execute(&r1).await });
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let out = first.batches_list(Some(&run)).unwrap();
        if out.iter().any(|b| b.state == "in_progress") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no batch was sent");
        std::thread::sleep(Duration::from_millis(20));
    }
    first_rt.shutdown_background();
    drop(first);
    let sent_before = mock.request_count();
    assert_eq!(sent_before, CASES.len() as u64, "the first round: one request per case");

    // Its heartbeat goes stale; the reopened app finds the run and resumes it.
    let second = engine_at(&db, secrets);
    second
        .store()
        .with_conn(|c| c.execute("UPDATE runs SET heartbeat_at = '2020-01-01T00:00:00.000Z' WHERE run_id = ?1", [&run]))
        .unwrap();
    rt.block_on(async {
        let resumed = psebench::api::rpc::resume_batch_runs(&second);
        assert_eq!(resumed, vec![run.clone()]);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let v = second.evaluation_show(&run).unwrap();
            if v.run.status == "completed" {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "the resumed run did not finish: {:?}", v.run.status);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    // The first round's batch was not sent again: every request reached the mock once.
    let batches = rt.block_on(mock_batches(&mock));
    // Two rounds of the model under test (its question, then its answer), each request in one
    // batch only: the first round's batch is not sent again. (How many batches a round takes
    // depends on timing: on a busy machine a round's requests can go out in several.)
    let batched: u64 = batches.iter().filter(|b| b["api"] == "openai").filter_map(|b| b["requests"].as_u64()).sum();
    assert_eq!(batched, 2 * CASES.len() as u64, "{batches:?}");
    let asker_requests = mock.requests().iter().filter(|r| r.model == "asker-id").count();
    assert_eq!(asker_requests, 2 * CASES.len(), "two turns per case, each asked once");
    assert_eq!(second.evaluation_show(&run).unwrap().counts.done, CASES.len() as u64);
    assert!(second.batch_runs_to_resume().unwrap().is_empty());
}

/// A generation run in batch mode makes the same cases as the same run made directly: each stage's
/// requests of every card-and-anchor pair go out together as one batch per round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generation_run_in_batch_mode_makes_the_same_cases_as_a_direct_one() {
    use crate::generation::{cases_of, request, script_with, setup, REP, UNC};
    let mut outcomes = Vec::new();
    for batch in [false, true] {
        let mut s = script_with(vec![]);
        s.batch = BatchBehaviour { delay_ms: 20, ..Default::default() };
        let mock = MockServer::start(s, 0).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        // The store with the approved test cards, reopened with batch timing fit for a test.
        drop(setup(dir.path(), &mock));
        let e = engine_at(&dir.path().join("s.db"), Arc::new(MemoryStore::default()));
        for name in ["writer", "checker"] {
            add_keyed(&e, &format!("b{name}"), "openai", &format!("{name}-id"), mock.openai_base(), Some((1.0, 4.0)));
        }
        let mut req = request(&format!("{REP},{UNC}"), 3);
        req.model = "bwriter".into();
        req.verifier_model = Some("bchecker".into());
        req.batch = batch;
        let plan = e.generation_plan(&req).unwrap();
        assert_eq!(plan.batch.requested, batch);
        assert!(plan.estimate.usd_batch.unwrap() < plan.estimate.usd.unwrap());
        let run = e.generation_create(&req).unwrap();
        let s = e.generation_execute(&run).await.unwrap();
        assert_eq!(s.status, "completed", "batch {batch}: {:?}", s.message);
        let sent_batches = mock_batches(&mock).await.len();
        assert_eq!(sent_batches > 0, batch);
        let (_, batch_calls, calls) = run_cost(&e, &run);
        assert_eq!(batch_calls, if batch { calls } else { 0 });
        let cases: Vec<(String, String, String)> = cases_of(&e, &run)
            .iter()
            .map(|c| (c["case_id"].to_string(), c["gold_verdict"].to_string(), c["narrative"].to_string()))
            .collect();
        outcomes.push((cases, mock.request_count()));
    }
    assert_eq!(outcomes[0].0.len(), 9);
    assert_eq!(outcomes[0].0, outcomes[1].0, "the same cases");
    // Identical requests waiting at the same time go into a batch once (a direct run may send
    // both before either is cached).
    assert!(outcomes[1].1 <= outcomes[0].1, "{} requests in batch mode, {} directly", outcomes[1].1, outcomes[0].1);
}

/// Azure OpenAI's batch API (files and batches under `/openai/…` with an api-version, the
/// deployment named in each line) works the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_openai_models_run_in_batch_mode_too() {
    let mut s = script();
    s.batch = BatchBehaviour { delay_ms: 20, ..Default::default() };
    let mock = MockServer::start(s, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_at(&dir.path().join("s.db"), Arc::new(MemoryStore::default()));
    for name in ["asker", "info", "judge"] {
        add_keyed(&e, name, "azure", &format!("{name}-id"), mock.root(), None);
    }
    let file = cases_file(&e, dir.path());
    let run = e.evaluation_create(&request(&file, true)).unwrap();
    let summary = e.evaluation_execute(&run).await.unwrap();
    assert_eq!((summary.status.as_str(), summary.counts.done), ("completed", CASES.len() as u64), "{summary:?}");
    let batches = mock_batches(&mock).await;
    assert!(!batches.is_empty() && batches.iter().all(|b| b["api"] == "azure"), "{batches:?}");
    assert!(
        mock.requests().iter().all(|r| r.had_key && r.api == "azure"),
        "every line read as an Azure deployment request"
    );
}
