//! Card import (all or nothing), bad input, versions, audit, export round trip.

use psebench::api::cards::{CardAuditRequest, CardFilter, CardSaveRequest};
use psebench::card::AuditStatus;
use serde_json::{json, Value};

use crate::common::{card, pretty, temp_engine, write};

fn stored_ids(e: &psebench::api::Engine) -> Vec<String> {
    e.cards_list(&CardFilter::default()).unwrap().into_iter().map(|c| c.card_id).collect()
}

#[test]
fn import_from_folder_and_jsonl_then_export_round_trips() {
    let (dir, e) = temp_engine();
    write(dir.path(), "in/a/CardX_1.json", pretty(&card("CardX_1")));
    let mut second = card("CardX_2");
    second["fixed_fields"]["boundary_conditions"]["allergy_known_before_dose"]["value"] = json!(false);
    second["event_type"] = json!("Non_Reportable");
    // a Non_Reportable card says what rules out each neighbouring clause of its clause
    second["x_ruled_out"] = json!({
        "ProductOrDevice_2_DeviceMisuseOrMalfunction": "The drug was given by hand; no device was involved.",
        "Surgical_5_DeathOfHealthyPatient": "No procedure was under way."
    });
    write(dir.path(), "in/cards.jsonl", format!("{}\n\n", serde_json::to_string(&second).unwrap()));
    let r = e.cards_import(&[dir.path().join("in")], "mn29", "tester").unwrap();
    assert_eq!(r.added, vec!["CardX_1", "CardX_2"]);
    assert_eq!(r.lint.errors, 0);

    let out = dir.path().join("out");
    let n = e
        .cards_export(
            &out,
            &CardFilter { clause: Some("CareManagement_1_MedicationError".into()), ..Default::default() },
        )
        .unwrap();
    assert!(n >= 2);
    let text = std::fs::read_to_string(out.join("CareManagement_1_MedicationError/CardX_1.json")).unwrap();
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back, card("CardX_1"));
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        serde_json::to_string(&card("CardX_1")).unwrap(),
        "key order kept"
    );

    let jl = dir.path().join("all.jsonl");
    e.cards_export(&jl, &CardFilter::default()).unwrap();
    let lines = std::fs::read_to_string(&jl).unwrap();
    assert!(lines.lines().any(|l| serde_json::from_str::<Value>(l).unwrap() == second));

    // importing the same files again changes nothing
    let again = e.cards_import(&[dir.path().join("in")], "mn29", "tester").unwrap();
    assert_eq!(again.unchanged.len(), 2);
}

#[test]
fn a_bad_file_anywhere_imports_nothing() {
    let (dir, e) = temp_engine();
    let before = stored_ids(&e);
    write(dir.path(), "in/good.json", pretty(&card("CardGood_1")));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("in/bad.json", b"{\n  \"clause_card_id\": \"x\",\n}".to_vec(), "bad.json:3:1: not valid JSON"),
        ("in/bad.json", b"{\"clause_card_id\": \"caf\xe9\"}".to_vec(), "bad.json:1:24: the file is not UTF-8"),
    ];
    for (name, bytes, needle) in cases {
        let p = write(dir.path(), name, &bytes);
        let err = e.cards_import(&[dir.path().join("in")], "mn29", "t").unwrap_err();
        assert!(err.message.contains(needle), "{} does not mention {needle}", err.message);
        assert_eq!(stored_ids(&e), before);
        std::fs::remove_file(p).unwrap();
    }
    // schema violation: unknown field in a strict place, wrong type
    let mut bad = card("CardBad_1");
    bad["basic_event_elements"]["outcome_type"]["colour"] = json!("red");
    write(dir.path(), "in/bad.json", pretty(&bad));
    let err = e.cards_import(&[dir.path().join("in")], "mn29", "t").unwrap_err();
    assert_eq!(err.code.as_str(), "validation_failed");
    assert!(
        err.message.contains("bad.json")
            && err.message.contains("/basic_event_elements/outcome_type")
            && err.message.contains("\"colour\""),
        "{}",
        err.message
    );
    assert_eq!(stored_ids(&e), before);
    // duplicate ids across files
    write(dir.path(), "in/bad.json", pretty(&card("CardGood_1")));
    let err = e.cards_import(&[dir.path().join("in")], "mn29", "t").unwrap_err();
    assert!(err.message.contains("already used"), "{}", err.message);
    assert_eq!(stored_ids(&e), before);
}

#[test]
fn a_100_megabyte_file_is_refused_with_its_name() {
    let (dir, e) = temp_engine();
    let p = dir.path().join("huge.json");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(100 * 1024 * 1024).unwrap();
    let err = e.cards_import(std::slice::from_ref(&p), "mn29", "t").unwrap_err();
    assert!(err.message.contains("huge.json") && err.message.contains("100.0 MB"), "{}", err.message);
    let report = e.cards_lint_paths(&[p], "mn29").unwrap();
    assert_eq!(report.problems[0].rule, "parse");
}

