//! Checks a case must pass on the way into the store: the FORMATS.md contract plus consistency
//! between its fields (gold clause only for Reportable, masked slots only for missing cases, ...).

use std::collections::HashSet;

use super::{Case, CaseType, Verdict};
use crate::policy::PolicyVocab;

/// Problems with one case, each a sentence naming the field.
pub fn check_case(case: &Case, vocab: Option<&PolicyVocab>) -> Vec<String> {
    let mut p = Vec::new();
    if case.case_id.trim().is_empty() {
        p.push("\"case_id\" must not be empty".to_string());
    }
    if case.narrative.trim().is_empty() {
        p.push("\"narrative\" is empty; a case needs the event description shown to the model".to_string());
    }
    match (case.gold_verdict, &case.gold_clause) {
        (Verdict::Reportable, None) => {
            p.push("\"gold_clause\" is null but the gold verdict is Reportable; give the clause label the event falls under".into())
        }
        (Verdict::Reportable, Some(c)) if c.trim().is_empty() => p.push("\"gold_clause\" must not be empty for a Reportable case".into()),
        (v, Some(c)) if v != Verdict::Reportable => p.push(format!(
            "\"gold_clause\" is \"{c}\" but the gold verdict is {}; gold_clause must be null unless the verdict is Reportable",
            v.as_str()
        )),
        _ => {}
    }
    match case.case_type {
        CaseType::Uncertain if case.gold_verdict != Verdict::Uncertain => p.push(format!(
            "an uncertain case must have gold_verdict \"Uncertain\", not \"{}\"",
            case.gold_verdict.as_str()
        )),
        CaseType::Complete | CaseType::Missing if case.gold_verdict == Verdict::Uncertain => p.push(format!(
            "a {} case cannot have gold_verdict \"Uncertain\" (use case_type \"uncertain\")",
            case.case_type.as_str()
        )),
        _ => {}
    }
    if case.case_type == CaseType::Missing {
        if case.masked_elements.is_empty() {
            p.push("a missing case must list the withheld elements in \"masked_elements\"".into());
        }
        if case.missing_variant_id.as_deref().map(str::trim).unwrap_or("").is_empty() {
            p.push("a missing case must name its \"missing_variant_id\"".into());
        }
    } else {
        if !case.masked_elements.is_empty() {
            p.push(format!("\"masked_elements\" must be empty for a {} case", case.case_type.as_str()));
        }
        if case.missing_variant_id.is_some() {
            p.push(format!("\"missing_variant_id\" must be null for a {} case", case.case_type.as_str()));
        }
    }
    let mut names = HashSet::new();
    for e in &case.elements {
        if !names.insert(e.name.as_str()) {
            p.push(format!("element \"{}\" appears twice in \"elements\"", e.name));
        }
    }
    for m in &case.masked_elements {
        if !names.contains(m.as_str()) {
            p.push(format!("masked element \"{m}\" is not one of the case's \"elements\""));
        }
    }
    let mut bcs = HashSet::new();
    for b in &case.boundary_conditions {
        if !bcs.insert(b.name.as_str()) {
            p.push(format!("boundary condition \"{}\" appears twice", b.name));
        }
    }
    if let Some(v) = vocab {
        if v.policy_id != case.policy {
            p.push(format!(
                "\"policy\" is \"{}\" but the case is being checked against \"{}\"",
                case.policy, v.policy_id
            ));
        }
        if !v.clause_ids.iter().any(|c| c == &case.clause_id) {
            p.push(format!("\"clause_id\" \"{}\" is not a clause of policy {}", case.clause_id, v.policy_id));
        }
        if let Some(c) = &case.gold_clause {
            if !v.clause_labels.iter().any(|l| l == c) {
                p.push(format!("\"gold_clause\" \"{c}\" is not a clause label of policy {}", v.policy_id));
            }
        }
    }
    p
}
