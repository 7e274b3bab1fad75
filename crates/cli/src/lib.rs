//! `psebench`: the command-line shell over the PSEBench engine. Every command parses its
//! arguments, calls API methods through the same table as the app and `psebench serve`
//! (`api::Api`, `psebench::api::rpc`) and prints the result (`--json` for scripts). A library so
//! that tests can read the command tree (`Cli::command()`); the binary is `src/main.rs`.

mod api;
mod commands;
mod console;
mod output;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "psebench",
    version,
    about = "PSEBench Studio: build, validate and run policy-grounded patient-safety triage benchmarks"
)]
pub struct Cli {
    /// Database file (default: the per-user data folder; also PSEBENCH_DB).
    #[arg(long, global = true, env = "PSEBENCH_DB")]
    pub db: Option<PathBuf>,
    /// Print machine-readable JSON on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// Do not read or write the LLM response cache.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Log to standard error: -v what happens, -vv details, -vvv everything. (`serve` also keeps
    /// a log file in the logs folder next to the database.)
    #[arg(short = 'v', long = "verbose", global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Show where the store is and what it holds.
    Status,
    /// Policy packs: clauses, guidance, evidence vocabulary, official text.
    #[command(subcommand)]
    Policy(commands::policy::PolicyCmd),
    /// Clause cards: lint, import, list, show, edit, audit, history, export.
    #[command(subcommand)]
    Cards(commands::cards::CardsCmd),
    /// Benchmark cases: import, export, list, show.
    #[command(subcommand)]
    Cases(commands::cases::CasesCmd),
    /// Label audit: screen cases against every clause of the policy with one or more models and
    /// report the cases whose label a majority of them disputes (the same as `cases screen`).
    LabelAudit(commands::label_audit::LabelAuditArgs),
    /// The hand-written demo cases shipped with the app.
    #[command(subcommand)]
    Demo(commands::cases::DemoCmd),
    /// Anchor materials (scene and style seeds): import, list, show, buckets, pre-sort, translate, remove.
    #[command(subcommand)]
    Anchors(commands::anchors::AnchorsCmd),
    /// Model-assisted authoring: loyal extraction of the policy sections for a clause, approval, list, show.
    #[command(subcommand, visible_alias = "authoring")]
    Author(commands::author::AuthorCmd),
    /// Generate verified cases from clause cards and anchors (resumable): generate --cards ... --model ...; resume, list, show.
    #[command(visible_alias = "generation")]
    Generate(commands::generate::GenerateArgs),
    /// Statistics of generation runs and of the card library.
    #[command(subcommand)]
    Stats(commands::stats::StatsCmd),
    /// Evaluate models in the agentic environment: run, resume, list, export, import.
    #[command(subcommand, visible_alias = "evaluation")]
    Eval(commands::eval::EvalCmd),
    /// Registered models: add, list, test, remove, set-key.
    #[command(subcommand)]
    Models(commands::models::ModelsCmd),
    /// The LLM response cache.
    #[command(subcommand)]
    Cache(commands::CacheCmd),
    /// A loopback mock LLM provider (OpenAI, Anthropic and Gemini wire formats) for tests and demos.
    #[command(subcommand, name = "mock-llm")]
    MockLlm(commands::mock::MockCmd),
    /// Benchmarks (speed is measured here, never in tests). Only in builds with the `bench` feature.
    #[cfg(feature = "bench")]
    #[command(subcommand)]
    Bench(commands::bench::BenchCmd),
    /// Score trajectories: M1–M8 with confidence intervals and paired tests.
    Metrics(commands::metrics::MetricsArgs),
    /// Write the paper's tables and charts for a set of results.
    Report(commands::report::ReportArgs),
    /// Serve the app and its API on http://127.0.0.1 for a web browser.
    Serve(commands::serve::ServeArgs),
    /// Expert review: sessions, reviewer links and packs, answers, statistics, adjudication, exports.
    #[command(subcommand)]
    Review(commands::review::ReviewCmd),
}

/// Standard error gets what -v asks for; `serve` also writes the rotating file log.
fn start_logging(cli: &Cli) -> Result<psebench::logging::LogGuard, psebench::logging::LogError> {
    use psebench::logging::{init, log_dir_for, LogLevel, LogOptions};
    let file_dir = match cli.command {
        Command::Serve(_) => Some(log_dir_for(&cli.db.clone().unwrap_or_else(psebench::store::default_db_path))),
        _ => None,
    };
    let stderr_level = (cli.verbose > 0).then(|| LogLevel::from_verbosity(cli.verbose));
    init(&LogOptions { file_dir, file_level: LogLevel::Info.max(stderr_level.unwrap_or(LogLevel::Info)), stderr_level })
}

/// The whole program: parse the command line, run the command, print any error.
pub fn main_entry() -> ExitCode {
    psebench::util::memory::limit_heap_arenas();
    console::prepare();
    let cli = Cli::parse();
    // Behave like other command-line tools when output is piped into `head` and closed early;
    // except the server, which keeps serving when whoever started it stops reading its output.
    #[cfg(unix)]
    if !matches!(cli.command, Command::Serve(_)) {
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    // How other processes name this one when it holds a run they want to execute.
    psebench::jobs::set_process_label(match cli.command {
        Command::Serve(_) => "psebench serve",
        _ => "psebench CLI",
    });
    let _log = match start_logging(&cli) {
        Ok(guard) => Some(guard),
        Err(e) => {
            // Not fatal: the command works without a log file.
            eprintln!("warning: {e}");
            None
        }
    };
    match commands::run(&cli) {
        Ok(code) => code,
        Err(e) => {
            output::print_error(&e, cli.json);
            ExitCode::from(1)
        }
    }
}
