pub mod anchors;
pub mod author;
#[cfg(feature = "bench")]
pub mod bench;
pub mod cards;
pub mod cases;
pub mod concurrency;
pub mod eval;
pub mod follow;
pub mod generate;
pub mod label_audit;
pub mod metrics;
pub mod mock;
pub mod models;
pub mod policy;
pub mod report;
pub mod review;
pub mod serve;
pub mod stats;

use psebench::api::rpc::{CacheClearParams, Count, NoParams};
use psebench::ApiError;
use std::process::ExitCode;

use crate::api::Api;
use crate::{output, Cli, Command};

/// Open the chosen database; every command reaches the engine through the API table.
pub fn engine(cli: &Cli) -> Result<Api, ApiError> {
    Api::open(cli)
}

/// The runtime of commands run through the API table (`Api`): one worker thread beside the
/// command's own thread. A command drives one job at a time and its slow work (the store, files)
/// runs on blocking threads, so more workers only add hand-offs between threads: with one, the
/// evaluation loop spends about a tenth less CPU per model request at the same throughput
/// (BENCHMARKS.md, "Evaluation throughput"). `psebench serve` keeps one worker per core.
pub fn command_runtime() -> Result<tokio::runtime::Runtime, ApiError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| ApiError::internal(format!("could not start the async runtime: {e}")))
}

/// A runtime for commands that serve HTTP or run benches.
pub fn runtime() -> Result<tokio::runtime::Runtime, ApiError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ApiError::internal(format!("could not start the async runtime: {e}")))
}

#[derive(clap::Subcommand)]
pub enum CacheCmd {
    /// How many replies are cached and how often they were reused.
    Stats,
    /// Remove cached replies (all, or those of one provider model id).
    Clear {
        #[arg(long)]
        model: Option<String>,
    },
}

fn cache(cli: &Cli, cmd: &CacheCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        CacheCmd::Stats => {
            let s: psebench::llm::cache::CacheStats = e.call("cache.stats", &NoParams {})?;
            if cli.json {
                output::print_json(&s);
            } else {
                println!(
                    "{} cached replies, reused {} times, {:.1} MB.",
                    s.entries,
                    s.hits,
                    s.bytes as f64 / 1048576.0
                );
            }
        }
        CacheCmd::Clear { model } => {
            let n = e.call::<_, Count>("cache.clear", &CacheClearParams { model: model.clone() })?.count;
            if cli.json {
                output::print_json(&serde_json::json!({"removed": n}));
            } else {
                println!("Removed {n} cached replies.");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(cli: &Cli) -> Result<ExitCode, ApiError> {
    match &cli.command {
        Command::Status => status(cli),
        Command::Policy(c) => policy::run(cli, c),
        Command::Cards(c) => cards::run(cli, c),
        Command::Cases(c) => cases::run(cli, c),
        Command::LabelAudit(a) => label_audit::run(cli, a),
        Command::Demo(c) => cases::run_demo(cli, c),
        Command::Anchors(c) => anchors::run(cli, c),
        Command::Author(c) => author::run(cli, c),
        Command::Generate(a) => generate::run(cli, a),
        Command::Stats(c) => stats::run(cli, c),
        Command::Eval(c) => eval::run(cli, c),
        Command::Models(c) => models::run(cli, c),
        Command::Cache(c) => cache(cli, c),
        Command::MockLlm(c) => mock::run(cli, c),
        #[cfg(feature = "bench")]
        Command::Bench(c) => bench::run(cli, c),
        Command::Metrics(a) => metrics::run(cli, a),
        Command::Report(a) => report::run(cli, a),
        Command::Serve(a) => serve::run(cli, a),
        Command::Review(c) => review::run(cli, c),
    }
}

fn status(cli: &Cli) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    let info: psebench::api::store_info::StoreInfo = e.call("store.info", &NoParams {})?;
    if cli.json {
        output::print_json(&info);
        return Ok(ExitCode::SUCCESS);
    }
    println!("Store:     {}{}", info.path, if info.created_now { " (created now)" } else { "" });
    if let Some(b) = &info.backup_made {
        println!("Backup:    {b} (taken before upgrading the database)");
    }
    println!("Version:   {} (schema {})", info.app_version, info.schema.last().map(String::as_str).unwrap_or("-"));
    println!("Policies:  {}", info.policies.join(", "));
    let fmt = |v: &Vec<psebench::api::store_info::CountByKey>| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(|c| format!("{} {}", c.count, c.key)).collect::<Vec<_>>().join(", ")
        }
    };
    println!("Cards:     {} ({})", fmt(&info.cards_by_type), fmt(&info.cards_by_status));
    println!("Cases:     {}", fmt(&info.cases_by_type));
    println!(
        "Logs:      {} (the app and `psebench serve` write here; other commands log to the terminal with -v)",
        info.log_folder
    );
    Ok(ExitCode::SUCCESS)
}
