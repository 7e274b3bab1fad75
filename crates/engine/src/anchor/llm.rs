//! Optional LLM helpers for anchors: a topical pre-sort into one of the policy's clauses (a sort
//! by subject matter, not a reportability judgement) and a translation to English that keeps the
//! original text. Each anchor is committed as soon as its reply arrives; replies are cached, so a
//! repeated or interrupted batch costs nothing for the anchors already done.

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Mutex;

use super::{repo, Anchor, AnchorFilter};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::llm::json_extract::extract_json_object;
use crate::llm::{CallContext, CancellationToken, ChatRequest, ModelHandle};
use crate::prompt::split::{load_split, SplitPrompt};

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

/// One anchor's outcome in a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorBatchItem {
    pub anchor_id: String,
    /// `changed`, `unchanged`, `kept_manual` or `failed`.
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

fn presort_schema(ids: &[String]) -> Value {
    let mut options: Vec<Value> = ids.iter().map(|s| json!(s)).collect();
    options.push(json!("none"));
    json!({
        "type": "object",
        "properties": {"clause_id": {"type": "string", "enum": options}, "reason": {"type": "string"}},
        "required": ["clause_id", "reason"],
        "additionalProperties": false
    })
}

fn translate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"translation": {"type": "string"}},
        "required": ["translation"],
        "additionalProperties": false
    })
}

struct Totals {
    items: Vec<AnchorBatchItem>,
    input: u64,
    output: u64,
    cost: f64,
}

