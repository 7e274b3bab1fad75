//! Where requests to a model server may go: only to the origin (scheme, host and port) of the
//! model's base URL.
//!
//! A model's key headers (`x-api-key`, `api-key`, `x-goog-api-key`) and the case text are meant
//! for the address the model was registered with, and whether a model counts as *local* (no
//! confirmation before case text is sent) is decided from that address alone
//! (`ModelConfig::is_local`). Two things could move a request elsewhere, and neither happens:
//!
//! - a redirect: every HTTP client that talks to a model server is built with
//!   [`redirect_policy`] (no redirect is followed), and a 3xx reply becomes
//!   [`LlmError::Redirected`], which names both addresses and is not retried. reqwest's own
//!   policy would resend the request, body and key headers included (it strips only
//!   `Authorization` and cookies when the host changes);
//! - an address the provider names (Anthropic's `results_url`): it is fetched only when its
//!   origin is the model's own ([`check`]); otherwise [`LlmError::ForeignAddress`], and the key is
//!   never attached.
//!
//! A third, the system's proxy settings, is set by the person running the app, not by a
//! provider; it is honoured for remote models and never used for loopback ones ([`Clients`]).

use reqwest::header::LOCATION;
use reqwest::Url;

use super::config::ModelConfig;
use super::error::LlmError;

/// The redirect policy of every client that talks to a model server: none is followed, the 3xx
/// reply comes back as it is (see [`redirect_error`]).
pub fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::none()
}

/// Build a client that talks to model servers: `builder`'s settings with [`redirect_policy`]
/// (and no proxy at all when `proxy` is false). Should those settings be refused, a client with
/// reqwest's defaults and the same policy (never `reqwest::Client::new()`, which follows
/// redirects and uses the system's proxy).
pub fn client(builder: reqwest::ClientBuilder, proxy: bool) -> reqwest::Client {
    let builder = if proxy { builder } else { builder.no_proxy() };
    match builder.redirect(redirect_policy()).build() {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "the HTTP client could not be built with its settings; using reqwest's defaults (no redirect followed)");
            let plain = reqwest::Client::builder().redirect(redirect_policy());
            let plain = if proxy { plain } else { plain.no_proxy() };
            // What `reqwest::Client::new()` does (it panics when no TLS backend can be set up),
            // with the redirect policy.
            #[allow(clippy::expect_used)]
            plain.build().expect("an HTTP client with default settings")
        }
    }
}

/// The HTTP clients of the LLM layer, both following no redirect. `proxied` honours the system's
/// proxy settings (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) and serves every model
/// whose base URL is not on this computer; `direct` uses no proxy and serves loopback base URLs
/// (`ModelConfig::is_loopback`). Such a model is planned as local, yet reqwest would hand its
/// requests, case text included, to a configured proxy (it exempts loopback addresses only when
/// `NO_PROXY` names them).
#[derive(Clone, Debug)]
pub struct Clients {
    proxied: reqwest::Client,
    direct: reqwest::Client,
}

impl Clients {
    /// Both clients from the same settings.
    pub fn new(settings: impl Fn() -> reqwest::ClientBuilder) -> Clients {
        Clients { proxied: client(settings(), true), direct: client(settings(), false) }
    }

    /// The client for calls to this model's server.
    pub fn for_model(&self, cfg: &ModelConfig) -> &reqwest::Client {
        self.pick(cfg.is_loopback())
    }

    /// The client for a server on this machine (`loopback`) or elsewhere.
    pub fn pick(&self, loopback: bool) -> &reqwest::Client {
        if loopback {
            &self.direct
        } else {
            &self.proxied
        }
    }
}

/// At most this many characters of an address go into a message.
const ADDRESS_CHARS: usize = 300;

