//! Structured drafting through the real HTTP client against the loopback mock, on a policy pack a
//! user created: a lint error fed back and fixed on attempt 2; acceptance into the library and the
//! audit state machine (audited before approved, a named person each time, an edit after approval
//! makes a new draft version); cases generated from the authored card; an Uncertain card without
//! an open question refused; legal-basis ids outside the approved extraction and overlapping cards
//! caught; missing variants that name a sibling; rejection with a kept reason; and "draft every
//! clause" as a job that skips clauses without an approved extraction.

use psebench::anchor::AnchorImportOptions;
use psebench::api::cards::{CardAuditRequest, CardSaveRequest};
use psebench::api::models::ModelAddRequest;
use psebench::api::Engine;
use psebench::authoring::draft::all::DraftAllRequest;
use psebench::authoring::draft::{AcceptRequest, DraftEditRequest, DraftKind, DraftRequest, RejectRequest};
use psebench::authoring::{ApproveRequest, ExtractRequest};
use psebench::card::lint::Severity;
use psebench::card::AuditStatus;
use psebench::generation::GenerationRequest;
use psebench::jobs::RunStatus;
use psebench::mock::{MockServer, Rule, Script, When};
use psebench::ErrorCode;
use serde_json::{json, Value};

use super::generation::{bodies_by, j, rule, sys, user_text};
use super::policy_new::{new_policy, FALL, POLICY};

const DRAFTER: &str = "You draft clause cards for a patient-safety test library";
const UNC_DRAFTER: &str = "You draft Uncertain clause cards";
const VARIANTS: &str = "You write missing-information variants";
const WRONG: &str = "RL_Meds_1_WrongPatient";
const REP: &str = "CardRep_1_Falls_1";
const NONREP: &str = "CardNonrep_1_Falls_1";

fn extraction_rules() -> Vec<Rule> {
    vec![
        rule(
            "extract",
            sys("You help a compliance team build a library"),
            j(json!({"relevant_sections": [
                {"section_id": "Lasting harm", "criteria": ["defines_term"], "why": "defines lasting harm"},
                {"section_id": "Care of the service", "criteria": ["scope"], "why": "says when the patient is in care"}
            ]})),
        ),
        rule("check", sys("You review a selection of policy sections"), j(json!({"add": [], "remove": []}))),
    ]
}

fn attempt(n: u32) -> When {
    When { last_user_contains: Some(format!("this is attempt {n}")), ..Default::default() }
}

fn with_sys(mut w: When, marker: &str) -> When {
    w.system_contains = Some(marker.into());
    w
}

fn fall_card(id: &str, event_type: &str, lasting: bool, bc_element: &str) -> Value {
    json!({
      "clause_card_id": id,
      "clause_card_definition": format!("A patient falls in the service's care and the harm {} a week later.", if lasting { "still limits them" } else { "is gone" }),
      "clause_id": FALL,
      "event_type": event_type,
      "fixed_fields": {
        "governing_legal_basis": {"value": ["Falls clause 1", "Lasting harm"], "meaning": "The clause needs harm lasting beyond a week."},
        "boundary_conditions": {
          "fall_in_care": {"value": true, "meaning": "The patient fell while in the service's care.", "corresponding_basic_event_elements": ["fall_description"]},
          "harm_lasting": {"value": lasting, "meaning": "Harm from the fall still limited the patient after seven days.", "corresponding_basic_event_elements": [bc_element]}
        }
      },
      "basic_event_elements": {
        "fall_description": {"field_type": "string", "meaning": "How, where and when the patient fell.", "allowed_content": "concrete circumstances", "disallowed_content": "verdict words"},
        "harm_course": {"field_type": "string", "meaning": "The harm the fall caused and how it developed over the following days.", "allowed_content": "concrete course", "disallowed_content": "verdict words"}
      },
      "constraints_on_basic_event_elements_instantiation": [
        "No slot value and no sentence of the narrative may contain the words \"reportable\" or \"non-reportable\"."
      ]
    })
}

fn complete_reply(bc_element: &str) -> Value {
    json!({
        "target_clause_id": FALL,
        "clause_cards": [fall_card(REP, "Reportable", true, bc_element), fall_card(NONREP, "Non_Reportable", false, "harm_course")],
        "self_check": [{"check": "legal basis only from the passages", "passed": true, "note": ""}]
    })
}

