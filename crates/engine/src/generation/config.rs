//! The configuration a generation run is stored with (`runs.config_json`): the request as given,
//! what the planner settled on and the models and prompt versions used. Fields are written in
//! this order; fields that older runs lack take their defaults when read, and keys this version
//! does not know are kept in `extra`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::GenerationRequest;
use crate::jobs::RunModel;
use crate::protocol::{Protocol, RunProvenance};

/// The models a generation run calls, by role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationRunModels {
    /// Instantiator and narrators.
    pub producer: RunModel,
    /// Extractor and verifiers.
    pub verifier: RunModel,
    /// The policy-wide clause screen (absent in runs made before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub screen: Option<RunModel>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationRunConfig {
    /// The request the run was created from.
    pub request: GenerationRequest,
    /// Policy pack id.
    #[serde(default)]
    pub policy: String,
    /// Registered name of the model that writes the cases.
    #[serde(default)]
    pub model: String,
    /// Registered name of the model that checks them.
    #[serde(default)]
    pub verifier_model: String,
    /// Registered name of the model that screens each record against the whole policy (absent in
    /// runs made before the screen existed; they screen with `verifier_model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub screen_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub models: Option<GenerationRunModels>,
    /// (card, anchor) units worked on at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub concurrency: Option<u32>,
    /// Calls go through the providers' batch APIs where they have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub batch: Option<bool>,
    /// What the planner noted (unapproved cards used, cards without anchors, …).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Prompt name → version, as the run was created.
    #[serde(default)]
    pub prompt_versions: IndexMap<String, String>,
    /// The plan's estimated cost of one card-and-anchor pair in US$ (what a spending cap counts
    /// with until pairs finish; absent in older runs and when a price is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub unit_estimate_usd: Option<f64>,
    /// What made the run: protocol, prompts, policy edition, library and card-set fingerprints
    /// (absent in runs made before runs recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provenance: Option<RunProvenance>,
    /// Keys written by other versions, kept as they are.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: IndexMap<String, serde_json::Value>,
}

impl GenerationRunConfig {
    /// Units worked on at once (4 when not recorded; at least 1).
    pub fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or(4).max(1) as usize
    }
    /// The protocol the run follows (`studio` for runs made before protocols existed).
    pub fn protocol(&self) -> Protocol {
        self.provenance.as_ref().map(|p| p.protocol).unwrap_or(self.request.protocol)
    }
    /// Batch mode (off when not recorded).
    pub fn is_batch(&self) -> bool {
        self.batch.unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_config_reads_and_writes_back_unchanged() {
        let producer = r#"{"name":"w","kind":"openai-compatible","model":"x","base_url":"http://127.0.0.1:9/v1","temperature":0.7,"max_tokens":null,"local":true}"#;
        let text = format!(
            r#"{{"request":{{"policy":"mn29","cards":"all","anchors_per_card":2,"model":"w","verifier_model":null,"seed":7,"concurrency":4,"include_missing":true,"anchor_origin":null,"label":null}},"policy":"mn29","model":"w","verifier_model":"w","models":{{"producer":{producer},"verifier":{producer}}},"concurrency":4,"warnings":["card X is a draft"],"prompt_versions":{{"narrator":"v2"}}}}"#
        );
        let c: GenerationRunConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), text);
        assert_eq!(c.concurrency(), 4);
    }
}
