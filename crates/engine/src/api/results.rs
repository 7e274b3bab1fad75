//! What the Results screen shows for a set of evaluation runs: the metrics report, the paper's
//! tables, the charts as SVG, a case-by-model grid of verdicts, one trajectory as a transcript,
//! and downloads of any table or chart. Loading runs is the slow part, so the last loaded set is
//! kept until one of its runs changes.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::files::Download;
use super::Engine;
use crate::case::{Case, Verdict};
use crate::charts::{chart_text, render_png, render_svg, ChartKind};
use crate::error::{ApiError, ApiResult};
use crate::evaluation::EvalRunView;
use crate::metrics::{MetricsOptions, MetricsReport};
use crate::policy::{repo as policy_repo, PolicyPack};
use crate::tables::{all_tables, Table};
use crate::trajectory::Trajectory;

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
    pub runs: Vec<EvalRunView>,
    pub policy: String,
    pub report: MetricsReport,
    pub tables: Vec<Table>,
    pub charts: Vec<ChartView>,
}

/// The case-by-model grid in a compact, column-wise form (the paper's scale is 5,074 cases ×
/// 15 models, so every cell is one small number and repeated strings are sent once).
///
/// A cell code is 0 when the model has no trajectory for the case; otherwise bit 0 is 1, bits
/// 1–2 hold the verdict given (0 none, 1 Reportable, 2 Non-reportable, 3 Uncertain: the index
/// into `verdicts`), bit 3 is set when the verdict is correct, and bits 4–7 hold the number of
/// questions asked (15 means 15 or more). A present cell with verdict 0 is a case that ended
/// without a readable answer (parse failure, turn budget, provider error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResultsGrid {
    /// Model columns, sorted by name.
    pub models: Vec<String>,
    /// The run each model column comes from (same order as `models`).
    pub model_runs: Vec<String>,
    /// Verdict vocabulary of the codes: `["", "Reportable", "Non-reportable", "Uncertain"]`.
    pub verdicts: Vec<String>,
    /// Case-type vocabulary: `["complete", "missing", "uncertain"]`.
    pub case_types: Vec<String>,
    /// Distinct clause ids, in first-seen order.
    pub clauses: Vec<String>,
    /// One entry per case (rows), in the runs' case order.
    pub case_ids: Vec<String>,
    /// Per case: index into `case_types`.
    pub case_type: Vec<u8>,
    /// Per case: index into `clauses`.
    pub clause: Vec<u32>,
    /// Per case: the gold verdict as an index into `verdicts`.
    pub gold: Vec<u8>,
    /// Per model column: one cell code (one byte) per case, in `case_ids` order, base64-encoded
    /// (standard alphabet, with padding): 5,074 cases take 6.8 kB per model.
    pub cells: Vec<String>,
}

/// Verdict code of the grid (index into `ResultsGrid::verdicts`).
fn verdict_code(v: Option<Verdict>) -> u8 {
    match v {
        None => 0,
        Some(Verdict::Reportable) => 1,
        Some(Verdict::NonReportable) => 2,
        Some(Verdict::Uncertain) => 3,
    }
}

/// One grid cell: see `ResultsGrid`.
pub fn grid_cell_code(verdict: Option<Verdict>, correct: bool, asks: usize) -> u8 {
    1 | (verdict_code(verdict) << 1) | ((correct as u8) << 3) | ((asks.min(15) as u8) << 4)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct TrajectoryRequest {
    pub run_id: String,
    pub case_id: String,
    #[serde(default)]
    pub repeat: Option<u32>,
}

/// One evaluated case with everything needed to read it as a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrajectoryView {
    pub case: Case,
    pub trajectory: Trajectory,
    pub correct: bool,
    /// The gold clause label's short title, when the case is Reportable.
    pub gold_clause_title: Option<String>,
    /// Models used by the run: model under test, information provider, judge.
    pub models: HashMap<String, String>,
    /// Every finished repeat of this case in the run (one entry when the run has no repeats),
    /// with its verdict, so that any of them can be opened.
    #[serde(default)]
    pub repeats: Vec<RepeatOutcome>,
}

