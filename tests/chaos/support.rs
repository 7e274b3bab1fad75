//! Shared pieces of the chaos tests: the real `psebench` binary on a scratch store, the mock
//! provider as a process of its own (so it outlives the processes we kill), a tiny HTTP client,
//! a seeded random source, and the comparison of exports apart from times and run ids.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_psebench");

/// `CHAOS_LONG=1` asks for the full figures (more kill points, longer runs).
pub fn long() -> bool {
    std::env::var("CHAOS_LONG").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A scratch folder with its own store.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    /// The store is already seeded (as after a first start): seeding takes over a second in a
    /// debug build, and every chaos test makes at least one store.
    pub fn new() -> Env {
        let env = Env { dir: tempfile::tempdir().unwrap() };
        psebench::api::seeded_copy::put_seeded_store(&env.db()).unwrap();
        env
    }
    pub fn db(&self) -> PathBuf {
        self.dir.path().join("data/psebench.db")
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args).env("PSEBENCH_DB", self.db()).env_remove("RUST_BACKTRACE").env_remove("RUST_LOG");
        c
    }
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
    pub fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(
            o.status.success(),
            "psebench {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }
    pub fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_str(&self.ok(&a)).unwrap()
    }
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The mock provider (`psebench mock-llm serve`) in a child process, stopped when dropped.
pub struct MockProcess {
    child: Child,
    pub root: String,
    pub base: String,
    _script: tempfile::NamedTempFile,
}

impl MockProcess {
    pub fn start(script: &Value) -> MockProcess {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(script.to_string().as_bytes()).unwrap();
        let mut child = Command::new(BIN)
            .args(["mock-llm", "serve", "--port", "0", "--script"])
            .arg(file.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let base = line
            .split_whitespace()
            .map(|w| w.trim_end_matches(['.', ')']))
            .find(|w| w.starts_with("http://") && w.ends_with("/v1"))
            .unwrap_or_else(|| panic!("unexpected mock banner: {line}"))
            .to_string();
        let root = base.trim_end_matches("/v1").to_string();
        MockProcess { child, root, base, _script: file }
    }

    /// Every request the mock received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        let v: Value =
            serde_json::from_str(&http("GET", &format!("{}/_mock/requests", self.root), None, None).1).unwrap();
        v.as_array().unwrap().clone()
    }
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.1 request (loopback only): status and body.
pub fn http(method: &str, url: &str, body: Option<&str>, bearer: Option<&str>) -> (u16, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.unwrap_or("");
    let auth = bearer.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(rest) } else { rest.to_string() };
    (status, body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A small seeded random source (the same seed gives the same kill points).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo).max(1)
    }
}

/// Kill a child with SIGKILL (no chance to clean up) and reap it.
pub fn kill9(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Run ids, times and durations replaced, so two runs of the same work compare equal.
pub fn normalised(text: &str, run_ids: &[&str]) -> Vec<Value> {
    let mut t = text.to_string();
    for id in run_ids {
        t = t.replace(id, "RUN");
    }
    let mut lines: Vec<Value> = t
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            blank_times(&mut v);
            v
        })
        .collect();
    lines.sort_by_key(|v| v.to_string());
    lines
}

fn is_volatile_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    k.ends_with("_at")
        || k.ends_with("_ms")
        || k.ends_with("_secs")
        || k.contains("time")
        || k.contains("duration")
        || k.contains("elapsed")
        || k.contains("latency")
        || k == "date"
        // Whether a turn came from the cache: a resumed run reuses the answers of calls made
        // before the kill, which is the point; the turns themselves must be the same.
        || k == "cache_hit"
}

fn blank_times(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if is_volatile_key(k) {
                    *x = Value::Null;
                } else {
                    blank_times(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(blank_times),
        _ => {}
    }
}

/// The requests whose body was already sent before (paid twice).
pub fn repeated_bodies(requests: &[Value]) -> Vec<(u64, u64)> {
    let mut first: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for r in requests {
        let seq = r["seq"].as_u64().unwrap();
        let body = r["body"].to_string();
        match first.get(&body) {
            Some(f) => out.push((*f, seq)),
            None => {
                first.insert(body, seq);
            }
        }
    }
    out
}

/// Text that must never reach a user.
pub fn assert_no_lock_error(what: &str, text: &str) {
    let lower = text.to_ascii_lowercase();
    assert!(
        !lower.contains("database is locked") && !lower.contains("database is busy") && !lower.contains("sqlite_busy"),
        "{what} shows a locking error:\n{text}"
    );
}
