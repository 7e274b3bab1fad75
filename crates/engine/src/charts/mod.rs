//! Charts of the paper's figures, rendered with plotters to SVG (shown in the app) and PNG (export).
//!
//! Every chart explains itself: a title asking its question, a subtitle naming what is plotted,
//! labelled axes with units, direct labels (model names next to scatter points), and a caption in
//! the bottom margin on how to read it, including which models were left out and why. Colours
//! come from the Okabe–Ito palette and are always paired with a shape, hatch or label. A report
//! with nothing to plot renders an explanatory "no data" chart instead of failing.
//!
//! Layout is computed in logical pixels; SVG and 1× PNG use them as-is, and a 2× PNG multiplies
//! every coordinate, size and stroke by two, so it is the same picture at double resolution.

mod axes;
mod bars;
mod canvas;
mod fonts;
mod frame;
mod labels;
pub mod png;
mod scatter;
mod stacked;
mod style;

#[cfg(test)]
mod tests;

use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use std::fmt;

use crate::error::{ApiError, ErrorCode};
use crate::metrics::MetricsReport;
use crate::policy::PolicyPack;
use canvas::{Canvas, Font};
use frame::{wrap, Frame};

/// The charts PSEBench draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChartKind {
    /// M5 (decides to ask) against M6 (asks for the right thing), one point per model.
    M5M6Scatter,
    /// Average completion tokens per case (log x) against M1.
    TokensVsM1,
    /// Mean M1 across models for every clause, hardest first.
    PerClauseDifficulty,
    /// Verdicts given on uncertain cases, as 100 % stacked bars per model.
    UncertainRouting,
    /// Number of questions asked on missing cases, as 100 % stacked bars per model.
    AskDistribution,
}

impl ChartKind {
    pub const ALL: [ChartKind; 5] = [
        ChartKind::M5M6Scatter,
        ChartKind::TokensVsM1,
        ChartKind::PerClauseDifficulty,
        ChartKind::UncertainRouting,
        ChartKind::AskDistribution,
    ];

    /// Stable identifier (file stem of exports, URL segment in the app).
    pub fn id(self) -> &'static str {
        match self {
            ChartKind::M5M6Scatter => "m5_m6_scatter",
            ChartKind::TokensVsM1 => "tokens_vs_m1",
            ChartKind::PerClauseDifficulty => "per_clause_difficulty",
            ChartKind::UncertainRouting => "uncertain_routing",
            ChartKind::AskDistribution => "ask_distribution",
        }
    }

    /// The question the chart answers (its title).
    pub fn title(self) -> &'static str {
        match self {
            ChartKind::M5M6Scatter => "Do models ask when facts are missing, and do they ask for the right facts?",
            ChartKind::TokensVsM1 => "Do models that write more get more verdicts right?",
            ChartKind::PerClauseDifficulty => "Which clauses are hardest to triage correctly?",
            ChartKind::UncertainRouting => "What do models answer when the policy leaves the event uncertain?",
            ChartKind::AskDistribution => "How many questions do models ask when facts are missing?",
        }
    }

    /// What the chart plots, in one phrase (the subtitle of its "no data" version).
    pub fn shows(self) -> &'static str {
        match self {
            ChartKind::M5M6Scatter => {
                "M5 missing-case detection F1 against M6 missing-slot identification F1, one marker per model"
            }
            ChartKind::TokensVsM1 => {
                "Average completion tokens per case against M1 verdict accuracy, one marker per model"
            }
            ChartKind::PerClauseDifficulty => "Mean M1 verdict accuracy for each clause of the policy, hardest first",
            ChartKind::UncertainRouting => "Verdicts given on uncertain cases, one 100 % bar per model",
            ChartKind::AskDistribution => "Number of ASK actions on missing cases, one 100 % bar per model",
        }
    }

    pub fn parse(id: &str) -> Option<ChartKind> {
        ChartKind::ALL.into_iter().find(|k| k.id() == id)
    }
}

