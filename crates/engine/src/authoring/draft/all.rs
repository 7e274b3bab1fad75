//! "Draft every clause": drafting for a whole policy as a resumable job. The plan lists, per clause
//! and kind, what would be drafted (clauses without an approved extraction are skipped and named),
//! with a rough cost and where the policy text goes. The job drafts the items one by one; each
//! finished draft is stored with the job's id, so resuming drafts only what is still missing.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::time::Instant;

use super::{DraftKind, DraftRequest};
use crate::card::EventType;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{self, Progress, RunKind, RunStatus};

/// Rough sizes behind the estimate (characters).
const DRAFT_OUTPUT_CHARS: f64 = 9_000.0;
const VARIANTS_OUTPUT_CHARS: f64 = 3_000.0;
const SCHEMA_AND_PROMPT_CHARS: f64 = 14_000.0;
const ATTEMPTS_EXPECTED: f64 = 1.5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftAllRequest {
    #[serde(default)]
    pub policy: Option<String>,
    pub model: String,
    /// Which kinds to draft, in this order per clause (default: complete, then uncertain).
    #[serde(default)]
    pub kinds: Vec<DraftKind>,
    #[serde(default)]
    pub label: Option<String>,
}

/// One thing the job would draft (or skips, with why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftAllItem {
    pub clause_id: String,
    pub label: String,
    pub kind: DraftKind,
    pub parent_card_id: Option<String>,
    /// `to draft`, `drafted` or `no approved extraction`.
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftAllPlan {
    pub policy: String,
    pub model: String,
    pub items: Vec<DraftAllItem>,
    pub to_draft: usize,
    pub skipped: usize,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Null when a remote model has no price registered.
    pub usd: Option<f64>,
    pub destination: String,
    pub sends_data_off_machine: bool,
    pub notes: Vec<String>,
}

fn kinds_or_default(k: &[DraftKind]) -> Vec<DraftKind> {
    if k.is_empty() {
        vec![DraftKind::Complete, DraftKind::Uncertain]
    } else {
        let mut out = Vec::new();
        for x in k {
            if !out.contains(x) {
                out.push(*x);
            }
        }
        out
    }
}

impl Engine {
    fn draft_all_items(&self, policy: &str, kinds: &[DraftKind]) -> ApiResult<Vec<DraftAllItem>> {
        let (pack, _) = self.pack_and_vocab(policy)?;
        let drafts = self.store().with_conn(|c| super::repo::list(c, Some(policy), None, None, None))?;
        let cards = self.current_cards(policy)?;
        let mut items = Vec::new();
        for clause in &pack.clauses {
            let approved = self
                .store()
                .with_conn(|c| crate::authoring::repo::approved_extraction(c, policy, &clause.clause_id))?
                .is_some();
            for &kind in kinds {
                let parents: Vec<Option<String>> = if kind == DraftKind::Missing {
                    cards
                        .iter()
                        .filter(|(r, c)| {
                            c.clause_id == clause.clause_id
                                && c.event_type != EventType::Uncertain
                                && c.variants().is_empty()
                                && (r.status == "audited" || r.status == "approved")
                        })
                        .map(|(r, _)| Some(r.card_id.clone()))
                        .collect()
                } else {
                    vec![None]
                };
                for parent in parents {
                    let drafted = drafts.iter().any(|d| {
                        d.clause_id == clause.clause_id
                            && d.kind == kind
                            && d.parent_card_id == parent
                            && d.status != "rejected"
                    });
                    let state = if !approved {
                        "no approved extraction"
                    } else if drafted {
                        "drafted"
                    } else {
                        "to draft"
                    };
                    items.push(DraftAllItem {
                        clause_id: clause.clause_id.clone(),
                        label: clause.label.clone(),
                        kind,
                        parent_card_id: parent,
                        state: state.into(),
                    });
                }
            }
        }
        Ok(items)
    }

