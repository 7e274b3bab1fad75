//! `models test`: one request, a short time limit, and a plain sentence when it fails.
//!
//! The run-time retry policy (several attempts with growing waits) is right for a long run and
//! wrong for a check a person is waiting on: here the model gets exactly one attempt of at most
//! [`TEST_TIMEOUT_SECS`] seconds, and a failure is turned into one sentence saying what is wrong
//! (nothing listening, wrong address, key refused, unknown model, too slow, or what the server
//! said) and what to do about it. The provider's own words stay in the error's detail.

use std::time::Duration;

use crate::error::{ApiError, ErrorCode};
use crate::llm::{LlmError, ModelConfig};

/// The one attempt's time limit, in seconds (or the model's own time limit when that is
/// shorter). Long enough for a local server that is slow to answer a 16-token request, short
/// enough that a person waiting gets an answer in seconds.
pub const TEST_TIMEOUT_SECS: u32 = 10;

/// What is wrong, as found from the failed attempt (and, for connection failures, a look-up of
/// the host and a plain TCP connection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestFailure {
    /// The host resolves but nothing accepts connections on that port.
    NotListening { host: String, port: u16 },
    /// The host name does not resolve.
    UnknownHost { host: String },
    /// The server answers, but not as the model API (404 on the endpoint, or a web page).
    WrongAddress { url: String, status: Option<u16>, said: String },
    /// The server answered with a redirect, which is not followed (see `llm::origin`).
    Redirected { url: String, to: String },
    /// HTTP 401 or 403.
    KeyRefused { status: u16, said: String },
    /// The server says it has no such model.
    UnknownModel { model: String, said: String },
    /// No answer within the test's time limit.
    TimedOut { secs: u32 },
    /// Anything else: the status (when there is one) and what the provider said.
    Other { status: Option<u16>, said: String },
}

/// At most this many characters of what a provider said go into the sentence.
const SAID_CHARS: usize = 160;

fn shorten(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let msg = provider_message(&one_line).unwrap_or(one_line);
    if msg.chars().count() <= SAID_CHARS {
        msg
    } else {
        format!("{}…", msg.chars().take(SAID_CHARS).collect::<String>().trim_end())
    }
}

/// The `message` of a JSON error body (`{"error": {"message": …}}`, `{"error": "…"}` or
/// `{"message": …}`), when the body is one.
fn provider_message(body: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let m = v
        .pointer("/error/message")
        .or_else(|| v.get("error").filter(|e| e.is_string()))
        .or_else(|| v.get("message"))?;
    m.as_str().map(str::to_string)
}

/// The body says the model is unknown: it names the model id (or says "model" with a not-found
/// phrase, or carries a model-not-found code).
fn names_unknown_model(body: &str, model: &str) -> bool {
    let b = body.to_lowercase();
    let not_found = [
        "not found",
        "not_found",
        "does not exist",
        "doesn't exist",
        "unknown model",
        "no such model",
        "invalid model",
    ]
    .iter()
    .any(|p| b.contains(p));
    let names_it = !model.is_empty() && b.contains(&model.to_lowercase());
    b.contains("model_not_found") || (not_found && (names_it || b.contains("model")))
}

