//! The anchor roles: a topical pre-sort by word overlap with each clause, and a "translation"
//! that hands the text back unchanged (the demo model knows no other language).

use serde_json::json;

use super::text::{overlap, section};
use crate::normalize::Normalized;

pub fn presort(n: &Normalized) -> String {
    let anchor = section(n.last_user(), "# Incident text").unwrap_or("");
    // Clause list lines start with the clause id (in the system prompt).
    let best = n
        .system
        .lines()
        .filter_map(|l| {
            let t = l.trim().trim_start_matches("- ").trim_start_matches("## ");
            let id = t.split([' ', ':', '—', '|']).next()?.trim();
            (id.contains('_') && id.chars().next().is_some_and(char::is_alphabetic))
                .then(|| (overlap(anchor, t), id.to_string()))
        })
        .max_by_key(|(s, _)| *s);
    match best {
        Some((s, id)) if s > 0 => json!({"clause_id": id, "reason": "The incident's subject matter shares the most terms with this category."}),
        _ => json!({"clause_id": "none", "reason": "The text shares no terms with any listed category."}),
    }
    .to_string()
}

pub fn translate(n: &Normalized) -> String {
    let text = section(n.last_user(), "# Text").unwrap_or("");
    json!({"translation": text}).to_string()
}
