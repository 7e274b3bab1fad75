//! What a reviewer sees after their blind verdict: the verdict the case was built to have and the
//! material that decides it. Built from the case (its boundary conditions and masked elements are
//! copies of its card's) and, when the card is in the library, the card's definition, legal-basis
//! meaning and missing-variant explanation.

use super::{RevealCondition, RevealElement, RevealMaterial, ReviewVerdict};
use crate::card::ClauseCard;
use crate::case::{Case, CaseType};

pub fn material(case: &Case, card: Option<&ClauseCard>) -> RevealMaterial {
    let expected = ReviewVerdict::by_construction(case.case_type, case.gold_verdict);
    let clause = case.gold_clause.clone().unwrap_or_else(|| case.clause_id.clone());
    let explanation = match (case.case_type, expected) {
        (CaseType::Complete, ReviewVerdict::Reportable) => format!(
            "This case was built to be Reportable under {clause}: the conditions below hold with the values shown."
        ),
        (CaseType::Complete, _) => {
            "This case was built to be Non-reportable: with the condition values shown below, the event falls outside the clause it resembles."
                .to_string()
        }
        (CaseType::Missing, _) => "This case was built with decisive facts left out, so the report alone cannot be classified: the expected \
             answer is Missing information. The facts withheld from the report are listed below."
            .to_string(),
        (CaseType::Uncertain, _) => "This case was built as a gray zone: the facts are all there, but the policy does not settle whether the \
             event must be reported, so the expected answer is Uncertain."
            .to_string(),
    };
    let boundary_conditions = if case.case_type == CaseType::Missing {
        Vec::new()
    } else {
        case.boundary_conditions
            .iter()
            .map(|b| RevealCondition { name: b.name.clone(), meaning: b.meaning.clone(), value: b.value })
            .collect()
    };
    let withheld_elements = case
        .masked_elements
        .iter()
        .map(|name| RevealElement {
            name: name.clone(),
            meaning: case.elements.iter().find(|e| &e.name == name).map(|e| e.meaning.clone()).unwrap_or_default(),
        })
        .collect();
    let variant = match (card, &case.missing_variant_id) {
        (Some(c), Some(id)) => c.variant(id),
        _ => None,
    };
    RevealMaterial {
        case_id: case.case_id.clone(),
        case_type: case.case_type,
        expected_verdict: expected,
        explanation,
        clause_label: case.gold_clause.clone(),
        clause_id: case.clause_id.clone(),
        card_id: case.clause_card_id.clone(),
        card_definition: card.map(|c| c.clause_card_definition.clone()),
        legal_basis: if case.gold_legal_basis.is_empty() {
            card.map(|c| c.legal_basis().to_vec()).unwrap_or_default()
        } else {
            case.gold_legal_basis.clone()
        },
        legal_basis_meaning: card.map(|c| c.fixed_fields.governing_legal_basis.meaning.clone()),
        boundary_conditions,
        withheld_elements,
        missing_summary: variant.map(|v| v.summary.clone()),
        why_not_classifiable: variant.map(|v| v.why_not_classifiable_from_remaining_event_description.clone()),
    }
}
