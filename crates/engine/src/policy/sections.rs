//! The policy's text as a list of sections with stable ids, the unit a loyal extraction chooses
//! from: the official text the user imported when there is any, otherwise the summary edition's
//! guidance sections. A SHA-256 over ids, headings and bodies identifies exactly what was shown.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{OfficialSection, PolicyPack};

/// One section of the policy text, copied as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicySection {
    /// Unique within the policy's sections.
    pub section_id: String,
    pub heading: String,
    pub body: String,
    /// `official clauses`, `official guidance` or `summary guidance`.
    pub origin: String,
}

/// The sections of one policy in source order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicySections {
    pub policy_id: String,
    /// `official` (imported text) or `summary` (the pack's own summaries).
    pub edition: String,
    pub sections: Vec<PolicySection>,
    /// SHA-256 (hex) of the sections' ids, headings and bodies.
    pub source_hash: String,
}

impl PolicySections {
    pub fn get(&self, id: &str) -> Option<&PolicySection> {
        self.sections.iter().find(|s| s.section_id == id)
    }
    /// Position in source order.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.section_id == id)
    }
}

fn unique(used: &mut Vec<String>, id: &str) -> String {
    let mut out = id.to_string();
    let mut n = 2;
    while used.contains(&out) {
        out = format!("{id} ({n})");
        n += 1;
    }
    used.push(out.clone());
    out
}

fn hash_of(sections: &[PolicySection]) -> String {
    let mut h = Sha256::new();
    for s in sections {
        for part in [&s.section_id, &s.heading, &s.body] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
    }
    hex::encode(h.finalize())
}

/// Split a policy into sections: imported official text (clauses document first, then guidance,
/// each in its own order) when present, else the summary guidance sections.
pub fn policy_sections(pack: &PolicyPack, official: &[OfficialSection]) -> PolicySections {
    let mut used = Vec::new();
    let mut sections = Vec::new();
    let edition;
    if official.is_empty() {
        edition = "summary";
        for g in &pack.guidance {
            sections.push(PolicySection {
                section_id: unique(&mut used, &g.id),
                heading: format!("{} — {}", g.id, g.topic),
                body: g.summary.clone(),
                origin: "summary guidance".into(),
            });
        }
    } else {
        edition = "official";
        let mut ordered: Vec<&OfficialSection> = official.iter().collect();
        ordered.sort_by_key(|s| (if s.source == "clauses" { 0 } else { 1 }, s.ord));
        for s in ordered {
            sections.push(PolicySection {
                section_id: unique(&mut used, &s.evidence_id),
                heading: s.heading.clone(),
                body: s.body.clone(),
                origin: format!("official {}", s.source),
            });
        }
    }
    let source_hash = hash_of(&sections);
    PolicySections { policy_id: pack.id.clone(), edition: edition.into(), sections, source_hash }
}