fn shown(s: &str) -> String {
    if s.chars().count() > ADDRESS_CHARS {
        format!("{}…", s.chars().take(ADDRESS_CHARS).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Whether `a` and `b` have the same scheme, host and port. An unreadable address, or one
/// without a host (an opaque origin), never matches.
pub fn same_origin(a: &str, b: &str) -> bool {
    match (Url::parse(a), Url::parse(b)) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (a.origin(), b.origin());
            a.is_tuple() && a == b
        }
        _ => false,
    }
}

/// `Ok` when `url` is at the origin of the model's base URL; otherwise the error that says it
/// was not fetched. `what` names the thing the address is for ("a batch's results").
pub fn check(
    model: &str,
    base_url: &str,
    url: &str,
    what: &str,
    scrub: impl Fn(&str) -> String,
) -> Result<(), LlmError> {
    if same_origin(url, base_url) {
        return Ok(());
    }
    let origin =
        Url::parse(base_url).map(|u| u.origin().ascii_serialization()).unwrap_or_else(|_| base_url.to_string());
    Err(LlmError::ForeignAddress {
        model: model.to_string(),
        what: what.to_string(),
        url: scrub(&shown(url)),
        origin: scrub(&shown(&origin)),
    })
}

/// A redirect reply (any 3xx but 304) as an error naming the address called and the one its
/// `Location` points to (resolved against the first); `None` for any other status.
pub fn redirect_error(model: &str, resp: &reqwest::Response, scrub: impl Fn(&str) -> String) -> Option<LlmError> {
    let status = resp.status();
    if !status.is_redirection() || status == reqwest::StatusCode::NOT_MODIFIED {
        return None;
    }
    let from = resp.url();
    let to = match resp.headers().get(LOCATION).map(|v| v.to_str()) {
        Some(Ok(loc)) => from.join(loc.trim()).map(|u| u.to_string()).unwrap_or_else(|_| loc.trim().to_string()),
        Some(Err(_)) => "an address that cannot be read".to_string(),
        None => "no address (the reply named none)".to_string(),
    };
    Some(LlmError::Redirected {
        model: model.to_string(),
        status: status.as_u16(),
        from: scrub(&shown(from.as_str())),
        to: scrub(&shown(&to)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ProviderKind;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let base = "https://api.anthropic.com";
        assert!(same_origin("https://api.anthropic.com/v1/messages/batches/x/results", base));
        assert!(same_origin("https://API.anthropic.com:443/v1", base), "case and default port do not matter");
        assert!(!same_origin("http://api.anthropic.com/v1", base), "scheme");
        assert!(!same_origin("https://api.anthropic.com.evil.example/v1", base), "host");
        assert!(!same_origin("https://api.anthropic.com:8443/v1", base), "port");
        assert!(!same_origin("http://127.0.0.1:9001/r", "http://127.0.0.1:9000"), "another loopback port");
        assert!(!same_origin("https://user@evil.example/", base));
        assert!(!same_origin("not a url", base));
        assert!(!same_origin("data:text/plain,x", "data:text/plain,x"), "opaque origins never match");
    }

    /// A listener that answers every connection with an empty 200 and counts connections.
    async fn counting_listener() -> (std::net::SocketAddr, Arc<AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        let n = Arc::new(AtomicUsize::new(0));
        let count = n.clone();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = l.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf).await;
                    let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                });
            }
        });
        (addr, n)
    }

    #[tokio::test]
    async fn loopback_model_servers_are_called_without_the_proxy() {
        let (proxy, via_proxy) = counting_listener().await;
        let (server, direct) = counting_listener().await;
        let clients =
            Clients::new(|| reqwest::Client::builder().proxy(reqwest::Proxy::all(format!("http://{proxy}")).unwrap()));
        let local = ModelConfig::new("m", ProviderKind::OpenAiCompatible, "x", &format!("http://{server}/v1"));
        let remote = ModelConfig::new("r", ProviderKind::OpenAi, "x", "https://api.openai.com/v1");
        let url = format!("http://{server}/v1/models");
        clients.for_model(&local).get(&url).send().await.unwrap();
        assert_eq!((direct.load(Ordering::SeqCst), via_proxy.load(Ordering::SeqCst)), (1, 0));
        // The other client does use the proxy (so the listener above would have seen a leak).
        clients.for_model(&remote).get(&url).send().await.unwrap();
        assert_eq!(via_proxy.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_foreign_address_is_named_with_the_models_origin() {
        let e = check("m", "http://127.0.0.1:9000/v1", "http://10.0.0.5/r?k=1", "a batch's results", str::to_string)
            .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("http://10.0.0.5/r?k=1") && msg.contains("http://127.0.0.1:9000"), "{msg}");
        assert!(!e.is_transient());
        assert!(check("m", "http://127.0.0.1:9000/v1", "http://127.0.0.1:9000/other", "x", str::to_string).is_ok());
    }
}
