//! Anchors: the built-in samples are there from the start; imports from JSONL, CSV, a .txt folder
//! and uploaded text; duplicates by content; all-or-nothing on bad input; buckets by hand, by an
//! LLM pre-sort (through the mock provider) and translation that keeps the original.

use psebench::anchor::llm::{AnchorPresortRequest, AnchorTranslateRequest};
use psebench::anchor::{AnchorFilter, AnchorImportOptions};
use psebench::api::models::ModelAddRequest;
use psebench::mock::{MockServer, Reply, Rule, Script, When};
use psebench::ErrorCode;
use serde_json::json;

use super::common::{temp_engine, write};

fn count(e: &psebench::api::Engine, f: AnchorFilter) -> usize {
    e.anchors_list(&f).unwrap().len()
}

#[test]
fn the_builtin_samples_are_seeded_once_with_their_buckets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let e = psebench::api::Engine::open(&path).unwrap();
    let shipped: usize =
        psebench::builtin::anchor_files().iter().map(|f| f.text.lines().filter(|l| !l.trim().is_empty()).count()).sum();
    assert!(shipped >= 29 * 25, "{shipped} built-in anchors");
    assert_eq!(count(&e, AnchorFilter { origin: Some("builtin".into()), ..Default::default() }), shipped);
    assert_eq!(count(&e, AnchorFilter { unbucketed_only: true, ..Default::default() }), 0);
    let b = e.anchors_buckets("mn29").unwrap();
    assert_eq!(b.len(), 29, "every clause has a bucket and nothing is unsorted");
    assert!(b.iter().all(|x| x.builtin >= 25), "{b:?}");
    drop(e);
    let e = psebench::api::Engine::open(&path).unwrap();
    assert_eq!(count(&e, AnchorFilter::default()), shipped, "reopening does not duplicate");
    let a = e.anchor_show("syn_Surgical_1_WrongBodyPart_1").unwrap();
    assert_eq!(
        (a.origin.as_str(), a.bucket_origin.as_deref(), a.clause_id.as_deref()),
        ("builtin", Some("builtin"), Some("Surgical_1_WrongBodyPart"))
    );
}

