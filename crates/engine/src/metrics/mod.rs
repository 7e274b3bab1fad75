//! Metrics M1–M8 exactly as the paper's appendix "Metric Definitions", per case type, behaviour
//! profiles, token use, bootstrap confidence intervals, paired McNemar tests and repeat
//! consistency. Pure computation over cases and trajectories: works on files with no database.
//!
//! The inputs are read once: every case becomes a [`prepare::GoldCase`] and every trajectory an
//! [`prepare::Outcome`] as soon as it is read (trajectories from a JSONL file are never kept
//! whole); all metrics, the bootstrap and the paired tests then work on those small per-case
//! arrays. Files are read and models scored on parallel threads.

mod bootstrap;
mod consistency;
mod paired;
pub mod per_clause;
mod prepare;
mod prf;
pub mod report;
pub mod synthetic;
mod tally;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::case::{Case, CaseType};
use crate::error::ApiResult;
use crate::trajectory::facts::TrajectoryFacts;
use crate::trajectory::io::FactsSink;
use crate::trajectory::Trajectory;
pub use paired::{chi_square_corrected, exact_p_value};
pub use report::*;
pub use synthetic::synthetic_benchmark;

use paired::Correctness;
pub(crate) use prepare::Golds;
use prepare::{ModelRuns, Outcome, OutcomeSink, Repeats};
use tally::{BehaviorTally, ClauseTally, Tally, TokenTally};

/// Settings for the statistics that need them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    let golds = Golds::new(cases);
    report_from_runs(&golds, &runs_of(&golds, trajectories), opts)
}

/// The report of [`compute`] for a trajectories JSONL file, and the trajectories it leaves out,
/// without keeping the trajectories in memory: each line is checked exactly as
/// [`crate::trajectory::io::read_trajectories`] checks it (the first bad line is an error with
/// the same message), then reduced at once to what the metrics read.
pub fn compute_from_jsonl(cases: &[Case], trajectories: &Path, opts: &MetricsOptions) -> ApiResult<FileMetrics> {
    let golds = Golds::new(cases);
    let runs = read_runs(&golds, trajectories)?;
    Ok(FileMetrics { report: report_from_runs(&golds, &runs, opts), ignored: ignored_of(&runs) })
}

/// The two halves of [`compute_from_jsonl`] apart, for the metrics benchmark (`psebench bench
/// metrics`), which times them one by one: a trajectories file read into per-case outcomes against
/// the cases, then scored.
pub struct FileRuns<'a> {
    golds: Golds<'a>,
    runs: Vec<ModelRuns>,
}

impl<'a> FileRuns<'a> {
    /// Read `trajectories` against `cases` as [`compute_from_jsonl`] does.
    pub fn read(cases: &'a [Case], trajectories: &Path) -> ApiResult<FileRuns<'a>> {
        let golds = Golds::new(cases);
        let runs = read_runs(&golds, trajectories)?;
        Ok(FileRuns { golds, runs })
    }

    /// The report of [`compute_from_jsonl`] from what was read.
    pub fn report(&self, opts: &MetricsOptions) -> MetricsReport {
        report_from_runs(&self.golds, &self.runs, opts)
    }
}

/// What [`compute_from_jsonl`] gives.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FileMetrics {
    pub report: MetricsReport,
    /// As [`ignored_trajectories`] would list them.
    pub ignored: Vec<IgnoredTrajectories>,
}

/// Reduce decoded trajectories to per-case outcomes, model by model, on parallel threads.
fn runs_of(golds: &Golds, trajectories: &[Trajectory]) -> Vec<ModelRuns> {
    let parts: Vec<&[Trajectory]> = trajectories.chunks(trajectories.len().div_ceil(worker_count()).max(1)).collect();
    let sinks = parallel_map(&parts, |part| {
        let mut sink = OutcomeSink::new(golds);
        let mut facts = TrajectoryFacts::default();
        for t in *part {
            facts.fill_from(t);
            sink.add(&facts);
        }
        sink
    });
    prepare::group_by_model(golds.cases.len(), sinks)
}

/// Read a trajectories JSONL file straight into per-case outcomes, model by model.
pub(crate) fn read_runs(golds: &Golds, path: &Path) -> ApiResult<Vec<ModelRuns>> {
    let sinks = crate::trajectory::io::read_trajectory_facts(path, || OutcomeSink::new(golds))?;
    Ok(prepare::group_by_model(golds.cases.len(), sinks))
}

/// The report from per-case outcomes.
pub(crate) fn report_from_runs(golds: &Golds, runs: &[ModelRuns], opts: &MetricsOptions) -> MetricsReport {
    let (models, correctness): (Vec<ModelMetrics>, Vec<Correctness>) =
        parallel_map(runs, |r| score_model(golds, r, opts)).into_iter().unzip();
    MetricsReport { models, paired_tests: paired::all_pairs(&correctness), ..Default::default() }
}

/// Trajectories of one model that `compute` leaves out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    ignored_of(&runs_of(&Golds::new(cases), trajectories))
}

fn ignored_of(runs: &[ModelRuns]) -> Vec<IgnoredTrajectories> {
    runs.iter()
        .filter(|r| r.unknown_case + r.duplicates > 0)
        .map(|r| IgnoredTrajectories { model: r.model.clone(), unknown_case: r.unknown_case, duplicates: r.duplicates })
        .collect()
}

/// Everything about one model: its report entry and its per-case correctness for the paired tests.
fn score_model<'r>(golds: &Golds, runs: &'r ModelRuns, opts: &MetricsOptions) -> (ModelMetrics, Correctness<'r>) {
    let outcomes: Vec<Outcome> = runs.by_case.iter().map(Repeats::primary).collect();
    let sums = Sums::over(golds, &outcomes);
    let codes: Vec<u8> = golds.cases.iter().zip(&outcomes).map(|(g, o)| bootstrap::case_code(g, o)).collect();
    let metrics = ModelMetrics {
        model: runs.model.clone(),
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
        m4_unjudged: sums.all.unjudged,
        no_verdict: sums.tokens.no_verdict,
        confidence_intervals: bootstrap::confidence_intervals(&codes, &runs.model, opts.bootstrap_resamples, opts.seed),
        consistency: consistency::consistency(&golds.cases, runs),
        by_clause: sums.clauses.rows(&golds.clause_ids),
        uncertain_routing_counts: sums.behavior.routing_counts(),
    };
    let per_case = golds.cases.iter().zip(&outcomes).map(|(g, o)| o.present.then(|| o.correct(g))).collect();
    (metrics, Correctness { model: &runs.model, per_case })
}

/// All accumulators of one model, filled in a single pass over the cases.
struct Sums {
    all: Tally,
    /// Complete, missing, uncertain (the order of `CaseType::ALL`).
    strata: [Tally; 3],
    behavior: BehaviorTally,
    tokens: TokenTally,
    clauses: ClauseTally,
}

impl Sums {
    fn over(golds: &Golds, outcomes: &[Outcome]) -> Self {
        let mut s = Sums {
            all: Tally::default(),
            strata: Default::default(),
            behavior: BehaviorTally::default(),
            tokens: TokenTally::default(),
            clauses: ClauseTally::new(golds.clause_ids.len()),
        };
        for (g, o) in golds.cases.iter().zip(outcomes) {
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

fn worker_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Map `f` over `items` on up to `available_parallelism` scoped threads, keeping the order.
/// Results do not depend on the number of threads.
fn parallel_map<'t, T: Sync, R: Send>(items: &'t [T], f: impl Fn(&'t T) -> R + Sync) -> Vec<R> {
    let workers = worker_count().min(items.len());
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
