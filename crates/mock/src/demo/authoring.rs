//! The authoring roles: picking the policy sections that bear on a clause (by word overlap),
//! reviewing that pick (no change), and drafting cards and missing-information variants that
//! pass the application's checks: two fresh cards for a clause without cards, or, for a clause
//! that has some, one card that differs from an existing card in one condition and is kept apart
//! from every other existing card.

use serde_json::{json, Map, Value};

use super::text::{first_json, first_sentence, humanize, list_items, overlap, section};
use crate::normalize::Normalized;

/// The sections of the policy list: (id, heading and body).
fn sections(user: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut inside = false;
    for line in user.lines() {
        if let Some(rest) = line.strip_prefix("## [") {
            if let Some((id, heading)) = rest.split_once(']') {
                out.push((id.trim().to_string(), heading.trim().to_string()));
                inside = true;
                continue;
            }
        }
        if line.starts_with("# ") {
            inside = false;
        } else if let (true, Some(last)) = (inside, out.last_mut()) {
            last.1.push('\n');
            last.1.push_str(line);
        }
    }
    out
}

pub fn extract(n: &Normalized) -> String {
    let user = n.last_user();
    let clause = section(user, "# Target clause").unwrap_or("");
    let label = clause.lines().next().unwrap_or("").trim().to_string();
    let mut scored: Vec<(usize, String, String)> =
        sections(user).into_iter().map(|(id, text)| (overlap(clause, &text), id, text)).collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut picked: Vec<Value> = scored
        .iter()
        .filter(|(s, _, _)| *s >= 2)
        .take(6)
        .map(|(_, id, text)| {
            let criterion = if !label.is_empty() && text.contains(&label) { "cross_reference" } else { "scope" };
            json!({"section_id": id, "criteria": [criterion], "why": "It shares the clause's terms and limits how the clause applies."})
        })
        .collect();
    if picked.is_empty() {
        picked = scored
            .iter()
            .take(2)
            .map(|(_, id, _)| json!({"section_id": id, "criteria": ["scope"], "why": "It is the passage closest to the clause's topic."}))
            .collect();
    }
    json!({"relevant_sections": picked}).to_string()
}

pub fn extract_check() -> String {
    json!({"add": [], "remove": []}).to_string()
}

struct DraftInputs {
    clause_text: String,
    clause_id: String,
    category: String,
    local_no: String,
    citable: Vec<String>,
    taken: Vec<String>,
    neighbours: Vec<String>,
    existing: Vec<Value>,
}

fn draft_inputs(user: &str) -> DraftInputs {
    let clause_text = section(user, "# Target clause")
        .map(|s| s.split("Target clause id:").next().unwrap_or(s).trim().to_string())
        .unwrap_or_default();
    let line_after = |prefix: &str| {
        user.lines().find_map(|l| l.trim().strip_prefix(prefix).map(|s| s.trim().to_string())).unwrap_or_default()
    };
    let clause_id = line_after("Target clause id:");
    let parts = line_after("Card id parts:");
    let category = parts.split("Category =").nth(1).and_then(|s| s.split(',').next()).unwrap_or("").trim().to_string();
    let local_no = parts.split("k =").nth(1).unwrap_or("").trim().to_string();
    let taken = section(user, "# Ids already taken")
        .unwrap_or("")
        .split([',', '\n'])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s != "(none)")
        .collect();
    let neighbours = list_items(section(user, "# Neighbouring clauses").unwrap_or(""))
        .into_iter()
        .filter_map(|l| l.split_once(':').map(|(id, _)| id.trim().to_string()))
        .collect();
    let existing = section(user, "# Cards this clause already has")
        .and_then(first_json)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    DraftInputs {
        clause_text,
        clause_id,
        category,
        local_no,
        citable: list_items(section(user, "# Citable ids").unwrap_or("")),
        taken,
        neighbours,
        existing,
    }
}

/// `<prefix><n>_<Category>_<k>` with the smallest n not taken.
fn free_id(prefix: &str, d: &DraftInputs, also_taken: &[String]) -> String {
    (1..)
        .map(|n| format!("{prefix}{n}_{}_{}", d.category, d.local_no))
        .find(|id| !d.taken.contains(id) && !also_taken.contains(id))
        .unwrap_or_default()
}

