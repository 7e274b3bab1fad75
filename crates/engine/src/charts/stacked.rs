//! 100 % stacked horizontal bars, one per model: where uncertain cases are routed, and how many
//! questions a model asks on missing cases. Segments carry colour, a hatch pattern where
//! neighbours could be confused, their percentage when wide enough, and a legend in bar order.
//!
//! Custom because plotters has no 100 % stacked bars, hatch patterns or in-segment percentage labels.

use indexmap::IndexMap;
use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::HPos;
use plotters::style::{Color, RGBColor};

use super::axes::{Scale, X_AXIS_H};
use super::canvas::{Canvas, Font, Hatch, Rect};
use super::frame::{shorten_name, Frame};
use super::scatter::join_names;
use super::style::*;
use super::ChartError;
use crate::metrics::MetricsReport;
use crate::util::format::{count, fmt_thousands};

const WIDTH: f64 = 1000.0;
const ROW_H: f64 = 30.0;
const BAR_H: f64 = 20.0;
const LEGEND_ROW_H: f64 = 24.0;
const MAX_NAME_W: f64 = 220.0;
const EXTRA_W: f64 = 72.0;

/// One kind of segment (a verdict, a number of questions).
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub name: String,
    pub color: RGBColor,
    pub hatch: Hatch,
}

/// One model's bar: segment values in percent (in the order of the segments).
#[derive(Debug, Clone, PartialEq)]
pub struct StackRow {
    pub model: String,
    pub values: Vec<f64>,
    /// Text shown right of the bar (e.g. the mean number of questions).
    pub extra: Option<String>,
}

/// A prepared stacked-bar chart.
#[derive(Debug, Clone)]
pub struct Stacked {
    pub frame: Frame,
    pub height: f64,
    pub segments: Vec<Segment>,
    pub rows: Vec<StackRow>,
    pub extra_header: Option<String>,
    pub x_title: String,
    name_w: f64,
    legend_rows: Vec<Vec<usize>>,
}

fn legend_font() -> Font {
    Font::new(LABEL_SIZE, TEXT)
}

/// Width of one legend entry: swatch, gap, text, spacing.
fn legend_item_w(s: &Segment) -> f64 {
    16.0 + 6.0 + legend_font().width(&s.name) + 22.0
}

/// Split the legend into rows that fit `width`.
fn legend_layout(segments: &[Segment], width: f64) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0.0;
    for (i, s) in segments.iter().enumerate() {
        let w = legend_item_w(s);
        if used + w > width && rows.last().is_some_and(|r| !r.is_empty()) {
            rows.push(Vec::new());
            used = 0.0;
        }
        if let Some(r) = rows.last_mut() {
            r.push(i);
        }
        used += w;
    }
    rows
}

struct Spec<'a> {
    title: &'a str,
    subtitle: String,
    caption: &'a str,
    notes: Vec<String>,
    segments: Vec<Segment>,
    rows: Vec<StackRow>,
    extra_header: Option<String>,
    x_title: String,
}

fn build(spec: Spec<'_>) -> Stacked {
    let frame = Frame::new(WIDTH, spec.title, &spec.subtitle, spec.caption, &spec.notes);
    let name_font = Font::new(LABEL_SIZE, TEXT);
    let name_w = spec.rows.iter().map(|r| name_font.width(&r.model)).fold(60.0, f64::max).min(MAX_NAME_W);
    let legend_rows = legend_layout(&spec.segments, WIDTH - 2.0 * PAD);
    let body_h = legend_rows.len() as f64 * LEGEND_ROW_H + 10.0 + spec.rows.len() as f64 * ROW_H + X_AXIS_H + 6.0;
    let height = frame.height_for(body_h);
    Stacked {
        frame,
        height,
        segments: spec.segments,
        rows: spec.rows,
        extra_header: spec.extra_header,
        x_title: spec.x_title,
        name_w,
        legend_rows,
    }
}

/// How many cases of a type the models were scored on ("257"), if they agree.
fn type_cases(report: &MetricsReport, missing: bool) -> Option<String> {
    let counts: Vec<u64> = report
        .models
        .iter()
        .map(|m| if missing { m.by_case_type.missing.cases } else { m.by_case_type.uncertain.cases })
        .collect();
    let first = *counts.first()?;
    counts.iter().all(|c| *c == first).then(|| fmt_thousands(first))
}

fn values(map: &IndexMap<String, f64>, keys: &[&str]) -> Vec<f64> {
    keys.iter().map(|k| map.get(*k).copied().filter(|v| v.is_finite()).unwrap_or(0.0).max(0.0)).collect()
}

