//! Re-judging a stored or imported run: only the M4 judge runs again, with a model the user
//! chooses, over every trajectory whose answer is correct and carries a rationale (or only those
//! without a usable judgement). The run is claimed while this happens, like any execution, and its
//! configuration records the new judge model; earlier judge results are replaced.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::context::EvalPrompts;
use super::environment::rejudge_rationale;
use super::{repo, ClauseTexts};
use crate::case::Case;
use crate::context::Engine;
use crate::error::ApiResult;
use crate::jobs::runner::{ItemOutcome, ItemTokens, Job, JobSetup, Nouns, RunEnd, Tally};
use crate::jobs::{self, RunKind, RunStatus};
use crate::llm::{CallContext, LlmError, ModelHandle};
use crate::protocol::Protocol;
use crate::trajectory::Trajectory;

/// Judge calls in flight at once when the request does not say.
const DEFAULT_CONCURRENCY: usize = 4;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RejudgeRequest {
    pub run_id: String,
    pub judge_model: String,
    /// Judge only trajectories without a usable judgement (default: all that can count in M4).
    #[serde(default)]
    pub only_missing: bool,
    #[serde(default)]
    pub concurrency: Option<u32>,
    /// `paper` (the judge reads the rationale and the boundary conditions) or `studio` (also the
    /// clause's wording). Default: the protocol the run was made with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub protocol: Option<Protocol>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RejudgeSummary {
    pub run_id: String,
    pub judge_model: String,
    /// Trajectories that can count in M4 (correct answer, a rationale, conditions to hit).
    pub eligible: u64,
    /// Judged now.
    pub judged: u64,
    /// Whose judge gave no well-formed judgement (kept with the reason; M4 counts them as 0 and
    /// reports them as unjudged).
    pub failed: u64,
    pub cost_usd: f64,
    /// Why the work stopped early, if it did.
    pub message: Option<String>,
    /// Set when the re-judging went through every case but most judgements failed.
    pub problems: Option<jobs::RunProblems>,
}

/// What a re-judging calls a judgement that failed.
pub const JUDGE_FAILED_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "judgements failed",
    reason: "the judge model's replies could not be read as a grading of the rationale",
    advice: "Those cases keep no grade of their rationale. Check the judge model's settings (a larger reply limit, \
             JSON output) or choose another judge, then re-judge the missing ones again.",
};

fn eligible(case: &Case, t: &Trajectory, only_missing: bool) -> bool {
    let correct = t.final_answer.as_ref().and_then(|f| f.final_verdict.as_deref()) == Some(case.gold_verdict.as_str());
    let rationale = t.rationale().is_some_and(|r| !r.trim().is_empty());
    let has_conditions = case.condition_names().next().is_some();
    let unjudged = t.judge.as_ref().is_none_or(|j| j.extra.contains_key("judge_error"));
    correct && rationale && has_conditions && (!only_missing || unjudged)
}

/// A re-judging as a job of the runner (`jobs::runner`) on its evaluation run: its items are the
/// eligible trajectories with their cases; one item is one judge call, its result stored.
struct RejudgeJob<'e> {
    engine: &'e Engine,
    run_id: String,
    judge: ModelHandle,
    prompts: EvalPrompts,
    texts: ClauseTexts,
    ctx: CallContext,
    concurrency: usize,
    /// The run's status and message before: re-judging leaves the run's own outcome as it was.
    before: (RunStatus, Option<String>),
    /// The eligible trajectories, read before the run is claimed and handed over as its items.
    work: Mutex<Vec<(Trajectory, Case)>>,
    eligible: u64,
    judged: AtomicU64,
    failed: AtomicU64,
    cost: Mutex<f64>,
}

