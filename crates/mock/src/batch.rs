//! The mock's batch endpoints, in the providers' shapes: OpenAI's files + batches (also under
//! Azure's `/openai/...` paths), Anthropic's Message Batches and Gemini's `batchGenerateContent`.
//! Each request of a batch is answered by the script's rules when the batch is created (and
//! recorded like a direct request); the results show once `batch.delay_ms` has passed. Scripted
//! per-request failures and expiry come from `Script::batch`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::normalize::{self, Normalized};
use super::script::{BatchBehaviour, Fault};
use super::server::{current_script, error_response, parse_body, prepare, Answer, MockState};
use super::stream_array::for_each_element;

/// The largest request body the mock reads (a batch upload or an inline batch).
pub(super) const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;

/// One request's result: the reply body, or (HTTP status, message).
type ItemResult = Result<Value, (u16, String)>;

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    OpenAi,
    Azure,
    Anthropic,
    Gemini,
}

struct MockBatch {
    shape: Shape,
    created: Instant,
    created_unix: u64,
    delay: Duration,
    input_file_id: Option<String>,
    /// Per request in order: custom id and result (None: the batch expired before it ran).
    items: Vec<(String, Option<ItemResult>)>,
    expires: bool,
    /// The answers were downloaded once and freed (the mock keeps only their count then).
    taken: bool,
}

impl MockBatch {
    fn ended(&self) -> bool {
        self.created.elapsed() >= self.delay
    }
    fn answered(&self) -> usize {
        self.items.iter().filter(|(_, r)| matches!(r, Some(Ok(_)))).count()
    }
    fn failed(&self) -> usize {
        self.items.len() - self.answered()
    }
    /// Free the reply bodies once a client has downloaded them: a long benchmark in one process
    /// would otherwise keep every answer of every batch. The counts stay.
    fn take_answers(&mut self) {
        for (_, r) in &mut self.items {
            if let Some(Ok(body)) = r {
                *body = Value::Null;
            }
        }
        self.taken = true;
    }
}

fn already_taken(id: &str) -> Response {
    error_response(
        StatusCode::GONE,
        &format!("the results of batch {id} were already downloaded; the mock frees them after the first download"),
    )
}

/// Files and batches the mock holds.
#[derive(Default)]
pub(super) struct Batches {
    files: HashMap<String, String>,
    batches: HashMap<String, MockBatch>,
    next: u64,
    /// Batches created so far (for the scripted failures and expiries of the first ones).
    created: u32,
}

fn lock(s: &MockState) -> std::sync::MutexGuard<'_, Batches> {
    s.batches.lock().unwrap_or_else(|p| p.into_inner())
}

pub(super) fn routes() -> Router<Arc<MockState>> {
    Router::new()
        .route("/v1/files", post(upload))
        .route("/openai/files", post(upload))
        .route("/v1/files/{id}/content", get(file_content))
        .route("/openai/files/{id}/content", get(file_content))
        .route("/v1/batches", post(openai_create))
        .route("/openai/batches", post(azure_create))
        .route("/v1/batches/{id}", get(openai_get))
        .route("/openai/batches/{id}", get(openai_get))
        .route("/v1/messages/batches", post(anthropic_create))
        .route("/v1/messages/batches/{id}", get(anthropic_get))
        .route("/v1/messages/batches/{id}/results", get(anthropic_results))
        .route("/v1beta/batches/{id}", get(gemini_get))
        .route("/_mock/batches", get(list))
}

fn not_found(what: &str, id: &str) -> Response {
    error_response(StatusCode::NOT_FOUND, &format!("no {what} with id {id} (mock)"))
}

fn fault_status(f: &Fault) -> u16 {
    match f {
        Fault::RateLimit { .. } => 429,
        Fault::Unavailable => 503,
        Fault::BadRequest => 400,
        Fault::Unauthorized => 401,
        Fault::Forbidden => 403,
        _ => 500,
    }
}

/// A batch being created: its requests are answered one at a time as they are read, and only
/// the answers are kept (a paper-scale batch is never held as a whole).
struct NewBatch<'a> {
    s: &'a Arc<MockState>,
    path: &'a str,
    behaviour: BatchBehaviour,
    fails: bool,
    expires: bool,
    /// How many requests the batch has (the second half of an expiring batch never runs).
    n: usize,
    items: Vec<(String, Option<ItemResult>)>,
}

