//! A "draft every clause" job as a job of the runner (`jobs::runner`): its items are the plan's
//! items still to draft, drafted one at a time; each finished draft is stored with the job's id.

use indexmap::IndexMap;
use std::sync::Mutex;

use super::{kinds_or_default, DraftAllItem, DraftAllRequest};
use crate::authoring::draft::{repo, DraftRequest};
use crate::context::Engine;
use crate::error::ApiResult;
use crate::jobs::runner::{ItemOutcome, ItemTokens, Job, JobSetup, Nouns, RunEnd, Tally};
use crate::jobs::RunKind;

/// Where the job stands: read with the items, then kept up to date here.
#[derive(Default, Clone)]
struct Live {
    total: u64,
    done: u64,
    drafted: u64,
    failed: u64,
    cost_usd: f64,
}

pub(super) struct DraftAllJob<'e> {
    engine: &'e Engine,
    run_id: String,
    policy: String,
    cfg: DraftAllRequest,
    live: Mutex<Live>,
}

impl<'e> DraftAllJob<'e> {
    pub fn new(engine: &'e Engine, run_id: &str, policy: String, cfg: DraftAllRequest) -> Self {
        DraftAllJob { engine, run_id: run_id.to_string(), policy, cfg, live: Mutex::default() }
    }
}

impl Job for DraftAllJob<'_> {
    type Item = DraftAllItem;
    type Summary = ();

    fn setup(&self) -> JobSetup<'_> {
        JobSetup {
            run_id: &self.run_id,
            kind: RunKind::Authoring,
            nouns: Nouns { items: "drafts", kept: "drafts", streak: "drafts", resume_note: "" },
            // One item at a time; the endpoint keeps its registered concurrency.
            models: vec![],
            concurrency: 1,
            batch: false,
            cap_usd: None,
            rerun_finished: false,
            start_message: None,
            watched: None,
        }
    }

    async fn items(&self) -> ApiResult<Vec<DraftAllItem>> {
        let e = self.engine;
        let (pol, kinds) = (self.policy.clone(), kinds_or_default(&self.cfg.kinds));
        let work: Vec<DraftAllItem> = e
            .blocking(move |e| e.draft_all_items(&pol, &kinds))
            .await?
            .into_iter()
            .filter(|i| i.state == "to draft")
            .collect();
        let (pol, run) = (self.policy.clone(), self.run_id.clone());
        let mine = e.store().call_read(move |c| repo::list(c, Some(&pol), None, None, Some(&run))).await?;
        let before = mine.len() as u64;
        *self.live.lock().unwrap_or_else(|p| p.into_inner()) = Live {
            total: before + work.len() as u64,
            done: before,
            drafted: mine.iter().filter(|d| d.status != "failed").count() as u64,
            failed: mine.iter().filter(|d| d.status == "failed").count() as u64,
            cost_usd: mine.iter().flat_map(|d| d.calls.iter()).map(|c| c.cost_usd).sum(),
        };
        Ok(work)
    }

    async fn run_item(&self, item: DraftAllItem, tokens: &ItemTokens) -> ItemOutcome {
        let req = DraftRequest {
            policy: Some(self.policy.clone()),
            clause: item.clause_id.clone(),
            kind: item.kind,
            parent: item.parent_card_id.clone(),
            model: self.cfg.model.clone(),
        };
        match self.engine.authoring_draft_in(&req, Some(&self.run_id), &tokens.stop).await {
            Ok(d) => {
                let spent_usd: f64 = d.calls.iter().map(|c| c.cost_usd).sum();
                {
                    let mut l = self.live.lock().unwrap_or_else(|p| p.into_inner());
                    if d.status == "failed" {
                        l.failed += 1;
                    } else {
                        l.drafted += 1;
                    }
                    l.cost_usd += spent_usd;
                    l.done += 1;
                }
                ItemOutcome::Done { spent_usd, note: Some(format!("{} ({})", item.label, item.kind.as_str())) }
            }
            Err(e) if tokens.stop.is_cancelled() => {
                tracing::info!(run = %self.run_id, error = %e.message, "drafting stopped mid-item");
                ItemOutcome::Stopped { spent_usd: 0.0 }
            }
            Err(e) => ItemOutcome::Halt(format!(
                "Drafting {} ({}) failed: {}. Finished drafts are kept; resume the job once the problem is fixed.",
                item.clause_id,
                item.kind.as_str(),
                e.message
            )),
        }
    }

    async fn tally(&self) -> ApiResult<Tally> {
        let l = self.live.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut counters = IndexMap::new();
        counters.insert("drafted".to_string(), l.drafted as f64);
        counters.insert("failed".to_string(), l.failed as f64);
        counters.insert("cost_usd".to_string(), l.cost_usd);
        Ok(Tally {
            total: l.total,
            done: l.done,
            // A failed drafting call stops the job with its reason.
            unfinished: 0,
            spent_usd: l.cost_usd,
            budget_units: l.done,
            counters,
        })
    }

    fn problems(&self, _t: &Tally) -> Option<crate::jobs::RunProblems> {
        let l = self.live.lock().unwrap_or_else(|p| p.into_inner()).clone();
        crate::jobs::assess_problems(l.drafted + l.failed, l.failed, super::DRAFT_FAILED_WORDS)
    }

    async fn summary(&self, _end: RunEnd) -> ApiResult<()> {
        Ok(())
    }
}
