//! The label audit through the loopback mock: stored cases screened against the whole policy by two
//! models, one agreeing with every label and one disputing some; results, filters, CSV export and
//! resuming an audit that was stopped.

use psebench::api::models::ModelAddRequest;
use psebench::api::Engine;
use psebench::label_audit::{LabelAuditRequest, LabelAuditResultsRequest};
use psebench::mock::{MockServer, Reply, Rule, Script, When};
use serde_json::{json, Value};

use super::generation::{j, rule};

const FALL: &str = "CareManagement_7_Fall";
const BURN: &str = "Environmental_3_Burn";
const SCREEN: &str = "You screen one event's facts against every clause";

fn case(id: &str, case_type: &str, verdict: &str, fact: &str) -> Value {
    json!({
      "case_id": id, "case_type": case_type, "policy": "mn29", "clause_id": FALL,
      "clause_card_id": format!("CardAudit_{id}"), "missing_variant_id": null, "gold_verdict": verdict,
      "gold_clause": if verdict == "Reportable" { json!("Care Management Events clause 7") } else { Value::Null },
      "gold_legal_basis": ["Care Management Events clause 7"], "boundary_conditions": [],
      "elements": [{"name": "fall_description", "meaning": "How, where and when the patient fell.", "value": fact}],
      "masked_elements": [], "narrative": format!("Ward notes. {fact}"), "anchor_id": null
    })
}

fn cases() -> Vec<Value> {
    vec![
        case("r1", "complete", "Reportable", "FACT-REP found on the floor with a hip fracture"),
        case(
            "n1",
            "complete",
            "Non-reportable",
            "FACT-NON1 slipped but was caught by a nurse; a burn from a hot pack was noticed",
        ),
        case("n2", "complete", "Non-reportable", "FACT-NON2 sat down on the floor unhurt"),
        case(
            "u1",
            "uncertain",
            "Uncertain",
            "FACT-UNC lowered to the floor by two aides; a fracture was found next day",
        ),
    ]
}

fn met(clauses: &[&str]) -> Value {
    json!({
        "clauses_met": clauses.iter().map(|c| json!({"clause_id": c, "why": "its elements are in the facts"})).collect::<Vec<_>>(),
        "open_question": {"present": false, "section_id": null, "why": null},
        "verdict": if clauses.is_empty() { "Non-reportable" } else { "Reportable" }
    })
}

fn open() -> Value {
    json!({"clauses_met": [], "open_question": {"present": true, "section_id": "Care Management Event Recommendation 5", "why": "lowering by staff"}, "verdict": "Uncertain"})
}

fn when(model: Option<&str>, marker: &str) -> When {
    When {
        model: model.map(str::to_string),
        system_contains: Some(SCREEN.into()),
        last_user_contains: Some(marker.into()),
        ..Default::default()
    }
}

/// `strict` agrees with every label; `loose` finds the burn clause met in n1 and the fall clause
/// met in u1.
pub fn audit_rules() -> Vec<Rule> {
    vec![
        rule("loose-n1", when(Some("loose-id"), "FACT-NON1"), j(met(&[BURN]))),
        rule("loose-u1", when(Some("loose-id"), "FACT-UNC"), j(met(&[FALL]))),
        rule("rep", when(None, "FACT-REP"), j(met(&[FALL]))),
        rule("non", when(None, "FACT-NON"), j(met(&[]))),
        rule("unc", when(None, "FACT-UNC"), j(open())),
    ]
}

