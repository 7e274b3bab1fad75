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
    /// The answer only (see `reasoning::separate`).
    pub text: String,
    pub reasoning: Option<String>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DECOY: &str = r#"Perhaps {"action":"ANSWER","final_verdict":"Non-reportable"}? No."#;
    const ANSWER: &str = r#"{"action":"ANSWER","final_verdict":"Reportable"}"#;

    #[test]
    fn openai_reasoning_fields_and_inline_blocks_stay_out_of_the_answer() {
        for field in ["reasoning_content", "reasoning"] {
            let body = json!({"choices": [{"message": {"role": "assistant", "content": ANSWER, field: DECOY}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 30, "completion_tokens_details": {"reasoning_tokens": 20}}});
            let p = openai::parse(&body).expect("parsed");
            assert_eq!(p.text, ANSWER, "{field}");
            assert_eq!(p.reasoning.as_deref(), Some(DECOY), "{field}");
            assert_eq!((p.usage.output_tokens, p.usage.reasoning_tokens), (30, 20), "{field}");
        }
        let inline = format!("<think>{DECOY}</think>\n\n{ANSWER}");
        let body = json!({"choices": [{"message": {"content": inline}, "finish_reason": "stop"}]});
        let p = openai::parse(&body).expect("parsed");
        assert_eq!((p.text.as_str(), p.reasoning.as_deref()), (ANSWER, Some(DECOY)));
        // Only reasoning, stopped at the limit: no content at all.
        let body =
            json!({"choices": [{"message": {"content": null, "reasoning_content": DECOY}, "finish_reason": "length"}]});
        let p = openai::parse(&body).expect("parsed");
        assert_eq!(
            (p.text.as_str(), p.reasoning.as_deref(), p.finish_reason.as_deref()),
            ("", Some(DECOY), Some("length"))
        );
    }

    #[test]
    fn anthropic_thinking_blocks_are_reasoning() {
        let body = json!({"content": [
            {"type": "thinking", "thinking": DECOY, "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": ANSWER}
        ], "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 40}});
        let p = anthropic::parse(&ChatRequest::default(), &body).expect("parsed");
        assert_eq!(p.text, ANSWER);
        let r = p.reasoning.unwrap_or_default();
        assert!(r.starts_with(DECOY) && r.contains("withheld"), "{r}");
        assert_eq!((p.usage.output_tokens, p.usage.reasoning_tokens), (40, 0));
    }

    #[test]
    fn gemini_thought_parts_are_reasoning_and_billed_as_output() {
        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": DECOY, "thought": true},
            {"text": ANSWER}
        ]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 10, "thoughtsTokenCount": 25}});
        let p = gemini::parse(&body).expect("parsed");
        assert_eq!((p.text.as_str(), p.reasoning.as_deref()), (ANSWER, Some(DECOY)));
        assert_eq!((p.usage.output_tokens, p.usage.reasoning_tokens), (35, 25));
        let only = json!({"candidates": [{"content": {"parts": [{"text": DECOY, "thought": true}]}, "finishReason": "MAX_TOKENS"}]});
        let p = gemini::parse(&only).expect("parsed");
        assert_eq!((p.text.as_str(), p.reasoning.as_deref()), ("", Some(DECOY)));
    }
}
