//! Report files: the paper's tables (CSV, Markdown, LaTeX) and charts (SVG, PNG) of evaluation
//! runs, and the generation and card-library statistics, written into a folder. This module sits
//! above `tables`, `charts` and the pipelines, so none of them writes report files itself.

pub mod dataset;
pub mod generation;
pub mod report;

use std::path::Path;

use crate::context::Engine;
use crate::error::ApiResult;
use crate::metrics::{MetricsOptions, MetricsReport};
use crate::policy::repo as policy_repo;

pub use generation::{generation_tables, library_tables, write_generation_files};
pub use report::write_report_files;

impl Engine {
    /// Tables and charts of stored runs written to `out` (returns the report and the files).
    pub fn report_for_runs(
        &self,
        run_ids: &[String],
        out: &Path,
    ) -> ApiResult<(MetricsReport, Vec<std::path::PathBuf>)> {
        let (cases, trajectories) = self.runs_for_metrics(run_ids)?;
        let policy = cases.first().map(|c| c.policy.clone()).unwrap_or_else(|| crate::policy::DEFAULT_POLICY.into());
        let pack = self.store().with_conn(|c| policy_repo::load_pack(c, &policy))?;
        let mut report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
        self.compare_runs_in(run_ids, &mut report)?;
        let files = report::write_report_files(&report, &pack, out)?;
        Ok((report, files))
    }

    /// Write the generation tables of a run and/or the card-library tables (CSV, Markdown, LaTeX,
    /// JSON and a `generation.md` index) into `out`. The library tables describe the policy of
    /// the run (or `library_policy` when no run is given).
    pub fn generation_report_files(
        &self,
        run_id: Option<&str>,
        library_policy: Option<&str>,
        approved_only: bool,
        out: &std::path::Path,
    ) -> ApiResult<Vec<std::path::PathBuf>> {
        let gen = match run_id {
            Some(r) => Some(self.generation_stats(r)?),
            None => None,
        };
        let lib = match (library_policy, &gen) {
            (Some(p), _) => Some(self.library_stats(p, approved_only)?),
            (None, Some(g)) => Some(self.library_stats(&g.policy, approved_only)?),
            (None, None) => None,
        };
        generation::write_generation_files(gen.as_ref(), lib.as_ref(), out)
    }
}

/// What `psebench report` writes: evaluation results (stored runs, or a cases file with a
/// trajectories file) and/or the generation and card-library statistics, into one folder.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReportRequest {
    /// Stored evaluation runs to report on (one model per run).
    #[serde(default)]
    pub run_ids: Vec<String>,
    /// Cases JSONL (file mode, with `trajectories`).
    #[serde(default)]
    pub cases: Option<std::path::PathBuf>,
    /// Trajectories JSONL (file mode, with `cases`).
    #[serde(default)]
    pub trajectories: Option<std::path::PathBuf>,
    /// Also write the statistics tables of this generation run (and of its card library).
    #[serde(default)]
    pub generation: Option<String>,
    /// Also write the card-library tables.
    #[serde(default)]
    pub library: bool,
    /// Policy of the card-library tables (default: the generation run's, else the default policy).
    #[serde(default)]
    pub policy: Option<String>,
    /// Count every current card in the library tables, not only approved ones.
    #[serde(default)]
    pub all_cards: bool,
    /// The folder to write into.
    pub out: std::path::PathBuf,
}

/// The files a report wrote: the evaluation files first, then the generation ones.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReportWritten {
    pub files: Vec<std::path::PathBuf>,
    /// Models with results, when evaluation results were asked for (None: statistics only).
    pub models: Option<usize>,
    /// Whether the stored runs reported on can be compared (None for files and statistics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparability: Option<crate::protocol::Comparability>,
}

/// The policy pack the cases were written under (the first case's; the default when there are none).
fn policy_of(cases: &[crate::case::Case]) -> ApiResult<String> {
    let Some(first) = cases.first() else {
        return Ok(crate::policy::DEFAULT_POLICY.to_string());
    };
    if let Some(other) = cases.iter().find(|c| c.policy != first.policy) {
        return Err(crate::error::ApiError::invalid(format!(
            "The cases mix policies ({} and {}, e.g. case {}). Report on one policy at a time.",
            first.policy, other.policy, other.case_id
        )));
    }
    Ok(first.policy.clone())
}

impl Engine {
    /// `psebench metrics --cases --trajectories`: score a trajectories file against a cases file
    /// (read with every stored policy pack), without keeping the trajectories in memory.
    pub fn metrics_files(
        &self,
        cases: &Path,
        trajectories: &Path,
        opts: &MetricsOptions,
    ) -> ApiResult<crate::metrics::FileMetrics> {
        let cases = crate::case::io::read_cases(cases, &self.vocab_lookup())?;
        crate::metrics::compute_from_jsonl(&cases, trajectories, opts)
    }

    /// Everything `psebench report` does: read the runs (or the files), score them, and write
    /// the tables and charts, plus the generation and library statistics when asked for.
    pub fn report_write(&self, req: &ReportRequest) -> ApiResult<ReportWritten> {
        let wants_eval = !req.run_ids.is_empty() || req.cases.is_some();
        let mut generation_files = Vec::new();
        if req.generation.is_some() || req.library {
            let policy = req.policy.clone().or_else(|| {
                if req.generation.is_none() {
                    Some(crate::policy::DEFAULT_POLICY.to_string())
                } else {
                    None
                }
            });
            generation_files =
                self.generation_report_files(req.generation.as_deref(), policy.as_deref(), !req.all_cards, &req.out)?;
            if !wants_eval {
                return Ok(ReportWritten { files: generation_files, models: None, comparability: None });
            }
        }
        let (report, mut files) = if !req.run_ids.is_empty() {
            self.report_for_runs(&req.run_ids, &req.out)?
        } else {
            let (Some(cases), Some(trajs)) = (&req.cases, &req.trajectories) else {
                return Err(crate::error::ApiError::invalid(
                    "Give --run RUN... or --cases FILE --trajectories FILE (evaluation results), and/or --generation RUN or --library, and --out FOLDER.",
                ));
            };
            // Any stored pack, so cases written under a user's own policy are read too.
            let cases = crate::case::io::read_cases(cases, &self.vocab_lookup())?;
            let trajectories = crate::trajectory::io::read_trajectories(trajs)?;
            let policy = policy_of(&cases)?;
            let pack = self.policy_pack(&policy).map_err(|_| {
                crate::error::ApiError::not_found(format!(
                    "The cases use the policy \"{policy}\", which is neither built into this version of psebench nor created in this store (psebench policy create)."
                ))
            })?;
            let report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
            let files = report::write_report_files(&report, &pack, &req.out)?;
            (report, files)
        };
        files.extend(generation_files);
        Ok(ReportWritten { files, models: Some(report.models.len()), comparability: report.comparability })
    }
}
