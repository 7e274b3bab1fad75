//! How quickly the store answers while it is busy: an evaluation runs at high concurrency against
//! the loopback mock provider and the Results data of a large result set is loaded again and
//! again, while `store.info` is asked over HTTP from an in-process `psebench serve` every ~20 ms.

use serde::{Deserialize, Serialize};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::quantile;
use psebench::api::models::ModelAddRequest;
use psebench::api::results::ResultsRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::error::{ApiError, ApiResult, ErrorCode};
use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::{MockServer, Reply, Rule, Script, When};
use psebench_server::{NoAssets, OwnerToken, ServeOptions};

/// What the store benchmark is asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreBenchOptions {
    /// Synthetic cases stored before the run (and evaluated by it).
    pub cases: usize,
    /// Synthetic models, one completed run each: cases × models trajectories for the Results load.
    pub models: usize,
    /// Evaluation concurrency.
    pub concurrency: u32,
    /// Delay the mock adds to every reply.
    pub latency_ms: u64,
    /// How long `store.info` is measured.
    pub seconds: f64,
    /// Pause between two `store.info` calls.
    pub every_ms: u64,
}

impl Default for StoreBenchOptions {
    fn default() -> Self {
        StoreBenchOptions { cases: 5074, models: 15, concurrency: 64, latency_ms: 20, seconds: 20.0, every_ms: 20 }
    }
}

/// Latency of `store.info` under load, and how much load there was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreBench {
    pub options: StoreBenchOptions,
    /// Trajectories behind the Results load.
    pub trajectories: usize,
    /// Time to store the synthetic set before measuring.
    pub setup_ms: f64,
    /// `store.info` on the same store with nothing else running (50 calls), for comparison.
    pub idle_p50_ms: f64,
    pub idle_max_ms: f64,
    pub calls: usize,
    pub failures: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Full Results loads finished while measuring.
    pub results_loads: u32,
    /// Evaluation cases finished while measuring.
    pub eval_cases_done: u64,
}

fn io_error(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Io, format!("{what}: {e}"))
}

/// A mock that answers every evaluation turn at once with a verdict, and the judge with no hits.
pub(super) fn mock_script(latency_ms: u64) -> Script {
    let answer = json!({
        "action": "ANSWER", "ask_question": null, "final_verdict": "Reportable",
        "targeted_clause": null, "clause_and_guidance_evidence": [], "rationale": "Benchmark answer."
    });
    let judge = Rule {
        name: Some("judge".into()),
        when: When { system_contains: Some("You review the written reasoning".into()), ..Default::default() },
        reply: Some(Reply::Json { json: json!({"hits": [], "explanations": {}}) }),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    };
    Script { latency_ms, rules: vec![judge], default_reply: Some(Reply::Json { json: answer }), ..Default::default() }
}

type ServerTask = tokio::task::JoinHandle<ApiResult<()>>;

/// `psebench serve` in this process, on a free loopback port: the task, its stop switch (drop it
/// to stop) and the URL of `store.info`.
async fn start_server(
    engine: &Engine,
    owner_token: &OwnerToken,
) -> ApiResult<(ServerTask, tokio::sync::oneshot::Sender<()>, String)> {
    let (addr_tx, addr_rx) = tokio::sync::oneshot::channel();
    let (quit_tx, quit_rx) = tokio::sync::oneshot::channel::<()>();
    let e = engine.clone();
    let so = ServeOptions {
        addr: "127.0.0.1:0".parse().map_err(|e| io_error("bad address", e))?,
        lan: false,
        review_session: None,
        assets: Arc::new(NoAssets),
        owner_token: owner_token.clone(),
        limits: Default::default(),
        tls: None,
    };
    let server = tokio::spawn(async move {
        psebench_server::serve(
            e,
            so,
            move |a| {
                // The benchmark waits for this address; if it stopped waiting there is nobody to tell.
                let _ = addr_tx.send(a);
            },
            async move {
                // A dropped sender also means "stop".
                let _ = quit_rx.await;
            },
        )
        .await
    });
    let addr = addr_rx.await.map_err(|_| ApiError::internal("the in-process server did not start"))?;
    Ok((server, quit_tx, format!("http://{addr}/api/store.info")))
}

/// One `store.info` call over HTTP: its latency in ms, or None when it failed.
async fn store_info_ms(http: &reqwest::Client, url: &str) -> Option<f64> {
    let t = Instant::now();
    let r = http.post(url).header("content-type", "application/json").body("{}").send().await.ok()?;
    if !r.status().is_success() {
        return None;
    }
    r.bytes().await.ok()?;
    Some(t.elapsed().as_secs_f64() * 1000.0)
}

