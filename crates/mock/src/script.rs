//! The mock provider's script: rules that match requests and say how to answer, plus faults.
//!
//! ```json
//! {
//!   "latency_ms": 0,
//!   "seed": 7,
//!   "faults": [{"kind": "rate_limit", "rate": 0.1, "retry_after_secs": 0.2}],
//!   "rules": [
//!     {"name": "judge", "when": {"system_contains": "JUDGE"}, "reply": {"json": {"hits": []}}},
//!     {"when": {"model": "asker", "user_turns_max": 1}, "reply": {"text": "..."}},
//!     {"when": {"last_user_regex": "question: (\\w+)"}, "reply": {"template": "you asked {{1}}"},
//!      "fail_first": [{"kind": "server_error"}]}
//!   ],
//!   "default_reply": {"text": "ok"}
//! }
//! ```
//!
//! A reply can come from a reasoning model: `{"reasoning": "…", "form": "think_tags",
//! "answer": {"json": {…}}}` sends the reasoning, then the answer, in one of these forms:
//!
//! | `form`              | OpenAI / Azure                          | Anthropic        | Gemini                |
//! |---------------------|-----------------------------------------|------------------|-----------------------|
//! | `native` (default)  | `message.reasoning_content`             | a thinking block | a part with `thought` |
//! | `reasoning_content` | `message.reasoning_content`             | a thinking block | a part with `thought` |
//! | `reasoning_field`   | `message.reasoning`                     | a thinking block | a part with `thought` |
//! | `think_tags`        | `<think>…</think>` before the answer    | the same, inline | the same, inline      |
//! | `thinking_tags`     | `<thinking>…</thinking>` before it      | the same, inline | the same, inline      |
//! | `think_close`       | the reasoning, `</think>`, the answer   | the same, inline | the same, inline      |
//!
//! `"cut_off": true` sends only the reasoning (an inline block left open) with the finish reason
//! of a reply stopped at its token limit (`length`, `max_tokens`, `MAX_TOKENS`). Reasoning
//! tokens are reported (`reasoning_tokens`, `thoughtsTokenCount`; Anthropic has no such field),
//! estimated from the reasoning's length unless the rule's `usage` gives them, and counted in
//! the output tokens as the providers count them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Something that can go wrong with a reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// HTTP 429 with a Retry-After header.
    RateLimit {
        #[serde(default)]
        retry_after_secs: Option<f64>,
    },
    /// HTTP 500.
    ServerError,
    /// HTTP 503.
    Unavailable,
    /// HTTP 400 (must never be retried).
    BadRequest,
    /// HTTP 401.
    Unauthorized,
    /// HTTP 403 (a key that is valid but not allowed here).
    Forbidden,
    /// Never answers within any sensible timeout (holds the request for `hang_ms`).
    Timeout {
        #[serde(default = "default_hang")]
        hang_ms: u64,
    },
    /// Answers correctly after an extra delay.
    Slow {
        #[serde(default = "default_slow")]
        extra_ms: u64,
    },
    /// HTTP 200 with a body that is not JSON.
    MalformedJson,
    /// HTTP 200 whose body stops early (the connection closes mid-body).
    Truncated,
    /// HTTP 200 with an HTML page instead of JSON.
    WrongContentType,
    /// The connection is reset after the request arrived: no status, no body.
    Reset,
}

fn default_hang() -> u64 {
    60_000
}
fn default_slow() -> u64 {
    500
}

/// A fault injected at random at a given rate (0–1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultRate {
    #[serde(flatten)]
    pub fault: Fault,
    pub rate: f64,
}

/// Conditions on a request; all given conditions must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct When {
    /// `openai`, `azure`, `anthropic` or `gemini`.
    pub api: Option<String>,
    pub model: Option<String>,
    pub system_contains: Option<String>,
    pub last_user_contains: Option<String>,
    /// Regex on the last user message; its capture groups are available to templates as {{1}}, {{2}}, …
    pub last_user_regex: Option<String>,
    /// Regex on the whole conversation text (system + all messages).
    pub any_regex: Option<String>,
    /// Number of user messages in the conversation.
    pub user_turns_min: Option<usize>,
    pub user_turns_max: Option<usize>,
    /// Structured output requested: `json_schema`, `json` or `text`.
    pub response_format: Option<String>,
}

/// How a rule answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reply {
    /// A reasoning model's reply: its reasoning (with the same placeholders as a template), then
    /// `answer` (any other reply), sent in the shape `form` names. With `cut_off`, the model
    /// was stopped at its token limit while still reasoning: the answer is not sent, an inline
    /// block is left open, and the finish reason says so.
    Reasoned {
        reasoning: String,
        #[serde(default)]
        form: ReasoningForm,
        #[serde(default)]
        answer: Option<Box<Reply>>,
        #[serde(default)]
        cut_off: bool,
    },
    Text {
        text: String,
    },
    /// A JSON value; string values may hold {{placeholders}}.
    Json {
        json: Value,
    },
    /// Text with {{last_user}}, {{system}}, {{model}}, {{n}}, {{1}}… placeholders.
    Template {
        template: String,
    },
}

