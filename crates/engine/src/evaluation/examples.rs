//! Example results: three fictional models "evaluated" on the 90 hand-written demo cases, so a new
//! user can explore the Results screen, the charts and the transcripts before any model is set up.
//! Nothing here calls a model: each transcript is assembled from the case's own facts by a seeded
//! rule per profile (a careful model that asks and abstains, an average one, and an overconfident
//! one that never asks and reports). Runs are labelled as examples everywhere they appear.

use indexmap::IndexMap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::case::repo::CaseFilter;
use crate::case::{Case, CaseType, Verdict};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::evaluation::repo as eval_repo;
use crate::evaluation::EvaluationRunConfig;
use crate::jobs::{self, RunKind, RunStatus};
use crate::trajectory::{
    Action, EvalRole, EvalTurn, FinalAnswer, InfoRole, InfoStatus, InfoTurn, JudgeResult, Trajectory, TrajectoryUsage,
    Turn,
};

/// Label shown with every example run.
pub const EXAMPLE_LABEL: &str = "Example results (fictional models, for exploring the screens)";

/// The judge the example runs' provenance names (no judge is called).
pub const EXAMPLE_JUDGE: &str = "none (example run)";

/// How a fictional model behaves.
struct Profile {
    name: &'static str,
    /// Chance of a right verdict when it has what it needs.
    skill: f64,
    /// Chance of asking on a missing case, and of asking for the withheld fact when it asks.
    asks_on_missing: f64,
    aims_well: f64,
    /// Chance of asking on a complete or uncertain case (a false alarm).
    asks_anyway: f64,
    /// Chance of answering Uncertain on a gray-zone case.
    abstains: f64,
    /// Share of the legal basis it cites.
    cites: f64,
    /// Chance that a reply cannot be read.
    garbles: f64,
    words: u64,
}

