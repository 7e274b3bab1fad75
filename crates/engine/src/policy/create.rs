//! Policy packs written by users: a JSON file (or the app's form) with the pack's id, name,
//! jurisdiction, reporting deadline, clauses and guidance as Markdown. The guidance is split at its
//! headings into sections whose ids are the headings, so cards, generation and authoring can cite
//! them like the built-in pack's guidance ids. Such packs sit beside the built-in ones in the store.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

use super::import::split_markdown;
use super::{repo, AppliesTo, Clause, GuidanceSection, PolicyPack};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::util::files::{json_message, read_text, MAX_TEXT_FILE_BYTES};
use crate::util::ids::check_id;

/// One clause of a new policy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct NewClause {
    /// Machine id used by cards and cases (`A-Z a-z 0-9 . _ -`).
    #[serde(default)]
    pub clause_id: String,
    /// The name people and models cite, e.g. "Falls clause 1".
    #[serde(default)]
    pub label: String,
    /// The group the clause belongs to (e.g. "Falls").
    #[serde(default)]
    pub category: String,
    /// The clause wording or a faithful summary of it.
    #[serde(default)]
    pub text: String,
    /// A few words shown in lists; the label when left out.
    #[serde(default)]
    pub short_title: String,
}

/// What `psebench policy create FILE` reads and `policy.create` takes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct NewPolicy {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub jurisdiction: String,
    /// When a report is due, in the policy's own terms (e.g. "within 10 working days").
    #[serde(default)]
    pub reporting_deadline: String,
    /// The law or rule the policy comes from (optional).
    #[serde(default)]
    pub statute: String,
    #[serde(default)]
    pub clauses: Vec<NewClause>,
    /// Guidance as Markdown; every heading starts a section whose id is the heading text.
    #[serde(default)]
    pub guidance_markdown: String,
}

/// A problem with one field of a new policy; `field` is a path such as `clauses[2].label`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FieldProblem {
    pub field: String,
    pub message: String,
}

/// What creating a pack did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyCreateResult {
    pub id: String,
    pub clauses: Vec<String>,
    pub guidance_sections: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyDeleteResult {
    pub id: String,
    pub deleted: bool,
}

/// Guidance sections from Markdown: one per heading (text before the first heading becomes
/// "Preamble"); ids are the headings with spaces collapsed, numbered when repeated.
pub fn guidance_from_markdown(markdown: &str) -> Vec<GuidanceSection> {
    let mut used: Vec<String> = Vec::new();
    split_markdown(markdown)
        .into_iter()
        .filter(|s| !(s.level == 0 && s.body.trim().is_empty()))
        .map(|s| {
            let base = s.heading.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut id = base.clone();
            let mut n = 2;
            while used.contains(&id) {
                id = format!("{base} ({n})");
                n += 1;
            }
            used.push(id.clone());
            GuidanceSection {
                id,
                kind: "guidance".into(),
                applies_to: AppliesTo::All("all".into()),
                topic: s.heading,
                summary: s.body,
                // No research status: the text is the user's own.
                status: String::new(),
                status_note: String::new(),
                version_map: Default::default(),
                notes: String::new(),
            }
        })
        .collect()
}

/// The ids and clause ids already taken, by pack.
pub struct Taken {
    pub packs: Vec<PolicyPack>,
}

