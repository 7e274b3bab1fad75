//! How much and how long the server reads and writes: request body sizes, time limits, the
//! write timeout and the connection places. The values are named constants; `Limits` carries them
//! so tests can shrink them.
//!
//! Order of work for an API call: the headers arrive (within `header_read`), the caller is checked
//! from the headers alone, and only then is the body read, up to the caller's size limit and
//! within `body_read`. A body that is too large is refused from its declared length before any of
//! it is read.
//!
//! Connection places (`places.rs`, `listener.rs`): 64 shared places, of which one address holds
//! at most 32 (this computer counts as one address, and so does an IPv6 /64 network), and 16
//! reserved places whose requests must carry the owner's key or a reviewer's valid link; a request
//! without one there gets 503 and its connection is closed. A connection that finds no place at all
//! gets 503 at once. At most 80 sockets are open; further connections wait in the operating
//! system's queue. A client that stops reading its answers loses its place after `write_stall`.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::time::Duration;

use super::AppState;
use psebench::api::files::MAX_UPLOAD_BYTES;
use psebench::error::ApiError;

/// A reviewer's calls carry a token, an item number and at most a comment: 256 KiB leaves room
/// for a long comment (the engine caps notes at 20,000 characters, up to 80 KB in UTF-8) and
/// JSON escaping.
pub const REVIEWER_BODY_BYTES: usize = 256 * 1024;

/// The owner's largest call is an upload of `MAX_UPLOAD_BYTES` (200 MiB of file data). Files
/// travel base64-encoded inside JSON, which turns every 3 bytes into 4 characters, so the body may
/// be 4/3 of the data plus the file names and the other parameters (1 MiB is plenty for those).
pub const OWNER_BODY_BYTES: usize = MAX_UPLOAD_BYTES.div_ceil(3) * 4 + 1024 * 1024;

/// Time for a client to send a request's headers once it starts (and for the TLS handshake). A
/// browser sends its headers in one go; ten seconds is ample even on a poor wireless network.
/// An idle kept-alive connection is closed after the same time.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Time to receive a request body. Reviewer bodies are small; an owner upload of 267 MiB over
/// the loopback takes a few seconds even on a slow machine.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Time from the request's arrival to the response's headers for a reviewer: each reviewer call
/// is one small database read or write.
pub const REVIEW_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The same for the owner, whose calls can wait on a model provider for a whole batch (sorting or
/// translating anchors): long, but still bounded. The event stream (`/api/events`) has none.
pub const OWNER_REQUEST_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Shared connection places, taken in order of arrival. A browser opens about six per server; 64
/// serve several reviewers or tabs together.
pub const MAX_CONNECTIONS: usize = 64;

/// At most this many of the shared places go to one address, so that a few stalled connections
/// from one computer cannot take them all. Every loopback address (127.0.0.0/8 and ::1) counts as
/// one address, and an IPv6 address counts by its /64 network (one home or one computer usually has
/// a whole /64).
pub const PER_ADDRESS_CONNECTIONS: usize = MAX_CONNECTIONS / 2;

/// Places kept for callers who prove who they are. A connection goes there when its address holds
/// its share of the shared places or when all of them are taken. Each of its requests must carry
/// the owner's key (owner's server: `Authorization: Bearer`, the cookie of the printed link, or the
/// link itself) or a valid reviewer link of the served review (`x-review-token`, Bearer, or the
/// `/review/TOKEN` page); otherwise it gets 503 and the connection is closed. On the owner's server
/// every client comes from 127.0.0.1, so telling addresses apart cannot protect the owner there;
/// the key can. A connection that finds no place free at all gets 503 at once and is closed.
pub const RESERVED_CONNECTIONS: usize = 16;

/// A client that stops reading its answers is cut off: when the bytes of a response make no
/// progress for this long (the operating system's send buffer stays full), the connection is
/// closed and its place freed. A slow network still moves some bytes in that time; an idle event
/// stream writes nothing it cannot send and is never cut for being idle.
pub const WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a connection that found no place may take to receive its 503 before it is dropped.
pub const REFUSAL_TIME: Duration = Duration::from_secs(1);

/// On shutdown, how long open connections get to finish before the server stops anyway (an open
/// event stream would otherwise keep it running).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The limits one server applies (`Limits::default()` holds the constants above).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    pub header_read: Duration,
    pub body_read: Duration,
    pub review_request: Duration,
    pub owner_request: Duration,
    /// Shared connection places.
    pub max_connections: usize,
    /// Shared places one address may hold.
    pub per_address_connections: usize,
    /// Places for requests that prove their caller (owner key or reviewer link).
    pub reserved_connections: usize,
    /// Time a response may make no progress before its connection is closed.
    pub write_stall: Duration,
    pub reviewer_body_bytes: usize,
    pub owner_body_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read: HEADER_READ_TIMEOUT,
            body_read: BODY_READ_TIMEOUT,
            review_request: REVIEW_REQUEST_TIMEOUT,
            owner_request: OWNER_REQUEST_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            per_address_connections: PER_ADDRESS_CONNECTIONS,
            reserved_connections: RESERVED_CONNECTIONS,
            write_stall: WRITE_STALL_TIMEOUT,
            reviewer_body_bytes: REVIEWER_BODY_BYTES,
            owner_body_bytes: OWNER_BODY_BYTES,
        }
    }
}

