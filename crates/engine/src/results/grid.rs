//! The case-by-model grid of the Results screen in its compact form.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use crate::case::{Case, Verdict};
use crate::trajectory::Trajectory;

/// The case-by-model grid in a compact, column-wise form (the paper's scale is 5,074 cases ×
/// 15 models, so every cell is one small number and repeated strings are sent once).
///
/// A cell code is 0 when the model has no trajectory for the case; otherwise bit 0 is 1, bits
/// 1–2 hold the verdict given (0 none, 1 Reportable, 2 Non-reportable, 3 Uncertain: the index
/// into `verdicts`), bit 3 is set when the verdict is correct, and bits 4–7 hold the number of
/// questions asked (15 means 15 or more). A present cell with verdict 0 is a case that ended
/// without a readable answer (parse failure, turn budget, provider error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResultsGrid {
    /// Model columns, sorted by name.
    pub models: Vec<String>,
    /// The run each model column comes from (same order as `models`).
    pub model_runs: Vec<String>,
    /// Verdict vocabulary of the codes: `["", "Reportable", "Non-reportable", "Uncertain"]`.
    pub verdicts: Vec<String>,
    /// Case-type vocabulary: `["complete", "missing", "uncertain"]`.
    pub case_types: Vec<String>,
    /// Distinct clause ids, in first-seen order.
    pub clauses: Vec<String>,
    /// One entry per case (rows), in the runs' case order.
    pub case_ids: Vec<String>,
    /// Per case: index into `case_types`.
    pub case_type: Vec<u8>,
    /// Per case: index into `clauses`.
    pub clause: Vec<u32>,
    /// Per case: the gold verdict as an index into `verdicts`.
    pub gold: Vec<u8>,
    /// Per model column: one cell code (one byte) per case, in `case_ids` order, base64-encoded
    /// (standard alphabet, with padding): 5,074 cases take 6.8 kB per model.
    pub cells: Vec<String>,
}

/// Verdict code of the grid (index into `ResultsGrid::verdicts`).
pub(crate) fn verdict_code(v: Option<Verdict>) -> u8 {
    match v {
        None => 0,
        Some(Verdict::Reportable) => 1,
        Some(Verdict::NonReportable) => 2,
        Some(Verdict::Uncertain) => 3,
    }
}

/// One grid cell: see `ResultsGrid`.
pub fn grid_cell_code(verdict: Option<Verdict>, correct: bool, asks: usize) -> u8 {
    1 | (verdict_code(verdict) << 1) | ((correct as u8) << 3) | ((asks.min(15) as u8) << 4)
}

pub(super) fn build_grid(cases: &[Case], trajectories: &[Trajectory]) -> ResultsGrid {
    let mut models: Vec<(String, String)> = Vec::new();
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for t in trajectories {
        if seen.insert(t.model.as_str(), ()).is_none() {
            models.push((t.model.clone(), t.run_id.clone()));
        }
    }
    models.sort();
    let col: HashMap<&str, usize> = models.iter().enumerate().map(|(i, (m, _))| (m.as_str(), i)).collect();
    let row: HashMap<&str, usize> = cases.iter().enumerate().map(|(i, c)| (c.case_id.as_str(), i)).collect();
    let mut cells = vec![vec![0u8; cases.len()]; models.len()];
    for t in trajectories {
        if t.extra.get("repeat").and_then(|v| v.as_u64()).unwrap_or(0) != 0 {
            continue;
        }
        let (Some(&m), Some(&r)) = (col.get(t.model.as_str()), row.get(t.case_id.as_str())) else { continue };
        let predicted = t.predicted_verdict();
        cells[m][r] =
            grid_cell_code(predicted, predicted.is_some() && predicted == Some(cases[r].gold_verdict), t.ask_count());
    }
    let mut clauses: Vec<String> = Vec::new();
    let mut clause_ix: HashMap<&str, u32> = HashMap::new();
    let mut clause = Vec::with_capacity(cases.len());
    for c in cases {
        let i = *clause_ix.entry(c.clause_id.as_str()).or_insert_with(|| {
            clauses.push(c.clause_id.clone());
            (clauses.len() - 1) as u32
        });
        clause.push(i);
    }
    use base64::Engine as _;
    let cells = cells.iter().map(|col| base64::engine::general_purpose::STANDARD.encode(col)).collect();
    ResultsGrid {
        model_runs: models.iter().map(|(_, r)| r.clone()).collect(),
        models: models.into_iter().map(|(m, _)| m).collect(),
        verdicts: ["", "Reportable", "Non-reportable", "Uncertain"].iter().map(|s| s.to_string()).collect(),
        case_types: ["complete", "missing", "uncertain"].iter().map(|s| s.to_string()).collect(),
        clauses,
        case_ids: cases.iter().map(|c| c.case_id.clone()).collect(),
        case_type: cases
            .iter()
            .map(|c| match c.case_type {
                crate::case::CaseType::Complete => 0,
                crate::case::CaseType::Missing => 1,
                crate::case::CaseType::Uncertain => 2,
            })
            .collect(),
        clause,
        gold: cases.iter().map(|c| verdict_code(Some(c.gold_verdict))).collect(),
        cells,
    }
}
