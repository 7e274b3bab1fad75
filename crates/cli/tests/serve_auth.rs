//! `psebench serve` as a real process: only a caller holding the owner's key reaches the API.

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running `psebench serve`, stopped when dropped.
struct Served {
    child: Child,
    first_line: String,
    _dir: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str], envs: &[(&str, &str)]) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_psebench"));
    cmd.arg("serve")
        .args(["--port", "0", "--ui-dir"])
        .arg(ui_dir(dir.path()))
        .args(args)
        .env("PSEBENCH_DB", dir.path().join("store.db"))
        .env("HOME", dir.path())
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first_line).unwrap();
    assert!(!first_line.is_empty(), "psebench serve printed nothing");
    Served { child, first_line, _dir: dir }
}

/// A one-page UI folder (the tests do not need the real one).
fn ui_dir(dir: &Path) -> std::path::PathBuf {
    let ui = dir.join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(ui.join("index.html"), "<!doctype html><title>t</title><div id=root></div>").unwrap();
    ui
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One HTTP/1.1 request over a fresh connection.
fn http(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked { unchunk(rest) } else { rest.to_string() };
    Answer { status, headers, body }
}

fn unchunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A loopback listener that records every request it receives (and refuses each at once).
fn recording_listener() -> (u16, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut c) = conn else { continue };
            let _ = c.set_read_timeout(Some(Duration::from_millis(500)));
            let mut buf = vec![0u8; 8192];
            let n = c.read(&mut buf).unwrap_or(0);
            log.lock().unwrap().push(String::from_utf8_lossy(&buf[..n]).to_string());
            let _ = c.write_all(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    (port, seen)
}

/// The issue's reproduction: a local process without the key asks the server to test a model whose
/// key is read from an environment variable, pointed at a listener of its own.
#[test]
fn a_caller_without_the_key_cannot_make_the_server_send_a_secret() {
    let canary = "canary-5b1e0c2d7f";
    let (listener, seen) = recording_listener();
    let s = serve(&["--json"], &[("SECRET_CANARY", canary)]);
    let info: Value = serde_json::from_str(&s.first_line).unwrap();
    let port = info["port"].as_u64().unwrap() as u16;
    let add = format!(
        r#"{{"name":"probe","kind":"openai-compatible","model":"x","base_url":"http://127.0.0.1:{listener}/v1","api_key_env":"SECRET_CANARY"}}"#
    );
    let added = http(port, "POST", "/api/model.add", &[], &add);
    assert_eq!(added.status, 401, "{}", added.body);
    assert_eq!(added.json()["code"], "unauthorized");
    assert!(added.json()["message"].as_str().unwrap().contains("Open the link that psebench serve printed"));
    let tested = http(port, "POST", "/api/model.test", &[], r#"{"name":"probe"}"#);
    assert_eq!(tested.status, 401, "{}", tested.body);
    std::thread::sleep(Duration::from_millis(300));
    assert!(seen.lock().unwrap().is_empty(), "the listener was reached: {:?}", seen.lock().unwrap());

    // The same calls with the key do reach the listener (so the listener would have seen them).
    let token = info["token"].as_str().unwrap();
    assert_eq!(info["link"], format!("http://127.0.0.1:{port}/#owner={token}"));
    let bearer = format!("Bearer {token}");
    let added = http(port, "POST", "/api/model.add", &[("Authorization", &bearer)], &add);
    assert_eq!(added.status, 200, "{}", added.body);
    let _ = http(port, "POST", "/api/model.test", &[("Authorization", &bearer)], r#"{"name":"probe"}"#);
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(seen.iter().any(|r| r.contains(canary)), "the owner's own test carries the key");
}

/// What a browser does with cookies, kept by hand: every `Set-Cookie` it is given is stored and
/// sent back on later requests to the same server, whatever the port (browsers do not tell the
/// ports of one host apart for cookies). Redirects are followed, and the fragment of an address is
/// never sent, as a browser does.
#[derive(Default)]
struct CookieJar {
    cookies: Vec<String>,
    /// Every `Set-Cookie` header any answer carried.
    set_cookie_seen: Vec<String>,
}

impl CookieJar {
    fn request(&mut self, port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let cookie = self.cookies.join("; ");
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if !cookie.is_empty() {
            all.push(("Cookie", &cookie));
        }
        let answer = http(port, method, path, &all, body);
        for (k, v) in &answer.headers {
            if k.eq_ignore_ascii_case("set-cookie") {
                self.set_cookie_seen.push(v.clone());
                self.cookies.push(v.split(';').next().unwrap_or("").trim().to_string());
            }
        }
        answer
    }

    /// Open an address as a browser would: without its fragment, following redirects.
    fn open(&mut self, port: u16, address: &str) -> Answer {
        let mut path = address.split('#').next().unwrap().to_string();
        for _ in 0..5 {
            let a = self.request(port, "GET", &path, &[], "");
            match a.header("location") {
                Some(next) if (300..400).contains(&a.status) => {
                    path = next.split('#').next().unwrap().to_string();
                }
                _ => return a,
            }
        }
        panic!("too many redirects from {address}");
    }
}

/// The path (with query and fragment) of a printed link on this server.
fn path_of(link: &str, port: u16) -> String {
    link.strip_prefix(&format!("http://127.0.0.1:{port}")).unwrap().to_string()
}

/// The cookie-leak attack of issue 25: the old sign-in put the key in a cookie of 127.0.0.1, which
/// the browser then sent to every other port of 127.0.0.1. Now the link carries the key in its
/// fragment, which no server receives: a browser following the link (or an old-style `?token=`
/// link) ends up with no cookie, a cookie jar alone opens nothing, and no answer sets a cookie.
#[test]
fn following_the_printed_link_leaves_no_cookie_that_opens_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("owner.key");
    let s = serve(&["--token-file", file.to_str().unwrap()], &[]);
    let token = std::fs::read_to_string(&file).unwrap().trim().to_string();
    // "PSEBench Studio is running at http://127.0.0.1:PORT/#owner=TOKEN ..."
    let link = s.first_line.split_whitespace().find(|w| w.starts_with("http://")).unwrap().to_string();
    let port: u16 = link.trim_start_matches("http://127.0.0.1:").split('/').next().unwrap().parse().unwrap();
    assert_eq!(link, format!("http://127.0.0.1:{port}/#owner={token}"), "{}", s.first_line);

    let mut browser = CookieJar::default();
    let page = browser.open(port, &path_of(&link, port));
    assert_eq!(page.status, 200, "the page of the link is the app");
    assert!(!page.body.contains(&token), "the key is not in the page");
    // An old-style link is sent on to the fragment form (which the browser keeps to itself).
    let old = browser.request(port, "GET", &format!("/?token={token}"), &[], "");
    assert_eq!(old.status, 303);
    assert_eq!(old.header("location"), Some(format!("/#owner={token}").as_str()));
    assert_eq!(browser.open(port, &format!("/?token={token}")).status, 200);
    assert_eq!(browser.open(port, "/?token=wrong").status, 401);
    assert!(browser.cookies.is_empty(), "no cookie was set: {:?}", browser.cookies);

    // The jar alone (what another port's server would have received) opens nothing, and neither
    // does a cookie holding the right key under the old cookie's name.
    let jar_only = browser.request(port, "POST", "/api/store.info", &[], "{}");
    assert_eq!(jar_only.status, 401, "{}", jar_only.body);
    assert_eq!(jar_only.json()["code"], "unauthorized");
    for forged in [format!("psebench_owner_{port}={token}"), format!("psebench_owner={token}")] {
        let r = http(port, "POST", "/api/store.info", &[("Cookie", &forged)], "{}");
        assert_eq!(r.status, 401, "{forged}: {}", r.body);
        let r = http(port, "GET", "/api/_methods", &[("Cookie", &forged)], "");
        assert_eq!(r.status, 401, "{forged}: {}", r.body);
    }

    // With the key as a Bearer header, as the app's page and scripts send it, the API answers.
    let bearer = format!("Bearer {token}");
    let ok = browser.request(port, "POST", "/api/store.info", &[("Authorization", &bearer)], "{}");
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(browser.request(port, "GET", "/api/_methods", &[("Authorization", &bearer)], "").status, 200);
    assert_eq!(browser.request(port, "GET", "/cards", &[], "").status, 200, "the UI stays public");
    assert_eq!(browser.request(port, "POST", "/api/no.such", &[("Authorization", &bearer)], "{}").status, 404);
    assert!(browser.set_cookie_seen.is_empty(), "an answer set a cookie: {:?}", browser.set_cookie_seen);
}

#[test]
fn the_token_file_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("owner.key");
    let s = serve(&["--token-file", file.to_str().unwrap(), "--json"], &[]);
    let token = std::fs::read_to_string(&file).unwrap().trim().to_string();
    assert_eq!(token.len(), 43, "{token}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let info: Value = serde_json::from_str(&s.first_line).unwrap();
    assert_eq!(info["token"], token.as_str());
    let port = info["port"].as_u64().unwrap() as u16;
    assert_eq!(info["link"], format!("http://127.0.0.1:{port}/#owner={token}"));
    assert_eq!(http(port, "POST", "/api/store.info", &[], "{}").status, 401);
    let bearer = format!("Bearer {token}");
    assert_eq!(http(port, "POST", "/api/store.info", &[("Authorization", &bearer)], "{}").status, 200);
}

/// `--token-file` does not write through a symbolic link (it could point at a file others read).
#[cfg(unix)]
#[test]
fn a_token_file_that_is_a_symbolic_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("world-readable.txt");
    std::fs::write(&target, "notes\n").unwrap();
    let link = dir.path().join("owner.key");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_psebench"))
        .args(["serve", "--port", "0", "--ui-dir"])
        .arg(ui_dir(dir.path()))
        .arg("--token-file")
        .arg(&link)
        .env("PSEBENCH_DB", dir.path().join("store.db"))
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "the server started");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&link.display().to_string()) && err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "notes\n");
}

