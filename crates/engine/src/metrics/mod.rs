//! Metrics M1–M8 exactly as the paper's appendix "Metric Definitions", per case type, behaviour
//! profiles, token use, bootstrap confidence intervals, paired McNemar tests and repeat
//! consistency. Pure computation over cases and trajectories: works on files with no database.
//!
//! The inputs are read once: every case becomes a [`prepare::GoldCase`] and every (model, case)
//! pair an [`prepare::Outcome`]; all metrics, the bootstrap and the paired tests then work on
//! those small per-case arrays. Models are scored on parallel threads.

pub mod per_clause;
mod bootstrap;
mod consistency;
mod paired;
mod prepare;
mod prf;
pub mod report;
pub mod synthetic;
mod tally;

#[cfg(test)]
mod tests;

use crate::case::{Case, CaseType};
use crate::trajectory::Trajectory;
pub use paired::{chi_square_corrected, exact_p_value};
pub use report::*;
pub use synthetic::synthetic_benchmark;

use paired::Correctness;
use prepare::{GoldCase, ModelRuns, Outcome};
use tally::{BehaviorTally, ClauseTally, Tally, TokenTally};

/// Settings for the statistics that need them.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsOptions {
    /// Bootstrap resamples for the confidence intervals (0 turns them off).
    pub bootstrap_resamples: u32,
    pub seed: u64,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        MetricsOptions { bootstrap_resamples: 1000, seed: 20261122 }
    }
}

/// Compute the report: one entry per model found in `trajectories` (grouped by `model`, sorted by
/// name), scored against `cases`.
pub fn compute(cases: &[Case], trajectories: &[Trajectory], opts: &MetricsOptions) -> MetricsReport {
    let golds: Vec<GoldCase> = cases.iter().map(GoldCase::from_case).collect();
    let index = prepare::case_index(cases);
    let runs = prepare::group_by_model(cases.len(), &index, trajectories);
    let (models, correctness): (Vec<ModelMetrics>, Vec<Correctness>) =
        parallel_map(&runs, |r| score_model(&golds, r, opts)).into_iter().unzip();
    MetricsReport { models, paired_tests: paired::all_pairs(&correctness) }
}

/// Trajectories of one model that `compute` leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredTrajectories {
    pub model: String,
    /// Their case_id is not among the cases.
    pub unknown_case: u64,
    /// They repeat a (case, repeat index) already seen for the model; the first one in input
    /// order is the one scored.
    pub duplicates: u64,
}

/// Per model (sorted by name), the trajectories `compute` ignores; models with none are omitted.
pub fn ignored_trajectories(cases: &[Case], trajectories: &[Trajectory]) -> Vec<IgnoredTrajectories> {
    let index = prepare::case_index(cases);
    prepare::group_by_model(cases.len(), &index, trajectories)
        .into_iter()
        .filter(|r| r.unknown_case + r.duplicates > 0)
        .map(|r| IgnoredTrajectories {
            model: r.model.to_string(),
            unknown_case: r.unknown_case,
            duplicates: r.duplicates,
        })
        .collect()
}

/// Everything about one model: its report entry and its per-case correctness for the paired tests.
fn score_model<'a>(golds: &[GoldCase], runs: &ModelRuns<'a>, opts: &MetricsOptions) -> (ModelMetrics, Correctness<'a>) {
    let outcomes = prepare::primary_outcomes(golds, runs);
    let sums = Sums::over(golds, &outcomes);
    let codes: Vec<u8> = golds.iter().zip(&outcomes).map(|(g, o)| bootstrap::case_code(g, o)).collect();
    let metrics = ModelMetrics {
        model: runs.model.to_string(),
        cases: sums.all.cases,
        m1: sums.all.m1(),
        m2: sums.all.m2(),
        m3: sums.all.m3(),
        m4: sums.all.m4(),
        m5: sums.all.m5(),
        m6: sums.all.m6(),
        m7: sums.all.m7(),
        m8: sums.all.m8(),
        by_case_type: ByCaseType {
            complete: sums.strata[0].stratum(),
            missing: sums.strata[1].stratum(),
            uncertain: sums.strata[2].stratum(),
        },
        behavior: sums.behavior.behavior(),
        tokens: sums.tokens.tokens(),
        trajectories: sums.tokens.with_trajectory,
        no_verdict: sums.tokens.no_verdict,
        confidence_intervals: bootstrap::confidence_intervals(&codes, runs.model, opts.bootstrap_resamples, opts.seed),
        consistency: consistency::consistency(golds, runs),
        by_clause: sums.clauses.rows(),
        uncertain_routing_counts: sums.behavior.routing_counts(),
    };
    let per_case = golds.iter().zip(&outcomes).map(|(g, o)| o.present.then(|| o.correct(g))).collect();
    (metrics, Correctness { model: runs.model, per_case })
}

/// All accumulators of one model, filled in a single pass over the cases.
#[derive(Default)]
struct Sums<'a> {
    all: Tally,
    /// Complete, missing, uncertain (the order of `CaseType::ALL`).
    strata: [Tally; 3],
    behavior: BehaviorTally,
    tokens: TokenTally,
    clauses: ClauseTally<'a>,
}

impl<'a> Sums<'a> {
    fn over(golds: &[GoldCase<'a>], outcomes: &[Outcome]) -> Self {
        let mut s = Sums::default();
        for (g, o) in golds.iter().zip(outcomes) {
            s.all.add(g, o);
            s.strata[stratum_slot(g.case_type)].add(g, o);
            s.behavior.add(g, o);
            s.tokens.add(o);
            s.clauses.add(g, o);
        }
        s
    }
}

fn stratum_slot(t: CaseType) -> usize {
    match t {
        CaseType::Complete => 0,
        CaseType::Missing => 1,
        CaseType::Uncertain => 2,
    }
}

/// Map `f` over `items` on up to `available_parallelism` scoped threads, keeping the order.
/// Results do not depend on the number of threads.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(workers);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}
