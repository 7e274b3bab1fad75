//! The generic table shape every exported table uses: columns (with optional LaTeX header lines and
//! column groups), rows of typed cells, and the rule for bolding the best value of a column.

use serde::Serialize;

/// Horizontal alignment of a column: text left, numbers right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Align {
    Left,
    Right,
}

/// Which value of a column is the best one (shown in bold in Markdown and LaTeX).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Best {
    None,
    Max,
    Min,
}

/// One column: a plain-text name (CSV and Markdown header) and optional LaTeX header lines.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Column {
    pub name: String,
    /// Header lines for LaTeX, already written as LaTeX (authored in code, never user data).
    /// Empty means "the escaped `name` in bold".
    pub latex_header: Vec<String>,
    pub align: Align,
    pub best: Best,
}

impl Column {
    /// A left-aligned text column (model names, clause labels).
    pub fn text(name: impl Into<String>) -> Column {
        Column { name: name.into(), latex_header: Vec::new(), align: Align::Left, best: Best::None }
    }

    /// A right-aligned numeric column.
    pub fn number(name: impl Into<String>) -> Column {
        Column { name: name.into(), latex_header: Vec::new(), align: Align::Right, best: Best::None }
    }

    /// Set the LaTeX header lines (raw LaTeX, one entry per header row).
    pub fn latex(mut self, lines: &[&str]) -> Column {
        self.latex_header = lines.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Mark which value of this column is the best one.
    pub fn best(mut self, best: Best) -> Column {
        self.best = best;
        self
    }
}

/// A header spanning several adjacent columns (LaTeX only: `\multicolumn` + `\cmidrule`).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ColumnGroup {
    /// Raw LaTeX for the group header.
    pub latex: String,
    /// Index of the first column covered.
    pub first: usize,
    pub span: usize,
}

/// One table cell. Null values render as "–" (Markdown), "--" (LaTeX) and an empty field (CSV).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cell {
    Text {
        text: String,
    },
    Number {
        value: Option<f64>,
        decimals: u8,
    },
    Count {
        value: Option<u64>,
    },
    /// A count with its row percentage, shown as `171 (66.5)`.
    CountPct {
        count: Option<u64>,
        pct: Option<f64>,
    },
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text { text: s.into() }
    }

    /// A percentage or score with one decimal.
    pub fn num(value: Option<f64>) -> Cell {
        Cell::Number { value, decimals: 1 }
    }

    pub fn num_with(value: Option<f64>, decimals: u8) -> Cell {
        Cell::Number { value, decimals }
    }

    pub fn count(value: Option<u64>) -> Cell {
        Cell::Count { value }
    }

    /// The cell as plain text, or `None` when it holds no value.
    pub fn plain(&self) -> Option<String> {
        match self {
            Cell::Text { text } => Some(text.clone()),
            Cell::Number { value, decimals } => value.and_then(|v| fmt_fixed(v, *decimals)),
            Cell::Count { value } => value.map(|v| v.to_string()),
            Cell::CountPct { count, pct } => {
                let pct = pct.and_then(|p| fmt_fixed(p, 1));
                match (count, pct) {
                    (Some(c), Some(p)) => Some(format!("{c} ({p})")),
                    (Some(c), None) => Some(c.to_string()),
                    (None, Some(p)) => Some(format!("({p})")),
                    (None, None) => None,
                }
            }
        }
    }

    /// The value used to find a column's best cell: the number as displayed (rounded), so that
    /// values that print the same are all bold.
    pub fn rank_value(&self) -> Option<f64> {
        match self {
            Cell::Number { value: Some(v), decimals } if v.is_finite() => {
                let f = 10f64.powi(i32::from(*decimals));
                Some((v * f).round() / f)
            }
            Cell::Count { value: Some(v) } => Some(*v as f64),
            _ => None,
        }
    }
}

/// Format with a fixed number of decimals; never prints "-0.0"; `None` for NaN or infinity.
pub fn fmt_fixed(v: f64, decimals: u8) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    let s = format!("{:.*}", usize::from(decimals), v);
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        Some(s[1..].to_string())
    } else {
        Some(s)
    }
}

/// A titled, captioned table with typed cells, renderable as CSV, Markdown and LaTeX.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Table {
    /// Stable identifier: file stem of the exports and the LaTeX label (`tab:<id>`).
    pub id: String,
    pub title: String,
    /// How to read the table, in plain text (escaped for LaTeX when rendered).
    pub caption: String,
    pub columns: Vec<Column>,
    pub groups: Vec<ColumnGroup>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(id: &str, title: &str, caption: impl Into<String>, columns: Vec<Column>) -> Table {
        Table {
            id: id.to_string(),
            title: title.to_string(),
            caption: caption.into(),
            columns,
            groups: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Which cells are the best of their column. A column is only ranked when at least two rows
    /// have a value and they are not all equal (otherwise there is nothing to single out).
    pub fn best_cells(&self) -> Vec<Vec<bool>> {
        let mut marks: Vec<Vec<bool>> = self.rows.iter().map(|r| vec![false; r.len()]).collect();
        for (ci, col) in self.columns.iter().enumerate() {
            if col.best == Best::None {
                continue;
            }
            let values: Vec<(usize, f64)> = self
                .rows
                .iter()
                .enumerate()
                .filter_map(|(ri, r)| r.get(ci).and_then(Cell::rank_value).map(|v| (ri, v)))
                .collect();
            if values.len() < 2 {
                continue;
            }
            let target = match col.best {
                Best::Max => values.iter().map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max),
                Best::Min => values.iter().map(|(_, v)| *v).fold(f64::INFINITY, f64::min),
                Best::None => continue,
            };
            // Nothing stands out when every row has the same value.
            if values.iter().all(|(_, v)| *v == target) {
                continue;
            }
            for (ri, v) in values {
                if v == target {
                    marks[ri][ci] = true;
                }
            }
        }
        marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::format::fmt_thousands;

    #[test]
    fn fixed_formatting() {
        assert_eq!(fmt_fixed(94.649, 1).as_deref(), Some("94.6"));
        assert_eq!(fmt_fixed(-0.04, 1).as_deref(), Some("0.0"));
        assert_eq!(fmt_fixed(f64::NAN, 1), None);
        assert_eq!(fmt_fixed(1.015, 2).as_deref(), Some("1.01"));
    }

    #[test]
    fn thousands() {
        assert_eq!(fmt_thousands(0), "0");
        assert_eq!(fmt_thousands(257), "257");
        assert_eq!(fmt_thousands(3455), "3,455");
        assert_eq!(fmt_thousands(1234567), "1,234,567");
    }

    #[test]
    fn count_pct_cells() {
        assert_eq!(Cell::CountPct { count: Some(171), pct: Some(66.54) }.plain().as_deref(), Some("171 (66.5)"));
        assert_eq!(Cell::CountPct { count: None, pct: None }.plain(), None);
    }
}
