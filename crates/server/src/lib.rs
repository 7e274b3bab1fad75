//! `psebench serve`: the same API and UI as the desktop app, over HTTP.
//!
//! - `POST /api/<method>` with the method's parameters as a JSON body answers with the result as
//!   JSON, or with `{code, message, detail}` and a matching HTTP status.
//! - `GET /api/events` streams job progress (`event: progress`) and the kinds of stored data that
//!   changed, here or in another process on the same store (`event: change`), as server-sent events.
//! - Everything else serves the built UI (unknown paths get `index.html`, so links into the app
//!   work).
//!
//! Safety: by default the server listens on 127.0.0.1 only and answers only requests addressed to
//! a loopback host name (a web page cannot reach it through DNS tricks) whose `Origin`, when
//! present, is the server itself (a web page cannot make your browser call it). Listening on other
//! addresses needs the explicit LAN option and is only offered for a review session, where every
//! API call needs a reviewer's personal token and can reach only that reviewer's assignment.
//! The owner's server needs the key of its printed link on every API call (see `owner_auth`).
//!
//! Bounds (`limits.rs`, `listener.rs`): the caller is checked from the headers before a body is
//! read, bodies have a size and a time limit, requests a time limit, and connections a cap.
//! `tls.rs` serves HTTPS when a certificate and key are given.

mod assets;
mod event_stream;
pub mod limits;
mod listener;
mod owner_auth;
mod places;
mod stall;
pub mod tls;

pub use assets::{mime_for, Asset, Assets, EmbeddedAssets, FolderAssets, NoAssets};
pub use limits::Limits;
pub use owner_auth::{write_open_page, write_token_file, OwnerToken, LINK_FRAGMENT_KEY, MISSING_KEY_MESSAGE};
pub use tls::TlsFiles;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;

use psebench::api::rpc::{self, Caller};
use psebench::api::Engine;
use psebench::error::{ApiError, ApiResult, ErrorCode};
use psebench::review::sharing::{ShareError, ShareListener, SharePlan, ShareServer, ShareStart};

/// How the server runs.
#[derive(Clone)]
pub struct ServeOptions {
    /// Address to listen on (127.0.0.1 unless `lan`).
    pub addr: SocketAddr,
    /// Listen beyond this computer (review sessions only).
    pub lan: bool,
    /// Serve only the review of this session: API calls need a reviewer token.
    pub review_session: Option<String>,
    pub assets: Arc<dyn Assets>,
    /// The owner's key for this launch: every API call needs it (unused by a review server).
    pub owner_token: OwnerToken,
    /// Body sizes, time limits and the connection cap (`Limits::default()` outside tests).
    pub limits: Limits,
    /// Serve HTTPS with this certificate and key instead of plain HTTP.
    pub tls: Option<TlsFiles>,
}

#[derive(Clone)]
struct AppState {
    engine: Engine,
    opts: ServeOptions,
}

/// The HTTP status that goes with an error code.
pub fn status_for(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::InvalidInput | ErrorCode::ValidationFailed => StatusCode::BAD_REQUEST,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Cancelled => StatusCode::CONFLICT,
        ErrorCode::Provider => StatusCode::BAD_GATEWAY,
        ErrorCode::Secrets | ErrorCode::KeyringUnavailable => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StoreFailed | ErrorCode::Io | ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn error_response(e: ApiError) -> Response {
    (status_for(e.code), Json(e)).into_response()
}

fn forbidden(message: &str) -> Response {
    error_response(ApiError::new(ErrorCode::Forbidden, message))
}

fn is_loopback_host(host: &str) -> bool {
    let h = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host)
    };
    h == "localhost"
        || h.ends_with(".localhost")
        || h.parse::<std::net::IpAddr>().map(|ip| ip.is_loopback()).unwrap_or(false)
}

/// The Content-Security-Policy of every response: the desktop app's policy (tauri.conf.json
/// `app.security.csp`) with `connect-src` pointed at this server instead of the app's IPC, plus
/// no framing, no `<base>` and forms only to this origin.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data: blob:; \
     style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; \
     base-uri 'none'; form-action 'self'";

/// Refuse requests addressed to a foreign host name or sent by a page of another origin.
async fn guard(State(st): State<AppState>, req: Request<Body>, next: Next) -> Response {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("").to_string();
    if !st.opts.lan && !is_loopback_host(&host) {
        return forbidden("This server only answers requests addressed to this computer (127.0.0.1 or localhost).");
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        let same = origin == format!("http://{host}") || origin == format!("https://{host}");
        if !same {
            return forbidden("Requests from other web sites are refused.");
        }
    }
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    resp
}

