//! The metrics report of FORMATS.md ("Metrics report"), plus our extensions (confidence
//! intervals, paired tests, repeat consistency, per-clause accuracy). Field names of the FORMATS
//! part are a public contract. Percentages are 0–100, unrounded; a metric with an empty subset or
//! denominator is null.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// Precision / recall / F1 (percent) with the pooled counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub tp: u64,
    pub fp: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseTypeMetrics {
    pub cases: u64,
    #[serde(rename = "M1")]
    pub m1: Option<f64>,
    #[serde(rename = "M3")]
    pub m3: Option<Prf>,
    #[serde(rename = "M4")]
    pub m4: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ByCaseType {
    pub complete: CaseTypeMetrics,
    pub missing: CaseTypeMetrics,
    pub uncertain: CaseTypeMetrics,
}

/// Share of uncertain cases routed to each verdict (keys "Uncertain", "Reportable",
/// "Non-reportable", "none").
pub type Routing = IndexMap<String, f64>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Behavior {
    pub missing_no_ask_pct: Option<f64>,
    /// Null when there are no uncertain cases.
    pub uncertain_routing_pct: Option<Routing>,
    /// Keys "0", "1", "2", "3", "4+"; null when there are no missing cases.
    pub missing_ask_count_pct: Option<IndexMap<String, f64>>,
    pub missing_avg_asks: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Tokens {
    pub avg_completion_tokens: Option<f64>,
}

/// A 95 % bootstrap interval (percent), with the settings that produced it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ConfidenceIntervals {
    pub method: String,
    pub level: f64,
    pub resamples: u32,
    pub seed: u64,
    #[serde(rename = "M1")]
    pub m1: Option<Interval>,
    #[serde(rename = "M7")]
    pub m7: Option<Interval>,
    #[serde(rename = "M8")]
    pub m8: Option<Interval>,
}

/// Agreement of a model with itself over K repeats of the same cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Consistency {
    pub repeats: u32,
    /// Cases that had all K repeats.
    pub cases: u64,
    /// Share of those cases whose verdict was the same in all K repeats.
    pub same_verdict_pct: Option<f64>,
    /// pass^k: share of cases correct in all K repeats.
    pub pass_all_k_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClauseAccuracy {
    pub clause_id: String,
    pub cases: u64,
    #[serde(rename = "M1")]
    pub m1: Option<f64>,
}

/// One model's report. The FORMATS fields come first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelMetrics {
    pub model: String,
    pub cases: u64,
    #[serde(rename = "M1")]
    pub m1: Option<f64>,
    #[serde(rename = "M2")]
    pub m2: Option<f64>,
    #[serde(rename = "M3")]
    pub m3: Option<Prf>,
    #[serde(rename = "M4")]
    pub m4: Option<f64>,
    #[serde(rename = "M5")]
    pub m5: Option<Prf>,
    #[serde(rename = "M6")]
    pub m6: Option<Prf>,
    #[serde(rename = "M7")]
    pub m7: Option<Prf>,
    #[serde(rename = "M8")]
    pub m8: Option<Prf>,
    pub by_case_type: ByCaseType,
    pub behavior: Behavior,
    pub tokens: Tokens,
    // ---- extensions (not in FORMATS.md; readers ignore unknown fields) ----
    /// Cases that have a trajectory for this model: shown as "Transcripts" (never "Answered").
    pub trajectories: u64,
    /// Cases counted in M4 (correct answer, a rationale, conditions to hit) that have no usable
    /// judge result: each counts as 0 hits. Non-zero means M4 understates the model until the
    /// run is re-judged (`psebench eval rejudge`).
    pub m4_unjudged: u64,
    /// Cases whose predicted verdict is null (unusable answer or no trajectory at all). The rest
    /// are the "Answered" cases ([`ModelMetrics::answered`]).
    pub no_verdict: u64,
    pub confidence_intervals: Option<ConfidenceIntervals>,
    pub consistency: Option<Consistency>,
    pub by_clause: Vec<ClauseAccuracy>,
    /// Uncertain routing as counts (the paper's routing table shows counts and percentages).
    pub uncertain_routing_counts: Option<IndexMap<String, u64>>,
}

