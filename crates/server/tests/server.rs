//! `psebench serve` over real sockets: the caller is checked before a body is read, bodies and
//! slow clients are bounded, the connection cap holds, closed reviews refuse their links, and
//! HTTPS works with a certificate made here.

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

use psebench::api::Engine;
use psebench::review::{ReviewCreateRequest, ReviewLinksRequest, ReviewSelection};
use psebench_server::{serve, Assets, EmbeddedAssets, Limits, NoAssets, OwnerToken, ServeOptions, TlsFiles};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The owner key of the servers these tests start (owner calls send it as Bearer).
const OWNER_KEY: &str = "owner-key-for-the-server-tests";

/// A served store; dropping it stops the server.
struct Served {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), psebench::ApiError>>>,
}

impl Served {
    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            t.await.unwrap().unwrap();
        }
    }
}

async fn start(engine: Engine, review: Option<&str>, limits: Limits, tls: Option<TlsFiles>) -> Served {
    start_with(engine, review, limits, tls, Arc::new(NoAssets)).await
}

async fn start_with(
    engine: Engine,
    review: Option<&str>,
    limits: Limits,
    tls: Option<TlsFiles>,
    assets: Arc<dyn Assets>,
) -> Served {
    let opts = ServeOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        lan: false,
        review_session: review.map(str::to_string),
        assets,
        limits,
        tls,
        owner_token: OwnerToken::from_text(OWNER_KEY),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(serve(
        engine,
        opts,
        move |addr| {
            let _ = tx.send(addr);
        },
        async move {
            let _ = stopped.await;
        },
    ));
    let addr = rx.await.unwrap();
    Served { addr, stop: Some(stop), task: Some(task) }
}

/// A demo store with one review session; returns the session id and Ana's link token.
fn review_store() -> (Engine, String, String) {
    let e = Engine::open_in_memory().unwrap();
    e.demo_load().unwrap();
    let s = e
        .review_create(&ReviewCreateRequest {
            name: "Pilot".into(),
            selection: ReviewSelection::Stratified { complete: 2, missing: 2, uncertain: 2, by_clause: false },
            reviewers: vec!["Ana".into(), "Ben".into()],
            overlap: Some(1),
            seed: Some(3),
            guidelines: None,
            rationale_from: None,
        })
        .unwrap()
        .summary
        .session_id;
    let token = e
        .review_links(&ReviewLinksRequest { session_id: s.clone(), reviewers: vec!["Ana".into()], rotate: false })
        .unwrap()
        .links[0]
        .token
        .clone()
        .unwrap();
    (e, s, token)
}

/// Read what the server sends until it closes or `wait` passes. `None` when it neither answered
/// nor closed in time.
async fn read_reply(conn: &mut TcpStream, wait: Duration) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, conn.read(&mut buf)).await {
            Err(_) => return if got.is_empty() { None } else { Some(String::from_utf8_lossy(&got).into_owned()) },
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(Ok(n)) => {
                got.extend_from_slice(&buf[..n]);
                // Stop once a whole small response is in (headers and a JSON body).
                let text = String::from_utf8_lossy(&got);
                if let Some(head_end) = text.find("\r\n\r\n") {
                    let len = text[..head_end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string())
                        })
                        .and_then(|v| v.parse::<usize>().ok());
                    if len.is_some_and(|n| got.len() >= head_end + 4 + n) {
                        return Some(text.into_owned());
                    }
                }
            }
        }
    }
}

