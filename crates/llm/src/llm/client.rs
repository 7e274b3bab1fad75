//! The one way the engine talks to models: cache, adaptive concurrency, bounded retries with
//! backoff, timeouts, cancellation, accounting, key handling. Providers differ only in `wire`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::accounting::{self, CallContext, CallRecord};
use super::batch::{BatchSettings, Batcher};
use super::cache;
use super::config::ModelConfig;
use super::error::LlmError;
use super::limiter::{AdaptiveLimiter, LiftGuard, LimiterSnapshot};
use super::origin;
use super::retry::{parse_retry_after, RetryPolicy};
use super::types::{ChatRequest, ChatResponse, ResponseFormat};
use super::wire::{self, ParsedReply};
use crate::error::ApiResult;
use crate::secrets::{model_account, Secret, SecretStore, SessionKeys};
use crate::store::Store;

#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub retry: RetryPolicy,
    /// Read and write the response cache.
    pub use_cache: bool,
    pub connect_timeout: Duration,
    /// Timing of batch mode (gathering, polling, rounds).
    pub batch: BatchSettings,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            retry: RetryPolicy::default(),
            use_cache: true,
            connect_timeout: Duration::from_secs(10),
            batch: BatchSettings::default(),
        }
    }
}

/// A registered model with its key resolved, ready to call.
#[derive(Clone, Debug)]
pub struct ModelHandle {
    pub cfg: ModelConfig,
    key: Option<Secret>,
    /// Calls go through the provider's batch API (see `batch`).
    batch: bool,
    /// The model's server is on this machine (called without the system's proxy), read once.
    loopback: bool,
}

impl ModelHandle {
    /// A handle with an explicit key (tests, one-off tools).
    pub fn with_key(cfg: ModelConfig, key: Option<&str>) -> ModelHandle {
        let loopback = cfg.is_loopback();
        ModelHandle { cfg, key: key.map(Secret::new), batch: false, loopback }
    }
    /// The same model, called through its provider's batch API when `on` and the provider has
    /// one (an OpenAI-compatible server is still called directly).
    pub fn batched(mut self, on: bool) -> ModelHandle {
        self.batch = on && self.cfg.supports_batch();
        self
    }
    /// Whether calls go through a batch.
    pub fn is_batched(&self) -> bool {
        self.batch
    }
    pub(crate) fn key_str(&self) -> Option<&str> {
        self.key.as_ref().map(Secret::expose)
    }
    /// `s` with the key blanked out.
    pub(crate) fn scrub_text(&self, s: &str) -> String {
        self.scrub(s)
    }
    fn scrub(&self, s: &str) -> String {
        match &self.key {
            Some(k) => k.scrub(s),
            None => s.to_string(),
        }
    }
}

pub struct LlmClient {
    http: origin::Clients,
    store: Store,
    secrets: Arc<dyn SecretStore>,
    /// Keys held in memory for this session (no OS keyring); looked up before anything else.
    session_keys: Arc<SessionKeys>,
    limiters: Mutex<HashMap<String, Arc<AdaptiveLimiter>>>,
    /// Structured-output modes a server refused, by model name (see `weaker_format`): later calls
    /// to that model start at the mode it accepted.
    refused_formats: Mutex<HashMap<String, u8>>,
    batcher: Batcher,
    opts: ClientOptions,
}

/// How strict a response format is: 2 a JSON schema, 1 any JSON object, 0 plain text.
fn format_level(f: &ResponseFormat) -> u8 {
    match f {
        ResponseFormat::JsonSchema { .. } => 2,
        ResponseFormat::Json => 1,
        ResponseFormat::Text => 0,
    }
}

/// Whether a refusal is about the structured-output request itself (local servers such as
/// llama.cpp's answer `json_schema` with a validation error): then a weaker mode is tried.
fn refuses_format(e: &LlmError, f: &ResponseFormat) -> bool {
    let body = match e {
        LlmError::Rejected { status, body, .. } | LlmError::Server { status, body, .. } if *status != 429 => body,
        _ => return false,
    };
    let b = body.to_lowercase();
    format_level(f) > 0 && (b.contains("response_format") || b.contains("json_schema") || b.contains("json_object"))
}

