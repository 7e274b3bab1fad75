//! Hand-built metrics reports for the table and chart tests (no dependency on `metrics::compute`).

use indexmap::IndexMap;

use crate::metrics::{Behavior, ByCaseType, CaseTypeMetrics, ClauseAccuracy, MetricsReport, ModelMetrics, Prf, Tokens};
use crate::policy::PolicyPack;

/// Realistic model names (in no particular order) so charts look like real results.
pub const NAMES: [&str; 15] = [
    "GPT-5.5",
    "Llama-3.1-8B",
    "Claude Opus 4.7",
    "MedGemma (27B)",
    "Gemini 3.1 Pro",
    "Qwen3-235B",
    "GPT-5",
    "HuatuoGPT-o1 (8B)",
    "Claude Sonnet 4.6",
    "GPT-OSS-120B",
    "DeepSeek-R1",
    "Mistral-Small-3.2 (24B)",
    "Gemini 2.5 Flash",
    "GPT-5-nano",
    "HuatuoGPT-o1 (70B)",
];

/// A PRF whose F1 is consistent with precision and recall.
pub fn prf(p: f64, r: f64) -> Prf {
    let f1 = if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 };
    Prf { precision: p, recall: r, f1, tp: 10, fp: 2, fn_: 3 }
}

fn ct(cases: u64, m1: f64, m3: f64, m4: f64) -> CaseTypeMetrics {
    CaseTypeMetrics { cases, m1: Some(m1), m3: Some(prf(m3, m3)), m4: Some(m4) }
}

/// A plausible model: `q` in 0..=1 is its overall quality, `ask` how keen it is to ask.
pub fn model(name: &str, q: f64, ask: f64, tokens: f64) -> ModelMetrics {
    let pct = |x: f64| (x * 100.0).clamp(0.0, 100.0);
    let unc = pct(q * q * 0.8);
    let rep = pct(0.95 - q * q * 0.8 - 0.05);
    let non = (100.0 - unc - rep - 1.0).max(0.0);
    let none = 100.0 - unc - rep - non;
    let routing: IndexMap<String, f64> =
        [("Uncertain", unc), ("Reportable", rep), ("Non-reportable", non), ("none", none)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    let counts: IndexMap<String, u64> = routing.iter().map(|(k, v)| (k.clone(), (v * 2.57).round() as u64)).collect();
    let zero = pct(1.0 - ask);
    let rest = 100.0 - zero;
    let asks: IndexMap<String, f64> =
        [("0", zero), ("1", rest * 0.6), ("2", rest * 0.2), ("3", rest * 0.12), ("4+", rest * 0.08)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    let pack = crate::policy::builtin_pack("mn29");
    let by_clause = pack
        .map(|p| {
            p.clauses
                .iter()
                .map(|c| ClauseAccuracy {
                    clause_id: c.clause_id.clone(),
                    cases: 40 + u64::from(c.global_no),
                    m1: Some(pct(q * (0.55 + 0.45 * ((c.global_no * 7 % 29) as f64 / 29.0)))),
                })
                .collect()
        })
        .unwrap_or_default();
    ModelMetrics {
        model: name.to_string(),
        cases: 5074,
        m1: Some(pct(q)),
        m2: Some(pct(q * 0.9 + 0.1)),
        m3: Some(prf(pct(q * 0.85), pct(q * 0.7))),
        m4: Some(pct(0.5 + q * 0.4)),
        m5: Some(prf(pct(0.3 + 0.6 * q), pct(ask))),
        m6: Some(prf(pct(q), pct(q * 0.75))),
        m7: Some(prf(pct(q * q), unc)),
        m8: Some(prf(pct(q * 0.9), pct(0.95))),
        by_case_type: ByCaseType {
            complete: ct(3455, pct(q * 1.05), pct(q * 0.8), pct(0.5 + q * 0.4)),
            missing: ct(1362, pct(q * 0.95), pct(q * 0.78), pct(0.45 + q * 0.4)),
            uncertain: ct(257, unc, pct(q * 0.6), pct(0.3 + q * 0.4)),
        },
        behavior: Behavior {
            missing_no_ask_pct: Some(zero),
            uncertain_routing_pct: Some(routing),
            missing_ask_count_pct: Some(asks),
            missing_avg_asks: Some(ask * 1.3),
        },
        tokens: Tokens { avg_completion_tokens: Some(tokens) },
        trajectories: 5074,
        m4_unjudged: 0,
        no_verdict: 0,
        confidence_intervals: None,
        consistency: None,
        by_clause,
        uncertain_routing_counts: Some(counts),
    }
}

/// A report with `n` models (names from the paper, then "Model 16", …). With `with_nulls`, some
/// models lack M6, tokens, routing or ask counts, as real reports can.
pub fn report(n: usize, with_nulls: bool) -> MetricsReport {
    let models = (0..n)
        .map(|i| {
            let name = NAMES.get(i).map(|s| s.to_string()).unwrap_or_else(|| format!("Model {}", i + 1));
            let q = 0.95 - 0.5 * (i as f64 / n.max(2) as f64) - 0.03 * ((i * 5 % 7) as f64);
            let ask = (0.9 - 0.85 * (((i * 3) % n.max(1)) as f64 / n.max(1) as f64)).clamp(0.0, 1.0);
            let tokens = 150.0 * 10f64.powf(((i * 7) % 11) as f64 / 5.0);
            let mut m = model(&name, q.clamp(0.3, 0.97), ask, tokens);
            if with_nulls {
                if i % 5 == 4 {
                    m.m6 = None;
                }
                if i % 7 == 3 {
                    m.tokens.avg_completion_tokens = None;
                }
                if i % 6 == 5 {
                    m.behavior.uncertain_routing_pct = None;
                    m.uncertain_routing_counts = None;
                }
                if i % 8 == 6 {
                    m.behavior.missing_ask_count_pct = None;
                    m.behavior.missing_avg_asks = None;
                }
            }
            m
        })
        .collect();
    MetricsReport { models, ..Default::default() }
}

/// An empty report (no models).
pub fn empty() -> MetricsReport {
    MetricsReport::default()
}

/// The built-in MN29 pack (its clauses drive the per-clause outputs).
pub fn pack() -> PolicyPack {
    crate::policy::builtin_pack("mn29").expect("the built-in mn29 pack loads")
}
