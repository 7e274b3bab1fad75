use clap::Args;
use psebench::server::{serve, Assets, EmbeddedAssets, FolderAssets, ServeOptions};
use psebench::ApiError;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::{engine, runtime};
use crate::Cli;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));
}

#[derive(Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
    /// Open the app in the default web browser.
    #[arg(long)]
    pub open: bool,
    /// Serve only this review session: reviewers use their personal links (see `psebench review links`).
    #[arg(long)]
    pub review: Option<String>,
    /// Listen on every network interface so reviewers on the local network can reach their links
    /// (only together with --review).
    #[arg(long)]
    pub lan: bool,
    /// Serve the user interface from this folder instead of the copy built into psebench.
    #[arg(long)]
    pub ui_dir: Option<PathBuf>,
}

fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") {
        ("open", vec![url.to_string()])
    } else if cfg!(windows) {
        ("cmd", vec!["/C".into(), "start".into(), String::new(), url.to_string()])
    } else {
        ("xdg-open", vec![url.to_string()])
    };
    if std::process::Command::new(cmd.0).args(&cmd.1).spawn().is_err() {
        eprintln!("Could not open a browser; open {url} yourself.");
    }
}

pub fn run(cli: &Cli, a: &ServeArgs) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    let assets: Arc<dyn Assets> = match &a.ui_dir {
        Some(dir) => {
            if !dir.join("index.html").exists() {
                return Err(ApiError::invalid(format!("{}: there is no index.html here; point --ui-dir at a built UI (ui/dist).", dir.display())));
            }
            Arc::new(FolderAssets(dir.clone()))
        }
        None => Arc::new(EmbeddedAssets(embedded::UI_ASSETS)),
    };
    let ip: IpAddr = if a.lan { IpAddr::V4(Ipv4Addr::UNSPECIFIED) } else { IpAddr::V4(Ipv4Addr::LOCALHOST) };
    let opts = ServeOptions { addr: SocketAddr::new(ip, a.port), lan: a.lan, review_session: a.review.clone(), assets };
    psebench::server::check_options(&opts)?;
    let json = cli.json;
    let open = a.open;
    let review = a.review.clone();
    let rt = runtime()?;
    rt.block_on(async move {
        let ready = move |addr: SocketAddr| {
            let url = format!("http://127.0.0.1:{}/", addr.port());
            if json {
                println!("{}", serde_json::json!({"url": url, "port": addr.port()}));
            } else {
                match &review {
                    Some(s) => println!("Review session {s} is being served on port {} (reviewers open their personal links).", addr.port()),
                    None => println!("PSEBench Studio is running at {url} — press Ctrl-C to stop."),
                }
            }
            use std::io::Write;
            let _ = std::io::stdout().flush();
            if open {
                open_browser(&url);
            }
        };
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        serve(e, opts, ready, shutdown).await
    })?;
    Ok(ExitCode::SUCCESS)
}
