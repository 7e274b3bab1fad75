//! Reading the three roles' replies: the model under test (ASK / ANSWER), the information
//! provider (`{status, answer_to_eval, fields_used}`) and the M4 judge (`{hits, explanations}`).
//! Extraction is tolerant (fences, prose, trailing commas); every repair is reported.

use serde_json::Value;

use crate::llm::json_extract::extract_json_object;
use crate::trajectory::{Action, FinalAnswer, InfoStatus};

/// A turn of the model under test, as understood.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalReply {
    Ask { question: String },
    Answer(FinalAnswer),
}

/// Parse outcome plus notes on what had to be repaired or ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<T> {
    pub value: T,
    pub notes: Vec<String>,
}

fn opt_string(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    }
}

/// Parse a reply of the model under test. `Err` means the turn is unusable (no verdict).
///
/// With `repair` (the `studio` protocol) the object is found leniently: code fences, prose around
/// it and trailing commas are repaired and noted, and an evidence string is read as a one-item
/// list. Without it (the `paper` protocol) the whole reply must be exactly one JSON object, as the
/// evaluated model is told; anything else is a null verdict for the turn.
pub fn eval_reply(raw: &str, repair: bool) -> Result<Parsed<EvalReply>, String> {
    let (obj, mut notes) = if repair {
        let ex = extract_json_object(raw).map_err(|e| e.to_string())?;
        (ex.value, ex.repairs)
    } else {
        let v: Value = serde_json::from_str(raw.trim()).map_err(|e| {
            format!("the reply is not exactly one JSON object ({e}); the paper protocol does not repair replies")
        })?;
        if !v.is_object() {
            return Err("the reply is JSON but not an object; the paper protocol does not repair replies".into());
        }
        (v, Vec::new())
    };
    let action = obj.get("action").and_then(Value::as_str).map(|s| s.trim().to_ascii_uppercase());
    match action.as_deref() {
        Some("ASK") => {
            let q = opt_string(obj.get("ask_question")).ok_or("an ASK action without a question")?;
            for k in ["final_verdict", "targeted_clause", "clause_and_guidance_evidence", "rationale"] {
                if obj.get(k).map(|v| !v.is_null()).unwrap_or(false) {
                    notes.push(format!("\"{k}\" should be null with ASK; ignored"));
                }
            }
            Ok(Parsed { value: EvalReply::Ask { question: q }, notes })
        }
        Some("ANSWER") => {
            if obj.get("ask_question").map(|v| !v.is_null()).unwrap_or(false) {
                notes.push("\"ask_question\" should be null with ANSWER; ignored".into());
            }
            let final_verdict = opt_string(obj.get("final_verdict"));
            if final_verdict.as_deref().map(|v| crate::case::Verdict::parse(v).is_none()).unwrap_or(true) {
                notes.push(format!("\"final_verdict\" {:?} is not one of the three verdicts", final_verdict));
            }
            let evidence = match obj.get("clause_and_guidance_evidence") {
                Some(Value::Array(items)) => {
                    Some(items.iter().filter_map(|i| i.as_str().map(|s| s.trim().to_string())).collect())
                }
                Some(Value::String(s)) if repair => {
                    notes.push("\"clause_and_guidance_evidence\" was a string, read as a one-item list".into());
                    Some(vec![s.trim().to_string()])
                }
                Some(Value::String(_)) => {
                    notes.push("\"clause_and_guidance_evidence\" was a string, not a list; no evidence read".into());
                    None
                }
                _ => None,
            };
            Ok(Parsed {
                value: EvalReply::Answer(FinalAnswer {
                    final_verdict,
                    targeted_clause: opt_string(obj.get("targeted_clause")),
                    clause_and_guidance_evidence: evidence,
                    rationale: opt_string(obj.get("rationale")),
                    extra: Default::default(),
                }),
                notes,
            })
        }
        Some(other) => Err(format!("unknown action \"{other}\" (expected ASK or ANSWER)")),
        None => Err("the JSON object has no \"action\" field".into()),
    }
}

pub fn action_of(r: &EvalReply) -> Action {
    match r {
        EvalReply::Ask { .. } => Action::Ask,
        EvalReply::Answer(_) => Action::Answer,
    }
}

/// The information provider's reply, with field names outside the case's elements dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct InfoReply {
    pub status: InfoStatus,
    pub answer: String,
    pub fields_used: Vec<String>,
    pub dropped_fields: Vec<String>,
}

pub fn info_reply(raw: &str, element_names: &[&str]) -> Result<Parsed<InfoReply>, String> {
    let ex = extract_json_object(raw).map_err(|e| e.to_string())?;
    let obj = ex.value;
    let status = match obj.get("status").and_then(Value::as_str).map(str::trim) {
        Some("answered") => InfoStatus::Answered,
        Some("refused_too_vague") => InfoStatus::RefusedTooVague,
        Some("unknown") => InfoStatus::Unknown,
        other => return Err(format!("\"status\" is {other:?}, expected answered, refused_too_vague or unknown")),
    };
    let answer = obj.get("answer_to_eval").and_then(Value::as_str).unwrap_or("").trim().to_string();
    let mut fields_used = Vec::new();
    let mut dropped_fields = Vec::new();
    if let Some(Value::Array(items)) = obj.get("fields_used") {
        for f in items.iter().filter_map(Value::as_str) {
            if element_names.contains(&f) {
                if !fields_used.iter().any(|x: &String| x == f) {
                    fields_used.push(f.to_string());
                }
            } else {
                dropped_fields.push(f.to_string());
            }
        }
    }
    if status != InfoStatus::Answered && !fields_used.is_empty() {
        // The contract says the list is empty for these statuses; nothing was recovered.
        dropped_fields.append(&mut fields_used);
    }
    Ok(Parsed { value: InfoReply { status, answer, fields_used, dropped_fields }, notes: ex.repairs })
}

