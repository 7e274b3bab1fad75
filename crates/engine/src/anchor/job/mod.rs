//! Anchor pre-sort and translation as resumable jobs. A job freezes its anchors when it is created
//! (a `runs` row of kind `anchors` holds the request; `anchor_job_items` one row per anchor), then
//! works through them in the background, saving each anchor's outcome as it arrives and
//! publishing progress. Stopping keeps every finished anchor; resuming takes only the anchors
//! without an outcome and those that failed.

mod repo;
mod run;

use crate::util::format::count;
use serde::{Deserialize, Serialize};

use super::llm::{AnchorBatchItem, AnchorBatchResult};
use super::Anchor;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{self, RunKind, RunStatus};
use crate::llm::ModelHandle;
use crate::prompt::split::load_split;

/// Anchors handled at once unless the request says otherwise.
const DEFAULT_CONCURRENCY: u32 = 4;
/// Rough reply sizes behind the estimate (tokens).
const PRESORT_REPLY_TOKENS: f64 = 60.0;
/// A translation is about this many times as long as its source, in tokens.
const TRANSLATION_GROWTH: f64 = 1.3;

/// What an anchor job does to each anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum AnchorJobKind {
    /// Sort into a clause's bucket by topic.
    Presort,
    /// Translate to English, keeping the original.
    Translate,
}

/// What a pre-sort calls an anchor it could not sort.
pub const PRESORT_FAILED_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "anchors could not be sorted",
    reason: "the model's replies could not be read as a choice of clause, or its calls failed",
    advice: "Those anchors keep their bucket. Check the model's settings (a larger reply limit, JSON output) or \
             choose another model, then resume to try the failed ones again.",
};

/// What a translation calls an anchor it could not translate.
pub const TRANSLATE_FAILED_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "anchors could not be translated",
    reason: "the model's replies could not be read as a translation, or its calls failed",
    advice: "Those anchors keep their original text only. Check the model's settings (a larger reply limit, JSON \
             output) or choose another model, then resume to try the failed ones again.",
};

/// The warning for an anchor job that went through every anchor (each has an outcome) but
/// failed on most of them. Such a job is stored as failed, so that a resume takes the failed
/// anchors again; the warning says how many and why.
pub(crate) fn anchor_job_problems(
    kind: AnchorJobKind,
    status: RunStatus,
    rows: &[repo::ItemRow],
) -> Option<jobs::RunProblems> {
    if !matches!(status, RunStatus::Completed | RunStatus::Failed) || rows.iter().any(|r| r.outcome.is_none()) {
        return None;
    }
    let failed = rows.iter().filter(|r| r.outcome.as_deref() == Some("failed")).count() as u64;
    let words = match kind {
        AnchorJobKind::Presort => PRESORT_FAILED_WORDS,
        AnchorJobKind::Translate => TRANSLATE_FAILED_WORDS,
    };
    jobs::assess_problems(rows.len() as u64, failed, words)
}

impl AnchorJobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AnchorJobKind::Presort => "presort",
            AnchorJobKind::Translate => "translate",
        }
    }
    fn prompt_id(self) -> &'static str {
        match self {
            AnchorJobKind::Presort => "anchor_presort",
            AnchorJobKind::Translate => "anchor_translate",
        }
    }
}

fn yes() -> bool {
    true
}

/// What to start (or plan) as an anchor job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorJobRequest {
    pub kind: AnchorJobKind,
    pub model: String,
    /// The policy whose clauses are the buckets (pre-sort; default: the default policy).
    #[serde(default)]
    pub policy: Option<String>,
    /// Only these anchors (empty: every anchor that qualifies).
    #[serde(default)]
    pub anchor_ids: Vec<String>,
    /// Pre-sort only: take only anchors without a bucket (default). Buckets set by a person are
    /// never changed either way.
    #[serde(default = "yes")]
    pub only_unbucketed: bool,
    /// Anchors handled at once (default 4, at most 64).
    #[serde(default)]
    pub concurrency: Option<u32>,
    /// Send through the provider's batch interface (cheaper, slower) where the model supports it.
    #[serde(default)]
    pub batch: bool,
    #[serde(default)]
    pub label: Option<String>,
}

/// The request as stored with the job, with the anchors it froze.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct AnchorJobConfig {
    kind: AnchorJobKind,
    model: String,
    policy: String,
    only_unbucketed: bool,
    concurrency: u32,
    batch: bool,
    anchor_ids: Vec<String>,
    prompt_version: String,
}

/// What a job would send and cost, before anything is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorJobPlan {
    pub kind: AnchorJobKind,
    pub model: String,
    /// Anchors the job would take.
    pub anchors: usize,
    /// Of those, anchors whose bucket a person set (left as they are, nothing sent).
    pub kept_manual: usize,
    /// About one call per anchor sent (more when a reply cannot be read).
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub tokens: u64,
    /// Null when a remote model has no price registered.
    pub usd: Option<f64>,
    pub destination: String,
    pub sends_data_off_machine: bool,
    pub batch: bool,
    pub notes: Vec<String>,
}