impl<'a> NewBatch<'a> {
    fn start(s: &'a Arc<MockState>, path: &'a str, n: usize) -> NewBatch<'a> {
        let behaviour: BatchBehaviour = current_script(s).script.batch.clone();
        let index = {
            let mut b = lock(s);
            b.created += 1;
            b.created
        };
        let fails = behaviour.fail_every > 0 && index <= behaviour.fail_batches;
        let expires = index <= behaviour.expire_batches;
        NewBatch { s, path, behaviour, fails, expires, n, items: Vec::with_capacity(n) }
    }

    /// Answer the next request by the script's rules (or the scripted failure or expiry).
    fn push(&mut self, custom_id: String, body: Value, norm: Result<Normalized, String>) {
        let i = self.items.len();
        if self.expires && i >= self.n / 2 {
            self.items.push((custom_id, None));
            return;
        }
        if self.fails && (i as u32 + 1).is_multiple_of(self.behaviour.fail_every) {
            let why = "The server had an error while processing this request (mock batch failure).".to_string();
            self.items.push((custom_id, Some(Err((500, why)))));
            return;
        }
        let result = match prepare(self.s, self.path, body, norm).0 {
            Answer::Ok(v) => Ok(v),
            Answer::Error(status, msg) => Err((status.as_u16(), msg)),
            Answer::Fault(f) => Err((fault_status(&f), "a scripted fault (mock)".to_string())),
            Answer::Hang(_) => Err((504, "the request timed out (mock)".to_string())),
        };
        self.items.push((custom_id, Some(result)));
    }

    /// Keep the batch; its id.
    fn finish(self, shape: Shape, input_file_id: Option<String>) -> String {
        let mut b = lock(self.s);
        b.next += 1;
        let id = match shape {
            Shape::OpenAi | Shape::Azure => format!("batch_mock_{}", b.next),
            Shape::Anthropic => format!("msgbatch_mock_{}", b.next),
            Shape::Gemini => format!("mock{}", b.next),
        };
        let created_unix = 1_700_000_000 + b.next;
        b.batches.insert(
            id.clone(),
            MockBatch {
                shape,
                created: Instant::now(),
                created_unix,
                delay: Duration::from_millis(self.behaviour.delay_ms),
                input_file_id,
                items: self.items,
                expires: self.expires,
                taken: false,
            },
        );
        id
    }
}

async fn upload(State(s): State<Arc<MockState>>, mut form: Multipart) -> Response {
    let mut purpose = None;
    let mut content = None;
    loop {
        match form.next_field().await {
            Ok(Some(field)) => {
                let name = field.name().unwrap_or("").to_string();
                match field.text().await {
                    Ok(text) if name == "purpose" => purpose = Some(text),
                    Ok(text) if name == "file" => content = Some(text),
                    Ok(_) => {}
                    Err(e) => return error_response(StatusCode::BAD_REQUEST, &format!("unreadable form field: {e}")),
                }
            }
            Ok(None) => break,
            Err(e) => return error_response(StatusCode::BAD_REQUEST, &format!("unreadable upload: {e}")),
        }
    }
    if purpose.as_deref() != Some("batch") {
        return error_response(StatusCode::BAD_REQUEST, "purpose must be \"batch\" (mock)");
    }
    let Some(content) = content else {
        return error_response(StatusCode::BAD_REQUEST, "the upload has no file field (mock)");
    };
    let mut b = lock(&s);
    b.next += 1;
    let id = format!("file-mock-{}", b.next);
    let bytes = content.len();
    b.files.insert(id.clone(), content);
    Json(json!({"id": id, "object": "file", "bytes": bytes, "purpose": "batch", "filename": "batch.jsonl"}))
        .into_response()
}

