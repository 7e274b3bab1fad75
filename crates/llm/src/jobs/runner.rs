//! The one lifecycle every long job runs on. A job supplies its domain part (`Job`): the run it
//! belongs to, its items, how to run one item, a tally of where the run stands, and its summary.
//! The runner does the rest, the same way for every kind of run:
//!
//! 1. registration in this process (Stop, and Abort for the calls in flight) and the exclusive
//!    claim in the store, with a heartbeat that takes the run back from a dead process;
//! 2. the endpoints' concurrency lifted to the run's setting while it works, and the worker count
//!    (in batch mode every item waits at once, so each round of requests goes out as one batch);
//! 3. the per-run spending cap: an item starts only while the cap allows it;
//! 4. the stop rules (a fatal provider error, several failed items in a row, a store failure);
//! 5. progress events with an ETA: when an item ends or says it changed, and once a second;
//! 6. the end status and its plain message, the same rules and words for every kind;
//! 7. cleanup on every exit path, by drop guards (registration, lifts, heartbeat).

use indexmap::IndexMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use super::budget::{capped_message, BudgetStart, CostBudget, ItemEnd};
use super::concurrency::RunLifts;
use super::{claim, eta, release, Heartbeat, JobHub, Progress, RunKind, RunStatus, RunStopper};
use crate::error::{ApiError, ApiResult};
use crate::llm::{LlmClient, LlmError, ModelConfig};
use crate::store::Store;

/// Where a run stands, as the job counts it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Items of the whole run, and those finished (before this execution included).
    pub total: u64,
    pub done: u64,
    /// Items the run should have finished but has not (provider errors); 0 when all are done.
    pub unfinished: u64,
    /// US$ the run has spent so far (before this execution included).
    pub spent_usd: f64,
    /// Finished units the spending cap averages over (the items, unless a job counts otherwise).
    pub budget_units: u64,
    /// The job's own named counters for progress bars (asks, accepted, drafted, …).
    pub counters: IndexMap<String, f64>,
}

/// How one item ended.
#[derive(Debug)]
pub enum ItemOutcome {
    /// Finished and stored.
    Done { spent_usd: f64, note: Option<String> },
    /// Finished and stored as unsuccessful (it neither breaks nor extends a streak of failures).
    Kept { spent_usd: f64, note: Option<String> },
    /// Its model calls failed; the item stays to do and counts towards the stop rules.
    ModelFailed { spent_usd: f64, error: LlmError },
    /// Stopped midway (Stop or Abort); nothing of it is stored.
    Stopped { spent_usd: f64 },
    /// Nothing to do for this item (for example its case was removed).
    Skipped,
    /// The whole run must stop for this reason (the store failed, a step cannot go on).
    Halt(String),
}

/// Words for messages about a job's items.
#[derive(Debug, Clone, Copy)]
pub struct Nouns {
    /// What one item is called in the plural ("cases", "candidates"), in the messages that count
    /// the run's items (stopped, capped, unfinished).
    pub items: &'static str,
    /// What the stop rule's failures in a row count ("cases", "card-and-anchor pairs"): the items,
    /// unless a job's items are units of something else it counts.
    pub streak: &'static str,
    /// What is kept when the run stops ("cases", "candidates").
    pub kept: &'static str,
    /// Said after "Resume to do the rest" when something more is true of a resume.
    pub resume_note: &'static str,
}

/// What a job tells the runner about its run before it starts.
pub struct JobSetup<'a> {
    pub run_id: &'a str,
    pub kind: RunKind,
    pub nouns: Nouns,
    /// The models the run calls: their endpoints are lifted to `concurrency` while it works.
    pub models: Vec<&'a ModelConfig>,
    /// Requests in flight the run asks for (and items worked on at once outside batch mode).
    pub concurrency: usize,
    /// Batch mode: every item works at once so that each round goes out as one provider batch.
    pub batch: bool,
    /// The spending cap in US$.
    pub cap_usd: Option<f64>,
    /// Work on the run even when it is completed (a re-judging of a finished evaluation);
    /// otherwise a completed run just gives its summary.
    pub rerun_finished: bool,
    /// The first message of the run's progress.
    pub start_message: Option<String>,
    /// The model whose endpoint's live limits are shown with the progress.
    pub watched: Option<&'a ModelConfig>,
}

