//! Batch mode: calls to a model whose handle is `batched` are not sent one by one but gathered
//! into provider batches (OpenAI and Azure OpenAI Batch, Anthropic Message Batches, Gemini batch
//! mode) at about half the price.
//!
//! A run's workers keep calling `chat` as usual. Each call waits while the requests that are ready
//! gather per model; once no new request has come for a short quiet time, they go out as one batch,
//! which is polled until it ends. So each round of a multi-turn or multi-stage loop becomes one
//! batch. Batches and requests are stored (`repo`): a call whose request is already in a batch
//! of an earlier process (the app or CLI was closed) attaches to it and resumes polling, and an
//! answer that arrived while nobody waited is collected from the store. A request that fails
//! inside a batch goes into the next one, for a bounded number of rounds.

pub mod anthropic;
pub mod gemini;
mod http;
pub mod openai;
pub mod plan;
pub mod provider;
pub mod repo;
pub mod upload;

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::accounting::CallContext;
use super::client::ModelHandle;
use super::error::LlmError;
use super::origin::Clients;
use super::types::ChatRequest;
use crate::store::Store;
use provider::{Line, Outcome};

/// Items a run works on at once in batch mode, unless `BatchSettings::in_flight` says otherwise.
/// Their requests wait in batches, not in connections, so this is a memory bound, not a load
/// bound: each item in flight holds its conversation and its waiting call, about 10–25 KB. With
/// 500 per run, three paper-scale runs (5,074 cases each) at once stay under 300 MB (`psebench
/// bench batch-scale`: 275 MiB); 1,000 per run took 311 MiB, every case in flight 425 MiB. A run
/// with more items goes in overlapping waves: each round's batch carries the next items' first
/// requests along with the others' follow-ups, so fewer in flight means more batch rounds.
pub const BATCH_WORKERS: usize = 500;

/// Timing and size limits of batch mode.
#[derive(Debug, Clone)]
pub struct BatchSettings {
    /// A batch goes out once no new request has come for this long…
    pub quiet: Duration,
    /// …or once the first waiting request has waited this long.
    pub max_gather: Duration,
    /// How often a running batch is polled.
    pub poll: Duration,
    /// Batches a request may go through before its call fails.
    pub max_rounds: u32,
    /// Requests per batch (the providers' limits are higher).
    pub max_requests: usize,
    /// Request bytes per batch (Gemini's inline requests are limited to 20 MB).
    pub max_bytes: usize,
    /// Items (cases, generation units) a batch-mode run works on at once (`PSEBENCH_BATCH_IN_FLIGHT`;
    /// default [`BATCH_WORKERS`]). Higher: fewer batch rounds and more memory.
    pub in_flight: usize,
}

impl Default for BatchSettings {
    fn default() -> Self {
        let ms = |var: &str, default: u64| {
            std::env::var(var).ok().and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(default)
        };
        BatchSettings {
            quiet: Duration::from_millis(ms("PSEBENCH_BATCH_GATHER_MS", 1500)),
            max_gather: Duration::from_secs(20),
            poll: Duration::from_millis(ms("PSEBENCH_BATCH_POLL_MS", 30_000)),
            max_rounds: 3,
            max_requests: 10_000,
            max_bytes: 18_000_000,
            in_flight: std::env::var("PSEBENCH_BATCH_IN_FLIGHT")
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|n| *n > 0)
                .unwrap_or(BATCH_WORKERS),
        }
    }
}

/// What a request's line adds to its body in a batch (its id, the line's own fields).
const LINE_OVERHEAD: usize = 200;

/// What came back for one call.
#[derive(Debug, Clone)]
pub struct BatchAnswer {
    /// The provider's reply body, as a direct call would have returned it.
    pub body: Value,
    /// Our id of the batch that answered.
    pub batch_id: String,
    /// Batches the request went through (1 when the first answered).
    pub rounds: u32,
    /// Why earlier rounds did not answer.
    pub problems: Vec<String>,
}

type Delivery = Result<(Value, String), String>;

/// A request gathering into the next batch. It is kept as the conversation (whose text the
/// waiting call shares), not as a JSON body: thousands wait at once in a paper-scale round.
struct Queued {
    key: String,
    req: ChatRequest,
    ctx: CallContext,
    /// Its size once written out (for the per-batch byte limit).
    bytes: usize,
}

#[derive(Default)]
struct Queue {
    items: Vec<Queued>,
    keys: HashSet<String>,
    running: bool,
    first_push: Option<Instant>,
    last_push: Option<Instant>,
}

