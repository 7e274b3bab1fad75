//! What a run is (its kind) and where it stands (its status), as closed sets of values. The
//! strings are stored in the `runs` table and sent to the UI, so they never change; a value read
//! from the store that is not one of them is an error that names the run.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use crate::error::ApiError;

/// The kind of work a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum RunKind {
    /// Evaluating models on cases (`eval`).
    #[serde(rename = "eval")]
    Eval,
    /// Generating cases from clause cards (`generation`).
    #[serde(rename = "generation")]
    Generation,
    /// Drafting clause cards for a whole policy (`authoring`).
    #[serde(rename = "authoring")]
    Authoring,
    /// Screening stored cases against the whole policy (`label_audit`).
    #[serde(rename = "label_audit")]
    LabelAudit,
    /// Sorting anchors into buckets or translating them with a model (`anchors`).
    #[serde(rename = "anchors")]
    AnchorJob,
}

impl RunKind {
    pub const ALL: [RunKind; 5] =
        [RunKind::Eval, RunKind::Generation, RunKind::Authoring, RunKind::LabelAudit, RunKind::AnchorJob];

    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Eval => "eval",
            RunKind::Generation => "generation",
            RunKind::Authoring => "authoring",
            RunKind::LabelAudit => "label_audit",
            RunKind::AnchorJob => "anchors",
        }
    }

    /// How the ids of new runs of this kind begin.
    pub fn id_prefix(self) -> &'static str {
        match self {
            RunKind::Eval => "eval",
            RunKind::Generation => "gen",
            RunKind::Authoring => "author",
            RunKind::LabelAudit => "audit",
            RunKind::AnchorJob => "anchors",
        }
    }
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Created; no work done yet.
    Pending,
    /// Being worked on, with a fresh heartbeat.
    Running,
    /// Stored as running, but the heartbeat is stale: the process working on it is gone.
    Interrupted,
    /// Stopped at the user's request; finished work is kept.
    Cancelled,
    /// Stopped by a problem; finished work is kept.
    Failed,
    /// Every item is done.
    Completed,
    /// Stopped before its spending cap would be passed; finished work is kept, and a higher cap
    /// lets it finish (`cost_capped`).
    #[serde(rename = "cost_capped")]
    CostCapped,
}

impl RunStatus {
    pub const ALL: [RunStatus; 7] = [
        RunStatus::Pending,
        RunStatus::Running,
        RunStatus::Interrupted,
        RunStatus::Cancelled,
        RunStatus::Failed,
        RunStatus::Completed,
        RunStatus::CostCapped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
            RunStatus::Completed => "completed",
            RunStatus::CostCapped => "cost_capped",
        }
    }

    /// The status in words, as lists and the app show it.
    pub fn words(self) -> &'static str {
        match self {
            RunStatus::CostCapped => "stopped: cost cap",
            other => other.as_str(),
        }
    }

    /// The run has stopped and can be resumed to finish what is missing.
    pub fn is_resumable(self) -> bool {
        matches!(
            self,
            RunStatus::Pending
                | RunStatus::Interrupted
                | RunStatus::Cancelled
                | RunStatus::Failed
                | RunStatus::CostCapped
        )
    }
}

/// A stored value that is not a known run kind or status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{value}\" is not a run {what}")]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
}

fn parse_one<T: Copy>(all: &[T], name: fn(T) -> &'static str, what: &'static str, s: &str) -> Result<T, UnknownValue> {
    all.iter().copied().find(|v| name(*v) == s).ok_or_else(|| UnknownValue { what, value: s.to_string() })
}

impl FromStr for RunKind {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_one(&RunKind::ALL, RunKind::as_str, "kind", s)
    }
}

impl FromStr for RunStatus {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_one(&RunStatus::ALL, RunStatus::as_str, "status", s)
    }
}

macro_rules! as_text {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }
        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}
as_text!(RunKind);
as_text!(RunStatus);

/// Why a stored run could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoredRunError {
    #[error(
        "Run {run_id} in the store (table runs) has an unknown {}: {source}. The database may come from a newer \
         version of the app or have been edited by hand.",
        source.what
    )]
    Unknown { run_id: String, source: UnknownValue },
    #[error(
        "The stored configuration of run {run_id} (table runs, column config_json) is not valid JSON: {reason}. \
         The database may have been edited by hand."
    )]
    Config { run_id: String, reason: String },
    #[error(
        "The stored configuration of run {run_id} (table runs, column config_json) does not have the expected shape: \
         {reason}. The database may have been edited by hand."
    )]
    ConfigShape { run_id: String, reason: String },
}

impl From<StoredRunError> for ApiError {
    fn from(e: StoredRunError) -> Self {
        ApiError::new(crate::error::ErrorCode::StoreFailed, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_statuses_keep_their_stored_strings() {
        for s in RunStatus::ALL {
            assert_eq!(s.as_str().parse::<RunStatus>(), Ok(s));
            assert_eq!(serde_json::to_value(s).unwrap(), serde_json::Value::String(s.as_str().into()));
        }
        for k in RunKind::ALL {
            assert_eq!(k.as_str().parse::<RunKind>(), Ok(k));
            assert_eq!(serde_json::to_value(k).unwrap(), serde_json::Value::String(k.as_str().into()));
        }
        let err = "paused".parse::<RunStatus>().unwrap_err();
        assert_eq!(err.to_string(), "\"paused\" is not a run status");
    }
}
