//! Connections the mock can cut with a TCP reset, the way a crashed proxy or a dropped NAT entry
//! ends a request: the client has sent everything and gets no answer at all, not even a status.
//!
//! A handler cannot reach its socket, so it asks for the reset by putting [`RESET_HEADER`] on its
//! response. The stream below sees that header in the first bytes hyper writes, sets a zero linger
//! time (so closing sends RST instead of FIN) and fails the write, which makes hyper drop the
//! connection without sending a byte of the response.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The response header that asks for a reset. It never reaches the client.
pub(super) const RESET_HEADER: &str = "x-mock-reset";

/// What the header looks like in hyper's serialized response head.
const MARKER: &[u8] = b"\r\nx-mock-reset: 1\r\n";

/// A listener whose connections honour [`RESET_HEADER`].
pub(super) struct ResettableListener(pub TcpListener);

impl axum::serve::Listener for ResettableListener {
    type Io = ResettableStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.0.accept().await {
                Ok((stream, addr)) => return (ResettableStream { inner: stream, cut: false }, addr),
                // Out of file descriptors and the like: wait a little instead of spinning.
                Err(e) => {
                    tracing::debug!(error = %e, "the mock provider could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

pub(super) struct ResettableStream {
    inner: TcpStream,
    cut: bool,
}

fn reset_error() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionReset, "the mock reset this connection on purpose")
}

fn holds_marker(buf: &[u8]) -> bool {
    buf.windows(MARKER.len()).any(|w| w == MARKER)
}

impl AsyncRead for ResettableStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for ResettableStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.cut {
            return Poll::Ready(Err(reset_error()));
        }
        if holds_marker(buf) {
            self.cut = true;
            if let Err(e) = self.inner.set_zero_linger() {
                tracing::debug!(error = %e, "the mock could not set a zero linger time; the close will be a FIN");
            }
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    // hyper then writes the response head and the start of the body as one buffer, so the
    // marker is always inside a single `poll_write`.
    fn is_write_vectored(&self) -> bool {
        false
    }
}
