//! The M4 judge: a condition is a hit when the reasoning works with it by name (in words) and
//! takes the side its truth value says; explanations for every condition, in its contract
//! `{hits, explanations}`.

use serde_json::{json, Map, Value};

use crate::normalize::Normalized;

struct Condition {
    name: String,
    value: bool,
}

fn conditions(user: &str) -> Vec<Condition> {
    let mut out: Vec<Condition> = Vec::new();
    for line in user.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("- name:") {
            out.push(Condition { name: name.trim().to_string(), value: true });
        } else if let (Some(v), Some(last)) = (t.strip_prefix("value:"), out.last_mut()) {
            last.value = v.trim() == "true";
        }
    }
    out
}

fn reasoning(user: &str) -> String {
    let after = user.split_once("<<<BEGIN REASONING>>>").map(|(_, r)| r).unwrap_or("");
    after.split("<<<END REASONING>>>").next().unwrap_or("").to_lowercase()
}

pub fn reply(n: &Normalized) -> String {
    let user = n.last_user();
    let text = reasoning(user);
    let mut hits = Vec::new();
    let mut explanations = Map::new();
    for c in conditions(user) {
        let words = c.name.replace('_', " ");
        let at = text.find(&words);
        let hit = at.is_some_and(|i| {
            // The side the reasoning takes: the words right after the name.
            let after: String = text[i + words.len()..].chars().take(40).collect();
            let says_not = after.contains("does not hold") || after.contains("not met");
            says_not != c.value
        });
        let why = match (at.is_some(), hit) {
            (_, true) => format!("The reasoning works with {words} and reads it as the case has it."),
            (true, false) => format!("The reasoning mentions {words} but takes the opposite side."),
            (false, _) => format!("The reasoning does not engage with {words}."),
        };
        if hit {
            hits.push(Value::from(c.name.clone()));
        }
        explanations.insert(c.name, Value::from(why));
    }
    json!({"hits": hits, "explanations": explanations}).to_string()
}
