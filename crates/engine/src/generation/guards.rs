//! Cheap deterministic checks that run before any verifier call. A finding is a sentence that
//! goes back to the producer as retry feedback, exactly like a verifier's issue, and the attempt
//! counts as failed. The checks are deliberately conservative: they catch plain leaks (verdict
//! words, clause or recommendation numbers, card ids, empty required slots, a withheld value
//! copied into a missing-information narrative) and leave subtler judgement to the verifiers.

use regex::{Regex, RegexBuilder};
use std::collections::HashSet;
use std::sync::OnceLock;

use super::views::SlotValues;
use crate::card::{ClauseCard, FieldType};

fn ci(p: &str) -> Option<Regex> {
    RegexBuilder::new(p).case_insensitive(true).build().ok()
}

/// (pattern, what it is) for language that states or points at a classification.
fn verdict_patterns() -> &'static Vec<(Regex, &'static str)> {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        let raw: [(&str, &str); 12] = [
            (r"\b(?:non|un|not)?[-\s]?reportable\b", "verdict language"),
            (r"\b(?:should|must|shall|needs?\s+to|has\s+to|have\s+to|ought\s+to|would\s+need\s+to)\s+(?:not\s+)?be\s+reported\b", "verdict language"),
            (r"\bneed\s+not\s+be\s+reported\b", "verdict language"),
            (r"\breporting\s+(?:threshold|requirement|criteria)\b", "verdict language"),
            (r"\bclauses?\s+\d+", "a clause number"),
            (r"\bsubd(?:ivision)?\.?\s*\d+", "a statute reference"),
            (r"\b144\.70\d*", "a statute reference"),
            (r"\bminn\.?\s+stat", "a statute reference"),
            (r"\brecommendations?\s+\d+", "a recommendation number"),
            (r"\bGR\s?\d+\b", "a recommendation number"),
            (
                r"\b(?:care\s+management|radiologic|general|environmental|surgical|potential\s+criminal|patient\s+protection|product\s+or\s+device)(?:\s+events?)?\s+(?:clause|recommendation)\b",
                "a clause or recommendation name",
            ),
            (r"\b(?:clause[\s_-]card|card[\s_-]?id)\b", "a card reference"),
        ];
        raw.iter().filter_map(|(p, what)| ci(p).map(|r| (r, *what))).collect()
    })
}

fn card_id_pattern() -> &'static Option<Regex> {
    static P: OnceLock<Option<Regex>> = OnceLock::new();
    P.get_or_init(|| Regex::new(r"\b(?:Card(?:Rep|Nonrep|NonRep|Unc)_\w+|[A-Z][A-Za-z]+_\d+_[A-Z][A-Za-z]+)\b").ok())
}

fn quoted() -> &'static Option<Regex> {
    static P: OnceLock<Option<Regex>> = OnceLock::new();
    P.get_or_init(|| Regex::new("[\"\u{201c}]([^\"\u{201c}\u{201d}]{2,80})[\"\u{201d}]").ok())
}