#[test]
fn edits_make_versions_and_audit_is_recorded() {
    let (dir, e) = temp_engine();
    let mut c = card("CardEdit_1");
    c["basic_event_elements"]["unused_slot"] =
        json!({"field_type": "string", "meaning": "m", "allowed_content": "a", "disallowed_content": "d"});
    write(dir.path(), "c.json", pretty(&c));
    let r = e.cards_import(&[dir.path().join("c.json")], "mn29", "importer").unwrap();
    assert_eq!(r.lint.errors, 1, "imported with a lint error, to fix in the app");
    // approval is refused while lint errors remain
    let err = e
        .card_audit(&CardAuditRequest {
            card_id: "CardEdit_1".into(),
            status: AuditStatus::Approved,
            auditor: "Dr. A".into(),
            notes: None,
        })
        .unwrap_err();
    assert_eq!(err.code.as_str(), "conflict");
    // a schema-breaking edit is refused and stores nothing
    let err = e
        .card_save(&CardSaveRequest {
            card_id: "CardEdit_1".into(),
            json: "{\"clause_card_id\": \"CardEdit_1\"}".into(),
            author: "A".into(),
            note: None,
            base_version: None,
        })
        .unwrap_err();
    assert_eq!(err.code.as_str(), "validation_failed");
    assert_eq!(e.card_show("CardEdit_1", None).unwrap().summary.version, 1);
    // fix it
    c["basic_event_elements"].as_object_mut().unwrap().shift_remove("unused_slot");
    let d = e
        .card_save(&CardSaveRequest {
            card_id: "CardEdit_1".into(),
            json: pretty(&c),
            author: "Dr. A".into(),
            note: Some("drop unused".into()),
            base_version: None,
        })
        .unwrap();
    assert_eq!(d.summary.version, 2);
    assert_eq!(d.summary.lint_errors, 0);
    assert_eq!(d.summary.status, "draft");
    let d = e
        .card_audit(&CardAuditRequest {
            card_id: "CardEdit_1".into(),
            status: AuditStatus::Approved,
            auditor: "Dr. A".into(),
            notes: Some("checked".into()),
        })
        .unwrap();
    assert_eq!(d.summary.status, "approved");
    assert_eq!(d.summary.auditor.as_deref(), Some("Dr. A"));
    assert_eq!(d.audit_log[0].notes.as_deref(), Some("checked"));
    assert_eq!(d.versions.len(), 2);
    // the old version is kept and the diff shows the removed slot
    let v1 = e.card_show("CardEdit_1", Some(1)).unwrap();
    assert!(v1.card["basic_event_elements"].get("unused_slot").is_some());
    let diff = e.card_diff("CardEdit_1", 1, 2).unwrap();
    assert!(diff.lines.iter().any(|l| l.kind == "removed" && l.text.contains("unused_slot")));
    // editing again resets the status to draft
    c["clause_card_definition"] = json!("Changed wording.");
    let d = e
        .card_save(&CardSaveRequest {
            card_id: "CardEdit_1".into(),
            json: pretty(&c),
            author: "B".into(),
            note: None,
            base_version: None,
        })
        .unwrap();
    assert_eq!((d.summary.version, d.summary.status.as_str()), (3, "draft"));
}

#[test]
fn editing_a_builtin_card_keeps_the_original_version() {
    let (_dir, e) = temp_engine();
    let list = e.cards_list(&CardFilter::default()).unwrap();
    let Some(first) = list.first() else { return };
    assert_eq!(first.status, "approved");
    assert_eq!(first.auditor.as_deref(), Some(psebench::api::BUILTIN_AUDITOR));
    let detail = e.card_show(&first.card_id, None).unwrap();
    let mut v = detail.card.clone();
    v["clause_card_definition"] = json!("Local wording.");
    let d = e
        .card_save(&CardSaveRequest {
            card_id: first.card_id.clone(),
            json: pretty(&v),
            author: "Local QA".into(),
            note: None,
            base_version: None,
        })
        .unwrap();
    assert_eq!(d.summary.origin, "edited");
    assert_eq!(d.summary.version, 2);
    assert_eq!(e.card_show(&first.card_id, Some(1)).unwrap().card, detail.card);
}

