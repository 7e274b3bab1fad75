//! An evaluation run as a job of the runner (`jobs::runner`): its items are the (case, repeat)
//! pairs still pending; one item is one case worked through the agentic environment and stored.

use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::context::EvalPrompts;
use super::environment::{run_case, Roles};
use super::repo::{self, ItemCounts};
use super::{ClauseTexts, EvaluationSummary};
use crate::case::Case;
use crate::context::Engine;
use crate::error::ApiResult;
use crate::jobs::runner::{ItemOutcome, ItemTokens, Job, JobSetup, Nouns, RunEnd, Tally};
use crate::jobs::RunKind;
use crate::llm::{CallChain, LlmError};

/// The cases of the run's pending items and the judge's clause texts, read once the run is claimed.
#[derive(Default)]
struct Loaded {
    cases: HashMap<String, Arc<Case>>,
    clause_texts: ClauseTexts,
    /// The evaluated model's system prompt per policy: each case is shown its own policy's.
    systems: HashMap<String, Arc<str>>,
    plan_item_usd: f64,
}

pub(super) struct EvaluationJob<'e> {
    pub engine: &'e Engine,
    pub run_id: String,
    pub roles: Arc<Roles>,
    pub prompts: Arc<EvalPrompts>,
    pub turns: u32,
    pub concurrency: usize,
    pub batch: bool,
    pub cap: Option<f64>,
    loaded: Mutex<Arc<Loaded>>,
    /// The run's counts, read from the store when the items are, then kept up to date here.
    live: Mutex<ItemCounts>,
}