/// Sort a failed attempt into a [`TestFailure`] (`cfg` is the configuration the attempt used,
/// with the test's time limit). Connection failures are sorted by `probe`
/// (see [`probe_connect`]), which the caller runs only for them.
pub fn classify(e: &LlmError, cfg: &ModelConfig, probe: Option<TestFailure>) -> TestFailure {
    match e {
        LlmError::RetriesExhausted { last, .. } => classify(last, cfg, probe),
        LlmError::Timeout { .. } => TestFailure::TimedOut { secs: cfg.timeout_secs },
        LlmError::Connect { message, .. } => {
            probe.unwrap_or(TestFailure::Other { status: None, said: shorten(message) })
        }
        LlmError::Rejected { status, body, .. } | LlmError::Server { status, body, .. } => match *status {
            401 | 403 => TestFailure::KeyRefused { status: *status, said: shorten(body) },
            _ if names_unknown_model(body, &cfg.model) => {
                TestFailure::UnknownModel { model: cfg.model.clone(), said: shorten(body) }
            }
            404 | 405 => {
                TestFailure::WrongAddress { url: cfg.base_url.clone(), status: Some(*status), said: shorten(body) }
            }
            s => TestFailure::Other { status: Some(s), said: shorten(body) },
        },
        LlmError::BadResponse { reason, .. } if reason.contains("expected JSON but got") => {
            TestFailure::WrongAddress { url: cfg.base_url.clone(), status: None, said: shorten(reason) }
        }
        LlmError::Redirected { from, to, .. } => TestFailure::Redirected { url: from.clone(), to: to.clone() },
        LlmError::RateLimited { .. } => TestFailure::Other {
            status: Some(429),
            said: "too many requests for now; the address and key work, try again in a minute".into(),
        },
        other => TestFailure::Other { status: None, said: shorten(&other.to_string()) },
    }
}

/// After a connection failure: does the host resolve, and does anything accept a TCP connection
/// on the port? `None` when both work (the problem is elsewhere, e.g. TLS) or the URL is unreadable.
pub async fn probe_connect(base_url: &str) -> Option<TestFailure> {
    let url = reqwest::Url::parse(base_url).ok()?;
    let host = url.host_str()?.trim_matches(['[', ']']).to_string();
    let port = url.port_or_known_default()?;
    let found = tokio::net::lookup_host((host.as_str(), port)).await.map(|a| a.collect::<Vec<std::net::SocketAddr>>());
    let Ok(addrs) = found else { return Some(TestFailure::UnknownHost { host }) };
    if addrs.is_empty() {
        return Some(TestFailure::UnknownHost { host });
    }
    for a in addrs {
        let tried = tokio::time::timeout(Duration::from_secs(3), tokio::net::TcpStream::connect(a)).await;
        if matches!(tried, Ok(Ok(_))) {
            return None;
        }
    }
    Some(TestFailure::NotListening { host, port })
}

impl TestFailure {
    /// One sentence (two at most) a non-programmer can act on.
    pub fn sentence(&self, name: &str) -> String {
        match self {
            TestFailure::NotListening { host, port } => format!(
                "Nothing is listening at {host}:{port}: the model server is not running, or it uses another port. \
                 Start the server (or correct the address of \"{name}\") and test again."
            ),
            TestFailure::UnknownHost { host } => format!(
                "The address is wrong: the computer name \"{host}\" could not be found. Check the server address of \"{name}\"."
            ),
            TestFailure::WrongAddress { url, status, said } => {
                let what = match status {
                    Some(s) => format!("HTTP {s}"),
                    None => "a page that is not the model API".into(),
                };
                format!(
                    "The address is wrong: {url} answers, but not as a model API ({what}{}). \
                     Check the server address of \"{name}\" (OpenAI-compatible servers usually end in /v1).",
                    if said.is_empty() { String::new() } else { format!(": {said}") }
                )
            }
            TestFailure::Redirected { url, to } => format!(
                "The address is wrong: {url} answered with a redirect to {to}. PSEBench Studio does not follow \
                 redirects of model servers, so neither the key nor the test text was sent there. Correct the server \
                 address of \"{name}\"."
            ),
            TestFailure::KeyRefused { status, said } => format!(
                "The API key is wrong or missing: the server refused it (HTTP {status}{}). \
                 Store the right key for \"{name}\" and test again.",
                if said.is_empty() { String::new() } else { format!(": {said}") }
            ),
            TestFailure::UnknownModel { model, said } => format!(
                "The server does not know the model \"{model}\" ({said}). Check the model id of \"{name}\" against the server's list of models."
            ),
            TestFailure::TimedOut { secs } => format!(
                "No answer within {secs} seconds. The server may be busy or still loading the model: wait a moment and test again."
            ),
            TestFailure::Other { status: Some(s), said } => {
                format!("The test call failed (HTTP {s}): {}.", said.trim_end_matches('.'))
            }
            TestFailure::Other { status: None, said } => format!("The test call failed: {}.", said.trim_end_matches('.')),
        }
    }

