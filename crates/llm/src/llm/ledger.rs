//! The call ledger: one row per logical model call of every kind of run, written by the client
//! (`LlmClient::chat`) from the call's context, in `llm_calls`. A row holds what the call was for
//! (run, item, step, attempt, role, prompt and its versions), what went in and came out (request,
//! reply, provider model, failed attempts before the answer), and its usage (tokens, cost,
//! latency, cache hit, batch). A caller that reads the reply adds its reading to the row it got
//! back (`ChatResponse::call_id`) with [`complete`]: the parsed value and its parse notes.

use indexmap::IndexMap;
use rusqlite::{params, params_from_iter, Connection};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::store::StoredColumn;

/// How much of the request a row keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RequestDetail {
    /// Every message as sent.
    #[default]
    Full,
    /// System messages replaced by their length: a run's system prompt is the same for all its
    /// calls (evaluation: the whole policy) and is kept with the run, not once per call.
    WithoutSystemText,
}

/// Who is calling and for what: the run and its accounting stage (instantiator, eval, info, judge,
/// …), the item of the run (a generation candidate, an extraction, a draft, a case, an anchor),
/// the part and attempt of that item, the role and the prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CallContext {
    pub run_id: Option<String>,
    pub stage: String,
    #[serde(default)]
    pub item: Option<String>,
    #[serde(default)]
    pub step: Option<String>,
    #[serde(default)]
    pub attempt: Option<u32>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub prompt_name: Option<String>,
    #[serde(default)]
    pub prompt_versions: Option<IndexMap<String, String>>,
    #[serde(default)]
    pub request_detail: RequestDetail,
    /// The item's chain of ledger writes (see `chain`): the call's row is queued on it instead of
    /// being committed before the call returns. `call_id` is then not known to the caller.
    #[serde(skip)]
    #[ts(skip)]
    pub chain: Option<super::chain::CallChain>,
}

impl CallContext {
    pub fn new(run_id: Option<&str>, stage: &str) -> CallContext {
        CallContext { run_id: run_id.map(str::to_string), stage: stage.to_string(), ..Default::default() }
    }
    /// The item of the run the call is for.
    pub fn item(mut self, item: impl Into<String>) -> CallContext {
        self.item = Some(item.into());
        self
    }
    /// The part of the item (a generation attempt's stage).
    pub fn step(mut self, step: impl Into<String>) -> CallContext {
        self.step = Some(step.into());
        self
    }
    pub fn attempt(mut self, attempt: u32) -> CallContext {
        self.attempt = Some(attempt);
        self
    }
    pub fn role(mut self, role: impl Into<String>) -> CallContext {
        self.role = Some(role.into());
        self
    }
    /// The prompt template the request was rendered from, and every template version behind it.
    pub fn prompt(mut self, name: impl Into<String>, versions: IndexMap<String, String>) -> CallContext {
        self.prompt_name = Some(name.into());
        self.prompt_versions = Some(versions);
        self
    }
    /// Queue the call's ledger row on the item's chain (see `chain`).
    pub fn chained(mut self, chain: &super::chain::CallChain) -> CallContext {
        self.chain = Some(chain.clone());
        self
    }
    pub fn without_system_text(mut self) -> CallContext {
        self.request_detail = RequestDetail::WithoutSystemText;
        self
    }
}

/// What a caller learnt from a reply, added to the row the client wrote.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// Link the call to its item now (when the item's id is known only after the call).
    pub item: Option<String>,
    pub step: Option<String>,
    pub attempt: Option<u32>,
    pub parsed: Option<Value>,
    pub parse_notes: Vec<String>,
}

fn json_text(v: &impl Serialize) -> ApiResult<String> {
    serde_json::to_string(v).map_err(|e| ApiError::internal(format!("could not encode a call-ledger value: {e}")))
}

/// Add a caller's reading of the reply (and the item it belongs to) to ledger row `id`. Run it in
/// the transaction that stores what the reply was used for.
pub fn complete(conn: &Connection, id: i64, c: &Completion) -> ApiResult<()> {
    let changed = conn.execute(
        "UPDATE llm_calls SET item = coalesce(?2, item), step = coalesce(?3, step), attempt = coalesce(?4, attempt),
                              parsed_json = ?5, parse_notes = ?6
         WHERE id = ?1",
        params![
            id,
            c.item,
            c.step,
            c.attempt,
            c.parsed.as_ref().map(json_text).transpose()?,
            json_text(&c.parse_notes)?
        ],
    )?;
    if changed == 0 {
        tracing::warn!(call = id, "a model call's ledger row was not found; its parse notes are not kept");
    }
    Ok(())
}