/// The run's tokens an item works with.
#[derive(Clone)]
pub struct ItemTokens {
    /// Stop: no new item starts; the job decides whether calls in flight end too.
    pub stop: CancellationToken,
    /// Abort: the calls in flight end now (Abort, or the run was taken over by another process).
    pub abort: CancellationToken,
    /// Rung by `changed`: the runner publishes progress soon after.
    changed: Arc<tokio::sync::Notify>,
}

impl ItemTokens {
    /// Say that the run's tally changed midway through an item (a step of it was stored), so
    /// progress is published now rather than when the item ends or at the next second.
    pub fn changed(&self) {
        self.changed.notify_one();
    }
}

/// The domain part of a long job.
pub trait Job: Sync {
    type Item: Send;
    type Summary: Send;

    fn setup(&self) -> JobSetup<'_>;

    /// The items still to do, read once the run is claimed.
    fn items(&self) -> impl Future<Output = ApiResult<Vec<Self::Item>>> + Send;

    /// Work on one item and store what it produced.
    fn run_item(&self, item: Self::Item, tokens: &ItemTokens) -> impl Future<Output = ItemOutcome> + Send;

    /// The plan's estimate of one item in US$, used by the spending cap until an item finishes
    /// (asked once the items are read).
    fn plan_item_usd(&self) -> f64 {
        0.0
    }

    /// Where the run stands (read at the start, for progress, and at the end).
    fn tally(&self) -> impl Future<Output = ApiResult<Tally>> + Send;

    /// The status stored for the run when it ends as `ended` (a re-judging keeps its run's own).
    fn stored_status(&self, ended: RunStatus) -> RunStatus {
        ended
    }

    /// The message stored for the run with its status (a re-judging keeps its run's own).
    fn stored_message(&self, message: Option<&str>) -> Option<String> {
        message.map(str::to_string)
    }

    /// The message when items are left unfinished without a stop reason.
    fn unfinished_message(&self, t: &Tally) -> String {
        let n = self.setup().nouns;
        format!(
            "{} of the {} could not be finished (provider errors). Resume the run to retry them.",
            t.unfinished, n.items
        )
    }

    /// A warning for a run that went through its items but whose results are mostly unusable
    /// (see `problems`); none unless the job counts unusable items.
    fn problems(&self, _t: &Tally) -> Option<super::RunProblems> {
        None
    }

    /// What the caller gets back when the run ends.
    fn summary(&self, end: RunEnd) -> impl Future<Output = ApiResult<Self::Summary>> + Send;
}

/// How an execution of a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    pub status: RunStatus,
    pub message: Option<String>,
    pub tally: Tally,
}

/// What the runner needs of the engine.
#[derive(Clone, Copy)]
pub struct Services<'a> {
    pub store: &'a Store,
    pub hub: &'a JobHub,
    pub llm: &'a LlmClient,
}

/// The key under which a run's Abort is registered.
pub fn abort_key(run_id: &str) -> String {
    format!("{run_id}#abort")
}

/// Registration in this process, taken back on every exit path.
struct Registered<'a> {
    hub: &'a JobHub,
    run_id: String,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.hub.finish(&self.run_id);
        self.hub.finish(&abort_key(&self.run_id));
    }
}

