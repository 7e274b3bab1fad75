//! OpenAI's Batch API (also Azure OpenAI's): upload the requests as a JSONL file, create a batch
//! over it, poll it, then read the output and error files.

use serde_json::{json, Value};

use super::http::{json_lines, send, send_json};
use super::provider::{error_text, required_str, Line, Outcome, Polled, Results, Submitted};
use super::upload::{request_body, Upload};
use crate::llm::client::ModelHandle;
use crate::llm::config::ProviderKind;
use crate::llm::error::LlmError;
use crate::llm::wire::openai::AZURE_DEFAULT_API_VERSION;
use std::sync::Arc;

fn base(m: &ModelHandle) -> String {
    let b = m.cfg.base_url.trim_end_matches('/');
    match m.cfg.kind {
        ProviderKind::Azure => format!("{b}/openai"),
        _ => b.to_string(),
    }
}

/// `path` under the API root, with Azure's api-version.
fn url(m: &ModelHandle, path: &str) -> String {
    match m.cfg.kind {
        ProviderKind::Azure => format!(
            "{}/{path}?api-version={}",
            base(m),
            m.cfg.api_version.as_deref().unwrap_or(AZURE_DEFAULT_API_VERSION)
        ),
        _ => format!("{}/{path}", base(m)),
    }
}

/// Where each line of the JSONL file says its request goes.
fn line_endpoint(m: &ModelHandle) -> &'static str {
    match m.cfg.kind {
        ProviderKind::Azure => "/chat/completions",
        _ => "/v1/chat/completions",
    }
}

/// One line of the JSONL file the Batch API reads: one chat-completions request.
fn render_line(m: &ModelHandle, l: &Line) -> Result<Vec<u8>, serde_json::Error> {
    let mut body = request_body(m, &l.req);
    if m.cfg.kind == ProviderKind::Azure {
        // Azure batch lines name the deployment as the model.
        body["model"] = json!(m.cfg.model);
    }
    let mut out = serde_json::to_vec(
        &json!({"custom_id": l.custom_id, "method": "POST", "url": line_endpoint(m), "body": body}),
    )?;
    out.push(b'\n');
    Ok(out)
}

/// The JSONL file, written line by line as it is uploaded.
pub fn input_file(m: &ModelHandle, lines: &Arc<[Line]>) -> Upload {
    Upload::new(m, lines.clone(), Vec::new(), b"", Vec::new(), render_line)
}

pub async fn submit(http: &reqwest::Client, m: &ModelHandle, lines: &Arc<[Line]>) -> Result<Submitted, LlmError> {
    let upload = input_file(m, lines);
    let file = reqwest::multipart::Part::stream_with_length(upload.body(), upload.byte_len()?)
        .file_name("psebench-batch.jsonl")
        .mime_str("application/jsonl")
        .map_err(|e| LlmError::Config(format!("could not prepare the batch file: {e}")))?;
    let form = reqwest::multipart::Form::new().text("purpose", "batch").part("file", file);
    let uploaded = send_json(m, http.post(url(m, "files")).multipart(form)).await?;
    let file_id = required_str(m, &uploaded, "id", "the file upload's reply")?;
    let endpoint = line_endpoint(m);
    let created = send_json(
        m,
        http.post(url(m, "batches")).json(&json!({
            "input_file_id": file_id,
            "endpoint": endpoint,
            "completion_window": "24h",
            "metadata": {"created_by": "psebench"}
        })),
    )
    .await?;
    let id = required_str(m, &created, "id", "the batch creation's reply")?;
    Ok(Submitted {
        provider_batch_id: id,
        input_file_id: Some(file_id),
        provider_status: created.get("status").and_then(Value::as_str).unwrap_or("validating").to_string(),
    })
}

/// Read a batch object.
pub fn read_status(v: &Value) -> Polled {
    let status = v.get("status").and_then(Value::as_str).unwrap_or("unknown").to_string();
    let ended = matches!(status.as_str(), "completed" | "failed" | "expired" | "cancelled");
    let count = |k: &str| v.pointer(&format!("/request_counts/{k}")).and_then(Value::as_u64).unwrap_or(0);
    let failure = (status == "failed").then(|| {
        v.pointer("/errors/data")
            .and_then(Value::as_array)
            .map(|errs| errs.iter().map(error_text).collect::<Vec<_>>().join("; "))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "the provider refused the batch".into())
    });
    let file = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let results = if ended && failure.is_none() {
        Results::Files { output: file("output_file_id"), errors: file("error_file_id") }
    } else {
        Results::None
    };
    Polled { ended, provider_status: status, succeeded: count("completed"), failed: count("failed"), failure, results }
}

pub async fn poll(http: &reqwest::Client, m: &ModelHandle, id: &str) -> Result<Polled, LlmError> {
    let v = send_json(m, http.get(url(m, &format!("batches/{id}")))).await?;
    Ok(read_status(&v))
}

/// One line of an output or error file.
pub fn read_result_line(v: &Value) -> Option<(String, Outcome)> {
    let id = v.get("custom_id")?.as_str()?.to_string();
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Some((id, Outcome::Failed(error_text(&json!({"error": err})))));
    }
    let status = v.pointer("/response/status_code").and_then(Value::as_u64).unwrap_or(0);
    let body = v.pointer("/response/body").cloned().unwrap_or(Value::Null);
    if (200..300).contains(&status) {
        Some((id, Outcome::Answered(body)))
    } else {
        Some((id, Outcome::Failed(format!("HTTP {status}: {}", error_text(&body)))))
    }
}

pub async fn results(
    http: &reqwest::Client,
    m: &ModelHandle,
    output: Option<&str>,
    errors: Option<&str>,
) -> Result<Vec<(String, Outcome)>, LlmError> {
    let mut out = Vec::new();
    for file in [output, errors].into_iter().flatten() {
        let bytes = send(m, http.get(url(m, &format!("files/{file}/content")))).await?;
        out.extend(json_lines(&m.cfg.name, &bytes)?.iter().filter_map(read_result_line));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_statuses_and_result_lines() {
        let p = read_status(
            &json!({"id": "batch_1", "status": "in_progress", "request_counts": {"total": 3, "completed": 1, "failed": 0}}),
        );
        assert!(!p.ended);
        assert_eq!(p.succeeded, 1);
        let p = read_status(&json!({"status": "expired", "output_file_id": "f1", "error_file_id": null}));
        assert!(p.ended && p.failure.is_none());
        assert!(matches!(p.results, Results::Files { output: Some(_), errors: None }));
        let p = read_status(&json!({"status": "failed", "errors": {"data": [{"message": "bad line 3"}]}}));
        assert_eq!(p.failure.as_deref(), Some("bad line 3"));
        let ok = read_result_line(
            &json!({"custom_id": "k1", "response": {"status_code": 200, "body": {"choices": []}}, "error": null}),
        );
        assert!(matches!(ok, Some((ref id, Outcome::Answered(_))) if id == "k1"));
        let bad = read_result_line(
            &json!({"custom_id": "k2", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}),
        );
        assert!(matches!(bad, Some((_, Outcome::Failed(ref r))) if r.contains("expired")));
    }
}
