//! The mock's HTTP server and reply logic.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::normalize::{self, Api, Normalized};
use super::reset::{ResettableListener, RESET_HEADER};
use super::script::{Fault, ReasoningForm, Reply, Rule, Script};

/// A request as the mock received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub seq: u64,
    pub api: String,
    pub path: String,
    pub model: String,
    /// Which rule answered (name or index), or null.
    pub rule: Option<String>,
    /// What was sent back: "ok" or the fault kind.
    pub outcome: String,
    /// Whether an API key was present (the key itself is not recorded).
    pub had_key: bool,
    pub body: Value,
    pub at_ms: u64,
}

pub(super) struct Compiled {
    pub(super) script: Script,
    last_user: Vec<Option<Regex>>,
    any: Vec<Option<Regex>>,
}

impl Compiled {
    fn new(script: Script) -> Compiled {
        let re = |s: &Option<String>| s.as_ref().and_then(|r| Regex::new(r).ok());
        let last_user = script.rules.iter().map(|r| re(&r.when.last_user_regex)).collect();
        let any = script.rules.iter().map(|r| re(&r.when.any_regex)).collect();
        Compiled { script, last_user, any }
    }
}

pub(super) struct MockState {
    compiled: RwLock<Arc<Compiled>>,
    /// Uploaded files and created batches (see `batch`).
    pub(super) batches: Mutex<super::batch::Batches>,
    /// Per rule: how many times it matched (for `replies` sequences and `fail_first`).
    counters: Mutex<HashMap<usize, usize>>,
    rng: Mutex<ChaCha8Rng>,
    requests: Mutex<Vec<RecordedRequest>>,
    seq: AtomicU64,
    started: Instant,
    record: bool,
    /// Chat requests being answered now, and the most at once (see `peak_in_flight`).
    in_flight: InFlight,
    /// The demo model, for scripts with `demo` set.
    demo: super::demo::DemoModel,
}

/// Counts chat requests being answered at once.
#[derive(Default)]
struct InFlight {
    now: AtomicU64,
    peak: AtomicU64,
}

/// One request being answered; dropping it (however the handler ends) counts it out.
struct Answering<'a>(&'a InFlight);

