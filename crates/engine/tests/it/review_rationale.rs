//! The rationale task of expert review, end to end: an evaluation run through the mock provider
//! (with M4 judge results), a session that draws rationales from it, reviewers ticking conditions
//! through the engine's reviewer API, and the judge-against-reviewer statistics, exports and packs.

use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::MockServer;
use psebench::review::*;
use psebench::ErrorCode;
use std::collections::HashMap;

use crate::eval::{cases_file, engine, register, script, CASES};

fn patch() -> ReviewAnswerPatch {
    ReviewAnswerPatch::default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewers_check_the_judge_on_rationales_from_an_eval_run() {
    let mock = MockServer::start(script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    register(&e, &mock);
    let file = cases_file(&e, dir.path());
    let mut runs = Vec::new();
    for model in ["asker", "garbage"] {
        let req = EvaluationRunRequest {
            cases: file.display().to_string(),
            model: model.into(),
            info_model: "info".into(),
            judge_model: "judge".into(),
            turns: 10,
            concurrency: 2,
            ..Default::default()
        };
        let run = e.evaluation_create(&req).unwrap();
        assert_eq!(e.evaluation_execute(&run).await.unwrap().status, "completed");
        runs.push(run);
    }
    let (asker_run, garbage_run) = (runs[0].clone(), runs[1].clone());
    // The judge read the asker's rationale where its verdict was right; its hit is the first condition.
    let judged: HashMap<String, Vec<String>> = e
        .evaluation_trajectories(&asker_run)
        .unwrap()
        .into_iter()
        .filter_map(|t| t.judge.map(|j| (t.case_id, j.hits)))
        .collect();
    assert!(!judged.is_empty());

    let request = |name: &str, from: Option<Vec<String>>| ReviewCreateRequest {
        name: name.into(),
        selection: ReviewSelection::Cases { case_ids: CASES.iter().map(|s| s.to_string()).collect() },
        reviewers: vec!["Ana".into(), "Ben".into()],
        overlap: Some(2),
        seed: Some(11),
        guidelines: None,
        rationale_from: from,
    };
    // An unknown run and a run whose rationales were never judged are refused, saying why.
    let err = e.review_create(&request("Bad", Some(vec!["no-such-run".into()]))).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(err.message.contains(&asker_run), "{}", err.message);
    let err = e.review_create(&request("Bad", Some(vec![garbage_run.clone()]))).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationFailed);
    assert!(err.message.contains("judged rationale"), "{}", err.message);

    let d = e.review_create(&request("Judge check", Some(vec![asker_run.clone()]))).unwrap();
    assert_eq!(d.rationale_items as usize, judged.len());
    assert_eq!(d.rationale_runs, vec![asker_run.clone()]);
    assert!(d.guidelines.contains("Checking a model's reasoning"), "the guidelines explain the task");
    let sid = d.summary.session_id.clone();
    let tokens: HashMap<String, String> = e
        .review_links(&ReviewLinksRequest { session_id: sid.clone(), reviewers: vec![], rotate: false })
        .unwrap()
        .links
        .into_iter()
        .map(|l| (l.reviewer, l.token.unwrap()))
        .collect();

    // Decisions the test expects, per reviewer: (judge hit, reviewer ticked) for every condition.
    let mut expected: HashMap<&str, Vec<(bool, bool)>> = HashMap::new();
    let mut tasks_seen = 0;
    for reviewer in ["Ana", "Ben"] {
        let token = &tokens[reviewer];
        let me = e.review_me(token).unwrap();
        assert_eq!(me.items.len(), 4);
        for status in &me.items {
            let n = status.item_no;
            let view = e.review_item(token, n).unwrap();
            assert_eq!(status.has_rationale_task, view.has_rationale_task);
            assert!(view.rationale_task.is_none(), "nothing of the rationale before the reveal");
            e.review_answer(
                token,
                n,
                &ReviewAnswerPatch {
                    realism: Some(4),
                    plausibility: Some(4),
                    blind_verdict: Some(ReviewVerdict::Reportable),
                    ..patch()
                },
            )
            .unwrap();
            if view.has_rationale_task {
                let early = e
                    .review_answer(token, n, &ReviewAnswerPatch { rationale_established: Some(vec![]), ..patch() })
                    .unwrap_err();
                assert_eq!(early.code, ErrorCode::Forbidden, "the task waits for the reveal");
            }
            let reveal = e.review_reveal(token, n).unwrap();
            let saved = e.review_answer(token, n, &ReviewAnswerPatch { agree: Some(true), ..patch() }).unwrap();
            let case_id = reveal.material.case_id.clone();
            if !view.has_rationale_task {
                assert!(!judged.contains_key(&case_id));
                assert!(saved.answer.complete);
                let e2 = e
                    .review_answer(token, n, &ReviewAnswerPatch { rationale_established: Some(vec![]), ..patch() })
                    .unwrap_err();
                assert_eq!(e2.code, ErrorCode::ValidationFailed);
                continue;
            }
            tasks_seen += 1;
            assert!(!saved.answer.complete, "an item with a rationale task is complete only once it is answered");
            let task = e.review_item(token, n).unwrap().rationale_task.expect("shown after the reveal");
            let case = e.case_show(&case_id).unwrap();
            assert_eq!(task.rationale, "The facts meet the clause and the harm bar.");
            let names: Vec<&str> = task.conditions.iter().map(|c| c.name.as_str()).collect();
            let case_names: Vec<&str> = case.boundary_conditions.iter().map(|b| b.name.as_str()).collect();
            assert_eq!(names, case_names);
            assert!(task.conditions.iter().zip(&case.boundary_conditions).all(|(c, b)| c.value == b.value));
            assert!(names.len() >= 2, "the example needs two conditions or more");
            let bad = e
                .review_answer(
                    token,
                    n,
                    &ReviewAnswerPatch { rationale_established: Some(vec!["made_up".into()]), ..patch() },
                )
                .unwrap_err();
            assert_eq!(bad.code, ErrorCode::ValidationFailed);
            assert!(bad.message.contains("made_up"), "{}", bad.message);
            // Ana ticks exactly what the judge hit; Ben ticks the first two conditions on his first
            // task and none on the others.
            let hits = &judged[&case_id];
            let ticks: Vec<String> = match (reviewer, tasks_seen) {
                ("Ana", _) => hits.clone(),
                ("Ben", t) if t == judged.len() + 1 => vec![names[1].to_string(), names[0].to_string()],
                _ => vec![],
            };
            let saved = e
                .review_answer(token, n, &ReviewAnswerPatch { rationale_established: Some(ticks.clone()), ..patch() })
                .unwrap();
            assert!(saved.answer.complete);
            assert_eq!(saved.changed, vec!["rationale_established"]);
            let back = e.review_item(token, n).unwrap().answer.rationale_established.clone().unwrap();
            assert_eq!(back.len(), ticks.len(), "stored in the task's order, without repeats");
            for c in &names {
                expected.entry(reviewer).or_default().push((hits.iter().any(|h| h == c), ticks.iter().any(|t| t == c)));
            }
        }
        assert_eq!(e.review_me(token).unwrap().progress.completed, 4);
    }
    assert_eq!(tasks_seen, 2 * judged.len());

    // The statistics: per reviewer and pooled, from the decisions above.
    let s = e.review_stats(&sid).unwrap();
    let r = s.rationale.expect("the session has a rationale task");
    assert_eq!(r.items_with_task as usize, judged.len());
    assert_eq!(r.runs, vec![asker_run.clone()]);
    let check = |a: &JudgeAgreement, d: &[(bool, bool)]| {
        let n = d.len() as f64;
        let count = |x: (bool, bool)| d.iter().filter(|y| **y == x).count() as u32;
        assert_eq!(a.kappa.n as usize, d.len());
        assert_eq!(
            (a.both, a.judge_only, a.reviewer_only, a.neither),
            (count((true, true)), count((true, false)), count((false, true)), count((false, false)))
        );
        let po = (a.both + a.neither) as f64 / n;
        let (j, r) = ((a.both + a.judge_only) as f64 / n, (a.both + a.reviewer_only) as f64 / n);
        let pe = j * r + (1.0 - j) * (1.0 - r);
        assert!((a.observed_agreement.unwrap() - po).abs() < 1e-12);
        assert!((a.expected_agreement.unwrap() - pe).abs() < 1e-12);
        assert!((a.kappa.value.unwrap() - (po - pe) / (1.0 - pe)).abs() < 1e-12);
        assert_eq!(a.caution.is_some(), d.len() < 20, "{:?}", a.caution);
    };
    let ana = r.per_reviewer.iter().find(|a| a.reviewer.as_deref() == Some("Ana")).unwrap();
    let ben = r.per_reviewer.iter().find(|a| a.reviewer.as_deref() == Some("Ben")).unwrap();
    check(ana, &expected["Ana"]);
    assert_eq!(ana.kappa.value, Some(1.0), "Ana ticked exactly the judge's hits");
    check(ben, &expected["Ben"]);
    let pooled: Vec<(bool, bool)> = expected["Ana"].iter().chain(&expected["Ben"]).copied().collect();
    check(&r.pooled, &pooled);
    assert_eq!(r.pooled.reviewer, None);
    assert_eq!(r.pooled.items as usize, 2 * judged.len());
    // Per case type, the pooled decisions split without loss or overlap.
    assert!(!r.by_type.is_empty());
    let types: Vec<&str> = r.by_type.iter().map(|t| t.case_type.as_str()).collect();
    assert!(types.iter().all(|t| ["complete", "missing", "uncertain"].contains(t)), "{types:?}");
    let sum = |f: &dyn Fn(&JudgeAgreement) -> u32| r.by_type.iter().map(|t| f(&t.agreement)).sum::<u32>();
    assert_eq!(sum(&|a| a.items), r.pooled.items);
    assert_eq!(sum(&|a| a.kappa.n), r.pooled.kappa.n);
    assert_eq!(
        (sum(&|a| a.both), sum(&|a| a.judge_only), sum(&|a| a.reviewer_only), sum(&|a| a.neither)),
        (r.pooled.both, r.pooled.judge_only, r.pooled.reviewer_only, r.pooled.neither)
    );
    let summary = e.review_summary(&sid).unwrap();
    assert!(summary.markdown.contains("The M4 judge against reviewers"), "{}", summary.markdown);

    // The adjudication view puts the judge's hits beside each reviewer's ticks.
    let q = e
        .review_queue(&ReviewQueueRequest {
            session_id: sid.clone(),
            threshold: None,
            low_rating: None,
            include_decided: true,
            include_unflagged: true,
        })
        .unwrap();
    for it in &q.items {
        assert_eq!(it.rationale.is_some(), judged.contains_key(&it.case_id));
        assert_eq!(it.judge_established.as_ref(), judged.get(&it.case_id));
        assert!(it.answers.iter().all(|a| a.rationale_established.is_some() == it.rationale.is_some()));
    }

    // Exports: one row per condition of each answered task, with the judge's call beside it.
    let rows = e.review_export_rows(&sid).unwrap();
    let rat: Vec<&ReviewAnswerRow> = rows.iter().filter(|r| r.question == "rationale_condition").collect();
    assert_eq!(rat.len(), pooled.len());
    assert!(rat.iter().all(|r| r.condition.is_some() && r.judge_established.is_some()));
    assert_eq!(rat.iter().filter(|r| r.answer == "established").count(), pooled.iter().filter(|d| d.1).count());
    let csv = e.review_export_text(&sid, ReviewExportFormat::Csv).unwrap();
    assert!(csv.lines().next().unwrap().ends_with("expected_verdict,condition,judge_established"));
    let jsonl = e.review_export_text(&sid, ReviewExportFormat::Jsonl).unwrap();
    let realism_line = jsonl.lines().find(|l| l.contains("\"question\":\"realism\"")).unwrap();
    assert!(!realism_line.contains("condition"), "other rows keep their fields: {realism_line}");

    // Packs carry the task and the ticks, never the judge's hits or the model's name.
    let (_, text) = e.review_pack_export_text(&sid, "Ben").unwrap();
    assert!(text.contains("\"rationale_task\"") && text.contains("\"rationale_established\""));
    assert!(!text.contains("judge_hits") && !text.contains("\"asker\""));
    // Opened in another store, the reviewer sees the task and can change the ticks; merged back,
    // the owner's statistics follow.
    let other = tempfile::tempdir().unwrap();
    let e2 = engine(other.path());
    e2.review_pack_open_text("ben.json", &text).unwrap();
    let local = e2.review_local_token(&sid, "Ben").unwrap();
    let with_task = e2.review_me(&local).unwrap().items.into_iter().find(|i| i.has_rationale_task).unwrap();
    assert!(with_task.rationale_done && with_task.complete);
    let v = e2.review_item(&local, with_task.item_no).unwrap();
    let case_of = v.reveal.as_ref().unwrap().material.case_id.clone();
    let all: Vec<String> = v.rationale_task.unwrap().conditions.into_iter().map(|c| c.name).collect();
    let ticked_before =
        rat.iter().filter(|r| r.reviewer == "Ben" && r.case_id == case_of && r.answer == "established").count() as u32;
    std::thread::sleep(std::time::Duration::from_millis(5));
    e2.review_answer(
        &local,
        with_task.item_no,
        &ReviewAnswerPatch { rationale_established: Some(all.clone()), ..patch() },
    )
    .unwrap();
    let (_, answers) = e2.review_pack_answers_text(&sid, Some("Ben")).unwrap();
    let merged = e.review_pack_merge_text("ben-answers.json", &answers).unwrap();
    assert_eq!(merged.fields_updated, 1, "{merged:?}");
    let after = e.review_stats(&sid).unwrap().rationale.unwrap();
    let ben_after = after.per_reviewer.iter().find(|a| a.reviewer.as_deref() == Some("Ben")).unwrap();
    assert_eq!(
        ben_after.both + ben_after.reviewer_only,
        ben.both + ben.reviewer_only - ticked_before + all.len() as u32,
        "the merged ticks replace the ones before"
    );

    // A session without the rationale task has no rationale statistics.
    let plain = e.review_create(&request("Plain", None)).unwrap();
    assert_eq!(plain.rationale_items, 0);
    assert!(!plain.guidelines.contains("Checking a model's reasoning"));
    assert_eq!(e.review_stats(&plain.summary.session_id).unwrap().rationale, None);
}