    /// What "draft every clause" would do and cost, before anything is sent.
    pub fn author_draft_all_plan(&self, req: &DraftAllRequest) -> ApiResult<DraftAllPlan> {
        let policy = super::policy_or_default(&req.policy);
        let kinds = kinds_or_default(&req.kinds);
        let cfg = self.model_handle(&req.model)?.cfg.clone();
        let items = self.draft_all_items(&policy, &kinds)?;
        let mut input = 0.0;
        let mut output = 0.0;
        let mut to_draft = 0;
        for it in items.iter().filter(|i| i.state == "to draft") {
            to_draft += 1;
            let doc = self
                .store()
                .with_conn(|c| crate::authoring::repo::approved_extraction(c, &policy, &it.clause_id))?
                .map(|x| x.document.len() as f64)
                .unwrap_or(0.0);
            let out = if it.kind == DraftKind::Missing { VARIANTS_OUTPUT_CHARS } else { DRAFT_OUTPUT_CHARS };
            input += (SCHEMA_AND_PROMPT_CHARS + doc + DRAFT_OUTPUT_CHARS) / 4.0 * ATTEMPTS_EXPECTED;
            output += out / 4.0 * ATTEMPTS_EXPECTED;
        }
        let usd = match (cfg.price_in, cfg.price_out) {
            (Some(pi), Some(po)) => Some((input * pi + output * po) / 1e6),
            _ if cfg.is_local() => Some(0.0),
            _ => None,
        };
        let skipped = items.iter().filter(|i| i.state == "no approved extraction").count();
        let mut notes = vec![format!(
            "Estimate: about {ATTEMPTS_EXPECTED} attempts per item, 4 characters per token, the approved extraction and the card schema in every prompt."
        )];
        if skipped > 0 {
            notes.push(format!(
                "{skipped} item(s) are skipped because their clause has no approved extraction; extract and approve those clauses first."
            ));
        }
        if kinds.contains(&DraftKind::Missing) {
            notes.push("Missing variants are drafted only for audited or approved cards that have none yet.".into());
        }
        if usd.is_none() {
            notes.push(format!("Model {} has no price registered, so the cost cannot be estimated.", cfg.name));
        }
        Ok(DraftAllPlan {
            policy,
            model: cfg.name.clone(),
            to_draft,
            skipped,
            calls: (to_draft as f64 * ATTEMPTS_EXPECTED).round() as u64,
            input_tokens: input as u64,
            output_tokens: output as u64,
            usd,
            destination: cfg.destination(),
            sends_data_off_machine: !cfg.is_local(),
            notes,
            items,
        })
    }

    /// Create a "draft every clause" job (not started).
    pub fn author_draft_all_create(&self, req: &DraftAllRequest) -> ApiResult<String> {
        let plan = self.author_draft_all_plan(req)?;
        if plan.to_draft == 0 {
            return Err(ApiError::invalid(if plan.skipped > 0 {
                "Nothing to draft: every clause without an approved extraction is skipped, and the others already have drafts. Approve extractions first."
            } else {
                "Nothing to draft: every clause already has drafts of these kinds."
            }));
        }
        let cfg = DraftAllRequest {
            policy: Some(plan.policy.clone()),
            model: req.model.clone(),
            kinds: kinds_or_default(&req.kinds),
            label: req.label.clone(),
        };
        let run_id = jobs::new_run_id(RunKind::Authoring);
        self.store().with_tx(|tx| jobs::insert_run(tx, &run_id, RunKind::Authoring, req.label.as_deref(), &cfg))?;
        Ok(run_id)
    }

    fn draft_all_config(&self, run_id: &str) -> ApiResult<DraftAllRequest> {
        let run = self.store().with_conn(|c| jobs::get_run(c, run_id))?;
        if run.kind != RunKind::Authoring {
            return Err(ApiError::invalid(format!("Run {run_id} is not a drafting job.")));
        }
        serde_json::from_value(run.config)
            .map_err(|e| ApiError::internal(format!("run {run_id}: the stored configuration cannot be read: {e}")))
    }

    /// Run (or resume) a "draft every clause" job: draft every item still to draft.
    pub async fn author_draft_all_execute(&self, run_id: &str) -> ApiResult<()> {
        // One row by its key: quick, so it stays on this thread.
        let cfg = self.draft_all_config(run_id)?;
        let policy = super::policy_or_default(&cfg.policy);
        let stop = self.jobs().register(run_id)?;
        let (run, owner) = (run_id.to_string(), self.jobs().owner().clone());
        if let Err(e) = self.store().call(move |c| jobs::claim(c, &run, &owner)).await {
            self.jobs().finish(run_id);
            return Err(e);
        }
        let result = self.draft_all_work(run_id, &policy, &cfg, &stop).await;
        self.jobs().finish(run_id);
        result
    }

