//! `psebench bench serve-flood`: how much memory a review server takes on while several clients
//! push huge request bodies at it at once. The server runs in this process (a review session of
//! the demo data in a scratch store); each client sends its body in 64 KiB pieces from one shared
//! buffer, so the clients themselves hold almost nothing. Resident memory (VmRSS of
//! /proc/self/status) is sampled every 5 ms while the clients run.

use serde::Serialize;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use psebench::context::Engine;
use psebench::error::{ApiError, ApiResult};
use psebench::review::{ReviewCreateRequest, ReviewLinksRequest, ReviewSelection};
use psebench_server::{Limits, NoAssets, ServeOptions};

const PIECE: usize = 64 * 1024;

#[derive(Debug, Clone, Serialize)]
pub struct ServeFloodOptions {
    /// Clients sending at the same time.
    pub clients: usize,
    /// Body size each client tries to send, in MB (10^6 bytes).
    pub body_mb: u64,
}

impl Default for ServeFloodOptions {
    fn default() -> ServeFloodOptions {
        ServeFloodOptions { clients: 8, body_mb: 400 }
    }
}

/// One kind of request, sent by every client at once.
#[derive(Debug, Clone, Serialize)]
pub struct FloodCase {
    pub case: String,
    pub clients: usize,
    /// Body bytes the clients managed to hand to the operating system before the server answered
    /// or hung up (summed over clients; the server read at most a small part of them).
    pub sent_bytes: u64,
    /// The status line each client got ("closed" when the server hung up without an answer).
    pub answers: Vec<String>,
    pub seconds: f64,
    pub rss_before_kib: u64,
    pub rss_peak_kib: u64,
    pub rss_growth_kib: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServeFlood {
    pub options: ServeFloodOptions,
    pub cases: Vec<FloodCase>,
    /// Largest growth over all cases, in MiB.
    pub max_growth_mib: f64,
    /// The process's peak resident memory (VmHWM) at the end, in KiB.
    pub vm_hwm_kib: u64,
}

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn io_err(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("{what}: {e}"))
}

/// How a client frames its body and which token it shows.
#[derive(Clone, Copy)]
enum Framing {
    Declared,
    Chunked,
}

/// Send one huge request; returns (body bytes written, the status line or "closed").
async fn one_client(addr: SocketAddr, token: Option<String>, framing: Framing, body: u64) -> (u64, String) {
    let Ok(conn) = TcpStream::connect(addr).await else {
        return (0, "could not connect".into());
    };
    let (mut rd, mut wr) = conn.into_split();
    let answered = Arc::new(AtomicBool::new(false));
    let reader = {
        let answered = answered.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            let n = rd.read(&mut buf).await.unwrap_or(0);
            answered.store(true, Ordering::SeqCst);
            if n == 0 {
                "closed".to_string()
            } else {
                String::from_utf8_lossy(&buf[..n]).lines().next().unwrap_or("").to_string()
            }
        })
    };
    let auth = token.map(|t| format!("x-review-token: {t}\r\n")).unwrap_or_default();
    let length = match framing {
        Framing::Declared => format!("content-length: {body}\r\n"),
        Framing::Chunked => "transfer-encoding: chunked\r\n".to_string(),
    };
    let head = format!(
        "POST /api/review.answer HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n{auth}{length}\r\n"
    );
    static BLOCK: [u8; PIECE] = [b' '; PIECE];
    let chunk_head = format!("{PIECE:x}\r\n");
    let mut sent = 0u64;
    if wr.write_all(head.as_bytes()).await.is_ok() {
        while sent < body && !answered.load(Ordering::SeqCst) {
            let ok = match framing {
                Framing::Declared => wr.write_all(&BLOCK).await.is_ok(),
                Framing::Chunked => {
                    wr.write_all(chunk_head.as_bytes()).await.is_ok()
                        && wr.write_all(&BLOCK).await.is_ok()
                        && wr.write_all(b"\r\n").await.is_ok()
                }
            };
            if !ok {
                break;
            }
            sent += PIECE as u64;
        }
        if sent >= body && matches!(framing, Framing::Chunked) {
            let _ = wr.write_all(b"0\r\n\r\n").await;
        }
    }
    let answer = tokio::time::timeout(Duration::from_secs(30), reader)
        .await
        .map(|r| r.unwrap_or_else(|_| "failed".into()))
        .unwrap_or_else(|_| "no answer in 30 s".into());
    (sent, answer)
}

