//! Optional LLM helpers for anchors: a topical pre-sort into one of the policy's clauses (a sort
//! by subject matter, not a reportability judgement) and a translation to English that keeps the
//! original text. The work on one anchor lives here; `anchor::job` runs it over many anchors as a
//! resumable job. `anchors_presort` / `anchors_translate` are the small, waiting form of the same
//! job: they create one, run it to its end and return its outcomes.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::job::{AnchorJobKind, AnchorJobRequest};
use super::{repo, Anchor};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::llm::json_extract::extract_json_object;
use crate::llm::{CallContext, CancellationToken, ChatRequest, LlmError, ModelHandle};
use crate::prompt::split::SplitPrompt;

/// What `anchors presort` asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorPresortRequest {
    pub model: String,
    /// Only anchors without a bucket (default). Buckets set by hand are never changed.
    pub only_unbucketed: bool,
    /// Limit to these anchors (empty: every anchor that qualifies).
    #[serde(default)]
    pub anchor_ids: Vec<String>,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub concurrency: Option<u32>,
}

/// What `anchors translate` asks for: every anchor whose language is not English and that has
/// not been translated yet (or only the listed ones).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorTranslateRequest {
    pub model: String,
    #[serde(default)]
    pub anchor_ids: Vec<String>,
    #[serde(default)]
    pub concurrency: Option<u32>,
}

/// One anchor's outcome in a batch (or a job).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorBatchItem {
    pub anchor_id: String,
    /// `changed`, `unchanged`, `kept_manual` or `failed` (a failed anchor is tried again on resume).
    pub outcome: String,
    /// The new bucket (pre-sort) or null.
    pub clause_id: Option<String>,
    /// The model's reason, or the error.
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorBatchResult {
    pub model: String,
    pub processed: u32,
    pub changed: u32,
    pub failed: u32,
    pub items: Vec<AnchorBatchItem>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

pub(super) fn presort_schema(ids: &[String]) -> Value {
    let mut options: Vec<Value> = ids.iter().map(|s| json!(s)).collect();
    options.push(json!("none"));
    json!({
        "type": "object",
        "properties": {"clause_id": {"type": "string", "enum": options}, "reason": {"type": "string"}},
        "required": ["clause_id", "reason"],
        "additionalProperties": false
    })
}

pub(super) fn translate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"translation": {"type": "string"}},
        "required": ["translation"],
        "additionalProperties": false
    })
}

/// Tokens and cost spent on one anchor.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Spent {
    pub input: u64,
    pub output: u64,
    pub cost: f64,
}

/// Why one anchor got no usable reply.
pub(super) enum AskFail {
    /// The provider failed (after the client's own retries); may stop the job.
    Model(LlmError),
    /// The replies could not be read, or the prompt could not be filled.
    Other(String),
}

/// What handling one anchor gave: its outcome, and the provider error behind a failure, if any.
pub(super) struct Handled {
    pub item: AnchorBatchItem,
    pub spent: Spent,
    pub model_error: Option<LlmError>,
}

/// What every pre-sort call of a job shares.
pub(super) struct PresortInputs {
    pub prompt: SplitPrompt,
    pub clause_list: String,
    pub ids: Vec<String>,
    pub schema: Value,
}

