//! Anchor pre-sort and translation as resumable jobs, through the mock provider over real HTTP:
//! a job over the built-in samples publishes progress; a job stopped halfway and resumed sends
//! each anchor once; translation keeps the originals; a failing model leaves the anchors pending
//! with their error, and a resume finishes them.

use psebench::anchor::job::{AnchorJobKind, AnchorJobRequest};
use psebench::anchor::llm::AnchorPresortRequest;
use psebench::anchor::{AnchorFilter, AnchorImportOptions};
use psebench::api::models::ModelAddRequest;
use psebench::api::Engine;
use psebench::jobs::{Progress, RunStatus};
use psebench::mock::{MockServer, Reply, Rule, Script, When};
use serde_json::json;
use std::sync::{Arc, Mutex};

const FALL: &str = "CareManagement_7_Fall";

fn sorter_script(latency_ms: u64) -> Script {
    let rule = |when: When, reply: serde_json::Value| Rule {
        name: None,
        when,
        reply: Some(Reply::Json { json: reply }),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    };
    Script {
        latency_ms,
        rules: vec![
            rule(
                When { system_contains: Some("You sort short healthcare incident texts".into()), ..Default::default() },
                json!({"clause_id": FALL, "reason": "a fall"}),
            ),
            rule(
                When {
                    system_contains: Some("You translate healthcare incident reports".into()),
                    ..Default::default()
                },
                json!({"translation": "English text."}),
            ),
        ],
        ..Default::default()
    }
}

async fn setup(script: Script) -> (tempfile::TempDir, Engine, MockServer) {
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
    (dir, e, mock)
}

fn presort(ids: &[String], concurrency: u32) -> AnchorJobRequest {
    AnchorJobRequest {
        kind: AnchorJobKind::Presort,
        model: "sorter".into(),
        policy: None,
        anchor_ids: ids.to_vec(),
        only_unbucketed: false,
        concurrency: Some(concurrency),
        batch: false,
        label: None,
    }
}

/// Every progress event of one run, collected in the background.
fn collect(e: &Engine, run_id: &str) -> Arc<Mutex<Vec<Progress>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (mut rx, id, out) = (e.jobs().subscribe(), run_id.to_string(), seen.clone());
    tokio::spawn(async move {
        while let Ok(p) = rx.recv().await {
            if p.run_id == id {
                out.lock().unwrap().push(p);
            }
        }
    });
    seen
}