/// Verdicts on uncertain cases per model, best (most routed to Uncertain) first.
pub fn routing(report: &MetricsReport, title: &str, extra: &[String]) -> Result<Stacked, (String, Vec<String>)> {
    let keys = ["Uncertain", "Reportable", "Non-reportable", "none"];
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for m in &report.models {
        match &m.behavior.uncertain_routing_pct {
            Some(map) => rows.push(StackRow { model: m.model.clone(), values: values(map, &keys), extra: None }),
            None => skipped.push(m.model.clone()),
        }
    }
    let mut notes = Vec::new();
    if !skipped.is_empty() {
        notes.push(format!("Not shown (no uncertain cases were scored): {}.", join_names(&skipped)));
    }
    // Notes from the caller (e.g. runs that are not comparable) come after the chart's own.
    notes.extend_from_slice(extra);
    if rows.is_empty() {
        return Err(("No uncertain cases have been scored yet, so there is no routing to show.".into(), notes));
    }
    rows.sort_by(|a, b| b.values[0].total_cmp(&a.values[0]));
    let cases =
        type_cases(report, false).map(|n| format!("the {n} uncertain cases")).unwrap_or("the uncertain cases".into());
    let segments = vec![
        Segment { name: "→ Uncertain (correct)".into(), color: VERDICT_UNCERTAIN, hatch: Hatch::None },
        Segment { name: "→ Reportable".into(), color: VERDICT_REPORTABLE, hatch: Hatch::Diagonal },
        Segment { name: "→ Non-reportable".into(), color: VERDICT_NON_REPORTABLE, hatch: Hatch::None },
        Segment { name: "No usable verdict".into(), color: VERDICT_NONE, hatch: Hatch::Cross },
    ];
    Ok(build(Spec {
        title,
        subtitle: format!("Verdict each model gave on {cases}; models sorted by how often they chose Uncertain"),
        caption: "One bar per model, adding up to 100 %. Only Uncertain is correct; a long Reportable segment means \
                  over-reporting.",
        notes,
        segments,
        rows,
        extra_header: None,
        x_title: "Share of uncertain cases (%)".into(),
    }))
}

/// Number of questions asked on missing cases per model, keenest askers first.
pub fn asks(report: &MetricsReport, title: &str, extra: &[String]) -> Result<Stacked, (String, Vec<String>)> {
    let keys = ["0", "1", "2", "3", "4+"];
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for m in &report.models {
        match &m.behavior.missing_ask_count_pct {
            Some(map) => rows.push(StackRow {
                model: m.model.clone(),
                values: values(map, &keys),
                extra: m.behavior.missing_avg_asks.filter(|v| v.is_finite()).map(|v| format!("{v:.2}")),
            }),
            None => skipped.push(m.model.clone()),
        }
    }
    let mut notes = Vec::new();
    if !skipped.is_empty() {
        notes.push(format!("Not shown (no missing cases were scored): {}.", join_names(&skipped)));
    }
    // Notes from the caller (e.g. runs that are not comparable) come after the chart's own.
    notes.extend_from_slice(extra);
    if rows.is_empty() {
        return Err((
            "No missing-information cases have been scored yet, so there are no questions to count.".into(),
            notes,
        ));
    }
    rows.sort_by(|a, b| a.values[0].total_cmp(&b.values[0]));
    let cases =
        type_cases(report, true).map(|n| format!("the {n} missing cases")).unwrap_or("the missing cases".into());
    let segments = vec![
        Segment { name: "0 (answered without asking)".into(), color: VERMILLION, hatch: Hatch::Diagonal },
        Segment { name: "1 question".into(), color: SKY_BLUE, hatch: Hatch::None },
        Segment { name: "2".into(), color: BLUE, hatch: Hatch::None },
        Segment { name: "3".into(), color: REDDISH_PURPLE, hatch: Hatch::None },
        Segment { name: "4 or more".into(), color: INK, hatch: Hatch::BackDiagonal },
    ];
    let n = rows.len();
    Ok(build(Spec {
        title,
        subtitle: format!(
            "Share of {cases} by number of ASK actions · {}, sorted by how rarely they skip asking",
            count(n, "model")
        ),
        caption: "One bar per model, adding up to 100 %. Hatched left segment: answered without asking. Avg. asks: \
                  mean per missing case.",
        notes,
        segments,
        rows,
        extra_header: Some("Avg. asks".into()),
        x_title: "Share of missing cases (%)".into(),
    }))
}

