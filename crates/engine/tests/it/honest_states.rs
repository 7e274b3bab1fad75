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