/// An anchor job with its outcomes so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorJobView {
    pub run_id: String,
    pub kind: AnchorJobKind,
    pub status: RunStatus,
    pub label: Option<String>,
    pub model: String,
    pub policy: String,
    pub concurrency: u32,
    pub batch: bool,
    /// Anchors the job froze.
    pub total: u32,
    /// Anchors handled for good (changed, unchanged or kept as set by hand).
    pub done: u32,
    /// Anchors not handled yet or failed (taken again on resume).
    pub pending: u32,
    pub created_at: String,
    pub finished_at: Option<String>,
    /// Why the job stopped, when it did not finish.
    pub error: Option<String>,
    /// Outcomes of the anchors handled so far, in the job's order (`anchor_job.list` leaves the
    /// items out; `anchor_job.show` has them).
    pub result: AnchorBatchResult,
    /// Set when the job went through every anchor but most of them failed (their replies could
    /// not be read or their calls failed): the app shows "finished with problems" with this
    /// message. Resume tries the failed anchors again.
    pub problems: Option<jobs::RunProblems>,
}

fn concurrency_of(c: Option<u32>) -> u32 {
    c.unwrap_or(DEFAULT_CONCURRENCY).clamp(1, 64)
}

impl Engine {
    /// The handle an anchor job calls its model through: through the provider's batch API in
    /// batch mode (where the provider has one).
    pub(crate) fn anchor_model_handle(&self, model: &str, batch: bool) -> ApiResult<ModelHandle> {
        Ok(self.model_handle(model)?.batched(batch))
    }

    /// The anchors a request would take.
    fn anchor_job_anchors(&self, req: &AnchorJobRequest) -> ApiResult<Vec<Anchor>> {
        match req.kind {
            AnchorJobKind::Presort => {
                self.batch_anchors(&req.anchor_ids, |a| !req.only_unbucketed || a.clause_id.is_none())
            }
            AnchorJobKind::Translate => self.batch_anchors(&req.anchor_ids, |a| {
                a.original_text.is_none() && !a.language.eq_ignore_ascii_case("en")
            }),
        }
    }

    /// What an anchor job would send and cost, before anything is sent.
    pub fn anchor_job_plan(&self, req: &AnchorJobRequest) -> ApiResult<AnchorJobPlan> {
        let cfg = self.anchor_model_handle(&req.model, req.batch)?.cfg.clone();
        let anchors = self.anchor_job_anchors(req)?;
        let prompt = load_split(req.kind.prompt_id())?;
        let clause_list = match req.kind {
            AnchorJobKind::Presort => self.presort_inputs(&policy_of(&req.policy))?.clause_list,
            AnchorJobKind::Translate => String::new(),
        };
        let (mut chars_in, mut tokens_out, mut sent, mut manual) = (0usize, 0.0f64, 0usize, 0usize);
        for a in &anchors {
            let (system, user) = match req.kind {
                AnchorJobKind::Presort if a.bucket_origin.as_deref() == Some("manual") => {
                    manual += 1;
                    continue;
                }
                AnchorJobKind::Presort => {
                    tokens_out += PRESORT_REPLY_TOKENS;
                    prompt.render(&[("clause_list", &clause_list), ("anchor_text", &a.text)])?
                }
                AnchorJobKind::Translate => {
                    tokens_out += a.text.chars().count() as f64 / 4.0 * TRANSLATION_GROWTH + 10.0;
                    prompt.render(&[("source_language", &a.language), ("anchor_text", &a.text)])?
                }
            };
            sent += 1;
            chars_in += system.chars().count() + user.chars().count();
        }
        let tokens_in = chars_in as f64 / 4.0;
        let usd = match (cfg.price_in, cfg.price_out) {
            (Some(pi), Some(po)) => Some((tokens_in * pi + tokens_out * po) / 1e6),
            _ if cfg.is_local() => Some(0.0),
            _ => None,
        };
        let mut notes = vec!["Estimate: one call per anchor sent, 4 characters per token.".to_string()];
        if manual > 0 {
            let (have, they, are) = if manual == 1 { ("has", "it", "is") } else { ("have", "they", "are") };
            notes.push(format!(
                "{} {have} a bucket set by a person; {they} {are} left as {they} {are}.",
                count(manual, "anchor")
            ));
        }
        if usd.is_none() {
            notes.push(format!("Model {} has no price registered, so the cost cannot be estimated.", cfg.name));
        }
        if req.batch {
            notes.push(
                "Batch mode: requests go through the provider's batch interface where the model supports it."
                    .to_string(),
            );
        }
        Ok(AnchorJobPlan {
            kind: req.kind,
            model: cfg.name.clone(),
            anchors: anchors.len(),
            kept_manual: manual,
            calls: sent as u64,
            input_tokens: tokens_in as u64,
            output_tokens: tokens_out as u64,
            tokens: (tokens_in + tokens_out) as u64,
            usd,
            destination: cfg.destination(),
            sends_data_off_machine: !cfg.is_local(),
            batch: req.batch,
            notes,
        })
    }

