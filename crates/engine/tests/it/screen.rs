//! The policy-wide clause screen in generation, through the loopback mock: a conflict fed back to
//! the Instantiator and fixed on attempt 2, a conflict on every attempt that drops the candidate
//! with the clauses named, and the plan's warning when the writer screens its own records.

use psebench::generation::{GenerationCandidateFilter, GenerationRequest};
use psebench::mock::{MockServer, When};
use serde_json::json;

use super::generation::{
    bodies_by, j, rep_slots, request, rule, screen_met, script_with, setup, sys, sys_and, user_text, FALL, REP, SCREEN,
};

const RESTRAINTS: &str = "Environmental_4_RestraintsOrBedrails";
const INST: &str = "You fill in the facts of one synthetic";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screen_conflict_goes_back_to_the_instantiator_and_is_fixed_on_attempt_two() {
    let mut fixed = rep_slots();
    fixed["slot_values"]["fall_description"] =
        json!("Slipped on a wet bathroom floor at 03:40 while walking unaided; no bed rails or restraints were in use");
    let front = vec![
        // Attempt 2 of the Instantiator is told about the restraint clause and writes new facts.
        rule(
            "inst-fixed",
            When {
                system_contains: Some(INST.into()),
                last_user_contains: Some(RESTRAINTS.into()),
                ..Default::default()
            },
            j(fixed),
        ),
        // The first record (bed alarm switched off, beside the bed) also meets the restraint clause.
        rule("screen-conflict", sys_and(SCREEN, "bed alarm was switched off"), j(screen_met(&[FALL, RESTRAINTS]))),
    ];
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let mut req = request(REP, 1);
    req.include_missing = false;
    let run = e.generation_create(&req).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted, s.counts.dropped), ("completed", 1, 0), "{:?}", s.message);
    assert_eq!(s.counts.retries, 2, "the Instantiator and the Narrator ran again; the screens are no retries");

    let inst: Vec<String> = mock
        .requests()
        .into_iter()
        .filter(|r| r.rule.as_deref().map(|n| n.starts_with("inst")).unwrap_or(false))
        .map(|r| user_text(&r.body.to_string()))
        .collect();
    assert_eq!(inst.len(), 2);
    assert!(!inst[0].contains(RESTRAINTS));
    assert!(inst[1].contains("This is attempt 2"), "{}", inst[1]);
    assert!(
        inst[1]
            .contains(&format!("The facts also meet clause {RESTRAINTS} (the facts meet every element of the clause)")),
        "the conflict's reasons are fed back: {}",
        inst[1]
    );
    assert!(inst[1].contains("bed alarm was switched off"), "the screened record is shown again");

    let case = e.cases_all(&Default::default()).unwrap().into_iter().find(|c| c.clause_card_id == REP).unwrap();
    assert!(
        case.elements[0].value.as_deref().unwrap().contains("wet bathroom floor"),
        "the accepted record is the fixed one"
    );
    let p = e.generation_provenance(&case.case_id).unwrap();
    let stages: Vec<(String, u32, bool)> = p.attempts.iter().map(|a| (a.stage.clone(), a.attempt, a.passed)).collect();
    assert_eq!(
        stages,
        vec![
            ("instantiation".into(), 1, true),
            ("narration".into(), 1, true),
            ("clause_screen".into(), 1, false),
            ("instantiation".into(), 2, true),
            ("narration".into(), 2, true),
            ("clause_screen".into(), 2, true),
        ]
    );
    let conflict = &p.attempts[2];
    assert!(conflict.issues.iter().any(|i| i.contains(RESTRAINTS)), "{:?}", conflict.issues);
    assert_eq!(conflict.verifier.as_ref().unwrap()["agrees"], false);
    assert_eq!(conflict.calls[0].role, "clause_screen");
    assert_eq!(conflict.calls[0].model, "checker");
    assert_eq!(bodies_by(&mock, "screen-conflict").len(), 1);
    let st = e.generation_stats(&run).unwrap();
    let inst = st.winning_attempts.iter().find(|r| r.stage == "instantiation").unwrap();
    assert_eq!(inst.attempts, vec![0, 1, 0], "the accepted facts came from the Instantiator's attempt 2");
    assert_eq!(bodies_by(&mock, "screen").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_on_every_attempt_drops_the_candidate_naming_the_clauses() {
    let front = vec![rule("screen-always", sys(SCREEN), j(screen_met(&[FALL, RESTRAINTS])))];
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status.as_str(), "completed", "{:?}", s.message);
    assert_eq!((s.counts.accepted, s.counts.dropped, s.counts.skipped), (0, 1, 1));
    assert_eq!(bodies_by(&mock, "inst-rep").len(), 3, "three Instantiator attempts in total");
    assert_eq!(bodies_by(&mock, "screen-always").len(), 3);

    let cands = e.generation_candidates(&run, &GenerationCandidateFilter::default()).unwrap();
    let parent = cands.iter().find(|c| c.missing_variant_id.is_none()).unwrap();
    assert_eq!(parent.status, "dropped");
    assert_eq!(parent.drop_stage.as_deref(), Some("clause_screen"));
    let reason = parent.drop_reason.clone().unwrap();
    assert!(reason.contains(&format!("clauses met: {FALL}, {RESTRAINTS}")), "{reason}");
    assert!(reason.contains("which this card does not allow"), "{reason}");
    let child = cands.iter().find(|c| c.missing_variant_id.is_some()).unwrap();
    assert_eq!(child.status, "skipped");
    assert!(child.drop_reason.as_deref().unwrap().contains("clause screen"));

    let p = e.generation_provenance(&parent.candidate_id).unwrap();
    let screens: Vec<_> = p.attempts.iter().filter(|a| a.stage == "clause_screen").collect();
    assert_eq!(
        screens.iter().map(|a| (a.attempt, a.passed)).collect::<Vec<_>>(),
        vec![(1, false), (2, false), (3, false)]
    );
    assert!(screens.iter().all(|a| a.issues.iter().any(|i| i.contains(RESTRAINTS))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_warns_when_the_writer_screens_its_own_records() {
    let mock = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let warned = |req: &GenerationRequest| {
        e.generation_plan(req)
            .unwrap()
            .warnings
            .iter()
            .any(|w| w.contains("same model as the writer") && w.contains("another family"))
    };
    let own = GenerationRequest { screen_model: Some("writer".into()), ..request(REP, 1) };
    assert!(warned(&own));
    let plan = e.generation_plan(&own).unwrap();
    let dest = plan.destinations.iter().find(|d| d.role == "clause screen").unwrap();
    assert_eq!(dest.model, "writer");
    // Without a verifier or screen model everything runs on the writer: warned too.
    assert!(warned(&GenerationRequest { verifier_model: None, ..request(REP, 1) }));
    assert!(!warned(&request(REP, 1)), "the verifier model screens by default");
    assert!(!warned(&GenerationRequest { screen_model: Some("checker".into()), ..request(REP, 1) }));
    // The screen model is stored with the run.
    let run = e.generation_create(&own).unwrap();
    let v = e.generation_show(&run).unwrap();
    assert_eq!(v.config.screen_model.as_deref(), Some("writer"));
    assert_eq!(v.config.models.unwrap().screen.unwrap().name, "writer");
}
