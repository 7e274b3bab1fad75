//! Per-clause difficulty: one horizontal bar per clause with the mean M1 across models, hardest
//! clause at the top, each labelled with the clause's short title and its label.
//!
//! Custom because plotters' histograms cannot fit two-line clause labels or move value labels inside bars.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::HPos;
use plotters::style::Color;

use super::axes::{Axes, Scale, X_AXIS_H};
use super::canvas::{Canvas, Font, Rect};
use super::frame::{ellipsize, Frame};
use super::style::*;
use super::ChartError;
use crate::metrics::per_clause::clause_rows;
use crate::metrics::MetricsReport;
use crate::policy::PolicyPack;
use crate::util::format::count;

const WIDTH: f64 = 1040.0;
const ROW_H: f64 = 32.0;
const BAR_H: f64 = 18.0;
const MAX_LABEL_W: f64 = 400.0;

/// One bar.
#[derive(Debug, Clone, PartialEq)]
pub struct ClauseBar {
    pub label: String,
    pub short_title: String,
    pub mean: f64,
    /// How many models contributed to the mean.
    pub models: usize,
    /// Cases written from the clause.
    pub cases: Option<u64>,
}

/// A prepared per-clause chart.
#[derive(Debug, Clone)]
pub struct ClauseBars {
    pub frame: Frame,
    pub height: f64,
    pub bars: Vec<ClauseBar>,
    label_w: f64,
    models: usize,
}

/// Bars sorted hardest first (lowest mean M1; ties keep the pack's order), or the reason there
/// are none.
pub fn per_clause(
    report: &MetricsReport,
    pack: &PolicyPack,
    title: &str,
    extra: &[String],
) -> Result<ClauseBars, (String, Vec<String>)> {
    let rows = clause_rows(report, pack);
    let mut bars = Vec::new();
    let mut missing = Vec::new();
    for r in rows {
        match r.mean {
            Some(mean) => bars.push(ClauseBar {
                label: r.label,
                short_title: r.short_title,
                mean: mean.clamp(0.0, 100.0),
                models: r.per_model.iter().flatten().count(),
                cases: r.cases,
            }),
            None if r.in_pack => missing.push(r.label),
            None => {}
        }
    }
    bars.sort_by(|a, b| a.mean.total_cmp(&b.mean));
    let mut notes = Vec::new();
    if !missing.is_empty() {
        let listed = if missing.len() <= 4 { format!(": {}", missing.join("; ")) } else { String::new() };
        notes.push(format!(
            "{} of the policy had no scored cases and {} not shown{listed}.",
            count(missing.len(), "clause"),
            if missing.len() == 1 { "is" } else { "are" }
        ));
    }
    // Notes from the caller (e.g. runs that are not comparable) come after the chart's own.
    notes.extend_from_slice(extra);
    if bars.is_empty() {
        return Err((
            "No per-clause results yet. Per-clause accuracy needs cases linked to clauses of the policy.".into(),
            notes,
        ));
    }
    let models = report.models.iter().filter(|m| m.by_clause.iter().any(|c| c.m1.is_some())).count();
    let frame = Frame::new(
        WIDTH,
        title,
        &format!(
            "Mean M1 verdict accuracy per clause of {}, averaged over {}; hardest first",
            if pack.name.is_empty() { pack.id.as_str() } else { pack.name.as_str() },
            count(models, "model")
        ),
        "One bar per clause: the mean over models of the share of its cases triaged correctly; n is its number of \
         cases. Shorter bars are harder clauses.",
        &notes,
    );
    let title_font = Font::new(LABEL_SIZE, TEXT);
    let label_font = Font::new(TICK_SIZE, MUTED);
    let label_w = bars
        .iter()
        .map(|b| title_font.width(&b.short_title).max(label_font.width(&b.label)))
        .fold(120.0, f64::max)
        .min(MAX_LABEL_W);
    let height = frame.height_for(bars.len() as f64 * ROW_H + X_AXIS_H + 8.0);
    Ok(ClauseBars { frame, height, bars, label_w, models })
}

impl ClauseBars {
    pub fn size(&self) -> (f64, f64) {
        (self.frame.width, self.height)
    }

    pub fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>) -> Result<(), ChartError> {
        self.frame.draw(c, self.height)?;
        let body = self.frame.body(self.height);
        let plot = Rect::new(body.x0 + self.label_w + 14.0, body.y0 + 4.0, body.x1 - 8.0, body.y1 - X_AXIS_H);
        let axes = Axes {
            plot,
            x: Scale::Linear { min: 0.0, max: 100.0, step: 10.0 },
            y: Scale::Linear { min: 0.0, max: 1.0, step: 1.0 },
        };
        // Only vertical gridlines: draw the x axis by hand rather than the y ticks of `Axes::draw`.
        c.fill_rect(plot, PLOT_BG.to_rgba())?;
        let tick = Font::new(TICK_SIZE, MUTED);
        for (v, label) in axes.x.ticks() {
            let x = axes.px(v);
            c.line(&[(x, plot.y0), (x, plot.y1)], GRID.to_rgba(), 1.0)?;
            c.text(&label, x, plot.y1 + 14.0, tick, HPos::Center)?;
        }
        c.line(&[(plot.x0, plot.y0), (plot.x0, plot.y1), (plot.x1, plot.y1)], AXIS.to_rgba(), 1.0)?;
        c.text(
            &format!("Mean verdict accuracy over {} (M1, %)", count(self.models, "model")),
            (plot.x0 + plot.x1) / 2.0,
            plot.y1 + 38.0,
            Font::new(AXIS_TITLE_SIZE, TEXT),
            HPos::Center,
        )?;

        let row_h = plot.h() / self.bars.len() as f64;
        let title_font = Font::new(LABEL_SIZE, TEXT);
        let label_font = Font::new(TICK_SIZE, MUTED);
        let value_font = Font::new(TICK_SIZE, TEXT);
        for (i, b) in self.bars.iter().enumerate() {
            let cy = plot.y0 + row_h * (i as f64 + 0.5);
            let x_end = axes.px(b.mean);
            let bar = Rect::new(plot.x0, cy - BAR_H / 2.0, x_end.max(plot.x0 + 1.0), cy + BAR_H / 2.0);
            c.fill_rect(bar, BLUE.to_rgba())?;
            let value = format!("{:.1}", b.mean);
            let n = b.cases.map(|n| format!("n={n}")).unwrap_or_default();
            let n_font = Font::new(TICK_SIZE, MUTED);
            let outside = value_font.width(&value) + 6.0 + n_font.width(&n) + 10.0;
            if plot.x1 - x_end > outside {
                c.text(&value, x_end + 5.0, cy, value_font, HPos::Left)?;
                c.text(&n, x_end + 5.0 + value_font.width(&value) + 6.0, cy, n_font, HPos::Left)?;
            } else {
                let inside = Font { bold: true, color: text_on(BLUE), ..value_font };
                let label = if n.is_empty() { value } else { format!("{value} · {n}") };
                c.text(&label, x_end - 5.0, cy, inside, HPos::Right)?;
            }
            let lx = plot.x0 - 10.0;
            c.text(&ellipsize(&b.short_title, title_font, self.label_w), lx, cy - 7.0, title_font, HPos::Right)?;
            c.text(&ellipsize(&b.label, label_font, self.label_w), lx, cy + 8.0, label_font, HPos::Right)?;
        }
        Ok(())
    }
}
