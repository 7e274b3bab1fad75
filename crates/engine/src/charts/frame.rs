//! The frame every chart shares: a title that asks the chart's question, a subtitle naming what is
//! plotted, and a caption (plus notes about anything left out) in the bottom margin.
//!
//! Custom because plotters' caption is a single unwrapped line; titles and captions here wrap to the width.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::HPos;
use plotters::style::Color;

use super::canvas::{Canvas, Font, Rect};
use super::style::*;
use super::ChartError;

const TITLE_LH: f64 = 27.0;
const SUBTITLE_LH: f64 = 20.0;
const CAPTION_LH: f64 = 20.0;
const NOTE_LH: f64 = 17.0;

/// Wrap `text` into lines no wider than `max_w` for `font` (words longer than a line are kept whole).
pub fn wrap(text: &str, font: Font, max_w: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let candidate = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if font.width(&candidate) <= max_w || cur.is_empty() {
            cur = candidate;
        } else {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Shorten `text` with an ellipsis so it fits `max_w`.
pub fn ellipsize(text: &str, font: Font, max_w: f64) -> String {
    if font.width(text) <= max_w {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut n = chars.len();
    while n > 1 {
        n -= 1;
        let s: String = chars[..n].iter().collect::<String>().trim_end().to_string() + "…";
        if font.width(&s) <= max_w {
            return s;
        }
    }
    "…".to_string()
}

/// Shorten a model name to fit `max_w`: first drop leading provider segments ("org/…/name"
/// becomes "…/name"), then cut the end with an ellipsis.
pub fn shorten_name(name: &str, font: Font, max_w: f64) -> String {
    if font.width(name) <= max_w {
        return name.to_string();
    }
    let mut rest = name;
    while let Some((_, tail)) = rest.split_once('/') {
        rest = tail;
        let candidate = format!("…/{rest}");
        if font.width(&candidate) <= max_w {
            return candidate;
        }
    }
    if rest.len() < name.len() {
        ellipsize(&format!("…/{rest}"), font, max_w)
    } else {
        ellipsize(name, font, max_w)
    }
}

/// Title, subtitle, caption and notes, wrapped to the chart width.
#[derive(Debug, Clone)]
pub struct Frame {
    pub width: f64,
    title: Vec<String>,
    subtitle: Vec<String>,
    caption: Vec<String>,
    notes: Vec<String>,
    text: String,
}

pub fn title_font() -> Font {
    Font::new(TITLE_SIZE, TEXT).bold()
}
pub fn subtitle_font() -> Font {
    Font::new(SUBTITLE_SIZE, MUTED)
}
pub fn caption_font() -> Font {
    Font::new(CAPTION_SIZE, TEXT)
}
pub fn note_font() -> Font {
    Font::new(NOTE_SIZE, MUTED)
}

impl Frame {
    pub fn new(width: f64, title: &str, subtitle: &str, caption: &str, notes: &[String]) -> Frame {
        let inner = width - 2.0 * PAD;
        Frame {
            width,
            title: wrap(title, title_font(), inner),
            subtitle: wrap(subtitle, subtitle_font(), inner),
            caption: wrap(caption, caption_font(), inner),
            notes: notes.iter().flat_map(|n| wrap(n, note_font(), inner)).collect(),
            text: std::iter::once(caption.to_string()).chain(notes.iter().cloned()).collect::<Vec<_>>().join(" "),
        }
    }

    /// The caption and notes as one paragraph (unwrapped).
    pub fn caption_text(&self) -> String {
        self.text.clone()
    }

    /// Where the chart body starts.
    pub fn top(&self) -> f64 {
        PAD + self.title.len() as f64 * TITLE_LH + self.subtitle.len() as f64 * SUBTITLE_LH + 14.0
    }

    /// Height of the bottom margin holding the caption and notes.
    pub fn bottom(&self) -> f64 {
        let text = self.caption.len() as f64 * CAPTION_LH + self.notes.len() as f64 * NOTE_LH;
        PAD + text + if self.notes.is_empty() { 0.0 } else { 4.0 } + 12.0
    }

    /// Total height for a body of `body_h`.
    pub fn height_for(&self, body_h: f64) -> f64 {
        (self.top() + body_h + self.bottom()).ceil()
    }

    /// The body rectangle of a chart of total height `height`.
    pub fn body(&self, height: f64) -> Rect {
        Rect::new(PAD, self.top(), self.width - PAD, height - self.bottom())
    }

    /// Draw the background, the header and the caption block.
    pub fn draw<DB: DrawingBackend>(&self, c: &Canvas<'_, DB>, height: f64) -> Result<(), ChartError> {
        c.clear(WHITE)?;
        let mut y = PAD;
        for line in &self.title {
            c.text(line, PAD, y + TITLE_LH / 2.0, title_font(), HPos::Left)?;
            y += TITLE_LH;
        }
        for line in &self.subtitle {
            c.text(line, PAD, y + SUBTITLE_LH / 2.0, subtitle_font(), HPos::Left)?;
            y += SUBTITLE_LH;
        }
        let mut y = height - self.bottom() + 12.0;
        c.line(&[(PAD, y - 6.0), (self.width - PAD, y - 6.0)], GRID.to_rgba(), 1.0)?;
        for line in &self.caption {
            c.text(line, PAD, y + CAPTION_LH / 2.0, caption_font(), HPos::Left)?;
            y += CAPTION_LH;
        }
        if !self.notes.is_empty() {
            y += 4.0;
        }
        for line in &self.notes {
            c.text(line, PAD, y + NOTE_LH / 2.0, note_font(), HPos::Left)?;
            y += NOTE_LH;
        }
        Ok(())
    }
}
