//! Provider-neutral request and response types.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One message of a conversation. Its text is shared, not copied, when the message is cloned:
/// a run's system prompt (the whole policy, tens of KB) is one allocation however many cases,
/// turns and queued batch requests hold it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Message {
    pub role: Role,
    #[ts(type = "string")]
    pub content: Arc<str>,
}

/// Text a message can be made of: owned or borrowed text is copied once, an `Arc<str>` is shared.
pub trait MessageText {
    fn into_text(self) -> Arc<str>;
}

impl MessageText for Arc<str> {
    fn into_text(self) -> Arc<str> {
        self
    }
}

impl MessageText for &Arc<str> {
    fn into_text(self) -> Arc<str> {
        self.clone()
    }
}

impl MessageText for String {
    fn into_text(self) -> Arc<str> {
        self.into()
    }
}

impl MessageText for &String {
    fn into_text(self) -> Arc<str> {
        self.as_str().into()
    }
}

impl MessageText for &str {
    fn into_text(self) -> Arc<str> {
        self.into()
    }
}

impl Message {
    pub fn system(s: impl MessageText) -> Message {
        Message { role: Role::System, content: s.into_text() }
    }
    pub fn user(s: impl MessageText) -> Message {
        Message { role: Role::User, content: s.into_text() }
    }
    pub fn assistant(s: impl MessageText) -> Message {
        Message { role: Role::Assistant, content: s.into_text() }
    }
}

/// What shape the reply must have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    #[default]
    Text,
    /// Any JSON object.
    Json,
    /// A JSON object matching `schema` (OpenAI `json_schema`, Anthropic forced tool, Gemini `responseSchema`).
    /// The schema is shared by the copies of a request (the client's, a queued batch line's).
    JsonSchema {
        name: String,
        #[ts(as = "Value")]
        schema: Arc<Value>,
    },
}

/// One chat request. Sampling fields left as None use the model's registered defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, ts_rs::TS)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<i64>,
    #[serde(default)]
    pub response_format: ResponseFormat,
    /// Which repetition of an otherwise identical request this is (part of the cache key, never sent).
    #[serde(default)]
    pub repeat: u32,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> ChatRequest {
        ChatRequest { messages, ..Default::default() }
    }
    pub fn json_schema(mut self, name: &str, schema: Value) -> ChatRequest {
        self.response_format = ResponseFormat::JsonSchema { name: name.to_string(), schema: Arc::new(schema) };
        self
    }
    pub fn system_text(&self) -> String {
        self.messages.iter().filter(|m| m.role == Role::System).map(|m| &*m.content).collect::<Vec<_>>().join("\n\n")
    }
}

/// Token usage as reported by the provider. `output_tokens` counts every generated token,
/// the reasoning included; `reasoning_tokens` is the part of them spent on reasoning, where the
/// provider reports it (OpenAI-compatible servers that do, Gemini; Anthropic does not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub reasoning_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, o: &Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cached_input_tokens += o.cached_input_tokens;
        self.reasoning_tokens += o.reasoning_tokens;
    }
}

/// What came back (from the provider or the cache).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChatResponse {
    /// The answer, without the model's reasoning (see `reasoning`).
    pub text: String,
    /// What a reasoning model wrote before its answer (inline think blocks, a separate reasoning
    /// field, Anthropic thinking blocks, Gemini thought parts); never part of `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reasoning: Option<String>,
    pub usage: Usage,
    pub finish_reason: Option<String>,
    /// The model id the provider says answered.
    pub provider_model: Option<String>,
    #[serde(default)]
    pub cache_hit: bool,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub cost_usd: f64,
    /// What went wrong with the attempts before the one that answered (429s, 5xx, timeouts,
    /// unreadable bodies, cut connections), oldest first; empty when the first attempt answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_attempts: Vec<String>,
    /// The call's row in the ledger (`ledger`), to add the caller's reading of the reply to;
    /// None when the row could not be written.
    #[serde(skip)]
    #[ts(skip)]
    pub call_id: Option<i64>,
}
