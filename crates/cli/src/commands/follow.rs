//! Following a long run in the terminal: a progress bar fed by the engine's job events, and
//! Ctrl-C to stop after the work in flight (a second Ctrl-C, where the run supports it, stops at
//! once). Everything finished stays stored either way.

use indicatif::{ProgressBar, ProgressStyle};
use psebench::api::rpc::{BatchListParams, Flag, RunParams};
use psebench::jobs::Progress;
use psebench::ApiError;
use serde::de::DeserializeOwned;
use std::io::IsTerminal;

use crate::api::Api;
use crate::Cli;

/// How a kind of run is shown and stopped.
pub struct Follow {
    /// What the bar counts ("cases", "candidates").
    pub unit: &'static str,
    /// The bar's message from the latest progress.
    pub message: fn(&Progress) -> String,
    /// Said when the user presses Ctrl-C.
    pub stopping: &'static str,
    /// The API method that stops the run after the work in flight (`{run_id}` → `Flag`).
    pub cancel: &'static str,
    /// The API method that stops at once on a second Ctrl-C (None: a second Ctrl-C does nothing more).
    pub abort: Option<&'static str>,
}

/// Run `run_id` in the foreground through the API method `execute` (`{run_id}` → the run's
/// summary), with a progress bar and Ctrl-C handling.
pub fn follow_run<T: DeserializeOwned>(
    cli: &Cli,
    api: &Api,
    run_id: &str,
    how: Follow,
    execute: &str,
) -> Result<T, ApiError> {
    let params = RunParams { run_id: run_id.to_string() };
    follow_call(cli, api, run_id, how, execute, &params)
}

/// [`follow_run`] for a method whose parameters are more than the run's id.
pub fn follow_call<P: serde::Serialize, T: DeserializeOwned>(
    cli: &Cli,
    api: &Api,
    run_id: &str,
    how: Follow,
    method: &str,
    params: &P,
) -> Result<T, ApiError> {
    let show_bar = !cli.json && std::io::stderr().is_terminal();
    let client = api.client();
    api.block_on(async {
        let mut rx = client.progress();
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
        let (client2, stop) = (client.clone(), RunParams { run_id: run_id.to_string() });
        let (stopping, cancel, abort) = (how.stopping, how.cancel, how.abort);
        let ctrlc = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\n{stopping}");
                if let Err(err) = client2.call::<_, Flag>(cancel, &stop).await {
                    eprintln!("Could not stop the run: {}", err.message);
                }
                if let Some(abort) = abort {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        if let Err(err) = client2.call::<_, Flag>(abort, &stop).await {
                            eprintln!("Could not stop the run at once: {}", err.message);
                        }
                    }
                }
            }
        });
        let out = client.call(method, params).await;
        ctrlc.abort();
        listener.abort();
        bar.finish_and_clear();
        out
    })
}

/// Print a run's provider batches (batch mode): state, counts and the provider's own status.
pub fn print_batches(cli: &crate::Cli, e: &Api, run: &str) -> Result<(), psebench::ApiError> {
    let list: Vec<psebench::llm::batch::repo::BatchView> =
        e.call("batches.list", &BatchListParams { run_id: Some(run.to_string()) })?;
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