// axum's `Response` is what every handler returns on failure; boxing it here would only move it.
#[allow(clippy::result_large_err)]
fn caller(st: &AppState, headers: &HeaderMap) -> Result<Caller, Response> {
    if st.opts.review_session.is_none() {
        // The owner's server: the key (checked by `owner_auth::require_owner`) makes the owner; a
        // reviewer's link opened here calls as that reviewer, with its token and nothing more.
        if owner_auth::presented_keys(headers).into_iter().any(|k| st.opts.owner_token.matches(k)) {
            return Ok(Caller::Owner);
        }
        return match owner_auth::reviewer_token(headers) {
            Some(t) => Ok(Caller::Reviewer { token: t.to_string(), session: None }),
            None => Err(error_response(ApiError::new(ErrorCode::Unauthorized, MISSING_KEY_MESSAGE))),
        };
    }
    let token = headers
        .get("x-review-token")
        .and_then(|v| v.to_str().ok())
        .or_else(|| {
            headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "))
        })
        .map(str::trim)
        .filter(|t| !t.is_empty());
    match token {
        Some(t) => Ok(Caller::Reviewer { token: t.to_string(), session: st.opts.review_session.clone() }),
        None => Err(forbidden("Open your personal review link to take part in this review.")),
    }
}

async fn api_call(State(st): State<AppState>, Path(method): Path<String>, req: Request<Body>) -> Response {
    // Who is calling is decided from the headers alone, before any of the body is read.
    let (parts, body) = req.into_parts();
    let who = match caller(&st, &parts.headers) {
        Ok(c) => c,
        Err(r) => return limits::refused_unread(r, &parts.headers),
    };
    let max = match &who {
        Caller::Owner | Caller::Cli => st.opts.limits.owner_body_bytes,
        Caller::Reviewer { token, session } => {
            if let Err(e) = rpc::check_reviewer(&st.engine, token, session.as_deref()).await {
                return limits::refused_unread(error_response(e), &parts.headers);
            }
            st.opts.limits.reviewer_body_bytes
        }
    };
    let body = match limits::read_body(body, &parts.headers, max, st.opts.limits.body_read).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let params: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => return error_response(ApiError::invalid(format!("The request body is not valid JSON: {e}"))),
        }
    };
    drop(body);
    match rpc::call(&st.engine, &who, &method, params).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => error_response(e),
    }
}

/// On a review server, the caller must hold a reviewer's token that opens the review being
/// served; the owner's server has already checked its key (`owner_auth::require_owner`).
async fn check_caller(st: &AppState, headers: &HeaderMap) -> Result<Caller, Response> {
    let who = caller(st, headers)?;
    if let Caller::Reviewer { token, session } = &who {
        rpc::check_reviewer(&st.engine, token, session.as_deref()).await.map_err(error_response)?;
    }
    Ok(who)
}

