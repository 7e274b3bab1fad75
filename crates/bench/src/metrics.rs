//! Speed of scoring and reporting at the paper's scale: 5,074 cases × 15 models = 76,110
//! trajectories, from JSONL files (no database) and from the store.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

use psebench::api::Engine;
use psebench::error::ApiResult;
use psebench::metrics::{compute, synthetic_benchmark, FileRuns, MetricsOptions};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Reading cases and trajectories (files or database).
    pub load_ms: f64,
    /// M1–M8, intervals, paired tests.
    pub compute_ms: f64,
    /// Every paper table rendered as CSV, Markdown and LaTeX.
    pub tables_ms: f64,
    pub total_ms: f64,
    /// Reading and decoding the inputs into what scoring needs (for JSONL: both files read,
    /// every line checked and reduced to per-case outcomes; for the store: `load_ms`).
    pub parse_ms: f64,
    /// Scoring alone: the report without bootstrap intervals, from the decoded inputs.
    pub score_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsBench {
    pub cases: usize,
    pub models: usize,
    pub trajectories: usize,
    pub bootstrap_resamples: u32,
    pub from_jsonl: Timing,
    pub from_database: Timing,
    /// From the store, reading only what scoring needs (the Results screen's path).
    pub from_database_for_scoring: Timing,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn tables_all(report: &psebench::metrics::MetricsReport, pack: &psebench::policy::PolicyPack) -> usize {
    let mut bytes = 0;
    for t in psebench::tables::all_tables(report, pack) {
        bytes += t.to_csv().map_or(0, |c| c.len()) + t.to_markdown().len() + t.to_latex().len();
    }
    bytes
}

/// Time scoring and tables over inputs loaded since `t0`. Scoring alone (no bootstrap) is timed
/// separately, and left out of the total.
fn time_compute(
    pack: &psebench::policy::PolicyPack,
    opts: &MetricsOptions,
    t0: Instant,
    cases: &[psebench::case::Case],
    trajectories: &[psebench::trajectory::Trajectory],
) -> Timing {
    let load_ms = ms(t0);
    let t1 = Instant::now();
    std::hint::black_box(compute(cases, trajectories, &MetricsOptions { bootstrap_resamples: 0, ..opts.clone() }));
    let score_ms = ms(t1);
    let t1 = Instant::now();
    let report = compute(cases, trajectories, opts);
    let compute_ms = ms(t1);
    let t3 = Instant::now();
    std::hint::black_box(tables_all(&report, pack));
    let tables_ms = ms(t3);
    Timing { load_ms, compute_ms, tables_ms, total_ms: load_ms + compute_ms + tables_ms, parse_ms: load_ms, score_ms }
}

/// Build the synthetic set in `dir`, load it into a store there, and time both paths.
pub fn run(dir: &Path, cases: usize, models: usize) -> ApiResult<MetricsBench> {
    let (cs, ts) = synthetic_benchmark(cases, models, 1);
    let cases_path = dir.join("cases.jsonl");
    let traj_path = dir.join("trajectories.jsonl");
    psebench::case::io::write_cases(&cases_path, &cs)?;
    psebench::trajectory::io::write_trajectories(&traj_path, &ts)?;
    let pack = psebench::policy::builtin_pack(psebench::policy::DEFAULT_POLICY)
        .ok_or_else(|| psebench::error::ApiError::internal("mn29 pack missing"))?;
    let opts = MetricsOptions::default();
    let no_bootstrap = MetricsOptions { bootstrap_resamples: 0, ..opts.clone() };

    // From files, as `psebench metrics --cases --trajectories` reads them.
    let t0 = Instant::now();
    let lookup = |p: &str| psebench::policy::builtin_pack(p).map(|pk| pk.vocab(&[]));
    let c2 = psebench::case::io::read_cases(&cases_path, &lookup)?;
    let runs = FileRuns::read(&c2, &traj_path)?;
    let load_ms = ms(t0);
    let t1 = Instant::now();
    std::hint::black_box(runs.report(&no_bootstrap));
    let score_ms = ms(t1);
    let t1 = Instant::now();
    let report = runs.report(&opts);
    let compute_ms = ms(t1);
    let t3 = Instant::now();
    std::hint::black_box(tables_all(&report, &pack));
    let tables_ms = ms(t3);
    let from_jsonl = Timing {
        load_ms,
        compute_ms,
        tables_ms,
        total_ms: load_ms + compute_ms + tables_ms,
        parse_ms: load_ms,
        score_ms,
    };

    // From the store.
    let engine = Engine::open_with(
        &dir.join("bench.db"),
        psebench::api::EngineOptions {
            secrets: std::sync::Arc::new(psebench::secrets::MemoryStore::default()),
            client: Default::default(),
        },
    )?;
    engine.cases_import(&cases_path, false, "imported")?;
    let runs = engine.evaluation_import(&traj_path)?;
    let t0 = Instant::now();
    let (c3, t4) = engine.runs_for_metrics(&runs)?;
    let from_database = time_compute(&pack, &opts, t0, &c3, &t4);

    let t0 = Instant::now();
    let (c3, t4) = engine.runs_for_scoring(&runs)?;
    let from_database_for_scoring = time_compute(&pack, &opts, t0, &c3, &t4);

    Ok(MetricsBench {
        cases: cs.len(),
        models,
        trajectories: ts.len(),
        bootstrap_resamples: opts.bootstrap_resamples,
        from_jsonl,
        from_database,
        from_database_for_scoring,
    })
}

/// What `load_results` stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedResults {
    pub cases: usize,
    pub trajectories: usize,
    /// One completed run per synthetic model.
    pub run_ids: Vec<String>,
    pub load_ms: f64,
}

/// Store the synthetic set (cases and one completed run per model) in `engine`'s store, so that
/// the Results screen can be measured at the paper's scale. `dir` holds the intermediate files.
pub fn load_results(engine: &Engine, dir: &Path, cases: usize, models: usize) -> ApiResult<LoadedResults> {
    let t0 = Instant::now();
    let files = write_synthetic_files(dir, cases, models)?;
    engine.cases_import(&files.cases_path, false, "imported")?;
    let run_ids = engine.evaluation_import(&files.trajectories_path)?;
    Ok(LoadedResults { cases: files.cases, trajectories: files.trajectories, run_ids, load_ms: ms(t0) })
}

/// The synthetic result set of [`load_results`], written as a cases file and a trajectories file
/// in `dir` (for a caller that imports them itself, e.g. through the API).
pub struct SyntheticFiles {
    pub cases_path: std::path::PathBuf,
    pub trajectories_path: std::path::PathBuf,
    pub cases: usize,
    pub trajectories: usize,
}

pub fn write_synthetic_files(dir: &Path, cases: usize, models: usize) -> ApiResult<SyntheticFiles> {
    let (cs, ts) = synthetic_benchmark(cases, models, 1);
    let cases_path = dir.join("cases.jsonl");
    let trajectories_path = dir.join("trajectories.jsonl");
    psebench::case::io::write_cases(&cases_path, &cs)?;
    psebench::trajectory::io::write_trajectories(&trajectories_path, &ts)?;
    Ok(SyntheticFiles { cases_path, trajectories_path, cases: cs.len(), trajectories: ts.len() })
}
