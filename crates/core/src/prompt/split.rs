//! Role templates with a system and a user part: a line holding only `<!-- user -->` splits the
//! file into the system message (above) and the user message (below). Every pipeline that talks to
//! a model (generation, anchors, authoring) loads its roles through here.

use super::{load, Prompt};
use crate::error::{ApiError, ApiResult};

/// The line that separates the system part from the user part of a role template.
pub const USER_MARKER: &str = "<!-- user -->";

/// A role template split into its system and user parts.
#[derive(Debug, Clone)]
pub struct SplitPrompt {
    pub prompt: Prompt,
}

impl SplitPrompt {
    /// Render both parts with the same slot values; returns (system, user).
    pub fn render(&self, values: &[(&str, &str)]) -> ApiResult<(String, String)> {
        let text = self.prompt.render(values)?;
        let mut system = String::new();
        let mut user = String::new();
        let mut in_user = false;
        for line in text.split_inclusive('\n') {
            if !in_user && line.trim() == USER_MARKER {
                in_user = true;
                continue;
            }
            if in_user {
                user.push_str(line);
            } else {
                system.push_str(line);
            }
        }
        if !in_user {
            return Err(ApiError::internal(format!("prompt {} has no {USER_MARKER} line", self.prompt.name)));
        }
        Ok((system.trim().to_string(), user.trim().to_string()))
    }
}

/// Load a role template that has a system and a user part.
pub fn load_split(name: &str) -> ApiResult<SplitPrompt> {
    let prompt = load(name)?;
    if !prompt.text.lines().any(|l| l.trim() == USER_MARKER) {
        return Err(ApiError::internal(format!(
            "prompt {name} has no {USER_MARKER} line separating its system and user parts"
        )));
    }
    Ok(SplitPrompt { prompt })
}
