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
        let report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
        let files = report::write_report_files(&report, &pack, out)?;
        Ok((report, files))
    }

    /// Write the generation tables of a run and/or the card-library tables (CSV, Markdown, LaTeX,
    /// JSON and a `generation.md` index) into `out`. The library tables describe the policy of
    /// the run (or `library_policy` when no run is given).
    pub fn gen_report_files(
        &self,
        run_id: Option<&str>,
        library_policy: Option<&str>,
        approved_only: bool,
        out: &std::path::Path,
    ) -> ApiResult<Vec<std::path::PathBuf>> {
        let gen = match run_id {
            Some(r) => Some(self.gen_stats(r)?),
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