pub(super) fn plain(status: StatusCode, message: String) -> Response {
    (status, Json(ApiError::invalid(message))).into_response()
}

fn too_large(max: usize) -> Response {
    let size = if max >= 1024 * 1024 {
        format!("{} MB", max.div_ceil(1024 * 1024))
    } else {
        format!("{} KB", max.div_ceil(1024))
    };
    plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("The request is larger than this server accepts ({size}); nothing was saved."),
    )
}

/// Read a request body of at most `max` bytes within `within`, after the caller was admitted.
// axum's `Response` is what the handler returns on failure; boxing it here would only move it.
#[allow(clippy::result_large_err)]
pub(super) async fn read_body(
    body: Body,
    headers: &HeaderMap,
    max: usize,
    within: Duration,
) -> Result<Vec<u8>, Response> {
    let declared = declared_length(headers);
    if declared.is_some_and(|n| n > max as u64) {
        return Err(closing(too_large(max)));
    }
    let read = async {
        // Reserve at most 1 MiB up front: a declared length is only a promise.
        let mut buf = Vec::with_capacity(declared.unwrap_or(0).min(1 << 20) as usize);
        let mut stream = body.into_data_stream();
        while let Some(chunk) = futures::StreamExt::next(&mut stream).await {
            let chunk = chunk.map_err(|e| {
                plain(StatusCode::BAD_REQUEST, format!("The request body could not be read ({e}); please try again."))
            })?;
            if buf.len() + chunk.len() > max {
                return Err(too_large(max));
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(buf)
    };
    let refused = match tokio::time::timeout(within, read).await {
        Ok(Ok(buf)) => return Ok(buf),
        Ok(Err(r)) => r,
        Err(_) => plain(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "The request body did not arrive within {} seconds; check the network connection and try again.",
                within.as_secs()
            ),
        ),
    };
    Err(closing(refused))
}

/// An answer given without reading the request's body (the caller was refused from its headers):
/// when the request has a body, the connection closes after the answer, as below.
pub(super) fn refused_unread(r: Response, headers: &HeaderMap) -> Response {
    if headers.contains_key(header::TRANSFER_ENCODING) || declared_length(headers).is_some_and(|n| n > 0) {
        closing(r)
    } else {
        r
    }
}

/// The body length a request declares (`Content-Length`), if it declares a readable one.
fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok())
}

/// A refusal sent before the request's body was read to its end: the rest of the body may still be
/// on its way, so the connection cannot carry another request and is closed after this answer. The
/// header tells the client not to reuse it (a pooled client would otherwise send its next request
/// into a closing connection).
fn closing(mut r: Response) -> Response {
    r.headers_mut().insert(header::CONNECTION, axum::http::HeaderValue::from_static("close"));
    r
}

/// Middleware: answer every request (except the long-lived event stream) within the request
/// time limit of its server.
pub(super) async fn time_limit(State(st): State<AppState>, req: Request<Body>, next: Next) -> Response {
    if req.uri().path() == "/api/events" {
        return next.run(req).await;
    }
    let limit =
        if st.opts.review_session.is_some() { st.opts.limits.review_request } else { st.opts.limits.owner_request };
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => {
            tracing::warn!(seconds = limit.as_secs(), "a request took longer than its time limit and was stopped");
            plain(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("The request took longer than {} seconds and was stopped; please try again.", limit.as_secs()),
            )
        }
    }
}
