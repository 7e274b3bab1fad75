//! The demo model (`psebench mock-llm serve --demo`): a simulation that plays every role of the
//! application well enough to walk each workflow without a real model. It recognises its role
//! from the system prompt (`roles`), answers in that role's JSON contract and is deterministic:
//! the same request always gets the same reply. It is a teaching aid, not a model: on the
//! built-in demo cases it knows the answer key and gets about one case in four wrong on purpose.
//!
//! Any model id is accepted; `GET /v1/models` lists `demo`, marked as a simulation.

mod anchors;
mod authoring;
pub mod cases;
mod evaluated;
mod generation;
mod judge;
mod memory;
mod provider;
pub mod roles;
mod text;

use crate::normalize::Normalized;
use roles::Role;

/// The model id the demo server lists.
pub const DEMO_MODEL_ID: &str = "demo";
/// `owned_by` of the listed model: how clients tell the demo server from a real one.
pub const DEMO_OWNER: &str = "psebench-demo-simulation";
/// What the model list says about it.
pub const DEMO_DESCRIPTION: &str =
    "Simulated demo model for learning PSEBench Studio: scripted answers, not a real language model.";

/// The demo model's state: what it remembers between the calls of one server.
#[derive(Default)]
pub struct DemoModel {
    memory: memory::Memory,
}

impl DemoModel {
    /// The reply text to one request.
    pub fn reply(&self, n: &Normalized) -> String {
        let m = &self.memory;
        match roles::detect(&n.system) {
            Some(Role::Evaluated) => evaluated::reply(n),
            Some(Role::InformationProvider) => provider::reply(n),
            Some(Role::Judge) => judge::reply(n),
            Some(Role::Instantiator) => generation::instantiator(n, m),
            Some(Role::InstantiationVerifier | Role::NarrativeVerifier) => generation::pass(),
            Some(Role::Narrator) => generation::narrator(n, m),
            Some(Role::MissingNarrator) => generation::missing_narrator(n, m),
            Some(Role::Extractor) => generation::extractor(n, m),
            Some(Role::MissingVerifier) => generation::missing_verifier(n),
            Some(Role::ClauseScreen) => generation::screen(n, m),
            Some(Role::AuthorExtract) => authoring::extract(n),
            Some(Role::AuthorExtractCheck) => authoring::extract_check(),
            Some(Role::DraftComplete) => authoring::draft_complete(n),
            Some(Role::DraftUncertain) => authoring::draft_uncertain(n),
            Some(Role::DraftMissing) => authoring::draft_missing(n),
            Some(Role::AnchorPresort) => anchors::presort(n),
            Some(Role::AnchorTranslate) => anchors::translate(n),
            Some(Role::ConnectivityCheck) => n
                .system
                .split("Reply with the single word:")
                .nth(1)
                .map(|w| w.trim().trim_end_matches('.').to_string())
                .unwrap_or_else(|| "ready".into()),
            None => "This is the PSEBench demo model, a simulation for learning the app. It only answers the \
                     application's own prompts."
                .into(),
        }
    }
}
