//! Anthropic's Message Batches: one POST with every request inline, poll the batch, then read the
//! JSONL at its results address.

use serde_json::{json, Value};

use super::http::{json_lines, send, send_json};
use super::provider::{error_text, required_str, Line, Outcome, Polled, Results, Submitted};
use super::upload::{request_body, Upload};
use crate::llm::client::ModelHandle;
use crate::llm::error::LlmError;
use crate::llm::origin;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};
use std::sync::Arc;

fn batches_url(m: &ModelHandle) -> String {
    format!("{}/v1/messages/batches", m.cfg.base_url.trim_end_matches('/'))
}

fn render_request(m: &ModelHandle, l: &Line) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&json!({"custom_id": l.custom_id, "params": request_body(m, &l.req)}))
}

/// `{"requests": [...]}`, written request by request as it is sent.
pub fn create_body(m: &ModelHandle, lines: &Arc<[Line]>) -> Upload {
    Upload::new(m, lines.clone(), &b"{\"requests\":["[..], b",", &b"]}"[..], render_request)
}

pub async fn submit(http: &reqwest::Client, m: &ModelHandle, lines: &Arc<[Line]>) -> Result<Submitted, LlmError> {
    let upload = create_body(m, lines);
    let rb = http
        .post(batches_url(m))
        .header(CONTENT_TYPE, "application/json")
        .header(CONTENT_LENGTH, upload.byte_len()?)
        .body(upload.body());
    let created = send_json(m, rb).await?;
    let id = required_str(m, &created, "id", "the batch creation's reply")?;
    Ok(Submitted {
        provider_batch_id: id,
        input_file_id: None,
        provider_status: created.get("processing_status").and_then(Value::as_str).unwrap_or("in_progress").to_string(),
    })
}

/// Read a message batch object.
pub fn read_status(v: &Value) -> Polled {
    let status = v.get("processing_status").and_then(Value::as_str).unwrap_or("unknown").to_string();
    let ended = status == "ended";
    let count = |k: &str| v.pointer(&format!("/request_counts/{k}")).and_then(Value::as_u64).unwrap_or(0);
    let results = match v.get("results_url").and_then(Value::as_str) {
        Some(u) if ended => Results::Url(u.to_string()),
        _ => Results::None,
    };
    Polled {
        ended,
        provider_status: status,
        succeeded: count("succeeded"),
        failed: count("errored") + count("expired") + count("canceled"),
        failure: None,
        results,
    }
}

pub async fn poll(http: &reqwest::Client, m: &ModelHandle, id: &str) -> Result<Polled, LlmError> {
    let v = send_json(m, http.get(format!("{}/{id}", batches_url(m)))).await?;
    Ok(read_status(&v))
}

/// One line of the results file.
pub fn read_result_line(v: &Value) -> Option<(String, Outcome)> {
    let id = v.get("custom_id")?.as_str()?.to_string();
    let result = v.get("result")?;
    let outcome = match result.get("type").and_then(Value::as_str) {
        Some("succeeded") => Outcome::Answered(result.get("message").cloned().unwrap_or(Value::Null)),
        Some("errored") => Outcome::Failed(error_text(result.get("error").unwrap_or(&Value::Null))),
        Some("expired") => Outcome::Failed("the batch expired before this request ran".into()),
        Some("canceled") => Outcome::Failed("the batch was cancelled before this request ran".into()),
        other => Outcome::Failed(format!("unknown result type {}", other.unwrap_or("(none)"))),
    };
    Some((id, outcome))
}

/// Read the results file at the address the batch names. Anthropic names an address under its
/// own API; one at another origin than the model's base URL is not fetched (the key would go
/// along), and the batch's requests go into the next round instead.
pub async fn results(http: &reqwest::Client, m: &ModelHandle, url: &str) -> Result<Vec<(String, Outcome)>, LlmError> {
    origin::check(&m.cfg.name, &m.cfg.base_url, url, "a batch's results", |s| m.scrub_text(s))?;
    let bytes = send(m, http.get(url)).await?;
    Ok(json_lines(&m.cfg.name, &bytes)?.iter().filter_map(read_result_line).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_statuses_and_result_lines() {
        let p = read_status(
            &json!({"id": "msgbatch_1", "processing_status": "in_progress", "request_counts": {"processing": 2, "succeeded": 1}}),
        );
        assert!(!p.ended && matches!(p.results, Results::None));
        let p = read_status(
            &json!({"processing_status": "ended", "results_url": "http://x/r", "request_counts": {"succeeded": 2, "expired": 1}}),
        );
        assert!(p.ended && p.failed == 1 && matches!(p.results, Results::Url(_)));
        let ok =
            read_result_line(&json!({"custom_id": "a", "result": {"type": "succeeded", "message": {"content": []}}}));
        assert!(matches!(ok, Some((_, Outcome::Answered(_)))));
        let ex = read_result_line(&json!({"custom_id": "b", "result": {"type": "expired"}}));
        assert!(matches!(ex, Some((_, Outcome::Failed(ref r))) if r.contains("expired")));
        let er = read_result_line(
            &json!({"custom_id": "c", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "too long"}}}}),
        );
        assert!(matches!(er, Some((_, Outcome::Failed(ref r))) if r.contains("too long")));
    }
}
