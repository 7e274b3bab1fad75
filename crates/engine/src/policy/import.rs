//! Import of official policy text: a Markdown document split into sections at every heading.
//! Each heading becomes an evidence identifier, mapped to a known clause label or guidance id
//! when they agree.

use regex::Regex;
use std::sync::OnceLock;

use super::{OfficialSection, PolicyPack};

/// A heading and the text under it (up to the next heading of any level).
#[derive(Debug, Clone, PartialEq)]
pub struct MdSection {
    pub level: u32,
    pub heading: String,
    pub body: String,
}

fn atx() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$").expect("static regex"))
}

/// Split Markdown at ATX (`#`) and setext (`===`/`---` underline) headings, ignoring code fences.
/// Text before the first heading becomes a section titled "Preamble" when it is not blank.
pub fn split_markdown(text: &str) -> Vec<MdSection> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<MdSection> = Vec::new();
    let mut cur = MdSection { level: 0, heading: "Preamble".into(), body: String::new() };
    let mut in_fence = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let mut heading: Option<(u32, String)> = None;
        if !in_fence {
            if let Some(c) = atx().captures(line) {
                let title = c.get(2).map(|m| m.as_str().trim()).unwrap_or("");
                if !title.is_empty() {
                    heading = Some((c[1].len() as u32, title.to_string()));
                }
            } else if i + 1 < lines.len() && !line.trim().is_empty() {
                let next = lines[i + 1].trim();
                if next.len() >= 3 && next.chars().all(|c| c == '=') {
                    heading = Some((1, line.trim().to_string()));
                } else if next.len() >= 3
                    && next.chars().all(|c| c == '-')
                    && !line.trim_start().starts_with(['-', '*', '|', '>'])
                {
                    heading = Some((2, line.trim().to_string()));
                }
                if heading.is_some() {
                    i += 1; // skip the underline
                }
            }
        }
        match heading {
            Some((level, title)) => {
                if cur.level > 0 || !cur.body.trim().is_empty() {
                    cur.body = cur.body.trim().to_string();
                    out.push(cur);
                }
                cur = MdSection { level, heading: title, body: String::new() };
            }
            None => {
                cur.body.push_str(line);
                cur.body.push('\n');
            }
        }
        i += 1;
    }
    if cur.level > 0 || !cur.body.trim().is_empty() {
        cur.body = cur.body.trim().to_string();
        out.push(cur);
    }
    out
}

fn normalize(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '(' || c == ')' || c == '.' { c.to_ascii_lowercase() } else { ' ' })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Does `heading` name `id` (exactly, or followed by a title, but not as a prefix of a longer
/// number: "General Recommendation 1" must not match "General Recommendation 12")?
fn names(heading_norm: &str, id: &str) -> bool {
    let id_norm = normalize(id);
    let mut from = 0;
    while let Some(pos) = heading_norm[from..].find(&id_norm) {
        let start = from + pos;
        let end = start + id_norm.len();
        let before_ok = start == 0 || !heading_norm.as_bytes()[start - 1].is_ascii_alphanumeric();
        let after_ok = end == heading_norm.len() || !heading_norm.as_bytes()[end].is_ascii_digit();
        if before_ok && after_ok {
            return true;
        }
        from = start + 1;
    }
    false
}

fn subdivision() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)subd(?:ivision)?\.?\s*(\d+[a-z]?)\s*(?:,?\s*(?:clause)?\s*\(?\s*(\d+)\s*\)?)?")
            .expect("static regex")
    })
}

fn gr_abbrev() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?i)\bGR\s*(\d+)\b").expect("static regex"))
}

/// The known evidence id a heading refers to, if any.
pub fn match_heading(pack: &PolicyPack, heading: &str) -> Option<String> {
    let h = normalize(heading);
    // Longest ids first so "Care Management Event Recommendation 1" wins over shorter overlaps.
    let mut ids: Vec<&str> =
        pack.clauses.iter().map(|c| c.label.as_str()).chain(pack.guidance.iter().map(|g| g.id.as_str())).collect();
    ids.sort_by_key(|s| std::cmp::Reverse(s.len()));
    if let Some(id) = ids.iter().find(|id| names(&h, id)) {
        return Some(id.to_string());
    }
    if let Some(c) = gr_abbrev().captures(heading) {
        let id = format!("General Recommendation {}", &c[1]);
        if pack.guidance.iter().any(|g| g.id == id) {
            return Some(id);
        }
    }
    if let Some(c) = subdivision().captures(heading) {
        if let Some(clause_no) = c.get(2) {
            let wanted = format!("subd. {}({})", c[1].to_lowercase(), clause_no.as_str());
            if let Some(cl) = pack.clauses.iter().find(|cl| cl.statute_ref.to_lowercase().ends_with(&wanted)) {
                return Some(cl.label.clone());
            }
        }
    }
    None
}

/// Turn a Markdown document into official sections for `source` (`clauses` or `guidance`).
pub fn sections_from_markdown(
    pack: &PolicyPack,
    source: &str,
    file_name: &str,
    text: &str,
    at: &str,
) -> Vec<OfficialSection> {
    let mut used: Vec<String> = Vec::new();
    split_markdown(text)
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let known = match_heading(pack, &s.heading);
            let matched = known.is_some();
            let mut id = known.unwrap_or_else(|| s.heading.split_whitespace().collect::<Vec<_>>().join(" "));
            if used.contains(&id) {
                let mut n = 2;
                while used.contains(&format!("{id} ({n})")) {
                    n += 1;
                }
                id = format!("{id} ({n})");
            }
            used.push(id.clone());
            OfficialSection {
                source: source.to_string(),
                ord: i as u32,
                level: s.level,
                heading: s.heading,
                evidence_id: id,
                matched,
                body: s.body,
                file_name: file_name.to_string(),
                imported_at: at.to_string(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_atx_and_setext_and_skips_fences() {
        let md = "Intro line\n\n# Title\nbody 1\n```\n# not a heading\n```\nSub\n---\nbody 2\n## Last ##\n";
        let s = split_markdown(md);
        let heads: Vec<_> = s.iter().map(|x| (x.level, x.heading.as_str())).collect();
        assert_eq!(heads, vec![(0, "Preamble"), (1, "Title"), (2, "Sub"), (2, "Last")]);
        assert!(s[1].body.contains("# not a heading"));
        assert_eq!(s[2].body, "body 2");
    }

    #[test]
    fn numbers_do_not_match_prefixes() {
        assert!(names(&normalize("General Recommendation 1: Serious injury"), "General Recommendation 1"));
        assert!(!names(&normalize("General Recommendation 12"), "General Recommendation 1"));
    }
}
