//! A full disk and a read-only store. The CLI must print a plain sentence ("The disk is full …",
//! "… is read-only …"), exit non-zero, and leave nothing half written: the store still opens and
//! passes SQLite's integrity check, a failed import adds no row, and an export is either complete
//! or absent.
//!
//! A full disk is made two ways: everywhere, by running the CLI with a lowered RLIMIT_FSIZE and
//! SIGXFSZ ignored (writes past the limit then fail with EFBIG, which is what a full disk looks
//! like to the program); and, when this user may mount file systems (root), on a small tmpfs
//! that really runs out of space (ENOSPC). A read-only store is a file and folder without write
//! permission for an ordinary user, and a tmpfs remounted read-only for root (who ignores
//! permissions).

use crate::common_faults::{s, start_mock, Env};
use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Run with every file this process writes limited to `bytes`, as on a disk with that much room.
fn run_with_file_limit(mut cmd: Command, bytes: u64) -> Output {
    // SAFETY: the closure only calls async-signal-safe functions (signal, setrlimit) between fork
    // and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The store opens, passes `PRAGMA integrity_check`, and holds this many cases.
fn store_is_whole(db: &Path) -> usize {
    let store = psebench::store::Store::open(db).unwrap();
    let (check, cases): (String, i64) = store
        .with_conn(|c| {
            let check = c.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
            let cases = c.query_row("SELECT count(*) FROM cases", [], |r| r.get(0))?;
            Ok::<_, psebench::ApiError>((check, cases))
        })
        .unwrap();
    assert_eq!(check, "ok", "the store is damaged");
    cases as usize
}

/// Nothing but `expected` lies in `dir` (no temporary or partial file).
fn only_files(dir: &Path, expected: &[&str]) {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, expected, "unexpected files in {}", dir.display());
}

/// A store with the demo loaded, and a file of as many new cases (the demo's, renamed).
fn store_and_new_cases(env: &Env) -> (usize, PathBuf) {
    env.ok(&["demo", "load"]);
    let all = env.path("all.jsonl");
    env.ok(&["cases", "export", "--out", s(&all)]);
    let renamed: String = std::fs::read_to_string(&all)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["case_id"] = json!(format!("chaos_{}", v["case_id"].as_str().unwrap()));
            format!("{v}\n")
        })
        .collect();
    let file = env.file("new.jsonl", &renamed);
    (store_is_whole(&env.db()), file)
}