#[allow(clippy::too_many_arguments)]
async fn ask(
    engine: &Engine,
    handle: &ModelHandle,
    prompt: &SplitPrompt,
    values: &[(&str, &str)],
    schema_name: &str,
    schema: &Value,
    ctx: &CallContext,
    cancel: &CancellationToken,
    spent: &mut Spent,
) -> Result<Value, AskFail> {
    let (system, user) = prompt.render(values).map_err(|e| AskFail::Other(e.message))?;
    let mut last = String::new();
    let mut asked = Vec::new();
    for attempt in 0..3u32 {
        let req = ChatRequest {
            repeat: attempt,
            ..ChatRequest::new(vec![crate::llm::Message::system(&system), crate::llm::Message::user(&user)])
        }
        .json_schema(schema_name, schema.clone());
        asked.push(crate::llm::cache::key(&handle.cfg, &req));
        let resp = engine.llm().chat(handle, &req, ctx, cancel).await.map_err(AskFail::Model)?;
        if !resp.cache_hit {
            spent.input += resp.usage.input_tokens;
            spent.output += resp.usage.output_tokens;
        }
        spent.cost += resp.cost_usd;
        match extract_json_object(&resp.text) {
            Ok(x) => return Ok(x.value),
            Err(e) => last = e.to_string(),
        }
    }
    // The unreadable replies leave the cache, so that a resume asks the model afresh.
    crate::llm::cache::forget(engine.store(), asked).await.map_err(|e| AskFail::Other(e.message))?;
    Err(AskFail::Other(format!("the model's reply could not be read after 3 tries ({last})")))
}

fn item(a: &Anchor, outcome: &str, clause_id: Option<String>, note: Option<String>) -> AnchorBatchItem {
    AnchorBatchItem { anchor_id: a.anchor_id.clone(), outcome: outcome.into(), clause_id, note }
}

fn failed(a: &Anchor, why: AskFail, spent: Spent) -> Handled {
    match why {
        AskFail::Model(e) => {
            Handled { item: item(a, "failed", a.clause_id.clone(), Some(e.to_string())), spent, model_error: Some(e) }
        }
        AskFail::Other(m) => {
            Handled { item: item(a, "failed", a.clause_id.clone(), Some(m)), spent, model_error: None }
        }
    }
}

fn done(item: AnchorBatchItem, spent: Spent) -> Handled {
    Handled { item, spent, model_error: None }
}

impl Engine {
    /// Sort one anchor into a clause's bucket by topic. A bucket set by a person is kept.
    pub(super) async fn presort_one(
        &self,
        handle: &ModelHandle,
        inputs: &PresortInputs,
        a: &Anchor,
        ctx: &CallContext,
        cancel: &CancellationToken,
    ) -> Handled {
        let mut spent = Spent::default();
        if a.bucket_origin.as_deref() == Some("manual") {
            let note = Some("bucket set by a person; left as it is".to_string());
            return done(item(a, "kept_manual", a.clause_id.clone(), note), spent);
        }
        let values = [("clause_list", inputs.clause_list.as_str()), ("anchor_text", a.text.as_str())];
        let reply =
            ask(self, handle, &inputs.prompt, &values, "topical_bucket", &inputs.schema, ctx, cancel, &mut spent).await;
        let v = match reply {
            Ok(v) => v,
            Err(why) => return failed(a, why, spent),
        };
        let chosen = v.get("clause_id").and_then(Value::as_str).unwrap_or("").trim().to_string();
        let reason = v.get("reason").and_then(Value::as_str).map(str::to_string);
        let new = if chosen == "none" || chosen.is_empty() { None } else { Some(chosen.clone()) };
        if new.as_ref().is_some_and(|c| !inputs.ids.contains(c)) {
            let why = format!("the model named \"{chosen}\", which is not a clause id");
            return failed(a, AskFail::Other(why), spent);
        }
        let (id, bucket, why) = (a.anchor_id.clone(), new.clone(), reason.clone());
        let saved =
            self.store().call(move |c| repo::set_bucket(c, &id, bucket.as_deref(), "presort", why.as_deref())).await;
        match saved {
            Err(e) => failed(a, AskFail::Other(e.message), spent),
            Ok(()) => {
                let outcome = if new == a.clause_id { "unchanged" } else { "changed" };
                done(item(a, outcome, new, reason), spent)
            }
        }
    }

