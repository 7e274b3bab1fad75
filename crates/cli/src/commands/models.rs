use clap::Subcommand;
use psebench::api::models::{ModelAddRequest, ModelTestResult, ModelView};
use psebench::api::rpc::{Flag, ModelKeyParams, ModelNameParams, NoParams};
use psebench::ApiError;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use super::engine;
use crate::output::{print_json, table};
use crate::Cli;

// Parsed once per process, so the size of the `Add` variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum ModelsCmd {
    /// Look for model servers on this computer (Ollama, LM Studio, llama.cpp, vLLM) and list their
    /// models; with --register, add them as local models.
    Discover {
        /// A port to try as well as the usual ones (repeatable).
        #[arg(long = "port")]
        ports: Vec<u16>,
        /// Register every model found that is not registered yet (as local, under the suggested name).
        #[arg(long)]
        register: bool,
    },
    /// Register (or update) a model.
    Add {
        name: String,
        /// openai-compatible | openai | azure | anthropic | gemini
        #[arg(long)]
        kind: String,
        /// Provider model id (Azure: deployment name).
        #[arg(long)]
        model: String,
        /// Server address, e.g. http://127.0.0.1:11434/v1 (defaults exist for openai, anthropic, gemini).
        #[arg(long)]
        base_url: Option<String>,
        /// Read the API key from this environment variable at call time.
        #[arg(long)]
        api_key_env: Option<String>,
        /// Read an API key from standard input and store it in the OS keyring.
        #[arg(long)]
        api_key_stdin: bool,
        #[arg(long)]
        temperature: Option<f64>,
        #[arg(long)]
        top_p: Option<f64>,
        #[arg(long)]
        max_tokens: Option<u32>,
        #[arg(long)]
        seed: Option<i64>,
        /// US$ per million input tokens.
        #[arg(long)]
        price_in: Option<f64>,
        /// US$ per million output tokens.
        #[arg(long)]
        price_out: Option<f64>,
        /// US$ per million cached input tokens.
        #[arg(long)]
        price_cached_in: Option<f64>,
        /// Mark the endpoint as on this machine even though it is not a loopback address.
        #[arg(long)]
        local: bool,
        /// Requests in flight at once (the adaptive limit starts here).
        #[arg(long)]
        concurrency: Option<u32>,
        /// Seconds before a request is abandoned and retried.
        #[arg(long)]
        timeout: Option<u32>,
        /// Azure api-version or Anthropic version header.
        #[arg(long)]
        api_version: Option<String>,
        /// When the base URL moves to another host, scheme or port, keep the key link (the
        /// environment variable or stored key) for the new address; without it the link is dropped.
        #[arg(long)]
        confirm_key_for_new_host: bool,
    },
    /// List registered models (local or remote, where the key comes from).
    List,
    /// Send one tiny real request (one attempt, at most 10 s) and report latency and tokens, or say what is wrong.
    Test { name: String },
    /// Remove a model (and its key from the keyring).
    Remove { name: String },
    /// Store a model's API key in the OS keyring (read from standard input).
    SetKey { name: String },
}

fn read_key() -> Result<String, ApiError> {
    let key = if std::io::stdin().is_terminal() {
        rpassword::prompt_password("API key (input hidden): ")
            .map_err(|e| ApiError::invalid(format!("could not read the key: {e}")))?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| ApiError::invalid(format!("could not read the key: {e}")))?;
        line
    };
    let key = key.trim().to_string();
    if key.is_empty() {
        return Err(ApiError::invalid("No key was given on standard input."));
    }
    Ok(key)
}

/// A command ends with its process, so a key held in memory for the session is no help here:
/// without a keyring the command line says to use an environment variable.
fn for_the_command_line(e: ApiError) -> ApiError {
    if e.code != psebench::error::ErrorCode::KeyringUnavailable {
        return e;
    }
    let detail = e.detail.clone();
    let plain = ApiError::new(
        e.code,
        "This computer has no system keyring to keep the key in, so the key was not saved. Register the model with \
         --api-key-env VAR instead, and set VAR in the environment of the commands that use it (and of \
         `psebench serve`, which reads environment variables when it starts).",
    );
    match detail {
        Some(d) => plain.with_detail(d),
        None => plain,
    }
}

