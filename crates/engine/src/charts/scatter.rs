//! One labelled point per model: the M5-vs-M6 information-seeking map (with quadrants) and
//! completion tokens vs verdict accuracy (log x axis).
//!
//! Custom because plotters has no overlap-avoiding point labels and no diamond or down-triangle markers.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::HPos;
use plotters::style::{Color, RGBColor};

use super::axes::{log_range, Axes, Scale, X_AXIS_H, Y_AXIS_W};
use super::canvas::{Canvas, Font, Rect, Shape};
use super::frame::{shorten_name, Frame};
use super::labels::place_labels;
use super::style::*;
use super::ChartError;
use crate::metrics::MetricsReport;

const WIDTH: f64 = 960.0;
const BODY_H: f64 = 600.0;
const MARKER_R: f64 = 6.0;
const MAX_LABEL_W: f64 = 190.0;

/// One model's point.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub model: String,
    /// Position of the model in the report (fixes its colour and marker shape).
    pub index: usize,
    pub x: f64,
    pub y: f64,
}

/// Colour and marker shape of the model at `index`; the pair is unique for the first 40 models.
pub fn model_style(index: usize) -> (RGBColor, Shape) {
    let color = SERIES[index % SERIES.len()];
    let shape = Shape::ALL[(index + index / SERIES.len()) % Shape::ALL.len()];
    (color, shape)
}

/// A prepared scatter chart.
#[derive(Debug, Clone)]
pub struct Scatter {
    pub frame: Frame,
    pub height: f64,
    pub x: Scale,
    pub y: Scale,
    pub x_title: String,
    pub y_title: String,
    pub quadrants: bool,
    pub points: Vec<Point>,
}

/// "A, B and C".
pub fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Why a model has no point on the M5-vs-M6 map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unplotted {
    /// The model's cases include no missing-information case: there was nothing to ask about.
    NoMissingCases,
    /// It had missing-information cases and asked on none of them, so M6 (what it asked for)
    /// is undefined.
    NeverAsked,
    /// Anything else (e.g. the cases record no withheld facts to compare its questions with).
    Other,
}

fn unplotted(m: &crate::metrics::ModelMetrics) -> Unplotted {
    if m.by_case_type.missing.cases == 0 {
        Unplotted::NoMissingCases
    } else if m.m5.is_some_and(|p| p.tp == 0) {
        Unplotted::NeverAsked
    } else {
        Unplotted::Other
    }
}