async fn file_content(State(s): State<Arc<MockState>>, Path(id): Path<String>) -> Response {
    let mut b = lock(&s);
    if let Some(text) = b.files.get(&id) {
        return ([("content-type", "application/jsonl")], text.clone()).into_response();
    }
    // A batch's output and error files are written when they are asked for, from its items.
    let (batch_id, output) = match (id.strip_suffix("-output"), id.strip_suffix("-errors")) {
        (Some(bid), _) => (bid.to_string(), true),
        (_, Some(bid)) => (bid.to_string(), false),
        _ => return not_found("file", &id),
    };
    let Some(batch) = b.batches.get_mut(&batch_id).filter(|x| x.ended()) else {
        return not_found("file", &id);
    };
    if output && batch.taken {
        return already_taken(&batch_id);
    }
    let text = openai_result_file(batch, output);
    if output {
        batch.take_answers();
    }
    ([("content-type", "application/jsonl")], text).into_response()
}

/// The JSONL result file of an ended OpenAI batch: its answers (`output`) or its failures.
fn openai_result_file(batch: &MockBatch, output: bool) -> String {
    let mut text = String::new();
    for (n, (custom_id, result)) in batch.items.iter().enumerate() {
        if matches!(result, Some(Ok(_))) != output {
            continue;
        }
        let line = match result {
            Some(Ok(body)) => json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": {"status_code": 200, "request_id": format!("req_{n}"), "body": body}, "error": null}),
            Some(Err((status, msg))) => json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": {"status_code": status, "request_id": format!("req_{n}"), "body": {"error": {"message": msg, "type": "server_error"}}},
                "error": null}),
            None => json!({"id": format!("batch_req_{n}"), "custom_id": custom_id, "response": null,
                "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}),
        };
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text
}

async fn openai_create(State(s): State<Arc<MockState>>, headers: HeaderMap, body: Bytes) -> Response {
    openai_like_create(&s, Shape::OpenAi, &headers, &body)
}

async fn azure_create(State(s): State<Arc<MockState>>, headers: HeaderMap, body: Bytes) -> Response {
    openai_like_create(&s, Shape::Azure, &headers, &body)
}

fn openai_like_create(s: &Arc<MockState>, shape: Shape, headers: &HeaderMap, body: &Bytes) -> Response {
    let v = match parse_body(body) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let Some(file_id) = v.get("input_file_id").and_then(Value::as_str).map(str::to_string) else {
        return error_response(StatusCode::BAD_REQUEST, "input_file_id is required (mock)");
    };
    if v.get("completion_window").and_then(Value::as_str) != Some("24h") {
        return error_response(StatusCode::BAD_REQUEST, "completion_window must be \"24h\" (mock)");
    }
    // The input file is read once, here: the mock has no further use for it.
    let Some(text) = lock(s).files.remove(&file_id) else {
        return not_found("file", &file_id);
    };
    let lines = || text.lines().filter(|l| !l.trim().is_empty());
    // Checked first, so a broken file creates no batch; then each line is read again and
    // answered on its own.
    for (i, line) in lines().enumerate() {
        if serde_json::from_str::<serde::de::IgnoredAny>(line).is_err() {
            return error_response(
                StatusCode::BAD_REQUEST,
                &format!("line {} of the input file is not JSON (mock)", i + 1),
            );
        }
    }
    let path = if shape == Shape::Azure { "/openai/batches" } else { "/v1/batches" };
    let mut batch = NewBatch::start(s, path, lines().count());
    for line in lines() {
        let Ok(mut row) = serde_json::from_str::<Value>(line) else { continue };
        let custom_id = row.get("custom_id").and_then(Value::as_str).unwrap_or("").to_string();
        let req = row.get_mut("body").map(Value::take).unwrap_or(Value::Null);
        let deployment = req.get("model").and_then(Value::as_str).map(str::to_string);
        let norm = match shape {
            Shape::Azure => normalize::openai(&req, headers, deployment.as_deref()),
            _ => normalize::openai(&req, headers, None),
        };
        batch.push(custom_id, req, norm);
    }
    drop(text);
    let id = batch.finish(shape, Some(file_id));
    let b = lock(s);
    match b.batches.get(&id) {
        Some(batch) => Json(openai_object(&id, batch, &b)).into_response(),
        None => not_found("batch", &id),
    }
}

fn openai_object(id: &str, batch: &MockBatch, _b: &Batches) -> Value {
    let ended = batch.ended();
    let status = match (ended, batch.expires) {
        (false, _) => "in_progress",
        (true, false) => "completed",
        (true, true) => "expired",
    };
    let (done, failed) = if ended { (batch.answered(), batch.failed()) } else { (0, 0) };
    json!({
        "id": id,
        "object": "batch",
        "endpoint": if batch.shape == Shape::Azure { "/chat/completions" } else { "/v1/chat/completions" },
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": status,
        "output_file_id": if ended { Some(format!("{id}-output")) } else { None },
        "error_file_id": if ended && failed > 0 { Some(format!("{id}-errors")) } else { None },
        "created_at": batch.created_unix,
        "request_counts": {"total": batch.items.len(), "completed": done, "failed": failed}
    })
}

async fn openai_get(State(s): State<Arc<MockState>>, Path(id): Path<String>) -> Response {
    let b = lock(&s);
    match b.batches.get(&id) {
        // The result files (`{id}-output`, `{id}-errors`) are written when they are downloaded.
        Some(batch) => Json(openai_object(&id, batch, &b)).into_response(),
        None => not_found("batch", &id),
    }
}

async fn anthropic_create(State(s): State<Arc<MockState>>, headers: HeaderMap, body: Bytes) -> Response {
    const PATH: [&str; 1] = ["requests"];
    // First pass: count and check the ids, so a refused batch creates nothing.
    let mut bad_id = false;
    let counted = for_each_element(&body, &PATH, &mut |r| {
        let id = r.get("custom_id").and_then(Value::as_str).unwrap_or("");
        bad_id |= id.is_empty() || id.len() > 64;
    });
    let n = match counted {
        Ok(n) => n,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, &format!("{e} (mock)")),
    };
    if bad_id {
        return error_response(StatusCode::BAD_REQUEST, "custom_id must have 1 to 64 characters (mock)");
    }
    let mut batch = NewBatch::start(&s, "/v1/messages/batches", n);
    let read = for_each_element(&body, &PATH, &mut |mut r| {
        let custom_id = r.get("custom_id").and_then(Value::as_str).unwrap_or("").to_string();
        let params = r.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        let norm = normalize::anthropic(&params, &headers);
        batch.push(custom_id, params, norm);
    });
    if let Err(e) = read {
        return error_response(StatusCode::BAD_REQUEST, &format!("{e} (mock)"));
    }
    let id = batch.finish(Shape::Anthropic, None);
    anthropic_object(&s, &id, &headers)
}

