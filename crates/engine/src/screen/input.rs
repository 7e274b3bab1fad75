//! What the screen is shown: every clause of the policy, the context of the record's own clause and
//! the record's facts. Nothing else: the card's verdict, event type and boundary conditions stay
//! out, so the screen judges the facts against the policy and not against the card.

use super::reply::KnownClause;
use crate::policy::{OfficialSection, PolicyPack};

/// Every clause of the policy: id, label, title and text (the imported official wording where
/// there is one, else the summary edition's text, marked as such).
pub fn policy_clauses(pack: &PolicyPack, official: &[OfficialSection]) -> String {
    let mut out = Vec::new();
    let mut summary_used = false;
    for c in &pack.clauses {
        let off: Vec<&str> = official
            .iter()
            .filter(|s| s.source == "clauses" && s.evidence_id == c.label)
            .map(|s| s.body.trim())
            .filter(|b| !b.is_empty())
            .collect();
        let text = if off.is_empty() {
            summary_used = true;
            c.summary.trim().to_string()
        } else {
            off.join("\n\n")
        };
        out.push(format!("## {} — {}: {}\n{}", c.clause_id, c.label, c.short_title, text));
    }
    let mut s = out.join("\n\n");
    if summary_used {
        s.push_str("\n\n(Some clause texts above are short summaries of the policy, not its official wording.)");
    }
    s
}

/// The clause ids and labels a reply may name.
pub fn known_clauses(pack: &PolicyPack) -> Vec<KnownClause> {
    pack.clauses.iter().map(|c| KnownClause { clause_id: c.clause_id.clone(), label: c.label.clone() }).collect()
}

/// One fact of the record.
pub struct Fact<'a> {
    pub name: &'a str,
    pub meaning: &'a str,
    pub value: Option<&'a str>,
}

/// The record's facts, one per line with what the slot stands for.
pub fn facts(list: &[Fact<'_>]) -> String {
    list.iter()
        .map(|f| {
            let value = f.value.map(str::trim).filter(|v| !v.is_empty()).unwrap_or("(not stated)");
            format!("- {} — {}\n  {}", f.name, f.meaning.trim(), value)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_name_each_slot_its_meaning_and_value() {
        let f = facts(&[
            Fact { name: "fall", meaning: "How the patient fell.", value: Some("Slipped in the shower") },
            Fact { name: "injury", meaning: "The injury.", value: None },
        ]);
        assert!(f.contains("- fall — How the patient fell.\n  Slipped in the shower"));
        assert!(f.contains("- injury — The injury.\n  (not stated)"));
    }
}
