//! Escaping plain text (model names, clause titles, captions, session names) for LaTeX documents.

/// Escape every character LaTeX treats specially in running text, so it prints as itself:
/// `\ { } $ & # ^ _ ~ %` and `< > |` (which the default OT1 font encoding would print as other
/// glyphs). Dashes, arrows and ≤/≥ become their LaTeX spellings; line breaks become spaces.
pub fn latex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            '–' => out.push_str("--"),
            '—' => out.push_str("---"),
            '→' => out.push_str("$\\to$"),
            '≥' => out.push_str("$\\geq$"),
            '≤' => out.push_str("$\\leq$"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::latex_escape;

    #[test]
    fn every_special_character_is_escaped() {
        let cases = [
            ("\\", "\\textbackslash{}"),
            ("{", "\\{"),
            ("}", "\\}"),
            ("$", "\\$"),
            ("&", "\\&"),
            ("#", "\\#"),
            ("^", "\\textasciicircum{}"),
            ("_", "\\_"),
            ("~", "\\textasciitilde{}"),
            ("%", "\\%"),
            ("<", "\\textless{}"),
            (">", "\\textgreater{}"),
            ("|", "\\textbar{}"),
        ];
        for (raw, tex) in cases {
            assert_eq!(latex_escape(raw), tex, "{raw}");
        }
    }

    #[test]
    fn mixed_text_keeps_ordinary_characters() {
        assert_eq!(
            latex_escape("A&B_1 50% #2 {x} ~^\\"),
            "A\\&B\\_1 50\\% \\#2 \\{x\\} \\textasciitilde{}\\textasciicircum{}\\textbackslash{}"
        );
        assert_eq!(latex_escape("model <v2> | beta"), "model \\textless{}v2\\textgreater{} \\textbar{} beta");
        assert_eq!(latex_escape("Zoë's café, 12.5"), "Zoë's café, 12.5");
    }

    #[test]
    fn escaped_text_has_no_bare_specials() {
        // A backslash introduced by the escaper must not be escaped again, and braces it adds stay paired.
        let out = latex_escape("\\{}");
        assert_eq!(out, "\\textbackslash{}\\{\\}");
    }

    #[test]
    fn typography_and_line_breaks() {
        assert_eq!(latex_escape("1–5 — a → b, x ≥ 2, y ≤ 3"), "1--5 --- a $\\to$ b, x $\\geq$ 2, y $\\leq$ 3");
        assert_eq!(latex_escape("two\nlines\r"), "two lines ");
    }
}