fn anthropic_object(s: &Arc<MockState>, id: &str, headers: &HeaderMap) -> Response {
    let b = lock(s);
    let Some(batch) = b.batches.get(id) else {
        return not_found("message batch", id);
    };
    let ended = batch.ended();
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    let count = |f: &dyn Fn(&Option<ItemResult>) -> bool| batch.items.iter().filter(|(_, r)| f(r)).count();
    let processing = if ended { 0 } else { batch.items.len() };
    let (ok, errored, expired) = if ended {
        (count(&|r| matches!(r, Some(Ok(_)))), count(&|r| matches!(r, Some(Err(_)))), count(&|r| r.is_none()))
    } else {
        (0, 0, 0)
    };
    Json(json!({
        "id": id,
        "type": "message_batch",
        "processing_status": if ended { "ended" } else { "in_progress" },
        "request_counts": {"processing": processing, "succeeded": ok, "errored": errored, "canceled": 0, "expired": expired},
        "results_url": if ended { Some(format!("http://{host}/v1/messages/batches/{id}/results")) } else { None },
        "created_at": "2026-01-01T00:00:00Z"
    }))
    .into_response()
}

async fn anthropic_get(State(s): State<Arc<MockState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    anthropic_object(&s, &id, &headers)
}

async fn anthropic_results(State(s): State<Arc<MockState>>, Path(id): Path<String>) -> Response {
    let mut b = lock(&s);
    let Some(batch) = b.batches.get_mut(&id) else {
        return not_found("message batch", &id);
    };
    if !batch.ended() {
        return error_response(StatusCode::BAD_REQUEST, "the batch is still processing (mock)");
    }
    if batch.taken {
        return already_taken(&id);
    }
    let mut out = String::new();
    for (custom_id, result) in &batch.items {
        let r = match result {
            Some(Ok(message)) => json!({"type": "succeeded", "message": message}),
            Some(Err((status, msg))) => json!({"type": "errored", "error": {"type": "error",
                "error": {"type": if *status >= 500 { "api_error" } else { "invalid_request_error" }, "message": msg}}}),
            None => json!({"type": "expired"}),
        };
        out.push_str(&json!({"custom_id": custom_id, "result": r}).to_string());
        out.push('\n');
    }
    batch.take_answers();
    ([("content-type", "application/binary")], out).into_response()
}