impl<'a> Answering<'a> {
    fn start(f: &'a InFlight) -> Answering<'a> {
        let now = f.now.fetch_add(1, Ordering::SeqCst) + 1;
        f.peak.fetch_max(now, Ordering::SeqCst);
        Answering(f)
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A running mock server. Dropping it stops the server.
pub struct MockServer {
    addr: SocketAddr,
    state: Arc<MockState>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            // Fails only when the server task has already ended.
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

impl MockServer {
    /// Start on 127.0.0.1 (port 0 = any free port). Must be called inside a tokio runtime.
    pub async fn start(script: Script, port: u16) -> std::io::Result<MockServer> {
        Self::start_with(script, port, true).await
    }

    /// Start without recording requests (benchmarks): `requests()` stays empty.
    pub async fn start_with(script: Script, port: u16, record: bool) -> std::io::Result<MockServer> {
        let state = Arc::new(MockState {
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(script.seed)),
            compiled: RwLock::new(Arc::new(Compiled::new(script))),
            counters: Mutex::new(HashMap::new()),
            batches: Mutex::new(Default::default()),
            requests: Mutex::new(Vec::new()),
            seq: AtomicU64::new(0),
            started: Instant::now(),
            record,
            in_flight: InFlight::default(),
            demo: Default::default(),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(openai_handler))
            .route("/chat/completions", post(openai_handler))
            .route("/openai/deployments/{deployment}/chat/completions", post(azure_handler))
            .route("/v1/messages", post(anthropic_handler))
            .route("/v1beta/models/{model_action}", post(gemini_handler))
            .route("/_mock/requests", get(list_requests))
            .route("/_mock/reset", post(reset))
            .route("/_mock/script", post(replace_script))
            .route("/_mock/health", get(|| async { "ok" }))
            .route("/v1/models", get(list_models))
            .merge(super::batch::routes())
            .fallback(no_such_path)
            // Batch uploads and inline batches are far larger than axum's 2 MB default; the
            // providers accept up to 200 MB (OpenAI files) and 256 MB (Anthropic).
            .layer(axum::extract::DefaultBodyLimit::max(super::batch::MAX_BODY_BYTES))
            .with_state(state.clone());
        let listener = ResettableListener(tokio::net::TcpListener::bind(("127.0.0.1", port)).await?);
        let addr = listener.0.local_addr()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    // A dropped sender means "stop" as well.
                    let _ = rx.await;
                })
                .await;
            if let Err(e) = served {
                tracing::warn!(%addr, error = %e, "the mock provider stopped with an error");
            }
        });
        Ok(MockServer { addr, state, shutdown: Some(tx), task: Some(task) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Base URL for OpenAI-compatible clients (`…/v1`).
    pub fn openai_base(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Base URL for Anthropic, Gemini and Azure clients.
    pub fn root(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn request_count(&self) -> u64 {
        self.state.seq.load(Ordering::SeqCst)
    }

    /// The most chat requests the mock was answering at the same time (since start or the last
    /// `reset_peak_in_flight`).
    pub fn peak_in_flight(&self) -> u64 {
        self.state.in_flight.peak.load(Ordering::SeqCst)
    }

    pub fn reset_peak_in_flight(&self) {
        self.state.in_flight.peak.store(self.state.in_flight.now.load(Ordering::SeqCst), Ordering::SeqCst);
    }

    pub fn set_script(&self, script: Script) {
        set_script(&self.state, script);
    }

    /// Wait until the server is stopped from outside (CLI `serve`).
    pub async fn run_until_ctrl_c(mut self) {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "could not wait for Ctrl-C; stopping the mock provider now");
        }
        if let Some(tx) = self.shutdown.take() {
            // Fails only when the server task has already ended.
            let _ = tx.send(());
        }
    }
}

/// The script in use.
pub(super) fn current_script(state: &MockState) -> Arc<Compiled> {
    state.compiled.read().unwrap_or_else(|p| p.into_inner()).clone()
}

fn set_script(state: &MockState, script: Script) {
    *state.rng.lock().unwrap_or_else(|p| p.into_inner()) = ChaCha8Rng::seed_from_u64(script.seed);
    *state.compiled.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(Compiled::new(script));
    state.counters.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// Any other path: counted and recorded like a chat request (outcome `no_such_path`), then
/// HTTP 404 with a plain-text body, as a web server that is not a model API answers.
async fn no_such_path(State(s): State<Arc<MockState>>, uri: axum::http::Uri) -> Response {
    let seq = s.seq.fetch_add(1, Ordering::SeqCst) + 1;
    let record = RecordedRequest {
        seq,
        api: String::new(),
        path: uri.path().to_string(),
        model: String::new(),
        rule: None,
        outcome: "no_such_path".into(),
        had_key: false,
        body: Value::Null,
        at_ms: s.started.elapsed().as_millis() as u64,
    };
    push(&s, record);
    (StatusCode::NOT_FOUND, "Not Found").into_response()
}

/// The OpenAI-style model list: the script's `served_models`, else the model names its rules name.
async fn list_models(State(s): State<Arc<MockState>>) -> Json<Value> {
    let compiled = s.compiled.read().unwrap_or_else(|p| p.into_inner()).clone();
    let script = &compiled.script;
    let mut ids: Vec<String> = script.served_models.clone();
    if ids.is_empty() {
        for r in &script.rules {
            if let Some(m) = &r.when.model {
                if !ids.contains(m) {
                    ids.push(m.clone());
                }
            }
        }
    }
    if ids.is_empty() {
        ids.push("mock-model".into());
    }
    let entry = |id: &String| {
        if script.demo {
            json!({"id": id, "object": "model", "owned_by": super::demo::DEMO_OWNER,
                   "description": super::demo::DEMO_DESCRIPTION, "simulation": true})
        } else {
            json!({"id": id, "object": "model", "owned_by": "mock"})
        }
    };
    Json(json!({"object": "list", "data": ids.iter().map(entry).collect::<Vec<_>>()}))
}

async fn list_requests(State(s): State<Arc<MockState>>) -> Json<Vec<RecordedRequest>> {
    Json(s.requests.lock().unwrap_or_else(|p| p.into_inner()).clone())
}

async fn reset(State(s): State<Arc<MockState>>) -> StatusCode {
    s.requests.lock().unwrap_or_else(|p| p.into_inner()).clear();
    s.counters.lock().unwrap_or_else(|p| p.into_inner()).clear();
    *s.batches.lock().unwrap_or_else(|p| p.into_inner()) = Default::default();
    s.seq.store(0, Ordering::SeqCst);
    StatusCode::NO_CONTENT
}

async fn replace_script(State(s): State<Arc<MockState>>, body: String) -> Response {
    match Script::from_json(&body) {
        Ok(script) => {
            set_script(&s, script);
            StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => (StatusCode::BAD_REQUEST, e).into_response(),
    }
}

// axum's `Response` is what every handler returns on failure; boxing it here would only move it.
#[allow(clippy::result_large_err)]
pub(super) fn parse_body(bytes: &Bytes) -> Result<Value, Response> {
    serde_json::from_slice(bytes)
        .map_err(|e| error_response(StatusCode::BAD_REQUEST, &format!("request body is not valid JSON: {e}")))
}

pub(super) fn error_response(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"error": {"message": message, "type": "invalid_request_error"}}))).into_response()
}

async fn openai_handler(State(s): State<Arc<MockState>>, headers: HeaderMap, body: Bytes) -> Response {
    let v = match parse_body(&body) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let norm = normalize::openai(&v, &headers, None);
    respond(&s, "/v1/chat/completions", v, norm).await
}

#[derive(Deserialize)]
struct AzureQuery {
    #[serde(rename = "api-version")]
    api_version: Option<String>,
}

async fn azure_handler(
    State(s): State<Arc<MockState>>,
    Path(deployment): Path<String>,
    Query(q): Query<AzureQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if q.api_version.is_none() {
        return error_response(StatusCode::BAD_REQUEST, "api-version query parameter is required");
    }
    let v = match parse_body(&body) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let norm = normalize::openai(&v, &headers, Some(&deployment));
    respond(&s, "/openai/deployments/{deployment}/chat/completions", v, norm).await
}

async fn anthropic_handler(State(s): State<Arc<MockState>>, headers: HeaderMap, body: Bytes) -> Response {
    let v = match parse_body(&body) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let norm = normalize::anthropic(&v, &headers);
    respond(&s, "/v1/messages", v, norm).await
}

async fn gemini_handler(
    State(s): State<Arc<MockState>>,
    Path(model_action): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(model) = model_action.strip_suffix(":batchGenerateContent") {
        return super::batch::gemini_create(&s, model, &headers, &body);
    }
    let Some(model) = model_action.strip_suffix(":generateContent") else {
        return error_response(StatusCode::NOT_FOUND, "only :generateContent is supported by the mock");
    };
    let v = match parse_body(&body) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let norm = normalize::gemini(&v, &headers, model);
    respond(&s, "/v1beta/models/{model}:generateContent", v, norm).await
}

/// Which rule matches, with its regex captures.
fn find_rule(c: &Compiled, n: &Normalized) -> Option<(usize, Vec<String>)> {
    for (i, r) in c.script.rules.iter().enumerate() {
        let w = &r.when;
        if w.api.as_deref().map(|a| a != n.api.as_str()).unwrap_or(false) {
            continue;
        }
        if w.model.as_deref().map(|m| m != n.model).unwrap_or(false) {
            continue;
        }
        if w.system_contains.as_deref().map(|t| !n.system.contains(t)).unwrap_or(false) {
            continue;
        }
        if w.last_user_contains.as_deref().map(|t| !n.last_user().contains(t)).unwrap_or(false) {
            continue;
        }
        if w.user_turns_min.map(|m| n.user_turns() < m).unwrap_or(false)
            || w.user_turns_max.map(|m| n.user_turns() > m).unwrap_or(false)
        {
            continue;
        }
        if w.response_format.as_deref().map(|f| f != n.response_format).unwrap_or(false) {
            continue;
        }
        if let Some(re) = &c.any[i] {
            if !re.is_match(&n.all_text()) {
                continue;
            }
        }
        let mut caps = Vec::new();
        if let Some(re) = &c.last_user[i] {
            match re.captures(n.last_user()) {
                Some(cap) => caps = cap.iter().map(|m| m.map(|m| m.as_str().to_string()).unwrap_or_default()).collect(),
                None => continue,
            }
        }
        return Some((i, caps));
    }
    None
}

fn fill(template: &str, n: &Normalized, caps: &[String], seq: u64) -> String {
    let mut out = template
        .replace("{{last_user}}", n.last_user())
        .replace("{{system}}", &n.system)
        .replace("{{model}}", &n.model)
        .replace("{{n}}", &seq.to_string())
        .replace("{{user_turns}}", &n.user_turns().to_string());
    for (i, c) in caps.iter().enumerate().rev() {
        out = out.replace(&format!("{{{{{i}}}}}"), c);
    }
    out
}

fn fill_value(v: &Value, n: &Normalized, caps: &[String], seq: u64) -> Value {
    match v {
        Value::String(s) => Value::String(fill(s, n, caps, seq)),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill_value(x, n, caps, seq)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), fill_value(x, n, caps, seq))).collect()),
        other => other.clone(),
    }
}

