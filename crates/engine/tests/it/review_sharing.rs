//! Share: the engine's state and rules for serving a review session's reviewer links, with a stand-in
//! for the server crate's listener (the real one is tested in psebench-server).

use psebench::api::rpc::{call, Caller};
use psebench::review::sharing::{ShareListener, SharePlan, ShareServer, ShareStart};
use psebench::review::{ReviewCreateRequest, ReviewSelection};
use psebench::ErrorCode;
use serde_json::json;
use std::sync::{Arc, Mutex};

use crate::common::temp_engine;

/// Binds a real socket (so the port is really taken) and records what it was asked to serve.
#[derive(Default)]
struct FakeListeners {
    plans: Mutex<Vec<SharePlan>>,
}

impl ShareServer for FakeListeners {
    fn start(&self, _engine: psebench::api::Engine, plan: SharePlan) -> ShareStart {
        self.plans.lock().unwrap().push(plan.clone());
        Box::pin(async move {
            let listener = tokio::net::TcpListener::bind(plan.addr).await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let done = tokio::spawn(async move {
                let _keep = listener;
                let _ = stopped.await;
            });
            Ok(ShareListener { addr, stop, done })
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharing_starts_reports_and_stops_per_session() {
    let (dir, e) = temp_engine();
    e.demo_load().unwrap();
    let sid = e
        .review_create(&ReviewCreateRequest {
            name: "to share".into(),
            selection: ReviewSelection::Stratified { complete: 1, missing: 1, uncertain: 1, by_clause: false },
            reviewers: vec!["Ana".into()],
            overlap: None,
            seed: Some(1),
            guidelines: None,
            rationale_from: None,
        })
        .unwrap()
        .summary
        .session_id;
    let owner = |m: &'static str, p: serde_json::Value| {
        let e = e.clone();
        async move { call(&e, &Caller::Owner, m, p).await }
    };

    // Nothing installed (the command line): refused, with the terminal command for this store.
    let status = owner("review.share_status", json!({"session": sid})).await.unwrap();
    assert_eq!(status["serving"], false);
    assert_eq!(status["available"], false);
    let cmd = status["headless_command"].as_str().unwrap();
    assert!(cmd.contains(&dir.path().display().to_string()), "{cmd}");
    assert!(cmd.contains(&format!("serve --review {sid}")), "{cmd}");
    let err = owner("review.share_start", json!({"session": sid})).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);

    let fake = Arc::new(FakeListeners::default());
    e.review_share_enable(fake.clone());
    // Half a certificate is refused before anything is bound.
    let half = owner("review.share_start", json!({"session": sid, "port": 0, "tls_cert": "c.pem"})).await.unwrap_err();
    assert_eq!(half.code, ErrorCode::InvalidInput);
    assert!(fake.plans.lock().unwrap().is_empty());

    let on = owner("review.share_start", json!({"session": "to share", "port": 0})).await.unwrap();
    assert_eq!(on["serving"], true);
    assert_eq!(on["session_id"], sid.as_str());
    let port = on["port"].as_u64().unwrap();
    assert_eq!(on["base_url"], format!("http://127.0.0.1:{port}"));
    assert_eq!(on["plain_http_on_lan"], false);
    {
        let plans = fake.plans.lock().unwrap();
        assert_eq!(plans.len(), 1);
        assert!(plans[0].addr.ip().is_loopback(), "loopback unless the LAN is chosen");
        assert_eq!(plans[0].session_id, sid);
    }
    // Asking again starts nothing new.
    owner("review.share_start", json!({"session": sid, "port": 0})).await.unwrap();
    assert_eq!(fake.plans.lock().unwrap().len(), 1);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port as u16)).is_ok());

    let off = owner("review.share_stop", json!({"session": sid})).await.unwrap();
    assert_eq!(off["serving"], false);
    assert_eq!(off["base_url"], serde_json::Value::Null);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port as u16)).is_err(), "the port is free again");

    // A closed review is not shared.
    e.review_close(&sid).unwrap();
    let closed = owner("review.share_start", json!({"session": sid, "port": 0})).await.unwrap_err();
    assert_eq!(closed.code, ErrorCode::Conflict);
    assert!(closed.message.contains("Reopen it first"), "{}", closed.message);
}