/// One repeat of a case in a run, as listed next to its transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RepeatOutcome {
    /// 0-based repeat index (the `repeat` parameter of `results.trajectory`).
    pub repeat: u32,
    /// The readable verdict given, or null.
    pub verdict: Option<Verdict>,
    pub correct: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct ChartFileRequest {
    pub run_ids: Vec<String>,
    pub chart: String,
    /// `svg` or `png`.
    pub format: String,
    /// PNG scale, 1 to 4 (default 2).
    #[serde(default)]
    pub scale: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TableFileRequest {
    pub run_ids: Vec<String>,
    pub table: String,
    /// `csv`, `md` or `tex`.
    pub format: String,
}

/// Runs loaded for scoring, kept while none of them changes.
/// Only what the screens need is kept: the cases and trajectories are scored, turned into the
/// compact grid, and let go (at the paper's scale they are most of the memory).
pub(crate) struct ResultsData {
    pub report: MetricsReport,
    pub pack: PolicyPack,
    pub runs: Vec<EvalRunView>,
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
    fn views(&self) -> ApiResult<&(Vec<Table>, Vec<ChartView>)> {
        if let Some(v) = self.views.get() {
            return Ok(v);
        }
        let mut charts = Vec::new();
        for kind in ChartKind::ALL {
            let text = chart_text(kind, &self.report, &self.pack)?;
            charts.push(ChartView {
                id: text.id,
                title: text.title,
                caption: text.caption,
                svg: render_svg(kind, &self.report, &self.pack)?,
            });
        }
        Ok(self.views.get_or_init(|| (all_tables(&self.report, &self.pack), charts)))
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

fn build_grid(cases: &[Case], trajectories: &[Trajectory]) -> ResultsGrid {
    let mut models: Vec<(String, String)> = Vec::new();
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for t in trajectories {
        if seen.insert(t.model.as_str(), ()).is_none() {
            models.push((t.model.clone(), t.run_id.clone()));
        }
    }
    models.sort();
    let col: HashMap<&str, usize> = models.iter().enumerate().map(|(i, (m, _))| (m.as_str(), i)).collect();
    let row: HashMap<&str, usize> = cases.iter().enumerate().map(|(i, c)| (c.case_id.as_str(), i)).collect();
    let mut cells = vec![vec![0u8; cases.len()]; models.len()];
    for t in trajectories {
        if t.extra.get("repeat").and_then(|v| v.as_u64()).unwrap_or(0) != 0 {
            continue;
        }
        let (Some(&m), Some(&r)) = (col.get(t.model.as_str()), row.get(t.case_id.as_str())) else { continue };
        let predicted = t.predicted_verdict();
        cells[m][r] =
            grid_cell_code(predicted, predicted.is_some() && predicted == Some(cases[r].gold_verdict), t.ask_count());
    }
    let mut clauses: Vec<String> = Vec::new();
    let mut clause_ix: HashMap<&str, u32> = HashMap::new();
    let mut clause = Vec::with_capacity(cases.len());
    for c in cases {
        let i = *clause_ix.entry(c.clause_id.as_str()).or_insert_with(|| {
            clauses.push(c.clause_id.clone());
            (clauses.len() - 1) as u32
        });
        clause.push(i);
    }
    use base64::Engine as _;
    let cells = cells.iter().map(|col| base64::engine::general_purpose::STANDARD.encode(col)).collect();
    ResultsGrid {
        model_runs: models.iter().map(|(_, r)| r.clone()).collect(),
        models: models.into_iter().map(|(m, _)| m).collect(),
        verdicts: ["", "Reportable", "Non-reportable", "Uncertain"].iter().map(|s| s.to_string()).collect(),
        case_types: ["complete", "missing", "uncertain"].iter().map(|s| s.to_string()).collect(),
        clauses,
        case_ids: cases.iter().map(|c| c.case_id.clone()).collect(),
        case_type: cases
            .iter()
            .map(|c| match c.case_type {
                crate::case::CaseType::Complete => 0,
                crate::case::CaseType::Missing => 1,
                crate::case::CaseType::Uncertain => 2,
            })
            .collect(),
        clause,
        gold: cases.iter().map(|c| verdict_code(Some(c.gold_verdict))).collect(),
        cells,
    }
}

#[derive(Default)]
pub(crate) struct ResultsCache {
    slot: Mutex<Option<(String, Arc<ResultsData>)>>,
}

fn chart_kind(id: &str) -> ApiResult<ChartKind> {
    ChartKind::parse(id).ok_or_else(|| {
        let known: Vec<&str> = ChartKind::ALL.iter().map(|k| k.id()).collect();
        ApiError::invalid(format!("There is no chart \"{id}\". Charts: {}.", known.join(", ")))
    })
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
        let runs: Vec<EvalRunView> = run_ids.iter().map(|r| self.eval_show(r)).collect::<ApiResult<_>>()?;
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
        let report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
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

    /// One evaluated case of a run, with its case, for the transcript view.
    pub fn results_trajectory(&self, req: &TrajectoryRequest) -> ApiResult<TrajectoryView> {
        let run = self.eval_show(&req.run_id)?;
        let wanted = req.repeat.unwrap_or(0);
        let all =
            self.store().with_read(|c| crate::evaluation::repo::trajectory_repeats(c, &req.run_id, &req.case_id))?;
        let case = self.cases_show(&req.case_id)?;
        let repeats: Vec<RepeatOutcome> = all
            .iter()
            .map(|(k, t)| {
                let verdict = t.predicted_verdict();
                RepeatOutcome { repeat: *k, verdict, correct: verdict == Some(case.gold_verdict) }
            })
            .collect();
        let trajectory = all.into_iter().find(|(k, _)| *k == wanted).map(|(_, t)| t).ok_or_else(|| {
            if repeats.is_empty() || wanted == 0 {
                ApiError::not_found(format!("Run {} has no result for case \"{}\".", req.run_id, req.case_id))
            } else {
                ApiError::not_found(format!(
                    "Run {} has no repeat {} for case \"{}\" (it has {}).",
                    req.run_id,
                    wanted + 1,
                    req.case_id,
                    repeats.len()
                ))
            }
        })?;
        let pack = self.store().with_read(|c| policy_repo::load_pack(c, &case.policy))?;
        let gold_clause_title = case
            .gold_clause
            .as_deref()
            .and_then(|label| pack.clauses.iter().find(|c| c.label == label))
            .map(|c| c.short_title.clone());
        let cfg = &run.run.config;
        let mut models = HashMap::new();
        let names = [
            ("model", Some(&cfg.model)),
            ("info_model", cfg.info_model.as_ref()),
            ("judge_model", cfg.judge_model.as_ref()),
        ];
        for (role, name) in names {
            if let Some(v) = name {
                models.insert(role.to_string(), v.clone());
            }
        }
        Ok(TrajectoryView {
            correct: trajectory.predicted_verdict() == Some(case.gold_verdict),
            case,
            trajectory,
            gold_clause_title,
            models,
            repeats,
        })
    }

    /// A chart of a set of runs as an SVG or PNG file.
    pub fn results_chart_file(&self, req: &ChartFileRequest) -> ApiResult<Download> {
        let kind = chart_kind(&req.chart)?;
        let d = self.results_data(&req.run_ids)?;
        match req.format.as_str() {
            "svg" => {
                let svg = render_svg(kind, &d.report, &d.pack)?;
                Ok(Download::from_bytes(&format!("{}.svg", kind.id()), "image/svg+xml", svg.as_bytes(), kind.title()))
            }
            "png" => {
                let scale = req.scale.unwrap_or(2);
                let png = render_png(kind, &d.report, &d.pack, scale)?;
                let name =
                    if scale == 1 { format!("{}.png", kind.id()) } else { format!("{}@{scale}x.png", kind.id()) };
                Ok(Download::from_bytes(&name, "image/png", &png, kind.title()))
            }
            other => Err(ApiError::invalid(format!("Charts can be saved as svg or png, not \"{other}\"."))),
        }
    }

    /// A table of a set of runs as CSV, Markdown or LaTeX.
    pub fn results_table_file(&self, req: &TableFileRequest) -> ApiResult<Download> {
        let d = self.results_data(&req.run_ids)?;
        let tables = &d.views()?.0;
        let t = tables.iter().find(|t| t.id == req.table).ok_or_else(|| {
            let known: Vec<&str> = tables.iter().map(|t| t.id.as_str()).collect();
            ApiError::invalid(format!("There is no table \"{}\". Tables: {}.", req.table, known.join(", ")))
        })?;
        let (text, mime) = match req.format.as_str() {
            "csv" => (t.to_csv()?, "text/csv"),
            "md" => (t.to_markdown(), "text/markdown"),
            "tex" => (t.to_latex(), "application/x-tex"),
            other => return Err(ApiError::invalid(format!("Tables can be saved as csv, md or tex, not \"{other}\"."))),
        };
        Ok(Download::from_bytes(&format!("{}.{}", t.id, req.format), mime, text.as_bytes(), t.title.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let loaded = crate::bench::metrics::load_results(&e, dir.path(), 40, 3).unwrap();
        assert_eq!(loaded.run_ids.len(), 3);
        let g = e.results_grid(&ResultsRequest { run_ids: loaded.run_ids.clone() }).unwrap();
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
                assert_eq!(code >> 1 & 3, verdict_code(v.trajectory.predicted_verdict()), "{run} {case_id}");
                assert_eq!(code >> 3 & 1 == 1, v.correct);
                assert_eq!((code >> 4) as usize, v.trajectory.ask_count().min(15));
                assert_eq!(g.verdicts[g.gold[r] as usize], v.case.gold_verdict.as_str());
                assert_eq!(g.clauses[g.clause[r] as usize], v.case.clause_id);
            }
        }
        let err = e
            .results_trajectory(&TrajectoryRequest {
                run_id: loaded.run_ids[0].clone(),
                case_id: "nope".into(),
                repeat: None,
            })
            .unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::NotFound);
    }
}