    /// The error `models test` returns: the sentence, with the provider's own words as detail.
    pub fn into_error(self, name: &str, raw: &LlmError) -> ApiError {
        let code = match raw {
            LlmError::MissingKey { .. } | LlmError::Secrets(_) => ErrorCode::Secrets,
            LlmError::Cancelled => ErrorCode::Cancelled,
            _ => ErrorCode::Provider,
        };
        ApiError::new(code, self.sentence(name)).with_detail(raw.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ModelConfig {
        ModelConfig::new("local", crate::llm::ProviderKind::OpenAiCompatible, "tiny-7b", "http://127.0.0.1:9/v1")
    }

    fn rejected(status: u16, body: &str) -> LlmError {
        LlmError::Rejected { model: "m".into(), status, body: body.into() }
    }

    #[test]
    fn statuses_become_the_right_kind_of_problem() {
        let c = cfg();
        assert!(matches!(classify(&rejected(401, "{}"), &c, None), TestFailure::KeyRefused { status: 401, .. }));
        assert!(matches!(classify(&rejected(403, "no"), &c, None), TestFailure::KeyRefused { status: 403, .. }));
        let unknown = r#"{"error":{"message":"The model `tiny-7b` does not exist","code":"model_not_found"}}"#;
        match classify(&rejected(404, unknown), &c, None) {
            TestFailure::UnknownModel { model, said } => {
                assert_eq!(model, "tiny-7b");
                assert_eq!(said, "The model `tiny-7b` does not exist", "the provider's message, not the JSON");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify(&rejected(404, ""), &c, None), TestFailure::WrongAddress { status: Some(404), .. }));
        let html =
            LlmError::BadResponse { model: "m".into(), reason: "expected JSON but got text/html: <html>".into() };
        assert!(matches!(classify(&html, &c, None), TestFailure::WrongAddress { status: None, .. }));
        let t = LlmError::Timeout { model: "m".into(), secs: 10 };
        let wrapped = LlmError::RetriesExhausted { model: "m".into(), attempts: 1, last: Box::new(t) };
        assert_eq!(classify(&wrapped, &c, None), TestFailure::TimedOut { secs: c.timeout_secs });
        match classify(&rejected(400, &"x".repeat(500)), &c, None) {
            TestFailure::Other { status: Some(400), said } => assert!(said.chars().count() <= SAID_CHARS + 1),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sentences_name_the_problem_in_plain_words() {
        let s = TestFailure::NotListening { host: "127.0.0.1".into(), port: 9 }.sentence("local");
        assert!(s.starts_with("Nothing is listening at 127.0.0.1:9"), "{s}");
        let s = TestFailure::TimedOut { secs: 10 }.sentence("local");
        assert!(s.contains("within 10 seconds"), "{s}");
        let s = TestFailure::KeyRefused { status: 401, said: "Incorrect API key".into() }.sentence("gpt");
        assert!(s.starts_with("The API key is wrong or missing"), "{s}");
        let r = LlmError::Redirected {
            model: "m".into(),
            status: 307,
            from: "http://127.0.0.1:9/v1/chat/completions".into(),
            to: "http://10.0.0.5/v1/chat/completions".into(),
        };
        let s = classify(&r, &cfg(), None).sentence("local");
        assert!(s.starts_with("The address is wrong: http://127.0.0.1:9/v1/chat/completions answered with a redirect to http://10.0.0.5/v1/chat/completions."), "{s}");
        assert!(s.contains("neither the key nor the test text was sent there"), "{s}");
    }
}
