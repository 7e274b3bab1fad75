//! The screen's reply: the contract `{"clauses_met": [{"clause_id", "why"}], "open_question":
//! {"present", "section_id", "why"}, "verdict"}`, its JSON schema, and a tolerant reader. Small
//! departures are repaired with a note (a clause named by its label, a bare clause id instead of an
//! object, `"true"` as a string, a verdict in other letter case); anything that cannot be read as
//! the contract is an error with a reason, which the callers turn into a failed attempt.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::case::Verdict;
use crate::llm::json_extract::extract_json_object;

/// A clause the screen found clearly met, with the facts that meet it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClauseMet {
    pub clause_id: String,
    pub why: String,
}

/// Whether the policy leaves the decisive point open for these facts, and where.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct OpenQuestion {
    pub present: bool,
    pub section_id: Option<String>,
    pub why: Option<String>,
}

/// One screen reply, read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScreenReply {
    pub clauses_met: Vec<ClauseMet>,
    pub open_question: OpenQuestion,
    pub verdict: Verdict,
}

impl ScreenReply {
    pub fn clause_ids(&self) -> Vec<String> {
        self.clauses_met.iter().map(|c| c.clause_id.clone()).collect()
    }
}

/// A clause of the policy as the reader knows it: id and label (either may be used in a reply).
#[derive(Debug, Clone, PartialEq)]
pub struct KnownClause {
    pub clause_id: String,
    pub label: String,
}

/// The structured-output schema sent with every screen call.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "clauses_met": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"clause_id": {"type": "string"}, "why": {"type": "string"}},
                    "required": ["clause_id", "why"],
                    "additionalProperties": false
                }
            },
            "open_question": {
                "type": "object",
                "properties": {
                    "present": {"type": "boolean"},
                    "section_id": {"type": ["string", "null"]},
                    "why": {"type": ["string", "null"]}
                },
                "required": ["present", "section_id", "why"],
                "additionalProperties": false
            },
            "verdict": {"type": "string", "enum": ["Reportable", "Non-reportable", "Uncertain"]}
        },
        "required": ["clauses_met", "open_question", "verdict"],
        "additionalProperties": false
    })
}

fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Null => None,
        Value::String(_) => None,
        other => Some(other.to_string()),
    }
}

fn read_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("yes") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") || s.eq_ignore_ascii_case("no") => Some(false),
        _ => None,
    }
}

fn read_verdict(v: Option<&Value>, notes: &mut Vec<String>) -> Result<Verdict, String> {
    let s = v.and_then(Value::as_str).map(str::trim).ok_or("the reply has no \"verdict\" text")?;
    if let Some(x) = Verdict::parse(s) {
        return Ok(x);
    }
    let folded: String = s.to_ascii_lowercase().chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let x = match folded.as_str() {
        "reportable" => Verdict::Reportable,
        "nonreportable" | "notreportable" => Verdict::NonReportable,
        "uncertain" => Verdict::Uncertain,
        _ => {
            return Err(format!(
                "\"verdict\" is \"{s}\"; it must be \"Reportable\", \"Non-reportable\" or \"Uncertain\""
            ))
        }
    };
    notes.push(format!("the verdict \"{s}\" was read as \"{}\"", x.as_str()));
    Ok(x)
}

fn resolve_clause(name: &str, clauses: &[KnownClause], notes: &mut Vec<String>) -> Result<String, String> {
    if let Some(c) = clauses.iter().find(|c| c.clause_id == name) {
        return Ok(c.clause_id.clone());
    }
    if let Some(c) =
        clauses.iter().find(|c| c.label.eq_ignore_ascii_case(name) || c.clause_id.eq_ignore_ascii_case(name))
    {
        notes.push(format!("the clause \"{name}\" was read as {}", c.clause_id));
        return Ok(c.clause_id.clone());
    }
    Err(format!("\"clauses_met\" names \"{name}\", which is not a clause id of the policy"))
}

fn read_clauses(v: Option<&Value>, clauses: &[KnownClause], notes: &mut Vec<String>) -> Result<Vec<ClauseMet>, String> {
    let items = match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) => {
            notes.push("\"clauses_met\" was null; read as an empty list".into());
            Vec::new()
        }
        _ => return Err("the reply has no \"clauses_met\" list".into()),
    };
    let mut out: Vec<ClauseMet> = Vec::new();
    for item in items {
        let (name, why) = match &item {
            Value::String(s) => {
                notes.push(format!("the clause \"{s}\" was given without a reason"));
                (s.trim().to_string(), String::new())
            }
            Value::Object(o) => {
                let name = text_of(o.get("clause_id"))
                    .or_else(|| text_of(o.get("clause")))
                    .ok_or("an entry of \"clauses_met\" has no \"clause_id\"")?;
                (name, text_of(o.get("why")).unwrap_or_default())
            }
            other => return Err(format!("an entry of \"clauses_met\" is {other}, not an object")),
        };
        let id = resolve_clause(&name, clauses, notes)?;
        if !out.iter().any(|c| c.clause_id == id) {
            out.push(ClauseMet { clause_id: id, why });
        }
    }
    Ok(out)
}

