//! What is common to the three batch APIs: a request line, a batch's state as polled, and each
//! request's outcome; `openai`, `anthropic` and `gemini` speak the providers' own shapes.

use serde_json::Value;
use std::sync::Arc;

use super::{anthropic, gemini, openai};
use crate::llm::client::ModelHandle;
use crate::llm::config::ProviderKind;
use crate::llm::error::LlmError;
use crate::llm::types::ChatRequest;

/// One request of a batch: its id (the response-cache key) and the request a direct call would
/// send, kept as a conversation (its text shared) until it is written out (`upload`).
#[derive(Debug, Clone)]
pub struct Line {
    pub custom_id: String,
    pub req: ChatRequest,
}

/// The provider accepted a batch.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub provider_batch_id: String,
    pub input_file_id: Option<String>,
    pub provider_status: String,
}

/// Where results are once a batch has ended.
#[derive(Debug, Clone)]
pub enum Results {
    /// OpenAI / Azure: result and error files.
    Files { output: Option<String>, errors: Option<String> },
    /// Anthropic: a JSONL results address.
    Url(String),
    /// Gemini (inline requests): the responses, in request order.
    Inline(Vec<Value>),
    /// Nothing to fetch (the whole batch failed).
    None,
}

/// A batch's state as polled.
#[derive(Debug, Clone)]
pub struct Polled {
    pub ended: bool,
    pub provider_status: String,
    pub succeeded: u64,
    pub failed: u64,
    /// Why the whole batch failed (validation errors), when it did.
    pub failure: Option<String>,
    pub results: Results,
}

/// One request's outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The provider's reply body, as a direct call would have returned it.
    Answered(Value),
    /// The request failed inside the batch (or the batch expired before it ran).
    Failed(String),
}

pub async fn submit(http: &reqwest::Client, m: &ModelHandle, lines: &Arc<[Line]>) -> Result<Submitted, LlmError> {
    match m.cfg.kind {
        ProviderKind::OpenAi | ProviderKind::Azure => openai::submit(http, m, lines).await,
        ProviderKind::Anthropic => anthropic::submit(http, m, lines).await,
        ProviderKind::Gemini => gemini::submit(http, m, lines).await,
        ProviderKind::OpenAiCompatible => Err(no_batch_api(m)),
    }
}

pub async fn poll(http: &reqwest::Client, m: &ModelHandle, provider_batch_id: &str) -> Result<Polled, LlmError> {
    match m.cfg.kind {
        ProviderKind::OpenAi | ProviderKind::Azure => openai::poll(http, m, provider_batch_id).await,
        ProviderKind::Anthropic => anthropic::poll(http, m, provider_batch_id).await,
        ProviderKind::Gemini => gemini::poll(http, m, provider_batch_id).await,
        ProviderKind::OpenAiCompatible => Err(no_batch_api(m)),
    }
}

/// Each request's outcome by custom id. `order` is the batch's custom ids in request order (for
/// providers that answer by position). Requests the provider says nothing about are absent.
pub async fn results(
    http: &reqwest::Client,
    m: &ModelHandle,
    polled: &Polled,
    order: &[String],
) -> Result<Vec<(String, Outcome)>, LlmError> {
    match &polled.results {
        Results::Files { output, errors } => openai::results(http, m, output.as_deref(), errors.as_deref()).await,
        Results::Url(url) => anthropic::results(http, m, url).await,
        Results::Inline(items) => Ok(gemini::results(items, order)),
        Results::None => Ok(Vec::new()),
    }
}

fn no_batch_api(m: &ModelHandle) -> LlmError {
    LlmError::Config(format!("{}: OpenAI-compatible servers have no batch API; run it without batch mode.", m.cfg.name))
}

/// A string field the provider's reply must have (a batch's or a file's id).
pub(super) fn required_str(m: &ModelHandle, v: &Value, field: &str, what: &str) -> Result<String, LlmError> {
    v.get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| LlmError::BadResponse { model: m.cfg.name.clone(), reason: format!("{what} has no {field}") })
}

/// A short reason from a provider error object (`{"message": …}` or `{"error": {"message": …}}`).
pub(super) fn error_text(v: &Value) -> String {
    v.pointer("/error/message")
        .or_else(|| v.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string().chars().take(300).collect())
}