/// Words and phrases a card's constraints ban from slot values and narratives: the quoted terms
/// of every constraint that talks about the narrative (or "anywhere") and forbids something.
pub fn banned_terms(card: &ClauseCard) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let Some(q) = quoted() else { return out };
    for c in &card.constraints_on_basic_event_elements_instantiation {
        let lower = c.to_lowercase();
        let scope = lower.contains("narrative") || lower.contains("anywhere");
        let forbids = lower.contains("never")
            || lower.contains(" not ")
            || lower.starts_with("no ")
            || lower.contains("must not")
            || lower.contains("may not");
        if !(scope && forbids) {
            continue;
        }
        for cap in q.captures_iter(c) {
            if let Some(m) = cap.get(1) {
                let t = m.as_str().trim().to_string();
                if !t.is_empty() && !out.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Everything the text checks need to know about a card.
#[derive(Debug, Clone)]
pub struct TextGuard {
    banned: Vec<(String, Regex)>,
    card_id: String,
}

impl TextGuard {
    pub fn for_card(card: &ClauseCard) -> TextGuard {
        let banned = banned_terms(card)
            .into_iter()
            .filter_map(|t| {
                let words: Vec<String> = t.split_whitespace().map(regex::escape).collect();
                ci(&format!(r"(?:^|[^\w]){}(?:$|[^\w])", words.join(r"\s+"))).map(|r| (t, r))
            })
            .collect();
        TextGuard { banned, card_id: card.clause_card_id.clone() }
    }

    /// Findings for one piece of text (`what` says where it is: "the narrative", "slot x").
    pub fn scan(&self, what: &str, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for (re, kind) in verdict_patterns() {
            for m in re.find_iter(text) {
                let s = m.as_str().trim().to_string();
                if seen.insert(s.to_lowercase()) {
                    out.push(format!("{what} contains \"{s}\" ({kind}); describe the facts only and never classify the event or cite the policy"));
                }
            }
        }
        if let Some(re) = card_id_pattern() {
            for m in re.find_iter(text) {
                if seen.insert(m.as_str().to_lowercase()) {
                    out.push(format!(
                        "{what} contains the identifier \"{}\"; identifiers of cards or clauses must never appear",
                        m.as_str()
                    ));
                }
            }
        }
        if !self.card_id.is_empty() && text.contains(&self.card_id) && seen.insert(self.card_id.to_lowercase()) {
            out.push(format!("{what} contains the card id \"{}\"", self.card_id));
        }
        for (term, re) in &self.banned {
            if re.is_match(text) && seen.insert(term.to_lowercase()) {
                out.push(format!("{what} uses \"{term}\", which this card's constraints forbid"));
            }
        }
        out
    }
}

fn is_placeholder(v: &str) -> bool {
    let t = v.trim().trim_matches(|c: char| c == '.' || c == '"').to_lowercase();
    t.is_empty()
        || matches!(
            t.as_str(),
            "n/a" | "na" | "none" | "unknown" | "tbd" | "null" | "-" | "..." | "…" | "not applicable" | "not specified"
        )
}

/// Checks on an Instantiator record: every slot exactly as the card defines it, nothing extra,
/// required slots filled, enum values allowed, no verdict language in any value.
pub fn check_instantiation(
    card: &ClauseCard,
    values: &SlotValues,
    bad_shapes: &[String],
    guard: &TextGuard,
) -> Vec<String> {
    let mut out = Vec::new();
    for name in bad_shapes {
        out.push(format!("slot {name} must hold text (or null where allowed), not a list or an object"));
    }
    for (name, e) in &card.basic_event_elements {
        let v = values.get(name);
        match v {
            None => out.push(format!("slot {name} is missing; give every slot of the card exactly once")),
            Some(val) => match e.field_type {
                FieldType::StringOrNull => {
                    if let Some(s) = val {
                        if is_placeholder(s) {
                            out.push(format!("slot {name} holds the placeholder \"{s}\"; use null or a concrete fact"));
                        }
                    }
                }
                FieldType::String => {
                    if val.as_deref().map(is_placeholder).unwrap_or(true) && !bad_shapes.contains(name) {
                        out.push(format!(
                            "slot {name} is empty but must hold a concrete fact (its field type does not allow null)"
                        ));
                    }
                }
                FieldType::Enum => {
                    let allowed = e.allowed_values.clone().unwrap_or_default();
                    match val {
                        None => out.push(format!("slot {name} is empty; it must be one of {}", allowed.join(", "))),
                        Some(s) if !allowed.iter().any(|a| a == s.trim()) => out
                            .push(format!("slot {name} is \"{s}\" but must be exactly one of: {}", allowed.join(", "))),
                        _ => {}
                    }
                }
            },
        }
    }
    for k in values.keys() {
        if !card.basic_event_elements.contains_key(k) {
            out.push(format!("\"{k}\" is not a slot of this card; use only the card's slot names"));
        }
    }
    for (name, v) in values {
        if let Some(s) = v {
            out.extend(guard.scan(&format!("slot {name}"), s));
        }
    }
    out
}

/// Checks on any narrative: not empty, no verdict language.
pub fn check_narrative(narrative: &str, guard: &TextGuard) -> Vec<String> {
    if narrative.split_whitespace().count() < 5 {
        return vec!["the narrative is empty or only a few words long; write the full event description".into()];
    }
    guard.scan("the narrative", narrative)
}

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "had", "has", "have", "he", "her",
    "his", "in", "into", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "then", "there", "they",
    "this", "to", "was", "were", "which", "while", "who", "with", "after", "before", "during", "per", "than", "so",
    "no", "not", "also", "about", "over", "under", "up", "out", "off", "him", "them", "we", "our", "i", "my", "me",
    "did", "do", "does", "any", "all", "some", "one", "patient", "patients", "pt",
];

fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|w| w.trim_matches('.').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Content words with their byte range in `text` (the same words `content_words` gives).
fn content_spans(text: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let push = |a: usize, b: usize, out: &mut Vec<(String, usize, usize)>| {
        let raw = &text[a..b];
        let trimmed = raw.trim_matches('.');
        if trimmed.is_empty() {
            return;
        }
        let lead = raw.len() - raw.trim_start_matches('.').len();
        let w = trimmed.to_lowercase();
        if !STOPWORDS.contains(&w.as_str()) {
            out.push((w, a + lead, a + lead + trimmed.len()));
        }
    };
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || c == '.';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                push(a, i, &mut out);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        push(a, text.len(), &mut out);
    }
    out
}

fn content_words(text: &str) -> Vec<String> {
    tokens(text).into_iter().filter(|w| !STOPWORDS.contains(&w.as_str())).collect()
}

fn grams(words: &[String], n: usize) -> HashSet<String> {
    if words.len() < n {
        return HashSet::new();
    }
    (0..=words.len() - n).map(|i| words[i..i + n].join(" ")).collect()
}

fn quantity_pattern() -> &'static Option<Regex> {
    static P: OnceLock<Option<Regex>> = OnceLock::new();
    P.get_or_init(|| {
        ci(r"(\d+(?:[.,]\d+)?)\s*(mg/dl|mmol/l|g/dl|meq|mcg|µg|ug|mg|kg|g|ml|l|units?|iu|%|hours?|hrs?|h|minutes?|mins?|days?|weeks?|months?|cm|mm|mmhg|bpm)\b")
    })
}

