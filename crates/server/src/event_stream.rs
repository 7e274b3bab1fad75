//! The server-sent events of `GET /api/events`: job progress (`event: progress`) and the kinds
//! of stored data that changed (`event: change`), merged into one stream.

use std::convert::Infallible;

use axum::response::sse::Event;
use futures::Stream;
use psebench::context::change_feed::{ChangeEvent, ChangeKind};
use psebench::jobs::Progress;
use tokio::sync::broadcast;

/// Progress of the runs working now, then every later progress and change event. Without a
/// change feed (`changes` is `None`) only progress is sent.
pub(crate) fn events(
    initial: Vec<Progress>,
    progress: broadcast::Receiver<Progress>,
    changes: Option<broadcast::Receiver<ChangeEvent>>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::select(progress_stream(initial, progress), change_stream(changes))
}

/// Items of a broadcast channel until it closes; a listener that fell behind skips what it missed.
fn broadcast_items<T: Clone + Send + 'static>(rx: broadcast::Receiver<T>) -> impl Stream<Item = T> {
    futures::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(p) => return Some((p, rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}

fn progress_stream(
    initial: Vec<Progress>,
    rx: broadcast::Receiver<Progress>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let first = futures::stream::iter(initial);
    futures::StreamExt::map(futures::StreamExt::chain(first, broadcast_items(rx)), |p| {
        Ok(Event::default().event("progress").data(serde_json::to_string(&p).unwrap_or_default()))
    })
}

/// `event: change` with `{"kinds": [...]}` whenever stored data of those kinds changed, by this
/// process or another on the same store. A listener that fell behind is told every kind changed.
fn change_stream(rx: Option<broadcast::Receiver<ChangeEvent>>) -> impl Stream<Item = Result<Event, Infallible>> {
    let changes = futures::stream::unfold(rx, |rx| async move {
        let mut rx = rx?;
        match rx.recv().await {
            Ok(c) => Some((c, Some(rx))),
            Err(broadcast::error::RecvError::Lagged(_)) => {
                Some((ChangeEvent { kinds: ChangeKind::ALL.to_vec() }, Some(rx)))
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    });
    futures::StreamExt::map(changes, |c| {
        Ok(Event::default().event("change").data(serde_json::to_string(&c).unwrap_or_default()))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use axum::body::Body;
    use axum::http::{header, Request, StatusCode};
    use futures::StreamExt;
    use psebench::api::Engine;
    use tower::ServiceExt;

    use crate::{router, Limits, NoAssets, OwnerToken, ServeOptions};

    const KEY: &str = "the-owner-key-of-the-event-tests";

    fn options(review_session: Option<String>) -> ServeOptions {
        ServeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            lan: false,
            review_session,
            assets: Arc::new(NoAssets),
            owner_token: OwnerToken::from_text(KEY),
            limits: Limits::default(),
            tls: None,
        }
    }

    fn events_request(auth: Option<&str>) -> Request<Body> {
        let mut b = Request::builder().uri("/api/events").header("host", "127.0.0.1:8765");
        if let Some(a) = auth {
            b = b.header(header::AUTHORIZATION, a);
        }
        b.body(Body::empty()).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_stream_tells_the_owner_what_another_process_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        let served = Engine::open(&path).unwrap();
        // The command line, another process on the same store.
        let cli = Engine::open(&path).unwrap();
        let app = router(served, options(None));

        let refused = app.clone().oneshot(events_request(None)).await.unwrap();
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);

        let resp = app.oneshot(events_request(Some(&format!("Bearer {KEY}")))).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let mut body = resp.into_body().into_data_stream();
        tokio::task::spawn_blocking(move || cli.demo_load().unwrap()).await.unwrap();

        let mut text = String::new();
        let found = tokio::time::timeout(Duration::from_secs(20), async {
            while let Some(chunk) = body.next().await {
                text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
                if let Some(line) = text.lines().skip_while(|l| *l != "event: change").nth(1) {
                    return line.to_string();
                }
            }
            String::new()
        })
        .await
        .expect("no change event arrived");
        let data: serde_json::Value = serde_json::from_str(found.trim_start_matches("data: ")).unwrap();
        let kinds = data["kinds"].as_array().unwrap();
        assert!(kinds.iter().any(|k| k == "cases"), "{data}");
        assert!(!kinds.iter().any(|k| k == "reviews"), "{data}");
    }
}
