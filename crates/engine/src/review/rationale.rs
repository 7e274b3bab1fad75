//! The rationale task: checking the M4 judge against people. For an item whose case has a judged
//! rationale in one of the chosen evaluation runs, the reviewer reads that rationale beside the
//! case's boundary conditions and ticks the ones it establishes. The statistics compare those ticks
//! with the judge's hits, condition by condition (Cohen's kappa over established / not).
//!
//! What the reviewer sees, and when:
//! * The task opens only after the reveal, when the reviewer's own verdict is locked. The rationale
//!   states the tested model's verdict, so showing it earlier would bias the blind verdict.
//! * Each condition is shown with its meaning *and* the value the case was built with. The judge
//!   counts a condition only when the rationale handles it the way that value says (met when true,
//!   not met when false); a reviewer asked the same question needs the same information, or the
//!   agreement would mix up disagreement about the label with disagreement about the rationale.
//!   By the time the task opens the reveal has shown these values anyway, so they give nothing away.
//! * The model's name and the judge's hits are never shown to the reviewer (nor put in packs).
//!
//! Everything is snapshotted when the session is created: re-judging or deleting the run later
//! changes neither what reviewers see nor the judge side of the statistics.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::stats::{self, KappaDetail};
use super::StatValue;
use crate::case::Case;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::trajectory::Trajectory;

/// Added to a session's guidelines when it has a rationale task.
pub const GUIDELINES_SECTION: &str = "
## Checking a model's reasoning (some cases)

On some cases, once your own verdict is saved and the by-construction verdict is open, you also see
the reasoning a tested model wrote for the case, with the conditions that decide it. Tick each
condition the reasoning really works with *and* handles the way the case says: as met when it holds
in this case, as not met when it does not. A condition that is only named in passing, or handled the
wrong way round, stays unticked. If no condition qualifies, choose \"none of them\". Judge the
reasoning, not the model's verdict: a wrong verdict can still rest on a condition handled well.
";

/// Below this many (item, condition) decisions the kappa comes with a plain warning.
pub const MIN_DECISIONS: u32 = 20;

/// A boundary condition as the rationale task shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RationaleCondition {
    pub name: String,
    pub meaning: String,
    /// The value the case was built with (the judge is given it too).
    pub value: bool,
}

/// What the reviewer sees of an item's rationale task (after the reveal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RationaleTask {
    /// The tested model's rationale, as it wrote it.
    pub rationale: String,
    /// The conditions to tick, in the order of the case.
    pub conditions: Vec<RationaleCondition>,
}

/// Where an item's rationale came from and what the M4 judge said about it (owner's store only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RationaleSource {
    pub run_id: String,
    pub model: String,
    pub repeat: u32,
    /// The judge's hits that are conditions of the case (others are dropped, as M4 does).
    pub judge_hits: Vec<String>,
}

/// A trajectory the task can use: judged without a judge error, with a rationale that is not empty.
pub fn usable(t: &Trajectory) -> bool {
    let judged = t.judge.as_ref().is_some_and(|j| !j.extra.contains_key("judge_error"));
    judged && t.rationale().is_some_and(|r| !r.trim().is_empty())
}

/// Pick one of the usable trajectories of a case, the same one for the same seed. `candidates`
/// are (run id, trajectory) pairs in any order.
pub fn pick<'a>(
    case_id: &str,
    seed: u64,
    candidates: &[(&'a str, &'a Trajectory)],
) -> Option<(&'a str, &'a Trajectory)> {
    let mut list: Vec<(&str, &Trajectory)> =
        candidates.iter().copied().filter(|(_, t)| t.case_id == case_id && usable(t)).collect();
    if list.is_empty() {
        return None;
    }
    list.sort_by(|a, b| {
        (a.0, a.1.repeat_index(), a.1.model.as_str()).cmp(&(b.0, b.1.repeat_index(), b.1.model.as_str()))
    });
    // A small deterministic mix of the seed and the case id (FNV-1a), so each case draws on its own.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in case_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let i = (h % list.len() as u64) as usize;
    list.get(i).copied()
}

