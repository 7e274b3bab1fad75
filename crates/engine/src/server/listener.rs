//! The accept loop of `psebench serve`: at most `max_connections` connections at once (the next
//! ones wait in the operating system's queue), a time limit on each request's headers and on the
//! TLS handshake, optional HTTPS, and a graceful stop that waits a bounded time for open
//! connections.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio_rustls::TlsAcceptor;

use super::limits::{Limits, SHUTDOWN_GRACE};

/// Serve `app` on `listener` until `shutdown` resolves.
pub(super) async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let cap = limits.max_connections.max(1);
    let permits = Arc::new(Semaphore::new(cap));
    let (closing_tx, closing_rx) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        // Take a place before accepting: while every place is taken, new connections stay in the
        // kernel's queue and cost this process nothing.
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => match p {
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
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let tls = tls.clone();
        let closing = closing_rx.clone();
        let header_read = limits.header_read;
        tokio::spawn(async move {
            let _place = permit;
            match tls {
                None => serve_connection(stream, app, header_read, closing).await,
                Some(acceptor) => match tokio::time::timeout(header_read, acceptor.accept(stream)).await {
                    Ok(Ok(tls_stream)) => serve_connection(tls_stream, app, header_read, closing).await,
                    Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                    Err(_) => tracing::debug!(%peer, "TLS handshake took too long; connection closed"),
                },
            }
        });
    }
    let _ = closing_tx.send(true);
    // Every connection gives its place back when it ends; wait for all of them, for a while.
    let all = u32::try_from(cap).unwrap_or(u32::MAX);
    if tokio::time::timeout(SHUTDOWN_GRACE, permits.acquire_many(all)).await.is_err() {
        tracing::info!("some connections were still open when the server stopped");
    }
}

async fn serve_connection<I>(io: I, app: Router, header_read: std::time::Duration, mut closing: watch::Receiver<bool>)
where
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
                tracing::debug!(error = %e, "connection ended with an error");
            }
        }
        _ = stop_asked => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}
