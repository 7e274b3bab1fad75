//! `psebench bench batch-scale` in its quick form: the same code path as the paper-scale
//! benchmark over a few dozen synthetic cases, checking that batch mode and direct calls give
//! the same metrics for each of the three batch APIs (timing and memory are not asserted).

use psebench_bench::batch_scale::{json_differences, run, BatchScaleOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_cases_through_the_three_batch_apis_give_the_direct_runs_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let opts =
        BatchScaleOptions { cases: 60, models: 3, batch_delay_ms: 20, interactive_concurrency: 8, in_flight: 1000 };
    let b = run(dir.path(), &opts).await.unwrap();
    assert_eq!((b.cases, b.models), (60, 3));
    assert!(b.metrics_equal, "{:#?}", b.per_model);
    let kinds: Vec<&str> = b.per_model.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(kinds, ["openai", "anthropic", "gemini"]);
    for m in &b.per_model {
        assert_eq!((m.cases_done_batch, m.cases_done_interactive), (60, 60), "{m:?}");
        // As many calls as the direct run; those not answered from the cache went through batches.
        assert_eq!(m.calls_batch, m.calls_interactive, "{m:?}");
        assert!(m.batch_calls > 0 && m.batch_calls <= m.calls_batch, "{m:?}");
        assert!(m.cost_batch_usd > 0.0 && m.cost_batch_usd < m.cost_online_usd, "{m:?}");
    }
    // The rounds went out as batches (a handful per model, not one per request).
    assert!(b.batches >= 3 && (b.batches as u64) < b.requests / 4, "{} batches for {} requests", b.batches, b.requests);
    assert!(b.peak_rss_mib.is_none_or(|p| p > 0.0));
}

#[test]
fn metric_reports_compare_with_a_tolerance_for_floats_only() {
    let a = json!({"m1": {"value": 0.5, "n": 10}, "by_case_type": [{"type": "missing", "m1": 0.25}]});
    let mut out = Vec::new();
    json_differences(
        "",
        &a,
        &json!({"m1": {"value": 0.5 + 1e-13, "n": 10}, "by_case_type": [{"type": "missing", "m1": 0.25}]}),
        &mut out,
    );
    assert!(out.is_empty(), "{out:?}");
    json_differences(
        "",
        &a,
        &json!({"m1": {"value": 0.5001, "n": 11}, "by_case_type": [{"type": "complete", "m1": 0.25}]}),
        &mut out,
    );
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(out.iter().any(|d| d.starts_with(".m1.value")), "{out:?}");
    assert!(out.iter().any(|d| d.starts_with(".by_case_type[0].type")), "{out:?}");
}
