//! Policy packs: clauses (the targeted-clause vocabulary), guidance sections, the evidence
//! vocabulary, and official text imported by users (split into sections by heading). Besides the
//! built-in packs, users may write their own (`create`).

pub mod actions;
pub mod builtin;
pub mod context;
pub mod create;
pub mod extraction;
pub mod import;
pub mod repo;
pub mod sections;

/// The policy pack used when none is named: the built-in Minnesota pack. The only place in the
/// engine and the shells that names it; everything else takes a policy id.
pub const DEFAULT_POLICY: &str = "mn29";

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CategoryCount {
    pub name: String,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourceRef {
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub used_for: String,
}

/// One statutory clause: a reportable event type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Clause {
    pub global_no: u32,
    pub category: String,
    pub local_no: u32,
    pub clause_id: String,
    pub label: String,
    pub short_title: String,
    pub summary: String,
    #[serde(default)]
    pub statute_ref: String,
    #[serde(default)]
    pub confidence: String,
    #[serde(default)]
    pub provenance: String,
    #[serde(default)]
    pub notes: String,
}

/// Which clauses a guidance section applies to: a list of clause labels or every clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
pub enum AppliesTo {
    All(String),
    Labels(Vec<String>),
}

impl AppliesTo {
    pub fn covers(&self, label: &str) -> bool {
        match self {
            AppliesTo::All(s) => s == "all",
            AppliesTo::Labels(l) => l.iter().any(|x| x == label),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GuidanceSection {
    pub id: String,
    #[serde(default)]
    pub kind: String,
    pub applies_to: AppliesTo,
    pub topic: String,
    pub summary: String,
    /// `confirmed`, `partially confirmed` or `provisional`.
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub status_note: String,
    #[serde(default)]
    pub version_map: IndexMap<String, String>,
    #[serde(default)]
    pub notes: String,
}

/// Two clauses whose events are easily mistaken for each other, and why. A card that keeps an event
/// out of one of them must say which of its facts also keeps it out of the other
/// (lint rule `neighbour-not-ruled-out`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NeighbourPair {
    /// Exactly two clause ids of the pack.
    pub clauses: Vec<String>,
    /// One line: what makes the two events look alike.
    pub reason: String,
}

impl NeighbourPair {
    /// The other clause of the pair, when `clause_id` is one of the two.
    pub fn other(&self, clause_id: &str) -> Option<&str> {
        match self.clauses.as_slice() {
            [a, b] if a == clause_id => Some(b.as_str()),
            [a, b] if b == clause_id => Some(a.as_str()),
            _ => None,
        }
    }
}

/// A policy pack as shipped in `policies/<id>/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyPack {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub jurisdiction: String,
    #[serde(default)]
    pub statute: String,
    /// `summary` for our own summaries; `official` when the pack ships official text.
    #[serde(default)]
    pub edition: String,
    #[serde(default)]
    pub edition_notice: String,
    #[serde(default)]
    pub reporting_deadline: String,
    #[serde(default)]
    pub categories: Vec<CategoryCount>,
    #[serde(default)]
    pub sources: Vec<SourceRef>,
    pub clauses: Vec<Clause>,
    pub guidance: Vec<GuidanceSection>,
    /// Optional: pairs of clauses whose events are easily confused (see `NeighbourPair`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub neighbours: Vec<NeighbourPair>,
}

/// One entry of the evidence vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvidenceItem {
    pub id: String,
    /// `clause`, `guidance`, or `official` (a heading of imported official text with no known id).
    pub kind: String,
    pub title: String,
}

/// A section of imported official text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct OfficialSection {
    /// `clauses` or `guidance`: which imported document it came from.
    pub source: String,
    pub ord: u32,
    pub level: u32,
    pub heading: String,
    pub evidence_id: String,
    /// True when the heading matched a known clause label or guidance id.
    pub matched: bool,
    pub body: String,
    pub file_name: String,
    pub imported_at: String,
}

/// The identifiers a card or a model answer may use under one policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyVocab {
    pub policy_id: String,
    pub clause_ids: Vec<String>,
    pub clause_labels: Vec<String>,
    pub evidence_ids: Vec<String>,
    /// The pack's neighbouring-clause pairs (empty when the pack names none).
    #[serde(default)]
    pub neighbours: Vec<NeighbourPair>,
}

impl PolicyVocab {
    /// The clause ids that neighbour `clause_id`, in pack order, without repeats.
    pub fn neighbours_of(&self, clause_id: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for n in self.neighbours.iter().filter_map(|p| p.other(clause_id)) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }
    /// The label of a clause id (`None` when the id is not a clause of the pack).
    pub fn clause_label(&self, clause_id: &str) -> Option<&str> {
        self.clause_ids.iter().position(|c| c == clause_id).and_then(|i| self.clause_labels.get(i)).map(String::as_str)
    }
}

impl PolicyPack {
    pub fn clause(&self, clause_id: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.clause_id == clause_id)
    }
    pub fn clause_by_label(&self, label: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.label == label)
    }
    /// Guidance ids among `ids` whose status is `provisional` (not yet checked against the official text).
    pub fn provisional_ids(&self, ids: &[String]) -> Vec<String> {
        ids.iter()
            .filter(|id| self.guidance.iter().any(|g| &g.id == *id && g.status == "provisional"))
            .cloned()
            .collect()
    }

    /// Clause labels + guidance ids + headings of imported official text that match neither.
    pub fn evidence(&self, official: &[OfficialSection]) -> Vec<EvidenceItem> {
        let mut out: Vec<EvidenceItem> = self
            .clauses
            .iter()
            .map(|c| EvidenceItem { id: c.label.clone(), kind: "clause".into(), title: c.short_title.clone() })
            .collect();
        out.extend(self.guidance.iter().map(|g| EvidenceItem {
            id: g.id.clone(),
            kind: "guidance".into(),
            title: g.topic.clone(),
        }));
        for s in official.iter().filter(|s| !s.matched) {
            if !out.iter().any(|e| e.id == s.evidence_id) {
                out.push(EvidenceItem { id: s.evidence_id.clone(), kind: "official".into(), title: s.heading.clone() });
            }
        }
        out
    }

    pub fn vocab(&self, official: &[OfficialSection]) -> PolicyVocab {
        PolicyVocab {
            policy_id: self.id.clone(),
            clause_ids: self.clauses.iter().map(|c| c.clause_id.clone()).collect(),
            clause_labels: self.clauses.iter().map(|c| c.label.clone()).collect(),
            evidence_ids: self.evidence(official).into_iter().map(|e| e.id).collect(),
            neighbours: self.neighbours.clone(),
        }
    }
}

/// The policy packs compiled into this build.
pub fn builtin_packs() -> Vec<PolicyPack> {
    builtin::policy_packs()
}

pub fn builtin_pack(id: &str) -> Option<PolicyPack> {
    builtin_packs().into_iter().find(|p| p.id == id)
}

impl crate::context::Engine {
    /// The stored pack (with any official text imported by the user) and its vocabulary.
    pub(crate) fn pack_and_vocab(&self, policy_id: &str) -> crate::error::ApiResult<(PolicyPack, PolicyVocab)> {
        self.store().with_conn(|c| {
            let pack = repo::load_pack(c, policy_id)?;
            let official = repo::official_sections(c, policy_id)?;
            let vocab = pack.vocab(&official);
            Ok((pack, vocab))
        })
    }
}