    /// Translate one anchor to English, keeping its original text and language.
    pub(super) async fn translate_one(
        &self,
        handle: &ModelHandle,
        prompt: &SplitPrompt,
        a: &Anchor,
        ctx: &CallContext,
        cancel: &CancellationToken,
    ) -> Handled {
        let mut spent = Spent::default();
        if a.original_text.is_some() || a.language.eq_ignore_ascii_case("en") {
            let note = Some("already in English; nothing to translate".to_string());
            return done(item(a, "unchanged", a.clause_id.clone(), note), spent);
        }
        let values = [("source_language", a.language.as_str()), ("anchor_text", a.text.as_str())];
        let schema = translate_schema();
        let reply = ask(self, handle, prompt, &values, "translation", &schema, ctx, cancel, &mut spent).await;
        let text = match reply {
            Ok(v) => v
                .get("translation")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            Err(why) => return failed(a, why, spent),
        };
        let Some(t) = text else {
            return failed(a, AskFail::Other("the reply had no translation".into()), spent);
        };
        let (id, model) = (a.anchor_id.clone(), handle.cfg.name.clone());
        match self.store().call(move |c| repo::set_translation(c, &id, &t, &model)).await {
            Ok(()) => done(item(a, "changed", a.clause_id.clone(), None), spent),
            Err(e) => failed(a, AskFail::Other(e.message), spent),
        }
    }

    /// Sort anchors into the policy's clause buckets by topic with a model, waiting for the end.
    /// Runs as an anchor job (listed with the others, resumable if it stops early).
    pub async fn anchors_presort(&self, req: &AnchorPresortRequest) -> ApiResult<AnchorBatchResult> {
        self.anchor_job_wait(&AnchorJobRequest {
            kind: AnchorJobKind::Presort,
            model: req.model.clone(),
            policy: req.policy.clone(),
            anchor_ids: req.anchor_ids.clone(),
            only_unbucketed: req.only_unbucketed,
            concurrency: req.concurrency,
            batch: false,
            label: None,
        })
        .await
    }

    /// Translate non-English anchors to English with a model, keeping the original text, waiting
    /// for the end. Runs as an anchor job.
    pub async fn anchors_translate(&self, req: &AnchorTranslateRequest) -> ApiResult<AnchorBatchResult> {
        self.anchor_job_wait(&AnchorJobRequest {
            kind: AnchorJobKind::Translate,
            model: req.model.clone(),
            policy: None,
            anchor_ids: req.anchor_ids.clone(),
            only_unbucketed: false,
            concurrency: req.concurrency,
            batch: false,
            label: None,
        })
        .await
    }

    /// Start a job, run it here to its end, and return its outcomes (failed anchors among them,
    /// as before jobs). A job that stopped before it reached every anchor is an error naming it,
    /// so it can be resumed.
    async fn anchor_job_wait(&self, req: &AnchorJobRequest) -> ApiResult<AnchorBatchResult> {
        let run_id = self.anchor_job_create(req)?;
        self.anchor_job_execute(&run_id).await?;
        let view = self.anchor_job_show(&run_id)?;
        let never = view.total.saturating_sub(view.result.processed);
        if never > 0 {
            let why = view.error.unwrap_or_else(|| "it stopped early".into());
            return Err(ApiError::new(
                crate::error::ErrorCode::Provider,
                format!(
                    "Anchor job {run_id} stopped with {never} of {} not yet handled: {why} Finished anchors are kept; \
                     resume it with `psebench anchors resume {run_id}` or from the Anchors page.",
                    crate::util::format::count(view.total, "anchor")
                ),
            ));
        }
        Ok(view.result)
    }

    /// The anchors a job would take: the listed ones, or every stored anchor, kept by `keep`.
    pub(super) fn batch_anchors(&self, ids: &[String], keep: impl Fn(&Anchor) -> bool) -> ApiResult<Vec<Anchor>> {
        let all = if ids.is_empty() {
            self.anchors_all(&super::AnchorFilter::default())?
        } else {
            ids.iter().map(|i| self.anchor_show(i)).collect::<ApiResult<Vec<_>>>()?
        };
        let out: Vec<Anchor> = all.into_iter().filter(|a| keep(a)).collect();
        if out.is_empty() {
            return Err(ApiError::invalid(
                "No anchor needs this step (all are already sorted or translated, or none matched).",
            ));
        }
        Ok(out)
    }
}
