//! Honest end states and keys without an OS keyring, through the real HTTP client and the
//! loopback mock: an evaluation whose replies are mostly unreadable finishes with a warning that
//! counts them and says why; an extraction whose replies cannot be used fails with its reason and
//! stores nothing for approval; a key that the (absent) keyring refuses can be held in memory for
//! the session and is the one the calls carry.

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::authoring::{ExtractRequest, ExtractionFilter};
use psebench::error::ErrorCode;
use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::{MockServer, Reply, Script};
use psebench::secrets::KeyringStore;
use std::sync::Arc;

use super::eval::{cases_file, engine, register, script};
use super::generation::{rule, seq, sys};

fn request(file: &std::path::Path, model: &str) -> EvaluationRunRequest {
    EvaluationRunRequest {
        cases: file.display().to_string(),
        model: model.into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        turns: 4,
        concurrency: 2,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evaluation_of_unreadable_replies_finishes_with_problems_that_say_how_many_and_why() {
    let mock = MockServer::start(script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    register(&e, &mock);
    let file = cases_file(&e, dir.path());

    let garbage = e.evaluation_create(&request(&file, "garbage")).unwrap();
    let s = e.evaluation_execute(&garbage).await.unwrap();
    assert_eq!(s.status, "completed", "every case was worked through");
    let p = s.problems.clone().expect("a run of unreadable replies is not a plain finish");
    assert_eq!((p.unusable, p.finished), (4, 4));
    assert!(p.message.starts_with("Finished with problems: 4 of 4 cases"), "{}", p.message);
    assert!(p.reason.contains("did not answer in the JSON"), "{}", p.reason);
    assert_eq!(s.message.as_deref(), Some(p.message.as_str()), "the run's own message says it too");

    // The views the app and the command line read say the same, from the store.
    let shown = e.evaluation_show(&garbage).unwrap();
    assert_eq!(shown.problems.as_ref(), Some(&p));
    assert_eq!(shown.run.error.as_deref(), Some(p.message.as_str()));
    let listed = e.evaluation_list().unwrap();
    assert_eq!(listed.iter().find(|r| r.run.run_id == garbage).unwrap().problems.as_ref(), Some(&p));

    // A model that answers readably finishes plainly.
    let direct = e.evaluation_create(&request(&file, "direct")).unwrap();
    let s = e.evaluation_execute(&direct).await.unwrap();
    assert_eq!((s.status.as_str(), s.problems.is_none(), s.message.is_none()), ("completed", true, true));
    assert!(e.evaluation_show(&direct).unwrap().problems.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extraction_whose_replies_cannot_be_used_fails_and_leaves_nothing_to_approve() {
    // Three unusable replies, then (when asked again) a usable one.
    let prose = || Reply::Text { text: "I would rather not pick sections.".into() };
    let pick = Reply::Json {
        json: serde_json::json!({"relevant_sections": [{"section_id": "General Recommendation 1", "criteria": ["scope"], "why": "it sets the scope"}]}),
    };
    let rules = vec![
        seq("extract", sys("You help a compliance team build a library"), vec![prose(), prose(), prose(), pick]),
        rule(
            "check",
            sys("You review a selection of policy sections"),
            Reply::Json { json: serde_json::json!({"add": [], "remove": []}) },
        ),
    ];
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    e.model_add(&ModelAddRequest {
        name: "author".into(),
        kind: "openai-compatible".into(),
        model: "author-id".into(),
        base_url: Some(mock.openai_base()),
        ..Default::default()
    })
    .unwrap();
    let req = ExtractRequest {
        policy: Some("mn29".into()),
        clause: "CareManagement_1_MedicationError".into(),
        model: "author".into(),
    };
    let err = e.authoring_extract(&req).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationFailed);
    assert!(err.message.contains("failed") && err.message.contains("after 3 tries"), "{}", err.message);
    assert!(err.message.contains("not one JSON object"), "the reason is given: {}", err.message);
    assert!(err.message.contains("Nothing was stored for approval"), "{}", err.message);
    assert_eq!(mock.requests().len(), 3, "three attempts, no self-check of nothing");
    let stored = e.authoring_extractions(&ExtractionFilter::default()).unwrap();
    assert!(stored.is_empty(), "nothing waits for approval: {stored:?}");

    // Trying again asks the model afresh (the unusable replies are not served from the cache).
    let r = e.authoring_extract(&req).await.unwrap();
    assert_eq!((r.attempts, r.sections.len()), (1, 1));
    assert_eq!(e.authoring_extraction_show(&r.extraction_id).unwrap().status, "proposed");
}

fn keyringless_engine(dir: &std::path::Path) -> Engine {
    let opts = EngineOptions { secrets: Arc::new(KeyringStore), client: Default::default() };
    crate::common::seeded_store(&dir.join("s.db"));
    Engine::open_with(&dir.join("s.db"), opts).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_keyring_a_key_is_held_for_the_session_and_sent_with_the_calls() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return; // a desktop session has a keyring: the no-keyring path cannot be seen here
    }
    let key = "sk-session-only-123456";
    let mut s = script();
    s.require_key = Some(key.into());
    let mock = MockServer::start(s, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = keyringless_engine(dir.path());
    let add = |name: &str, for_session: Option<bool>| {
        e.model_add(&ModelAddRequest {
            name: name.into(),
            kind: "openai-compatible".into(),
            model: format!("{name}-id"),
            base_url: Some(mock.openai_base()),
            api_key: Some(key.into()),
            key_for_session: for_session,
            ..Default::default()
        })
    };
    // The keyring is missing: a typed error with a plain sentence, and nothing registered.
    let err = add("asker", None).unwrap_err();
    assert_eq!(err.code, ErrorCode::KeyringUnavailable);
    assert!(err.message.starts_with("This computer has no system keyring"), "{}", err.message);
    assert!(err.message.contains("memory for this session") && !err.message.contains("D-Bus"), "{}", err.message);
    assert!(e.models_list().unwrap().is_empty());

    // Held in memory for the session instead: the model says so, and its calls carry the key.
    for name in ["asker", "info", "judge"] {
        let v = add(name, Some(true)).unwrap();
        assert_eq!((v.key_source.as_str(), v.key_for_session_only, v.config.key_in_keyring), ("session", true, false));
    }
    assert!(e.model_test("asker").await.unwrap().ok);
    let file = cases_file(&e, dir.path());
    let run = e.evaluation_create(&EvaluationRunRequest { model: "asker".into(), ..request(&file, "asker") }).unwrap();
    let summary = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(summary.status, "completed", "{:?}", summary.message);
    assert!(mock.requests().iter().all(|r| r.outcome == "ok" && r.had_key), "every call carried the session key");

    // Never written: a new engine on the same store (the app started again) has no key.
    drop(e);
    let again = keyringless_engine(dir.path());
    let v = again.model_get("asker").unwrap();
    assert_eq!((v.key_source.as_str(), v.key_for_session_only), ("none", false));
    let stored = std::fs::read(dir.path().join("s.db")).unwrap();
    assert!(!stored.windows(key.len()).any(|w| w == key.as_bytes()), "the key is not in the database file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unset_environment_variable_says_the_app_reads_it_when_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    e.model_add(&ModelAddRequest {
        name: "remote".into(),
        kind: "openai".into(),
        model: "gpt-x".into(),
        api_key_env: Some("PSEBENCH_TEST_NEVER_SET_KEY".into()),
        ..Default::default()
    })
    .unwrap();
    let err = e.model_handle("remote").unwrap_err();
    assert!(err.message.contains("is not set"), "{}", err.message);
    assert!(err.message.contains("reads environment variables when it starts"), "{}", err.message);
}

// ---- every other kind of run on the run kernel -------------------------------------------------

fn add_model(e: &Engine, mock: &MockServer, name: &str) {
    e.model_add(&ModelAddRequest {
        name: name.into(),
        kind: "openai-compatible".into(),
        model: format!("{name}-id"),
        base_url: Some(mock.openai_base()),
        ..Default::default()
    })
    .unwrap();
}

fn assert_warning(p: &psebench::jobs::RunProblems, unusable: u64, finished: u64, starts: &str) {
    assert_eq!((p.unusable, p.finished), (unusable, finished), "{}", p.message);
    assert!(
        p.message.starts_with(&format!("Finished with problems: {unusable} of {finished} {starts}")),
        "{}",
        p.message
    );
    assert!(p.message.contains(&p.reason), "the reason is said: {}", p.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generation_run_whose_writer_replies_cannot_be_read_finishes_with_problems() {
    use super::generation::{request, script_with, setup, REP};
    // The writer answers the fill-in-the-facts step in prose: the candidate is dropped after its
    // tries, and its missing variant is never started.
    let prose = Reply::Text { text: "Here are some facts, in my own words.".into() };
    let mock =
        MockServer::start(script_with(vec![rule("prose", sys("You fill in the facts of one synthetic"), prose)]), 0)
            .await
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "every candidate was worked through");
    assert_eq!((s.counts.dropped, s.counts.skipped, s.counts.unreadable), (1, 1, 1));
    let p = s.problems.clone().expect("a run of unreadable replies is not a plain finish");
    assert_warning(&p, 1, 1, "candidates were dropped because the model's replies could not be read");
    assert_eq!(s.message.as_deref(), Some(p.message.as_str()));
    let shown = e.generation_show(&run).unwrap();
    assert_eq!((shown.problems.as_ref(), shown.error.as_deref()), (Some(&p), Some(p.message.as_str())));
    assert_eq!(e.generation_list().unwrap()[0].problems.as_ref(), Some(&p));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generation_run_whose_candidates_are_rejected_for_real_reasons_is_not_flagged() {
    use super::generation::{request, script_with, setup, REP};
    // The checker rejects every narrative: dropped, but on a readable verdict.
    let reject = super::generation::j(serde_json::json!({"pass": false, "issues": ["the narrative never says where"]}));
    let mock = MockServer::start(
        script_with(vec![rule("nver-fail", sys("You check whether a written event description"), reject)]),
        0,
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.dropped, s.counts.unreadable), ("completed", 1, 0));
    assert_eq!((s.problems, s.message), (None, None));
    assert!(e.generation_show(&run).unwrap().problems.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_audit_of_unreadable_screens_finishes_with_problems() {
    use psebench::label_audit::{LabelAuditRequest, LabelAuditResultsRequest};
    let screen = psebench::mock::When { system_contains: Some(super::generation::SCREEN.into()), ..Default::default() };
    let rules = vec![rule("garbled", screen, Reply::Text { text: "no idea".into() })];
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::label_audit::setup(dir.path(), &mock);
    let req = LabelAuditRequest { cases: "r1,n2".into(), models: vec!["strict".into(), "loose".into()], label: None };
    let run = e.label_audit_create(&req).unwrap();
    let report = e.label_audit_execute(&run).await.unwrap();
    let p = report.problems.clone().expect("an audit of unreadable screens is not a plain finish");
    assert_warning(&p, 4, 4, "screens of a case by a model ended on a reply that could not be read");
    let listed = e.label_audit_list().unwrap().remove(0);
    assert_eq!((listed.status.as_str(), listed.problems.as_ref()), ("completed", Some(&p)));
    assert_eq!(listed.error.as_deref(), Some(p.message.as_str()));
    let r = e.label_audit_results(&LabelAuditResultsRequest { run_id: Some(run), ..Default::default() }).unwrap();
    assert_eq!(r.problems.as_ref(), Some(&p));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_audit_with_one_unreadable_screen_of_four_is_not_flagged() {
    use psebench::label_audit::LabelAuditRequest;
    let screen = psebench::mock::When {
        model: Some("loose-id".into()),
        system_contains: Some(super::generation::SCREEN.into()),
        last_user_contains: Some("FACT-REP".into()),
        ..Default::default()
    };
    let mut rules = vec![rule("garbled", screen, Reply::Text { text: "no idea".into() })];
    rules.extend(super::label_audit::audit_rules());
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::label_audit::setup(dir.path(), &mock);
    let req = LabelAuditRequest { cases: "r1,n2".into(), models: vec!["strict".into(), "loose".into()], label: None };
    let run = e.label_audit_create(&req).unwrap();
    assert_eq!(e.label_audit_execute(&run).await.unwrap().problems, None);
    let listed = e.label_audit_list().unwrap().remove(0);
    assert_eq!((listed.status.as_str(), listed.problems, listed.error), ("completed", None, None));
}

fn presort_job(model: &str) -> psebench::anchor::job::AnchorJobRequest {
    psebench::anchor::job::AnchorJobRequest {
        kind: psebench::anchor::job::AnchorJobKind::Presort,
        model: model.into(),
        policy: None,
        anchor_ids: vec![],
        only_unbucketed: true,
        concurrency: Some(1),
        batch: false,
        label: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anchor_job_whose_replies_cannot_be_read_says_how_many_anchors_failed_and_why() {
    let sort = psebench::mock::When {
        system_contains: Some("You sort short healthcare incident texts".into()),
        ..Default::default()
    };
    let mock = MockServer::start(
        Script {
            rules: vec![rule("prose", sort.clone(), Reply::Text { text: "That sounds like a fall to me.".into() })],
            ..Default::default()
        },
        0,
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    add_model(&e, &mock, "sorter");
    let text = "{\"anchor_id\": \"u1\", \"text\": \"A patient slipped in the corridor.\"}\n{\"anchor_id\": \"u2\", \"text\": \"A visitor fell on the stairs.\"}\n{\"anchor_id\": \"u3\", \"text\": \"A nurse found the patient on the floor.\"}\n";
    e.anchors_import_text("u.jsonl", text, &psebench::anchor::AnchorImportOptions::default()).unwrap();
    let run = e.anchor_job_create(&presort_job("sorter")).unwrap();
    e.anchor_job_execute(&run).await.unwrap();
    let view = e.anchor_job_show(&run).unwrap();
    // Stored as failed, so that a resume tries the failed anchors again; the warning says why.
    assert_eq!((view.status.as_str(), view.result.failed), ("failed", 3));
    let p = view.problems.clone().expect("a job whose anchors mostly failed says so");
    assert_warning(&p, 3, 3, "anchors could not be sorted");
    assert!(p.message.contains("resume to try the failed ones again"), "{}", p.message);
    assert_eq!(view.error.as_deref(), Some(p.message.as_str()));
    assert_eq!(e.anchor_job_list().unwrap()[0].problems.as_ref(), Some(&p));

    // The model answers now: the resume finishes them, and the warning is gone.
    mock.set_script(Script {
        rules: vec![rule(
            "sorted",
            sort,
            super::generation::j(serde_json::json!({"clause_id": "CareManagement_7_Fall", "reason": "a fall"})),
        )],
        ..Default::default()
    });
    e.anchor_job_execute(&run).await.unwrap();
    let view = e.anchor_job_show(&run).unwrap();
    assert_eq!((view.status.as_str(), view.problems, view.error), ("completed", None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn re_judging_with_a_judge_whose_replies_cannot_be_read_finishes_with_problems() {
    use psebench::evaluation::rejudge::RejudgeRequest;
    let mut s = script();
    s.rules.insert(
        0,
        rule(
            "bad-judge",
            psebench::mock::When { model: Some("badjudge-id".into()), ..Default::default() },
            Reply::Text { text: "No idea.".into() },
        ),
    );
    let mock = MockServer::start(s, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    register(&e, &mock);
    add_model(&e, &mock, "badjudge");
    let file = cases_file(&e, dir.path());
    let run = e.evaluation_create(&EvaluationRunRequest { model: "asker".into(), ..request(&file, "asker") }).unwrap();
    assert_eq!(e.evaluation_execute(&run).await.unwrap().status, "completed");
    let rejudge = |judge: &str| RejudgeRequest {
        run_id: run.clone(),
        judge_model: judge.into(),
        only_missing: false,
        concurrency: Some(2),
        protocol: None,
    };
    let bad = e.evaluation_rejudge(&rejudge("badjudge")).await.unwrap();
    assert!(bad.judged > 0 && bad.failed == bad.judged, "{bad:?}");
    let p = bad.problems.clone().expect("a re-judging whose judgements all failed says so");
    assert_warning(&p, bad.failed, bad.judged, "judgements failed");
    assert_eq!(bad.message.as_deref(), Some(p.message.as_str()));

    let good = e.evaluation_rejudge(&rejudge("judge")).await.unwrap();
    assert_eq!((good.failed, good.problems, good.message), (0, None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_extraction_is_kept_with_its_reason_for_a_new_engine_and_trying_again_clears_it() {
    let prose = || Reply::Text { text: "I would rather not pick sections.".into() };
    let pick = Reply::Json {
        json: serde_json::json!({"relevant_sections": [{"section_id": "General Recommendation 1", "criteria": ["scope"], "why": "it sets the scope"}]}),
    };
    let rules = vec![
        seq("extract", sys("You help a compliance team build a library"), vec![prose(), prose(), prose(), pick]),
        rule(
            "check",
            sys("You review a selection of policy sections"),
            Reply::Json { json: serde_json::json!({"add": [], "remove": []}) },
        ),
    ];
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let clause = "CareManagement_1_MedicationError";
    let req = ExtractRequest { policy: Some("mn29".into()), clause: clause.into(), model: "author".into() };
    let filter = ExtractionFilter { policy: Some("mn29".into()), clause: Some(clause.into()) };
    {
        let e = engine(dir.path());
        add_model(&e, &mock, "author");
        let err = e.authoring_extract(&req).await.unwrap_err();
        let failed = e.authoring_extraction_failures(&filter).unwrap();
        assert_eq!(failed.len(), 1);
        assert_eq!((failed[0].status.as_str(), failed[0].attempts, failed[0].model.as_str()), ("failed", 3, "author"));
        assert_eq!(failed[0].message, err.message, "the stored failure is the one shown");
        assert!(failed[0].reason.contains("not one JSON object"), "{}", failed[0].reason);
    }
    // After a reload (a new engine on the same store, as another window or the app started
    // again): still failed, with the reason, and nothing waiting for approval.
    let e = engine(dir.path());
    let failed = e.authoring_extraction_failures(&ExtractionFilter::default()).unwrap();
    assert_eq!((failed.len(), failed[0].clause_id.as_str()), (1, clause));
    assert!(failed[0].message.contains("Nothing was stored for approval"), "{}", failed[0].message);
    assert!(e.authoring_extractions(&ExtractionFilter::default()).unwrap().is_empty());
    // The same through the app's method.
    let via_rpc = psebench::api::rpc::call(
        &e,
        &psebench::api::rpc::Caller::Owner,
        "authoring.extraction_failures",
        serde_json::json!({}),
    )
    .await
    .unwrap();
    assert_eq!(via_rpc[0]["status"], "failed");

    // Try again: a usable extraction replaces the failure.
    let r = e.authoring_extract(&req).await.unwrap();
    assert_eq!(e.authoring_extraction_show(&r.extraction_id).unwrap().status, "proposed");
    assert!(e.authoring_extraction_failures(&ExtractionFilter::default()).unwrap().is_empty());
}
