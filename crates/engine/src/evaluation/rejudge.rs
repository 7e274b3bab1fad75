//! Re-judging a stored or imported run: only the M4 judge runs again, with a model the user
//! chooses, over every trajectory whose answer is correct and carries a rationale (or only those
//! without a usable judgement). The run is claimed while this happens, like any execution, and its
//! configuration records the new judge model; earlier judge results are replaced.

use futures::StreamExt;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::context::EvalPrompts;
use super::environment::rejudge_rationale;
use super::repo;
use crate::case::Case;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{self, Progress, RunKind, RunStatus};
use crate::llm::{CallContext, LlmError};
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
}

fn eligible(case: &Case, t: &Trajectory, only_missing: bool) -> bool {
    let correct = t.final_answer.as_ref().and_then(|f| f.final_verdict.as_deref()) == Some(case.gold_verdict.as_str());
    let rationale = t.rationale().is_some_and(|r| !r.trim().is_empty());
    let has_conditions = case.condition_names().next().is_some();
    let unjudged = t.judge.as_ref().is_none_or(|j| j.extra.contains_key("judge_error"));
    correct && rationale && has_conditions && (!only_missing || unjudged)
}

impl Engine {
    /// Run the M4 judge again over a stored or imported run.
    pub async fn eval_rejudge(&self, req: &RejudgeRequest) -> ApiResult<RejudgeSummary> {
        let run_id = req.run_id.as_str();
        // One row by its key each: quick, so they stay on this thread.
        let run = self.eval_run(run_id)?;
        let before = run.status;
        let judge = self.model_handle(&req.judge_model)?;
        let prompts = EvalPrompts::load()?;
        let run = run_id.to_string();
        let trajectories = self.blocking(move |e| e.eval_trajectories(&run)).await?;
        let case_ids: Vec<String> = trajectories.iter().map(|t| t.case_id.clone()).collect();
        let cases: HashMap<String, Case> = self
            .blocking(|e| e.cases_all(&crate::case::repo::CaseFilter { include_excluded: true, ..Default::default() }))
            .await?
            .into_iter()
            .filter(|c| case_ids.contains(&c.case_id))
            .map(|c| (c.case_id.clone(), c))
            .collect();
        let work: Vec<(Trajectory, &Case)> = trajectories
            .into_iter()
            .filter_map(|t| cases.get(&t.case_id).map(|c| (t, c)))
            .filter(|(t, c)| eligible(c, t, req.only_missing))
            .collect();
        let owned: Vec<Case> = work.iter().map(|(_, c)| (*c).clone()).collect();
        let (texts, _) = self.blocking(move |e| e.eval_clause_texts(&owned.iter().collect::<Vec<_>>())).await?;
        let cancel = self.jobs().register(run_id)?;
        let (run, owner) = (run_id.to_string(), self.jobs().owner().clone());
        if let Err(e) = self.store().call(move |c| jobs::claim(c, &run, &owner)).await {
            self.jobs().finish(run_id);
            return Err(e);
        }
        let heartbeat = jobs::Heartbeat::start(self.store(), run_id, self.jobs().owner(), vec![cancel.clone()]);
        let total = work.len() as u64;
        let started = Instant::now();
        let (judged, failed) = (AtomicU64::new(0), AtomicU64::new(0));
        let cost = Mutex::new(0.0f64);
        let stopped: Mutex<Option<String>> = Mutex::new(None);
        let publish = |status: RunStatus, message: Option<String>| {
            let done = judged.load(Ordering::SeqCst);
            let mut counters = IndexMap::new();
            counters.insert("judged".to_string(), done as f64);
            counters.insert("judge_failed".to_string(), failed.load(Ordering::SeqCst) as f64);
            counters.insert("cost_usd".to_string(), *cost.lock().unwrap_or_else(|p| p.into_inner()));
            let elapsed = started.elapsed().as_secs_f64();
            self.jobs().publish(Progress {
                run_id: run_id.to_string(),
                kind: RunKind::Eval,
                status,
                total,
                done,
                counters,
                elapsed_secs: elapsed,
                eta_secs: jobs::eta(elapsed, done, total),
                message,
            });
        };
        publish(RunStatus::Running, Some(format!("Re-judging with {}", judge.cfg.name)));
        let ctx = CallContext::new(Some(run_id), "judge_rejudge");
        let concurrency = req.concurrency.map(|c| c.max(1) as usize).unwrap_or(DEFAULT_CONCURRENCY);
        futures::stream::iter(work)
            .for_each_concurrent(concurrency, |(mut t, case)| {
                let (judge, prompts, ctx, cancel, texts) = (&judge, &prompts, &ctx, &cancel, &texts);
                let (judged, failed, cost, stopped, publish) = (&judged, &failed, &cost, &stopped, &publish);
                async move {
                    if cancel.is_cancelled() {
                        return;
                    }
                    let text = texts.get(&(case.policy.clone(), case.clause_id.clone())).cloned().unwrap_or_default();
                    let rationale = t.rationale().unwrap_or("").trim().to_string();
                    let out = rejudge_rationale(self.llm(), judge, prompts, case, &text, &rationale, &ctx.clone().item(&case.case_id).role("judge").without_system_text(), cancel).await;
                    match out {
                        Ok((result, _usage, usd)) => {
                            if result.extra.contains_key("judge_error") {
                                failed.fetch_add(1, Ordering::SeqCst);
                            }
                            t.judge = Some(result);
                            let repeat = t.repeat_index() as u32;
                            let (id, t) = (run_id.to_string(), t);
                            if let Err(e) = self.store().call(move |c| repo::update_trajectory(c, &id, repeat, &t)).await {
                                *stopped.lock().unwrap_or_else(|p| p.into_inner()) =
                                    Some(format!("The store failed ({}); judgements made so far are kept.", e.message));
                                cancel.cancel();
                                return;
                            }
                            *cost.lock().unwrap_or_else(|p| p.into_inner()) += usd;
                            judged.fetch_add(1, Ordering::SeqCst);
                            publish(RunStatus::Running, None);
                        }
                        Err(LlmError::Cancelled) => {}
                        Err(e) => {
                            *stopped.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!(
                                "The judge model failed ({e}); judgements made so far are kept. Re-judge again with --only-missing to finish."
                            ));
                            cancel.cancel();
                        }
                    }
                }
            })
            .await;
        if let Some(lost) = heartbeat.lost() {
            self.jobs().finish(run_id);
            return Err(ApiError::conflict(lost));
        }
        heartbeat.end();
        let message = stopped.lock().unwrap_or_else(|p| p.into_inner()).clone().or_else(|| {
            cancel.is_cancelled().then(|| "Stopped at your request; judgements made so far are kept.".to_string())
        });
        let (run, judge_name, owner) = (run_id.to_string(), judge.cfg.name.clone(), self.jobs().owner().clone());
        let recorded = self
            .store()
            .call(move |c| {
                c.execute(
                    "UPDATE runs SET config_json = json_set(config_json, '$.judge_model', ?2) WHERE run_id = ?1",
                    rusqlite::params![run, judge_name],
                )?;
                // The run's own outcome does not change: only its judgements do.
                let status = if before == RunStatus::Running || before == RunStatus::Interrupted {
                    RunStatus::Failed
                } else {
                    before
                };
                jobs::release(c, &run, &owner, status, None)
            })
            .await;
        self.jobs().finish(run_id);
        recorded?;
        let summary = RejudgeSummary {
            run_id: run_id.to_string(),
            judge_model: judge.cfg.name.clone(),
            eligible: total,
            judged: judged.load(Ordering::SeqCst),
            failed: failed.load(Ordering::SeqCst),
            cost_usd: *cost.lock().unwrap_or_else(|p| p.into_inner()),
            message: message.clone(),
        };
        publish(if message.is_some() { RunStatus::Failed } else { RunStatus::Completed }, message);
        tracing::info!(run = %run_id, judged = summary.judged, failed = summary.failed, "re-judging finished");
        Ok(summary)
    }
}
