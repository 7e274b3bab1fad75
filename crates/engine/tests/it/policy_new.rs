//! A policy pack written by a user, end to end through the mock provider: created with three
//! clauses and guidance Markdown, given hand-written cards and anchors, used to generate cases and
//! to evaluate a model. Every prompt carries the new policy and nothing of the built-in pack.

use psebench::anchor::AnchorImportOptions;
use psebench::api::cards::CardAuditRequest;
use psebench::api::models::ModelAddRequest;
use psebench::api::policy::{NewClause, NewPolicy};
use psebench::card::AuditStatus;
use psebench::evaluation::EvaluationRunRequest;
use psebench::generation::GenerationRequest;
use psebench::mock::{MockServer, Reply, Script, When};
use psebench::ErrorCode;
use serde_json::{json, Value};

use super::generation::{rule, sys};

pub const POLICY: &str = "riverland-ae";
pub const CARD: &str = "CardRep_1_Falls_1";
pub const FALL: &str = "RL_Falls_1_LastingHarm";

fn clause(id: &str, label: &str, category: &str, text: &str) -> NewClause {
    NewClause {
        clause_id: id.into(),
        label: label.into(),
        category: category.into(),
        text: text.into(),
        short_title: String::new(),
    }
}

pub fn new_policy() -> NewPolicy {
    NewPolicy {
        id: POLICY.into(),
        name: "Riverland adverse event rule".into(),
        jurisdiction: "Riverland Health Authority".into(),
        reporting_deadline: "within 10 working days of discovery".into(),
        statute: String::new(),
        clauses: vec![
            clause(FALL, "Falls clause 1", "Falls", "A patient falls while in the care of the service and is left with harm lasting beyond a week."),
            clause("RL_Meds_1_WrongPatient", "Medicines clause 1", "Medicines", "A medicine meant for one patient is given to another."),
            clause("RL_Meds_2_TenfoldDose", "Medicines clause 2", "Medicines", "A dose ten times or more the prescribed dose reaches the patient."),
        ],
        guidance_markdown: "# Lasting harm\nHarm counts as lasting when it still limits the patient after seven days.\n\n# Care of the service\nAny time the patient is on the premises or with staff off site.\n".into(),
    }
}

fn card() -> Value {
    json!({
      "clause_card_id": CARD,
      "clause_card_definition": "A patient falls while in the service's care and still has harm from it a week later.",
      "clause_id": FALL,
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "A fall in care with harm lasting beyond a week.", "value": ["Falls clause 1", "Lasting harm"]},
        "boundary_conditions": {
          "test_fall_in_care": {"value": true, "meaning": "The patient fell while in the service's care.", "corresponding_basic_event_elements": ["fall_description"]},
          "test_harm_lasting": {"value": true, "meaning": "The harm from the fall still limited the patient after seven days.", "corresponding_basic_event_elements": ["harm_course"]}
        }
      },
      "basic_event_elements": {
        "fall_description": {"field_type": "string", "meaning": "How, where and when the patient fell.", "allowed_content": "concrete circumstances", "disallowed_content": "verdict words"},
        "harm_course": {"field_type": "string", "meaning": "The harm the fall caused and how it developed over the following days.", "allowed_content": "concrete course", "disallowed_content": "verdict words"}
      },
      "constraints_on_basic_event_elements_instantiation": [
        "No slot value and no sentence of the narrative may contain the words \"reportable\" or \"non-reportable\" or the phrase \"should be reported\"."
      ]
    })
}

fn slots() -> Value {
    json!({"slot_values": {
        "fall_description": "Slipped on a wet floor in the day room at 10:15 while walking to lunch with a stick",
        "harm_course": "Wrist fracture set in plaster; on day nine she still could not dress herself without help"
    }})
}

