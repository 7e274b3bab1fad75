//! The chart fonts: DejaVu Sans (regular and bold) embedded in the binary and registered once with
//! plotters' ab_glyph registry. No system fonts are used for PNGs; SVGs name the same family with
//! close fallbacks so browsers without DejaVu still lay text out at a similar width.

use ab_glyph::{Font as _, FontRef};
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

/// Left side bearing of `ch` as a fraction of the plotters font size, read with ab_glyph (the
/// parser plotters itself renders with). plotters' ab_glyph renderer places glyphs without their
/// bearings, which makes small bitmap text unevenly spaced; PNG text is therefore drawn glyph by
/// glyph with the bearing added. Font size in plotters is ascent − descent, hence the divisor.
fn bearing_in(font: &FontRef<'static>, ch: char) -> Option<f64> {
    let id = font.glyph_id(ch);
    if id.0 == 0 {
        // No glyph for `ch`: plotters draws nothing useful there, so no bearing either.
        return None;
    }
    let height = f64::from(font.height_unscaled());
    (height > 0.0).then(|| f64::from(font.h_side_bearing_unscaled(id)) * (1.0 / height))
}

/// Left side bearing of `ch` in the chart font, as a fraction of the font size (0 if unknown).
pub fn left_bearing(ch: char, bold: bool) -> f64 {
    static FACES: OnceLock<(Option<FontRef<'static>>, Option<FontRef<'static>>)> = OnceLock::new();
    let (regular, bold_face) =
        FACES.get_or_init(|| (FontRef::try_from_slice(REGULAR).ok(), FontRef::try_from_slice(BOLD).ok()));
    let face = if bold { bold_face } else { regular };
    face.as_ref().and_then(|f| bearing_in(f, ch)).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bearings_from_the_embedded_fonts() {
        // 'l' and 'C' have clearly positive bearings in DejaVu Sans; a space has none to speak of.
        assert!(left_bearing('l', false) > 0.02, "{}", left_bearing('l', false));
        assert!(left_bearing('C', true) > 0.01);
        // DejaVu units: 2048 per em, ascent − descent = 2384; 'l' has a bearing of 193 units.
        assert_eq!(left_bearing('l', false), 193.0 / 2384.0);
        assert!(left_bearing('→', false) > 0.0);
        // A character the font lacks has no bearing.
        assert_eq!(left_bearing('\u{E000}', false), 0.0);
    }
}
