//! The configuration an evaluation run is stored with (`runs.config_json`). Three kinds of
//! evaluation runs share it: runs created here (every field but `imported_from`, `imported` and
//! `example`), runs imported from a trajectories file (`imported_from`, `model`, `imported`) and
//! the example runs (`model`, `cases`, `info_model`, `judge_model`, `example`). Absent fields are
//! left out when written and take their defaults when read, so runs stored by older versions read
//! as they are; keys this version does not know are kept in `extra`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::jobs::RunModel;
use crate::protocol::{Protocol, RunProvenance};

/// The models an evaluation run calls, by role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvaluationRunModels {
    /// The model under test.
    pub eval: RunModel,
    /// The information provider.
    pub info: RunModel,
    pub judge: RunModel,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvaluationRunConfig {
    /// The case selection (`all`, a cases file or a filter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cases: Option<String>,
    /// Policy pack id of the cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub policy: Option<String>,
    /// The trajectories file an imported run came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub imported_from: Option<String>,
    /// The registered name of the model under test (for imported runs: the model named in the file).
    #[serde(default)]
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub info_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub judge_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub models: Option<EvaluationRunModels>,
    /// Turn budget per case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub turns: Option<u32>,
    /// Cases worked on at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub concurrency: Option<u32>,
    /// Times each case is run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub repeat: Option<u32>,
    /// The spending cap in US$ (none: no cap). A resume may raise or drop it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_cost_usd: Option<f64>,
    /// Prompt name → version, as the run was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub prompt_versions: Option<IndexMap<String, String>>,
    /// Calls go through the providers' batch APIs where they have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub batch: Option<bool>,
    /// What made the run: protocol, prompts, policy edition, library and case-set fingerprints,
    /// judge (absent in imported runs and in runs made before runs recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provenance: Option<RunProvenance>,
    /// The run was imported from a file (it cannot be executed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub imported: Option<bool>,
    /// One of the example runs of fictional models (no model was called).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub example: Option<bool>,
    /// Keys written by other versions, kept as they are.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: IndexMap<String, serde_json::Value>,
}

impl EvaluationRunConfig {
    /// Turn budget per case (10 when not recorded).
    pub fn turns(&self) -> u32 {
        self.turns.unwrap_or(10)
    }
    /// Cases worked on at once (4 when not recorded; at least 1).
    pub fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or(4).max(1) as usize
    }
    /// Batch mode (off when not recorded).
    pub fn is_batch(&self) -> bool {
        self.batch.unwrap_or(false)
    }
    /// The protocol the run follows (`studio` for runs made before protocols existed, which
    /// behaved as `studio` does).
    pub fn protocol(&self) -> Protocol {
        self.provenance.as_ref().map(|p| p.protocol).unwrap_or_default()
    }
    pub fn is_imported(&self) -> bool {
        self.imported.unwrap_or(false)
    }
    pub fn is_example(&self) -> bool {
        self.example.unwrap_or(false)
    }
    /// The roles (`model under test`, `information provider`, `judge`) a simulation played in
    /// this run: the built-in demo model, recorded as a simulation when it was registered.
    pub fn simulated_roles(&self) -> Vec<&'static str> {
        let Some(m) = &self.models else { return Vec::new() };
        [(&m.eval, "model under test"), (&m.info, "information provider"), (&m.judge, "judge")]
            .into_iter()
            .filter(|(r, _)| r.simulation)
            .map(|(_, role)| role)
            .collect()
    }
    /// A simulation played some role in this run: its results are labelled a simulation.
    pub fn is_simulation(&self) -> bool {
        !self.simulated_roles().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_configs_read_and_write_back_unchanged() {
        let created = r#"{"cases":"origin=demo,limit=2","policy":"mn29","model":"m","info_model":"i","judge_model":"j","models":{"eval":{"name":"m","kind":"openai-compatible","model":"x","base_url":"http://127.0.0.1:1/v1","temperature":0.0,"max_tokens":null,"local":true},"info":{"name":"i","kind":"openai-compatible","model":"x","base_url":"http://127.0.0.1:1/v1","temperature":null,"max_tokens":256,"local":true},"judge":{"name":"j","kind":"openai","model":"y","base_url":"https://api.openai.com/v1","temperature":null,"max_tokens":null,"local":false}},"turns":10,"concurrency":4,"repeat":1,"prompt_versions":{"eval_system":"v3"}}"#;
        let imported = r#"{"imported_from":"/tmp/t.jsonl","model":"gpt","imported":true}"#;
        let older = r#"{"model":"m","turns":5,"selection_note":"kept"}"#;
        for text in [created, imported, older] {
            let c: EvaluationRunConfig = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&c).unwrap(), text);
        }
        let c: EvaluationRunConfig = serde_json::from_str(imported).unwrap();
        assert!(c.is_imported() && !c.is_example());
        assert_eq!((c.turns(), c.concurrency()), (10, 4));
    }
}
