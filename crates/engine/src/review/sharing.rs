//! Serving a review session's personal links from the running app ("Share").
//!
//! The desktop app and `psebench serve` can serve one or more review sessions to their reviewers
//! on a second listener of their own: on this computer only (127.0.0.1, the default) or on every
//! network interface for reviewers on the local network (plain HTTP unless a certificate is
//! given). That listener is a review server: every API call on it needs a reviewer's personal
//! token of the session it serves, and only the questionnaire's methods answer. The owner's key is
//! never involved.
//!
//! This module keeps the state (which session is served where, since when) and the rules; the
//! listener itself belongs to the server crate, which installs a [`ShareServer`] on the engine
//! (`psebench_server::enable_review_sharing`). An engine without one (the command line) answers
//! that sharing needs the app and shows the `psebench serve --review` command to use instead.
//! Everything served stops when the process ends.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::SessionRole;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// The port reviewer links are served on unless another is chosen.
pub const DEFAULT_SHARE_PORT: u16 = 8766;

/// Start serving a session's reviewer links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewShareRequest {
    /// Session id or name.
    pub session: String,
    /// Listen on every network interface (reviewers on the local network) instead of this
    /// computer only.
    #[serde(default)]
    pub lan: bool,
    /// The port (default 8766; 0 picks a free one).
    #[serde(default)]
    #[ts(optional)]
    pub port: Option<u16>,
    /// HTTPS certificate (PEM) and its private key; both or neither.
    #[serde(default)]
    #[ts(optional)]
    pub tls_cert: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub tls_key: Option<String>,
}

/// Whether a session's reviewer links are being served by this app, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewShareStatus {
    pub session_id: String,
    /// True while the links are being served.
    pub serving: bool,
    /// Whether this program can serve links itself (the app and `psebench serve` can; the command
    /// line alone cannot).
    pub available: bool,
    /// The address reviewer links start with while served (`http://127.0.0.1:8766`), else null.
    pub base_url: Option<String>,
    pub port: Option<u16>,
    /// Served on the local network (every interface), not only this computer.
    pub lan: bool,
    pub https: bool,
    /// Served on the local network over plain HTTP: links and answers travel unencrypted.
    pub plain_http_on_lan: bool,
    pub started_at: Option<String>,
    /// Why serving ended without being stopped, if it did.
    pub note: Option<String>,
    /// The command that serves the same links from a terminal instead (carries the store path).
    pub headless_command: String,
}

/// Why sharing could not start or stop. Each message says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareError {
    /// This program has no listener to serve links with (the command line).
    Unavailable { command: String },
    /// The session is closed: its links are refused.
    Closed { name: String },
    /// The session was opened from a review pack; its owner serves its links.
    Visiting { name: String },
    /// The port is already taken by another session this app serves.
    PortServing { port: u16, other: String },
    /// Another program holds the port.
    PortInUse { port: u16 },
    /// The port cannot be used (below 1024 needs special rights, and the like).
    PortRefused { port: u16, reason: String },
    /// Only one of certificate and key was given.
    TlsHalf,
}

impl ShareError {
    pub fn message(&self) -> String {
        match self {
            ShareError::Unavailable { command } => format!(
                "Reviewer links can only be served by the desktop app or psebench serve. From a terminal, run: {command}"
            ),
            ShareError::Closed { name } => format!(
                "Review \"{name}\" is closed, so its links are refused. Reopen it first, then share it."
            ),
            ShareError::Visiting { name } => format!(
                "Review \"{name}\" was opened from a review pack: its links are served by the person who runs the review, not here."
            ),
            ShareError::PortServing { port, other } => format!(
                "Port {port} already serves the links of review \"{other}\". Choose another port for this review, or stop sharing that one."
            ),
            ShareError::PortInUse { port } => format!(
                "Port {port} is already in use on this computer, perhaps by a review server started in a terminal \
                 (psebench serve --review) or by another program. Stop that program, or choose another port and start again."
            ),
            ShareError::PortRefused { port, reason } => format!(
                "The links could not be served on port {port} ({reason}). Choose a port between 1024 and 65535 and start again."
            ),
            ShareError::TlsHalf => {
                "For HTTPS give both the certificate file and its private key file, or neither for plain HTTP.".to_string()
            }
        }
    }

