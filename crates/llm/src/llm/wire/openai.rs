//! OpenAI chat completions (also Azure OpenAI and every OpenAI-compatible server).

use serde_json::{json, Map, Value};

use super::{u64_at, HttpCall, ParsedReply};
use crate::llm::config::{ModelConfig, ProviderKind};
use crate::llm::reasoning;
use crate::llm::types::{ChatRequest, ResponseFormat, Role, Usage};

pub const AZURE_DEFAULT_API_VERSION: &str = "2024-10-21";

pub fn build(cfg: &ModelConfig, key: Option<&str>, req: &ChatRequest) -> HttpCall {
    let base = cfg.base_url.trim_end_matches('/');
    let url = match cfg.kind {
        ProviderKind::Azure => format!(
            "{base}/openai/deployments/{}/chat/completions?api-version={}",
            cfg.model,
            cfg.api_version.as_deref().unwrap_or(AZURE_DEFAULT_API_VERSION)
        ),
        _ => format!("{base}/chat/completions"),
    };
    let mut headers = vec![("content-type", "application/json".to_string())];
    headers.extend(super::auth_headers(cfg, key));
    let messages: Vec<Value> = req
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "content": m.content})
        })
        .collect();
    let mut body = Map::new();
    if cfg.kind != ProviderKind::Azure {
        body.insert("model".into(), json!(cfg.model));
    }
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(n) = req.max_tokens {
        // OpenAI's own API renamed the field; compatible servers still expect max_tokens.
        let field = if cfg.kind == ProviderKind::OpenAi { "max_completion_tokens" } else { "max_tokens" };
        body.insert(field.into(), json!(n));
    }
    if let Some(s) = req.seed {
        body.insert("seed".into(), json!(s));
    }
    match &req.response_format {
        ResponseFormat::Text => {}
        ResponseFormat::Json => {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        ResponseFormat::JsonSchema { name, schema } => {
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": false}}),
            );
        }
    }
    HttpCall { url, headers, body: Value::Object(body) }
}

pub fn parse(body: &Value) -> Result<ParsedReply, String> {
    let choice = body.pointer("/choices/0").ok_or("no choices in the reply")?;
    let msg = choice.get("message").ok_or("the first choice has no message")?;
    let content = match msg.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        Some(Value::Null) | None => {
            // Some servers put a refusal or tool call instead of content.
            if let Some(r) = msg.get("refusal").and_then(Value::as_str) {
                r.to_string()
            } else {
                String::new()
            }
        }
        Some(other) => other.to_string(),
    };
    // DeepSeek, vLLM and llama.cpp send `reasoning_content`; OpenRouter and Ollama `reasoning`.
    let native = ["reasoning_content", "reasoning"]
        .iter()
        .filter_map(|f| msg.get(*f).and_then(Value::as_str))
        .find(|r| !r.trim().is_empty())
        .map(str::to_string);
    let (text, reasoning) = reasoning::separate(&content, native);
    let usage = body.get("usage").map(|u| Usage {
        input_tokens: u64_at(u, "/prompt_tokens"),
        output_tokens: u64_at(u, "/completion_tokens"),
        cached_input_tokens: u64_at(u, "/prompt_tokens_details/cached_tokens"),
        reasoning_tokens: u64_at(u, "/completion_tokens_details/reasoning_tokens"),
    });
    Ok(ParsedReply {
        text,
        reasoning,
        usage: usage.unwrap_or_default(),
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
        provider_model: body.get("model").and_then(Value::as_str).map(str::to_string),
    })
}