/// The next weaker mode: a schema becomes any JSON object, a JSON object becomes plain text (the
/// prompts still ask for JSON, and replies are read leniently).
fn weaker_format(f: &ResponseFormat) -> ResponseFormat {
    match f {
        ResponseFormat::JsonSchema { .. } => ResponseFormat::Json,
        _ => ResponseFormat::Text,
    }
}

const BODY_EXCERPT: usize = 300;

fn excerpt(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let s = s.trim();
    if s.chars().count() > BODY_EXCERPT {
        format!("{}…", s.chars().take(BODY_EXCERPT).collect::<String>())
    } else {
        s.to_string()
    }
}

impl LlmClient {
    pub fn new(store: Store, secrets: Arc<dyn SecretStore>, opts: ClientOptions) -> LlmClient {
        // No redirect is followed, for direct and batch calls alike (see `origin`): a 3xx is an
        // error, so the key and the case text go only to the model's own address.
        // Loopback model servers are called without the system's proxy (see `origin::Clients`).
        let connect_timeout = opts.connect_timeout;
        let http = origin::Clients::new(|| {
            reqwest::Client::builder()
                .connect_timeout(connect_timeout)
                .pool_max_idle_per_host(256)
                .tcp_nodelay(true)
                // Retries are this client's own (`retry`); reqwest's would copy every request first.
                .retry(reqwest::retry::never())
        });
        LlmClient {
            http: http.clone(),
            store: store.clone(),
            secrets,
            session_keys: Arc::default(),
            limiters: Mutex::new(HashMap::new()),
            refused_formats: Mutex::new(HashMap::new()),
            batcher: Batcher::new(http.clone(), store.clone(), opts.batch.clone()),
            opts,
        }
    }

    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    pub fn set_use_cache(&mut self, on: bool) {
        self.opts.use_cache = on;
    }

    pub fn secrets(&self) -> &Arc<dyn SecretStore> {
        &self.secrets
    }

    /// The keys held in memory for this session.
    pub fn session_keys(&self) -> &Arc<SessionKeys> {
        &self.session_keys
    }

    /// The same client sharing another client's session keys (a one-off client for a test call).
    pub fn with_session_keys(mut self, keys: Arc<SessionKeys>) -> Self {
        self.session_keys = keys;
        self
    }

    /// Find the model's key: one held in memory for this session, else its environment
    /// variable, else the OS keyring.
    pub fn resolve(&self, cfg: ModelConfig) -> Result<ModelHandle, LlmError> {
        let key = if let Some(k) = self.session_keys.get(&model_account(&cfg.name)) {
            Some(k)
        } else if let Some(var) = &cfg.api_key_env {
            match std::env::var(var) {
                Ok(v) if !v.trim().is_empty() => Some(Secret::new(v.trim())),
                _ => {
                    return Err(LlmError::Config(format!(
                        "{}: the environment variable {var} that should hold its API key is not set. PSEBench Studio reads \
                         environment variables when it starts: set {var}, then start the app (or `psebench serve`) again.",
                        cfg.name
                    )))
                }
            }
        } else if cfg.key_in_keyring {
            match self.secrets.get(&model_account(&cfg.name)).map_err(|e| LlmError::Secrets(e.to_string()))? {
                Some(k) => Some(Secret::new(k)),
                None => return Err(LlmError::MissingKey { model: cfg.name.clone() }),
            }
        } else {
            None
        };
        if key.is_none() && cfg.kind.requires_key() && !cfg.is_local() {
            return Err(LlmError::MissingKey { model: cfg.name.clone() });
        }
        let loopback = cfg.is_loopback();
        Ok(ModelHandle { cfg, key, batch: false, loopback })
    }

    fn limiter(&self, cfg: &ModelConfig) -> Arc<AdaptiveLimiter> {
        let mut m = self.limiters.lock().unwrap_or_else(|p| p.into_inner());
        m.entry(cfg.base_url.clone()).or_insert_with(|| AdaptiveLimiter::new(cfg.concurrency)).clone()
    }