/// The task and its source for a case and a chosen trajectory.
pub fn snapshot(case: &Case, run_id: &str, t: &Trajectory) -> (RationaleTask, RationaleSource) {
    let mut conditions: Vec<RationaleCondition> = Vec::new();
    for b in &case.boundary_conditions {
        if !conditions.iter().any(|c| c.name == b.name) {
            conditions.push(RationaleCondition { name: b.name.clone(), meaning: b.meaning.clone(), value: b.value });
        }
    }
    let hits = t.judge.as_ref().map(|j| j.hits.clone()).unwrap_or_default();
    let judge_hits = conditions.iter().filter(|c| hits.contains(&c.name)).map(|c| c.name.clone()).collect();
    (
        RationaleTask { rationale: t.rationale().unwrap_or_default().to_string(), conditions },
        RationaleSource {
            run_id: run_id.to_string(),
            model: t.model.clone(),
            repeat: t.repeat_index() as u32,
            judge_hits,
        },
    )
}

/// Check a reviewer's ticks against the item's task: every name must be one of its conditions.
/// Returns them without duplicates, in the task's order.
pub fn check_ticks(task: Option<&RationaleTask>, ticks: &[String], item_no: u32) -> ApiResult<Vec<String>> {
    let Some(task) = task else {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!("Item {item_no} has no rationale to check, so there is nothing to tick."),
        ));
    };
    if let Some(bad) = ticks.iter().find(|n| !task.conditions.iter().any(|c| &c.name == *n)) {
        let names: Vec<&str> = task.conditions.iter().map(|c| c.name.as_str()).collect();
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!("\"{bad}\" is not one of the conditions of item {item_no}; tick only these: {}.", names.join(", ")),
        ));
    }
    Ok(task.conditions.iter().filter(|c| ticks.contains(&c.name)).map(|c| c.name.clone()).collect())
}

/// Agreement between the M4 judge and reviewers (one reviewer, or all of them pooled) over
/// (item, condition) decisions: established or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct JudgeAgreement {
    /// The reviewer, or null for all reviewers pooled.
    pub reviewer: Option<String>,
    /// Rationale tasks answered.
    pub items: u32,
    /// Cohen's kappa; `n` is the number of (item, condition) decisions.
    pub kappa: StatValue,
    /// p_o: the share of decisions where reviewer and judge agree.
    pub observed_agreement: Option<f64>,
    /// p_e: the share expected by chance from how often each of them says "established".
    pub expected_agreement: Option<f64>,
    /// The 2×2 table: both say established, only the judge, only the reviewer, neither.
    pub both: u32,
    pub judge_only: u32,
    pub reviewer_only: u32,
    pub neither: u32,
    /// A plain warning when there are too few decisions to read much into the kappa.
    pub caution: Option<String>,
}

/// The rationale task's part of a session's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RationaleStats {
    /// Items with a rationale task, and the runs their rationales came from.
    pub items_with_task: u32,
    pub runs: Vec<String>,
    pub pooled: JudgeAgreement,
    pub per_reviewer: Vec<JudgeAgreement>,
    /// All reviewers pooled over the items of one case type: complete, missing, uncertain
    /// (types without a task are left out).
    #[serde(default)]
    pub by_type: Vec<TypeJudgeAgreement>,
}

/// The judge against all reviewers (pooled) on the items of one case type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TypeJudgeAgreement {
    pub case_type: String,
    pub agreement: JudgeAgreement,
}

/// One decision: (judge says established, reviewer says established).
pub type Decision = (bool, bool);

/// The agreement over a set of decisions.
pub fn agreement(reviewer: Option<&str>, items: u32, decisions: &[Decision]) -> JudgeAgreement {
    let pairs: Vec<(usize, usize)> = decisions.iter().map(|(j, r)| (usize::from(*j), usize::from(*r))).collect();
    let KappaDetail { kappa, observed, expected } = stats::cohen_kappa_detail(&pairs, 2);
    let count = |want: Decision| decisions.iter().filter(|d| **d == want).count() as u32;
    let n = decisions.len() as u32;
    let caution = if n == 0 {
        None
    } else if n < MIN_DECISIONS {
        Some(format!(
            "Only {}: with fewer than {MIN_DECISIONS}, one or two different ticks move the kappa a lot, so read it as a rough indication at most.",
            crate::util::format::count(n, "decision")
        ))
    } else {
        None
    };
    JudgeAgreement {
        reviewer: reviewer.map(str::to_string),
        items,
        kappa,
        observed_agreement: observed,
        expected_agreement: expected,
        both: count((true, true)),
        judge_only: count((true, false)),
        reviewer_only: count((false, true)),
        neither: count((false, false)),
        caution,
    }
}

