//! Accumulators that turn per-case outcomes into M1–M8, the case-type strata, the behaviour
//! profile, token use and per-clause accuracy. One `add` per case; no re-scanning.

use indexmap::IndexMap;

use super::prepare::{GoldCase, Outcome};
use super::prf::{share, Counts};
use super::report::{Behavior, CaseTypeMetrics, ClauseAccuracy, Prf, Tokens};
use crate::case::{CaseType, Verdict};

/// Sums behind M1–M8 over a set of cases.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    pub cases: u64,
    pub correct: u64,
    /// |R| and the clause matches in R (M2).
    clause_subset: u64,
    clause_correct: u64,
    /// |E| and the pooled citation counts (M3).
    evidence_subset: u64,
    evidence: Counts,
    /// Σ|H_i| and ΣK_i over H (M4).
    hits: u64,
    conditions: u64,
    /// Cases in H whose answer has no usable judgement (their |H_i| counts as 0).
    pub unjudged: u64,
    /// M5, M7, M8: binary decisions over every case.
    missing_detection: Counts,
    uncertain_detection: Counts,
    reportable_detection: Counts,
    /// |S| and the pooled slot counts (M6).
    slot_subset: u64,
    slots: Counts,
}

impl Tally {
    pub fn add(&mut self, gold: &GoldCase, o: &Outcome) {
        let correct = o.correct(gold);
        self.cases += 1;
        self.correct += u64::from(correct);
        if gold.verdict == Verdict::Reportable && o.verdict == Some(Verdict::Reportable) {
            self.clause_subset += 1;
            self.clause_correct += u64::from(o.clause_match);
        }
        if correct && !gold.evidence.is_empty() {
            self.evidence_subset += 1;
            self.evidence.add(o.evidence);
        }
        if correct && gold.condition_count() > 0 {
            self.hits += o.hits;
            self.conditions += gold.condition_count();
            self.unjudged += u64::from(o.unjudged);
        }
        let missing = gold.case_type == CaseType::Missing;
        self.missing_detection.add_decision(missing, o.asked());
        if missing && o.asked() && !gold.masked.is_empty() {
            self.slot_subset += 1;
            self.slots.add(o.slots);
        }
        self.uncertain_detection
            .add_decision(gold.case_type == CaseType::Uncertain, o.verdict == Some(Verdict::Uncertain));
        self.reportable_detection
            .add_decision(gold.verdict == Verdict::Reportable, o.verdict == Some(Verdict::Reportable));
    }

    pub fn m1(&self) -> Option<f64> {
        share(self.correct, self.cases)
    }
    pub fn m2(&self) -> Option<f64> {
        share(self.clause_correct, self.clause_subset)
    }
    pub fn m3(&self) -> Option<Prf> {
        (self.evidence_subset > 0).then(|| self.evidence.prf())
    }
    pub fn m4(&self) -> Option<f64> {
        // ΣK_i > 0 exactly when H is non-empty, since every case in H has K_i > 0.
        share(self.hits, self.conditions)
    }
    pub fn m5(&self) -> Option<Prf> {
        self.over_all_cases(self.missing_detection)
    }
    pub fn m6(&self) -> Option<Prf> {
        (self.slot_subset > 0).then(|| self.slots.prf())
    }
    pub fn m7(&self) -> Option<Prf> {
        self.over_all_cases(self.uncertain_detection)
    }
    pub fn m8(&self) -> Option<Prf> {
        self.over_all_cases(self.reportable_detection)
    }

    fn over_all_cases(&self, counts: Counts) -> Option<Prf> {
        (self.cases > 0).then(|| counts.prf())
    }

    /// The by-case-type view of this tally.
    pub fn stratum(&self) -> CaseTypeMetrics {
        CaseTypeMetrics { cases: self.cases, m1: self.m1(), m3: self.m3(), m4: self.m4() }
    }
}

/// Keys of the uncertain-routing maps, in report order.
pub(crate) const ROUTING_KEYS: [&str; 4] = ["Uncertain", "Reportable", "Non-reportable", "none"];
/// Keys of the ASK-count histogram, in report order.
pub(crate) const ASK_BUCKETS: [&str; 5] = ["0", "1", "2", "3", "4+"];

