//! The clause-card linter: the schema plus the authoring rules that can be checked in code.
//! Rule ids are a public contract (CLI `--json`, the app, CI scripts).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

use super::schema::validate_card;
use super::{ClauseCard, EventType, FieldType};
use crate::policy::PolicyVocab;
use crate::util::text::{closest, is_snake_case, pointer_token as tok, word_tokens};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding. `pointer` is a JSON Pointer into the card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LintProblem {
    pub path: String,
    pub clause_card_id: Option<String>,
    pub rule: String,
    pub severity: Severity,
    pub pointer: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LintReport {
    pub problems: Vec<LintProblem>,
    pub errors: usize,
    pub warnings: usize,
}

impl LintReport {
    pub fn from_problems(problems: Vec<LintProblem>) -> LintReport {
        let errors = problems.iter().filter(|p| p.severity == Severity::Error).count();
        let warnings = problems.len() - errors;
        LintReport { problems, errors, warnings }
    }
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }
}

/// Words an Uncertain card's constraints must ban from generated text.
pub const UNCERTAIN_BANNED_WORDS: [&str; 8] = [
    "uncertain",
    "uncertainty",
    "indeterminate",
    "escalate",
    "escalation",
    "inconclusive",
    "reportable",
    "non-reportable",
];

/// Tokens that mark a constraint as a prohibition.
const PROHIBITION_MARKERS: [&str; 15] = [
    "never",
    "not",
    "no",
    "nor",
    "ban",
    "banned",
    "bans",
    "forbid",
    "forbidden",
    "forbids",
    "prohibit",
    "prohibited",
    "avoid",
    "exclude",
    "without",
];

/// A parsed document to lint, with the place it came from.
pub struct LintInput {
    pub path: String,
    pub value: Value,
}

struct Ctx<'a> {
    path: &'a str,
    card_id: Option<String>,
    out: Vec<LintProblem>,
}

impl Ctx<'_> {
    fn push(&mut self, rule: &str, severity: Severity, pointer: String, message: String) {
        self.out.push(LintProblem {
            path: self.path.to_string(),
            clause_card_id: self.card_id.clone(),
            rule: rule.to_string(),
            severity,
            pointer,
            message,
        });
    }
    fn error(&mut self, rule: &str, pointer: String, message: String) {
        self.push(rule, Severity::Error, pointer, message);
    }
    fn warn(&mut self, rule: &str, pointer: String, message: String) {
        self.push(rule, Severity::Warning, pointer, message);
    }
}

const BC: &str = "/fixed_fields/boundary_conditions";
const LB: &str = "/fixed_fields/governing_legal_basis/value";
const EL: &str = "/basic_event_elements";
const CONSTRAINTS: &str = "/constraints_on_basic_event_elements_instantiation";
const MV: &str = "/missing_information_variants";

/// Lint a set of card documents together (duplicate ids and overlaps are checked across the set).
pub fn lint_documents(docs: &[LintInput], vocab: &PolicyVocab) -> LintReport {
    let mut problems = Vec::new();
    let mut parsed: Vec<(usize, ClauseCard)> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let card_id = doc.value.get("clause_card_id").and_then(Value::as_str).map(str::to_string);
        let mut ctx = Ctx { path: &doc.path, card_id, out: Vec::new() };
        let schema = validate_card(&doc.value);
        if schema.is_empty() {
            match ClauseCard::from_value(&doc.value) {
                Ok(card) => {
                    lint_card(&card, vocab, &mut ctx);
                    parsed.push((i, card));
                }
                Err(e) => ctx.error("schema", String::new(), format!("the card could not be read: {e}")),
            }
        } else {
            for p in schema {
                ctx.error("schema", p.pointer, p.message);
            }
        }
        problems.extend(ctx.out);
    }
    lint_set(docs, &parsed, &mut problems);
    LintReport::from_problems(problems)
}

/// Lint one already-parsed card on its own.
pub fn lint_single(path: &str, card: &ClauseCard, vocab: &PolicyVocab) -> Vec<LintProblem> {
    let mut ctx = Ctx { path, card_id: Some(card.clause_card_id.clone()), out: Vec::new() };
    lint_card(card, vocab, &mut ctx);
    ctx.out
}

