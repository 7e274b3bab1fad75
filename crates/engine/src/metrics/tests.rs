//! Hand-computed checks of every metric on small fixtures (numbers worked out in the comments).

use indexmap::IndexMap;
use serde_json::{json, Value};

use super::*;
use crate::case::{CaseCondition, CaseElement, CaseType, Verdict};
use crate::trajectory::{
    Action, EvalRole, EvalTurn, FinalAnswer, InfoRole, InfoStatus, InfoTurn, JudgeResult, TrajectoryUsage, Turn,
};

const EPS: f64 = 1e-9;

// ---------- fixture builders ----------

fn case(id: &str, case_type: CaseType, verdict: Verdict, clause_id: &str) -> Case {
    Case {
        case_id: id.into(),
        case_type,
        policy: "mn29".into(),
        clause_id: clause_id.into(),
        clause_card_id: format!("{clause_id}__card"),
        missing_variant_id: (case_type == CaseType::Missing).then(|| format!("{id}-mv")),
        gold_verdict: verdict,
        gold_clause: None,
        gold_legal_basis: Vec::new(),
        boundary_conditions: Vec::new(),
        elements: ["e1", "e2", "e3"]
            .iter()
            .map(|n| CaseElement { name: n.to_string(), meaning: String::new(), value: Some("v".into()) })
            .collect(),
        masked_elements: Vec::new(),
        narrative: "n".into(),
        anchor_id: None,
        extra: IndexMap::new(),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Set gold clause, gold basis, condition names and masked elements.
fn gold(mut c: Case, clause: Option<&str>, basis: &[&str], conditions: &[&str], masked: &[&str]) -> Case {
    c.gold_clause = clause.map(str::to_string);
    c.gold_legal_basis = strings(basis);
    c.boundary_conditions =
        conditions.iter().map(|n| CaseCondition { name: n.to_string(), meaning: String::new(), value: true }).collect();
    c.masked_elements = strings(masked);
    c
}

/// A trajectory that answers `verdict` (None = no parseable ANSWER) right away.
fn traj(model: &str, case_id: &str, verdict: Option<&str>) -> Trajectory {
    Trajectory {
        run_id: "run".into(),
        model: model.into(),
        case_id: case_id.into(),
        turns: vec![eval(verdict.map(|_| Action::Answer))],
        final_answer: verdict.map(|v| FinalAnswer {
            final_verdict: Some(v.into()),
            targeted_clause: None,
            clause_and_guidance_evidence: Some(Vec::new()),
            rationale: Some("because".into()),
            extra: IndexMap::new(),
        }),
        judge: None,
        usage: TrajectoryUsage::default(),
        error: None,
        extra: IndexMap::new(),
    }
}

fn eval(action: Option<Action>) -> Turn {
    Turn::Eval(EvalTurn {
        role: EvalRole::Eval,
        raw: String::new(),
        action,
        ask_question: None,
        extra: IndexMap::new(),
    })
}

fn info(status: InfoStatus, fields: &[&str]) -> Turn {
    Turn::Info(InfoTurn {
        role: InfoRole::Info,
        status,
        answer: String::new(),
        fields_used: strings(fields),
        extra: IndexMap::new(),
    })
}

/// Insert one ASK and its info reply before the final turn.
fn ask(mut t: Trajectory, status: InfoStatus, fields: &[&str]) -> Trajectory {
    let at = t.turns.len() - 1;
    t.turns.insert(at, eval(Some(Action::Ask)));
    t.turns.insert(at + 1, info(status, fields));
    t
}

fn with_answer(mut t: Trajectory, clause: Option<&str>, evidence: &[&str], rationale: Option<&str>) -> Trajectory {
    if let Some(f) = t.final_answer.as_mut() {
        f.targeted_clause = clause.map(str::to_string);
        f.clause_and_guidance_evidence = Some(strings(evidence));
        f.rationale = rationale.map(str::to_string);
    }
    t
}

fn with_judge(mut t: Trajectory, hits: &[&str]) -> Trajectory {
    t.judge = Some(JudgeResult { hits: strings(hits), extra: IndexMap::new() });
    t
}

fn with_tokens(mut t: Trajectory, completion: u64) -> Trajectory {
    t.usage.completion_tokens = completion;
    t
}

fn with_repeat(mut t: Trajectory, k: u64) -> Trajectory {
    t.extra.insert("repeat".into(), json!(k));
    t
}

fn no_bootstrap() -> MetricsOptions {
    MetricsOptions { bootstrap_resamples: 0, seed: 1 }
}

fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < EPS, "expected {expected}, got {actual}");
}