pub fn setup(dir: &std::path::Path, mock: &MockServer) -> Engine {
    let e = super::eval::engine(dir);
    for name in ["strict", "loose"] {
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
    let p = dir.join("audit.jsonl");
    let text: String = cases().iter().map(|c| format!("{c}\n")).collect();
    std::fs::write(&p, text).unwrap();
    let r = e.cases_import(&p, false, "imported").unwrap();
    assert_eq!(r.imported, 4);
    e
}

fn req(cases: &str) -> LabelAuditRequest {
    LabelAuditRequest { cases: cases.into(), models: vec!["strict".into(), "loose".into()], label: None }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_models_that_disagree_dispute_some_labels() {
    let mock = MockServer::start(Script { rules: audit_rules(), ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);

    let plan = e.label_audit_plan(&req("all")).unwrap();
    assert_eq!((plan.cases, plan.calls), (4, 8));
    assert!(plan.tokens > 0 && plan.usd.unwrap() > 0.0 && !plan.sends_data_off_machine);
    assert_eq!(plan.destinations.iter().map(|d| d.model.as_str()).collect::<Vec<_>>(), vec!["strict", "loose"]);
    assert_eq!(mock.request_count(), 0, "planning sends nothing");

    let run = e.label_audit_create(&req("all")).unwrap();
    let report = e.label_audit_execute(&run).await.unwrap();
    assert_eq!((report.screened, report.agree), (4, 2));
    let v = serde_json::to_value(&report).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    // The report's shape stays `screened, agree, disputed` when all went well: `problems` appears
    // only with a warning.
    assert_eq!(keys, vec!["screened", "agree", "disputed"], "an audit of readable screens is no warning");
    assert_eq!(
        v["disputed"],
        json!([
            {"case_id": "n1", "label": "Non-reportable", "verdicts": {
                "strict": {"verdict": "Non-reportable", "clauses_met": [], "open_question": false, "agrees": true},
                "loose": {"verdict": "Reportable", "clauses_met": [BURN], "open_question": false, "agrees": false}}},
            {"case_id": "u1", "label": "Uncertain", "verdicts": {
                "strict": {"verdict": "Uncertain", "clauses_met": [], "open_question": true, "agrees": true},
                "loose": {"verdict": "Reportable", "clauses_met": [FALL], "open_question": false, "agrees": false}}}
        ]),
        "one of two models disagreeing is a tie, and ties count as disputed"
    );
    // The screen never sees the label.
    let body = mock.requests().into_iter().find(|r| r.rule.as_deref() == Some("loose-n1")).unwrap().body;
    let user = body["messages"][1]["content"].as_str().unwrap_or_default().to_string();
    assert!(user.contains("FACT-NON1") && user.contains(BURN), "{user}");
    assert!(!user.contains("Non-reportable") && !user.contains("CardAudit_n1"), "{user}");

    let all = e.label_audit_results(&LabelAuditResultsRequest::default()).unwrap();
    assert_eq!(all.run_id, run, "the latest audit when none is named");
    assert_eq!(all.rows.len(), 4);
    assert_eq!(all.rows.iter().filter(|r| r.disputed).count(), 2);
    assert!(all.tie_rule.contains("tie"));
    let only = e
        .label_audit_results(&LabelAuditResultsRequest {
            run_id: Some(run.clone()),
            disputed_only: Some(true),
            clause: None,
        })
        .unwrap();
    assert_eq!(only.rows.iter().map(|r| r.case_id.as_str()).collect::<Vec<_>>(), vec!["n1", "u1"]);
    let other_clause =
        e.label_audit_results(&LabelAuditResultsRequest { clause: Some(BURN.into()), ..Default::default() }).unwrap();
    assert_eq!(other_clause.screened, 0);

    let csv = e.label_audit_csv(&run).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "case_id,label,clause_id,disputed,strict verdict,strict clauses_met,strict open_question,strict agrees,loose verdict,loose clauses_met,loose open_question,loose agrees");
    assert!(
        lines.contains(
            &format!("n1,Non-reportable,{FALL},true,Non-reportable,,false,true,Reportable,{BURN},false,false").as_str()
        ),
        "{csv}"
    );

    let runs = e.label_audit_list().unwrap();
    assert_eq!((runs.len(), runs[0].screened, runs[0].disputed, runs[0].status.as_str()), (1, 4, 2, "completed"));

    // Filters: a type, and case ids.
    assert_eq!(e.label_audit_plan(&req("type:Non-reportable")).unwrap().cases, 2);
    assert_eq!(e.label_audit_plan(&req("r1,u1")).unwrap().cases, 2);
    assert_eq!(e.label_audit_plan(&req(FALL)).unwrap().cases, 4);
    assert_eq!(e.label_audit_plan(&req("nope")).unwrap_err().code, psebench::ErrorCode::NotFound);
    assert!(e.label_audit_plan(&req("type:maybe")).unwrap_err().message.contains("type:Reportable"));
    let none = LabelAuditRequest { models: vec![], ..req("all") };
    assert!(e.label_audit_plan(&none).is_err());

    // A stored value that no longer reads is an error naming where it is, not an empty answer.
    e.store()
        .with_conn(|c| {
            c.execute(
                "UPDATE label_audit_results SET conflicts_json = '[oops' WHERE case_id = 'n1' AND model = 'loose'",
                [],
            )
        })
        .unwrap();
    let err = e.label_audit_csv(&run).unwrap_err();
    assert!(
        err.message.contains("table label_audit_results, column conflicts_json")
            && err.message.contains(&format!("{run}, case n1, model loose")),
        "{}",
        err.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_that_failed_resumes_where_it_stopped_and_unreadable_replies_are_kept() {
    let mut flaky = rule("loose-n2-flaky", when(Some("loose-id"), "FACT-NON2"), j(met(&[])));
    flaky.fail_first = vec![psebench::mock::Fault::BadRequest];
    let mut rules =
        vec![flaky, rule("garbled", when(Some("loose-id"), "FACT-REP"), Reply::Text { text: "no idea".into() })];
    rules.extend(audit_rules());
    let mock = MockServer::start(Script { rules, ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let run = e.label_audit_create(&req("r1,n2")).unwrap();
    e.label_audit_execute(&run).await.unwrap();
    let first = e.label_audit_list().unwrap().remove(0);
    assert_eq!(first.status.as_str(), "failed");
    assert!(first.error.as_deref().unwrap().contains("Model loose failed on case n2"), "{:?}", first.error);
    assert!(first.screened < 2);

    let report = e.label_audit_execute(&run).await.unwrap();
    assert_eq!(report.screened, 2);
    let answered =
        |rule: &str| mock.requests().iter().filter(|r| r.rule.as_deref() == Some(rule) && r.outcome == "ok").count();
    assert_eq!(answered("loose-n2-flaky"), 1);
    assert_eq!(answered("non"), 1, "strict screened n2 once, before the failure");
    // Three tries per screen (a screen interrupted by the failure is asked again in full on resume).
    assert!(mock.requests().iter().filter(|r| r.rule.as_deref() == Some("garbled")).count() >= 3);
    let r =
        e.label_audit_results(&LabelAuditResultsRequest { run_id: Some(run.clone()), ..Default::default() }).unwrap();
    assert_eq!(r.status.as_str(), "completed");
    let r1 = r.rows.iter().find(|x| x.case_id == "r1").unwrap();
    assert_eq!(r1.verdicts["loose"].verdict, None);
    assert!(!r1.disputed, "an unreadable reply is no evidence against the label");
    // Running a finished audit again sends nothing.
    let before = mock.request_count();
    e.label_audit_execute(&run).await.unwrap();
    assert_eq!(mock.request_count(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_methods_work_through_the_rpc_surface() {
    use psebench::api::rpc::{call, Caller};
    let mock = MockServer::start(Script { rules: audit_rules(), ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);
    let owner = Caller::Owner;
    let params = json!({"cases": "all", "models": ["strict", "loose"]});
    let plan = call(&e, &owner, "label_audit.plan", params.clone()).await.unwrap();
    for k in ["cases", "calls", "tokens", "usd", "destinations", "sends_data_off_machine"] {
        assert!(plan.get(k).is_some(), "the plan has {k}: {plan}");
    }
    let mut progress = e.jobs().subscribe();
    let started = call(&e, &owner, "label_audit.start", params).await.unwrap();
    let run = started["run_id"].as_str().unwrap().to_string();
    assert!(run.starts_with("audit-"));
    let last = loop {
        let p = tokio::time::timeout(std::time::Duration::from_secs(30), progress.recv()).await.unwrap().unwrap();
        if p.run_id == run && p.status.as_str() != "running" {
            break p;
        }
    };
    assert_eq!(last.status.as_str(), "completed");
    assert_eq!((last.counter("screened"), last.counter("agree"), last.counter("disputed")), (4.0, 2.0, 2.0));
    assert!(last.counters.contains_key("cost_usd"));

    let r = call(&e, &owner, "label_audit.results", json!({"disputed_only": true})).await.unwrap();
    assert_eq!(r["run_id"], json!(run));
    assert_eq!((r["screened"].clone(), r["agree"].clone()), (json!(2), json!(0)));
    let row = &r["rows"][0];
    for k in ["case_id", "label", "clause_id", "verdicts", "disputed"] {
        assert!(row.get(k).is_some(), "a row has {k}: {row}");
    }
    let runs = call(&e, &owner, "label_audit.list", json!({})).await.unwrap();
    assert_eq!(runs[0]["run_id"], json!(run));
    let d = call(&e, &owner, "label_audit.export", json!({"run_id": run})).await.unwrap();
    assert_eq!(d["file_name"], json!(format!("label-audit-{run}.csv")));
    let resumed = call(&e, &owner, "label_audit.resume", json!({"run_id": run})).await.unwrap();
    assert_eq!(resumed["run_id"], json!(run));
    let cancelled = call(&e, &owner, "label_audit.cancel", json!({"run_id": run})).await.unwrap();
    assert!(cancelled["value"].is_boolean());
    let wrong = call(&e, &owner, "label_audit.cancel", json!({"run_id": "nope"})).await.unwrap_err();
    assert_eq!(wrong.code, psebench::ErrorCode::NotFound);
}