fn lint_card(card: &ClauseCard, vocab: &PolicyVocab, ctx: &mut Ctx<'_>) {
    let bcs = card.boundary_conditions();
    let elements = &card.basic_event_elements;

    // clause-unknown
    if !vocab.clause_ids.iter().any(|c| c == &card.clause_id) {
        let hint = closest(&card.clause_id, vocab.clause_ids.iter().map(String::as_str))
            .map(|c| format!(" Did you mean \"{c}\"?"))
            .unwrap_or_else(|| {
                format!(
                    " Use one of the {} clause ids listed by `psebench policy show {}`.",
                    vocab.clause_ids.len(),
                    vocab.policy_id
                )
            });
        ctx.error(
            "clause-unknown",
            "/clause_id".into(),
            format!("\"{}\" is not a clause of policy {}.{hint}", card.clause_id, vocab.policy_id),
        );
    }

    // bc-no-elements, bc-unknown-element, name-style on conditions
    for (name, bc) in bcs {
        let base = format!("{BC}/{}", tok(name));
        if bc.corresponding_basic_event_elements.is_empty() {
            ctx.error(
                "bc-no-elements",
                format!("{base}/corresponding_basic_event_elements"),
                format!(
                    "Boundary condition \"{name}\" lists no fact slot that shows whether it holds. Add the \
                     element or elements that realize it to corresponding_basic_event_elements."
                ),
            );
        }
        for (k, el) in bc.corresponding_basic_event_elements.iter().enumerate() {
            if !elements.contains_key(el) {
                let hint = closest(el, elements.keys().map(String::as_str))
                    .map(|c| format!(" Did you mean \"{c}\"?"))
                    .unwrap_or_else(|| " Define it under basic_event_elements or remove it from the list.".into());
                ctx.error(
                    "bc-unknown-element",
                    format!("{base}/corresponding_basic_event_elements/{k}"),
                    format!("Boundary condition \"{name}\" refers to an element \"{el}\" that this card does not define.{hint}"),
                );
            }
        }
        if !is_snake_case(name) {
            ctx.warn(
                "name-style",
                base.clone(),
                format!("Boundary condition name \"{name}\" is not snake_case (lower-case words joined by _); rename it for consistency."),
            );
        }
    }

    // element-unused, enum-no-values, name-style on elements
    for (name, el) in elements {
        let base = format!("{EL}/{}", tok(name));
        let used = bcs.values().any(|bc| bc.corresponding_basic_event_elements.iter().any(|e| e == name));
        if !used {
            ctx.error(
                "element-unused",
                base.clone(),
                format!(
                    "Element \"{name}\" does not realize any boundary condition. List it under the condition it \
                     gives evidence for, or remove it."
                ),
            );
        }
        if el.field_type == FieldType::Enum && el.allowed_values.as_ref().map(|v| v.is_empty()).unwrap_or(true) {
            ctx.error(
                "enum-no-values",
                base.clone(),
                format!("Element \"{name}\" is a choice (field_type \"enum\") but lists no allowed_values. Add the permitted values."),
            );
        }
        if !is_snake_case(name) {
            ctx.warn(
                "name-style",
                base,
                format!("Element name \"{name}\" is not snake_case (lower-case words joined by _); rename it for consistency."),
            );
        }
    }

    // legal basis
    let lb = card.legal_basis();
    if lb.iter().all(|s| s.trim().is_empty()) {
        ctx.error(
            "legal-basis-empty",
            LB.into(),
            "The card cites no legal basis. List the clause and guidance passages that support its verdict \
             (for example the clause label and the recommendations it relies on)."
                .into(),
        );
    }
    for (k, id) in lb.iter().enumerate() {
        if id.trim().is_empty() {
            continue;
        }
        if !vocab.evidence_ids.iter().any(|e| e == id) {
            let hint = closest(id, vocab.evidence_ids.iter().map(String::as_str))
                .map(|c| format!(" Did you mean \"{c}\"?"))
                .unwrap_or_else(|| {
                    " Evidence identifiers must be spelled exactly as in the policy's evidence list.".into()
                });
            ctx.error(
                "legal-basis-unknown",
                format!("{LB}/{k}"),
                format!("\"{id}\" is not in the evidence vocabulary of policy {}.{hint}", vocab.policy_id),
            );
        }
    }

    // variants
    if let Some(variants) = &card.missing_information_variants {
        if card.event_type == EventType::Uncertain && !variants.is_empty() {
            ctx.error(
                "variant-on-uncertain",
                MV.into(),
                "An Uncertain card describes a policy gray zone with all facts known, so it cannot have \
                 missing-information variants. Remove the missing_information_variants block."
                    .into(),
            );
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, v) in variants.iter().enumerate() {
            let vbase = format!("{MV}/{i}");
            let id = v.missing_variant_id.as_str();
            let well_formed = id.starts_with("missing_") && is_snake_case(id);
            if !well_formed {
                ctx.error(
                    "variant-id",
                    format!("{vbase}/missing_variant_id"),
                    format!("Variant id \"{id}\" must be snake_case and start with \"missing_\", naming what is withheld (e.g. missing_outcome_severity)."),
                );
            }
            if let Some(first) = seen.get(id) {
                ctx.error(
                    "variant-id",
                    format!("{vbase}/missing_variant_id"),
                    format!("Variant id \"{id}\" is used twice on this card (also variant #{}); give each variant its own id.", first + 1),
                );
            } else {
                seen.insert(id, i);
            }
            for (k, b) in v.masked_boundary_conditions.iter().enumerate() {
                if !bcs.contains_key(b) {
                    ctx.error(
                        "variant-unknown-name",
                        format!("{vbase}/masked_boundary_conditions/{k}"),
                        format!(
                            "Variant \"{id}\" masks a boundary condition \"{b}\" that this card does not define.{}",
                            suggest(b, bcs.keys())
                        ),
                    );
                }
            }
            for (k, e) in v.masked_basic_event_elements.iter().enumerate() {
                if !elements.contains_key(e) {
                    ctx.error(
                        "variant-unknown-name",
                        format!("{vbase}/masked_basic_event_elements/{k}"),
                        format!(
                            "Variant \"{id}\" masks an element \"{e}\" that this card does not define.{}",
                            suggest(e, elements.keys())
                        ),
                    );
                }
            }
            // coherence with the condition → element mapping
            for (k, b) in v.masked_boundary_conditions.iter().enumerate() {
                if let Some(bc) = bcs.get(b) {
                    let visible: Vec<&str> = bc
                        .corresponding_basic_event_elements
                        .iter()
                        .filter(|e| !v.masked_basic_event_elements.contains(e))
                        .map(String::as_str)
                        .collect();
                    if !visible.is_empty() {
                        ctx.error(
                            "variant-incoherent",
                            format!("{vbase}/masked_boundary_conditions/{k}"),
                            format!(
                                "Variant \"{id}\" hides condition \"{b}\" but leaves its {} {} visible, so the \
                                 condition could still be decided. Mask {} too, or stop masking the condition.",
                                crate::util::format::noun(visible.len(), "element"),
                                quote_list(&visible),
                                if visible.len() == 1 { "that element" } else { "those elements" }
                            ),
                        );
                    }
                }
            }
            for (k, e) in v.masked_basic_event_elements.iter().enumerate() {
                if !elements.contains_key(e) {
                    continue;
                }
                let serves_masked = v
                    .masked_boundary_conditions
                    .iter()
                    .filter_map(|b| bcs.get(b))
                    .any(|bc| bc.corresponding_basic_event_elements.contains(e));
                if !serves_masked {
                    ctx.error(
                        "variant-incoherent",
                        format!("{vbase}/masked_basic_event_elements/{k}"),
                        format!(
                            "Variant \"{id}\" hides element \"{e}\", which realizes none of the masked conditions. \
                             Only withhold facts that make a masked condition undecidable."
                        ),
                    );
                }
            }
        }
    }

    // neighbour-not-ruled-out
    if card.event_type != EventType::Reportable {
        lint_neighbours(card, vocab, ctx);
    }

    // uncertain-banned-vocab
    if card.event_type == EventType::Uncertain {
        let missing = unbanned_words(&card.constraints_on_basic_event_elements_instantiation);
        if !missing.is_empty() {
            ctx.error(
                "uncertain-banned-vocab",
                CONSTRAINTS.into(),
                format!(
                    "An Uncertain card must forbid words that would give its answer away. Its constraints do not ban: {}. \
                     Add a constraint such as: Never use the words \"uncertain\", \"uncertainty\", \"indeterminate\", \
                     \"escalate\", \"escalation\", \"inconclusive\", \"reportable\" or \"non-reportable\" in slot values or the narrative.",
                    quote_list(&missing)
                ),
            );
        }
    }
}