fn reply_text(reply: &Reply, n: &Normalized, caps: &[String], seq: u64) -> String {
    match reply {
        Reply::Text { text } => text.clone(),
        Reply::Json { json } => fill_value(json, n, caps, seq).to_string(),
        Reply::Template { template } => fill(template, n, caps, seq),
        Reply::Reasoned { answer, .. } => answer.as_ref().map(|a| reply_text(a, n, caps, seq)).unwrap_or_default(),
    }
}

/// A reasoning reply's reasoning as the mock sends it.
struct Reasoning {
    text: String,
    form: ReasoningForm,
    cut_off: bool,
}

fn reply_reasoning(reply: &Reply, n: &Normalized, caps: &[String], seq: u64) -> Option<Reasoning> {
    match reply {
        Reply::Reasoned { reasoning, form, cut_off, .. } => {
            Some(Reasoning { text: fill(reasoning, n, caps, seq), form: *form, cut_off: *cut_off })
        }
        _ => None,
    }
}

/// The reply's content and the reasoning sent apart from it (with the OpenAI field that holds
/// it), once the reasoning is put where its form says.
fn place_reasoning(api: Api, answer: String, r: &Reasoning) -> (String, Option<(&'static str, String)>) {
    let answer = if r.cut_off { String::new() } else { answer };
    let inline = |open: &str, close: &str| {
        if r.cut_off {
            format!("{open}{}", r.text)
        } else {
            format!("{open}{}{close}\n\n{answer}", r.text)
        }
    };
    match r.form {
        ReasoningForm::ThinkTags => (inline("<think>\n", "\n</think>"), None),
        ReasoningForm::ThinkingTags => (inline("<thinking>\n", "\n</thinking>"), None),
        ReasoningForm::ThinkClose => (inline("", "\n</think>"), None),
        ReasoningForm::ReasoningField if matches!(api, Api::OpenAi | Api::Azure) => {
            (answer, Some(("reasoning", r.text.clone())))
        }
        ReasoningForm::Native | ReasoningForm::ReasoningContent | ReasoningForm::ReasoningField => {
            (answer, Some(("reasoning_content", r.text.clone())))
        }
    }
}

fn fault_name(f: &Fault) -> &'static str {
    match f {
        Fault::RateLimit { .. } => "rate_limit",
        Fault::ServerError => "server_error",
        Fault::Unavailable => "unavailable",
        Fault::BadRequest => "bad_request",
        Fault::Unauthorized => "unauthorized",
        Fault::Forbidden => "forbidden",
        Fault::Timeout { .. } => "timeout",
        Fault::Slow { .. } => "slow",
        Fault::MalformedJson => "malformed_json",
        Fault::Truncated => "truncated",
        Fault::WrongContentType => "wrong_content_type",
        Fault::Reset => "reset",
    }
}