/// Where a reasoning reply puts its reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningForm {
    /// The provider's own shape: `reasoning_content` on OpenAI and Azure, a thinking block on
    /// Anthropic, a thought part on Gemini.
    #[default]
    Native,
    /// `<think>…</think>` at the start of the content.
    ThinkTags,
    /// `<thinking>…</thinking>` at the start of the content.
    ThinkingTags,
    /// Only a closing `</think>` after the reasoning, as servers whose chat template opened the
    /// block send it.
    ThinkClose,
    /// The message's `reasoning_content` field (OpenAI-style APIs; native elsewhere).
    ReasoningContent,
    /// The message's `reasoning` field (OpenAI-style APIs; native elsewhere).
    ReasoningField,
}

/// Token counts to report instead of the estimate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageOverride {
    pub input_tokens: Option<u64>,
    /// Every generated token, the reasoning included (Gemini's `candidatesTokenCount` is sent
    /// without the reasoning, as Gemini counts it).
    pub output_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub when: When,
    /// One reply, or…
    #[serde(default)]
    pub reply: Option<Reply>,
    /// …a sequence used in order (the last one repeats).
    #[serde(default)]
    pub replies: Vec<Reply>,
    /// Faults returned for the first matching requests, in order, before any success.
    #[serde(default)]
    pub fail_first: Vec<Fault>,
    #[serde(default)]
    pub latency_ms: Option<u64>,
    #[serde(default)]
    pub usage: Option<UsageOverride>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// Added to every reply.
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub faults: Vec<FaultRate>,
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// Used when no rule matches; without it an unmatched request gets HTTP 400 naming the problem.
    #[serde(default)]
    pub default_reply: Option<Reply>,
    /// Share of input tokens reported as cached (0–1).
    #[serde(default)]
    pub cached_fraction: f64,
    /// When set, requests must carry this key (as Bearer, api-key, x-api-key or x-goog-api-key).
    #[serde(default)]
    pub require_key: Option<String>,
    /// Response formats (`json_schema`, `json`) answered with HTTP 500 and a validation message
    /// naming `response_format`, as some local servers do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refuse_response_formats: Vec<String>,
    /// When not empty, a chat request for any other model id gets HTTP 404 with an OpenAI-style
    /// `model_not_found` error naming the model, as providers answer an unknown model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_models: Vec<String>,
    /// Model ids `GET /v1/models` lists (default: the models the rules name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub served_models: Vec<String>,
    /// How the batch endpoints behave.
    #[serde(default)]
    pub batch: BatchBehaviour,
    /// Requests no rule matches are answered by the demo model (`crate::demo`), a simulation
    /// that plays every role of the application; `GET /v1/models` then marks its models as
    /// simulated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub demo: bool,
}

/// The batch endpoints' behaviour (OpenAI/Azure Batch, Anthropic Message Batches, Gemini batch
/// mode). Every request of a batch is answered by the rules when the batch is created; the
/// results show once the delay has passed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchBehaviour {
    /// Milliseconds from a batch's creation until it ends.
    #[serde(default)]
    pub delay_ms: u64,
    /// In the first `fail_batches` batches, every `fail_every`-th request (1-based) fails with a
    /// server error inside the batch (0: none).
    #[serde(default)]
    pub fail_every: u32,
    #[serde(default)]
    pub fail_batches: u32,
    /// The first `expire_batches` batches expire: only the first half of their requests are answered.
    #[serde(default)]
    pub expire_batches: u32,
}

impl Script {
    pub fn from_json(text: &str) -> Result<Script, String> {
        let s: Script = serde_json::from_str(text).map_err(|e| format!("the mock script is not valid: {e}"))?;
        for (i, r) in s.rules.iter().enumerate() {
            if r.reply.is_none() && r.replies.is_empty() && r.fail_first.is_empty() {
                return Err(format!("rule #{} has no reply", i + 1));
            }
            for re in [&r.when.last_user_regex, &r.when.any_regex].into_iter().flatten() {
                regex::Regex::new(re).map_err(|e| format!("rule #{}: bad regex: {e}", i + 1))?;
            }
        }
        Ok(s)
    }

    /// The demo model's script (`psebench mock-llm serve --demo`): every request is answered by
    /// the demo model, and the model list shows `demo`.
    pub fn demo() -> Script {
        Script { demo: true, served_models: vec![crate::demo::DEMO_MODEL_ID.to_string()], ..Default::default() }
    }

    /// A script that answers everything with `text`.
    pub fn always(text: &str) -> Script {
        Script { default_reply: Some(Reply::Text { text: text.to_string() }), ..Default::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reasoning_reply_is_read_from_a_script_and_other_replies_are_unchanged() {
        let s = Script::from_json(
            r#"{"rules": [
                {"reply": {"reasoning": "hmm {x}", "form": "think_tags", "answer": {"json": {"a": 1}}}},
                {"reply": {"reasoning": "still thinking", "cut_off": true}},
                {"reply": {"text": "plain"}}
            ]}"#,
        )
        .expect("valid script");
        let replies: Vec<&Reply> = s.rules.iter().filter_map(|r| r.reply.as_ref()).collect();
        assert_eq!(
            replies[0],
            &Reply::Reasoned {
                reasoning: "hmm {x}".into(),
                form: ReasoningForm::ThinkTags,
                answer: Some(Box::new(Reply::Json { json: serde_json::json!({"a": 1}) })),
                cut_off: false,
            }
        );
        assert!(matches!(replies[1], Reply::Reasoned { form: ReasoningForm::Native, answer: None, cut_off: true, .. }));
        assert_eq!(replies[2], &Reply::Text { text: "plain".into() });
    }
}
