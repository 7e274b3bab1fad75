//! One evaluated case of a run as a transcript, with its case and every repeat.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use crate::case::{Case, Verdict};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::policy::repo as policy_repo;
use crate::trajectory::Trajectory;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct TrajectoryRequest {
    pub run_id: String,
    pub case_id: String,
    #[serde(default)]
    pub repeat: Option<u32>,
}

/// One evaluated case with everything needed to read it as a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrajectoryView {
    pub case: Case,
    pub trajectory: Trajectory,
    pub correct: bool,
    /// The gold clause label's short title, when the case is Reportable.
    pub gold_clause_title: Option<String>,
    /// Models used by the run: model under test, information provider, judge.
    pub models: HashMap<String, String>,
    /// Every finished repeat of this case in the run (one entry when the run has no repeats),
    /// with its verdict, so that any of them can be opened.
    #[serde(default)]
    pub repeats: Vec<RepeatOutcome>,
}

/// One repeat of a case in a run, as listed next to its transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RepeatOutcome {
    /// 0-based repeat index (the `repeat` parameter of `results.trajectory`).
    pub repeat: u32,
    /// The readable verdict given, or null.
    pub verdict: Option<Verdict>,
    pub correct: bool,
}

impl Engine {
    /// One evaluated case of a run, with its case, for the transcript view.
    pub fn results_trajectory(&self, req: &TrajectoryRequest) -> ApiResult<TrajectoryView> {
        let run = self.evaluation_show(&req.run_id)?;
        let wanted = req.repeat.unwrap_or(0);
        let all =
            self.store().with_read(|c| crate::evaluation::repo::trajectory_repeats(c, &req.run_id, &req.case_id))?;
        let case = self.case_show(&req.case_id)?;
        let repeats: Vec<RepeatOutcome> = all
            .iter()
            .map(|(k, t)| {
                let verdict = t.predicted_verdict();
                RepeatOutcome { repeat: *k, verdict, correct: verdict == Some(case.gold_verdict) }
            })
            .collect();
        let trajectory = all.into_iter().find(|(k, _)| *k == wanted).map(|(_, t)| t).ok_or_else(|| {
            if repeats.is_empty() || wanted == 0 {
                ApiError::not_found(format!("Run {} has no result for case \"{}\".", req.run_id, req.case_id))
            } else {
                ApiError::not_found(format!(
                    "Run {} has no repeat {} for case \"{}\" (it has {}).",
                    req.run_id,
                    wanted + 1,
                    req.case_id,
                    repeats.len()
                ))
            }
        })?;
        let pack = self.store().with_read(|c| policy_repo::load_pack(c, &case.policy))?;
        let gold_clause_title = case
            .gold_clause
            .as_deref()
            .and_then(|label| pack.clauses.iter().find(|c| c.label == label))
            .map(|c| c.short_title.clone());
        let cfg = &run.run.config;
        let mut models = HashMap::new();
        let names = [
            ("model", Some(&cfg.model)),
            ("info_model", cfg.info_model.as_ref()),
            ("judge_model", cfg.judge_model.as_ref()),
        ];
        for (role, name) in names {
            if let Some(v) = name {
                models.insert(role.to_string(), v.clone());
            }
        }
        Ok(TrajectoryView {
            correct: trajectory.predicted_verdict() == Some(case.gold_verdict),
            case,
            trajectory,
            gold_clause_title,
            models,
            repeats,
        })
    }
}
