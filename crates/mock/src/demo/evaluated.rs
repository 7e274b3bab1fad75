//! The model under test. On a built-in demo case it knows the answer key and is right on about
//! three cases in four, chosen by a hash of the narrative (so the same case always gets the same
//! answer); on a missing-information case it first asks for the withheld facts (once or twice).
//! On any other case it guesses the clause from word overlap with the policy text and asks once
//! when the report says nothing about an outcome.

use serde_json::{json, Value};

use super::cases::{self, DemoCase};
use super::text::{first_sentence, humanize, overlap, sentences, stable_hash, words};
use crate::normalize::Normalized;

/// Share of demo cases (in percent) answered right.
const RIGHT_PERCENT: u64 = 75;

/// The narrative of the first user turn ("Here is the event to triage: …").
fn narrative(n: &Normalized) -> String {
    let first = n.messages.iter().find(|(r, _)| r == "user").map(|(_, t)| t.as_str()).unwrap_or("");
    let body = first.split_once("\n\n").map(|(_, b)| b).unwrap_or(first);
    let body = body.rsplit_once("\n\nReply with").map(|(b, _)| b).unwrap_or(body);
    body.trim().to_string()
}

/// The `- item` lines under the heading line that contains `heading`.
fn vocabulary(system: &str, heading: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in system.lines() {
        if line.starts_with('#') {
            inside = line.contains(heading);
            continue;
        }
        if inside {
            if let Some(item) = line.trim().strip_prefix("- ") {
                out.push(item.trim().to_string());
            }
        }
    }
    out
}

