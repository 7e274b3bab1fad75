//! Text helpers: snake_case checks, word tokens, edit distance for "did you mean" hints.

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

/// Levenshtein distance (for suggestions; inputs are short identifiers).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate to `wanted` when it is close enough to be a likely typo.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w = wanted.to_lowercase();
    let mut best: Option<(&str, usize)> = None;
    for c in candidates {
        let d = edit_distance(&w, &c.to_lowercase());
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
        assert_eq!(word_tokens("Never say \"non-reportable\", or reportable."), vec!["never", "say", "non-reportable", "or", "reportable"]);
    }

    #[test]
    fn closest_suggests_typos_only() {
        let c = ["General Recommendation 1", "Care Management Events clause 1"];
        assert_eq!(closest("General Recomendation 1", c), Some("General Recommendation 1"));
        assert_eq!(closest("Something else entirely", c), None);
    }
}
