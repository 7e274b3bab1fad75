//! Model servers that answer with a redirect, and batch result addresses at another origin,
//! through the real HTTP client: a loopback "redirector" answers every request with a 307 or 302
//! whose `Location` is a second loopback listener (another port, so another origin) that records
//! what reaches it. Nothing may reach it: no key header, no case text, no request at all.
//!
//! Reproduces issue 25 item 2 (before the fix reqwest followed the redirect and resent the
//! provider's key header, and with a 307 the case text, to the second listener).

use axum::body::{to_bytes, Body};
use axum::extract::{Path, Request};
use axum::http::{header::LOCATION, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::llm::batch::BatchSettings;
use psebench::llm::retry::RetryPolicy;
use psebench::llm::{CallContext, CancellationToken, ChatRequest, ClientOptions, LlmError, Message};
use psebench::secrets::MemoryStore;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Words that stand for a case narrative: they must never reach the second listener.
const CASE_TEXT: &str = "CASE-NARRATIVE-7f3a: the nurse gave the drug despite the recorded allergy";

/// The headers that carry a key for one provider or another.
const KEY_HEADERS: [&str; 4] = ["authorization", "x-api-key", "api-key", "x-goog-api-key"];

/// One request as the second listener saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    key_headers: Vec<String>,
    had_case_text: bool,
}

async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// The second listener: records every request and refuses it (a 400, so a client that did reach
/// it would not retry).
async fn sink() -> (SocketAddr, Arc<Mutex<Vec<Seen>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let app = Router::new().fallback(move |req: Request| {
        let log = log.clone();
        async move {
            let method = req.method().to_string();
            let path = req.uri().path().to_string();
            let key_headers =
                KEY_HEADERS.iter().filter(|h| req.headers().contains_key(**h)).map(|h| h.to_string()).collect();
            let body = to_bytes(req.into_body(), usize::MAX).await.unwrap_or_default();
            let had_case_text = String::from_utf8_lossy(&body).contains("CASE-NARRATIVE-7f3a");
            log.lock().unwrap().push(Seen { method, path, key_headers, had_case_text });
            (StatusCode::BAD_REQUEST, Json(json!({"error": {"message": "the second listener"}}))).into_response()
        }
    });
    (serve(app).await, seen)
}

/// The model's server: answers everything with `status` and `Location` = `target` + the request's
/// path and query. Returns its address and how many requests it had.
async fn redirector(status: StatusCode, target: String) -> (SocketAddr, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let count = hits.clone();
    let app = Router::new().fallback(move |req: Request| {
        let (count, target) = (count.clone(), target.clone());
        async move {
            count.fetch_add(1, Ordering::SeqCst);
            let pq = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into());
            Response::builder().status(status).header(LOCATION, format!("{target}{pq}")).body(Body::empty()).unwrap()
        }
    });
    (serve(app).await, hits)
}

fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let opts = EngineOptions {
        secrets: Arc::new(MemoryStore::default()),
        client: ClientOptions {
            // Retries on: a redirect must still be asked once only.
            retry: RetryPolicy {
                max_retries: 3,
                base: Duration::from_millis(2),
                cap: Duration::from_millis(10),
                ..Default::default()
            },
            batch: BatchSettings {
                quiet: Duration::from_millis(40),
                max_gather: Duration::from_secs(2),
                poll: Duration::from_millis(30),
                ..BatchSettings::default()
            },
            use_cache: false,
            ..Default::default()
        },
    };
    crate::common::seeded_store(&dir.path().join("s.db"));
    let e = Engine::open_with(&dir.path().join("s.db"), opts).unwrap();
    (dir, e)
}

fn add(e: &Engine, name: &str, kind: &str, base: &str) {
    e.model_add(&ModelAddRequest {
        name: name.into(),
        kind: kind.into(),
        model: format!("{name}-id"),
        base_url: Some(base.into()),
        api_key: Some(format!("sk-{name}-canary-000000")),
        timeout_secs: Some(5),
        ..Default::default()
    })
    .unwrap();
}

fn case_request() -> ChatRequest {
    ChatRequest::new(vec![Message::system("You judge reportable events."), Message::user(CASE_TEXT)])
}

async fn chat(e: &Engine, name: &str, batched: bool) -> Result<psebench::llm::ChatResponse, LlmError> {
    let h = e.model_handle(name).map_err(|x| LlmError::Config(x.message))?.batched(batched);
    e.llm().chat(&h, &case_request(), &CallContext::new(Some("run-r"), "test"), &CancellationToken::new()).await
}

/// What reached the second listener, in one line (the figure for RELIABILITY.md).
fn summary(seen: &[Seen]) -> String {
    let keyed = seen.iter().filter(|s| !s.key_headers.is_empty()).count();
    let texts = seen.iter().filter(|s| s.had_case_text).count();
    let each: Vec<String> = seen
        .iter()
        .map(|s| format!("{} {} (key headers {:?}, case text {})", s.method, s.path, s.key_headers, s.had_case_text))
        .collect();
    format!(
        "the second listener received {} request(s), {keyed} with a key header, {texts} with the case text: {}",
        seen.len(),
        each.join("; ")
    )
}

