//! The generation pipeline's templates. Each role is one file in `prompts/`; a line holding only
//! `<!-- user -->` splits it into the system message (above) and the user message (below). The
//! shared policy background (`gen_background`) is filled into every role's `{{background}}`
//! slot, and the retry-feedback block (`gen_retry_feedback`) into `{{retry_feedback}}`.

use indexmap::IndexMap;

use crate::error::ApiResult;
use crate::prompt::{load, Prompt};

pub use crate::prompt::split::{load_split, SplitPrompt, USER_MARKER};

/// Every template one generation run uses, loaded once.
#[derive(Debug, Clone)]
pub struct GenerationPrompts {
    pub background: Prompt,
    pub retry_feedback: Prompt,
    pub instantiator: SplitPrompt,
    pub instantiation_verifier: SplitPrompt,
    pub narrator: SplitPrompt,
    pub extractor: SplitPrompt,
    pub narrative_verifier: SplitPrompt,
    pub missing_narrator: SplitPrompt,
    pub missing_verifier: SplitPrompt,
    /// The policy-wide clause screen (shared with the label audit).
    pub clause_screen: SplitPrompt,
}

impl GenerationPrompts {
    pub fn load() -> ApiResult<GenerationPrompts> {
        Ok(GenerationPrompts {
            background: load("gen_background")?,
            retry_feedback: load("gen_retry_feedback")?,
            instantiator: load_split("gen_instantiator")?,
            instantiation_verifier: load_split("gen_instantiation_verifier")?,
            narrator: load_split("gen_narrator")?,
            extractor: load_split("gen_extractor")?,
            narrative_verifier: load_split("gen_narrative_verifier")?,
            missing_narrator: load_split("gen_missing_narrator")?,
            missing_verifier: load_split("gen_missing_verifier")?,
            clause_screen: crate::screen::prompt()?,
        })
    }

    /// name → version of every template (stored with the run).
    pub fn versions(&self) -> IndexMap<String, String> {
        let mut m = IndexMap::new();
        for p in [&self.background, &self.retry_feedback] {
            m.insert(p.name.clone(), p.version.clone());
        }
        for p in [
            &self.instantiator,
            &self.instantiation_verifier,
            &self.narrator,
            &self.extractor,
            &self.narrative_verifier,
            &self.missing_narrator,
            &self.missing_verifier,
            &self.clause_screen,
        ] {
            m.insert(p.prompt.name.clone(), p.prompt.version.clone());
        }
        m
    }

    /// The versions that shaped one call of a role (the role's template, the background and,
    /// for producers, the retry-feedback block).
    pub fn call_versions(&self, role: &SplitPrompt, with_feedback: bool) -> IndexMap<String, String> {
        let mut m = IndexMap::new();
        m.insert(role.prompt.name.clone(), role.prompt.version.clone());
        m.insert(self.background.name.clone(), self.background.version.clone());
        if with_feedback {
            m.insert(self.retry_feedback.name.clone(), self.retry_feedback.version.clone());
        }
        m
    }

    /// The retry-feedback block for attempt `attempt` (empty on the first attempt).
    pub fn feedback(&self, attempt: u32, previous: Option<(&str, &[String])>) -> ApiResult<String> {
        match previous {
            None => Ok(String::new()),
            Some((candidate, issues)) => {
                let list = if issues.is_empty() {
                    "- (no specific problem was named; produce a clearly better candidate)".to_string()
                } else {
                    issues.iter().map(|i| format!("- {}", i.replace('\n', " "))).collect::<Vec<_>>().join("\n")
                };
                let n = attempt.to_string();
                let prev = (attempt - 1).to_string();
                self.retry_feedback.render(&[
                    ("attempt", &n),
                    ("previous_attempt", &prev),
                    ("previous_candidate", candidate),
                    ("issues", &list),
                ])
            }
        }
    }
}
