//! What a plan says about batch mode: the estimated cost online and through batches, which
//! models would be batched, and how long the providers may take.

use serde::{Deserialize, Serialize};

use crate::llm::config::{ModelConfig, BATCH_PRICE_FACTOR};

/// Batch mode in a run's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BatchNote {
    /// The run is (to be) made in batch mode.
    pub requested: bool,
    /// Models whose calls would go through their provider's batch API.
    pub batched_models: Vec<String>,
    /// Models called directly all the same (OpenAI-compatible servers have no batch API).
    pub direct_models: Vec<String>,
    /// The longest completion window of the batched models' providers, in plain words.
    pub completion_window: Option<String>,
    /// One sentence for the plan (empty when batch mode is neither asked for nor possible).
    pub note: String,
}

/// The batch note for a run using `models` (a model may be listed for several roles).
pub fn note(requested: bool, models: &[&ModelConfig]) -> BatchNote {
    let mut batched: Vec<String> = Vec::new();
    let mut direct: Vec<String> = Vec::new();
    let mut window = None;
    for m in models {
        let list = if m.supports_batch() { &mut batched } else { &mut direct };
        if !list.contains(&m.name) {
            list.push(m.name.clone());
        }
        if let Some(w) = m.kind.batch_window() {
            // Gemini's is the longest of the three.
            if window.is_none() || w.len() > window.map(str::len).unwrap_or(0) {
                window = Some(w);
            }
        }
    }
    let note = match (requested, batched.is_empty()) {
        (true, true) => "None of these models has a batch API; every call is made directly.".to_string(),
        (false, true) => String::new(),
        (true, false) => format!(
            "Batch mode: the calls of {} go out as provider batches at half the price; results come {}. The run can be closed and resumed meanwhile.{}",
            batched.join(", "),
            window.unwrap_or("within the provider's window"),
            if direct.is_empty() { String::new() } else { format!(" {} is called directly.", direct.join(", ")) }
        ),
        (false, false) => format!(
            "Batch mode would send the calls of {} as provider batches at half the price, with results {}.",
            batched.join(", "),
            window.unwrap_or("within the provider's window")
        ),
    };
    BatchNote {
        requested,
        batched_models: batched,
        direct_models: direct,
        completion_window: window.map(str::to_string),
        note,
    }
}

/// The cost of the given (model, input tokens, output tokens) parts online and in batch mode, in
/// US$; None when a remote model has no price (a local one costs nothing).
pub fn costs(parts: &[(&ModelConfig, f64, f64)]) -> (Option<f64>, Option<f64>) {
    let mut online = Some(0.0);
    let mut batch = Some(0.0);
    for (m, i, o) in parts {
        let usd = match (m.price_in, m.price_out) {
            (Some(pi), Some(po)) => Some((i * pi + o * po) / 1e6),
            _ if m.is_local() => Some(0.0),
            _ => None,
        };
        let factor = if m.supports_batch() { BATCH_PRICE_FACTOR } else { 1.0 };
        online = online.zip(usd).map(|(a, b)| a + b);
        batch = batch.zip(usd).map(|(a, b)| a + b * factor);
    }
    (online, batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::ProviderKind;

    #[test]
    fn batch_costs_half_for_providers_with_a_batch_api() {
        let mut a = ModelConfig::new("a", ProviderKind::OpenAi, "x", "https://api.openai.com/v1");
        a.price_in = Some(2.0);
        a.price_out = Some(8.0);
        let local = ModelConfig::new("l", ProviderKind::OpenAiCompatible, "x", "http://127.0.0.1:1/v1");
        let (online, batch) = costs(&[(&a, 1e6, 1e6), (&local, 1e6, 1e6)]);
        assert_eq!(online, Some(10.0));
        assert_eq!(batch, Some(5.0));
        let unpriced = ModelConfig::new("u", ProviderKind::Anthropic, "x", "https://api.anthropic.com");
        assert_eq!(costs(&[(&a, 1.0, 1.0), (&unpriced, 1.0, 1.0)]), (None, None));
        let n = note(true, &[&a, &local, &a]);
        assert_eq!(n.batched_models, vec!["a"]);
        assert_eq!(n.direct_models, vec!["l"]);
        assert_eq!(n.completion_window.as_deref(), Some("within 24 hours"));
    }
}
