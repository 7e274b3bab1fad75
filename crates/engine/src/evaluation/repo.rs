//! Evaluation items in the store: one row per (run, case, repeat), committed as soon as the case
//! finishes, so a crash loses at most the cases in flight.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use crate::trajectory::Trajectory;
use crate::util::now_rfc3339;

pub fn insert_items(conn: &Connection, run_id: &str, case_ids: &[String], repeats: u32) -> ApiResult<()> {
    let mut stmt =
        conn.prepare("INSERT INTO evaluation_items (run_id, case_id, repeat, status) VALUES (?1, ?2, ?3, 'pending')")?;
    for r in 0..repeats.max(1) {
        for c in case_ids {
            stmt.execute(params![run_id, c, r])?;
        }
    }
    Ok(())
}

/// Items not yet finished, in case order then repeat.
pub fn pending(conn: &Connection, run_id: &str) -> ApiResult<Vec<(String, u32)>> {
    let mut stmt = conn.prepare(
        "SELECT case_id, repeat FROM evaluation_items WHERE run_id = ?1 AND status <> 'done' ORDER BY repeat, rowid",
    )?;
    let rows = stmt
        .query_map([run_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u32)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub struct ItemResult<'a> {
    pub trajectory: &'a Trajectory,
    pub correct: bool,
    pub asks: u32,
    pub parse_failure: bool,
    pub cost_usd: f64,
}

pub fn save_done(conn: &Connection, run_id: &str, repeat: u32, r: &ItemResult<'_>) -> ApiResult<()> {
    let json = serde_json::to_string(r.trajectory).map_err(|e| ApiError::internal(e.to_string()))?;
    conn.prepare_cached(
        "UPDATE evaluation_items SET status = 'done', trajectory_json = ?4, verdict = ?5, correct = ?6, asks = ?7, parse_failure = ?8,
                prompt_tokens = ?9, completion_tokens = ?10, cost_usd = ?11, last_error = NULL, finished_at = ?12
         WHERE run_id = ?1 AND case_id = ?2 AND repeat = ?3",
        )?
        .execute(
        params![
            run_id,
            r.trajectory.case_id,
            repeat,
            json,
            r.trajectory.final_answer.as_ref().and_then(|f| f.final_verdict.clone()),
            r.correct as i64,
            r.asks,
            r.parse_failure as i64,
            r.trajectory.usage.prompt_tokens as i64,
            r.trajectory.usage.completion_tokens as i64,
            r.cost_usd,
            now_rfc3339()
        ],
    )?;
    Ok(())
}

pub fn save_error(conn: &Connection, run_id: &str, case_id: &str, repeat: u32, error: &str) -> ApiResult<()> {
    conn.execute(
        "UPDATE evaluation_items SET last_error = ?4 WHERE run_id = ?1 AND case_id = ?2 AND repeat = ?3",
        params![run_id, case_id, repeat, error],
    )?;
    Ok(())
}

/// Counts of a run's items, for summaries and progress.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ItemCounts {
    pub total: u64,
    pub done: u64,
    pub correct: u64,
    pub asks: u64,
    pub parse_failures: u64,
    pub with_errors: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
}

pub fn counts(conn: &Connection, run_id: &str) -> ApiResult<ItemCounts> {
    Ok(conn.query_row(
        "SELECT count(*), sum(status = 'done'), coalesce(sum(correct), 0), coalesce(sum(asks), 0), coalesce(sum(parse_failure), 0),
                sum(status <> 'done' AND last_error IS NOT NULL), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0),
                coalesce(sum(cost_usd), 0)
         FROM evaluation_items WHERE run_id = ?1",
        [run_id],
        |r| {
            Ok(ItemCounts {
                total: r.get::<_, i64>(0)? as u64,
                done: r.get::<_, Option<i64>>(1)?.unwrap_or(0) as u64,
                correct: r.get::<_, i64>(2)? as u64,
                asks: r.get::<_, i64>(3)? as u64,
                parse_failures: r.get::<_, i64>(4)? as u64,
                with_errors: r.get::<_, Option<i64>>(5)?.unwrap_or(0) as u64,
                prompt_tokens: r.get::<_, i64>(6)? as u64,
                completion_tokens: r.get::<_, i64>(7)? as u64,
                cost_usd: r.get(8)?,
            })
        },
    )?)
}

/// What a run's items hold, for the confirmation of its deletion.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ItemTally {
    /// Items (case and repeat), finished or not.
    pub items: u64,
    /// Finished transcripts.
    pub trajectories: u64,
    /// Finished answers with a result of the M4 judge.
    pub judged: u64,
}

pub fn tally(conn: &Connection, run_id: &str) -> ApiResult<ItemTally> {
    Ok(conn.query_row(
        "SELECT count(*), coalesce(sum(status = 'done'), 0),
                coalesce(sum(status = 'done' AND json_extract(trajectory_json, '$.judge') IS NOT NULL), 0)
         FROM evaluation_items WHERE run_id = ?1",
        [run_id],
        |r| {
            Ok(ItemTally {
                items: r.get::<_, i64>(0)? as u64,
                trajectories: r.get::<_, i64>(1)? as u64,
                judged: r.get::<_, i64>(2)? as u64,
            })
        },
    )?)
}

