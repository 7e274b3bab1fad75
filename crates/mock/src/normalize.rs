//! Reading a request in any of the three wire formats into one neutral shape for rule matching,
//! with the checks a real provider would make (missing fields get a 400).

use axum::http::HeaderMap;
use serde_json::Value;

/// Which wire format a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    OpenAi,
    Azure,
    Anthropic,
    Gemini,
}

impl Api {
    pub fn as_str(self) -> &'static str {
        match self {
            Api::OpenAi => "openai",
            Api::Azure => "azure",
            Api::Anthropic => "anthropic",
            Api::Gemini => "gemini",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Normalized {
    pub api: Api,
    pub model: String,
    pub system: String,
    /// (role, text) in order, system excluded; roles are "user" or "assistant".
    pub messages: Vec<(String, String)>,
    /// `json_schema`, `json` or `text`.
    pub response_format: String,
    /// Anthropic: the request forced a tool (reply must be a tool_use block).
    pub forced_tool: Option<String>,
    /// Anthropic: the last message is an assistant prefill.
    pub prefill: Option<String>,
    pub key: Option<String>,
}

impl Normalized {
    pub fn last_user(&self) -> &str {
        self.messages.iter().rev().find(|(r, _)| r == "user").map(|(_, t)| t.as_str()).unwrap_or("")
    }
    pub fn user_turns(&self) -> usize {
        self.messages.iter().filter(|(r, _)| r == "user").count()
    }
    pub fn all_text(&self) -> String {
        let mut s = self.system.clone();
        for (_, t) in &self.messages {
            s.push('\n');
            s.push_str(t);
        }
        s
    }
    pub fn input_chars(&self) -> usize {
        self.system.len() + self.messages.iter().map(|(_, t)| t.len()).sum::<usize>()
    }
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        _ => String::new(),
    }
}

pub fn openai(body: &Value, headers: &HeaderMap, azure_deployment: Option<&str>) -> Result<Normalized, String> {
    let api = if azure_deployment.is_some() { Api::Azure } else { Api::OpenAi };
    let model = match azure_deployment {
        Some(d) => d.to_string(),
        None => body.get("model").and_then(Value::as_str).ok_or("you must provide a model parameter")?.to_string(),
    };
    let msgs = body.get("messages").and_then(Value::as_array).ok_or("'messages' is a required property")?;
    if msgs.is_empty() {
        return Err("'messages' must not be empty".into());
    }
    let mut system = Vec::new();
    let mut messages = Vec::new();
    for m in msgs {
        let role = m.get("role").and_then(Value::as_str).ok_or("each message needs a role")?;
        let text = text_of(m.get("content").unwrap_or(&Value::Null));
        match role {
            "system" | "developer" => system.push(text),
            "user" | "assistant" => messages.push((role.to_string(), text)),
            other => return Err(format!("unsupported role '{other}'")),
        }
    }
    let response_format = body
        .pointer("/response_format/type")
        .and_then(Value::as_str)
        .map(|t| if t == "json_object" { "json".to_string() } else { t.to_string() })
        .unwrap_or_else(|| "text".into());
    let key = if api == Api::Azure {
        header(headers, "api-key")
    } else {
        header(headers, "authorization").and_then(|v| v.strip_prefix("Bearer ").map(str::to_string))
    };
    Ok(Normalized {
        api,
        model,
        system: system.join("\n\n"),
        messages,
        response_format,
        forced_tool: None,
        prefill: None,
        key,
    })
}

pub fn anthropic(body: &Value, headers: &HeaderMap) -> Result<Normalized, String> {
    if header(headers, "anthropic-version").is_none() {
        return Err("anthropic-version: header is required".into());
    }
    let model = body.get("model").and_then(Value::as_str).ok_or("model: Field required")?.to_string();
    if body.get("max_tokens").and_then(Value::as_u64).is_none() {
        return Err("max_tokens: Field required".into());
    }
    let msgs = body.get("messages").and_then(Value::as_array).ok_or("messages: Field required")?;
    let mut messages = Vec::new();
    for m in msgs {
        let role = m.get("role").and_then(Value::as_str).ok_or("messages: each message needs a role")?;
        if role != "user" && role != "assistant" {
            return Err(format!(
                "messages: unexpected role \"{role}\" (system text belongs in the top-level system field)"
            ));
        }
        messages.push((role.to_string(), text_of(m.get("content").unwrap_or(&Value::Null))));
    }
    if messages.first().map(|(r, _)| r != "user").unwrap_or(true) {
        return Err("messages: first message must use the \"user\" role".into());
    }
    let system = body.get("system").map(text_of).unwrap_or_default();
    let forced_tool = body.pointer("/tool_choice/name").and_then(Value::as_str).map(str::to_string);
    let prefill = match messages.last() {
        Some((r, t)) if r == "assistant" => Some(t.clone()),
        _ => None,
    };
    let response_format = if forced_tool.is_some() {
        "json_schema"
    } else if prefill.as_deref().map(|p| p.trim_start().starts_with('{')).unwrap_or(false) {
        "json"
    } else {
        "text"
    };
    Ok(Normalized {
        api: Api::Anthropic,
        model,
        system,
        messages,
        response_format: response_format.into(),
        forced_tool,
        prefill,
        key: header(headers, "x-api-key"),
    })
}

pub fn gemini(body: &Value, headers: &HeaderMap, model: &str) -> Result<Normalized, String> {
    let contents = body
        .get("contents")
        .and_then(Value::as_array)
        .ok_or("* GenerateContentRequest.contents: contents is not specified")?;
    let mut messages = Vec::new();
    for c in contents {
        let role = match c.get("role").and_then(Value::as_str).unwrap_or("user") {
            "model" => "assistant",
            _ => "user",
        };
        messages.push((role.to_string(), text_of(c.get("parts").unwrap_or(&Value::Null))));
    }
    let system = body.pointer("/systemInstruction/parts").map(text_of).unwrap_or_default();
    let response_format = if body.pointer("/generationConfig/responseSchema").is_some() {
        "json_schema"
    } else if body.pointer("/generationConfig/responseMimeType").and_then(Value::as_str) == Some("application/json") {
        "json"
    } else {
        "text"
    };
    Ok(Normalized {
        api: Api::Gemini,
        model: model.to_string(),
        system,
        messages,
        response_format: response_format.into(),
        forced_tool: None,
        prefill: None,
        key: header(headers, "x-goog-api-key"),
    })
}
