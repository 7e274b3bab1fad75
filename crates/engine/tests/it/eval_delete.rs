//! Deleting evaluation runs (issue 29, item 5): a run goes with everything that belongs to it, in
//! one transaction, and the rest stays; a running run, an unknown run and a run of another kind
//! are refused; the example results go in one step, and each is also an ordinary run.

use psebench::evaluation::EvaluationRunRequest;
use psebench::jobs::{self, RunKind};
use psebench::llm::ledger::CallFilter;
use psebench::mock::MockServer;
use psebench::review::{ReviewCreateRequest, ReviewSelection};
use psebench::ErrorCode;

use crate::eval::{cases_file, engine, register, script, CASES};

fn usage_total(e: &psebench::api::Engine) -> (u64, u64, f64) {
    let all = e.usage_all_by_stage().unwrap();
    (
        all.iter().map(|u| u.calls).sum(),
        all.iter().map(|u| u.input_tokens + u.output_tokens).sum(),
        all.iter().map(|u| u.cost_usd).sum(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_with_what_belongs_to_it_and_the_rest_stays() {
    let mock = MockServer::start(script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    register(&e, &mock);
    let file = cases_file(&e, dir.path());
    let mut runs = Vec::new();
    for model in ["asker", "direct"] {
        let req = EvaluationRunRequest {
            cases: file.display().to_string(),
            model: model.into(),
            info_model: "info".into(),
            judge_model: "judge".into(),
            turns: 10,
            concurrency: 2,
            ..Default::default()
        };
        let run = e.evaluation_create(&req).unwrap();
        assert_eq!(e.evaluation_execute(&run).await.unwrap().status, "completed");
        runs.push(run);
    }
    let (asker, direct) = (runs[0].clone(), runs[1].clone());
    let judged = e.evaluation_trajectories(&asker).unwrap().iter().filter(|t| t.judge.is_some()).count() as u64;
    assert!(judged > 0);
    let session = e
        .review_create(&ReviewCreateRequest {
            name: "Judge check".into(),
            selection: ReviewSelection::Cases { case_ids: CASES.iter().map(|s| s.to_string()).collect() },
            reviewers: vec!["Ana".into(), "Ben".into()],
            overlap: Some(2),
            seed: Some(3),
            guidelines: None,
            rationale_from: Some(vec![asker.clone()]),
        })
        .unwrap();
    let calls_of = |run: &str| {
        e.calls_list(&CallFilter { run_id: Some(run.to_string()), ..Default::default() }).unwrap().len() as u64
    };
    let asker_calls = calls_of(&asker);
    let direct_calls = calls_of(&direct);
    assert!(asker_calls > 0 && direct_calls > 0);
    let spent = usage_total(&e);

    // The preview says what goes and what stays, and changes nothing.
    let plan = e.evaluation_delete_preview(&asker).unwrap();
    assert_eq!((plan.model.as_str(), plan.items, plan.trajectories, plan.judged), ("asker", 4, 4, judged));
    assert_eq!(plan.ledger_calls, asker_calls);
    assert_eq!(plan.review_sessions, vec!["Judge check".to_string()]);
    assert!(!plan.example);
    assert!(
        plan.removes[0].contains("4 cases") && plan.removes[0].contains("4 finished transcripts"),
        "{:?}",
        plan.removes
    );
    assert!(plan.removes.iter().any(|s| s.contains("call ledger")), "{:?}", plan.removes);
    assert!(plan.keeps.iter().any(|s| s.contains("\"Judge check\"")), "{:?}", plan.keeps);
    assert_eq!(e.evaluation_list().unwrap().len(), 2);

    let done = e.evaluation_delete(&asker).unwrap();
    assert_eq!(done.items, 4);
    // The run is gone: shown, listed, scored or deleted again, it is unknown.
    let err = e.evaluation_show(&asker).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(e.evaluation_delete(&asker).unwrap_err().code, ErrorCode::NotFound);
    let listed: Vec<String> = e.evaluation_list().unwrap().into_iter().map(|r| r.run.run_id).collect();
    assert_eq!(listed, vec![direct.clone()]);
    assert!(e.evaluation_trajectories(&asker).is_err());
    // Its calls lost their text and their link to the run; what was spent stays in the totals.
    assert_eq!(calls_of(&asker), 0);
    assert_eq!(usage_total(&e), spent, "the spending totals keep the deleted run's calls");
    // The other run, the cases and the review session are untouched.
    assert_eq!(e.evaluation_trajectories(&direct).unwrap().len(), 4);
    assert_eq!(calls_of(&direct), direct_calls);
    assert_eq!(e.evaluation_show(&direct).unwrap().counts.done, 4);
    for id in CASES {
        e.case_show(id).unwrap();
    }
    let kept = e.review_show(&session.summary.session_id).unwrap();
    assert_eq!(kept.rationale_runs, vec![asker.clone()], "the session keeps its own copies of the rationales");
    assert_eq!(kept.rationale_items, session.rationale_items);
    // Results of the remaining run still compute.
    e.metrics_for_runs(std::slice::from_ref(&direct), &Default::default()).unwrap();
}

#[test]
fn running_unknown_and_other_kinds_of_runs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    // Unknown.
    let err = e.evaluation_delete("no-such-run").unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(err.message.contains("no-such-run"), "{}", err.message);
    // Still running (claimed by a live process with a fresh heartbeat): refused, nothing removed.
    let examples = e.demo_example_results().unwrap();
    let run = examples.run_ids[0].clone();
    e.store().with_conn(|c| jobs::claim(c, &run, e.jobs().owner()).map(|_| ())).unwrap();
    for err in [e.evaluation_delete_preview(&run).unwrap_err(), e.evaluation_delete(&run).unwrap_err()] {
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(err.message.contains("still running") && err.message.contains("Stop it first"), "{}", err.message);
    }
    assert_eq!(e.evaluation_show(&run).unwrap().counts.done, 90);
    // Removing the example results is refused as a whole while one of them runs.
    assert_eq!(e.demo_remove_example_results().unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(e.evaluation_list().unwrap().len(), 3);
    // A generation run is not an evaluation run: refused, saying what it is.
    e.store().with_conn(|c| jobs::insert_run(c, "gen-1", RunKind::Generation, None, &serde_json::json!({}))).unwrap();
    let err = e.evaluation_delete("gen-1").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(
        err.message.contains("case generation run") && err.message.contains("Nothing was deleted"),
        "{}",
        err.message
    );
    assert!(e.store().with_read(|c| jobs::get_run(c, "gen-1")).is_ok(), "the generation run is still there");
}

#[test]
fn example_results_go_in_one_step_and_each_is_an_ordinary_run() {
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    let nothing = e.demo_remove_example_results_preview().unwrap();
    assert!(nothing.runs.is_empty() && nothing.summary.contains("no example results"), "{}", nothing.summary);
    let examples = e.demo_example_results().unwrap();
    assert_eq!(examples.run_ids.len(), 3);
    // A run of the user's own (imported), which stays.
    let own = dir.path().join("own.jsonl");
    e.evaluation_export(&examples.run_ids[0], &own).unwrap();
    let text = std::fs::read_to_string(&own).unwrap().replace("example-careful", "my-model");
    std::fs::write(&own, text).unwrap();
    let imported = e.evaluation_import(&own).unwrap();
    assert_eq!(imported.len(), 1);

    // One example run deleted as an ordinary run.
    let one = e.evaluation_delete_preview(&examples.run_ids[2]).unwrap();
    assert!(one.example && one.trajectories == 90 && one.ledger_calls == 0, "{one:?}");
    e.evaluation_delete(&examples.run_ids[2]).unwrap();

    let plan = e.demo_remove_example_results_preview().unwrap();
    let ids: Vec<&str> = plan.runs.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(ids, vec!["example-average", "example-careful"], "sorted by id, the deleted one gone");
    assert!(plan.summary.contains("2 example runs") && plan.summary.contains("180 transcripts"), "{}", plan.summary);
    assert!(plan.summary.contains("demo cases and your own runs stay"), "{}", plan.summary);
    let done = e.demo_remove_example_results().unwrap();
    assert_eq!(done.runs.len(), 2);
    let left: Vec<String> = e.evaluation_list().unwrap().into_iter().map(|r| r.run.run_id).collect();
    assert_eq!(left, imported);
    assert_eq!(e.evaluation_trajectories(&imported[0]).unwrap().len(), 90);
    // The demo cases stay; example results can be made again.
    assert_eq!(e.cases_all(&Default::default()).unwrap().iter().filter(|c| c.case_id.starts_with("demo_")).count(), 90);
    assert!(!e.demo_example_results().unwrap().loaded_demo_cases);
    assert_eq!(e.evaluation_list().unwrap().len(), 4);
}
