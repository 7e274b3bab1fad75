//! Cases: JSONL round trip, validation on the way in, all-or-nothing import.

use psebench::case::repo::CaseFilter;
use serde_json::{json, Value};

use crate::common::{case, temp_engine, write};

fn lines(vals: &[Value]) -> String {
    vals.iter().map(|v| serde_json::to_string(v).unwrap() + "\n").collect()
}

#[test]
fn round_trip_keeps_fields_and_extras() {
    let (dir, e) = temp_engine();
    let mut missing = case("m1");
    missing["case_type"] = json!("missing");
    missing["missing_variant_id"] = json!("missing_allergy");
    missing["masked_elements"] = json!(["allergy_record"]);
    let mut unc = case("u1");
    unc["case_type"] = json!("uncertain");
    unc["gold_verdict"] = json!("Uncertain");
    unc["gold_clause"] = Value::Null;
    let input = vec![case("c1"), missing, unc];
    let p = write(dir.path(), "cases.jsonl", lines(&input));
    let r = e.cases_import(&p, false, "imported").unwrap();
    assert_eq!(r.imported, 3);
    let out = dir.path().join("out.jsonl");
    assert_eq!(e.cases_export(&out, &CaseFilter::default()).unwrap(), 3);
    let back: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(back, input);
    // same file again: nothing changes
    assert_eq!(e.cases_import(&p, false, "imported").unwrap().unchanged, 3);
}

#[test]
fn invalid_cases_are_refused_with_line_and_field_and_nothing_is_stored() {
    let (dir, e) = temp_engine();
    let checks: Vec<(Value, &str)> = vec![
        (json!({"case_id": "x"}), "cases.jsonl:2: required field \"case_type\" is missing"),
        (
            {
                let mut c = case("b");
                c["gold_verdict"] = json!("reportable");
                c
            },
            "cases.jsonl:2: field \"gold_verdict\": unknown variant `reportable`",
        ),
        (
            {
                let mut c = case("b");
                c["gold_clause"] = Value::Null;
                c
            },
            "gold_clause\" is null but the gold verdict is Reportable",
        ),
        (
            {
                let mut c = case("b");
                c["masked_elements"] = json!(["outcome_type"]);
                c
            },
            "\"masked_elements\" must be empty for a complete case",
        ),
        (
            {
                let mut c = case("b");
                c["clause_id"] = json!("Nope_1");
                c
            },
            "\"clause_id\" \"Nope_1\" is not a clause of policy mn29",
        ),
        (
            {
                let mut c = case("b");
                c["case_type"] = json!("missing");
                c["missing_variant_id"] = json!("missing_x");
                c["masked_elements"] = json!(["nope"]);
                c
            },
            "masked element \"nope\" is not one of the case's \"elements\"",
        ),
        (case("a"), "case id \"a\" was already used on line 1"),
    ];
    for (bad, needle) in checks {
        let p = write(dir.path(), "cases.jsonl", lines(&[case("a"), bad]));
        let err = e.cases_import(&p, false, "imported").unwrap_err();
        assert!(err.message.contains(needle), "{:?} does not contain {needle}", err.message);
        assert!(e.cases_list(&CaseFilter::default()).unwrap().is_empty(), "nothing stored after a failed import");
    }
    let p = write(dir.path(), "cases.jsonl", b"{\"case_id\": \"\xff\"}\n");
    assert!(e.cases_import(&p, false, "imported").unwrap_err().message.contains("cases.jsonl:1:"));
}

#[test]
fn changed_content_needs_replace() {
    let (dir, e) = temp_engine();
    let p = write(dir.path(), "a.jsonl", lines(&[case("a")]));
    e.cases_import(&p, false, "imported").unwrap();
    let mut changed = case("a");
    changed["narrative"] = json!("Different text.");
    let p2 = write(dir.path(), "b.jsonl", lines(&[case("z"), changed]));
    let err = e.cases_import(&p2, false, "imported").unwrap_err();
    assert_eq!(err.code.as_str(), "conflict");
    assert_eq!(e.cases_list(&CaseFilter::default()).unwrap().len(), 1, "case z was not stored either");
    let r = e.cases_import(&p2, true, "imported").unwrap();
    assert_eq!((r.imported, r.replaced), (1, 1));
    assert_eq!(e.case_show("a").unwrap().narrative, "Different text.");
}

#[test]
fn detail_tells_origin_exclusion_and_the_names_of_clause_and_card() {
    let (dir, e) = temp_engine();
    let mut orphan = case("b");
    orphan["clause_card_id"] = json!("CardRep_99_Nowhere");
    let p = write(dir.path(), "cases.jsonl", lines(&[case("a"), orphan]));
    e.cases_import(&p, false, "imported").unwrap();
    let d = e.case_detail("a").unwrap();
    assert_eq!(d.case.case_id, "a");
    assert_eq!(d.meta.origin, "imported");
    assert!(!d.meta.excluded);
    assert_eq!(d.meta.excluded_reason, None);
    assert_eq!(d.clause_label.as_deref(), Some("Care Management Events clause 1"));
    assert!(d.clause_short_title.as_deref().is_some_and(|t| !t.is_empty()));
    assert_eq!(d.card_status.as_deref(), Some("approved"), "the built-in card is in the library");
    assert_eq!(e.case_detail("b").unwrap().card_status, None, "no such card in the library");

    e.case_set_excluded("a", true, Some("duplicate of another case")).unwrap();
    let d = e.case_detail("a").unwrap();
    assert!(d.meta.excluded);
    assert_eq!(d.meta.excluded_reason.as_deref(), Some("duplicate of another case"));
    e.case_set_excluded("a", false, None).unwrap();
    assert!(!e.case_detail("a").unwrap().meta.excluded);

    assert_eq!(e.case_detail("nope").unwrap_err().code.as_str(), "not_found");
}

