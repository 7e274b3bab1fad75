//! The change feed: a write to the store, by this engine or by another process's engine on the
//! same file, is published to listeners as an event naming the kind of data that changed.

use std::time::Duration;

use psebench::api::Engine;
use psebench::context::change_feed::{ChangeEvent, ChangeKind};
use psebench::review::*;
use tokio::sync::broadcast::Receiver;

use crate::common::temp_engine;

/// The next event (the watcher looks twice a second; a generous bound keeps a slow machine green).
async fn next(rx: &mut Receiver<ChangeEvent>) -> ChangeEvent {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("no change event arrived")
        .expect("the change feed closed")
}

fn session_with_a_link(e: &Engine) -> String {
    assert_eq!(e.demo_load().unwrap().imported, 90);
    let s = e
        .review_create(&ReviewCreateRequest {
            name: "Live".into(),
            selection: ReviewSelection::Stratified { complete: 1, missing: 1, uncertain: 1, by_clause: false },
            reviewers: vec!["Ana".into()],
            overlap: None,
            seed: Some(7),
            guidelines: None,
            rationale_from: None,
        })
        .unwrap();
    let links = e
        .review_links(&ReviewLinksRequest { session_id: s.summary.session_id, reviewers: vec![], rotate: false })
        .unwrap();
    links.links.into_iter().next().unwrap().token.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_written_by_another_process_is_published_as_a_review_change() {
    let (dir, owner) = temp_engine();
    let token = session_with_a_link(&owner);
    // The reviewer's process: its own engine and connections on the same store file.
    let reviewer = Engine::open(&dir.path().join("store.db")).unwrap();
    let mut rx = owner.change_events().unwrap();

    let patch = ReviewAnswerPatch { realism: Some(4), ..ReviewAnswerPatch::default() };
    reviewer.review_answer(&token, 1, &patch).unwrap();
    assert_eq!(next(&mut rx).await.kinds, vec![ChangeKind::Reviews]);

    // The owner's own writes are published too, under their kind.
    let case: String = owner
        .store()
        .with_read(|c| c.query_row("SELECT case_id FROM cases ORDER BY case_id LIMIT 1", [], |r| r.get(0)))
        .unwrap();
    owner.case_set_excluded(&case, true, Some("live test")).unwrap();
    assert_eq!(next(&mut rx).await.kinds, vec![ChangeKind::Cases]);
}
