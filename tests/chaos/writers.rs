//! Two writers on one store: a `psebench serve` process taking writes through its HTTP API and
//! CLI processes writing at the same time, for 8 s (60 s with CHAOS_LONG=1). No locking error
//! may reach anyone, and every write that was acknowledged must be in the store afterwards.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{assert_no_lock_error, http, Env};

fn seconds() -> u64 {
    if crate::support::long() {
        60
    } else {
        8
    }
}

/// `psebench serve` on a free port: the child, the API root and the owner token if it needs one.
struct Served {
    child: Child,
    api: String,
    token: Option<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(env: &Env) -> Served {
    // The owner API needs the launch key, which --token-file writes for scripts.
    let token_file = env.path("owner.token");
    let args = ["serve", "--port", "0", "--json", "--token-file", token_file.to_str().unwrap()];
    let mut child = env.command(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let banner: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("serve printed {line:?}: {e}"));
    let url = banner["url"].as_str().unwrap().to_string();
    let token = std::fs::read_to_string(&token_file).unwrap().trim().to_string();
    assert_eq!(banner["token"].as_str(), Some(token.as_str()), "the printed key and the key file differ");
    Served { child, api: format!("{}/api", url.trim_end_matches('/')), token: Some(token) }
}

#[derive(Debug, Default, serde::Serialize)]
pub struct WriterFigures {
    pub seconds: u64,
    pub server_writes_acknowledged: usize,
    pub server_writes_refused: usize,
    pub cli_writes_acknowledged: usize,
    pub cli_writes_refused: usize,
    pub server_rows_found: usize,
    pub cli_rows_found: usize,
    pub lock_errors_seen: usize,
}

#[test]
fn a_server_and_the_cli_writing_one_store_lose_nothing_and_show_no_lock_errors() {
    let env = Env::new();
    env.ok(&["status"]);
    let served = serve(&env);
    let deadline = Instant::now() + Duration::from_secs(seconds());
    let stop = Arc::new(AtomicBool::new(false));
    let errors: Arc<Mutex<Vec<String>>> = Arc::default();

    // Writer 1: the server, through its API, two clients at once.
    let server_writers: Vec<_> = (0..2)
        .map(|w| {
            let (api, token, stop, errors) = (served.api.clone(), served.token.clone(), stop.clone(), errors.clone());
            std::thread::spawn(move || {
                let (mut ok, mut refused) = (0usize, 0usize);
                let mut i = 0;
                while !stop.load(Ordering::SeqCst) {
                    let body = json!({"name": format!("srv-{w}-{i}"), "kind": "openai-compatible", "model": "x", "base_url": "http://127.0.0.1:9/v1"});
                    let (status, text) = http("POST", &format!("{api}/model.add"), Some(&body.to_string()), token.as_deref());
                    if status == 200 {
                        ok += 1;
                    } else {
                        refused += 1;
                        errors.lock().unwrap().push(format!("server {status}: {text}"));
                    }
                    i += 1;
                }
                (ok, refused)
            })
        })
        .collect();

    // Writer 2: the CLI, one process per write (each opens the store, as a user's commands do).
    let (mut cli_ok, mut cli_refused, mut i) = (0usize, 0usize, 0);
    while Instant::now() < deadline {
        let name = format!("cli-{i}");
        let o = env.run(&[
            "models",
            "add",
            &name,
            "--kind",
            "openai-compatible",
            "--model",
            "x",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ]);
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        if o.status.success() {
            cli_ok += 1;
        } else {
            cli_refused += 1;
        }
        if !o.status.success() || text.to_ascii_lowercase().contains("locked") {
            errors.lock().unwrap().push(format!("cli: {text}"));
        }
        i += 1;
    }
    stop.store(true, Ordering::SeqCst);
    let (mut srv_ok, mut srv_refused) = (0, 0);
    for w in server_writers {
        let (o, r) = w.join().unwrap();
        srv_ok += o;
        srv_refused += r;
    }
    let mut served = served;
    let _ = served.child.kill();
    let _ = served.child.wait();
    let mut server_log = String::new();
    if let Some(mut e) = served.child.stderr.take() {
        let _ = e.read_to_string(&mut server_log);
    }

    let models = env.json(&["models", "list"]);
    let names: Vec<String> =
        models.as_array().unwrap().iter().filter_map(|m| m["name"].as_str().map(str::to_string)).collect();
    let errors = errors.lock().unwrap().clone();
    let all_text = format!("{}\n{server_log}", errors.join("\n"));
    let figures = WriterFigures {
        seconds: seconds(),
        server_writes_acknowledged: srv_ok,
        server_writes_refused: srv_refused,
        cli_writes_acknowledged: cli_ok,
        cli_writes_refused: cli_refused,
        server_rows_found: names.iter().filter(|n| n.starts_with("srv-")).count(),
        cli_rows_found: names.iter().filter(|n| n.starts_with("cli-")).count(),
        lock_errors_seen: all_text.to_ascii_lowercase().matches("locked").count(),
    };
    eprintln!("CHAOS {}", json!({"writers": &figures}));
    assert_no_lock_error("the writers' output", &all_text);
    assert!(errors.is_empty(), "writes were refused: {errors:?}");
    assert_eq!(figures.server_rows_found, srv_ok, "acknowledged server writes are missing");
    assert_eq!(figures.cli_rows_found, cli_ok, "acknowledged CLI writes are missing");
    assert!(srv_ok > 0 && cli_ok > 0, "{figures:?}");
}
