//! The accept loop of `psebench serve`: connection places (`places.rs`) with a hard cap on open
//! sockets (the next connections wait in the operating system's queue), a time limit on each
//! request's headers and on the TLS handshake, a write timeout for clients that stop reading
//! (`stall.rs`), optional HTTPS, and a graceful stop that waits a bounded time for open
//! connections.

use axum::middleware;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tokio_rustls::TlsAcceptor;

use super::limits::{Limits, REFUSAL_TIME, SHUTDOWN_GRACE};
use super::places::{self, Kind, Places, Proof};
use super::stall::WriteDeadline;
use psebench::error::ApiError;

/// Serve `app` on `listener` until `shutdown` resolves. Requests on reserved places must show
/// `proof`.
pub(super) async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    tls: Option<TlsAcceptor>,
    proof: Proof,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let shared = limits.max_connections.max(1);
    let places = Places::new(shared, limits.per_address_connections.max(1), limits.reserved_connections);
    // Every open socket holds one of these, whatever place it got: at most this many are open.
    let sockets_cap = shared + limits.reserved_connections;
    let sockets = Arc::new(Semaphore::new(sockets_cap));
    let reserved_app = app.clone().layer(middleware::from_fn_with_state(proof, places::require_proof));
    let (closing_tx, closing_rx) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        // Take a socket before accepting: while every one is taken, new connections stay in the
        // kernel's queue and cost this process nothing.
        let socket = tokio::select! {
            p = sockets.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!(error = %e, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let place = places.take(peer.ip());
        let app = match place.kind() {
            Kind::Shared => app.clone(),
            Kind::Reserved => reserved_app.clone(),
            Kind::Refused => {
                tracing::debug!(%peer, "no connection place free; connection refused");
                let plain = tls.is_none();
                tokio::spawn(async move {
                    let _socket = socket;
                    let _ = tokio::time::timeout(REFUSAL_TIME, refuse(stream, plain)).await;
                });
                continue;
            }
        };
        let stream = WriteDeadline::new(stream, limits.write_stall);
        let tls = tls.clone();
        let closing = closing_rx.clone();
        let header_read = limits.header_read;
        tokio::spawn(async move {
            let _held = (socket, place);
            match tls {
                None => serve_connection(stream, app, header_read, closing, peer).await,
                Some(acceptor) => match tokio::time::timeout(header_read, acceptor.accept(stream)).await {
                    Ok(Ok(tls_stream)) => serve_connection(tls_stream, app, header_read, closing, peer).await,
                    Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                    Err(_) => tracing::debug!(%peer, "TLS handshake took too long; connection closed"),
                },
            }
        });
    }
    let _ = closing_tx.send(true);
    // Every connection gives its socket back when it ends; wait for all of them, for a while.
    let all = u32::try_from(sockets_cap).unwrap_or(u32::MAX);
    if tokio::time::timeout(SHUTDOWN_GRACE, sockets.acquire_many(all)).await.is_err() {
        tracing::info!("some connections were still open when the server stopped");
    }
}

/// Answer a connection that found no place with 503 and close it. What the client already sent
/// is read first (without waiting for more), so that closing does not reset the connection before
/// the answer arrives. Over HTTPS the connection is only closed: a plain answer would mean nothing.
async fn refuse(mut stream: TcpStream, plain: bool) {
    if !plain {
        return;
    }
    let mut buf = [0u8; 4096];
    for _ in 0..16 {
        match stream.try_read(&mut buf) {
            Ok(n) if n > 0 => continue,
            _ => break,
        }
    }
    let body = serde_json::to_vec(&ApiError::invalid(places::BUSY_MESSAGE)).unwrap_or_default();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(head.as_bytes()).await.is_ok() && stream.write_all(&body).await.is_ok() {
        let _ = stream.shutdown().await;
        // Wait briefly for the client to close its side, so that our close does not reset it.
        let _ = stream.read(&mut buf).await;
    }
}

async fn serve_connection<I>(
    io: I,
    app: Router,
    header_read: Duration,
    mut closing: watch::Receiver<bool>,
    peer: SocketAddr,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(header_read);
    let conn = builder.serve_connection(TokioIo::new(io), TowerToHyperService::new(app));
    tokio::pin!(conn);
    let stop_asked = async move {
        // The guard `wait_for` returns is dropped here, not held across the shutdown below.
        let _ = closing.wait_for(|c| *c).await;
    };
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        }
        _ = stop_asked => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}