impl Stacked {
    pub fn size(&self) -> (f64, f64) {
        (self.frame.width, self.height)
    }

    pub fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>) -> Result<(), ChartError> {
        self.frame.draw(c, self.height)?;
        let body = self.frame.body(self.height);

        // Legend, in bar order.
        let lf = legend_font();
        let mut y = body.y0 + LEGEND_ROW_H / 2.0;
        for row in &self.legend_rows {
            let mut x = body.x0;
            for &i in row {
                let s = &self.segments[i];
                let sw = Rect::new(x, y - 7.0, x + 16.0, y + 7.0);
                self.swatch(c, sw, s)?;
                c.text(&s.name, x + 22.0, y, lf, HPos::Left)?;
                x += legend_item_w(s);
            }
            y += LEGEND_ROW_H;
        }

        let top = body.y0 + self.legend_rows.len() as f64 * LEGEND_ROW_H + 10.0;
        let right = if self.extra_header.is_some() { body.x1 - EXTRA_W } else { body.x1 - 8.0 };
        let plot = Rect::new(body.x0 + self.name_w + 12.0, top, right, body.y1 - X_AXIS_H);
        let x = Scale::Linear { min: 0.0, max: 100.0, step: 10.0 };
        let px = |v: f64| plot.x0 + x.frac(v) * plot.w();
        let tick = Font::new(TICK_SIZE, MUTED);
        for (v, label) in x.ticks() {
            c.line(&[(px(v), plot.y0), (px(v), plot.y1)], GRID.to_rgba(), 1.0)?;
            c.text(&label, px(v), plot.y1 + 14.0, tick, HPos::Center)?;
        }
        c.text(
            &self.x_title,
            (plot.x0 + plot.x1) / 2.0,
            plot.y1 + 38.0,
            Font::new(AXIS_TITLE_SIZE, TEXT),
            HPos::Center,
        )?;

        let name_font = Font::new(LABEL_SIZE, TEXT);
        let extra_font = Font::new(TICK_SIZE, TEXT);
        if let Some(h) = &self.extra_header {
            c.text(h, plot.x1 + EXTRA_W / 2.0, plot.y0 - 10.0, Font::new(TICK_SIZE, MUTED).bold(), HPos::Center)?;
        }
        let row_h = plot.h() / self.rows.len().max(1) as f64;
        for (ri, row) in self.rows.iter().enumerate() {
            let cy = plot.y0 + row_h * (ri as f64 + 0.5);
            c.text(&shorten_name(&row.model, name_font, self.name_w), plot.x0 - 10.0, cy, name_font, HPos::Right)?;
            let mut acc = 0.0;
            for (si, v) in row.values.iter().enumerate() {
                let start = acc;
                acc = (acc + v).min(100.0);
                let (x0, x1) = (px(start), px(acc));
                if x1 - x0 < 0.5 {
                    continue;
                }
                let seg = &self.segments[si];
                let r = Rect::new(x0, cy - BAR_H / 2.0, x1, cy + BAR_H / 2.0);
                self.swatch(c, r, seg)?;
                let label = format!("{v:.0}");
                let font = Font::new(TICK_SIZE, text_on(seg.color)).bold();
                if x1 - x0 >= font.width(&label) + 8.0 {
                    if seg.hatch != Hatch::None {
                        let w = font.width(&label) + 6.0;
                        let mid = (x0 + x1) / 2.0;
                        c.fill_rect(Rect::new(mid - w / 2.0, cy - 7.5, mid + w / 2.0, cy + 7.5), seg.color.to_rgba())?;
                    }
                    c.text(&label, (x0 + x1) / 2.0, cy, font, HPos::Center)?;
                }
                if x1 < plot.x1 - 0.5 {
                    c.line(&[(x1, cy - BAR_H / 2.0), (x1, cy + BAR_H / 2.0)], WHITE.to_rgba(), 1.0)?;
                }
            }
            if let Some(e) = &row.extra {
                c.text(e, plot.x1 + EXTRA_W / 2.0, cy, extra_font, HPos::Center)?;
            }
        }
        c.line(&[(plot.x0, plot.y0), (plot.x0, plot.y1), (plot.x1, plot.y1)], AXIS.to_rgba(), 1.0)?;
        Ok(())
    }

    /// A filled rectangle in the segment's colour with its hatch pattern.
    fn swatch<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>, r: Rect, s: &Segment) -> Result<(), ChartError> {
        c.fill_rect(r, s.color.to_rgba())?;
        c.hatch(r, s.hatch, text_on(s.color).mix(0.45))
    }
}