#[test]
fn jsonl_csv_folder_and_uploaded_text_import_with_duplicates_by_content() {
    let (dir, e) = temp_engine();
    let mri = || AnchorFilter { clause_id: Some("Radiologic_1_MetallicObjectInMRIArea".into()), ..Default::default() };
    let mri_builtin = count(&e, mri());
    let builtin_text = e.anchor_show("syn_Environmental_3_Burn_1").unwrap().text;
    let jsonl = format!(
        "{}\n{}\n{}\n",
        json!({"anchor_id": "jq-1", "text": "Patient burned by a warming blanket set too high during surgery.", "source": "JQ 2023", "language": "en", "clause_id": "Environmental_3_Burn"}),
        json!({"anchor_id": "jq-2", "text": "転倒して大腿骨を骨折した。", "source": "JQ 2024", "language": "ja"}),
        // The same text as a built-in sample, with different spacing: a duplicate.
        json!({"anchor_id": "jq-3", "text": format!("  {}  ", builtin_text.replace(' ', "  ")), "source": "JQ 2024"}),
    );
    let r = e.anchors_import(&write(dir.path(), "jq.jsonl", &jsonl), &AnchorImportOptions::default()).unwrap();
    assert_eq!(r.added, vec!["jq-1", "jq-2"]);
    assert_eq!(r.duplicates.len(), 1);
    assert_eq!(
        (r.duplicates[0].anchor_id.as_str(), r.duplicates[0].duplicate_of.as_str()),
        ("jq-3", "syn_Environmental_3_Burn_1")
    );
    assert_eq!(r.unbucketed, 1);
    let a = e.anchor_show("jq-1").unwrap();
    assert_eq!(
        (a.origin.as_str(), a.bucket_origin.as_deref(), a.source.as_str()),
        ("imported", Some("file"), "JQ 2023")
    );

    let csv = "anchor_id,text,source,language,clause_id\ncsv-1,\"Pump programmed at 10x the ordered rate, caught after 20 minutes\",local RL,en,CareManagement_1_MedicationError\ncsv-2,\"Second report, no bucket\",,,\n";
    let r = e.anchors_import(&write(dir.path(), "a.csv", csv), &AnchorImportOptions::default()).unwrap();
    assert_eq!(r.added, vec!["csv-1", "csv-2"]);
    assert!(
        r.notes.iter().any(|n| n.contains("no source")) && r.notes.iter().any(|n| n.contains("English")),
        "{:?}",
        r.notes
    );
    assert_eq!(e.anchor_show("csv-2").unwrap().source, "a.csv");

    let folder = dir.path().join("reports");
    write(&folder, "r-001.txt", "Visitor found the MRI door open and walked in with an oxygen cylinder.");
    write(&folder, "r-002.txt", "Oxygen cylinder pulled into the magnet bore during a scan.");
    write(&folder, "notes.md", "ignored");
    let opts = AnchorImportOptions {
        clause_id: Some("Radiologic_1_MetallicObjectInMRIArea".into()),
        source: Some("our RL system".into()),
        language: Some("en".into()),
        policy: None,
    };
    let r = e.anchors_import(&folder, &opts).unwrap();
    assert_eq!(r.added, vec!["r-001", "r-002"]);
    let a = e.anchor_show("r-002").unwrap();
    assert_eq!(
        (a.clause_id.as_deref(), a.bucket_origin.as_deref(), a.source.as_str()),
        (Some("Radiologic_1_MetallicObjectInMRIArea"), Some("manual"), "our RL system")
    );

    let r = e
        .anchors_import_text(
            "upload.jsonl",
            "{\"text\": \"Uploaded from the app: patient left the ward unnoticed at night.\"}\n",
            &AnchorImportOptions::default(),
        )
        .unwrap();
    assert_eq!(r.added, vec!["upload_1"], "an anchor without an id is named after the file and line");

    assert_eq!(count(&e, AnchorFilter { origin: Some("imported".into()), ..Default::default() }), 7);
    assert_eq!(count(&e, mri()), mri_builtin + 2, "two imported anchors went into the MRI bucket");
    assert_eq!(count(&e, AnchorFilter { unbucketed_only: true, ..Default::default() }), 3);

    // Text search: every word must occur (any case) in the text, the original, the id or the source.
    let search = |s: &str, clause: Option<&str>| -> Vec<String> {
        let f = AnchorFilter { search: Some(s.into()), clause_id: clause.map(str::to_string), ..Default::default() };
        e.anchors_list(&f).unwrap().into_iter().map(|a| a.anchor_id).collect()
    };
    assert_eq!(search("UNNOTICED uploaded", None), vec!["upload_1"]);
    assert_eq!(search("unnoticed oxygen", None), Vec::<String>::new(), "all words must match");
    assert_eq!(search("csv-1", None), vec!["csv-1"], "ids are searched");
    assert_eq!(
        search("cylinder", Some("Radiologic_1_MetallicObjectInMRIArea")).iter().filter(|i| i.starts_with("r-")).count(),
        2
    );
    assert_eq!(search("   ", None).len(), count(&e, AnchorFilter::default()), "blank search filters nothing");
}