pub fn script() -> Script {
    let narrative = "Day room, 10:15. She slipped on a wet floor on her way to lunch, walking with her stick, and broke her wrist; it was set in plaster. On day nine she still could not dress herself without help.";
    let answer = json!({
        "action": "ANSWER", "ask_question": null, "final_verdict": "Reportable",
        "targeted_clause": "Falls clause 1",
        "clause_and_guidance_evidence": ["Falls clause 1", "Lasting harm"],
        "rationale": "A fall in care whose harm still limited her after a week."
    });
    Script {
        rules: vec![
            rule("inst", sys("You fill in the facts of one synthetic"), Reply::Json { json: slots() }),
            rule("iver", sys("You are a strict reviewer"), Reply::Json { json: json!({"pass": true, "issues": []}) }),
            rule(
                "narr",
                sys("You write the free-text description"),
                Reply::Json { json: json!({"event_narrative": narrative}) },
            ),
            rule("extr", sys("You read a description of a healthcare event"), Reply::Json { json: slots() }),
            rule(
                "nver",
                sys("You check whether a written event description"),
                Reply::Json { json: json!({"pass": true, "issues": []}) },
            ),
            // The clause screen finds the fall clause met, as the Reportable card requires.
            rule(
                "screen",
                sys("You screen one event's facts against every clause"),
                Reply::Json {
                    json: json!({"clauses_met": [{"clause_id": FALL, "why": "a fall in care with harm lasting past a week"}],
                                 "open_question": {"present": false, "section_id": null, "why": null},
                                 "verdict": "Reportable"}),
                },
            ),
            rule(
                "judge",
                When {
                    system_contains: Some("You review the written reasoning".into()),
                    last_user_regex: Some("- name: (\\w+)".into()),
                    ..Default::default()
                },
                Reply::Json { json: json!({"hits": ["{{1}}"], "explanations": {"{{1}}": "engaged"}}) },
            ),
            rule(
                "info",
                sys("look-up service"),
                Reply::Json {
                    json: json!({"status": "unknown", "answer_to_eval": "Not recorded.", "fields_used": []}),
                },
            ),
            rule("eval", When { model: Some("triager-id".into()), ..Default::default() }, Reply::Json { json: answer }),
        ],
        ..Default::default()
    }
}

pub fn bodies(mock: &MockServer, rule: &str) -> Vec<String> {
    mock.requests().into_iter().filter(|r| r.rule.as_deref() == Some(rule)).map(|r| r.body.to_string()).collect()
}

fn assert_new_policy_only(role: &str, bodies: &[String]) {
    assert!(!bodies.is_empty(), "{role}: no request was made");
    for b in bodies {
        assert!(!b.contains("Minnesota") && !b.contains("MN29"), "{role} prompt mentions the built-in pack: {b}");
        assert!(!b.contains("Care Management Events clause"), "{role} prompt carries a built-in clause: {b}");
    }
}

