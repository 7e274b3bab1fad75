//! Following a long run in the terminal: a progress bar fed by the engine's job events, and
//! Ctrl-C to stop after the work in flight (a second Ctrl-C, where the run supports it, stops at
//! once). Everything finished stays stored either way.

use indicatif::{ProgressBar, ProgressStyle};
use psebench::api::Engine;
use psebench::jobs::Progress;
use psebench::ApiError;
use std::future::Future;
use std::io::IsTerminal;

use super::runtime;
use crate::Cli;

/// An engine action that asks a run to stop (true when the run was running).
pub type StopAction = fn(&Engine, &str) -> Result<bool, ApiError>;

/// How a kind of run is shown and stopped.
pub struct Follow {
    /// What the bar counts ("cases", "candidates").
    pub unit: &'static str,
    /// The bar's message from the latest progress.
    pub message: fn(&Progress) -> String,
    /// Said when the user presses Ctrl-C.
    pub stopping: &'static str,
    /// Stop after the work in flight (the engine's cancel action for the run).
    pub cancel: StopAction,
    /// Stop at once on a second Ctrl-C (None: a second Ctrl-C does nothing more).
    pub abort: Option<StopAction>,
}

/// Run `work` (the engine executing `run_id`) with a progress bar and Ctrl-C handling.
pub fn follow_run<T, F>(
    cli: &Cli,
    e: &Engine,
    run_id: &str,
    how: Follow,
    work: impl FnOnce() -> F,
) -> Result<T, ApiError>
where
    F: Future<Output = Result<T, ApiError>>,
{
    let rt = runtime()?;
    let show_bar = !cli.json && std::io::stderr().is_terminal();
    rt.block_on(async {
        let mut rx = e.jobs().subscribe();
        let bar = if show_bar { ProgressBar::new(0) } else { ProgressBar::hidden() };
        let template = format!("{{bar:30.cyan/blue}} {{pos}}/{{len}} {} · {{msg}} · ETA {{eta}}", how.unit);
        bar.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
        let (id, bar2, message) = (run_id.to_string(), bar.clone(), how.message);
        let listener = tokio::spawn(async move {
            while let Ok(p) = rx.recv().await {
                if p.run_id == id {
                    bar2.set_length(p.total);
                    bar2.set_position(p.done);
                    bar2.set_message(message(&p));
                }
            }
        });
        let (engine2, id2) = (e.clone(), run_id.to_string());
        let (stopping, cancel, abort) = (how.stopping, how.cancel, how.abort);
        let ctrlc = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\n{stopping}");
                if let Err(err) = cancel(&engine2, &id2) {
                    eprintln!("Could not stop the run: {}", err.message);
                }
                if let Some(abort) = abort {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        if let Err(err) = abort(&engine2, &id2) {
                            eprintln!("Could not stop the run at once: {}", err.message);
                        }
                    }
                }
            }
        });
        let out = work().await;
        ctrlc.abort();
        listener.abort();
        bar.finish_and_clear();
        out
    })
}

/// Print a run's provider batches (batch mode): state, counts and the provider's own status.
pub fn print_batches(cli: &crate::Cli, e: &psebench::api::Engine, run: &str) -> Result<(), psebench::ApiError> {
    let list = e.batches_list(Some(run))?;
    if cli.json {
        crate::output::print_json(&list);
        return Ok(());
    }
    if list.is_empty() {
        println!("Run {run} has sent no provider batch (it does not run in batch mode, or has not started).");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|b| {
            vec![
                b.batch_id.clone(),
                b.model_name.clone(),
                b.provider.clone(),
                b.state.clone(),
                b.provider_status.clone().unwrap_or_default(),
                b.requests.to_string(),
                b.succeeded.to_string(),
                b.failed.to_string(),
                b.created_at.clone(),
            ]
        })
        .collect();
    crate::output::table(
        &["BATCH", "MODEL", "PROVIDER", "STATE", "PROVIDER SAYS", "REQUESTS", "ANSWERED", "FAILED", "SENT"],
        &rows,
    );
    Ok(())
}

/// The plan's batch lines: online vs batch cost, and what batch mode would do.
pub fn print_batch_plan(usd: Option<f64>, usd_batch: Option<f64>, note: &psebench::llm::batch::plan::BatchNote) {
    if let (Some(a), Some(b)) = (usd, usd_batch) {
        if (a - b).abs() > f64::EPSILON {
            eprintln!("Cost online about ${a:.2}; in batch mode about ${b:.2}.");
        }
    }
    if !note.note.is_empty() {
        eprintln!("{}", note.note);
    }
}
