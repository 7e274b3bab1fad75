//! Loyal extraction through the real HTTP client against the loopback mock: a clean extraction
//! whose document is the chosen sections copied byte for byte in source order; a reply naming a
//! section that does not exist, fed back and fixed on attempt 2 (and one that never gets fixed);
//! approval only by a named person; and an approved extraction reaching a generation role's
//! prompt and the judge's clause text.

use psebench::api::Engine;
use psebench::authoring::{ApproveRequest, ExtractRequest, ExtractionFilter};
use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::{MockServer, Rule, Script};
use serde_json::{json, Value};

use super::generation::{bodies_by, j, rule, seq, sys, user_text};

const EXTRACTOR: &str = "You help a compliance team build a library";
const CHECKER: &str = "You review a selection of policy sections";
const MED: &str = "CareManagement_1_MedicationError";
const GR1: &str = "General Recommendation 1";
const GR2: &str = "General Recommendation 2";
const CM5: &str = "Care Management Event Recommendation 5";

fn pick(ids: &[(&str, &[&str])]) -> Value {
    json!({"relevant_sections": ids.iter().map(|(id, c)| json!({"section_id": id, "criteria": c, "why": format!("{id} matters")})).collect::<Vec<_>>()})
}

fn check_rule() -> Rule {
    rule(
        "check",
        sys(CHECKER),
        j(
            json!({"add": [{"section_id": GR2, "reason": "it sets the harm threshold"}, {"section_id": "Nope 1", "reason": "x"}], "remove": []}),
        ),
    )
}

fn clean_rules() -> Vec<Rule> {
    // Listed out of source order on purpose: the document must follow the policy's order.
    vec![
        rule("extract", sys(EXTRACTOR), j(pick(&[(CM5, &["examples"]), (GR1, &["defines_term", "scope"])]))),
        check_rule(),
    ]
}

fn add_model(e: &Engine, mock: &MockServer) {
    e.model_add(&psebench::api::models::ModelAddRequest {
        name: "author".into(),
        kind: "openai-compatible".into(),
        model: "author-id".into(),
        base_url: Some(mock.openai_base()),
        price_in: Some(1.0),
        price_out: Some(2.0),
        ..Default::default()
    })
    .unwrap();
}

fn extract_req(clause: &str) -> ExtractRequest {
    ExtractRequest { policy: Some("mn29".into()), clause: clause.into(), model: "author".into() }
}

