//! Text helpers: snake_case checks, word tokens, "did you mean" hints (Levenshtein distance from
//! `strsim`).

/// `true` when `s` is lower snake_case ASCII: starts with a letter, words joined by single `_`.
pub fn is_snake_case(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_lowercase() => {}
        _ => return false,
    }
    let mut prev_underscore = false;
    for c in chars {
        if c == '_' {
            if prev_underscore {
                return false;
            }
            prev_underscore = true;
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            prev_underscore = false;
        } else {
            return false;
        }
    }
    !prev_underscore
}

/// Lower-case word tokens; hyphens inside a word are kept ("non-reportable" is one token).
pub fn word_tokens(s: &str) -> Vec<String> {
    let lower = s.to_lowercase();
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in lower.chars() {
        if c.is_alphanumeric() || (c == '-' && !cur.is_empty()) {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur).trim_end_matches('-').to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur.trim_end_matches('-').to_string());
    }
    out
}

/// The closest candidate to `wanted` (by Levenshtein distance over characters, ignoring case) when
/// it is close enough to be a likely typo.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w = wanted.to_lowercase();
    let mut best: Option<(&str, usize)> = None;
    for c in candidates {
        let d = strsim::levenshtein(&w, &c.to_lowercase());
        if best.map(|(_, bd)| d < bd).unwrap_or(true) {
            best = Some((c, d));
        }
    }
    best.filter(|(c, d)| *d <= (c.len() / 4).max(2)).map(|(c, _)| c)
}

/// Escape one JSON Pointer reference token (RFC 6901).
pub fn pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Count words the way the paper's narrative-length statistics do: whitespace-separated tokens.
pub fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert!(is_snake_case("outcome_type"));
        assert!(is_snake_case("missing_fact_2"));
        assert!(!is_snake_case("OutcomeType"));
        assert!(!is_snake_case("outcome__type"));
        assert!(!is_snake_case("_x"));
        assert!(!is_snake_case("x_"));
        assert!(!is_snake_case("outcome-type"));
    }

    #[test]
    fn tokens_keep_hyphenated_words() {
        assert_eq!(
            word_tokens("Never say \"non-reportable\", or reportable."),
            vec!["never", "say", "non-reportable", "or", "reportable"]
        );
    }

    #[test]
    fn closest_suggests_typos_only() {
        let c = ["General Recommendation 1", "Care Management Events clause 1"];
        assert_eq!(closest("General Recomendation 1", c), Some("General Recommendation 1"));
        assert_eq!(closest("Something else entirely", c), None);
        // Distance counts characters, not bytes: one accented letter off is one edit.
        assert_eq!(closest("café_latte", ["cafe_latte", "tea"]), Some("cafe_latte"));
        assert_eq!(closest("ab", ["xyz"]), None);
        assert_eq!(closest("abc", ["xyz"]), None);
        assert_eq!(closest("ab", ["ab", "abc"]), Some("ab"));
    }
}