    fn code(&self) -> ErrorCode {
        match self {
            ShareError::Unavailable { .. } => ErrorCode::Forbidden,
            ShareError::Closed { .. }
            | ShareError::Visiting { .. }
            | ShareError::PortServing { .. }
            | ShareError::PortInUse { .. } => ErrorCode::Conflict,
            ShareError::PortRefused { .. } => ErrorCode::Io,
            ShareError::TlsHalf => ErrorCode::InvalidInput,
        }
    }
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for ShareError {}

impl From<ShareError> for ApiError {
    fn from(e: ShareError) -> ApiError {
        ApiError::new(e.code(), e.message())
    }
}

/// What the server crate is asked to serve: one session's questionnaire on `addr`.
#[derive(Debug, Clone, PartialEq)]
pub struct SharePlan {
    pub session_id: String,
    pub addr: SocketAddr,
    pub lan: bool,
    /// Certificate and private key (PEM) for HTTPS.
    pub tls: Option<(PathBuf, PathBuf)>,
}

/// A listener the server crate started: where it listens, how to stop it, and its task.
pub struct ShareListener {
    pub addr: SocketAddr,
    pub stop: tokio::sync::oneshot::Sender<()>,
    pub done: tokio::task::JoinHandle<()>,
}

pub type ShareStart = Pin<Box<dyn Future<Output = ApiResult<ShareListener>> + Send>>;

/// Starts review listeners; installed by the program that can serve (see the module docs).
pub trait ShareServer: Send + Sync {
    fn start(&self, engine: Engine, plan: SharePlan) -> ShareStart;
}

struct Running {
    listener: ShareListener,
    name: String,
    lan: bool,
    https: bool,
    base_url: String,
    started_at: String,
    tls: Option<(String, String)>,
}

/// The engine-wide sharing state (an engine extension).
#[derive(Default)]
pub struct Sharing {
    server: Mutex<Option<Arc<dyn ShareServer>>>,
    running: Mutex<HashMap<String, Running>>,
    /// Sessions whose listener ended without being stopped, and why.
    ended: Mutex<HashMap<String, String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// This computer's address on the local network (the route a packet would take; nothing is sent).
pub fn lan_address() -> Option<IpAddr> {
    let sock = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    sock.connect("192.0.2.1:9").ok()?;
    let ip = sock.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// The host reviewers use: 127.0.0.1, or this computer's network address when served on the LAN.
pub fn reviewer_host(lan: bool) -> String {
    if lan {
        lan_address().map(|ip| ip.to_string()).unwrap_or_else(|| "THIS-COMPUTER".into())
    } else {
        "127.0.0.1".into()
    }
}

/// One argument of a command to copy, quoted for the shell of this kind of system when needed
/// (POSIX shells: single quotes; Windows: double quotes, which Windows paths never contain).
pub fn shell_quote(arg: &str, windows: bool) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '\\' | '+' | '=' | ','));
    if plain {
        arg.to_string()
    } else if windows {
        format!("\"{arg}\"")
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The terminal command that serves `session`'s links like Share does, for this store.
pub fn headless_command(
    store: &Path,
    session: &str,
    lan: bool,
    port: u16,
    tls: Option<(&str, &str)>,
    windows: bool,
) -> String {
    let q = |s: &str| shell_quote(s, windows);
    let mut cmd = format!("psebench --db {} serve --review {}", q(&store.display().to_string()), q(session));
    if lan {
        cmd.push_str(" --lan");
    }
    cmd.push_str(&format!(" --port {port}"));
    if let Some((cert, key)) = tls {
        cmd.push_str(&format!(" --tls-cert {} --tls-key {}", q(cert), q(key)));
    }
    cmd
}

fn tls_pair(req: &ReviewShareRequest) -> Result<Option<(String, String)>, ShareError> {
    let given = |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    match (given(&req.tls_cert), given(&req.tls_key)) {
        (Some(c), Some(k)) => Ok(Some((c, k))),
        (None, None) => Ok(None),
        _ => Err(ShareError::TlsHalf),
    }
}

impl Engine {
    /// Let this engine serve reviewer links with `server` (the app and `psebench serve` do this
    /// once at start).
    pub fn review_share_enable(&self, server: Arc<dyn ShareServer>) {
        *lock(&self.extension::<Sharing>().server) = Some(server);
    }

    fn share_command(&self, session_id: &str, lan: bool, port: u16, tls: Option<(&str, &str)>) -> String {
        headless_command(self.store().path(), session_id, lan, port, tls, cfg!(windows))
    }

    /// Whether `session`'s links are being served, and the command that serves them from a terminal.
    pub fn review_share_status(&self, session: &str) -> ApiResult<ReviewShareStatus> {
        let detail = self.review_show(session)?;
        Ok(self.share_status_of(&detail.summary.session_id))
    }

    fn share_status_of(&self, session_id: &str) -> ReviewShareStatus {
        let sharing = self.extension::<Sharing>();
        let available = lock(&sharing.server).is_some();
        let mut running = lock(&sharing.running);
        if running.get(session_id).is_some_and(|r| r.listener.done.is_finished()) {
            running.remove(session_id);
            lock(&sharing.ended).insert(
                session_id.to_string(),
                "The review server stopped on its own; start it again (the app's log says why).".into(),
            );
        }
        match running.get(session_id) {
            Some(r) => ReviewShareStatus {
                session_id: session_id.to_string(),
                serving: true,
                available,
                base_url: Some(r.base_url.clone()),
                port: Some(r.listener.addr.port()),
                lan: r.lan,
                https: r.https,
                plain_http_on_lan: r.lan && !r.https,
                started_at: Some(r.started_at.clone()),
                note: None,
                headless_command: self.share_command(
                    session_id,
                    r.lan,
                    r.listener.addr.port(),
                    r.tls.as_ref().map(|(c, k)| (c.as_str(), k.as_str())),
                ),
            },
            None => ReviewShareStatus {
                session_id: session_id.to_string(),
                serving: false,
                available,
                base_url: None,
                port: None,
                lan: false,
                https: false,
                plain_http_on_lan: false,
                started_at: None,
                note: lock(&sharing.ended).get(session_id).cloned(),
                // From a terminal a review server is mostly for reviewers on other computers.
                headless_command: self.share_command(session_id, true, DEFAULT_SHARE_PORT, None),
            },
        }
    }

    /// Start serving a session's reviewer links from this program. Serving it already is not an
    /// error: the answer says where.
    pub async fn review_share_start(&self, req: &ReviewShareRequest) -> ApiResult<ReviewShareStatus> {
        let (e, s) = (self.clone(), req.session.clone());
        let detail = self.blocking(move |_| e.review_show(&s)).await?;
        let sid = detail.summary.session_id.clone();
        let name = detail.summary.name.clone();
        let port = req.port.unwrap_or(DEFAULT_SHARE_PORT);
        let tls = tls_pair(req)?;
        let sharing = self.extension::<Sharing>();
        let server = lock(&sharing.server).clone();
        let Some(server) = server else {
            let tls_ref = tls.as_ref().map(|(c, k)| (c.as_str(), k.as_str()));
            return Err(ShareError::Unavailable { command: self.share_command(&sid, req.lan, port, tls_ref) }.into());
        };
        if detail.summary.role == SessionRole::Visiting {
            return Err(ShareError::Visiting { name }.into());
        }
        if detail.summary.closed_at.is_some() {
            return Err(ShareError::Closed { name }.into());
        }
        let current = self.share_status_of(&sid);
        if current.serving {
            return Ok(current);
        }
        if port != 0 {
            let running = lock(&sharing.running);
            if let Some(other) = running.values().find(|r| r.listener.addr.port() == port) {
                return Err(ShareError::PortServing { port, other: other.name.clone() }.into());
            }
        }
        let ip = if req.lan { IpAddr::V4(Ipv4Addr::UNSPECIFIED) } else { IpAddr::V4(Ipv4Addr::LOCALHOST) };
        let plan = SharePlan {
            session_id: sid.clone(),
            addr: SocketAddr::new(ip, port),
            lan: req.lan,
            tls: tls.as_ref().map(|(c, k)| (PathBuf::from(c), PathBuf::from(k))),
        };
        let listener = server.start(self.clone(), plan).await?;
        let https = tls.is_some();
        let scheme = if https { "https" } else { "http" };
        let base_url = format!("{scheme}://{}:{}", reviewer_host(req.lan), listener.addr.port());
        tracing::info!(session = %sid, %base_url, lan = req.lan, https, "reviewer links are being served");
        let mut running = lock(&sharing.running);
        if running.contains_key(&sid) {
            // Started twice at the same moment: keep the first.
            let _ = listener.stop.send(());
        } else {
            lock(&sharing.ended).remove(&sid);
            running.insert(
                sid.clone(),
                Running { listener, name, lan: req.lan, https, base_url, started_at: crate::util::now_rfc3339(), tls },
            );
        }
        drop(running);
        Ok(self.share_status_of(&sid))
    }

    /// Stop serving a session's reviewer links: its listener closes, and links stop connecting.
    /// Stopping a session that is not served is not an error.
    pub async fn review_share_stop(&self, session: &str) -> ApiResult<ReviewShareStatus> {
        let (e, s) = (self.clone(), session.to_string());
        let detail = self.blocking(move |_| e.review_show(&s)).await?;
        let sid = detail.summary.session_id;
        let taken = lock(&self.extension::<Sharing>().running).remove(&sid);
        if let Some(r) = taken {
            stop_listener(r.listener).await;
            tracing::info!(session = %sid, "reviewer links are no longer served");
        }
        lock(&self.extension::<Sharing>().ended).remove(&sid);
        Ok(self.share_status_of(&sid))
    }

    /// Stop serving every session (the program is stopping).
    pub async fn review_share_stop_all(&self) {
        let all: Vec<Running> = lock(&self.extension::<Sharing>().running).drain().map(|(_, r)| r).collect();
        for r in all {
            stop_listener(r.listener).await;
        }
    }
}

async fn stop_listener(l: ShareListener) {
    let _ = l.stop.send(());
    // The listener closes at once and gives open connections a short grace period.
    if tokio::time::timeout(std::time::Duration::from_secs(10), l.done).await.is_err() {
        tracing::warn!("a review listener took long to stop");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_quote_paths_with_spaces_for_each_shell() {
        let p = Path::new("/home/ana/My studies/store.db");
        assert_eq!(
            headless_command(p, "rs-1", true, 8766, None, false),
            "psebench --db '/home/ana/My studies/store.db' serve --review rs-1 --lan --port 8766"
        );
        let w = Path::new(r"C:\Users\Ana Lopez\psebench.db");
        assert_eq!(
            headless_command(w, "rs-1", false, 9000, Some(("c.pem", "k.pem")), true),
            r#"psebench --db "C:\Users\Ana Lopez\psebench.db" serve --review rs-1 --port 9000 --tls-cert c.pem --tls-key k.pem"#
        );
        assert_eq!(shell_quote("it's", false), r"'it'\''s'");
        assert_eq!(shell_quote("/plain/path.db", false), "/plain/path.db");
        assert_eq!(shell_quote("", false), "''");
    }
}