impl RejudgeJob<'_> {
    fn cost(&self) -> f64 {
        *self.cost.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Job for RejudgeJob<'_> {
    type Item = (Trajectory, Case);
    type Summary = RejudgeSummary;

    fn setup(&self) -> JobSetup<'_> {
        JobSetup {
            run_id: &self.run_id,
            kind: RunKind::Eval,
            nouns: Nouns {
                items: "judgements",
                streak: "judgements",
                kept: "judgements",
                resume_note: " by re-judging with --only-missing",
            },
            models: vec![&self.judge.cfg],
            concurrency: self.concurrency,
            batch: false,
            cap_usd: None,
            rerun_finished: true,
            start_message: Some(format!("Re-judging with {}", self.judge.cfg.name)),
            watched: Some(&self.judge.cfg),
        }
    }

    async fn items(&self) -> ApiResult<Vec<(Trajectory, Case)>> {
        Ok(std::mem::take(&mut *self.work.lock().unwrap_or_else(|p| p.into_inner())))
    }

    async fn run_item(&self, (mut t, case): (Trajectory, Case), tokens: &ItemTokens) -> ItemOutcome {
        let text = self.texts.get(&(case.policy.clone(), case.clause_id.clone())).cloned().unwrap_or_default();
        let rationale = t.rationale().unwrap_or("").trim().to_string();
        let e = self.engine;
        let ctx = self.ctx.clone().item(&case.case_id).role("judge").without_system_text();
        let out =
            rejudge_rationale(e.llm(), &self.judge, &self.prompts, &case, &text, &rationale, &ctx, &tokens.stop).await;
        match out {
            Ok((result, _usage, usd)) => {
                let failed = result.extra.contains_key("judge_error");
                t.judge = Some(result);
                let repeat = t.repeat_index() as u32;
                let id = self.run_id.clone();
                if let Err(err) = e.store().call(move |c| repo::update_trajectory(c, &id, repeat, &t)).await {
                    return ItemOutcome::Halt(format!(
                        "The store failed ({}); judgements made so far are kept.",
                        err.message
                    ));
                }
                *self.cost.lock().unwrap_or_else(|p| p.into_inner()) += usd;
                self.judged.fetch_add(1, Ordering::SeqCst);
                if failed {
                    // Kept with the reason; M4 counts it as 0 and reports it as unjudged.
                    self.failed.fetch_add(1, Ordering::SeqCst);
                    ItemOutcome::Kept { spent_usd: usd, note: None }
                } else {
                    ItemOutcome::Done { spent_usd: usd, note: None }
                }
            }
            Err(LlmError::Cancelled) => ItemOutcome::Stopped { spent_usd: 0.0 },
            // A judge that fails would fail every call alike: stop at once.
            Err(e) => ItemOutcome::Halt(format!(
                "The judge model failed ({e}); judgements made so far are kept. Re-judge again with --only-missing to finish."
            )),
        }
    }

    async fn tally(&self) -> ApiResult<Tally> {
        let (judged, failed, cost) =
            (self.judged.load(Ordering::SeqCst), self.failed.load(Ordering::SeqCst), self.cost());
        let mut counters = IndexMap::new();
        counters.insert("judged".to_string(), judged as f64);
        counters.insert("judge_failed".to_string(), failed as f64);
        counters.insert("cost_usd".to_string(), cost);
        Ok(Tally {
            total: self.eligible,
            done: judged,
            unfinished: self.eligible.saturating_sub(judged),
            spent_usd: cost,
            budget_units: judged,
            counters,
        })
    }

    /// The run's own outcome does not change: only its judgements do.
    fn problems(&self, _t: &Tally) -> Option<jobs::RunProblems> {
        jobs::assess_problems(
            self.judged.load(Ordering::SeqCst),
            self.failed.load(Ordering::SeqCst),
            JUDGE_FAILED_WORDS,
        )
    }

    fn stored_status(&self, _ended: RunStatus) -> RunStatus {
        match self.before.0 {
            RunStatus::Running | RunStatus::Interrupted => RunStatus::Failed,
            before => before,
        }
    }

    fn stored_message(&self, _message: Option<&str>) -> Option<String> {
        self.before.1.clone()
    }

    async fn summary(&self, end: RunEnd) -> ApiResult<RejudgeSummary> {
        let (run, judge) = (self.run_id.clone(), self.judge.cfg.name.clone());
        self.engine.store().call(move |c| jobs::set_config_field(c, &run, "judge_model", &judge)).await?;
        // The run's provenance names the judge whose judgements it now holds, and says when they
        // were made under another protocol than the run's.
        let (run, protocol) = (self.run_id.clone(), self.prompts.protocol);
        let named = format!("{} ({})", self.judge.cfg.name, self.judge.cfg.model);
        self.engine
            .store()
            .call(move |c| {
                let row = jobs::get_run(c, &run)?.typed::<super::EvaluationRunConfig>()?;
                let mut config = row.config;
                if let Some(p) = config.provenance.as_mut() {
                    p.judge_model = Some(if p.protocol == protocol {
                        named
                    } else {
                        format!("{named}, judged under the {protocol} protocol")
                    });
                    jobs::set_config(c, &run, &config)?;
                }
                Ok::<_, crate::error::ApiError>(())
            })
            .await?;
        let summary = RejudgeSummary {
            run_id: self.run_id.clone(),
            judge_model: self.judge.cfg.name.clone(),
            eligible: self.eligible,
            judged: self.judged.load(Ordering::SeqCst),
            failed: self.failed.load(Ordering::SeqCst),
            cost_usd: self.cost(),
            problems: (end.status == RunStatus::Completed).then(|| self.problems(&end.tally)).flatten(),
            message: end.message,
        };
        tracing::info!(run = %self.run_id, judged = summary.judged, failed = summary.failed, "re-judging finished");
        Ok(summary)
    }
}