#[test]
fn the_list_searches_ids_and_definitions_and_export_follows_the_search() {
    let (dir, e) = temp_engine();
    let all = e.cards_list(&CardFilter::default()).unwrap().len();
    let search = |q: &str| e.cards_list(&CardFilter { search: Some(q.into()), ..Default::default() }).unwrap();
    // Every word must occur, in any case, in the id or the definition.
    let hits = search("cardrep_1_caremanagement_1");
    assert!(hits.iter().any(|c| c.card_id == "CardRep_1_CareManagement_1"), "id match ignores case");
    assert!(hits.len() < all);
    let allergy = search("ALLERGY");
    assert!(
        !allergy.is_empty()
            && allergy.iter().all(
                |c| c.definition.to_lowercase().contains("allergy") || c.card_id.to_lowercase().contains("allergy")
            )
    );
    assert!(search("allergy zzzz-no-such-word").is_empty(), "all words must occur");
    assert_eq!(search("   ").len(), all, "blank search matches everything");
    // Combined with another filter.
    let f = CardFilter { search: Some("allergy".into()), event_type: Some("Reportable".into()), ..Default::default() };
    let both = e.cards_list(&f).unwrap();
    assert!(both.iter().all(|c| c.event_type == "Reportable"));
    let out = dir.path().join("found.jsonl");
    assert_eq!(e.cards_export(&out, &f).unwrap(), both.len());
}

#[test]
fn a_card_id_that_is_a_path_is_refused_with_its_file_and_line() {
    let (dir, e) = temp_engine();
    let lines = [card("CardRep_9_Ok_1").to_string(), card("../../outside/x").to_string()];
    let file = write(dir.path(), "in/cards.jsonl", lines.join("\n") + "\n");
    let before = stored_ids(&e);
    let err = e.cards_import(&[dir.path().join("in")], "mn29", "t").unwrap_err();
    let expected = format!("{}:2: the card id \"../../outside/x\"", file.display());
    assert!(err.message.contains(&expected), "{}", err.message);
    assert_eq!(stored_ids(&e), before, "nothing was imported");
}

/// Issue 28: the coverage report of every clause, from the stored library or from card files.
#[test]
fn coverage_reports_each_clause_from_the_store_or_from_files() {
    let (dir, e) = temp_engine();
    let all = e.cards_coverage("mn29", None, &[]).unwrap();
    assert_eq!(all.len(), 29, "one report per clause");
    for c in &all {
        assert!(!c.report.cards.is_empty(), "{} has cards", c.clause_id);
        assert!(c.report.covered <= c.report.combinations, "{c:?}");
    }
    let fall = e.cards_coverage("mn29", Some("CareManagement_7_Fall"), &[]).unwrap();
    assert_eq!(fall.len(), 1);
    assert_eq!(fall[0].label, "Care Management Events clause 7");
    // The same clause read from the built-in files gives the same report.
    let folder = dir.path().join("fall");
    std::fs::create_dir_all(&folder).unwrap();
    for f in psebench::builtin::library_card_files("mn29").iter().filter(|f| f.path.contains("/CareManagement_7_Fall/"))
    {
        let name = f.path.rsplit('/').next().unwrap();
        std::fs::write(folder.join(name), f.text).unwrap();
    }
    let from_files = e.cards_coverage("mn29", Some("CareManagement_7_Fall"), std::slice::from_ref(&folder)).unwrap();
    assert_eq!(from_files, fall);
    // Only one card: more combinations go uncovered, and the gaps list them.
    let one = folder.read_dir().unwrap().next().unwrap().unwrap().path();
    let single = e.cards_coverage("mn29", Some("CareManagement_7_Fall"), &[one]).unwrap();
    assert_eq!(single[0].report.cards.len(), 1);
    assert!(single[0].report.covered < fall[0].report.covered || fall[0].report.cards.len() == 1);
    assert!(!single[0].report.gaps.is_empty());
    let err = e.cards_coverage("mn29", Some("NoSuchClause"), &[]).unwrap_err();
    assert_eq!(err.code, psebench::ErrorCode::NotFound);
    assert!(err.message.contains("NoSuchClause"), "{}", err.message);
}

#[test]
fn a_save_that_started_from_an_older_version_is_refused() {
    let (_dir, e) = temp_engine();
    let list = e.cards_list(&CardFilter::default()).unwrap();
    let Some(first) = list.first() else { return };
    let detail = e.card_show(&first.card_id, None).unwrap();
    let save = |definition: &str, base: Option<i64>| {
        let mut v = detail.card.clone();
        v["clause_card_definition"] = json!(definition);
        e.card_save(&CardSaveRequest {
            card_id: first.card_id.clone(),
            json: pretty(&v),
            author: "Local QA".into(),
            note: None,
            base_version: base,
        })
    };
    // Someone else saves first, from version 1.
    assert_eq!(save("Their wording.", Some(1)).unwrap().summary.version, 2);
    // A second edit that also started from version 1 is refused and stores nothing.
    let err = save("My wording.", Some(1)).unwrap_err();
    assert_eq!(err.code.as_str(), "conflict");
    assert!(err.message.contains("version 2 has been saved since"), "{}", err.message);
    let now = e.card_show(&first.card_id, None).unwrap();
    assert_eq!(now.summary.version, 2);
    assert_eq!(now.card["clause_card_definition"], json!("Their wording."));
    // Started from the newer version (or without saying), it is saved.
    assert_eq!(save("My wording.", Some(2)).unwrap().summary.version, 3);
}
