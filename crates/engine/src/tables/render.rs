//! Rendering a [`Table`] as CSV (RFC 4180 quoting, empty field for null), GitHub Markdown (pipes,
//! padded columns, numbers right-aligned, best values in bold) and LaTeX (booktabs, like the paper).

use super::model::{Align, Cell, Table};
use crate::util::csv_text::{csv_string, CsvWriteError};
use crate::util::latex::latex_escape;

/// The dash shown for a missing value in Markdown.
const NULL_MD: &str = "–";
/// The dash shown for a missing value in LaTeX (an en dash).
const NULL_TEX: &str = "--";

impl Table {
    /// CSV with a header row of the column names; null cells are empty fields.
    pub fn to_csv(&self) -> Result<String, CsvWriteError> {
        let header: Vec<String> = self.columns.iter().map(|c| c.name.clone()).collect();
        let rows = self.rows.iter().map(|row| row.iter().map(|c| c.plain().unwrap_or_default()).collect::<Vec<_>>());
        csv_string(std::iter::once(header).chain(rows))
    }

    /// GitHub-flavoured Markdown: the title in bold, the table, then the caption.
    pub fn to_markdown(&self) -> String {
        let best = self.best_cells();
        let header: Vec<String> = self.columns.iter().map(|c| md_escape(&c.name)).collect();
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .enumerate()
            .map(|(ri, row)| {
                (0..self.columns.len())
                    .map(|ci| {
                        let text = row.get(ci).and_then(Cell::plain).map(|s| md_escape(&s));
                        match text {
                            None => NULL_MD.to_string(),
                            Some(t) if best[ri].get(ci).copied().unwrap_or(false) => format!("**{t}**"),
                            Some(t) => t,
                        }
                    })
                    .collect()
            })
            .collect();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count().max(3)).collect();
        for row in &body {
            for (ci, cell) in row.iter().enumerate() {
                widths[ci] = widths[ci].max(cell.chars().count());
            }
        }
        let pad = |text: &str, ci: usize| -> String {
            let n = widths[ci].saturating_sub(text.chars().count());
            match self.columns[ci].align {
                Align::Left => format!("{text}{}", " ".repeat(n)),
                Align::Right => format!("{}{text}", " ".repeat(n)),
            }
        };
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));

        let mut out = format!("**{}**\n\n", md_escape(&self.title));
        out.push_str(&line(header.iter().enumerate().map(|(ci, h)| pad(h, ci)).collect()));
        out.push_str(&line(
            self.columns
                .iter()
                .enumerate()
                .map(|(ci, c)| match c.align {
                    Align::Left => format!(":{}", "-".repeat(widths[ci] - 1)),
                    Align::Right => format!("{}:", "-".repeat(widths[ci] - 1)),
                })
                .collect(),
        ));
        for row in &body {
            out.push_str(&line(row.iter().enumerate().map(|(ci, t)| pad(t, ci)).collect()));
        }
        if self.rows.is_empty() {
            out.push_str("\n_No results to show yet._\n");
        }
        if !self.caption.is_empty() {
            out.push('\n');
            out.push_str(&self.caption);
            out.push('\n');
        }
        out
    }

    /// A LaTeX `table` (or `table*` when wide) with booktabs rules, bold per-column best values
    /// where the table asks for them, and `\label{tab:<id>}`.
    pub fn to_latex(&self) -> String {
        let n = self.columns.len();
        let best = self.best_cells();
        let wide = n > 6;
        let env = if wide { "table*" } else { "table" };
        let size = if n > 12 {
            "\\scriptsize"
        } else if wide {
            "\\footnotesize"
        } else {
            "\\small"
        };
        let spec: String = self
            .columns
            .iter()
            .map(|c| match c.align {
                Align::Left => 'l',
                Align::Right => 'r',
            })
            .collect();

        let mut out = String::new();
        out.push_str("% Requires \\usepackage{booktabs}\n");
        out.push_str(&format!("\\begin{{{env}}}[t]\n\\centering\n{size}\n"));
        if n > 12 {
            out.push_str("\\setlength{\\tabcolsep}{3pt}\n");
        }
        out.push_str(&format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n"));

        // Group headers (e.g. "M3" over P / R / F1).
        if !self.groups.is_empty() {
            let mut cells: Vec<String> = Vec::new();
            let mut rules = String::new();
            let mut ci = 0;
            let mut groups = self.groups.clone();
            groups.sort_by_key(|g| g.first);
            for g in &groups {
                while ci < g.first {
                    cells.push(String::new());
                    ci += 1;
                }
                cells.push(format!("\\multicolumn{{{}}}{{c}}{{{}}}", g.span, g.latex));
                rules.push_str(&format!("\\cmidrule(lr){{{}-{}}}", g.first + 1, g.first + g.span));
                ci += g.span;
            }
            while ci < n {
                cells.push(String::new());
                ci += 1;
            }
            out.push_str(&format!("{} \\\\\n{rules}\n", cells.join(" & ")));
        }

        // Column headers: as many rows as the tallest column needs.
        let header_rows = self.columns.iter().map(|c| c.latex_header.len().max(1)).max().unwrap_or(1);
        for r in 0..header_rows {
            let cells: Vec<String> = self
                .columns
                .iter()
                .map(|c| {
                    if c.latex_header.is_empty() {
                        if r == 0 {
                            format!("\\textbf{{{}}}", latex_escape(&c.name))
                        } else {
                            String::new()
                        }
                    } else {
                        c.latex_header.get(r).cloned().unwrap_or_default()
                    }
                })
                .collect();
            out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
        }
        out.push_str("\\midrule\n");

        if self.rows.is_empty() {
            out.push_str(&format!("\\multicolumn{{{n}}}{{c}}{{\\emph{{No results to show yet.}}}} \\\\\n"));
        }
        for (ri, row) in self.rows.iter().enumerate() {
            let cells: Vec<String> = (0..n)
                .map(|ci| match row.get(ci).and_then(Cell::plain) {
                    None => NULL_TEX.to_string(),
                    Some(t) => {
                        let t = latex_escape(&t);
                        if best[ri].get(ci).copied().unwrap_or(false) {
                            format!("\\textbf{{{t}}}")
                        } else {
                            t
                        }
                    }
                })
                .collect();
            out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n");
        out.push_str(&format!("\\caption{{{}}}\n", latex_escape(&self.caption)));
        out.push_str(&format!("\\label{{tab:{}}}\n\\end{{{env}}}\n", self.id));
        out
    }
}

/// Escape what would break a Markdown table cell: pipes and line breaks.
fn md_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::model::{Best, Column};

    fn sample() -> Table {
        let mut t = Table::new(
            "demo",
            "Demo table",
            "Scores in %; – means not defined.",
            vec![Column::text("Model"), Column::number("M1").best(Best::Max), Column::number("M2")],
        );
        t.rows.push(vec![Cell::text("A_1 & co"), Cell::num(Some(50.0)), Cell::num(None)]);
        t.rows.push(vec![Cell::text("B|x"), Cell::num(Some(75.04)), Cell::num(Some(3.25))]);
        t
    }

    #[test]
    fn csv_quotes_and_nulls() {
        let mut t = sample();
        t.rows[0][0] = Cell::text("A, \"quoted\"");
        assert_eq!(t.to_csv().unwrap(), "Model,M1,M2\n\"A, \"\"quoted\"\"\",50.0,\nB|x,75.0,3.2\n");
    }

    #[test]
    fn markdown_is_padded_and_right_aligned() {
        let md = sample().to_markdown();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "**Demo table**");
        assert_eq!(lines[2], "| Model    |       M1 |  M2 |");
        assert_eq!(lines[3], "| :------- | -------: | --: |");
        assert_eq!(lines[4], "| A_1 & co |     50.0 |   – |");
        assert_eq!(lines[5], "| B\\|x     | **75.0** | 3.2 |");
    }

    #[test]
    fn latex_escapes_and_bolds() {
        let tex = sample().to_latex();
        assert!(tex.contains("\\begin{tabular}{lrr}"), "{tex}");
        assert!(tex.contains("\\toprule\n\\textbf{Model} & \\textbf{M1} & \\textbf{M2} \\\\\n\\midrule\n"), "{tex}");
        assert!(tex.contains("A\\_1 \\& co & 50.0 & -- \\\\"), "{tex}");
        assert!(tex.contains("B\\textbar{}x & \\textbf{75.0} & 3.2 \\\\"), "{tex}");
        assert!(tex.contains("\\caption{Scores in \\%; -- means not defined.}"), "{tex}");
        assert!(tex.contains("\\label{tab:demo}"));
        assert!(tex.contains("\\bottomrule"));
    }

    #[test]
    fn single_row_is_not_bolded() {
        let mut t = sample();
        t.rows.truncate(1);
        assert!(!t.to_latex().contains("\\textbf{50.0}"));
        assert!(!t.to_markdown().contains("**50.0**"));
    }

    #[test]
    fn ties_are_all_bold_but_a_uniform_column_is_not() {
        let mut t = sample();
        t.rows.push(vec![Cell::text("C"), Cell::num(Some(75.0)), Cell::num(None)]);
        let tex = t.to_latex();
        assert!(tex.contains("B\\textbar{}x & \\textbf{75.0}") && tex.contains("C & \\textbf{75.0}"), "{tex}");
        for row in &mut t.rows {
            row[1] = Cell::num(Some(100.0));
        }
        assert!(!t.to_latex().contains("\\textbf{100.0}"));
    }

    #[test]
    fn empty_table_says_so() {
        let mut t = sample();
        t.rows.clear();
        assert!(t.to_latex().contains("No results to show yet."));
        assert!(t.to_markdown().contains("No results to show yet."));
        assert_eq!(t.to_csv().unwrap(), "Model,M1,M2\n");
    }
}
