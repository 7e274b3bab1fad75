use clap::Args;
use psebench::ApiError;
use psebench_server::{
    serve, write_open_page, write_token_file, Assets, EmbeddedAssets, FolderAssets, Limits, OwnerToken, ServeOptions,
    TlsFiles,
};
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
    /// With --review: replace every reviewer's link with a new one (old links stop working).
    #[arg(long, requires = "review")]
    pub new_links: bool,
    /// Write this launch's key (the part after `#owner=` in the printed link) to this file, readable by you only,
    /// for scripts: they send it as `Authorization: Bearer KEY`.
    #[arg(long, conflicts_with = "review")]
    pub token_file: Option<PathBuf>,
    /// Serve HTTPS with this certificate (PEM; with --tls-key). Without it the server speaks plain HTTP.
    #[arg(long, value_name = "PATH", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "PATH", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

/// A line on standard output that never stops the server: when whoever started it closed its end
/// (`psebench serve | head -1`, a test that read the first line), the server keeps serving.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        // A closed standard output is not an error worth stopping for.
        writeln!(std::io::stdout(), $($arg)*).ok();
    }};
}

/// Replaces the program that opens the browser for `--open`, called with the forwarding page as
/// its only argument. Meant for tests (which must not start a real browser); leave it unset.
const OPENER_ENV: &str = "PSEBENCH_OPENER";

/// Open `target` (a file or an address) in the default browser; `link` is what the user is told
/// to open if that fails.
fn open_browser(target: &str, link: &str) {
    let cmd = if let Some(opener) = std::env::var_os(OPENER_ENV).filter(|v| !v.is_empty()) {
        (opener.to_string_lossy().into_owned(), vec![target.to_string()])
    } else if cfg!(target_os = "macos") {
        ("open".to_string(), vec![target.to_string()])
    } else if cfg!(windows) {
        ("cmd".to_string(), vec!["/C".into(), "start".into(), String::new(), target.to_string()])
    } else {
        ("xdg-open".to_string(), vec![target.to_string()])
    };
    let started = std::process::Command::new(&cmd.0)
        .args(&cmd.1)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(_) => eprintln!("Opening it in your web browser (if nothing opens, go to {link})."),
        Err(_) => eprintln!("Could not open a web browser here; open {link} yourself."),
    }
}

