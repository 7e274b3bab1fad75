//! Clause cards exactly as the paper's schema, with key order preserved, plus schema validation,
//! the authoring-rule linter, file import/export and the versioned, audited library in the store.

pub mod actions;
pub mod builtin_library;
pub mod coverage;
pub mod io;
pub mod lint;
pub mod repo;
pub mod schema;

#[cfg(test)]
mod lint_tests;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `Reportable`, `Non_Reportable` or `Uncertain` (the card vocabulary of FORMATS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum EventType {
    Reportable,
    #[serde(rename = "Non_Reportable")]
    NonReportable,
    Uncertain,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Reportable => "Reportable",
            EventType::NonReportable => "Non_Reportable",
            EventType::Uncertain => "Uncertain",
        }
    }
    pub fn parse(s: &str) -> Option<EventType> {
        match s {
            "Reportable" => Some(EventType::Reportable),
            "Non_Reportable" => Some(EventType::NonReportable),
            "Uncertain" => Some(EventType::Uncertain),
            _ => None,
        }
    }
    /// The verdict a case generated from a card of this type carries.
    pub fn verdict(self) -> crate::case::Verdict {
        match self {
            EventType::Reportable => crate::case::Verdict::Reportable,
            EventType::NonReportable => crate::case::Verdict::NonReportable,
            EventType::Uncertain => crate::case::Verdict::Uncertain,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LegalBasis {
    pub value: Vec<String>,
    pub meaning: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BoundaryCondition {
    pub value: bool,
    pub meaning: String,
    pub corresponding_basic_event_elements: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FixedFields {
    pub governing_legal_basis: LegalBasis,
    pub boundary_conditions: IndexMap<String, BoundaryCondition>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    String,
    StringOrNull,
    Enum,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BasicEventElement {
    pub field_type: FieldType,
    pub meaning: String,
    /// Free text or a list of illustrations (both occur in drafted cards).
    pub allowed_content: Value,
    pub disallowed_content: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_values: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MissingVariant {
    pub missing_variant_id: String,
    pub summary: String,
    pub masked_boundary_conditions: Vec<String>,
    pub masked_basic_event_elements: Vec<String>,
    pub why_reasonable_in_real_world: String,
    pub why_not_classifiable_from_remaining_event_description: String,
}

/// A clause card. Field order is the paper's; maps keep document order; `x_*` extension keys
/// are kept in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClauseCard {
    pub clause_card_id: String,
    pub clause_card_definition: String,
    pub clause_id: String,
    pub event_type: EventType,
    pub fixed_fields: FixedFields,
    pub basic_event_elements: IndexMap<String, BasicEventElement>,
    pub constraints_on_basic_event_elements_instantiation: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_information_variants: Option<Vec<MissingVariant>>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl ClauseCard {
    pub fn boundary_conditions(&self) -> &IndexMap<String, BoundaryCondition> {
        &self.fixed_fields.boundary_conditions
    }
    pub fn legal_basis(&self) -> &[String] {
        &self.fixed_fields.governing_legal_basis.value
    }
    pub fn variants(&self) -> &[MissingVariant] {
        self.missing_information_variants.as_deref().unwrap_or(&[])
    }
    pub fn variant(&self, id: &str) -> Option<&MissingVariant> {
        self.variants().iter().find(|v| v.missing_variant_id == id)
    }
    /// The card as a JSON value in canonical key order.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
    /// Parse from a JSON value that already passed the schema.
    pub fn from_value(v: &Value) -> Result<ClauseCard, serde_json::Error> {
        ClauseCard::deserialize(v)
    }
}

/// Audit status of a stored card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    Draft,
    Audited,
    Approved,
}

impl AuditStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditStatus::Draft => "draft",
            AuditStatus::Audited => "audited",
            AuditStatus::Approved => "approved",
        }
    }
    pub fn parse(s: &str) -> Option<AuditStatus> {
        match s {
            "draft" => Some(AuditStatus::Draft),
            "audited" => Some(AuditStatus::Audited),
            "approved" => Some(AuditStatus::Approved),
            _ => None,
        }
    }
}

/// Canonical pretty JSON for a card document (two-space indent, trailing newline).
pub fn to_pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const SAMPLE: &str = r#"{
  "clause_card_id": "CardRep_1_CareManagement_1",
  "clause_card_definition": "A patient dies or is seriously hurt after a drug is given despite a documented allergy.",
  "clause_id": "CareManagement_1_MedicationError",
  "event_type": "Reportable",
  "fixed_fields": {
    "governing_legal_basis": {
      "value": ["Care Management Event Recommendation 1", "Care Management Events clause 1"],
      "meaning": "The clause covers harm from medication errors; the recommendation sets the harm bar."
    },
    "boundary_conditions": {
      "serious_outcome_present": {
        "value": true,
        "meaning": "Death or serious injury followed.",
        "corresponding_basic_event_elements": ["outcome_type"]
      },
      "known_allergy_documented": {
        "value": true,
        "meaning": "The allergy was on record before the dose.",
        "corresponding_basic_event_elements": ["allergy_record"]
      }
    }
  },
  "basic_event_elements": {
    "outcome_type": {
      "field_type": "enum",
      "meaning": "What happened to the patient.",
      "allowed_content": "one of the allowed values",
      "disallowed_content": "minor outcomes",
      "allowed_values": ["death", "serious_injury"]
    },
    "allergy_record": {
      "field_type": "string",
      "meaning": "Where and how the allergy was documented.",
      "allowed_content": ["chart banner", "pharmacy profile"],
      "disallowed_content": "verdict words"
    }
  },
  "constraints_on_basic_event_elements_instantiation": ["Never write reportable in a slot."],
  "x_note": "kept"
}"#;

    #[test]
    fn round_trip_keeps_key_order_and_extras() {
        let v: Value = serde_json::from_str(SAMPLE).unwrap();
        let card = ClauseCard::from_value(&v).unwrap();
        assert_eq!(card.to_value(), v);
        let keys: Vec<_> = card.boundary_conditions().keys().cloned().collect();
        assert_eq!(keys, vec!["serious_outcome_present", "known_allergy_documented"]);
        // Same keys in the same order, byte for byte.
        assert_eq!(serde_json::to_string(&card.to_value()).unwrap(), serde_json::to_string(&v).unwrap());
    }
}