fn assert_prf(p: Option<Prf>, tp: u64, fp: u64, fn_: u64, precision: f64, recall: f64, f1: f64) {
    let p = p.expect("a PRF value");
    assert_eq!((p.tp, p.fp, p.fn_), (tp, fp, fn_), "counts");
    assert_close(p.precision, precision);
    assert_close(p.recall, recall);
    assert_close(p.f1, f1);
}

// ---------- the main fixture ----------

use CaseType::{Complete, Missing, Uncertain};
use Verdict::{NonReportable, Reportable};

/// Ten cases covering every subset; see `main_fixture_trajectories` for the model's answers.
fn main_fixture_cases() -> Vec<Case> {
    vec![
        gold(case("c1", Complete, Reportable, "Zeta_1"), Some("Clause A"), &["Clause A", "GR 1"], &["b1", "b2"], &[]),
        gold(case("c2", Complete, NonReportable, "Zeta_1"), None, &["Clause A"], &["b1", "b2", "b3"], &[]),
        gold(case("c3", Complete, Reportable, "Zeta_1"), Some("Clause B"), &["Clause B"], &["b1"], &[]),
        gold(case("c4", Missing, Reportable, "Alpha_1"), Some("Clause A"), &["Clause A"], &["b1", "b2"], &["e1", "e2"]),
        gold(case("c5", Missing, NonReportable, "Alpha_1"), None, &[], &["b1"], &["e3"]),
        gold(case("c6", Missing, Reportable, "Alpha_1"), Some("Clause C"), &["Clause C"], &["b1", "b2"], &["e1"]),
        gold(case("c7", Uncertain, Verdict::Uncertain, "Mid_1"), None, &["GR 2"], &["b1", "b2"], &[]),
        gold(case("c8", Uncertain, Verdict::Uncertain, "Mid_1"), None, &["GR 2"], &[], &[]),
        gold(case("c9", Missing, NonReportable, "Mid_1"), None, &["Clause A"], &["b1"], &["e2"]),
        gold(case("c10", Missing, Reportable, "Mid_1"), Some("Clause A"), &["Clause A"], &[], &["e1"]),
    ]
}

fn main_fixture_trajectories() -> Vec<Trajectory> {
    let m = "m";
    vec![
        // c1 correct; clause right; cites {Clause A, GR 9} (duplicate collapses): tp1 fp1 fn1;
        // judge hits b1 twice plus a name off the card: |H| = 1 of K = 2.
        with_tokens(
            with_judge(
                with_answer(
                    traj(m, "c1", Some("Reportable")),
                    Some("Clause A"),
                    &["Clause A", "Clause A", "GR 9"],
                    Some("r"),
                ),
                &["b1", "b1", "zz"],
            ),
            100,
        ),
        // c2 correct; tp1; empty rationale so the judge's hits do not count: 0 of 3;
        // one ASK on a complete case (an M5 false positive).
        with_tokens(
            with_judge(
                ask(
                    with_answer(traj(m, "c2", Some("Non-reportable")), None, &["Clause A"], Some("  ")),
                    InfoStatus::Answered,
                    &["e1"],
                ),
                &["b1", "b2"],
            ),
            200,
        ),
        // c3 correct; clause differs in case only (wrong); cites nothing: tp0 fp0 fn1; no judge: 0 of 1.
        with_tokens(with_answer(traj(m, "c3", Some("Reportable")), Some("clause b"), &[], Some("r")), 300),
        // c4 correct, clause right, tp1; hits 2 of 2; two ASKs: the answered one recovers {e1, e9},
        // the refused one's e2 does not count: slots tp1 fp1 fn1.
        with_tokens(
            with_judge(
                ask(
                    ask(
                        with_answer(traj(m, "c4", Some("Reportable")), Some("Clause A"), &["Clause A"], Some("r")),
                        InfoStatus::Answered,
                        &["e1", "e9"],
                    ),
                    InfoStatus::RefusedTooVague,
                    &["e2"],
                ),
                &["b1", "b2"],
            ),
            400,
        ),
        // c5: lowercase verdict = parse failure (wrong); five ASKs, nothing answered: slots fn1.
        with_tokens(
            (0..5).fold(traj(m, "c5", Some("reportable")), |t, k| {
                if k == 0 {
                    ask(t, InfoStatus::Unknown, &["e3"])
                } else {
                    ask(t, InfoStatus::RefusedTooVague, &[])
                }
            }),
            500,
        ),
        // c6: no trajectory.
        // c7 correct; tp1; hits 1 of 2.
        with_tokens(
            with_judge(with_answer(traj(m, "c7", Some("Uncertain")), None, &["GR 2"], Some("r")), &["b2"]),
            600,
        ),
        // c8: no final answer.
        with_tokens(traj(m, "c8", None), 800),
        // c9 wrong (Reportable on a Non-reportable case); one ASK recovering e2: slots tp1.
        with_tokens(ask(traj(m, "c9", Some("Reportable")), InfoStatus::Answered, &["e2"]), 900),
        // c10 wrong (Uncertain on a Reportable case); three ASKs recovering e1 each time: slots tp1.
        with_tokens((0..3).fold(traj(m, "c10", Some("Uncertain")), |t, _| ask(t, InfoStatus::Answered, &["e1"])), 1000),
        // Not a case of this set: ignored.
        with_tokens(traj(m, "ghost", Some("Reportable")), 99_999),
    ]
}

