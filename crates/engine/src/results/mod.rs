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
/// When the report came from the stored copy, the runs were not loaded: the grid is built the
/// first time it is asked for.
enum GridState {
    NotLoaded,
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

    /// The case-by-model grid (waits for the background build if it is still running, loads
    /// the runs if they were not loaded).
    pub fn grid(&self, engine: &Engine) -> ApiResult<Arc<ResultsGrid>> {
        let mut state = self.grid.lock().unwrap_or_else(|p| p.into_inner());
        *state = match std::mem::replace(&mut *state, GridState::Failed) {
            GridState::NotLoaded => {
                let run_ids: Vec<String> = self.runs.iter().map(|r| r.run.run_id.clone()).collect();
                let (cases, trajectories) = engine.runs_for_scoring(&run_ids)?;
                let grid = build_grid(&cases, &trajectories);
                drop((cases, trajectories));
                crate::util::memory::return_free_memory();
                GridState::Ready(Arc::new(grid))
            }
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

/// Where the last computed report is kept in the store (`settings`), so the Results screen of a
/// later start shows it without loading and scoring every trajectory again.
const STORED_REPORT_KEY: &str = "results_report";

/// Part of the stored report's key: a build whose metrics may differ must not reuse the report
/// of another build. Change the suffix when the report's computation changes.
const STORED_REPORT_FORMAT: &str = concat!(env!("CARGO_PKG_VERSION"), "/report-1");

/// The kinds of stored data a report depends on: the runs (status, configuration), their graded
/// items, the cases (gold labels), the policies and the models (simulation marks).
const REPORT_INPUTS: [crate::context::change_feed::ChangeKind; 5] = [
    crate::context::change_feed::ChangeKind::Runs,
    crate::context::change_feed::ChangeKind::Results,
    crate::context::change_feed::ChangeKind::Cases,
    crate::context::change_feed::ChangeKind::Policies,
    crate::context::change_feed::ChangeKind::Models,
];

/// The stored report with the key it was computed for.
#[derive(Serialize, Deserialize)]
struct StoredReport {
    key: String,
    /// The policy the runs' cases belong to.
    policy: String,
    report: MetricsReport,
}

/// The key of a stored report: the build, the counters of every kind of data the report reads
/// (bumped by the store's triggers on any write, whichever process makes it) and the runs.
fn stored_report_key(conn: &rusqlite::Connection, runs_key: &str) -> ApiResult<String> {
    let mut key = format!("{STORED_REPORT_FORMAT}|");
    for kind in REPORT_INPUTS {
        let counter = crate::context::change_feed::change_count(conn, kind)?;
        key.push_str(&format!("{}={counter};", kind.name()));
    }
    key.push('|');
    key.push_str(runs_key);
    Ok(key)
}

/// The stored report for `key`, if there is one (a stored copy that cannot be read is ignored:
/// the report is computed again).
fn stored_report(conn: &rusqlite::Connection, key: &str) -> ApiResult<Option<StoredReport>> {
    let Some(text) = crate::store::settings::get(conn, STORED_REPORT_KEY)? else { return Ok(None) };
    // The key is compared before the report is decoded.
    let Ok(head) = serde_json::from_str::<StoredKey>(&text) else { return Ok(None) };
    if head.key != key {
        return Ok(None);
    }
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&text) else { return Ok(None) };
    if !exact_floats::restore(&mut value) {
        return Ok(None);
    }
    Ok(serde_json::from_value::<StoredReport>(value).ok())
}

/// The stored report as text, every fraction written so it reads back bit for bit.
fn stored_report_text(report: &StoredReport) -> Result<String, serde_json::Error> {
    let mut value = serde_json::to_value(report)?;
    exact_floats::encode(&mut value);
    serde_json::to_string(&value)
}

#[derive(Deserialize)]
struct StoredKey {
    key: String,
}

/// serde_json's fast number reader may differ from the written fraction in the last bit, so the
/// stored report keeps each fraction as the text of its bits: a report read back is exactly the
/// one computed (the same numbers, tables and charts as a fresh computation).
mod exact_floats {
    use serde_json::{Number, Value};

    /// Marks an encoded fraction (a control character no text of a report contains).
    const MARK: &str = "\u{1}f64:";

    pub fn encode(v: &mut Value) {
        match v {
            Value::Number(n) if n.is_f64() => {
                if let Some(x) = n.as_f64() {
                    *v = Value::String(format!("{MARK}{:016x}", x.to_bits()));
                }
            }
            Value::Array(items) => items.iter_mut().for_each(encode),
            Value::Object(map) => map.values_mut().for_each(encode),
            _ => {}
        }
    }

    /// Decode what [`encode`] wrote; false when an encoded fraction is malformed.
    pub fn restore(v: &mut Value) -> bool {
        match v {
            Value::String(s) if s.starts_with(MARK) => {
                let Ok(bits) = u64::from_str_radix(&s[MARK.len()..], 16) else { return false };
                match Number::from_f64(f64::from_bits(bits)) {
                    Some(n) => {
                        *v = Value::Number(n);
                        true
                    }
                    None => false,
                }
            }
            Value::Array(items) => items.iter_mut().all(restore),
            Value::Object(map) => map.values_mut().all(restore),
            _ => true,
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
        // The report computed for the same runs and the same data before (by this process or an
        // earlier one) is read back instead of loading and scoring every trajectory again.
        let (stored_key, stored) = self.store().with_read(|c| {
            let k = stored_report_key(c, &key)?;
            let r = stored_report(c, &k)?;
            Ok::<_, ApiError>((k, r))
        })?;
        if let Some(stored) = stored {
            let pack = self.store().with_read(|c| policy_repo::load_pack(c, &stored.policy))?;
            let data = Arc::new(ResultsData {
                report: stored.report,
                pack,
                runs,
                grid: Mutex::new(GridState::NotLoaded),
                views: OnceLock::new(),
            });
            *self.extension::<ResultsCache>().slot.lock().unwrap_or_else(|p| p.into_inner()) =
                Some((key, data.clone()));
            return Ok(data);
        }
        let (cases, trajectories) = self.runs_for_scoring(run_ids)?;
        let policy = cases.first().map(|c| c.policy.clone()).unwrap_or_else(|| crate::policy::DEFAULT_POLICY.into());
        let pack = self.store().with_read(|c| policy_repo::load_pack(c, &policy))?;
        let mut report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
        self.compare_runs_in(run_ids, &mut report)?;
        // Kept in the store for later starts, without making this request wait. The stored
        // report is the last one computed; a failure to store it only costs time later.
        let store = self.store().clone();
        let to_store = StoredReport { key: stored_key, policy: policy.clone(), report: report.clone() };
        std::thread::spawn(move || {
            let saved = stored_report_text(&to_store).map_err(|e| e.to_string()).and_then(|text| {
                store
                    .with_conn(|c| crate::store::settings::set(c, STORED_REPORT_KEY, &text))
                    .map_err(|e: rusqlite::Error| e.to_string())
            });
            if let Err(e) = saved {
                tracing::warn!(error = %e, "the Results report could not be kept for the next start");
            }
        });
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
        Ok((*d.grid(self)?).clone())
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