/// A dataset folder holds the cases split by type, the cards they name and a dataset card whose
/// YAML header lists files, features and counts; reading the files back gives the same cases.
#[test]
fn a_dataset_export_reads_back_as_the_same_cases_with_a_dataset_card() {
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    e.demo_load().unwrap();
    let out = dir.path().join("dataset");
    let filter = psebench::case::repo::CaseFilter { include_excluded: true, ..Default::default() };
    let d = e.cases_export_dataset(&out, &filter).unwrap();
    assert_eq!(d.counts.values().sum::<usize>(), 90);
    assert_eq!(d.counts.keys().map(String::as_str).collect::<Vec<_>>(), vec!["complete", "missing", "uncertain"]);
    let vocab = e.vocab_lookup();
    let stored = e.cases_all(&filter).unwrap();
    for (name, n) in &d.counts {
        let back = psebench::case::io::read_cases(&out.join(format!("data/{name}.jsonl")), &vocab).unwrap();
        assert_eq!(back.len(), *n);
        for c in &back {
            assert_eq!(c.case_type.as_str(), name.as_str());
            assert_eq!(Some(c), stored.iter().find(|s| s.case_id == c.case_id), "{} reads back unchanged", c.case_id);
        }
    }
    // Every card a case names is there (the demo cases' cards are all built in).
    assert!(d.missing_cards.is_empty(), "{:?}", d.missing_cards);
    for c in &stored {
        let text = std::fs::read_to_string(out.join(format!("cards/{}.json", c.clause_card_id))).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        psebench::card::ClauseCard::from_value(&v).unwrap();
    }
    // The dataset card: a YAML header a hub reads (split files and counts), and words for people.
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    let header = readme.strip_prefix("---\n").unwrap().split("\n---\n").next().unwrap();
    for line in [
        "license: \"\"",
        "configs:",
        "  - config_name: default",
        "      - split: missing",
        "        path: data/missing.jsonl",
        "dataset_info:",
        "    - name: narrative",
    ] {
        assert!(header.lines().any(|l| l == line), "header lacks {line:?}:\n{header}");
    }
    for (name, n) in &d.counts {
        assert!(header.contains(&format!("    - name: {name}\n      num_examples: {n}\n")), "{header}");
    }
    assert!(header.contains("  hand_written_cases: 90"), "{header}");
    assert!(readme.contains("| CareManagement_1_MedicationError |"), "cases per clause");
    // Nothing to export is refused plainly.
    let none = psebench::case::repo::CaseFilter { clause_id: Some("Nope".into()), ..Default::default() };
    assert!(e
        .cases_export_dataset(&dir.path().join("empty"), &none)
        .unwrap_err()
        .message
        .contains("nothing to export"));
}

/// A store whose one case names the card "CON" (a name Windows keeps for a device), with that card
/// in the library.
fn store_with_a_con_card() -> (tempfile::TempDir, psebench::api::Engine) {
    let (dir, e) = temp_engine();
    write(dir.path(), "in/CON.json", crate::common::pretty(&crate::common::card("CON")));
    e.cards_import(&[dir.path().join("in")], "mn29", "tester").unwrap();
    let mut c = case("con-case");
    c["clause_card_id"] = json!("CON");
    e.cases_import(&write(dir.path(), "c.jsonl", lines(&[c])), false, "imported").unwrap();
    (dir, e)
}

/// The dataset export names card files as `cards export` does: the card "CON" is `_CON.json` in
/// both, never `CON.json`, which Windows would treat as the console.
#[test]
fn a_dataset_export_names_card_files_as_the_card_export_does() {
    let (dir, e) = store_with_a_con_card();
    let out = dir.path().join("dataset");
    let d = e.cases_export_dataset(&out, &CaseFilter::default()).unwrap();
    assert!(d.files.contains(&"cards/_CON.json".to_string()), "{:?}", d.files);
    assert!(out.join("cards/_CON.json").is_file());
    assert!(!out.join("cards/CON.json").exists());
    e.cards_export(&dir.path().join("cards-out"), &Default::default()).unwrap();
    assert!(dir.path().join("cards-out/CareManagement_1_MedicationError/_CON.json").is_file());
}

/// A dataset folder that is a link, or whose `data` or `cards` folder is one, is refused with a
/// plain sentence and nothing is written where the link points.
#[cfg(unix)]
#[test]
fn a_dataset_export_refuses_linked_folders() {
    let (dir, e) = store_with_a_con_card();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    type Setup = fn(&std::path::Path, &std::path::Path);
    let setups: [(&str, Setup); 3] = [
        ("the folder itself", |out, target| std::os::unix::fs::symlink(target, out).unwrap()),
        ("data", |out, target| {
            std::fs::create_dir_all(out).unwrap();
            std::os::unix::fs::symlink(target, out.join("data")).unwrap();
        }),
        ("cards", |out, target| {
            std::fs::create_dir_all(out).unwrap();
            std::os::unix::fs::symlink(target, out.join("cards")).unwrap();
        }),
    ];
    for (k, (what, setup)) in setups.iter().enumerate() {
        let out = dir.path().join(format!("dataset-{k}"));
        setup(&out, &elsewhere);
        let err = e.cases_export_dataset(&out, &CaseFilter::default()).unwrap_err();
        assert_eq!(err.code.as_str(), "invalid_input", "{what}");
        assert!(err.message.contains("is a link to another place"), "{what}: {}", err.message);
        assert!(err.message.contains("Nothing was written"), "{what}: {}", err.message);
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "{what}: nothing written through the link");
    }
}
