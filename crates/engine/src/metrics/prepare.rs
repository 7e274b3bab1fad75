//! One pass over the inputs: the gold side of every case, and for each model the per-case
//! outcome of its trajectory. Everything downstream works on these small arrays only.

use std::collections::HashMap;

use super::prf::{set_counts, sorted_set, Counts};
use crate::case::{Case, CaseType, Verdict};
use crate::trajectory::{InfoStatus, Trajectory, Turn};

/// The ground truth of one case, borrowed from the case.
#[derive(Debug, Clone)]
pub(crate) struct GoldCase<'a> {
    pub case_type: CaseType,
    pub verdict: Verdict,
    pub clause: Option<&'a str>,
    /// G*: sorted, without duplicates.
    pub evidence: Vec<&'a str>,
    /// Boundary-condition names: sorted, without duplicates (K_i is its length).
    pub conditions: Vec<&'a str>,
    /// E′*: sorted, without duplicates.
    pub masked: Vec<&'a str>,
    pub clause_id: &'a str,
}

impl<'a> GoldCase<'a> {
    pub fn from_case(case: &'a Case) -> Self {
        let mut names: Vec<&'a str> = case.condition_names().collect();
        names.sort_unstable();
        names.dedup();
        GoldCase {
            case_type: case.case_type,
            verdict: case.gold_verdict,
            clause: case.gold_clause.as_deref(),
            evidence: sorted_set(&case.gold_legal_basis),
            conditions: names,
            masked: sorted_set(&case.masked_elements),
            clause_id: &case.clause_id,
        }
    }

    /// K_i: the number of distinct boundary conditions on the card.
    pub fn condition_count(&self) -> u64 {
        self.conditions.len() as u64
    }
}

/// What one trajectory means for the metrics, already scored against its case. A case with no
/// trajectory keeps the default: no verdict, no ASK, nothing recovered.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Outcome {
    /// Whether the model has a trajectory for this case.
    pub present: bool,
    /// ŷ (null on parse failure or a verdict outside the vocabulary).
    pub verdict: Option<Verdict>,
    /// ĉ equals the gold clause verbatim.
    pub clause_match: bool,
    /// Ĝ against G*.
    pub evidence: Counts,
    /// |H_i|: judge hits that are conditions of the card, 0 for an empty rationale.
    pub hits: u64,
    /// Number of ASK actions (aᵢ = asks > 0).
    pub asks: u64,
    /// Ê′ against E′*.
    pub slots: Counts,
    pub completion_tokens: u64,
}

impl Outcome {
    /// Score one trajectory against its case.
    pub fn from_trajectory(gold: &GoldCase, t: &Trajectory) -> Self {
        let verdict = t.predicted_verdict();
        let clause_match = match (gold.clause, t.predicted_clause()) {
            (Some(g), Some(p)) => g == p,
            _ => false,
        };
        let cited = t.final_answer.as_ref().and_then(|f| f.clause_and_guidance_evidence.as_ref());
        let evidence = set_counts(&gold.evidence, cited.into_iter().flatten().map(String::as_str));
        Outcome {
            present: true,
            verdict,
            clause_match,
            evidence,
            hits: condition_hits(gold, t),
            asks: t.ask_count() as u64,
            slots: set_counts(&gold.masked, recovered(t)),
            completion_tokens: t.usage.completion_tokens,
        }
    }

    pub fn asked(&self) -> bool {
        self.asks > 0
    }

    /// 1[ŷ = y*].
    pub fn correct(&self, gold: &GoldCase) -> bool {
        self.verdict == Some(gold.verdict)
    }
}

/// |H_i|: distinct judge hits that name one of the card's conditions; 0 when the rationale is
/// empty or missing (such rationales never reach the judge) or when there is no judge result.
fn condition_hits(gold: &GoldCase, t: &Trajectory) -> u64 {
    let has_rationale = t.rationale().is_some_and(|r| !r.trim().is_empty());
    let Some(judge) = t.judge.as_ref().filter(|_| has_rationale) else {
        return 0;
    };
    set_counts(&gold.conditions, judge.hits.iter().map(String::as_str)).tp
}

