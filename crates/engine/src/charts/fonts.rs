//! The chart fonts: DejaVu Sans (regular and bold) embedded in the binary and registered once with
//! plotters' ab_glyph registry. No system fonts are used for PNGs; SVGs name the same family with
//! close fallbacks so browsers without DejaVu still lay text out at a similar width.

use plotters::style::{register_font, FontDesc, FontFamily, FontStyle};
use std::sync::OnceLock;

use super::ChartError;

static REGULAR: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans-Bold.ttf");

/// The family name charts draw with. It is also written into SVG `font-family` attributes, so it
/// lists fallbacks with similar metrics.
pub const FAMILY: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

/// Register the embedded fonts (once per process); later calls return the first outcome.
pub fn ensure_fonts() -> Result<(), ChartError> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        register_font(FAMILY, FontStyle::Normal, REGULAR)
            .map_err(|_| "the embedded DejaVu Sans font could not be read".to_string())?;
        register_font(FAMILY, FontStyle::Bold, BOLD)
            .map_err(|_| "the embedded DejaVu Sans Bold font could not be read".to_string())?;
        Ok(())
    })
    .clone()
    .map_err(ChartError::Font)
}

/// Width of `text` in logical pixels at font size `size` (measured at a large size for precision).
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    const REF: f64 = 1000.0;
    let style = if bold { FontStyle::Bold } else { FontStyle::Normal };
    let font = FontDesc::new(FontFamily::Name(FAMILY), REF, style);
    match font.box_size(text) {
        Ok((w, _)) => f64::from(w) * size / REF,
        // Fonts failed to load: a rough average glyph width keeps layout sane.
        Err(_) => text.chars().count() as f64 * size * 0.6,
    }
}

/// Just enough of a TrueType font to read each glyph's left side bearing (`cmap` format 4 and
/// `hmtx`). plotters' ab_glyph renderer places glyphs without their bearings, which makes small
/// bitmap text unevenly spaced; PNG text is therefore drawn glyph by glyph with the bearing added.
struct Face {
    data: &'static [u8],
    cmap4: usize,
    hmtx: usize,
    n_hmetrics: usize,
    /// Font units per unit of plotters font size (ab_glyph scales by ascent − descent).
    per_size: f64,
}

fn be16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*d.get(at)?, *d.get(at + 1)?]))
}

fn be32(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([*d.get(at)?, *d.get(at + 1)?, *d.get(at + 2)?, *d.get(at + 3)?]))
}

impl Face {
    fn parse(data: &'static [u8]) -> Option<Face> {
        let n = usize::from(be16(data, 4)?);
        let table = |tag: &[u8; 4]| -> Option<usize> {
            (0..n).find_map(|i| {
                let rec = 12 + 16 * i;
                (data.get(rec..rec + 4)? == tag).then(|| be32(data, rec + 8).map(|o| o as usize)).flatten()
            })
        };
        let (cmap, hhea, hmtx) = (table(b"cmap")?, table(b"hhea")?, table(b"hmtx")?);
        let ascent = f64::from(be16(data, hhea + 4)? as i16);
        let descent = f64::from(be16(data, hhea + 6)? as i16);
        let n_hmetrics = usize::from(be16(data, hhea + 34)?);
        let subtables = usize::from(be16(data, cmap + 2)?);
        let cmap4 = (0..subtables).find_map(|i| {
            let rec = cmap + 4 + 8 * i;
            let (platform, encoding) = (be16(data, rec)?, be16(data, rec + 2)?);
            let at = cmap + be32(data, rec + 4)? as usize;
            let unicode = (platform == 3 && encoding == 1) || (platform == 0 && encoding == 3);
            (unicode && be16(data, at)? == 4).then_some(at)
        })?;
        let height = ascent - descent;
        (height > 0.0).then_some(Face { data, cmap4, hmtx, n_hmetrics, per_size: 1.0 / height })
    }

    fn glyph(&self, ch: char) -> Option<u16> {
        let c = u16::try_from(u32::from(ch)).ok()?;
        let d = self.data;
        let t = self.cmap4;
        let segs = usize::from(be16(d, t + 6)?) / 2;
        let ends = t + 14;
        let starts = ends + 2 * segs + 2;
        let deltas = starts + 2 * segs;
        let ranges = deltas + 2 * segs;
        for s in 0..segs {
            if be16(d, ends + 2 * s)? < c {
                continue;
            }
            let start = be16(d, starts + 2 * s)?;
            if start > c {
                return None;
            }
            let delta = be16(d, deltas + 2 * s)?;
            let range = usize::from(be16(d, ranges + 2 * s)?);
            if range == 0 {
                return Some(c.wrapping_add(delta));
            }
            let at = ranges + 2 * s + range + 2 * usize::from(c - start);
            let g = be16(d, at)?;
            return (g != 0).then(|| g.wrapping_add(delta));
        }
        None
    }

    /// Left side bearing of `ch` as a fraction of the plotters font size.
    fn lsb(&self, ch: char) -> Option<f64> {
        let g = usize::from(self.glyph(ch)?);
        let at = if g < self.n_hmetrics {
            self.hmtx + 4 * g + 2
        } else {
            self.hmtx + 4 * self.n_hmetrics + 2 * (g - self.n_hmetrics)
        };
        Some(f64::from(be16(self.data, at)? as i16) * self.per_size)
    }
}

/// Left side bearing of `ch` in the chart font, as a fraction of the font size (0 if unknown).
pub fn left_bearing(ch: char, bold: bool) -> f64 {
    static FACES: OnceLock<(Option<Face>, Option<Face>)> = OnceLock::new();
    let (regular, bold_face) = FACES.get_or_init(|| (Face::parse(REGULAR), Face::parse(BOLD)));
    let face = if bold { bold_face } else { regular };
    face.as_ref().and_then(|f| f.lsb(ch)).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bearings_from_the_embedded_fonts() {
        // 'l' and 'C' have clearly positive bearings in DejaVu Sans; a space has none to speak of.
        assert!(left_bearing('l', false) > 0.02, "{}", left_bearing('l', false));
        assert!(left_bearing('C', true) > 0.01);
        assert!(Face::parse(REGULAR).and_then(|f| f.glyph('→')).is_some());
    }
}
