use clap::Subcommand;
use psebench::api::rpc::{LibraryStatsParams, RunParams};
use psebench::export::{generation_tables, library_tables};
use psebench::generation::{GenerationStats, LibraryStats};
use psebench::ApiError;
use std::process::ExitCode;

use super::engine;
use crate::output::print_json;
use crate::Cli;

#[derive(Subcommand)]
pub enum StatsCmd {
    /// Statistics of a generation run: success per case type, winning attempts, narrative length, case counts.
    Generation { run: String },
    /// Statistics of the card library: cards by category and event type, per clause, card shape, variants.
    Library {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// Count every current card, not only approved ones.
        #[arg(long)]
        all_cards: bool,
    },
}

pub fn run(cli: &Cli, cmd: &StatsCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        StatsCmd::Generation { run } => {
            let s: GenerationStats = e.call("generation.stats", &RunParams { run_id: run.clone() })?;
            if cli.json {
                print_json(&s);
            } else {
                for t in generation_tables(&s) {
                    println!("{}\n", t.to_markdown().trim_end());
                }
                let drops: Vec<String> =
                    s.drops_by_stage.iter().map(|d| format!("{} {}", d.candidates, d.stage)).collect();
                if !drops.is_empty() {
                    println!("Not accepted, by stage: {}.", drops.join(", "));
                }
            }
        }
        StatsCmd::Library { policy, all_cards } => {
            let s: LibraryStats = e.call(
                "library.stats",
                &LibraryStatsParams { policy: Some(policy.clone()), approved_only: !*all_cards },
            )?;
            if cli.json {
                print_json(&s);
            } else {
                for t in library_tables(&s) {
                    println!("{}\n", t.to_markdown().trim_end());
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