    /// Current concurrency limit for an endpoint (for progress displays and tests).
    pub fn current_limit(&self, cfg: &ModelConfig) -> u32 {
        self.limiter(cfg).limit()
    }

    /// Let the model's endpoint take up to `to` requests at once while the guard lives (a run
    /// asking for more than the model's registered `concurrency`). Two lifts of one endpoint
    /// take the larger; the registered value is back when the last guard is dropped. A 429
    /// still halves the limit.
    pub fn lift(&self, cfg: &ModelConfig, to: u32) -> LiftGuard {
        self.limiter(cfg).lift(to)
    }

    /// What the model's endpoint limiter is doing now: limit, requests in flight, ceiling, cuts.
    pub fn endpoint_snapshot(&self, cfg: &ModelConfig) -> LimiterSnapshot {
        self.limiter(cfg).snapshot()
    }

    /// Apply the model's registered defaults to fields the request leaves open.
    fn with_defaults(cfg: &ModelConfig, req: &ChatRequest) -> ChatRequest {
        let mut r = req.clone();
        r.temperature = r.temperature.or(cfg.temperature);
        r.top_p = r.top_p.or(cfg.top_p);
        r.max_tokens = r.max_tokens.or(cfg.max_tokens);
        r.seed = r.seed.or(cfg.seed);
        r
    }

