//! The clause-card JSON Schema (`schemas/clause_card.schema.json`), compiled once, with messages
//! rewritten for people who audit cards rather than people who write schemas.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;
use std::sync::OnceLock;

pub const CARD_SCHEMA: &str = include_str!("../../../../schemas/clause_card.schema.json");
pub const VARIANTS_SCHEMA: &str = include_str!("../../../../schemas/missing_variants.schema.json");

/// One schema violation, located by a JSON Pointer into the card.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaProblem {
    pub pointer: String,
    pub message: String,
}

/// The card schema with the variants schema inlined (so no reference resolution is needed).
pub fn card_schema_value() -> Value {
    let mut card: Value = serde_json::from_str(CARD_SCHEMA).unwrap_or(Value::Null);
    let mut variants: Value = serde_json::from_str(VARIANTS_SCHEMA).unwrap_or(Value::Null);
    if let Some(obj) = variants.as_object_mut() {
        obj.remove("$schema");
        obj.remove("$id");
    }
    if let Some(slot) = card.pointer_mut("/properties/missing_information_variants") {
        *slot = variants;
    }
    card
}

fn validator() -> Option<&'static jsonschema::Validator> {
    static V: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    V.get_or_init(|| jsonschema::validator_for(&card_schema_value()).ok()).as_ref()
}

fn last_segment(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or("")
}

fn describe_place(pointer: &str) -> String {
    if pointer.is_empty() {
        "the card".to_string()
    } else {
        format!("\"{}\"", last_segment(pointer).replace("~1", "/").replace("~0", "~"))
    }
}

fn friendly(kind: &ValidationErrorKind, pointer: &str, raw: String) -> String {
    let place = describe_place(pointer);
    match kind {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or("?");
            format!("{place} is missing the required field \"{name}\"; add it (see the clause-card schema)")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let list = unexpected.iter().map(|u| format!("\"{u}\"")).collect::<Vec<_>>().join(", ");
            format!(
                "{place} has {} the schema does not know: {list}; check the spelling \
                 (free extension fields must start with \"x_\")",
                crate::util::format::noun(unexpected.len(), "field")
            )
        }
        ValidationErrorKind::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(ts) => format!("{ts:?}"),
            };
            let article = if want.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            format!("{place} must be {article} {want}")
        }
        ValidationErrorKind::Enum { options } => {
            let opts = options
                .as_array()
                .map(|a| a.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            format!("{place} must be one of {opts}")
        }
        ValidationErrorKind::MinLength { .. } => format!("{place} must not be empty"),
        ValidationErrorKind::MinItems { .. } => format!("{place} must list at least one entry"),
        ValidationErrorKind::MinProperties { .. } => format!("{place} must contain at least one entry"),
        ValidationErrorKind::OneOfNotValid { .. } => format!("{place} must be text or a list of texts"),
        _ => format!("{place}: {raw}"),
    }
}

/// Validate a card document. An empty list means it conforms.
pub fn validate_card(doc: &Value) -> Vec<SchemaProblem> {
    let Some(v) = validator() else {
        return vec![SchemaProblem {
            pointer: String::new(),
            message: "internal error: the clause-card schema failed to compile".into(),
        }];
    };
    let mut out: Vec<SchemaProblem> = v
        .iter_errors(doc)
        .map(|e| {
            let pointer = e.instance_path.as_str().to_string();
            let message = friendly(&e.kind, &pointer, e.to_string());
            SchemaProblem { pointer, message }
        })
        .collect();
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        serde_json::from_str(super::super::tests::SAMPLE).unwrap()
    }

    #[test]
    fn sample_conforms() {
        assert_eq!(validate_card(&sample()), vec![]);
    }

    #[test]
    fn missing_field_is_named() {
        let mut v = sample();
        v.as_object_mut().unwrap().remove("clause_id");
        let p = validate_card(&v);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].pointer, "");
        assert!(p[0].message.contains("\"clause_id\""), "{}", p[0].message);
    }

    #[test]
    fn wrong_type_and_unknown_enum_value_are_located() {
        let mut v = sample();
        v["event_type"] = Value::String("Maybe".into());
        v["fixed_fields"]["boundary_conditions"]["serious_outcome_present"]["value"] = Value::String("yes".into());
        let p = validate_card(&v);
        let ptrs: Vec<_> = p.iter().map(|x| x.pointer.as_str()).collect();
        assert!(ptrs.contains(&"/event_type"), "{p:?}");
        assert!(ptrs.contains(&"/fixed_fields/boundary_conditions/serious_outcome_present/value"), "{p:?}");
    }

    #[test]
    fn unknown_field_in_strict_place() {
        let mut v = sample();
        v["basic_event_elements"]["outcome_type"]["meening"] = Value::String("x".into());
        let p = validate_card(&v);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].message.contains("\"meening\""));
        assert_eq!(p[0].pointer, "/basic_event_elements/outcome_type");
    }
}