#[test]
fn bad_input_imports_nothing_and_says_where_the_problems_are() {
    let (dir, e) = temp_engine();
    let before = count(&e, AnchorFilter::default());
    let bad = format!(
        "{}\n{}\n{}\n",
        json!({"anchor_id": "ok-1", "text": "A perfectly good incident text."}),
        json!({"anchor_id": "bad-1", "text": "Another text.", "clause_id": "Surgical_9_Nothing"}),
        json!({"anchor_id": "syn_Surgical_1_WrongBodyPart_1", "text": "A new text under an id that is taken."}),
    );
    let err = e.anchors_import(&write(dir.path(), "bad.jsonl", &bad), &AnchorImportOptions::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.contains("2 problem(s)") && err.message.contains("no anchor was imported"), "{}", err.message);
    let detail = err.detail.unwrap();
    assert!(detail.contains("bad.jsonl:2") && detail.contains("Surgical_9_Nothing"), "{detail}");
    assert!(detail.contains("bad.jsonl:3") && detail.contains("already stored"), "{detail}");
    assert_eq!(count(&e, AnchorFilter::default()), before, "all or nothing");
    let err = e
        .anchors_import(
            &write(dir.path(), "x.jsonl", "{\"anchor_id\": \"a\"}\nnot json\n"),
            &AnchorImportOptions::default(),
        )
        .unwrap_err();
    assert!(err.detail.unwrap().contains("x.jsonl:2"));
    let err = e.anchors_import(&dir.path().join("missing.jsonl"), &AnchorImportOptions::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = e.anchors_import_text("report.docx", "x", &AnchorImportOptions::default()).unwrap_err();
    assert!(err.message.contains(".jsonl, .csv or .txt"));
    let err = e
        .anchors_import_text(
            "a.jsonl",
            "{\"text\": \"x y\"}",
            &AnchorImportOptions { clause_id: Some("Nope".into()), ..Default::default() },
        )
        .unwrap_err();
    assert!(err.message.contains("not a clause id"));
    assert_eq!(count(&e, AnchorFilter::default()), before);
}

#[test]
fn buckets_by_hand_and_removal() {
    let (_dir, e) = temp_engine();
    e.anchors_import_text(
        "a.txt",
        "Patient found with a stage 4 sacral ulcer on day 9.",
        &AnchorImportOptions::default(),
    )
    .unwrap();
    let a = e.anchor_set_bucket("a", Some("CareManagement_5_PressureUlcerStage3Stage4Unstageable")).unwrap();
    assert_eq!(a.bucket_origin.as_deref(), Some("manual"));
    assert!(e.anchor_set_bucket("a", Some("NotAClause")).is_err());
    let a = e.anchor_set_bucket("a", None).unwrap();
    assert_eq!((a.clause_id, a.bucket_origin), (None, None));
    assert_eq!(e.anchors_remove(&["a".to_string()]).unwrap(), 1);
    assert_eq!(e.anchor_show("a").unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(e.anchors_remove(&["a".to_string()]).unwrap_err().code, ErrorCode::NotFound);
}

fn rule(when: When, reply: serde_json::Value) -> Rule {
    Rule {
        name: None,
        when,
        reply: Some(Reply::Json { json: reply }),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presort_and_translation_through_a_model() {
    let script = Script {
        rules: vec![
            rule(
                When {
                    system_contains: Some("You sort short healthcare incident texts".into()),
                    last_user_contains: Some("MRI".into()),
                    ..Default::default()
                },
                json!({"clause_id": "Radiologic_1_MetallicObjectInMRIArea", "reason": "metal object in the MRI suite"}),
            ),
            rule(
                When { system_contains: Some("You sort short healthcare incident texts".into()), ..Default::default() },
                json!({"clause_id": "none", "reason": "no topic fits"}),
            ),
            rule(
                When {
                    system_contains: Some("You translate healthcare incident reports".into()),
                    ..Default::default()
                },
                json!({"translation": "The patient fell and broke the femur."}),
            ),
        ],
        ..Default::default()
    };
    let mock = MockServer::start(script, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    e.model_add(&ModelAddRequest {
        name: "sorter".into(),
        kind: "openai-compatible".into(),
        model: "s".into(),
        base_url: Some(mock.openai_base()),
        ..Default::default()
    })
    .unwrap();
    let text = "{\"anchor_id\": \"m1\", \"text\": \"Wheelchair taken into the MRI room.\"}\n{\"anchor_id\": \"m2\", \"text\": \"Cafeteria ran out of soup.\"}\n{\"anchor_id\": \"m3\", \"text\": \"MRI: oxygen tank near the scanner.\"}\n{\"anchor_id\": \"j1\", \"text\": \"転倒して大腿骨を骨折した。\", \"language\": \"ja\"}\n";
    e.anchors_import_text("new.jsonl", text, &AnchorImportOptions::default()).unwrap();
    e.anchor_set_bucket("m3", Some("Environmental_2_WrongOrContaminatedGas")).unwrap();
    let r = e
        .anchors_presort(&AnchorPresortRequest {
            model: "sorter".into(),
            only_unbucketed: false,
            anchor_ids: vec!["m1".into(), "m2".into(), "m3".into()],
            policy: None,
            concurrency: Some(2),
        })
        .await
        .unwrap();
    assert_eq!((r.processed, r.changed, r.failed), (3, 1, 0));
    let m1 = e.anchor_show("m1").unwrap();
    assert_eq!(
        (m1.clause_id.as_deref(), m1.bucket_origin.as_deref(), m1.bucket_note.as_deref()),
        (Some("Radiologic_1_MetallicObjectInMRIArea"), Some("presort"), Some("metal object in the MRI suite"))
    );
    assert_eq!(e.anchor_show("m2").unwrap().clause_id, None, "\"none\" leaves the anchor unsorted");
    assert_eq!(r.items.iter().find(|i| i.anchor_id == "m3").unwrap().outcome, "kept_manual");
    assert_eq!(
        e.anchor_show("m3").unwrap().clause_id.as_deref(),
        Some("Environmental_2_WrongOrContaminatedGas"),
        "a person's bucket wins"
    );
    // Only unbucketed anchors by default; the clause list and the text reached the model.
    let req = mock.requests().into_iter().find(|x| x.body.to_string().contains("Wheelchair")).unwrap();
    assert!(
        req.body.to_string().contains("Surgical_1_WrongBodyPart")
            && req.body["response_format"]["type"] == "json_schema"
    );

    let t = e
        .anchors_translate(&AnchorTranslateRequest { model: "sorter".into(), anchor_ids: vec![], concurrency: None })
        .await
        .unwrap();
    assert_eq!((t.processed, t.changed), (1, 1), "only the Japanese anchor needed translating");
    let j1 = e.anchor_show("j1").unwrap();
    assert_eq!((j1.text.as_str(), j1.language.as_str()), ("The patient fell and broke the femur.", "en"));
    assert_eq!(
        (j1.original_text.as_deref(), j1.original_language.as_deref(), j1.translated_by.as_deref()),
        (Some("転倒して大腿骨を骨折した。"), Some("ja"), Some("sorter"))
    );
    let again = e
        .anchors_translate(&AnchorTranslateRequest { model: "sorter".into(), anchor_ids: vec![], concurrency: None })
        .await
        .unwrap_err();
    assert!(again.message.contains("No anchor needs"));
}

/// Anchor ids follow the id rule of every other id: `../x`, `a/b` and `.hidden` are refused in a
/// JSONL or CSV file (with the reason and line, nothing imported), a `.txt` file whose name starts
/// with a dot is refused with a sentence saying how to rename it, a file name with other letters
/// gives an id of the allowed characters, and the APIs that take an anchor id refuse such ids.
#[test]
fn anchor_ids_follow_the_engine_id_rule_on_import_and_in_every_api() {
    let (dir, e) = temp_engine();
    let before = count(&e, AnchorFilter::default());
    let jsonl: String = ["../x", "a/b", ".hidden", "ok-1"]
        .iter()
        .enumerate()
        .map(|(i, id)| json!({"anchor_id": id, "text": format!("Report number {i} about a fall.")}).to_string() + "\n")
        .collect();
    let err = e.anchors_import(&write(dir.path(), "ids.jsonl", &jsonl), &AnchorImportOptions::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.contains("3 problem(s) found, so no anchor was imported"), "{}", err.message);
    let detail = err.detail.clone().unwrap_or_default();
    assert!(detail.contains("ids.jsonl:1: the anchor id \"../x\" contains a path separator ('/')"), "{detail}");
    assert!(detail.contains("ids.jsonl:2: the anchor id \"a/b\" contains a path separator ('/')"), "{detail}");
    assert!(
        detail.contains("ids.jsonl:3: the anchor id \".hidden\" starts with a dot, which is not allowed"),
        "{detail}"
    );

    let csv = "anchor_id,text\na\\b,\"A report, with a comma\"\n";
    let err = e.anchors_import(&write(dir.path(), "ids.csv", csv), &AnchorImportOptions::default()).unwrap_err();
    assert!(err.message.contains("the anchor id \"a\\b\" contains a path separator ('\\')"), "{}", err.message);

    let folder = dir.path().join("reports");
    write(&folder, "fine.txt", "A visitor slipped on a wet floor in the lobby.");
    write(&folder, ".hidden.txt", "A hidden report about a burn.");
    let err = e.anchors_import(&folder, &AnchorImportOptions::default()).unwrap_err();
    assert!(err.message.contains(".hidden.txt: the file name starts with a dot (a hidden file)"), "{}", err.message);
    assert!(
        err.message.contains("rename it (for example to \"hidden.txt\") or move it out of the folder"),
        "{}",
        err.message
    );
    let err =
        e.anchors_import_text(".hidden.txt", "Uploaded hidden report.", &AnchorImportOptions::default()).unwrap_err();
    assert!(err.message.contains("starts with a dot"), "{}", err.message);
    assert_eq!(count(&e, AnchorFilter::default()), before, "nothing was imported");

    // A file name in another alphabet gives an id of the allowed characters.
    let r = e
        .anchors_import(&write(dir.path(), "Übelkeit nach Gabe.txt", "Nausea after the dose."), &Default::default())
        .unwrap();
    assert_eq!(r.added, vec!["_belkeit_nach_Gabe"]);

    // Every API that takes an anchor id.
    for bad in ["../x", "a/b", ".hidden"] {
        let err = e.anchor_show(bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{bad}");
        assert!(err.message.starts_with(&format!("The anchor id \"{bad}\"")), "{}", err.message);
        assert!(err.message.ends_with('.'), "{}", err.message);
        assert_eq!(e.anchor_set_bucket(bad, None).unwrap_err().code, ErrorCode::InvalidInput, "{bad}");
        assert_eq!(e.anchors_remove(&[bad.to_string()]).unwrap_err().code, ErrorCode::InvalidInput, "{bad}");
    }
    // A well-formed id that is not stored is still "not found".
    assert_eq!(e.anchor_show("no-such-anchor").unwrap_err().code, ErrorCode::NotFound);
}
