//! Case generation through the real HTTP client against the loopback mock provider: a card
//! that passes at once, an instantiation fixed on attempt 2 by the verifier's feedback, a
//! narration dropped after three failures, a missing narrative caught leaking a withheld value,
//! an Uncertain card, and a run stopped midway and resumed in a new process.

use psebench::api::cards::CardAuditRequest;
use psebench::api::models::ModelAddRequest;
use psebench::api::Engine;
use psebench::card::AuditStatus;
use psebench::generation::{GenerationCandidateFilter, GenerationRequest};
use psebench::mock::{MockServer, Reply, Rule, Script, When};
use serde_json::{json, Value};
use std::collections::HashSet;

pub const REP: &str = "CardRep_90_CareManagement_7";
pub const UNC: &str = "CardUnc_90_CareManagement_7";
pub const FALL: &str = "CareManagement_7_Fall";

const INST: &str = "You fill in the facts of one synthetic";
const IVER: &str = "You are a strict reviewer";
const NARR: &str = "You write the free-text description";
const EXTR: &str = "You read a description of a healthcare event";
const NVER: &str = "You check whether a written event description";
const MNARR: &str = "You write the first, incomplete report";
const MVER: &str = "You check an intentionally incomplete description";
pub const SCREEN: &str = "You screen one event's facts against every clause";

const OUTCOME: &str = "Displaced fracture of the left femoral neck, repaired by hemiarthroplasty on the next day; walking with a frame at discharge on day 12";

fn rep_card() -> Value {
    json!({
      "clause_card_id": REP,
      "clause_card_definition": "A patient under the facility's care falls and is seriously injured by the fall.",
      "clause_id": FALL,
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "A fall with serious injury while under care.", "value": ["Care Management Events clause 7", "General Recommendation 1"]},
        "boundary_conditions": {
          "test_fall_happened_in_care": {"value": true, "meaning": "The patient fell while under the facility's care.", "corresponding_basic_event_elements": ["fall_description"]},
          "test_fall_caused_serious_injury": {"value": true, "meaning": "The fall left the patient dead or seriously injured.", "corresponding_basic_event_elements": ["injury_outcome", "outcome_type"]}
        }
      },
      "basic_event_elements": {
        "fall_description": {"field_type": "string", "meaning": "How, where and when the patient fell.", "allowed_content": "concrete circumstances", "disallowed_content": "verdict words"},
        "injury_outcome": {"field_type": "string", "meaning": "The injury the fall caused and the treatment and course that followed.", "allowed_content": "concrete injury and course", "disallowed_content": "verdict words"},
        "outcome_type": {"field_type": "enum", "meaning": "Whether the patient died or survived with the injury.", "allowed_content": "one value", "disallowed_content": "other values", "allowed_values": ["death", "serious_injury"]}
      },
      "constraints_on_basic_event_elements_instantiation": [
        "No slot value and no sentence of the narrative may contain the words \"reportable\" or \"non-reportable\" or the phrase \"should be reported\"."
      ],
      "missing_information_variants": [{
        "missing_variant_id": "missing_injury_outcome",
        "summary": "The first report describes the fall but not what injury resulted.",
        "masked_boundary_conditions": ["test_fall_caused_serious_injury"],
        "masked_basic_event_elements": ["injury_outcome", "outcome_type"],
        "why_reasonable_in_real_world": "The reporter filed before imaging was read.",
        "why_not_classifiable_from_remaining_event_description": "Without the injury the fall fits this card or a no-harm fall card."
      }]
    })
}

fn unc_card() -> Value {
    json!({
      "clause_card_id": UNC,
      "clause_card_definition": "A patient lowered to the floor by staff during a near-fall, later found to have a fracture; the guidance does not say whether an assisted lowering counts as a fall.",
      "clause_id": FALL,
      "event_type": "Uncertain",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "The fall guidance is silent on assisted lowering.", "value": ["Care Management Events clause 7", "Care Management Event Recommendation 5"]},
        "boundary_conditions": {
          "test_assisted_lowering": {"value": true, "meaning": "Staff lowered the patient to the floor.", "corresponding_basic_event_elements": ["lowering_description"]},
          "test_fracture_found": {"value": true, "meaning": "A fracture was found afterwards.", "corresponding_basic_event_elements": ["imaging_finding"]}
        }
      },
      "basic_event_elements": {
        "lowering_description": {"field_type": "string", "meaning": "How staff lowered the patient to the floor.", "allowed_content": "concrete", "disallowed_content": "verdicts"},
        "imaging_finding": {"field_type": "string", "meaning": "What imaging showed afterwards.", "allowed_content": "concrete", "disallowed_content": "verdicts"}
      },
      "constraints_on_basic_event_elements_instantiation": [
        "Never use the words \"uncertain\", \"uncertainty\", \"indeterminate\", \"escalate\", \"escalation\", \"inconclusive\", \"reportable\" or \"non-reportable\" anywhere in slot values or narrative."
      ],
      "x_ruled_out": {
        "ProductOrDevice_2_DeviceMisuseOrMalfunction": "No bed, lift or other device failed or was misused.",
        "Environmental_4_RestraintsOrBedrails": "No restraint or bedrail was in use."
      }
    })
}