#[test]
fn a_new_policy_is_checked_listed_shown_and_deleted_only_while_unused() {
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    let r = e.policy_create(&new_policy()).unwrap();
    assert_eq!(r.clauses.len(), 3);
    assert_eq!(r.guidance_sections, ["Lasting harm", "Care of the service"]);
    let listed = e.policies_list().unwrap();
    let mine = listed.iter().find(|p| p.id == POLICY).unwrap();
    assert!(!mine.builtin && mine.clauses == 3 && mine.guidance_sections == 2);
    assert!(listed.iter().any(|p| p.id == psebench::policy::DEFAULT_POLICY && p.builtin));
    let v = e.policy_show(POLICY).unwrap();
    assert_eq!(v.jurisdiction, "Riverland Health Authority");
    assert_eq!(v.reporting_deadline, "within 10 working days of discovery");
    assert_eq!(v.clauses[2].local_no, 2, "numbered within its category");
    assert_eq!(v.guidance[0].summary, "Harm counts as lasting when it still limits the patient after seven days.");

    // The same id again, a built-in clause id, and no clauses: refused, naming the field.
    let again = e.policy_create(&new_policy()).unwrap_err();
    assert_eq!(again.code, ErrorCode::InvalidInput);
    assert!(again.message.contains("- id:") && again.message.contains("already"), "{}", again.message);
    let mut clash = new_policy();
    clash.id = "other".into();
    clash.clauses[0].clause_id = e.policy_show(psebench::policy::DEFAULT_POLICY).unwrap().clauses[0].clause_id.clone();
    let err = e.policy_create(&clash).unwrap_err();
    assert!(err.message.contains("clauses[0].clause_id"), "{}", err.message);
    assert!(err.detail.unwrap().contains("\"field\":\"clauses[0].clause_id\""));
    let mut empty = new_policy();
    empty.id = "empty".into();
    empty.clauses.clear();
    assert!(e.policy_create(&empty).unwrap_err().message.contains("at least one clause"));

    // A built-in pack cannot go; a user pack with a card cannot go; without cards it can.
    assert_eq!(e.policy_delete(psebench::policy::DEFAULT_POLICY).unwrap_err().code, ErrorCode::Conflict);
    let cards = dir.path().join("cards");
    std::fs::create_dir_all(&cards).unwrap();
    std::fs::write(cards.join("c.json"), serde_json::to_string_pretty(&card()).unwrap()).unwrap();
    let imp = e.cards_import(&[cards], POLICY, "tester").unwrap();
    assert_eq!(imp.added.len(), 1, "{:?}", imp.lint);
    let used = e.policy_delete(POLICY).unwrap_err();
    assert!(used.message.contains("used by 1 card and"), "{}", used.message);
    let mut spare = new_policy();
    spare.id = "spare".into();
    for (i, c) in spare.clauses.iter_mut().enumerate() {
        c.clause_id = format!("Spare_{i}");
    }
    e.policy_create(&spare).unwrap();
    assert!(e.policy_delete("spare").unwrap().deleted);
    assert_eq!(e.policy_show("spare").unwrap_err().code, ErrorCode::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cases_generated_and_evaluated_under_a_new_policy_use_only_its_clauses() {
    let mock = MockServer::start(script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    for name in ["writer", "checker", "triager", "info", "judge"] {
        e.model_add(&ModelAddRequest {
            name: name.into(),
            kind: "openai-compatible".into(),
            model: format!("{name}-id"),
            base_url: Some(mock.openai_base()),
            ..Default::default()
        })
        .unwrap();
    }
    e.policy_create(&new_policy()).unwrap();

    let cards = dir.path().join("cards");
    std::fs::create_dir_all(&cards).unwrap();
    std::fs::write(cards.join("c.json"), serde_json::to_string_pretty(&card()).unwrap()).unwrap();
    let imp = e.cards_import(&[cards], POLICY, "tester").unwrap();
    assert_eq!(imp.added.len(), 1, "{:?}", imp.lint);
    e.card_audit(&CardAuditRequest {
        card_id: CARD.into(),
        status: AuditStatus::Approved,
        auditor: "tester".into(),
        notes: None,
    })
    .unwrap();

    let anchors = format!(
        "{}\n{}\n",
        json!({"anchor_id": "rl-1", "text": "Resident found on the floor of the day room after lunch.", "source": "Riverland notes"}),
        json!({"anchor_id": "rl-2", "text": "Patient slipped near the sink while washing in the morning.", "source": "Riverland notes"}),
    );
    let path = dir.path().join("anchors.jsonl");
    std::fs::write(&path, anchors).unwrap();
    let opts = AnchorImportOptions { clause_id: Some(FALL.into()), policy: Some(POLICY.into()), ..Default::default() };
    assert_eq!(e.anchors_import(&path, &opts).unwrap().added.len(), 2);

    let req = GenerationRequest {
        policy: POLICY.into(),
        cards: "all".into(),
        anchors_per_card: 2,
        model: "writer".into(),
        verifier_model: Some("checker".into()),
        seed: 3,
        concurrency: 2,
        ..Default::default()
    };
    let plan = e.generation_plan(&req).unwrap();
    assert_eq!((plan.cards, plan.units), (1, 2), "{:?}", plan.warnings);
    let run = e.generation_create(&req).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert_eq!(s.counts.accepted, 2);

    let inst = bodies(&mock, "inst");
    assert!(inst.iter().all(|b| b.contains("Riverland adverse event rule")), "the background names the new policy");
    assert!(inst.iter().all(|b| b.contains("left with harm lasting beyond a week")), "the clause text is the context");
    for role in ["inst", "iver", "narr", "extr", "nver"] {
        assert_new_policy_only(role, &bodies(&mock, role));
    }

    let cases = e.cases_all(&Default::default()).unwrap();
    assert_eq!(cases.len(), 2);
    assert!(cases.iter().all(|c| c.policy == POLICY && c.clause_id == FALL));
    assert_eq!(cases[0].gold_clause.as_deref(), Some("Falls clause 1"));

    let eval = EvaluationRunRequest {
        cases: "all".into(),
        model: "triager".into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        turns: 4,
        concurrency: 2,
        ..Default::default()
    };
    let run = e.evaluation_create(&eval).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert_eq!(s.counts.done, 2);
    let ask = bodies(&mock, "eval");
    // The two cases tell the same story, so the second call may be answered from the reply cache.
    assert!(!ask.is_empty());
    for b in &ask {
        for label in
            ["Falls clause 1", "Medicines clause 1", "Medicines clause 2", "Lasting harm", "Care of the service"]
        {
            assert!(b.contains(label), "the evaluated model's prompt lacks {label}");
        }
        assert!(b.contains("A dose ten times or more the prescribed dose"));
        assert!(b.contains("The clauses as written for this policy"), "no summary-edition note for a user pack");
    }
    assert_new_policy_only("evaluated model", &ask);
    for t in e.evaluation_trajectories(&run).unwrap() {
        assert_eq!(t.predicted_verdict().map(|v| v.as_str()), Some("Reportable"));
        assert_eq!(t.judge.as_ref().unwrap().hits.len(), 1, "the judge saw the card's conditions");
    }
    assert_new_policy_only("judge", &bodies(&mock, "judge"));
    assert_eq!(e.policy_delete(POLICY).unwrap_err().code, ErrorCode::Conflict, "cards and cases use it");
}