fn drafting_rules() -> Vec<Rule> {
    vec![
        // Attempt 1 names a slot the card does not define; attempt 2 fixes it.
        rule("draft2", with_sys(attempt(2), DRAFTER), j(complete_reply("harm_course"))),
        rule("draft1", sys(DRAFTER), j(complete_reply("harm_coarse"))),
    ]
}

fn engine_with(dir: &std::path::Path, mock: &MockServer) -> Engine {
    let e = super::eval::engine(dir);
    for name in ["author", "writer", "checker"] {
        e.model_add(&ModelAddRequest {
            name: name.into(),
            kind: "openai-compatible".into(),
            model: format!("{name}-id"),
            base_url: Some(mock.openai_base()),
            price_in: Some(1.0),
            price_out: Some(2.0),
            ..Default::default()
        })
        .unwrap();
    }
    e.policy_create(&new_policy()).unwrap();
    e
}

async fn approve_extraction(e: &Engine, clause: &str) {
    let x = e
        .authoring_extract(&ExtractRequest {
            policy: Some(POLICY.into()),
            clause: clause.into(),
            model: "author".into(),
        })
        .await
        .unwrap();
    e.authoring_approve(&ApproveRequest {
        extraction_id: x.extraction_id,
        approved_by: "Dana Reviewer".into(),
        sections: x.sections.iter().map(|s| s.section_id.clone()).collect(),
        notes: None,
    })
    .unwrap();
}

fn draft_req(clause: &str, kind: DraftKind, parent: Option<&str>) -> DraftRequest {
    DraftRequest {
        policy: Some(POLICY.into()),
        clause: clause.into(),
        kind,
        parent: parent.map(str::to_string),
        model: "author".into(),
    }
}

fn audit(e: &Engine, card: &str, status: AuditStatus, who: &str) -> Result<(), psebench::ApiError> {
    e.card_audit(&CardAuditRequest { card_id: card.into(), status, auditor: who.into(), notes: Some("checked".into()) })
        .map(|_| ())
}

