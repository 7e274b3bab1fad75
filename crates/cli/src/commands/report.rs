use clap::Args;
use psebench::export::{ReportRequest, ReportWritten};
use psebench::protocol::comparability::DAGGER;
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

pub fn run(cli: &Cli, args: &ReportArgs) -> Result<ExitCode, ApiError> {
    let e = super::engine(cli)?;
    let written: ReportWritten = e.call(
        "report.write",
        &ReportRequest {
            run_ids: args.run.clone(),
            cases: args.cases.clone(),
            trajectories: args.trajectories.clone(),
            generation: args.generation.clone(),
            library: args.library,
            policy: args.policy.clone(),
            all_cards: args.all_cards,
            out: args.out.clone(),
        },
    )?;
    let files = &written.files;
    if cli.json {
        let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let mut out = serde_json::json!({ "out": args.out.display().to_string(), "files": files });
        if let Some(c) = &written.comparability {
            out["comparability"] = serde_json::to_value(c)
                .map_err(|e| ApiError::internal(format!("the comparability could not be written as JSON ({e})")))?;
        }
        print_json(&out);
        return Ok(ExitCode::SUCCESS);
    }
    let Some(models) = written.models else {
        // Only the generation and library statistics were asked for.
        println!("Wrote {} files to {}:", files.len(), args.out.display());
        for f in files {
            println!("  {}", f.strip_prefix(&args.out).unwrap_or(f).display());
        }
        println!("Open {} for an overview.", args.out.join("generation.md").display());
        return Ok(ExitCode::SUCCESS);
    };
    println!(
        "Wrote {} files for {} model{} to {}:",
        files.len(),
        models,
        if models == 1 { "" } else { "s" },
        args.out.display()
    );
    for f in files {
        let shown = f.strip_prefix(&args.out).unwrap_or(f);
        println!("  {}", shown.display());
    }
    if let Some(sentence) = written.comparability.as_ref().and_then(|c| c.sentence.as_deref()) {
        let not = written.comparability.as_ref().is_some_and(|c| !c.comparable);
        if not {
            println!("Not directly comparable: {sentence}");
            println!("The models whose runs differ carry a {DAGGER} in every table and chart, with a note saying what differs.");
        } else {
            println!("Note: {sentence}");
        }
    }
    if models == 0 {
        println!("No model results were found in the trajectories, so the tables are empty and the charts say so.");
    }
    println!("Open {} for an overview.", args.out.join("index.md").display());
    Ok(ExitCode::SUCCESS)
}
