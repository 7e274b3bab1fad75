use clap::Args;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::Cli;

#[derive(Args)]
pub struct ReportArgs {
    /// Cases JSONL (file mode).
    #[arg(long, requires = "trajectories")]
    pub cases: Option<PathBuf>,
    /// Trajectories JSONL (file mode).
    #[arg(long, requires = "cases")]
    pub trajectories: Option<PathBuf>,
    /// Folder to write tables (CSV, Markdown, LaTeX) and charts (SVG, PNG) into.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(_cli: &Cli, _args: &ReportArgs) -> Result<ExitCode, ApiError> {
    Err(ApiError::internal("report writing is not built yet"))
}
