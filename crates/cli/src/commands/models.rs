use clap::Subcommand;
use psebench::api::models::ModelAddRequest;
use psebench::ApiError;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use super::{engine, runtime};
use crate::output::{print_json, table};
use crate::Cli;

// Parsed once per process, so the size of the `Add` variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum ModelsCmd {
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
    /// Send one tiny real request and report latency and tokens.
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
            let v = e.models_add(&ModelAddRequest {
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
            })?;
            if cli.json {
                print_json(&v);
            } else {
                println!(
                    "Registered {}: {} → {}. Key: {}.",
                    v.config.name, v.config.model, v.destination, v.key_source
                );
                if !v.local {
                    println!("Note: this endpoint is remote; runs that use it send case text off this machine.");
                }
                if let Some(notice) = &v.config.key_link_dropped {
                    println!("Key not confirmed: {notice}");
                }
            }
        }
        ModelsCmd::List => {
            let list = e.models_list()?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|m| {
                        vec![
                            m.config.name.clone(),
                            m.config.kind.as_str().to_string(),
                            m.config.model.clone(),
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
            let r = runtime()?.block_on(e.models_test(name))?;
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
            e.models_remove(name)?;
            if cli.json {
                print_json(&serde_json::json!({"removed": name}));
            } else {
                println!("Removed {name}.");
            }
        }
        ModelsCmd::SetKey { name } => {
            let key = read_key()?;
            let v = e.models_set_key(name, &key)?;
            if cli.json {
                print_json(&v);
            } else {
                println!("Stored the key for {} in the OS keyring.", v.config.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
