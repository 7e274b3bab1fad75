//! The agreement rule: does a screen reply agree with a record's by-construction label?
//!
//! - Reportable: the record's own clause is among the clauses met; any other clause met is a
//!   conflict unless the card allows it (`x_allowed_other_clauses`); the verdict is Reportable.
//! - Non-reportable: no clause is met, no open question is raised, and the verdict says so.
//! - Uncertain: an open question is raised, no clause is clearly met, and the verdict is Uncertain.
//!
//! Each conflict is a sentence the Instantiator can act on (it names the clauses concerned), so
//! the same text serves as retry feedback, as a drop reason and in the label audit.

use crate::util::format::noun;
use serde_json::Value;

use super::reply::ScreenReply;
use crate::card::ClauseCard;
use crate::case::Verdict;

/// The card's extension field listing other clauses its records may also meet.
pub const ALLOWED_OTHER_CLAUSES: &str = "x_allowed_other_clauses";

/// What a record is supposed to be.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub label: Verdict,
    /// The clause the record was written for.
    pub clause_id: String,
    /// Other clauses a Reportable record may meet as well.
    pub allowed_other: Vec<String>,
}

impl Expectation {
    pub fn of_card(card: &ClauseCard) -> Expectation {
        Expectation {
            label: card.event_type.verdict(),
            clause_id: card.clause_id.clone(),
            allowed_other: allowed_other_clauses(card),
        }
    }
}

/// The outcome of comparing a reply with the expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub agrees: bool,
    /// Empty when the reply agrees.
    pub conflicts: Vec<String>,
}

/// The clause ids listed in the card's `x_allowed_other_clauses` (absent or malformed: none).
pub fn allowed_other_clauses(card: &ClauseCard) -> Vec<String> {
    match card.extra.get(ALLOWED_OTHER_CLAUSES) {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(|s| s.trim().to_string()).collect(),
        _ => Vec::new(),
    }
}