/// `serve --open` hands the browser a private page that holds the link (and so the key); it is
/// deleted when the server stops, also when it is stopped with SIGTERM. The opener is replaced by
/// a script that only notes which file it was given (`PSEBENCH_OPENER`).
#[cfg(unix)]
#[test]
fn the_forwarding_page_of_open_is_deleted_after_sigterm() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let noted = dir.path().join("opened.txt");
    let opener = dir.path().join("fake-browser");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}.part'\nmv '{0}.part' '{0}'\n", noted.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut s = serve(
        &["--open", "--json"],
        &[("PSEBENCH_OPENER", opener.to_str().unwrap()), ("TMPDIR", tmp.to_str().unwrap())],
    );
    let info: Value = serde_json::from_str(&s.first_line).unwrap();
    let link = info["link"].as_str().unwrap().to_string();
    assert!(link.contains("/#owner="), "{link}");
    let started = std::time::Instant::now();
    while !noted.exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "the opener was never called");
        std::thread::sleep(Duration::from_millis(50));
    }
    let page = std::path::PathBuf::from(std::fs::read_to_string(&noted).unwrap());
    assert!(page.starts_with(&tmp), "{}", page.display());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(&format!("content=\"0;url={link}\"")), "the page forwards to the link: {html}");
    assert_eq!(std::fs::metadata(&page).unwrap().permissions().mode() & 0o777, 0o600);

    // SAFETY: `kill` takes plain numbers and only sends a signal to the process this test started.
    let pid = libc::pid_t::try_from(s.child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the server did not stop after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "a SIGTERM is a normal stop: {status:?}");
    assert!(!page.exists(), "the forwarding page {} is still there", page.display());
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "nothing is left in the temporary folder");
}

/// Whoever started the server may stop reading its output (a script, or `psebench serve |
/// head -1`): the server keeps serving instead of dying of a broken pipe. Here the output is closed
/// before the server writes its first line.
#[test]
fn the_server_keeps_serving_when_its_output_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_psebench"))
        .arg("serve")
        .args(["--port", &port.to_string(), "--ui-dir"])
        .arg(ui_dir(dir.path()))
        .env("PSEBENCH_DB", dir.path().join("store.db"))
        .env("HOME", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let started = std::time::Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(child.try_wait().unwrap().is_none(), "the server died when its output was closed");
        assert!(started.elapsed() < Duration::from_secs(20), "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(http(port, "POST", "/api/store.info", &[], "{}").status, 401);
    assert!(child.try_wait().unwrap().is_none(), "the server is still running");
    let _ = child.kill();
    let _ = child.wait();
}
