//! Token and cost accounting over the call ledger (`ledger`): one row per call (cache hits
//! included), summed per stage and per run.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::config::ModelConfig;
use super::types::Usage;
use crate::error::ApiResult;
use crate::secrets::Secret;
use crate::store::Store;
use crate::util::now_rfc3339;

pub use super::ledger::CallContext;
use super::ledger::RequestDetail;
use super::types::{ChatRequest, Role};

pub struct CallRecord<'a> {
    pub ctx: &'a CallContext,
    pub cfg: &'a ModelConfig,
    pub cache_hit: bool,
    pub attempts: u32,
    pub usage: Usage,
    pub cost_usd: f64,
    pub latency_ms: u64,
    pub error: Option<String>,
    /// The provider batch that answered (None for a direct call or a cache hit).
    pub batch_id: Option<&'a str>,
    /// The request as sent (its messages share their text with the caller's).
    pub request: Option<&'a ChatRequest>,
    pub response_text: Option<&'a str>,
    pub provider_model: Option<&'a str>,
    pub failed_attempts: &'a [String],
    /// The model's key: blanked out of the request and reply before they are written (a
    /// message or an echoing server may carry it).
    pub key: Option<&'a Secret>,
}

/// One ledger row, owned, ready to be written. The request is encoded when the row is written
/// (on the store's thread, not the caller's).
pub struct CallRow {
    run_id: Option<String>,
    stage: String,
    name: String,
    base_url: String,
    remote: i64,
    cache_hit: i64,
    attempts: u32,
    tokens: [i64; 4],
    cost: f64,
    latency: i64,
    error: Option<String>,
    batch_id: Option<String>,
    item: Option<String>,
    step: Option<String>,
    attempt: Option<u32>,
    role: Option<String>,
    prompt_name: Option<String>,
    prompt_versions: Option<String>,
    provider_model: Option<String>,
    request: Option<(ChatRequest, RequestDetail)>,
    response_text: Option<String>,
    failed_attempts: Option<String>,
    key: Option<Secret>,
}

/// The request as the ledger keeps it: messages (system text left out when asked), format,
/// repeat index and the sampling settings sent. Written straight from the request (no copy of
/// the messages into JSON values on the way).
fn request_json(req: &ChatRequest, detail: RequestDetail) -> String {
    let messages: Vec<LedgerMessage<'_>> = req
        .messages
        .iter()
        .map(|m| match (detail, m.role) {
            (RequestDetail::WithoutSystemText, Role::System) => LedgerMessage {
                role: m.role,
                content: std::borrow::Cow::Owned(format!(
                    "[the run's system prompt, {} characters, kept with the run]",
                    m.content.chars().count()
                )),
            },
            _ => LedgerMessage { role: m.role, content: std::borrow::Cow::Borrowed(&m.content) },
        })
        .collect();
    let kept = LedgerRequest {
        messages,
        response_format: &req.response_format,
        repeat: req.repeat,
        temperature: req.temperature,
        top_p: req.top_p,
        max_tokens: req.max_tokens,
        seed: req.seed,
    };
    serde_json::to_string(&kept).unwrap_or_default()
}

/// The ledger's JSON of a request; field order and names are those readers of `request_json` know.
#[derive(Serialize)]
struct LedgerRequest<'a> {
    messages: Vec<LedgerMessage<'a>>,
    response_format: &'a crate::llm::types::ResponseFormat,
    repeat: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<i64>,
}

#[derive(Serialize)]
struct LedgerMessage<'a> {
    role: Role,
    content: std::borrow::Cow<'a, str>,
}

impl CallRow {
    pub fn of(r: &CallRecord<'_>) -> CallRow {
        let ctx = r.ctx;
        CallRow {
            run_id: ctx.run_id.clone(),
            stage: ctx.stage.clone(),
            name: r.cfg.name.clone(),
            base_url: r.cfg.base_url.clone(),
            remote: !r.cfg.is_local() as i64,
            cache_hit: r.cache_hit as i64,
            attempts: r.attempts,
            tokens: [
                r.usage.input_tokens as i64,
                r.usage.output_tokens as i64,
                r.usage.cached_input_tokens as i64,
                r.usage.reasoning_tokens as i64,
            ],
            cost: r.cost_usd,
            latency: r.latency_ms as i64,
            error: r.error.clone(),
            batch_id: r.batch_id.map(str::to_string),
            item: ctx.item.clone(),
            step: ctx.step.clone(),
            attempt: ctx.attempt,
            role: ctx.role.clone(),
            prompt_name: ctx.prompt_name.clone(),
            prompt_versions: ctx.prompt_versions.as_ref().and_then(|v| serde_json::to_string(v).ok()),
            provider_model: r.provider_model.map(str::to_string),
            request: r.request.map(|q| (q.clone(), ctx.request_detail)),
            response_text: r.response_text.map(str::to_string),
            failed_attempts: (!r.failed_attempts.is_empty())
                .then(|| serde_json::to_string(r.failed_attempts).ok())
                .flatten(),
            key: r.key.cloned(),
        }
    }