pub fn rule(name: &str, when: When, reply: Reply) -> Rule {
    Rule {
        name: Some(name.into()),
        when,
        reply: Some(reply),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    }
}

pub fn seq(name: &str, when: When, replies: Vec<Reply>) -> Rule {
    Rule { name: Some(name.into()), when, reply: None, replies, fail_first: vec![], latency_ms: None, usage: None }
}

pub fn sys(marker: &str) -> When {
    When { system_contains: Some(marker.into()), ..Default::default() }
}

pub fn sys_and(marker: &str, any: &str) -> When {
    When { system_contains: Some(marker.into()), any_regex: Some(any.into()), ..Default::default() }
}

pub fn j(v: Value) -> Reply {
    Reply::Json { json: v }
}

pub fn rep_slots() -> Value {
    json!({"slot_values": {
        "fall_description": "Found on the floor beside the bed at 03:40 after trying to walk to the bathroom without calling for help; bed alarm was switched off",
        "injury_outcome": OUTCOME,
        "outcome_type": "serious_injury"
    }})
}

fn unc_slots() -> Value {
    json!({"slot_values": {
        "lowering_description": "Two aides lowered the patient to the floor when her knees buckled during a transfer",
        "imaging_finding": "Hip X-ray the next morning showed a non-displaced fracture of the right greater trochanter"
    }})
}

/// A screen reply finding these clauses met.
pub fn screen_met(clauses: &[&str]) -> Value {
    json!({
        "clauses_met": clauses.iter().map(|c| json!({"clause_id": c, "why": "the facts meet every element of the clause"})).collect::<Vec<_>>(),
        "open_question": {"present": false, "section_id": null, "why": null},
        "verdict": if clauses.is_empty() { "Non-reportable" } else { "Reportable" }
    })
}

fn screen_uncertain() -> Value {
    json!({
        "clauses_met": [],
        "open_question": {"present": true, "section_id": "Care Management Event Recommendation 5", "why": "silent on whether a lowering by staff is a fall"},
        "verdict": "Uncertain"
    })
}

fn narrative_for(kind: &str) -> String {
    format!(
        "{kind} Night shift, unit 4B. At 03:40 I found the patient on the floor beside the bed; she had tried to walk to the bathroom without calling and the bed alarm had been switched off. Scene detail: {{{{1}}}}."
    )
}

/// The happy path for both cards: every role answers correctly at once.
fn base_rules() -> Vec<Rule> {
    let complete = format!("{} Imaging showed a displaced fracture of the left femoral neck, repaired by hemiarthroplasty on the next day; walking with a frame at discharge on day 12.", narrative_for("NARR-COMPLETE"));
    let missing = narrative_for("NARR-MISSING");
    vec![
        rule("inst-rep", sys_and(INST, REP), j(rep_slots())),
        rule("inst-unc", sys_and(INST, UNC), j(unc_slots())),
        rule("iver", sys(IVER), j(json!({"pass": true, "issues": []}))),
        rule(
            "narr-unc",
            When {
                system_contains: Some(NARR.into()),
                any_regex: Some("aides lowered".into()),
                last_user_regex: Some(r"# Anchor\s+(\S+ \S+ \S+)".into()),
                ..Default::default()
            },
            j(
                json!({"event_narrative": "NARR-UNC During a transfer at 14:00 her knees buckled and two aides lowered her to the floor. Next morning a hip X-ray showed a non-displaced fracture of the right greater trochanter. Scene: {{1}}."}),
            ),
        ),
        rule(
            "narr",
            When {
                system_contains: Some(NARR.into()),
                last_user_regex: Some(r"# Anchor\s+(\S+ \S+ \S+)".into()),
                ..Default::default()
            },
            j(json!({"event_narrative": complete})),
        ),
        rule(
            "mnarr",
            When {
                system_contains: Some(MNARR.into()),
                last_user_regex: Some(r"# Anchor\s+(\S+ \S+ \S+)".into()),
                ..Default::default()
            },
            j(json!({"event_narrative": missing})),
        ),
        rule(
            "extr-missing",
            When {
                system_contains: Some(EXTR.into()),
                last_user_contains: Some("NARR-MISSING".into()),
                ..Default::default()
            },
            j(
                json!({"slot_values": {"fall_description": "found on the floor beside the bed at 03:40", "injury_outcome": null, "outcome_type": null}}),
            ),
        ),
        rule(
            "extr-unc",
            When {
                system_contains: Some(EXTR.into()),
                last_user_contains: Some("NARR-UNC".into()),
                ..Default::default()
            },
            j(unc_slots()),
        ),
        rule("extr", sys(EXTR), j(rep_slots())),
        rule("nver", sys(NVER), j(json!({"pass": true, "issues": []}))),
        // The clause screen agrees with each card: the Uncertain card's record (the assisted
        // lowering) leaves the policy's open point open; the fall with a fracture meets the fall clause.
        rule("screen-unc", sys_and(SCREEN, "aides lowered"), j(screen_uncertain())),
        rule("screen", sys(SCREEN), j(screen_met(&[FALL]))),
        rule(
            "mver",
            sys(MVER),
            j(
                json!({"per_bc_check": [{"boundary_condition": "test_fall_caused_serious_injury", "leak_verdict": "indeterminate", "evidence_phrase": null, "explanation": "No injury is described."}], "pass": true, "issues": []}),
            ),
        ),
    ]
}