fn main_report() -> ModelMetrics {
    let report = compute(&main_fixture_cases(), &main_fixture_trajectories(), &no_bootstrap());
    assert_eq!(report.models.len(), 1);
    report.models.into_iter().next().expect("one model")
}

#[test]
fn m1_counts_parse_failures_and_missing_trajectories_as_wrong() {
    let m = main_report();
    assert_eq!(m.model, "m");
    assert_eq!(m.cases, 10);
    // Correct: c1 c2 c3 c4 c7.
    assert_close(m.m1.expect("M1"), 50.0);
    assert_eq!(m.trajectories, 9);
    assert_eq!(m.no_verdict, 3); // c5 (lowercase), c6 (no trajectory), c8 (no final)
    let ignored = ignored_trajectories(&main_fixture_cases(), &main_fixture_trajectories());
    assert_eq!(ignored, [IgnoredTrajectories { model: "m".into(), unknown_case: 1, duplicates: 0 }]);
}

#[test]
fn m2_is_verbatim_clause_accuracy_on_reportable_agreement() {
    // R = {c1, c3, c4}; c3's "clause b" ≠ "Clause B".
    assert_close(main_report().m2.expect("M2"), 200.0 / 3.0);
}

#[test]
fn m3_pools_set_counts_over_correct_cases_with_gold_basis() {
    // E = {c1, c2, c3, c4, c7}: tp 1+1+0+1+1 = 4, fp 1, fn 1+1 = 2.
    assert_prf(main_report().m3, 4, 1, 2, 80.0, 400.0 / 6.0, 800.0 / 11.0);
}

#[test]
fn m4_drops_off_card_hits_and_empty_rationales() {
    // H = {c1, c2, c3, c4, c7}: hits 1+0+0+2+1 = 4 over K 2+3+1+2+2 = 10.
    assert_close(main_report().m4.expect("M4"), 40.0);
}

#[test]
fn m5_is_ask_detection_of_missing_cases() {
    // Missing c4 c5 c6 c9 c10; asked c2 c4 c5 c9 c10: tp4 fp1 fn1 (c6 has no trajectory).
    assert_prf(main_report().m5, 4, 1, 1, 80.0, 80.0, 80.0);
}

#[test]
fn m6_counts_only_answered_info_turns() {
    // S = {c4, c5, c9, c10}: c4 tp1 fp1 fn1, c5 fn1, c9 tp1, c10 tp1 (repeats collapse).
    assert_prf(main_report().m6, 3, 1, 2, 75.0, 60.0, 600.0 / 9.0);
}

#[test]
fn m7_and_m8_are_binary_detection_over_all_cases() {
    let m = main_report();
    // Uncertain cases c7 c8; predicted Uncertain c7 c10.
    assert_prf(m.m7, 1, 1, 1, 50.0, 50.0, 50.0);
    // Gold Reportable c1 c3 c4 c6 c10; predicted Reportable c1 c3 c4 c9.
    assert_prf(m.m8, 3, 1, 2, 75.0, 60.0, 600.0 / 9.0);
}

#[test]
fn by_case_type_restricts_m1_m3_m4() {
    let b = main_report().by_case_type;
    assert_eq!(b.complete.cases, 3);
    assert_close(b.complete.m1.expect("M1"), 100.0);
    assert_prf(b.complete.m3, 2, 1, 2, 200.0 / 3.0, 50.0, 400.0 / 7.0);
    assert_close(b.complete.m4.expect("M4"), 100.0 / 6.0);
    assert_eq!(b.missing.cases, 5);
    assert_close(b.missing.m1.expect("M1"), 20.0);
    assert_prf(b.missing.m3, 1, 0, 0, 100.0, 100.0, 100.0);
    assert_close(b.missing.m4.expect("M4"), 100.0);
    assert_eq!(b.uncertain.cases, 2);
    assert_close(b.uncertain.m1.expect("M1"), 50.0);
    assert_prf(b.uncertain.m3, 1, 0, 0, 100.0, 100.0, 100.0);
    assert_close(b.uncertain.m4.expect("M4"), 50.0);
}

