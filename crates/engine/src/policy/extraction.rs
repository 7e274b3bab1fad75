//! The approved loyal extraction of a clause, as used where a clause's context is built (generation
//! roles, the judge). Extractions are stored by the `authoring` module, which owns their table:
//! `authoring::repo::approved_extraction` reads one.

use serde::{Deserialize, Serialize};

use super::{OfficialSection, PolicyPack};

/// The heading of the first section of every extraction document: the target clause itself.
pub fn target_clause_heading(label: &str) -> String {
    format!("## Target clause [{label}]")
}

/// A clause's context built from its approved extraction, always led by the clause's own wording.
/// Documents made since the clause is copied into them already start with it; an older document,
/// or one approved without the clause, gets the wording put in front.
pub fn context_with_clause(document: &str, pack: &PolicyPack, official: &[OfficialSection], clause_id: &str) -> String {
    let label = pack.clause(clause_id).map(|c| c.label.as_str()).unwrap_or(clause_id);
    let document = document.trim();
    if document.contains(&target_clause_heading(label)) {
        return document.to_string();
    }
    format!(
        "{}\n\n{}\n\n{document}",
        target_clause_heading(label),
        super::context::clause_wording(pack, official, clause_id)
    )
}

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
