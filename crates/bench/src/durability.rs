//! What flushing every commit to the disk costs: the same evaluation (synthetic cases, the
//! loopback mock provider answering at once) in two scratch stores, one opened with
//! `synchronous=NORMAL` and one with the default `FULL`.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::error::{ApiError, ApiResult, ErrorCode};
use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::MockServer;

/// One evaluation under one `synchronous` setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DurabilityPoint {
    /// "NORMAL" or "FULL".
    pub synchronous: String,
    pub cases: u64,
    /// Requests the mock answered (the store also commits one cache row per request).
    pub requests: u64,
    pub wall_ms: f64,
    pub cases_per_sec: f64,
    pub ms_per_case: f64,
}

/// Both settings, in the order they ran, and FULL's cost relative to NORMAL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DurabilityBench {
    pub concurrency: u32,
    pub points: Vec<DurabilityPoint>,
    /// (FULL wall time / NORMAL wall time − 1) × 100.
    pub full_extra_pct: f64,
}

async fn one_point(dir: &Path, relaxed: bool, cases: usize, concurrency: u32) -> ApiResult<DurabilityPoint> {
    psebench::store::relax_sync_for_benchmark(relaxed);
    let engine = Engine::open_with(
        &dir.join(if relaxed { "normal.db" } else { "full.db" }),
        EngineOptions { secrets: Arc::new(psebench::secrets::MemoryStore::default()), client: Default::default() },
    );
    psebench::store::relax_sync_for_benchmark(false);
    let engine = engine?;
    let scratch = dir.join(if relaxed { "normal" } else { "full" });
    std::fs::create_dir_all(&scratch).map_err(|e| ApiError::new(ErrorCode::Io, e.to_string()))?;
    let (e, d) = (engine.clone(), scratch.clone());
    tokio::task::spawn_blocking(move || super::metrics::load_results(&e, &d, cases, 1))
        .await
        .map_err(|e| ApiError::internal(format!("loading the synthetic cases failed: {e}")))??;
    let mock = MockServer::start_with(super::store::mock_script(0), 0, false)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Io, format!("could not start the mock: {e}")))?;
    engine.model_add(&ModelAddRequest {
        name: "bench-durability".into(),
        kind: "openai-compatible".into(),
        model: "bench".into(),
        base_url: Some(mock.openai_base()),
        concurrency: Some(concurrency),
        timeout_secs: Some(60),
        ..Default::default()
    })?;
    let run_id = engine.evaluation_create(&EvaluationRunRequest {
        cases: "all".into(),
        model: "bench-durability".into(),
        info_model: "bench-durability".into(),
        judge_model: "bench-durability".into(),
        turns: 10,
        concurrency,
        ..Default::default()
    })?;
    let t = Instant::now();
    let summary = engine.evaluation_execute(&run_id).await?;
    let wall_ms = t.elapsed().as_secs_f64() * 1000.0;
    let done = summary.counts.done;
    Ok(DurabilityPoint {
        synchronous: if relaxed { "NORMAL" } else { "FULL" }.into(),
        cases: done,
        requests: mock.request_count(),
        wall_ms,
        cases_per_sec: done as f64 / (wall_ms / 1000.0),
        ms_per_case: wall_ms / done.max(1) as f64,
    })
}

/// Run the benchmark in scratch stores under `dir` (on the disk being measured).
pub async fn run(dir: &Path, cases: usize, concurrency: u32) -> ApiResult<DurabilityBench> {
    let normal = one_point(dir, true, cases, concurrency).await?;
    let full = one_point(dir, false, cases, concurrency).await?;
    let full_extra_pct = (full.wall_ms / normal.wall_ms.max(1e-9) - 1.0) * 100.0;
    Ok(DurabilityBench { concurrency, points: vec![normal, full], full_extra_pct })
}
