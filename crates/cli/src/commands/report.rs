use clap::Args;
use psebench::metrics::{compute, MetricsOptions};
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::output::print_json;
use crate::Cli;

#[derive(Args)]
pub struct ReportArgs {
    /// Cases JSONL (file mode).
    #[arg(long, requires = "trajectories")]
    pub cases: Option<PathBuf>,
    /// Trajectories JSONL (file mode).
    #[arg(long, requires = "cases")]
    pub trajectories: Option<PathBuf>,
    /// Stored evaluation runs to report on (one model per run), instead of files.
    #[arg(long, num_args = 1.., conflicts_with_all = ["cases", "trajectories"])]
    pub run: Vec<String>,
    /// Also write the statistics tables of this generation run (and of the card library behind it).
    #[arg(long)]
    pub generation: Option<String>,
    /// Also write the card-library tables (cards by category and type, per clause, card shape).
    #[arg(long)]
    pub library: bool,
    /// Policy of the card-library tables (default: the generation run's, else mn29).
    #[arg(long)]
    pub policy: Option<String>,
    /// Count every current card in the library tables, not only approved ones.
    #[arg(long)]
    pub all_cards: bool,
    /// Folder to write tables (CSV, Markdown, LaTeX) and charts (SVG, PNG) into.
    #[arg(long)]
    pub out: PathBuf,
}

/// The policy pack the cases were written under (the first case's; MN29 when there are none).
fn policy_of(cases: &[psebench::case::Case]) -> Result<String, ApiError> {
    let Some(first) = cases.first() else {
        return Ok(psebench::policy::DEFAULT_POLICY.to_string());
    };
    if let Some(other) = cases.iter().find(|c| c.policy != first.policy) {
        return Err(ApiError::invalid(format!(
            "The cases mix policies ({} and {}, e.g. case {}). Report on one policy at a time.",
            first.policy, other.policy, other.case_id
        )));
    }
    Ok(first.policy.clone())
}

pub fn run(cli: &Cli, args: &ReportArgs) -> Result<ExitCode, ApiError> {
    let wants_eval = !args.run.is_empty() || args.cases.is_some();
    let mut gen_files = Vec::new();
    if args.generation.is_some() || args.library {
        let e = super::engine(cli)?;
        let policy = args.policy.clone().or_else(|| {
            if args.generation.is_none() {
                Some(psebench::policy::DEFAULT_POLICY.to_string())
            } else {
                None
            }
        });
        gen_files = e.gen_report_files(args.generation.as_deref(), policy.as_deref(), !args.all_cards, &args.out)?;
        if !wants_eval {
            if cli.json {
                let files: Vec<String> = gen_files.iter().map(|p| p.display().to_string()).collect();
                print_json(&serde_json::json!({ "out": args.out.display().to_string(), "files": files }));
            } else {
                println!("Wrote {} files to {}:", gen_files.len(), args.out.display());
                for f in &gen_files {
                    println!("  {}", f.strip_prefix(&args.out).unwrap_or(f).display());
                }
                println!("Open {} for an overview.", args.out.join("generation.md").display());
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    let (report, mut files) = if !args.run.is_empty() {
        let e = super::engine(cli)?;
        e.report_for_runs(&args.run, &args.out)?
    } else {
        let (Some(cases), Some(trajs)) = (&args.cases, &args.trajectories) else {
            return Err(ApiError::invalid(
                "Give --run RUN... or --cases FILE --trajectories FILE (evaluation results), and/or --generation RUN or --library, and --out FOLDER.",
            ));
        };
        // Any stored pack, so cases written under a user's own policy are read too.
        let e = super::engine(cli)?;
        let cases = psebench::case::io::read_cases(cases, &e.vocab_lookup())?;
        let trajectories = psebench::trajectory::io::read_trajectories(trajs)?;
        let policy = policy_of(&cases)?;
        let pack = e.policy_pack(&policy).map_err(|_| {
            ApiError::not_found(format!(
                "The cases use the policy \"{policy}\", which is neither built into this version of psebench nor created in this store (psebench policy create)."
            ))
        })?;
        let report = compute(&cases, &trajectories, &MetricsOptions::default());
        let files = psebench::export::write_report_files(&report, &pack, &args.out)?;
        (report, files)
    };

    files.extend(gen_files);
    if cli.json {
        let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        print_json(&serde_json::json!({ "out": args.out.display().to_string(), "files": files }));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Wrote {} files for {} model{} to {}:",
        files.len(),
        report.models.len(),
        if report.models.len() == 1 { "" } else { "s" },
        args.out.display()
    );
    for f in &files {
        let shown = f.strip_prefix(&args.out).unwrap_or(f);
        println!("  {}", shown.display());
    }
    if report.models.is_empty() {
        println!("No model results were found in the trajectories, so the tables are empty and the charts say so.");
    }
    println!("Open {} for an overview.", args.out.join("index.md").display());
    Ok(ExitCode::SUCCESS)
}
