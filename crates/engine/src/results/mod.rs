//! What the Results screen shows for a set of evaluation runs: the metrics report, the paper's
//! tables, the charts as SVG, a case-by-model grid of verdicts and one trajectory as a
//! transcript. Loading runs is the slow part, so the last loaded set is kept until one of its
//! runs changes. (Downloads of a table or chart are in `api::results`.)

mod grid;
mod transcript;

pub use grid::{grid_cell_code, ResultsGrid};
pub use transcript::{RepeatOutcome, TrajectoryRequest, TrajectoryView};

use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, OnceLock};

use crate::charts::{chart_text_noted, render_svg_noted, ChartKind};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::evaluation::EvaluationRunView;
use crate::metrics::{MetricsOptions, MetricsReport};
use crate::policy::{repo as policy_repo, PolicyPack};
use crate::tables::{all_tables_noted, Table};
use grid::build_grid;

/// Which runs to show.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResultsRequest {
    pub run_ids: Vec<String>,
}

/// A chart ready to show: its words and its SVG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChartView {
    pub id: String,
    pub title: String,
    pub caption: String,
    pub svg: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ResultsOverview {
    pub runs: Vec<EvaluationRunView>,
    pub policy: String,
    pub report: MetricsReport,
    pub tables: Vec<Table>,
    pub charts: Vec<ChartView>,
}

/// Runs loaded for scoring, kept while none of them changes.
/// Only what the screens need is kept: the cases and trajectories are scored, turned into the
/// compact grid, and let go (at the paper's scale they are most of the memory).
pub(crate) struct ResultsData {
    pub report: MetricsReport,
    pub pack: PolicyPack,
    pub runs: Vec<EvaluationRunView>,
    grid: Mutex<GridState>,
    views: OnceLock<(Vec<Table>, Vec<ChartView>)>,
}

/// The grid is built on a background thread right after scoring (the leaderboard need not wait).
enum GridState {
    Building(std::thread::JoinHandle<ResultsGrid>),
    Ready(Arc<ResultsGrid>),
    Failed,
}

impl ResultsData {
    /// The paper's tables and the charts (SVG), built on first use.
    pub(crate) fn views(&self) -> ApiResult<&(Vec<Table>, Vec<ChartView>)> {
        if let Some(v) = self.views.get() {
            return Ok(v);
        }
        // Runs that are not comparable are marked on the models' names and in a note.
        let (report, notes) = self.report.marked();
        let mut charts = Vec::new();
        for kind in ChartKind::ALL {
            let text = chart_text_noted(kind, &report, &self.pack, &notes)?;
            charts.push(ChartView {
                id: text.id,
                title: text.title,
                caption: text.caption,
                svg: render_svg_noted(kind, &report, &self.pack, &notes)?,
            });
        }
        Ok(self.views.get_or_init(|| (all_tables_noted(&report, &self.pack, &notes), charts)))
    }

    /// The case-by-model grid (waits for the background build if it is still running).
    pub fn grid(&self) -> ApiResult<Arc<ResultsGrid>> {
        let mut state = self.grid.lock().unwrap_or_else(|p| p.into_inner());
        *state = match std::mem::replace(&mut *state, GridState::Failed) {
            GridState::Building(handle) => match handle.join() {
                Ok(g) => GridState::Ready(Arc::new(g)),
                Err(_) => GridState::Failed,
            },
            other => other,
        };
        match &*state {
            GridState::Ready(g) => Ok(g.clone()),
            _ => Err(ApiError::internal("the case grid could not be built")),
        }
    }
}

#[derive(Default)]
pub(crate) struct ResultsCache {
    slot: Mutex<Option<(String, Arc<ResultsData>)>>,
}