fn read_open_question(v: Option<&Value>, notes: &mut Vec<String>) -> Result<OpenQuestion, String> {
    match v {
        Some(Value::Object(o)) => {
            let present =
                o.get("present").and_then(read_bool).ok_or("\"open_question\" has no true/false \"present\"")?;
            Ok(OpenQuestion { present, section_id: text_of(o.get("section_id")), why: text_of(o.get("why")) })
        }
        Some(b @ (Value::Bool(_) | Value::String(_))) => {
            let present = read_bool(b).ok_or("\"open_question\" is neither an object nor true/false")?;
            notes.push("\"open_question\" was a bare true/false; read as its \"present\"".into());
            Ok(OpenQuestion { present, section_id: None, why: None })
        }
        Some(Value::Null) => {
            notes.push("\"open_question\" was null; read as no open question".into());
            Ok(OpenQuestion::default())
        }
        _ => Err("the reply has no \"open_question\" object".into()),
    }
}

/// Read a screen reply: the value, the JSON it came from, and notes on repairs made.
pub fn parse(text: &str, clauses: &[KnownClause]) -> Result<(ScreenReply, Value, Vec<String>), String> {
    let ex = extract_json_object(text).map_err(|e| e.to_string())?;
    let mut notes = ex.repairs.clone();
    let v = &ex.value;
    let clauses_met = read_clauses(v.get("clauses_met"), clauses, &mut notes)?;
    let open_question = read_open_question(v.get("open_question"), &mut notes)?;
    let verdict = read_verdict(v.get("verdict"), &mut notes)?;
    Ok((ScreenReply { clauses_met, open_question, verdict }, v.clone(), notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<KnownClause> {
        vec![
            KnownClause { clause_id: "Fall_1".into(), label: "Falls clause 1".into() },
            KnownClause { clause_id: "Burn_2".into(), label: "Burns clause 2".into() },
        ]
    }

    #[test]
    fn a_reply_in_the_contract_is_read_as_it_is() {
        let t = r#"{"clauses_met": [{"clause_id": "Fall_1", "why": "fracture after a fall"}],
                    "open_question": {"present": false, "section_id": null, "why": null}, "verdict": "Reportable"}"#;
        let (r, _, notes) = parse(t, &known()).unwrap();
        assert_eq!(r.clause_ids(), vec!["Fall_1"]);
        assert!(!r.open_question.present);
        assert_eq!(r.verdict, Verdict::Reportable);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn small_departures_are_repaired_with_a_note() {
        let t = "```json\n{\"clauses_met\": [\"Burns clause 2\", {\"clause_id\": \"Burn_2\", \"why\": \"x\"}], \"open_question\": {\"present\": \"true\", \"section_id\": \"G1\", \"why\": \"open\"}, \"verdict\": \"non reportable\"}\n```";
        let (r, _, notes) = parse(t, &known()).unwrap();
        assert_eq!(r.clause_ids(), vec!["Burn_2"]);
        assert!(r.open_question.present);
        assert_eq!(r.open_question.section_id.as_deref(), Some("G1"));
        assert_eq!(r.verdict, Verdict::NonReportable);
        assert!(notes.len() >= 2, "{notes:?}");
    }

    #[test]
    fn replies_that_break_the_contract_give_a_reason() {
        let unknown = r#"{"clauses_met": [{"clause_id": "Nope_9", "why": ""}], "open_question": {"present": false}, "verdict": "Reportable"}"#;
        assert!(parse(unknown, &known()).unwrap_err().contains("Nope_9"));
        let no_verdict = r#"{"clauses_met": [], "open_question": {"present": false}}"#;
        assert!(parse(no_verdict, &known()).unwrap_err().contains("verdict"));
        let bad_verdict = r#"{"clauses_met": [], "open_question": {"present": false}, "verdict": "maybe"}"#;
        assert!(parse(bad_verdict, &known()).unwrap_err().contains("maybe"));
        assert!(parse("I think it is fine.", &known()).is_err());
        let no_list = r#"{"open_question": {"present": false}, "verdict": "Uncertain"}"#;
        assert!(parse(no_list, &known()).unwrap_err().contains("clauses_met"));
    }
}