/// The end status and its message: the same rules and words for every kind of run.
pub fn end_status(
    stop_reason: Option<String>,
    stopped: bool,
    capped: Option<f64>,
    tally: &Tally,
    nouns: Nouns,
    unfinished: impl FnOnce(&Tally) -> String,
) -> (RunStatus, Option<String>) {
    if let Some(reason) = stop_reason {
        return (RunStatus::Failed, Some(reason));
    }
    if stopped {
        return (
            RunStatus::Cancelled,
            Some(format!(
                "Stopped at your request: {} of {} {} are done and kept. Resume to do the rest{}.",
                tally.done, tally.total, nouns.items, nouns.resume_note
            )),
        );
    }
    if let (Some(cap), true) = (capped, tally.done < tally.total) {
        return (
            RunStatus::CostCapped,
            Some(capped_message(tally.spent_usd, cap, tally.done, tally.total, nouns.items)),
        );
    }
    if tally.unfinished > 0 {
        return (RunStatus::Failed, Some(unfinished(tally)));
    }
    (RunStatus::Completed, None)
}

struct Pace {
    started: Instant,
    done_before: u64,
}

impl Pace {
    fn progress(&self, setup: &JobSetup<'_>, status: RunStatus, t: &Tally, message: Option<String>) -> Progress {
        let elapsed = self.started.elapsed().as_secs_f64();
        let mut counters = t.counters.clone();
        counters.insert("spent_usd".into(), t.spent_usd);
        if let Some(cap) = setup.cap_usd {
            counters.insert("max_cost_usd".into(), cap);
        }
        let done_now = t.done.saturating_sub(self.done_before);
        let remaining = t.total.saturating_sub(t.done);
        Progress {
            run_id: setup.run_id.to_string(),
            kind: setup.kind,
            status,
            total: t.total,
            done: t.done,
            counters,
            elapsed_secs: elapsed,
            eta_secs: eta(elapsed, done_now, done_now + remaining),
            message,
        }
    }
}