impl<'e> EvaluationJob<'e> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        engine: &'e Engine,
        run_id: &str,
        roles: Roles,
        prompts: EvalPrompts,
        turns: u32,
        concurrency: usize,
        batch: bool,
        cap: Option<f64>,
    ) -> Self {
        EvaluationJob {
            engine,
            run_id: run_id.to_string(),
            roles: Arc::new(roles),
            prompts: Arc::new(prompts),
            turns,
            concurrency,
            batch,
            cap,
            loaded: Mutex::new(Arc::new(Loaded::default())),
            live: Mutex::new(ItemCounts::default()),
        }
    }

    fn loaded(&self) -> Arc<Loaded> {
        self.loaded.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn update(&self, f: impl FnOnce(&mut ItemCounts)) {
        f(&mut self.live.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

impl Job for EvaluationJob<'_> {
    type Item = (String, u32);
    type Summary = EvaluationSummary;

    fn setup(&self) -> JobSetup<'_> {
        let r = &self.roles;
        JobSetup {
            run_id: &self.run_id,
            kind: RunKind::Eval,
            nouns: Nouns { items: "cases", streak: "cases", kept: "cases", resume_note: "" },
            models: vec![&r.eval.cfg, &r.info.cfg, &r.judge.cfg],
            concurrency: self.concurrency,
            batch: self.batch,
            cap_usd: self.cap,
            rerun_finished: false,
            start_message: None,
            watched: Some(&r.eval.cfg),
        }
    }

    async fn items(&self) -> ApiResult<Vec<(String, u32)>> {
        let e = self.engine;
        let run = self.run_id.clone();
        // One read connection for all of the run's cases (thousands at the paper's scale).
        let (pending, cases, counts) = e
            .store()
            .call_read(move |c| {
                let pending = repo::pending(c, &run)?;
                let mut m: HashMap<String, Arc<Case>> = HashMap::new();
                for (id, _) in &pending {
                    if !m.contains_key(id) {
                        m.insert(id.clone(), Arc::new(crate::case::repo::get_case(c, id)?));
                    }
                }
                Ok((pending, m, repo::counts(c, &run)?))
            })
            .await?;
        let list: Vec<Arc<Case>> = cases.values().cloned().collect();
        let (clause_texts, _) =
            e.blocking(move |e| e.eval_clause_texts(&list.iter().map(|c| c.as_ref()).collect::<Vec<_>>())).await?;
        let mut policies: Vec<String> = cases.values().map(|c| c.policy.clone()).collect();
        policies.sort();
        policies.dedup();
        let prompts = self.prompts.clone();
        let systems: HashMap<String, Arc<str>> = e
            .blocking(move |e| {
                policies
                    .into_iter()
                    .map(|p| Ok((p.clone(), Arc::from(e.eval_system_prompt(&p, &prompts)?))))
                    .collect::<ApiResult<HashMap<String, Arc<str>>>>()
            })
            .await?;
        let system_chars = systems.values().map(|s| s.len()).max().unwrap_or(0);
        let todo: Vec<Case> = pending.iter().filter_map(|(id, _)| cases.get(id).map(|c| c.as_ref().clone())).collect();
        let plan_item_usd = if todo.is_empty() {
            0.0
        } else {
            let r = &self.roles;
            let est = super::estimate(system_chars, &todo, 1, &r.eval.cfg, &r.info.cfg, &r.judge.cfg);
            // Batch mode pays batch prices.
            if self.batch { est.usd_batch } else { est.usd }.map(|u| u / todo.len() as f64).unwrap_or(0.0)
        };
        *self.loaded.lock().unwrap_or_else(|p| p.into_inner()) =
            Arc::new(Loaded { cases, clause_texts, systems, plan_item_usd });
        *self.live.lock().unwrap_or_else(|p| p.into_inner()) = counts;
        Ok(pending)
    }

    fn plan_item_usd(&self) -> f64 {
        self.loaded().plan_item_usd
    }

    async fn run_item(&self, (case_id, repeat): (String, u32), tokens: &ItemTokens) -> ItemOutcome {
        let loaded = self.loaded();
        let Some(case) = loaded.cases.get(&case_id).cloned() else { return ItemOutcome::Skipped };
        let clause_text =
            loaded.clause_texts.get(&(case.policy.clone(), case.clause_id.clone())).cloned().unwrap_or_default();
        let Some(system) = loaded.systems.get(&case.policy).cloned() else { return ItemOutcome::Skipped };
        let e = self.engine;
        let chain = CallChain::new(e.store());
        // Stop ends the calls in flight too: a stopped case is simply done again on resume.
        let outcome = run_case(
            e.llm(),
            &self.roles,
            &self.prompts,
            &system,
            &case,
            &clause_text,
            repeat,
            self.turns,
            &self.run_id,
            &chain,
            &tokens.stop,
        )
        .await;
        match outcome {
            Ok(o) => {
                let correct = o.trajectory.predicted_verdict() == Some(case.gold_verdict);
                let usage = o.trajectory.usage.clone();
                let (asks, parse_failure, cost_usd) = (o.asks, o.parse_failure, o.cost_usd);
                let (id, traj) = (self.run_id.clone(), o.trajectory);
                let saved = e
                    .store()
                    .call_grouped(move |c| {
                        repo::save_done(
                            c,
                            &id,
                            repeat,
                            &repo::ItemResult { trajectory: &traj, correct, asks, parse_failure, cost_usd },
                        )
                    })
                    .await;
                // Committed with the case (queued before it): this only reports a failed row.
                chain.settle().await;
                if let Err(err) = saved {
                    return ItemOutcome::Halt(err.message);
                }
                self.update(|l| {
                    l.done += 1;
                    l.correct += correct as u64;
                    l.asks += asks as u64;
                    l.parse_failures += parse_failure as u64;
                    l.prompt_tokens += usage.prompt_tokens;
                    l.completion_tokens += usage.completion_tokens;
                    l.cost_usd += cost_usd;
                });
                ItemOutcome::Done { spent_usd: cost_usd, note: None }
            }
            Err(LlmError::Cancelled) => ItemOutcome::Stopped { spent_usd: 0.0 },
            Err(error) => {
                let msg = error.to_string();
                let (id, cid) = (self.run_id.clone(), case.case_id.clone());
                if let Err(err) = e.store().call(move |c| repo::save_error(c, &id, &cid, repeat, &msg)).await {
                    // The item stays pending and is retried on resume; only the note of why is lost.
                    tracing::warn!(run = %self.run_id, case = %case.case_id, error = %err, "could not record a case's error");
                }
                self.update(|l| l.with_errors += 1);
                ItemOutcome::ModelFailed { spent_usd: 0.0, error }
            }
        }
    }

    async fn tally(&self) -> ApiResult<Tally> {
        let c = self.live.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut counters = IndexMap::new();
        for (k, v) in [
            ("correct", c.correct as f64),
            ("asks", c.asks as f64),
            ("parse_failures", c.parse_failures as f64),
            ("errors", c.with_errors as f64),
            ("prompt_tokens", c.prompt_tokens as f64),
            ("completion_tokens", c.completion_tokens as f64),
            ("cost_usd", c.cost_usd),
        ] {
            counters.insert(k.to_string(), v);
        }
        Ok(Tally {
            total: c.total,
            done: c.done,
            unfinished: c.total.saturating_sub(c.done),
            spent_usd: c.cost_usd,
            budget_units: c.done,
            counters,
        })
    }

    fn problems(&self, _t: &Tally) -> Option<crate::jobs::RunProblems> {
        let c = self.live.lock().unwrap_or_else(|p| p.into_inner()).clone();
        crate::jobs::assess_problems(c.done, c.parse_failures, super::UNREADABLE_WORDS)
    }

    async fn summary(&self, end: RunEnd) -> ApiResult<EvaluationSummary> {
        let run = self.run_id.clone();
        self.engine.blocking(move |e| e.evaluation_summary(&run, end.message)).await
    }
}