fn quantities(text: &str) -> HashSet<String> {
    let Some(re) = quantity_pattern() else { return HashSet::new() };
    re.captures_iter(text)
        .filter_map(|c| Some(format!("{} {}", c.get(1)?.as_str().replace(',', "."), c.get(2)?.as_str().to_lowercase())))
        .map(|s| s.replace("hours", "h").replace("hour", "h").replace("hrs", "h").replace("hr", "h"))
        .collect()
}

fn absence_pattern() -> &'static Option<Regex> {
    static P: OnceLock<Option<Regex>> = OnceLock::new();
    P.get_or_init(|| {
        ci(r"\b(?:unknown|not\s+(?:yet\s+)?(?:known|documented|recorded|available|determined|established|clear|confirmed)|undocumented|unavailable|unclear|pending|to\s+be\s+determined|tbd|(?:still\s+)?under\s+(?:review|investigation)|awaiting\s+(?:results?|confirmation|review)|no\s+information\s+(?:on|about|regarding))\b")
    })
}

const GENERIC: &[&str] = &[
    "event",
    "events",
    "whether",
    "where",
    "when",
    "what",
    "which",
    "other",
    "there",
    "their",
    "state",
    "stated",
    "record",
    "recorded",
    "documented",
    "facts",
    "fact",
    "after",
    "before",
    "time",
    "care",
    "staff",
    "team",
    "during",
    "concrete",
];

/// Checks on a missing-information narrative before the verifier sees it: a distinctive phrase
/// or quantity from a withheld value copied into the text, or explicit talk about the absence of
/// a withheld topic.
pub fn check_masked_leaks(card: &ClauseCard, full: &SlotValues, masked: &[String], narrative: &str) -> Vec<String> {
    let mut out = Vec::new();
    let visible_text: String = full
        .iter()
        .filter(|(k, _)| !masked.contains(k))
        .filter_map(|(_, v)| v.clone())
        .collect::<Vec<_>>()
        .join(" \n ");
    let visible_grams = grams(&content_words(&visible_text), 4);
    let visible_q = quantities(&visible_text);
    let narr_words = content_words(narrative);
    let narr_grams = grams(&narr_words, 4);
    let narr_q = quantities(narrative);
    for name in masked {
        let Some(Some(value)) = full.get(name) else { continue };
        let spans = content_spans(value);
        let hit = (0..spans.len().saturating_sub(3)).find(|&i| {
            let g = spans[i..i + 4].iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join(" ");
            narr_grams.contains(&g) && !visible_grams.contains(&g)
        });
        if let Some(i) = hit {
            let shown = value.get(spans[i].1..spans[i + 3].2).unwrap_or("").trim();
            out.push(format!(
                "the narrative repeats wording from the withheld slot {name} (\"{shown}\"); that fact must not appear at all, so remove it"
            ));
            continue;
        }
        let mut qs: Vec<String> =
            quantities(value).into_iter().filter(|q| narr_q.contains(q) && !visible_q.contains(q)).collect();
        qs.sort();
        if let Some(q) = qs.first() {
            out.push(format!(
                "the narrative gives the quantity \"{q}\", which belongs to the withheld slot {name}; remove it and anything that reveals that fact"
            ));
        }
    }
    // Explicit absence talk near a withheld topic.
    let Some(absent) = absence_pattern() else { return out };
    let visible_meaning_words: HashSet<String> = card
        .basic_event_elements
        .iter()
        .filter(|(k, _)| !masked.contains(k))
        .flat_map(|(_, e)| content_words(&e.meaning))
        .collect();
    let mut topic: HashSet<String> = HashSet::new();
    for name in masked {
        for w in name
            .split('_')
            .map(str::to_string)
            .chain(card.basic_event_elements.get(name).map(|e| content_words(&e.meaning)).unwrap_or_default())
        {
            let w = w.to_lowercase();
            if w.len() >= 5
                && !GENERIC.contains(&w.as_str())
                && !STOPWORDS.contains(&w.as_str())
                && !visible_meaning_words.contains(&w)
            {
                topic.insert(w);
            }
        }
    }
    for sentence in narrative.split(['.', ';', '\n', '!', '?']) {
        if let Some(m) = absent.find(sentence) {
            let words: HashSet<String> = content_words(sentence).into_iter().collect();
            let mut near: Vec<&String> = topic
                .iter()
                .filter(|t| words.contains(*t) || words.iter().any(|w| w.starts_with(t.as_str())))
                .collect();
            near.sort();
            if let Some(t) = near.first() {
                out.push(format!(
                    "the narrative says \"{}\" about a withheld topic ({t}) in: \"{}\"; do not mention that information is missing, just leave it out",
                    m.as_str(),
                    sentence.trim()
                ));
            }
        }
    }
    out
}