pub fn run(cli: &Cli, cmd: &ModelsCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        ModelsCmd::Add {
            name,
            kind,
            model,
            base_url,
            api_key_env,
            api_key_stdin,
            temperature,
            top_p,
            max_tokens,
            seed,
            price_in,
            price_out,
            price_cached_in,
            local,
            concurrency,
            timeout,
            api_version,
            confirm_key_for_new_host,
        } => {
            let api_key = if *api_key_stdin { Some(read_key()?) } else { None };
            let v: ModelView = e
                .call(
                    "model.add",
                    &ModelAddRequest {
                        name: name.clone(),
                        kind: kind.clone(),
                        model: model.clone(),
                        base_url: base_url.clone(),
                        api_key_env: api_key_env.clone(),
                        api_key,
                        temperature: *temperature,
                        top_p: *top_p,
                        max_tokens: *max_tokens,
                        seed: *seed,
                        price_in: *price_in,
                        price_out: *price_out,
                        price_cached_in: *price_cached_in,
                        local: *local,
                        concurrency: *concurrency,
                        timeout_secs: *timeout,
                        api_version: api_version.clone(),
                        confirm_key_for_new_host: Some(*confirm_key_for_new_host),
                        key_for_session: None,
                    },
                )
                .map_err(for_the_command_line)?;
            if cli.json {
                print_json(&v);
            } else {
                println!(
                    "Registered {}: {} → {}. Key: {}.",
                    v.config.name, v.config.model, v.destination, v.key_source
                );
                if v.config.simulation {
                    println!(
                        "Note: this endpoint says it is a simulation (the built-in demo model); results made with it are labelled a simulation."
                    );
                }
                if !v.local {
                    println!("Note: this endpoint is remote; runs that use it send case text off this machine.");
                }
                if let Some(notice) = &v.config.key_link_dropped {
                    println!("Key not confirmed: {notice}");
                }
            }
        }
        ModelsCmd::Discover { ports, register } => {
            let req = psebench::context::discover::DiscoverRequest {
                ports: None,
                extra_ports: (!ports.is_empty()).then(|| ports.clone()),
            };
            let found: psebench::context::discover::DiscoverResult = e.call("models.discover", &req)?;
            let mut added = Vec::new();
            if *register {
                for s in &found.servers {
                    for m in s.models.iter().filter(|m| m.registered_as.is_none()) {
                        e.call::<_, ModelView>(
                            "model.add",
                            &ModelAddRequest {
                                name: m.suggested_name.clone(),
                                kind: "openai-compatible".into(),
                                model: m.id.clone(),
                                base_url: Some(s.base_url.clone()),
                                local: true,
                                ..Default::default()
                            },
                        )?;
                        added.push(m.suggested_name.clone());
                    }
                }
            }
            if cli.json {
                print_json(&serde_json::json!({"found": found, "registered": added}));
            } else if found.servers.is_empty() {
                let tried: Vec<String> = found.checked.iter().map(u16::to_string).collect();
                println!("No model server answered on ports {} of this computer.", tried.join(", "));
                println!("Start one (for example Ollama or LM Studio), or name its port with --port.");
            } else {
                let added = &added;
                let rows: Vec<Vec<String>> = found
                    .servers
                    .iter()
                    .flat_map(|s| {
                        s.models.iter().map(move |m| {
                            vec![
                                s.port.to_string(),
                                s.product.clone(),
                                m.id.clone(),
                                m.registered_as.clone().map(|n| format!("registered as {n}")).unwrap_or_else(|| {
                                    if added.contains(&m.suggested_name) {
                                        format!("registered now as {}", m.suggested_name)
                                    } else {
                                        format!("not registered (suggested name {})", m.suggested_name)
                                    }
                                }),
                            ]
                        })
                    })
                    .collect();
                table(&["PORT", "SERVER", "MODEL", "IN PSEBENCH"], &rows);
                if !*register && found.servers.iter().any(|s| s.models.iter().any(|m| m.registered_as.is_none())) {
                    println!("Add them all as local models with `psebench models discover --register`.");
                }
            }
        }
        ModelsCmd::List => {
            let list: Vec<ModelView> = e.call("models.list", &NoParams {})?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|m| {
                        vec![
                            m.config.name.clone(),
                            m.config.kind.as_str().to_string(),
                            if m.config.simulation {
                                format!("{} {}", m.config.model, psebench::metrics::SIMULATION_MARK)
                            } else {
                                m.config.model.clone()
                            },
                            if m.local { "local".into() } else { "REMOTE".into() },
                            m.config.base_url.clone(),
                            m.key_source.clone(),
                            match (m.config.price_in, m.config.price_out) {
                                (Some(i), Some(o)) => format!("${i}/${o}"),
                                _ => "–".into(),
                            },
                        ]
                    })
                    .collect();
                table(&["NAME", "KIND", "MODEL", "WHERE", "BASE URL", "KEY", "PRICE IN/OUT per Mtok"], &rows);
            }
        }
        ModelsCmd::Test { name } => {
            let r: ModelTestResult = e.call("model.test", &ModelNameParams { name: name.clone() })?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "{} answered in {} ms ({} input + {} output tokens) via {}: {:?}",
                    r.name, r.latency_ms, r.input_tokens, r.output_tokens, r.destination, r.reply
                );
            }
        }
        ModelsCmd::Remove { name } => {
            e.call::<_, Flag>("model.remove", &ModelNameParams { name: name.clone() })?;
            if cli.json {
                print_json(&serde_json::json!({"removed": name}));
            } else {
                println!("Removed {name}.");
            }
        }
        ModelsCmd::SetKey { name } => {
            let key = read_key()?;
            let v: ModelView =
                e.call("model.set_key", &ModelKeyParams { name: name.clone(), key }).map_err(for_the_command_line)?;
            if cli.json {
                print_json(&v);
            } else {
                println!("Stored the key for {} in the OS keyring.", v.config.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
