//! A thin drawing layer over a plotters drawing area. Every coordinate and size is given in logical
//! pixels and multiplied by the scale factor, so a 2× PNG has exactly the layout of the 1× one.
//!
//! Custom because plotters' bitmap text drops glyph bearings and it has no hatch fills or 1×/2×-independent units.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontDesc, FontFamily, FontStyle, FontTransform, RGBAColor, ShapeStyle};

use super::fonts::{left_bearing, text_width, FAMILY};
use super::ChartError;

/// An axis-aligned rectangle in logical pixels (`x0 <= x1`, `y0 <= y1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect { x0: x0.min(x1), y0: y0.min(y1), x1: x0.max(x1), y1: y0.max(y1) }
    }
    pub fn w(&self) -> f64 {
        self.x1 - self.x0
    }
    pub fn h(&self) -> f64 {
        self.y1 - self.y0
    }
    /// Area shared with `o` (0 when disjoint).
    pub fn overlap(&self, o: &Rect) -> f64 {
        let w = self.x1.min(o.x1) - self.x0.max(o.x0);
        let h = self.y1.min(o.y1) - self.y0.max(o.y0);
        if w > 0.0 && h > 0.0 {
            w * h
        } else {
            0.0
        }
    }
    pub fn contains(&self, o: &Rect) -> bool {
        o.x0 >= self.x0 && o.x1 <= self.x1 && o.y0 >= self.y0 && o.y1 <= self.y1
    }
    pub fn inflate(&self, d: f64) -> Rect {
        Rect { x0: self.x0 - d, y0: self.y0 - d, x1: self.x1 + d, y1: self.y1 + d }
    }
    /// The point of the rectangle closest to `(x, y)`.
    pub fn nearest(&self, x: f64, y: f64) -> (f64, f64) {
        (x.clamp(self.x0, self.x1), y.clamp(self.y0, self.y1))
    }
}

/// A text style in logical pixels.
#[derive(Debug, Clone, Copy)]
pub struct Font {
    pub size: f64,
    pub bold: bool,
    pub color: RGBColor,
}

impl Font {
    pub fn new(size: f64, color: RGBColor) -> Font {
        Font { size, bold: false, color }
    }
    pub fn bold(mut self) -> Font {
        self.bold = true;
        self
    }
    pub fn width(&self, text: &str) -> f64 {
        text_width(text, self.size, self.bold)
    }
}

/// Marker shapes for scatter points (a second cue besides colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
}

impl Shape {
    pub const ALL: [Shape; 5] = [Shape::Circle, Shape::Square, Shape::TriangleUp, Shape::Diamond, Shape::TriangleDown];
}

/// Fill patterns drawn over a colour so neighbouring segments differ without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hatch {
    None,
    Diagonal,
    BackDiagonal,
    Cross,
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> ChartError {
    ChartError::Drawing(e.to_string())
}

/// Where the middle of the lower-case letters sits below the top of a glyph box as plotters'
/// ab_glyph renderer lays it out (baseline at half the size, x-height ≈ 0.47 of the size).
const GLYPH_TOP_TO_MIDDLE: f64 = 0.266;

/// Logical-pixel drawing on a plotters area at scale `s`.
pub struct Canvas<'a, DB: DrawingBackend> {
    area: &'a DrawingArea<DB, Shift>,
    s: f64,
    /// Draw text one glyph at a time with its side bearing (bitmaps); SVG keeps whole strings.
    glyphwise: bool,
}

impl<'a, DB: DrawingBackend> Canvas<'a, DB> {
    /// `glyphwise` should be true for bitmap backends (see [`Canvas::text`]).
    pub fn new(area: &'a DrawingArea<DB, Shift>, scale: f64, glyphwise: bool) -> Self {
        Canvas { area, s: scale, glyphwise }
    }

    fn p(&self, v: f64) -> i32 {
        (v * self.s).round() as i32
    }

    fn pt(&self, x: f64, y: f64) -> (i32, i32) {
        (self.p(x), self.p(y))
    }

    fn stroke(&self, color: RGBAColor, width: f64) -> ShapeStyle {
        ShapeStyle { color, filled: false, stroke_width: ((width * self.s).round() as u32).max(1) }
    }

    fn fill(&self, color: RGBAColor) -> ShapeStyle {
        ShapeStyle { color, filled: true, stroke_width: 1 }
    }

