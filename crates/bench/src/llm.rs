//! Throughput of the LLM client against the mock provider: requests per second compared with the
//! ideal C/L, client CPU per request, and the latency the client adds on top of the provider's.

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{process_cpu_seconds, quantile};
use psebench::api::models::ModelAddRequest;
use psebench::api::Engine;
use psebench::error::ApiResult;
use psebench::llm::{CallContext, CancellationToken, ChatRequest, Message};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmBenchPoint {
    pub latency_ms: u64,
    pub concurrency: u32,
    pub requests: u32,
    pub failures: u32,
    pub seconds: f64,
    pub requests_per_sec: f64,
    /// C / L; null when L = 0.
    pub ideal_per_sec: Option<f64>,
    pub ratio_to_ideal: Option<f64>,
    /// Client process CPU time per request (the mock runs in another process).
    pub cpu_ms_per_request: Option<f64>,
    /// Latency above the provider's own, in ms.
    pub added_p50_ms: f64,
    pub added_p99_ms: f64,
}

/// Run `requests` chat calls with `concurrency` workers against an OpenAI-compatible endpoint at
/// `base_url` whose replies take `latency_ms`.
pub async fn run_point(
    engine: &Engine,
    base_url: &str,
    latency_ms: u64,
    concurrency: u32,
    requests: u32,
) -> ApiResult<LlmBenchPoint> {
    let name = format!("bench-c{concurrency}-l{latency_ms}");
    engine.model_add(&ModelAddRequest {
        name: name.clone(),
        kind: "openai-compatible".into(),
        model: "bench".into(),
        base_url: Some(base_url.to_string()),
        concurrency: Some(concurrency),
        timeout_secs: Some(30),
        ..Default::default()
    })?;
    let handle = Arc::new(engine.model_handle(&name)?);
    let client = Arc::new(engine.llm_without_cache());
    // Warm the connection pool so connection set-up is not measured.
    let warm: Vec<_> = (0..concurrency)
        .map(|i| {
            let (c, h) = (client.clone(), handle.clone());
            tokio::spawn(async move {
                let req = ChatRequest::new(vec![Message::user(format!("warm {i}"))]);
                if let Err(e) = c.chat(&h, &req, &CallContext::new(None, "bench-warmup"), &CancellationToken::new()).await {
                    tracing::warn!(error = %e, "a warm-up call failed; the measured calls will show whether the endpoint works");
                }
            })
        })
        .collect();
    for w in warm {
        if let Err(e) = w.await {
            tracing::warn!(error = %e, "a warm-up task stopped unexpectedly");
        }
    }
    let next = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let cpu0 = process_cpu_seconds();
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (c, h, next) = (client.clone(), handle.clone(), next.clone());
            tokio::spawn(async move {
                let mut lat = Vec::new();
                let mut failures = 0u32;
                let ctx = CallContext::new(None, "bench");
                let cancel = CancellationToken::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= requests {
                        break;
                    }
                    let req =
                        ChatRequest::new(vec![Message::system("benchmark"), Message::user(format!("request {i}"))]);
                    let t = Instant::now();
                    match c.chat(&h, &req, &ctx, &cancel).await {
                        Ok(_) => lat.push(t.elapsed()),
                        Err(_) => failures += 1,
                    }
                }
                (lat, failures)
            })
        })
        .collect();
    let mut latencies: Vec<f64> = Vec::with_capacity(requests as usize);
    let mut failures = 0;
    for w in workers {
        if let Ok((lat, f)) = w.await {
            latencies.extend(lat.iter().map(|d: &Duration| d.as_secs_f64() * 1000.0 - latency_ms as f64));
            failures += f;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) => Some((b - a) * 1000.0 / requests.max(1) as f64),
        _ => None,
    };
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let rps = requests as f64 / seconds;
    let ideal = if latency_ms > 0 { Some(concurrency as f64 * 1000.0 / latency_ms as f64) } else { None };
    engine.model_remove(&name)?;
    Ok(LlmBenchPoint {
        latency_ms,
        concurrency,
        requests,
        failures,
        seconds,
        requests_per_sec: rps,
        ideal_per_sec: ideal,
        ratio_to_ideal: ideal.map(|i| rps / i),
        cpu_ms_per_request: cpu,
        added_p50_ms: quantile(&latencies, 0.5).max(0.0),
        added_p99_ms: quantile(&latencies, 0.99).max(0.0),
    })
}
