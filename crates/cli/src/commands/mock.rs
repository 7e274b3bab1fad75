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
        #[arg(long, conflicts_with = "demo")]
        script: Option<PathBuf>,
        /// Serve the demo model: a simulation that plays every role of the app (model under test,
        /// information provider, judge, generation and authoring roles) for learning the app.
        /// Any model id works; `GET /v1/models` lists `demo`, marked as simulated.
        #[arg(long)]
        demo: bool,
    },
}

pub fn run(_cli: &Cli, cmd: &MockCmd) -> Result<ExitCode, ApiError> {
    match cmd {
        MockCmd::Serve { port, script, demo } => {
            let script = match script {
                _ if *demo => Script::demo(),
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
                if *demo {
                    println!(
                        "demo model (a simulation, not a real model) listening on {} (OpenAI base {}, model id \"{}\"). Requests: {}/_mock/requests",
                        server.root(),
                        server.openai_base(),
                        psebench::mock::demo::DEMO_MODEL_ID,
                        server.root()
                    );
                } else {
                    println!(
                        "mock LLM listening on {} (OpenAI base {}). Requests: {}/_mock/requests",
                        server.root(),
                        server.openai_base(),
                        server.root()
                    );
                }
                server.run_until_ctrl_c().await;
                Ok::<_, ApiError>(())
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
