//! The checks a draft passes in code before any person sees it: the schema, every lint rule, the
//! kind of card asked for, ids that are new to the library, a legal basis drawn only from the
//! approved extraction, an open question on every Uncertain card, mutual exclusivity against the
//! drafted set and the clause's existing cards, and, for missing variants, an alternative card
//! named among the siblings.

use serde_json::Value;
use std::collections::HashSet;

use super::{DraftKind, DraftProblem};
use crate::card::lint::{lint_documents, lint_single, LintInput, Severity};
use crate::card::schema::validate_card;
use crate::card::{ClauseCard, EventType};
use crate::policy::PolicyVocab;

/// What a drafted set is checked against.
pub struct CheckContext<'a> {
    pub vocab: &'a PolicyVocab,
    pub clause_id: &'a str,
    /// Ids a legal basis may cite: the approved extraction's sections and the clause's label.
    pub citable: &'a [String],
    /// Every card id already in the library (any policy).
    pub taken_ids: &'a HashSet<String>,
    /// The clause's current cards.
    pub existing: &'a [ClauseCard],
}

fn problem(item: Option<&str>, rule: &str, severity: Severity, pointer: &str, message: String) -> DraftProblem {
    DraftProblem { item_id: item.map(str::to_string), rule: rule.into(), severity, pointer: pointer.into(), message }
}

fn err(item: Option<&str>, rule: &str, pointer: &str, message: String) -> DraftProblem {
    problem(item, rule, Severity::Error, pointer, message)
}

/// The id of a drafted card or variant, or its position when it has none.
pub fn item_label(v: &Value, key: &str, n: usize) -> String {
    v.get(key).and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("#{}", n + 1))
}

/// Whether two cards cannot both fit one event: some condition they share takes opposite values.
pub fn exclusive(a: &ClauseCard, b: &ClauseCard) -> bool {
    a.boundary_conditions()
        .iter()
        .any(|(name, bc)| b.boundary_conditions().get(name).map(|o| o.value != bc.value).unwrap_or(false))
}