fn builtin_ids(e: &Engine) -> Vec<String> {
    e.anchors_list(&AnchorFilter { origin: Some("builtin".into()), ..Default::default() })
        .unwrap()
        .into_iter()
        .map(|a| a.anchor_id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_presort_job_over_the_builtin_anchors_reports_progress_and_its_outcomes() {
    let (_dir, e, mock) = setup(sorter_script(0)).await;
    let ids = builtin_ids(&e);
    let n = ids.len();
    assert!(n >= 29 * 25, "{n} built-in anchors");
    let plan = e.anchor_job_plan(&presort(&[], 8)).unwrap();
    assert_eq!((plan.anchors, plan.calls, plan.kept_manual, plan.sends_data_off_machine), (n, n as u64, 0, false));
    assert!(plan.input_tokens > n as u64 * 100 && plan.usd == Some(0.0), "{plan:?}");
    assert_eq!(mock.request_count(), 0, "planning sends nothing");

    let run_id = e.anchor_job_create(&presort(&[], 8)).unwrap();
    assert!(run_id.starts_with("anchors-"), "{run_id}");
    let seen = collect(&e, &run_id);
    e.anchor_job_execute(&run_id).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;

    let events = seen.lock().unwrap().clone();
    let last = events.last().unwrap();
    assert_eq!((last.status, last.done, last.total), (RunStatus::Completed, n as u64, n as u64));
    assert!(
        events.iter().any(|p| p.done > 0 && p.done < n as u64 && p.status == RunStatus::Running),
        "progress along the way"
    );
    assert_eq!(last.counter("changed") + last.counter("unchanged"), n as f64);
    assert_eq!(mock.request_count(), n as u64);

    let view = e.anchor_job_show(&run_id).unwrap();
    assert_eq!((view.status, view.total, view.done, view.pending), (RunStatus::Completed, n as u32, n as u32, 0));
    assert_eq!((view.result.processed, view.result.failed), (n as u32, 0));
    assert!(view
        .result
        .items
        .iter()
        .all(|i| i.clause_id.as_deref() == Some(FALL) && i.note.as_deref() == Some("a fall")));
    assert_eq!(e.anchor_show(&ids[0]).unwrap().bucket_origin.as_deref(), Some("presort"));
    let listed = e.anchor_job_list().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].run_id.as_str(), listed[0].kind, listed[0].done),
        (run_id.as_str(), AnchorJobKind::Presort, n as u32)
    );
    assert!(listed[0].result.items.is_empty(), "the list leaves the per-anchor outcomes out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_stopped_halfway_resumes_with_only_the_anchors_not_done() {
    let (_dir, e, mock) = setup(sorter_script(150)).await;
    let ids: Vec<String> = builtin_ids(&e).into_iter().take(12).collect();
    let run_id = e.anchor_job_create(&presort(&ids, 2)).unwrap();
    let mut rx = e.jobs().subscribe();
    let (e2, id2) = (e.clone(), run_id.clone());
    let stopper = tokio::spawn(async move {
        while let Ok(p) = rx.recv().await {
            if p.run_id == id2 && p.done >= 4 {
                assert!(e2.anchor_job_cancel(&id2).unwrap(), "the job runs in this process");
                return;
            }
        }
    });
    e.anchor_job_execute(&run_id).await.unwrap();
    stopper.await.unwrap();

    let first = e.anchor_job_show(&run_id).unwrap();
    assert_eq!(first.status, RunStatus::Cancelled);
    assert!(first.done >= 4 && first.done < 12, "stopped halfway: {} done", first.done);
    assert_eq!(first.done + first.pending, 12);
    assert_eq!(mock.request_count(), first.done as u64, "the anchors in flight finished and were kept");
    assert!(first.error.unwrap().contains("Resume to do the rest"));

    e.anchor_job_execute(&run_id).await.unwrap();
    let second = e.anchor_job_show(&run_id).unwrap();
    assert_eq!((second.status, second.done, second.pending), (RunStatus::Completed, 12, 0));
    assert_eq!(mock.request_count(), 12, "each anchor was sent once in all");
    let mut sent: Vec<String> = mock
        .requests()
        .iter()
        .map(|r| {
            ids.iter().find(|id| r.body.to_string().contains(&e.anchor_show(id).unwrap().text[..40])).unwrap().clone()
        })
        .collect();
    sent.sort();
    sent.dedup();
    assert_eq!(sent.len(), 12, "no anchor was sent twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_translation_job_keeps_the_originals() {
    let (_dir, e, _mock) = setup(sorter_script(0)).await;
    let text = "{\"anchor_id\": \"j1\", \"text\": \"転倒して骨折した。\", \"language\": \"ja\"}\n{\"anchor_id\": \"d1\", \"text\": \"Der Patient ist gestürzt.\", \"language\": \"de\"}\n{\"anchor_id\": \"e1\", \"text\": \"Already English.\"}\n";
    e.anchors_import_text("t.jsonl", text, &AnchorImportOptions::default()).unwrap();
    let req = AnchorJobRequest { kind: AnchorJobKind::Translate, ..presort(&[], 2) };
    assert_eq!(e.anchor_job_plan(&req).unwrap().anchors, 2, "only anchors not in English");
    let run_id = e.anchor_job_create(&req).unwrap();
    e.anchor_job_execute(&run_id).await.unwrap();
    let view = e.anchor_job_show(&run_id).unwrap();
    assert_eq!((view.status, view.kind, view.result.changed), (RunStatus::Completed, AnchorJobKind::Translate, 2));
    for (id, original, lang) in [("j1", "転倒して骨折した。", "ja"), ("d1", "Der Patient ist gestürzt.", "de")]
    {
        let a = e.anchor_show(id).unwrap();
        assert_eq!(
            (a.text.as_str(), a.language.as_str(), a.original_text.as_deref(), a.original_language.as_deref()),
            ("English text.", "en", Some(original), Some(lang))
        );
    }
    assert_eq!(e.anchor_show("e1").unwrap().original_text, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_model_leaves_the_anchors_pending_with_their_error() {
    // No rule answers: every request is refused (HTTP 400).
    let (_dir, e, mock) = setup(Script::default()).await;
    let text = "{\"anchor_id\": \"u1\", \"text\": \"A patient slipped in the corridor.\"}\n{\"anchor_id\": \"u2\", \"text\": \"A visitor fell on the stairs.\"}\n{\"anchor_id\": \"u3\", \"text\": \"A nurse found the patient on the floor.\"}\n";
    e.anchors_import_text("u.jsonl", text, &AnchorImportOptions::default()).unwrap();
    // The waiting call reports failed anchors among its outcomes, as before jobs.
    let r = e
        .anchors_presort(&AnchorPresortRequest {
            model: "sorter".into(),
            only_unbucketed: true,
            anchor_ids: vec!["u1".into()],
            policy: None,
            concurrency: None,
        })
        .await
        .unwrap();
    assert_eq!((r.processed, r.failed, r.items[0].outcome.as_str()), (1, 1, "failed"));

    let req = AnchorJobRequest { only_unbucketed: true, ..presort(&[], 1) };
    let run_id = e.anchor_job_create(&req).unwrap();
    e.anchor_job_execute(&run_id).await.unwrap();
    let view = e.anchor_job_show(&run_id).unwrap();
    assert_eq!((view.status, view.total, view.done, view.pending), (RunStatus::Failed, 3, 0, 3));
    assert_eq!(view.result.failed, 3);
    assert!(view.result.items.iter().all(|i| i.outcome == "failed" && i.note.as_deref().unwrap_or("").contains("400")));
    assert!(view.error.unwrap().contains("resume to try the failed ones again"));
    for id in ["u1", "u2", "u3"] {
        assert_eq!(e.anchor_show(id).unwrap().clause_id, None, "{id} is still unsorted");
    }

    // With the model answering, a resume finishes them.
    mock.set_script(sorter_script(0));
    e.anchor_job_execute(&run_id).await.unwrap();
    let view = e.anchor_job_show(&run_id).unwrap();
    assert_eq!((view.status, view.done, view.pending, view.result.changed), (RunStatus::Completed, 3, 0, 3));
    assert_eq!(e.anchor_show("u2").unwrap().clause_id.as_deref(), Some(FALL));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_the_provider_refuses_stops_the_job_at_once_and_the_waiting_call_names_it() {
    let script = Script { require_key: Some("right-key".into()), ..sorter_script(0) };
    let (_dir, e, mock) = setup(script).await;
    let ids: Vec<String> = builtin_ids(&e).into_iter().take(6).collect();
    let err = e
        .anchors_presort(&AnchorPresortRequest {
            model: "sorter".into(),
            only_unbucketed: false,
            anchor_ids: ids,
            policy: None,
            concurrency: Some(1),
        })
        .await
        .unwrap_err();
    assert!(
        err.message.contains("not yet handled") && err.message.contains("psebench anchors resume"),
        "{}",
        err.message
    );
    assert_eq!(mock.request_count(), 1, "a refused key stops the job after the first call");
    let job = &e.anchor_job_list().unwrap()[0];
    assert_eq!((job.status, job.done, job.pending, job.result.failed), (RunStatus::Failed, 0, 6, 1));
}