impl Engine {
    /// Forget the loaded Results data, so the next call loads the runs again (benchmarks).
    #[doc(hidden)]
    pub fn results_forget(&self) {
        *self.extension::<ResultsCache>().slot.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    pub(crate) fn results_data(&self, run_ids: &[String]) -> ApiResult<Arc<ResultsData>> {
        if run_ids.is_empty() {
            return Err(ApiError::invalid("Choose at least one evaluation run to show results for."));
        }
        let runs: Vec<EvaluationRunView> = run_ids.iter().map(|r| self.evaluation_show(r)).collect::<ApiResult<_>>()?;
        let key = runs
            .iter()
            .map(|r| {
                format!(
                    "{}:{}:{}:{}",
                    r.run.run_id,
                    r.run.status,
                    r.counts.done,
                    r.run.finished_at.as_deref().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("|");
        if let Some((k, data)) =
            self.extension::<ResultsCache>().slot.lock().unwrap_or_else(|p| p.into_inner()).as_ref()
        {
            if *k == key {
                return Ok(data.clone());
            }
        }
        let (cases, trajectories) = self.runs_for_scoring(run_ids)?;
        let policy = cases.first().map(|c| c.policy.clone()).unwrap_or_else(|| crate::policy::DEFAULT_POLICY.into());
        let pack = self.store().with_read(|c| policy_repo::load_pack(c, &policy))?;
        let mut report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
        self.compare_runs_in(run_ids, &mut report)?;
        // Build the grid, then free the loaded runs and hand the heap back, without making this
        // request wait.
        let building = std::thread::spawn(move || {
            let grid = build_grid(&cases, &trajectories);
            drop((cases, trajectories));
            crate::util::memory::return_free_memory();
            grid
        });
        let data = Arc::new(ResultsData {
            report,
            pack,
            runs,
            grid: Mutex::new(GridState::Building(building)),
            views: OnceLock::new(),
        });
        *self.extension::<ResultsCache>().slot.lock().unwrap_or_else(|p| p.into_inner()) = Some((key, data.clone()));
        Ok(data)
    }

    /// Metrics, the paper's tables and every chart for a set of runs.
    pub fn results_overview(&self, req: &ResultsRequest) -> ApiResult<ResultsOverview> {
        let d = self.results_data(&req.run_ids)?;
        let (tables, charts) = d.views()?;
        Ok(ResultsOverview {
            runs: d.runs.clone(),
            policy: d.pack.id.clone(),
            report: d.report.clone(),
            tables: tables.clone(),
            charts: charts.clone(),
        })
    }

    /// One row per case, one column per model: the verdict each model gave (compact form).
    pub fn results_grid(&self, req: &ResultsRequest) -> ApiResult<ResultsGrid> {
        let d = self.results_data(&req.run_ids)?;
        Ok((*d.grid()?).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Verdict;

    #[test]
    fn grid_codes_pack_verdict_correctness_and_asks() {
        assert_eq!(grid_cell_code(None, false, 0), 1);
        assert_eq!(grid_cell_code(Some(Verdict::Reportable), true, 2), 1 | 2 | 8 | 32);
        assert_eq!(grid_cell_code(Some(Verdict::Uncertain), false, 40), 1 | 6 | (15 << 4));
    }

    #[test]
    fn grid_and_trajectory_of_imported_runs() {
        let e = Engine::open_in_memory().unwrap();
        let dir = tempfile::tempdir().unwrap();
        // The synthetic result set `psebench bench load-results` stores: 40 cases, 3 models.
        let (cases, trajectories) = crate::metrics::synthetic_benchmark(40, 3, 1);
        let (cases_path, trajectories_path) = (dir.path().join("cases.jsonl"), dir.path().join("trajectories.jsonl"));
        crate::case::io::write_cases(&cases_path, &cases).unwrap();
        crate::trajectory::io::write_trajectories(&trajectories_path, &trajectories).unwrap();
        e.cases_import(&cases_path, false, "imported").unwrap();
        let run_ids = e.evaluation_import(&trajectories_path).unwrap();
        assert_eq!(run_ids.len(), 3);
        let g = e.results_grid(&ResultsRequest { run_ids: run_ids.clone() }).unwrap();
        assert_eq!(g.models.len(), 3);
        assert_eq!(g.case_ids.len(), 40);
        assert_eq!((g.case_type.len(), g.clause.len(), g.gold.len()), (40, 40, 40));
        use base64::Engine as _;
        let cells: Vec<Vec<u8>> =
            g.cells.iter().map(|c| base64::engine::general_purpose::STANDARD.decode(c).unwrap()).collect();
        assert!(cells.iter().all(|col| col.len() == 40 && col.iter().all(|&c| c & 1 == 1)));
        // Every cell agrees with its trajectory, read one by one.
        for (m, run) in g.model_runs.iter().enumerate() {
            for (r, case_id) in g.case_ids.iter().enumerate().take(10) {
                let v = e
                    .results_trajectory(&TrajectoryRequest {
                        run_id: run.clone(),
                        case_id: case_id.clone(),
                        repeat: None,
                    })
                    .unwrap();
                let code = cells[m][r];
                assert_eq!(code >> 1 & 3, grid::verdict_code(v.trajectory.predicted_verdict()), "{run} {case_id}");
                assert_eq!(code >> 3 & 1 == 1, v.correct);
                assert_eq!((code >> 4) as usize, v.trajectory.ask_count().min(15));
                assert_eq!(g.verdicts[g.gold[r] as usize], v.case.gold_verdict.as_str());
                assert_eq!(g.clauses[g.clause[r] as usize], v.case.clause_id);
            }
        }
        let err = e
            .results_trajectory(&TrajectoryRequest { run_id: run_ids[0].clone(), case_id: "nope".into(), repeat: None })
            .unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::NotFound);
    }
}