/// Why a chart could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartError {
    /// The embedded fonts could not be loaded.
    Font(String),
    /// plotters failed while drawing.
    Drawing(String),
    /// PNG scale outside 1..=4.
    InvalidScale(u32),
    /// The PNG could not be encoded.
    Encode(png::PngError),
    /// The PNG would be too large to draw in memory.
    TooLarge { width: u32, height: u32 },
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::Font(m) => write!(f, "the chart fonts could not be loaded: {m}"),
            ChartError::Drawing(m) => write!(f, "the chart could not be drawn: {m}"),
            ChartError::InvalidScale(s) => write!(f, "a PNG scale of {s} is not supported; use 1, 2, 3 or 4"),
            ChartError::Encode(m) => write!(f, "the PNG could not be written: {m}"),
            ChartError::TooLarge { width, height } => {
                write!(f, "a {width}×{height} PNG is too large to draw; use a smaller scale or the SVG instead")
            }
        }
    }
}

impl std::error::Error for ChartError {}

impl From<ChartError> for ApiError {
    fn from(e: ChartError) -> Self {
        let code = match e {
            ChartError::InvalidScale(_) => ErrorCode::InvalidInput,
            _ => ErrorCode::Internal,
        };
        ApiError::new(code, e.to_string())
    }
}

/// A chart's words, for alt text and the app's figure captions.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct ChartText {
    pub id: String,
    pub title: String,
    /// The reading guide and any notes about models or clauses left out.
    pub caption: String,
}

/// The "nothing to plot" chart: the title, a headline and what to do next.
#[derive(Debug, Clone)]
struct Empty {
    frame: Frame,
    height: f64,
    message: String,
}

const EMPTY_W: f64 = 960.0;
const EMPTY_BODY_H: f64 = 260.0;

impl Empty {
    fn new(kind: ChartKind, message: String, notes: Vec<String>) -> Empty {
        let frame = Frame::new(
            EMPTY_W,
            kind.title(),
            kind.shows(),
            "This chart fills in once the report has results for it: evaluate models on cases, then score the \
             trajectories.",
            &notes,
        );
        let height = frame.height_for(EMPTY_BODY_H);
        Empty { frame, height, message }
    }

    fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>) -> Result<(), ChartError> {
        self.frame.draw(c, self.height)?;
        let body = self.frame.body(self.height);
        c.fill_rect(body, style::PLOT_BG.to_rgba())?;
        c.stroke_rect(body, style::GRID.to_rgba(), 1.0)?;
        let head = Font::new(16.0, style::TEXT).bold();
        c.text("No data to plot", (body.x0 + body.x1) / 2.0, body.y0 + body.h() / 2.0 - 20.0, head, HPos::Center)?;
        let font = Font::new(style::CAPTION_SIZE, style::MUTED);
        for (i, line) in wrap(&self.message, font, body.w() - 80.0).iter().enumerate() {
            let y = body.y0 + body.h() / 2.0 + 8.0 + i as f64 * 18.0;
            c.text(line, (body.x0 + body.x1) / 2.0, y, font, HPos::Center)?;
        }
        Ok(())
    }
}

/// A chart ready to draw at any scale.
enum Prepared {
    Scatter(scatter::Scatter),
    Bars(bars::ClauseBars),
    Stacked(stacked::Stacked),
    Empty(Empty),
}

impl Prepared {
    /// `extra` notes are added under the chart's own (e.g. that the runs shown are not comparable).
    fn new(kind: ChartKind, report: &MetricsReport, pack: &PolicyPack, extra: &[String]) -> Prepared {
        let title = kind.title();
        let result = match kind {
            ChartKind::M5M6Scatter => scatter::m5_m6(report, title, extra).map(Prepared::Scatter),
            ChartKind::TokensVsM1 => scatter::tokens_vs_m1(report, title, extra).map(Prepared::Scatter),
            ChartKind::PerClauseDifficulty => bars::per_clause(report, pack, title, extra).map(Prepared::Bars),
            ChartKind::UncertainRouting => stacked::routing(report, title, extra).map(Prepared::Stacked),
            ChartKind::AskDistribution => stacked::asks(report, title, extra).map(Prepared::Stacked),
        };
        match result {
            Ok(p) => p,
            Err((message, notes)) => {
                let message = if report.models.is_empty() {
                    "The report has no models. Load cases and trajectories, or finish a run, to see results here."
                        .to_string()
                } else {
                    message
                };
                Prepared::Empty(Empty::new(kind, message, notes))
            }
        }
    }

