//! Errors of the LLM layer. Messages never contain API keys (keys are redacted before anything
//! is formatted) and say what to do next.

use std::time::Duration;

use crate::error::{ApiError, ErrorCode};

#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    #[error("{model}: no API key. Store one with `psebench models set-key {model}` (OS keyring) or register the model with --api-key-env VAR.")]
    MissingKey { model: String },
    #[error("{0}")]
    Secrets(String),
    #[error("{model}: the provider rejected the request (HTTP {status}): {body}")]
    Rejected { model: String, status: u16, body: String },
    #[error("{model}: rate limited by the provider (HTTP 429)")]
    RateLimited { model: String, retry_after: Option<Duration> },
    #[error("{model}: provider error (HTTP {status}): {body}")]
    Server { model: String, status: u16, body: String },
    #[error("{model}: no answer within {secs} s")]
    Timeout { model: String, secs: u64 },
    #[error("{model}: could not connect to {endpoint} ({message})")]
    Connect { model: String, endpoint: String, message: String },
    #[error("{model}: the provider's reply could not be read ({reason})")]
    BadResponse { model: String, reason: String },
    #[error("{model}: gave up after {attempts} attempts; last problem: {last}")]
    RetriesExhausted { model: String, attempts: u32, last: Box<LlmError> },
    #[error("{model}: the provider's batch did not answer this request in {}; last problem: {last}", rounds_text(.rounds))]
    BatchFailed { model: String, rounds: u32, last: String },
    /// The model server answered with a redirect (3xx). Redirects of model servers are never
    /// followed (see `llm::origin`): `from` is the address called, `to` where it pointed.
    #[error("{model}: the model server at {from} answered with a redirect (HTTP {status}) to {to}; PSEBench Studio does not follow redirects of model servers, so neither the key nor the case text was sent there. Correct the model's address (base URL).")]
    Redirected { model: String, status: u16, from: String, to: String },
    /// The provider named an address at another origin (scheme, host or port) than the model's
    /// own for something to fetch (a batch's results): it is not fetched.
    #[error("{model}: the provider named {url} as the address of {what}, which is not at the model's own address {origin}; PSEBench Studio fetches from a provider only at the model's own address, so nothing was requested there and the key was not sent there.")]
    ForeignAddress { model: String, what: String, url: String, origin: String },
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Config(String),
}

/// "1 round", "3 rounds" (for [`LlmError::BatchFailed`]).
fn rounds_text(rounds: &u32) -> String {
    crate::util::format::count(*rounds, "round")
}

impl LlmError {
    /// Worth another attempt: 429, 5xx, timeouts, connection problems, unreadable bodies.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Server { .. }
                | LlmError::Timeout { .. }
                | LlmError::Connect { .. }
                | LlmError::BadResponse { .. }
        )
    }
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

impl From<LlmError> for ApiError {
    fn from(e: LlmError) -> Self {
        let code = match &e {
            LlmError::MissingKey { .. } | LlmError::Secrets(_) => ErrorCode::Secrets,
            LlmError::Cancelled => ErrorCode::Cancelled,
            LlmError::Config(_) => ErrorCode::InvalidInput,
            _ => ErrorCode::Provider,
        };
        ApiError::new(code, e.to_string())
    }
}
