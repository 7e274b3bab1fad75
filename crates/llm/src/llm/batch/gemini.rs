//! Gemini's batch mode with inline requests: one `batchGenerateContent` call, poll the operation,
//! and read the responses it carries (in request order) once it is done.

use serde_json::{json, Value};

use super::http::send_json;
use super::provider::{error_text, required_str, Line, Outcome, Polled, Results, Submitted};
use super::upload::{request_body, Upload};
use crate::llm::client::ModelHandle;
use crate::llm::error::LlmError;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};
use std::sync::Arc;

fn root(m: &ModelHandle) -> String {
    format!("{}/v1beta", m.cfg.base_url.trim_end_matches('/'))
}

fn render_request(m: &ModelHandle, l: &Line) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&json!({"request": request_body(m, &l.req), "metadata": {"key": l.custom_id}}))
}

/// `{"batch": {"display_name": …, "input_config": {"requests": {"requests": [...]}}}}`, written
/// request by request as it is sent.
pub fn create_body(m: &ModelHandle, lines: &Arc<[Line]>) -> Upload {
    let head = format!(
        "{{\"batch\":{{\"display_name\":{},\"input_config\":{{\"requests\":{{\"requests\":[",
        json!(format!("psebench-{}", lines.len()))
    );
    Upload::new(m, lines.clone(), head, b",", &b"]}}}}"[..], render_request)
}

pub async fn submit(http: &reqwest::Client, m: &ModelHandle, lines: &Arc<[Line]>) -> Result<Submitted, LlmError> {
    let upload = create_body(m, lines);
    let url = format!("{}/models/{}:batchGenerateContent", root(m), m.cfg.model);
    let rb = http
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(CONTENT_LENGTH, upload.byte_len()?)
        .body(upload.body());
    let op = send_json(m, rb).await?;
    let name = required_str(m, &op, "name", "the batch creation's reply")?;
    Ok(Submitted { provider_batch_id: name, input_file_id: None, provider_status: state_of(&op) })
}

fn state_of(op: &Value) -> String {
    op.pointer("/metadata/state")
        .or_else(|| op.get("state"))
        .and_then(Value::as_str)
        .unwrap_or("BATCH_STATE_PENDING")
        .to_string()
}

/// Read a batch operation.
pub fn read_status(op: &Value) -> Polled {
    let state = state_of(op);
    let ended = op.get("done").and_then(Value::as_bool).unwrap_or(false)
        || matches!(
            state.as_str(),
            "BATCH_STATE_SUCCEEDED" | "BATCH_STATE_FAILED" | "BATCH_STATE_CANCELLED" | "BATCH_STATE_EXPIRED"
        );
    let count = |k: &str| {
        op.pointer(&format!("/metadata/batchStats/{k}"))
            .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
            .unwrap_or(0)
    };
    let failure = op.get("error").filter(|e| !e.is_null()).map(|e| error_text(&json!({"error": e})));
    let items = op
        .pointer("/response/inlinedResponses/inlinedResponses")
        .or_else(|| op.pointer("/metadata/output/inlinedResponses/inlinedResponses"))
        .and_then(Value::as_array)
        .cloned();
    let results = match items {
        Some(items) if ended => Results::Inline(items),
        _ => Results::None,
    };
    Polled {
        ended,
        provider_status: state,
        succeeded: count("successfulRequestCount"),
        failed: count("failedRequestCount"),
        failure,
        results,
    }
}

pub async fn poll(http: &reqwest::Client, m: &ModelHandle, name: &str) -> Result<Polled, LlmError> {
    let op = send_json(m, http.get(format!("{}/{name}", root(m)))).await?;
    Ok(read_status(&op))
}

/// Outcomes by custom id: the response's metadata key when the provider echoes it, else its place.
pub fn results(items: &[Value], order: &[String]) -> Vec<(String, Outcome)> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let id = item
                .pointer("/metadata/key")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| order.get(i).cloned())?;
            let outcome = match (item.get("response"), item.get("error")) {
                (Some(r), _) if !r.is_null() => Outcome::Answered(r.clone()),
                (_, Some(e)) => Outcome::Failed(error_text(&json!({"error": e}))),
                _ => Outcome::Failed("the batch returned neither a response nor an error".into()),
            };
            Some((id, outcome))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_operations_and_inline_results() {
        let p = read_status(&json!({"name": "batches/1", "metadata": {"state": "BATCH_STATE_RUNNING"}}));
        assert!(!p.ended);
        let op = json!({"name": "batches/1", "done": true,
        "metadata": {"state": "BATCH_STATE_SUCCEEDED", "batchStats": {"requestCount": "2", "successfulRequestCount": "1", "failedRequestCount": "1"}},
        "response": {"inlinedResponses": {"inlinedResponses": [
            {"response": {"candidates": []}},
            {"error": {"code": 400, "message": "bad"}}
        ]}}});
        let p = read_status(&op);
        assert!(p.ended && p.succeeded == 1 && p.failed == 1);
        let Results::Inline(items) = &p.results else { panic!("inline results expected") };
        let r = results(items, &["a".into(), "b".into()]);
        assert_eq!(r[0].0, "a");
        assert!(matches!(r[1], (ref id, Outcome::Failed(ref why)) if id == "b" && why == "bad"));
    }
}
