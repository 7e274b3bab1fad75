//! Paper scale through provider batches: N synthetic cases (the generator behind `bench
//! metrics`) evaluated with up to three models under test, one per batch API (OpenAI, Anthropic,
//! Gemini), through the loopback mock's batch endpoints, in this process. Then the same cases are
//! evaluated with direct calls in a second store (so no cached answer is reused) and the metrics
//! of both are compared. Reports the process's peak memory against a bound, and what the two ways
//! cost.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::error::{ApiError, ApiResult, ErrorCode};
use psebench::evaluation::EvaluationRunRequest;
use psebench::llm::batch::{BatchSettings, BATCH_WORKERS};
use psebench::llm::ClientOptions;
use psebench::metrics::{MetricsOptions, MetricsReport};
use psebench::mock::{BatchBehaviour, MockServer, Reply, Rule, Script, When};

/// The memory bound the benchmark checks: 300 MB (10^6 bytes), in MiB as the peak is reported.
pub const RSS_BOUND_MIB: f64 = 300.0 * 1_000_000.0 / (1024.0 * 1024.0);

/// Floats of the two metric reports may differ by this much and still count as equal.
pub const FLOAT_TOLERANCE: f64 = 1e-12;

/// The models under test, one per provider batch API: (name, kind, how it behaves in the mock).
const MODELS: [(&str, &str); 3] =
    [("scale-openai", "openai"), ("scale-anthropic", "anthropic"), ("scale-gemini", "gemini")];

/// What the benchmark is asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchScaleOptions {
    pub cases: usize,
    /// Models under test (1–3), taken in the order OpenAI, Anthropic, Gemini.
    pub models: usize,
    /// How long the mock takes to finish a batch.
    pub batch_delay_ms: u64,
    /// Concurrency of each direct (interactive) run.
    pub interactive_concurrency: u32,
    /// Cases each batch-mode run works on at once (`BatchSettings::in_flight`): the memory bound.
    pub in_flight: usize,
}

impl Default for BatchScaleOptions {
    fn default() -> Self {
        BatchScaleOptions {
            cases: 5074,
            models: 3,
            batch_delay_ms: 50,
            interactive_concurrency: 32,
            in_flight: BATCH_WORKERS,
        }
    }
}

/// One model under test: its runs in both modes and what they cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchScaleModel {
    pub model: String,
    pub kind: String,
    pub batch_run: String,
    pub interactive_run: String,
    pub cases_done_batch: u64,
    pub cases_done_interactive: u64,
    /// Calls of the run (all roles) and how many a batch answered.
    pub calls_batch: u64,
    pub batch_calls: u64,
    pub calls_interactive: u64,
    pub cost_batch_usd: f64,
    pub cost_online_usd: f64,
    /// M1–M8 and by_case_type equal in both modes (floats within the tolerance).
    pub metrics_equal: bool,
    /// Where they differ (empty when equal).
    pub differences: Vec<String>,
}

/// The outcome of the benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchScaleBench {
    pub options: BatchScaleOptions,
    pub cases: usize,
    pub models: usize,
    /// Requests the mock answered inside batches.
    pub requests: u64,
    /// Provider batches sent.
    pub batches: usize,
    /// Building and importing the cases.
    pub setup_ms: f64,
    /// The batch-mode runs, from their start until every one has finished.
    pub batch_wall_ms: f64,
    pub interactive_wall_ms: f64,
    /// Requests of the direct runs.
    pub interactive_requests: u64,
    /// The process's peak resident memory (VmHWM) when the batch-mode runs had finished and at
    /// the end, in MiB; None where the OS does not tell (not Linux).
    pub peak_rss_after_batch_mib: Option<f64>,
    pub peak_rss_mib: Option<f64>,
    pub rss_bound_mib: f64,
    /// The peak up to the end of the batch-mode runs stayed within the bound (None: unknown).
    /// The direct runs and the scoring that follow are the comparison, not the batch path, and
    /// their peak (`peak_rss_mib`) is reported without a bound.
    pub rss_ok: Option<bool>,
    pub metrics_equal: bool,
    pub cost_online_usd: f64,
    pub cost_batch_usd: f64,
    pub per_model: Vec<BatchScaleModel>,
}

impl BatchScaleBench {
    /// Every check passed (memory only where it could be measured).
    pub fn passed(&self) -> bool {
        self.metrics_equal
            && self.rss_ok != Some(false)
            && self.per_model.iter().all(|m| m.cases_done_batch as usize == self.cases)
    }
}

/// The process's peak resident memory in MiB (Linux), else None.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn rule(name: &str, when: When, reply: Value) -> Rule {
    Rule {
        name: Some(name.into()),
        when,
        reply: Some(Reply::Json { json: reply }),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    }
}

fn verdict(v: &str, clause: Option<&str>, rationale: &str) -> Value {
    json!({
        "action": "ANSWER", "ask_question": null, "final_verdict": v, "targeted_clause": clause,
        "clause_and_guidance_evidence": clause.map(|c| vec![c.to_string()]).unwrap_or_default(),
        "rationale": rationale
    })
}