/// `POST /v1beta/models/{model}:batchGenerateContent`.
pub(super) fn gemini_create(s: &Arc<MockState>, model: &str, headers: &HeaderMap, body: &Bytes) -> Response {
    const PATH: [&str; 4] = ["batch", "input_config", "requests", "requests"];
    let n = match for_each_element(body, &PATH, &mut |_| {}) {
        Ok(n) => n,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, &format!("{e} (mock)")),
    };
    let mut batch = NewBatch::start(s, "/v1beta/models/{model}:batchGenerateContent", n);
    let read = for_each_element(body, &PATH, &mut |mut r| {
        let key = r.pointer("/metadata/key").and_then(Value::as_str).unwrap_or("").to_string();
        let req = r.get_mut("request").map(Value::take).unwrap_or(Value::Null);
        let norm = normalize::gemini(&req, headers, model);
        batch.push(key, req, norm);
    });
    if let Err(e) = read {
        return error_response(StatusCode::BAD_REQUEST, &format!("{e} (mock)"));
    }
    let id = batch.finish(Shape::Gemini, None);
    gemini_operation(s, &id, false)
}

/// The batch as a long-running operation; once it is done the answers are inline. `take`: free
/// them after this read (a poll; the create call's answer leaves them).
fn gemini_operation(s: &Arc<MockState>, id: &str, take: bool) -> Response {
    let mut b = lock(s);
    let Some(batch) = b.batches.get_mut(id) else {
        return not_found("batch", id);
    };
    if batch.taken {
        return already_taken(id);
    }
    let ended = batch.ended();
    let state = match (ended, batch.expires) {
        (false, _) => "BATCH_STATE_RUNNING",
        (true, false) => "BATCH_STATE_SUCCEEDED",
        (true, true) => "BATCH_STATE_EXPIRED",
    };
    let mut op = json!({
        "name": format!("batches/{id}"),
        "metadata": {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "state": state,
            "batchStats": {
                "requestCount": batch.items.len().to_string(),
                "successfulRequestCount": if ended { batch.answered() } else { 0 }.to_string(),
                "failedRequestCount": if ended { batch.failed() } else { 0 }.to_string()
            }
        },
        "done": ended
    });
    if ended {
        let items: Vec<Value> = batch
            .items
            .iter()
            .map(|(key, r)| match r {
                Some(Ok(resp)) => json!({"response": resp, "metadata": {"key": key}}),
                Some(Err((status, msg))) => json!({"error": {"code": status, "message": msg}, "metadata": {"key": key}}),
                None => json!({"error": {"code": 504, "message": "the batch expired before this request ran"}, "metadata": {"key": key}}),
            })
            .collect();
        op["response"] = json!({
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput",
            "inlinedResponses": {"inlinedResponses": items}
        });
        if take {
            batch.take_answers();
        }
    }
    Json(op).into_response()
}

async fn gemini_get(State(s): State<Arc<MockState>>, Path(id): Path<String>) -> Response {
    gemini_operation(&s, &id, true)
}

/// `GET /_mock/batches`: every batch with its size and outcome counts (for tests).
async fn list(State(s): State<Arc<MockState>>) -> Json<Value> {
    let b = lock(&s);
    let mut rows: Vec<(u64, Value)> = b
        .batches
        .iter()
        .map(|(id, batch)| {
            let expired = batch.items.iter().filter(|(_, r)| r.is_none()).count();
            (
                batch.created_unix,
                json!({
                    "id": id,
                    "api": match batch.shape { Shape::OpenAi => "openai", Shape::Azure => "azure", Shape::Anthropic => "anthropic", Shape::Gemini => "gemini" },
                    "requests": batch.items.len(),
                    "answered": batch.answered(),
                    "failed": batch.failed() - expired,
                    "expired": expired,
                    "ended": batch.ended()
                }),
            )
        })
        .collect();
    rows.sort_by_key(|(t, _)| *t);
    Json(Value::Array(rows.into_iter().map(|(_, v)| v).collect()))
}
