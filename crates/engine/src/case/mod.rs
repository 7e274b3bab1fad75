//! Benchmark cases with by-construction ground truth (FORMATS.md "Cases").

pub mod actions;
pub mod io;
pub mod repo;
pub mod validate;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum CaseType {
    Complete,
    Missing,
    Uncertain,
}

impl CaseType {
    pub const ALL: [CaseType; 3] = [CaseType::Complete, CaseType::Missing, CaseType::Uncertain];
    pub fn as_str(self) -> &'static str {
        match self {
            CaseType::Complete => "complete",
            CaseType::Missing => "missing",
            CaseType::Uncertain => "uncertain",
        }
    }
    pub fn parse(s: &str) -> Option<CaseType> {
        CaseType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// Verdict vocabulary shared by gold labels and model answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
pub enum Verdict {
    Reportable,
    #[serde(rename = "Non-reportable")]
    NonReportable,
    Uncertain,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Reportable, Verdict::NonReportable, Verdict::Uncertain];
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Reportable => "Reportable",
            Verdict::NonReportable => "Non-reportable",
            Verdict::Uncertain => "Uncertain",
        }
    }
    /// Exact match on the contract strings only (a model's "reportable" is not a verdict).
    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseCondition {
    pub name: String,
    pub meaning: String,
    pub value: bool,
}

/// Element values are text or null; numbers and booleans written by other tools are read as text.
fn text_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        Some(other) => {
            return Err(serde::de::Error::custom(format!("an element value must be text or null, not {other}")));
        }
    })
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseElement {
    pub name: String,
    pub meaning: String,
    #[serde(deserialize_with = "text_or_null")]
    pub value: Option<String>,
}

/// One benchmark case. Unknown extra fields are kept and written back (FORMATS: writers may add).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Case {
    pub case_id: String,
    pub case_type: CaseType,
    pub policy: String,
    pub clause_id: String,
    pub clause_card_id: String,
    #[serde(default)]
    pub missing_variant_id: Option<String>,
    pub gold_verdict: Verdict,
    #[serde(default)]
    pub gold_clause: Option<String>,
    pub gold_legal_basis: Vec<String>,
    pub boundary_conditions: Vec<CaseCondition>,
    pub elements: Vec<CaseElement>,
    #[serde(default)]
    pub masked_elements: Vec<String>,
    pub narrative: String,
    #[serde(default)]
    pub anchor_id: Option<String>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl Case {
    pub fn element_names(&self) -> impl Iterator<Item = &str> {
        self.elements.iter().map(|e| e.name.as_str())
    }
    pub fn condition_names(&self) -> impl Iterator<Item = &str> {
        self.boundary_conditions.iter().map(|b| b.name.as_str())
    }
}