#[allow(clippy::too_many_arguments)]
async fn ask(
    engine: &Engine,
    handle: &ModelHandle,
    prompt: &SplitPrompt,
    values: &[(&str, &str)],
    schema_name: &str,
    schema: Value,
    stage: &str,
    totals: &Mutex<Totals>,
) -> Result<Value, String> {
    let (system, user) = prompt.render(values).map_err(|e| e.message)?;
    let mut last = String::new();
    for attempt in 0..3u32 {
        let req = ChatRequest {
            repeat: attempt,
            ..ChatRequest::new(vec![crate::llm::Message::system(&system), crate::llm::Message::user(&user)])
        }
        .json_schema(schema_name, schema.clone());
        let resp = engine
            .llm()
            .chat(handle, &req, &CallContext::new(None, stage), &CancellationToken::new())
            .await
            .map_err(|e| e.to_string())?;
        {
            let mut t = totals.lock().unwrap_or_else(|p| p.into_inner());
            if !resp.cache_hit {
                t.input += resp.usage.input_tokens;
                t.output += resp.usage.output_tokens;
            }
            t.cost += resp.cost_usd;
        }
        match extract_json_object(&resp.text) {
            Ok(x) => return Ok(x.value),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("the model's reply could not be read after 3 tries ({last})"))
}

impl Engine {
    /// Sort anchors into the policy's clause buckets by topic with a model.
    pub async fn anchors_presort(&self, req: &AnchorPresortRequest) -> ApiResult<AnchorBatchResult> {
        let policy = req.policy.clone().unwrap_or_else(|| crate::policy::DEFAULT_POLICY.into());
        let (pack, _) = self.pack_and_vocab(&policy)?;
        let handle = self.model_handle(&req.model)?;
        let prompt = load_split("anchor_presort")?;
        let clause_list = pack
            .clauses
            .iter()
            .map(|c| format!("- {} ({}: {})\n  {}", c.clause_id, c.label, c.short_title, c.summary))
            .collect::<Vec<_>>()
            .join("\n");
        let ids: Vec<String> = pack.clauses.iter().map(|c| c.clause_id.clone()).collect();
        let anchors = self.batch_anchors(&req.anchor_ids, |a| !req.only_unbucketed || a.clause_id.is_none())?;
        let totals = Mutex::new(Totals { items: Vec::new(), input: 0, output: 0, cost: 0.0 });
        let schema = presort_schema(&ids);
        futures::stream::iter(anchors)
            .for_each_concurrent(req.concurrency.unwrap_or(4).clamp(1, 64) as usize, |a| {
                let (handle, prompt, clause_list, ids, schema, totals) =
                    (&handle, &prompt, &clause_list, &ids, &schema, &totals);
                async move {
                    let item = if a.bucket_origin.as_deref() == Some("manual") {
                        AnchorBatchItem {
                            anchor_id: a.anchor_id.clone(),
                            outcome: "kept_manual".into(),
                            clause_id: a.clause_id.clone(),
                            note: Some("bucket set by a person; left as it is".into()),
                        }
                    } else {
                        let reply = ask(
                            self,
                            handle,
                            prompt,
                            &[("clause_list", clause_list), ("anchor_text", &a.text)],
                            "topical_bucket",
                            schema.clone(),
                            "anchor_presort",
                            totals,
                        )
                        .await;
                        match reply {
                            Err(e) => AnchorBatchItem {
                                anchor_id: a.anchor_id.clone(),
                                outcome: "failed".into(),
                                clause_id: a.clause_id.clone(),
                                note: Some(e),
                            },
                            Ok(v) => {
                                let chosen =
                                    v.get("clause_id").and_then(Value::as_str).unwrap_or("").trim().to_string();
                                let reason = v.get("reason").and_then(Value::as_str).map(str::to_string);
                                let new =
                                    if chosen == "none" || chosen.is_empty() { None } else { Some(chosen.clone()) };
                                if new.as_ref().map(|c| !ids.contains(c)).unwrap_or(false) {
                                    AnchorBatchItem {
                                        anchor_id: a.anchor_id.clone(),
                                        outcome: "failed".into(),
                                        clause_id: a.clause_id.clone(),
                                        note: Some(format!("the model named \"{chosen}\", which is not a clause id")),
                                    }
                                } else {
                                    let saved = self.store().with_conn(|c| {
                                        repo::set_bucket(c, &a.anchor_id, new.as_deref(), "presort", reason.as_deref())
                                    });
                                    match saved {
                                        Err(e) => AnchorBatchItem {
                                            anchor_id: a.anchor_id.clone(),
                                            outcome: "failed".into(),
                                            clause_id: a.clause_id.clone(),
                                            note: Some(e.message),
                                        },
                                        Ok(()) => AnchorBatchItem {
                                            anchor_id: a.anchor_id.clone(),
                                            outcome: if new == a.clause_id {
                                                "unchanged".into()
                                            } else {
                                                "changed".into()
                                            },
                                            clause_id: new,
                                            note: reason,
                                        },
                                    }
                                }
                            }
                        }
                    };
                    totals.lock().unwrap_or_else(|p| p.into_inner()).items.push(item);
                }
            })
            .await;
        Ok(finish(&req.model, totals))
    }

    /// Translate non-English anchors to English with a model, keeping the original text.
    pub async fn anchors_translate(&self, req: &AnchorTranslateRequest) -> ApiResult<AnchorBatchResult> {
        let handle = self.model_handle(&req.model)?;
        let prompt = load_split("anchor_translate")?;
        let anchors = self
            .batch_anchors(&req.anchor_ids, |a| a.original_text.is_none() && !a.language.eq_ignore_ascii_case("en"))?;
        let totals = Mutex::new(Totals { items: Vec::new(), input: 0, output: 0, cost: 0.0 });
        let schema = translate_schema();
        futures::stream::iter(anchors)
            .for_each_concurrent(req.concurrency.unwrap_or(4).clamp(1, 64) as usize, |a| {
                let (handle, prompt, schema, totals) = (&handle, &prompt, &schema, &totals);
                async move {
                    let reply = ask(
                        self,
                        handle,
                        prompt,
                        &[("source_language", &a.language), ("anchor_text", &a.text)],
                        "translation",
                        schema.clone(),
                        "anchor_translate",
                        totals,
                    )
                    .await;
                    let item = match reply.and_then(|v| {
                        v.get("translation")
                            .and_then(Value::as_str)
                            .map(str::trim)
                            .filter(|t| !t.is_empty())
                            .map(str::to_string)
                            .ok_or_else(|| "the reply had no translation".to_string())
                    }) {
                        Err(e) => AnchorBatchItem {
                            anchor_id: a.anchor_id.clone(),
                            outcome: "failed".into(),
                            clause_id: a.clause_id.clone(),
                            note: Some(e),
                        },
                        Ok(t) => match self
                            .store()
                            .with_conn(|c| repo::set_translation(c, &a.anchor_id, &t, &handle.cfg.name))
                        {
                            Ok(()) => AnchorBatchItem {
                                anchor_id: a.anchor_id.clone(),
                                outcome: "changed".into(),
                                clause_id: a.clause_id.clone(),
                                note: None,
                            },
                            Err(e) => AnchorBatchItem {
                                anchor_id: a.anchor_id.clone(),
                                outcome: "failed".into(),
                                clause_id: a.clause_id.clone(),
                                note: Some(e.message),
                            },
                        },
                    };
                    totals.lock().unwrap_or_else(|p| p.into_inner()).items.push(item);
                }
            })
            .await;
        Ok(finish(&req.model, totals))
    }

    fn batch_anchors(&self, ids: &[String], keep: impl Fn(&Anchor) -> bool) -> ApiResult<Vec<Anchor>> {
        let all = if ids.is_empty() {
            self.anchors_all(&AnchorFilter::default())?
        } else {
            ids.iter().map(|i| self.anchors_show(i)).collect::<ApiResult<Vec<_>>>()?
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

fn finish(model: &str, totals: Mutex<Totals>) -> AnchorBatchResult {
    let mut t = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    t.items.sort_by(|a, b| a.anchor_id.cmp(&b.anchor_id));
    AnchorBatchResult {
        model: model.to_string(),
        processed: t.items.len() as u32,
        changed: t.items.iter().filter(|i| i.outcome == "changed").count() as u32,
        failed: t.items.iter().filter(|i| i.outcome == "failed").count() as u32,
        items: t.items,
        input_tokens: t.input,
        output_tokens: t.output,
        cost_usd: t.cost,
    }
}