    fn frame(&self) -> &Frame {
        match self {
            Prepared::Scatter(c) => &c.frame,
            Prepared::Bars(c) => &c.frame,
            Prepared::Stacked(c) => &c.frame,
            Prepared::Empty(c) => &c.frame,
        }
    }

    /// Size in logical pixels (whole numbers).
    fn size(&self) -> (u32, u32) {
        let (w, h) = match self {
            Prepared::Scatter(c) => c.size(),
            Prepared::Bars(c) => c.size(),
            Prepared::Stacked(c) => c.size(),
            Prepared::Empty(c) => (c.frame.width, c.height),
        };
        (w.ceil() as u32, h.ceil() as u32)
    }

    fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>) -> Result<(), ChartError> {
        match self {
            Prepared::Scatter(p) => p.draw(c),
            Prepared::Bars(p) => p.draw(c),
            Prepared::Stacked(p) => p.draw(c),
            Prepared::Empty(p) => p.draw(c),
        }
    }
}

/// Size of a chart in logical pixels (the SVG size and the 1× PNG size).
pub fn chart_size(kind: ChartKind, report: &MetricsReport, pack: &PolicyPack) -> Result<(u32, u32), ChartError> {
    fonts::ensure_fonts()?;
    Ok(Prepared::new(kind, report, pack, &[]).size())
}

/// The chart's title and caption as text (for alt text and the app's figure captions).
pub fn chart_text(kind: ChartKind, report: &MetricsReport, pack: &PolicyPack) -> Result<ChartText, ChartError> {
    chart_text_noted(kind, report, pack, &[])
}

/// [`chart_text`] with notes of the caller's after the chart's own.
pub fn chart_text_noted(
    kind: ChartKind,
    report: &MetricsReport,
    pack: &PolicyPack,
    notes: &[String],
) -> Result<ChartText, ChartError> {
    fonts::ensure_fonts()?;
    let p = Prepared::new(kind, report, pack, notes);
    // A "no data" chart says why in its body; the words lead its caption so they reach the
    // page and the image's alternative text too.
    let caption = match &p {
        Prepared::Empty(e) => format!("No data to plot: {} {}", e.message, p.frame().caption_text()),
        _ => p.frame().caption_text(),
    };
    Ok(ChartText { id: kind.id().to_string(), title: kind.title().to_string(), caption })
}

/// Render a chart as an SVG document.
pub fn render_svg(kind: ChartKind, report: &MetricsReport, pack: &PolicyPack) -> Result<String, ChartError> {
    render_svg_noted(kind, report, pack, &[])
}

/// [`render_svg`] with notes of the caller's under the chart's own.
pub fn render_svg_noted(
    kind: ChartKind,
    report: &MetricsReport,
    pack: &PolicyPack,
    notes: &[String],
) -> Result<String, ChartError> {
    fonts::ensure_fonts()?;
    let chart = Prepared::new(kind, report, pack, notes);
    let (w, h) = chart.size();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        chart.draw(&Canvas::new(&root, 1.0, false))?;
        root.present().map_err(|e| ChartError::Drawing(e.to_string()))?;
    }
    Ok(svg)
}

/// Supersampling factor for PNGs: charts are drawn at this multiple of the output size and
/// averaged down, which smooths lines and markers and spaces small text evenly.
const SUPERSAMPLE: u32 = 2;
/// Largest PNG (in pixels) we draw; supersampling is skipped above `MAX_PIXELS / 4`.
const MAX_PIXELS: u64 = 64_000_000;