/// Unlink the calls of removed items (a deleted policy's extractions and drafts): their usage
/// stays in the totals, their text and link go.
/// The items of a run with at least one call whose reply could not be read (its parse notes say
/// "unreadable: …", as the callers write them).
pub fn items_with_unreadable_reply(conn: &Connection, run_id: &str) -> ApiResult<std::collections::HashSet<String>> {
    let mut st = conn.prepare_cached(
        "SELECT DISTINCT item FROM llm_calls WHERE run_id = ?1 AND item IS NOT NULL AND parse_notes LIKE '%\"unreadable:%'",
    )?;
    let items = st.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<Result<_, _>>()?;
    Ok(items)
}

pub fn forget_items(conn: &Connection, items: &[String]) -> ApiResult<()> {
    for chunk in items.chunks(200) {
        let marks = vec!["?"; chunk.len()].join(", ");
        conn.execute(
            &format!(
                "UPDATE llm_calls SET item = NULL, step = NULL, request_json = NULL, response_text = NULL,
                        parsed_json = NULL, parse_notes = NULL
                 WHERE item IN ({marks})"
            ),
            params_from_iter(chunk.iter()),
        )?;
    }
    Ok(())
}

/// How many calls the ledger holds for a run (counted in the totals or not).
pub fn run_calls(conn: &Connection, run_id: &str) -> ApiResult<u64> {
    Ok(conn.query_row("SELECT count(*) FROM llm_calls WHERE run_id = ?1", [run_id], |r| r.get::<_, i64>(0))? as u64)
}

/// Unlink the calls of a deleted run: what was sent and received goes (case text, replies), the
/// usage (model, tokens, cost, when) stays in the store's totals. Returns how many calls.
pub fn forget_run(conn: &Connection, run_id: &str) -> ApiResult<u64> {
    Ok(conn.execute(
        "UPDATE llm_calls SET run_id = NULL, item = NULL, step = NULL, request_json = NULL, response_text = NULL,
                parsed_json = NULL, parse_notes = NULL, failed_attempts = NULL
         WHERE run_id = ?1",
        [run_id],
    )? as u64)
}

/// US$ spent on the calls of the given items of a run (linked calls only).
pub fn items_cost(conn: &Connection, run_id: &str, items: &[String]) -> ApiResult<f64> {
    let mut total = 0.0;
    for chunk in items.chunks(200) {
        let marks = (0..chunk.len()).map(|i| format!("?{}", i + 2)).collect::<Vec<_>>().join(", ");
        let mut args: Vec<&str> = vec![run_id];
        args.extend(chunk.iter().map(String::as_str));
        let part: f64 = conn.query_row(
            &format!("SELECT coalesce(sum(cost_usd), 0) FROM llm_calls WHERE run_id = ?1 AND item IN ({marks})"),
            params_from_iter(args),
            |r| r.get(0),
        )?;
        total += part;
    }
    Ok(total)
}

/// One row of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LedgerCall {
    pub id: i64,
    pub run_id: Option<String>,
    /// The accounting stage (eval, judge, instantiator, author_extract, clause_screen, …).
    pub stage: String,
    pub item: Option<String>,
    pub step: Option<String>,
    pub attempt: Option<u32>,
    pub role: Option<String>,
    pub prompt_name: Option<String>,
    pub prompt_versions: IndexMap<String, String>,
    /// The registered model name.
    pub model: String,
    /// The model id the provider says answered.
    pub provider_model: Option<String>,
    pub remote: bool,
    #[ts(type = "unknown")]
    pub request: Option<Value>,
    pub response_text: Option<String>,
    #[ts(type = "unknown")]
    pub parsed: Option<Value>,
    pub parse_notes: Vec<String>,
    /// What went wrong with the tries before the one that answered, oldest first.
    pub failed_attempts: Vec<String>,
    /// HTTP tries made (0 for a cache hit).
    pub tries: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub reasoning_tokens: u64,
    pub cost_usd: f64,
    pub latency_ms: u64,
    pub cache_hit: bool,
    pub batch_id: Option<String>,
    pub ok: bool,
    pub error: Option<String>,
    pub at: String,
    /// Counted in the usage totals (false: a row folded in from an older store whose usage is
    /// already counted by another row).
    pub counted: bool,
}

/// Which calls to list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CallFilter {
    /// The run (required unless `item` is given: authoring extractions have no run).
    #[serde(default)]
    pub run_id: Option<String>,
    #[serde(default)]
    pub item: Option<String>,
    #[serde(default)]
    pub step: Option<String>,
    #[serde(default)]
    pub attempt: Option<u32>,
    #[serde(default)]
    pub role: Option<String>,
    /// Rows to skip (in ledger order).
    #[serde(default)]
    pub offset: Option<u32>,
    /// At most this many rows (default 500, at most 5,000).
    #[serde(default)]
    pub limit: Option<u32>,
}

