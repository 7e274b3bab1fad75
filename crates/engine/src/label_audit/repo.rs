//! Storage of label-audit results: one row per (audit, case, model) in `label_audit_results`
//! (its tokens and cost are the totals of its tries); the calls themselves, with their replies and
//! parse notes, are in the call ledger (item: the case id).

use rusqlite::{params, Connection};
use serde_json::Value;

use crate::error::ApiResult;
use crate::store::StoredColumn;
use crate::util::now_rfc3339;

/// One model's screen of one case, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    pub case_id: String,
    pub model: String,
    pub label: String,
    pub clause_id: String,
    pub readable: bool,
    pub verdict: Option<String>,
    /// `[{clause_id, why}]`
    pub clauses_met: Value,
    /// `{present, section_id, why}` (null when unreadable)
    pub open_question: Value,
    pub agrees: bool,
    pub conflicts: Vec<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

impl ResultRow {
    pub fn clause_ids(&self) -> Vec<String> {
        self.clauses_met
            .as_array()
            .map(|a| a.iter().filter_map(|c| c.get("clause_id").and_then(Value::as_str)).map(str::to_string).collect())
            .unwrap_or_default()
    }
    pub fn open_question_present(&self) -> bool {
        self.open_question.get("present").and_then(Value::as_bool).unwrap_or(false)
    }
}

fn json_text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

pub fn insert(conn: &Connection, run_id: &str, r: &ResultRow) -> ApiResult<()> {
    conn.execute(
        "INSERT OR REPLACE INTO label_audit_results (run_id, case_id, model, label, clause_id, readable, verdict,
            clauses_met_json, open_question_json, agrees, conflicts_json, input_tokens, output_tokens, cost_usd,
            created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        params![
            run_id,
            r.case_id,
            r.model,
            r.label,
            r.clause_id,
            r.readable,
            r.verdict,
            json_text(&r.clauses_met),
            json_text(&r.open_question),
            r.agrees,
            json_text(&r.conflicts),
            r.input_tokens as i64,
            r.output_tokens as i64,
            r.cost_usd,
            now_rfc3339(),
        ],
    )?;
    Ok(())
}

const fn col(column: &'static str, what: &'static str) -> StoredColumn {
    StoredColumn { table: "label_audit_results", column, what, row_kind: "label audit result of run" }
}
static CLAUSES_MET: StoredColumn = col("clauses_met_json", "clauses met");
static OPEN_QUESTION: StoredColumn = col("open_question_json", "open question");
static CONFLICTS: StoredColumn = col("conflicts_json", "conflicting clauses");

/// Every stored result of an audit, in the order they were written. A stored JSON value that
/// cannot be read is an error naming its column and row; an empty one (NULL) reads as none.
pub fn results(conn: &Connection, run_id: &str) -> ApiResult<Vec<ResultRow>> {
    let mut st = conn.prepare(
        "SELECT case_id, model, label, clause_id, readable, verdict, clauses_met_json, open_question_json, agrees,
                conflicts_json, input_tokens, output_tokens, cost_usd
         FROM label_audit_results WHERE run_id = ?1 ORDER BY rowid",
    )?;
    let rows = st
        .query_map([run_id], |r| {
            let case_id: String = r.get(0)?;
            let model: String = r.get(1)?;
            let row = format!("{run_id}, case {case_id}, model {model}");
            let value = |i: usize, col: &'static StoredColumn| -> rusqlite::Result<Value> {
                Ok(col.parse_opt_in_row(r.get(i)?, &row, i)?.unwrap_or(Value::Null))
            };
            let list = |i: usize, col: &'static StoredColumn| -> rusqlite::Result<Vec<String>> {
                Ok(col.parse_opt_in_row(r.get(i)?, &row, i)?.unwrap_or_default())
            };
            Ok(ResultRow {
                case_id,
                model,
                label: r.get(2)?,
                clause_id: r.get(3)?,
                readable: r.get(4)?,
                verdict: r.get(5)?,
                clauses_met: value(6, &CLAUSES_MET)?,
                open_question: value(7, &OPEN_QUESTION)?,
                agrees: r.get(8)?,
                conflicts: list(9, &CONFLICTS)?,
                input_tokens: r.get::<_, i64>(10)? as u64,
                output_tokens: r.get::<_, i64>(11)? as u64,
                cost_usd: r.get(12)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
