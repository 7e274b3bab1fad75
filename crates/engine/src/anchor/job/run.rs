//! Working through an anchor job: each anchor still to do is handled (a few at once), its outcome
//! stored the moment it is known, and progress published after each. A stop request lets the
//! anchors in flight finish; a provider error that every call would repeat, or several failures in
//! a row, stops the job with the reason, leaving the rest pending for a resume.

use futures::StreamExt;
use indexmap::IndexMap;
use std::sync::Mutex;
use std::time::Instant;

use super::repo::{self, ItemRow};
use super::{AnchorJobConfig, AnchorJobKind};
use crate::anchor::llm::{presort_schema, Handled, PresortInputs};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{self, Progress, RunKind, RunStatus, RunStopper};
use crate::llm::{CallContext, CancellationToken, ModelHandle};
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
    pub async fn anchors_job_execute(&self, run_id: &str) -> ApiResult<()> {
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
        let stop = self.jobs().register(run_id)?;
        let (run, owner) = (run_id.to_string(), self.jobs().owner().clone());
        if let Err(e) = self.store().call(move |c| jobs::claim(c, &run, &owner)).await {
            self.jobs().finish(run_id);
            return Err(e);
        }
        let result = self.anchor_job_work(run_id, &cfg, &handle, &inputs, &stop).await;
        self.jobs().finish(run_id);
        result
    }

    async fn anchor_job_work(
        &self,
        run_id: &str,
        cfg: &AnchorJobConfig,
        handle: &ModelHandle,
        inputs: &Inputs,
        stop: &CancellationToken,
    ) -> ApiResult<()> {
        tracing::info!(run = %run_id, kind = cfg.kind.as_str(), "anchor job started");
        let started = Instant::now();
        let run = run_id.to_string();
        let rows = self.store().call_read(move |c| repo::items(c, &run)).await?;
        let todo: Vec<String> = rows.iter().filter(|r| !r.is_done()).map(|r| r.anchor_id.clone()).collect();
        let total = rows.len() as u64;
        let before = rows.iter().filter(|r| r.is_done()).count() as u64;
        let state = Mutex::new(rows);
        let publish = |status: RunStatus, message: Option<String>| {
            let (done, counters) = {
                let rows = state.lock().unwrap_or_else(|p| p.into_inner());
                (rows.iter().filter(|r| r.is_done()).count() as u64, counters(&rows))
            };
            let elapsed = started.elapsed().as_secs_f64();
            self.jobs().publish(Progress {
                run_id: run_id.to_string(),
                kind: RunKind::AnchorJob,
                status,
                total,
                done,
                counters,
                elapsed_secs: elapsed,
                eta_secs: jobs::eta(elapsed, done.saturating_sub(before), total - before),
                message,
            });
        };
        // In-flight calls end only when the claim is lost; a stop request lets them finish.
        let calls = CancellationToken::new();
        let heartbeat =
            jobs::Heartbeat::start(self.store(), run_id, self.jobs().owner(), vec![stop.clone(), calls.clone()]);
        let stopper = RunStopper::new(stop.clone(), "anchors", "outcomes");
        let ctx = CallContext::new(
            Some(run_id),
            if cfg.kind == AnchorJobKind::Presort { "anchor_presort" } else { "anchor_translate" },
        );
        publish(RunStatus::Running, None);
        // In batch mode every anchor waits at once, so their requests go out as one batch.
        let workers = if handle.is_batched() {
            self.llm().batcher().settings().in_flight.max(1)
        } else {
            cfg.concurrency.clamp(1, 64) as usize
        };
        futures::stream::iter(todo)
            .for_each_concurrent(workers, |anchor_id| {
                let (state, publish, stopper, ctx, calls) = (&state, &publish, &stopper, &ctx, &calls);
                async move {
                    if stop.is_cancelled() {
                        return;
                    }
                    let id = anchor_id.clone();
                    let anchor = match self.blocking(move |e| e.anchors_show(&id)).await {
                        Ok(a) => a,
                        Err(e) if e.code == crate::error::ErrorCode::NotFound => {
                            let item = crate::anchor::llm::AnchorBatchItem {
                                anchor_id: anchor_id.clone(),
                                outcome: "unchanged".into(),
                                clause_id: None,
                                note: Some("the anchor was removed after the job was created".into()),
                            };
                            let h = Handled { item, spent: Default::default(), model_error: None };
                            self.anchor_job_save(run_id, h, state, stopper).await;
                            publish(RunStatus::Running, None);
                            return;
                        }
                        Err(e) => {
                            stopper.stop(format!("The store failed ({}); finished anchors are kept. Resume the job once the problem is fixed.", e.message));
                            return;
                        }
                    };
                    let item_ctx = ctx.clone().item(anchor_id.as_str());
                    let h = match inputs {
                        Inputs::Presort(p) => self.presort_one(handle, p, &anchor, &item_ctx, calls).await,
                        Inputs::Translate(p) => self.translate_one(handle, p, &anchor, &item_ctx, calls).await,
                    };
                    if calls.is_cancelled() {
                        return;
                    }
                    self.anchor_job_save(run_id, h, state, stopper).await;
                    publish(RunStatus::Running, Some(anchor_id));
                }
            })
            .await;
        if let Some(lost) = heartbeat.lost() {
            return Err(ApiError::conflict(lost));
        }
        heartbeat.end();
        let (done, failed, first_failure) = {
            let rows = state.lock().unwrap_or_else(|p| p.into_inner());
            let failed: Vec<&ItemRow> = rows.iter().filter(|r| r.outcome.as_deref() == Some("failed")).collect();
            (
                rows.iter().filter(|r| r.is_done()).count(),
                failed.len(),
                failed.first().map(|r| format!("{}: {}", r.anchor_id, r.note.clone().unwrap_or_default())),
            )
        };
        let (status, message) = if let Some(reason) = stopper.reason() {
            (RunStatus::Failed, Some(reason))
        } else if stop.is_cancelled() {
            (
                RunStatus::Cancelled,
                Some(format!(
                    "Stopped at your request: {done} of {total} anchors are done and kept. Resume to do the rest."
                )),
            )
        } else if failed > 0 {
            (
                RunStatus::Failed,
                Some(format!(
                    "{failed} anchor(s) failed (first: {}). The other outcomes are kept; resume to try the failed ones again.",
                    first_failure.unwrap_or_default()
                )),
            )
        } else {
            (RunStatus::Completed, None)
        };
        let (run, owner, msg) = (run_id.to_string(), self.jobs().owner().clone(), message.clone());
        self.store().call(move |c| jobs::release(c, &run, &owner, status, msg.as_deref())).await?;
        tracing::info!(run = %run_id, status = %status, reason = ?message, "anchor job stopped");
        publish(status, message);
        Ok(())
    }

    /// Store one anchor's outcome and count it for the stop rules.
    async fn anchor_job_save(&self, run_id: &str, h: Handled, state: &Mutex<Vec<ItemRow>>, stopper: &RunStopper) {
        match &h.model_error {
            Some(e) => stopper.model_failed(e),
            None if h.item.outcome != "failed" => stopper.succeeded(),
            None => {}
        }
        let (run, item, (input, output, cost)) =
            (run_id.to_string(), h.item.clone(), (h.spent.input, h.spent.output, h.spent.cost));
        let saved = self.store().call(move |c| repo::record(c, &run, &item, input, output, cost)).await;
        if let Err(e) = saved {
            stopper.stop(format!(
                "The store failed ({}); finished anchors are kept. Resume the job once the problem is fixed.",
                e.message
            ));
            return;
        }
        let mut rows = state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = rows.iter_mut().find(|r| r.anchor_id == h.item.anchor_id) {
            r.outcome = Some(h.item.outcome.clone());
            r.clause_id = h.item.clause_id.clone();
            r.note = h.item.note.clone();
            r.input_tokens += h.spent.input;
            r.output_tokens += h.spent.output;
            r.cost_usd += h.spent.cost;
        }
    }
}