struct Inner {
    http: Clients,
    store: Store,
    settings: BatchSettings,
    /// Calls waiting for a request's answer, by cache key.
    waiters: Mutex<HashMap<String, Vec<oneshot::Sender<Delivery>>>>,
    /// Requests gathering into the next batch, by model name.
    queues: Mutex<HashMap<String, Queue>>,
    /// Batches polled by this process.
    pollers: Mutex<HashSet<String>>,
    seq: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The batch side of the LLM client (one per client).
#[derive(Clone)]
pub struct Batcher {
    inner: Arc<Inner>,
}

impl Batcher {
    pub fn new(http: Clients, store: Store, settings: BatchSettings) -> Batcher {
        Batcher {
            inner: Arc::new(Inner {
                http,
                store,
                settings,
                waiters: Mutex::new(HashMap::new()),
                queues: Mutex::new(HashMap::new()),
                pollers: Mutex::new(HashSet::new()),
                seq: AtomicU64::new(0),
            }),
        }
    }

    pub fn settings(&self) -> &BatchSettings {
        &self.inner.settings
    }

    /// Get the answer to `req` (as a direct call would send it) through a batch.
    pub async fn call(
        &self,
        m: &ModelHandle,
        req: &ChatRequest,
        key: &str,
        ctx: &CallContext,
        cancel: &CancellationToken,
    ) -> Result<BatchAnswer, LlmError> {
        let inner = &self.inner;
        let mut problems = Vec::new();
        let max_rounds = inner.settings.max_rounds.max(1);
        for round in 1..=max_rounds {
            let (tx, rx) = oneshot::channel();
            let first = {
                let mut w = lock(&inner.waiters);
                let list = w.entry(key.to_string()).or_default();
                list.push(tx);
                list.len() == 1
            };
            if first {
                // Nobody in this process handles this request yet: is it in a stored batch?
                let k = key.to_string();
                let found = inner.store.call_read(move |c| repo::lookup(c, &k)).await.map_err(store_error)?;
                match found {
                    Some(f) if f.state == "succeeded" => {
                        let delivery = match f.response_json.as_deref().map(serde_json::from_str::<Value>) {
                            Some(Ok(v)) => Ok((v, f.batch_id.clone())),
                            _ => Err(format!("the stored answer of batch {} is unreadable", f.batch_id)),
                        };
                        inner.deliver(key, delivery);
                    }
                    Some(f) if f.state == "pending" && f.batch_state == repo::IN_PROGRESS => {
                        if let Some(pid) = f.provider_batch_id {
                            tracing::info!(model = %m.cfg.name, batch = %f.batch_id, "a request is already in a stored batch; waiting for it");
                            Inner::ensure_poller(inner, m, &f.batch_id, &pid);
                        } else {
                            Inner::enqueue(inner, m, key, req, ctx);
                        }
                    }
                    _ => Inner::enqueue(inner, m, key, req, ctx),
                }
            }
            let delivery = tokio::select! {
                d = rx => d.unwrap_or_else(|_| Err("the batch worker stopped".into())),
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            };
            match delivery {
                Ok((body, batch_id)) => return Ok(BatchAnswer { body, batch_id, rounds: round, problems }),
                Err(why) => {
                    tracing::debug!(model = %m.cfg.name, round, reason = %why, "a request got no answer from its batch");
                    problems.push(format!("batch round {round}: {why}"));
                }
            }
        }
        Err(LlmError::BatchFailed {
            model: m.cfg.name.clone(),
            rounds: max_rounds,
            last: problems.last().cloned().unwrap_or_default(),
        })
    }
}

fn store_error(e: crate::error::ApiError) -> LlmError {
    LlmError::Config(format!("the batch records in the store could not be read: {}", e.message))
}

impl Inner {
    /// Hand an answer (or a failure) to every call waiting for `key`.
    fn deliver(&self, key: &str, d: Delivery) {
        let list = lock(&self.waiters).remove(key).unwrap_or_default();
        for tx in list {
            // A receiver that is gone belongs to a cancelled call.
            let _ = tx.send(d.clone());
        }
    }