fn assert_disk_full(o: &Output, what: &str) {
    assert!(!o.status.success(), "{what} succeeded on a full disk");
    let err = stderr(o);
    assert!(err.contains("The disk is full"), "{what}: no plain message:\n{err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

fn assert_read_only(o: &Output, what: &str) {
    assert!(!o.status.success(), "{what} succeeded on a read-only store");
    let err = stderr(o);
    assert!(err.contains("read-only"), "{what}: no plain message:\n{err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn a_full_disk_stops_an_import_and_an_export_with_a_plain_error_and_nothing_half_written() {
    let env = Env::new();
    let (before, file) = store_and_new_cases(&env);

    // The import needs far more than 256 KiB of new WAL pages: it fails, and adds nothing.
    let o = run_with_file_limit(env.command(&["cases", "import", s(&file)]), 256 * 1024);
    assert_disk_full(&o, "cases import");
    assert_eq!(store_is_whole(&env.db()), before, "the failed import left rows behind");

    // An export larger than the limit is absent afterwards, temporary file included.
    let out_dir = env.path("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let o = run_with_file_limit(env.command(&["cases", "export", "--out", s(&out_dir.join("c.jsonl"))]), 64 * 1024);
    assert_disk_full(&o, "cases export");
    only_files(&out_dir, &[]);

    // With room again, the same import goes through.
    env.ok(&["cases", "import", s(&file)]);
    assert_eq!(store_is_whole(&env.db()), 2 * before);
}

fn eval_script() -> psebench::mock::Script {
    let answer = r#"{"action": "ANSWER", "ask_question": null, "final_verdict": "Non-reportable", "targeted_clause": null, "clause_and_guidance_evidence": ["Care Management Events clause 1"], "rationale": "The harm stayed below the threshold."}"#;
    serde_json::from_value(json!({
        "rules": [
            {"name": "info", "when": {"system_contains": "look-up service"}, "reply": {"json": {"status": "unknown", "answer_to_eval": "Not in the record.", "fields_used": []}}},
            {"name": "judge", "when": {"system_contains": "You review the written reasoning", "last_user_regex": "- name: (\\w+)"}, "reply": {"json": {"hits": ["{{1}}"], "explanations": {}}}},
            {"name": "model", "reply": {"text": answer}}
        ]
    }))
    .unwrap()
}

#[test]
fn a_full_disk_during_an_evaluation_fails_plainly_and_a_resume_finishes_the_run() {
    let env = Env::new();
    let mock = start_mock(eval_script());
    for name in ["m", "info", "judge"] {
        env.ok(&[
            "models",
            "add",
            name,
            "--kind",
            "openai-compatible",
            "--model",
            name,
            "--base-url",
            &mock.server.openai_base(),
        ]);
    }
    env.ok(&["demo", "load"]);
    let args = [
        "eval",
        "run",
        "--cases",
        "origin=demo,limit=40",
        "--model",
        "m",
        "--info-model",
        "info",
        "--judge-model",
        "judge",
        "--concurrency",
        "2",
        "--json",
    ];
    // Room for the run and a few cases in the write-ahead log, not for forty.
    let o = run_with_file_limit(env.command(&args), 96 * 1024);
    assert!(!o.status.success(), "the run succeeded on a full disk:\n{}", String::from_utf8_lossy(&o.stdout));
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(all.contains("The disk is full"), "no plain message:\n{all}");
    store_is_whole(&env.db());

    // Every case recorded as done has its whole trajectory; the rest are pending, and a resume
    // with room again finishes the run.
    let runs = env.json(&["eval", "list"]);
    let run_id = runs[0]["run_id"].as_str().unwrap().to_string();
    let out = env.path("partial.jsonl");
    env.ok(&["eval", "export", &run_id, "--out", s(&out)]);
    let done_before = std::fs::read_to_string(&out).unwrap().lines().count();
    assert!(done_before < 40, "the limit did not bite");
    let resumed = env.json(&["eval", "resume", &run_id]);
    assert_eq!(resumed["status"], "completed", "{resumed}");
    assert_eq!(resumed["counts"]["done"], 40);
    eprintln!(
        "chaos-disk eval: {done_before} of 40 cases were done when the disk filled up; the resume finished the rest"
    );
}

/// A tmpfs of `size` mounted for the length of a test (root only), unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        if !is_root() {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700"), "tmpfs", s(dir.path())])
            .status()
            .map(|st| st.success())
            .unwrap_or(false);
        ok.then_some(Tmpfs { dir })
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn remount_read_only(&self) {
        let st = Command::new("mount").args(["-o", "remount,ro", s(self.path())]).status().unwrap();
        assert!(st.success(), "could not remount the tmpfs read-only");
    }
    fn remount_writable(&self) {
        let st = Command::new("mount").args(["-o", "remount,rw", s(self.path())]).status().unwrap();
        assert!(st.success(), "could not remount the tmpfs writable");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_store_on_a_tmpfs_that_runs_out_of_space_reports_a_full_disk() {
    let env = Env::new();
    let (before, file) = store_and_new_cases(&env);
    let size = std::fs::metadata(env.db()).unwrap().len();
    // Room for the store and a little more, not for the import's write-ahead log.
    let Some(fs) = Tmpfs::mount(&format!("{}k", size / 1024 + 192)) else {
        eprintln!("chaos-disk: cannot mount a tmpfs here (not root); the RLIMIT_FSIZE tests cover a full disk");
        return;
    };
    let db = fs.path().join("psebench.db");
    std::fs::copy(env.db(), &db).unwrap();
    let o = env.command(&["cases", "import", s(&file)]).env("PSEBENCH_DB", &db).output().unwrap();
    assert_disk_full(&o, "cases import on a full tmpfs");
    assert_eq!(store_is_whole(&db), before, "the failed import left rows behind");
    // An export onto the full tmpfs is absent afterwards.
    let o = env.command(&["cases", "export", "--out", s(&fs.path().join("c.jsonl"))]).output().unwrap();
    assert_disk_full(&o, "cases export onto a full tmpfs");
    assert!(!fs.path().join("c.jsonl").exists());
    assert!(std::fs::read_dir(fs.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains("tmp")));
}

/// Make the store read-only the way this user can: a read-only mount for root, permissions for
/// anyone else. Returns the store path and what must stay alive while it is used; `None` when this
/// is root without the right to mount (permissions do not stop root, so there is nothing to test).
fn read_only_store(env: &Env) -> Option<(PathBuf, Option<Tmpfs>)> {
    if let Some(fs) = Tmpfs::mount("16m") {
        let db = fs.path().join("psebench.db");
        std::fs::copy(env.db(), &db).unwrap();
        fs.remount_read_only();
        return Some((db, Some(fs)));
    }
    if is_root() {
        eprintln!("chaos-disk: root without the right to mount a tmpfs; a read-only store cannot be made here");
        return None;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = env.db().parent().unwrap().to_path_buf();
    std::fs::set_permissions(env.db(), std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    Some((env.db(), None))
}

fn make_writable(env: &Env, db: &Path, fs: &Option<Tmpfs>) {
    match fs {
        Some(fs) => fs.remount_writable(),
        None => {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(env.db().parent().unwrap(), std::fs::Permissions::from_mode(0o700)).unwrap();
            std::fs::set_permissions(db, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }
}

#[test]
fn a_read_only_store_refuses_changes_with_a_plain_error_and_stays_whole() {
    let env = Env::new();
    let (before, file) = store_and_new_cases(&env);
    env.ok(&[
        "models",
        "add",
        "m",
        "--kind",
        "openai-compatible",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]);
    let Some((db, fs)) = read_only_store(&env) else { return };
    let run = |args: &[&str]| env.command(args).env("PSEBENCH_DB", &db).output().unwrap();

    assert_read_only(&run(&["cases", "import", s(&file)]), "cases import");
    assert_read_only(
        &run(&[
            "eval",
            "run",
            "--cases",
            "origin=demo,limit=1",
            "--model",
            "m",
            "--info-model",
            "m",
            "--judge-model",
            "m",
        ]),
        "eval run",
    );
    make_writable(&env, &db, &fs);
    assert_eq!(store_is_whole(&db), before, "the read-only store changed");
    let o = run(&["cases", "list", "--json"]);
    assert!(o.status.success(), "the store does not open once writable again: {}", stderr(&o));
}

#[test]
fn an_export_into_a_read_only_folder_says_so_and_writes_nothing() {
    let env = Env::new();
    env.ok(&["demo", "load"]);
    let (dir, _fs) = match Tmpfs::mount("4m") {
        Some(fs) => {
            fs.remount_read_only();
            (fs.path().to_path_buf(), Some(fs))
        }
        None if is_root() => {
            eprintln!("chaos-disk: root without the right to mount a tmpfs; a read-only folder cannot be made here");
            return;
        }
        None => {
            use std::os::unix::fs::PermissionsExt;
            let d = env.path("locked");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o555)).unwrap();
            (d, None)
        }
    };
    let o = env.run(&["cases", "export", "--out", s(&dir.join("c.jsonl"))]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("read-only") || err.contains("ermission denied"), "no plain message:\n{err}");
    only_files(&dir, &[]);
}
