//! Parts shared by the typed configurations of runs (the configurations themselves live with
//! their kind: `evaluation::EvaluationRunConfig`, `generation::GenerationRunConfig`).

use serde::{Deserialize, Serialize};

use crate::llm::ModelConfig;

/// A model as recorded when a run was created: what was called, without secrets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunModel {
    /// The registered name.
    pub name: String,
    /// The provider kind (`openai-compatible`, `openai`, `azure`, `anthropic`, `gemini`).
    pub kind: String,
    /// The provider's model id.
    pub model: String,
    pub base_url: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Runs on this computer (no data leaves it).
    pub local: bool,
    /// The model was a simulation (the built-in demo model), not a real language model. Left out
    /// when false, so runs of real models are stored as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(optional, as = "Option<bool>")]
    pub simulation: bool,
}

impl RunModel {
    pub fn of(c: &ModelConfig) -> RunModel {
        RunModel {
            name: c.name.clone(),
            kind: c.kind.as_str().to_string(),
            model: c.model.clone(),
            base_url: c.base_url.clone(),
            temperature: c.temperature,
            max_tokens: c.max_tokens,
            local: c.is_local(),
            simulation: c.simulation,
        }
    }
}