    /// Send one chat request with the full middleware.
    pub async fn chat(
        &self,
        m: &ModelHandle,
        req: &ChatRequest,
        ctx: &CallContext,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        if let Some(chain) = &ctx.chain {
            // The item's earlier replies are on disk before this call is made (see `chain`).
            chain.settle().await;
        }
        let req = Self::with_defaults(&m.cfg, req);
        let key = cache::key(&m.cfg, &req);
        if self.opts.use_cache {
            match Box::pin(cache::get(&self.store, &key)).await {
                Ok(Some(mut hit)) => {
                    hit.cache_hit = true;
                    hit.attempts = 0;
                    hit.cost_usd = 0.0;
                    hit.failed_attempts.clear();
                    hit.latency_ms = started.elapsed().as_millis() as u64;
                    let rec = CallRecord {
                        ctx,
                        cfg: &m.cfg,
                        cache_hit: true,
                        attempts: 0,
                        usage: hit.usage,
                        cost_usd: 0.0,
                        latency_ms: hit.latency_ms,
                        error: None,
                        batch_id: None,
                        request: Some(&req),
                        response_text: Some(&hit.text),
                        provider_model: hit.provider_model.as_deref(),
                        failed_attempts: &[],
                        key: m.key.as_ref(),
                    };
                    hit.call_id = Box::pin(self.record(&rec)).await;
                    return Ok(hit);
                }
                Ok(None) => {}
                // The model is asked instead; a good reply overwrites the broken entry.
                Err(e) => {
                    tracing::warn!(model = %m.cfg.name, error = %e, "could not read the response cache; calling the model")
                }
            }
        }
        // The request actually sent: weaker structured output when this model's server refused more.
        let mut sent = req;
        let ceiling = self.refused_formats.lock().unwrap_or_else(|p| p.into_inner()).get(&m.cfg.name).copied();
        while ceiling.is_some_and(|c| format_level(&sent.response_format) > c) {
            sent.response_format = weaker_format(&sent.response_format);
        }
        if m.batch {
            // The wait for a batch is long and many calls wait at once: the request waits as a
            // conversation whose text it shares with the caller; its body is written only when
            // the batch is sent.
            // Boxed: thousands of these wait at once, and the direct path's state (the HTTP
            // exchange) need not be part of each waiting call.
            return Box::pin(self.chat_batched(m, &sent, &key, ctx, cancel, started)).await;
        }
        let mut call = wire::build(&m.cfg, m.key.as_ref().map(Secret::expose), &sent);
        let mut payload = call.body_bytes();
        let limiter = self.limiter(&m.cfg);
        let mut attempts = 0u32;
        let mut failed_attempts: Vec<String> = Vec::new();
        let outcome: Result<ParsedReply, LlmError> = loop {
            if cancel.is_cancelled() {
                break Err(LlmError::Cancelled);
            }
            let slot = tokio::select! {
                s = limiter.acquire() => s,
                _ = cancel.cancelled() => break Err(LlmError::Cancelled),
            };
            attempts += 1;
            let result = tokio::select! {
                r = Box::pin(self.attempt(m, &call, payload.clone(), &sent)) => r,
                _ = cancel.cancelled() => Err(LlmError::Cancelled),
            };
            drop(slot);
            match result {
                Ok(parsed) => {
                    limiter.on_success();
                    break Ok(parsed);
                }
                Err(LlmError::Cancelled) => break Err(LlmError::Cancelled),
                Err(e) if refuses_format(&e, &sent.response_format) => {
                    let weaker = weaker_format(&sent.response_format);
                    let mode = if weaker == ResponseFormat::Json { "a plain JSON object" } else { "plain text" };
                    tracing::info!(model = %m.cfg.name, "the server refused this structured-output mode; asking for {mode} instead");
                    failed_attempts.push(format!(
                        "attempt {attempts}: the server does not accept this structured-output mode; asked for {mode} instead"
                    ));
                    self.refused_formats
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(m.cfg.name.clone(), format_level(&weaker));
                    sent.response_format = weaker;
                    call = wire::build(&m.cfg, m.key.as_ref().map(Secret::expose), &sent);
                    payload = call.body_bytes();
                }
                Err(e) if e.is_transient() && attempts <= self.opts.retry.max_retries => {
                    if matches!(e, LlmError::RateLimited { .. }) {
                        limiter.on_rate_limited();
                    }
                    let wait = self.opts.retry.delay(attempts, e.retry_after());
                    let problem = m.scrub(&e.to_string());
                    tracing::debug!(model = %m.cfg.name, attempt = attempts, wait_ms = wait.as_millis() as u64, error = %problem, "retrying a model call");
                    failed_attempts.push(format!("attempt {attempts}: {problem}"));
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {},
                        _ = cancel.cancelled() => break Err(LlmError::Cancelled),
                    }
                }
                Err(e) if e.is_transient() => {
                    break Err(LlmError::RetriesExhausted { model: m.cfg.name.clone(), attempts, last: Box::new(e) });
                }
                Err(e) => break Err(e),
            }
        };
        let latency_ms = started.elapsed().as_millis() as u64;
        match outcome {
            Ok(p) => {
                let cost = m.cfg.cost(&p.usage);
                let mut resp = ChatResponse {
                    text: p.text,
                    reasoning: p.reasoning,
                    usage: p.usage,
                    finish_reason: p.finish_reason,
                    provider_model: p.provider_model,
                    cache_hit: false,
                    attempts,
                    latency_ms,
                    cost_usd: cost,
                    failed_attempts,
                    call_id: None,
                };
                let cached = self.opts.use_cache.then(|| cache::CacheRow::of(&key, &m.cfg, &resp));
                let rec = CallRecord {
                    ctx,
                    cfg: &m.cfg,
                    cache_hit: false,
                    attempts,
                    usage: resp.usage,
                    cost_usd: cost,
                    latency_ms,
                    error: None,
                    batch_id: None,
                    request: Some(&sent),
                    response_text: Some(&resp.text),
                    provider_model: resp.provider_model.as_deref(),
                    failed_attempts: &resp.failed_attempts,
                    key: m.key.as_ref(),
                };
                let id = Box::pin(self.record_reply(&rec, cached)).await;
                resp.call_id = id;
                Ok(resp)
            }
            Err(e) => {
                Box::pin(self.record_failure(m, ctx, &sent, attempts, latency_ms, &failed_attempts, &e)).await;
                Err(e)
            }
        }
    }

    /// Log a failed call (a cancellation is not a failure worth a warning) and account it.
    #[allow(clippy::too_many_arguments)]
    async fn record_failure(
        &self,
        m: &ModelHandle,
        ctx: &CallContext,
        sent: &ChatRequest,
        attempts: u32,
        latency_ms: u64,
        failed_attempts: &[String],
        e: &LlmError,
    ) {
        let message = m.scrub(&e.to_string());
        if !matches!(e, LlmError::Cancelled) {
            tracing::warn!(model = %m.cfg.name, stage = %ctx.stage, run = ?ctx.run_id, attempts, batched = m.batch, error = %message, "a model call failed");
        }
        let rec = CallRecord {
            ctx,
            cfg: &m.cfg,
            cache_hit: false,
            attempts,
            usage: Default::default(),
            cost_usd: 0.0,
            latency_ms,
            error: Some(message),
            batch_id: None,
            request: Some(sent),
            response_text: None,
            provider_model: None,
            failed_attempts,
            key: m.key.as_ref(),
        };
        Box::pin(self.record(&rec)).await;
    }

    /// The batch path of `chat`: the request waits for a provider batch (see `batch`); its answer
    /// is read, cached and accounted like a direct call's, at the batch price.
    #[allow(clippy::too_many_arguments)]
    async fn chat_batched(
        &self,
        m: &ModelHandle,
        sent: &ChatRequest,
        key: &str,
        ctx: &CallContext,
        cancel: &CancellationToken,
        started: Instant,
    ) -> Result<ChatResponse, LlmError> {
        let answer = self.batcher.call(m, sent, key, ctx, cancel).await;
        let latency_ms = started.elapsed().as_millis() as u64;
        let answered = answer.and_then(|a| {
            let parsed = wire::parse(&m.cfg, sent, &a.body)
                .map_err(|reason| LlmError::BadResponse { model: m.cfg.name.clone(), reason })?;
            Ok((a, parsed))
        });
        let (a, p) = match answered {
            Ok(x) => x,
            Err(e) => {
                Box::pin(self.record_failure(m, ctx, sent, 0, latency_ms, &[], &e)).await;
                return Err(e);
            }
        };
        let cost = m.cfg.batch_cost(&p.usage);
        let mut resp = ChatResponse {
            text: p.text,
            reasoning: p.reasoning,
            usage: p.usage,
            finish_reason: p.finish_reason,
            provider_model: p.provider_model,
            cache_hit: false,
            attempts: a.rounds,
            latency_ms,
            cost_usd: cost,
            failed_attempts: a.problems.clone(),
            call_id: None,
        };
        // Without the cache (`--no-cache`), the answer stays in the batch records instead, so a
        // resumed run still does not pay for it twice.
        let cached = if self.opts.use_cache {
            Box::pin(cache::put(&self.store, key, &m.cfg, &resp)).await.map(|_| true)
        } else {
            Ok(false)
        };
        match cached {
            Ok(false) => {}
            Ok(true) => {
                let (b, k) = (a.batch_id.clone(), key.to_string());
                if let Err(e) = Box::pin(self.store.call(move |c| super::batch::repo::mark_collected(c, &b, &k))).await
                {
                    tracing::warn!(batch = %a.batch_id, error = %e, "could not mark a batch answer as collected; it stays stored");
                }
            }
            // The answer stays in the batch records, where a resumed run finds it again.
            Err(err) => {
                tracing::warn!(model = %m.cfg.name, error = %err, "could not store a batch answer in the response cache")
            }
        }
        let rec = CallRecord {
            ctx,
            cfg: &m.cfg,
            cache_hit: false,
            attempts: a.rounds,
            usage: resp.usage,
            cost_usd: cost,
            latency_ms,
            error: None,
            batch_id: Some(&a.batch_id),
            request: Some(sent),
            response_text: Some(&resp.text),
            provider_model: resp.provider_model.as_deref(),
            failed_attempts: &resp.failed_attempts,
            key: m.key.as_ref(),
        };
        let id = Box::pin(self.record(&rec)).await;
        resp.call_id = id;
        Ok(resp)
    }

    /// Batches this client works with (settings, for plans and tests).
    pub fn batcher(&self) -> &Batcher {
        &self.batcher
    }

    /// Log the call for token and cost accounting. A failed write does not fail the call (its
    /// reply is already here), but it is logged: the totals will be short by this call.
    async fn record(&self, rec: &CallRecord<'_>) -> Option<i64> {
        if let Some(chain) = &rec.ctx.chain {
            let row = accounting::CallRow::of(rec);
            chain.hold(chain.store().queue_grouped(move |c| row.insert(c)));
            return None;
        }
        match accounting::record(&self.store, rec).await {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!(model = %rec.cfg.name, stage = %rec.ctx.stage, run = ?rec.ctx.run_id, error = %e, "could not record a model call in the ledger; usage totals will miss it");
                None
            }
        }
    }

    /// Log a good reply for accounting and keep it in the cache, in one grouped write (one store
    /// round trip per call). Either failing is logged and does not fail the call.
    async fn record_reply(&self, rec: &CallRecord<'_>, cached: Option<ApiResult<cache::CacheRow>>) -> Option<i64> {
        let row = accounting::CallRow::of(rec);
        let cached = match cached {
            Some(Ok(c)) => Some(c),
            Some(Err(e)) => {
                tracing::warn!(model = %rec.cfg.name, error = %e, "could not store a reply in the response cache");
                None
            }
            None => None,
        };
        let (model, stage, run) = (rec.cfg.name.clone(), rec.ctx.stage.clone(), rec.ctx.run_id.clone());
        let write = move |c: &rusqlite::Connection| {
            if let Some(entry) = cached {
                if let Err(err) = entry.insert(c) {
                    // The reply is still good; only its reuse is lost.
                    tracing::warn!(model = %model, error = %err, "could not store a reply in the response cache");
                }
            }
            row.insert(c)
        };
        if let Some(chain) = &rec.ctx.chain {
            chain.hold(chain.store().queue_grouped(write));
            return None;
        }
        let written = self.store.call_grouped(write).await;
        match written {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!(model = %rec.cfg.name, stage = %stage, run = ?run, error = %e, "could not record a model call in the ledger; usage totals will miss it");
                None
            }
        }
    }

    fn classify(&self, m: &ModelHandle, e: reqwest::Error) -> LlmError {
        let model = m.cfg.name.clone();
        let message = m.scrub(&e.to_string());
        if e.is_timeout() {
            LlmError::Timeout { model, secs: m.cfg.timeout_secs as u64 }
        } else if e.is_body() || e.is_decode() {
            LlmError::BadResponse { model, reason: format!("the reply was cut off ({message})") }
        } else {
            LlmError::Connect { model, endpoint: m.cfg.base_url.clone(), message }
        }
    }

    async fn attempt(
        &self,
        m: &ModelHandle,
        call: &wire::HttpCall,
        payload: bytes::Bytes,
        req: &ChatRequest,
    ) -> Result<ParsedReply, LlmError> {
        // The content type is among the call's headers.
        let mut rb = self
            .http
            .pick(m.loopback)
            .post(&call.url)
            .timeout(Duration::from_secs(m.cfg.timeout_secs as u64))
            .body(payload);
        for (k, v) in &call.headers {
            rb = rb.header(*k, v);
        }
        let resp = rb.send().await.map_err(|e| self.classify(m, e))?;
        if let Some(e) = origin::redirect_error(&m.cfg.name, &resp, |s| m.scrub(s)) {
            return Err(e);
        }
        let status = resp.status();
        let retry_after = resp.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
        let content_type = resp.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
        let bytes = resp.bytes().await.map_err(|e| self.classify(m, e))?;
        let model = m.cfg.name.clone();
        if status.is_success() {
            if !content_type.is_empty() && !content_type.contains("json") {
                return Err(LlmError::BadResponse {
                    model,
                    reason: format!("expected JSON but got {content_type}: {}", m.scrub(&excerpt(&bytes))),
                });
            }
            let v: Value = serde_json::from_slice(&bytes).map_err(|e| LlmError::BadResponse {
                model: model.clone(),
                reason: format!("the body is not valid JSON ({e})"),
            })?;
            return wire::parse(&m.cfg, req, &v).map_err(|reason| LlmError::BadResponse { model, reason });
        }
        let body = m.scrub(&excerpt(&bytes));
        let code = status.as_u16();
        Err(match code {
            429 => LlmError::RateLimited { model, retry_after },
            408 | 500..=599 => LlmError::Server { model, status: code, body },
            _ => LlmError::Rejected { model, status: code, body },
        })
    }
}