pub fn script_with(front: Vec<Rule>) -> Script {
    let mut rules = front;
    rules.extend(base_rules());
    Script { rules, ..Default::default() }
}

/// An engine with the two test cards imported and approved and two models on the mock.
pub fn setup(dir: &std::path::Path, mock: &MockServer) -> Engine {
    let e = super::eval::engine(dir);
    for name in ["writer", "checker"] {
        e.model_add(&ModelAddRequest {
            name: name.into(),
            kind: "openai-compatible".into(),
            model: format!("{name}-id"),
            base_url: Some(mock.openai_base()),
            price_in: Some(1.0),
            price_out: Some(4.0),
            ..Default::default()
        })
        .unwrap();
    }
    let cards = dir.join("cards");
    std::fs::create_dir_all(&cards).unwrap();
    std::fs::write(cards.join("rep.json"), serde_json::to_string_pretty(&rep_card()).unwrap()).unwrap();
    std::fs::write(cards.join("unc.json"), serde_json::to_string_pretty(&unc_card()).unwrap()).unwrap();
    let r = e.cards_import(&[cards], "mn29", "tester").unwrap();
    assert_eq!(r.added.len(), 2, "{:?}", r.lint);
    for id in [REP, UNC] {
        e.card_audit(&CardAuditRequest {
            card_id: id.into(),
            status: AuditStatus::Approved,
            auditor: "tester".into(),
            notes: None,
        })
        .unwrap();
    }
    e
}

pub fn request(cards: &str, anchors: u32) -> GenerationRequest {
    GenerationRequest {
        cards: cards.into(),
        anchors_per_card: anchors,
        model: "writer".into(),
        verifier_model: Some("checker".into()),
        seed: 7,
        concurrency: 2,
        ..Default::default()
    }
}

pub fn bodies_by(mock: &MockServer, rule: &str) -> Vec<String> {
    mock.requests().into_iter().filter(|r| r.rule.as_deref() == Some(rule)).map(|r| r.body.to_string()).collect()
}