fn ask(question: &str) -> Value {
    json!({"action": "ASK", "ask_question": question, "final_verdict": null, "targeted_clause": null,
        "clause_and_guidance_evidence": null, "rationale": null})
}

/// The mock's answers: the information provider answers about the field asked for, the judge
/// finds the first condition it is shown; the OpenAI model asks once and then calls the event
/// reportable, the Anthropic one decides at once that it is not, the Gemini one asks once and
/// stays unsure.
pub fn mock_script(batch_delay_ms: u64) -> Script {
    let model = |m: &str| When { model: Some(format!("{m}-id")), ..Default::default() };
    let first_turn = |m: &str| When { model: Some(format!("{m}-id")), user_turns_max: Some(1), ..Default::default() };
    Script {
        rules: vec![
            rule(
                "info",
                When {
                    system_contains: Some("look-up service".into()),
                    last_user_regex: Some("- field: (\\w+)".into()),
                    ..Default::default()
                },
                json!({"status": "answered", "answer_to_eval": "The record gives {{1}}.", "fields_used": ["{{1}}"]}),
            ),
            rule(
                "judge",
                When {
                    system_contains: Some("You review the written reasoning".into()),
                    last_user_regex: Some("- name: (\\w+)".into()),
                    ..Default::default()
                },
                json!({"hits": ["{{1}}"], "explanations": {"{{1}}": "weighed in the rationale"}}),
            ),
            rule("openai-asks", first_turn("scale-openai"), ask("Which field did the report record first?")),
            rule(
                "openai-answers",
                model("scale-openai"),
                verdict("Reportable", Some("Care Management Events clause 1"), "The recorded facts meet the clause."),
            ),
            rule(
                "anthropic-answers",
                model("scale-anthropic"),
                verdict("Non-reportable", None, "No serious harm is recorded."),
            ),
            rule("gemini-asks", first_turn("scale-gemini"), ask("Was the patient harmed?")),
            rule(
                "gemini-answers",
                model("scale-gemini"),
                verdict("Uncertain", None, "The record leaves the harm open."),
            ),
        ],
        batch: BatchBehaviour { delay_ms: batch_delay_ms, ..Default::default() },
        ..Default::default()
    }
}

/// Batch timing for a benchmark: a batch leaves after 200 ms without new requests and is polled
/// every 100 ms; `in_flight` cases per run at once.
pub fn fast_batch_settings(in_flight: usize) -> BatchSettings {
    BatchSettings {
        quiet: Duration::from_millis(200),
        poll: Duration::from_millis(100),
        max_requests: 50_000,
        in_flight: in_flight.max(1),
        ..BatchSettings::default()
    }
}

fn open_store(path: &Path, in_flight: usize) -> ApiResult<Engine> {
    Engine::open_with(
        path,
        EngineOptions {
            secrets: Arc::new(psebench::secrets::MemoryStore::default()),
            client: ClientOptions { batch: fast_batch_settings(in_flight), ..Default::default() },
        },
    )
}

/// The models under test, the information provider and the judge, all at the mock.
fn register(engine: &Engine, mock: &MockServer, models: usize) -> ApiResult<()> {
    let mut all: Vec<(&str, &str)> = MODELS.iter().take(models).copied().collect();
    all.push(("scale-info", "openai"));
    all.push(("scale-judge", "openai"));
    for (name, kind) in all {
        let base = if kind == "openai" { mock.openai_base() } else { mock.root() };
        engine.model_add(&ModelAddRequest {
            name: name.into(),
            kind: kind.into(),
            model: format!("{name}-id"),
            base_url: Some(base),
            api_key: Some(format!("bench-key-{name}")),
            price_in: Some(2.0),
            price_out: Some(8.0),
            ..Default::default()
        })?;
    }
    Ok(())
}

/// Evaluate every stored case with each model under test, all runs at once; the run ids in order.
async fn evaluate_all(engine: &Engine, models: usize, batch: bool, concurrency: u32) -> ApiResult<Vec<String>> {
    let mut runs = Vec::new();
    for (name, _) in MODELS.iter().take(models) {
        runs.push(engine.evaluation_create(&EvaluationRunRequest {
            cases: "all".into(),
            model: (*name).into(),
            info_model: "scale-info".into(),
            judge_model: "scale-judge".into(),
            turns: 10,
            concurrency,
            batch,
            label: Some(format!("bench batch-scale ({})", if batch { "batch" } else { "direct" })),
            ..Default::default()
        })?);
    }
    let futures = runs.iter().map(|r| engine.evaluation_execute(r));
    for (run, summary) in runs.iter().zip(futures::future::join_all(futures).await) {
        let s = summary?;
        if s.status != "completed" {
            return Err(ApiError::internal(format!("run {run} ended as {} ({} cases done)", s.status, s.counts.done)));
        }
    }
    Ok(runs)
}

fn cost(engine: &Engine, run: &str) -> ApiResult<psebench::llm::accounting::UsageTotals> {
    let totals = psebench::llm::accounting::totals_by_stage(engine.store(), Some(run))?;
    Ok(psebench::llm::accounting::sum(&totals))
}

