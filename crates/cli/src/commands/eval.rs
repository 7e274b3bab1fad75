use clap::Subcommand;
use psebench::api::removals::RunRemoval;
use psebench::api::rpc::{
    Count, Flag, NoParams, PathParams, ResumeParams, RunFileParams, RunIds, RunParams, RunStarted,
};
use psebench::evaluation::rejudge::{RejudgeRequest, RejudgeSummary};
use psebench::evaluation::{EvaluationPlan, EvaluationRunRequest, EvaluationRunView, EvaluationSummary};
use psebench::jobs::RunStatus;
use psebench::protocol::Protocol;
use psebench::util::format::count;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::engine;
use super::follow::{follow_call, follow_run, Follow};
use crate::api::Api;
use crate::output::{confirm_delete, print_json, print_provenance, print_run_removal, table};
use crate::Cli;

#[derive(Subcommand)]
pub enum EvalCmd {
    /// Evaluate a model on cases in the two-role environment (resumable).
    Run {
        /// all | a cases .jsonl file | a filter like type=missing,clause=ID,origin=demo,limit=20,seed=1
        #[arg(long, default_value = "all")]
        cases: String,
        /// The registered model under test.
        #[arg(long)]
        model: String,
        /// The information provider's model.
        #[arg(long)]
        info_model: String,
        /// The M4 judge's model.
        #[arg(long)]
        judge_model: String,
        #[arg(long, default_value_t = 10)]
        turns: u32,
        /// Cases worked on at once.
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
        /// Evaluate every case K times (consistency, pass^k).
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        #[arg(long)]
        label: Option<String>,
        /// Spending cap in US$: no new case starts once what is spent plus what is in flight
        /// would pass it; the run then stops as "stopped: cost cap" and can be resumed with a higher cap.
        #[arg(long, value_name = "USD")]
        max_cost: Option<f64>,
        /// Do not ask before sending case text to remote providers.
        #[arg(long)]
        yes: bool,
        /// Send the calls as provider batches (OpenAI, Azure, Anthropic, Gemini): about half the
        /// price, answers within the provider's window; close and `eval resume` at any time.
        #[arg(long)]
        batch: bool,
        /// Print the plan (cases, destinations, cost estimate, requests in flight) and stop.
        #[arg(long)]
        plan: bool,
        /// paper: the paper's method only (its instructions, no reply repair, a judge that reads
        /// the rationale and the boundary conditions); studio: with this application's additions.
        #[arg(long, default_value = "studio", value_parser = parse_protocol)]
        protocol: Protocol,
    },
    /// The provider batches of a run in batch mode, with their state and counts.
    Batches { run: String },
    /// Finish what is missing in an interrupted, cancelled or capped run (cached calls are reused).
    Resume {
        run: String,
        /// A new spending cap in US$ (a run stopped at its cap needs a higher one).
        #[arg(long, value_name = "USD", conflicts_with = "no_max_cost")]
        max_cost: Option<f64>,
        /// Resume without any spending cap.
        #[arg(long)]
        no_max_cost: bool,
    },
    /// List evaluation runs.
    List,
    /// Show one run.
    Show { run: String },
    /// Delete a run with its transcripts and judge results (says what goes and asks first).
    Delete {
        run: String,
        /// Delete without asking (needed when no terminal can answer).
        #[arg(long)]
        yes: bool,
    },
    /// Write a run's trajectories (FORMATS.md JSONL).
    Export {
        run: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Import trajectories (FORMATS.md JSONL) as completed runs.
    Import { file: PathBuf },
    /// Run only the M4 judge again over a stored or imported run, with the judge model you name.
    Rejudge {
        run: String,
        #[arg(long)]
        judge_model: String,
        /// Judge only answers that have no usable judgement yet.
        #[arg(long)]
        only_missing: bool,
        /// Judge calls in flight at once (default 4).
        #[arg(long)]
        concurrency: Option<u32>,
        /// paper: the judge reads the rationale and the boundary conditions; studio: also the
        /// clause's wording (default: the run's own protocol).
        #[arg(long, value_parser = parse_protocol)]
        protocol: Option<Protocol>,
    },
}

pub(crate) fn parse_protocol(s: &str) -> Result<Protocol, String> {
    Protocol::parse(s)
}

fn print_plan(p: &EvaluationPlan) {
    eprintln!("Protocol: {}. Policies: {}.", p.protocol, p.policies.join(", "));
    let types: Vec<String> = p.by_type.iter().map(|(k, v)| format!("{v} {k}")).collect();
    eprintln!("{} ({}), {}.", count(p.cases, "case"), types.join(", "), count(p.items, "evaluation item"));
    for d in &p.destinations {
        eprintln!("  {:<22} {:<20} {}", d.role, d.model, d.destination);
    }
    let usd =
        p.estimate.usd.map(|u| format!("about ${u:.2}")).unwrap_or_else(|| "unknown (no price registered)".into());
    eprintln!(
        "Estimate: ~{} calls, ~{} input and ~{} output tokens, cost {usd} ({}).",
        p.estimate.calls, p.estimate.input_tokens, p.estimate.output_tokens, p.estimate.assumptions
    );
    super::follow::print_batch_plan(p.estimate.usd, p.estimate.usd_batch, &p.batch);
    if let Some(c) = &p.cap {
        eprintln!(
            "Spending cap ${:.2}: at about ${:.4} per item it is expected to allow {} of {}; the run stops there and can be resumed with a higher cap.",
            c.max_cost_usd,
            c.item_estimate_usd,
            c.items_allowed,
            count(c.items, "item")
        );
    }
    super::concurrency::print_plan(&p.concurrency);
}

fn confirm_remote(p: &EvaluationPlan, yes: bool) -> Result<(), ApiError> {
    let remote: Vec<String> =
        p.destinations.iter().filter(|d| d.remote).map(|d| format!("{} ({})", d.model, d.destination)).collect();
    crate::output::confirm_remote(&remote, "case text", yes)
}

/// Run with a progress bar; Ctrl-C stops after the cases in flight (they stay resumable).
fn execute(cli: &Cli, e: &Api, run_id: &str) -> Result<EvaluationSummary, ApiError> {
    let how = Follow {
        unit: "cases",
        message: |p| {
            format!(
                "{} asks · {} unreadable · {} errors · {} tokens · ${:.2}{}",
                p.counter("asks"),
                p.counter("parse_failures"),
                p.counter("errors"),
                (p.counter("prompt_tokens") + p.counter("completion_tokens")) as u64,
                p.counter("cost_usd"),
                super::concurrency::progress_suffix(p)
            )
        },
        stopping: "Stopping after the cases in flight… (finished cases are kept)",
        cancel: "evaluation.cancel",
        abort: None,
    };
    follow_run(cli, e, run_id, how, "evaluation.execute")
}

fn print_summary(cli: &Cli, s: &EvaluationSummary) {
    if cli.json {
        print_json(s);
    } else {
        let c = &s.counts;
        println!(
            "Run {} ({}): {} — {}/{} cases done, {} correct, {} asks, {} unreadable replies, {}+{} tokens, ${:.2}.",
            s.run_id,
            s.model,
            s.status,
            c.done,
            c.total,
            c.correct,
            c.asks,
            c.parse_failures,
            c.prompt_tokens,
            c.completion_tokens,
            c.cost_usd
        );
        if let Some(m) = s.message.as_ref().or(s.problems.as_ref().map(|p| &p.message)) {
            println!("{m}");
        }
        if s.status == RunStatus::Completed {
            println!("Scores: psebench metrics --run {}", s.run_id);
        } else if s.status == RunStatus::CostCapped {
            println!("Resume with a higher cap: psebench eval resume {} --max-cost USD", s.run_id);
        } else {
            println!("Resume: psebench eval resume {}", s.run_id);
        }
    }
}

pub fn run(cli: &Cli, cmd: &EvalCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        EvalCmd::Run {
            cases,
            model,
            info_model,
            judge_model,
            turns,
            concurrency,
            repeat,
            label,
            max_cost,
            yes,
            batch,
            plan: only_plan,
            protocol,
        } => {
            let req = EvaluationRunRequest {
                cases: cases.clone(),
                model: model.clone(),
                info_model: info_model.clone(),
                judge_model: judge_model.clone(),
                turns: *turns,
                concurrency: *concurrency,
                repeat: *repeat,
                label: label.clone(),
                batch: *batch,
                max_cost_usd: *max_cost,
                protocol: *protocol,
            };
            let plan: EvaluationPlan = e.call("evaluation.plan", &req)?;
            if *only_plan {
                if cli.json {
                    print_json(&plan);
                } else {
                    print_plan(&plan);
                }
                return Ok(ExitCode::SUCCESS);
            }
            if !cli.json {
                print_plan(&plan);
            }
            confirm_remote(&plan, *yes)?;
            let run_id = e.call::<_, RunStarted>("evaluation.create", &req)?.run_id;
            if !cli.json {
                eprintln!("Run {run_id} created.");
            }
            let s = execute(cli, &e, &run_id)?;
            print_summary(cli, &s);
            return Ok(if s.status == RunStatus::Completed { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        EvalCmd::Resume { run, max_cost, no_max_cost } => {
            e.call::<_, Flag>(
                "evaluation.prepare_resume",
                &ResumeParams { run_id: run.clone(), max_cost_usd: *max_cost, clear_max_cost: Some(*no_max_cost) },
            )?;
            let s = execute(cli, &e, run)?;
            print_summary(cli, &s);
            return Ok(if s.status == RunStatus::Completed { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        EvalCmd::Rejudge { run, judge_model, only_missing, concurrency, protocol } => {
            let req = RejudgeRequest {
                run_id: run.clone(),
                judge_model: judge_model.clone(),
                only_missing: *only_missing,
                concurrency: *concurrency,
                protocol: *protocol,
            };
            let how = Follow {
                unit: "judgements",
                message: |p| format!("{} failed · ${:.2}", p.counter("judge_failed"), p.counter("cost_usd")),
                stopping: "Stopping after the judge calls in flight… (judgements made so far are kept)",
                cancel: "evaluation.cancel",
                abort: None,
            };
            let s: RejudgeSummary = follow_call(cli, &e, run, how, "evaluation.rejudge_execute", &req)?;
            if cli.json {
                print_json(&s);
            } else {
                println!(
                    "Re-judged {} of {} of run {} with {} (${:.2}); {} without a well-formed judgement.",
                    s.judged,
                    count(s.eligible, "answer"),
                    s.run_id,
                    s.judge_model,
                    s.cost_usd,
                    s.failed
                );
                if let Some(m) = &s.message {
                    println!("{m}");
                }
                println!("See the new M4 with `psebench metrics --run {}`.", s.run_id);
            }
            return Ok(if s.message.is_none() { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        EvalCmd::Batches { run } => {
            super::follow::print_batches(cli, &e, run)?;
        }
        EvalCmd::List => {
            let list: Vec<EvaluationRunView> = e.call("evaluation.list", &NoParams {})?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|r| {
                        vec![
                            r.run.run_id.clone(),
                            if r.run.config.is_simulation() {
                                format!("{} {}", r.run.config.model, psebench::metrics::SIMULATION_MARK)
                            } else {
                                r.run.config.model.clone()
                            },
                            if r.problems.is_some() {
                                "finished with problems".to_string()
                            } else {
                                r.run.status.words().to_string()
                            },
                            format!("{}/{}", r.counts.done, r.counts.total),
                            if r.counts.done > 0 {
                                format!("{:.1}", 100.0 * r.counts.correct as f64 / r.counts.done as f64)
                            } else {
                                "–".into()
                            },
                            format!("${:.2}", r.counts.cost_usd),
                            r.run.created_at.chars().take(16).collect(),
                        ]
                    })
                    .collect();
                table(&["RUN", "MODEL", "STATUS", "DONE", "ACC %", "COST", "CREATED"], &rows);
            }
        }
        EvalCmd::Show { run } => {
            let v: EvaluationRunView = e.call("evaluation.show", &RunParams { run_id: run.clone() })?;
            if cli.json {
                print_json(&v);
            } else {
                match &v.problems {
                    Some(p) => println!("Run {} — finished with problems\n{}", v.run.run_id, p.message),
                    None => println!("Run {} — {}", v.run.run_id, v.run.status.words()),
                }
                let simulated = v.run.config.simulated_roles();
                if !simulated.is_empty() {
                    println!(
                        "Simulation: the built-in demo model played the {} in this run. It is a scripted simulation for \
                         learning the app, not a real language model; these results say nothing about any real model.",
                        match simulated.split_last() {
                            Some((last, [])) => last.to_string(),
                            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                            None => String::new(),
                        }
                    );
                }
                if let Some(cap) = v.run.config.max_cost_usd {
                    println!("Spending cap: ${cap:.2} (${:.2} spent)", v.counts.cost_usd);
                }
                if let Some(err) = v.run.error.as_ref().filter(|_| v.problems.is_none()) {
                    println!("{err}");
                }
                print_provenance(v.run.config.provenance.as_ref());
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            }
        }
        EvalCmd::Delete { run, yes } => {
            let params = RunParams { run_id: run.clone() };
            let plan: RunRemoval = e.call("evaluation.delete_preview", &params)?;
            print_run_removal(&plan);
            confirm_delete("Delete this run?", *yes)?;
            let done: RunRemoval = e.call("evaluation.delete", &params)?;
            if cli.json {
                print_json(&done);
            } else {
                println!(
                    "Deleted run {} ({}, {}).",
                    done.run_id,
                    count(done.items, "case"),
                    count(done.trajectories, "transcript")
                );
            }
        }
        EvalCmd::Export { run, out } => {
            let n = e
                .call::<_, Count>("evaluation.export_to", &RunFileParams { run_id: run.clone(), out: out.clone() })?
                .count;
            if cli.json {
                print_json(&serde_json::json!({"run_id": run, "exported": n, "out": out}));
            } else {
                println!("Wrote {n} trajectories to {}.", out.display());
            }
        }
        EvalCmd::Import { file } => {
            let ids = e.call::<_, RunIds>("evaluation.import_file", &PathParams { path: file.clone() })?.run_ids;
            if cli.json {
                print_json(&serde_json::json!({"runs": ids}));
            } else {
                println!("Imported {}: {}", count(ids.len(), "run"), ids.join(", "));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
