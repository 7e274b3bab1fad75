//! A generation run as a job of the runner (`jobs::runner`): its items are the run's (card,
//! anchor) units with a candidate still pending; one item is one unit worked through the pipeline
//! (its complete or uncertain candidate, then its missing variants), stored step by step.

use indexmap::IndexMap;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::pipeline::{self, CardBundle, RunRoles, RunShared, ScreenShared, StepError};
use super::prompts::GenerationPrompts;
use super::repo::{self, CandidateRow};
use super::GenerationSummary;
use crate::context::Engine;
use crate::error::ApiResult;
use crate::jobs::runner::{ItemOutcome, ItemTokens, Job, JobSetup, Nouns, RunEnd, Tally};
use crate::jobs::RunKind;

/// One unit: its card, its anchor text, its complete (or uncertain) candidate and its missing
/// variants.
pub(super) type Unit = (Arc<CardBundle>, String, CandidateRow, Vec<CandidateRow>);

pub(super) struct GenerationJob<'e> {
    pub engine: &'e Engine,
    pub run_id: String,
    pub policy: String,
    pub prompts: GenerationPrompts,
    pub background: String,
    pub screen: ScreenShared,
    pub roles: RunRoles,
    pub protocol: crate::protocol::Protocol,
    /// The run's frozen cards and anchor texts, read before the run is claimed.
    pub bundles: HashMap<String, Arc<CardBundle>>,
    pub anchors: HashMap<String, String>,
    pub concurrency: usize,
    pub batch: bool,
    pub cap: Option<f64>,
    /// The plan's estimate of one unit in US$ (the cap uses it until a unit finishes).
    pub unit_estimate_usd: f64,
}

impl GenerationJob<'_> {
    /// What a unit's calls have cost so far.
    async fn unit_cost(&self, unit: i64) -> f64 {
        let run = self.run_id.clone();
        self.engine.store().call_read(move |c| repo::unit_cost(c, &run, unit)).await.unwrap_or(0.0)
    }
}