impl Engine {
    /// Run the M4 judge again over a stored or imported run.
    pub async fn evaluation_rejudge(&self, req: &RejudgeRequest) -> ApiResult<RejudgeSummary> {
        let run_id = req.run_id.as_str();
        // One row by its key each: quick, so they stay on this thread.
        let run = self.evaluation_run(run_id)?;
        let before = (run.status, run.error);
        let judge = self.model_handle(&req.judge_model)?;
        let protocol = req.protocol.unwrap_or(run.config.protocol());
        let prompts = EvalPrompts::load(protocol)?;
        let run = run_id.to_string();
        let trajectories = self.blocking(move |e| e.evaluation_trajectories(&run)).await?;
        let case_ids: Vec<String> = trajectories.iter().map(|t| t.case_id.clone()).collect();
        let cases: HashMap<String, Case> = self
            .blocking(|e| e.cases_all(&crate::case::repo::CaseFilter { include_excluded: true, ..Default::default() }))
            .await?
            .into_iter()
            .filter(|c| case_ids.contains(&c.case_id))
            .map(|c| (c.case_id.clone(), c))
            .collect();
        let work: Vec<(Trajectory, Case)> = trajectories
            .into_iter()
            .filter_map(|t| cases.get(&t.case_id).map(|c| (t, c.clone())))
            .filter(|(t, c)| eligible(c, t, req.only_missing))
            .collect();
        let owned: Vec<Case> = work.iter().map(|(_, c)| c.clone()).collect();
        let (texts, _) = self.blocking(move |e| e.eval_clause_texts(&owned.iter().collect::<Vec<_>>())).await?;
        let job = RejudgeJob {
            engine: self,
            run_id: run_id.to_string(),
            judge,
            prompts,
            texts,
            ctx: CallContext::new(Some(run_id), "judge_rejudge"),
            concurrency: req.concurrency.map(|c| c.max(1) as usize).unwrap_or(DEFAULT_CONCURRENCY),
            before,
            eligible: work.len() as u64,
            work: Mutex::new(work),
            judged: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            cost: Mutex::new(0.0),
        };
        jobs::runner::execute(self.runner_services(), &job).await
    }
}