fn met_list(reply: &ScreenReply, ids: &[&str]) -> String {
    ids.iter()
        .map(|id| {
            let why = reply.clauses_met.iter().find(|c| c.clause_id == *id).map(|c| c.why.trim()).unwrap_or("");
            if why.is_empty() {
                id.to_string()
            } else {
                format!("{id} ({why})")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Compare a screen reply with what the record is supposed to be.
pub fn agreement(exp: &Expectation, reply: &ScreenReply) -> Agreement {
    let mut conflicts = Vec::new();
    let met: Vec<&str> = reply.clauses_met.iter().map(|c| c.clause_id.as_str()).collect();
    match exp.label {
        Verdict::Reportable => {
            if !met.contains(&exp.clause_id.as_str()) {
                conflicts.push(format!(
                    "The policy-wide screen did not find clause {} met by these facts; make every element that clause requires plainly true in the facts.",
                    exp.clause_id
                ));
            }
            let others: Vec<&str> = met
                .iter()
                .copied()
                .filter(|id| *id != exp.clause_id && !exp.allowed_other.iter().any(|a| a == id))
                .collect();
            if !others.is_empty() {
                conflicts.push(format!(
                    "The facts also meet {} {}, which this card does not allow; change the facts so that {} requirements are not all met.",
                    noun(others.len(), "clause"),
                    met_list(reply, &others),
                    if others.len() == 1 { "that clause's" } else { "those clauses'" }
                ));
            }
        }
        Verdict::NonReportable => {
            if !met.is_empty() {
                conflicts.push(format!(
                    "The facts meet {} {}, but a record for this card must meet no clause of the policy; change the facts that meet {}.",
                    noun(met.len(), "clause"),
                    met_list(reply, &met),
                    if met.len() == 1 { "it" } else { "them" }
                ));
            }
            if reply.open_question.present {
                conflicts.push(format!(
                    "The screen found the policy undecided for these facts ({}{}); the record must be plainly outside every clause.",
                    reply.open_question.section_id.as_deref().map(|s| format!("{s}: ")).unwrap_or_default(),
                    reply.open_question.why.as_deref().unwrap_or("no reason given")
                ));
            }
        }
        Verdict::Uncertain => {
            if !met.is_empty() {
                conflicts.push(format!(
                    "The facts clearly meet {} {}, so the policy decides this record; keep the card's open point genuinely undecided instead.",
                    noun(met.len(), "clause"),
                    met_list(reply, &met)
                ));
            }
            if !reply.open_question.present {
                conflicts.push("The screen found no open question in the policy for these facts; the record must hinge on the point the card says the policy leaves open.".to_string());
            }
        }
    }
    if reply.verdict != exp.label {
        conflicts.push(format!(
            "The screen's overall verdict was {}, not {} as the card requires.",
            reply.verdict.as_str(),
            exp.label.as_str()
        ));
    }
    Agreement { agrees: conflicts.is_empty(), conflicts }
}

#[cfg(test)]
mod tests {
    use super::super::reply::{ClauseMet, OpenQuestion};
    use super::*;

    fn reply(met: &[&str], open: bool, verdict: Verdict) -> ScreenReply {
        ScreenReply {
            clauses_met: met.iter().map(|m| ClauseMet { clause_id: m.to_string(), why: format!("why {m}") }).collect(),
            open_question: OpenQuestion {
                present: open,
                section_id: open.then(|| "G5".to_string()),
                why: open.then(|| "silent on lowering".to_string()),
            },
            verdict,
        }
    }

    fn exp(label: Verdict, allowed: &[&str]) -> Expectation {
        Expectation {
            label,
            clause_id: "Fall_7".into(),
            allowed_other: allowed.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn reportable_needs_its_clause_and_no_other_unless_allowed() {
        let e = exp(Verdict::Reportable, &[]);
        assert!(agreement(&e, &reply(&["Fall_7"], false, Verdict::Reportable)).agrees);
        let missing = agreement(&e, &reply(&["Burn_3"], false, Verdict::Reportable));
        assert!(!missing.agrees);
        assert!(missing.conflicts.iter().any(|c| c.contains("did not find clause Fall_7")));
        assert!(missing.conflicts.iter().any(|c| c.contains("Burn_3 (why Burn_3)")), "{:?}", missing.conflicts);
        let other = agreement(&e, &reply(&["Fall_7", "Restraint_4"], false, Verdict::Reportable));
        assert_eq!(other.conflicts.len(), 1);
        assert!(other.conflicts[0].contains("Restraint_4"));
        // The card may allow another clause.
        let allowed = exp(Verdict::Reportable, &["Restraint_4"]);
        assert!(agreement(&allowed, &reply(&["Fall_7", "Restraint_4"], false, Verdict::Reportable)).agrees);
        assert!(!agreement(&allowed, &reply(&["Fall_7", "Restraint_4", "Burn_3"], false, Verdict::Reportable)).agrees);
        // The verdict must agree too.
        let v = agreement(&e, &reply(&["Fall_7"], false, Verdict::Uncertain));
        assert!(!v.agrees);
        assert!(v.conflicts[0].contains("overall verdict was Uncertain"));
    }

    #[test]
    fn non_reportable_needs_no_clause_and_no_open_question() {
        let e = exp(Verdict::NonReportable, &["Burn_3"]);
        assert!(agreement(&e, &reply(&[], false, Verdict::NonReportable)).agrees);
        // Allowed clauses only matter for Reportable cards.
        let met = agreement(&e, &reply(&["Burn_3"], false, Verdict::NonReportable));
        assert!(!met.agrees);
        assert!(met.conflicts[0].contains("Burn_3"));
        let open = agreement(&e, &reply(&[], true, Verdict::NonReportable));
        assert!(!open.agrees);
        assert!(open.conflicts[0].contains("G5: silent on lowering"));
        assert!(!agreement(&e, &reply(&[], false, Verdict::Reportable)).agrees);
    }

    #[test]
    fn uncertain_needs_an_open_question_and_no_clause_clearly_met() {
        let e = exp(Verdict::Uncertain, &[]);
        assert!(agreement(&e, &reply(&[], true, Verdict::Uncertain)).agrees);
        let closed = agreement(&e, &reply(&[], false, Verdict::Uncertain));
        assert!(!closed.agrees);
        assert!(closed.conflicts[0].contains("no open question"));
        let met = agreement(&e, &reply(&["Fall_7"], true, Verdict::Uncertain));
        assert!(!met.agrees);
        assert!(met.conflicts[0].contains("Fall_7"));
        assert!(!agreement(&e, &reply(&[], true, Verdict::NonReportable)).agrees);
    }

    #[test]
    fn the_allowed_clauses_are_read_from_the_card_extension() {
        let v = serde_json::json!({
          "clause_card_id": "CardRep_1_X_1", "clause_card_definition": "d", "clause_id": "X_1", "event_type": "Reportable",
          "fixed_fields": {"governing_legal_basis": {"meaning": "m", "value": ["X 1"]}, "boundary_conditions": {}},
          "basic_event_elements": {}, "constraints_on_basic_event_elements_instantiation": [],
          "x_allowed_other_clauses": ["Y_2", " Z_3 "]
        });
        let card = ClauseCard::from_value(&v).unwrap();
        assert_eq!(allowed_other_clauses(&card), vec!["Y_2", "Z_3"]);
        assert_eq!(Expectation::of_card(&card).label, Verdict::Reportable);
    }
}
