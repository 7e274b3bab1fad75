//! The demo model (`psebench mock-llm serve --demo`) over real HTTP: it plays the model under
//! test, the information provider and the judge on the built-in demo cases (asks on missing
//! cases, answers that parse, some right and some wrong, judge replies that parse), generates
//! cases from a built-in card, and drafts cards for a clause through the authoring workflow.

use psebench::api::models::ModelAddRequest;
use psebench::api::Engine;
use psebench::authoring::draft::{AcceptRequest, DraftKind, DraftRequest};
use psebench::authoring::{ApproveRequest, ExtractRequest};
use psebench::evaluation::EvaluationRunRequest;
use psebench::generation::GenerationRequest;
use psebench::mock::{MockServer, Script};
use psebench::trajectory::{Action, InfoStatus, Turn};

use super::policy_new::{new_policy, FALL, POLICY};

fn engine_with_demo(dir: &std::path::Path, mock: &MockServer) -> Engine {
    let e = super::eval::engine(dir);
    e.model_add(&ModelAddRequest {
        name: "demo".into(),
        kind: "openai-compatible".into(),
        model: "demo".into(),
        base_url: Some(mock.openai_base()),
        ..Default::default()
    })
    .unwrap();
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_model_plays_every_evaluation_role_on_the_demo_cases() {
    let mock = MockServer::start(Script::demo(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with_demo(dir.path(), &mock);
    e.demo_load().unwrap();
    let req = EvaluationRunRequest {
        cases: "origin=demo".into(),
        model: "demo".into(),
        info_model: "demo".into(),
        judge_model: "demo".into(),
        turns: 10,
        concurrency: 4,
        ..Default::default()
    };
    let run = e.evaluation_create(&req).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    let trajectories = e.evaluation_trajectories(&run).unwrap();
    assert_eq!(trajectories.len(), 90);
    let mut right = 0;
    let mut judged = 0;
    for t in &trajectories {
        let case = e.case_show(&t.case_id).unwrap();
        assert!(t.error.is_none(), "{}: {:?}", t.case_id, t.error);
        let answer = t.final_answer.as_ref().expect("every case ends with an answer that parses");
        let rationale = answer.rationale.as_deref().unwrap_or("");
        assert!(rationale.contains("The report states: \""), "{}: evidence quoted from the narrative", t.case_id);
        assert!(!answer.clause_and_guidance_evidence.clone().unwrap_or_default().is_empty());
        let asks: Vec<_> =
            t.turns.iter().filter(|x| matches!(x, Turn::Eval(ev) if ev.action == Some(Action::Ask))).collect();
        let is_right = t.predicted_verdict().map(|v| v.as_str()) == Some(case.gold_verdict.as_str());
        if case.case_type.as_str() == "missing" && is_right {
            assert!(!asks.is_empty(), "{}: a missing case answered right was asked about first", t.case_id);
            // The provider answered from the fact list: the withheld value came back.
            let answered = t.turns.iter().any(|x| matches!(x, Turn::Info(i) if i.status == InfoStatus::Answered));
            assert!(answered, "{}: the information provider found the withheld fact", t.case_id);
        }
        if case.case_type.as_str() == "complete" {
            assert!(asks.is_empty(), "{}: nothing to ask on a complete case", t.case_id);
        }
        if is_right {
            right += 1;
            let j = t.judge.as_ref().expect("a right answer is judged");
            assert!(!j.hits.is_empty(), "{}: the judge found the conditions the rationale works through", t.case_id);
            judged += 1;
        } else {
            assert!(t.judge.is_none());
        }
    }
    assert!((63..=72).contains(&right), "{right} of 90 right: roughly three in four");
    assert_eq!(judged, right);
    // Every request was answered by the demo model, and the model list marks it as simulated.
    assert!(mock.requests().iter().all(|r| r.rule.as_deref() == Some("demo")));
    let listed: serde_json::Value =
        reqwest::get(format!("{}/models", mock.openai_base())).await.unwrap().json().await.unwrap();
    assert_eq!(listed["data"][0]["id"], "demo");
    assert_eq!(listed["data"][0]["owned_by"], psebench::mock::demo::DEMO_OWNER);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_model_generates_cases_from_a_built_in_card() {
    let mock = MockServer::start(Script::demo(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with_demo(dir.path(), &mock);
    let req = GenerationRequest {
        cards: "CardRep_1_CareManagement_7".into(),
        anchors_per_card: 1,
        model: "demo".into(),
        verifier_model: Some("demo".into()),
        seed: 5,
        concurrency: 1,
        include_missing: true,
        ..Default::default()
    };
    let run = e.generation_create(&req).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert!(s.counts.accepted >= 1 && s.counts.dropped == 0, "{:?}", s.counts);
    let cases: Vec<_> = e
        .cases_all(&Default::default())
        .unwrap()
        .into_iter()
        .filter(|c| c.clause_card_id == "CardRep_1_CareManagement_7")
        .collect();
    assert!(!cases.is_empty());
    assert!(cases.iter().any(|c| c.case_type.as_str() == "complete" && c.gold_verdict.as_str() == "Reportable"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_model_drafts_cards_for_a_clause_that_pass_the_checks_and_are_accepted() {
    let mock = MockServer::start(Script::demo(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with_demo(dir.path(), &mock);
    e.policy_create(&new_policy()).unwrap();
    let x = e
        .authoring_extract(&ExtractRequest { policy: Some(POLICY.into()), clause: FALL.into(), model: "demo".into() })
        .await
        .unwrap();
    assert!(!x.sections.is_empty(), "the demo model picked sections for the clause");
    e.authoring_approve(&ApproveRequest {
        extraction_id: x.extraction_id,
        approved_by: "Dana Reviewer".into(),
        sections: x.sections.iter().map(|s| s.section_id.clone()).collect(),
        notes: None,
    })
    .unwrap();
    let r = e
        .authoring_draft(&DraftRequest {
            policy: Some(POLICY.into()),
            clause: FALL.into(),
            kind: DraftKind::Complete,
            parent: None,
            model: "demo".into(),
        })
        .await
        .unwrap();
    let d = e.authoring_draft_show(&r.draft_id).unwrap();
    assert_eq!(d.status, "proposed", "{:?}", r.problems);
    assert_eq!(r.cards.len(), 2);
    let acc = e
        .authoring_accept(&AcceptRequest {
            draft_id: r.draft_id,
            by: "Dana Reviewer".into(),
            notes: None,
            item_ids: None,
        })
        .unwrap();
    assert_eq!(acc.cards.len(), 2);
}