fn conditions(card: &Value) -> Map<String, Value> {
    card.pointer("/fixed_fields/boundary_conditions").and_then(Value::as_object).cloned().unwrap_or_default()
}

/// Whether two cards cannot fit one event: a shared condition takes opposite values.
fn exclusive(a: &Value, b: &Value) -> bool {
    let (ca, cb) = (conditions(a), conditions(b));
    ca.iter().any(|(k, v)| cb.get(k).and_then(|o| o.get("value")).is_some_and(|ov| Some(ov) != v.get("value")))
}

fn ruled_out(d: &DraftInputs) -> Value {
    Value::Object(
        d.neighbours
            .iter()
            .map(|id| (id.clone(), Value::from("The facts of this card lack the event that clause is about.")))
            .collect(),
    )
}

fn constraints(uncertain: bool) -> Value {
    let mut words = vec!["reportable", "non-reportable"];
    if uncertain {
        words.extend(["uncertain", "uncertainty", "indeterminate", "escalate", "escalation", "inconclusive"]);
    }
    json!([format!(
        "No slot value and no sentence of the narrative may contain the words {}, and none may cite the policy's clause or guidance numbers.",
        words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")
    )])
}

/// A fresh card with two conditions: the event is of the clause's kind, and the clause's harm
/// or circumstance threshold is met (true) or not (false).
fn fresh_card(d: &DraftInputs, id: &str, event_type: &str, threshold: bool) -> Value {
    let topic = first_sentence(&d.clause_text);
    let basis: Vec<&String> = d.citable.iter().take(2).collect();
    json!({
        "clause_card_id": id,
        "clause_card_definition": format!(
            "An event of the kind the clause describes ({topic}) in which the outcome or circumstance the clause requires {}.",
            if threshold { "is present" } else { "is absent" }
        ),
        "clause_id": d.clause_id,
        "event_type": event_type,
        "fixed_fields": {
            "governing_legal_basis": {"value": basis, "meaning": "The clause and the passage that set the threshold this card turns on."},
            "boundary_conditions": {
                "event_of_clause_kind": {"value": true, "meaning": "The event is of the kind the clause is about, in the setting it covers.", "corresponding_basic_event_elements": ["event_description"]},
                "clause_threshold_met": {"value": threshold, "meaning": "The outcome or circumstance the clause requires (its harm level or its defining condition) is present.", "corresponding_basic_event_elements": ["outcome_course"]}
            }
        },
        "basic_event_elements": {
            "event_description": {"field_type": "string", "meaning": "What happened, where and when, and who was involved, in concrete terms.", "allowed_content": "concrete circumstances", "disallowed_content": "verdict words"},
            "outcome_course": {"field_type": "string", "meaning": "What the event did to the patient and how that developed over the following days.", "allowed_content": "concrete course", "disallowed_content": "verdict words"}
        },
        "constraints_on_basic_event_elements_instantiation": constraints(false),
        "x_ruled_out": ruled_out(d),
    })
}

/// One card made from an existing card by flipping one condition, kept apart from every other
/// existing card (None when no flip does that).
fn flipped_card(d: &DraftInputs, event_type: &str, prefix: &str) -> Option<Value> {
    for base in &d.existing {
        for (name, bc) in conditions(base) {
            let mut card = base.clone();
            let flipped = !bc.get("value").and_then(Value::as_bool).unwrap_or(false);
            card["fixed_fields"]["boundary_conditions"][&name]["value"] = Value::from(flipped);
            if !d.existing.iter().all(|e| exclusive(&card, e)) {
                continue;
            }
            let base_id = base.get("clause_card_id").and_then(Value::as_str).unwrap_or("");
            card["clause_card_id"] = Value::from(free_id(prefix, d, &[]));
            card["event_type"] = Value::from(event_type);
            card["clause_card_definition"] = Value::from(format!(
                "Like {base_id}, except that {} {}.",
                humanize(&name),
                if flipped { "holds" } else { "does not hold" }
            ));
            if let Some(o) = card.as_object_mut() {
                o.remove("missing_information_variants");
                o.remove("x_open_question");
            }
            card["x_ruled_out"] = ruled_out(d);
            if event_type == "Uncertain" {
                card["constraints_on_basic_event_elements_instantiation"] = constraints(true);
            }
            return Some(card);
        }
    }
    None
}