#[test]
fn behavior_buckets_asks_and_routes_uncertain_cases() {
    let m = main_report();
    let b = &m.behavior;
    // Missing cases ask 2, 5, 0 (no trajectory), 1, 3 times.
    assert_close(b.missing_no_ask_pct.expect("no-ask"), 20.0);
    let buckets = b.missing_ask_count_pct.as_ref().expect("buckets");
    assert_eq!(buckets.keys().collect::<Vec<_>>(), ["0", "1", "2", "3", "4+"]);
    for v in buckets.values() {
        assert_close(*v, 20.0);
    }
    assert_close(b.missing_avg_asks.expect("avg"), 11.0 / 5.0);
    let routing = b.uncertain_routing_pct.as_ref().expect("routing");
    assert_eq!(routing.keys().collect::<Vec<_>>(), ["Uncertain", "Reportable", "Non-reportable", "none"]);
    assert_eq!(routing.values().copied().collect::<Vec<_>>(), [50.0, 0.0, 0.0, 50.0]);
    let counts = m.uncertain_routing_counts.as_ref().expect("counts");
    assert_eq!(counts.values().copied().collect::<Vec<_>>(), [1, 0, 0, 1]);
}

#[test]
fn tokens_average_over_cases_with_a_trajectory() {
    // 100+200+300+400+500+600+800+900+1000 over 9 (the ghost case is ignored).
    assert_close(main_report().tokens.avg_completion_tokens.expect("tokens"), 4800.0 / 9.0);
}

#[test]
fn by_clause_lists_m1_per_clause_id_in_id_order() {
    let rows = main_report().by_clause;
    let ids: Vec<&str> = rows.iter().map(|r| r.clause_id.as_str()).collect();
    assert_eq!(ids, ["Alpha_1", "Mid_1", "Zeta_1"]);
    assert_eq!(rows.iter().map(|r| r.cases).collect::<Vec<_>>(), [3, 4, 3]);
    assert_close(rows[0].m1.expect("M1"), 100.0 / 3.0);
    assert_close(rows[1].m1.expect("M1"), 25.0);
    assert_close(rows[2].m1.expect("M1"), 100.0);
}

// ---------- empty subsets ----------

#[test]
fn no_cases_gives_nulls_everywhere() {
    let report = compute(&[], &[traj("m", "c1", Some("Reportable"))], &MetricsOptions::default());
    let m = &report.models[0];
    assert_eq!((m.cases, m.trajectories), (0, 0));
    assert_eq!((m.m1, m.m2, m.m4), (None, None, None));
    assert_eq!((m.m3, m.m5, m.m6, m.m7, m.m8), (None, None, None, None, None));
    for s in [&m.by_case_type.complete, &m.by_case_type.missing, &m.by_case_type.uncertain] {
        assert_eq!((s.cases, s.m1, s.m3, s.m4), (0, None, None, None));
    }
    assert_eq!(m.behavior.missing_no_ask_pct, None);
    assert_eq!(m.behavior.uncertain_routing_pct, None);
    assert_eq!(m.behavior.missing_ask_count_pct, None);
    assert_eq!(m.behavior.missing_avg_asks, None);
    assert_eq!(m.tokens.avg_completion_tokens, None);
    let ci = m.confidence_intervals.as_ref().expect("settings are still reported");
    assert_eq!((ci.m1, ci.m7, ci.m8), (None, None, None));
}

#[test]
fn no_trajectories_gives_no_models() {
    let report = compute(&main_fixture_cases(), &[], &MetricsOptions::default());
    assert!(report.models.is_empty());
    assert!(report.paired_tests.is_empty());
}

#[test]
fn all_wrong_complete_cases_leave_subset_metrics_null() {
    let cases = vec![
        gold(case("a", Complete, Reportable, "X"), Some("Clause A"), &["Clause A"], &["b1"], &[]),
        gold(case("b", Complete, NonReportable, "X"), None, &["Clause A"], &["b1"], &[]),
    ];
    let trajs = vec![traj("m", "a", Some("Non-reportable")), traj("m", "b", Some("Uncertain"))];
    let m = &compute(&cases, &trajs, &no_bootstrap()).models[0];
    assert_close(m.m1.expect("M1"), 0.0);
    assert_eq!((m.m2, m.m3, m.m4, m.m6), (None, None, None, None));
    // M5 over all cases: nothing missing, nothing asked → all counts 0, every ratio 0.
    assert_prf(m.m5, 0, 0, 0, 0.0, 0.0, 0.0);
    // M7: b predicted Uncertain on a complete case → fp1.
    assert_prf(m.m7, 0, 1, 0, 0.0, 0.0, 0.0);
    assert_prf(m.m8, 0, 0, 1, 0.0, 0.0, 0.0);
    assert_eq!(m.by_case_type.missing.cases, 0);
    assert_eq!(m.by_case_type.missing.m1, None);
    assert_eq!(m.behavior.missing_no_ask_pct, None);
    assert_eq!(m.behavior.uncertain_routing_pct, None);
    assert_eq!(m.uncertain_routing_counts, None);
}