/// The extension field where a card says, per neighbouring clause, which fact rules it out.
pub const RULED_OUT_FIELD: &str = "x_ruled_out";

/// Neighbouring clauses of the card's clause that the card does not rule out: neither an
/// `x_ruled_out` entry with text nor a constraint naming the clause (by id or label).
pub fn neighbours_not_ruled_out<'v>(card: &ClauseCard, vocab: &'v PolicyVocab) -> Vec<&'v str> {
    let ruled_out = card.extra.get(RULED_OUT_FIELD).and_then(Value::as_object);
    vocab
        .neighbours_of(&card.clause_id)
        .into_iter()
        .filter(|n| {
            let by_entry = ruled_out
                .and_then(|m| m.get(*n))
                .and_then(Value::as_str)
                .map(|t| !t.trim().is_empty())
                .unwrap_or(false);
            let label = vocab.clause_label(n);
            let by_constraint = card
                .constraints_on_basic_event_elements_instantiation
                .iter()
                .any(|c| c.contains(*n) || label.map(|l| c.contains(l)).unwrap_or(false));
            !by_entry && !by_constraint
        })
        .collect()
}

fn lint_neighbours(card: &ClauseCard, vocab: &PolicyVocab, ctx: &mut Ctx<'_>) {
    for n in neighbours_not_ruled_out(card, vocab) {
        let label = vocab.clause_label(n).unwrap_or(n);
        ctx.error(
            "neighbour-not-ruled-out",
            format!("/{RULED_OUT_FIELD}"),
            format!(
                "Events of this clause are easily mistaken for {label} ({n}), but the card does not say which of its \
                 facts keeps the event out of that clause. Add \"{n}\": \"<the fact that rules it out>\" under \
                 {RULED_OUT_FIELD}, or a constraint that names {label} and the fact every case must show."
            ),
        );
    }
}