fn done(engine: &Engine, run: &str) -> ApiResult<u64> {
    Ok(engine.evaluation_show(run)?.counts.done)
}

/// Where two JSON values differ (floats within `FLOAT_TOLERANCE`), as JSON paths.
pub fn json_differences(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) if (x - y).abs() <= FLOAT_TOLERANCE => {}
            _ => out.push(format!("{path}: {a} vs {b}")),
        },
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => json_differences(&format!("{path}.{k}"), va, vb, out),
                    None => out.push(format!("{path}.{k}: only in the batch run")),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(format!("{path}.{k}: only in the direct run"));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                json_differences(&format!("{path}[{i}]"), va, vb, out);
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{path}: {a} vs {b}")),
    }
}

/// M1–M8 and the per-case-type scores of the report's one model.
fn scores(report: &MetricsReport) -> ApiResult<Value> {
    let m = report.models.first().ok_or_else(|| ApiError::internal("the metrics report has no model"))?;
    let v = serde_json::to_value(m).map_err(|e| ApiError::internal(e.to_string()))?;
    let keys = ["m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "by_case_type"];
    Ok(Value::Object(keys.iter().map(|k| (k.to_string(), v.get(*k).cloned().unwrap_or(Value::Null))).collect()))
}

/// Run the benchmark with scratch stores under `dir`. Needs a multi-threaded tokio runtime.
pub async fn run(dir: &Path, opts: &BatchScaleOptions) -> ApiResult<BatchScaleBench> {
    let models = opts.models.clamp(1, MODELS.len());
    let t0 = Instant::now();
    let mock = MockServer::start_with(mock_script(opts.batch_delay_ms), 0, false)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Io, format!("could not start the mock provider: {e}")))?;
    let cases_path = dir.join("cases.jsonl");
    let (cases, _) = psebench::metrics::synthetic_benchmark(opts.cases, 0, 1);
    psebench::case::io::write_cases(&cases_path, &cases)?;
    drop(cases);
    let batched = open_store(&dir.join("batch.db"), opts.in_flight)?;
    let direct = open_store(&dir.join("direct.db"), opts.in_flight)?;
    for e in [&batched, &direct] {
        register(e, &mock, models)?;
        let (e, p) = (e.clone(), cases_path.clone());
        tokio::task::spawn_blocking(move || e.cases_import(&p, false, "imported"))
            .await
            .map_err(|e| ApiError::internal(format!("importing the synthetic cases failed: {e}")))??;
    }
    let setup_ms = t0.elapsed().as_secs_f64() * 1000.0;

    let t = Instant::now();
    let batch_runs = evaluate_all(&batched, models, true, 1).await?;
    let batch_wall_ms = t.elapsed().as_secs_f64() * 1000.0;
    let peak_rss_after_batch_mib = peak_rss_mib();
    let requests = mock.request_count();
    let batches = batched.batches_list(None)?.len();

    let t = Instant::now();
    let direct_runs = evaluate_all(&direct, models, false, opts.interactive_concurrency.max(1)).await?;
    let interactive_wall_ms = t.elapsed().as_secs_f64() * 1000.0;
    let interactive_requests = mock.request_count() - requests;

    let metrics_opts = MetricsOptions::default();
    let mut per_model = Vec::new();
    for (i, (name, kind)) in MODELS.iter().take(models).enumerate() {
        let (br, dr) = (&batch_runs[i], &direct_runs[i]);
        let a = scores(&batched.metrics_for_runs(std::slice::from_ref(br), &metrics_opts)?)?;
        let b = scores(&direct.metrics_for_runs(std::slice::from_ref(dr), &metrics_opts)?)?;
        let mut differences = Vec::new();
        json_differences("", &a, &b, &mut differences);
        let (cb, cd) = (cost(&batched, br)?, cost(&direct, dr)?);
        per_model.push(BatchScaleModel {
            model: (*name).into(),
            kind: (*kind).into(),
            batch_run: br.clone(),
            interactive_run: dr.clone(),
            cases_done_batch: done(&batched, br)?,
            cases_done_interactive: done(&direct, dr)?,
            calls_batch: cb.calls,
            batch_calls: cb.batch_calls,
            calls_interactive: cd.calls,
            cost_batch_usd: cb.cost_usd,
            cost_online_usd: cd.cost_usd,
            metrics_equal: differences.is_empty(),
            differences,
        });
    }
    let peak = peak_rss_mib();
    Ok(BatchScaleBench {
        options: opts.clone(),
        cases: opts.cases,
        models,
        requests,
        batches,
        setup_ms,
        batch_wall_ms,
        interactive_wall_ms,
        interactive_requests,
        peak_rss_after_batch_mib,
        peak_rss_mib: peak,
        rss_bound_mib: RSS_BOUND_MIB,
        rss_ok: peak_rss_after_batch_mib.map(|p| p <= RSS_BOUND_MIB),
        metrics_equal: per_model.iter().all(|m| m.metrics_equal),
        cost_online_usd: per_model.iter().map(|m| m.cost_online_usd).sum(),
        cost_batch_usd: per_model.iter().map(|m| m.cost_batch_usd).sum(),
        per_model,
    })
}