#[test]
fn m4_with_no_judge_and_m3_with_empty_gold_basis() {
    let cases = vec![gold(case("a", Complete, NonReportable, "X"), None, &[], &["b1", "b2"], &[])];
    let trajs = vec![with_answer(traj("m", "a", Some("Non-reportable")), None, &["GR 1"], Some("r"))];
    let m = &compute(&cases, &trajs, &no_bootstrap()).models[0];
    assert_eq!(m.m3, None); // |G*| = 0 → E is empty
    assert_close(m.m4.expect("M4"), 0.0); // judge null → 0 hits of 2
    assert_eq!(m.m4_unjudged, 1, "the zero is reported as a missing judgement");
}

#[test]
fn m4_unjudged_counts_missing_and_failed_judgements_only_where_m4_counts() {
    let cases = vec![
        gold(case("a", Complete, NonReportable, "X"), None, &[], &["b1"], &[]),
        gold(case("b", Complete, NonReportable, "X"), None, &[], &["b1"], &[]),
        gold(case("c", Complete, NonReportable, "X"), None, &[], &["b1"], &[]),
        gold(case("d", Complete, NonReportable, "X"), None, &[], &["b1"], &[]),
    ];
    let mut failed = with_judge(with_answer(traj("m", "b", Some("Non-reportable")), None, &[], Some("r")), &[]);
    failed.judge.as_mut().unwrap().extra.insert("judge_error".into(), serde_json::json!("no well-formed judgement"));
    let trajs = vec![
        with_answer(traj("m", "a", Some("Non-reportable")), None, &[], Some("r")), // no judge: unjudged
        failed,                                                                    // judge failed: unjudged
        with_judge(with_answer(traj("m", "c", Some("Non-reportable")), None, &[], Some("r")), &["b1"]), // judged
        with_answer(traj("m", "d", Some("Reportable")), None, &[], Some("r")),     // wrong verdict: outside M4
    ];
    let m = &compute(&cases, &trajs, &no_bootstrap()).models[0];
    assert_eq!(m.m4_unjudged, 2);
    assert_close(m.m4.expect("M4"), 100.0 / 3.0);
    // The fast JSONL reader sees the same.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let lines: Vec<String> = trajs.iter().map(|t| serde_json::to_string(t).unwrap()).collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let lean = compute_from_jsonl(&cases, &path, &no_bootstrap()).unwrap();
    assert_eq!(lean.report.models[0].m4_unjudged, 2);
}

#[test]
fn null_rationale_with_judge_hits_counts_zero() {
    let cases = vec![gold(case("a", Complete, NonReportable, "X"), None, &[], &["b1"], &[])];
    let trajs = vec![with_judge(with_answer(traj("m", "a", Some("Non-reportable")), None, &[], None), &["b1"])];
    assert_close(compute(&cases, &trajs, &no_bootstrap()).models[0].m4.expect("M4"), 0.0);
}

// ---------- grouping, repeats and consistency ----------

fn repeat_cases() -> Vec<Case> {
    vec![
        case("a", Complete, Reportable, "X"),
        case("b", Complete, NonReportable, "X"),
        case("c", Complete, Reportable, "X"),
    ]
}

#[test]
fn models_are_sorted_and_main_metrics_use_the_smallest_repeat() {
    let trajs = vec![
        with_repeat(traj("zeta", "a", Some("Non-reportable")), 1),
        traj("alpha", "a", Some("Reportable")),
        // repeat 0 comes second in the file but is the one used
        traj("zeta", "a", Some("Reportable")),
        // only repeat 2 exists for b: it is the main trajectory
        with_repeat(traj("zeta", "b", Some("Non-reportable")), 2),
    ];
    let report = compute(&repeat_cases(), &trajs, &no_bootstrap());
    let names: Vec<&str> = report.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(names, ["alpha", "zeta"]);
    let zeta = &report.models[1];
    assert_close(zeta.m1.expect("M1"), 200.0 / 3.0);
    assert_eq!(zeta.trajectories, 2);
}

#[test]
fn duplicate_case_and_repeat_keeps_the_first() {
    let trajs = vec![traj("m", "a", Some("Reportable")), traj("m", "a", Some("Uncertain"))];
    let m = &compute(&repeat_cases(), &trajs, &no_bootstrap()).models[0];
    let ignored = ignored_trajectories(&repeat_cases(), &trajs);
    assert_eq!(ignored, [IgnoredTrajectories { model: "m".into(), unknown_case: 0, duplicates: 1 }]);
    assert_eq!(m.consistency, None);
    assert_close(m.m1.expect("M1"), 100.0 / 3.0);
}