impl Job for GenerationJob<'_> {
    type Item = Unit;
    type Summary = GenerationSummary;

    fn setup(&self) -> JobSetup<'_> {
        let r = &self.roles;
        JobSetup {
            run_id: &self.run_id,
            kind: RunKind::Generation,
            nouns: Nouns {
                items: "candidates",
                streak: "card-and-anchor pairs",
                kept: "candidates",
                resume_note: " (answered calls are reused from the cache)",
            },
            models: vec![&r.producer.cfg, &r.verifier.cfg, &r.screen.cfg],
            concurrency: self.concurrency,
            batch: self.batch,
            cap_usd: self.cap,
            rerun_finished: false,
            start_message: None,
            watched: Some(&r.producer.cfg),
        }
    }

    /// The units with a pending candidate. A unit whose card or anchor is gone cannot be worked
    /// on: its pending candidates are dropped, saying why.
    async fn items(&self) -> ApiResult<Vec<Unit>> {
        let run = self.run_id.clone();
        let all = self.engine.store().call_read(move |c| repo::candidates(c, &run)).await?;
        let mut units: BTreeMap<i64, (Option<CandidateRow>, Vec<CandidateRow>)> = BTreeMap::new();
        for c in all {
            let e = units.entry(c.unit).or_default();
            if c.missing_variant_id.is_none() {
                e.0 = Some(c);
            } else {
                e.1.push(c);
            }
        }
        let mut work: Vec<Unit> = Vec::new();
        let mut orphans: Vec<(String, &'static str, String)> = Vec::new();
        for (p, vs) in units.into_values() {
            let Some(p) = p else { continue };
            if p.status != "pending" && vs.iter().all(|v| v.status != "pending") {
                continue;
            }
            match (self.bundles.get(&p.clause_card_id), self.anchors.get(&p.anchor_id)) {
                (Some(b), Some(a)) => work.push((b.clone(), a.clone(), p, vs)),
                (b, _) => {
                    let why = if b.is_none() {
                        "the run's copy of its card is missing"
                    } else {
                        "its anchor was removed from the store"
                    };
                    for c in std::iter::once(&p).chain(vs.iter()).filter(|c| c.status == "pending") {
                        orphans.push((
                            c.candidate_id.clone(),
                            if b.is_none() { "card" } else { "anchor" },
                            format!("not generated: {why}"),
                        ));
                    }
                }
            }
        }
        if !orphans.is_empty() {
            self.engine
                .store()
                .call_tx(move |tx| {
                    for (id, stage, why) in &orphans {
                        repo::mark_finished(tx, id, "dropped", stage, why)?;
                    }
                    Ok(())
                })
                .await?;
        }
        Ok(work)
    }

    fn plan_item_usd(&self) -> f64 {
        self.unit_estimate_usd
    }

    async fn run_item(&self, (bundle, anchor, parent, variants): Unit, tokens: &ItemTokens) -> ItemOutcome {
        let unit = parent.unit;
        let cost_before = self.unit_cost(unit).await;
        // Every stored attempt and finished candidate is progress, published by the runner.
        let on_progress = || tokens.changed();
        let shared = RunShared {
            engine: self.engine,
            run_id: &self.run_id,
            policy: &self.policy,
            prompts: &self.prompts,
            background: &self.background,
            screen: &self.screen,
            roles: &self.roles,
            protocol: self.protocol,
            // Stop lets the calls in flight finish (they are kept); Abort ends them.
            stop: tokens.stop.clone(),
            abort: tokens.abort.clone(),
            on_progress: &on_progress,
        };
        let outcome = pipeline::run_unit(&shared, &bundle, &anchor, &parent, &variants).await;
        let spent_usd = self.unit_cost(unit).await - cost_before;
        match outcome {
            Ok(()) => ItemOutcome::Done { spent_usd, note: None },
            Err(StepError::Stopped) => ItemOutcome::Stopped { spent_usd },
            Err(StepError::Llm(error)) => ItemOutcome::ModelFailed { spent_usd, error },
            Err(StepError::Store(e)) => ItemOutcome::Halt(format!(
                "The store failed ({}); finished work is kept. Resume the run once the problem is fixed.",
                e.message
            )),
        }
    }

    async fn tally(&self) -> ApiResult<Tally> {
        let run = self.run_id.clone();
        let c = self.engine.store().call_read(move |conn| repo::counts(conn, &run)).await?;
        let mut counters = IndexMap::new();
        for (k, v) in [
            ("accepted", c.accepted as f64),
            ("dropped", c.dropped as f64),
            ("skipped", c.skipped as f64),
            ("unreadable", c.unreadable as f64),
            ("retries", c.retries as f64),
            ("attempts", c.attempts as f64),
            ("units_done", c.units_done as f64),
            ("units_total", c.units_total as f64),
            ("calls", c.calls as f64),
            ("cache_hits", c.cache_hits as f64),
            ("input_tokens", c.input_tokens as f64),
            ("output_tokens", c.output_tokens as f64),
            ("cost_usd", c.cost_usd),
        ] {
            counters.insert(k.to_string(), v);
        }
        Ok(Tally {
            total: c.total,
            done: c.done,
            unfinished: c.pending,
            spent_usd: c.cost_usd,
            budget_units: c.units_done,
            counters,
        })
    }

    fn problems(&self, t: &Tally) -> Option<crate::jobs::RunProblems> {
        let count = |k: &str| t.counters.get(k).copied().unwrap_or(0.0) as u64;
        // Candidates never started (skipped because their complete case was dropped) are not counted.
        crate::jobs::assess_problems(
            t.done.saturating_sub(count("skipped")),
            count("unreadable"),
            super::UNREADABLE_WORDS,
        )
    }

    async fn summary(&self, end: RunEnd) -> ApiResult<GenerationSummary> {
        let run = self.run_id.clone();
        self.engine.blocking(move |e| e.generation_summary(&run, end.message)).await
    }
}
