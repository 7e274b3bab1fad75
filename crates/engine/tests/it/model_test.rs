//! `models test` through the real HTTP client against the loopback mock: exactly one request,
//! whatever goes wrong, and a sentence that names the problem.

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::error::ErrorCode;
use psebench::llm::ClientOptions;
use psebench::mock::{Fault, FaultRate, MockServer, Reply, Rule, Script};
use psebench::secrets::MemoryStore;
use std::sync::Arc;

/// An engine with the run-time retry policy left at its default (seven attempts): the test call
/// must not use it.
fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let opts = EngineOptions { secrets: Arc::new(MemoryStore::default()), client: ClientOptions::default() };
    crate::common::seeded_store(&dir.path().join("s.db"));
    let e = Engine::open_with(&dir.path().join("s.db"), opts).unwrap();
    (dir, e)
}

fn add(e: &Engine, base: &str, key: Option<&str>, timeout_secs: u32) {
    e.model_add(&ModelAddRequest {
        name: "m".into(),
        kind: "openai-compatible".into(),
        model: "tiny-7b".into(),
        base_url: Some(base.into()),
        api_key: key.map(str::to_string),
        timeout_secs: Some(timeout_secs),
        ..Default::default()
    })
    .unwrap();
}

fn replying() -> Script {
    Script {
        rules: vec![Rule {
            name: Some("any".into()),
            when: Default::default(),
            reply: Some(Reply::Text { text: "ready".into() }),
            replies: vec![],
            fail_first: vec![],
            latency_ms: None,
            usage: None,
        }],
        ..Default::default()
    }
}

fn always(fault: Fault) -> Script {
    Script { faults: vec![FaultRate { fault, rate: 1.0 }], ..replying() }
}

/// Test model "m" against a mock with `script`, reached at `path` under the mock's root; the
/// error's message, after checking that exactly one request reached the mock.
async fn failure(script: Script, path: &str, key: Option<&str>, timeout_secs: u32) -> psebench::ApiError {
    let mock = MockServer::start(script, 0).await.unwrap();
    let (_d, e) = engine();
    add(&e, &format!("{}{path}", mock.root()), key, timeout_secs);
    let err = e.model_test("m").await.unwrap_err();
    assert_eq!(mock.request_count(), 1, "one attempt only, never the retry policy: {}", err.message);
    err
}

#[tokio::test]
async fn a_working_model_answers_with_one_request() {
    let mock = MockServer::start(replying(), 0).await.unwrap();
    let (_d, e) = engine();
    add(&e, &mock.openai_base(), None, 120);
    let r = e.model_test("m").await.unwrap();
    assert!(r.ok);
    assert_eq!(r.reply, "ready");
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn each_failure_is_one_request_and_one_plain_sentence() {
    // Wrong or missing key.
    let keyed = Script { require_key: Some("right-key".into()), ..replying() };
    let err = failure(keyed, "/v1", Some("wrong-key"), 120).await;
    assert!(
        err.message.starts_with("The API key is wrong or missing: the server refused it (HTTP 401"),
        "{}",
        err.message
    );
    assert!(
        !err.message.contains("wrong-key") && !err.detail.as_deref().unwrap_or("").contains("wrong-key"),
        "keys are never shown"
    );
    let err = failure(always(Fault::Forbidden), "/v1", None, 120).await;
    assert!(
        err.message.starts_with("The API key is wrong or missing: the server refused it (HTTP 403"),
        "{}",
        err.message
    );

    // Unknown model: 404 with the provider's model-not-found message.
    let known = Script { known_models: vec!["other-model".into()], ..replying() };
    let err = failure(known, "/v1", None, 120).await;
    assert!(err.message.starts_with("The server does not know the model \"tiny-7b\""), "{}", err.message);

    // Wrong address: a 404 on the endpoint path, and a web page instead of the API.
    let err = failure(replying(), "/not-the-api/v1", None, 120).await;
    assert!(err.message.starts_with("The address is wrong:") && err.message.contains("HTTP 404"), "{}", err.message);
    let err = failure(always(Fault::WrongContentType), "/v1", None, 120).await;
    assert!(
        err.message.starts_with("The address is wrong:") && err.message.contains("not the model API"),
        "{}",
        err.message
    );

    // Too slow: the model's own shorter limit is kept, and named.
    let err = failure(always(Fault::Timeout { hang_ms: 3_000 }), "/v1", None, 1).await;
    assert_eq!(err.code, ErrorCode::Provider);
    assert!(err.message.starts_with("No answer within 1 seconds."), "{}", err.message);

    // Anything else: the status and the provider's words, once (500 is retried during runs).
    let err = failure(always(Fault::ServerError), "/v1", None, 120).await;
    assert_eq!(err.message, "The test call failed (HTTP 500): The server had an error (mock).", "{}", err.message);
}

#[tokio::test]
async fn a_closed_port_says_nothing_is_listening() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (_d, e) = engine();
    add(&e, &format!("http://127.0.0.1:{port}/v1"), None, 120);
    let err = e.model_test("m").await.unwrap_err();
    assert!(err.message.starts_with(&format!("Nothing is listening at 127.0.0.1:{port}")), "{}", err.message);
    assert!(err.detail.is_some(), "the client's own words stay available");
}
