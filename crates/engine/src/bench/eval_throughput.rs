//! `psebench bench eval-throughput`: does an evaluation keep as many model requests in flight as
//! it asks for? A scratch store gets N synthetic cases; the loopback mock answers every request
//! after L ms; a model is registered with no concurrency option (so its endpoint limit is the
//! default 8); then one evaluation at concurrency C runs end to end: create the run, claim it,
//! load its cases, work until every case is done.
//!
//! The check: requests per second = model requests the mock answered ÷ wall seconds from the
//! start of `eval_create` to the return of `eval_execute`. With C cases in flight and one
//! request in flight per case at a time, at most C requests are in flight, each taking at least
//! L, so C ÷ L requests per second is the ceiling. The bench passes when requests per second ÷
//! (C ÷ L) ≥ 0.90.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::api::models::ModelAddRequest;
use crate::api::{Engine, EngineOptions};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::evaluation::EvalRunRequest;
use crate::mock::MockServer;

/// The share of C ÷ L a run must reach to pass.
pub const PASS_RATIO: f64 = 0.90;

/// How the ratio is computed, as the output states it.
pub const DEFINITION: &str = "requests/s = model requests the mock answered ÷ wall seconds from creating the run to the end of the run (create, claim, loading the cases and the run itself); ideal = C ÷ L (C requests in flight, each taking L); ratio = requests/s ÷ ideal; pass when ratio ≥ 0.90";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalThroughputOptions {
    pub cases: usize,
    /// The run's `concurrency` (C).
    pub concurrency: u32,
    /// The mock's delay before every reply (L).
    pub latency_ms: u64,
}

impl Default for EvalThroughputOptions {
    fn default() -> Self {
        EvalThroughputOptions { cases: 3000, concurrency: 64, latency_ms: 50 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalThroughput {
    pub options: EvalThroughputOptions,
    /// The model's registered endpoint limit (no concurrency option given).
    pub registered_limit: u32,
    /// Storing the synthetic cases (not measured).
    pub setup_ms: f64,
    /// `eval_create`: the run and its items.
    pub create_ms: f64,
    /// `eval_execute`: claim, load, the run.
    pub execute_ms: f64,
    pub wall_ms: f64,
    pub cases_done: u64,
    pub requests: u64,
    /// Most requests the mock was answering at once.
    pub peak_in_flight: u64,
    pub requests_per_sec: f64,
    /// C ÷ L.
    pub ideal_per_sec: f64,
    pub ratio: f64,
    pub pass_ratio: f64,
    pub passed: bool,
    /// The endpoint's ceiling once the run ended (the registered limit again).
    pub ceiling_after: u32,
    pub definition: String,
}

fn io_error(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Io, format!("{what}: {e}"))
}

/// Run the benchmark in a scratch store under `dir`. Needs a multi-threaded tokio runtime.
pub async fn run(dir: &Path, opts: &EvalThroughputOptions) -> ApiResult<EvalThroughput> {
    if opts.latency_ms == 0 {
        return Err(ApiError::invalid("The mock latency must be above 0 ms: C ÷ L is the yardstick."));
    }
    let engine = Engine::open_with(
        &dir.join("bench.db"),
        EngineOptions { secrets: Arc::new(crate::secrets::MemoryStore::default()), client: Default::default() },
    )?;
    let t = Instant::now();
    let (e, d, n) = (engine.clone(), dir.to_path_buf(), opts.cases);
    tokio::task::spawn_blocking(move || -> ApiResult<()> {
        let (cases, _) = crate::metrics::synthetic_benchmark(n, 0, 1);
        let path = d.join("cases.jsonl");
        crate::case::io::write_cases(&path, &cases)?;
        e.cases_import(&path, false, "imported")?;
        Ok(())
    })
    .await
    .map_err(|e| ApiError::internal(format!("storing the synthetic cases failed: {e}")))??;
    let setup_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mock = MockServer::start_with(super::store::mock_script(opts.latency_ms), 0, false)
        .await
        .map_err(|e| io_error("could not start the mock", e))?;
    engine.models_add(&ModelAddRequest {
        name: "bench-throughput".into(),
        kind: "openai-compatible".into(),
        model: "bench".into(),
        base_url: Some(mock.openai_base()),
        timeout_secs: Some(60),
        ..Default::default()
    })?;
    let cfg = engine.models_get("bench-throughput")?.config;
    let registered_limit = engine.llm().endpoint_snapshot(&cfg).registered;
    let t = Instant::now();
    let run_id = engine.eval_create(&EvalRunRequest {
        cases: "all".into(),
        model: "bench-throughput".into(),
        info_model: "bench-throughput".into(),
        judge_model: "bench-throughput".into(),
        turns: 10,
        concurrency: opts.concurrency,
        ..Default::default()
    })?;
    let create_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t2 = Instant::now();
    let summary = engine.eval_execute(&run_id).await?;
    let execute_ms = t2.elapsed().as_secs_f64() * 1000.0;
    let wall_ms = t.elapsed().as_secs_f64() * 1000.0;
    let requests = mock.request_count();
    let requests_per_sec = requests as f64 / (wall_ms / 1000.0);
    let ideal_per_sec = opts.concurrency as f64 * 1000.0 / opts.latency_ms as f64;
    let ratio = requests_per_sec / ideal_per_sec;
    Ok(EvalThroughput {
        options: opts.clone(),
        registered_limit,
        setup_ms,
        create_ms,
        execute_ms,
        wall_ms,
        cases_done: summary.counts.done,
        requests,
        peak_in_flight: mock.peak_in_flight(),
        requests_per_sec,
        ideal_per_sec,
        ratio,
        pass_ratio: PASS_RATIO,
        passed: ratio >= PASS_RATIO && summary.counts.done == opts.cases as u64,
        ceiling_after: engine.llm().endpoint_snapshot(&cfg).ceiling,
        definition: DEFINITION.into(),
    })
}
