//! Each provider's real wire format: building the HTTP request and reading the reply.

pub mod anthropic;
pub mod encode;
pub mod gemini;
pub mod openai;

use serde_json::Value;

use super::config::{ModelConfig, ProviderKind};
use super::types::{ChatRequest, Usage};

/// A request ready to send. Header values may hold the API key: never log them.
pub struct HttpCall {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

impl HttpCall {
    /// The body as sent: JSON bytes, made once per call and shared by its attempts.
    pub fn body_bytes(&self) -> bytes::Bytes {
        bytes::Bytes::from(encode::to_bytes(&self.body))
    }
}

/// What a provider's success body says.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedReply {
    pub text: String,
    pub usage: Usage,
    pub finish_reason: Option<String>,
    pub provider_model: Option<String>,
}

/// The headers that identify the caller to the provider (key, API version), without a content
/// type. Values may hold the API key: never log them.
pub fn auth_headers(cfg: &ModelConfig, key: Option<&str>) -> Vec<(&'static str, String)> {
    let mut h = Vec::new();
    match cfg.kind {
        ProviderKind::Anthropic => {
            h.push((
                "anthropic-version",
                cfg.api_version.clone().unwrap_or_else(|| anthropic::DEFAULT_VERSION.to_string()),
            ));
            if let Some(k) = key {
                h.push(("x-api-key", k.to_string()));
            }
        }
        ProviderKind::Gemini => {
            if let Some(k) = key {
                h.push(("x-goog-api-key", k.to_string()));
            }
        }
        ProviderKind::Azure => {
            if let Some(k) = key {
                h.push(("api-key", k.to_string()));
            }
        }
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
            if let Some(k) = key {
                h.push(("authorization", format!("Bearer {k}")));
            }
        }
    }
    h
}

/// Build the HTTP request for `req` to the model's provider.
pub fn build(cfg: &ModelConfig, key: Option<&str>, req: &ChatRequest) -> HttpCall {
    match cfg.kind {
        ProviderKind::OpenAiCompatible | ProviderKind::OpenAi | ProviderKind::Azure => openai::build(cfg, key, req),
        ProviderKind::Anthropic => anthropic::build(cfg, key, req),
        ProviderKind::Gemini => gemini::build(cfg, key, req),
    }
}

/// Read a success body. Errors are short reasons (the caller adds the model name).
pub fn parse(cfg: &ModelConfig, req: &ChatRequest, body: &Value) -> Result<ParsedReply, String> {
    match cfg.kind {
        ProviderKind::OpenAiCompatible | ProviderKind::OpenAi | ProviderKind::Azure => openai::parse(body),
        ProviderKind::Anthropic => anthropic::parse(req, body),
        ProviderKind::Gemini => gemini::parse(body),
    }
}

pub(crate) fn u64_at(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr).and_then(Value::as_u64).unwrap_or(0)
}
