//! Spending caps (`--max-cost`) through the real HTTP client against the loopback mock, with
//! priced models and fixed token counts per reply so every call costs the same: a capped run
//! stops as `cost_capped` without calling anything for the items it did not start, says what it
//! spent, refuses to resume under the same cap, and finishes under a higher one.

use psebench::api::models::ModelAddRequest;
use psebench::evaluation::EvaluationRunRequest;
use psebench::generation::GenerationRequest;
use psebench::jobs::budget::CapChange;
use psebench::jobs::RunStatus;
use psebench::mock::{MockServer, Script, UsageOverride};
use std::collections::HashSet;

use super::eval::{cases_file, engine, register, script};
use super::generation::{request, script_with, setup, REP};

/// Every reply reports 10,000 input and 5,000 output tokens: US$ 0.02 a call at 1 and 2 US$ per
/// million tokens (evaluation models), US$ 0.03 at 1 and 4 (generation models).
fn fixed_usage(mut s: Script) -> Script {
    for r in &mut s.rules {
        r.usage = Some(UsageOverride { input_tokens: Some(10_000), output_tokens: Some(5_000), ..Default::default() });
    }
    s
}

/// Equal up to the last digits a JSON round trip may change.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn eval_request(file: &std::path::Path, cap: Option<f64>) -> EvaluationRunRequest {
    EvaluationRunRequest {
        cases: file.display().to_string(),
        model: "direct".into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        concurrency: 1,
        repeat: 2,
        max_cost_usd: cap,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evaluation_stops_at_its_cap_and_finishes_under_a_higher_one() {
    let mock = MockServer::start(fixed_usage(script()), 0).await.unwrap();

    // Uncapped reference: what each of the 8 items costs and calls.
    let dir_ref = tempfile::tempdir().unwrap();
    let e_ref = engine(dir_ref.path());
    register(&e_ref, &mock);
    let file = cases_file(&e_ref, dir_ref.path());
    let run_ref = e_ref.evaluation_create(&eval_request(&file, None)).unwrap();
    let s = e_ref.evaluation_execute(&run_ref).await.unwrap();
    assert_eq!(s.status, RunStatus::Completed, "{:?}", s.message);
    let calls_ref = mock.request_count();
    let per_item = s.counts.cost_usd / 8.0;
    assert!(per_item > 0.0);

    // Capped at four and a half items' worth on average (the first item also pays the judge
    // call that later repeats take from the cache, so it costs more than the rest).
    let cap = per_item * 4.5;
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    register(&e, &mock);
    let file = cases_file(&e, dir.path());
    let plan = e.evaluation_plan(&eval_request(&file, Some(cap))).unwrap();
    let forecast = plan.cap.clone().expect("the estimate passes the cap, so the plan says how far it reaches");
    assert!(close(forecast.max_cost_usd, cap) && forecast.items == 8);
    assert!(forecast.items_allowed < 8);
    assert!(
        forecast.item_estimate_usd <= cap,
        "the plan's estimate of one item ({}) must let the first one start under {cap}",
        forecast.item_estimate_usd
    );
    let run = e.evaluation_create(&eval_request(&file, Some(cap))).unwrap();
    let before = mock.request_count();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, RunStatus::CostCapped, "{:?}", s.message);
    assert!(s.counts.done > 0 && s.counts.done < 8, "{:?}", s.counts);
    assert!(s.counts.cost_usd <= cap + 1e-12, "spent {} of {cap}", s.counts.cost_usd);
    // Each started item makes one call to the model under test; the items not started made none.
    let started = mock.requests().iter().skip(before as usize).filter(|r| r.rule.as_deref() == Some("direct")).count();
    assert_eq!(started as u64, s.counts.done);
    let msg = s.message.clone().unwrap();
    assert_eq!(msg, psebench::jobs::budget::capped_message(s.counts.cost_usd, cap, s.counts.done, 8, "cases"));
    assert!(msg.starts_with("Stopped at the cost cap: US$ ") && msg.contains(" of 8 cases done and kept."), "{msg}");
    let listed = e.evaluation_list().unwrap();
    assert_eq!(listed[0].run.status, "cost_capped");
    assert_eq!(listed[0].run.status.words(), "stopped: cost cap");
    assert_eq!(listed[0].run.error.as_deref(), Some(msg.as_str()));
    assert!(listed[0].run.finished_at.is_some());
    let progress = e.jobs().last(&run).unwrap();
    assert_eq!(progress.status, RunStatus::CostCapped);
    assert!(close(progress.counter("max_cost_usd"), cap));
    assert!(close(progress.counter("spent_usd"), s.counts.cost_usd));

    // The same cap again is refused in plain words; nothing is called.
    let err = e.evaluation_prepare_resume(&run, CapChange::Keep).unwrap_err();
    assert!(
        err.message.contains("stopped at its spending cap") && err.message.contains("higher cap"),
        "{}",
        err.message
    );
    assert!(e.evaluation_prepare_resume(&run, CapChange::Set(cap)).is_err());
    // The app's Resume says the same at once.
    let owner = psebench::api::rpc::Caller::Owner;
    let refused = psebench::api::rpc::call(&e, &owner, "evaluation.resume", serde_json::json!({"run_id": run}))
        .await
        .unwrap_err();
    assert_eq!(refused.message, err.message);
    let both = serde_json::json!({"run_id": run, "max_cost_usd": 1.0, "clear_max_cost": true});
    assert!(psebench::api::rpc::call(&e, &owner, "evaluation.resume", both).await.is_err());
    assert!(close(e.evaluation_show(&run).unwrap().run.config.max_cost_usd.unwrap(), cap));

    // A higher cap finishes the run; nothing done before is redone.
    e.evaluation_prepare_resume(&run, CapChange::Set(cap * 3.0)).unwrap();
    assert!(close(e.evaluation_show(&run).unwrap().run.config.max_cost_usd.unwrap(), cap * 3.0));
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, RunStatus::Completed, "{:?}", s.message);
    assert_eq!(s.counts.done, 8);
    assert_eq!(mock.request_count() - before, calls_ref);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_on_a_remote_model_without_a_price_is_refused_at_create() {
    let mock = MockServer::start(script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    register(&e, &mock);
    e.model_add(&ModelAddRequest {
        name: "far".into(),
        kind: "openai".into(),
        model: "far-id".into(),
        base_url: Some("https://api.example.com/v1".into()),
        api_key: Some("k-far-000000".into()),
        ..Default::default()
    })
    .unwrap();
    let file = cases_file(&e, dir.path());
    let req = EvaluationRunRequest { model: "far".into(), ..eval_request(&file, Some(1.0)) };
    let err = e.evaluation_create(&req).unwrap_err();
    assert!(
        err.message.contains("far has none registered") && err.message.contains("without a cap"),
        "{}",
        err.message
    );
    // The plan says so before anything is created.
    assert_eq!(e.evaluation_plan(&req).unwrap_err().message, err.message);
    // Without a cap the run can be created (it is never started here).
    e.evaluation_create(&EvaluationRunRequest { max_cost_usd: None, ..req.clone() }).unwrap();
    let err = e.evaluation_create(&EvaluationRunRequest { max_cost_usd: Some(0.0), ..req }).unwrap_err();
    assert!(err.message.contains("above zero"), "{}", err.message);
    let err = e
        .generation_create(&GenerationRequest {
            model: "far".into(),
            verifier_model: None,
            max_cost_usd: Some(2.0),
            ..request(REP, 1)
        })
        .unwrap_err();
    assert!(err.message.contains("far has none registered"), "{}", err.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generation_stops_at_its_cap_and_finishes_under_a_higher_one() {
    // Uncapped reference: the cost of the three card-and-anchor pairs.
    let mock_ref = MockServer::start(fixed_usage(script_with(vec![])), 0).await.unwrap();
    let dir_ref = tempfile::tempdir().unwrap();
    let e_ref = setup(dir_ref.path(), &mock_ref);
    let req = GenerationRequest { concurrency: 1, ..request(REP, 3) };
    let run_ref = e_ref.generation_create(&req).unwrap();
    let s = e_ref.generation_execute(&run_ref).await.unwrap();
    assert_eq!(s.status, RunStatus::Completed, "{:?}", s.message);
    assert_eq!(s.counts.units_total, 3);
    let calls_ref = mock_ref.request_count();
    let per_unit = s.counts.cost_usd / 3.0;

    // Capped at one and a half pairs' worth: one pair runs, the second would pass the cap.
    let cap = per_unit * 1.5;
    let mock = MockServer::start(fixed_usage(script_with(vec![])), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let capped = GenerationRequest { max_cost_usd: Some(cap), ..req.clone() };
    let plan = e.generation_plan(&capped).unwrap();
    if let Some(f) = &plan.cap {
        assert_eq!(f.items, 3);
        assert!(f.items_allowed < 3);
    }
    let run = e.generation_create(&capped).unwrap();
    let stored = e.generation_show(&run).unwrap().config;
    assert!(close(stored.request.max_cost_usd.unwrap(), cap));
    let first_estimate = stored.unit_estimate_usd.unwrap();
    assert!(first_estimate <= cap, "the plan's estimate of a pair ({first_estimate}) must let the first start");
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, RunStatus::CostCapped, "{:?}", s.message);
    assert!(s.counts.units_done >= 1 && s.counts.units_done < 3, "{:?}", s.counts);
    assert!(s.counts.cost_usd <= cap + 1e-12, "spent {} of {cap}", s.counts.cost_usd);
    let capped_calls = mock.request_count();
    assert!(capped_calls < calls_ref, "the pairs not started called nothing");
    let msg = s.message.clone().unwrap();
    assert!(msg.starts_with("Stopped at the cost cap: US$ ") && msg.contains(" candidates done and kept"), "{msg}");
    assert_eq!(e.generation_list().unwrap()[0].status, "cost_capped");
    let progress = e.jobs().last(&run).unwrap();
    assert!(close(progress.counter("max_cost_usd"), cap));

    let err = e.generation_prepare_resume(&run, CapChange::Keep).unwrap_err();
    assert!(err.message.contains("higher cap"), "{}", err.message);
    // Dropping the cap finishes the run, with no request sent twice.
    e.generation_prepare_resume(&run, CapChange::Clear).unwrap();
    assert_eq!(e.generation_show(&run).unwrap().config.request.max_cost_usd, None);
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, RunStatus::Completed, "{:?}", s.message);
    // Together the capped run and its resume made exactly the reference's calls.
    assert_eq!(mock.request_count(), calls_ref);
    let bodies: Vec<String> = mock.requests().into_iter().map(|r| r.body.to_string()).collect();
    assert_eq!(bodies.iter().collect::<HashSet<_>>().len(), bodies.len(), "a request was repeated");
}