fn estimate_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4).max(1)
}

/// What the mock answers to one request, before any waiting.
pub(super) enum Answer {
    Ok(Value),
    Error(StatusCode, String),
    Fault(Fault),
    /// Hold the request this long, then answer 504.
    Hang(u64),
}

/// Answer a request (over HTTP, waiting out the scripted latency).
async fn respond(s: &Arc<MockState>, path: &str, body: Value, norm: Result<Normalized, String>) -> Response {
    let _answering = Answering::start(&s.in_flight);
    let (answer, latency) = prepare(s, path, body, norm);
    if latency > 0 {
        tokio::time::sleep(Duration::from_millis(latency)).await;
    }
    match answer {
        Answer::Ok(v) => Json(v).into_response(),
        Answer::Error(status, msg) => error_response(status, &msg),
        Answer::Fault(f) => fault_response(&f),
        Answer::Hang(ms) => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            error_response(StatusCode::GATEWAY_TIMEOUT, "the mock held this request on purpose")
        }
    }
}

/// Record a request and decide its answer and the latency to wait before it (also used for the
/// requests inside a batch, which do not wait).
pub(super) fn prepare(s: &Arc<MockState>, path: &str, body: Value, norm: Result<Normalized, String>) -> (Answer, u64) {
    let seq = s.seq.fetch_add(1, Ordering::SeqCst) + 1;
    let compiled = s.compiled.read().unwrap_or_else(|p| p.into_inner()).clone();
    let script = &compiled.script;
    let mut record = RecordedRequest {
        seq,
        api: String::new(),
        path: path.to_string(),
        model: String::new(),
        rule: None,
        outcome: "ok".into(),
        had_key: false,
        body: if s.record { body } else { Value::Null },
        at_ms: s.started.elapsed().as_millis() as u64,
    };
    let n = match norm {
        Ok(n) => n,
        Err(msg) => {
            record.outcome = "invalid_request".into();
            push(s, record);
            return (Answer::Error(StatusCode::BAD_REQUEST, msg), 0);
        }
    };
    record.api = n.api.as_str().to_string();
    record.model = n.model.clone();
    record.had_key = n.key.is_some();
    if script.refuse_response_formats.iter().any(|f| f == &n.response_format) {
        record.outcome = "format_refused".into();
        push(s, record);
        let msg =
            format!("response_format: input should be one of the supported types, not '{}' (mock)", n.response_format);
        return (Answer::Error(StatusCode::INTERNAL_SERVER_ERROR, msg), 0);
    }
    if let Some(required) = &script.require_key {
        if n.key.as_deref() != Some(required.as_str()) {
            record.outcome = "unauthorized".into();
            push(s, record);
            // Like some real providers, echo the key that was sent (clients must scrub it).
            let shown = n.key.clone().unwrap_or_default();
            return (Answer::Error(StatusCode::UNAUTHORIZED, format!("Incorrect API key provided: {shown}.")), 0);
        }
    }
    if !script.known_models.is_empty() && !script.known_models.contains(&n.model) {
        record.outcome = "model_not_found".into();
        push(s, record);
        let msg = format!("The model `{}` does not exist or you do not have access to it (mock).", n.model);
        return (Answer::Error(StatusCode::NOT_FOUND, msg), 0);
    }
    let matched = find_rule(&compiled, &n);
    let rule: Option<&Rule> = matched.as_ref().map(|(i, _)| &script.rules[*i]);
    record.rule = matched.as_ref().map(|(i, _)| script.rules[*i].name.clone().unwrap_or_else(|| format!("#{}", i + 1)));
    // Which occurrence of this rule is this?
    let occurrence = matched.as_ref().map(|(i, _)| {
        let mut c = s.counters.lock().unwrap_or_else(|p| p.into_inner());
        let e = c.entry(*i).or_insert(0);
        *e += 1;
        *e - 1
    });
    // Faults: the rule's scripted first failures, then random ones.
    let mut fault: Option<Fault> = None;
    if let (Some(r), Some(k)) = (rule, occurrence) {
        if k < r.fail_first.len() {
            fault = Some(r.fail_first[k].clone());
        }
    }
    if fault.is_none() && !script.faults.is_empty() {
        let mut rng = s.rng.lock().unwrap_or_else(|p| p.into_inner());
        for f in &script.faults {
            if rng.random_bool(f.rate.clamp(0.0, 1.0)) {
                fault = Some(f.fault.clone());
                break;
            }
        }
    }
    let mut latency = script.latency_ms + rule.and_then(|r| r.latency_ms).unwrap_or(0);
    if let Some(f) = &fault {
        record.outcome = fault_name(f).into();
        match f {
            Fault::Slow { extra_ms } => latency += *extra_ms,
            Fault::Timeout { hang_ms } => {
                push(s, record);
                return (Answer::Hang(*hang_ms), latency);
            }
            other => {
                push(s, record);
                return (Answer::Fault(other.clone()), latency);
            }
        }
    }
    // The reply text.
    let reply: Option<&Reply> = match (rule, occurrence) {
        (Some(r), Some(k)) => {
            let k = k.saturating_sub(r.fail_first.len());
            if !r.replies.is_empty() {
                r.replies.get(k).or(r.replies.last())
            } else {
                r.reply.as_ref()
            }
        }
        _ => script.default_reply.as_ref(),
    };
    let demo_reply;
    let reply = match reply {
        None if script.demo => {
            record.rule = Some("demo".into());
            demo_reply = Reply::Text { text: s.demo.reply(&n) };
            Some(&demo_reply)
        }
        other => other,
    };
    let Some(reply) = reply else {
        record.outcome = "no_rule".into();
        push(s, record);
        let msg = format!(
            "mock: no rule matched this {} request for model {} and the script has no default_reply",
            n.api.as_str(),
            n.model
        );
        return (Answer::Error(StatusCode::BAD_REQUEST, msg), latency);
    };
    let caps = matched.map(|(_, c)| c).unwrap_or_default();
    let mut text = reply_text(reply, &n, &caps, seq);
    if let Some(p) = &n.prefill {
        // The client prefilled the start of the answer; continue after it.
        if let Some(rest) = text.trim_start().strip_prefix(p.trim()) {
            text = rest.to_string();
        }
    }
    let thinking = reply_reasoning(reply, &n, &caps, seq);
    let answer_chars = if thinking.as_ref().is_some_and(|r| r.cut_off) { 0 } else { text.len() };
    let (text, apart) = match &thinking {
        Some(r) => place_reasoning(n.api, text, r),
        None => (text, None),
    };
    let cut_off = thinking.as_ref().is_some_and(|r| r.cut_off);
    let over = rule.and_then(|r| r.usage.clone()).unwrap_or_default();
    let input = over.input_tokens.unwrap_or_else(|| estimate_tokens(n.input_chars()));
    let cached =
        over.cached_input_tokens.unwrap_or_else(|| (input as f64 * script.cached_fraction.clamp(0.0, 1.0)) as u64);
    let reasoning =
        over.reasoning_tokens.unwrap_or_else(|| thinking.as_ref().map(|r| estimate_tokens(r.text.len())).unwrap_or(0));
    // Every generated token, the reasoning included, as OpenAI and Anthropic count them.
    let output = over.output_tokens.unwrap_or_else(|| {
        let answer = if answer_chars > 0 { estimate_tokens(answer_chars) } else { 0 };
        (answer + reasoning).max(1)
    });
    push(s, record);
    let body = match n.api {
        Api::OpenAi | Api::Azure => {
            let mut message = json!({"role": "assistant", "content": text});
            if let Some((field, r)) = apart {
                if text.is_empty() {
                    message["content"] = Value::Null;
                }
                message[field] = json!(r);
            }
            json!({
                "id": format!("chatcmpl-mock-{seq}"),
                "object": "chat.completion",
                "created": 1_700_000_000u64 + seq,
                "model": n.model,
                "choices": [{"index": 0, "message": message, "finish_reason": if cut_off { "length" } else { "stop" }}],
                "usage": {
                    "prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output,
                    "prompt_tokens_details": {"cached_tokens": cached},
                    "completion_tokens_details": {"reasoning_tokens": reasoning}
                }
            })
        }
        Api::Anthropic => {
            let mut content: Vec<Value> = Vec::new();
            if let Some((_, r)) = apart {
                content.push(json!({"type": "thinking", "thinking": r, "signature": format!("mock-signature-{seq}")}));
            }
            match (&n.forced_tool, serde_json::from_str::<Value>(&text)) {
                (Some(name), Ok(input_json)) => content.push(
                    json!({"type": "tool_use", "id": format!("toolu_mock_{seq}"), "name": name, "input": input_json}),
                ),
                _ if text.is_empty() && !content.is_empty() => {}
                _ => content.push(json!({"type": "text", "text": text})),
            }
            let stop = if cut_off {
                "max_tokens"
            } else if n.forced_tool.is_some() {
                "tool_use"
            } else {
                "end_turn"
            };
            json!({
                "id": format!("msg_mock_{seq}"), "type": "message", "role": "assistant", "model": n.model,
                "content": content,
                "stop_reason": stop,
                "usage": {"input_tokens": input - cached, "output_tokens": output, "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0}
            })
        }
        Api::Gemini => {
            let mut parts: Vec<Value> = Vec::new();
            if let Some((_, r)) = apart {
                parts.push(json!({"text": r, "thought": true}));
            }
            if !text.is_empty() || parts.is_empty() {
                parts.push(json!({"text": text}));
            }
            // Gemini counts the answer and the thinking apart.
            let candidates = output.saturating_sub(reasoning);
            json!({
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": if cut_off { "MAX_TOKENS" } else { "STOP" }, "index": 0}],
                "usageMetadata": {
                    "promptTokenCount": input, "candidatesTokenCount": candidates, "totalTokenCount": input + output,
                    "cachedContentTokenCount": cached, "thoughtsTokenCount": reasoning
                },
                "modelVersion": n.model
            })
        }
    };
    (Answer::Ok(body), latency)
}

fn push(s: &MockState, r: RecordedRequest) {
    // A mock started without recording (benchmarks) keeps no list: at paper scale it would grow
    // by a record per request. `request_count` still counts them.
    if !s.record {
        return;
    }
    s.requests.lock().unwrap_or_else(|p| p.into_inner()).push(r);
}

fn fault_response(f: &Fault) -> Response {
    match f {
        Fault::RateLimit { retry_after_secs } => {
            let mut r = error_response(StatusCode::TOO_MANY_REQUESTS, "Rate limit reached (mock).");
            if let Some(secs) = retry_after_secs {
                if let Ok(v) = HeaderValue::from_str(&format!("{secs}")) {
                    r.headers_mut().insert("retry-after", v);
                }
            }
            r
        }
        Fault::ServerError => error_response(StatusCode::INTERNAL_SERVER_ERROR, "The server had an error (mock)."),
        Fault::Unavailable => error_response(StatusCode::SERVICE_UNAVAILABLE, "Overloaded (mock)."),
        Fault::BadRequest => error_response(StatusCode::BAD_REQUEST, "Invalid request (mock)."),
        Fault::Unauthorized => error_response(StatusCode::UNAUTHORIZED, "Incorrect API key provided (mock)."),
        Fault::Forbidden => error_response(StatusCode::FORBIDDEN, "This key may not use this model (mock)."),
        Fault::MalformedJson => Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "application/json")
            .body(Body::from("{\"choices\": [ {\"message\": oops"))
            .unwrap_or_else(|_| StatusCode::OK.into_response()),
        Fault::Truncated => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(Bytes::from_static(
                    b"{\"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"par",
                )),
                Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "mock truncation")),
            ];
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "application/json")
                .body(Body::from_stream(futures::stream::iter(chunks)))
                .unwrap_or_else(|_| StatusCode::OK.into_response())
        }
        Fault::WrongContentType => Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "text/html")
            .body(Body::from("<html><body>502 Bad Gateway</body></html>"))
            .unwrap_or_else(|_| StatusCode::OK.into_response()),
        Fault::Reset => {
            let mut r = StatusCode::INTERNAL_SERVER_ERROR.into_response();
            r.headers_mut().insert(RESET_HEADER, HeaderValue::from_static("1"));
            r
        }
        Fault::Slow { .. } | Fault::Timeout { .. } => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