async fn extracted_and_approved(e: &Engine, clause: &str) -> psebench::authoring::Extraction {
    let r = e.authoring_extract(&extract_req(clause)).await.unwrap();
    e.authoring_approve(&ApproveRequest {
        extraction_id: r.extraction_id.clone(),
        approved_by: "Dana Reviewer".into(),
        sections: r.sections.iter().map(|s| s.section_id.clone()).collect(),
        notes: None,
    })
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_extraction_copies_sections_whole_and_needs_a_named_approver() {
    let mock = MockServer::start(Script { rules: clean_rules(), ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    add_model(&e, &mock);
    let sections = e.authoring_sections("mn29").unwrap();
    assert_eq!(sections.edition, "summary");

    let r = e.authoring_extract(&extract_req(MED)).await.unwrap();
    assert_eq!(r.clause_id, MED);
    assert_eq!(r.attempts, 1);
    assert!(r.rejected_ids.is_empty());
    assert_eq!(r.sections.iter().map(|s| s.section_id.as_str()).collect::<Vec<_>>(), vec![GR1, CM5], "source order");
    assert_eq!(r.sections[0].criteria, vec!["defines_term", "scope"]);

    let x = e.authoring_extraction_show(&r.extraction_id).unwrap();
    assert_eq!((x.version, x.status.as_str(), x.model.as_str()), (1, "proposed", "author"));
    assert_eq!(x.source_hash, sections.source_hash);
    assert!(x.prompt_versions.contains_key("author_extract") && x.prompt_versions.contains_key("author_extract_check"));
    // Every chosen section is in the document byte for byte, in the policy's order.
    let mut last = 0;
    for id in [GR1, CM5] {
        let s = sections.get(id).unwrap();
        let block = format!("## Section [{id}]\n\n### {}\n\n{}\n", s.heading, s.body);
        let at = x.document.find(&block).unwrap_or_else(|| panic!("{id} not copied whole:\n{}", x.document));
        assert!(at > last, "source order");
        last = at;
    }
    assert!(!x.document.contains(&sections.get(GR2).unwrap().body), "unchosen sections stay out");
    // The independent self-check: its call is stored, its unknown id is set aside with a note.
    assert_eq!(x.self_check.add.len(), 1);
    assert_eq!(x.self_check.add[0].section_id, GR2);
    assert!(x.self_check.notes.iter().any(|n| n.contains("Nope 1")));
    assert_eq!(x.calls.iter().map(|c| c.role.as_str()).collect::<Vec<_>>(), vec!["extractor", "self_check"]);
    assert!(x.calls.iter().all(|c| c.input_tokens > 0 && c.response_text.is_some() && !c.prompt_versions.is_empty()));
    let sent = user_text(&bodies_by(&mock, "extract")[0]);
    assert!(
        sent.contains(&format!("[{GR2}]")) && sent.contains("Medication"),
        "the clause and every section id are shown"
    );

    // No approval without a named person.
    let mut approve = ApproveRequest {
        extraction_id: r.extraction_id.clone(),
        approved_by: "  ".into(),
        sections: vec![GR1.into(), GR2.into()],
        notes: Some("harm threshold matters".into()),
    };
    let err = e.authoring_approve(&approve).unwrap_err();
    assert!(err.message.contains("named person"), "{}", err.message);
    assert_eq!(e.authoring_extraction_show(&r.extraction_id).unwrap().status, "proposed");
    approve.sections.push("Invented 7".into());
    approve.approved_by = "Dana Reviewer".into();
    assert!(e.authoring_approve(&approve).unwrap_err().message.contains("Invented 7"));
    approve.sections.pop();

    // The person drops CM5 and takes the self-check's suggestion.
    let a = e.authoring_approve(&approve).unwrap();
    assert_eq!((a.status.as_str(), a.approved_by.as_deref()), ("approved", Some("Dana Reviewer")));
    assert_eq!(a.sections.iter().map(|s| s.section_id.as_str()).collect::<Vec<_>>(), vec![GR1, GR2]);
    assert_eq!(a.sections[1].added_by.as_deref(), Some("Dana Reviewer"));
    assert!(a.sections[1].why.contains("harm threshold"));
    assert!(a.document.contains(&sections.get(GR2).unwrap().body));
    assert!(!a.document.contains(&sections.get(CM5).unwrap().body));
    assert_eq!(a.proposed.len(), 2, "the model's own choice is kept");
    assert!(e.authoring_approve(&approve).unwrap_err().message.contains("already approved"));

    // A second extraction is the clause's next version.
    let again = e.authoring_extract(&extract_req(MED)).await.unwrap();
    let list = e.authoring_extractions(&ExtractionFilter { policy: None, clause: Some(MED.into()) }).unwrap();
    assert_eq!(list.iter().map(|l| l.version).collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(list[1].extraction_id, again.extraction_id);
    assert!(e.authoring_extract(&extract_req("No_Such_Clause")).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invented_section_id_is_fed_back_and_fixed_on_attempt_two() {
    let bad = pick(&[("General Recommendation 99", &["scope"]), (GR1, &["defines_term", "vibes"])]);
    let good = pick(&[(GR1, &["defines_term"])]);
    let rules = vec![seq("extract", sys(EXTRACTOR), vec![j(bad.clone()), j(good)]), check_rule()];
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    add_model(&e, &mock);

    let r = e.authoring_extract(&extract_req(MED)).await.unwrap();
    assert_eq!(r.attempts, 2);
    assert!(r.rejected_ids.is_empty(), "fixed on attempt 2: {:?}", r.rejected_ids);
    assert_eq!(r.sections.len(), 1);
    let bodies = bodies_by(&mock, "extract");
    assert_eq!(bodies.len(), 2);
    let first = user_text(&bodies[0]);
    let second = user_text(&bodies[1]);
    assert!(!first.contains("could not be used"));
    assert!(second.contains("\"General Recommendation 99\" is not the id of any section"), "{second}");
    assert!(second.contains("\"vibes\" is not a criterion"), "{second}");
    let x = e.authoring_extraction_show(&r.extraction_id).unwrap();
    assert_eq!(x.calls.len(), 3);
    assert!(x.calls[0].parse_notes.iter().any(|n| n.contains("General Recommendation 99")));
    assert!(x.calls[1].prompt_versions.contains_key("author_extract_feedback"));

    // A model that never stops inventing: after three attempts the id is reported, the valid rest kept.
    mock.set_script(Script {
        rules: vec![rule("extract", sys(EXTRACTOR), j(bad)), check_rule()],
        ..Default::default()
    });
    let r = e.authoring_extract(&extract_req(MED)).await.unwrap();
    assert_eq!(r.attempts, 3);
    assert_eq!(r.rejected_ids, vec!["General Recommendation 99"]);
    assert_eq!(r.sections.iter().map(|s| s.section_id.as_str()).collect::<Vec<_>>(), vec![GR1]);
    assert_eq!(r.sections[0].criteria, vec!["defines_term"]);
    assert!(!e.authoring_extraction_show(&r.extraction_id).unwrap().problems.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_extraction_is_the_context_of_generation_roles() {
    use super::generation::{request, script_with, setup, FALL, REP};
    let mut front = clean_rules();
    front[0] = rule("extract", sys(EXTRACTOR), j(pick(&[(CM5, &["scope"])])));
    let mock = MockServer::start(script_with(front), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    add_model(&e, &mock);

    let before = e.generation_plan(&request(REP, 1)).unwrap();
    assert_eq!(before.clause_contexts.len(), 1);
    assert_eq!(before.clause_contexts[0].context, "built-in context, no approved extraction");

    let x = extracted_and_approved(&e, FALL).await;
    let plan = e.generation_plan(&request(REP, 1)).unwrap();
    assert_eq!(plan.clause_contexts[0].clause_id, FALL);
    assert_eq!(plan.clause_contexts[0].context, format!("approved extraction v1 ({})", x.extraction_id));

    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    let cm5 = e.authoring_sections("mn29").unwrap().get(CM5).unwrap().body.clone();
    for role in ["inst-rep", "iver", "narr"] {
        let bodies = bodies_by(&mock, role);
        assert!(!bodies.is_empty(), "{role} was called");
        for b in bodies {
            let u = user_text(&b);
            assert!(u.contains(&x.document), "{role} got the approved extraction:\n{u}");
            assert!(u.contains(&cm5));
            assert!(!u.contains("## Guidance cited by this card"), "{role} got the built-in context instead");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_extraction_is_the_judges_clause_text() {
    let mut s = super::eval::script();
    s.rules.extend(clean_rules());
    let mock = MockServer::start(s, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    super::eval::register(&e, &mock);
    add_model(&e, &mock);
    let file = super::eval::cases_file(&e, dir.path());
    let req = EvaluationRunRequest {
        cases: file.display().to_string(),
        model: "asker".into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        concurrency: 1,
        ..Default::default()
    };
    let plan = e.evaluation_plan(&req).unwrap();
    let med = plan.clause_contexts.iter().find(|c| c.clause_id == MED).unwrap();
    assert_eq!(med.context, "built-in context, no approved extraction");

    let x = extracted_and_approved(&e, MED).await;
    let plan = e.evaluation_plan(&req).unwrap();
    let med = plan.clause_contexts.iter().find(|c| c.clause_id == MED).unwrap();
    assert_eq!(med.extraction_id.as_deref(), Some(x.extraction_id.as_str()));
    assert!(plan.clause_contexts.iter().any(|c| c.extraction_id.is_none()), "other clauses keep the built-in text");

    let run = e.evaluation_create(&req).unwrap();
    let summary = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(summary.status, "completed", "{:?}", summary.message);
    let judged: Vec<String> = bodies_by(&mock, "judge");
    assert!(!judged.is_empty());
    let (mut with, mut without) = (0, 0);
    for b in judged {
        let u = user_text(&b);
        let clause_part = &u[..u.find("<<<BEGIN REASONING>>>").unwrap()];
        if clause_part.contains(&x.document.trim().to_string()) {
            with += 1;
        } else {
            assert!(clause_part.contains("### "), "a clause text is always given: {clause_part}");
            without += 1;
        }
    }
    // Two medication-error cases are judged with the extraction; the other clause's case is not.
    assert!(with >= 1, "the judge saw the approved extraction");
    assert!(with + without >= 2);
}

/// An extraction approved as an older version stored it (without the target clause's own
/// wording): the Instantiator and the judge still get the clause's wording, ahead of the sections.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extraction_without_the_clause_still_gives_its_wording_to_the_instantiator_and_the_judge() {
    use super::generation::{request, script_with, setup, FALL, REP};
    let mut front = clean_rules();
    front[0] = rule("extract", sys(EXTRACTOR), j(pick(&[(CM5, &["scope"])])));
    let mut script = script_with(front);
    script.rules.extend(super::eval::script().rules);
    let mock = MockServer::start(script, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    add_model(&e, &mock);
    super::eval::register(&e, &mock);
    let pack = psebench::policy::builtin_pack("mn29").unwrap();
    let (fall, med) = (pack.clause(FALL).unwrap().clone(), pack.clause(MED).unwrap().clone());

    // A new extraction starts with the clause, copied by code (the model picked one guidance section).
    let x = extracted_and_approved(&e, FALL).await;
    let head = x.document.find(&format!("## Target clause [{}]", fall.label)).expect("the clause leads");
    assert!(head < x.document.find(&fall.summary).unwrap());
    assert!(x.document.find(&fall.summary).unwrap() < x.document.find("## Section [").unwrap());

    // Make both clauses' approved documents look like an older version's: no clause in them.
    let y = extracted_and_approved(&e, MED).await;
    let strip = |doc: &str| {
        let cut = doc.find("\n## Section [").unwrap();
        let start = doc.find("## Target clause").unwrap();
        format!("{}{}", &doc[..start], &doc[cut + 1..])
    };
    for (id, doc) in [(&x.extraction_id, strip(&x.document)), (&y.extraction_id, strip(&y.document))] {
        assert!(!doc.contains("Target clause"));
        e.store()
            .with_conn(|c| c.execute("UPDATE authoring_extractions SET document = ?1 WHERE id = ?2", (&doc, id)))
            .unwrap();
    }

    let run = e.generation_create(&request(REP, 1)).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    let cm5 = e.authoring_sections("mn29").unwrap().get(CM5).unwrap().body.clone();
    let inst = bodies_by(&mock, "inst-rep");
    assert!(!inst.is_empty());
    for b in inst {
        let u = user_text(&b);
        let (clause_at, section_at) = (u.find(&fall.summary).expect("the clause's wording"), u.find(&cm5).unwrap());
        assert!(clause_at < section_at, "the clause comes first");
    }

    let file = super::eval::cases_file(&e, dir.path());
    let req = EvaluationRunRequest {
        cases: file.display().to_string(),
        model: "asker".into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        concurrency: 1,
        ..Default::default()
    };
    let run = e.evaluation_create(&req).unwrap();
    let summary = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(summary.status, "completed", "{:?}", summary.message);
    let with_med: Vec<String> =
        bodies_by(&mock, "judge").iter().map(|b| user_text(b)).filter(|u| u.contains(&cm5)).collect();
    assert!(!with_med.is_empty(), "the medication-error cases were judged with the extraction");
    for u in with_med {
        let clause_part = &u[..u.find("<<<BEGIN REASONING>>>").unwrap()];
        assert!(clause_part.contains(&med.summary), "the judge saw the clause's wording: {clause_part}");
    }
}