fn post_head(addr: SocketAddr, method: &str, token: Option<&str>, length: usize) -> String {
    let auth = token.map(|t| format!("authorization: Bearer {t}\r\n")).unwrap_or_default();
    format!(
        "POST /api/{method} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n{auth}content-length: {length}\r\n\r\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unauthenticated_upload_is_refused_before_its_body_is_read() {
    let (e, s, token) = review_store();
    let served = start(e, Some(&s), Limits::default(), None).await;
    let addr = served.addr;
    const TEN_MB: usize = 10 * 1024 * 1024;
    let first_part = vec![b' '; 64 * 1024];
    // No token, and a well-formed token that opens nothing: the answer comes while more than 99 %
    // of the declared body has not been sent.
    for tok in [None, Some("0".repeat(64))] {
        let mut c = TcpStream::connect(addr).await.unwrap();
        c.write_all(post_head(addr, "review.me", tok.as_deref(), TEN_MB).as_bytes()).await.unwrap();
        c.write_all(&first_part).await.unwrap();
        let reply = read_reply(&mut c, Duration::from_secs(20)).await;
        let reply = reply.expect("the server waited for the rest of the body instead of refusing the request");
        assert!(reply.starts_with("HTTP/1.1 403"), "{tok:?}: {reply}");
        // The rest of the body is unread, so the connection cannot carry another request: the
        // answer says it closes, and a pooled client will not send into it.
        assert!(reply.to_ascii_lowercase().contains("\r\nconnection: close\r\n"), "{tok:?}: {reply}");
    }
    // A reviewer's body over 256 KiB is refused from its declared length, unread.
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(post_head(addr, "review.me", Some(&token), TEN_MB).as_bytes()).await.unwrap();
    let reply = read_reply(&mut c, Duration::from_secs(20)).await.expect("no answer to an oversized body");
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains("larger than this server accepts (256 KB)"), "{reply}");
    assert!(reply.to_ascii_lowercase().contains("\r\nconnection: close\r\n"), "{reply}");
    // The same body sent without a declared length is cut off at the limit.
    let http = reqwest::Client::new();
    let chunks = futures::stream::iter((0..40).map(|_| Ok::<_, std::io::Error>(vec![b' '; 16 * 1024])));
    let r = http
        .post(format!("http://{addr}/api/review.me"))
        .header("x-review-token", &token)
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.headers().get("connection").map(|v| v.as_bytes()), Some(&b"close"[..]));
    // A normal call with the link still works (on a new connection: the refused one was closed;
    // before it said so, this call could be sent into it as it closed, and fail).
    let ok = http
        .post(format!("http://{addr}/api/review.me"))
        .header("x-review-token", &token)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), reqwest::StatusCode::OK);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_are_closed_within_the_time_limits() {
    let (e, s, token) = review_store();
    let limits =
        Limits { header_read: Duration::from_millis(300), body_read: Duration::from_millis(300), ..Limits::default() };
    let served = start(e, Some(&s), limits, None).await;
    let addr = served.addr;
    // Headers that never end: the server hangs up.
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(format!("POST /api/review.me HTTP/1.1\r\nhost: {addr}\r\n").as_bytes()).await.unwrap();
    let reply = read_reply(&mut c, Duration::from_secs(10)).await;
    assert!(reply.is_some(), "a connection with unfinished headers was still open after 10 s");
    // A body that stops half-way: the server answers 408 and hangs up.
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(post_head(addr, "review.me", Some(&token), 1000).as_bytes()).await.unwrap();
    c.write_all(b"{\"item_no\":").await.unwrap();
    let reply = read_reply(&mut c, Duration::from_secs(10)).await.expect("a stalled body kept its connection open");
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    // A connection that sends nothing at all is closed as well.
    let mut c = TcpStream::connect(addr).await.unwrap();
    assert!(read_reply(&mut c, Duration::from_secs(10)).await.is_some(), "an idle connection was kept open");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_for_a_free_place() {
    let e = Engine::open_in_memory().unwrap();
    let limits =
        Limits { max_connections: 2, per_address_connections: 2, reserved_connections: 1, ..Limits::default() };
    let served = start(e, None, limits, None).await;
    let addr = served.addr;
    let request = format!(
        "GET /api/_methods HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {OWNER_KEY}\r\nconnection: close\r\n\r\n"
    );
    // Two connections take both shared places (they send nothing yet).
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    // The third gets the reserved place, and is served because it carries the owner's key.
    let mut third = TcpStream::connect(addr).await.unwrap();
    third.write_all(request.as_bytes()).await.unwrap();
    let reply = read_reply(&mut third, Duration::from_secs(10)).await.expect("the reserved place served nothing");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // Without the key a reserved place answers 503 and closes.
    let mut keyless = TcpStream::connect(addr).await.unwrap();
    keyless.write_all(format!("GET / HTTP/1.1\r\nhost: {addr}\r\n\r\n").as_bytes()).await.unwrap();
    let reply = read_reply(&mut keyless, Duration::from_secs(10)).await.expect("no answer on the reserved place");
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    assert!(reply.contains("every connection place is taken"), "{reply}");
    assert!(reply.to_ascii_lowercase().contains("connection: close"), "{reply}");
    // With all three sockets open (the reserved one held idle), a fourth connects (the operating
    // system queues it) but is not served.
    let _held = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut fourth = TcpStream::connect(addr).await.unwrap();
    fourth.write_all(request.as_bytes()).await.unwrap();
    assert!(read_reply(&mut fourth, Duration::from_millis(700)).await.is_none(), "a fourth connection was served");
    // When one of the first two goes away, the fourth is served.
    drop(first);
    let reply =
        read_reply(&mut fourth, Duration::from_secs(10)).await.expect("the waiting connection was never served");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    served.stop().await;
}

/// The UI of the stall tests: a page and a large script (4 MiB, far more than the operating
/// system buffers for a client that does not read).
fn big_assets() -> Arc<dyn Assets> {
    let big: &'static [u8] = Box::leak(vec![b'x'; BIG_ASSET_BYTES].into_boxed_slice());
    let files: &'static [(&'static str, &'static [u8])] =
        Box::leak(vec![("index.html", &b"<!doctype html><p>app</p>"[..]), ("assets/big.js", big)].into_boxed_slice());
    Arc::new(EmbeddedAssets(files))
}

const BIG_ASSET_BYTES: usize = 4 * 1024 * 1024;
/// Requests for the large script each stalled client sends at once.
const PIPELINED: usize = 3;
/// Stalled clients: as many as the connection places shared by everyone.
const STALLED: usize = 64;

/// Open `STALLED` connections that each send `PIPELINED` requests for the large script and never
/// read an answer.
async fn stall_the_server(addr: SocketAddr) -> Vec<TcpStream> {
    let one = format!("GET /assets/big.js HTTP/1.1\r\nhost: {addr}\r\n\r\n").repeat(PIPELINED);
    let mut held = Vec::new();
    for _ in 0..STALLED {
        let mut c = TcpStream::connect(addr).await.unwrap();
        // A connection the server already refused may fail this write; it is kept all the same.
        let _ = c.write_all(one.as_bytes()).await;
        held.push(c);
    }
    held
}

/// The status of a request without any key from this computer: 503 while this computer's share
/// of the shared places is taken, else 200.
async fn keyless_status(addr: SocketAddr) -> Option<u16> {
    let mut c = TcpStream::connect(addr).await.ok()?;
    c.write_all(format!("GET /index.html HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let reply = read_reply(&mut c, Duration::from_secs(5)).await?;
    reply.get(9..12)?.parse().ok()
}

/// Wait (at most 20 s) until this computer's shared places are all held by stalled clients.
async fn wait_until_stalled(addr: SocketAddr) {
    let until = std::time::Instant::now() + Duration::from_secs(20);
    while keyless_status(addr).await != Some(503) {
        assert!(std::time::Instant::now() < until, "the stalled clients never took their share of the places");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `calls` calls on fresh connections (each must find a place of its own); their statuses and
/// times.
async fn timed_calls(
    addr: SocketAddr,
    method: &str,
    header: (&str, &str),
    calls: usize,
) -> Vec<(Option<reqwest::StatusCode>, Duration)> {
    let http = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let mut out = Vec::new();
    for _ in 0..calls {
        let t = std::time::Instant::now();
        let r = http
            .post(format!("http://{addr}/api/{method}"))
            .header(header.0, header.1)
            .body("{}")
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        out.push((r.ok().map(|r| r.status()), t.elapsed()));
    }
    out
}

fn report(who: &str, calls: &[(Option<reqwest::StatusCode>, Duration)]) {
    let ok = calls.iter().filter(|(s, _)| *s == Some(reqwest::StatusCode::OK)).count();
    let mut ms: Vec<u128> = calls.iter().map(|(_, d)| d.as_millis()).collect();
    ms.sort_unstable();
    println!(
        "{who}: {ok} of {} calls answered 200 while {STALLED} stalled readers were held; median {} ms, slowest {} ms",
        calls.len(),
        ms[ms.len() / 2],
        ms[ms.len() - 1]
    );
    for (i, (status, took)) in calls.iter().enumerate() {
        assert_eq!(*status, Some(reqwest::StatusCode::OK), "{who} call {i} failed after {took:?}");
        assert!(*took < Duration::from_secs(5), "{who} call {i} took {took:?}");
    }
}

/// Issue 25 item 3: 64 clients that pipeline requests for a large script and never read the
/// answers used to take every connection place. Now one address holds at most half of the shared
/// places and the owner's and reviewers' requests have reserved places: while the stalled clients
/// are held, the owner and a reviewer each complete 10 calls, each within 5 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_readers_do_not_lock_out_the_owner_or_a_reviewer() {
    // The write timeout is long here, so that the stalled clients stay for the whole test.
    let limits = Limits { write_stall: Duration::from_secs(120), ..Limits::default() };

    let served = start_with(Engine::open_in_memory().unwrap(), None, limits.clone(), None, big_assets()).await;
    let stalled = stall_the_server(served.addr).await;
    wait_until_stalled(served.addr).await;
    let bearer = format!("Bearer {OWNER_KEY}");
    let owner = timed_calls(served.addr, "store.info", ("authorization", &bearer), 10).await;
    assert_eq!(keyless_status(served.addr).await, Some(503), "the stalled clients were no longer held");
    drop(stalled);
    report("owner", &owner);
    served.stop().await;

    let (e, s, token) = review_store();
    let served = start_with(e, Some(&s), limits, None, big_assets()).await;
    let stalled = stall_the_server(served.addr).await;
    wait_until_stalled(served.addr).await;
    let reviewer = timed_calls(served.addr, "review.me", ("x-review-token", &token), 10).await;
    // A made-up reviewer token finds no place.
    let fake = timed_calls(served.addr, "review.me", ("x-review-token", &"0".repeat(64)), 1).await;
    assert_eq!(fake[0].0, Some(reqwest::StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(keyless_status(served.addr).await, Some(503), "the stalled clients were no longer held");
    drop(stalled);
    report("reviewer", &reviewer);
    served.stop().await;
}

/// Read a stalled connection to its end: the bytes it got, or `None` if the server neither
/// closed it nor sent anything more within `wait`.
#[cfg(target_os = "linux")]
async fn drain(conn: &mut TcpStream, wait: Duration) -> Option<usize> {
    let mut got = 0usize;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match tokio::time::timeout(wait, conn.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(got),
            Ok(Ok(n)) => got += n,
        }
    }
}

/// Whether the server still holds its end of the connection from `client_port` open, from the
/// kernel's table of TCP sockets (state 01 is ESTABLISHED). Reading the client's end to find out
/// would itself make the answer progress.
#[cfg(target_os = "linux")]
fn server_end_open(server_port: u16, client_port: u16) -> bool {
    let port = |a: &str| a.rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
    std::fs::read_to_string("/proc/net/tcp").unwrap().lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 3 && port(f[1]) == Some(server_port) && port(f[2]) == Some(client_port) && f[3] == "01"
    })
}

/// A client that does not read its answers is cut off once the answer has made no progress for
/// the write timeout (1 s here), and its place is free again.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_cut_off_after_the_write_timeout() {
    let write_stall = Duration::from_secs(1);
    let limits = Limits { write_stall, ..Limits::default() };
    let served = start_with(Engine::open_in_memory().unwrap(), None, limits, None, big_assets()).await;
    let addr = served.addr;
    let started = std::time::Instant::now();
    let mut stalled = stall_the_server(addr).await;
    let ports: Vec<u16> = stalled.iter().map(|c| c.local_addr().unwrap().port()).collect();
    // The server closes its end of every stalled connection by itself.
    let until = std::time::Instant::now() + Duration::from_secs(20);
    let mut first_closed = None;
    loop {
        let open = ports.iter().filter(|p| server_end_open(addr.port(), **p)).count();
        if open < ports.len() && first_closed.is_none() {
            first_closed = Some(started.elapsed());
        }
        if open == 0 {
            break;
        }
        assert!(std::time::Instant::now() < until, "{open} stalled connections were still open after 20 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let all_closed = started.elapsed();
    // Their places are free again: a request without a key from this computer is served.
    assert_eq!(keyless_status(addr).await, Some(200));
    println!(
        "stalled readers cut (write timeout {} ms): the server had closed all {STALLED} connections {} ms after \
         the clients started connecting (the first ones after {} ms)",
        write_stall.as_millis(),
        all_closed.as_millis(),
        first_closed.unwrap_or_default().as_millis()
    );
    // Each of them ends before all the answers it asked for arrived.
    let everything = PIPELINED * BIG_ASSET_BYTES;
    let mut cut_mid_answer = 0;
    for (i, c) in stalled.iter_mut().enumerate() {
        let got = drain(c, Duration::from_secs(10)).await;
        let got = got.unwrap_or_else(|| panic!("stalled connection {i} did not end"));
        assert!(got < everything, "connection {i} got all {got} bytes: it was not cut off");
        cut_mid_answer += usize::from(got > BIG_ASSET_BYTES / 2);
    }
    println!("{cut_mid_answer} of the {STALLED} were cut in the middle of a large answer");
    assert!(cut_mid_answer > 0, "no connection got far into an answer: the test did not stall the server");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_review_refuses_its_links_and_keeps_its_answers() {
    let (e, s, token) = review_store();
    let served = start(e.clone(), Some(&s), Limits::default(), None).await;
    let http = reqwest::Client::new();
    let url = |m: &str| format!("http://{}/api/{m}", served.addr);
    let me = || http.post(url("review.me")).header("x-review-token", &token).body("{}").send();
    assert_eq!(me().await.unwrap().status(), reqwest::StatusCode::OK);
    let saved = http
        .post(url("review.answer"))
        .header("x-review-token", &token)
        .json(&serde_json::json!({"item_no": 1, "patch": {"realism": 4}}))
        .send()
        .await
        .unwrap();
    assert_eq!(saved.status(), reqwest::StatusCode::OK);

    let closed = e.review_close(&s).unwrap();
    assert!(closed.summary.closed_at.is_some());
    for (method, body) in [("review.me", "{}"), ("review.item", "{\"item_no\":1}")] {
        let r = http.post(url(method)).header("x-review-token", &token).body(body).send().await.unwrap();
        assert_eq!(r.status(), reqwest::StatusCode::FORBIDDEN, "{method}");
        let v: serde_json::Value = r.json().await.unwrap();
        assert!(v["message"].as_str().unwrap().starts_with("This review has been closed by its organiser"), "{v}");
    }
    // The owner still reads everything; no new links while closed.
    let rows = e.review_export_rows(&s).unwrap();
    assert!(rows.iter().any(|r| r.reviewer == "Ana" && r.answer == "4"), "{rows:?}");
    let err =
        e.review_links(&ReviewLinksRequest { session_id: s.clone(), reviewers: vec![], rotate: true }).unwrap_err();
    assert!(err.message.contains("closed"), "{}", err.message);
    assert!(e.review_list().unwrap()[0].closed_at.is_some());

    // Reopened, the same link works again.
    assert!(e.review_reopen(&s).unwrap().summary.closed_at.is_none());
    assert_eq!(me().await.unwrap().status(), reqwest::StatusCode::OK);
    served.stop().await;
}

fn write_pem(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_with_a_certificate_made_here() {
    let dir = tempfile::tempdir().unwrap();
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let cert = write_pem(dir.path(), "cert.pem", &made.cert.pem());
    let key = write_pem(dir.path(), "key.pem", &made.key_pair.serialize_pem());
    let tls = TlsFiles { cert: cert.clone(), key: key.clone() };
    let served = start(Engine::open_in_memory().unwrap(), None, Limits::default(), Some(tls)).await;
    let trusted = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(made.cert.pem().as_bytes()).unwrap())
        .build()
        .unwrap();
    let r = trusted
        .post(format!("https://127.0.0.1:{}/api/store.info", served.addr.port()))
        .bearer_auth(OWNER_KEY)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    // Plain HTTP on the same port gets no answer from the application.
    let plain =
        reqwest::Client::new().get(format!("http://127.0.0.1:{}/api/_methods", served.addr.port())).send().await;
    assert!(plain.map(|r| !r.status().is_success()).unwrap_or(true));
    served.stop().await;

    // Files that cannot be used are explained before anything listens.
    let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let other_key = write_pem(dir.path(), "other-key.pem", &other.key_pair.serialize_pem());
    let not_pem = write_pem(dir.path(), "notes.txt", "just some words\n");
    let cases = [
        (TlsFiles { cert: cert.clone(), key: other_key }, "do not go together"),
        (TlsFiles { cert: dir.path().join("missing.pem"), key: key.clone() }, "could not be read"),
        (TlsFiles { cert: not_pem.clone(), key: key.clone() }, "holds no certificate"),
        (TlsFiles { cert: cert.clone(), key: not_pem }, "holds no private key"),
    ];
    for (files, expected) in cases {
        let opts = ServeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            lan: false,
            review_session: None,
            assets: Arc::new(NoAssets),
            limits: Limits::default(),
            tls: Some(files.clone()),
            owner_token: OwnerToken::from_text(OWNER_KEY),
        };
        let err = serve(Engine::open_in_memory().unwrap(), opts, |_| panic!("the server started"), async {})
            .await
            .unwrap_err();
        assert!(err.message.contains(expected), "{files:?}: {}", err.message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_bodies_are_bounded_by_the_upload_limit() {
    use psebench_server::limits::OWNER_BODY_BYTES;
    // The largest upload, base64-encoded, fits; the limit is not much larger than that.
    let encoded = psebench::api::files::MAX_UPLOAD_BYTES.div_ceil(3) * 4;
    assert!(OWNER_BODY_BYTES > encoded && OWNER_BODY_BYTES <= encoded + 2 * 1024 * 1024);
    let served = start(Engine::open_in_memory().unwrap(), None, Limits::default(), None).await;
    let addr = served.addr;
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(post_head(addr, "cases.import", Some(OWNER_KEY), OWNER_BODY_BYTES + 1).as_bytes()).await.unwrap();
    let reply = read_reply(&mut c, Duration::from_secs(20)).await.expect("no answer to an oversized body");
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains("(268 MB)"), "{reply}");
    // Without the owner key the same request is refused before any of its body is read.
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(post_head(addr, "cases.import", None, OWNER_BODY_BYTES).as_bytes()).await.unwrap();
    c.write_all(&[b' '; 1024]).await.unwrap();
    let reply = read_reply(&mut c, Duration::from_secs(20)).await.expect("no answer without the key");
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    served.stop().await;
}

/// The figures of RELIABILITY.md ("The servers under hostile clients"), without assertions so that
/// it also runs against an older accept loop: the owner's and a reviewer's calls (each given 5 s)
/// while 64 stalled readers are held, and how long until the server has closed all of them with a
/// write timeout of 1 s and with the real one. Run with `--ignored --nocapture`.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement; it prints figures"]
async fn measure_stall_attack() {
    fn line(who: &str, calls: &[(Option<reqwest::StatusCode>, Duration)]) {
        let ok = calls.iter().filter(|(s, _)| *s == Some(reqwest::StatusCode::OK)).count();
        let ms: Vec<u128> = calls.iter().map(|(_, d)| d.as_millis()).collect();
        println!("{who}: {ok} of {} calls answered 200 (each given 5 s); times in ms {ms:?}", calls.len());
    }
    let limits = Limits { write_stall: Duration::from_secs(120), ..Limits::default() };
    let served = start_with(Engine::open_in_memory().unwrap(), None, limits.clone(), None, big_assets()).await;
    let stalled = stall_the_server(served.addr).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let bearer = format!("Bearer {OWNER_KEY}");
    line("owner", &timed_calls(served.addr, "store.info", ("authorization", &bearer), 10).await);
    drop(stalled);
    served.stop().await;
    let (e, s, token) = review_store();
    let served = start_with(e, Some(&s), limits, None, big_assets()).await;
    let stalled = stall_the_server(served.addr).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    line("reviewer", &timed_calls(served.addr, "review.me", ("x-review-token", &token), 10).await);
    drop(stalled);
    served.stop().await;
    for write_stall in [Duration::from_secs(1), psebench_server::limits::WRITE_STALL_TIMEOUT] {
        let limits = Limits { write_stall, ..Limits::default() };
        let served = start_with(Engine::open_in_memory().unwrap(), None, limits, None, big_assets()).await;
        let t = std::time::Instant::now();
        let stalled = stall_the_server(served.addr).await;
        let ports: Vec<u16> = stalled.iter().map(|c| c.local_addr().unwrap().port()).collect();
        loop {
            let open = ports.iter().filter(|p| server_end_open(served.addr.port(), **p)).count();
            if open == 0 || t.elapsed() > write_stall * 2 + Duration::from_secs(30) {
                println!(
                    "write timeout {} s: {open} of {STALLED} stalled connections open {} ms after connecting",
                    write_stall.as_secs(),
                    t.elapsed().as_millis()
                );
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        drop(stalled);
        served.stop().await;
    }
}