#[test]
fn consistency_and_pass_all_k_over_cases_with_every_repeat() {
    let mut trajs = Vec::new();
    // a: Reportable ×3 (same, all correct). b: NR, NR, Uncertain (differs).
    // c: null ×3 (same verdict — null is a value — but never correct).
    for (k, (a, b)) in [("Reportable", "Non-reportable"), ("Reportable", "Non-reportable"), ("Reportable", "Uncertain")]
        .into_iter()
        .enumerate()
    {
        trajs.push(with_repeat(traj("m", "a", Some(a)), k as u64));
        trajs.push(with_repeat(traj("m", "b", Some(b)), k as u64));
        trajs.push(with_repeat(traj("m", "c", None), k as u64));
    }
    // A fourth case with only two repeats is left out of the consistency numbers.
    let mut cases = repeat_cases();
    cases.push(case("d", Complete, Reportable, "X"));
    trajs.push(traj("m", "d", Some("Reportable")));
    trajs.push(with_repeat(traj("m", "d", Some("Uncertain")), 1));
    let m = &compute(&cases, &trajs, &no_bootstrap()).models[0];
    let c = m.consistency.as_ref().expect("consistency");
    assert_eq!((c.repeats, c.cases), (3, 3));
    assert_close(c.same_verdict_pct.expect("same"), 200.0 / 3.0);
    assert_close(c.pass_all_k_pct.expect("pass^k"), 100.0 / 3.0);
    // Main metrics: repeat 0 of a, b, d correct; c wrong.
    assert_close(m.m1.expect("M1"), 75.0);
}

#[test]
fn repeat_field_that_is_not_a_count_reads_as_zero() {
    let mut t = traj("m", "a", Some("Reportable"));
    t.extra.insert("repeat".into(), json!("first"));
    assert_eq!(prepare::repeat_index(&t), 0);
    assert_eq!(prepare::repeat_index(&with_repeat(traj("m", "a", None), 4)), 4);
}

// ---------- bootstrap ----------

fn ci_opts(seed: u64) -> MetricsOptions {
    MetricsOptions { bootstrap_resamples: 400, seed }
}

#[test]
fn bootstrap_is_deterministic_for_a_seed() {
    let (cases, trajs) = synthetic_benchmark(300, 2, 7);
    let a = compute(&cases, &trajs, &ci_opts(11));
    let b = compute(&cases, &trajs, &ci_opts(11));
    let c = compute(&cases, &trajs, &ci_opts(12));
    assert_eq!(a, b);
    assert_ne!(a.models[0].confidence_intervals, c.models[0].confidence_intervals);
    let ci = a.models[0].confidence_intervals.as_ref().expect("CI");
    assert_eq!(ci.method, "percentile bootstrap over cases");
    assert_eq!((ci.level, ci.resamples, ci.seed), (0.95, 400, 11));
}

#[test]
fn bootstrap_intervals_contain_the_point_estimates() {
    let (cases, trajs) = synthetic_benchmark(600, 3, 3);
    for m in compute(&cases, &trajs, &ci_opts(5)).models {
        let ci = m.confidence_intervals.as_ref().expect("CI");
        let pairs = [(ci.m1, m.m1), (ci.m7, m.m7.map(|p| p.f1)), (ci.m8, m.m8.map(|p| p.f1))];
        for (interval, point) in pairs {
            let (interval, point) = (interval.expect("interval"), point.expect("point"));
            assert!(interval.lo <= point && point <= interval.hi, "{point} outside [{}, {}]", interval.lo, interval.hi);
            assert!(interval.lo < interval.hi);
        }
    }
}

#[test]
fn bootstrap_of_a_model_does_not_depend_on_the_other_models() {
    let (cases, trajs) = synthetic_benchmark(200, 2, 9);
    let first_only: Vec<Trajectory> = trajs.iter().filter(|t| t.model == trajs[0].model).cloned().collect();
    let both = compute(&cases, &trajs, &ci_opts(1));
    let alone = compute(&cases, &first_only, &ci_opts(1));
    assert_eq!(both.models[0], alone.models[0]);
}

#[test]
fn zero_resamples_turn_intervals_off() {
    assert_eq!(main_report().confidence_intervals, None);
}

#[test]
fn quantile_interpolates_between_order_statistics() {
    let v = [0.0, 10.0, 20.0, 30.0, 40.0];
    assert_close(bootstrap::quantile(&v, 0.0), 0.0);
    assert_close(bootstrap::quantile(&v, 0.5), 20.0);
    assert_close(bootstrap::quantile(&v, 0.975), 39.0);
    assert_close(bootstrap::quantile(&[7.0], 0.025), 7.0);
}

// ---------- paired tests ----------

