//! Colours and type sizes shared by every chart. Data colours come from the Okabe–Ito palette,
//! which stays distinguishable under the common forms of colour-vision deficiency; every colour is
//! paired with a second cue (marker shape, hatching, a direct label or a legend entry in order).

use plotters::style::RGBColor;

/// Okabe–Ito palette.
pub const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
pub const SKY_BLUE: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
pub const BLUISH_GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
pub const YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
pub const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
pub const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
pub const REDDISH_PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
pub const INK: RGBColor = RGBColor(0x33, 0x33, 0x33);

/// Series colours for one-marker-per-model charts, most distinct first.
pub const SERIES: [RGBColor; 8] = [BLUE, VERMILLION, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, SKY_BLUE, INK, YELLOW];

/// Verdict colours, the same wherever a verdict is shown.
pub const VERDICT_UNCERTAIN: RGBColor = ORANGE;
pub const VERDICT_REPORTABLE: RGBColor = VERMILLION;
pub const VERDICT_NON_REPORTABLE: RGBColor = BLUE;
pub const VERDICT_NONE: RGBColor = RGBColor(0xA8, 0xAF, 0xB7);

/// Neutral interface colours.
pub const TEXT: RGBColor = RGBColor(0x1F, 0x23, 0x28);
pub const MUTED: RGBColor = RGBColor(0x57, 0x60, 0x6A);
pub const GRID: RGBColor = RGBColor(0xE4, 0xE7, 0xEB);
pub const AXIS: RGBColor = RGBColor(0x8C, 0x95, 0x9F);
pub const GUIDE: RGBColor = RGBColor(0x6E, 0x77, 0x81);
pub const PLOT_BG: RGBColor = RGBColor(0xFB, 0xFC, 0xFD);
pub const WHITE: RGBColor = RGBColor(0xFF, 0xFF, 0xFF);

/// Outer padding of every chart, in logical pixels.
pub const PAD: f64 = 24.0;
/// Type sizes in logical pixels. Keep them even: plotters' ab_glyph renderer rounds each glyph's
/// vertical offset from half the font size, so odd or fractional sizes make glyphs jitter by a pixel.
pub const TITLE_SIZE: f64 = 20.0;
pub const SUBTITLE_SIZE: f64 = 14.0;
pub const AXIS_TITLE_SIZE: f64 = 14.0;
pub const TICK_SIZE: f64 = 12.0;
pub const LABEL_SIZE: f64 = 12.0;
pub const CAPTION_SIZE: f64 = 14.0;
pub const NOTE_SIZE: f64 = 12.0;

/// Relative luminance (WCAG) of a colour.
fn luminance(c: RGBColor) -> f64 {
    let ch = |v: u8| {
        let s = f64::from(v) / 255.0;
        if s <= 0.03928 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * ch(c.0) + 0.7152 * ch(c.1) + 0.0722 * ch(c.2)
}

/// The text colour (near-black or white) with the better contrast on `bg`.
pub fn text_on(bg: RGBColor) -> RGBColor {
    let l = luminance(bg);
    let on_dark = (1.0 + 0.05) / (l + 0.05);
    let on_light = (l + 0.05) / (luminance(TEXT) + 0.05);
    if on_dark > on_light {
        WHITE
    } else {
        TEXT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_choice() {
        assert_eq!(text_on(BLUE), WHITE);
        assert_eq!(text_on(ORANGE), TEXT);
        assert_eq!(text_on(YELLOW), TEXT);
    }
}
