use clap::{Args, Subcommand};
use psebench::api::rpc::{Flag, GenerationCandidatesParams, IdParams, NoParams, ResumeParams, RunParams, RunStarted};
use psebench::generation::{
    GenerationCandidateFilter, GenerationCandidateView, GenerationPlan, GenerationRequest, GenerationRunView,
    GenerationSummary, Provenance,
};
use psebench::jobs::RunStatus;
use psebench::util::format::count;
use psebench::ApiError;
use std::process::ExitCode;

use super::engine;
use super::follow::{follow_run, Follow};
use crate::api::Api;
use crate::output::{print_json, table, truncate};
use crate::Cli;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub cmd: Option<GenerateCmd>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Args)]
pub struct RunArgs {
    /// all | a clause id | card ids separated by commas (listed cards may be unapproved; a warning says so)
    #[arg(long)]
    pub cards: Option<String>,
    /// Anchors sampled from each card's clause bucket.
    #[arg(long, default_value_t = 25)]
    pub anchors_per_card: u32,
    /// Registered model for the Instantiator and the narrators.
    #[arg(long)]
    pub model: Option<String>,
    /// Registered model for the Extractor and the verifiers (default: --model).
    #[arg(long)]
    pub verifier_model: Option<String>,
    /// Registered model for the clause screen, which checks each record against every clause of
    /// the policy (default: --verifier-model; best a model of another family than --model).
    #[arg(long)]
    pub screen_model: Option<String>,
    /// Seed of the anchor sampling (same seed, same anchors).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Card-and-anchor pairs worked on at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: u32,
    /// Send the calls as provider batches (OpenAI, Azure, Anthropic, Gemini): about half the
    /// price, answers within the provider's window; close and `generate resume` at any time.
    #[arg(long)]
    pub batch: bool,
    /// Do not generate the cards' missing-information variants.
    #[arg(long)]
    pub no_missing: bool,
    /// Use only built-in or only imported anchors.
    #[arg(long, value_parser = ["builtin", "imported", "all"])]
    pub anchors_from: Option<String>,
    #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
    pub policy: String,
    #[arg(long)]
    pub label: Option<String>,
    /// Spending cap in US$: no new card-and-anchor pair starts once what is spent plus what is
    /// in flight would pass it; the run then stops as "stopped: cost cap" and can be resumed with a higher cap.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Print the plan and the cost estimate, and stop.
    #[arg(long)]
    pub plan: bool,
    /// paper: the paper's pipeline only (no clause screen, no text guards, one try for a
    /// checker's reply); studio: with this application's additions.
    #[arg(long, default_value = "studio", value_parser = super::eval::parse_protocol)]
    pub protocol: psebench::protocol::Protocol,
    /// Do not ask before sending card and anchor text to remote providers.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Subcommand)]
pub enum GenerateCmd {
    /// Finish an interrupted, cancelled, failed or capped run (answered calls are reused from the cache).
    Resume {
        run: String,
        /// A new spending cap in US$ (a run stopped at its cap needs a higher one).
        #[arg(long, value_name = "USD", conflicts_with = "no_max_cost")]
        max_cost: Option<f64>,
        /// Resume without any spending cap.
        #[arg(long)]
        no_max_cost: bool,
    },
    /// List generation runs.
    List,
    /// The provider batches of a run in batch mode, with their state and counts.
    Batches { run: String },
    /// Show one run: its request, status and counts.
    Show { run: String },
    /// A run's candidates (accepted, dropped with the reason, skipped, pending).
    Candidates {
        run: String,
        #[arg(long)]
        status: Option<String>,
        #[arg(long = "type")]
        case_type: Option<String>,
    },
    /// Every attempt of every stage behind a case or a (dropped) candidate.
    Provenance { id: String },
}

fn print_plan(p: &GenerationPlan) {
    let types: Vec<String> = p.cards_by_type.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let cands: Vec<String> = p.candidates_by_type.iter().map(|(k, v)| format!("{v} {k}")).collect();
    eprintln!(
        "{} ({}), up to {} each: {}, {} ({}).",
        count(p.cards, "card"),
        types.join(", "),
        count(p.anchors_per_card, "anchor"),
        count(p.units, "card-and-anchor pair"),
        count(p.candidates, "candidate case"),
        cands.join(", ")
    );
    for w in &p.warnings {
        eprintln!("  warning: {w}");
    }
    for d in &p.destinations {
        eprintln!("  {:<28} {:<20} {}", d.role, d.model, d.destination);
    }
    let usd =
        p.estimate.usd.map(|u| format!("about ${u:.2}")).unwrap_or_else(|| "unknown (no price registered)".into());
    eprintln!(
        "Estimate: ~{} calls, ~{} input and ~{} output tokens, cost {usd}.",
        p.estimate.calls, p.estimate.input_tokens, p.estimate.output_tokens
    );
    for s in &p.estimate.per_stage {
        eprintln!("  {:<20} ~{} calls, ~{} in / ~{} out tokens", s.stage, s.calls, s.input_tokens, s.output_tokens);
    }
    super::follow::print_batch_plan(p.estimate.usd, p.estimate.usd_batch, &p.batch);
    eprintln!("  ({})", p.estimate.assumptions);
    if let Some(c) = &p.cap {
        eprintln!(
            "Spending cap ${:.2}: at about ${:.4} per card-and-anchor pair it is expected to allow {} of {}; the run stops there and can be resumed with a higher cap.",
            c.max_cost_usd,
            c.item_estimate_usd,
            c.items_allowed,
            count(c.items, "pair")
        );
    }
    super::concurrency::print_plan(&p.concurrency);
}

fn confirm_remote(p: &GenerationPlan, yes: bool) -> Result<(), ApiError> {
    let remote: Vec<String> =
        p.destinations.iter().filter(|d| d.remote).map(|d| format!("{} ({})", d.model, d.destination)).collect();
    crate::output::confirm_remote(&remote, "clause cards and anchor texts", yes)
}

/// Run with a progress bar. The first Ctrl-C stops after the model calls in flight (everything
/// finished is kept); a second one stops at once.
fn execute(cli: &Cli, e: &Api, run_id: &str) -> Result<GenerationSummary, ApiError> {
    let how = Follow {
        unit: "candidates",
        message: |p| {
            format!(
                "pairs {}/{} · {} accepted · {} dropped · {} retries · {} tokens · ${:.2}{}",
                p.counter("units_done"),
                p.counter("units_total"),
                p.counter("accepted"),
                p.counter("dropped"),
                p.counter("retries"),
                (p.counter("input_tokens") + p.counter("output_tokens")) as u64,
                p.counter("cost_usd"),
                super::concurrency::progress_suffix(p)
            )
        },
        stopping:
            "Stopping after the model calls in flight… (finished work is kept; press Ctrl-C again to stop at once)",
        cancel: "generation.cancel",
        abort: Some("generation.abort"),
    };
    follow_run(cli, e, run_id, how, "generation.execute")
}

fn print_summary(cli: &Cli, s: &GenerationSummary) {
    if cli.json {
        print_json(s);
        return;
    }
    let c = &s.counts;
    println!(
        "Run {}: {} — {}/{} candidates finished: {} accepted, {} dropped, {} skipped; {} retries; {} calls ({} from cache), {}+{} tokens, ${:.2}.",
        s.run_id, s.status, c.done, c.total, c.accepted, c.dropped, c.skipped, c.retries, c.calls, c.cache_hits, c.input_tokens, c.output_tokens, c.cost_usd
    );
    if let Some(m) = &s.message {
        println!("{m}");
    }
    if s.status == RunStatus::Completed {
        println!("Statistics: psebench stats generation {}   Cases: psebench cases list", s.run_id);
    } else if s.status == RunStatus::CostCapped {
        println!("Resume with a higher cap: psebench generate resume {} --max-cost USD", s.run_id);
    } else {
        println!("Resume: psebench generate resume {}", s.run_id);
    }
}

pub fn run(cli: &Cli, args: &GenerateArgs) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    let Some(cmd) = &args.cmd else {
        let a = &args.run;
        let (Some(cards), Some(model)) = (&a.cards, &a.model) else {
            return Err(ApiError::invalid(
                "Say what to generate: psebench generate --cards all|CLAUSE_ID|ID,ID --model NAME [--anchors-per-card N] (or generate resume|list|show).",
            ));
        };
        let req = GenerationRequest {
            policy: a.policy.clone(),
            cards: cards.clone(),
            anchors_per_card: a.anchors_per_card,
            model: model.clone(),
            verifier_model: a.verifier_model.clone(),
            screen_model: a.screen_model.clone(),
            seed: a.seed,
            concurrency: a.concurrency,
            include_missing: !a.no_missing,
            anchor_origin: a.anchors_from.clone(),
            label: a.label.clone(),
            batch: a.batch,
            max_cost_usd: a.max_cost,
            protocol: a.protocol,
        };
        let plan: GenerationPlan = e.call("generation.plan", &req)?;
        if a.plan {
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
        confirm_remote(&plan, a.yes)?;
        let run_id = e.call::<_, RunStarted>("generation.create", &req)?.run_id;
        if !cli.json {
            eprintln!("Run {run_id} created.");
        }
        let s = execute(cli, &e, &run_id)?;
        print_summary(cli, &s);
        return Ok(if s.status == RunStatus::Completed { ExitCode::SUCCESS } else { ExitCode::from(1) });
    };
    match cmd {
        GenerateCmd::Resume { run, max_cost, no_max_cost } => {
            e.call::<_, Flag>(
                "generation.prepare_resume",
                &ResumeParams { run_id: run.clone(), max_cost_usd: *max_cost, clear_max_cost: Some(*no_max_cost) },
            )?;
            let s = execute(cli, &e, run)?;
            print_summary(cli, &s);
            return Ok(if s.status == RunStatus::Completed { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        GenerateCmd::Batches { run } => {
            super::follow::print_batches(cli, &e, run)?;
        }
        GenerateCmd::List => {
            let list: Vec<GenerationRunView> = e.call("generation.list", &NoParams {})?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|r| {
                        vec![
                            r.run_id.clone(),
                            r.config.model.clone(),
                            crate::output::run_status_words(r.status, r.problems.as_ref()),
                            format!("{}/{}", r.counts.done, r.counts.total),
                            r.counts.accepted.to_string(),
                            r.counts.dropped.to_string(),
                            format!("${:.2}", r.counts.cost_usd),
                            r.created_at.chars().take(16).collect(),
                        ]
                    })
                    .collect();
                table(&["RUN", "MODEL", "STATUS", "DONE", "ACCEPTED", "DROPPED", "COST", "CREATED"], &rows);
            }
        }
        GenerateCmd::Show { run } => {
            let v: GenerationRunView = e.call("generation.show", &RunParams { run_id: run.clone() })?;
            if cli.json {
                print_json(&v);
            } else {
                let c = &v.counts;
                println!(
                    "Run {} — {}{}",
                    v.run_id,
                    crate::output::run_status_words(v.status, v.problems.as_ref()),
                    v.label.as_ref().map(|l| format!(" — {l}")).unwrap_or_default()
                );
                println!("Request: {}", serde_json::to_string(&v.config.request).unwrap_or_default());
                crate::output::print_provenance(v.config.provenance.as_ref());
                println!(
                    "Created {}; started {}; finished {}",
                    v.created_at,
                    v.started_at.clone().unwrap_or("-".into()),
                    v.finished_at.clone().unwrap_or("-".into())
                );
                println!(
                    "Candidates: {} total, {} accepted, {} dropped, {} skipped, {} pending; card-and-anchor pairs {}/{}",
                    c.total, c.accepted, c.dropped, c.skipped, c.pending, c.units_done, c.units_total
                );
                for t in &c.by_type {
                    println!(
                        "  {:<10} {} total, {} accepted, {} dropped, {} skipped, {} pending",
                        t.case_type, t.total, t.accepted, t.dropped, t.skipped, t.pending
                    );
                }
                println!(
                    "Attempts {} ({} retries); calls {} ({} from cache); {}+{} tokens; ${:.2}",
                    c.attempts, c.retries, c.calls, c.cache_hits, c.input_tokens, c.output_tokens, c.cost_usd
                );
                if let Some(cap) = v.config.request.max_cost_usd {
                    println!("Spending cap: ${cap:.2}");
                }
                if let Some(err) = &v.error {
                    println!("{err}");
                }
            }
        }
        GenerateCmd::Candidates { run, status, case_type } => {
            let list: Vec<GenerationCandidateView> = e.call(
                "generation.candidates",
                &GenerationCandidatesParams {
                    run_id: run.clone(),
                    filter: Some(GenerationCandidateFilter {
                        status: status.clone(),
                        case_type: case_type.clone(),
                        ..Default::default()
                    }),
                },
            )?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|c| {
                        vec![
                            c.candidate_id.strip_prefix(&format!("{run}__")).unwrap_or(&c.candidate_id).to_string(),
                            c.case_type.clone(),
                            c.status.clone(),
                            c.drop_stage.clone().unwrap_or_default(),
                            truncate(&c.drop_reason.clone().unwrap_or_default(), 70),
                        ]
                    })
                    .collect();
                table(&["CANDIDATE (after the run id)", "TYPE", "STATUS", "STAGE", "REASON"], &rows);
                println!(
                    "{}. Full story: psebench generate provenance {run}__<candidate>",
                    count(list.len(), "candidate")
                );
            }
        }
        GenerateCmd::Provenance { id } => print_provenance(cli, &e, id)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Print the generation history of a case or candidate (also used by `cases show --provenance`).
pub fn print_provenance(cli: &Cli, e: &Api, id: &str) -> Result<(), ApiError> {
    let p: Provenance = e.call("generation.provenance", &IdParams { id: id.to_string() })?;
    if cli.json {
        print_json(&p);
        return Ok(());
    }
    let c = &p.candidate;
    println!(
        "{} — {} — {} (card {} v{}, anchor {}){}",
        c.candidate_id,
        c.case_type,
        c.status,
        c.clause_card_id,
        p.card_version.map(|v| v.to_string()).unwrap_or("?".into()),
        c.anchor_id,
        c.missing_variant_id.as_ref().map(|v| format!(", variant {v}")).unwrap_or_default()
    );
    if let Some(r) = &c.drop_reason {
        println!("Stopped at {}: {r}", c.drop_stage.clone().unwrap_or_default());
    }
    for a in &p.attempts {
        let owner = if a.candidate_id != c.candidate_id { " (parent case)" } else { "" };
        println!("\n{} attempt {}{owner}: {}", a.stage, a.attempt, if a.passed { "PASS" } else { "FAIL" });
        for call in &a.calls {
            let versions: Vec<String> = call.prompt_versions.iter().map(|(k, v)| format!("{k}@{v}")).collect();
            println!(
                "  {:<22} {:<14} {}+{} tokens, {} ms{}  [{}]",
                call.role,
                call.model,
                call.input_tokens,
                call.output_tokens,
                call.latency_ms,
                if call.cache_hit { ", cached" } else { "" },
                versions.join(", ")
            );
            for n in &call.parse_notes {
                println!("      note: {n}");
            }
        }
        if a.stage == "clause_screen" {
            if let Some(v) = &a.verifier {
                let met: Vec<&str> = v["clauses_met"]
                    .as_array()
                    .map(|l| l.iter().filter_map(|c| c["clause_id"].as_str()).collect())
                    .unwrap_or_default();
                println!(
                    "  screen: {}; clauses met: {}; open question: {}",
                    v["verdict"].as_str().unwrap_or("?"),
                    if met.is_empty() { "none".to_string() } else { met.join(", ") },
                    if v["open_question"]["present"].as_bool().unwrap_or(false) { "yes" } else { "no" }
                );
            }
        }
        for g in &a.guard_findings {
            println!("  guard: {g}");
        }
        for i in a.issues.iter().filter(|i| !a.guard_findings.contains(i)) {
            println!("  issue: {i}");
        }
        if let Some(t) = a.output.as_str() {
            println!("  text: {}", truncate(t, 300));
        }
    }
    println!("\nFull requests and responses: psebench generate provenance {} --json", c.candidate_id);
    Ok(())
}
