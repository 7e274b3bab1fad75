//! The owner's key for `psebench serve` (not for review servers, which use reviewer tokens).
//!
//! Each start of the server makes a fresh random key (32 bytes from the operating system, written
//! as 43 URL-safe base64 characters). The printed link `http://127.0.0.1:PORT/#owner=KEY` hands it
//! to the browser in the address's fragment (the part after `#`), which a browser never sends to
//! any server. The app's page reads it from there, keeps it in the tab's `sessionStorage` (which
//! belongs to this origin, port included) and removes it from the address; every API call then
//! carries it as `Authorization: Bearer KEY`. Scripts do the same (`--token-file` writes the key to
//! a file they can read).
//!
//! The key is never put in a cookie and a cookie is never accepted as the key: browsers send a
//! cookie of 127.0.0.1 to every port of 127.0.0.1, so any other local server the browser visits
//! would receive it.
//!
//! Every API route (`/api/...`, including the event stream) needs the key; the files of the user
//! interface stay public because they hold no data. The check runs as a route layer, before the
//! handler reads any request body, and compares keys in constant time.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine as _;
use rand::rngs::OsRng;
use rand::TryRngCore;
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use subtle::ConstantTimeEq;

use psebench::error::{ApiError, ApiResult, ErrorCode};

/// Random bytes in a key (256 bits).
pub const OWNER_TOKEN_BYTES: usize = 32;

/// The name of the key in the printed link's fragment: `#owner=KEY`.
pub const LINK_FRAGMENT_KEY: &str = "owner";

/// What a request without a valid key is told.
pub const MISSING_KEY_MESSAGE: &str = "Open the link that psebench serve printed; it carries this session's key.";

/// The key of one running server. `Debug` never shows it.
#[derive(Clone)]
pub struct OwnerToken(Arc<str>);

impl OwnerToken {
    /// A fresh key from the operating system's random source.
    pub fn generate() -> ApiResult<OwnerToken> {
        let mut buf = [0u8; OWNER_TOKEN_BYTES];
        OsRng.try_fill_bytes(&mut buf).map_err(|e| {
            ApiError::internal("The operating system could not provide random bytes for the server's key.")
                .with_detail(e.to_string())
        })?;
        Ok(OwnerToken(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf).into()))
    }

    /// A key with a known text (tests and embedding programs that make their own).
    pub fn from_text(text: impl Into<String>) -> OwnerToken {
        OwnerToken(text.into().into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this key; the time taken does not depend on where they differ.
    pub fn matches(&self, candidate: &str) -> bool {
        !self.0.is_empty() && bool::from(self.0.as_bytes().ct_eq(candidate.as_bytes()))
    }

    /// The link that opens the app on this computer with this key. The key is in the fragment,
    /// so opening the link sends no key to the server; the page picks it up.
    pub fn link(&self, scheme: &str, port: u16) -> String {
        format!("{scheme}://127.0.0.1:{port}/#{LINK_FRAGMENT_KEY}={}", self.0)
    }
}

impl fmt::Debug for OwnerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OwnerToken(hidden)")
    }
}

/// Write the key (and a line end) to `path` for scripts, readable by the owner only on unix.
/// An existing file is replaced; a symbolic link is refused (it could send the key anywhere, such
/// as a file other users can read).
pub fn write_token_file(path: &Path, token: &OwnerToken) -> ApiResult<()> {
    let is_link = || {
        ApiError::new(
            ErrorCode::Io,
            format!(
                "Did not write the key to {}: that path is a symbolic link, and the key is only written to an \
                 ordinary file. Give --token-file the path of a file (or of one that does not exist yet).",
                path.display()
            ),
        )
    };
    if std::fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false) {
        return Err(is_link());
    }
    let failed =
        |e: std::io::Error| ApiError::new(ErrorCode::Io, format!("Could not write the key to {}: {e}", path.display()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    // Windows has no mode bits: the file gets the access list of the folder it is written in (the
    // user's own folders admit only that user, the system and administrators).
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A link made between the check above and this open makes the open fail instead.
        opts.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = match opts.open(path) {
        Ok(f) => f,
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(is_link()),
        Err(e) => return Err(failed(e)),
    };
    // A file that existed before keeps its old mode on open: narrow it before the key goes in
    // (through the open file, so nothing put at the path meanwhile is changed instead).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(failed)?;
    }
    #[cfg(not(unix))]
    psebench::util::private_files::restrict_file(path).map_err(failed)?;
    file.write_all(format!("{}\n", token.as_str()).as_bytes()).map_err(failed)?;
    file.sync_all().map_err(failed)
}