    fn enqueue(self: &Arc<Self>, m: &ModelHandle, key: &str, req: &ChatRequest, ctx: &CallContext) {
        // Measured before the lock: the body is written out here only to count its bytes.
        let bytes = upload::json_len(&upload::request_body(m, req)) + LINE_OVERHEAD;
        let start = {
            let mut queues = lock(&self.queues);
            let q = queues.entry(m.cfg.name.clone()).or_default();
            if q.keys.insert(key.to_string()) {
                let now = Instant::now();
                q.first_push.get_or_insert(now);
                q.last_push = Some(now);
                q.items.push(Queued { key: key.to_string(), req: req.clone(), ctx: ctx.clone(), bytes });
            }
            let start = !q.running;
            q.running = true;
            start
        };
        if start {
            let (inner, m) = (self.clone(), m.clone());
            tokio::spawn(async move { inner.dispatch(m).await });
        }
    }

    /// Send what has gathered for a model, batch after batch, until nothing is waiting.
    async fn dispatch(self: Arc<Self>, m: ModelHandle) {
        let s = &self.settings;
        let tick = (s.quiet / 4).max(Duration::from_millis(5));
        loop {
            let take: Vec<Queued> = loop {
                tokio::time::sleep(tick).await;
                let mut queues = lock(&self.queues);
                let Some(q) = queues.get_mut(&m.cfg.name) else { return };
                if q.items.is_empty() {
                    q.running = false;
                    q.first_push = None;
                    return;
                }
                let now = Instant::now();
                let quiet = q.last_push.is_some_and(|t| now.duration_since(t) >= s.quiet);
                let waited = q.first_push.is_some_and(|t| now.duration_since(t) >= s.max_gather);
                if quiet || waited || q.items.len() >= s.max_requests {
                    let mut n = 0;
                    let mut bytes = 0;
                    while n < q.items.len() && n < s.max_requests && (n == 0 || bytes + q.items[n].bytes <= s.max_bytes)
                    {
                        bytes += q.items[n].bytes;
                        n += 1;
                    }
                    let take: Vec<Queued> = q.items.drain(..n).collect();
                    for t in &take {
                        q.keys.remove(&t.key);
                    }
                    q.first_push = if q.items.is_empty() { None } else { Some(now) };
                    break take;
                }
            };
            self.submit(&m, take).await;
        }
    }

    async fn submit(self: &Arc<Self>, m: &ModelHandle, items: Vec<Queued>) {
        let n = self.seq.fetch_add(1, Ordering::SeqCst);
        let batch_id = format!(
            "batch-{}-{n}-{}",
            chrono::Utc::now().format("%Y%m%d-%H%M%S"),
            &uuid::Uuid::new_v4().simple().to_string()[..6]
        );
        let requests: Vec<(String, Option<String>, String)> =
            items.iter().map(|q| (q.key.clone(), q.ctx.run_id.clone(), q.ctx.stage.clone())).collect();
        // Requests of several runs may share a batch; it is listed under the first one's run.
        let run_id = items.iter().find_map(|q| q.ctx.run_id.clone());
        let row = (batch_id.clone(), m.cfg.name.clone(), m.cfg.kind.as_str().to_string(), m.cfg.base_url.clone());
        let stored = self
            .store
            .call(move |c| {
                repo::insert(
                    c,
                    &repo::NewBatch {
                        batch_id: &row.0,
                        model_name: &row.1,
                        provider: &row.2,
                        endpoint: &row.3,
                        run_id: run_id.as_deref(),
                        requests: &requests,
                    },
                )
            })
            .await;
        if let Err(e) = stored {
            let why = format!("the batch could not be recorded in the store: {}", e.message);
            for q in &items {
                self.deliver(&q.key, Err(why.clone()));
            }
            return;
        }
        // The requests move into the lines; each is written out only while the batch is sent.
        let keys: Vec<String> = items.iter().map(|q| q.key.clone()).collect();
        let lines: Arc<[Line]> = items.into_iter().map(|q| Line { custom_id: q.key, req: q.req }).collect();
        let mut attempt = 0;
        let submitted = loop {
            attempt += 1;
            match provider::submit(self.http.for_model(&m.cfg), m, &lines).await {
                Err(e) if e.is_transient() && attempt < 3 => {
                    tracing::warn!(model = %m.cfg.name, batch = %batch_id, error = %m.scrub_text(&e.to_string()), "sending a batch failed; trying again");
                    tokio::time::sleep(Duration::from_secs(attempt)).await;
                }
                other => break other,
            }
        };
        match submitted {
            Ok(s) => {
                tracing::info!(model = %m.cfg.name, batch = %batch_id, provider_batch = %s.provider_batch_id, requests = lines.len(), "batch sent");
                let (id, pid, file, status) =
                    (batch_id.clone(), s.provider_batch_id.clone(), s.input_file_id.clone(), s.provider_status.clone());
                let saved = self.store.call(move |c| repo::set_submitted(c, &id, &pid, file.as_deref(), &status)).await;
                if let Err(e) = saved {
                    // Polling goes on; only a restart would not find this batch again.
                    tracing::warn!(batch = %batch_id, error = %e, "could not record that a batch was sent");
                }
                Self::ensure_poller(self, m, &batch_id, &s.provider_batch_id);
            }
            Err(e) => {
                let why = m.scrub_text(&e.to_string());
                tracing::warn!(model = %m.cfg.name, batch = %batch_id, error = %why, "the provider did not accept a batch");
                let (id, w) = (batch_id.clone(), why.clone());
                if let Err(err) = self.store.call(move |c| repo::set_failed(c, &id, &w)).await {
                    tracing::warn!(batch = %batch_id, error = %err, "could not record a failed batch");
                }
                for k in &keys {
                    self.deliver(k, Err(why.clone()));
                }
            }
        }
    }