/// Check drafted cards (kind complete or uncertain). Returns the problems and the cards that could
/// be read.
pub fn check_cards(kind: DraftKind, items: &[Value], cx: &CheckContext<'_>) -> (Vec<DraftProblem>, Vec<ClauseCard>) {
    let mut out = Vec::new();
    if items.is_empty() {
        let settled =
            cx.existing.iter().filter(|c| c.clause_id == cx.clause_id && c.event_type != EventType::Uncertain).count();
        let message = if kind != DraftKind::Uncertain && settled > 0 {
            format!(
                "The model proposed no new card: it found nothing that the clause's {settled} existing card{} leave open. \
                 Nothing needs accepting; draft again only if you know of an event the cards miss.",
                if settled == 1 { "" } else { "s" }
            )
        } else {
            "The reply proposed no card at all; propose at least one.".to_string()
        };
        out.push(err(None, "draft-empty", "", message));
        return (out, vec![]);
    }
    let inputs: Vec<LintInput> = items
        .iter()
        .enumerate()
        .map(|(n, v)| LintInput { path: item_label(v, "clause_card_id", n), value: v.clone() })
        .collect();
    for p in lint_documents(&inputs, cx.vocab).problems {
        let item = p.clause_card_id.clone().unwrap_or(p.path.clone());
        out.push(problem(Some(&item), &p.rule, p.severity, &p.pointer, p.message));
    }
    let mut cards = Vec::new();
    for (n, v) in items.iter().enumerate() {
        let id = item_label(v, "clause_card_id", n);
        if let Some(card_id) = v.get("clause_card_id").and_then(Value::as_str) {
            if cx.taken_ids.contains(card_id) {
                out.push(err(
                    Some(&id),
                    "draft-id-taken",
                    "/clause_card_id",
                    format!("The library already has a card \"{card_id}\"; choose a number that is not taken."),
                ));
            }
        }
        if !validate_card(v).is_empty() {
            continue; // reported by the schema rule above
        }
        let Ok(card) = ClauseCard::from_value(v) else { continue };
        let want_uncertain = kind == DraftKind::Uncertain;
        if want_uncertain != (card.event_type == EventType::Uncertain) {
            let want = if want_uncertain { "\"Uncertain\"" } else { "\"Reportable\" or \"Non_Reportable\"" };
            out.push(err(
                Some(&id),
                "draft-kind",
                "/event_type",
                format!("This draft asks for {} cards, so event_type must be {want}.", kind.describe()),
            ));
        }
        if card.clause_id != cx.clause_id {
            out.push(err(
                Some(&id),
                "draft-clause",
                "/clause_id",
                format!("clause_id must be the target clause \"{}\", not \"{}\".", cx.clause_id, card.clause_id),
            ));
        }
        if card.missing_information_variants.is_some() {
            out.push(err(
                Some(&id),
                "draft-variants-not-allowed",
                "/missing_information_variants",
                "Leave out missing_information_variants here; variants are drafted later for each finished card."
                    .into(),
            ));
        }
        let prefix = match card.event_type {
            EventType::Reportable => "CardRep_",
            EventType::NonReportable => "CardNonrep_",
            EventType::Uncertain => "CardUnc_",
        };
        if !card.clause_card_id.starts_with(prefix) {
            out.push(problem(
                Some(&id),
                "draft-id-style",
                Severity::Warning,
                "/clause_card_id",
                format!("A {} card's id should start with \"{prefix}\".", card.event_type.as_str()),
            ));
        }
        for (i, b) in card.legal_basis().iter().enumerate() {
            if !cx.citable.iter().any(|c| c == b) {
                out.push(err(
                    Some(&id),
                    "draft-basis-outside-extraction",
                    &format!("/fixed_fields/governing_legal_basis/value/{i}"),
                    format!(
                        "\"{b}\" is not among the passages of the approved extraction. Cite only: {}.",
                        cx.citable.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
        if card.event_type == EventType::Uncertain {
            check_open_question(&id, v, cx, &mut out);
        }
        cards.push(card);
    }
    // Mutual exclusivity: within the set, and against the clause's existing cards.
    for (i, a) in cards.iter().enumerate() {
        for b in cards.iter().skip(i + 1) {
            if a.clause_card_id != b.clause_card_id && !exclusive(a, b) {
                out.push(not_exclusive(a, b, "another card of this draft"));
            }
        }
        for b in cx.existing.iter().filter(|b| b.clause_id == cx.clause_id) {
            if b.clause_card_id != a.clause_card_id && !exclusive(a, b) {
                out.push(not_exclusive(a, b, "a card the clause already has"));
            }
        }
    }
    (out, cards)
}

fn not_exclusive(a: &ClauseCard, b: &ClauseCard, what: &str) -> DraftProblem {
    err(
        Some(&a.clause_card_id),
        "draft-not-exclusive",
        "/fixed_fields/boundary_conditions",
        format!(
            "\"{}\" and \"{}\" ({what}) could fit the same event: no condition they share takes opposite truth \
             values. Give them a shared condition name that is true on one and false on the other.",
            a.clause_card_id, b.clause_card_id
        ),
    )
}

fn check_open_question(id: &str, v: &Value, cx: &CheckContext<'_>, out: &mut Vec<DraftProblem>) {
    let q = v.get("x_open_question");
    let section = q.and_then(|q| q.get("section_id")).and_then(Value::as_str).map(str::trim).unwrap_or("");
    let question = q.and_then(|q| q.get("question")).and_then(Value::as_str).map(str::trim).unwrap_or("");
    if q.is_none() || section.is_empty() || question.is_empty() {
        out.push(err(
            Some(id),
            "draft-open-question",
            "/x_open_question",
            "An Uncertain card must name the open question: x_open_question {\"section_id\": the passage that \
             leaves it open, \"question\": the exact question the policy does not answer}."
                .into(),
        ));
        return;
    }
    if !cx.citable.iter().any(|c| c == section) {
        out.push(err(
            Some(id),
            "draft-open-question",
            "/x_open_question/section_id",
            format!("\"{section}\" is not a passage of the approved extraction; name the passage that leaves the question open."),
        ));
    }
    if !question.ends_with('?') {
        out.push(err(
            Some(id),
            "draft-open-question",
            "/x_open_question/question",
            "Write the open question as one question ending with a question mark.".into(),
        ));
    }
}

/// Check drafted missing-information variants for one parent card, given its siblings.
pub fn check_variants(
    parent: &ClauseCard,
    items: &[Value],
    siblings: &[ClauseCard],
    cx: &CheckContext<'_>,
) -> Vec<DraftProblem> {
    let mut out = Vec::new();
    if items.is_empty() {
        out.push(err(None, "draft-empty", "", "The reply proposed no variant at all; propose at least one.".into()));
        return out;
    }
    if parent.event_type == EventType::Uncertain {
        out.push(err(
            None,
            "variant-on-uncertain",
            "",
            format!("\"{}\" is an Uncertain card; Uncertain cards have no missing variants.", parent.clause_card_id),
        ));
        return out;
    }
    let before = parent.variants().len();
    let mut combined = parent.to_value();
    let mut all: Vec<Value> =
        parent.variants().iter().map(|v| serde_json::to_value(v).unwrap_or(Value::Null)).collect();
    all.extend(items.iter().cloned());
    combined["missing_information_variants"] = Value::Array(all);
    let label_at = |pointer: &str| -> Option<String> {
        let rest = pointer.strip_prefix("/missing_information_variants/")?;
        let idx: usize = rest.split('/').next()?.parse().ok()?;
        let n = idx.checked_sub(before)?;
        items.get(n).map(|v| item_label(v, "missing_variant_id", n))
    };
    let schema = validate_card(&combined);
    if !schema.is_empty() {
        for p in schema {
            let item = label_at(&p.pointer);
            out.push(err(item.as_deref(), "schema", &p.pointer, p.message));
        }
        return out;
    }
    let card = match ClauseCard::from_value(&combined) {
        Ok(c) => c,
        Err(e) => {
            out.push(err(None, "schema", "", format!("The variants could not be read: {e}")));
            return out;
        }
    };
    for p in lint_single("draft", &card, cx.vocab) {
        // Only findings about the new variants belong to this draft.
        if let Some(item) = label_at(&p.pointer) {
            out.push(problem(Some(&item), &p.rule, p.severity, &p.pointer, p.message));
        }
    }
    let alternatives: Vec<&ClauseCard> = siblings
        .iter()
        .filter(|s| s.clause_card_id != parent.clause_card_id && s.clause_id == parent.clause_id)
        .collect();
    for (n, v) in card.variants().iter().enumerate().skip(before) {
        let why = &v.why_not_classifiable_from_remaining_event_description;
        if !alternatives.iter().any(|s| why.contains(&s.clause_card_id)) {
            let names = if alternatives.is_empty() {
                "(the clause has no other card yet, so no variant can be genuinely undecided)".to_string()
            } else {
                alternatives.iter().map(|s| format!("\"{}\"", s.clause_card_id)).collect::<Vec<_>>().join(", ")
            };
            out.push(err(
                Some(&v.missing_variant_id),
                "draft-variant-alternative",
                &format!("/missing_information_variants/{n}/why_not_classifiable_from_remaining_event_description"),
                format!(
                    "Name, by its card id, the other card of the clause whose verdict the remaining facts also fit. \
                     Sibling cards: {names}."
                ),
            ));
        }
    }
    out
}
