//! The approved loyal extraction of a clause, as used where a clause's context is built (generation
//! roles, the judge). Extractions are stored by the `authoring` module, which owns their table:
//! `authoring::repo::approved_extraction` reads one.

use serde::{Deserialize, Serialize};

/// The newest approved extraction of one clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApprovedExtraction {
    pub extraction_id: String,
    pub clause_id: String,
    pub version: i64,
    pub document: String,
    pub approved_by: String,
}

/// What a plan says about a clause's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClauseContextNote {
    pub clause_id: String,
    /// `approved extraction vN (id)` or `built-in context, no approved extraction`.
    pub context: String,
    pub extraction_id: Option<String>,
}

/// The note for one clause.
pub fn context_note(found: Option<&ApprovedExtraction>, clause_id: &str) -> ClauseContextNote {
    match found {
        Some(x) => ClauseContextNote {
            clause_id: clause_id.to_string(),
            context: format!("approved extraction v{} ({})", x.version, x.extraction_id),
            extraction_id: Some(x.extraction_id.clone()),
        },
        None => ClauseContextNote {
            clause_id: clause_id.to_string(),
            context: "built-in context, no approved extraction".into(),
            extraction_id: None,
        },
    }
}
