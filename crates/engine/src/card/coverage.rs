//! The coverage report of a set of cards of one clause: over the union of their boundary
//! conditions, which true/false combinations no card admits (a card admits a combination when
//! every condition it lists has the card's value; conditions it does not list are free). Gaps are
//! not errors (many combinations cannot happen in real life), but people should see them.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::card::ClauseCard;

/// Above this many conditions the combinations are not enumerated.
pub const MAX_CONDITIONS: usize = 16;
/// Gaps listed in full.
pub const MAX_GAPS_SHOWN: usize = 32;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CoverageReport {
    /// Condition names in first-seen order.
    pub conditions: Vec<String>,
    /// Cards taken into account (the draft and the clause's existing cards).
    pub cards: Vec<String>,
    /// 2^conditions (0 when not enumerated).
    pub combinations: u64,
    /// Combinations at least one card admits.
    pub covered: u64,
    /// Combinations no card admits, at most MAX_GAPS_SHOWN of them.
    #[ts(type = "Record<string, boolean>[]")]
    pub gaps: Vec<IndexMap<String, bool>>,
    pub note: Option<String>,
}

/// The coverage report of `cards`.
pub fn coverage(cards: &[&ClauseCard]) -> CoverageReport {
    let mut conditions: Vec<String> = Vec::new();
    for c in cards {
        for name in c.boundary_conditions().keys() {
            if !conditions.contains(name) {
                conditions.push(name.clone());
            }
        }
    }
    let ids = cards.iter().map(|c| c.clause_card_id.clone()).collect();
    let n = conditions.len();
    if n > MAX_CONDITIONS {
        return CoverageReport {
            conditions,
            cards: ids,
            combinations: 0,
            covered: 0,
            gaps: vec![],
            note: Some(format!(
                "The cards use {n} different conditions, too many to list every combination (the limit is {MAX_CONDITIONS}); \
                 giving the cards shared condition names makes the set easier to check."
            )),
        };
    }
    // Each card as (mask of listed conditions, required bits).
    let patterns: Vec<(u64, u64)> = cards
        .iter()
        .map(|c| {
            let mut mask = 0u64;
            let mut bits = 0u64;
            for (name, bc) in c.boundary_conditions() {
                if let Some(i) = conditions.iter().position(|x| x == name) {
                    mask |= 1 << i;
                    if bc.value {
                        bits |= 1 << i;
                    }
                }
            }
            (mask, bits)
        })
        .collect();
    let total = 1u64 << n;
    let mut covered = 0;
    let mut gaps = Vec::new();
    for combo in 0..total {
        if patterns.iter().any(|(mask, bits)| combo & mask == *bits) {
            covered += 1;
        } else if gaps.len() < MAX_GAPS_SHOWN {
            gaps.push(conditions.iter().enumerate().map(|(i, name)| (name.clone(), combo & (1 << i) != 0)).collect());
        }
    }
    let uncovered = total - covered;
    let note = if uncovered as usize > gaps.len() {
        Some(format!("{uncovered} combinations are not covered; the first {} are listed.", gaps.len()))
    } else {
        None
    };
    CoverageReport { conditions, cards: ids, combinations: total, covered, gaps, note }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(id: &str, bcs: &[(&str, bool)]) -> ClauseCard {
        let mut b = serde_json::Map::new();
        for (n, v) in bcs {
            b.insert((*n).into(), json!({"value": v, "meaning": "m", "corresponding_basic_event_elements": ["e"]}));
        }
        ClauseCard::from_value(&json!({
            "clause_card_id": id, "clause_card_definition": "d", "clause_id": "C", "event_type": "Reportable",
            "fixed_fields": {"governing_legal_basis": {"value": ["G"], "meaning": "m"}, "boundary_conditions": b},
            "basic_event_elements": {"e": {"field_type": "string", "meaning": "m", "allowed_content": "a", "disallowed_content": "d"}},
            "constraints_on_basic_event_elements_instantiation": []
        }))
        .unwrap()
    }

    #[test]
    fn free_conditions_cover_both_values_and_gaps_are_listed() {
        let a = card("A", &[("harm", true), ("error", true)]);
        let b = card("B", &[("harm", false)]);
        let r = coverage(&[&a, &b]);
        assert_eq!(r.conditions, vec!["harm", "error"]);
        assert_eq!(r.combinations, 4);
        assert_eq!(r.covered, 3);
        assert_eq!(r.gaps.len(), 1);
        assert_eq!(r.gaps[0].get("harm"), Some(&true));
        assert_eq!(r.gaps[0].get("error"), Some(&false));
        assert_eq!(r.note, None);
    }

    #[test]
    fn a_complete_partition_has_no_gaps() {
        let a = card("A", &[("harm", true), ("error", true)]);
        let b = card("B", &[("harm", true), ("error", false)]);
        let c = card("C", &[("harm", false)]);
        let r = coverage(&[&a, &b, &c]);
        assert_eq!((r.combinations, r.covered), (4, 4));
        assert!(r.gaps.is_empty());
    }
}