/// Delete every item of a run (its transcripts and judge results); returns how many went.
pub fn delete_items(conn: &Connection, run_id: &str) -> ApiResult<u64> {
    Ok(conn.execute("DELETE FROM evaluation_items WHERE run_id = ?1", [run_id])? as u64)
}

/// Finished trajectories of a run (all repeats).
pub fn trajectories(conn: &Connection, run_id: &str) -> ApiResult<Vec<Trajectory>> {
    let mut stmt = conn
        .prepare("SELECT trajectory_json FROM evaluation_items WHERE run_id = ?1 AND status = 'done' ORDER BY rowid")?;
    let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    crate::trajectory::io::parse_many(&rows)
        .map_err(|(_, e)| ApiError::internal(format!("a stored trajectory is unreadable: {e}")))
}

/// The stored JSON of a run's finished trajectories (all repeats), in key order (case id, then
/// repeat; no sort needed): read under the store's lock, decoded after it is released.
pub fn trajectory_texts(conn: &Connection, run_id: &str) -> ApiResult<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT trajectory_json FROM evaluation_items WHERE run_id = ?1 AND status = 'done'")?;
    let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// One finished trajectory of a run, if there is one.
/// The stored JSON of a run's finished trajectories whose case is one of `case_ids`, by case
/// then repeat.
pub fn done_trajectory_texts(conn: &Connection, run_id: &str, case_ids: &[String]) -> ApiResult<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT trajectory_json FROM evaluation_items WHERE run_id = ?1 AND case_id = ?2 AND status = 'done'
         AND trajectory_json IS NOT NULL ORDER BY repeat",
    )?;
    let mut out = Vec::new();
    for id in case_ids {
        let rows = stmt.query_map(params![run_id, id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
        out.extend(rows);
    }
    Ok(out)
}

pub fn trajectory(conn: &Connection, run_id: &str, case_id: &str, repeat: u32) -> ApiResult<Option<Trajectory>> {
    let json: Option<String> = conn
        .query_row(
            "SELECT trajectory_json FROM evaluation_items WHERE run_id = ?1 AND case_id = ?2 AND repeat = ?3 AND status = 'done'",
            params![run_id, case_id, repeat],
            |r| r.get(0),
        )
        .optional()?;
    match json {
        None => Ok(None),
        Some(j) => serde_json::from_str(&j)
            .map(Some)
            .map_err(|e| ApiError::internal(format!("a stored trajectory is unreadable: {e}"))),
    }
}

/// Every finished repeat of one case in a run, by repeat index.
pub fn trajectory_repeats(conn: &Connection, run_id: &str, case_id: &str) -> ApiResult<Vec<(u32, Trajectory)>> {
    let mut stmt = conn.prepare(
        "SELECT repeat, trajectory_json FROM evaluation_items WHERE run_id = ?1 AND case_id = ?2 AND status = 'done' ORDER BY repeat",
    )?;
    let rows = stmt
        .query_map(params![run_id, case_id], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(k, j)| {
            serde_json::from_str(&j)
                .map(|t| (k, t))
                .map_err(|e| ApiError::internal(format!("a stored trajectory is unreadable: {e}")))
        })
        .collect()
}

/// Case ids of a run's items (distinct, in order).
pub fn case_ids(conn: &Connection, run_id: &str) -> ApiResult<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT case_id FROM evaluation_items WHERE run_id = ?1 AND repeat = 0 ORDER BY rowid")?;
    let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Store an already finished trajectory (import).
pub fn insert_done(conn: &Connection, run_id: &str, repeat: u32, t: &Trajectory, correct: bool) -> ApiResult<()> {
    conn.execute(
        "INSERT INTO evaluation_items (run_id, case_id, repeat, status) VALUES (?1, ?2, ?3, 'pending')",
        params![run_id, t.case_id, repeat],
    )?;
    save_done(
        conn,
        run_id,
        repeat,
        &ItemResult { trajectory: t, correct, asks: t.ask_count() as u32, parse_failure: false, cost_usd: 0.0 },
    )
}

/// Replace a finished item's trajectory (re-judging), leaving its scores and status as they are.
pub fn update_trajectory(conn: &Connection, run_id: &str, repeat: u32, t: &Trajectory) -> ApiResult<()> {
    let json = serde_json::to_string(t).map_err(|e| ApiError::internal(e.to_string()))?;
    conn.execute(
        "UPDATE evaluation_items SET trajectory_json = ?4 WHERE run_id = ?1 AND case_id = ?2 AND repeat = ?3",
        rusqlite::params![run_id, t.case_id, repeat, json],
    )?;
    Ok(())
}
