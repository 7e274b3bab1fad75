//! Deletions that reach the tables of several modules. Each table is written only by the module
//! that owns it, and a module may call only modules below it; a deletion whose rows belong to a
//! module above the one that owns the thing deleted is therefore put together here, above all of
//! them, from the owners' functions, in one transaction.

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::Engine;
use crate::error::{ApiError, ApiResult};
use crate::evaluation::EvaluationRunConfig;
use crate::jobs::{self, RunKind, RunRow, RunStatus};
use crate::policy::actions::PolicyDeleteResult;

impl Engine {
    /// Remove a user pack that no card and no case uses, with the extractions and drafts made
    /// from its text (they must not come back as the context of a new pack that reuses the id).
    pub fn policy_delete(&self, id: &str) -> ApiResult<PolicyDeleteResult> {
        self.store().with_tx(|tx| -> ApiResult<()> {
            let builtin = crate::policy::repo::is_builtin(tx, id)?
                .ok_or_else(|| ApiError::not_found(format!("There is no policy pack \"{id}\" in this store.")))?;
            if builtin {
                return Err(ApiError::conflict(format!(
                    "\"{id}\" is a built-in policy pack; it comes with the app and cannot be deleted."
                )));
            }
            let cards = crate::card::repo::count_for_policy(tx, id)?;
            let cases = crate::case::repo::count_for_policy(tx, id)?;
            if cards > 0 || cases > 0 {
                return Err(ApiError::conflict(format!(
                    "The policy \"{id}\" is still used by {cards} card(s) and {cases} case(s). Delete or move those first; nothing was deleted."
                )));
            }
            crate::authoring::repo::delete_for_policy(tx, id)?;
            crate::policy::repo::delete_pack(tx, id)
        })?;
        Ok(PolicyDeleteResult { id: id.to_string(), deleted: true })
    }

    /// Delete anchors, with the copies of their text that generation runs keep (see
    /// `anchors_remove_with`).
    pub fn anchors_remove(&self, anchor_ids: &[String]) -> ApiResult<u32> {
        self.anchors_remove_with(anchor_ids, crate::generation::repo::forget_anchor)
    }
}

/// What deleting an evaluation run removes, read from the store before it goes (a preview), or
/// what it removed. The sentences say it in plain words for a confirmation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunRemoval {
    pub run_id: String,
    /// The model under test ("" for a run imported without one).
    pub model: String,
    pub label: Option<String>,
    /// One of the example runs of fictional models.
    pub example: bool,
    pub status: RunStatus,
    /// Items of the run (case and repeat), finished or not.
    pub items: u64,
    /// Finished transcripts among them.
    pub trajectories: u64,
    /// Finished answers with a result of the M4 judge.
    pub judged: u64,
    /// Model calls the call ledger holds for the run: their text goes, their tokens and cost
    /// stay in the store's spending totals.
    pub ledger_calls: u64,
    /// Provider batches the run sent (batch mode).
    pub batches: u64,
    /// Expert-review sessions that took rationales from the run; they keep their own copies and
    /// are not changed.
    pub review_sessions: Vec<String>,
    /// What goes, one sentence each.
    pub removes: Vec<String>,
    /// What stays, one sentence each.
    pub keeps: Vec<String>,
}

/// What removing the example results removes (or removed): one entry per example run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExampleResultsRemoval {
    pub runs: Vec<RunRemoval>,
    /// One sentence: what goes and what stays.
    pub summary: String,
}

fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl RunRemoval {
    fn describe(mut self) -> RunRemoval {
        let mut removes = vec![format!(
            "The run and its results on {} ({} finished transcript{}, {} with a judge result).",
            counted(self.items, "case", "cases"),
            self.trajectories,
            if self.trajectories == 1 { "" } else { "s" },
            self.judged
        )];
        if self.ledger_calls > 0 {
            removes.push(format!(
                "The text of its {} in the call ledger (requests and replies); their tokens and cost stay in the spending totals.",
                counted(self.ledger_calls, "model call", "model calls")
            ));
        }
        if self.batches > 0 {
            removes.push(format!(
                "Its {} and any replies kept for it; a batch still open at the provider is no longer collected.",
                counted(self.batches, "provider batch", "provider batches")
            ));
        }
        let mut keeps = vec![
            "The cases, the models and the other runs.".to_string(),
            "Cached model replies, so running the same cases again with the same models costs nothing.".to_string(),
            "Files you exported earlier.".to_string(),
        ];
        if !self.review_sessions.is_empty() {
            keeps.push(format!(
                "The expert review{} {} keep{} the rationales taken from this run (they hold their own copies).",
                if self.review_sessions.len() == 1 { "" } else { "s" },
                self.review_sessions.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", "),
                if self.review_sessions.len() == 1 { "s" } else { "" }
            ));
        }
        self.removes = removes;
        self.keeps = keeps;
        self
    }
}

