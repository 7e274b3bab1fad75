//! Whether a model's endpoint is a simulation. The built-in demo model (and any OpenAI-compatible
//! server that wants its results labelled so) lists its models at `GET <base>/models` with
//! `"simulation": true`. The engine asks once, when a model on this computer is registered, and
//! records the answer with the model; runs copy it, and every view of their results shows it.

use std::time::Duration;

use serde_json::Value;

use crate::llm::{ModelConfig, ProviderKind};

/// How long the registration waits for the model list.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What the endpoint says: `Some(true)` when its model list marks a model as a simulation,
/// `Some(false)` when it answers without the mark, `None` when it could not be asked (not an
/// OpenAI-compatible endpoint on this computer, not running, or no model list).
pub async fn endpoint_says_simulation(cfg: &ModelConfig) -> Option<bool> {
    if cfg.kind != ProviderKind::OpenAiCompatible || !cfg.is_loopback() {
        return None;
    }
    let client = reqwest::Client::builder().no_proxy().timeout(PROBE_TIMEOUT).build().ok()?;
    let url = format!("{}/models", cfg.base_url.trim_end_matches('/'));
    let resp = client.get(&url).send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    let body: Value = resp.json().await.ok()?;
    Some(lists_simulation(&body))
}

/// True when an OpenAI-style model list marks any of its models `"simulation": true`.
pub fn lists_simulation(body: &Value) -> bool {
    body.get("data")
        .and_then(Value::as_array)
        .map(|models| models.iter().any(|m| m.get("simulation").and_then(Value::as_bool) == Some(true)))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_marked_model_list_is_a_simulation() {
        assert!(lists_simulation(&json!({"data": [{"id": "demo", "simulation": true}]})));
        assert!(!lists_simulation(&json!({"data": [{"id": "llama", "owned_by": "me"}]})));
        assert!(!lists_simulation(&json!({"data": [{"id": "x", "simulation": "yes"}]})));
        assert!(!lists_simulation(&json!({"object": "error"})));
    }
}