async fn api_methods(State(st): State<AppState>, headers: HeaderMap) -> Response {
    let who = match check_caller(&st, &headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    // A reviewer sees only what a review link may call. Old names are not methods of their own:
    // each method carries the ones that still call it.
    let allowed = |name: &str| matches!(who, Caller::Owner) || rpc::REVIEWER_METHODS.contains(&name);
    let list: Vec<Value> = rpc::METHODS
        .iter()
        .filter(|(n, _)| allowed(n))
        .map(|(n, d)| {
            let old: Vec<&str> = rpc::aliases_of(n).collect();
            if old.is_empty() {
                serde_json::json!({"method": n, "summary": d})
            } else {
                serde_json::json!({"method": n, "summary": d, "aliases": old})
            }
        })
        .collect();
    Json(list).into_response()
}

async fn events(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if st.opts.review_session.is_some() {
        // Reviewers have no long jobs to follow and are told of no changes (those would say what
        // others do in the store); a token that opens nothing here is refused.
        if let Err(r) = check_caller(&st, &headers).await {
            return r;
        }
        return StatusCode::NO_CONTENT.into_response();
    }
    let rx = st.engine.jobs().subscribe();
    let initial = st.engine.jobs().active();
    let changes = match st.engine.change_events() {
        Ok(rx) => Some(rx),
        Err(e) => {
            // Progress still flows; pages show other changes when they reload.
            tracing::warn!(error = %e, "changes to the store cannot be followed on this event stream");
            None
        }
    };
    let stream = event_stream::events(initial, rx, changes);
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

async fn static_file(State(st): State<AppState>, method: Method, uri: axum::http::Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let path = uri.path().trim_start_matches('/');
    let asset = st.opts.assets.get(if path.is_empty() { "index.html" } else { path }).or_else(|| {
        // Client-side routes (no file extension) get the app itself.
        let last = path.rsplit('/').next().unwrap_or("");
        if last.contains('.') {
            None
        } else {
            st.opts.assets.get("index.html")
        }
    });
    match asset {
        Some(a) => {
            let cache = if a.path == "index.html" { "no-cache" } else { "public, max-age=31536000, immutable" };
            ([(header::CONTENT_TYPE, a.mime), (header::CACHE_CONTROL, cache)], a.bytes).into_response()
        }
        None if path.is_empty() || path == "index.html" => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!doctype html><title>PSEBench Studio</title><p>The user interface is not part of this build. \
             Build it with <code>npm --prefix ui run build</code> and rebuild psebench, or use the desktop app.</p>",
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The routes, ready to serve (tests drive this directly).
pub fn router(engine: Engine, opts: ServeOptions) -> Router {
    let owner = opts.review_session.is_none().then(|| opts.owner_token.clone());
    let st = AppState { engine, opts };
    let mut app = Router::new()
        .route("/api/events", get(events))
        .route("/api/_methods", get(api_methods))
        .route("/api/{method}", post(api_call));
    if let Some(token) = &owner {
        // Only the API routes need the key (checked before any body is read); the UI stays public.
        app = app.route_layer(middleware::from_fn_with_state(token.clone(), owner_auth::require_owner));
    }
    app = app.fallback(static_file).layer(middleware::from_fn_with_state(st.clone(), limits::time_limit));
    if let Some(token) = owner {
        app = app.layer(middleware::from_fn_with_state(token, owner_auth::accept_link));
    }
    app.layer(middleware::from_fn_with_state(st.clone(), guard)).with_state(st)
}

/// Check the options before binding anything.
pub fn check_options(opts: &ServeOptions) -> ApiResult<()> {
    let ip = opts.addr.ip();
    if !ip.is_loopback() && !opts.lan {
        return Err(ApiError::invalid(format!(
            "Listening on {ip} would let other computers reach this store. Use 127.0.0.1, or --lan for a review session."
        )));
    }
    if opts.lan && opts.review_session.is_none() {
        return Err(ApiError::invalid(
            "--lan is only for review sessions (add --review SESSION): the full app must stay on this computer.",
        ));
    }
    Ok(())
}

/// A bound listener with its TLS side, ready to serve.
struct Bound {
    listener: tokio::net::TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    addr: SocketAddr,
}

/// Why binding failed: the options or the certificate (an error to show as is), or the address.
enum BindError {
    Refused(ApiError),
    Listen(std::io::Error),
}

/// Check the options, read the certificate and bind the address.
async fn bind(opts: &ServeOptions) -> Result<Bound, BindError> {
    check_options(opts).map_err(BindError::Refused)?;
    let tls = opts.tls.as_ref().map(tls::acceptor).transpose().map_err(BindError::Refused)?;
    let listener = tokio::net::TcpListener::bind(opts.addr).await.map_err(BindError::Listen)?;
    let addr = listener.local_addr().map_err(BindError::Listen)?;
    Ok(Bound { listener, tls, addr })
}

/// Serve on a bound listener until `shutdown` resolves.
async fn run_bound(
    engine: Engine,
    opts: ServeOptions,
    bound: Bound,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let Bound { listener, tls, addr } = bound;
    tracing::info!(%addr, lan = opts.lan, https = tls.is_some(), review_session = ?opts.review_session, store = %engine.store().path().display(), "server started");
    let limits = opts.limits.clone();
    let proof = places::Proof::for_server(&engine, &opts);
    listener::run(listener, router(engine, opts), limits, tls, proof, shutdown).await;
    tracing::info!(%addr, "server stopped");
}

/// Bind and serve until `shutdown` resolves. `ready` is called with the bound address.
///
/// The owner's server (no `review_session`) can also serve review sessions' reviewer links on a
/// second listener of their own ("Share", see [`enable_review_sharing`]); those stop with it.
pub async fn serve(
    engine: Engine,
    opts: ServeOptions,
    ready: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> ApiResult<()> {
    let bound = bind(&opts).await.map_err(|e| match e {
        BindError::Refused(e) => e,
        BindError::Listen(e) => ApiError::new(
            ErrorCode::Io,
            format!("Could not listen on {}: {e}. Is another program using that port? Try --port 0.", opts.addr),
        ),
    })?;
    ready(bound.addr);
    let owner = opts.review_session.is_none();
    if owner {
        enable_review_sharing(&engine, opts.assets.clone(), opts.limits.clone());
        psebench::api::rpc::resume_batch_runs(&engine);
    }
    run_bound(engine.clone(), opts, bound, shutdown).await;
    if owner {
        engine.review_share_stop_all().await;
    }
    Ok(())
}

/// Starts the listeners that serve a review session's reviewer links (review servers, the same
/// as `psebench serve --review`), for the engine's "Share".
struct ReviewListeners {
    assets: Arc<dyn Assets>,
    limits: Limits,
}

impl ShareServer for ReviewListeners {
    fn start(&self, engine: Engine, plan: SharePlan) -> ShareStart {
        let assets = self.assets.clone();
        let limits = self.limits.clone();
        Box::pin(async move {
            let port = plan.addr.port();
            let opts = ServeOptions {
                addr: plan.addr,
                lan: plan.lan,
                review_session: Some(plan.session_id),
                assets,
                // A review server never looks at the owner's key; this one is random and unused.
                owner_token: OwnerToken::generate()?,
                limits,
                tls: plan.tls.map(|(cert, key)| TlsFiles { cert, key }),
            };
            let bound = bind(&opts).await.map_err(|e| match e {
                BindError::Refused(e) => e,
                BindError::Listen(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                    ApiError::from(ShareError::PortInUse { port })
                }
                BindError::Listen(e) => ApiError::from(ShareError::PortRefused { port, reason: e.to_string() }),
            })?;
            let addr = bound.addr;
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let done = tokio::spawn(run_bound(engine, opts, bound, async move {
                let _ = stopped.await;
            }));
            Ok(ShareListener { addr, stop, done })
        })
    }
}

/// Let `engine` serve review sessions' reviewer links from this program ("Share" in the app), with
/// the user interface from `assets`. The desktop app calls this at start; `serve` does it for the
/// owner's server. Must be called where a tokio runtime runs the listeners (the app's, the server's).
pub fn enable_review_sharing(engine: &Engine, assets: Arc<dyn Assets>, limits: Limits) {
    engine.review_share_enable(Arc::new(ReviewListeners { assets, limits }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    const TEST_KEY: &str = "the-owner-key-of-these-tests";

    fn app(review: Option<&str>, lan: bool) -> Router {
        let e = Engine::open_in_memory().unwrap();
        router(
            e,
            ServeOptions {
                addr: "127.0.0.1:0".parse().unwrap(),
                lan,
                review_session: review.map(str::to_string),
                assets: Arc::new(NoAssets),
                owner_token: OwnerToken::from_text(TEST_KEY),
                limits: Limits::default(),
                tls: None,
            },
        )
    }

    fn post(path: &str, host: &str, origin: Option<&str>) -> Request<Body> {
        let mut b =
            Request::builder().method("POST").uri(path).header("host", host).header("content-type", "application/json");
        if let Some(o) = origin {
            b = b.header("origin", o);
        }
        b.body(Body::from("{}")).unwrap()
    }

    /// A request of the owner's app: it carries the key.
    fn owner_post(path: &str, host: &str, origin: Option<&str>) -> Request<Body> {
        let mut r = post(path, host, origin);
        r.headers_mut().insert(header::AUTHORIZATION, HeaderValue::from_str(&format!("Bearer {TEST_KEY}")).unwrap());
        r
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn local_calls_work_and_foreign_hosts_or_origins_are_refused() {
        let a = app(None, false);
        let ok = a.clone().oneshot(owner_post("/api/store.info", "127.0.0.1:8080", None)).await.unwrap();
        assert_eq!(ok.status(), StatusCode::OK);
        let same = a
            .clone()
            .oneshot(owner_post("/api/store.info", "localhost:8080", Some("http://localhost:8080")))
            .await
            .unwrap();
        assert_eq!(same.status(), StatusCode::OK);
        let rebinding = a.clone().oneshot(owner_post("/api/store.info", "evil.example:8080", None)).await.unwrap();
        assert_eq!(rebinding.status(), StatusCode::FORBIDDEN);
        let cross = a
            .clone()
            .oneshot(owner_post("/api/store.info", "127.0.0.1:8080", Some("http://evil.example")))
            .await
            .unwrap();
        assert_eq!(cross.status(), StatusCode::FORBIDDEN);
        let unknown = a.oneshot(owner_post("/api/no.such", "127.0.0.1:8080", None)).await.unwrap();
        assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_ui_is_served_with_the_content_security_policy() {
        static FILES: &[(&str, &[u8])] =
            &[("index.html", b"<!doctype html><div id=root></div>"), ("assets/app.js", b"console.log(1)")];
        let opts = ServeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            lan: false,
            review_session: None,
            assets: Arc::new(assets::EmbeddedAssets(FILES)),
            owner_token: OwnerToken::from_text(TEST_KEY),
            limits: Limits::default(),
            tls: None,
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(
            Engine::open_in_memory().unwrap(),
            opts,
            move |addr| {
                let _ = tx.send(addr);
            },
            async move {
                let _ = stopped.await;
            },
        ));
        let addr = rx.await.unwrap();
        let http = reqwest::Client::new();
        for path in ["/", "/results", "/assets/app.js"] {
            let r = http.get(format!("http://{addr}{path}")).send().await.unwrap();
            assert_eq!(r.status(), reqwest::StatusCode::OK, "{path}");
            let csp = r.headers().get("content-security-policy").and_then(|v| v.to_str().ok()).unwrap_or("");
            assert_eq!(csp, CONTENT_SECURITY_POLICY, "{path}");
        }
        let api =
            http.post(format!("http://{addr}/api/store.info")).bearer_auth(TEST_KEY).body("{}").send().await.unwrap();
        assert!(api.headers().contains_key("content-security-policy"));
        for directive in ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"] {
            assert!(CONTENT_SECURITY_POLICY.contains(directive), "{directive}");
        }
        stop.send(()).unwrap();
        server.await.unwrap().unwrap();
    }

    /// The served policy keeps every directive of the desktop app's policy except `connect-src`
    /// (the app talks over IPC, the browser to this server).
    #[test]
    fn the_served_policy_follows_the_desktop_app() {
        let conf: serde_json::Value = serde_json::from_str(include_str!("../../../tauri.conf.json")).unwrap();
        let app = conf["app"]["security"]["csp"].as_str().unwrap();
        for directive in app.split(';').map(str::trim).filter(|d| !d.is_empty() && !d.starts_with("connect-src")) {
            assert!(CONTENT_SECURITY_POLICY.split("; ").any(|d| d == directive), "missing: {directive}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_review_server_needs_a_token_and_refuses_owner_methods() {
        let a = app(Some("s1"), true);
        let none = a.clone().oneshot(post("/api/store.info", "192.168.1.5:8080", None)).await.unwrap();
        assert_eq!(none.status(), StatusCode::FORBIDDEN);
        let mut with_token = post("/api/store.info", "192.168.1.5:8080", None);
        with_token.headers_mut().insert("x-review-token", HeaderValue::from_static("abc"));
        assert_eq!(a.oneshot(with_token).await.unwrap().status(), StatusCode::FORBIDDEN);
    }

    async fn body_json(r: Response) -> serde_json::Value {
        let b = axum::body::to_bytes(r.into_body(), 1 << 24).await.unwrap();
        serde_json::from_slice(&b).unwrap_or(serde_json::Value::Null)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn review_links_reach_only_their_own_session() {
        use psebench::review::{ReviewCreateRequest, ReviewLinksRequest, ReviewSelection};
        let e = Engine::open_in_memory().unwrap();
        e.demo_load().unwrap();
        let mk = |name: &str| ReviewCreateRequest {
            name: name.into(),
            selection: ReviewSelection::Stratified { complete: 2, missing: 2, uncertain: 2, by_clause: false },
            reviewers: vec!["Ana".into(), "Ben".into()],
            overlap: Some(1),
            seed: Some(3),
            guidelines: None,
            rationale_from: None,
        };
        let s1 = e.review_create(&mk("first")).unwrap().summary.session_id;
        let s2 = e.review_create(&mk("second")).unwrap().summary.session_id;
        let token = |s: &str| {
            e.review_links(&ReviewLinksRequest { session_id: s.into(), reviewers: vec!["Ana".into()], rotate: false })
                .unwrap()
                .links[0]
                .token
                .clone()
                .unwrap()
        };
        let (t1, t2) = (token(&s1), token(&s2));
        let app = router(
            e.clone(),
            ServeOptions {
                addr: "0.0.0.0:0".parse().unwrap(),
                lan: true,
                review_session: Some(s1.clone()),
                assets: Arc::new(NoAssets),
                owner_token: OwnerToken::from_text(TEST_KEY),
                limits: Limits::default(),
                tls: None,
            },
        );
        let call = |tok: Option<&str>, origin: Option<&str>, method: &str| {
            let mut r = post(&format!("/api/{method}"), "192.168.1.5:8765", origin);
            if let Some(t) = tok {
                r.headers_mut().insert("x-review-token", HeaderValue::from_str(t).unwrap());
            }
            r
        };
        let ok = app.clone().oneshot(call(Some(&t1), None, "review.me")).await.unwrap();
        assert_eq!(ok.status(), StatusCode::OK);
        assert_eq!(body_json(ok).await["reviewer"], "Ana");
        let same_origin =
            app.clone().oneshot(call(Some(&t1), Some("http://192.168.1.5:8765"), "review.me")).await.unwrap();
        assert_eq!(same_origin.status(), StatusCode::OK);
        for (tok, origin, method) in [
            (Some(t2.as_str()), None, "review.me"), // a link of another review
            (Some(t1.as_str()), Some("http://evil.example"), "review.me"), // another web site
            (None, None, "review.me"),              // no link at all
            (Some("0".repeat(64).as_str()), None, "review.me"), // a made-up token
            (Some(t1.as_str()), None, "review.list"), // an owner method
            (Some(t1.as_str()), None, "cases.list"),
        ] {
            let r = app.clone().oneshot(call(tok, origin, method)).await.unwrap();
            assert_eq!(r.status(), StatusCode::FORBIDDEN, "{tok:?} {origin:?} {method}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_review_server_lists_and_streams_only_for_a_valid_reviewer_token() {
        use psebench::review::{ReviewCreateRequest, ReviewLinksRequest, ReviewSelection};
        let e = Engine::open_in_memory().unwrap();
        e.demo_load().unwrap();
        let req = ReviewCreateRequest {
            name: "served".into(),
            selection: ReviewSelection::Stratified { complete: 1, missing: 1, uncertain: 1, by_clause: false },
            reviewers: vec!["Ana".into()],
            overlap: None,
            seed: Some(5),
            guidelines: None,
            rationale_from: None,
        };
        let s1 = e.review_create(&req).unwrap().summary.session_id;
        let s2 = e.review_create(&ReviewCreateRequest { name: "other".into(), ..req }).unwrap().summary.session_id;
        let token = |s: &str| {
            e.review_links(&ReviewLinksRequest { session_id: s.into(), reviewers: vec![], rotate: false })
                .unwrap()
                .links[0]
                .token
                .clone()
                .unwrap()
        };
        let (good, of_other) = (token(&s1), token(&s2));
        let app = router(
            e.clone(),
            ServeOptions {
                addr: "0.0.0.0:0".parse().unwrap(),
                lan: true,
                review_session: Some(s1),
                assets: Arc::new(NoAssets),
                owner_token: OwnerToken::from_text(TEST_KEY),
                limits: Limits::default(),
                tls: None,
            },
        );
        let get = |path: &str, header: Option<(&str, String)>| {
            let mut b = Request::builder().method("GET").uri(path).header("host", "192.168.1.5:8765");
            if let Some((k, v)) = header {
                b = b.header(k, v);
            }
            b.body(Body::empty()).unwrap()
        };
        for path in ["/api/_methods", "/api/events"] {
            let refused = [
                None,
                Some(("x-review-token", "0".repeat(64))),
                Some(("authorization", "Bearer made-up".to_string())),
                Some(("x-review-token", of_other.clone())),
                // The owner's key means nothing to a review server.
                Some(("authorization", format!("Bearer {TEST_KEY}"))),
            ];
            for h in refused {
                let what = format!("{path} {h:?}");
                let r = app.clone().oneshot(get(path, h)).await.unwrap();
                assert!(
                    matches!(r.status(), StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED),
                    "{what}: {}",
                    r.status()
                );
                let body = body_json(r).await;
                assert!(body["code"] == "forbidden" || body["code"] == "unauthorized", "{what}: {body}");
                assert!(!body["message"].as_str().unwrap_or("").is_empty(), "{what}: {body}");
            }
        }
        let events = app.clone().oneshot(get("/api/events", Some(("x-review-token", good.clone())))).await.unwrap();
        assert_eq!(events.status(), StatusCode::NO_CONTENT);
        let listed = app.clone().oneshot(get("/api/_methods", Some(("authorization", format!("Bearer {good}"))))).await;
        let listed = listed.unwrap();
        assert_eq!(listed.status(), StatusCode::OK);
        let body = body_json(listed).await;
        let mut names: Vec<&str> = body.as_array().unwrap().iter().map(|m| m["method"].as_str().unwrap()).collect();
        names.sort_unstable();
        let mut expected = rpc::REVIEWER_METHODS.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);

        // The owner's server still lists every method to the owner.
        let owner = app_with_owner_list().await;
        assert_eq!(owner.len(), rpc::METHODS.len());
    }

    async fn app_with_owner_list() -> Vec<Value> {
        let r = app(None, false)
            .oneshot(
                Request::builder()
                    .uri("/api/_methods")
                    .header("host", "127.0.0.1:8765")
                    .header("authorization", format!("Bearer {TEST_KEY}"))
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        body_json(r).await.as_array().unwrap().clone()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn old_method_names_answer_over_http_and_are_listed_only_under_their_method() {
        let a = app(None, false);
        let old = a.clone().oneshot(owner_post("/api/policy.list", "127.0.0.1:8080", None)).await.unwrap();
        assert_eq!(old.status(), StatusCode::OK);
        let new = a.clone().oneshot(owner_post("/api/policies.list", "127.0.0.1:8080", None)).await.unwrap();
        assert_eq!(new.status(), StatusCode::OK);
        assert_eq!(body_json(old).await, body_json(new).await);
        let listed = app_with_owner_list().await;
        let names: Vec<&str> = listed.iter().map(|m| m["method"].as_str().unwrap()).collect();
        for (old, new) in rpc::ALIASES {
            assert!(!names.contains(old), "{old} is listed as a method");
            if rpc::is_cli_method(new) {
                assert!(!names.contains(new), "the command line's own methods are not served");
                continue;
            }
            let entry = listed.iter().find(|m| m["method"] == *new).unwrap();
            assert!(entry["aliases"].as_array().unwrap().iter().any(|a| a == old), "{entry}");
        }
        let plain = listed.iter().find(|m| m["method"] == "store.info").unwrap();
        assert!(plain.get("aliases").is_none(), "{plain}");
    }

    fn demo_session(e: &Engine, name: &str) -> (String, String) {
        use psebench::review::{ReviewCreateRequest, ReviewLinksRequest, ReviewSelection};
        let req = ReviewCreateRequest {
            name: name.into(),
            selection: ReviewSelection::Stratified { complete: 1, missing: 1, uncertain: 1, by_clause: false },
            reviewers: vec!["Ana".into()],
            overlap: None,
            seed: Some(5),
            guidelines: None,
            rationale_from: None,
        };
        let sid = e.review_create(&req).unwrap().summary.session_id;
        let token = e
            .review_links(&ReviewLinksRequest { session_id: sid.clone(), reviewers: vec![], rotate: false })
            .unwrap()
            .links[0]
            .token
            .clone()
            .unwrap();
        (sid, token)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_owners_server_takes_a_reviewer_link_to_its_questionnaire_and_nothing_else() {
        let e = Engine::open_in_memory().unwrap();
        e.demo_load().unwrap();
        let (_, token) = demo_session(&e, "opened here");
        let app = router(
            e,
            ServeOptions {
                addr: "127.0.0.1:0".parse().unwrap(),
                lan: false,
                review_session: None,
                assets: Arc::new(NoAssets),
                owner_token: OwnerToken::from_text(TEST_KEY),
                limits: Limits::default(),
                tls: None,
            },
        );
        let call = |tok: &str, method: &str| {
            let mut r = post(&format!("/api/{method}"), "127.0.0.1:8765", Some("http://127.0.0.1:8765"));
            r.headers_mut().insert("x-review-token", HeaderValue::from_str(tok).unwrap());
            r
        };
        let me = app.clone().oneshot(call(&token, "review.me")).await.unwrap();
        assert_eq!(me.status(), StatusCode::OK);
        assert_eq!(body_json(me).await["reviewer"], "Ana");
        // The token opens no owner method, and a made-up token opens nothing.
        for (tok, method, status) in [
            (token.as_str(), "review.list", StatusCode::UNAUTHORIZED),
            (token.as_str(), "store.info", StatusCode::UNAUTHORIZED),
            (token.as_str(), "review.share_start", StatusCode::UNAUTHORIZED),
            ("0".repeat(64).as_str(), "review.me", StatusCode::FORBIDDEN),
        ] {
            let r = app.clone().oneshot(call(tok, method)).await.unwrap();
            assert_eq!(r.status(), status, "{method}");
        }
        for path in ["/api/_methods", "/api/events"] {
            let r = Request::builder()
                .uri(path)
                .header("host", "127.0.0.1:8765")
                .header("x-review-token", token.as_str())
                .body(Body::empty())
                .unwrap();
            assert_eq!(app.clone().oneshot(r).await.unwrap().status(), StatusCode::UNAUTHORIZED, "{path}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn share_serves_a_sessions_links_until_stopped() {
        let e = Engine::open_in_memory().unwrap();
        e.demo_load().unwrap();
        let (sid, token) = demo_session(&e, "shared");
        let (other, other_token) = demo_session(&e, "not shared");
        let owner = |method: &str, params: Value| {
            let e = e.clone();
            let method = method.to_string();
            async move { rpc::call(&e, &Caller::Owner, &method, params).await }
        };
        // Without a listener to serve with, Start says what to run instead, naming the store.
        let err = owner("review.share_start", serde_json::json!({"session": sid, "port": 0})).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        assert!(err.message.contains(&format!("serve --review {sid}")), "{}", err.message);
        assert!(err.message.contains("--db "), "{}", err.message);

        enable_review_sharing(&e, Arc::new(NoAssets), Limits::default());
        let off = owner("review.share_status", serde_json::json!({"session": sid})).await.unwrap();
        assert_eq!(off["serving"], false);
        assert_eq!(off["available"], true);
        let on = owner("review.share_start", serde_json::json!({"session": sid, "port": 0})).await.unwrap();
        assert_eq!(on["serving"], true, "{on}");
        assert_eq!(on["lan"], false);
        let port = on["port"].as_u64().unwrap();
        let base = on["base_url"].as_str().unwrap().to_string();
        assert_eq!(base, format!("http://127.0.0.1:{port}"));
        assert_eq!(owner("review.share_status", serde_json::json!({"session": sid})).await.unwrap()["serving"], true);
        // Starting again changes nothing.
        let again = owner("review.share_start", serde_json::json!({"session": sid, "port": 0})).await.unwrap();
        assert_eq!(again["port"], on["port"]);

        let http = reqwest::Client::new();
        let call = |tok: Option<&str>, method: &str| {
            let mut r = http.post(format!("{base}/api/{method}")).body("{}");
            if let Some(t) = tok {
                r = r.header("x-review-token", t);
            }
            r.send()
        };
        let me = call(Some(&token), "review.me").await.unwrap();
        assert_eq!(me.status(), reqwest::StatusCode::OK);
        assert_eq!(me.json::<Value>().await.unwrap()["reviewer"], "Ana");
        for (tok, method) in [
            (Some(token.as_str()), "review.list"),
            (Some(token.as_str()), "store.info"),
            (Some(token.as_str()), "review.share_stop"),
            (Some(other_token.as_str()), "review.me"),
            (None, "review.me"),
        ] {
            let r = call(tok, method).await.unwrap();
            assert_eq!(r.status(), reqwest::StatusCode::FORBIDDEN, "{method} {tok:?}");
        }
        // The owner's key is nothing on the shared listener.
        let keyed = http.post(format!("{base}/api/store.info")).bearer_auth(TEST_KEY).body("{}").send().await.unwrap();
        assert_eq!(keyed.status(), reqwest::StatusCode::FORBIDDEN);

        // A second session cannot take the same port.
        let clash = owner("review.share_start", serde_json::json!({"session": other, "port": port})).await.unwrap_err();
        assert_eq!(clash.code, ErrorCode::Conflict);
        assert!(clash.message.contains(&format!("Port {port}")), "{}", clash.message);

        let stopped = owner("review.share_stop", serde_json::json!({"session": sid})).await.unwrap();
        assert_eq!(stopped["serving"], false);
        assert!(call(Some(&token), "review.me").await.is_err(), "the link no longer connects");
        assert_eq!(owner("review.share_status", serde_json::json!({"session": sid})).await.unwrap()["serving"], false);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn share_says_which_port_is_taken_and_refuses_closed_reviews() {
        let e = Engine::open_in_memory().unwrap();
        e.demo_load().unwrap();
        let (sid, _) = demo_session(&e, "busy port");
        enable_review_sharing(&e, Arc::new(NoAssets), Limits::default());
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let err =
            rpc::call(&e, &Caller::Owner, "review.share_start", serde_json::json!({"session": sid, "port": port}))
                .await
                .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(err.message.contains(&format!("Port {port} is already in use")), "{}", err.message);
        let status =
            rpc::call(&e, &Caller::Owner, "review.share_status", serde_json::json!({"session": sid})).await.unwrap();
        assert_eq!(status["serving"], false);

        e.review_close(&sid).unwrap();
        let closed =
            rpc::call(&e, &Caller::Owner, "review.share_start", serde_json::json!({"session": sid, "port": 0}))
                .await
                .unwrap_err();
        assert!(closed.message.contains("is closed"), "{}", closed.message);
    }

    #[test]
    fn lan_needs_the_flag_and_a_review_session() {
        let mut o = ServeOptions {
            addr: "0.0.0.0:0".parse().unwrap(),
            lan: false,
            review_session: None,
            assets: Arc::new(NoAssets),
            owner_token: OwnerToken::from_text(TEST_KEY),
            limits: Limits::default(),
            tls: None,
        };
        assert!(check_options(&o).is_err());
        o.lan = true;
        assert!(check_options(&o).is_err());
        o.review_session = Some("s".into());
        assert!(check_options(&o).is_ok());
    }

    #[test]
    fn loopback_host_names() {
        for h in ["127.0.0.1:1", "localhost:5", "[::1]:9", "localhost", "app.localhost:3"] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in ["example.org:80", "192.168.0.2:8080", "127.0.0.1.evil.org:80", ""] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }
}
