//! Google Gemini `generateContent`. The key travels in a header (never in the URL), system text
//! in `systemInstruction`, JSON schemas as `responseSchema` (converted to Gemini's schema subset).

use serde_json::{json, Map, Value};

use super::{u64_at, HttpCall, ParsedReply};
use crate::llm::config::ModelConfig;
use crate::llm::reasoning;
use crate::llm::types::{ChatRequest, ResponseFormat, Role, Usage};

pub fn build(cfg: &ModelConfig, key: Option<&str>, req: &ChatRequest) -> HttpCall {
    let url = format!("{}/v1beta/models/{}:generateContent", cfg.base_url.trim_end_matches('/'), cfg.model);
    let mut headers = vec![("content-type", "application/json".to_string())];
    headers.extend(super::auth_headers(cfg, key));
    let contents: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| json!({"role": if m.role == Role::Assistant { "model" } else { "user" }, "parts": [{"text": m.content}]}))
        .collect();
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents));
    let system = req.system_text();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
    }
    let mut gen = Map::new();
    if let Some(t) = req.temperature {
        gen.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.top_p {
        gen.insert("topP".into(), json!(p));
    }
    if let Some(n) = req.max_tokens {
        gen.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(s) = req.seed {
        gen.insert("seed".into(), json!(s));
    }
    match &req.response_format {
        ResponseFormat::Text => {}
        ResponseFormat::Json => {
            gen.insert("responseMimeType".into(), json!("application/json"));
        }
        ResponseFormat::JsonSchema { schema, .. } => {
            gen.insert("responseMimeType".into(), json!("application/json"));
            gen.insert("responseSchema".into(), to_gemini_schema(schema));
        }
    }
    if !gen.is_empty() {
        body.insert("generationConfig".into(), Value::Object(gen));
    }
    HttpCall { url, headers, body: Value::Object(body) }
}

/// Gemini accepts an OpenAPI-style subset of JSON Schema: no `additionalProperties`, `$schema`,
/// `$defs`, `const`; nullable types as `nullable: true`.
pub fn to_gemini_schema(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, val) in m {
                match k.as_str() {
                    "additionalProperties"
                    | "$schema"
                    | "$id"
                    | "$defs"
                    | "definitions"
                    | "title"
                    | "const"
                    | "examples"
                    | "default" => {}
                    "type" => match val {
                        Value::Array(types) => {
                            let non_null: Vec<&Value> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
                            if let Some(t) = non_null.first() {
                                out.insert("type".into(), (*t).clone());
                            }
                            if non_null.len() < types.len() {
                                out.insert("nullable".into(), json!(true));
                            }
                        }
                        other => {
                            out.insert("type".into(), other.clone());
                        }
                    },
                    "properties" => {
                        let props: Map<String, Value> = val
                            .as_object()
                            .map(|p| p.iter().map(|(n, s)| (n.clone(), to_gemini_schema(s))).collect())
                            .unwrap_or_default();
                        out.insert("properties".into(), Value::Object(props));
                    }
                    _ => {
                        out.insert(k.clone(), to_gemini_schema(val));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(to_gemini_schema).collect()),
        other => other.clone(),
    }
}

pub fn parse(body: &Value) -> Result<ParsedReply, String> {
    let cand = body.pointer("/candidates/0").ok_or_else(|| {
        match body.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
            Some(r) => format!("the prompt was blocked ({r})"),
            None => "no candidates in the reply".to_string(),
        }
    })?;
    let parts: &[Value] = cand.pointer("/content/parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let is_thought = |p: &&Value| p.get("thought").and_then(Value::as_bool) == Some(true);
    let texts = |thought: bool| {
        parts
            .iter()
            .filter(|p| is_thought(p) == thought)
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
    };
    let content = texts(false).join("");
    let thoughts = texts(true).iter().map(|t| t.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n\n");
    let (text, reasoning) = reasoning::separate(&content, Some(thoughts));
    let u = body.get("usageMetadata").cloned().unwrap_or(Value::Null);
    let thoughts_tokens = u64_at(&u, "/thoughtsTokenCount");
    Ok(ParsedReply {
        text,
        reasoning,
        usage: Usage {
            input_tokens: u64_at(&u, "/promptTokenCount"),
            // Gemini counts thinking apart from the answer; it is billed as output all the same.
            output_tokens: u64_at(&u, "/candidatesTokenCount") + thoughts_tokens,
            cached_input_tokens: u64_at(&u, "/cachedContentTokenCount"),
            reasoning_tokens: thoughts_tokens,
        },
        finish_reason: cand.get("finishReason").and_then(Value::as_str).map(str::to_string),
        provider_model: body.get("modelVersion").and_then(Value::as_str).map(str::to_string),
    })
}
