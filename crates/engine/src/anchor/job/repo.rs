//! Storage of an anchor job's items: one row per (job, anchor) in `anchor_job_items`, written when
//! the job is created (no outcome yet) and updated as each anchor is handled.

use rusqlite::{params, Connection};

use crate::anchor::llm::AnchorBatchItem;
use crate::error::ApiResult;
use crate::util::now_rfc3339;

/// One anchor of a job as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemRow {
    pub anchor_id: String,
    /// None: not handled yet.
    pub outcome: Option<String>,
    pub clause_id: Option<String>,
    pub note: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

impl ItemRow {
    /// Handled for good (a failed anchor is tried again on resume).
    pub fn is_done(&self) -> bool {
        self.outcome.as_deref().is_some_and(|o| o != "failed")
    }

    pub fn as_batch_item(&self) -> Option<AnchorBatchItem> {
        Some(AnchorBatchItem {
            anchor_id: self.anchor_id.clone(),
            outcome: self.outcome.clone()?,
            clause_id: self.clause_id.clone(),
            note: self.note.clone(),
        })
    }
}

/// Freeze a new job's anchors, in order.
pub fn insert_pending(conn: &Connection, run_id: &str, anchor_ids: &[String]) -> ApiResult<()> {
    let mut st = conn.prepare("INSERT INTO anchor_job_items (run_id, anchor_id, position) VALUES (?1, ?2, ?3)")?;
    for (i, id) in anchor_ids.iter().enumerate() {
        st.execute(params![run_id, id, i as i64])?;
    }
    Ok(())
}

/// Record one anchor's outcome (tokens and cost add up over tries).
pub fn record(
    conn: &Connection,
    run_id: &str,
    item: &AnchorBatchItem,
    input_tokens: u64,
    output_tokens: u64,
    cost_usd: f64,
) -> ApiResult<()> {
    conn.execute(
        "UPDATE anchor_job_items SET outcome = ?3, clause_id = ?4, note = ?5,
            input_tokens = input_tokens + ?6, output_tokens = output_tokens + ?7, cost_usd = cost_usd + ?8,
            finished_at = ?9
         WHERE run_id = ?1 AND anchor_id = ?2",
        params![
            run_id,
            item.anchor_id,
            item.outcome,
            item.clause_id,
            item.note,
            input_tokens as i64,
            output_tokens as i64,
            cost_usd,
            now_rfc3339()
        ],
    )?;
    Ok(())
}

/// A job's anchors in the job's order.
pub fn items(conn: &Connection, run_id: &str) -> ApiResult<Vec<ItemRow>> {
    let mut st = conn.prepare(
        "SELECT anchor_id, outcome, clause_id, note, input_tokens, output_tokens, cost_usd
         FROM anchor_job_items WHERE run_id = ?1 ORDER BY position",
    )?;
    let rows = st
        .query_map([run_id], |r| {
            Ok(ItemRow {
                anchor_id: r.get(0)?,
                outcome: r.get(1)?,
                clause_id: r.get(2)?,
                note: r.get(3)?,
                input_tokens: r.get::<_, i64>(4)?.max(0) as u64,
                output_tokens: r.get::<_, i64>(5)?.max(0) as u64,
                cost_usd: r.get(6)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
