//! Working through an anchor job, as a job of the runner (`jobs::runner`): each anchor still to do
//! is handled (a few at once), its outcome stored the moment it is known. A stop request lets the
//! anchors in flight finish (only an Abort, or a takeover by another process, ends their calls); a
//! provider error that every call would repeat, or several failures in a row, stops the job with
//! the reason, leaving the rest pending for a resume.

use crate::util::format::count;
use indexmap::IndexMap;
use std::sync::Mutex;

use super::repo::{self, ItemRow};
use super::{AnchorJobConfig, AnchorJobKind};
use crate::anchor::llm::{presort_schema, AnchorBatchItem, Handled, PresortInputs};
use crate::context::Engine;
use crate::error::{ApiResult, ErrorCode};
use crate::jobs::runner::{self, ItemOutcome, ItemTokens, Job, JobSetup, Nouns, RunEnd, Tally};
use crate::jobs::RunKind;
use crate::llm::{CallContext, ModelHandle};
use crate::prompt::split::{load_split, SplitPrompt};

/// What every call of one job shares.
enum Inputs {
    Presort(PresortInputs),
    Translate(SplitPrompt),
}

/// The outcome counters a job publishes, from its stored items.
fn counters(rows: &[ItemRow]) -> IndexMap<String, f64> {
    let mut c = IndexMap::new();
    for k in ["changed", "unchanged", "kept_manual", "failed"] {
        c.insert(k.to_string(), rows.iter().filter(|r| r.outcome.as_deref() == Some(k)).count() as f64);
    }
    c.insert("input_tokens".into(), rows.iter().map(|r| r.input_tokens as f64).sum());
    c.insert("output_tokens".into(), rows.iter().map(|r| r.output_tokens as f64).sum());
    c.insert("cost_usd".into(), rows.iter().map(|r| r.cost_usd).sum());
    c
}

impl Engine {
    /// The clause list, ids, prompt and reply schema a pre-sort of this policy sends.
    pub(super) fn presort_inputs(&self, policy: &str) -> ApiResult<PresortInputs> {
        let (pack, _) = self.pack_and_vocab(policy)?;
        let clause_list = pack
            .clauses
            .iter()
            .map(|c| format!("- {} ({}: {})\n  {}", c.clause_id, c.label, c.short_title, c.summary))
            .collect::<Vec<_>>()
            .join("\n");
        let ids: Vec<String> = pack.clauses.iter().map(|c| c.clause_id.clone()).collect();
        Ok(PresortInputs { prompt: load_split("anchor_presort")?, clause_list, schema: presort_schema(&ids), ids })
    }

    /// Run (or resume) an anchor job here: handle every anchor that has no outcome yet or failed.
    pub async fn anchor_job_execute(&self, run_id: &str) -> ApiResult<()> {
        // One row by its key each: quick, so they stay on this thread.
        let (_, cfg) = self.anchor_job_config(run_id)?;
        let handle = self.anchor_model_handle(&cfg.model, cfg.batch)?;
        let inputs = match cfg.kind {
            AnchorJobKind::Presort => {
                let policy = cfg.policy.clone();
                Inputs::Presort(self.blocking(move |e| e.presort_inputs(&policy)).await?)
            }
            AnchorJobKind::Translate => Inputs::Translate(load_split("anchor_translate")?),
        };
        let ctx = CallContext::new(
            Some(run_id),
            if cfg.kind == AnchorJobKind::Presort { "anchor_presort" } else { "anchor_translate" },
        );
        let job =
            AnchorJob { engine: self, run_id: run_id.to_string(), cfg, handle, inputs, ctx, rows: Mutex::default() };
        runner::execute(self.runner_services(), &job).await
    }
}

/// The message when the store fails midway.
fn store_failed(why: &str) -> String {
    format!("The store failed ({why}); finished anchors are kept. Resume the job once the problem is fixed.")
}

struct AnchorJob<'e> {
    engine: &'e Engine,
    run_id: String,
    cfg: AnchorJobConfig,
    handle: ModelHandle,
    inputs: Inputs,
    ctx: CallContext,
    /// The job's stored items, read with the items to do and kept up to date here.
    rows: Mutex<Vec<ItemRow>>,
}

impl AnchorJob<'_> {
    /// Store one anchor's outcome. Err: why the job must stop.
    async fn save(&self, h: &Handled) -> Result<(), String> {
        let (run, item, (input, output, cost)) =
            (self.run_id.clone(), h.item.clone(), (h.spent.input, h.spent.output, h.spent.cost));
        self.engine
            .store()
            .call(move |c| repo::record(c, &run, &item, input, output, cost))
            .await
            .map_err(|e| store_failed(&e.message))?;
        let mut rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = rows.iter_mut().find(|r| r.anchor_id == h.item.anchor_id) {
            r.outcome = Some(h.item.outcome.clone());
            r.clause_id = h.item.clause_id.clone();
            r.note = h.item.note.clone();
            r.input_tokens += h.spent.input;
            r.output_tokens += h.spent.output;
            r.cost_usd += h.spent.cost;
        }
        Ok(())
    }
}