/// Every problem with `p`, each naming its field, in plain words.
pub fn check_new_policy(p: &NewPolicy, taken: &Taken) -> Vec<FieldProblem> {
    let mut out = Vec::new();
    let mut bad = |field: String, message: String| out.push(FieldProblem { field, message });
    match check_id("policy id", p.id.trim()) {
        Err(e) => bad("id".into(), format!("{e}.")),
        Ok(()) => {
            if let Some(b) = taken.packs.iter().find(|b| b.id.eq_ignore_ascii_case(p.id.trim())) {
                bad(
                    "id".into(),
                    format!("There is already a policy pack \"{}\" ({}); choose another id.", b.id, b.name),
                );
            }
        }
    }
    if p.name.trim().is_empty() {
        bad("name".into(), "Give the policy a name people will recognise.".into());
    }
    if p.jurisdiction.trim().is_empty() {
        bad("jurisdiction".into(), "Say where the policy applies (a state, a country, a health system).".into());
    }
    if p.reporting_deadline.trim().is_empty() {
        bad(
            "reporting_deadline".into(),
            "Say when a report is due under this policy (e.g. \"within 10 working days\").".into(),
        );
    }
    if p.clauses.is_empty() {
        bad("clauses".into(), "Add at least one clause: a policy without clauses has nothing to report.".into());
    }
    let mut ids = HashSet::new();
    let mut labels = HashSet::new();
    for (i, c) in p.clauses.iter().enumerate() {
        let f = |name: &str| format!("clauses[{i}].{name}");
        let n = i + 1;
        match check_id("clause id", c.clause_id.trim()) {
            Err(e) => bad(f("clause_id"), format!("Clause {n}: {e}.")),
            Ok(()) => {
                if !ids.insert(c.clause_id.trim().to_string()) {
                    bad(f("clause_id"), format!("Clause {n}: the clause id \"{}\" is used twice.", c.clause_id.trim()));
                } else if let Some(pk) = taken.packs.iter().find(|pk| pk.clause(c.clause_id.trim()).is_some()) {
                    bad(
                        f("clause_id"),
                        format!(
                            "Clause {n}: \"{}\" is already a clause id of the policy \"{}\"; clause ids must differ between policies.",
                            c.clause_id.trim(),
                            pk.id
                        ),
                    );
                }
            }
        }
        if c.label.trim().is_empty() {
            bad(f("label"), format!("Clause {n}: give it a label, the name cards and answers cite."));
        } else if !labels.insert(c.label.trim().to_string()) {
            bad(f("label"), format!("Clause {n}: the label \"{}\" is used twice.", c.label.trim()));
        }
        if c.category.trim().is_empty() {
            bad(f("category"), format!("Clause {n}: give it a category (the group it belongs to)."));
        }
        if c.text.trim().is_empty() {
            bad(f("text"), format!("Clause {n}: give the clause's wording or a faithful summary of it."));
        }
    }
    for g in guidance_from_markdown(&p.guidance_markdown) {
        if labels.contains(g.id.as_str()) {
            bad(
                "guidance_markdown".into(),
                format!("The guidance heading \"{}\" is also a clause label; headings and labels must differ.", g.id),
            );
        }
    }
    out
}

/// The pack stored for a valid `p`.
pub fn pack_from_new(p: &NewPolicy) -> PolicyPack {
    let mut categories: Vec<super::CategoryCount> = Vec::new();
    let clauses = p
        .clauses
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let category = c.category.trim().to_string();
            let local_no = match categories.iter_mut().find(|k| k.name == category) {
                Some(k) => {
                    k.count += 1;
                    k.count
                }
                None => {
                    categories.push(super::CategoryCount { name: category.clone(), count: 1 });
                    1
                }
            };
            let label = c.label.trim().to_string();
            Clause {
                global_no: i as u32 + 1,
                category,
                local_no,
                clause_id: c.clause_id.trim().to_string(),
                short_title: if c.short_title.trim().is_empty() {
                    label.clone()
                } else {
                    c.short_title.trim().to_string()
                },
                label,
                summary: c.text.trim().to_string(),
                statute_ref: String::new(),
                confidence: String::new(),
                provenance: "written by the user".into(),
                notes: String::new(),
            }
        })
        .collect();
    PolicyPack {
        id: p.id.trim().to_string(),
        name: p.name.trim().to_string(),
        jurisdiction: p.jurisdiction.trim().to_string(),
        statute: p.statute.trim().to_string(),
        edition: "user".into(),
        edition_notice:
            "This policy pack was written by a user of this store; its clauses and guidance are as they entered them."
                .into(),
        reporting_deadline: p.reporting_deadline.trim().to_string(),
        categories,
        sources: Vec::new(),
        clauses,
        guidance: guidance_from_markdown(&p.guidance_markdown),
        neighbours: Vec::new(),
    }
}