/// Behaviour on missing and uncertain cases.
#[derive(Debug, Clone, Default)]
pub(crate) struct BehaviorTally {
    missing_cases: u64,
    missing_no_ask: u64,
    ask_buckets: [u64; 5],
    missing_asks: u64,
    uncertain_cases: u64,
    routing: [u64; 4],
}

impl BehaviorTally {
    pub fn add(&mut self, gold: &GoldCase, o: &Outcome) {
        match gold.case_type {
            CaseType::Missing => {
                self.missing_cases += 1;
                self.missing_no_ask += u64::from(!o.asked());
                self.ask_buckets[o.asks.min(4) as usize] += 1;
                self.missing_asks += o.asks;
            }
            CaseType::Uncertain => {
                self.uncertain_cases += 1;
                self.routing[routing_slot(o.verdict)] += 1;
            }
            CaseType::Complete => {}
        }
    }

    pub fn behavior(&self) -> Behavior {
        let m = self.missing_cases;
        let u = self.uncertain_cases;
        Behavior {
            missing_no_ask_pct: share(self.missing_no_ask, m),
            uncertain_routing_pct: (u > 0).then(|| pct_map(&ROUTING_KEYS, &self.routing, u)),
            missing_ask_count_pct: (m > 0).then(|| pct_map(&ASK_BUCKETS, &self.ask_buckets, m)),
            missing_avg_asks: (m > 0).then(|| self.missing_asks as f64 / m as f64),
        }
    }

    /// The routing as counts (null when there are no uncertain cases).
    pub fn routing_counts(&self) -> Option<IndexMap<String, u64>> {
        (self.uncertain_cases > 0)
            .then(|| ROUTING_KEYS.iter().zip(self.routing).map(|(k, n)| (k.to_string(), n)).collect())
    }
}

/// Position of a predicted verdict among `ROUTING_KEYS`.
fn routing_slot(v: Option<Verdict>) -> usize {
    match v {
        Some(Verdict::Uncertain) => 0,
        Some(Verdict::Reportable) => 1,
        Some(Verdict::NonReportable) => 2,
        None => 3,
    }
}

fn pct_map(keys: &[&str], counts: &[u64], total: u64) -> IndexMap<String, f64> {
    keys.iter().zip(counts).map(|(k, &n)| (k.to_string(), 100.0 * n as f64 / total as f64)).collect()
}

/// Mean completion tokens over the cases that have a trajectory.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenTally {
    pub with_trajectory: u64,
    pub no_verdict: u64,
    completion: u64,
}

impl TokenTally {
    pub fn add(&mut self, o: &Outcome) {
        self.no_verdict += u64::from(o.verdict.is_none());
        if o.present {
            self.with_trajectory += 1;
            self.completion += o.completion_tokens;
        }
    }

    pub fn tokens(&self) -> Tokens {
        let n = self.with_trajectory;
        Tokens { avg_completion_tokens: (n > 0).then(|| self.completion as f64 / n as f64) }
    }
}

/// M1 per clause_id, listed in clause_id order: (cases, correct) per position in the sorted
/// list of distinct clause ids.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClauseTally {
    by_clause: Vec<(u64, u64)>,
}

impl ClauseTally {
    pub fn new(clauses: usize) -> Self {
        ClauseTally { by_clause: vec![(0, 0); clauses] }
    }

    pub fn add(&mut self, gold: &GoldCase, o: &Outcome) {
        if let Some(entry) = self.by_clause.get_mut(gold.clause_slot) {
            entry.0 += 1;
            entry.1 += u64::from(o.correct(gold));
        }
    }

    /// One row per clause id that has cases; `clause_ids` is the sorted list the slots refer to.
    pub fn rows(&self, clause_ids: &[&str]) -> Vec<ClauseAccuracy> {
        clause_ids
            .iter()
            .zip(&self.by_clause)
            .filter(|(_, &(cases, _))| cases > 0)
            .map(|(id, &(cases, correct))| ClauseAccuracy {
                clause_id: id.to_string(),
                cases,
                m1: share(correct, cases),
            })
            .collect()
    }
}
