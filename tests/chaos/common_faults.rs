//! Helpers of the fault tests: a store in a temporary folder driven through the real `psebench`
//! binary, and a loopback mock provider kept alive for the length of a test.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The long runs (`CHAOS_LONG=1`, see scripts/bench/chaos-faults) use more cases and iterations.
pub fn long_run() -> bool {
    std::env::var("CHAOS_LONG").map(|v| !v.is_empty() && v != "0").unwrap_or(false)
}

/// One store in its own folder.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env { dir: tempfile::tempdir().unwrap() }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("data/psebench.db")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_psebench"));
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
        let out = self.ok(&a);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("psebench {args:?} printed no JSON ({e}):\n{out}"))
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

/// A mock provider with its own runtime, alive as long as this value.
pub struct Mock {
    _rt: tokio::runtime::Runtime,
    pub server: psebench::mock::MockServer,
}

pub fn start_mock(script: psebench::mock::Script) -> Mock {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = rt.block_on(psebench::mock::MockServer::start(script, 0)).unwrap();
    Mock { _rt: rt, server }
}