/// Read a new policy from a JSON file, with the file named in any error.
pub fn read_new_policy(path: &Path) -> ApiResult<NewPolicy> {
    let text = read_text(path, MAX_TEXT_FILE_BYTES)?;
    serde_json::from_str(&text).map_err(|e| {
        ApiError::invalid(format!(
            "{}: this is not a policy file: {}. It must be a JSON object with id, name, jurisdiction, reporting_deadline, clauses (each with clause_id, label, category, text) and guidance_markdown.",
            path.display(),
            json_message(&e)
        ))
    })
}

impl Engine {
    /// Store a new user policy pack after checking every field.
    pub fn policy_create(&self, p: &NewPolicy) -> ApiResult<PolicyCreateResult> {
        let mut packs = super::builtin_packs();
        let stored = self.store().with_conn(|c| {
            repo::list_pack_ids(c)?.iter().map(|id| repo::load_pack(c, id)).collect::<ApiResult<Vec<_>>>()
        })?;
        for s in stored {
            if !packs.iter().any(|b| b.id == s.id) {
                packs.push(s);
            }
        }
        let problems = check_new_policy(p, &Taken { packs });
        if !problems.is_empty() {
            let list = problems.iter().map(|x| format!("- {}: {}", x.field, x.message)).collect::<Vec<_>>().join("\n");
            let detail = serde_json::to_string(&problems).unwrap_or_default();
            return Err(ApiError::invalid(format!("The policy could not be created:\n{list}")).with_detail(detail));
        }
        let pack = pack_from_new(p);
        self.store().with_tx(|tx| repo::insert_user_pack(tx, &pack))?;
        Ok(PolicyCreateResult {
            id: pack.id.clone(),
            clauses: pack.clauses.iter().map(|c| c.clause_id.clone()).collect(),
            guidance_sections: pack.guidance.iter().map(|g| g.id.clone()).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> NewPolicy {
        NewPolicy {
            id: "demo-state".into(),
            name: "Demo".into(),
            jurisdiction: "Somewhere".into(),
            reporting_deadline: "5 days".into(),
            statute: String::new(),
            clauses: vec![NewClause {
                clause_id: "Falls_1".into(),
                label: "Falls clause 1".into(),
                category: "Falls".into(),
                text: "A fall with serious harm.".into(),
                short_title: String::new(),
            }],
            guidance_markdown: "Intro.\n\n# Serious harm\nMeans lasting harm.\n\n# Serious harm\nAgain.".into(),
        }
    }

    #[test]
    fn guidance_headings_become_section_ids() {
        let g = guidance_from_markdown(&good().guidance_markdown);
        let ids: Vec<_> = g.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["Preamble", "Serious harm", "Serious harm (2)"]);
        assert_eq!(g[1].summary, "Means lasting harm.");
    }

    #[test]
    fn every_bad_field_is_named() {
        let mut p = good();
        p.id = "bad id".into();
        p.name = " ".into();
        p.clauses.push(p.clauses[0].clone());
        let taken = Taken { packs: crate::policy::builtin_packs() };
        let fields: Vec<_> = check_new_policy(&p, &taken).into_iter().map(|x| x.field).collect();
        assert_eq!(fields, ["id", "name", "clauses[1].clause_id", "clauses[1].label"]);
        assert!(check_new_policy(&good(), &taken).is_empty());
        let mut clash = good();
        clash.id = crate::policy::DEFAULT_POLICY.into();
        assert_eq!(check_new_policy(&clash, &taken)[0].field, "id");
        let mut none = good();
        none.clauses.clear();
        assert_eq!(check_new_policy(&none, &taken)[0].field, "clauses");
    }
}