async fn flood(
    addr: SocketAddr,
    name: &str,
    opts: &ServeFloodOptions,
    token: Option<String>,
    framing: Framing,
) -> FloodCase {
    let before = status_kib("VmRSS:");
    let peak = Arc::new(AtomicU64::new(before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (peak.clone(), done.clone());
        tokio::spawn(async move {
            while !done.load(Ordering::SeqCst) {
                peak.fetch_max(status_kib("VmRSS:"), Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let started = Instant::now();
    let body = opts.body_mb * 1_000_000;
    let clients: Vec<_> =
        (0..opts.clients).map(|_| tokio::spawn(one_client(addr, token.clone(), framing, body))).collect();
    let mut sent = 0;
    let mut answers = Vec::new();
    for c in clients {
        let (s, a) = c.await.unwrap_or((0, "failed".into()));
        sent += s;
        answers.push(a);
    }
    let seconds = started.elapsed().as_secs_f64();
    peak.fetch_max(status_kib("VmRSS:"), Ordering::SeqCst);
    done.store(true, Ordering::SeqCst);
    let _ = sampler.await;
    let peak = peak.load(Ordering::SeqCst);
    FloodCase {
        case: name.to_string(),
        clients: opts.clients,
        sent_bytes: sent,
        answers,
        seconds,
        rss_before_kib: before,
        rss_peak_kib: peak,
        rss_growth_kib: peak.saturating_sub(before),
    }
}

/// Start a review server on a scratch store and flood it.
pub async fn run(dir: &std::path::Path, opts: &ServeFloodOptions) -> ApiResult<ServeFlood> {
    let engine = Engine::open(&dir.join("flood.db"))?;
    engine.demo_load()?;
    let session = engine
        .review_create(&ReviewCreateRequest {
            name: "Flood".into(),
            selection: ReviewSelection::Stratified { complete: 2, missing: 2, uncertain: 2, by_clause: false },
            reviewers: vec!["Ana".into()],
            overlap: Some(1),
            seed: Some(1),
            guidelines: None,
            rationale_from: None,
        })?
        .summary
        .session_id;
    let token = engine
        .review_links(&ReviewLinksRequest { session_id: session.clone(), reviewers: vec![], rotate: false })?
        .links
        .into_iter()
        .find_map(|l| l.token)
        .ok_or_else(|| ApiError::internal("no review link was made"))?;
    let so = ServeOptions {
        addr: "127.0.0.1:0".parse().map_err(|e| io_err("bad address", e))?,
        lan: false,
        review_session: Some(session),
        assets: std::sync::Arc::new(NoAssets),
        limits: Limits::default(),
        tls: None,
        owner_token: psebench_server::OwnerToken::generate()?,
    };
    let (addr_tx, addr_rx) = tokio::sync::oneshot::channel();
    let (quit_tx, quit_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(psebench_server::serve(
        engine,
        so,
        move |a| {
            let _ = addr_tx.send(a);
        },
        async move {
            let _ = quit_rx.await;
        },
    ));
    let addr = addr_rx.await.map_err(|e| io_err("the server did not start", e))?;
    // One ordinary call first, so the measured growth is the flood's, not the first request's.
    let warm = one_client(addr, Some(token.clone()), Framing::Declared, 0).await;
    tracing::debug!(answer = %warm.1, "warm-up call");
    let mut cases = Vec::new();
    let made_up = "0".repeat(64);
    for (name, tok, framing) in [
        ("no token, declared length", None, Framing::Declared),
        ("no token, chunked", None, Framing::Chunked),
        ("made-up token, chunked", Some(made_up), Framing::Chunked),
        ("valid reviewer token, chunked", Some(token.clone()), Framing::Chunked),
    ] {
        cases.push(flood(addr, name, opts, tok, framing).await);
    }
    let _ = quit_tx.send(());
    let _ = server.await;
    let max_growth_mib = cases.iter().map(|c| c.rss_growth_kib).max().unwrap_or(0) as f64 / 1024.0;
    Ok(ServeFlood { options: opts.clone(), cases, max_growth_mib, vm_hwm_kib: status_kib("VmHWM:") })
}
