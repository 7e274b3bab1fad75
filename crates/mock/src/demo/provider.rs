//! The information provider: answers one question from the fact list it is given, in its
//! contract `{status, answer_to_eval, fields_used}`: the best-matching fact's value, a refusal
//! for a broad question, or "not in the record".

use serde_json::json;

use super::text::{overlap, section, words};
use crate::normalize::Normalized;

/// One entry of the fact list ("- field: …\n  meaning: …\n  value: …").
struct Fact {
    field: String,
    meaning: String,
    value: String,
}

fn facts(list: &str) -> Vec<Fact> {
    let mut out: Vec<Fact> = Vec::new();
    for line in list.lines() {
        let t = line.trim();
        if let Some(f) = t.strip_prefix("- field:") {
            out.push(Fact { field: f.trim().to_string(), meaning: String::new(), value: String::new() });
        } else if let (Some(m), Some(last)) = (t.strip_prefix("meaning:"), out.last_mut()) {
            last.meaning = m.trim().to_string();
        } else if let (Some(v), Some(last)) = (t.strip_prefix("value:"), out.last_mut()) {
            last.value = v.trim().to_string();
        }
    }
    out
}

const BROAD: &[&str] = &[
    "everything",
    "anything else",
    "what else",
    "describe the event",
    "any other detail",
    "tell me more",
    "all the facts",
];

pub fn reply(n: &Normalized) -> String {
    let user = n.last_user();
    let list = section(user, "Fact list (field name, meaning, value):").unwrap_or("");
    let question = user
        .split_once("Question from the caller:")
        .map(|(_, q)| q.split("\n\nReply with").next().unwrap_or(q).trim().to_string())
        .unwrap_or_default();
    let lower = question.to_lowercase();
    if BROAD.iter().any(|b| lower.contains(b)) || words(&question).len() < 2 {
        return json!({"status": "refused_too_vague",
                      "answer_to_eval": "Please ask about one specific fact of the event.",
                      "fields_used": []})
        .to_string();
    }
    let best = facts(list)
        .into_iter()
        .map(|f| {
            let score = 2 * overlap(&question, &f.field.replace('_', " ")) + overlap(&question, &f.meaning);
            (score, f)
        })
        .max_by_key(|(s, _)| *s);
    match best {
        Some((score, f)) if score >= 2 && !f.value.is_empty() && f.value != "null" => {
            json!({"status": "answered", "answer_to_eval": f.value, "fields_used": [f.field]}).to_string()
        }
        _ => {
            json!({"status": "unknown", "answer_to_eval": "The record does not contain that fact.", "fields_used": []})
                .to_string()
        }
    }
}