fn mock_script(mut front: Vec<Rule>) -> Script {
    front.extend(extraction_rules());
    front.extend(super::policy_new::script().rules);
    Script { rules: front, ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_pack_is_authored_audited_and_generated_from_end_to_end() {
    let mock = MockServer::start(mock_script(drafting_rules()), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);

    // Without an approved extraction, drafting is refused and says what to do.
    let err = e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("no approved extraction"), "{}", err.message);
    approve_extraction(&e, FALL).await;

    // Attempt 1 has a lint error; it goes back to the model, and attempt 2 passes.
    let r = e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    assert_eq!(r.attempts, 2);
    assert_eq!(r.cards, vec![REP, NONREP]);
    assert!(r.problems.iter().all(|p| p.severity == Severity::Warning), "{:?}", r.problems);
    let second = bodies_by(&mock, "draft2");
    assert_eq!(second.len(), 1);
    let fed_back = user_text(&second[0]);
    assert!(fed_back.contains("bc-unknown-element") && fed_back.contains("harm_coarse"), "{fed_back}");
    // The prompt carries the approved extraction and the citable ids, and nothing of MN29.
    let first = user_text(&bodies_by(&mock, "draft1")[0]);
    assert!(first.contains("# Policy passages for Falls clause 1") && first.contains("- Lasting harm"), "{first}");
    assert!(!first.contains("Minnesota") && !first.contains("Care Management Events clause"));

    let d = e.authoring_draft_show(&r.draft_id).unwrap();
    assert_eq!(d.status, "proposed");
    assert_eq!(d.calls.len(), 2, "every call is stored with its provenance");
    assert!(d.calls.iter().all(|c| c.prompt_versions.contains_key("author_draft_complete")));
    assert_eq!(d.cited, vec!["Falls clause 1", "Lasting harm"]);
    let cov = d.coverage.clone().unwrap();
    assert_eq!(cov.conditions, vec!["fall_in_care", "harm_lasting"]);
    assert_eq!((cov.combinations, cov.covered), (4, 2));
    assert!(cov.gaps.iter().all(|g| !g["fall_in_care"]), "falls outside care are not covered: {:?}", cov.gaps);

    // Accepting needs a name; accepted cards enter the library as drafts written by a model.
    let nameless = AcceptRequest { draft_id: r.draft_id.clone(), by: " ".into(), notes: None, item_ids: None };
    assert_eq!(e.authoring_accept(&nameless).unwrap_err().code, ErrorCode::InvalidInput);
    let acc = e
        .authoring_accept(&AcceptRequest { by: "Dana Reviewer".into(), notes: Some("looks right".into()), ..nameless })
        .unwrap();
    assert_eq!(acc.cards, vec![REP, NONREP]);
    let shown = e.card_show(REP, None).unwrap();
    assert_eq!((shown.summary.status.as_str(), shown.summary.origin.as_str()), ("draft", "authored"));
    assert!(shown.versions[0].note.as_deref().unwrap().contains(&r.draft_id));
    assert_eq!(e.authoring_draft_show(&r.draft_id).unwrap().status, "accepted");

    // The audit state machine: audited before approved, each by a named person.
    let skip = audit(&e, REP, AuditStatus::Approved, "Kim").unwrap_err();
    assert_eq!(skip.code, ErrorCode::Conflict);
    assert!(skip.message.contains("audited before"), "{}", skip.message);
    assert_eq!(audit(&e, REP, AuditStatus::Audited, "  ").unwrap_err().code, ErrorCode::InvalidInput);
    audit(&e, REP, AuditStatus::Audited, "Lee").unwrap();
    audit(&e, REP, AuditStatus::Approved, "Kim").unwrap();
    let approved = e.card_show(REP, None).unwrap();
    assert_eq!((approved.summary.status.as_str(), approved.summary.version), ("approved", 1));
    assert_eq!(approved.audit_log.len(), 2);

    // An edit after approval is a new version and back to draft.
    let mut edited = approved.card.clone();
    edited["clause_card_definition"] =
        json!("A patient falls in the service's care and a week later the harm still limits them.");
    e.card_save(&CardSaveRequest {
        card_id: REP.into(),
        json: edited.to_string(),
        author: "Kim".into(),
        note: Some("clearer".into()),
        base_version: None,
    })
    .unwrap();
    let after = e.card_show(REP, None).unwrap();
    assert_eq!((after.summary.status.as_str(), after.summary.version), ("draft", 2));
    audit(&e, REP, AuditStatus::Audited, "Lee").unwrap();
    audit(&e, REP, AuditStatus::Approved, "Kim").unwrap();

    // Cases are generated from the authored card, with the approved extraction as its context.
    let anchors = format!(
        "{}\n",
        json!({"anchor_id": "rl-1", "text": "Resident found on the floor of the day room after lunch.", "source": "Riverland notes"})
    );
    let path = dir.path().join("anchors.jsonl");
    std::fs::write(&path, anchors).unwrap();
    let opts = AnchorImportOptions { clause_id: Some(FALL.into()), policy: Some(POLICY.into()), ..Default::default() };
    e.anchors_import(&path, &opts).unwrap();
    let req = GenerationRequest {
        policy: POLICY.into(),
        cards: REP.into(),
        anchors_per_card: 1,
        model: "writer".into(),
        verifier_model: Some("checker".into()),
        seed: 3,
        concurrency: 1,
        ..Default::default()
    };
    let plan = e.generation_plan(&req).unwrap();
    assert!(
        plan.clause_contexts.iter().any(|c| c.context.starts_with("approved extraction")),
        "{:?}",
        plan.clause_contexts
    );
    let run = e.generation_create(&req).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!((s.status.as_str(), s.counts.accepted), ("completed", 1), "{:?}", s.message);
    let inst = bodies_by(&mock, "inst");
    assert!(inst.iter().all(|b| b.contains("Policy passages for Falls clause 1")), "the extraction is the context");

    // The generated case exported as a dataset names how it was made, and carries its authored card.
    let out = dir.path().join("dataset");
    let d = e
        .cases_export_dataset(
            &out,
            &psebench::case::repo::CaseFilter { clause_id: Some(FALL.into()), ..Default::default() },
        )
        .unwrap();
    assert_eq!(d.counts["complete"], 1);
    assert!(out.join(format!("cards/{REP}.json")).exists());
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains(&format!("  generation_runs: [\"{run}\"]")), "{readme}");
    assert!(readme.contains("  generation_models: [\"writer\", \"checker\""), "{readme}");
    assert!(readme.contains("    gen_instantiator: \""), "{readme}");
    assert!(readme.contains("Riverland adverse event rule"), "{readme}");
}