    fn font_desc(&self, font: &Font) -> FontDesc<'static> {
        let style = if font.bold { FontStyle::Bold } else { FontStyle::Normal };
        FontDesc::new(FontFamily::Name(FAMILY), font.size * self.s, style)
    }

    /// The font for SVG text. plotters writes `font-size` as size / 1.24, while its bitmap renderer
    /// scales DejaVu by ascent − descent (2384 of 2048 units per em); this factor makes SVG text
    /// the size it is measured and drawn at in PNGs.
    fn svg_font_desc(&self, font: &Font) -> FontDesc<'static> {
        const SVG_SIZE_FACTOR: f64 = 1.24 * 2048.0 / 2384.0;
        let style = if font.bold { FontStyle::Bold } else { FontStyle::Normal };
        FontDesc::new(FontFamily::Name(FAMILY), font.size * self.s * SVG_SIZE_FACTOR, style)
    }

    /// Fill the whole area.
    pub fn clear(&self, color: RGBColor) -> Result<(), ChartError> {
        self.area.fill(&color).map_err(draw_err)
    }

    /// Draw one line of text anchored horizontally by `h` at `x`, with the middle of its
    /// lower-case letters on `y`.
    ///
    /// On bitmaps each glyph is placed at its pen position plus its left side bearing, which
    /// plotters' ab_glyph renderer leaves out; in SVG the string stays whole so it is selectable.
    pub fn text(&self, text: &str, x: f64, y: f64, font: Font, h: HPos) -> Result<(), ChartError> {
        if text.is_empty() {
            return Ok(());
        }
        if !self.glyphwise {
            let style = self.svg_font_desc(&font).color(&font.color).pos(Pos::new(h, VPos::Center));
            return self.area.draw_text(text, &style, self.pt(x, y)).map_err(draw_err);
        }
        let start = self.anchor_offset(text, font, h);
        let style = self.font_desc(&font).color(&font.color).pos(Pos::new(HPos::Left, VPos::Top));
        let size = font.size * self.s;
        let top = (y * self.s - GLYPH_TOP_TO_MIDDLE * size).round() as i32;
        self.glyphs(text, font, |ch, pen, lsb| {
            let gx = ((x + start + pen) * self.s).round() as i32 + lsb;
            self.area.draw_text(ch, &style, (gx, top)).map_err(draw_err)
        })
    }

    /// Draw text rotated to read bottom-to-top, centred on `(x, y)`.
    pub fn text_vertical(&self, text: &str, x: f64, y: f64, font: Font) -> Result<(), ChartError> {
        if !self.glyphwise {
            let style = self
                .svg_font_desc(&font)
                .transform(FontTransform::Rotate270)
                .color(&font.color)
                .pos(Pos::new(HPos::Center, VPos::Center));
            return self.area.draw_text(text, &style, self.pt(x, y)).map_err(draw_err);
        }
        let start = self.anchor_offset(text, font, HPos::Center);
        let style = self
            .font_desc(&font)
            .transform(FontTransform::Rotate270)
            .color(&font.color)
            .pos(Pos::new(HPos::Left, VPos::Top));
        let size = font.size * self.s;
        let left = (x * self.s - GLYPH_TOP_TO_MIDDLE * size).round() as i32;
        self.glyphs(text, font, |ch, pen, lsb| {
            let gy = ((y - start - pen) * self.s).round() as i32 - lsb;
            self.area.draw_text(ch, &style, (left, gy)).map_err(draw_err)
        })
    }

    /// Offset of the text start from the anchor, in logical pixels.
    fn anchor_offset(&self, text: &str, font: Font, h: HPos) -> f64 {
        match h {
            HPos::Left => 0.0,
            HPos::Center => -font.width(text) / 2.0,
            HPos::Right => -font.width(text),
        }
    }

    /// Call `draw(glyph, pen offset in logical px, bearing in device px)` for each visible glyph.
    fn glyphs(
        &self,
        text: &str,
        font: Font,
        mut draw: impl FnMut(&str, f64, i32) -> Result<(), ChartError>,
    ) -> Result<(), ChartError> {
        let size = font.size * self.s;
        let mut buf = [0u8; 4];
        for (i, ch) in text.char_indices() {
            if ch.is_whitespace() {
                continue;
            }
            let pen = font.width(&text[..i]);
            let lsb = (left_bearing(ch, font.bold) * size).floor() as i32;
            draw(ch.encode_utf8(&mut buf), pen, lsb)?;
        }
        Ok(())
    }

    pub fn fill_rect(&self, r: Rect, color: RGBAColor) -> Result<(), ChartError> {
        let (a, b) = (self.pt(r.x0, r.y0), self.pt(r.x1, r.y1));
        // plotters fills both end pixels; stop one short so adjacent rectangles do not overlap.
        let b = ((b.0 - 1).max(a.0), (b.1 - 1).max(a.1));
        self.area.draw(&Rectangle::new([a, b], self.fill(color))).map_err(draw_err)
    }

    pub fn stroke_rect(&self, r: Rect, color: RGBAColor, width: f64) -> Result<(), ChartError> {
        let pts = vec![(r.x0, r.y0), (r.x1, r.y0), (r.x1, r.y1), (r.x0, r.y1), (r.x0, r.y0)];
        self.line(&pts, color, width)
    }

    pub fn line(&self, pts: &[(f64, f64)], color: RGBAColor, width: f64) -> Result<(), ChartError> {
        let pts: Vec<(i32, i32)> = pts.iter().map(|(x, y)| self.pt(*x, *y)).collect();
        self.area.draw(&PathElement::new(pts, self.stroke(color, width))).map_err(draw_err)
    }

    /// A dashed straight line from `a` to `b`.
    pub fn dashed(
        &self,
        a: (f64, f64),
        b: (f64, f64),
        color: RGBAColor,
        width: f64,
        dash: f64,
        gap: f64,
    ) -> Result<(), ChartError> {
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        if len <= 0.0 {
            return Ok(());
        }
        let (ux, uy) = ((b.0 - a.0) / len, (b.1 - a.1) / len);
        let mut t = 0.0;
        while t < len {
            let e = (t + dash).min(len);
            self.line(&[(a.0 + ux * t, a.1 + uy * t), (a.0 + ux * e, a.1 + uy * e)], color, width)?;
            t += dash + gap;
        }
        Ok(())
    }

    /// A filled marker with a thin dark outline, centred on `(x, y)`, of radius about `r`.
    pub fn marker(&self, shape: Shape, x: f64, y: f64, r: f64, color: RGBColor) -> Result<(), ChartError> {
        let outline = RGBColor(0x22, 0x22, 0x22).to_rgba();
        let fill = self.fill(color.to_rgba());
        let ring = self.stroke(outline, 1.0);
        let poly: Vec<(f64, f64)> = match shape {
            Shape::Circle => {
                let c = self.pt(x, y);
                let rr = ((r * self.s).round() as i32).max(1);
                self.area.draw(&Circle::new(c, rr, fill)).map_err(draw_err)?;
                return self.area.draw(&Circle::new(c, rr, ring)).map_err(draw_err);
            }
            Shape::Square => {
                let h = r * 0.88;
                vec![(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]
            }
            Shape::TriangleUp => {
                let h = r * 1.25;
                vec![(x, y - h), (x + h * 0.95, y + h * 0.7), (x - h * 0.95, y + h * 0.7)]
            }
            Shape::TriangleDown => {
                let h = r * 1.25;
                vec![(x, y + h), (x + h * 0.95, y - h * 0.7), (x - h * 0.95, y - h * 0.7)]
            }
            Shape::Diamond => {
                let h = r * 1.2;
                vec![(x, y - h), (x + h, y), (x, y + h), (x - h, y)]
            }
        };
        let pts: Vec<(i32, i32)> = poly.iter().map(|(px, py)| self.pt(*px, *py)).collect();
        self.area.draw(&Polygon::new(pts.clone(), fill)).map_err(draw_err)?;
        let mut closed = pts;
        if let Some(first) = closed.first().copied() {
            closed.push(first);
        }
        self.area.draw(&PathElement::new(closed, ring)).map_err(draw_err)
    }

    /// Draw a hatch pattern clipped to `r`.
    pub fn hatch(&self, r: Rect, hatch: Hatch, color: RGBAColor) -> Result<(), ChartError> {
        let spacing = 6.0;
        let h = r.h();
        let diag = |forward: bool| -> Result<(), ChartError> {
            // Lines x = c + t (forward) or x = c - t, y = y1 - t, t in [0, h], clipped to [x0, x1].
            let mut c = if forward { r.x0 - h } else { r.x0 };
            let end = if forward { r.x1 } else { r.x1 + h };
            while c <= end {
                let (t0, t1) = if forward {
                    ((r.x0 - c).max(0.0), (r.x1 - c).min(h))
                } else {
                    ((c - r.x1).max(0.0), (c - r.x0).min(h))
                };
                if t1 > t0 {
                    let x = |t: f64| if forward { c + t } else { c - t };
                    self.line(&[(x(t0), r.y1 - t0), (x(t1), r.y1 - t1)], color, 1.0)?;
                }
                c += spacing;
            }
            Ok(())
        };
        match hatch {
            Hatch::None => Ok(()),
            Hatch::Diagonal => diag(true),
            Hatch::BackDiagonal => diag(false),
            Hatch::Cross => {
                diag(true)?;
                diag(false)
            }
        }
    }
}
