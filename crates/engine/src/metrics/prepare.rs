//! One pass over the inputs: the gold side of every case, and for each model the per-case
//! outcome of each of its trajectories. Everything downstream works on these small arrays only.
//!
//! A trajectory is reduced to its [`Outcome`] as soon as it is read (from a decoded
//! `Trajectory` or straight from a JSONL line, through the same [`TrajectoryFacts`]), by
//! [`OutcomeSink`]s that can run on parallel threads; [`group_by_model`] then places the
//! outcomes on the case list, model by model.

use std::collections::HashMap;

use super::prf::{set_counts, sorted_set, Counts};
use crate::case::{Case, CaseType, Verdict};
use crate::trajectory::facts::TrajectoryFacts;
use crate::trajectory::io::FactsSink;

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
    /// Position of `clause_id` in [`Golds::clause_ids`].
    pub clause_slot: usize,
}

impl<'a> GoldCase<'a> {
    fn from_case(case: &'a Case) -> Self {
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
            clause_slot: 0,
        }
    }

    /// K_i: the number of distinct boundary conditions on the card.
    pub fn condition_count(&self) -> u64 {
        self.conditions.len() as u64
    }
}

/// The gold side of all cases, and how to find a case by id.
pub(crate) struct Golds<'a> {
    pub cases: Vec<GoldCase<'a>>,
    /// The distinct clause ids, sorted.
    pub clause_ids: Vec<&'a str>,
    ids: Vec<&'a str>,
    /// Index of each case id (the first case wins if ids repeat).
    index: HashMap<&'a str, usize>,
    /// Whether case `i` is the first one with its id (the one `index` gives).
    first_with_id: Vec<bool>,
}

impl<'a> Golds<'a> {
    pub fn new(cases: &'a [Case]) -> Self {
        let mut golds: Vec<GoldCase<'a>> = cases.iter().map(GoldCase::from_case).collect();
        let mut clause_ids: Vec<&'a str> = golds.iter().map(|g| g.clause_id).collect();
        clause_ids.sort_unstable();
        clause_ids.dedup();
        for g in &mut golds {
            g.clause_slot = clause_ids.binary_search(&g.clause_id).unwrap_or(0);
        }
        let mut index = HashMap::with_capacity(cases.len());
        let first_with_id =
            cases.iter().enumerate().map(|(i, c)| *index.entry(c.case_id.as_str()).or_insert(i) == i).collect();
        Golds {
            cases: golds,
            clause_ids,
            ids: cases.iter().map(|c| c.case_id.as_str()).collect(),
            index,
            first_with_id,
        }
    }