/// The M5-vs-M6 scatter, or `None` (with the reason) when no model has both values.
pub fn m5_m6(report: &MetricsReport, title: &str, extra: &[String]) -> Result<Scatter, (String, Vec<String>)> {
    let mut points = Vec::new();
    // Each model left out: its name, why, and how many missing-information cases it had.
    let mut skipped: Vec<(String, Unplotted, u64)> = Vec::new();
    for (index, m) in report.models.iter().enumerate() {
        match (m.m5.map(|p| p.f1), m.m6.map(|p| p.f1)) {
            (Some(x), Some(y)) if x.is_finite() && y.is_finite() => {
                points.push(Point { model: m.model.clone(), index, x: x.clamp(0.0, 100.0), y: y.clamp(0.0, 100.0) })
            }
            _ => skipped.push((m.model.clone(), unplotted(m), m.by_case_type.missing.cases)),
        }
    }
    let names = |why: Unplotted| -> Vec<String> {
        skipped.iter().filter(|(_, w, _)| *w == why).map(|(n, _, _)| n.clone()).collect()
    };
    let (no_missing, never_asked, other) =
        (names(Unplotted::NoMissingCases), names(Unplotted::NeverAsked), names(Unplotted::Other));
    let mut notes = Vec::new();
    if !no_missing.is_empty() {
        notes.push(format!(
            "Not plotted: {} (no missing-information cases in {}, so there was nothing to ask about).",
            join_names(&no_missing),
            if no_missing.len() == 1 { "its run" } else { "their runs" }
        ));
    }
    if !never_asked.is_empty() {
        notes.push(format!(
            "Not plotted: {} (never asked a question on {} missing-information cases, so M6, whether the questions \
             find the withheld facts, is undefined; M5 is 0).",
            join_names(&never_asked),
            if never_asked.len() == 1 { "its" } else { "their" }
        ));
    }
    if !other.is_empty() {
        notes.push(format!(
            "Not plotted: {} (M6 is undefined: its missing-information cases record no withheld facts to compare the \
             questions with).",
            join_names(&other)
        ));
    }
    // Notes from the caller (e.g. runs that are not comparable) come after the chart's own.
    notes.extend_from_slice(extra);
    if points.is_empty() {
        let message = if other.is_empty() && never_asked.is_empty() {
            "These runs have no missing-information cases, so there was nothing to ask about. Include \
             missing-information cases in a run to see this chart."
                .to_string()
        } else if other.is_empty() && no_missing.is_empty() {
            match skipped.as_slice() {
                [(_, _, cases)] => format!(
                    "The run had {cases} missing-information case{}, but the model never asked a question on them, so \
                     there are no questions to score (its M5 is 0).",
                    plural(*cases as usize)
                ),
                _ => "The runs had missing-information cases, but no model asked a question on any of them, so there \
                      are no questions to score (M5 is 0 for every model)."
                    .to_string(),
            }
        } else {
            "No model has both M5 and M6: the notes below say why for each model.".to_string()
        };
        return Err((message, notes));
    }
    let n = points.len();
    let frame = Frame::new(
        WIDTH,
        title,
        &format!("M5 missing-case detection F1 against M6 missing-slot identification F1 · {n} model{}", plural(n)),
        "One marker per model. Further right: asks when facts are missing, and only then. Higher: its questions \
         find the withheld facts.",
        &notes,
    );
    let height = frame.height_for(BODY_H);
    Ok(Scatter {
        frame,
        height,
        x: Scale::Linear { min: 0.0, max: 100.0, step: 10.0 },
        y: Scale::Linear { min: 0.0, max: 100.0, step: 10.0 },
        x_title: "M5 · missing-case detection F1 (%)".into(),
        y_title: "M6 · missing-slot identification F1 (%)".into(),
        quadrants: true,
        points,
    })
}

/// Average completion tokens per case against M1, or the reason it cannot be drawn.
pub fn tokens_vs_m1(report: &MetricsReport, title: &str, extra: &[String]) -> Result<Scatter, (String, Vec<String>)> {
    let mut points = Vec::new();
    let mut no_tokens = Vec::new();
    let mut no_m1 = Vec::new();
    for (index, m) in report.models.iter().enumerate() {
        let tokens = m.tokens.avg_completion_tokens.filter(|t| t.is_finite() && *t > 0.0);
        let m1 = m.m1.filter(|v| v.is_finite());
        match (tokens, m1) {
            (Some(x), Some(y)) => points.push(Point { model: m.model.clone(), index, x, y: y.clamp(0.0, 100.0) }),
            (None, _) => no_tokens.push(m.model.clone()),
            (Some(_), None) => no_m1.push(m.model.clone()),
        }
    }
    let mut notes = Vec::new();
    if !no_tokens.is_empty() {
        notes.push(format!("Not plotted (no completion-token counts recorded): {}.", join_names(&no_tokens)));
    }
    if !no_m1.is_empty() {
        notes.push(format!("Not plotted (M1 undefined): {}.", join_names(&no_m1)));
    }
    // Notes from the caller (e.g. runs that are not comparable) come after the chart's own.
    notes.extend_from_slice(extra);
    if points.is_empty() {
        return Err(("No model has both token counts and a verdict accuracy yet.".into(), notes));
    }
    let lo = points.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.x).fold(0.0, f64::max);
    let n = points.len();
    let frame = Frame::new(
        WIDTH,
        title,
        &format!(
            "Average completion tokens per case (model side only) against M1 verdict accuracy · {n} model{}",
            plural(n)
        ),
        "One marker per model. Further right: more completion tokens per case (log scale). Higher: more correct \
         verdicts.",
        &notes,
    );
    let height = frame.height_for(BODY_H);
    Ok(Scatter {
        frame,
        height,
        x: log_range(lo, hi),
        y: Scale::Linear { min: 0.0, max: 100.0, step: 10.0 },
        x_title: "Average completion tokens per case (log scale)".into(),
        y_title: "M1 · verdict accuracy (%)".into(),
        quadrants: false,
        points,
    })
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