const PROFILES: [Profile; 3] = [
    Profile {
        name: "example-careful",
        skill: 0.93,
        asks_on_missing: 0.9,
        aims_well: 0.85,
        asks_anyway: 0.08,
        abstains: 0.7,
        cites: 0.75,
        garbles: 0.0,
        words: 260,
    },
    Profile {
        name: "example-average",
        skill: 0.82,
        asks_on_missing: 0.55,
        aims_well: 0.6,
        asks_anyway: 0.1,
        abstains: 0.3,
        cites: 0.55,
        garbles: 0.02,
        words: 420,
    },
    Profile {
        name: "example-overconfident",
        skill: 0.7,
        asks_on_missing: 0.0,
        aims_well: 0.0,
        asks_anyway: 0.0,
        abstains: 0.03,
        cites: 0.4,
        garbles: 0.05,
        words: 180,
    },
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExampleResults {
    /// The example runs (one per fictional model).
    pub run_ids: Vec<String>,
    /// Whether the demo cases had to be loaded first.
    pub loaded_demo_cases: bool,
}

fn chance(rng: &mut ChaCha8Rng, p: f64) -> bool {
    rng.random::<f64>() < p
}

fn eval_turn(raw: String, action: Option<Action>, question: Option<String>, turn: usize) -> Turn {
    let mut extra = IndexMap::new();
    extra.insert("turn".into(), json!(turn));
    extra.insert("example".into(), json!(true));
    Turn::Eval(EvalTurn { role: EvalRole::Eval, raw, action, ask_question: question, extra })
}

fn question_for(meaning: &str) -> String {
    let m = meaning.trim().trim_end_matches('.');
    let mut q = String::from("Can you tell me ");
    let lower: String =
        m.chars().next().map(|c| c.to_lowercase().collect::<String>() + &m[c.len_utf8()..]).unwrap_or_default();
    q.push_str(&lower);
    q.push('?');
    q
}

/// The verdict a profile gives, before any garbling.
fn verdict_for(case: &Case, p: &Profile, recovered: bool, rng: &mut ChaCha8Rng) -> Verdict {
    let wrong = |gold: Verdict, rng: &mut ChaCha8Rng| -> Verdict {
        // Wrong answers lean towards Reportable, the bias the paper reports.
        let others: Vec<Verdict> = Verdict::ALL.into_iter().filter(|v| *v != gold).collect();
        if others.contains(&Verdict::Reportable) && chance(rng, 0.75) {
            Verdict::Reportable
        } else {
            others[rng.random_range(0..others.len())]
        }
    };
    match case.case_type {
        CaseType::Uncertain => {
            if chance(rng, p.abstains) {
                Verdict::Uncertain
            } else if chance(rng, 0.8) {
                Verdict::Reportable
            } else {
                Verdict::NonReportable
            }
        }
        CaseType::Missing if !recovered => {
            // Without the withheld fact it is a guess, leaning towards reporting.
            if chance(rng, 0.45) {
                case.gold_verdict
            } else {
                wrong(case.gold_verdict, rng)
            }
        }
        _ => {
            if chance(rng, p.skill) {
                case.gold_verdict
            } else {
                wrong(case.gold_verdict, rng)
            }
        }
    }
}

fn rationale(case: &Case, verdict: Verdict) -> String {
    let mut parts: Vec<String> = case
        .boundary_conditions
        .iter()
        .take(4)
        .map(|b| {
            let name = b.name.replace('_', " ");
            if b.value {
                format!("{name}: met")
            } else {
                format!("{name}: not met")
            }
        })
        .collect();
    if parts.is_empty() {
        parts.push("the facts reported".into());
    }
    format!("{} — {}.", verdict.as_str(), parts.join("; "))
}

fn trajectory(case: &Case, p: &Profile, run_id: &str, rng: &mut ChaCha8Rng) -> Trajectory {
    let mut turns = Vec::new();
    let mut recovered = false;
    let mut turn = 1;
    let asks =
        if case.case_type == CaseType::Missing { chance(rng, p.asks_on_missing) } else { chance(rng, p.asks_anyway) };
    if asks {
        let n = 1 + usize::from(chance(rng, 0.25));
        for _ in 0..n {
            let target = if !case.masked_elements.is_empty() && chance(rng, p.aims_well) {
                case.elements.iter().find(|e| case.masked_elements.contains(&e.name))
            } else {
                let visible: Vec<_> =
                    case.elements.iter().filter(|e| !case.masked_elements.contains(&e.name)).collect();
                visible.get(rng.random_range(0..visible.len().max(1))).copied()
            };
            let Some(el) = target else { break };
            let q = question_for(&el.meaning);
            let raw = json!({"action": "ASK", "ask_question": q, "final_verdict": null, "targeted_clause": null, "clause_and_guidance_evidence": null, "rationale": null}).to_string();
            turns.push(eval_turn(raw, Some(Action::Ask), Some(q), turn));
            turn += 1;
            let (status, answer, fields) = match &el.value {
                Some(v) => (InfoStatus::Answered, v.clone(), vec![el.name.clone()]),
                None => (InfoStatus::Unknown, "The record holds nothing on that.".to_string(), vec![]),
            };
            recovered |= status == InfoStatus::Answered && case.masked_elements.contains(&el.name);
            let mut extra = IndexMap::new();
            extra.insert("example".into(), json!(true));
            turns.push(Turn::Info(InfoTurn { role: InfoRole::Info, status, answer, fields_used: fields, extra }));
        }
    }
    let verdict = verdict_for(case, p, recovered, rng);
    let garbled = chance(rng, p.garbles);
    let clause = (verdict == Verdict::Reportable).then(|| case.gold_clause.clone()).flatten();
    let mut evidence: Vec<String> = case.gold_legal_basis.iter().filter(|_| chance(rng, p.cites)).cloned().collect();
    if evidence.is_empty() {
        evidence.extend(case.gold_legal_basis.first().cloned());
    }
    let why = rationale(case, verdict);
    let answer_json = json!({"action": "ANSWER", "ask_question": null, "final_verdict": verdict.as_str(), "targeted_clause": clause, "clause_and_guidance_evidence": evidence, "rationale": why});
    let final_answer = if garbled {
        turns.push(eval_turn(
            format!(
                "I believe this is {} because of the harm involved, though I am not sure.",
                verdict.as_str().to_lowercase()
            ),
            None,
            None,
            turn,
        ));
        None
    } else {
        turns.push(eval_turn(answer_json.to_string(), Some(Action::Answer), None, turn));
        Some(FinalAnswer {
            final_verdict: Some(verdict.as_str().into()),
            targeted_clause: clause,
            clause_and_guidance_evidence: Some(evidence),
            rationale: Some(why),
            extra: IndexMap::new(),
        })
    };
    let judge = final_answer.as_ref().filter(|_| verdict == case.gold_verdict).map(|_| {
        let hits: Vec<String> =
            case.boundary_conditions.iter().filter(|_| chance(rng, p.skill)).map(|b| b.name.clone()).collect();
        JudgeResult { hits, extra: IndexMap::new() }
    });
    let asked = turns.iter().filter(|t| matches!(t, Turn::Eval(e) if e.action == Some(Action::Ask))).count() as u64;
    let mut extra = IndexMap::new();
    extra.insert("repeat".into(), json!(0));
    extra.insert("case_type".into(), json!(case.case_type.as_str()));
    extra.insert("example".into(), json!(true));
    Trajectory {
        run_id: run_id.to_string(),
        model: p.name.to_string(),
        case_id: case.case_id.clone(),
        turns,
        final_answer,
        judge,
        usage: TrajectoryUsage {
            prompt_tokens: 6_000 + 1_200 * asked + rng.random_range(0..400),
            completion_tokens: p.words + 90 * asked + rng.random_range(0..120),
            extra: IndexMap::new(),
        },
        error: garbled.then(|| "turn 1: the reply could not be read (no JSON object found)".to_string()),
        extra,
    }
}

impl Engine {
    /// Store example runs of three fictional models on the demo cases (loading them if needed).
    /// Calling it again replaces the earlier example runs.
    pub fn demo_example_results(&self) -> ApiResult<ExampleResults> {
        let filter = CaseFilter { origin: Some("demo".into()), ..Default::default() };
        let mut cases = self.cases_all(&filter)?;
        let loaded_demo_cases = cases.is_empty();
        if loaded_demo_cases {
            self.demo_load()?;
            cases = self.cases_all(&filter)?;
        }
        if cases.is_empty() {
            return Err(ApiError::not_found("This build has no demo cases to show example results for."));
        }
        cases.sort_by(|a, b| a.case_id.cmp(&b.case_id));
        // Made alike, so the example runs compare among themselves without a warning.
        let provenance = self.example_provenance()?;
        let mut run_ids = Vec::new();
        self.store().with_tx(|tx| -> ApiResult<()> {
            for (i, p) in PROFILES.iter().enumerate() {
                let run_id = format!("example-{}", p.name.trim_start_matches("example-"));
                tx.execute("DELETE FROM evaluation_items WHERE run_id = ?1", [&run_id])?;
                jobs::delete_run(tx, &run_id)?;
                let config = EvaluationRunConfig {
                    cases: Some("origin=demo".into()),
                    model: p.name.to_string(),
                    info_model: Some("example (no model)".into()),
                    judge_model: Some("example (no model)".into()),
                    example: Some(true),
                    provenance: Some(provenance.clone()),
                    ..EvaluationRunConfig::default()
                };
                jobs::insert_run(tx, &run_id, RunKind::Eval, Some(EXAMPLE_LABEL), &config)?;
                let mut rng = ChaCha8Rng::seed_from_u64(0x5EB + i as u64);
                for c in &cases {
                    let t = trajectory(c, p, &run_id, &mut rng);
                    let correct = t.predicted_verdict() == Some(c.gold_verdict);
                    eval_repo::insert_done(tx, &run_id, 0, &t, correct)?;
                }
                jobs::set_status(tx, &run_id, RunStatus::Completed, None)?;
                run_ids.push(run_id);
            }
            Ok(())
        })?;
        Ok(ExampleResults { run_ids, loaded_demo_cases })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::MetricsOptions;

    #[test]
    fn example_results_are_deterministic_labelled_and_differ_by_profile() {
        let e = Engine::open_in_memory().unwrap();
        let first = e.demo_example_results().unwrap();
        assert!(first.loaded_demo_cases);
        assert_eq!(first.run_ids.len(), 3);
        let t1 = e.evaluation_trajectories(&first.run_ids[0]).unwrap();
        assert_eq!(t1.len(), 90);
        let again = e.demo_example_results().unwrap();
        assert!(!again.loaded_demo_cases);
        assert_eq!(
            e.evaluation_trajectories(&again.run_ids[0]).unwrap(),
            t1,
            "the same example every time, replaced not duplicated"
        );
        assert_eq!(e.evaluation_list().unwrap().len(), 3);
        let run = e.evaluation_show(&first.run_ids[0]).unwrap();
        assert_eq!(run.run.label.as_deref(), Some(EXAMPLE_LABEL));
        // The example runs record how they were made, alike, so they compare without a warning.
        let c = e.runs_comparability(&first.run_ids).unwrap();
        assert!(c.comparable && c.sentence.is_none(), "{c:?}");
        assert_eq!(c.marks[0].protocol.as_deref(), Some("studio"));
        assert_eq!(c.marks[0].model, "example-careful");
        let recorded = e.evaluation_run(&first.run_ids[0]).unwrap().config.provenance.unwrap();
        assert_eq!((recorded.case_count, recorded.judge_model.as_deref()), (90, Some(EXAMPLE_JUDGE)));
        let report = e
            .metrics_for_runs(&first.run_ids, &MetricsOptions { bootstrap_resamples: 0, ..Default::default() })
            .unwrap();
        let by = |name: &str| report.models.iter().find(|m| m.model == name).unwrap().clone();
        let (careful, over) = (by("example-careful"), by("example-overconfident"));
        assert!(careful.m1.unwrap() > over.m1.unwrap());
        assert!(careful.m5.unwrap().f1 > 50.0, "the careful model asks on missing cases");
        assert_eq!(over.m5.unwrap().f1, 0.0, "the overconfident model never asks");
        assert!(careful.m7.unwrap().f1 > over.m7.unwrap().f1);
        // Questions are about real fact slots and answered from the case's own record.
        let asked = t1.iter().find(|t| t.ask_count() > 0).unwrap();
        let Turn::Info(info) = &asked.turns[1] else { panic!("an ASK is followed by the provider's reply") };
        if info.status == InfoStatus::Answered {
            let case = e.case_show(&asked.case_id).unwrap();
            let el = case.elements.iter().find(|x| x.name == info.fields_used[0]).unwrap();
            assert_eq!(el.value.as_deref(), Some(info.answer.as_str()));
        }
    }
}