/// Banned words that no prohibiting constraint mentions.
pub fn unbanned_words(constraints: &[String]) -> Vec<&'static str> {
    let prohibitions: Vec<Vec<String>> = constraints
        .iter()
        .map(|c| word_tokens(c))
        .filter(|toks| toks.iter().any(|t| PROHIBITION_MARKERS.contains(&t.as_str())))
        .collect();
    UNCERTAIN_BANNED_WORDS
        .iter()
        .copied()
        .filter(|w| !prohibitions.iter().any(|toks| toks.iter().any(|t| t == w)))
        .collect()
}

fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a String>) -> String {
    closest(name, candidates.map(String::as_str)).map(|c| format!(" Did you mean \"{c}\"?")).unwrap_or_default()
}

fn quote_list(items: &[&str]) -> String {
    items.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")
}

fn lint_set(docs: &[LintInput], parsed: &[(usize, ClauseCard)], problems: &mut Vec<LintProblem>) {
    // duplicate-card-id (also for documents that failed the schema but carry an id)
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, doc) in docs.iter().enumerate() {
        let Some(id) = doc.value.get("clause_card_id").and_then(Value::as_str) else { continue };
        match first.get(id) {
            Some(&j) => problems.push(LintProblem {
                path: doc.path.clone(),
                clause_card_id: Some(id.to_string()),
                rule: "duplicate-card-id".into(),
                severity: Severity::Error,
                pointer: "/clause_card_id".into(),
                message: format!(
                    "Card id \"{id}\" is already used by {}. Every card needs its own id; rename one of them.",
                    docs[j].path
                ),
            }),
            None => {
                first.insert(id.to_string(), i);
            }
        }
    }
    // overlapping-cards: same clause, same condition names with the same truth values
    let mut patterns: HashMap<(String, BTreeSet<(String, bool)>), usize> = HashMap::new();
    for (i, card) in parsed {
        let pattern: BTreeSet<(String, bool)> =
            card.boundary_conditions().iter().map(|(n, bc)| (n.clone(), bc.value)).collect();
        let key = (card.clause_id.clone(), pattern);
        match patterns.get(&key) {
            Some(&j) => {
                let other =
                    parsed.iter().find(|(k, _)| *k == j).map(|(_, c)| c.clause_card_id.clone()).unwrap_or_default();
                if other == card.clause_card_id {
                    continue; // reported as a duplicate id already
                }
                problems.push(LintProblem {
                    path: docs[*i].path.clone(),
                    clause_card_id: Some(card.clause_card_id.clone()),
                    rule: "overlapping-cards".into(),
                    severity: Severity::Warning,
                    pointer: BC.into(),
                    message: format!(
                        "This card has the same boundary conditions with the same truth values as \"{other}\" on clause \
                         {}, so one event could match both. Make them differ in at least one condition, or merge them.",
                        card.clause_id
                    ),
                });
            }
            None => {
                patterns.insert(key, *i);
            }
        }
    }
}