/// What the information provider said in the later user turns.
fn provider_answers(n: &Normalized) -> Vec<String> {
    n.messages
        .iter()
        .filter(|(r, _)| r == "user")
        .skip(1)
        .filter(|(_, t)| t.contains("status=answered"))
        .filter_map(|(_, t)| {
            let body = t.split_once("\n\n").map(|(_, b)| b)?;
            let body = body.rsplit_once("\n\nReply with").map(|(b, _)| b).unwrap_or(body);
            let body = body.split("\n\nThis is your last turn").next().unwrap_or(body);
            Some(body.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .collect()
}

fn asks_so_far(n: &Normalized) -> usize {
    n.messages.iter().filter(|(r, _)| r == "assistant").count()
}

fn forced(n: &Normalized) -> bool {
    let last = n.last_user();
    last.contains("This is your last turn") || last.contains("can no longer ask")
}

fn ask(question: String) -> String {
    json!({"action": "ASK", "ask_question": question, "final_verdict": null, "targeted_clause": null,
           "clause_and_guidance_evidence": null, "rationale": null})
    .to_string()
}

fn answer(verdict: &str, clause: Option<&str>, evidence: Vec<String>, rationale: String) -> String {
    json!({"action": "ANSWER", "ask_question": null, "final_verdict": verdict,
           "targeted_clause": if verdict == "Reportable" { clause.map(Value::from).unwrap_or(Value::Null) } else { Value::Null },
           "clause_and_guidance_evidence": evidence, "rationale": rationale})
    .to_string()
}

/// A question about one withheld fact, phrased from what the fact means.
fn question_about(meaning: &str) -> String {
    // The first sentence without its parenthesised asides.
    let mut s = String::new();
    let mut depth = 0usize;
    for c in first_sentence(meaning).chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => s.push(c),
            _ => {}
        }
    }
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ").replace(" ,", ",");
    let mut chars = s.chars();
    let lowered = match chars.next() {
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => s.clone(),
    };
    format!("What does the record say about {lowered}?")
}

/// The sentence of the narrative that bears most on the case's conditions, quoted verbatim.
fn best_quote(narrative: &str, about: &str) -> Option<String> {
    sentences(narrative).into_iter().max_by_key(|s| overlap(s, about))
}

/// Reply of the model under test.
pub fn reply(n: &Normalized) -> String {
    let story = narrative(n);
    let clause_vocab = vocabulary(&n.system, "Targeted-clause vocabulary");
    let evidence_vocab = vocabulary(&n.system, "Evidence vocabulary");
    match cases::by_narrative(&story) {
        Some(case) => known_case(n, case, &story, &clause_vocab, &evidence_vocab),
        None => unknown_case(n, &story, &clause_vocab, &evidence_vocab),
    }
}

fn known_case(
    n: &Normalized,
    case: &DemoCase,
    story: &str,
    clause_vocab: &[String],
    evidence_vocab: &[String],
) -> String {
    let h = stable_hash(case.narrative.trim());
    let right = h % 100 < RIGHT_PERCENT;
    let asked = asks_so_far(n);
    let masked = case.masked();
    // A wrong answer on a missing case is sometimes a guess made without asking.
    let skips_asking = !right && (h >> 16).is_multiple_of(2);
    if case.is_missing() && !skips_asking && !forced(n) && asked < masked.len().min(2) {
        return ask(question_about(&masked[asked].meaning));
    }
    let label = case.clause_label().unwrap_or_default();
    let gold = case.gold_verdict.as_str();
    let verdict = if right {
        gold
    } else {
        match (gold, (h >> 8) % 2) {
            ("Reportable", 0) => "Non-reportable",
            ("Reportable", _) => "Uncertain",
            ("Non-reportable", _) => "Reportable",
            (_, 0) => "Reportable",
            _ => "Non-reportable",
        }
    };
    let in_vocab = |s: &String| evidence_vocab.is_empty() || evidence_vocab.contains(s);
    let mut evidence: Vec<String> = case.gold_legal_basis.iter().filter(|b| in_vocab(b)).cloned().collect();
    if !right && evidence.len() > 1 {
        evidence.truncate(1);
    }
    if evidence.is_empty() && !label.is_empty() {
        evidence.push(label.clone());
    }
    let clause = if clause_vocab.is_empty() || clause_vocab.contains(&label) {
        label.clone()
    } else {
        clause_vocab.iter().max_by_key(|c| overlap(c, &label)).cloned().unwrap_or(label.clone())
    };
    // The conditions the rationale works through: all of them, or all but one on some cases.
    let mut conditions: Vec<_> = case.boundary_conditions.iter().collect();
    if conditions.len() > 2 && (h >> 24).is_multiple_of(3) {
        conditions.pop();
    }
    let about: String = conditions.iter().map(|c| c.meaning.as_str()).collect::<Vec<_>>().join(" ");
    let mut parts = Vec::new();
    if let Some(q) = best_quote(story, &about) {
        parts.push(format!("The report states: \"{q}\""));
    }
    for a in provider_answers(n) {
        parts.push(format!("The record adds: \"{a}\""));
    }
    let flip = !right;
    for (i, c) in conditions.iter().enumerate() {
        // A wrong answer misreads the first condition.
        let holds = if flip && i == 0 { !c.value } else { c.value };
        parts.push(format!(
            "On {}: {} here.",
            humanize(&c.name),
            if holds { "this holds" } else { "this does not hold" }
        ));
    }
    let basis = if evidence.is_empty() { "the policy".to_string() } else { evidence.join(", ") };
    parts.push(match verdict {
        "Reportable" => format!("Read with {basis}, the facts meet {clause}, so the event is Reportable."),
        "Non-reportable" => format!("Read with {basis}, the facts fall outside {clause} and every other clause, so the event is Non-reportable."),
        _ => format!("The facts are known, but {basis} do not settle how they stand, so the event goes to an expert as Uncertain."),
    });
    answer(verdict, Some(&clause), evidence, parts.join(" "))
}

/// Words of a report that point at harm serious enough for a reporting clause.
const SERIOUS: &[&str] = &[
    "died",
    "death",
    "fatal",
    "permanent",
    "fracture",
    "surgery",
    "operation",
    "icu",
    "intensive",
    "disability",
    "wrong",
    "retained",
    "stage",
    "burn",
    "suicide",
    "abduct",
    "assault",
    "transfusion",
    "embolism",
];
/// Words that say how the patient came out of it.
const OUTCOME: &[&str] =
    &["discharged", "recovered", "died", "injury", "harm", "outcome", "unharmed", "stable", "transferred"];

fn unknown_case(n: &Normalized, story: &str, clause_vocab: &[String], evidence_vocab: &[String]) -> String {
    let story_words = words(story);
    if asks_so_far(n) == 0 && !forced(n) && !story_words.iter().any(|w| OUTCOME.contains(&w.as_str())) {
        return ask("What harm did the patient come to after the event, and how long did it last?".into());
    }
    // The clause whose text shares most words with the report.
    let clause = clause_vocab
        .iter()
        .max_by_key(|label| {
            let block = clause_block(&n.system, label);
            overlap(story, &block)
        })
        .cloned();
    let serious = story_words.iter().any(|w| SERIOUS.iter().any(|s| w.starts_with(s)));
    let verdict = if serious && clause.is_some() { "Reportable" } else { "Non-reportable" };
    let mut evidence: Vec<String> = clause.iter().cloned().collect();
    if let Some(g) = evidence_vocab.iter().find(|e| !clause_vocab.contains(e)) {
        evidence.push(g.clone());
    }
    let quote = sentences(story)
        .into_iter()
        .max_by_key(|s| words(s).iter().filter(|w| SERIOUS.iter().any(|x| w.starts_with(x))).count());
    let mut rationale = String::new();
    if let Some(q) = quote {
        rationale.push_str(&format!("The report states: \"{q}\" "));
    }
    for a in provider_answers(n) {
        rationale.push_str(&format!("The record adds: \"{a}\" "));
    }
    rationale.push_str(&match (verdict, &clause) {
        ("Reportable", Some(c)) => {
            format!("The harm described is serious and the event matches the topic of {c}, so it is Reportable.")
        }
        _ => "No clause's harm threshold or event type is clearly met by these facts, so the event is Non-reportable."
            .to_string(),
    });
    answer(verdict, clause.as_deref(), evidence, rationale)
}

/// The text of the policy block whose heading names the clause label.
fn clause_block(system: &str, label: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in system.lines() {
        if line.starts_with("### ") {
            inside = line.contains(label);
        } else if line.starts_with('#') {
            inside = false;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_three_in_four_demo_cases_are_answered_right() {
        let all = cases::all();
        let right = all.iter().filter(|c| stable_hash(c.narrative.trim()) % 100 < RIGHT_PERCENT).count();
        let share = right as f64 / all.len() as f64;
        assert!((0.70..=0.80).contains(&share), "{right} of {} right", all.len());
    }
}
