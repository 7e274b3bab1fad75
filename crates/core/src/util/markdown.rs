//! Text from users (session names, reviewer names) placed in Markdown we write: every ASCII
//! punctuation mark is backslash-escaped (CommonMark allows that for all of them), so the text
//! cannot open a tag, a link, a table cell or emphasis; line breaks become spaces; and the text
//! is wrapped in a Unicode bidi isolate, so a right-to-left override inside it cannot reorder
//! the words around it.
pub fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    out.push('\u{2068}');
    for c in s.chars() {
        match c {
            '\r' | '\n' => out.push(' '),
            c if c.is_control() => {}
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push('\u{2069}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_and_bidi_is_isolated() {
        let t = markdown_text("<b>x</b> | [a](javascript:b) *c*\n# d\u{202E}");
        assert!(!t.contains("<b>") && !t.contains("](") && !t.contains('\n'));
        assert!(t.contains("\\<b\\>") && t.contains("\\|") && t.contains("\\*c\\*"));
        assert!(t.starts_with('\u{2068}') && t.ends_with('\u{2069}'));
    }
}