/// The judge's hits restricted to the case's boundary conditions.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeReply {
    pub hits: Vec<String>,
    pub dropped_hits: Vec<String>,
    pub explanations: Value,
}

pub fn judge_reply(raw: &str, bc_names: &[&str]) -> Result<Parsed<JudgeReply>, String> {
    let ex = extract_json_object(raw).map_err(|e| e.to_string())?;
    let obj = ex.value;
    let items = obj.get("hits").and_then(Value::as_array).ok_or("\"hits\" must be a list")?;
    let mut hits = Vec::new();
    let mut dropped_hits = Vec::new();
    for h in items {
        let Some(name) = h.as_str() else { return Err("\"hits\" must hold names (strings)".into()) };
        if bc_names.contains(&name) {
            if !hits.iter().any(|x: &String| x == name) {
                hits.push(name.to_string());
            }
        } else {
            dropped_hits.push(name.to_string());
        }
    }
    let explanations = obj.get("explanations").cloned().unwrap_or(Value::Null);
    if !explanations.is_object() {
        return Err("\"explanations\" must be an object".into());
    }
    Ok(Parsed { value: JudgeReply { hits, dropped_hits, explanations }, notes: ex.repairs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_ask_and_answer() {
        let p = eval_reply(r#"{"action": "ASK", "ask_question": "How long in ICU?", "final_verdict": null}"#, true)
            .unwrap();
        assert_eq!(p.value, EvalReply::Ask { question: "How long in ICU?".into() });
        let p = eval_reply("```json\n{\"action\":\"ANSWER\",\"final_verdict\":\"Reportable\",\"targeted_clause\":\"Surgical Events clause 1\",\"clause_and_guidance_evidence\":\"Surgical Events clause 1\",\"rationale\":\"r\"}\n```", true).unwrap();
        match p.value {
            EvalReply::Answer(f) => {
                assert_eq!(f.final_verdict.as_deref(), Some("Reportable"));
                assert_eq!(f.clause_and_guidance_evidence, Some(vec!["Surgical Events clause 1".to_string()]));
            }
            _ => panic!(),
        }
        assert_eq!(p.notes.len(), 2);
    }

    #[test]
    fn eval_garbage_and_bad_actions_are_unusable() {
        for repair in [true, false] {
            assert!(eval_reply("I think it is reportable.", repair).is_err());
            assert!(eval_reply(r#"{"action": "MAYBE"}"#, repair).is_err());
            assert!(eval_reply(r#"{"action": "ASK", "ask_question": "  "}"#, repair).is_err());
            assert!(eval_reply(r#"{"verdict": "Reportable"}"#, repair).is_err());
        }
    }

    #[test]
    fn without_repair_only_a_bare_object_is_read() {
        let bare = r#"{"action":"ANSWER","ask_question":null,"final_verdict":"Uncertain","targeted_clause":null,"clause_and_guidance_evidence":["G1"],"rationale":"r"}"#;
        let p = eval_reply(&format!("  {bare}\n"), false).unwrap();
        assert!(p.notes.is_empty());
        assert!(matches!(p.value, EvalReply::Answer(ref f) if f.final_verdict.as_deref() == Some("Uncertain")));
        for wrapped in
            [format!("```json\n{bare}\n```"), format!("Here is my answer: {bare}"), bare.replace("\"r\"}", "\"r\",}")]
        {
            assert!(eval_reply(&wrapped, true).is_ok(), "studio repairs {wrapped}");
            let e = eval_reply(&wrapped, false).unwrap_err();
            assert!(e.contains("paper protocol"), "{e}");
        }
        let s = eval_reply(
            r#"{"action":"ANSWER","final_verdict":"Reportable","clause_and_guidance_evidence":"C1"}"#,
            false,
        )
        .unwrap();
        assert!(matches!(s.value, EvalReply::Answer(ref f) if f.clause_and_guidance_evidence.is_none()));
    }

    #[test]
    fn info_drops_unknown_fields() {
        let p = info_reply(
            r#"{"status":"answered","answer_to_eval":"52 h","fields_used":["icu_stay","made_up","icu_stay"]}"#,
            &["icu_stay", "dose"],
        )
        .unwrap();
        assert_eq!(p.value.fields_used, vec!["icu_stay"]);
        assert_eq!(p.value.dropped_fields, vec!["made_up"]);
        let p = info_reply(r#"{"status":"unknown","answer_to_eval":"no","fields_used":["dose"]}"#, &["dose"]).unwrap();
        assert!(p.value.fields_used.is_empty());
        assert!(info_reply(r#"{"status":"maybe"}"#, &[]).is_err());
    }

    #[test]
    fn judge_keeps_only_case_conditions() {
        let p = judge_reply(r#"{"hits":["a","zzz","a"],"explanations":{"a":"x","b":"y"}}"#, &["a", "b"]).unwrap();
        assert_eq!(p.value.hits, vec!["a"]);
        assert_eq!(p.value.dropped_hits, vec!["zzz"]);
        assert!(judge_reply(r#"{"hits":"a"}"#, &["a"]).is_err());
    }
}