    /// Write the row on `c`; returns its id.
    pub fn insert(self, c: &rusqlite::Connection) -> ApiResult<i64> {
        let scrub = |t: String| match &self.key {
            Some(k) => k.scrub(&t),
            None => t,
        };
        let request = self.request.as_ref().map(|(q, d)| scrub(request_json(q, *d)));
        let response_text = self.response_text.clone().map(scrub);
        let failed_attempts = self.failed_attempts.clone().map(scrub);
        let mut st = c.prepare_cached(
            "INSERT INTO llm_calls (run_id, stage, model_name, endpoint, remote, cache_hit, attempts, input_tokens, output_tokens,
                                    cached_input_tokens, reasoning_tokens, cost_usd, latency_ms, ok, error, at, batch_id,
                                    item, step, attempt, role, prompt_name, prompt_versions, provider_model, request_json,
                                    response_text, failed_attempts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,
                     ?24, ?25, ?26, ?27)",
        )?;
        st.execute(params![
            self.run_id,
            self.stage,
            self.name,
            self.base_url,
            self.remote,
            self.cache_hit,
            self.attempts,
            self.tokens[0],
            self.tokens[1],
            self.tokens[2],
            self.tokens[3],
            self.cost,
            self.latency,
            self.error.is_none() as i64,
            self.error,
            now_rfc3339(),
            self.batch_id,
            self.item,
            self.step,
            self.attempt,
            self.role,
            self.prompt_name,
            self.prompt_versions,
            self.provider_model,
            request,
            response_text,
            failed_attempts
        ])?;
        Ok(c.last_insert_rowid())
    }
}

/// Add one row to the ledger, committed together with other writes made at the same time
/// (see `Store::call_grouped`). Runs on a blocking thread. Returns the row's id.
pub async fn record(store: &Store, r: &CallRecord<'_>) -> ApiResult<i64> {
    let row = CallRow::of(r);
    store.call_grouped(move |c| row.insert(c)).await
}

/// Totals for a run, a stage, or both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct UsageTotals {
    pub stage: Option<String>,
    pub model_name: Option<String>,
    pub calls: u64,
    pub cache_hits: u64,
    pub failures: u64,
    pub remote_calls: u64,
    /// Calls answered through a provider batch (at batch prices).
    pub batch_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub reasoning_tokens: u64,
    pub cost_usd: f64,
}

/// Per-stage and per-model totals of a run (`run_id` None: calls made outside any run).
pub fn totals_by_stage(store: &Store, run_id: Option<&str>) -> ApiResult<Vec<UsageTotals>> {
    totals_where(store, "run_id IS ?1", run_id)
}

/// Totals per stage and model over every recorded call (all runs and calls outside runs).
pub fn totals_by_stage_all(store: &Store) -> ApiResult<Vec<UsageTotals>> {
    totals_where(store, "?1 IS NULL", None)
}

fn totals_where(store: &Store, condition: &str, run_id: Option<&str>) -> ApiResult<Vec<UsageTotals>> {
    Ok(store.with_read(|c| {
        let mut stmt = c.prepare(&format!(
            "SELECT stage, model_name, count(*), sum(cache_hit), sum(1 - ok), sum(remote * (1 - cache_hit)), sum(batch_id IS NOT NULL), sum(input_tokens), sum(output_tokens),
                    sum(cached_input_tokens), sum(reasoning_tokens), sum(cost_usd)
             FROM llm_calls WHERE counted = 1 AND {condition} GROUP BY stage, model_name ORDER BY stage, model_name"
        ))?;
        let rows = stmt.query_map([run_id], |r| {
            Ok(UsageTotals {
                stage: r.get(0)?,
                model_name: r.get(1)?,
                calls: r.get::<_, i64>(2)? as u64,
                cache_hits: r.get::<_, i64>(3)? as u64,
                failures: r.get::<_, i64>(4)? as u64,
                remote_calls: r.get::<_, i64>(5)? as u64,
                batch_calls: r.get::<_, i64>(6)? as u64,
                input_tokens: r.get::<_, i64>(7)? as u64,
                output_tokens: r.get::<_, i64>(8)? as u64,
                cached_input_tokens: r.get::<_, i64>(9)? as u64,
                reasoning_tokens: r.get::<_, i64>(10)? as u64,
                cost_usd: r.get(11)?,
            })
        })?;
        rows.collect::<Result<Vec<_>, _>>()
    })?)
}

/// A run's recorded calls summed over every stage: tokens count only calls that reached the
/// provider (not cache hits); the cost counts every call.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunCallTotals {
    pub calls: u64,
    pub cache_hits: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

/// The totals of one run's calls.
pub fn run_call_totals(conn: &rusqlite::Connection, run_id: &str) -> ApiResult<RunCallTotals> {
    let (calls, hits, input, output, cost): (i64, i64, i64, i64, f64) = conn.query_row(
        "SELECT count(*), coalesce(sum(cache_hit), 0), coalesce(sum(CASE WHEN cache_hit = 0 THEN input_tokens END), 0),
                coalesce(sum(CASE WHEN cache_hit = 0 THEN output_tokens END), 0), coalesce(sum(cost_usd), 0)
         FROM llm_calls WHERE run_id = ?1 AND counted = 1",
        [run_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    Ok(RunCallTotals {
        calls: calls as u64,
        cache_hits: hits as u64,
        input_tokens: input as u64,
        output_tokens: output as u64,
        cost_usd: cost,
    })
}

/// Sum of a list of totals.
pub fn sum(items: &[UsageTotals]) -> UsageTotals {
    let mut t = UsageTotals::default();
    for i in items {
        t.calls += i.calls;
        t.cache_hits += i.cache_hits;
        t.failures += i.failures;
        t.remote_calls += i.remote_calls;
        t.batch_calls += i.batch_calls;
        t.input_tokens += i.input_tokens;
        t.output_tokens += i.output_tokens;
        t.cached_input_tokens += i.cached_input_tokens;
        t.reasoning_tokens += i.reasoning_tokens;
        t.cost_usd += i.cost_usd;
    }
    t
}
