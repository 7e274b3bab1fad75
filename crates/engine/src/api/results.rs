//! Results for the shells: the views of `crate::results` (re-exported here, where the shells have
//! always found them) and downloads of any table or chart as a file.

use serde::{Deserialize, Serialize};

use super::files::Download;
use super::Engine;
use crate::charts::{render_png_noted, render_svg_noted, ChartKind};
use crate::error::{ApiError, ApiResult};

pub use crate::results::{
    grid_cell_code, ChartView, RepeatOutcome, ResultsGrid, ResultsOverview, ResultsRequest, TrajectoryRequest,
    TrajectoryView,
};

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

fn chart_kind(id: &str) -> ApiResult<ChartKind> {
    ChartKind::parse(id).ok_or_else(|| {
        let known: Vec<&str> = ChartKind::ALL.iter().map(|k| k.id()).collect();
        ApiError::invalid(format!("There is no chart \"{id}\". Charts: {}.", known.join(", ")))
    })
}

impl Engine {
    /// A chart of a set of runs as an SVG or PNG file.
    pub fn results_chart_file(&self, req: &ChartFileRequest) -> ApiResult<Download> {
        let kind = chart_kind(&req.chart)?;
        let d = self.results_data(&req.run_ids)?;
        let (report, notes) = d.report.marked();
        match req.format.as_str() {
            "svg" => {
                let svg = render_svg_noted(kind, &report, &d.pack, &notes)?;
                Ok(Download::from_bytes(&format!("{}.svg", kind.id()), "image/svg+xml", svg.as_bytes(), kind.title()))
            }
            "png" => {
                let scale = req.scale.unwrap_or(2);
                let png = render_png_noted(kind, &report, &d.pack, scale, &notes)?;
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
