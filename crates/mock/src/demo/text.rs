//! Small text helpers the demo roles share: a stable hash for deterministic choices, content
//! words and their overlap, and reading the sections and lists of a rendered prompt.

use serde_json::Value;

/// FNV-1a: the same text always gives the same number, on every machine and in every build.
pub fn stable_hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "had", "has", "have", "he", "her",
    "his", "in", "into", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "then", "there", "they",
    "this", "to", "was", "were", "which", "while", "who", "with", "what", "when", "where", "how", "did", "does", "do",
    "record", "say", "says", "about", "any", "not", "no", "than", "so", "if", "one", "whether", "also", "after",
    "before", "patient", "patients", "event",
];

/// Lower-case content words (letters and digits), without common function words.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() > 1 && !STOP.contains(&w.as_str()))
        .collect()
}

/// How many distinct content words of `a` also occur in `b`.
pub fn overlap(a: &str, b: &str) -> usize {
    let bw = words(b);
    let mut aw = words(a);
    aw.sort();
    aw.dedup();
    aw.iter().filter(|w| bw.contains(w)).count()
}

/// The text after the line `heading` up to the next line starting with `# ` (a level-1 heading)
/// or the end. Returns None when the heading is not there.
pub fn section<'a>(text: &'a str, heading: &str) -> Option<&'a str> {
    let start = text.find(heading)? + heading.len();
    let rest = &text[start..];
    let rest = rest.strip_prefix('\n').unwrap_or(rest);
    let end = rest.find("\n# ").unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// The `- item` lines of a block.
pub fn list_items(block: &str) -> Vec<String> {
    block.lines().filter_map(|l| l.trim().strip_prefix("- ")).map(|s| s.trim().to_string()).collect()
}

/// The first JSON value that starts in `text` (an object or a list).
pub fn first_json(text: &str) -> Option<Value> {
    let start = text.find(['{', '['])?;
    let mut de = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    de.next()?.ok()
}

/// A condition or slot name in words: `fall_in_care` → "fall in care".
pub fn humanize(name: &str) -> String {
    name.replace('_', " ")
}

/// The first sentence of a text, without its final full stop.
pub fn first_sentence(text: &str) -> String {
    let t = text.trim();
    let end = t.find(". ").map(|i| i + 1).unwrap_or(t.len());
    t[..end].trim_end_matches('.').trim().to_string()
}

/// The sentences of a narrative.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        cur.push(*c);
        let next_space = chars.get(i + 1).map(|n| n.is_whitespace()).unwrap_or(true);
        if matches!(c, '.' | '!' | '?') && next_space && cur.trim().len() > 20 {
            out.push(cur.trim().to_string());
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_lists_and_json_are_read_from_a_prompt() {
        let p = "# Citable ids\n- A\n- B\n\n# Ids already taken\n(none)\n\n# Card\n{\"x\": [1]} trailing";
        assert_eq!(list_items(section(p, "# Citable ids").unwrap_or_default()), vec!["A", "B"]);
        assert_eq!(section(p, "# Ids already taken"), Some("(none)"));
        assert_eq!(first_json(section(p, "# Card").unwrap_or_default()), Some(serde_json::json!({"x": [1]})));
        assert_eq!(stable_hash("abc"), stable_hash("abc"));
        assert_ne!(stable_hash("abc"), stable_hash("abd"));
        assert_eq!(overlap("The left knee was prepped", "prepped the LEFT knee"), 3);
    }
}