fn unc_card(open_question: Option<Value>) -> Value {
    let mut c = json!({
      "clause_card_id": "CardUnc_1_Medicines_1",
      "clause_card_definition": "A medicine meant for one patient is handed to another who notices before taking it.",
      "clause_id": WRONG,
      "event_type": "Uncertain",
      "fixed_fields": {
        "governing_legal_basis": {"value": ["Medicines clause 1"], "meaning": "The clause does not say whether handing over counts as giving."},
        "boundary_conditions": {
          "handed_to_other_patient": {"value": true, "meaning": "The medicine was handed to a patient it was not meant for.", "corresponding_basic_event_elements": ["handover"]}
        }
      },
      "basic_event_elements": {
        "handover": {"field_type": "string", "meaning": "What was handed to whom, and what the patient did with it.", "allowed_content": "concrete events", "disallowed_content": "verdict words"}
      },
      "constraints_on_basic_event_elements_instantiation": [
        "Never use the words \"uncertain\", \"uncertainty\", \"indeterminate\", \"escalate\", \"escalation\", \"inconclusive\", \"reportable\" or \"non-reportable\" in slot values or narrative."
      ]
    });
    if let Some(q) = open_question {
        c["x_open_question"] = q;
    }
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uncertain_card_without_a_named_open_question_is_refused_until_edited() {
    let unc = rule(
        "unc",
        sys(UNC_DRAFTER),
        j(json!({"target_clause_id": WRONG, "uncertain_cards": [unc_card(None)], "self_check": []})),
    );
    let mock = MockServer::start(mock_script(vec![unc]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, WRONG).await;
    let r = e.authoring_draft(&draft_req(WRONG, DraftKind::Uncertain, None)).await.unwrap();
    assert_eq!(r.attempts, 3, "the problem went back to the model each time");
    assert!(
        r.problems.iter().any(|p| p.rule == "draft-open-question" && p.severity == Severity::Error),
        "{:?}",
        r.problems
    );
    let d = e.authoring_draft_show(&r.draft_id).unwrap();
    assert_eq!(d.status, "failed", "what still fails is kept with its reasons");
    let refused = e
        .authoring_accept(&AcceptRequest {
            draft_id: r.draft_id.clone(),
            by: "Dana".into(),
            notes: None,
            item_ids: None,
        })
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ValidationFailed);
    assert!(refused.message.contains("open question"), "{}", refused.message);

    // An open question on a passage outside the extraction is refused too; a proper one passes.
    let outside = json!([unc_card(Some(
        json!({"section_id": "Medicines clause 9", "question": "Does handing over count as giving?"})
    ))]);
    let d = e
        .authoring_draft_edit(&DraftEditRequest {
            draft_id: r.draft_id.clone(),
            by: "Dana".into(),
            json: outside.to_string(),
        })
        .unwrap();
    assert!(d.problems.iter().any(|p| p.pointer == "/x_open_question/section_id"), "{:?}", d.problems);
    let fixed = json!([unc_card(Some(
        json!({"section_id": "Medicines clause 1", "question": "Does handing a medicine to the wrong patient count as giving it when it is not taken?"})
    ))]);
    let d = e
        .authoring_draft_edit(&DraftEditRequest {
            draft_id: r.draft_id.clone(),
            by: "Dana".into(),
            json: fixed.to_string(),
        })
        .unwrap();
    assert_eq!(d.status, "proposed", "{:?}", d.problems);
    assert_eq!(d.edited_by.as_deref(), Some("Dana"));
    let acc = e
        .authoring_accept(&AcceptRequest { draft_id: r.draft_id, by: "Dana".into(), notes: None, item_ids: None })
        .unwrap();
    assert_eq!(acc.cards, vec!["CardUnc_1_Medicines_1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basis_outside_the_extraction_and_overlapping_cards_are_caught_and_a_rejection_keeps_its_reason() {
    let mut a = fall_card(REP, "Reportable", true, "harm_course");
    a["fixed_fields"]["governing_legal_basis"]["value"] = json!(["Falls clause 1", "Falls clause 7"]);
    let mut b = fall_card(NONREP, "Non_Reportable", true, "harm_course");
    b["fixed_fields"]["boundary_conditions"].as_object_mut().unwrap().remove("harm_lasting");
    b["fixed_fields"]["boundary_conditions"]["fall_in_care"]["corresponding_basic_event_elements"] =
        json!(["fall_description", "harm_course"]);
    let bad = rule("bad", sys(DRAFTER), j(json!({"target_clause_id": FALL, "clause_cards": [a, b]})));
    let mock = MockServer::start(mock_script(vec![bad]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, FALL).await;
    let r = e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    let rules: Vec<&str> = r.problems.iter().map(|p| p.rule.as_str()).collect();
    assert!(rules.contains(&"draft-basis-outside-extraction"), "{rules:?}");
    assert!(rules.contains(&"draft-not-exclusive"), "{rules:?}");
    let basis = r.problems.iter().find(|p| p.rule == "draft-basis-outside-extraction").unwrap();
    assert_eq!(basis.pointer, "/fixed_fields/governing_legal_basis/value/1");
    assert!(basis.message.contains("\"Falls clause 7\""));

    let no_reason = RejectRequest { draft_id: r.draft_id.clone(), by: "Dana".into(), reason: "".into() };
    assert_eq!(e.authoring_reject(&no_reason).unwrap_err().code, ErrorCode::InvalidInput);
    let d = e
        .authoring_reject(&RejectRequest { reason: "cites a clause that does not exist".into(), ..no_reason })
        .unwrap();
    assert_eq!(d.status, "rejected");
    assert_eq!(d.decision_notes.as_deref(), Some("cites a clause that does not exist"));
    let again = e
        .authoring_accept(&AcceptRequest { draft_id: r.draft_id, by: "Dana".into(), notes: None, item_ids: None })
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::Conflict);
    assert!(e.card_show(REP, None).is_err(), "nothing entered the library");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_variants_name_a_sibling_and_become_a_new_version_of_the_parent() {
    let variant = |why: &str| {
        json!({"parent_card_id": REP, "missing_information_variants": [{
            "missing_variant_id": "missing_harm_course",
            "summary": "The report describes the fall but not yet how the injury developed.",
            "masked_boundary_conditions": ["harm_lasting"],
            "masked_basic_event_elements": ["harm_course"],
            "why_reasonable_in_real_world": "The first report is written on the day of the fall, before the week has passed.",
            "why_not_classifiable_from_remaining_event_description": why
        }]})
    };
    let rules = vec![
        rule(
            "var2",
            with_sys(attempt(2), VARIANTS),
            j(variant(&format!("The facts also fit {NONREP}, where the harm is gone."))),
        ),
        rule("var1", sys(VARIANTS), j(variant("The outcome is open."))),
        rule("draft", sys(DRAFTER), j(complete_reply("harm_course"))),
    ];
    let mock = MockServer::start(mock_script(rules), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, FALL).await;
    let r = e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    e.authoring_accept(&AcceptRequest { draft_id: r.draft_id, by: "Dana".into(), notes: None, item_ids: None })
        .unwrap();

    let no_parent = e.authoring_draft(&draft_req(FALL, DraftKind::Missing, None)).await.unwrap_err();
    assert!(no_parent.message.contains("--parent"), "{}", no_parent.message);
    let v = e.authoring_draft(&draft_req(FALL, DraftKind::Missing, Some(REP))).await.unwrap();
    assert_eq!((v.attempts, v.cards.clone()), (2, vec!["missing_harm_course".to_string()]));
    let fed_back = user_text(&bodies_by(&mock, "var2")[0]);
    assert!(fed_back.contains("draft-variant-alternative") && fed_back.contains(NONREP), "{fed_back}");
    let diff = e
        .authoring_draft_diff(&psebench::authoring::draft::DraftDiffRequest {
            draft_id: v.draft_id.clone(),
            item_id: "missing_harm_course".into(),
            against: REP.into(),
        })
        .unwrap();
    assert!(diff.lines.iter().any(|l| l.kind == "added" && l.text.contains("missing_harm_course")));
    let acc = e
        .authoring_accept(&AcceptRequest { draft_id: v.draft_id, by: "Dana".into(), notes: None, item_ids: None })
        .unwrap();
    assert_eq!(acc.cards, vec![REP]);
    let parent = e.card_show(REP, None).unwrap();
    assert_eq!((parent.summary.version, parent.summary.variants), (2, 1));
    assert_eq!(parent.summary.status, "draft");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draft_every_clause_is_a_job_that_skips_clauses_without_an_approved_extraction() {
    let mock = MockServer::start(mock_script(vec![rule("draft", sys(DRAFTER), j(complete_reply("harm_course")))]), 0)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, FALL).await;
    let req = DraftAllRequest {
        policy: Some(POLICY.into()),
        model: "author".into(),
        kinds: vec![DraftKind::Complete],
        label: None,
    };
    let plan = e.authoring_draft_all_plan(&req).unwrap();
    assert_eq!((plan.items.len(), plan.to_draft, plan.skipped), (3, 1, 2));
    assert!(plan.items.iter().any(|i| i.clause_id == WRONG && i.state == "no approved extraction"));
    assert!(plan.usd.unwrap() > 0.0 && plan.calls >= 1);
    assert!(!plan.sends_data_off_machine, "the mock is on this machine");
    let run = e.authoring_draft_all_create(&req).unwrap();
    e.authoring_draft_all_execute(&run).await.unwrap();
    let runs = e.authoring_draft_all_list().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].status, runs[0].drafts), (RunStatus::Completed, 1));
    let drafts = e.authoring_drafts(&Default::default()).unwrap();
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0].run_id.as_deref(), Some(run.as_str()));
    // Resuming a finished job drafts nothing again; a new job has nothing to do.
    e.authoring_draft_all_execute(&run).await.unwrap();
    assert_eq!(e.authoring_drafts(&Default::default()).unwrap().len(), 1);
    assert_eq!(e.authoring_draft_all_plan(&req).unwrap().to_draft, 0);
    assert!(e.authoring_draft_all_create(&req).unwrap_err().message.contains("Nothing to draft"));
}