/// Resolves at Ctrl-C (SIGINT) or, on unix, SIGTERM. The handlers are installed when this is
/// called, not when the future is first polled. Must be called inside the runtime.
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let handlers = signal(SignalKind::interrupt()).and_then(|i| signal(SignalKind::terminate()).map(|t| (i, t)));
        async move {
            match handlers {
                Ok((mut interrupt, mut terminate)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                }
                Err(err) => {
                    eprintln!("Could not watch for SIGTERM ({err}); only Ctrl-C stops the server cleanly.");
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

pub fn run(cli: &Cli, a: &ServeArgs) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    let assets: Arc<dyn Assets> = match &a.ui_dir {
        Some(dir) => {
            if !dir.join("index.html").exists() {
                return Err(ApiError::invalid(format!(
                    "{}: there is no index.html here; point --ui-dir at a built UI (ui/dist).",
                    dir.display()
                )));
            }
            Arc::new(FolderAssets(dir.clone()))
        }
        None => Arc::new(EmbeddedAssets(embedded::UI_ASSETS)),
    };
    let ip: IpAddr = if a.lan { IpAddr::V4(Ipv4Addr::UNSPECIFIED) } else { IpAddr::V4(Ipv4Addr::LOCALHOST) };
    let owner_token = OwnerToken::generate()?;
    let tls = match (&a.tls_cert, &a.tls_key) {
        (Some(cert), Some(key)) => Some(TlsFiles { cert: cert.clone(), key: key.clone() }),
        _ => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let opts = ServeOptions {
        addr: SocketAddr::new(ip, a.port),
        lan: a.lan,
        review_session: a.review.clone(),
        assets,
        owner_token: owner_token.clone(),
        limits: Limits::default(),
        tls,
    };
    psebench_server::check_options(&opts)?;
    if let Some(path) = &a.token_file {
        write_token_file(path, &owner_token)?;
    }
    let links = match &a.review {
        Some(session) => {
            let detail: psebench::review::ReviewSessionDetail =
                e.call("review.show", &psebench::api::rpc::SessionParams { session: session.clone() })?;
            let req = psebench::review::ReviewLinksRequest {
                session_id: detail.summary.session_id.clone(),
                reviewers: vec![],
                rotate: a.new_links,
            };
            let links: psebench::review::ReviewLinks = e.call("review.links", &req)?;
            Some((detail.summary.name.clone(), links))
        }
        None => None,
    };
    let json = cli.json;
    let open = a.open && a.review.is_none();
    let review = a.review.clone();
    let lan = a.lan;
    // The forwarding page made for --open, removed when the server stops.
    let open_page: Arc<std::sync::Mutex<Option<PathBuf>>> = Arc::default();
    let made_page = open_page.clone();
    // From here on the server owns the engine: every request it takes goes through `rpc::call`.
    let engine = e.into_server_engine();
    let rt = runtime()?;
    let served = rt.block_on(async move {
        let ready = move |addr: SocketAddr| {
            let url = format!("{scheme}://127.0.0.1:{}/", addr.port());
            // The owner's link carries the key; a review server has only reviewers' links.
            let owner_link = review.is_none().then(|| owner_token.link(scheme, addr.port()));
            let token = review.is_none().then(|| owner_token.as_str().to_string());
            let host = psebench::review::sharing::reviewer_host(lan);
            let link_list: Vec<serde_json::Value> = links
                .as_ref()
                .map(|(_, l)| {
                    l.links
                        .iter()
                        .map(|x| {
                            let link = x.path.as_ref().map(|p| format!("{scheme}://{host}:{}{p}", addr.port()));
                            serde_json::json!({"reviewer": x.reviewer, "link": link})
                        })
                        .collect()
                })
                .unwrap_or_default();
            if json {
                say!(
                    "{}",
                    serde_json::json!({"url": url, "port": addr.port(), "links": link_list, "token": token, "link": owner_link})
                );
            } else {
                match &review {
                    Some(_) => {
                        let name = links.as_ref().map(|(n, _)| n.as_str()).unwrap_or("");
                        say!("Review \"{name}\" is being served on port {}. Personal links (send each reviewer only their own):", addr.port());
                        for l in &link_list {
                            match l["link"].as_str() {
                                Some(link) => say!("  {:<20} {link}", l["reviewer"].as_str().unwrap_or("")),
                                None => say!(
                                    "  {:<20} (link given out earlier and still valid; --new-links replaces every link)",
                                    l["reviewer"].as_str().unwrap_or("")
                                ),
                            }
                        }
                        if lan {
                            say!("Reviewers on your local network can open these links; only their own review is reachable. Press Ctrl-C to stop.");
                            if scheme == "http" {
                                say!(
                                    "Note: this is plain HTTP, so the links and the answers travel unencrypted on the local network. \
                                     Use it only on a network you trust, or restart with --tls-cert and --tls-key."
                                );
                            }
                            say!(
                                "When the review is over, `psebench review close {}` makes every link stop working.",
                                review.as_deref().unwrap_or("SESSION")
                            );
                        } else {
                            say!("Only this computer can open these links (add --lan for other computers on your network). Press Ctrl-C to stop.");
                        }
                    }
                    None => {
                        let link = owner_link.as_deref().unwrap_or(&url);
                        say!("PSEBench Studio is running at {link} — press Ctrl-C to stop.");
                        say!(
                            "Open that exact link: it carries this session's key (a new one at every start); \
                             the address without it shows only a notice."
                        );
                    }
                }
            }
            use std::io::Write;
            let _ = std::io::stdout().flush();
            if let (true, Some(link)) = (open, owner_link.as_deref()) {
                // The browser gets a private page that forwards to the link: the key stays out of
                // command lines, which other users of the computer can read.
                match write_open_page(&std::env::temp_dir(), link) {
                    Ok(page) => {
                        open_browser(&page.display().to_string(), link);
                        *open_page.lock().unwrap_or_else(|p| p.into_inner()) = Some(page);
                    }
                    Err(e) => eprintln!("{} Open {link} yourself.", e.message),
                }
            }
        };
        // Ctrl-C and SIGTERM (what `kill`, service managers and logging out send) stop the server
        // the same way, so the forwarding page is deleted either way. The handlers are in place
        // before the link is printed: a stop asked for right after it is not missed.
        let shutdown = stop_signal();
        serve(engine, opts, ready, shutdown).await
    });
    if let Some(page) = made_page.lock().unwrap_or_else(|p| p.into_inner()).take() {
        if let Err(err) = std::fs::remove_file(&page) {
            // The page holds the key of the session that just ended; say where it is.
            eprintln!(
                "Could not delete {}: {err}. It holds the key of the session that just ended; delete it.",
                page.display()
            );
        }
    }
    served?;
    Ok(ExitCode::SUCCESS)
}
