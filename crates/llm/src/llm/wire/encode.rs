//! A request body's bytes. A run sends one long text (its system prompt, the whole policy) with
//! every call; escaping it to JSON for each call was one of the larger costs of sending a request.
//! The escaped form of the few most recent long strings is kept and copied in instead; every other
//! part is written as `serde_json` writes it, so the bytes are exactly those of `serde_json::to_vec`.

use std::sync::Mutex;

use serde_json::Value;

/// Strings shorter than this are escaped each time (keeping them costs more than it saves).
const MEMO_MIN_BYTES: usize = 4096;
/// How many long strings are kept with their escaped form.
const MEMO_ENTRIES: usize = 4;

/// A long string and its JSON form (quotes included).
struct Escaped {
    text: String,
    json: Vec<u8>,
}

static ESCAPED: Mutex<Vec<Escaped>> = Mutex::new(Vec::new());

/// `v` as JSON bytes, byte for byte what `serde_json::to_vec(v)` gives.
pub fn to_bytes(v: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::String(s) if s.len() >= MEMO_MIN_BYTES => write_long_string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_plain(out, k);
                out.push(b':');
                write_value(out, item);
            }
            out.push(b'}');
        }
        other => write_plain(out, other),
    }
}

/// Writing JSON into a byte vector cannot fail (the values come from `serde_json` itself).
fn write_plain<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    let _ = serde_json::to_writer(&mut *out, v);
}

fn write_long_string(out: &mut Vec<u8>, s: &str) {
    let mut memo = ESCAPED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = memo.iter().position(|e| e.text.len() == s.len() && e.text == s) {
        out.extend_from_slice(&memo[i].json);
        // Most recently used last.
        let hit = memo.remove(i);
        memo.push(hit);
        return;
    }
    let start = out.len();
    write_plain(out, s);
    if memo.len() >= MEMO_ENTRIES {
        memo.remove(0);
    }
    memo.push(Escaped { text: s.to_string(), json: out[start..].to_vec() });
}

#[cfg(test)]
mod tests {
    use super::to_bytes;
    use serde_json::json;

    #[test]
    fn bytes_are_those_of_serde_json_with_and_without_remembered_strings() {
        let long = format!("Policy \"quoted\" line\n\ttabbed é ✓ \u{1} {}", "clause text ".repeat(800));
        let other = format!("{}\\ end", "another policy ".repeat(400));
        let bodies = [
            json!({"model": "m", "messages": [{"role": "system", "content": long}, {"role": "user", "content": "case \"7\""}], "temperature": 0.0, "max_tokens": 512, "seed": -3}),
            json!({"model": "m", "messages": [{"role": "system", "content": long}, {"role": "user", "content": "next"}], "response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object", "required": ["x"]}, "strict": false}}}),
            json!({"system": [{"type": "text", "text": other, "cache_control": {"type": "ephemeral"}}], "messages": [], "top_p": 0.95, "flag": true, "none": null}),
            json!([long.clone(), other.clone(), long, 1.5e300, -0.0, u64::MAX]),
        ];
        // Twice over: the second pass copies the remembered escaped strings.
        for _ in 0..2 {
            for b in &bodies {
                assert_eq!(to_bytes(b), serde_json::to_vec(b).unwrap(), "{b}");
            }
        }
    }

    #[test]
    fn a_long_string_of_the_same_length_but_other_text_is_not_taken_for_a_remembered_one() {
        let a = "a".repeat(5000);
        let mut b = "a".repeat(4999);
        b.push('"');
        assert_eq!(to_bytes(&json!({ "c": a })), serde_json::to_vec(&json!({ "c": a })).unwrap());
        assert_eq!(to_bytes(&json!({ "c": b })), serde_json::to_vec(&json!({ "c": b })).unwrap());
    }
}