#[test]
fn exact_mcnemar_p_values() {
    assert_eq!(exact_p_value(1, 7), 0.0703125);
    assert_eq!(exact_p_value(7, 1), 0.0703125);
    assert_eq!(exact_p_value(0, 0), 1.0);
    assert_eq!(exact_p_value(0, 1), 1.0);
    assert_close(exact_p_value(0, 5), 0.0625);
    assert_eq!(exact_p_value(3, 3), 1.0); // 2 · 42/64 > 1 is capped
                                          // Exact rational values (Python fractions + math.comb), relative error below 1e-9.
    for (b, c, p) in [
        (10, 30, 0.0022214337732293643),
        (59, 76, 0.16825920465992442),
        (400, 600, 2.7284641560660184e-10),
        (2000, 2600, 9.22122107676965e-19),
    ] {
        let got = exact_p_value(b, c);
        assert!(((got - p) / p).abs() < 1e-9, "b={b} c={c}: {got} vs {p}");
    }
    assert_eq!(exact_p_value(5000, 5000), 1.0);
    assert!(exact_p_value(0, 4000) >= 0.0);
}

#[test]
fn continuity_corrected_chi_square() {
    assert_close(chi_square_corrected(1, 7).expect("chi2"), 25.0 / 8.0);
    assert_close(chi_square_corrected(3, 3).expect("chi2"), 1.0 / 6.0);
    assert_eq!(chi_square_corrected(0, 0), None);
}

#[test]
fn paired_tests_use_cases_both_models_answered() {
    let cases: Vec<Case> = (0..10).map(|i| case(&format!("k{i}"), Complete, Reportable, "X")).collect();
    let mut trajs = Vec::new();
    // A: right on k0..k7; B: right on k0 only and k8, and B has no trajectory for k9.
    for i in 0..10 {
        let id = format!("k{i}");
        trajs.push(traj("A", &id, Some(if i < 8 { "Reportable" } else { "Uncertain" })));
        if i < 9 {
            trajs.push(traj("B", &id, Some(if i == 0 || i == 8 { "Reportable" } else { "Non-reportable" })));
        }
    }
    trajs.push(traj("C", "k0", Some("Reportable")));
    let report = compute(&cases, &trajs, &no_bootstrap());
    let pairs: Vec<(&str, &str)> =
        report.paired_tests.iter().map(|t| (t.model_a.as_str(), t.model_b.as_str())).collect();
    assert_eq!(pairs, [("A", "B"), ("A", "C"), ("B", "C")]);
    let ab = &report.paired_tests[0];
    // Shared k0..k8: A only k1..k7 (7), B only k8 (1).
    assert_eq!((ab.shared_cases, ab.a_only, ab.b_only), (9, 7, 1));
    assert_eq!(ab.p_value, 0.0703125);
    assert_close(ab.chi2.expect("chi2"), 25.0 / 8.0);
    let ac = &report.paired_tests[1];
    assert_eq!((ac.shared_cases, ac.a_only, ac.b_only, ac.p_value, ac.chi2), (1, 0, 0, 1.0, None));
}

// ---------- report shape ----------

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().expect("an object").keys().map(String::as_str).collect()
}

#[test]
fn json_shape_matches_formats() {
    let report = compute(
        &main_fixture_cases(),
        &main_fixture_trajectories(),
        &MetricsOptions { bootstrap_resamples: 20, seed: 1 },
    );
    let v = serde_json::to_value(&report).expect("serializable");
    assert_eq!(keys(&v), ["models", "paired_tests"]);
    let m = &v["models"][0];
    assert_eq!(
        keys(m),
        [
            "model",
            "cases",
            "M1",
            "M2",
            "M3",
            "M4",
            "M5",
            "M6",
            "M7",
            "M8",
            "by_case_type",
            "behavior",
            "tokens",
            "trajectories",
            "m4_unjudged",
            "no_verdict",
            "confidence_intervals",
            "consistency",
            "by_clause",
            "uncertain_routing_counts",
        ]
    );
    for metric in ["M3", "M5", "M6", "M7", "M8"] {
        assert_eq!(keys(&m[metric]), ["precision", "recall", "f1", "tp", "fp", "fn"], "{metric}");
    }
    assert_eq!(keys(&m["by_case_type"]), ["complete", "missing", "uncertain"]);
    assert_eq!(keys(&m["by_case_type"]["missing"]), ["cases", "M1", "M3", "M4"]);
    assert_eq!(
        keys(&m["behavior"]),
        ["missing_no_ask_pct", "uncertain_routing_pct", "missing_ask_count_pct", "missing_avg_asks"]
    );
    assert_eq!(keys(&m["tokens"]), ["avg_completion_tokens"]);
    assert_eq!(keys(&m["confidence_intervals"]), ["method", "level", "resamples", "seed", "M1", "M7", "M8"]);
    assert_eq!(keys(&m["confidence_intervals"]["M1"]), ["lo", "hi"]);
    assert_eq!(m["M2"], json!(200.0 / 3.0));
    assert_eq!(m["consistency"], Value::Null);
    // Round trip through the public types.
    let back: MetricsReport = serde_json::from_value(v).expect("reads back");
    assert_eq!(back, report);
}