impl Job for AnchorJob<'_> {
    type Item = String;
    type Summary = ();

    fn setup(&self) -> JobSetup<'_> {
        JobSetup {
            run_id: &self.run_id,
            kind: RunKind::AnchorJob,
            nouns: Nouns { items: "anchors", kept: "outcomes", streak: "anchors", resume_note: "" },
            // The endpoint keeps its registered concurrency, as before the runner.
            models: vec![],
            concurrency: self.cfg.concurrency.clamp(1, 64) as usize,
            // In batch mode every anchor waits at once, so their requests go out as one batch.
            batch: self.handle.is_batched(),
            cap_usd: None,
            rerun_finished: false,
            start_message: None,
            watched: None,
        }
    }

    async fn items(&self) -> ApiResult<Vec<String>> {
        let run = self.run_id.clone();
        let rows = self.engine.store().call_read(move |c| repo::items(c, &run)).await?;
        let todo = rows.iter().filter(|r| !r.is_done()).map(|r| r.anchor_id.clone()).collect();
        *self.rows.lock().unwrap_or_else(|p| p.into_inner()) = rows;
        Ok(todo)
    }

    async fn run_item(&self, anchor_id: String, tokens: &ItemTokens) -> ItemOutcome {
        let e = self.engine;
        let id = anchor_id.clone();
        let anchor = match e.blocking(move |e| e.anchor_show(&id)).await {
            Ok(a) => a,
            Err(err) if err.code == ErrorCode::NotFound => {
                let item = AnchorBatchItem {
                    anchor_id,
                    outcome: "unchanged".into(),
                    clause_id: None,
                    note: Some("the anchor was removed after the job was created".into()),
                };
                let h = Handled { item, spent: Default::default(), model_error: None };
                return match self.save(&h).await {
                    Ok(()) => ItemOutcome::Done { spent_usd: 0.0, note: None },
                    Err(why) => ItemOutcome::Halt(why),
                };
            }
            Err(err) => return ItemOutcome::Halt(store_failed(&err.message)),
        };
        // Only an Abort (or a takeover) ends the calls in flight; a stop request lets them finish.
        let item_ctx = self.ctx.clone().item(anchor.anchor_id.as_str());
        let h = match &self.inputs {
            Inputs::Presort(p) => e.presort_one(&self.handle, p, &anchor, &item_ctx, &tokens.abort).await,
            Inputs::Translate(p) => e.translate_one(&self.handle, p, &anchor, &item_ctx, &tokens.abort).await,
        };
        let spent_usd = h.spent.cost;
        if tokens.abort.is_cancelled() {
            return ItemOutcome::Stopped { spent_usd };
        }
        if let Err(why) = self.save(&h).await {
            return ItemOutcome::Halt(why);
        }
        match h.model_error {
            // Stored as a failed outcome, taken again on resume.
            Some(error) => ItemOutcome::ModelFailed { spent_usd, error },
            None if h.item.outcome == "failed" => ItemOutcome::Kept { spent_usd, note: Some(anchor_id) },
            None => ItemOutcome::Done { spent_usd, note: Some(anchor_id) },
        }
    }

    async fn tally(&self) -> ApiResult<Tally> {
        let rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        let done = rows.iter().filter(|r| r.is_done()).count() as u64;
        Ok(Tally {
            total: rows.len() as u64,
            done,
            unfinished: rows.iter().filter(|r| r.outcome.as_deref() == Some("failed")).count() as u64,
            spent_usd: rows.iter().map(|r| r.cost_usd).sum(),
            budget_units: done,
            counters: counters(&rows),
        })
    }

    fn unfinished_message(&self, t: &Tally) -> String {
        // Most anchors failed: the warning with counts and reason (the job stays resumable).
        if let Some(p) = self.problems(t) {
            return p.message;
        }
        let first = {
            let rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
            rows.iter()
                .find(|r| r.outcome.as_deref() == Some("failed"))
                .map(|r| format!("{}: {}", r.anchor_id, r.note.clone().unwrap_or_default()))
        };
        format!(
            "{} failed (first: {}). The other outcomes are kept; resume to try the failed {} again.",
            count(t.unfinished, "anchor"),
            first.unwrap_or_default(),
            if t.unfinished == 1 { "one" } else { "ones" }
        )
    }

    fn problems(&self, _t: &Tally) -> Option<crate::jobs::RunProblems> {
        let rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        super::anchor_job_problems(self.cfg.kind, crate::jobs::RunStatus::Completed, &rows)
    }

    async fn summary(&self, _end: RunEnd) -> ApiResult<()> {
        Ok(())
    }
}