    async fn draft_all_work(
        &self,
        run_id: &str,
        policy: &str,
        cfg: &DraftAllRequest,
        stop: &crate::llm::CancellationToken,
    ) -> ApiResult<()> {
        tracing::info!(run = %run_id, "drafting job started");
        let started = Instant::now();
        let (pol, kinds) = (policy.to_string(), kinds_or_default(&cfg.kinds));
        let work: Vec<_> = self
            .blocking(move |e| e.draft_all_items(&pol, &kinds))
            .await?
            .into_iter()
            .filter(|i| i.state == "to draft")
            .collect();
        let (pol, run) = (policy.to_string(), run_id.to_string());
        let mine = self.store().call_read(move |c| super::repo::list(c, Some(&pol), None, None, Some(&run))).await?;
        let before = mine.len() as u64;
        let total = before + work.len() as u64;
        let mut counts: IndexMap<String, f64> = IndexMap::new();
        counts.insert("drafted".into(), mine.iter().filter(|d| d.status != "failed").count() as f64);
        counts.insert("failed".into(), mine.iter().filter(|d| d.status == "failed").count() as f64);
        counts.insert("cost_usd".into(), mine.iter().flat_map(|d| d.calls.iter()).map(|c| c.cost_usd).sum());
        let publish = |status: RunStatus, done: u64, counts: &IndexMap<String, f64>, message: Option<String>| {
            let elapsed = started.elapsed().as_secs_f64();
            self.jobs().publish(Progress {
                run_id: run_id.to_string(),
                kind: RunKind::Authoring,
                status,
                total,
                done,
                counters: counts.clone(),
                elapsed_secs: elapsed,
                eta_secs: jobs::eta(elapsed, done - before, total - before),
                message,
            });
        };
        let heartbeat = jobs::Heartbeat::start(self.store(), run_id, self.jobs().owner(), vec![stop.clone()]);
        let mut done = before;
        publish(RunStatus::Running, done, &counts, None);
        let mut failure: Option<String> = None;
        for item in work {
            if stop.is_cancelled() {
                break;
            }
            let req = DraftRequest {
                policy: Some(policy.to_string()),
                clause: item.clause_id.clone(),
                kind: item.kind,
                parent: item.parent_card_id.clone(),
                model: cfg.model.clone(),
            };
            match self.author_draft_in(&req, Some(run_id), stop).await {
                Ok(d) => {
                    let key = if d.status == "failed" { "failed" } else { "drafted" };
                    *counts.entry(key.into()).or_default() += 1.0;
                    *counts.entry("cost_usd".into()).or_default() += d.calls.iter().map(|c| c.cost_usd).sum::<f64>();
                    done += 1;
                    publish(
                        RunStatus::Running,
                        done,
                        &counts,
                        Some(format!("{} ({})", item.label, item.kind.as_str())),
                    );
                }
                Err(e) if stop.is_cancelled() => {
                    tracing::info!(run = %run_id, error = %e.message, "drafting stopped mid-item");
                    break;
                }
                Err(e) => {
                    failure = Some(format!(
                        "Drafting {} ({}) failed: {}. Finished drafts are kept; resume the job once the problem is fixed.",
                        item.clause_id,
                        item.kind.as_str(),
                        e.message
                    ));
                    break;
                }
            }
        }
        if let Some(lost) = heartbeat.lost() {
            return Err(ApiError::conflict(lost));
        }
        heartbeat.end();
        let (status, message) = if let Some(f) = failure {
            (RunStatus::Failed, Some(f))
        } else if stop.is_cancelled() {
            (
                RunStatus::Cancelled,
                Some(format!(
                    "Stopped at your request: {} of {total} drafts are finished and kept. Resume to draft the rest.",
                    done
                )),
            )
        } else {
            (RunStatus::Completed, None)
        };
        let (run, owner, msg) = (run_id.to_string(), self.jobs().owner().clone(), message.clone());
        self.store().call(move |c| jobs::release(c, &run, &owner, status, msg.as_deref())).await?;
        tracing::info!(run = %run_id, status = %status, reason = ?message, "drafting job stopped");
        publish(status, done, &counts, message);
        Ok(())
    }

    /// Ask a running drafting job of this process to stop after the current item.
    pub fn author_draft_all_cancel(&self, run_id: &str) -> ApiResult<bool> {
        self.draft_all_config(run_id)?;
        Ok(self.jobs().cancel(run_id))
    }
}

/// A "draft every clause" job as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftAllRun {
    pub run_id: String,
    pub status: RunStatus,
    pub policy: String,
    pub model: String,
    pub kinds: Vec<DraftKind>,
    pub label: Option<String>,
    pub created_at: String,
    pub finished_at: Option<String>,
    pub error: Option<String>,
    /// Drafts the job has stored so far.
    pub drafts: usize,
}

impl Engine {
    /// Every "draft every clause" job, newest first.
    pub fn author_draft_all_runs(&self) -> ApiResult<Vec<DraftAllRun>> {
        let runs = self.store().with_conn(|c| jobs::list_runs(c, Some(RunKind::Authoring)))?;
        let mut out = Vec::new();
        for r in runs {
            let cfg: DraftAllRequest = serde_json::from_value(r.config.clone()).map_err(|e| {
                ApiError::internal(format!("run {}: the stored configuration cannot be read: {e}", r.run_id))
            })?;
            let policy = super::policy_or_default(&cfg.policy);
            let drafts =
                self.store().with_conn(|c| super::repo::list(c, Some(&policy), None, None, Some(&r.run_id)))?.len();
            out.push(DraftAllRun {
                run_id: r.run_id,
                status: r.status,
                policy,
                model: cfg.model,
                kinds: cfg.kinds,
                label: r.label,
                created_at: r.created_at,
                finished_at: r.finished_at,
                error: r.error,
                drafts,
            });
        }
        out.sort_by(|a, b| b.created_at.cmp(&a.created_at));
        Ok(out)
    }
}