// ---------- synthetic benchmark ----------

#[test]
fn synthetic_benchmark_has_the_benchmark_shape() {
    let (cases, trajs) = synthetic_benchmark(2000, 3, 42);
    assert_eq!(cases.len(), 2000);
    assert_eq!(trajs.len(), 6000);
    let share = |t: CaseType| 100.0 * cases.iter().filter(|c| c.case_type == t).count() as f64 / 2000.0;
    assert!((share(Complete) - 68.0).abs() < 4.0, "complete {}", share(Complete));
    assert!((share(Missing) - 27.0).abs() < 4.0, "missing {}", share(Missing));
    assert!((share(Uncertain) - 5.0).abs() < 2.0, "uncertain {}", share(Uncertain));
    let clauses: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(clauses.len(), 29);
    let vocab = crate::policy::builtin_pack("mn29").map(|p| p.vocab(&[]));
    for c in &cases {
        assert_eq!(crate::case::validate::check_case(c, vocab.as_ref()), Vec::<String>::new(), "{}", c.case_id);
    }
    let again = synthetic_benchmark(2000, 3, 42);
    assert_eq!((cases.clone(), trajs.clone()), again);
    let report = compute(&cases, &trajs, &no_bootstrap());
    assert_eq!(report.models.len(), 3);
    for m in &report.models {
        assert!(m.m1.is_some() && m.m2.is_some() && m.m3.is_some() && m.m4.is_some());
        assert!(m.m5.is_some() && m.m6.is_some() && m.m7.is_some() && m.m8.is_some());
        assert!(m.behavior.missing_ask_count_pct.is_some());
        assert!(m.no_verdict > 0);
    }
    // Graded skill: the first model beats the last.
    assert!(report.models[0].m1 > report.models[2].m1);
}

#[test]
fn index_draws_cover_the_range_evenly() {
    use rand::SeedableRng;
    assert!(bootstrap::IndexDraw::new(0).is_none());
    let draw = bootstrap::IndexDraw::new(7).expect("range");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut counts = [0u32; 7];
    for _ in 0..70_000 {
        counts[draw.sample(&mut rng)] += 1;
    }
    // Each bin expects 10 000 (sd ≈ 93); 600 is more than 6 sd.
    assert!(counts.iter().all(|&c| (9_400..=10_600).contains(&c)), "{counts:?}");
}

// ---------- scoring straight from a JSONL file ----------

#[test]
fn scoring_a_file_equals_scoring_its_decoded_trajectories() {
    let (mut cases, trajs) = synthetic_benchmark(700, 3, 9);
    // Repeats, duplicates, an unknown case, extension fields and escaped text, in mixed order.
    let mut lines: Vec<String> = Vec::new();
    for (i, t) in trajs.iter().enumerate() {
        let mut v = serde_json::to_value(t).expect("value");
        v["repeat"] = json!(i % 3);
        v["latency_ms"] = json!(i);
        if i % 11 == 0 {
            v["case_id"] = json!("not-a-case");
        }
        if i % 13 == 0 {
            v["final"]["rationale"] = json!("line one\n\"two\"");
        }
        lines.push(v.to_string());
        if i % 17 == 0 {
            lines.push(v.to_string());
        }
        if i % 2 == 0 {
            v["repeat"] = json!(5);
            v["final"]["final_verdict"] = json!("Uncertain");
            lines.push(v.to_string());
        }
    }
    lines.swap(5, 900);
    // A repeated case id: the first case with the id is the one scored.
    cases.push(cases[3].clone());
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("trajectories.jsonl");
    std::fs::write(&path, lines.join("\n")).expect("write");
    let decoded = crate::trajectory::io::read_trajectories(&path).expect("read");
    for opts in [no_bootstrap(), ci_opts(5)] {
        let from_file = compute_from_jsonl(&cases, &path, &opts).expect("scored");
        assert_eq!(from_file.report, compute(&cases, &decoded, &opts));
        assert_eq!(from_file.ignored, ignored_trajectories(&cases, &decoded));
        assert!(from_file.report.models.iter().all(|m| m.consistency.is_some()));
    }
    let ignored = ignored_trajectories(&cases, &decoded);
    assert!(ignored.iter().all(|i| i.unknown_case > 0 && i.duplicates > 0), "{ignored:?}");
}