/// The drafting prompt lists the clause's neighbouring clauses from the policy pack, so drafted
/// Non_Reportable and Uncertain cards can say which of their facts rules each one out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drafting_prompt_names_the_clauses_neighbours() {
    const MED: &str = "CareManagement_1_MedicationError";
    let rules = vec![
        rule(
            "extract",
            sys("You help a compliance team build a library"),
            j(
                json!({"relevant_sections": [{"section_id": "General Recommendation 1", "criteria": ["defines_term"], "why": "harm bar"}]}),
            ),
        ),
        rule("check", sys("You review a selection of policy sections"), j(json!({"add": [], "remove": []}))),
        rule("draft", sys(DRAFTER), j(json!({"target_clause_id": MED, "clause_cards": []}))),
    ];
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    let x = e
        .authoring_extract(&ExtractRequest { policy: Some("mn29".into()), clause: MED.into(), model: "author".into() })
        .await
        .unwrap();
    e.authoring_approve(&ApproveRequest {
        extraction_id: x.extraction_id,
        approved_by: "Dana".into(),
        sections: vec!["General Recommendation 1".into()],
        notes: None,
    })
    .unwrap();
    let r = e
        .authoring_draft(&DraftRequest {
            policy: Some("mn29".into()),
            clause: MED.into(),
            kind: DraftKind::Complete,
            parent: None,
            model: "author".into(),
        })
        .await
        .unwrap();
    assert!(r.problems.iter().any(|p| p.rule == "draft-empty"));
    let prompt = user_text(&bodies_by(&mock, "draft")[0]);
    let section = prompt.split("# Neighbouring clauses").nth(1).expect("a neighbours section");
    assert!(section.contains("- Surgical_5_DeathOfHealthyPatient:"), "{section}");
    assert!(section.contains("- ProductOrDevice_2_DeviceMisuseOrMalfunction:"), "{section}");
    // A pack without neighbours says so instead of leaving the section empty.
    let riverland = MockServer::start(mock_script(drafting_rules()), 0).await.unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let e2 = engine_with(dir2.path(), &riverland);
    approve_extraction(&e2, FALL).await;
    e2.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    let prompt = user_text(&bodies_by(&riverland, "draft1")[0]);
    assert!(prompt.contains("# Neighbouring clauses\n(the policy names none for this clause)"), "{prompt}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drafting_on_a_clause_with_cards_asks_only_for_what_they_leave_open() {
    // The first draft (fixed on attempt 2) enters the library: falls in care, with and without
    // lasting harm. Nothing is said yet about falls outside the service's care.
    let mock = MockServer::start(mock_script(drafting_rules()), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, FALL).await;
    let first = e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    let prompt = user_text(&bodies_by(&mock, "draft1")[0]);
    assert!(
        prompt.contains("# What the existing cards leave open\n(no cards yet: the whole clause is open)"),
        "{prompt}"
    );
    e.authoring_accept(&AcceptRequest { draft_id: first.draft_id, by: "Dana".into(), notes: None, item_ids: None })
        .unwrap();

    // The second draft is told the two cards are settled and which combinations no card admits.
    e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    let calls = bodies_by(&mock, "draft1");
    let prompt = user_text(calls.last().expect("a second drafting call"));
    let open = prompt.split("# What the existing cards leave open\n").nth(1).expect("an open-regions section");
    assert!(open.starts_with("2 of 4 combinations of the existing cards' conditions fit no card"), "{open}");
    assert!(open.contains("- fall_in_care = false, harm_lasting = true\n"), "{open}");
    assert!(open.contains("- fall_in_care = false, harm_lasting = false\n"), "{open}");
    assert!(!open.contains("fall_in_care = true"), "covered combinations are not listed: {open}");
    let cards = prompt.split("# Cards this clause already has\n").nth(1).expect("existing cards");
    assert!(cards.contains(REP) && cards.contains(NONREP), "{cards}");
    // The system prompt says existing cards stay as they are.
    let body = calls.last().unwrap().to_string();
    assert!(body.contains("are settled and"), "{body}");
}

