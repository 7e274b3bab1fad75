//! The built-in demo cases (`library/demo/cases.jsonl`), compiled in. On these cases the demo
//! model knows the answer key, which is how it can be "roughly three in four right" on purpose;
//! on any other case it falls back to word-overlap guesses.

use serde::Deserialize;
use std::sync::OnceLock;

const CASES_JSONL: &str = include_str!("../../../../library/demo/cases.jsonl");

#[derive(Debug, Clone, Deserialize)]
pub struct Condition {
    pub name: String,
    pub meaning: String,
    pub value: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Element {
    pub name: String,
    pub meaning: String,
    #[serde(default)]
    pub value: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DemoCase {
    pub case_id: String,
    pub case_type: String,
    pub clause_id: String,
    pub clause_card_id: String,
    pub gold_verdict: String,
    #[serde(default)]
    pub gold_clause: Option<String>,
    #[serde(default)]
    pub gold_legal_basis: Vec<String>,
    #[serde(default)]
    pub boundary_conditions: Vec<Condition>,
    #[serde(default)]
    pub elements: Vec<Element>,
    #[serde(default)]
    pub masked_elements: Vec<String>,
    pub narrative: String,
}

impl DemoCase {
    pub fn is_missing(&self) -> bool {
        self.case_type == "missing"
    }
    /// The label of the case's clause: its gold clause, else the clause label its legal basis
    /// cites first (labels read "<Category> Events clause <n>").
    pub fn clause_label(&self) -> Option<String> {
        self.gold_clause.clone().or_else(|| self.gold_legal_basis.iter().find(|b| b.contains(" clause ")).cloned())
    }
    pub fn masked(&self) -> Vec<&Element> {
        self.elements.iter().filter(|e| self.masked_elements.contains(&e.name)).collect()
    }
}

/// Every demo case (an unreadable line is skipped; a test checks there are none).
pub fn all() -> &'static [DemoCase] {
    static CASES: OnceLock<Vec<DemoCase>> = OnceLock::new();
    CASES.get_or_init(|| CASES_JSONL.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
}

/// The demo case whose narrative the text holds.
pub fn by_narrative(text: &str) -> Option<&'static DemoCase> {
    all().iter().find(|c| !c.narrative.is_empty() && text.contains(c.narrative.trim()))
}

/// The demo case every value of which the text holds (the facts of a record, as a screen sees them).
pub fn by_facts(text: &str) -> Option<&'static DemoCase> {
    all().iter().find(|c| {
        let values: Vec<&str> = c
            .elements
            .iter()
            .filter(|e| !c.masked_elements.contains(&e.name))
            .filter_map(|e| e.value.as_deref())
            .collect();
        !values.is_empty() && values.iter().all(|v| text.contains(v.trim()))
    })
}

/// Demo cases written from a card, complete ones first.
pub fn of_card(card_id: &str) -> Vec<&'static DemoCase> {
    let mut v: Vec<&DemoCase> = all().iter().filter(|c| c.clause_card_id == card_id).collect();
    v.sort_by_key(|c| c.is_missing());
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_ninety_demo_cases_are_compiled_in() {
        assert_eq!(super::all().len(), super::CASES_JSONL.lines().filter(|l| !l.trim().is_empty()).count());
        assert_eq!(super::all().len(), 90);
    }
}
