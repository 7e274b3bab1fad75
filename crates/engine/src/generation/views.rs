//! What each role is allowed to see of a card. Narrators and the Extractor get a meaning-only
//! view of the fact slots (slot name → meaning; no field types, boundary conditions, legal basis
//! or verdict); the Missing-Variant Narrator gets the visible slots only, plus the withheld slots'
//! meanings and the withheld conditions as a do-not-reveal list.

use indexmap::IndexMap;
use serde_json::{json, Map, Value};

use crate::card::{ClauseCard, FieldType, MissingVariant};

/// Slot values: slot name → text or null, in the card's slot order.
pub type SlotValues = IndexMap<String, Option<String>>;

/// slot name → meaning, for every slot of the card.
pub fn meanings(card: &ClauseCard) -> IndexMap<String, String> {
    card.basic_event_elements.iter().map(|(k, e)| (k.clone(), e.meaning.clone())).collect()
}

/// slot name → meaning for the given slots only.
pub fn meanings_of(card: &ClauseCard, names: &[String]) -> IndexMap<String, String> {
    card.basic_event_elements
        .iter()
        .filter(|(k, _)| names.contains(k))
        .map(|(k, e)| (k.clone(), e.meaning.clone()))
        .collect()
}

/// The slots a missing variant leaves visible, in card order.
pub fn visible_slots(card: &ClauseCard, v: &MissingVariant) -> Vec<String> {
    card.basic_event_elements.keys().filter(|k| !v.masked_basic_event_elements.contains(k)).cloned().collect()
}

/// `[{boundary_condition, meaning, masked_condition_value}]` for a variant's withheld conditions.
pub fn masked_conditions(card: &ClauseCard, v: &MissingVariant) -> Value {
    let rows: Vec<Value> = v
        .masked_boundary_conditions
        .iter()
        .map(|name| {
            let bc = card.boundary_conditions().get(name);
            json!({
                "boundary_condition": name,
                "meaning": bc.map(|b| b.meaning.clone()).unwrap_or_default(),
                "masked_condition_value": bc.map(|b| b.value),
            })
        })
        .collect();
    Value::Array(rows)
}

pub fn slot_values_json(values: &SlotValues) -> Value {
    let m: Map<String, Value> =
        values.iter().map(|(k, v)| (k.clone(), v.clone().map(Value::String).unwrap_or(Value::Null))).collect();
    Value::Object(m)
}

/// Only the named slots of a record.
pub fn subset(values: &SlotValues, names: &[String]) -> SlotValues {
    values.iter().filter(|(k, _)| names.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

pub fn pretty_map(m: &IndexMap<String, String>) -> String {
    serde_json::to_string_pretty(m).unwrap_or_default()
}

/// Read a `slot_values` object: text stays text, numbers and booleans become text, null stays
/// null. Returns the values and the slots whose value had an unusable shape (objects, lists).
pub fn read_slot_values(obj: &Map<String, Value>) -> (SlotValues, Vec<String>) {
    let mut out = SlotValues::new();
    let mut bad = Vec::new();
    for (k, v) in obj {
        let val = match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => {
                bad.push(k.clone());
                None
            }
        };
        out.insert(k.clone(), val);
    }
    (out, bad)
}

/// Structured-output schema for the Instantiator: every slot required, enums as enums, null only
/// where the field type allows it.
pub fn instantiator_schema(card: &ClauseCard) -> Value {
    let mut props = Map::new();
    for (name, e) in &card.basic_event_elements {
        let s = match e.field_type {
            FieldType::String => json!({"type": "string"}),
            FieldType::StringOrNull => json!({"type": ["string", "null"]}),
            FieldType::Enum => json!({"type": "string", "enum": e.allowed_values.clone().unwrap_or_default()}),
        };
        props.insert(name.clone(), s);
    }
    let names: Vec<&String> = card.basic_event_elements.keys().collect();
    json!({
        "type": "object",
        "properties": {"slot_values": {"type": "object", "properties": props, "required": names, "additionalProperties": false}},
        "required": ["slot_values"],
        "additionalProperties": false
    })
}

/// Structured-output schema for the Extractor: every slot, text or null.
pub fn extractor_schema(card: &ClauseCard) -> Value {
    let props: Map<String, Value> =
        card.basic_event_elements.keys().map(|k| (k.clone(), json!({"type": ["string", "null"]}))).collect();
    let names: Vec<&String> = card.basic_event_elements.keys().collect();
    json!({
        "type": "object",
        "properties": {"slot_values": {"type": "object", "properties": props, "required": names, "additionalProperties": false}},
        "required": ["slot_values"],
        "additionalProperties": false
    })
}

pub fn narrative_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"event_narrative": {"type": "string"}},
        "required": ["event_narrative"],
        "additionalProperties": false
    })
}

pub fn verdict_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"pass": {"type": "boolean"}, "issues": {"type": "array", "items": {"type": "string"}}},
        "required": ["pass", "issues"],
        "additionalProperties": false
    })
}

pub fn missing_verdict_schema(conditions: &[String]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "per_bc_check": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "boundary_condition": {"type": "string", "enum": conditions},
                        "leak_verdict": {"type": "string", "enum": ["leaked", "indeterminate"]},
                        "evidence_phrase": {"type": ["string", "null"]},
                        "explanation": {"type": "string"}
                    },
                    "required": ["boundary_condition", "leak_verdict", "evidence_phrase", "explanation"],
                    "additionalProperties": false
                }
            },
            "pass": {"type": "boolean"},
            "issues": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["per_bc_check", "pass", "issues"],
        "additionalProperties": false
    })
}