/// Run the benchmark in a scratch store under `dir`. Needs a multi-threaded tokio runtime.
pub async fn run(dir: &Path, opts: &StoreBenchOptions) -> ApiResult<StoreBench> {
    let engine = Engine::open_with(
        &dir.join("bench.db"),
        EngineOptions { secrets: Arc::new(psebench::secrets::MemoryStore::default()), client: Default::default() },
    )?;
    let setup = Instant::now();
    let (e, d, cases, models) = (engine.clone(), dir.to_path_buf(), opts.cases, opts.models);
    let loaded = tokio::task::spawn_blocking(move || super::metrics::load_results(&e, &d, cases, models))
        .await
        .map_err(|e| ApiError::internal(format!("loading the synthetic set failed: {e}")))??;
    let setup_ms = setup.elapsed().as_secs_f64() * 1000.0;

    let owner_token = OwnerToken::generate()?;
    let (server, quit_tx, url) = start_server(&engine, &owner_token).await?;
    // Every call carries the server's key, as a script with `--token-file` would send it.
    let mut auth = reqwest::header::HeaderMap::new();
    let bearer = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", owner_token.as_str()))
        .map_err(|e| ApiError::internal(format!("the server's key is not a header value: {e}")))?;
    auth.insert(reqwest::header::AUTHORIZATION, bearer);
    let http = reqwest::Client::builder()
        .default_headers(auth)
        .build()
        .map_err(|e| ApiError::internal(format!("could not make an HTTP client: {e}")))?;
    let mut idle = Vec::new();
    for _ in 0..50 {
        if let Some(ms) = store_info_ms(&http, &url).await {
            idle.push(ms);
        }
    }
    idle.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));

    let mock = MockServer::start_with(mock_script(opts.latency_ms), 0, false)
        .await
        .map_err(|e| io_error("could not start the mock", e))?;
    engine.model_add(&ModelAddRequest {
        name: "bench-store".into(),
        kind: "openai-compatible".into(),
        model: "bench".into(),
        base_url: Some(mock.openai_base()),
        concurrency: Some(opts.concurrency),
        timeout_secs: Some(60),
        ..Default::default()
    })?;
    let run_id = engine.evaluation_create(&EvaluationRunRequest {
        cases: "all".into(),
        model: "bench-store".into(),
        info_model: "bench-store".into(),
        judge_model: "bench-store".into(),
        turns: 10,
        concurrency: opts.concurrency,
        ..Default::default()
    })?;
    let eval = {
        let (e, id) = (engine.clone(), run_id.clone());
        tokio::spawn(async move { e.evaluation_execute(&id).await })
    };

    // The Results page's call, over and over, each time as if the runs were new.
    let stop = Arc::new(AtomicBool::new(false));
    let loads = Arc::new(AtomicU32::new(0));
    let loader = {
        let (e, stop, loads, run_ids) = (engine.clone(), stop.clone(), loads.clone(), loaded.run_ids.clone());
        std::thread::spawn(move || -> ApiResult<()> {
            while !stop.load(Ordering::SeqCst) {
                e.results_forget();
                e.results_overview(&ResultsRequest { run_ids: run_ids.clone() })?;
                loads.fetch_add(1, Ordering::SeqCst);
            }
            Ok(())
        })
    };

    let mut latencies = Vec::new();
    let mut failures = 0usize;
    let measured = Instant::now();
    while measured.elapsed().as_secs_f64() < opts.seconds {
        match store_info_ms(&http, &url).await {
            Some(ms) => latencies.push(ms),
            None => failures += 1,
        }
        tokio::time::sleep(Duration::from_millis(opts.every_ms)).await;
    }
    let done_now = engine.evaluation_show(&run_id)?.counts.done;
    engine.evaluation_cancel(&run_id)?;
    stop.store(true, Ordering::SeqCst);
    // Outcomes of the background work do not change the measurement; errors are still reported.
    let eval_result = eval.await.map_err(|e| ApiError::internal(format!("the evaluation task failed: {e}")))?;
    let loader_result = tokio::task::spawn_blocking(move || loader.join())
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|_| ApiError::internal("the Results loader panicked"))?;
    drop(quit_tx);
    server.await.map_err(|e| ApiError::internal(format!("the server task failed: {e}")))??;
    eval_result?;
    loader_result?;

    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    Ok(StoreBench {
        options: opts.clone(),
        trajectories: loaded.trajectories,
        setup_ms,
        calls: latencies.len(),
        failures,
        p50_ms: quantile(&latencies, 0.5),
        p95_ms: quantile(&latencies, 0.95),
        p99_ms: quantile(&latencies, 0.99),
        max_ms: latencies.last().copied().unwrap_or(0.0),
        idle_p50_ms: quantile(&idle, 0.5),
        idle_max_ms: idle.last().copied().unwrap_or(0.0),
        results_loads: loads.load(Ordering::SeqCst),
        eval_cases_done: done_now,
    })
}