    /// The case with this id. `hint` is where the previous lookup of the same reader ended:
    /// trajectory files usually follow the case order, so the next case is tried before hashing.
    fn find(&self, id: &str, hint: &mut usize) -> Option<usize> {
        let guess = *hint;
        let found = if guess < self.ids.len() && self.ids[guess] == id && self.first_with_id[guess] {
            Some(guess)
        } else {
            self.index.get(id).copied()
        };
        if let Some(i) = found {
            *hint = i + 1;
        }
        found
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
    /// The answer is correct with a rationale and conditions to hit, but no usable judgement
    /// exists (no judge result, or one recording a judge failure): |H_i| is 0 by definition,
    /// and the report counts these so the zero is never silent.
    pub unjudged: bool,
    /// Number of ASK actions (aᵢ = asks > 0).
    pub asks: u64,
    /// Ê′ against E′*.
    pub slots: Counts,
    pub completion_tokens: u64,
}

impl Outcome {
    /// Score one trajectory against its case.
    pub fn from_facts(gold: &GoldCase, t: &TrajectoryFacts) -> Self {
        let clause_match = match (gold.clause, t.clause.as_deref()) {
            (Some(g), Some(p)) => g == p,
            _ => false,
        };
        // |H_i| is 0 when the rationale is empty or missing (such rationales never reach the
        // judge) or when there is no judge result.
        let hits = if t.has_rationale && t.judged { set_counts(&gold.conditions, &t.hits).tp } else { 0 };
        let unjudged = t.verdict == Some(gold.verdict)
            && t.has_rationale
            && !gold.conditions.is_empty()
            && (!t.judged || t.judge_failed);
        Outcome {
            present: true,
            verdict: t.verdict,
            clause_match,
            evidence: set_counts(&gold.evidence, &t.evidence),
            hits,
            unjudged,
            asks: t.asks,
            slots: set_counts(&gold.masked, &t.recovered),
            completion_tokens: t.completion_tokens,
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

/// One trajectory, reduced: its model (a position in the sink's model list), its case (None
/// when the case id is unknown), its repeat index and its outcome.
struct Scored {
    model: usize,
    case: Option<usize>,
    repeat: u64,
    outcome: Outcome,
}

/// Scores the trajectories of one part of the input as they are read.
pub(crate) struct OutcomeSink<'g, 'a> {
    golds: &'g Golds<'a>,
    models: Vec<String>,
    /// The model of the previous trajectory (files usually hold one model's trajectories together).
    last_model: usize,
    case_hint: usize,
    scored: Vec<Scored>,
}

impl<'g, 'a> OutcomeSink<'g, 'a> {
    pub fn new(golds: &'g Golds<'a>) -> Self {
        OutcomeSink { golds, models: Vec::new(), last_model: 0, case_hint: 0, scored: Vec::new() }
    }

    fn model_slot(&mut self, model: &str) -> usize {
        if self.models.get(self.last_model).is_some_and(|m| m == model) {
            return self.last_model;
        }
        let slot = match self.models.iter().position(|m| m == model) {
            Some(slot) => slot,
            None => {
                self.models.push(model.to_string());
                self.models.len() - 1
            }
        };
        self.last_model = slot;
        slot
    }
}

impl FactsSink for OutcomeSink<'_, '_> {
    fn add(&mut self, t: &TrajectoryFacts<'_>) {
        let model = self.model_slot(&t.model);
        let case = self.golds.find(&t.case_id, &mut self.case_hint);
        let outcome = case.map(|i| Outcome::from_facts(&self.golds.cases[i], t)).unwrap_or_default();
        self.scored.push(Scored { model, case, repeat: t.repeat, outcome });
    }
}

/// The trajectories of one model for one case: one per distinct repeat index, smallest first.
#[derive(Debug, Clone, Default)]
pub(crate) enum Repeats {
    #[default]
    None,
    /// (repeat index, outcome).
    One(u64, Outcome),
    /// (repeat index, outcome) each; in input order until [`ModelRuns::settle_repeats`].
    Many(Vec<(u64, Outcome)>),
}

impl Repeats {
    pub fn len(&self) -> usize {
        match self {
            Repeats::None => 0,
            Repeats::One(..) => 1,
            Repeats::Many(v) => v.len(),
        }
    }

    /// The main outcome: the trajectory with the smallest repeat index, or the default.
    pub fn primary(&self) -> Outcome {
        match self {
            Repeats::None => Outcome::default(),
            Repeats::One(_, o) => *o,
            Repeats::Many(v) => v.first().map(|(_, o)| *o).unwrap_or_default(),
        }
    }

    /// The outcomes in repeat order.
    pub fn outcomes(&self) -> impl Iterator<Item = &Outcome> {
        let (one, many) = match self {
            Repeats::None => (None, &[][..]),
            Repeats::One(_, o) => (Some(o), &[][..]),
            Repeats::Many(v) => (None, v.as_slice()),
        };
        one.into_iter().chain(many.iter().map(|(_, o)| o))
    }
}

/// One model's trajectories, placed on the case list.
#[derive(Debug, Clone)]
pub(crate) struct ModelRuns {
    pub model: String,
    pub by_case: Vec<Repeats>,
    /// Trajectories whose case_id is not among the cases.
    pub unknown_case: u64,
    /// Trajectories repeating an already-seen (case, repeat index); the first one is kept.
    pub duplicates: u64,
}

impl ModelRuns {
    fn new(model: String, case_count: usize) -> Self {
        ModelRuns { model, by_case: vec![Repeats::None; case_count], unknown_case: 0, duplicates: 0 }
    }

    fn place(&mut self, case: usize, repeat: u64, outcome: Outcome) {
        let slot = &mut self.by_case[case];
        match slot {
            Repeats::None => *slot = Repeats::One(repeat, outcome),
            Repeats::One(k, first) => *slot = Repeats::Many(vec![(*k, *first), (repeat, outcome)]),
            Repeats::Many(v) => v.push((repeat, outcome)),
        }
    }

    /// Order each case's repeats by index and drop repeated (case, repeat) pairs. The sort is
    /// stable, so of two trajectories with the same repeat index the first in input order stays.
    fn settle_repeats(&mut self) {
        for repeats in &mut self.by_case {
            if let Repeats::Many(v) = repeats {
                v.sort_by_key(|&(k, _)| k);
                let before = v.len();
                v.dedup_by_key(|&mut (k, _)| k);
                self.duplicates += (before - v.len()) as u64;
            }
        }
    }
}

/// Group the sinks' outcomes by model (sorted by name) and place them on the cases. Sinks are
/// given in input order, so "first in input order" keeps its meaning across parts.
pub(crate) fn group_by_model(case_count: usize, sinks: Vec<OutcomeSink>) -> Vec<ModelRuns> {
    let mut runs: Vec<ModelRuns> = Vec::new();
    let mut slot_of: HashMap<String, usize> = HashMap::new();
    for sink in sinks {
        let global: Vec<usize> = sink
            .models
            .into_iter()
            .map(|m| {
                *slot_of.entry(m).or_insert_with_key(|m| {
                    runs.push(ModelRuns::new(m.clone(), case_count));
                    runs.len() - 1
                })
            })
            .collect();
        for s in sink.scored {
            let run = &mut runs[global[s.model]];
            match s.case {
                Some(case) => run.place(case, s.repeat, s.outcome),
                None => run.unknown_case += 1,
            }
        }
    }
    for run in &mut runs {
        run.settle_repeats();
    }
    runs.sort_by(|a, b| a.model.cmp(&b.model));
    runs
}

/// The repeat index of a trajectory (see [`crate::trajectory::Trajectory::repeat_index`]).
#[cfg(test)]
pub(crate) fn repeat_index(t: &crate::trajectory::Trajectory) -> u64 {
    t.repeat_index()
}