impl Engine {
    /// What deleting an evaluation run would remove, without removing anything. Refused like the
    /// deletion itself (unknown run, not an evaluation run, still running).
    pub fn evaluation_delete_preview(&self, run_id: &str) -> ApiResult<RunRemoval> {
        self.store().with_read(|c| self.run_removal(c, run_id))
    }

    /// Delete an evaluation run and everything that belongs to it, in one transaction: its items
    /// (transcripts and judge results), its provider batches, the text of its model calls (their
    /// usage stays in the totals), and the run record. Cases, models, other runs, cached replies
    /// and review sessions stay. A run that is still running is refused.
    pub fn evaluation_delete(&self, run_id: &str) -> ApiResult<RunRemoval> {
        let removed = self.store().with_tx(|tx| -> ApiResult<RunRemoval> {
            let r = self.run_removal(tx, run_id)?;
            remove_run(tx, run_id)?;
            Ok(r)
        })?;
        tracing::info!(run = run_id, items = removed.items, "evaluation run deleted");
        Ok(removed)
    }

    /// What removing the example results would remove, without removing anything.
    pub fn demo_remove_example_results_preview(&self) -> ApiResult<ExampleResultsRemoval> {
        self.store().with_read(|c| self.examples_removal(c))
    }

    /// Delete every example run (fictional models) in one transaction; the demo cases stay.
    pub fn demo_remove_example_results(&self) -> ApiResult<ExampleResultsRemoval> {
        self.store().with_tx(|tx| -> ApiResult<ExampleResultsRemoval> {
            let plan = self.examples_removal(tx)?;
            for r in &plan.runs {
                remove_run(tx, &r.run_id)?;
            }
            Ok(plan)
        })
    }

    fn examples_removal(&self, c: &Connection) -> ApiResult<ExampleResultsRemoval> {
        let mut runs = Vec::new();
        for run in jobs::list_runs(c, Some(RunKind::Eval))? {
            let run: RunRow<EvaluationRunConfig> = run.typed()?;
            if run.config.is_example() {
                runs.push(self.run_removal(c, &run.run_id)?);
            }
        }
        runs.sort_by(|a, b| a.run_id.cmp(&b.run_id));
        let summary = if runs.is_empty() {
            "There are no example results in this store.".to_string()
        } else {
            let trajectories: u64 = runs.iter().map(|r| r.trajectories).sum();
            format!(
                "Removes the {} of fictional models ({}) and their {} transcripts. The demo cases and your own runs stay.",
                counted(runs.len() as u64, "example run", "example runs"),
                runs.iter().map(|r| r.model.as_str()).collect::<Vec<_>>().join(", "),
                trajectories
            )
        };
        Ok(ExampleResultsRemoval { runs, summary })
    }

    /// Read what deleting a run removes; refuse what may not be deleted.
    fn run_removal(&self, c: &Connection, run_id: &str) -> ApiResult<RunRemoval> {
        let run = jobs::get_run(c, run_id)?;
        if run.kind != RunKind::Eval {
            let what = match run.kind {
                RunKind::Generation => "a case generation run",
                RunKind::Authoring => "a card drafting run",
                RunKind::LabelAudit => "a label audit",
                RunKind::AnchorJob => "an anchor sorting or translation job",
                RunKind::Eval => "an evaluation run",
            };
            return Err(ApiError::invalid(format!(
                "\"{run_id}\" is {what}, not an evaluation run; only evaluation runs can be deleted. Nothing was deleted."
            )));
        }
        if run.status == RunStatus::Running || self.jobs().is_running_here(run_id) {
            return Err(ApiError::conflict(format!(
                "Run {run_id} is still running. Stop it first (Stop on the Evaluate page, or Ctrl-C where it runs), then delete it. Nothing was deleted."
            )));
        }
        let run: RunRow<EvaluationRunConfig> = run.typed()?;
        let tally = crate::evaluation::repo::tally(c, run_id)?;
        Ok(RunRemoval {
            run_id: run_id.to_string(),
            model: run.config.model.clone(),
            label: run.label.clone(),
            example: run.config.is_example(),
            status: run.status,
            items: tally.items,
            trajectories: tally.trajectories,
            judged: tally.judged,
            ledger_calls: crate::llm::ledger::run_calls(c, run_id)?,
            batches: crate::llm::batch::repo::count_for_run(c, run_id)?,
            review_sessions: crate::review::repo::sessions_with_rationales_from(c, run_id)?,
            removes: Vec::new(),
            keeps: Vec::new(),
        }
        .describe())
    }
}

/// Remove one evaluation run's rows, each through the module that owns them (inside the caller's
/// transaction).
fn remove_run(tx: &Connection, run_id: &str) -> ApiResult<()> {
    crate::evaluation::repo::delete_items(tx, run_id)?;
    crate::llm::batch::repo::delete_for_run(tx, run_id)?;
    crate::llm::ledger::forget_run(tx, run_id)?;
    jobs::delete_run(tx, run_id)
}
