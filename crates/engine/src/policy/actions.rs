//! Policy actions: list, show, import official text, create and delete user packs.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::policy::{import, repo, Clause, EvidenceItem, GuidanceSection, OfficialSection};
use crate::util::files::{read_text, MAX_TEXT_FILE_BYTES};
use crate::util::now_rfc3339;

pub use crate::policy::create::{
    read_new_policy, FieldProblem, NewClause, NewPolicy, PolicyCreateResult, PolicyDeleteResult,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicySummary {
    pub id: String,
    pub name: String,
    pub edition: String,
    pub clauses: usize,
    pub guidance_sections: usize,
    pub evidence_ids: usize,
    pub official_text_imported: bool,
    /// True for a pack that comes with the app; false for one a user created.
    pub builtin: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct OfficialTextStatus {
    pub clauses: bool,
    pub guidance: bool,
    pub sections: usize,
    pub matched: usize,
}

/// Everything about a pack, as `psebench policy show --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyView {
    pub id: String,
    pub name: String,
    pub jurisdiction: String,
    pub statute: String,
    pub edition: String,
    pub edition_notice: String,
    pub reporting_deadline: String,
    /// True for a pack that comes with the app; false for one a user created.
    pub builtin: bool,
    pub official_text: OfficialTextStatus,
    pub clauses: Vec<Clause>,
    pub guidance: Vec<GuidanceSection>,
    pub evidence: Vec<EvidenceItem>,
    pub official_sections: Vec<OfficialSection>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyImportRequest {
    pub policy: String,
    pub clauses: Option<PathBuf>,
    pub guidance: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ImportedDocument {
    pub source: String,
    pub file: String,
    pub sections: usize,
    pub matched: Vec<String>,
    pub new_evidence_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyImportResult {
    pub policy: String,
    pub documents: Vec<ImportedDocument>,
}

impl Engine {
    pub fn policies_list(&self) -> ApiResult<Vec<PolicySummary>> {
        let ids = self.store().with_conn(repo::list_pack_ids)?;
        ids.iter()
            .map(|id| {
                let v = self.policy_show(id)?;
                Ok(PolicySummary {
                    id: v.id,
                    name: v.name,
                    edition: v.edition,
                    clauses: v.clauses.len(),
                    guidance_sections: v.guidance.len(),
                    evidence_ids: v.evidence.len(),
                    official_text_imported: v.official_text.clauses || v.official_text.guidance,
                    builtin: v.builtin,
                })
            })
            .collect()
    }

    /// A stored pack (built-in or created by a user) as the report writers take it.
    pub fn policy_pack(&self, id: &str) -> ApiResult<crate::policy::PolicyPack> {
        Ok(self.pack_and_vocab(id)?.0)
    }

    pub fn policy_show(&self, id: &str) -> ApiResult<PolicyView> {
        let (pack, official, builtin) = self.store().with_conn(|c| {
            Ok::<_, ApiError>((
                repo::load_pack(c, id)?,
                repo::official_sections(c, id)?,
                repo::is_builtin(c, id)?.unwrap_or(false),
            ))
        })?;
        let evidence = pack.evidence(&official);
        Ok(PolicyView {
            id: pack.id.clone(),
            name: pack.name.clone(),
            jurisdiction: pack.jurisdiction.clone(),
            statute: pack.statute.clone(),
            edition: pack.edition.clone(),
            edition_notice: pack.edition_notice.clone(),
            reporting_deadline: pack.reporting_deadline.clone(),
            builtin,
            official_text: OfficialTextStatus {
                clauses: official.iter().any(|s| s.source == "clauses"),
                guidance: official.iter().any(|s| s.source == "guidance"),
                sections: official.len(),
                matched: official.iter().filter(|s| s.matched).count(),
            },
            clauses: pack.clauses,
            guidance: pack.guidance,
            evidence,
            official_sections: official,
        })
    }

    /// Store official Markdown text split at headings; the pack's summaries are kept.
    pub fn policy_import(&self, req: &PolicyImportRequest) -> ApiResult<PolicyImportResult> {
        if req.clauses.is_none() && req.guidance.is_none() {
            return Err(ApiError::invalid(
                "Give the official clause text, the guidance text, or both, as Markdown files.",
            ));
        }
        let (pack, _) = self.pack_and_vocab(&req.policy)?;
        let at = now_rfc3339();
        let mut docs: Vec<(String, String, Vec<OfficialSection>)> = Vec::new();
        for (source, path) in [("clauses", &req.clauses), ("guidance", &req.guidance)] {
            let Some(path) = path else { continue };
            let text = read_text(path, MAX_TEXT_FILE_BYTES)?;
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("official.md").to_string();
            let sections = import::sections_from_markdown(&pack, source, &file, &text, &at);
            if sections.is_empty() {
                return Err(ApiError::invalid(format!(
                    "{}: no headings found. The official text must be Markdown with a heading (#, ##, ...) before each clause or recommendation.",
                    path.display()
                )));
            }
            docs.push((source.to_string(), path.display().to_string(), sections));
        }
        self.store().with_tx(|tx| -> ApiResult<()> {
            for (source, _, sections) in &docs {
                repo::replace_official_sections(tx, &req.policy, source, sections)?;
            }
            Ok(())
        })?;
        Ok(PolicyImportResult {
            policy: req.policy.clone(),
            documents: docs
                .into_iter()
                .map(|(source, file, sections)| ImportedDocument {
                    source,
                    file,
                    sections: sections.len(),
                    matched: sections.iter().filter(|s| s.matched).map(|s| s.evidence_id.clone()).collect(),
                    new_evidence_ids: sections.iter().filter(|s| !s.matched).map(|s| s.evidence_id.clone()).collect(),
                })
                .collect(),
        })
    }
}
