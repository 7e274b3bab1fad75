//! Reading stored trajectories for scoring only. The Results screen scores tens of thousands of
//! trajectories at once and needs only what the metrics and the case grid look at: verdict,
//! clause, evidence, rationale (is it empty?), judge hits, ASK turns, the facts recovered by
//! answered provider turns, tokens and the repeat index. Decoding into these flat structs skips
//! the transcript text and the catch-all extension maps (serde's `flatten` and `untagged` buffer
//! every value), which makes loading several times faster. The result is a `Trajectory` with the
//! same scoring-relevant content and empty text fields; it is never shown or written back.

use crate::util::parallel::in_parts;
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::{
    Action, EvalRole, EvalTurn, FinalAnswer, InfoRole, InfoStatus, InfoTurn, JudgeResult, Trajectory, TrajectoryUsage,
    Turn,
};

#[derive(Deserialize)]
struct Slim {
    run_id: String,
    model: String,
    case_id: String,
    #[serde(default)]
    turns: Vec<SlimTurn>,
    #[serde(rename = "final", default)]
    final_answer: Option<SlimFinal>,
    #[serde(default)]
    judge: Option<SlimJudge>,
    #[serde(default)]
    usage: Option<SlimUsage>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    repeat: Option<Value>,
}

#[derive(Deserialize)]
struct SlimTurn {
    role: String,
    #[serde(default)]
    action: Option<Action>,
    #[serde(default)]
    status: Option<InfoStatus>,
    #[serde(default)]
    fields_used: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct SlimFinal {
    #[serde(default)]
    final_verdict: Option<String>,
    #[serde(default)]
    targeted_clause: Option<String>,
    #[serde(default)]
    clause_and_guidance_evidence: Option<Vec<String>>,
    #[serde(default)]
    rationale: Option<String>,
}

#[derive(Deserialize)]
struct SlimJudge {
    #[serde(default)]
    hits: Vec<String>,
}

#[derive(Deserialize)]
struct SlimUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

impl From<Slim> for Trajectory {
    fn from(s: Slim) -> Self {
        let turns = s
            .turns
            .into_iter()
            .map(|t| {
                if t.role == "info" {
                    Turn::Info(InfoTurn {
                        role: InfoRole::Info,
                        status: t.status.unwrap_or(InfoStatus::Unknown),
                        answer: String::new(),
                        fields_used: t.fields_used.unwrap_or_default(),
                        extra: IndexMap::new(),
                    })
                } else {
                    Turn::Eval(EvalTurn {
                        role: EvalRole::Eval,
                        raw: String::new(),
                        action: t.action,
                        ask_question: None,
                        extra: IndexMap::new(),
                    })
                }
            })
            .collect();
        let mut extra = IndexMap::new();
        if let Some(r) = s.repeat {
            extra.insert("repeat".to_string(), r);
        }
        let usage = s.usage.unwrap_or(SlimUsage { prompt_tokens: 0, completion_tokens: 0 });
        Trajectory {
            run_id: s.run_id,
            model: s.model,
            case_id: s.case_id,
            turns,
            final_answer: s.final_answer.map(|f| FinalAnswer {
                final_verdict: f.final_verdict,
                targeted_clause: f.targeted_clause,
                clause_and_guidance_evidence: f.clause_and_guidance_evidence,
                rationale: f.rationale,
                extra: IndexMap::new(),
            }),
            judge: s.judge.map(|j| JudgeResult { hits: j.hits, extra: IndexMap::new() }),
            usage: TrajectoryUsage {
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
                extra: IndexMap::new(),
            },
            error: s.error,
            extra,
        }
    }
}

/// Decode one stored trajectory for scoring.
pub fn parse_for_scoring(text: &str) -> Result<Trajectory, String> {
    serde_json::from_str::<Slim>(text).map(Trajectory::from).map_err(|e| e.to_string())
}

/// Decode stored trajectories for scoring on all cores (in order).
pub fn parse_many_for_scoring<S: AsRef<str> + Sync>(texts: &[S]) -> Result<Vec<Trajectory>, String> {
    let parts = in_parts(texts, 2048, |_, part| {
        part.iter().map(|t| parse_for_scoring(t.as_ref())).collect::<Result<Vec<Trajectory>, String>>()
    })
    .ok_or_else(|| "a parser thread failed".to_string())?;
    let mut out = Vec::with_capacity(texts.len());
    for p in parts {
        out.extend(p?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{compute, synthetic_benchmark, MetricsOptions};

    #[test]
    fn scoring_reads_give_the_same_metrics_as_full_reads() {
        let (cases, full) = synthetic_benchmark(400, 4, 7);
        // Add what real trajectories carry besides: long raw replies, extension fields, repeats.
        let texts: Vec<String> = full
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v = serde_json::to_value(t).unwrap();
                v["repeat"] = serde_json::json!(i % 2);
                v["cost_usd"] = serde_json::json!(0.01);
                if let Some(turn) = v["turns"].as_array_mut().and_then(|a| a.first_mut()) {
                    turn["raw"] = serde_json::json!("x".repeat(2000));
                    turn["latency_ms"] = serde_json::json!(12);
                }
                v.to_string()
            })
            .collect();
        let fulls: Vec<Trajectory> = texts.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
        let slims = parse_many_for_scoring(&texts).unwrap();
        assert_eq!(slims.len(), fulls.len());
        for (a, b) in slims.iter().zip(&fulls) {
            assert_eq!(a.predicted_verdict(), b.predicted_verdict());
            assert_eq!(a.ask_count(), b.ask_count());
            assert_eq!(a.recovered_elements(), b.recovered_elements());
            assert_eq!(a.predicted_evidence(), b.predicted_evidence());
            assert_eq!(a.extra.get("repeat"), b.extra.get("repeat"));
        }
        let opts = MetricsOptions::default();
        assert_eq!(compute(&cases, &slims, &opts), compute(&cases, &fulls, &opts));
    }

    #[test]
    fn a_broken_record_is_an_error() {
        assert!(parse_for_scoring("{\"run_id\": 1}").is_err());
        assert!(parse_for_scoring("not json").is_err());
    }
}