pub fn user_text(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap();
    v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_that_passes_first_time_becomes_two_cases_with_full_provenance() {
    let mock = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let req = request(REP, 1);
    let plan = e.generation_plan(&req).unwrap();
    assert_eq!((plan.cards, plan.units, plan.candidates), (1, 1, 2));
    assert_eq!(plan.candidates_by_type.get("missing"), Some(&1));
    assert!(!plan.sends_data_off_machine, "the mock is on loopback");
    assert_eq!(plan.destinations.len(), 3);
    assert_eq!(plan.destinations[2].role, "clause screen");
    assert_eq!(plan.destinations[2].model, "checker", "the screen defaults to the verifier model");
    assert!(plan.estimate.per_stage.iter().any(|s| s.stage == "clause_screen" && s.calls == 1));
    assert!(
        plan.estimate.calls >= 8 && plan.estimate.input_tokens > 1000 && plan.estimate.usd.unwrap() > 0.0,
        "{:?}",
        plan.estimate
    );
    assert_eq!(mock.request_count(), 0, "planning sends nothing");

    let run = e.generation_create(&req).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert_eq!((s.counts.accepted, s.counts.dropped, s.counts.retries), (2, 0, 0));
    assert_eq!(s.counts.calls, 9, "2 instantiation + 3 narration + 1 screen + 3 missing calls");
    assert!(s.counts.input_tokens > 0 && s.counts.cost_usd > 0.0);

    let cands = e.generation_candidates(&run, &GenerationCandidateFilter::default()).unwrap();
    let parent = cands.iter().find(|c| c.missing_variant_id.is_none()).unwrap();
    let child = cands.iter().find(|c| c.missing_variant_id.is_some()).unwrap();
    assert_eq!(
        parent.candidate_id,
        format!("{run}__{REP}__{}", parent.anchor_id),
        "ids are built from run, card and anchor"
    );
    assert_eq!(child.candidate_id, format!("{}__missing_injury_outcome", parent.candidate_id));
    assert!(parent.anchor_id.starts_with("syn_CareManagement_7_Fall_"), "sampled from the card's clause bucket");

    let case = e.case_show(parent.case_id.as_ref().unwrap()).unwrap();
    assert_eq!(case.case_type.as_str(), "complete");
    assert_eq!(case.gold_verdict.as_str(), "Reportable");
    assert_eq!(case.gold_clause.as_deref(), Some("Care Management Events clause 7"));
    assert_eq!(case.gold_legal_basis, vec!["Care Management Events clause 7", "General Recommendation 1"]);
    assert_eq!(case.boundary_conditions.len(), 2);
    assert!(case.boundary_conditions.iter().all(|b| b.value && !b.meaning.is_empty()));
    assert_eq!(
        case.elements.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        vec!["fall_description", "injury_outcome", "outcome_type"]
    );
    assert_eq!(case.elements[1].value.as_deref(), Some(OUTCOME));
    assert!(case.elements.iter().all(|x| !x.meaning.is_empty()));
    assert!(case.masked_elements.is_empty() && case.missing_variant_id.is_none());
    assert!(case.narrative.starts_with("NARR-COMPLETE"));
    assert_eq!(case.anchor_id.as_deref(), Some(parent.anchor_id.as_str()));
    assert_eq!(case.extra["generation_run_id"], json!(run));
    let origin =
        e.cases_list(&Default::default()).unwrap().into_iter().find(|c| c.case_id == case.case_id).unwrap().origin;
    assert_eq!(origin, "generated");

    let missing = e.case_show(child.case_id.as_ref().unwrap()).unwrap();
    assert_eq!(missing.case_type.as_str(), "missing");
    assert_eq!(missing.gold_verdict.as_str(), "Reportable", "a missing case keeps its parent's verdict");
    assert_eq!(missing.masked_elements, vec!["injury_outcome", "outcome_type"]);
    assert_eq!(missing.missing_variant_id.as_deref(), Some("missing_injury_outcome"));
    assert_eq!(missing.elements, case.elements, "the full record, withheld slots included");
    assert_eq!(missing.anchor_id, case.anchor_id, "variants inherit the parent's anchor");
    assert_eq!(missing.extra["parent_case_id"], json!(case.case_id));

    // What each role saw.
    let extr = bodies_by(&mock, "extr");
    assert_eq!(extr.len(), 1);
    let seen = user_text(&extr[0]);
    for hidden in
        ["test_fall_caused_serious_injury", "Reportable", "allowed_values", "General Recommendation", REP, "field_type"]
    {
        assert!(!seen.contains(hidden), "the Extractor must not see {hidden}: {seen}");
    }
    assert!(seen.contains("How, where and when the patient fell."), "meaning-only view");
    let mnarr = user_text(&bodies_by(&mock, "mnarr")[0]);
    assert!(!mnarr.contains("femoral neck"), "the missing narrator never sees withheld values");
    assert!(
        mnarr.contains("\"masked_condition_value\": true") && mnarr.contains("The injury the fall caused"),
        "{mnarr}"
    );
    let narr = mock.requests().into_iter().find(|r| r.rule.as_deref() == Some("narr")).unwrap().body;
    assert_eq!(narr["model"], "writer-id");
    assert_eq!(narr["response_format"]["type"], "json_schema", "structured output is requested");
    let nver = mock.requests().into_iter().find(|r| r.rule.as_deref() == Some("nver")).unwrap().body;
    assert_eq!(nver["model"], "checker-id", "verifiers use the verifier model");
    // The screen sees every clause of the policy and the facts, never the card's label or conditions.
    let screens = bodies_by(&mock, "screen");
    assert_eq!(screens.len(), 1, "one screen of the complete record; the missing variant shares it");
    let screen_seen = user_text(&screens[0]);
    for shown in [
        "Surgical_1_WrongBodyPart",
        "Radiologic_1_MetallicObjectInMRIArea",
        FALL,
        OUTCOME,
        "How, where and when the patient fell.",
    ] {
        assert!(screen_seen.contains(shown), "the screen must see {shown}: {screen_seen}");
    }
    for hidden in ["test_fall_caused_serious_injury", "event_type", REP, "\"Reportable\""] {
        assert!(!screen_seen.contains(hidden), "the screen must not see {hidden}: {screen_seen}");
    }

    // Provenance: the missing case tells the whole story, parent's stages first.
    let p = e.generation_provenance(&missing.case_id).unwrap();
    let stages: Vec<(String, u32, bool)> = p.attempts.iter().map(|a| (a.stage.clone(), a.attempt, a.passed)).collect();
    assert_eq!(
        stages,
        vec![
            ("instantiation".into(), 1, true),
            ("narration".into(), 1, true),
            ("clause_screen".into(), 1, true),
            ("missing_narration".into(), 1, true)
        ]
    );
    let roles: Vec<&str> = p.attempts.iter().flat_map(|a| a.calls.iter().map(|c| c.role.as_str())).collect();
    assert_eq!(
        roles,
        vec![
            "instantiator",
            "instantiation_verifier",
            "narrator",
            "extractor",
            "narrative_verifier",
            "clause_screen",
            "missing_narrator",
            "extractor",
            "missing_verifier"
        ]
    );
    for c in p.attempts.iter().flat_map(|a| a.calls.iter()) {
        assert_eq!(c.prompt_versions.get("gen_background").map(|v| v.len()), Some(12), "{}", c.role);
        assert!(c.prompt_versions.contains_key(&c.prompt_name));
        assert!(
            c.request["messages"].as_array().unwrap().len() == 2 && c.response_text.is_some() && c.input_tokens > 0
        );
        assert!(!c.cache_hit);
    }
    assert_eq!(p.attempts[2].verifier.as_ref().unwrap()["clauses_met"][0]["clause_id"], FALL);
    assert_eq!(p.attempts[2].verifier.as_ref().unwrap()["agrees"], true);
    assert_eq!(p.attempts[3].verifier.as_ref().unwrap()["per_bc_check"][0]["leak_verdict"], "indeterminate");
    assert!(p.case.is_some() && p.anchor_text.is_some() && p.card_version == Some(1));

    let st = e.generation_stats(&run).unwrap();
    let w: Vec<Vec<u64>> = st.winning_attempts.iter().map(|r| r.attempts.clone()).collect();
    assert_eq!(w, vec![vec![2, 0, 0], vec![2, 0, 0], vec![1, 0, 0]]);
    assert_eq!(st.success.iter().map(|r| r.success_pct).collect::<Vec<_>>(), vec![Some(100.0), Some(100.0), None]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instantiation_passes_on_attempt_two_after_the_verifiers_feedback() {
    let issue = "ISSUE-77: injury_outcome must name the imaging that showed the fracture";
    let mut fixed = rep_slots();
    fixed["slot_values"]["injury_outcome"] =
        json!("CT at 05:00 showed a subdural haematoma; transferred to neurosurgical ICU for 4 days");
    let front = vec![
        rule(
            "inst-fixed",
            When {
                system_contains: Some(INST.into()),
                last_user_contains: Some("ISSUE-77".into()),
                ..Default::default()
            },
            j(fixed),
        ),
        seq(
            "iver-seq",
            sys(IVER),
            vec![j(json!({"pass": false, "issues": [issue]})), j(json!({"pass": true, "issues": []}))],
        ),
    ];
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let mut req = request(REP, 1);
    req.include_missing = false;
    let run = e.generation_create(&req).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted, s.counts.retries), ("completed", 1, 1));
    // The second Instantiator request carried the issue and the failed candidate.
    let inst: Vec<String> = mock
        .requests()
        .into_iter()
        .filter(|r| r.rule.as_deref().map(|n| n.starts_with("inst")).unwrap_or(false))
        .map(|r| user_text(&r.body.to_string()))
        .collect();
    assert_eq!(inst.len(), 2);
    assert!(!inst[0].contains("ISSUE-77") && !inst[0].contains("attempt 2"));
    assert!(inst[1].contains(issue), "{}", inst[1]);
    assert!(
        inst[1].contains("This is attempt 2") && inst[1].contains("femoral neck"),
        "the failed candidate is shown verbatim"
    );
    let case = e.cases_all(&Default::default()).unwrap().into_iter().find(|c| c.clause_card_id == REP).unwrap();
    assert!(
        case.elements[1].value.as_deref().unwrap().contains("subdural"),
        "the accepted record is the corrected one"
    );
    let p = e.generation_provenance(&case.case_id).unwrap();
    assert_eq!((p.attempts[0].attempt, p.attempts[0].passed), (1, false));
    assert_eq!(p.attempts[0].issues, vec![issue.to_string()]);
    assert!(p.attempts[0].guard_findings.is_empty(), "this failure came from the verifier");
    assert_eq!((p.attempts[1].attempt, p.attempts[1].passed), (2, true));
    let st = e.generation_stats(&run).unwrap();
    assert_eq!(st.winning_attempts[0].attempts, vec![0, 1, 0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_narration_that_fails_three_times_is_dropped_with_its_reason_kept() {
    let front = vec![rule(
        "nver-fail",
        sys(NVER),
        j(json!({"pass": false, "issues": ["ISSUE-88: the narrative never says where the patient was found"]})),
    )];
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "a dropped candidate is a finished candidate");
    assert_eq!((s.counts.accepted, s.counts.dropped, s.counts.skipped), (0, 1, 1));
    assert!(e.cases_all(&Default::default()).unwrap().iter().all(|c| c.clause_card_id != REP), "no case was stored");
    let cands = e
        .generation_candidates(
            &run,
            &GenerationCandidateFilter { status: Some("dropped".into()), ..Default::default() },
        )
        .unwrap();
    assert_eq!(cands.len(), 1);
    let d = &cands[0];
    assert_eq!(d.drop_stage.as_deref(), Some("narration"));
    assert!(d.drop_reason.as_deref().unwrap().contains("ISSUE-88"), "{:?}", d.drop_reason);
    assert!(d.case_id.is_none());
    let skipped = e
        .generation_candidates(
            &run,
            &GenerationCandidateFilter { status: Some("skipped".into()), ..Default::default() },
        )
        .unwrap();
    assert_eq!(skipped[0].drop_stage.as_deref(), Some("parent"));
    // The dropped candidate's story: one instantiation, three narrations, each retry fed back.
    let p = e.generation_provenance(&d.candidate_id).unwrap();
    assert!(p.case.is_none());
    let stages: Vec<(String, u32, bool)> = p.attempts.iter().map(|a| (a.stage.clone(), a.attempt, a.passed)).collect();
    assert_eq!(
        stages,
        vec![
            ("instantiation".into(), 1, true),
            ("narration".into(), 1, false),
            ("narration".into(), 2, false),
            ("narration".into(), 3, false)
        ]
    );
    assert_eq!(bodies_by(&mock, "narr").len(), 3, "each retry is a new request: its prompt carries the feedback");
    assert_eq!(mock.requests().iter().filter(|r| r.rule.as_deref() == Some("nver-fail")).count(), 3);
    let narrator_calls: Vec<_> =
        p.attempts.iter().filter(|a| a.stage == "narration").map(|a| a.calls[0].request.to_string()).collect();
    assert!(narrator_calls[1].contains("ISSUE-88") && narrator_calls[2].contains("This is attempt 3"));
    let st = e.generation_stats(&run).unwrap();
    assert_eq!(st.success[0].success_pct, Some(0.0));
    assert_eq!(st.success[1].initiated, 0, "the variant was never started");
    assert_eq!(
        st.drops_by_stage.iter().map(|d| (d.stage.as_str(), d.candidates)).collect::<Vec<_>>(),
        vec![("narration", 1), ("parent", 1)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_narrative_that_leaks_a_withheld_value_is_caught_before_the_verifier() {
    let leaky =
        format!("{} X-ray showed a displaced fracture of the left femoral neck.", narrative_for("NARR-MISSING"));
    let front = vec![seq(
        "mnarr-seq",
        When {
            system_contains: Some(MNARR.into()),
            last_user_regex: Some(r"# Anchor\s+(\S+ \S+ \S+)".into()),
            ..Default::default()
        },
        vec![j(json!({"event_narrative": leaky})), j(json!({"event_narrative": narrative_for("NARR-MISSING")}))],
    )];
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted), ("completed", 2));
    assert_eq!(
        mock.requests().iter().filter(|r| r.rule.as_deref() == Some("mver")).count(),
        1,
        "the leaky attempt never reached the verifier"
    );
    assert_eq!(bodies_by(&mock, "extr-missing").len(), 1, "nor the Extractor");
    let missing =
        e.cases_all(&Default::default()).unwrap().into_iter().find(|c| c.case_type.as_str() == "missing").unwrap();
    assert!(!missing.narrative.contains("femoral"));
    let p = e.generation_provenance(&missing.case_id).unwrap();
    let m: Vec<_> = p.attempts.iter().filter(|a| a.stage == "missing_narration").collect();
    assert_eq!(m.len(), 2);
    assert!(
        !m[0].passed && m[0].guard_findings.iter().any(|f| f.contains("withheld slot injury_outcome")),
        "{:?}",
        m[0].guard_findings
    );
    assert_eq!(m[0].calls.len(), 1, "only the narrator was called");
    assert!(m[1].passed);
    let second = user_text(&m[1].calls[0].request.to_string());
    assert!(second.contains("withheld slot injury_outcome"), "the guard's finding is fed back like a verifier issue");
    assert_eq!(e.generation_stats(&run).unwrap().winning_attempts[2].attempts, vec![0, 1, 0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uncertain_card_uses_both_phases_without_missing_variants_and_its_banned_words() {
    let bad = "NARR-UNC During a transfer her knees buckled and two aides lowered her to the floor; the fall review was inconclusive. A hip X-ray next morning showed a non-displaced fracture of the right greater trochanter.";
    let front = vec![seq(
        "narr-unc-seq",
        When { system_contains: Some(NARR.into()), any_regex: Some("aides lowered".into()), ..Default::default() },
        vec![
            j(json!({"event_narrative": bad})),
            j(json!({"event_narrative": bad.replace("; the fall review was inconclusive", "")})),
        ],
    )];
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let req = request(UNC, 2);
    let plan = e.generation_plan(&req).unwrap();
    assert_eq!((plan.units, plan.candidates), (2, 2), "no missing follow-up for Uncertain cards");
    let run = e.generation_create(&GenerationRequest { concurrency: 1, ..req }).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted, s.counts.total), ("completed", 2, 2));
    let cases: Vec<_> =
        e.cases_all(&Default::default()).unwrap().into_iter().filter(|c| c.clause_card_id == UNC).collect();
    assert_eq!(cases.len(), 2);
    for c in &cases {
        assert_eq!(
            (c.case_type.as_str(), c.gold_verdict.as_str(), c.gold_clause.as_deref()),
            ("uncertain", "Uncertain", None)
        );
        assert!(!c.narrative.contains("inconclusive"));
    }
    let first = e
        .generation_provenance(
            &cases.iter().find(|c| e.generation_provenance(&c.case_id).unwrap().attempts.len() == 4).unwrap().case_id,
        )
        .unwrap();
    assert!(
        first.attempts[1].guard_findings.iter().any(|g| g.contains("\"inconclusive\"")),
        "{:?}",
        first.attempts[1].guard_findings
    );
    let st = e.generation_stats(&run).unwrap();
    assert_eq!(st.success[2].success_pct, Some(100.0));
    assert_eq!(st.narrative_length[2].n, 2);
}

fn normalize(run: &str, mut c: psebench::case::Case) -> Value {
    c.case_id = c.case_id.replace(run, "RUN");
    c.extra.shift_remove("generation_run_id");
    for k in ["candidate_id", "parent_case_id"] {
        if let Some(v) = c.extra.get_mut(k) {
            *v = json!(v.as_str().unwrap().replace(run, "RUN"));
        }
    }
    serde_json::to_value(c).unwrap()
}

pub fn cases_of(e: &Engine, run: &str) -> Vec<Value> {
    let mut v: Vec<Value> = e
        .cases_all(&Default::default())
        .unwrap()
        .into_iter()
        .filter(|c| c.extra.get("generation_run_id") == Some(&json!(run)))
        .map(|c| normalize(run, c))
        .collect();
    v.sort_by(|a, b| a["case_id"].as_str().cmp(&b["case_id"].as_str()));
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_stopped_midway_resumes_in_a_new_process_with_the_same_cases_and_no_repeated_calls() {
    // Uninterrupted reference run.
    let mock_ref = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir_ref = tempfile::tempdir().unwrap();
    let e_ref = setup(dir_ref.path(), &mock_ref);
    let req = GenerationRequest { concurrency: 1, ..request(&format!("{REP},{UNC}"), 3) };
    let run_ref = e_ref.generation_create(&req).unwrap();
    assert_eq!(e_ref.generation_execute(&run_ref).await.unwrap().status, "completed");
    let reference = cases_of(&e_ref, &run_ref);
    assert_eq!(reference.len(), 9, "3 complete + 3 missing + 3 uncertain");

    // The same run, stopped after a few candidates, then resumed by a fresh engine on the file.
    let mock = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.generation_create(&req).unwrap();
    let mut rx = e.jobs().subscribe();
    let (e2, run2) = (e.clone(), run.clone());
    let watcher = tokio::spawn(async move {
        while let Ok(p) = rx.recv().await {
            if p.run_id == run2 && p.counter("attempts") >= 4.0 {
                e2.generation_cancel(&run2).unwrap();
                break;
            }
        }
    });
    let s = e.generation_execute(&run).await.unwrap();
    watcher.await.unwrap();
    assert_eq!(s.status, "cancelled", "{:?}", s.message);
    assert!(s.counts.done < s.counts.total, "{:?}", s.counts);
    assert!(s.message.as_deref().unwrap().contains("Resume"));
    let sent_before = mock.request_count();
    drop(e);

    let e_new = super::eval::engine(dir.path());
    let listed = e_new.generation_list().unwrap();
    assert_eq!(listed[0].status, "cancelled");
    let s = e_new.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert_eq!(s.counts.accepted, 9);
    assert_eq!(cases_of(&e_new, &run), reference, "the resumed run made exactly the cases of the uninterrupted one");
    // No request was sent twice, and the whole job cost exactly as many requests as the reference.
    let bodies: Vec<String> = mock.requests().into_iter().map(|r| r.body.to_string()).collect();
    let unique: HashSet<&String> = bodies.iter().collect();
    assert_eq!(unique.len(), bodies.len(), "a request was repeated");
    assert_eq!(mock.request_count(), mock_ref.request_count());
    assert!(mock.request_count() > sent_before, "the resume did real work");
    // Executing a completed run again does nothing.
    let again = e_new.generation_execute(&run).await.unwrap();
    assert_eq!(again.status, "completed");
    assert_eq!(mock.request_count(), mock_ref.request_count());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_explain_what_cannot_be_generated() {
    let mock = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    // A draft card listed by id is used with a warning; by clause it is left out.
    e.card_audit(&CardAuditRequest {
        card_id: UNC.into(),
        status: AuditStatus::Draft,
        auditor: "tester".into(),
        notes: None,
    })
    .unwrap();
    let p = e.generation_plan(&request(UNC, 1)).unwrap();
    assert_eq!(p.unapproved_cards, vec![UNC.to_string()]);
    assert!(p.warnings.iter().any(|w| w.contains("not approved")), "{:?}", p.warnings);
    let by_clause = e.generation_plan(&request(FALL, 1)).unwrap();
    assert!(by_clause.unapproved_cards.is_empty());
    // More anchors than the bucket holds: all of them, with a warning that says how many.
    let held = e
        .anchors_buckets("mn29")
        .unwrap()
        .iter()
        .find(|b| b.clause_id.as_deref() == Some(FALL))
        .map(|b| (b.builtin + b.imported) as usize)
        .unwrap();
    assert!(held >= 25, "the built-in bucket holds at least 25 anchors: {held}");
    let want = held as u32 + 10;
    let p = e.generation_plan(&request(REP, want)).unwrap();
    assert_eq!(p.units, held);
    let w = p.warnings.iter().find(|w| w.contains(&format!("holds {held} anchors"))).expect("a shortfall warning");
    assert!(w.contains(&format!("1 card of {FALL} asks for {want} anchors")), "{w}");
    assert!(w.contains(&format!("uses all {held} (10 fewer cases than asked)")), "{w}");
    // Every card of the clause: the same scenes are reused card after card, and the plan says so.
    let cards = e.generation_plan(&request(FALL, want)).unwrap().cards;
    assert!(cards > 2, "{cards}");
    let p = e.generation_plan(&request(FALL, want)).unwrap();
    assert_eq!(p.units, held * cards);
    let w = p.warnings.iter().find(|w| w.contains(&format!("holds {held} anchors"))).expect("a shortfall warning");
    assert!(w.contains(&format!("the same {held} scenes are reused by all {cards} cards")), "{w}");
    // Asking for no more than the bucket holds: no such warning.
    let p = e.generation_plan(&request(FALL, 25)).unwrap();
    assert!(!p.warnings.iter().any(|w| w.contains("bucket holds")), "{:?}", p.warnings);
    // Only imported anchors: there are none yet.
    let err = e
        .generation_plan(&GenerationRequest { anchor_origin: Some("imported".into()), ..request(REP, 2) })
        .unwrap_err();
    assert!(err.message.contains("anchors"), "{}", err.message);
    let err = e.generation_plan(&request("NoSuchCard", 2)).unwrap_err();
    assert_eq!(err.code, psebench::ErrorCode::NotFound);
    let err = e.generation_plan(&GenerationRequest { model: "nobody".into(), ..request(REP, 2) }).unwrap_err();
    assert_eq!(err.code, psebench::ErrorCode::NotFound);
    // The same seed samples the same anchors; another seed may not.
    let a = e.generation_plan(&request("all", 2)).unwrap();
    let b = e.generation_plan(&request("all", 2)).unwrap();
    assert_eq!(a, b);
    assert!(a.cards > 100, "every approved built-in card plus ours: {}", a.cards);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_during_a_call_resumes_and_repeats_only_the_call_that_was_in_flight() {
    let mut rules = base_rules();
    if let Some(r) = rules.iter_mut().find(|r| r.name.as_deref() == Some("mver")) {
        // The first missing-verifier request hangs, so the process can be killed while it waits.
        r.fail_first = vec![psebench::mock::Fault::Timeout { hang_ms: 3000 }];
    }
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let req = GenerationRequest { concurrency: 1, ..request(REP, 2) };
    let run = e.generation_create(&req).unwrap();
    let (e2, run2) = (e.clone(), run.clone());
    let task = tokio::spawn(async move { e2.generation_execute(&run2).await });
    let mut waited = 0;
    while !mock.requests().iter().any(|r| r.rule.as_deref() == Some("mver")) {
        assert!(waited < 1000, "the missing verifier was never called");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        waited += 1;
    }
    task.abort(); // the process dies mid-call
    let _ = task.await;
    drop(e);
    let e_new = super::eval::engine(dir.path());
    let before = e_new.generation_show(&run).unwrap();
    assert_eq!(
        (before.counts.accepted, before.counts.pending),
        (1, 3),
        "the complete case was committed before the kill"
    );
    let s = e_new.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted), ("completed", 4), "{:?}", s.message);
    let bodies: Vec<(Option<String>, String)> =
        mock.requests().into_iter().map(|r| (r.rule, r.body.to_string())).collect();
    let mut seen = HashSet::new();
    let repeated: Vec<&Option<String>> =
        bodies.iter().filter(|(_, b)| !seen.insert(b.clone())).map(|(r, _)| r).collect();
    assert_eq!(repeated, vec![&Some("mver".to_string())], "only the call that was in flight is sent again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_an_anchor_before_resuming_drops_its_candidates_with_a_reason() {
    let mock = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let opts = psebench::anchor::AnchorImportOptions { clause_id: Some(FALL.into()), ..Default::default() };
    e.anchors_import_text("ours.jsonl", "{\"anchor_id\": \"o1\", \"text\": \"Slipped on a wet floor near the nurses' station.\"}\n{\"anchor_id\": \"o2\", \"text\": \"Rolled out of a stretcher in the corridor.\"}\n", &opts).unwrap();
    let run =
        e.generation_create(&GenerationRequest { anchor_origin: Some("imported".into()), ..request(REP, 2) }).unwrap();
    e.anchors_remove(&["o2".to_string()]).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted, s.counts.dropped), ("completed", 2, 2));
    let gone = e
        .generation_candidates(
            &run,
            &GenerationCandidateFilter { status: Some("dropped".into()), ..Default::default() },
        )
        .unwrap();
    assert!(gone.iter().all(|c| c.anchor_id == "o2" && c.drop_stage.as_deref() == Some("anchor")), "{gone:?}");
    assert!(
        e.generation_provenance(&gone[0].candidate_id).unwrap().anchor_text.is_none(),
        "the removed text is gone from the run too"
    );
}