/// Run (or resume) a job's run in this process until its items are done, it is stopped, its
/// cap is reached, or it stops itself.
pub async fn execute<J: Job>(svc: Services<'_>, job: &J) -> ApiResult<J::Summary> {
    let setup = job.setup();
    let run_id = setup.run_id;
    let run = run_id.to_string();
    let stored = svc.store.call_read(move |c| super::get_run(c, &run)).await?;
    if stored.kind != setup.kind {
        return Err(ApiError::invalid(format!("{run_id} is a {} run, not a {} run.", stored.kind, setup.kind)));
    }
    if stored.status == RunStatus::Completed && !setup.rerun_finished {
        let tally = job.tally().await?;
        return job.summary(RunEnd { status: RunStatus::Completed, message: stored.error, tally }).await;
    }
    let stop = svc.hub.register(run_id)?;
    let abort = svc.hub.register(&abort_key(run_id)).inspect_err(|_| svc.hub.finish(run_id))?;
    let _registered = Registered { hub: svc.hub, run_id: run_id.to_string() };
    // Only one process executes a run: claim it in the store, or say where it runs.
    let (run, owner) = (run_id.to_string(), svc.hub.owner().clone());
    svc.store.call(move |c| claim(c, &run, &owner)).await?;
    let heartbeat = Heartbeat::start(svc.store, run_id, svc.hub.owner(), vec![stop.clone(), abort.clone()]);
    let workers = if setup.batch { svc.llm.batcher().settings().in_flight.max(1) } else { setup.concurrency.max(1) };
    let lifts = RunLifts::new(svc.llm, &setup.models, setup.concurrency.clamp(1, u32::MAX as usize) as u32);
    let items = job.items().await?;
    let base = job.tally().await?;
    let budget = CostBudget::new(BudgetStart {
        cap_usd: setup.cap_usd,
        spent_usd: base.spent_usd,
        finished_items: base.budget_units,
        finished_cost_usd: base.spent_usd,
        plan_item_usd: job.plan_item_usd(),
    });
    let stopper = RunStopper::new(stop.clone(), setup.nouns.streak, setup.nouns.kept);
    let pace = Pace { started: Instant::now(), done_before: base.done };
    let note: Mutex<Option<String>> = Mutex::new(setup.start_message.clone());
    let publish = |status: RunStatus, t: &Tally, message: Option<String>| {
        let mut p = pace.progress(&setup, status, t, message);
        if let Some(cfg) = setup.watched {
            lifts.add_counters(cfg, &mut p.counters);
        }
        svc.hub.publish(p);
    };
    tracing::info!(run = %run_id, kind = %setup.kind, items = items.len(), workers, "run started");
    publish(RunStatus::Running, &base, setup.start_message.clone());
    let tokens = ItemTokens { stop: stop.clone(), abort: abort.clone(), changed: Arc::default() };
    let work = futures::StreamExt::for_each_concurrent(futures::stream::iter(items), workers, |item| {
        let (budget, stopper, tokens, note) = (&budget, &stopper, &tokens, &note);
        async move {
            if tokens.stop.is_cancelled() {
                return;
            }
            // Nothing new starts once the spending cap would be passed.
            let Some(reservation) = budget.admit() else { return };
            let outcome = job.run_item(item, tokens).await;
            let (spent, end) = match &outcome {
                ItemOutcome::Done { spent_usd, .. } | ItemOutcome::Kept { spent_usd, .. } => {
                    (*spent_usd, ItemEnd::Finished)
                }
                ItemOutcome::ModelFailed { spent_usd, .. } | ItemOutcome::Stopped { spent_usd } => {
                    (*spent_usd, ItemEnd::Unfinished)
                }
                ItemOutcome::Skipped | ItemOutcome::Halt(_) => (0.0, ItemEnd::Unfinished),
            };
            budget.settle(reservation, spent, end);
            match outcome {
                ItemOutcome::Done { note: n, .. } => {
                    stopper.succeeded();
                    if n.is_some() {
                        *note.lock().unwrap_or_else(|p| p.into_inner()) = n;
                    }
                }
                ItemOutcome::Kept { note: n, .. } => {
                    if n.is_some() {
                        *note.lock().unwrap_or_else(|p| p.into_inner()) = n;
                    }
                }
                ItemOutcome::ModelFailed { error, .. } => stopper.model_failed(&error),
                ItemOutcome::Halt(reason) => stopper.stop(reason),
                ItemOutcome::Stopped { .. } | ItemOutcome::Skipped => {}
            }
            tokens.changed();
        }
    });
    // Progress when items end or say they changed (coalesced: changes during a publish are
    // published once after it), and once a second while none does (requests in flight change
    // during a slow provider).
    let progress = async {
        loop {
            tokio::select! {
                _ = tokens.changed.notified() => {}
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
            if let Ok(t) = job.tally().await {
                let n = note.lock().unwrap_or_else(|p| p.into_inner()).clone();
                publish(RunStatus::Running, &t, n);
            }
        }
    };
    tokio::select! {
        _ = work => {}
        _ = progress => {}
    }
    if let Some(lost) = heartbeat.lost() {
        // Another process owns the run now: it records how the run ends, not this one.
        return Err(ApiError::conflict(lost));
    }
    heartbeat.end();
    let tally = job.tally().await?;
    let capped = budget.stopped_by_cap().then_some(setup.cap_usd).flatten();
    let (status, message) =
        end_status(stopper.reason(), stop.is_cancelled(), capped, &tally, setup.nouns, |t| job.unfinished_message(t));
    // Every item done, but most of them unusable: the run says so rather than a plain "finished".
    let message = match (status, job.problems(&tally)) {
        (RunStatus::Completed, Some(p)) => Some(p.message),
        _ => message,
    };
    let stored = job.stored_status(status);
    let (run, owner, msg) = (run_id.to_string(), svc.hub.owner().clone(), job.stored_message(message.as_deref()));
    svc.store.call(move |c| release(c, &run, &owner, stored, msg.as_deref())).await?;
    tracing::info!(run = %run_id, kind = %setup.kind, status = %status, done = tally.done, total = tally.total, reason = ?message, "run stopped");
    publish(status, &tally, message.clone());
    job.summary(RunEnd { status, message, tally }).await
}