/// Ê′ as borrowed names: `fields_used` of the answered info turns (duplicates collapse later).
fn recovered(t: &Trajectory) -> impl Iterator<Item = &str> {
    t.turns
        .iter()
        .flat_map(|turn| match turn {
            Turn::Info(info) if info.status == InfoStatus::Answered => info.fields_used.as_slice(),
            _ => &[],
        })
        .map(String::as_str)
}

/// The repeat index of a trajectory: its extension field `repeat` (a non-negative integer),
/// 0 when absent or not such an integer.
pub(crate) fn repeat_index(t: &Trajectory) -> u64 {
    t.extra.get("repeat").and_then(serde_json::Value::as_u64).unwrap_or(0)
}

/// One model's trajectories, placed on the case list.
#[derive(Debug, Clone)]
pub(crate) struct ModelRuns<'a> {
    pub model: &'a str,
    /// For each case: (repeat index, trajectory), one per distinct repeat index, smallest first.
    pub by_case: Vec<Vec<(u64, &'a Trajectory)>>,
    /// Trajectories whose case_id is not among the cases.
    pub unknown_case: u64,
    /// Trajectories repeating an already-seen (case, repeat index); the first one is kept.
    pub duplicates: u64,
}

impl<'a> ModelRuns<'a> {
    fn new(model: &'a str, case_count: usize) -> Self {
        ModelRuns { model, by_case: vec![Vec::new(); case_count], unknown_case: 0, duplicates: 0 }
    }

    /// Order each case's repeats by index and drop repeated (case, repeat) pairs. The sort is
    /// stable, so of two trajectories with the same repeat index the first in input order stays.
    fn settle_repeats(&mut self) {
        for repeats in self.by_case.iter_mut().filter(|r| r.len() > 1) {
            repeats.sort_by_key(|&(k, _)| k);
            let before = repeats.len();
            repeats.dedup_by_key(|&mut (k, _)| k);
            self.duplicates += (before - repeats.len()) as u64;
        }
    }
}

/// Index of each case id (the first case wins if ids repeat).
pub(crate) fn case_index(cases: &[Case]) -> HashMap<&str, usize> {
    let mut index = HashMap::with_capacity(cases.len());
    for (i, c) in cases.iter().enumerate() {
        index.entry(c.case_id.as_str()).or_insert(i);
    }
    index
}

/// Group trajectories by model (sorted by name) and place them on the cases.
pub(crate) fn group_by_model<'a>(
    case_count: usize,
    index: &HashMap<&str, usize>,
    trajectories: &'a [Trajectory],
) -> Vec<ModelRuns<'a>> {
    let mut runs: Vec<ModelRuns<'a>> = Vec::new();
    let mut slot_of: HashMap<&'a str, usize> = HashMap::new();
    // Files usually hold one model's trajectories together: skip the lookup while it repeats.
    let mut last: Option<(&'a str, usize)> = None;
    for t in trajectories {
        let slot = match last {
            Some((model, slot)) if model == t.model => slot,
            _ => {
                let slot = *slot_of.entry(t.model.as_str()).or_insert_with(|| {
                    runs.push(ModelRuns::new(&t.model, case_count));
                    runs.len() - 1
                });
                last = Some((&t.model, slot));
                slot
            }
        };
        match index.get(t.case_id.as_str()) {
            Some(&case) => runs[slot].by_case[case].push((repeat_index(t), t)),
            None => runs[slot].unknown_case += 1,
        }
    }
    for run in &mut runs {
        run.settle_repeats();
    }
    runs.sort_by(|a, b| a.model.cmp(b.model));
    runs
}

/// The main outcome per case: the trajectory with the smallest repeat index, or the default.
pub(crate) fn primary_outcomes(golds: &[GoldCase], runs: &ModelRuns) -> Vec<Outcome> {
    golds
        .iter()
        .zip(&runs.by_case)
        .map(|(gold, ts)| ts.first().map(|&(_, t)| Outcome::from_trajectory(gold, t)).unwrap_or_default())
        .collect()
}
