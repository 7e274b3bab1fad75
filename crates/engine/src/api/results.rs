//! What the Results screen shows for a set of evaluation runs: the metrics report, the paper's
//! tables, the charts as SVG, a case-by-model grid of verdicts, one trajectory as a transcript,
//! and downloads of any table or chart. Loading runs is the slow part, so the last loaded set is
//! kept until one of its runs changes.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

/// One model's outcome on one case, compact enough for thousands of rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GridCell {
    /// The verdict given (one of the three verdict strings), or null when there was none.
    pub verdict: Option<String>,
    pub correct: bool,
    pub asks: u32,
    /// The run ended without a readable answer (parse failure, turn budget, provider error).
    pub no_answer: bool,
    pub run_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GridRow {
    pub case_id: String,
    pub case_type: String,
    pub clause_id: String,
    pub gold_verdict: String,
    /// One entry per model of `ResultsGrid::models`, null when the model has no trajectory.
    pub cells: Vec<Option<GridCell>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResultsGrid {
    pub models: Vec<String>,
    pub rows: Vec<GridRow>,
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
pub(crate) struct ResultsData {
    pub cases: Vec<Case>,
    pub trajectories: Vec<Trajectory>,
    pub report: MetricsReport,
    pub pack: PolicyPack,
    pub runs: Vec<EvalRunView>,
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
    pub(crate) fn results_data(&self, run_ids: &[String]) -> ApiResult<Arc<ResultsData>> {
        if run_ids.is_empty() {
            return Err(ApiError::invalid("Choose at least one evaluation run to show results for."));
        }
        let runs: Vec<EvalRunView> = run_ids.iter().map(|r| self.eval_show(r)).collect::<ApiResult<_>>()?;
        let key = runs
            .iter()
            .map(|r| format!("{}:{}:{}:{}", r.run.run_id, r.run.status, r.counts.done, r.run.finished_at.as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("|");
        if let Some((k, data)) = self.results_cache.slot.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            if *k == key {
                return Ok(data.clone());
            }
        }
        let (cases, trajectories) = self.runs_for_metrics(run_ids)?;
        let policy = cases.first().map(|c| c.policy.clone()).unwrap_or_else(|| "mn29".into());
        let pack = self.store().with_conn(|c| policy_repo::load_pack(c, &policy))?;
        let report = crate::metrics::compute(&cases, &trajectories, &MetricsOptions::default());
        let data = Arc::new(ResultsData { cases, trajectories, report, pack, runs });
        *self.results_cache.slot.lock().unwrap_or_else(|p| p.into_inner()) = Some((key, data.clone()));
        Ok(data)
    }

    /// Metrics, the paper's tables and every chart for a set of runs.
    pub fn results_overview(&self, req: &ResultsRequest) -> ApiResult<ResultsOverview> {
        let d = self.results_data(&req.run_ids)?;
        let mut charts = Vec::new();
        for kind in ChartKind::ALL {
            let text = chart_text(kind, &d.report, &d.pack)?;
            charts.push(ChartView { id: text.id, title: text.title, caption: text.caption, svg: render_svg(kind, &d.report, &d.pack)? });
        }
        Ok(ResultsOverview {
            runs: d.runs.clone(),
            policy: d.pack.id.clone(),
            report: d.report.clone(),
            tables: all_tables(&d.report, &d.pack),
            charts,
        })
    }

    /// One row per case, one column per model: the verdict each model gave.
    pub fn results_grid(&self, req: &ResultsRequest) -> ApiResult<ResultsGrid> {
        let d = self.results_data(&req.run_ids)?;
        let mut models: Vec<String> = Vec::new();
        for t in &d.trajectories {
            if !models.contains(&t.model) {
                models.push(t.model.clone());
            }
        }
        models.sort();
        let col: HashMap<&str, usize> = models.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
        let mut cells: HashMap<&str, Vec<Option<GridCell>>> = HashMap::new();
        let gold: HashMap<&str, Verdict> = d.cases.iter().map(|c| (c.case_id.as_str(), c.gold_verdict)).collect();
        for t in &d.trajectories {
            let repeat = t.extra.get("repeat").and_then(|v| v.as_u64()).unwrap_or(0);
            if repeat != 0 {
                continue;
            }
            let Some(&i) = col.get(t.model.as_str()) else { continue };
            let row = cells.entry(t.case_id.as_str()).or_insert_with(|| vec![None; models.len()]);
            let predicted = t.predicted_verdict();
            row[i] = Some(GridCell {
                verdict: predicted.map(|v| v.as_str().to_string()),
                correct: predicted.is_some() && predicted == gold.get(t.case_id.as_str()).copied(),
                asks: t.ask_count() as u32,
                no_answer: predicted.is_none(),
                run_id: t.run_id.clone(),
            });
        }
        let rows = d
            .cases
            .iter()
            .map(|c| GridRow {
                case_id: c.case_id.clone(),
                case_type: c.case_type.as_str().to_string(),
                clause_id: c.clause_id.clone(),
                gold_verdict: c.gold_verdict.as_str().to_string(),
                cells: cells.remove(c.case_id.as_str()).unwrap_or_else(|| vec![None; models.len()]),
            })
            .collect();
        Ok(ResultsGrid { models, rows })
    }

    /// One evaluated case of a run, with its case, for the transcript view.
    pub fn results_trajectory(&self, req: &TrajectoryRequest) -> ApiResult<TrajectoryView> {
        let run = self.eval_show(&req.run_id)?;
        let trajectory = self
            .eval_trajectories(&req.run_id)?
            .into_iter()
            .filter(|t| t.case_id == req.case_id)
            .find(|t| t.extra.get("repeat").and_then(|v| v.as_u64()).unwrap_or(0) == req.repeat.unwrap_or(0) as u64)
            .ok_or_else(|| ApiError::not_found(format!("Run {} has no result for case \"{}\".", req.run_id, req.case_id)))?;
        let case = self.cases_show(&req.case_id)?;
        let pack = self.store().with_conn(|c| policy_repo::load_pack(c, &case.policy))?;
        let gold_clause_title = case
            .gold_clause
            .as_deref()
            .and_then(|label| pack.clauses.iter().find(|c| c.label == label))
            .map(|c| c.short_title.clone());
        let mut models = HashMap::new();
        for (role, key) in [("model", "model"), ("info_model", "info_model"), ("judge_model", "judge_model")] {
            if let Some(v) = run.run.config.get(key).and_then(|v| v.as_str()) {
                models.insert(role.to_string(), v.to_string());
            }
        }
        Ok(TrajectoryView { correct: trajectory.predicted_verdict() == Some(case.gold_verdict), case, trajectory, gold_clause_title, models })
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
                let name = if scale == 1 { format!("{}.png", kind.id()) } else { format!("{}@{scale}x.png", kind.id()) };
                Ok(Download::from_bytes(&name, "image/png", &png, kind.title()))
            }
            other => Err(ApiError::invalid(format!("Charts can be saved as svg or png, not \"{other}\"."))),
        }
    }

    /// A table of a set of runs as CSV, Markdown or LaTeX.
    pub fn results_table_file(&self, req: &TableFileRequest) -> ApiResult<Download> {
        let d = self.results_data(&req.run_ids)?;
        let tables = all_tables(&d.report, &d.pack);
        let t = tables.iter().find(|t| t.id == req.table).ok_or_else(|| {
            let known: Vec<&str> = tables.iter().map(|t| t.id.as_str()).collect();
            ApiError::invalid(format!("There is no table \"{}\". Tables: {}.", req.table, known.join(", ")))
        })?;
        let (text, mime) = match req.format.as_str() {
            "csv" => (t.to_csv(), "text/csv"),
            "md" => (t.to_markdown(), "text/markdown"),
            "tex" => (t.to_latex(), "application/x-tex"),
            other => return Err(ApiError::invalid(format!("Tables can be saved as csv, md or tex, not \"{other}\"."))),
        };
        Ok(Download::from_bytes(&format!("{}.{}", t.id, req.format), mime, text.as_bytes(), t.title.clone()))
    }
}
