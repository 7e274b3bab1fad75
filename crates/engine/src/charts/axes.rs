//! Numeric axes: linear (0–100 %) and log (token counts), their ticks, gridlines and titles.
//!
//! Custom because plotters' mesh labels skip glyph bearings and its log axis cannot keep to 1–2–5 ticks.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::HPos;
use plotters::style::Color;

use super::canvas::{Canvas, Font, Rect};
use super::style::*;
use super::ChartError;
use crate::util::format::fmt_thousands;

/// How values map onto an axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Linear from `min` to `max`, a labelled tick every `step`.
    Linear { min: f64, max: f64, step: f64 },
    /// Base-10 logarithmic from `min` to `max` (both > 0).
    Log { min: f64, max: f64 },
}

impl Scale {
    /// Position of `v` along the axis, 0 at the start and 1 at the end (unclamped).
    pub fn frac(&self, v: f64) -> f64 {
        match *self {
            Scale::Linear { min, max, .. } => (v - min) / (max - min),
            Scale::Log { min, max } => (v.ln() - min.ln()) / (max.ln() - min.ln()),
        }
    }

    /// Tick values with their labels.
    pub fn ticks(&self) -> Vec<(f64, String)> {
        match *self {
            Scale::Linear { min, max, step } => {
                let n = ((max - min) / step).round() as i64;
                (0..=n).map(|i| min + step * i as f64).map(|v| (v, fmt_tick(v))).collect()
            }
            Scale::Log { min, max } => {
                let (d0, d1) = (min.log10().floor() as i32, max.log10().ceil() as i32);
                let all: Vec<f64> = (d0..=d1)
                    .flat_map(|d| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(d)))
                    .filter(|v| *v >= min * 0.999 && *v <= max * 1.001)
                    .collect();
                let chosen: Vec<f64> = if all.len() > 12 {
                    all.into_iter().filter(|v| (v.log10() - v.log10().round()).abs() < 1e-9).collect()
                } else {
                    all
                };
                chosen.into_iter().map(|v| (v, fmt_tick(v))).collect()
            }
        }
    }
}

/// "1,000" for whole numbers, "0.5" otherwise.
pub fn fmt_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 && v >= 0.0 {
        fmt_thousands(v.round() as u64)
    } else if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A log range covering `lo..=hi` with some air, snapped to 1–2–5 steps.
pub fn log_range(lo: f64, hi: f64) -> Scale {
    let snap_down = |v: f64| {
        let d = 10f64.powf(v.log10().floor());
        [5.0, 2.0, 1.0].iter().map(|m| m * d).find(|c| *c <= v).unwrap_or(d)
    };
    let snap_up = |v: f64| {
        let d = 10f64.powf(v.log10().floor());
        [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * d).find(|c| *c >= v).unwrap_or(10.0 * d)
    };
    let lo = snap_down(lo / 1.4);
    let mut hi = snap_up(hi * 1.4);
    if hi <= lo {
        hi = lo * 10.0;
    }
    Scale::Log { min: lo, max: hi }
}

/// A plot rectangle with an x and a y scale.
#[derive(Debug, Clone, Copy)]
pub struct Axes {
    pub plot: Rect,
    pub x: Scale,
    pub y: Scale,
}

/// Space the y tick labels and y title take left of the plot.
pub const Y_AXIS_W: f64 = 62.0;
/// Space the x tick labels and x title take below the plot.
pub const X_AXIS_H: f64 = 50.0;

impl Axes {
    pub fn px(&self, v: f64) -> f64 {
        self.plot.x0 + self.x.frac(v) * self.plot.w()
    }
    pub fn py(&self, v: f64) -> f64 {
        self.plot.y1 - self.y.frac(v) * self.plot.h()
    }

    /// Background, gridlines, tick labels and both axis titles.
    pub fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>, x_title: &str, y_title: &str) -> Result<(), ChartError> {
        let p = self.plot;
        c.fill_rect(p, PLOT_BG.to_rgba())?;
        let tick = Font::new(TICK_SIZE, MUTED);
        for (v, label) in self.x.ticks() {
            let x = self.px(v);
            c.line(&[(x, p.y0), (x, p.y1)], GRID.to_rgba(), 1.0)?;
            c.line(&[(x, p.y1), (x, p.y1 + 4.0)], AXIS.to_rgba(), 1.0)?;
            c.text(&label, x, p.y1 + 14.0, tick, HPos::Center)?;
        }
        for (v, label) in self.y.ticks() {
            let y = self.py(v);
            c.line(&[(p.x0, y), (p.x1, y)], GRID.to_rgba(), 1.0)?;
            c.line(&[(p.x0 - 4.0, y), (p.x0, y)], AXIS.to_rgba(), 1.0)?;
            c.text(&label, p.x0 - 8.0, y, tick, HPos::Right)?;
        }
        c.line(&[(p.x0, p.y0), (p.x0, p.y1), (p.x1, p.y1)], AXIS.to_rgba(), 1.0)?;
        let title = Font::new(AXIS_TITLE_SIZE, TEXT);
        c.text(x_title, (p.x0 + p.x1) / 2.0, p.y1 + 38.0, title, HPos::Center)?;
        c.text_vertical(y_title, p.x0 - Y_AXIS_W + 10.0, (p.y0 + p.y1) / 2.0, title)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_are_1_2_5() {
        let s = log_range(180.0, 3100.0);
        assert_eq!(s, Scale::Log { min: 100.0, max: 5000.0 });
        let labels: Vec<String> = s.ticks().into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["100", "200", "500", "1,000", "2,000", "5,000"]);
    }

    #[test]
    fn linear_ticks() {
        let s = Scale::Linear { min: 0.0, max: 100.0, step: 20.0 };
        let labels: Vec<String> = s.ticks().into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["0", "20", "40", "60", "80", "100"]);
        assert!((s.frac(50.0) - 0.5).abs() < 1e-12);
    }
}