    /// Create an anchor job (nothing is sent yet); its anchors are frozen now.
    pub fn anchor_job_create(&self, req: &AnchorJobRequest) -> ApiResult<String> {
        self.anchor_model_handle(&req.model, req.batch)?;
        let policy = policy_of(&req.policy);
        if req.kind == AnchorJobKind::Presort {
            self.pack_and_vocab(&policy)?;
        }
        let anchors = self.anchor_job_anchors(req)?;
        let cfg = AnchorJobConfig {
            kind: req.kind,
            model: req.model.clone(),
            policy,
            only_unbucketed: req.kind == AnchorJobKind::Presort && req.only_unbucketed,
            concurrency: concurrency_of(req.concurrency),
            batch: req.batch,
            anchor_ids: anchors.iter().map(|a| a.anchor_id.clone()).collect(),
            prompt_version: load_split(req.kind.prompt_id())?.prompt.version,
        };
        let run_id = jobs::new_run_id(RunKind::AnchorJob);
        self.store().with_tx(|tx| -> ApiResult<()> {
            jobs::insert_run(tx, &run_id, RunKind::AnchorJob, req.label.as_deref(), &cfg)?;
            repo::insert_pending(tx, &run_id, &cfg.anchor_ids)
        })?;
        Ok(run_id)
    }

    fn anchor_job_config(&self, run_id: &str) -> ApiResult<(jobs::StoredRun, AnchorJobConfig)> {
        let run = self.store().with_conn(|c| jobs::get_run(c, run_id))?;
        if run.kind != RunKind::AnchorJob {
            return Err(ApiError::invalid(format!("{run_id} is a {} run, not an anchor job.", run.kind)));
        }
        let cfg: AnchorJobConfig = serde_json::from_value(run.config.clone()).map_err(|e| {
            ApiError::internal(format!("anchor job {run_id}: the stored configuration cannot be read: {e}"))
        })?;
        Ok((run, cfg))
    }

    fn anchor_job_view(
        &self,
        run: jobs::StoredRun,
        cfg: AnchorJobConfig,
        with_items: bool,
    ) -> ApiResult<AnchorJobView> {
        let rows = self.store().with_read(|c| repo::items(c, &run.run_id))?;
        let handled: Vec<AnchorBatchItem> = rows.iter().filter_map(repo::ItemRow::as_batch_item).collect();
        let done = rows.iter().filter(|r| r.is_done()).count() as u32;
        let result = AnchorBatchResult {
            model: cfg.model.clone(),
            processed: handled.len() as u32,
            changed: handled.iter().filter(|i| i.outcome == "changed").count() as u32,
            failed: handled.iter().filter(|i| i.outcome == "failed").count() as u32,
            items: if with_items { handled } else { Vec::new() },
            input_tokens: rows.iter().map(|r| r.input_tokens).sum(),
            output_tokens: rows.iter().map(|r| r.output_tokens).sum(),
            cost_usd: rows.iter().map(|r| r.cost_usd).sum(),
        };
        Ok(AnchorJobView {
            problems: anchor_job_problems(cfg.kind, run.status, &rows),
            run_id: run.run_id,
            kind: cfg.kind,
            status: run.status,
            label: run.label,
            model: cfg.model,
            policy: cfg.policy,
            concurrency: cfg.concurrency,
            batch: cfg.batch,
            total: rows.len() as u32,
            done,
            pending: rows.len() as u32 - done,
            created_at: run.created_at,
            finished_at: run.finished_at,
            error: run.error,
            result,
        })
    }

    /// One anchor job with the outcome of every anchor handled so far.
    pub fn anchor_job_show(&self, run_id: &str) -> ApiResult<AnchorJobView> {
        let (run, cfg) = self.anchor_job_config(run_id)?;
        self.anchor_job_view(run, cfg, true)
    }

    /// Every anchor job, newest first (without the per-anchor outcomes).
    pub fn anchor_job_list(&self) -> ApiResult<Vec<AnchorJobView>> {
        let runs = self.store().with_read(|c| jobs::list_runs(c, Some(RunKind::AnchorJob)))?;
        let mut out = Vec::new();
        for run in runs {
            let (_, cfg) = self.anchor_job_config(&run.run_id)?;
            out.push(self.anchor_job_view(run, cfg, false)?);
        }
        Ok(out)
    }

    /// Ask an anchor job running in this process to stop after the anchors in flight.
    pub fn anchor_job_cancel(&self, run_id: &str) -> ApiResult<bool> {
        self.anchor_job_config(run_id)?;
        Ok(self.jobs().cancel(run_id))
    }

    /// Refuse at once to resume a job another live process works on (changes nothing).
    pub fn anchor_job_check_resumable(&self, run_id: &str) -> ApiResult<()> {
        self.anchor_job_config(run_id)?;
        self.store().with_conn(|c| jobs::ensure_free(c, run_id, self.jobs().owner()))
    }
}

fn policy_of(p: &Option<String>) -> String {
    p.clone().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| crate::policy::DEFAULT_POLICY.to_string())
}
