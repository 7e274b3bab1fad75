//! Verdict accuracy per clause: one row per clause of the policy pack (global order), one value per
//! model and the mean over models. Shared by the per-clause table and the difficulty chart.

use crate::metrics::MetricsReport;
use crate::policy::PolicyPack;

/// One clause's M1 across models.
#[derive(Debug, Clone, PartialEq)]
pub struct ClauseRow {
    pub clause_id: String,
    /// The pack's clause label ("Care Management Events clause 1"), or the raw id when the report
    /// mentions a clause the pack does not know.
    pub label: String,
    pub short_title: String,
    /// False for clause ids found in the report but not in the pack.
    pub in_pack: bool,
    /// Largest case count any model reports for the clause (models usually agree).
    pub cases: Option<u64>,
    /// M1 per model, in the report's model order.
    pub per_model: Vec<Option<f64>>,
    /// Unweighted mean of the models' non-null M1 values.
    pub mean: Option<f64>,
}

/// Rows for every clause of the pack in global order, then any unknown clause ids of the report
/// in the order first seen.
pub fn clause_rows(report: &MetricsReport, pack: &PolicyPack) -> Vec<ClauseRow> {
    let mut clauses: Vec<&crate::policy::Clause> = pack.clauses.iter().collect();
    clauses.sort_by_key(|c| c.global_no);
    let mut rows: Vec<ClauseRow> =
        clauses.iter().map(|c| row_for(report, &c.clause_id, c.label.clone(), c.short_title.clone(), true)).collect();
    for m in &report.models {
        for ca in &m.by_clause {
            if pack.clause(&ca.clause_id).is_none() && !rows.iter().any(|r| r.clause_id == ca.clause_id) {
                rows.push(row_for(
                    report,
                    &ca.clause_id,
                    ca.clause_id.clone(),
                    "(not in the policy pack)".into(),
                    false,
                ));
            }
        }
    }
    rows
}

fn row_for(report: &MetricsReport, clause_id: &str, label: String, short_title: String, in_pack: bool) -> ClauseRow {
    let mut cases: Option<u64> = None;
    let per_model: Vec<Option<f64>> = report
        .models
        .iter()
        .map(|m| {
            let ca = m.by_clause.iter().find(|c| c.clause_id == clause_id)?;
            cases = Some(cases.map_or(ca.cases, |n| n.max(ca.cases)));
            ca.m1.filter(|v| v.is_finite())
        })
        .collect();
    let values: Vec<f64> = per_model.iter().flatten().copied().collect();
    let mean = if values.is_empty() { None } else { Some(values.iter().sum::<f64>() / values.len() as f64) };
    ClauseRow { clause_id: clause_id.to_string(), label, short_title, in_pack, cases, per_model, mean }
}