/// The decisions of one answered task: for each condition, (judge hit, reviewer ticked).
pub fn decisions(task: &RationaleTask, source: &RationaleSource, ticks: &[String]) -> Vec<Decision> {
    task.conditions.iter().map(|c| (source.judge_hits.contains(&c.name), ticks.contains(&c.name))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(v: Option<f64>, want: f64) {
        let got = v.unwrap_or_else(|| panic!("undefined"));
        assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
    }

    #[test]
    fn kappa_between_judge_and_reviewer_by_hand() {
        // 20 (item, condition) decisions, judge × reviewer:
        //   both established 6, judge only 2, reviewer only 3, neither 9.
        // p_o = (6 + 9) / 20 = 0.75.
        // The judge says established 8/20 = 0.4 of the time, the reviewer 9/20 = 0.45.
        // p_e = 0.4 · 0.45 + 0.6 · 0.55 = 0.18 + 0.33 = 0.51.
        // kappa = (0.75 − 0.51) / (1 − 0.51) = 0.24 / 0.49 = 0.489795…
        let mut d = Vec::new();
        d.extend(std::iter::repeat_n((true, true), 6));
        d.extend(std::iter::repeat_n((true, false), 2));
        d.extend(std::iter::repeat_n((false, true), 3));
        d.extend(std::iter::repeat_n((false, false), 9));
        let a = agreement(Some("Ana"), 5, &d);
        close(a.observed_agreement, 0.75);
        close(a.expected_agreement, 0.51);
        close(a.kappa.value, 0.24 / 0.49);
        assert_eq!(a.kappa.n, 20);
        assert_eq!((a.both, a.judge_only, a.reviewer_only, a.neither), (6, 2, 3, 9));
        assert_eq!(a.caution, None, "20 decisions is enough for no warning");
        // Four fewer "neither" rows: 16 decisions, a warning, and a different kappa.
        // p_o = 11/16; judge 8/16 = .5, reviewer 9/16; p_e = .5·9/16 + .5·7/16 = .5; kappa = (11/16 − .5)/.5 = 0.375.
        let small = agreement(None, 4, &d[..16]);
        close(small.kappa.value, 0.375);
        assert!(small.caution.as_deref().unwrap().contains("Only 16 decisions:"));
    }

    #[test]
    fn no_variation_gives_no_kappa_but_keeps_the_agreement_shares() {
        let a = agreement(None, 1, &[(true, true), (true, true)]);
        assert_eq!(a.kappa.value, None);
        assert!(a.kappa.note.is_some());
        close(a.observed_agreement, 1.0);
        close(a.expected_agreement, 1.0);
        let none = agreement(None, 0, &[]);
        assert_eq!((none.kappa.value, none.kappa.n, none.observed_agreement), (None, 0, None));
        assert_eq!(none.caution, None);
    }

    #[test]
    fn ticks_must_name_conditions_of_the_item() {
        let task = RationaleTask {
            rationale: "r".into(),
            conditions: vec![
                RationaleCondition { name: "a".into(), meaning: String::new(), value: true },
                RationaleCondition { name: "b".into(), meaning: String::new(), value: false },
            ],
        };
        let ok = check_ticks(Some(&task), &["b".into(), "a".into(), "b".into()], 3).unwrap();
        assert_eq!(ok, vec!["a", "b"]);
        let e = check_ticks(Some(&task), &["c".into()], 3).unwrap_err();
        assert!(e.message.contains("\"c\" is not one of the conditions of item 3"), "{}", e.message);
        assert!(check_ticks(None, &[], 2).unwrap_err().message.contains("no rationale"));
    }
}
