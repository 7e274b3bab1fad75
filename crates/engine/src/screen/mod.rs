//! The clause screen: a model reads a record's facts against the WHOLE policy (every clause) and
//! says which clauses are clearly met, whether the policy leaves an open question, and its overall
//! verdict. Generation screens every candidate after its narrative is verified and retries the
//! Instantiator on a conflict; the label audit (`crate::label_audit`, a layer above) screens stored
//! cases with one or more models and reports the cases whose by-construction label a majority of
//! them disputes.
//!
//! The screen never sees the card's verdict, event type or boundary conditions; see `input`.

pub mod agree;
pub mod input;
pub mod reply;

use crate::error::ApiResult;
use crate::prompt::split::{load_split, SplitPrompt};

/// The template's name in `prompts/`.
pub const PROMPT: &str = "gen_clause_screen";

/// The screen's template (system and user message).
pub fn prompt() -> ApiResult<SplitPrompt> {
    load_split(PROMPT)
}
