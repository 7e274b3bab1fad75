//! Batches and their requests in the store (`llm_batches`, `llm_batch_requests`).

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::provider::{Outcome, Polled};
use crate::error::ApiResult;
use crate::util::now_rfc3339;

/// Where a batch stands in our bookkeeping.
pub const SUBMITTING: &str = "submitting";
pub const IN_PROGRESS: &str = "in_progress";
pub const ENDED: &str = "ended";
pub const FAILED: &str = "failed";

/// A batch as shown in progress views and `psebench batches`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BatchView {
    pub batch_id: String,
    pub provider_batch_id: Option<String>,
    pub model_name: String,
    pub provider: String,
    pub run_id: Option<String>,
    /// `submitting`, `in_progress`, `ended` or `failed`.
    pub state: String,
    /// The provider's own word for it (validating, in_progress, finalizing, completed, expired, ended, …).
    pub provider_status: Option<String>,
    pub requests: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Requests whose answers the run has not taken yet.
    pub waiting: u64,
    pub error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub ended_at: Option<String>,
}

/// A new batch and its requests: (custom id, run, stage) in request order.
pub struct NewBatch<'a> {
    pub batch_id: &'a str,
    pub model_name: &'a str,
    pub provider: &'a str,
    pub endpoint: &'a str,
    pub run_id: Option<&'a str>,
    pub requests: &'a [(String, Option<String>, String)],
}

pub fn insert(conn: &Connection, b: &NewBatch<'_>) -> ApiResult<()> {
    let tx = conn.unchecked_transaction()?;
    let now = now_rfc3339();
    tx.execute(
        "INSERT INTO llm_batches (batch_id, model_name, provider, endpoint, run_id, state, requests, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        params![b.batch_id, b.model_name, b.provider, b.endpoint, b.run_id, SUBMITTING, b.requests.len() as i64, now],
    )?;
    {
        let mut stmt = tx.prepare(
            "INSERT OR IGNORE INTO llm_batch_requests (batch_id, custom_id, position, run_id, stage, state)
             VALUES (?1, ?2, ?3, ?4, ?5, 'pending')",
        )?;
        for (i, (id, run, stage)) in b.requests.iter().enumerate() {
            stmt.execute(params![b.batch_id, id, i as i64, run, stage])?;
        }
    }
    tx.commit()?;
    Ok(())
}

pub fn set_submitted(
    conn: &Connection,
    batch_id: &str,
    provider_batch_id: &str,
    input_file_id: Option<&str>,
    provider_status: &str,
) -> ApiResult<()> {
    conn.execute(
        "UPDATE llm_batches SET provider_batch_id = ?2, input_file_id = ?3, provider_status = ?4, state = ?5, updated_at = ?6
         WHERE batch_id = ?1",
        params![batch_id, provider_batch_id, input_file_id, provider_status, IN_PROGRESS, now_rfc3339()],
    )?;
    Ok(())
}

/// The batch never reached the provider, or the provider refused it as a whole.
pub fn set_failed(conn: &Connection, batch_id: &str, error: &str) -> ApiResult<()> {
    let now = now_rfc3339();
    conn.execute(
        "UPDATE llm_batches SET state = ?2, error = ?3, updated_at = ?4, ended_at = ?4 WHERE batch_id = ?1",
        params![batch_id, FAILED, error, now],
    )?;
    conn.execute(
        "UPDATE llm_batch_requests SET state = 'failed', error = ?2 WHERE batch_id = ?1 AND state = 'pending'",
        params![batch_id, error],
    )?;
    Ok(())
}

pub fn set_polled(conn: &Connection, batch_id: &str, p: &Polled) -> ApiResult<()> {
    conn.execute(
        "UPDATE llm_batches SET provider_status = ?2, succeeded = ?3, failed = ?4, updated_at = ?5 WHERE batch_id = ?1",
        params![batch_id, p.provider_status, p.succeeded as i64, p.failed as i64, now_rfc3339()],
    )?;
    Ok(())
}

/// Keep every outcome, mark requests the provider said nothing about as failed, end the batch.
pub fn finish(conn: &Connection, batch_id: &str, outcomes: &[(String, Outcome)], p: &Polled) -> ApiResult<()> {
    let tx = conn.unchecked_transaction()?;
    let (mut ok, mut bad) = (0i64, 0i64);
    {
        let mut answered = tx.prepare(
            "UPDATE llm_batch_requests SET state = 'succeeded', response_json = ?3, error = NULL
             WHERE batch_id = ?1 AND custom_id = ?2 AND state = 'pending'",
        )?;
        let mut failed = tx.prepare(
            "UPDATE llm_batch_requests SET state = 'failed', error = ?3 WHERE batch_id = ?1 AND custom_id = ?2 AND state = 'pending'",
        )?;
        for (id, o) in outcomes {
            match o {
                Outcome::Answered(body) => ok += answered.execute(params![batch_id, id, body.to_string()])? as i64,
                Outcome::Failed(why) => bad += failed.execute(params![batch_id, id, why])? as i64,
            }
        }
    }
    let why = match p.failure.as_deref() {
        Some(f) => format!("the provider refused the batch: {f}"),
        None => format!("the batch ended ({}) without a result for this request", p.provider_status),
    };
    bad += tx.execute(
        "UPDATE llm_batch_requests SET state = 'failed', error = ?2 WHERE batch_id = ?1 AND state = 'pending'",
        params![batch_id, why],
    )? as i64;
    let now = now_rfc3339();
    tx.execute(
        "UPDATE llm_batches SET state = ?2, provider_status = ?3, succeeded = ?4, failed = ?5, error = ?6, updated_at = ?7, ended_at = ?7
         WHERE batch_id = ?1",
        params![batch_id, ENDED, p.provider_status, ok, bad, p.failure, now],
    )?;
    tx.commit()?;
    Ok(())
}