/// The extraction document: the target clause's own wording first (copied here by code, never
/// left to the model's choice), then the chosen sections copied whole, in source order, each under
/// a fixed heading naming its id. Ids not among the sections are skipped (callers validate first);
/// the clause's own official section is not repeated.
pub fn extraction_document(
    pack: &PolicyPack,
    official: &[OfficialSection],
    clause_id: &str,
    sections: &PolicySections,
    chosen: &[String],
) -> String {
    let label = pack.clause(clause_id).map(|c| c.label.as_str()).unwrap_or(clause_id);
    let mut picked: Vec<(usize, &PolicySection)> = chosen
        .iter()
        .filter(|id| !(id.as_str() == label && sections.edition == "official"))
        .filter_map(|id| sections.position(id).map(|p| (p, &sections.sections[p])))
        .collect();
    picked.sort_by_key(|(p, _)| *p);
    picked.dedup_by_key(|(p, _)| *p);
    let mut out = format!(
        "# Policy passages for {label}\n\nEdition: {}. Source hash: {}. Each passage below is copied unchanged from the policy text.\n",
        sections.edition, sections.source_hash
    );
    out.push_str(&format!(
        "\n{}\n\n{}\n",
        super::extraction::target_clause_heading(label),
        super::context::clause_wording(pack, official, clause_id)
    ));
    for (_, s) in picked {
        out.push_str(&format!("\n## Section [{}]\n\n### {}\n\n{}\n", s.section_id, s.heading, s.body));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_sections_have_unique_ids_and_a_stable_hash() {
        let pack = super::super::builtin_pack(super::super::DEFAULT_POLICY).unwrap();
        let a = policy_sections(&pack, &[]);
        let b = policy_sections(&pack, &[]);
        assert_eq!(a.edition, "summary");
        assert_eq!(a.sections.len(), pack.guidance.len());
        assert_eq!(a.source_hash, b.source_hash);
        let ids: std::collections::HashSet<_> = a.sections.iter().map(|s| &s.section_id).collect();
        assert_eq!(ids.len(), a.sections.len());
    }

    #[test]
    fn official_text_wins_clauses_first_and_clashing_ids_get_a_suffix() {
        let pack = super::super::builtin_pack(super::super::DEFAULT_POLICY).unwrap();
        let sec = |source: &str, ord: u32, id: &str| OfficialSection {
            source: source.into(),
            ord,
            level: 2,
            heading: format!("{id} heading"),
            evidence_id: id.into(),
            matched: true,
            body: format!("{source} {id} body"),
            file_name: "f.md".into(),
            imported_at: "t".into(),
        };
        let official = vec![sec("guidance", 0, "G1"), sec("clauses", 1, "C2"), sec("clauses", 0, "G1")];
        let s = policy_sections(&pack, &official);
        assert_eq!(s.edition, "official");
        let ids: Vec<&str> = s.sections.iter().map(|x| x.section_id.as_str()).collect();
        assert_eq!(ids, vec!["G1", "C2", "G1 (2)"]);
        assert_eq!(s.get("G1 (2)").unwrap().body, "guidance G1 body");
        assert_ne!(s.source_hash, policy_sections(&pack, &official[..2]).source_hash);
    }

    #[test]
    fn the_document_copies_chosen_sections_in_source_order() {
        let pack = super::super::builtin_pack(super::super::DEFAULT_POLICY).unwrap();
        let s = policy_sections(&pack, &[]);
        let (first, third) = (s.sections[0].clone(), s.sections[2].clone());
        let doc = extraction_document(&pack, &[], "x", &s, &[third.section_id.clone(), first.section_id.clone()]);
        let a = doc.find(&first.body).unwrap();
        let b = doc.find(&third.body).unwrap();
        assert!(a < b, "source order, not the order given");
    }

    #[test]
    fn the_target_clause_always_comes_first() {
        let pack = super::super::builtin_pack(super::super::DEFAULT_POLICY).unwrap();
        let clause = pack.clauses[3].clone();
        // Summary edition: the clause is never among the sections, yet the document starts with it.
        let s = policy_sections(&pack, &[]);
        let doc = extraction_document(&pack, &[], &clause.clause_id, &s, &[s.sections[1].section_id.clone()]);
        let head = doc.find(&super::super::extraction::target_clause_heading(&clause.label)).unwrap();
        assert!(head < doc.find(&clause.summary).unwrap());
        assert!(doc.find(&clause.summary).unwrap() < doc.find(&s.sections[1].body).unwrap());
        // Nothing chosen: still the clause.
        let bare = extraction_document(&pack, &[], &clause.clause_id, &s, &[]);
        assert!(bare.contains(&clause.summary));
        // Official edition: the clause's official text first, and not twice when it was chosen too.
        let off = vec![OfficialSection {
            source: "clauses".into(),
            ord: 0,
            level: 2,
            heading: "Clause heading".into(),
            evidence_id: clause.label.clone(),
            matched: true,
            body: "OFFICIAL WORDING OF THE CLAUSE".into(),
            file_name: "f.md".into(),
            imported_at: "t".into(),
        }];
        let so = policy_sections(&pack, &off);
        let doc = extraction_document(&pack, &off, &clause.clause_id, &so, std::slice::from_ref(&clause.label));
        assert_eq!(doc.matches("OFFICIAL WORDING OF THE CLAUSE").count(), 1, "{doc}");
    }
}