/// Honest states (issue 29, item 4): a draft whose replies cannot be read is a failed draft with
/// its reason, with nothing to accept; drafting every clause with such a model finishes with
/// problems that say how many drafts failed and why, while a job whose drafts are fine does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_of_unreadable_replies_fails_with_its_reason_and_a_job_of_them_finishes_with_problems() {
    let prose = psebench::mock::Reply::Text { text: "I would rather not draft cards today.".into() };
    let mock = MockServer::start(mock_script(vec![rule("prose", sys(DRAFTER), prose)]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, FALL).await;

    // One clause: a failed draft with the reason, never waiting for review, and nothing to accept.
    let one = e.authoring_draft(&draft_req(FALL, DraftKind::Complete, None)).await.unwrap();
    let d = e.authoring_draft_show(&one.draft_id).unwrap();
    assert_eq!((d.status.as_str(), d.items.len(), d.attempts), ("failed", 0, 3));
    let reason = psebench::authoring::draft::failed_reason(&d);
    assert!(!reason.is_empty() && reason != "its replies could not be used.", "{reason}");
    let err = e
        .authoring_accept(&AcceptRequest {
            draft_id: d.draft_id.clone(),
            by: "Dana Reviewer".into(),
            item_ids: None,
            notes: None,
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(
        err.message.contains("failed, so it has nothing to accept") && err.message.contains(&reason),
        "{}",
        err.message
    );

    // Every clause: the job went through its one clause, whose draft failed.
    let req = DraftAllRequest {
        policy: Some(POLICY.into()),
        model: "author".into(),
        kinds: vec![DraftKind::Complete],
        label: None,
    };
    e.authoring_reject(&RejectRequest {
        draft_id: d.draft_id.clone(),
        by: "Dana Reviewer".into(),
        reason: "unreadable".into(),
    })
    .unwrap();
    let run = e.authoring_draft_all_create(&req).unwrap();
    e.authoring_draft_all_execute(&run).await.unwrap();
    let listed = e.authoring_draft_all_list().unwrap().remove(0);
    assert_eq!((listed.status, listed.drafts, listed.failed), (RunStatus::Completed, 1, 1));
    let p = listed.problems.expect("a job of failed drafts is not a plain finish");
    assert_eq!((p.unusable, p.finished), (1, 1));
    assert!(
        p.message.starts_with("Finished with problems: 1 of 1 drafts failed — the model's replies could not be read"),
        "{}",
        p.message
    );
    assert_eq!(listed.error.as_deref(), Some(p.message.as_str()), "the job's own message says it too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drafting_every_clause_with_readable_replies_is_not_flagged() {
    let mock = MockServer::start(mock_script(vec![rule("draft", sys(DRAFTER), j(complete_reply("harm_course")))]), 0)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine_with(dir.path(), &mock);
    approve_extraction(&e, FALL).await;
    let req = DraftAllRequest {
        policy: Some(POLICY.into()),
        model: "author".into(),
        kinds: vec![DraftKind::Complete],
        label: None,
    };
    let run = e.authoring_draft_all_create(&req).unwrap();
    e.authoring_draft_all_execute(&run).await.unwrap();
    let listed = e.authoring_draft_all_list().unwrap().remove(0);
    assert_eq!((listed.status, listed.failed, listed.problems, listed.error), (RunStatus::Completed, 0, None, None));
}
