//! A tolerant JSON extractor for models that wrap their JSON in prose or code fences, use smart
//! quotes, or leave trailing commas. It reports every repair it made so callers can record it.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub value: Value,
    /// Plain-language notes on what had to be fixed (empty when the text was clean JSON).
    pub repairs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("no JSON object could be read from the reply ({0})")]
pub struct ExtractError(pub String);

/// Find the first balanced `{...}` in `s`, respecting strings and escapes.
fn balanced_object(s: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    let start = s.find('{')?;
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((start, i + 1));
                }
            }
            _ => {}
        }
    }
    None
}

fn strip_fence(s: &str) -> Option<&str> {
    let t = s.trim();
    let open = t.find("```")?;
    let after = &t[open + 3..];
    let body_start = after.find('\n').map(|i| i + 1).unwrap_or(0);
    let body = &after[body_start..];
    let close = body.rfind("```").unwrap_or(body.len());
    Some(&body[..close])
}

/// Remove commas that directly precede `}` or `]` (outside strings).
fn drop_trailing_commas(s: &str) -> (String, bool) {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut in_str = false;
    let mut escaped = false;
    let mut changed = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|x| !x.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                changed = true;
                continue;
            }
        }
        out.push(c);
    }
    (out, changed)
}

/// Close brackets left open by a reply that was cut off.
fn close_truncated(s: &str) -> Option<String> {
    let mut stack = Vec::new();
    let mut in_str = false;
    let mut escaped = false;
    for c in s.chars() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    if stack.is_empty() && !in_str {
        return None;
    }
    let mut out = s.trim_end().trim_end_matches(',').to_string();
    if in_str {
        out.push('"');
    }
    while let Some(c) = stack.pop() {
        out.push(c);
    }
    Some(out)
}

fn parse_object(s: &str) -> Option<Value> {
    serde_json::from_str::<Value>(s).ok().filter(Value::is_object)
}

/// Extract one JSON object from a model reply.
pub fn extract_json_object(text: &str) -> Result<Extracted, ExtractError> {
    let mut repairs = Vec::new();
    let trimmed = text.trim().trim_start_matches('\u{feff}');
    if trimmed.is_empty() {
        return Err(ExtractError("the reply was empty".into()));
    }
    if let Some(v) = parse_object(trimmed) {
        return Ok(Extracted { value: v, repairs });
    }
    let mut candidate = trimmed.to_string();
    if let Some(inner) = strip_fence(trimmed) {
        repairs.push("removed a Markdown code fence around the JSON".into());
        candidate = inner.trim().to_string();
        if let Some(v) = parse_object(&candidate) {
            return Ok(Extracted { value: v, repairs });
        }
    }
    if candidate.contains(['\u{201c}', '\u{201d}']) {
        candidate = candidate.replace(['\u{201c}', '\u{201d}'], "\"");
        repairs.push("replaced typographic quotes with straight quotes".into());
    }
    match balanced_object(&candidate) {
        Some((a, b)) => {
            if a > 0 || b < candidate.len() {
                repairs.push("ignored text before or after the JSON object".into());
            }
            candidate = candidate[a..b].to_string();
        }
        None => {
            let Some(a) = candidate.find('{') else {
                return Err(ExtractError("the reply contains no '{'".into()));
            };
            if a > 0 {
                repairs.push("ignored text before the JSON object".into());
            }
            candidate = candidate[a..].to_string();
            if let Some(closed) = close_truncated(&candidate) {
                repairs.push("closed brackets of a reply that was cut off".into());
                candidate = closed;
            }
        }
    }
    if let Some(v) = parse_object(&candidate) {
        return Ok(Extracted { value: v, repairs });
    }
    let (no_commas, changed) = drop_trailing_commas(&candidate);
    if changed {
        repairs.push("removed trailing commas".into());
        if let Some(v) = parse_object(&no_commas) {
            return Ok(Extracted { value: v, repairs });
        }
    }
    let e = serde_json::from_str::<Value>(&no_commas)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| "not an object".into());
    Err(ExtractError(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clean_json_needs_no_repair() {
        let e = extract_json_object(" {\"a\": 1} ").unwrap();
        assert_eq!(e.value, json!({"a": 1}));
        assert!(e.repairs.is_empty());
    }

    #[test]
    fn fenced_and_prose_wrapped() {
        let e = extract_json_object("Sure!\n```json\n{\"action\": \"ASK\"}\n```\nThanks").unwrap();
        assert_eq!(e.value, json!({"action": "ASK"}));
        assert_eq!(e.repairs, vec!["removed a Markdown code fence around the JSON"]);
        let e = extract_json_object("My answer: {\"a\": \"x}y\"} done").unwrap();
        assert_eq!(e.value, json!({"a": "x}y"}));
        assert!(e.repairs[0].contains("ignored text"));
    }

    #[test]
    fn trailing_commas_smart_quotes_and_truncation() {
        let e = extract_json_object("{\"a\": [1, 2,], }").unwrap();
        assert_eq!(e.value, json!({"a": [1, 2]}));
        assert!(e.repairs.contains(&"removed trailing commas".to_string()));
        let e = extract_json_object("{\u{201c}a\u{201d}: 1}").unwrap();
        assert_eq!(e.value, json!({"a": 1}));
        let e = extract_json_object("{\"a\": {\"b\": \"cut").unwrap();
        assert_eq!(e.value, json!({"a": {"b": "cut"}}));
        assert!(e.repairs.iter().any(|r| r.contains("cut off")));
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(extract_json_object("I cannot help with that.").is_err());
        assert!(extract_json_object("").is_err());
        assert!(extract_json_object("[1, 2]").is_err());
    }
}
