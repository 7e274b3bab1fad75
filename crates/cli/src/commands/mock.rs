use clap::Subcommand;
use psebench::mock::{MockServer, Script};
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::runtime;
use crate::Cli;

#[derive(Subcommand)]
pub enum MockCmd {
    /// Serve the mock provider on 127.0.0.1 until Ctrl-C.
    Serve {
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Script (JSON) with rules, replies and faults; without one every request gets "ok".
        #[arg(long)]
        script: Option<PathBuf>,
    },
}

pub fn run(_cli: &Cli, cmd: &MockCmd) -> Result<ExitCode, ApiError> {
    match cmd {
        MockCmd::Serve { port, script } => {
            let script = match script {
                Some(p) => {
                    let text = psebench::util::files::read_text(p, psebench::util::files::MAX_JSON_FILE_BYTES)?;
                    Script::from_json(&text).map_err(|e| ApiError::invalid(format!("{}: {e}", p.display())))?
                }
                None => Script::always("ok"),
            };
            let rt = runtime()?;
            rt.block_on(async {
                let server = MockServer::start(script, *port).await.map_err(|e| {
                    ApiError::new(psebench::ErrorCode::Io, format!("could not listen on 127.0.0.1:{port} ({e})"))
                })?;
                println!(
                    "mock LLM listening on {} (OpenAI base {}). Requests: {}/_mock/requests",
                    server.root(),
                    server.openai_base(),
                    server.root()
                );
                server.run_until_ctrl_c().await;
                Ok::<_, ApiError>(())
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
