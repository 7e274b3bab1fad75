//! "Draft every clause": drafting for a whole policy as a resumable job. The plan lists, per clause
//! and kind, what would be drafted (clauses without an approved extraction are skipped and named),
//! with a rough cost and where the policy text goes. The job drafts the items one by one; each
//! finished draft is stored with the job's id, so resuming drafts only what is still missing.

mod job;

use serde::{Deserialize, Serialize};

use super::DraftKind;
use crate::card::EventType;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{self, RunKind, RunStatus};

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
    pub fn authoring_draft_all_plan(&self, req: &DraftAllRequest) -> ApiResult<DraftAllPlan> {
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
            let (are, their, those) =
                if skipped == 1 { ("is", "its", "that clause") } else { ("are", "their", "those clauses") };
            notes.push(format!(
                "{} {are} skipped because {their} clause has no approved extraction; extract and approve {those} first.",
                crate::util::format::count(skipped, "item")
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
    pub fn authoring_draft_all_create(&self, req: &DraftAllRequest) -> ApiResult<String> {
        let plan = self.authoring_draft_all_plan(req)?;
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
    pub async fn authoring_draft_all_execute(&self, run_id: &str) -> ApiResult<()> {
        // One row by its key: quick, so it stays on this thread.
        let cfg = self.draft_all_config(run_id)?;
        let policy = super::policy_or_default(&cfg.policy);
        let job = job::DraftAllJob::new(self, run_id, policy, cfg);
        jobs::runner::execute(self.runner_services(), &job).await
    }

    /// Ask a running drafting job of this process to stop after the current item.
    pub fn authoring_draft_all_cancel(&self, run_id: &str) -> ApiResult<bool> {
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
    /// Of those, drafts that failed (their replies could not be read or did not pass the checks).
    pub failed: usize,
    /// Set when the job went through every clause but most of its drafts failed: the app shows
    /// "finished with problems" with this message instead of a plain "finished".
    pub problems: Option<jobs::RunProblems>,
}

/// What drafting every clause calls a draft that failed.
pub const DRAFT_FAILED_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "drafts failed",
    reason: "the model's replies could not be read as cards, or still had errors after every try",
    advice: "A failed draft has nothing to accept. Check the model's settings (a larger reply limit, JSON output) or \
             choose another model, then draft those clauses again.",
};

/// The warning for a finished "draft every clause" job whose drafts mostly failed.
pub fn draft_all_problems(status: RunStatus, drafts: u64, failed: u64) -> Option<jobs::RunProblems> {
    if status != RunStatus::Completed {
        return None;
    }
    jobs::assess_problems(drafts, failed, DRAFT_FAILED_WORDS)
}

impl Engine {
    /// Every "draft every clause" job, newest first.
    pub fn authoring_draft_all_list(&self) -> ApiResult<Vec<DraftAllRun>> {
        let runs = self.store().with_conn(|c| jobs::list_runs(c, Some(RunKind::Authoring)))?;
        let mut out = Vec::new();
        for r in runs {
            let cfg: DraftAllRequest = serde_json::from_value(r.config.clone()).map_err(|e| {
                ApiError::internal(format!("run {}: the stored configuration cannot be read: {e}", r.run_id))
            })?;
            let policy = super::policy_or_default(&cfg.policy);
            let mine = self.store().with_conn(|c| super::repo::list(c, Some(&policy), None, None, Some(&r.run_id)))?;
            let (drafts, failed) = (mine.len(), mine.iter().filter(|d| d.status == "failed").count());
            out.push(DraftAllRun {
                problems: draft_all_problems(r.status, drafts as u64, failed as u64),
                failed,
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