    fn ensure_poller(self: &Arc<Self>, m: &ModelHandle, batch_id: &str, provider_batch_id: &str) {
        if !lock(&self.pollers).insert(batch_id.to_string()) {
            return;
        }
        let (inner, m, id, pid) = (self.clone(), m.clone(), batch_id.to_string(), provider_batch_id.to_string());
        tokio::spawn(async move {
            inner.poll_until_ended(&m, &id, &pid).await;
            lock(&inner.pollers).remove(&id);
        });
    }

    /// Poll a batch until it ends, then store and hand out every request's outcome.
    async fn poll_until_ended(self: &Arc<Self>, m: &ModelHandle, batch_id: &str, pid: &str) {
        let mut errors = 0u32;
        let id = batch_id.to_string();
        let order = match self.store.call_read(move |c| repo::order(c, &id)).await {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!(batch = %batch_id, error = %e, "could not read a batch's requests");
                return;
            }
        };
        loop {
            tokio::time::sleep(self.settings.poll).await;
            let polled = match provider::poll(self.http.for_model(&m.cfg), m, pid).await {
                Ok(p) => p,
                Err(e) => {
                    errors += 1;
                    let why = m.scrub_text(&e.to_string());
                    tracing::warn!(model = %m.cfg.name, batch = %batch_id, error = %why, "could not check a batch");
                    if errors >= 5 || !e.is_transient() {
                        // The batch stays recorded as running: the next round (or a resume) polls again.
                        for k in &order {
                            self.deliver(k, Err(format!("could not check the batch: {why}")));
                        }
                        return;
                    }
                    continue;
                }
            };
            errors = 0;
            let (id, p) = (batch_id.to_string(), polled.clone());
            if let Err(e) = self.store.call(move |c| repo::set_polled(c, &id, &p)).await {
                tracing::warn!(batch = %batch_id, error = %e, "could not record a batch's progress");
            }
            if !polled.ended {
                continue;
            }
            let outcomes = match provider::results(self.http.for_model(&m.cfg), m, &polled, &order).await {
                Ok(o) => o,
                Err(e) => {
                    let why = m.scrub_text(&e.to_string());
                    tracing::warn!(model = %m.cfg.name, batch = %batch_id, error = %why, "could not read a batch's results");
                    for k in &order {
                        self.deliver(k, Err(format!("could not read the batch's results: {why}")));
                    }
                    return;
                }
            };
            tracing::info!(model = %m.cfg.name, batch = %batch_id, status = %polled.provider_status, results = outcomes.len(), requests = order.len(), "batch ended");
            let (id, o, p) = (batch_id.to_string(), outcomes.clone(), polled.clone());
            if let Err(e) = self.store.call(move |c| repo::finish(c, &id, &o, &p)).await {
                tracing::warn!(batch = %batch_id, error = %e, "could not store a batch's results; they are handed to the waiting calls only");
            }
            let mut answered = HashSet::new();
            for (key, outcome) in outcomes {
                answered.insert(key.clone());
                match outcome {
                    Outcome::Answered(body) => self.deliver(&key, Ok((body, batch_id.to_string()))),
                    Outcome::Failed(why) => self.deliver(&key, Err(why)),
                }
            }
            let missing = match &polled.failure {
                Some(f) => format!("the provider refused the batch: {f}"),
                None => format!("the batch ended ({}) without a result for this request", polled.provider_status),
            };
            for k in order.iter().filter(|k| !answered.contains(*k)) {
                self.deliver(k, Err(missing.clone()));
            }
            return;
        }
    }
}
