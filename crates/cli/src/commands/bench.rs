use clap::Subcommand;
use psebench::util::format::count;
use psebench::ApiError;
use psebench_bench::llm::{run_point, LlmBenchPoint};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitCode, Stdio};

use super::runtime;
use crate::output::{print_json, table};
use crate::Cli;

#[derive(Subcommand)]
pub enum BenchCmd {
    /// LLM client throughput against the mock provider (run in a separate process) at
    /// latency L ∈ {0, 50 ms} and concurrency C ∈ {1, 8, 64}.
    Llm {
        /// Seconds of load per point (more is steadier).
        #[arg(long, default_value_t = 4.0)]
        seconds: f64,
    },
    /// Metrics and every paper table over a synthetic 5,074-case × 15-model set, from JSONL and from the store.
    Metrics {
        #[arg(long, default_value_t = 5074)]
        cases: usize,
        #[arg(long, default_value_t = 15)]
        models: usize,
        /// Also save the generated cases.jsonl and trajectories.jsonl in DIR (for timing other tools on them).
        #[arg(long, value_name = "DIR")]
        keep: Option<std::path::PathBuf>,
    },
    /// Store a synthetic result set (5,074 cases and one completed run per model, 15 models by
    /// default) in the database, to measure the Results screen at the paper's scale.
    LoadResults {
        #[arg(long, default_value_t = 5074)]
        cases: usize,
        #[arg(long, default_value_t = 15)]
        models: usize,
    },
    /// How fast `store.info` answers (over HTTP, from an in-process `psebench serve`) while an
    /// evaluation runs against the mock provider and the Results data of every stored run is
    /// loaded again and again. Uses a scratch store.
    Store {
        #[arg(long, default_value_t = 5074)]
        cases: usize,
        #[arg(long, default_value_t = 15)]
        models: usize,
        /// Evaluation concurrency.
        #[arg(long, default_value_t = 64)]
        concurrency: u32,
        /// Delay of every mock reply, in ms.
        #[arg(long, default_value_t = 20)]
        latency_ms: u64,
        /// Seconds of measurement.
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
    },
    /// Memory of a review server while CLIENTS clients at once each push a MB-megabyte request body
    /// at it (without a token, with a made-up one, and with a valid link). Uses a scratch store.
    ServeFlood {
        #[arg(long, default_value_t = 8)]
        clients: usize,
        #[arg(long, default_value_t = 400)]
        mb: u64,
    },
    /// Whether an evaluation keeps as many model requests in flight as it asks for: N synthetic
    /// cases, the mock answering after L ms, a model registered without any concurrency option,
    /// one run at concurrency C timed end to end (create, claim, load, run). Passes at ≥ 0.90 of C ÷ L.
    EvalThroughput {
        #[arg(long, default_value_t = 3000)]
        cases: usize,
        /// The run's concurrency (C).
        #[arg(long, default_value_t = 64)]
        concurrency: u32,
        /// Delay of every mock reply, in ms (L).
        #[arg(long, default_value_t = 50)]
        latency_ms: u64,
        /// A short run for CI: 400 cases.
        #[arg(long)]
        quick: bool,
    },
    /// Paper scale through provider batches: N synthetic cases × up to 3 models (one each on
    /// the OpenAI, Anthropic and Gemini batch APIs of an in-process mock), then the same cases
    /// with direct calls; checks peak memory ≤ 300 MB and that both give the same metrics.
    /// Each batch-mode run keeps as many cases in flight as runs do by default (500);
    /// `--in-flight` changes that.
    BatchScale {
        #[arg(long, default_value_t = 5074)]
        cases: usize,
        #[arg(long, default_value_t = 3)]
        models: usize,
        /// Cases each batch-mode run works on at once (default: the runs' default, 500).
        #[arg(long, value_name = "N")]
        in_flight: Option<usize>,
        /// Also write the result as JSON to FILE.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
    /// What flushing every commit costs: one evaluation of N synthetic cases against the mock
    /// (0 ms) in a store with synchronous=NORMAL, then in one with the default FULL.
    Durability {
        #[arg(long, default_value_t = 2000)]
        cases: usize,
        /// Evaluation concurrency.
        #[arg(long, default_value_t = 8)]
        concurrency: u32,
        /// Folder for the scratch stores (the disk being measured); a temporary folder by default.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

/// A mock provider in a child process, so the measured CPU is the client's alone.
struct MockProcess {
    child: Child,
    base: String,
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_mock(latency_ms: u64, dir: &std::path::Path) -> Result<MockProcess, ApiError> {
    let script = dir.join(format!("mock-{latency_ms}.json"));
    std::fs::write(&script, format!("{{\"latency_ms\": {latency_ms}, \"default_reply\": {{\"text\": \"fine\"}}}}"))
        .map_err(|e| ApiError::internal(format!("could not write the mock script: {e}")))?;
    let exe = std::env::current_exe().map_err(|e| ApiError::internal(e.to_string()))?;
    let mut child = Command::new(exe)
        .args(["mock-llm", "serve", "--port", "0", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| ApiError::internal(format!("could not start the mock provider: {e}")))?;
    let stdout = child.stdout.take().ok_or_else(|| ApiError::internal("mock provider has no stdout"))?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).map_err(|e| ApiError::internal(e.to_string()))?;
    let base = line
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ')']))
        .find(|w| w.starts_with("http://") && w.ends_with("/v1"))
        .map(str::to_string)
        .ok_or_else(|| ApiError::internal(format!("unexpected mock banner: {line}")))?;
    Ok(MockProcess { child, base })
}

/// Copy the bench's two JSONL inputs from its scratch folder to `keep`.
fn keep_inputs(scratch: &std::path::Path, keep: &std::path::Path) -> Result<(), ApiError> {
    std::fs::create_dir_all(keep)
        .map_err(|e| ApiError::internal(format!("could not create {}: {e}", keep.display())))?;
    for name in ["cases.jsonl", "trajectories.jsonl"] {
        let to = keep.join(name);
        std::fs::copy(scratch.join(name), &to)
            .map_err(|e| ApiError::internal(format!("could not write {}: {e}", to.display())))?;
    }
    Ok(())
}

pub fn run(cli: &Cli, cmd: &BenchCmd) -> Result<ExitCode, ApiError> {
    match cmd {
        BenchCmd::Metrics { cases, models, keep } => {
            let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
            if !cli.json {
                eprintln!("Building {cases} synthetic cases × {models} models and loading them into a scratch store…");
            }
            let b = psebench_bench::metrics::run(dir.path(), *cases, *models)?;
            if let Some(keep) = keep {
                keep_inputs(dir.path(), keep)?;
            }
            if cli.json {
                print_json(&b);
            } else {
                println!(
                    "{} cases, {} models, {} trajectories, {} bootstrap resamples per model",
                    b.cases, b.models, b.trajectories, b.bootstrap_resamples
                );
                let row = |name: &str, t: &psebench_bench::metrics::Timing| {
                    vec![
                        name.to_string(),
                        format!("{:.0}", t.load_ms),
                        format!("{:.0}", t.compute_ms),
                        format!("{:.0}", t.tables_ms),
                        format!("{:.0}", t.total_ms),
                        format!("{:.0}", t.parse_ms),
                        format!("{:.0}", t.score_ms),
                    ]
                };
                table(
                    &["SOURCE", "LOAD ms", "METRICS ms", "TABLES ms", "TOTAL ms", "PARSE ms", "SCORE ms"],
                    &[
                        row("JSONL files", &b.from_jsonl),
                        row("database", &b.from_database),
                        row("database, for scoring", &b.from_database_for_scoring),
                    ],
                );
                println!("PARSE = reading and decoding the inputs; SCORE = the report without bootstrap intervals (METRICS includes them).");
            }
        }
        BenchCmd::ServeFlood { clients, mb } => {
            let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
            let opts = psebench_bench::serve_flood::ServeFloodOptions { clients: *clients, body_mb: *mb };
            let b = runtime()?.block_on(psebench_bench::serve_flood::run(dir.path(), &opts))?;
            if cli.json {
                print_json(&b);
            } else {
                println!(
                    "{clients} clients at once, each trying to send a {mb} MB body to a review server in this process:"
                );
                let rows: Vec<Vec<String>> = b
                    .cases
                    .iter()
                    .map(|c| {
                        let mut answers = c.answers.clone();
                        answers.sort();
                        answers.dedup();
                        vec![
                            c.case.clone(),
                            format!("{:.1}", c.sent_bytes as f64 / 1e6),
                            answers.join(" / "),
                            format!("{:.2}", c.seconds),
                            format!("{:.1}", c.rss_before_kib as f64 / 1024.0),
                            format!("{:.1}", c.rss_peak_kib as f64 / 1024.0),
                            format!("{:.1}", c.rss_growth_kib as f64 / 1024.0),
                        ]
                    })
                    .collect();
                table(
                    &["REQUESTS", "SENT MB", "ANSWER", "SECONDS", "RSS BEFORE MiB", "RSS PEAK MiB", "GROWTH MiB"],
                    &rows,
                );
                println!(
                    "Largest growth: {:.1} MiB; the process's peak resident memory: {:.1} MiB. SENT MB is what the clients wrote before the server answered or hung up; the server reads none of it without a valid link, and at most 256 KiB with one.",
                    b.max_growth_mib,
                    b.vm_hwm_kib as f64 / 1024.0
                );
            }
        }
        BenchCmd::LoadResults { cases, models } => {
            // The synthetic files are made here; the store takes them through the API table.
            let api = super::engine(cli)?;
            let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
            let t0 = std::time::Instant::now();
            let files = psebench_bench::metrics::write_synthetic_files(dir.path(), *cases, *models)?;
            let _: psebench::api::cases::CasesImportResult = api.call(
                "cases.import_file",
                &psebench::api::rpc::CasesImportFileParams { file: files.cases_path.clone(), replace: false },
            )?;
            let run_ids = api
                .call::<_, psebench::api::rpc::RunIds>(
                    "evaluation.import_file",
                    &psebench::api::rpc::PathParams { path: files.trajectories_path.clone() },
                )?
                .run_ids;
            let r = psebench_bench::metrics::LoadedResults {
                cases: files.cases,
                trajectories: files.trajectories,
                run_ids,
                load_ms: t0.elapsed().as_secs_f64() * 1000.0,
            };
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Stored {} cases and {} trajectories as {} runs in {:.0} ms.",
                    r.cases,
                    r.trajectories,
                    r.run_ids.len(),
                    r.load_ms
                );
                println!("Results: #/results?runs={}", r.run_ids.join(","));
            }
        }
        BenchCmd::Store { cases, models, concurrency, latency_ms, seconds } => {
            let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
            let opts = psebench_bench::store::StoreBenchOptions {
                cases: *cases,
                models: *models,
                concurrency: *concurrency,
                latency_ms: *latency_ms,
                seconds: *seconds,
                ..Default::default()
            };
            if !cli.json {
                eprintln!("Storing {cases} synthetic cases × {models} models in a scratch store, then measuring for {seconds} s…");
            }
            let b = runtime()?.block_on(psebench_bench::store::run(dir.path(), &opts))?;
            if cli.json {
                print_json(&b);
            } else {
                println!(
                    "store.info over HTTP every {} ms for {:.0} s, while an evaluation ran at C={} (mock {} ms) and the Results data of {} trajectories was loaded {}:",
                    b.options.every_ms,
                    b.options.seconds,
                    b.options.concurrency,
                    b.options.latency_ms,
                    b.trajectories,
                    count(b.results_loads, "time")
                );
                table(
                    &[
                        "CALLS",
                        "FAILED",
                        "p50 ms",
                        "p95 ms",
                        "p99 ms",
                        "MAX ms",
                        "EVAL CASES DONE",
                        "IDLE p50 ms",
                        "IDLE MAX ms",
                    ],
                    &[vec![
                        b.calls.to_string(),
                        b.failures.to_string(),
                        format!("{:.1}", b.p50_ms),
                        format!("{:.1}", b.p95_ms),
                        format!("{:.1}", b.p99_ms),
                        format!("{:.1}", b.max_ms),
                        b.eval_cases_done.to_string(),
                        format!("{:.1}", b.idle_p50_ms),
                        format!("{:.1}", b.idle_max_ms),
                    ]],
                );
            }
        }
        BenchCmd::EvalThroughput { cases, concurrency, latency_ms, quick } => {
            let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
            let opts = psebench_bench::eval_throughput::EvalThroughputOptions {
                cases: if *quick { 400 } else { *cases },
                concurrency: *concurrency,
                latency_ms: *latency_ms,
            };
            if !cli.json {
                eprintln!(
                    "Storing {} synthetic cases in a scratch store, then one evaluation at C={concurrency} against the mock (L={latency_ms} ms)…",
                    opts.cases
                );
            }
            // On the runtime `psebench eval run` uses.
            let b = super::command_runtime()?.block_on(psebench_bench::eval_throughput::run(dir.path(), &opts))?;
            if cli.json {
                print_json(&b);
            } else {
                table(
                    &[
                        "CASES",
                        "REQUESTS",
                        "WALL ms",
                        "CREATE ms",
                        "REQ/S",
                        "C/L",
                        "RATIO",
                        "CPU ms/REQ",
                        "PEAK IN FLIGHT",
                        "RESULT",
                    ],
                    &[vec![
                        b.cases_done.to_string(),
                        b.requests.to_string(),
                        format!("{:.0}", b.wall_ms),
                        format!("{:.0}", b.create_ms),
                        format!("{:.0}", b.requests_per_sec),
                        format!("{:.0}", b.ideal_per_sec),
                        format!("{:.3}", b.ratio),
                        b.cpu_ms_per_request.map(|c| format!("{c:.3}")).unwrap_or_else(|| "-".into()),
                        b.peak_in_flight.to_string(),
                        if b.passed {
                            "pass".into()
                        } else {
                            format!("FAIL (ratio < {:.2} or CPU > {} ms)", b.pass_ratio, b.pass_cpu_ms_per_request)
                        },
                    ]],
                );
                println!(
                    "The model was registered without a concurrency option (endpoint limit {}); the run lifted it to {} and it was back to {} afterwards.",
                    b.registered_limit, b.options.concurrency, b.ceiling_after
                );
                println!("How it is measured: {}.", b.definition);
                println!("{}.", b.cpu_definition);
            }
            return Ok(if b.passed { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        BenchCmd::BatchScale { cases, models, in_flight, out } => {
            return batch_scale(cli, *cases, *models, *in_flight, out.as_deref())
        }
        BenchCmd::Durability { cases, concurrency, dir } => {
            let scratch = match dir {
                Some(d) => tempfile::tempdir_in(d),
                None => tempfile::tempdir(),
            }
            .map_err(|e| ApiError::internal(format!("could not create a scratch folder: {e}")))?;
            if !cli.json {
                eprintln!("Evaluating {cases} synthetic cases at C={concurrency} in {}, with synchronous=NORMAL and then FULL…", scratch.path().display());
            }
            let b = runtime()?.block_on(psebench_bench::durability::run(scratch.path(), *cases, *concurrency))?;
            if cli.json {
                print_json(&b);
            } else {
                let rows: Vec<Vec<String>> = b
                    .points
                    .iter()
                    .map(|p| {
                        vec![
                            p.synchronous.clone(),
                            p.cases.to_string(),
                            p.requests.to_string(),
                            format!("{:.0}", p.wall_ms),
                            format!("{:.1}", p.cases_per_sec),
                            format!("{:.2}", p.ms_per_case),
                        ]
                    })
                    .collect();
                table(&["SYNCHRONOUS", "CASES", "REQUESTS", "WALL ms", "CASES/S", "ms/CASE"], &rows);
                println!("FULL takes {:+.1}% wall time compared with NORMAL.", b.full_extra_pct);
            }
        }
        BenchCmd::Llm { seconds } => {
            let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
            let engine = psebench::api::Engine::open_with(
                &dir.path().join("bench.db"),
                psebench::api::EngineOptions {
                    secrets: std::sync::Arc::new(psebench::secrets::MemoryStore::default()),
                    client: Default::default(),
                },
            )?;
            let rt = runtime()?;
            let mut points: Vec<LlmBenchPoint> = Vec::new();
            for latency in [0u64, 50] {
                let mock = start_mock(latency, dir.path())?;
                for c in [1u32, 8, 64] {
                    // Size each point to take about `seconds` at its ideal (or a generous guess at L = 0).
                    let rate = if latency == 0 { 1500.0 } else { c as f64 * 1000.0 / latency as f64 };
                    let n = ((rate * seconds) as u32).clamp(50, 20_000);
                    let p = rt.block_on(run_point(&engine, &mock.base, latency, c, n))?;
                    if !cli.json {
                        eprintln!("  L={latency} ms C={c}: {:.0} req/s", p.requests_per_sec);
                    }
                    points.push(p);
                }
            }
            if cli.json {
                print_json(&points);
            } else {
                let rows: Vec<Vec<String>> = points
                    .iter()
                    .map(|p| {
                        vec![
                            p.latency_ms.to_string(),
                            p.concurrency.to_string(),
                            p.requests.to_string(),
                            format!("{:.0}", p.requests_per_sec),
                            p.ideal_per_sec.map(|i| format!("{i:.0}")).unwrap_or_else(|| "–".into()),
                            p.ratio_to_ideal.map(|r| format!("{:.1}%", r * 100.0)).unwrap_or_else(|| "–".into()),
                            p.cpu_ms_per_request.map(|c| format!("{c:.3}")).unwrap_or_else(|| "–".into()),
                            format!("{:.2}", p.added_p50_ms),
                            format!("{:.2}", p.added_p99_ms),
                            p.failures.to_string(),
                        ]
                    })
                    .collect();
                table(
                    &[
                        "L ms",
                        "C",
                        "REQUESTS",
                        "REQ/S",
                        "IDEAL",
                        "OF IDEAL",
                        "CPU ms/req",
                        "ADDED p50 ms",
                        "ADDED p99 ms",
                        "FAILED",
                    ],
                    &rows,
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn mib(v: Option<f64>) -> String {
    v.map(|m| format!("{m:.1} MiB")).unwrap_or_else(|| "unknown".into())
}

fn batch_scale(
    cli: &Cli,
    cases: usize,
    models: usize,
    in_flight: Option<usize>,
    out: Option<&std::path::Path>,
) -> Result<ExitCode, ApiError> {
    if !(1..=3).contains(&models) {
        return Err(ApiError::invalid(
            "--models must be 1, 2 or 3 (one model per batch API: OpenAI, Anthropic, Gemini)",
        ));
    }
    let dir = tempfile::tempdir().map_err(|e| ApiError::internal(format!("could not create a scratch folder: {e}")))?;
    let mut opts = psebench_bench::batch_scale::BatchScaleOptions { cases, models, ..Default::default() };
    if let Some(n) = in_flight {
        opts.in_flight = n.max(1);
    }
    if !cli.json {
        eprintln!(
            "Evaluating {cases} synthetic cases × {} through the mock's batch endpoints, then directly…",
            count(models, "model")
        );
    }
    let b = runtime()?.block_on(psebench_bench::batch_scale::run(dir.path(), &opts))?;
    if let Some(out) = out {
        let text = serde_json::to_string_pretty(&b).map_err(|e| ApiError::internal(e.to_string()))?;
        std::fs::write(out, text + "\n")
            .map_err(|e| ApiError::internal(format!("could not write {}: {e}", out.display())))?;
    }
    if cli.json {
        print_json(&b);
    } else {
        let yes = |ok: bool| if ok { "yes" } else { "NO" };
        println!(
            "{} cases × {}, {} cases in flight per run: {} requests in {} batches",
            b.cases,
            count(b.models, "model"),
            b.options.in_flight.min(b.cases),
            b.requests,
            b.batches
        );
        println!(
            "Wall time: batch mode {:.1} s, direct {:.1} s ({} requests); setup {:.1} s",
            b.batch_wall_ms / 1000.0,
            b.interactive_wall_ms / 1000.0,
            b.interactive_requests,
            b.setup_ms / 1000.0
        );
        let bound = match b.rss_ok {
            Some(true) => "pass",
            Some(false) => "FAIL",
            None => "unknown",
        };
        println!(
"Peak memory: {} up to the end of the batch runs (bound 300 MB = {:.1} MiB: {bound}); {} at the end, with the direct runs and scoring",
            mib(b.peak_rss_after_batch_mib),
            b.rss_bound_mib,
            mib(b.peak_rss_mib)
        );
        println!("Same metrics in both modes: {}", yes(b.metrics_equal));
        println!("Cost: online ${:.4}, batch ${:.4}", b.cost_online_usd, b.cost_batch_usd);
        let rows: Vec<Vec<String>> = b
            .per_model
            .iter()
            .map(|m| {
                vec![
                    m.model.clone(),
                    m.kind.clone(),
                    format!("{}/{}", m.cases_done_batch, m.cases_done_interactive),
                    format!("{}/{}", m.batch_calls, m.calls_batch),
                    m.calls_interactive.to_string(),
                    format!("{:.4}", m.cost_online_usd),
                    format!("{:.4}", m.cost_batch_usd),
                    yes(m.metrics_equal).to_string(),
                ]
            })
            .collect();
        table(
            &[
                "MODEL",
                "API",
                "CASES BATCH/DIRECT",
                "BATCH CALLS",
                "DIRECT CALLS",
                "ONLINE $",
                "BATCH $",
                "SAME METRICS",
            ],
            &rows,
        );
        for m in b.per_model.iter().filter(|m| !m.metrics_equal) {
            for d in m.differences.iter().take(10) {
                println!("  {}: {d}", m.model);
            }
        }
    }
    Ok(if b.passed() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