fn self_check() -> Value {
    json!([{"check": "every requirement of the instructions", "passed": true, "note": "drafted by the demo model (a simulation)"}])
}

pub fn draft_complete(n: &Normalized) -> String {
    let d = draft_inputs(n.last_user());
    let cards: Vec<Value> = if d.existing.is_empty() {
        let rep = free_id("CardRep_", &d, &[]);
        let nonrep = free_id("CardNonrep_", &d, &[]);
        vec![fresh_card(&d, &rep, "Reportable", true), fresh_card(&d, &nonrep, "Non_Reportable", false)]
    } else {
        let nonrep = d.existing.iter().any(|c| c.get("event_type").and_then(Value::as_str) == Some("Reportable"));
        let (kind, prefix) = if nonrep { ("Non_Reportable", "CardNonrep_") } else { ("Reportable", "CardRep_") };
        flipped_card(&d, kind, prefix).into_iter().collect()
    };
    json!({"target_clause_id": d.clause_id, "clause_cards": cards, "self_check": self_check()}).to_string()
}

pub fn draft_uncertain(n: &Normalized) -> String {
    let d = draft_inputs(n.last_user());
    let section_id = d
        .citable
        .iter()
        .find(|c| !d.clause_text.starts_with(c.as_str()))
        .or(d.citable.first())
        .cloned()
        .unwrap_or_default();
    let question =
        format!("Does the clause cover the event when the policy sets no measurable limit for it ({section_id})?");
    let card = if d.existing.is_empty() {
        let id = free_id("CardUnc_", &d, &[]);
        let mut c = fresh_card(&d, &id, "Uncertain", true);
        c["constraints_on_basic_event_elements_instantiation"] = constraints(true);
        Some(c)
    } else {
        flipped_card(&d, "Uncertain", "CardUnc_")
    };
    let cards: Vec<Value> = card
        .into_iter()
        .map(|mut c| {
            c["x_open_question"] = json!({"section_id": section_id, "question": question});
            c["fixed_fields"]["governing_legal_basis"]["value"] = json!([section_id]);
            c
        })
        .collect();
    json!({"target_clause_id": d.clause_id, "uncertain_cards": cards, "self_check": self_check()}).to_string()
}

pub fn draft_missing(n: &Normalized) -> String {
    let user = n.last_user();
    let parent = section(user, "# Parent card").and_then(first_json).unwrap_or(Value::Null);
    let siblings: Vec<Value> = section(user, "# Sibling cards of the same clause")
        .and_then(first_json)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    let taken = section(user, "# Variant ids already on the card").unwrap_or("").to_string();
    let parent_id = parent.get("clause_card_id").and_then(Value::as_str).unwrap_or("").to_string();
    let others: Vec<&Value> = siblings
        .iter()
        .filter(|s| s.get("clause_card_id").and_then(Value::as_str) != Some(parent_id.as_str()))
        .collect();
    // Mask a condition on which some sibling takes the other value.
    let conds = conditions(&parent);
    let choice = conds.iter().find_map(|(name, bc)| {
        let sib = others.iter().find(|s| {
            conditions(s).get(name).and_then(|o| o.get("value")).is_some_and(|v| Some(v) != bc.get("value"))
        })?;
        Some((name.clone(), bc.clone(), sib.get("clause_card_id").and_then(Value::as_str).unwrap_or("").to_string()))
    });
    let variants: Vec<Value> = choice
        .into_iter()
        .map(|(name, bc, sibling)| {
            let slots = bc.get("corresponding_basic_event_elements").cloned().unwrap_or(json!([]));
            let mut id = format!("missing_{name}");
            while taken.contains(&id) {
                id.push_str("_2");
            }
            json!({
                "missing_variant_id": id,
                "summary": format!("An early report that gives every fact except those that show whether {} holds.", humanize(&name)),
                "masked_boundary_conditions": [name],
                "masked_basic_event_elements": slots,
                "why_reasonable_in_real_world": "The first report is filed at the end of the shift, before the follow-up that would show this is documented.",
                "why_not_classifiable_from_remaining_event_description": format!("The remaining facts fit {parent_id} and also {sibling}, which differ only on this point."),
            })
        })
        .collect();
    json!({"parent_card_id": parent_id, "missing_information_variants": variants, "self_check": self_check()})
        .to_string()
}