#[tokio::test]
async fn a_redirecting_model_server_gets_neither_key_nor_case_text_to_another_origin() {
    let (sink_addr, seen) = sink().await;
    let sink_origin = format!("http://{sink_addr}");
    let (_d, e) = engine();
    // Every provider kind, with a 307 (the body would be resent) or a 302 (resent as a GET).
    let kinds = [
        ("oa", "openai-compatible", StatusCode::TEMPORARY_REDIRECT, "/v1"),
        ("az", "azure", StatusCode::FOUND, ""),
        ("an", "anthropic", StatusCode::TEMPORARY_REDIRECT, ""),
        ("ge", "gemini", StatusCode::FOUND, ""),
    ];
    let mut outcomes = Vec::new();
    for (name, kind, status, path) in kinds {
        let (addr, hits) = redirector(status, sink_origin.clone()).await;
        add(&e, name, kind, &format!("http://{addr}{path}"));
        assert!(e.model_get(name).unwrap().local, "{name}: a loopback address is planned as local");
        let direct = chat(&e, name, false).await;
        let tested = e.model_test(name).await;
        outcomes.push((name, addr, hits, direct, tested));
    }
    let seen = seen.lock().unwrap().clone();
    assert!(seen.is_empty(), "{}", summary(&seen));
    for (name, addr, hits, direct, tested) in outcomes {
        assert_eq!(
            hits.load(Ordering::SeqCst),
            2,
            "{name}: one request for the call, one for the test; a redirect is not retried"
        );
        let err = direct.expect_err(name);
        assert!(matches!(err, LlmError::Redirected { .. }), "{name}: {err:?}");
        assert!(!err.is_transient(), "{name}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("http://{addr}/")) && msg.contains(&format!("{sink_origin}/")), "{name}: {msg}");
        assert!(msg.contains("neither the key nor the case text was sent there"), "{name}: {msg}");
        assert!(!msg.contains("canary"), "{name}: no key in the message: {msg}");
        let err = tested.expect_err(name);
        assert!(err.message.starts_with("The address is wrong:"), "{name}: {}", err.message);
        assert!(
            err.message.contains(&format!("http://{addr}/")) && err.message.contains(&format!("{sink_origin}/")),
            "{name}: {}",
            err.message
        );
        assert!(err.message.contains("redirect"), "{name}: {}", err.message);
        assert!(!err.message.contains("canary"), "{name}: {}", err.message);
    }
}

#[tokio::test]
async fn batch_calls_to_a_redirecting_server_stop_there() {
    let (sink_addr, seen) = sink().await;
    let sink_origin = format!("http://{sink_addr}");
    let (_d, e) = engine();
    // A 302: reqwest would resend the batch creation as a GET with the key header (a 307 it
    // would not follow, the streamed body cannot be sent twice).
    let (addr, hits) = redirector(StatusCode::FOUND, sink_origin.clone()).await;
    add(&e, "an", "anthropic", &format!("http://{addr}"));
    let err = chat(&e, "an", true).await.expect_err("the batch cannot be sent");
    let seen = seen.lock().unwrap().clone();
    assert!(seen.is_empty(), "{}", summary(&seen));
    assert!(hits.load(Ordering::SeqCst) >= 1);
    let msg = err.to_string();
    assert!(msg.contains("redirect") && msg.contains(&format!("{sink_origin}/v1/messages/batches")), "{msg}");
}

/// An Anthropic batch API whose batches end at once with a `results_url` at `results_origin`.
async fn anthropic_batches(results_origin: String) -> SocketAddr {
    let app = Router::new()
        .route(
            "/v1/messages/batches",
            post(|| async {
                Json(json!({"id": "msgbatch_1", "type": "message_batch", "processing_status": "in_progress"}))
            }),
        )
        .route(
            "/v1/messages/batches/{id}",
            get(move |Path(id): Path<String>| {
                let origin = results_origin.clone();
                async move {
                    Json(json!({
                        "id": id,
                        "type": "message_batch",
                        "processing_status": "ended",
                        "request_counts": {"processing": 0, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 0},
                        "results_url": format!("{origin}/v1/messages/batches/{id}/results")
                    }))
                }
            }),
        );
    serve(app).await
}

#[tokio::test]
async fn an_anthropic_results_url_at_another_origin_is_never_fetched() {
    let (sink_addr, seen) = sink().await;
    let sink_origin = format!("http://{sink_addr}");
    let (_d, e) = engine();
    let provider = anthropic_batches(sink_origin.clone()).await;
    add(&e, "an", "anthropic", &format!("http://{provider}"));
    let err = chat(&e, "an", true).await.expect_err("the results are not fetched");
    let seen = seen.lock().unwrap().clone();
    assert!(seen.is_empty(), "{}", summary(&seen));
    let msg = err.to_string();
    assert!(msg.contains(&format!("{sink_origin}/v1/messages/batches/msgbatch_1/results")), "{msg}");
    assert!(msg.contains(&format!("http://{provider}")), "{msg}");
    assert!(msg.contains("the key was not sent there"), "{msg}");
    assert!(!msg.contains("canary"), "{msg}");
}