/// The latest batch request stored for a cache key.
#[derive(Debug, Clone)]
pub struct Found {
    pub batch_id: String,
    pub provider_batch_id: Option<String>,
    pub batch_state: String,
    pub state: String,
    pub response_json: Option<String>,
    pub error: Option<String>,
}

pub fn lookup(conn: &Connection, custom_id: &str) -> ApiResult<Option<Found>> {
    Ok(conn
        .query_row(
            "SELECT r.batch_id, b.provider_batch_id, b.state, r.state, r.response_json, r.error
             FROM llm_batch_requests r JOIN llm_batches b ON b.batch_id = r.batch_id
             WHERE r.custom_id = ?1 ORDER BY b.created_at DESC, b.rowid DESC LIMIT 1",
            [custom_id],
            |r| {
                Ok(Found {
                    batch_id: r.get(0)?,
                    provider_batch_id: r.get(1)?,
                    batch_state: r.get(2)?,
                    state: r.get(3)?,
                    response_json: r.get(4)?,
                    error: r.get(5)?,
                })
            },
        )
        .optional()?)
}

/// The run has the answer (in the response cache): the stored copy is dropped.
pub fn mark_collected(conn: &Connection, batch_id: &str, custom_id: &str) -> ApiResult<()> {
    conn.execute(
        "UPDATE llm_batch_requests SET state = 'collected', response_json = NULL WHERE batch_id = ?1 AND custom_id = ?2",
        params![batch_id, custom_id],
    )?;
    Ok(())
}

/// Custom ids of a batch in request order.
pub fn order(conn: &Connection, batch_id: &str) -> ApiResult<Vec<String>> {
    let mut stmt = conn.prepare("SELECT custom_id FROM llm_batch_requests WHERE batch_id = ?1 ORDER BY position")?;
    let ids = stmt.query_map([batch_id], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// How many provider batches a run sent.
pub fn count_for_run(conn: &Connection, run_id: &str) -> ApiResult<u64> {
    Ok(conn.query_row("SELECT count(*) FROM llm_batches WHERE run_id = ?1", [run_id], |r| r.get::<_, i64>(0))? as u64)
}

/// Forget a deleted run's batches: its requests (and the replies kept for it) go, and so does
/// each of its batches that holds no request of another run. Returns how many batches went.
pub fn delete_for_run(conn: &Connection, run_id: &str) -> ApiResult<u64> {
    conn.execute("DELETE FROM llm_batch_requests WHERE run_id = ?1", [run_id])?;
    Ok(conn.execute(
        "DELETE FROM llm_batches WHERE run_id = ?1
           AND NOT EXISTS (SELECT 1 FROM llm_batch_requests r WHERE r.batch_id = llm_batches.batch_id)",
        [run_id],
    )? as u64)
}

/// Batches of a run (all batches when `run_id` is None), newest first.
pub fn list(conn: &Connection, run_id: Option<&str>) -> ApiResult<Vec<BatchView>> {
    let mut stmt = conn.prepare(
        "SELECT b.batch_id, b.provider_batch_id, b.model_name, b.provider, b.run_id, b.state, b.provider_status,
                b.requests, b.succeeded, b.failed, b.error, b.created_at, b.updated_at, b.ended_at,
                (SELECT count(*) FROM llm_batch_requests r WHERE r.batch_id = b.batch_id AND r.state IN ('pending', 'succeeded'))
         FROM llm_batches b WHERE (?1 IS NULL OR b.run_id = ?1) ORDER BY b.created_at DESC, b.rowid DESC",
    )?;
    let rows = stmt
        .query_map([run_id], |r| {
            Ok(BatchView {
                batch_id: r.get(0)?,
                provider_batch_id: r.get(1)?,
                model_name: r.get(2)?,
                provider: r.get(3)?,
                run_id: r.get(4)?,
                state: r.get(5)?,
                provider_status: r.get(6)?,
                requests: r.get::<_, i64>(7)? as u64,
                succeeded: r.get::<_, i64>(8)? as u64,
                failed: r.get::<_, i64>(9)? as u64,
                error: r.get(10)?,
                created_at: r.get(11)?,
                updated_at: r.get(12)?,
                ended_at: r.get(13)?,
                waiting: r.get::<_, i64>(14)? as u64,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