/// A small page in the temporary folder, readable by the owner only, that forwards the browser to
/// `link`. `--open` hands the browser this file instead of the link itself, because a command line
/// (of the opener and of a browser it starts) can be read by every user of the computer.
pub fn write_open_page(dir: &Path, link: &str) -> ApiResult<std::path::PathBuf> {
    let mut nonce = [0u8; 8];
    OsRng
        .try_fill_bytes(&mut nonce)
        .map_err(|e| ApiError::internal("No random bytes for a file name.").with_detail(e.to_string()))?;
    let path = dir.join(format!("psebench-open-{}.html", hex::encode(nonce)));
    let failed = |e: std::io::Error| ApiError::new(ErrorCode::Io, format!("Could not write {}: {e}", path.display()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    // On Windows the temporary folder is inside the user's profile (`%LOCALAPPDATA%\Temp`), whose
    // access list already keeps other users out; there is no mode to set.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut file = opts.open(&path).map_err(failed)?;
    let page = format!(
        "<!doctype html><meta charset=utf-8><meta http-equiv=\"refresh\" content=\"0;url={link}\">\
         <title>PSEBench Studio</title><p><a href=\"{link}\">Open PSEBench Studio</a></p>\n"
    );
    file.write_all(page.as_bytes()).map_err(failed)?;
    Ok(path)
}

/// The keys a request presents: its `Authorization: Bearer KEY` headers. Cookies are not read.
/// The connection places (`places.rs`) use the same rule for a reserved place.
pub(super) fn presented_keys(headers: &HeaderMap) -> Vec<&str> {
    headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .collect()
}

/// Route layer of every API route: without the key, 401 and nothing else happens.
///
/// One exception: a reviewer's personal link opened on this server (the owner pasted it into the
/// browser, or a reviewer works at the owner's computer) calls the questionnaire's methods with
/// the link's token in `x-review-token` and no key. Those calls go on as a reviewer's
/// (`caller` in lib.rs): the token must open a review, and only the reviewer methods answer.
pub async fn require_owner(State(token): State<OwnerToken>, req: Request<Body>, next: Next) -> Response {
    if presented_keys(req.headers()).into_iter().any(|t| token.matches(t)) || is_reviewer_call(&req) {
        return next.run(req).await;
    }
    tracing::warn!(path = %req.uri().path(), "an API call without the owner's key was refused");
    let body = ApiError::new(ErrorCode::Unauthorized, MISSING_KEY_MESSAGE).with_detail(
        "No valid key came with this request in an `Authorization: Bearer` header (the app's page sends \
         the key of the printed link that way). Each start of psebench serve makes a new key.",
    );
    let mut resp = (StatusCode::UNAUTHORIZED, Json(body)).into_response();
    resp.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp
}

/// The token of a reviewer's link (`x-review-token`), if the request carries one.
pub(super) fn reviewer_token(headers: &HeaderMap) -> Option<&str> {
    headers.get("x-review-token").and_then(|v| v.to_str().ok()).map(str::trim).filter(|t| !t.is_empty())
}

/// A call of one of the questionnaire's methods (`POST /api/review.me` and the like) with a
/// reviewer's token.
fn is_reviewer_call(req: &Request<Body>) -> bool {
    let method = req.uri().path().strip_prefix("/api/").unwrap_or("");
    req.method() == Method::POST
        && psebench::api::rpc::REVIEWER_METHODS.contains(&method)
        && reviewer_token(req.headers()).is_some()
}

/// The `token` parameter of a query string, if any.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?.split('&').filter_map(|p| p.split_once('=')).find(|(k, _)| *k == "token").map(|(_, v)| v)
}

/// Layer of the whole app for links of the old form, `/?token=KEY`, which carried the key in the
/// query (it reaches the server, its logs and the history). The right key is sent on to the same
/// page with the key in the fragment instead, `/#owner=KEY`, where the app picks it up; no cookie
/// is set. A wrong key gets a plain page saying what to do.
pub async fn accept_link(State(token): State<OwnerToken>, req: Request<Body>, next: Next) -> Response {
    let is_page = req.method() == Method::GET || req.method() == Method::HEAD;
    let path = req.uri().path();
    let candidate = match query_token(req.uri().query()) {
        Some(c) if is_page && !path.starts_with("/api/") => c,
        _ => return next.run(req).await,
    };
    if !token.matches(candidate) {
        tracing::warn!("a link with a wrong owner key was opened");
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")],
            "<!doctype html><meta charset=utf-8><title>PSEBench Studio: link not valid</title>\
             <h1>This link is not valid</h1>\
             <p>The key in this link does not belong to the psebench serve that is running now. \
             Each start makes a new key: open the link it printed most recently, or start it again.</p>",
        )
            .into_response();
    }
    let target = format!("{path}#{LINK_FRAGMENT_KEY}={}", token.as_str());
    let Ok(location) = HeaderValue::from_str(&target) else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::SEE_OTHER;
    let h = resp.headers_mut();
    h.insert(header::LOCATION, location);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{router, NoAssets, ServeOptions};
    use axum::Router;
    use psebench::api::Engine;
    use tower::ServiceExt;

    const KEY: &str = "k3y-for-tests_k3y-for-tests_k3y-for-tests_x";

    fn app() -> Router {
        router(
            Engine::open_in_memory().unwrap(),
            ServeOptions {
                addr: "127.0.0.1:0".parse().unwrap(),
                lan: false,
                review_session: None,
                assets: Arc::new(NoAssets),
                owner_token: OwnerToken::from_text(KEY),
                limits: crate::Limits::default(),
                tls: None,
            },
        )
    }

    fn req(method: &str, uri: &str, headers: &[(&str, &str)]) -> Request<Body> {
        let mut b = Request::builder().method(method).uri(uri).header("host", "127.0.0.1:8765");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(Body::from(if method == "POST" { "{}" } else { "" })).unwrap()
    }

    async fn json_of(r: Response) -> serde_json::Value {
        let b = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
        serde_json::from_slice(&b).unwrap_or(serde_json::Value::Null)
    }

    #[test]
    fn keys_are_random_url_safe_and_hidden_from_debug() {
        let a = OwnerToken::generate().unwrap();
        let b = OwnerToken::generate().unwrap();
        assert_ne!(a.as_str(), b.as_str());
        assert_eq!(a.as_str().len(), 43, "32 bytes in unpadded base64");
        assert!(a.as_str().bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert!(a.matches(a.as_str()));
        assert!(!a.matches(b.as_str()));
        assert!(!a.matches(""));
        assert!(!a.matches(&a.as_str()[..42]));
        assert!(!format!("{a:?}").contains(a.as_str()));
        assert_eq!(a.link("http", 9), format!("http://127.0.0.1:9/#owner={}", a.as_str()));
        assert!(!OwnerToken::from_text("").matches(""), "an empty key opens nothing");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn api_calls_without_the_key_get_401_with_a_plain_message() {
        let a = app();
        for r in [
            req("POST", "/api/store.info", &[]),
            req("GET", "/api/_methods", &[]),
            req("GET", "/api/events", &[]),
            req("POST", "/api/store.info", &[("authorization", "Bearer wrong")]),
            req("POST", "/api/store.info", &[("cookie", "psebench_owner_8765=wrong")]),
            req("POST", "/api/store.info", &[("cookie", &format!("other={KEY}"))]),
            // The right key in a cookie (as the old sign-in set it) is no way in either: a cookie of
            // 127.0.0.1 reaches every port of 127.0.0.1.
            req("POST", "/api/store.info", &[("cookie", &format!("psebench_owner_8765={KEY}"))]),
            req("POST", "/api/store.info", &[("cookie", &format!("psebench_owner={KEY}"))]),
            req("GET", "/api/events", &[("cookie", &format!("psebench_owner_8765={KEY}"))]),
            req("GET", "/api/_methods", &[("cookie", &format!("psebench_owner_8765={KEY}"))]),
            req("POST", "/api/store.info", &[("authorization", KEY)]),
        ] {
            let what = format!("{} {} {:?}", r.method(), r.uri(), r.headers());
            let resp = a.clone().oneshot(r).await.unwrap();
            assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{what}");
            assert_eq!(resp.headers()["content-security-policy"], crate::CONTENT_SECURITY_POLICY);
            let body = json_of(resp).await;
            assert_eq!(body["code"], "unauthorized", "{what}");
            assert_eq!(body["message"], MISSING_KEY_MESSAGE);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_bearer_header_opens_every_api_route() {
        let a = app();
        let bearer = format!("Bearer {KEY}");
        let ok = a.clone().oneshot(req("POST", "/api/store.info", &[("authorization", &bearer)])).await.unwrap();
        assert_eq!(ok.status(), StatusCode::OK);
        assert!(json_of(ok).await.is_object());
        let methods = a.clone().oneshot(req("GET", "/api/_methods", &[("authorization", &bearer)])).await.unwrap();
        assert_eq!(methods.status(), StatusCode::OK);
        let events = a.clone().oneshot(req("GET", "/api/events", &[("authorization", &bearer)])).await.unwrap();
        assert_eq!(events.status(), StatusCode::OK);
        assert_eq!(events.headers()["content-type"], "text/event-stream");
        // The UI files stay public.
        let page = a.oneshot(req("GET", "/", &[])).await.unwrap();
        assert_eq!(page.status(), StatusCode::OK);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_old_style_link_is_sent_on_to_the_fragment_form_without_a_cookie() {
        let a = app();
        for path in ["/", "/cards"] {
            let opened = a.clone().oneshot(req("GET", &format!("{path}?token={KEY}"), &[])).await.unwrap();
            assert_eq!(opened.status(), StatusCode::SEE_OTHER, "{path}");
            assert_eq!(opened.headers()["location"], format!("{path}#owner={KEY}"));
            assert_eq!(opened.headers()["cache-control"], "no-store");
            assert!(opened.headers().get("set-cookie").is_none(), "no cookie: {:?}", opened.headers());
        }
        // The page of the printed link itself is the plain app, with no cookie either.
        let page = a.clone().oneshot(req("GET", "/", &[])).await.unwrap();
        assert_eq!(page.status(), StatusCode::OK);
        assert!(page.headers().get("set-cookie").is_none());

        let wrong = a.clone().oneshot(req("GET", "/?token=not-the-key", &[])).await.unwrap();
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
        assert!(wrong.headers().get("set-cookie").is_none());
        assert!(wrong.headers().get("location").is_none());
        assert!(wrong.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
        let page = axum::body::to_bytes(wrong.into_body(), 1 << 20).await.unwrap();
        let page = String::from_utf8_lossy(&page);
        assert!(page.contains("This link is not valid"));
        assert!(!page.contains(KEY));
        // A key in the query of an API call is not a way in.
        let q = a.oneshot(req("POST", &format!("/api/store.info?token={KEY}"), &[])).await.unwrap();
        assert_eq!(q.status(), StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn the_page_for_the_browser_forwards_to_the_link_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let link = OwnerToken::generate().unwrap().link("http", 8765);
        let path = write_open_page(dir.path(), &link).unwrap();
        let page = std::fs::read_to_string(&path).unwrap();
        assert!(link.contains("/#owner="), "{link}");
        assert!(page.contains(&format!("content=\"0;url={link}\"")), "{page}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_ne!(write_open_page(dir.path(), &link).unwrap(), path, "a fresh file each time");
    }

    #[test]
    fn the_token_file_holds_the_key_for_the_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let t = OwnerToken::generate().unwrap();
        write_token_file(&path, &t).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}\n", t.as_str()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let missing = write_token_file(&dir.path().join("no/such/folder/key"), &t).unwrap_err();
        assert_eq!(missing.code, ErrorCode::Io);
    }

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_never_written_through_a_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        let t = OwnerToken::generate().unwrap();
        // A link to a file that exists (say, one other users can read) and a dangling one.
        let target = dir.path().join("shared.txt");
        std::fs::write(&target, "public notes\n").unwrap();
        let to_file = dir.path().join("key-link");
        std::os::unix::fs::symlink(&target, &to_file).unwrap();
        let dangling = dir.path().join("dangling-link");
        std::os::unix::fs::symlink(dir.path().join("not-yet"), &dangling).unwrap();
        for link in [&to_file, &dangling] {
            let err = write_token_file(link, &t).unwrap_err();
            assert_eq!(err.code, ErrorCode::Io);
            assert!(err.message.contains(&link.display().to_string()), "{}", err.message);
            assert!(err.message.contains("symbolic link"), "{}", err.message);
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "public notes\n", "the target is untouched");
        assert!(!dir.path().join("not-yet").exists(), "nothing was created through the dangling link");
    }
}
