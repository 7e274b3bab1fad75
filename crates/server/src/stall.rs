//! The write timeout. hyper's HTTP/1 server has none: a client that sends requests and never reads
//! the answers keeps its connection (and its place) for as long as it likes. `WriteDeadline` wraps
//! the socket: when a write cannot go on because the operating system's send buffer is full, a
//! clock starts; any byte accepted stops it; if it runs out, the write fails with `TimedOut` and
//! hyper closes the connection. A connection with nothing to send (idle, or an event stream
//! between two events) never starts the clock.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A socket whose writes fail once they have made no progress for `limit`.
pub(super) struct WriteDeadline<I> {
    io: I,
    limit: Duration,
    /// Running while a write, flush or shutdown waits for room in the send buffer.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<I> WriteDeadline<I> {
    pub(super) fn new(io: I, limit: Duration) -> WriteDeadline<I> {
        WriteDeadline { io, limit, stalled: None }
    }

    /// The socket could not take bytes: start the clock if it is not running, and fail once it
    /// has run out. The clock's timer wakes this task, so a client that never reads is noticed
    /// even though the socket itself will never wake it.
    fn no_progress<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let limit = self.limit;
        let clock = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match clock.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing of its answer for {} seconds", limit.as_secs_f32()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<T>(&mut self, r: Poll<io::Result<T>>, moved: impl FnOnce(&T) -> bool) -> Poll<io::Result<T>> {
        if let Poll::Ready(Ok(v)) = &r {
            if moved(v) {
                self.stalled = None;
            }
        }
        r
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for WriteDeadline<I> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<I> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Pending => this.no_progress(cx),
            r => this.progressed(r, |n| *n > 0),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_write_vectored(cx, bufs) {
            Poll::Pending => this.no_progress(cx),
            r => this.progressed(r, |n| *n > 0),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_flush(cx) {
            Poll::Pending => this.no_progress(cx),
            r => this.progressed(r, |_| true),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_shutdown(cx) {
            Poll::Pending => this.no_progress(cx),
            r => r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reader_that_stops_reading_fails_the_write_and_one_that_reads_does_not() {
        // A pipe of 1 KiB: the writer fills it at once.
        let (a, mut b) = tokio::io::duplex(1024);
        let mut w = WriteDeadline::new(a, Duration::from_millis(200));
        let chunk = vec![7u8; 64 * 1024];
        let err = w.write_all(&chunk).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);

        // A reader that keeps reading, more slowly than the limit in total but never pausing
        // for that long, lets every byte through.
        let (a, b2) = tokio::io::duplex(1024);
        let mut w = WriteDeadline::new(a, Duration::from_secs(1));
        let reader = tokio::spawn(async move {
            let mut b2 = b2;
            let mut got = 0usize;
            let mut buf = [0u8; 512];
            while got < 8 * 1024 {
                tokio::time::sleep(Duration::from_millis(80)).await;
                got += b2.read(&mut buf).await.unwrap();
            }
            got
        });
        w.write_all(&vec![1u8; 8 * 1024]).await.unwrap();
        assert_eq!(reader.await.unwrap(), 8 * 1024);

        // Nothing to write: no clock runs, however long the connection stays open.
        let (a, _keep) = tokio::io::duplex(1024);
        let mut w = WriteDeadline::new(a, Duration::from_millis(50));
        tokio::time::sleep(Duration::from_millis(200)).await;
        w.write_all(b"keep-alive").await.unwrap();
        let _ = b.read(&mut [0u8; 16]).await;
    }
}
