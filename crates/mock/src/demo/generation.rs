//! The generation roles: Instantiator (values from the card's demo cases, else from the card's
//! own examples), the two narrators (a demo case's narrative when the facts are the same, else a
//! plain report built from the facts), the Extractor (reads back what the demo wrote), the three
//! verifiers (they pass what the demo wrote) and the clause screen (agrees with the card the
//! record was instantiated from, else finds nothing met).

use serde_json::{json, Map, Value};

use super::cases;
use super::memory::{Memory, Record, Written};
use super::text::{first_json, first_sentence, humanize, section};
use crate::normalize::Normalized;

type Values = Vec<(String, Option<String>)>;

fn as_map(values: &Values) -> Value {
    Value::Object(values.iter().map(|(k, v)| (k.clone(), v.clone().map(Value::from).unwrap_or(Value::Null))).collect())
}

fn values_of(v: &Value) -> Values {
    v.as_object()
        .map(|o| o.iter().map(|(k, x)| (k.clone(), x.as_str().map(str::to_string))).collect())
        .unwrap_or_default()
}

/// A value for one slot from the slot's own definition: an enum's first allowed value, the
/// first example of its allowed content, else what it means.
fn value_from_definition(def: &Value) -> Option<String> {
    if let Some(v) = def.get("allowed_values").and_then(Value::as_array).and_then(|a| a.first()).and_then(Value::as_str)
    {
        return Some(v.to_string());
    }
    if def.get("field_type").and_then(Value::as_str) == Some("string_or_null") {
        return None;
    }
    let example = match def.get("allowed_content") {
        Some(Value::Array(a)) => a.iter().find_map(Value::as_str).map(str::to_string),
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    example.or_else(|| def.get("meaning").and_then(Value::as_str).map(first_sentence))
}

pub fn instantiator(n: &Normalized, memory: &Memory) -> String {
    let user = n.last_user();
    let card = section(user, "# Clause card").and_then(first_json).unwrap_or(Value::Null);
    let card_id = card.get("clause_card_id").and_then(Value::as_str).unwrap_or("");
    let demo = cases::of_card(card_id);
    let mut values: Values = Vec::new();
    if let Some(slots) = card.get("basic_event_elements").and_then(Value::as_object) {
        for (name, def) in slots {
            let from_case =
                demo.iter().find_map(|c| c.elements.iter().find(|e| &e.name == name).and_then(|e| e.value.clone()));
            let v = match (from_case, def.get("allowed_values").and_then(Value::as_array)) {
                // An enum keeps to its allowed values.
                (Some(v), Some(allowed)) if !allowed.iter().any(|a| a.as_str() == Some(v.as_str())) => {
                    value_from_definition(def)
                }
                (Some(v), _) => Some(v),
                (None, _) => value_from_definition(def),
            };
            values.push((name.clone(), v));
        }
    }
    memory.remember_record(Record {
        clause_id: card.get("clause_id").and_then(Value::as_str).unwrap_or("").to_string(),
        event_type: card.get("event_type").and_then(Value::as_str).unwrap_or("").to_string(),
        allowed_other: card
            .get("x_allowed_other_clauses")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default(),
        open_section: card.pointer("/x_open_question/section_id").and_then(Value::as_str).map(str::to_string),
        values: values.clone(),
    });
    json!({"slot_values": as_map(&values)}).to_string()
}

pub fn pass() -> String {
    json!({"pass": true, "issues": []}).to_string()
}

/// A plain report that states every given fact once.
fn compose(values: &Values) -> String {
    let mut s = String::from("Event report entered by the unit's charge nurse.");
    for (name, v) in values {
        if let Some(v) = v {
            let v = v.trim().trim_end_matches('.');
            s.push_str(&format!(" {}: {}.", capitalize(&humanize(name)), v));
        }
    }
    s
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn same(a: &Values, b: &[(String, Option<String>)]) -> bool {
    a.iter().filter(|(_, v)| v.is_some()).all(|(k, v)| b.iter().any(|(bk, bv)| bk == k && bv == v))
}

pub fn narrator(n: &Normalized, memory: &Memory) -> String {
    let user = n.last_user();
    let values = section(user, "# Facts of the event (slot values)")
        .and_then(first_json)
        .map(|v| values_of(&v))
        .unwrap_or_default();
    // A complete demo case with these very facts lends its narrative.
    let narrative = cases::all()
        .iter()
        .filter(|c| !c.is_missing())
        .find(|c| {
            let theirs: Values = c.elements.iter().map(|e| (e.name.clone(), e.value.clone())).collect();
            !values.is_empty() && same(&values, &theirs)
        })
        .map(|c| c.narrative.clone())
        .unwrap_or_else(|| compose(&values));
    memory.remember_narrative(Written { narrative: narrative.clone(), values });
    json!({"event_narrative": narrative}).to_string()
}

pub fn missing_narrator(n: &Normalized, memory: &Memory) -> String {
    let user = n.last_user();
    let visible =
        section(user, "# Visible facts (slot values)").and_then(first_json).map(|v| values_of(&v)).unwrap_or_default();
    let masked: Vec<String> = section(user, "# Withheld slots (never mention them)")
        .and_then(first_json)
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default();
    let narrative = cases::all()
        .iter()
        .filter(|c| c.is_missing() && c.masked_elements.iter().all(|m| masked.contains(m)))
        .find(|c| {
            let theirs: Values = c
                .elements
                .iter()
                .filter(|e| !c.masked_elements.contains(&e.name))
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect();
            !visible.is_empty() && same(&visible, &theirs)
        })
        .map(|c| c.narrative.clone())
        .unwrap_or_else(|| compose(&visible));
    let mut values = visible;
    values.extend(masked.into_iter().map(|m| (m, None)));
    memory.remember_narrative(Written { narrative: narrative.clone(), values });
    json!({"event_narrative": narrative}).to_string()
}

pub fn extractor(n: &Normalized, memory: &Memory) -> String {
    let user = n.last_user();
    let narrative = section(user, "# Event description").unwrap_or("");
    let slots: Vec<String> = section(user, "# Slots and their meanings")
        .and_then(first_json)
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default();
    let known: Values = match memory.narrative(narrative) {
        Some(w) => w.values,
        None => cases::by_narrative(narrative)
            .map(|c| {
                c.elements
                    .iter()
                    .map(|e| (e.name.clone(), if c.masked_elements.contains(&e.name) { None } else { e.value.clone() }))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let out: Map<String, Value> = slots
        .into_iter()
        .map(|s| {
            let v = known.iter().find(|(k, _)| *k == s).and_then(|(_, v)| v.clone());
            (s, v.map(Value::from).unwrap_or(Value::Null))
        })
        .collect();
    json!({"slot_values": out}).to_string()
}

pub fn missing_verifier(n: &Normalized) -> String {
    let user = n.last_user();
    let rows: Vec<Value> = section(user, "# Withheld conditions")
        .and_then(first_json)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|c| c.get("boundary_condition").and_then(Value::as_str))
        .map(|name| {
            json!({"boundary_condition": name, "leak_verdict": "indeterminate", "evidence_phrase": null,
                   "explanation": "Nothing in the visible text settles this either way."})
        })
        .collect();
    json!({"per_bc_check": rows, "pass": true, "issues": []}).to_string()
}

/// The clause screen.
pub fn screen(n: &Normalized, memory: &Memory) -> String {
    let user = n.last_user();
    let facts = section(user, "# Facts of the event").unwrap_or("");
    let expected: Option<(String, String, Vec<String>, Option<String>)> = match memory.record_in(facts) {
        Some(r) => Some((r.clause_id, r.event_type, r.allowed_other, r.open_section)),
        None => cases::by_facts(facts).map(|c| (c.clause_id.clone(), c.gold_verdict.clone(), vec![], None)),
    };
    let none = json!({"present": false, "section_id": null, "why": null});
    let (met, open, verdict) = match expected {
        Some((clause, kind, _, _)) if kind == "Reportable" => (
            vec![json!({"clause_id": clause, "why": "Every element the clause requires is established by the facts."})],
            none,
            "Reportable",
        ),
        Some((clause, kind, _, open)) if kind == "Uncertain" => (
            vec![],
            json!({"present": true, "section_id": open.unwrap_or(clause),
                   "why": "The policy's wording does not settle how these facts are treated."}),
            "Uncertain",
        ),
        _ => (vec![], none, "Non-reportable"),
    };
    json!({"clauses_met": met, "open_question": open, "verdict": verdict}).to_string()
}