pub const DEFAULT_LIMIT: u32 = 500;
pub const MAX_LIMIT: u32 = 5000;

const fn col(column: &'static str, what: &'static str) -> StoredColumn {
    StoredColumn { table: "llm_calls", column, what, row_kind: "model call" }
}
static VERSIONS: StoredColumn = col("prompt_versions", "prompt versions");
static REQUEST: StoredColumn = col("request_json", "request");
static PARSED: StoredColumn = col("parsed_json", "parsed reply");
static NOTES: StoredColumn = col("parse_notes", "parse notes");
static FAILED: StoredColumn = col("failed_attempts", "failed attempts");

/// The ledger rows that match, in the order they were written.
pub fn list(conn: &Connection, f: &CallFilter) -> ApiResult<Vec<LedgerCall>> {
    let blank = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    let (run, item, step, role) = (blank(&f.run_id), blank(&f.item), blank(&f.step), blank(&f.role));
    if run.is_none() && item.is_none() {
        return Err(ApiError::invalid("Name a run (run_id) or an item (item) whose model calls to list."));
    }
    let limit = f.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let mut st = conn.prepare_cached(
        "SELECT id, run_id, stage, item, step, attempt, role, prompt_name, prompt_versions, model_name, provider_model,
                remote, request_json, response_text, parsed_json, parse_notes, failed_attempts, attempts, input_tokens,
                output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, latency_ms, cache_hit, batch_id, ok,
                error, at, counted
         FROM llm_calls
         WHERE (?1 IS NULL OR run_id = ?1) AND (?2 IS NULL OR item = ?2) AND (?3 IS NULL OR step = ?3)
           AND (?4 IS NULL OR attempt = ?4) AND (?5 IS NULL OR role = ?5 OR (role IS NULL AND stage = ?5))
         ORDER BY id LIMIT ?6 OFFSET ?7",
    )?;
    let rows = st
        .query_map(params![run, item, step, f.attempt, role, limit, f.offset.unwrap_or(0)], |r| {
            let id: i64 = r.get(0)?;
            let row = id.to_string();
            Ok(LedgerCall {
                id,
                run_id: r.get(1)?,
                stage: r.get(2)?,
                item: r.get(3)?,
                step: r.get(4)?,
                attempt: r.get::<_, Option<i64>>(5)?.map(|a| a as u32),
                role: r.get(6)?,
                prompt_name: r.get(7)?,
                prompt_versions: VERSIONS.parse_opt_in_row(r.get(8)?, &row, 8)?.unwrap_or_default(),
                model: r.get(9)?,
                provider_model: r.get(10)?,
                remote: r.get::<_, i64>(11)? != 0,
                request: REQUEST.parse_opt_in_row(r.get(12)?, &row, 12)?,
                response_text: r.get(13)?,
                parsed: PARSED.parse_opt_in_row(r.get(14)?, &row, 14)?,
                parse_notes: NOTES.parse_opt_in_row(r.get(15)?, &row, 15)?.unwrap_or_default(),
                failed_attempts: FAILED.parse_opt_in_row(r.get(16)?, &row, 16)?.unwrap_or_default(),
                tries: r.get::<_, i64>(17)? as u32,
                input_tokens: r.get::<_, i64>(18)? as u64,
                output_tokens: r.get::<_, i64>(19)? as u64,
                cached_input_tokens: r.get::<_, i64>(20)? as u64,
                reasoning_tokens: r.get::<_, i64>(21)? as u64,
                cost_usd: r.get(22)?,
                latency_ms: r.get::<_, i64>(23)? as u64,
                cache_hit: r.get::<_, i64>(24)? != 0,
                batch_id: r.get(25)?,
                ok: r.get::<_, i64>(26)? != 0,
                error: r.get(27)?,
                at: r.get(28)?,
                counted: r.get::<_, i64>(29)? != 0,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The calls of one item in ledger order (every run, or one run).
pub fn of_item(conn: &Connection, run_id: Option<&str>, item: &str) -> ApiResult<Vec<LedgerCall>> {
    list(
        conn,
        &CallFilter {
            run_id: run_id.map(str::to_string),
            item: Some(item.to_string()),
            limit: Some(MAX_LIMIT),
            ..Default::default()
        },
    )
}

impl LedgerCall {
    /// The request as the per-kind call views showed it: failed attempts inside.
    pub fn request_with_failures(&self) -> Value {
        let mut v = self.request.clone().unwrap_or(Value::Null);
        if !self.failed_attempts.is_empty() {
            if let Some(o) = v.as_object_mut() {
                o.entry("failed_attempts").or_insert_with(|| serde_json::json!(self.failed_attempts));
            }
        }
        v
    }
}