pub(crate) fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// After extraction: every withheld slot must come back null.
pub fn check_masked_null(masked: &[String], extracted: &SlotValues) -> Vec<String> {
    masked
        .iter()
        .filter_map(|m| match extracted.get(m) {
            Some(Some(v)) if !v.trim().is_empty() => Some(format!(
                "the withheld slot {m} could be read from the narrative (a reader found: \"{}\"); remove every trace of that fact",
                truncate(v, 160)
            )),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::ClauseCard;

    fn card(event_type: &str, constraints: &[&str]) -> ClauseCard {
        let v = serde_json::json!({
            "clause_card_id": "CardRep_9_CareManagement_1",
            "clause_card_definition": "d",
            "clause_id": "CareManagement_1_MedicationError",
            "event_type": event_type,
            "fixed_fields": {
                "governing_legal_basis": {"meaning": "m", "value": ["Care Management Events clause 1"]},
                "boundary_conditions": {
                    "harm_present": {"value": true, "meaning": "Serious harm.", "corresponding_basic_event_elements": ["outcome_course", "outcome_type"]}
                }
            },
            "basic_event_elements": {
                "drug_given": {"field_type": "string", "meaning": "The drug and dose given.", "allowed_content": "a", "disallowed_content": "b"},
                "outcome_type": {"field_type": "enum", "meaning": "Outcome.", "allowed_content": "a", "disallowed_content": "b", "allowed_values": ["death", "serious_injury"]},
                "outcome_course": {"field_type": "string", "meaning": "Course in intensive care and recovery afterwards.", "allowed_content": "a", "disallowed_content": "b"},
                "followup_note": {"field_type": "string_or_null", "meaning": "A note.", "allowed_content": "a", "disallowed_content": "b"}
            },
            "constraints_on_basic_event_elements_instantiation": constraints
        });
        ClauseCard::from_value(&v).unwrap()
    }

    fn vals(pairs: &[(&str, Option<&str>)]) -> SlotValues {
        pairs.iter().map(|(k, v)| (k.to_string(), v.map(str::to_string))).collect()
    }

    #[test]
    fn verdict_words_clause_numbers_and_card_ids_are_caught() {
        let g = TextGuard::for_card(&card("Reportable", &[]));
        let f = g.scan("the narrative", "The event is reportable under Care Management Events clause 1 and General Recommendation 3 (see CardRep_1_CareManagement_1).");
        let all = f.join("\n");
        assert!(all.contains("\"reportable\""), "{all}");
        assert!(all.contains("clause 1"), "{all}");
        assert!(all.contains("Recommendation 3"), "{all}");
        assert!(all.contains("CardRep_1_CareManagement_1"), "{all}");
        assert!(!g.scan("x", "It should be reported to the state.").is_empty());
        assert!(!g.scan("x", "This is non-reportable.").is_empty());
        assert!(!g.scan("x", "This was NOT REPORTABLE.").is_empty());
        assert!(!g.scan("x", "per Minn. Stat. 144.7065").is_empty());
        // Ordinary clinical language passes.
        for ok in [
            "The nurse reported the fall to the charge nurse at 03:10.",
            "Unreported bruising was found on the left hip.",
            "She recommended a CT of the head; the clause in the consent form was read aloud.",
            "Insulin 10 units IV was given at 02:15.",
        ] {
            assert!(g.scan("x", ok).is_empty(), "{ok}: {:?}", g.scan("x", ok));
        }
    }

    #[test]
    fn banned_words_come_from_the_cards_own_constraints() {
        let c = card(
            "Uncertain",
            &[
                "Never use the words \"uncertain\", \"escalate\" or \"clinical judgment\" anywhere in slot values or narrative.",
                "drug_given must not say \"wrong\".",
            ],
        );
        assert_eq!(banned_terms(&c), vec!["uncertain", "escalate", "clinical judgment"]);
        let g = TextGuard::for_card(&c);
        assert_eq!(g.scan("the narrative", "We chose to ESCALATE the case.").len(), 1);
        assert_eq!(g.scan("the narrative", "It was a matter of clinical\n judgment.").len(), 1);
        assert!(g.scan("the narrative", "The wrong vial was picked; the outcome was uncertainty-free.").is_empty());
    }

    #[test]
    fn instantiation_checks_slots_types_and_enums() {
        let c = card("Reportable", &[]);
        let g = TextGuard::for_card(&c);
        let good = vals(&[
            ("drug_given", Some("heparin 5000 units")),
            ("outcome_type", Some("death")),
            ("outcome_course", Some("died at 04:00")),
            ("followup_note", None),
        ]);
        assert!(check_instantiation(&c, &good, &[], &g).is_empty());
        let bad = vals(&[
            ("drug_given", Some("N/A")),
            ("outcome_type", Some("harm")),
            ("extra", Some("x")),
            ("followup_note", Some("reportable event")),
        ]);
        let f = check_instantiation(&c, &bad, &[], &g).join("\n");
        assert!(f.contains("slot drug_given is empty"), "{f}");
        assert!(f.contains("slot outcome_type is \"harm\""), "{f}");
        assert!(f.contains("slot outcome_course is missing"), "{f}");
        assert!(f.contains("\"extra\" is not a slot"), "{f}");
        assert!(f.contains("slot followup_note contains \"reportable\""), "{f}");
    }

    #[test]
    fn masked_values_and_absence_talk_are_caught_in_missing_narratives() {
        let c = card("Reportable", &[]);
        let full = vals(&[
            ("drug_given", Some("Insulin regular 100 units IV push at 02:15")),
            ("outcome_type", Some("serious_injury")),
            (
                "outcome_course",
                Some(
                    "Transferred to the medical ICU, intubated for 72 hours, discharged home on day 11 without deficit",
                ),
            ),
            ("followup_note", None),
        ]);
        let masked = vec!["outcome_type".to_string(), "outcome_course".to_string()];
        let clean = "At 02:15 the night nurse pushed insulin regular 100 units IV instead of the ordered 10 units; the rapid response team was called.";
        assert!(
            check_masked_leaks(&c, &full, &masked, clean).is_empty(),
            "{:?}",
            check_masked_leaks(&c, &full, &masked, clean)
        );
        let copied = format!("{clean} She was then transferred to the medical ICU, intubated and later discharged.");
        let f = check_masked_leaks(&c, &full, &masked, &copied);
        assert!(
            f.iter().any(|x| x.contains("withheld slot outcome_course")
                && x.contains("\"Transferred to the medical ICU, intubated\"")),
            "{f:?}"
        );
        let number = format!("{clean} Ventilation lasted 72 hours.");
        let f = check_masked_leaks(&c, &full, &masked, &number);
        assert!(f.iter().any(|x| x.contains("72 h")), "{f:?}");
        let absence = format!("{clean} Her course in intensive care is not yet known.");
        let f = check_masked_leaks(&c, &full, &masked, &absence);
        assert!(f.iter().any(|x| x.contains("not yet known")), "{f:?}");
        // "pending" about a visible topic is fine.
        let visible_pending = format!("{clean} A repeat glucose is pending.");
        assert!(check_masked_leaks(&c, &full, &masked, &visible_pending).is_empty());
        let ex = vals(&[("outcome_type", None), ("outcome_course", Some("ICU stay"))]);
        assert_eq!(check_masked_null(&masked, &ex).len(), 1);
    }
}
