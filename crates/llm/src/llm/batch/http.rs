//! The few HTTP calls a batch needs (create, status, results), with the provider's key headers and
//! the same error classes as direct calls.

use reqwest::header::RETRY_AFTER;
use serde_json::Value;
use std::time::Duration;

use crate::llm::client::ModelHandle;
use crate::llm::error::LlmError;
use crate::llm::origin;
use crate::llm::retry::parse_retry_after;
use crate::llm::wire;

/// How long one batch management call may take (uploads of large batches included).
const CALL_TIMEOUT: Duration = Duration::from_secs(300);

pub(super) fn with_auth(m: &ModelHandle, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    let mut rb = rb.timeout(CALL_TIMEOUT);
    for (k, v) in wire::auth_headers(&m.cfg, m.key_str()) {
        rb = rb.header(k, v);
    }
    rb
}

/// Send and read the body; non-success statuses become the usual error classes. The request
/// goes out (with the key) only when its address is at the model's own origin, and a redirect
/// is an error (see `llm::origin`).
pub(super) async fn send(m: &ModelHandle, rb: reqwest::RequestBuilder) -> Result<Vec<u8>, LlmError> {
    let model = m.cfg.name.clone();
    let (client, req) = rb.build_split();
    let req = req.map_err(|e| {
        LlmError::Config(format!("{model}: a batch request could not be prepared ({})", m.scrub_text(&e.to_string())))
    })?;
    origin::check(&model, &m.cfg.base_url, req.url().as_str(), "a batch request", |s| m.scrub_text(s))?;
    let rb = reqwest::RequestBuilder::from_parts(client, req);
    let resp = with_auth(m, rb).send().await.map_err(|e| classify(m, e))?;
    if let Some(e) = origin::redirect_error(&model, &resp, |s| m.scrub_text(s)) {
        return Err(e);
    }
    let status = resp.status();
    let retry_after = resp.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
    let bytes = resp.bytes().await.map_err(|e| classify(m, e))?;
    if status.is_success() {
        return Ok(bytes.to_vec());
    }
    let body = m.scrub_text(&excerpt(&bytes));
    let code = status.as_u16();
    Err(match code {
        429 => LlmError::RateLimited { model, retry_after },
        408 | 500..=599 => LlmError::Server { model, status: code, body },
        _ => LlmError::Rejected { model, status: code, body },
    })
}

pub(super) async fn send_json(m: &ModelHandle, rb: reqwest::RequestBuilder) -> Result<Value, LlmError> {
    let bytes = send(m, rb).await?;
    serde_json::from_slice(&bytes).map_err(|e| LlmError::BadResponse {
        model: m.cfg.name.clone(),
        reason: format!("a batch reply is not valid JSON ({e})"),
    })
}

fn classify(m: &ModelHandle, e: reqwest::Error) -> LlmError {
    let model = m.cfg.name.clone();
    let message = m.scrub_text(&e.to_string());
    if e.is_timeout() {
        LlmError::Timeout { model, secs: CALL_TIMEOUT.as_secs() }
    } else {
        LlmError::Connect { model, endpoint: m.cfg.base_url.clone(), message }
    }
}

fn excerpt(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    s.trim().chars().take(300).collect()
}

/// Parse JSON Lines, skipping blank lines; a broken line is reported with its number.
pub(super) fn json_lines(model: &str, bytes: &[u8]) -> Result<Vec<Value>, LlmError> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| LlmError::BadResponse {
            model: model.to_string(),
            reason: format!("line {} of a batch result file is not JSON ({e})", i + 1),
        })?;
        out.push(v);
    }
    Ok(out)
}