impl ModelMetrics {
    /// "Answered": cases where the model gave a readable verdict (Reportable, Non-reportable or
    /// Uncertain), out of `cases`. The CLI's metrics table and the app's leaderboard both show
    /// this number under that word; cases with a trajectory are "Transcripts".
    pub fn answered(&self) -> u64 {
        self.cases.saturating_sub(self.no_verdict)
    }
}

/// Paired McNemar test on per-case verdict correctness between two models on their shared cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct McNemar {
    pub model_a: String,
    pub model_b: String,
    pub shared_cases: u64,
    /// A correct, B wrong.
    pub a_only: u64,
    /// B correct, A wrong.
    pub b_only: u64,
    /// Exact two-sided binomial p-value on the discordant pairs.
    pub p_value: f64,
    /// Chi-square with continuity correction (null when there are no discordant pairs).
    pub chi2: Option<f64>,
}

/// A pair of models whose paired test was refused, and why (in a sentence for the reader).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RefusedPair {
    pub model_a: String,
    pub model_b: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MetricsReport {
    pub models: Vec<ModelMetrics>,
    pub paired_tests: Vec<McNemar>,
    // ---- extensions for stored runs (absent when empty) ----
    /// Pairs of models left out of `paired_tests` because their runs were made on different
    /// case sets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<RefusedPair>>", optional)]
    pub refused_pairs: Vec<RefusedPair>,
    /// Whether the runs scored can be compared (what differs in how they were made), for stored
    /// runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub comparability: Option<crate::protocol::Comparability>,
    /// The models (as named above) whose runs were made with a simulation in some role, the
    /// built-in demo model, for stored runs: marked "(simulation)" in tables and charts, with a
    /// note.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub simulations: Vec<String>,
}

/// What follows the name of a model whose run was made by a simulation.
pub const SIMULATION_MARK: &str = "(simulation)";

/// The note under tables and charts that show runs of a simulation.
pub fn simulation_note(models: &[String]) -> String {
    format!(
        "{SIMULATION_MARK} {} made with the built-in demo model, a scripted simulation for learning the app: \
         not a real language model, and the numbers say nothing about any real one.",
        if models.len() == 1 { format!("{} was", models[0]) } else { format!("{} were", models.join(", ")) }
    )
}

impl MetricsReport {
    /// The report as the tables and charts show it, with the notes to print under them: when the
    /// runs are not comparable, each model whose run differs carries a dagger after its name and
    /// the one note says what differs. Otherwise the report itself and no note.
    pub fn marked(&self) -> (std::borrow::Cow<'_, MetricsReport>, Vec<String>) {
        let differ = self.comparability.as_ref().and_then(|c| c.note().map(|n| (c, n)));
        if differ.is_none() && self.simulations.is_empty() {
            return (std::borrow::Cow::Borrowed(self), Vec::new());
        }
        let label = |model: &str| {
            let shown = match &differ {
                Some((c, _)) => c.label(model),
                None => model.to_string(),
            };
            if self.simulations.iter().any(|s| s == model) {
                format!("{shown} {SIMULATION_MARK}")
            } else {
                shown
            }
        };
        let mut shown = self.clone();
        for m in &mut shown.models {
            m.model = label(&m.model);
        }
        for t in &mut shown.paired_tests {
            t.model_a = label(&t.model_a);
            t.model_b = label(&t.model_b);
        }
        let mut notes: Vec<String> = differ.map(|(_, n)| n).into_iter().collect();
        if !self.simulations.is_empty() {
            notes.push(simulation_note(&self.simulations));
        }
        (std::borrow::Cow::Owned(shown), notes)
    }

    /// Move the paired tests for which `refuse` gives a reason into `refused_pairs`.
    pub fn refuse_pairs(&mut self, refuse: impl Fn(&str, &str) -> Option<String>) {
        let tests = std::mem::take(&mut self.paired_tests);
        for t in tests {
            match refuse(&t.model_a, &t.model_b) {
                Some(reason) => self.refused_pairs.push(RefusedPair { model_a: t.model_a, model_b: t.model_b, reason }),
                None => self.paired_tests.push(t),
            }
        }
    }
}
