//! Evaluated-case trajectories (FORMATS.md "Trajectories"): every turn of the model under test
//! and of the information provider, the final answer, the M4 judge's hits and token usage.

pub mod facts;
pub mod io;
mod lean_read;
pub mod scoring;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::case::Verdict;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub enum Action {
    #[serde(rename = "ASK")]
    Ask,
    #[serde(rename = "ANSWER")]
    Answer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum InfoStatus {
    Answered,
    RefusedTooVague,
    Unknown,
}

impl InfoStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            InfoStatus::Answered => "answered",
            InfoStatus::RefusedTooVague => "refused_too_vague",
            InfoStatus::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum EvalRole {
    Eval,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum InfoRole {
    Info,
}

/// A turn of the model under test. `extra` holds our own additions (tokens, latency, prompt
/// versions, parse notes); other tools' extra fields are kept too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvalTurn {
    pub role: EvalRole,
    #[serde(default)]
    pub raw: String,
    pub action: Option<Action>,
    #[serde(default)]
    pub ask_question: Option<String>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// A reply of the information provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct InfoTurn {
    pub role: InfoRole,
    pub status: InfoStatus,
    #[serde(default)]
    pub answer: String,
    #[serde(default)]
    pub fields_used: Vec<String>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
pub enum Turn {
    Eval(EvalTurn),
    Info(InfoTurn),
}

/// The parsed ANSWER. Fields are kept as the model wrote them; metrics decide what counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FinalAnswer {
    #[serde(default)]
    pub final_verdict: Option<String>,
    #[serde(default)]
    pub targeted_clause: Option<String>,
    #[serde(default)]
    pub clause_and_guidance_evidence: Option<Vec<String>>,
    #[serde(default)]
    pub rationale: Option<String>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JudgeResult {
    #[serde(default)]
    pub hits: Vec<String>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrajectoryUsage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// One evaluated case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Trajectory {
    pub run_id: String,
    pub model: String,
    pub case_id: String,
    pub turns: Vec<Turn>,
    #[serde(rename = "final")]
    pub final_answer: Option<FinalAnswer>,
    #[serde(default)]
    pub judge: Option<JudgeResult>,
    #[serde(default)]
    pub usage: TrajectoryUsage,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl Trajectory {
    /// ŷ: the final verdict when it is exactly one of the three verdict strings.
    pub fn predicted_verdict(&self) -> Option<Verdict> {
        self.final_answer.as_ref().and_then(|f| f.final_verdict.as_deref()).and_then(Verdict::parse)
    }
    /// aᵢ: whether any eval turn asked.
    pub fn asked(&self) -> bool {
        self.turns.iter().any(|t| matches!(t, Turn::Eval(e) if e.action == Some(Action::Ask)))
    }
    /// Number of ASK actions.
    pub fn ask_count(&self) -> usize {
        self.turns.iter().filter(|t| matches!(t, Turn::Eval(e) if e.action == Some(Action::Ask))).count()
    }
    /// Ê′: union of `fields_used` over answered info turns.
    pub fn recovered_elements(&self) -> std::collections::BTreeSet<String> {
        self.turns
            .iter()
            .filter_map(|t| match t {
                Turn::Info(i) if i.status == InfoStatus::Answered => Some(i.fields_used.iter().cloned()),
                _ => None,
            })
            .flatten()
            .collect()
    }
    pub fn predicted_clause(&self) -> Option<&str> {
        self.final_answer.as_ref().and_then(|f| f.targeted_clause.as_deref())
    }
    /// Ĝ as a set.
    pub fn predicted_evidence(&self) -> std::collections::BTreeSet<String> {
        self.final_answer
            .as_ref()
            .and_then(|f| f.clause_and_guidance_evidence.as_ref())
            .map(|v| v.iter().cloned().collect())
            .unwrap_or_default()
    }
    pub fn rationale(&self) -> Option<&str> {
        self.final_answer.as_ref().and_then(|f| f.rationale.as_deref())
    }
    /// The repeat index: the extension field `repeat` when it is a non-negative integer, else 0.
    pub fn repeat_index(&self) -> u64 {
        self.extra.get("repeat").and_then(Value::as_u64).unwrap_or(0)
    }
}
