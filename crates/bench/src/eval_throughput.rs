//! `psebench bench eval-throughput`: does an evaluation keep as many model requests in flight as
//! it asks for? A scratch store gets N synthetic cases; the loopback mock answers every request
//! after L ms; a model is registered with no concurrency option (so its endpoint limit is the
//! default 8); then one evaluation at concurrency C runs end to end: create the run, claim it,
//! load its cases, work until every case is done.
//!
//! The check: requests per second = model requests the mock answered ÷ wall seconds from the
//! start of `evaluation_create` to the return of `evaluation_execute`. With C cases in flight and one
//! request in flight per case at a time, at most C requests are in flight, each taking at least
//! L, so C ÷ L requests per second is the ceiling. The bench passes when requests per second ÷
//! (C ÷ L) ≥ 0.90.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::error::{ApiError, ApiResult, ErrorCode};
use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::MockServer;

/// The share of C ÷ L a run must reach to pass.
pub const PASS_RATIO: f64 = 0.90;

/// The most CPU the evaluation may spend per model request (ms) to pass, where it is measured.
pub const PASS_CPU_MS_PER_REQUEST: f64 = 0.4;

/// How CPU per request is computed, as the output states it.
pub const CPU_DEFINITION: &str = "CPU per request = CPU time (user + system) of the whole psebench process from creating the run to its end, minus the CPU of the mock's own thread, ÷ model requests; pass when ≤ 0.4 ms";

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
    /// `evaluation_create`: the run and its items.
    pub create_ms: f64,
    /// `evaluation_execute`: claim, load, the run.
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
    /// CPU ms the evaluation spent per model request (the mock's thread excluded); none where
    /// the system cannot tell a thread's CPU time.
    pub cpu_ms_per_request: Option<f64>,
    pub pass_cpu_ms_per_request: f64,
    pub cpu_definition: String,
}

/// The mock provider on a thread of its own (a one-thread runtime), so its CPU time can be
/// told apart from the evaluation's.
struct MockThread {
    base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: Option<std::sync::mpsc::Receiver<MockTally>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default, Clone, Copy)]
struct MockTally {
    requests: u64,
    peak_in_flight: u64,
    cpu_secs: Option<f64>,
}

impl MockThread {
    fn start(latency_ms: u64) -> ApiResult<MockThread> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<String, String>>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<MockTally>();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("psebench-mock".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                rt.block_on(async move {
                    let mock = match MockServer::start_with(super::store::mock_script(latency_ms), 0, false).await {
                        Ok(m) => m,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(mock.openai_base()));
                    let cpu_before = thread_cpu_secs();
                    // A dropped sender means "stop" as well.
                    let _ = stop_rx.await;
                    let cpu_secs = match (cpu_before, thread_cpu_secs()) {
                        (Some(a), Some(b)) => Some(b - a),
                        _ => None,
                    };
                    let _ = done_tx.send(MockTally {
                        requests: mock.request_count(),
                        peak_in_flight: mock.peak_in_flight(),
                        cpu_secs,
                    });
                });
            })
            .map_err(|e| io_error("could not start the mock's thread", e))?;
        let base = ready_rx
            .recv()
            .map_err(|e| io_error("the mock's thread ended before it started", e))?
            .map_err(|e| io_error("could not start the mock", e))?;
        Ok(MockThread { base, stop: Some(stop_tx), done: Some(done_rx), thread: Some(thread) })
    }

    /// Stop the mock and say what it answered and what CPU its thread spent while it ran.
    fn finish(mut self) -> MockTally {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let tally = self.done.take().and_then(|d| d.recv().ok()).unwrap_or_default();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        tally
    }
}

impl Drop for MockThread {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// CPU seconds (user + system) the calling thread has used.
#[cfg(unix)]
fn thread_cpu_secs() -> Option<f64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

#[cfg(not(unix))]
fn thread_cpu_secs() -> Option<f64> {
    None
}

/// CPU seconds (user + system) the whole process has used, its ended threads included.
#[cfg(unix)]
fn process_cpu_secs() -> Option<f64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

#[cfg(not(unix))]
fn process_cpu_secs() -> Option<f64> {
    None
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
        EngineOptions { secrets: Arc::new(psebench::secrets::MemoryStore::default()), client: Default::default() },
    )?;
    let t = Instant::now();
    let (e, d, n) = (engine.clone(), dir.to_path_buf(), opts.cases);
    tokio::task::spawn_blocking(move || -> ApiResult<()> {
        let (cases, _) = psebench::metrics::synthetic_benchmark(n, 0, 1);
        let path = d.join("cases.jsonl");
        psebench::case::io::write_cases(&path, &cases)?;
        e.cases_import(&path, false, "imported")?;
        Ok(())
    })
    .await
    .map_err(|e| ApiError::internal(format!("storing the synthetic cases failed: {e}")))??;
    let setup_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mock = MockThread::start(opts.latency_ms)?;
    engine.model_add(&ModelAddRequest {
        name: "bench-throughput".into(),
        kind: "openai-compatible".into(),
        model: "bench".into(),
        base_url: Some(mock.base.clone()),
        timeout_secs: Some(60),
        ..Default::default()
    })?;
    let cfg = engine.model_get("bench-throughput")?.config;
    let registered_limit = engine.llm().endpoint_snapshot(&cfg).registered;
    let t = Instant::now();
    let cpu_before = process_cpu_secs();
    let run_id = engine.evaluation_create(&EvaluationRunRequest {
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
    let summary = engine.evaluation_execute(&run_id).await?;
    let execute_ms = t2.elapsed().as_secs_f64() * 1000.0;
    let wall_ms = t.elapsed().as_secs_f64() * 1000.0;
    let cpu_after = process_cpu_secs();
    let served = mock.finish();
    let requests = served.requests;
    let cpu_ms_per_request = match (cpu_before, cpu_after, served.cpu_secs) {
        (Some(a), Some(b), Some(m)) if requests > 0 => Some((b - a - m).max(0.0) * 1000.0 / requests as f64),
        _ => None,
    };
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
        peak_in_flight: served.peak_in_flight,
        requests_per_sec,
        ideal_per_sec,
        ratio,
        pass_ratio: PASS_RATIO,
        passed: ratio >= PASS_RATIO
            && summary.counts.done == opts.cases as u64
            && cpu_ms_per_request.is_none_or(|c| c <= PASS_CPU_MS_PER_REQUEST),
        ceiling_after: engine.llm().endpoint_snapshot(&cfg).ceiling,
        definition: DEFINITION.into(),
        cpu_ms_per_request,
        pass_cpu_ms_per_request: PASS_CPU_MS_PER_REQUEST,
        cpu_definition: CPU_DEFINITION.into(),
    })
}
