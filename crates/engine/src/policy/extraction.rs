//! The approved loyal extraction of a clause, read where a clause's context is built (generation
//! roles, the judge). Extractions are written by the `authoring` module; this only reads them.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::ApiResult;

/// The newest approved extraction of one clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApprovedExtraction {
    pub extraction_id: String,
    pub clause_id: String,
    pub version: i64,
    pub document: String,
    pub approved_by: String,
}

/// The approved extraction with the highest version for (policy, clause), if any.
pub fn approved_extraction(
    conn: &Connection,
    policy_id: &str,
    clause_id: &str,
) -> ApiResult<Option<ApprovedExtraction>> {
    Ok(conn
        .query_row(
            "SELECT id, clause_id, version, document, COALESCE(approved_by, '') FROM author_extractions
             WHERE policy_id = ?1 AND clause_id = ?2 AND status = 'approved'
             ORDER BY version DESC LIMIT 1",
            params![policy_id, clause_id],
            |r| {
                Ok(ApprovedExtraction {
                    extraction_id: r.get(0)?,
                    clause_id: r.get(1)?,
                    version: r.get(2)?,
                    document: r.get(3)?,
                    approved_by: r.get(4)?,
                })
            },
        )
        .optional()?)
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