/// Render a chart as PNG bytes at `scale` × its logical size (1 to 4; 2 for high-DPI exports).
pub fn render_png(
    kind: ChartKind,
    report: &MetricsReport,
    pack: &PolicyPack,
    scale: u32,
) -> Result<Vec<u8>, ChartError> {
    render_png_noted(kind, report, pack, scale, &[])
}

/// [`render_png`] with notes of the caller's under the chart's own.
pub fn render_png_noted(
    kind: ChartKind,
    report: &MetricsReport,
    pack: &PolicyPack,
    scale: u32,
    notes: &[String],
) -> Result<Vec<u8>, ChartError> {
    if !(1..=4).contains(&scale) {
        return Err(ChartError::InvalidScale(scale));
    }
    fonts::ensure_fonts()?;
    let chart = Prepared::new(kind, report, pack, notes);
    let (w, h) = chart.size();
    let (pw, ph) = (w * scale, h * scale);
    let pixels = u64::from(pw) * u64::from(ph);
    if pixels > MAX_PIXELS {
        return Err(ChartError::TooLarge { width: pw, height: ph });
    }
    let ss = if pixels * u64::from(SUPERSAMPLE * SUPERSAMPLE) > MAX_PIXELS { 1 } else { SUPERSAMPLE };
    let (dw, dh) = (pw * ss, ph * ss);
    let mut buf = vec![255u8; dw as usize * dh as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (dw, dh)).into_drawing_area();
        chart.draw(&Canvas::new(&root, f64::from(scale * ss), true))?;
        root.present().map_err(|e| ChartError::Drawing(e.to_string()))?;
    }
    let pixels = downsample(&buf, dw as usize, dh as usize, ss as usize);
    png::encode_rgb(pw, ph, &pixels, 96 * scale).map_err(ChartError::Encode)
}

/// Average `k`×`k` blocks of an RGB image (`w` and `h` are multiples of `k`). Runs of identical
/// rows and pixels take fast paths, which keeps debug builds quick on mostly flat charts.
fn downsample(rgb: &[u8], w: usize, h: usize, k: usize) -> Vec<u8> {
    if k <= 1 {
        return rgb.to_vec();
    }
    let (ow, oh) = (w / k, h / k);
    let stride = w * 3;
    let area = (k * k) as u32;
    let mut out = vec![0u8; ow * oh * 3];
    let mut sums = vec![0u32; stride];
    for oy in 0..oh {
        let block = &rgb[oy * k * stride..(oy + 1) * k * stride];
        let first = &block[..stride];
        let out_row = &mut out[oy * ow * 3..(oy + 1) * ow * 3];
        // All k rows equal and every pixel of the row equal: the output row is that pixel.
        let rows_equal = (1..k).all(|r| &block[r * stride..(r + 1) * stride] == first);
        if rows_equal && first.len() >= 3 && first[3..] == first[..first.len() - 3] {
            out_row.copy_from_slice(&first[..ow * 3]);
            continue;
        }
        for (s, v) in sums.iter_mut().zip(first) {
            *s = u32::from(*v);
        }
        if rows_equal {
            for s in sums.iter_mut() {
                *s *= k as u32;
            }
        } else {
            for r in 1..k {
                for (s, v) in sums.iter_mut().zip(&block[r * stride..(r + 1) * stride]) {
                    *s += u32::from(*v);
                }
            }
        }
        if k == 2 {
            for (px, s) in out_row.chunks_exact_mut(3).zip(sums.chunks_exact(6)) {
                px[0] = ((s[0] + s[3] + 2) / 4) as u8;
                px[1] = ((s[1] + s[4] + 2) / 4) as u8;
                px[2] = ((s[2] + s[5] + 2) / 4) as u8;
            }
            continue;
        }
        for (ox, px) in out_row.chunks_exact_mut(3).enumerate() {
            let base = ox * k * 3;
            for (c, out_c) in px.iter_mut().enumerate() {
                let mut total = 0;
                for dx in 0..k {
                    total += sums[base + dx * 3 + c];
                }
                *out_c = ((total + area / 2) / area) as u8;
            }
        }
    }
    out
}
