//! Reading and checking the two extraction replies. The extractor's reply must name only section
//! ids from the list it was shown and only the six criteria; whatever breaks that is described in
//! words the model can act on, and the ids it invented are kept as `rejected_ids`.

use serde_json::Value;

use super::{ChosenSection, SelfCheck, SelfCheckItem, CRITERIA};
use crate::llm::json_extract::extract_json_object;
use crate::policy::sections::PolicySections;

/// The extractor's reply, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedSelection {
    /// Entries whose id exists, each with its allowed criteria (duplicates merged), reply order.
    pub valid: Vec<ChosenSection>,
    /// Ids that are not among the sections.
    pub rejected_ids: Vec<String>,
    /// Everything to send back to the model; empty when the reply is fully usable.
    pub problems: Vec<String>,
    pub parsed: Option<Value>,
    /// Repairs made to read the JSON.
    pub repairs: Vec<String>,
}

fn criteria_list() -> String {
    CRITERIA.join(", ")
}

/// Read an extractor reply against the sections it was shown.
pub fn read_selection(text: &str, sections: &PolicySections) -> CheckedSelection {
    let mut out =
        CheckedSelection { valid: vec![], rejected_ids: vec![], problems: vec![], parsed: None, repairs: vec![] };
    let value = match extract_json_object(text) {
        Ok(x) => {
            out.repairs = x.repairs;
            x.value
        }
        Err(e) => {
            out.problems.push(format!("The reply was not one JSON object ({e})."));
            return out;
        }
    };
    out.parsed = Some(value.clone());
    let Some(items) = value.get("relevant_sections").and_then(Value::as_array) else {
        out.problems.push("The reply has no \"relevant_sections\" list.".into());
        return out;
    };
    for (n, item) in items.iter().enumerate() {
        let Some(id) = item.get("section_id").and_then(Value::as_str).map(str::trim) else {
            out.problems.push(format!("Entry {} of relevant_sections has no \"section_id\" text.", n + 1));
            continue;
        };
        if sections.get(id).is_none() {
            if !out.rejected_ids.iter().any(|r| r == id) {
                out.rejected_ids.push(id.to_string());
                out.problems.push(format!(
                    "\"{id}\" is not the id of any section in the list; use only ids shown between square brackets."
                ));
            }
            continue;
        }
        let mut criteria: Vec<String> = Vec::new();
        match item.get("criteria").and_then(Value::as_array) {
            Some(list) => {
                for c in list {
                    match c.as_str().map(str::trim) {
                        Some(c) if CRITERIA.contains(&c) => {
                            if !criteria.iter().any(|x| x == c) {
                                criteria.push(c.to_string());
                            }
                        }
                        Some(c) => out.problems.push(format!(
                            "Section \"{id}\": \"{c}\" is not a criterion; use only {}.",
                            criteria_list()
                        )),
                        None => out.problems.push(format!("Section \"{id}\": every criterion must be a text value.")),
                    }
                }
            }
            None => out.problems.push(format!("Section \"{id}\" has no \"criteria\" list.")),
        }
        if criteria.is_empty() {
            out.problems.push(format!("Section \"{id}\" names no allowed criterion ({}).", criteria_list()));
            continue;
        }
        let why = item.get("why").and_then(Value::as_str).unwrap_or("").trim().to_string();
        match out.valid.iter_mut().find(|v| v.section_id == id) {
            Some(prev) => {
                for c in criteria {
                    if !prev.criteria.contains(&c) {
                        prev.criteria.push(c);
                    }
                }
            }
            None => out.valid.push(ChosenSection { section_id: id.to_string(), criteria, why, added_by: None }),
        }
    }
    out
}

fn items(v: &Value, key: &str, sections: &PolicySections, notes: &mut Vec<String>) -> Vec<SelfCheckItem> {
    let mut out: Vec<SelfCheckItem> = Vec::new();
    for item in v.get(key).and_then(Value::as_array).into_iter().flatten() {
        let Some(id) = item.get("section_id").and_then(Value::as_str).map(str::trim) else {
            continue;
        };
        if sections.get(id).is_none() {
            notes.push(format!(
                "The self-check named \"{id}\" under \"{key}\", which is not a section id; it was left out."
            ));
            continue;
        }
        if out.iter().any(|x| x.section_id == id) {
            continue;
        }
        let reason = item.get("reason").and_then(Value::as_str).unwrap_or("").trim().to_string();
        out.push(SelfCheckItem { section_id: id.to_string(), reason });
    }
    out
}

/// Read the self-check reply; `chosen` is the selection it reviewed. Err when unreadable.
pub fn read_self_check(text: &str, sections: &PolicySections, chosen: &[String]) -> Result<(SelfCheck, Value), String> {
    let value = extract_json_object(text).map_err(|e| e.to_string())?.value;
    if value.get("add").and_then(Value::as_array).is_none() && value.get("remove").and_then(Value::as_array).is_none() {
        return Err("the reply has neither an \"add\" nor a \"remove\" list".into());
    }
    let mut notes = Vec::new();
    let mut add = items(&value, "add", sections, &mut notes);
    let mut remove = items(&value, "remove", sections, &mut notes);
    add.retain(|x| {
        let keep = !chosen.contains(&x.section_id);
        if !keep {
            notes.push(format!("The self-check proposed adding \"{}\", which is already chosen.", x.section_id));
        }
        keep
    });
    remove.retain(|x| {
        let keep = chosen.contains(&x.section_id);
        if !keep {
            notes.push(format!("The self-check proposed removing \"{}\", which was not chosen.", x.section_id));
        }
        keep
    });
    Ok((SelfCheck { add, remove, notes }, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::sections::PolicySection;

    fn sections() -> PolicySections {
        let s = |id: &str| PolicySection {
            section_id: id.into(),
            heading: id.into(),
            body: format!("body of {id}"),
            origin: "summary guidance".into(),
        };
        PolicySections {
            policy_id: "p".into(),
            edition: "summary".into(),
            sections: vec![s("A"), s("B")],
            source_hash: "h".into(),
        }
    }

    #[test]
    fn unknown_ids_and_criteria_become_problems() {
        let r = read_selection(
            r#"{"relevant_sections": [{"section_id": "A", "criteria": ["scope", "vibes"], "why": "x"}, {"section_id": "Z", "criteria": ["scope"]}, {"section_id": "A", "criteria": ["examples"]}]}"#,
            &sections(),
        );
        assert_eq!(r.rejected_ids, vec!["Z"]);
        assert_eq!(r.valid.len(), 1);
        assert_eq!(r.valid[0].criteria, vec!["scope", "examples"]);
        assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
        assert!(r.problems.iter().any(|p| p.contains("vibes")));
    }

    #[test]
    fn unreadable_replies_are_problems_not_panics() {
        let r = read_selection("no json here", &sections());
        assert!(r.valid.is_empty() && r.problems.len() == 1);
        let r = read_selection(r#"{"sections": []}"#, &sections());
        assert!(r.problems[0].contains("relevant_sections"));
    }

    #[test]
    fn self_check_keeps_only_sensible_suggestions() {
        let (c, _) = read_self_check(
            r#"{"add": [{"section_id": "B", "reason": "r"}, {"section_id": "A"}, {"section_id": "Q"}], "remove": []}"#,
            &sections(),
            &["A".to_string()],
        )
        .unwrap();
        assert_eq!(c.add.len(), 1);
        assert_eq!(c.notes.len(), 2);
        assert!(read_self_check("{}", &sections(), &[]).is_err());
    }
}
