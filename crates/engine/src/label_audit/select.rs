//! Which cases an audit screens: `all`, a clause id, case ids, or `type:Reportable` (also
//! `type:Non-reportable`, `type:Uncertain`, and the case types `type:complete|missing|uncertain`),
//! combined with commas. Groups leave out cases flagged as excluded; a case named by its id is
//! screened even when excluded.

use crate::case::repo::CaseFilter;
use crate::case::{Case, CaseType, Verdict};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};

enum TypeFilter {
    Verdict(Verdict),
    CaseType(CaseType),
}

fn type_filter(t: &str) -> ApiResult<TypeFilter> {
    let folded: String = t.to_ascii_lowercase().chars().filter(|c| c.is_ascii_alphabetic()).collect();
    Ok(match folded.as_str() {
        "reportable" => TypeFilter::Verdict(Verdict::Reportable),
        "nonreportable" => TypeFilter::Verdict(Verdict::NonReportable),
        "uncertain" => TypeFilter::Verdict(Verdict::Uncertain),
        "complete" => TypeFilter::CaseType(CaseType::Complete),
        "missing" => TypeFilter::CaseType(CaseType::Missing),
        _ => {
            return Err(ApiError::invalid(format!(
                "\"type:{t}\" is not a case label; use type:Reportable, type:Non-reportable or type:Uncertain (or type:complete, type:missing)."
            )))
        }
    })
}

/// The cases a filter names, in store order, each once.
pub fn select(engine: &Engine, spec: &str) -> ApiResult<Vec<Case>> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(ApiError::invalid(
            "Say which cases to screen: all, a clause id, case ids separated by commas, or type:Reportable|Non-reportable|Uncertain (--cases).",
        ));
    }
    let stored = engine.cases_all(&CaseFilter::default())?;
    let mut chosen: Vec<Case> = Vec::new();
    let add = |c: &Case, chosen: &mut Vec<Case>| {
        if !chosen.iter().any(|x| x.case_id == c.case_id) {
            chosen.push(c.clone());
        }
    };
    for t in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if t == "all" {
            stored.iter().for_each(|c| add(c, &mut chosen));
        } else if let Some(rest) = t.strip_prefix("type:") {
            let f = type_filter(rest.trim())?;
            stored
                .iter()
                .filter(|c| match &f {
                    TypeFilter::Verdict(v) => c.gold_verdict == *v,
                    TypeFilter::CaseType(k) => c.case_type == *k,
                })
                .for_each(|c| add(c, &mut chosen));
        } else if stored.iter().any(|c| c.clause_id == t) {
            stored.iter().filter(|c| c.clause_id == t).for_each(|c| add(c, &mut chosen));
        } else if let Some(c) = stored.iter().find(|c| c.case_id == t) {
            add(c, &mut chosen);
        } else {
            match engine.case_show(t) {
                Ok(c) => add(&c, &mut chosen),
                Err(_) => {
                    return Err(ApiError::not_found(format!(
                        "\"{t}\" is neither a stored case id nor the clause id of any stored case. `psebench cases list` lists them."
                    )))
                }
            }
        }
    }
    if chosen.is_empty() {
        return Err(ApiError::invalid(format!("No stored case matches \"{spec}\", so there is nothing to screen.")));
    }
    Ok(chosen)
}