impl Scatter {
    pub fn size(&self) -> (f64, f64) {
        (self.frame.width, self.height)
    }

    pub fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>) -> Result<(), ChartError> {
        self.frame.draw(c, self.height)?;
        let body = self.frame.body(self.height);
        let plot = Rect::new(body.x0 + Y_AXIS_W, body.y0 + 4.0, body.x1 - 6.0, body.y1 - X_AXIS_H);
        let axes = Axes { plot, x: self.x, y: self.y };
        axes.draw(c, &self.x_title, &self.y_title)?;

        // Quadrant guides and their plain-language names.
        let mut obstacles = Vec::new();
        if self.quadrants {
            let (qx, qy) = (axes.px(50.0), axes.py(50.0));
            c.dashed((qx, plot.y0), (qx, plot.y1), GUIDE.to_rgba(), 1.5, 7.0, 5.0)?;
            c.dashed((plot.x0, qy), (plot.x1, qy), GUIDE.to_rgba(), 1.5, 7.0, 5.0)?;
            obstacles.push((Rect::new(qx - 1.5, plot.y0, qx + 1.5, plot.y1), 0.5));
            obstacles.push((Rect::new(plot.x0, qy - 1.5, plot.x1, qy + 1.5), 0.5));
            let font = Font::new(LABEL_SIZE, MUTED).bold();
            let inset = 10.0;
            let quads = [
                // (text, anchor x, anchor y, anchored at its right edge, anchored at its bottom edge)
                ("asks and targets the gap", plot.x1 - inset, plot.y0 + inset, true, false),
                ("asks but misses the gap", plot.x1 - inset, plot.y1 - inset, true, true),
                ("rarely asks", plot.x0 + inset, plot.y0 + inset, false, false),
            ];
            for (text, x, y, from_right, from_bottom) in quads {
                let w = font.width(text);
                let hgt = font.size * 1.25;
                let x0 = if from_right { x - w } else { x };
                let y0 = if from_bottom { y - hgt } else { y };
                let rect = Rect::new(x0, y0, x0 + w, y0 + hgt);
                obstacles.push((rect.inflate(3.0), 3.0));
                c.text(text, x0, y0 + hgt / 2.0, font, HPos::Left)?;
            }
        }

        // Markers, then labels placed around them.
        let pix: Vec<(f64, f64)> = self.points.iter().map(|p| (axes.px(p.x), axes.py(p.y))).collect();
        let label_font = Font::new(LABEL_SIZE, TEXT);
        let names: Vec<String> = self.points.iter().map(|p| shorten_name(&p.model, label_font, MAX_LABEL_W)).collect();
        let sizes: Vec<(f64, f64)> = names.iter().map(|n| (label_font.width(n) + 6.0, LABEL_SIZE + 5.0)).collect();
        let placed = place_labels(&pix, &sizes, MARKER_R, plot.inflate(-2.0), &obstacles);
        for (i, pl) in placed.iter().enumerate() {
            if pl.leader {
                let (x, y) = pix[i];
                let (nx, ny) = pl.rect.nearest(x, y);
                c.line(&[(x, y), (nx, ny)], GUIDE.mix(0.8), 1.0)?;
            }
        }
        for (p, (x, y)) in self.points.iter().zip(&pix) {
            let (color, shape) = model_style(p.index);
            c.marker(shape, *x, *y, MARKER_R, color)?;
        }
        for (i, pl) in placed.iter().enumerate() {
            c.fill_rect(pl.rect, WHITE.mix(0.82))?;
            c.text(&names[i], pl.rect.x0 + 3.0, (pl.rect.y0 + pl.rect.y1) / 2.0, label_font, HPos::Left)?;
        }
        Ok(())
    }
}
