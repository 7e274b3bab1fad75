//! Export every table (CSV, Markdown, LaTeX) and every chart (SVG, PNG at 1× and 2×) of a metrics
//! report into a folder, with an `index.md` that lists and links them.

use std::path::{Path, PathBuf};

use crate::charts::{chart_text_noted, render_png_noted, render_svg_noted, ChartKind};
use crate::error::ApiError;
use crate::metrics::MetricsReport;
use crate::policy::PolicyPack;
use crate::tables::all_tables_noted;
use crate::util::files::write_atomic;

/// Write `tables/<id>.{csv,md,tex}`, `charts/<id>.{svg,png}`, `charts/<id>@2x.png`, the report as
/// `metrics.json`, and `index.md` into `out_dir` (created if needed). Returns every path written,
/// in the order written; `index.md` is last. When the report's runs are not comparable, the models
/// whose runs differ carry a dagger in every table and chart, and a note says what differs.
pub fn write_report_files(report: &MetricsReport, pack: &PolicyPack, out_dir: &Path) -> Result<Vec<PathBuf>, ApiError> {
    let (shown, notes) = report.marked();
    let mut written = Vec::new();
    let mut put = |rel: String, bytes: &[u8]| -> Result<(), ApiError> {
        let path = out_dir.join(&rel);
        write_atomic(&path, bytes)?;
        written.push(path);
        Ok(())
    };

    let mut index = String::new();
    index.push_str("# PSEBench results\n\n");
    let models: Vec<&str> = report.models.iter().map(|m| m.model.as_str()).collect();
    if models.is_empty() {
        index.push_str("The report has no models yet: the tables are empty and the charts explain what they need.\n\n");
    } else {
        index.push_str(&format!(
            "{} model{} scored under the {} policy pack: {}.\n\n",
            models.len(),
            if models.len() == 1 { "" } else { "s" },
            if pack.name.is_empty() { &pack.id } else { &pack.name },
            models.join(", ")
        ));
    }
    index.push_str(&format!(
        "Written by psebench {}. All scores are percentages unless marked otherwise.\n\n",
        crate::version()
    ));
    for n in &notes {
        index.push_str(&format!("**Not directly comparable.** {n}\n\n"));
    }

    index.push_str("## Tables\n\n| Table | Files |\n| :--- | :--- |\n");
    for t in all_tables_noted(&shown, pack, &notes) {
        put(format!("tables/{}.csv", t.id), t.to_csv()?.as_bytes())?;
        put(format!("tables/{}.md", t.id), t.to_markdown().as_bytes())?;
        put(format!("tables/{}.tex", t.id), t.to_latex().as_bytes())?;
        index.push_str(&format!(
            "| {} | [Markdown](tables/{id}.md) · [CSV](tables/{id}.csv) · [LaTeX](tables/{id}.tex) |\n",
            t.title.replace('|', "\\|"),
            id = t.id
        ));
    }

    index.push_str("\n## Charts\n\n");
    for kind in ChartKind::ALL {
        let id = kind.id();
        put(format!("charts/{id}.svg"), render_svg_noted(kind, &shown, pack, &notes)?.as_bytes())?;
        put(format!("charts/{id}.png"), &render_png_noted(kind, &shown, pack, 1, &notes)?)?;
        put(format!("charts/{id}@2x.png"), &render_png_noted(kind, &shown, pack, 2, &notes)?)?;
        let text = chart_text_noted(kind, &shown, pack, &notes)?;
        index.push_str(&format!(
            "### {}\n\n![{}](charts/{id}.png)\n\n{}\n\nFiles: [SVG](charts/{id}.svg) · [PNG](charts/{id}.png) · [PNG 2×](charts/{id}@2x.png)\n\n",
            text.title, text.title, text.caption
        ));
    }

    let json = serde_json::to_vec_pretty(report)
        .map_err(|e| ApiError::internal(format!("the metrics report could not be written as JSON ({e})")))?;
    put("metrics.json".into(), &json)?;
    index.push_str("## Data\n\n[metrics.json](metrics.json): the metrics report these files were made from.\n");
    put("index.md".into(), index.as_bytes())?;
    Ok(written)
}
