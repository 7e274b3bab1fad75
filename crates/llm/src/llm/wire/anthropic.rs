//! Anthropic Messages API. System prompts go in `system` (cache-marked when long, so a shared
//! policy prefix is cached); JSON schemas are enforced with a forced tool; plain JSON with a prefill.

use serde_json::{json, Map, Value};

use super::{u64_at, HttpCall, ParsedReply};
use crate::llm::config::ModelConfig;
use crate::llm::reasoning;
use crate::llm::types::{ChatRequest, ResponseFormat, Role, Usage};

pub const DEFAULT_VERSION: &str = "2023-06-01";
/// Anthropic requires max_tokens; used when neither the request nor the model sets it.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
/// System prompts longer than this (characters) are marked for prompt caching.
const CACHE_MARK_CHARS: usize = 4000;
/// Stands in the reasoning for a thinking block the provider sent encrypted.
const REDACTED_NOTE: &str = "[part of the reasoning was withheld by the provider]";
const TOOL_DESCRIPTION: &str = "Return the answer as the tool input, following the schema exactly.";

fn wants_prefill(req: &ChatRequest) -> bool {
    matches!(req.response_format, ResponseFormat::Json)
        && req.messages.last().map(|m| m.role == Role::User).unwrap_or(false)
}

pub fn build(cfg: &ModelConfig, key: Option<&str>, req: &ChatRequest) -> HttpCall {
    let url = format!("{}/v1/messages", cfg.base_url.trim_end_matches('/'));
    let mut headers = vec![("content-type", "application/json".to_string())];
    headers.extend(super::auth_headers(cfg, key));
    let system = req.system_text();
    let mut messages: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| json!({"role": if m.role == Role::Assistant { "assistant" } else { "user" }, "content": m.content}))
        .collect();
    if wants_prefill(req) {
        messages.push(json!({"role": "assistant", "content": "{"}));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(cfg.model));
    body.insert("max_tokens".into(), json!(req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)));
    if !system.is_empty() {
        if system.len() >= CACHE_MARK_CHARS {
            body.insert(
                "system".into(),
                json!([{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]),
            );
        } else {
            body.insert("system".into(), json!(system));
        }
    }
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let ResponseFormat::JsonSchema { name, schema } = &req.response_format {
        body.insert("tools".into(), json!([{"name": name, "description": TOOL_DESCRIPTION, "input_schema": schema}]));
        body.insert("tool_choice".into(), json!({"type": "tool", "name": name}));
    }
    HttpCall { url, headers, body: Value::Object(body) }
}

pub fn parse(req: &ChatRequest, body: &Value) -> Result<ParsedReply, String> {
    let blocks = body.get("content").and_then(Value::as_array).ok_or("no content blocks in the reply")?;
    let mut text = String::new();
    let mut thinking: Vec<&str> = Vec::new();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("thinking") => thinking.extend(b.get("thinking").and_then(Value::as_str)),
            // Encrypted by the provider: nothing to show but that it was there.
            Some("redacted_thinking") => thinking.push(REDACTED_NOTE),
            Some("tool_use") => {
                if let Some(input) = b.get("input") {
                    text = serde_json::to_string(input).map_err(|e| e.to_string())?;
                    break;
                }
            }
            _ => {}
        }
    }
    let native = thinking.iter().map(|t| t.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n\n");
    let (mut text, reasoning) = reasoning::separate(&text, Some(native));
    if wants_prefill(req) && !text.trim_start().starts_with('{') {
        text.insert(0, '{');
    }
    let u = body.get("usage").cloned().unwrap_or(Value::Null);
    let cached = u64_at(&u, "/cache_read_input_tokens");
    let usage = Usage {
        // Anthropic reports cache reads separately from input_tokens; we count them as input.
        input_tokens: u64_at(&u, "/input_tokens") + cached + u64_at(&u, "/cache_creation_input_tokens"),
        output_tokens: u64_at(&u, "/output_tokens"),
        cached_input_tokens: cached,
        // Anthropic counts thinking in output_tokens and does not say how much of it there was.
        reasoning_tokens: 0,
    };
    Ok(ParsedReply {
        text,
        reasoning,
        usage,
        finish_reason: body.get("stop_reason").and_then(Value::as_str).map(str::to_string),
        provider_model: body.get("model").and_then(Value::as_str).map(str::to_string),
    })
}
