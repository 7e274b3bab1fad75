//! Migrations: fresh database, upgrade from the previous schema (with a backup), newer schema refused.

use psebench::api::Engine;
use psebench::store::{Store, StoreError, MIGRATIONS};
use rusqlite::Connection;

#[test]
fn fresh_database_gets_every_migration_and_pragmas() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/folder/p.db");
    let store = Store::open(&path).unwrap();
    assert!(store.open_report().created);
    assert!(store.open_report().backup.is_none());
    let applied = store.applied_migrations().unwrap();
    assert_eq!(applied, MIGRATIONS.iter().map(|m| m.id.to_string()).collect::<Vec<_>>());
    let (mode, fk, sync): (String, i64, i64) = store
        .with_conn(|c| {
            Ok::<_, rusqlite::Error>((
                c.pragma_query_value(None, "journal_mode", |r| r.get(0))?,
                c.pragma_query_value(None, "foreign_keys", |r| r.get(0))?,
                c.pragma_query_value(None, "synchronous", |r| r.get(0))?,
            ))
        })
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(fk, 1);
    assert_eq!(sync, 2, "synchronous=FULL: a committed unit survives a power cut");
    // reopening applies nothing and makes no backup
    drop(store);
    let again = Store::open(&path).unwrap();
    assert!(again.open_report().applied.is_empty());
    assert!(again.open_report().backup.is_none());
}

#[test]
fn upgrade_from_previous_schema_keeps_data_and_backs_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let old = Store::open_upto(&path, MIGRATIONS.len() - 1).unwrap();
        old.with_conn(|c| {
            c.execute(
                "INSERT INTO policies (id, name, edition, pack_json, builtin, created_at, updated_at) VALUES ('p', 'P', 'x', '{}', 0, 'now', 'now')",
                [],
            )
        })
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.open_report().applied, vec![MIGRATIONS.last().unwrap().id.to_string()]);
    let backup = store.open_report().backup.clone().expect("a backup is taken before migrating existing data");
    assert!(backup.exists());
    // the backup is the old schema, with the data
    let b = Connection::open(&backup).unwrap();
    let n: i64 = b.query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0)).unwrap();
    assert_eq!(n as usize, MIGRATIONS.len() - 1);
    let name: String = b.query_row("SELECT name FROM policies WHERE id = 'p'", [], |r| r.get(0)).unwrap();
    assert_eq!(name, "P");
    // and the upgraded store still has it
    let kept: String =
        store.with_conn(|c| c.query_row("SELECT name FROM policies WHERE id = 'p'", [], |r| r.get(0))).unwrap();
    assert_eq!(kept, "P");
}

#[test]
fn database_from_a_newer_build_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("newer.db");
    drop(Store::open(&path).unwrap());
    {
        let c = Connection::open(&path).unwrap();
        c.execute("INSERT INTO schema_migrations (id, applied_at, app_version) VALUES ('29990101000000_future', 'now', '9.0')", []).unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = match Store::open(&path) {
        Err(e) => e,
        Ok(_) => panic!("a newer database must be refused"),
    };
    assert!(matches!(err, StoreError::NewerSchema { .. }));
    let msg = err.to_string();
    assert!(msg.contains("newer version of PSEBench Studio") && msg.contains("29990101000000_future"), "{msg}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing may change");
    // through the API it is a store_unavailable error
    let api = Engine::open(&path).err().unwrap();
    assert_eq!(api.code.as_str(), "store_unavailable");
}

#[test]
fn a_failing_migration_rolls_back_only_itself() {
    // Simulated by a database where the second migration's table already exists.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clash.db");
    drop(Store::open_upto(&path, 1).unwrap());
    Connection::open(&path).unwrap().execute("CREATE TABLE cases (x)", []).unwrap();
    let err = match Store::open(&path) {
        Err(e) => e,
        Ok(_) => panic!("the clash must fail"),
    };
    assert!(matches!(err, StoreError::Migration { .. }), "{err}");
    let c = Connection::open(&path).unwrap();
    let n: i64 = c.query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1, "the first migration stays applied, the failed one is not recorded");
}

fn engine_with_runs(dir: &std::path::Path) -> (Engine, Vec<String>) {
    let e = Engine::open_with(
        &dir.join("s.db"),
        psebench::api::EngineOptions {
            secrets: std::sync::Arc::new(psebench::secrets::MemoryStore::default()),
            client: Default::default(),
        },
    )
    .unwrap();
    e.demo_load().unwrap();
    let runs = e.demo_example_results().unwrap().run_ids;
    (e, runs)
}

#[test]
fn a_corrupt_stored_configuration_is_an_error_naming_table_column_and_row() {
    let dir = tempfile::tempdir().unwrap();
    let (e, runs) = engine_with_runs(dir.path());
    let run = &runs[0];
    e.store()
        .with_conn(|c| c.execute("UPDATE runs SET config_json = '{\"model\": ' WHERE run_id = ?1", [run]))
        .unwrap();
    let err = e.evaluation_show(run).unwrap_err();
    let want = format!("The stored configuration of run {run} (table runs, column config_json) is not valid JSON");
    assert!(err.message.starts_with(&want), "{}", err.message);
    assert_eq!(err.code, psebench::ErrorCode::StoreFailed);
    // Lists that include the row fail the same way instead of showing a run without its settings.
    assert!(e.evaluation_list().unwrap_err().message.starts_with(&want));
    // The other runs are untouched.
    assert!(e.evaluation_show(&runs[1]).is_ok());
}

#[test]
fn readers_do_not_wait_for_the_writer_and_cannot_write() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("r.db")).unwrap();
    store.with_conn(|c| c.execute("INSERT INTO settings (key, value) VALUES ('k', 'v1')", [])).unwrap();
    let (holding_tx, holding_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let released = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, released) = (store.clone(), released.clone());
        std::thread::spawn(move || {
            store
                .with_tx(|tx| {
                    tx.execute("UPDATE settings SET value = 'v2' WHERE key = 'k'", [])?;
                    holding_tx.send(()).unwrap();
                    // Hold the writer (and its open transaction) until the reader is done, or give up.
                    let _ = release_rx.recv_timeout(std::time::Duration::from_secs(20));
                    released.store(true, Ordering::SeqCst);
                    Ok::<_, rusqlite::Error>(())
                })
                .unwrap();
        })
    };
    holding_rx.recv().unwrap();
    let seen: String =
        store.with_read(|c| c.query_row("SELECT value FROM settings WHERE key = 'k'", [], |r| r.get(0))).unwrap();
    assert!(!released.load(Ordering::SeqCst), "the read waited for the writer");
    assert_eq!(seen, "v1", "a reader sees the last committed state");
    release_tx.send(()).unwrap();
    writer.join().unwrap();
    let now: String =
        store.with_read(|c| c.query_row("SELECT value FROM settings WHERE key = 'k'", [], |r| r.get(0))).unwrap();
    assert_eq!(now, "v2", "a committed write is visible to readers");
    let refused = store.with_read(|c| c.execute("DELETE FROM settings", []));
    assert!(refused.is_err(), "read connections are read-only");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_calls_run_on_blocking_threads_with_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    for store in [Store::open(&dir.path().join("a.db")).unwrap(), Store::open_in_memory().unwrap()] {
        store.call(|c| Ok(c.execute("INSERT INTO settings (key, value) VALUES ('a', 'b')", [])?)).await.unwrap();
        let v: String = store
            .call_read(|c| Ok(c.query_row("SELECT value FROM settings WHERE key = 'a'", [], |r| r.get(0))?))
            .await
            .unwrap();
        assert_eq!(v, "b");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_transaction_commits_on_ok_and_rolls_back_on_err() {
    let dir = tempfile::tempdir().unwrap();
    for store in [Store::open(&dir.path().join("a.db")).unwrap(), Store::open_in_memory().unwrap()] {
        let n = store
            .call_tx(|tx| Ok(tx.execute("INSERT INTO settings (key, value) VALUES ('kept', '1')", [])?))
            .await
            .unwrap();
        assert_eq!(n, 1);
        let failed = store
            .call_tx(|tx| -> psebench::error::ApiResult<()> {
                tx.execute("INSERT INTO settings (key, value) VALUES ('dropped', '1')", [])?;
                Err(psebench::error::ApiError::invalid("stop"))
            })
            .await;
        assert!(failed.is_err());
        let keys: Vec<String> = store
            .call_read(|c| {
                let mut st = c.prepare("SELECT key FROM settings WHERE key IN ('kept', 'dropped') ORDER BY key")?;
                let rows = st.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
                Ok(rows)
            })
            .await
            .unwrap();
        assert_eq!(keys, vec!["kept".to_string()], "the failed transaction left nothing behind");
    }
}

#[cfg(unix)]
#[test]
fn the_store_folder_database_wal_and_backup_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("data");
    let path = folder.join("p.db");
    {
        let old = Store::open_upto(&path, MIGRATIONS.len() - 1).unwrap();
        assert_eq!(mode(&folder), 0o700, "a data folder the store creates is owner-only");
        assert_eq!(mode(&path), 0o600);
        for side in ["p.db-wal", "p.db-shm"] {
            let p = folder.join(side);
            assert!(p.exists(), "{side} exists while the store is open");
            assert_eq!(mode(&p), 0o600, "{side}");
        }
        drop(old);
    }
    let store = Store::open(&path).unwrap();
    let backup = store.open_report().backup.clone().expect("upgrading takes a backup");
    assert_eq!(mode(&backup), 0o600, "the backup before an upgrade is owner-only");
}

#[cfg(unix)]
#[test]
fn an_existing_data_folder_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o750)).unwrap();
    drop(Store::open(&dir.path().join("p.db")).unwrap());
    assert_eq!(std::fs::metadata(dir.path()).unwrap().permissions().mode() & 0o777, 0o750);
}

#[test]
fn rebuilding_the_runs_table_keeps_runs_and_what_points_at_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let at = MIGRATIONS.iter().position(|m| m.id == "20261125210100_runs_authoring_kind").unwrap();
    {
        let old = Store::open_upto(&path, at).unwrap();
        old.with_conn(|c| {
            c.execute(
                "INSERT INTO runs (run_id, kind, status, config_json, created_at, app_version, owner_id)
                 VALUES ('eval-1', 'eval', 'completed', '{}', 'now', '0.1', 'me')",
                [],
            )?;
            c.execute(
                "INSERT INTO eval_items (run_id, case_id, repeat, status) VALUES ('eval-1', 'case-1', 0, 'done')",
                [],
            )
        })
        .unwrap();
        let refused = old.with_conn(|c| {
            c.execute(
                "INSERT INTO runs (run_id, kind, status, config_json, created_at, app_version)
                 VALUES ('author-1', 'authoring', 'pending', '{}', 'now', '0.1')",
                [],
            )
        });
        assert!(refused.is_err(), "before the change, drafting jobs are not a kind of run");
    }
    let store = Store::open(&path).unwrap();
    let (owner, items, fk): (String, i64, i64) = store
        .with_conn(|c| {
            Ok::<_, rusqlite::Error>((
                c.query_row("SELECT owner_id FROM runs WHERE run_id = 'eval-1'", [], |r| r.get(0))?,
                c.query_row("SELECT COUNT(*) FROM evaluation_items WHERE run_id = 'eval-1'", [], |r| r.get(0))?,
                c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?,
            ))
        })
        .unwrap();
    assert_eq!((owner.as_str(), items, fk), ("me", 1, 1), "rows kept, and foreign keys are on again");
    store
        .with_conn(|c| {
            c.execute(
                "INSERT INTO runs (run_id, kind, status, config_json, created_at, app_version)
                 VALUES ('author-1', 'authoring', 'pending', '{}', 'now', '0.1')",
                [],
            )?;
            // Deleting a run still removes what points at it.
            c.execute("DELETE FROM runs WHERE run_id = 'eval-1'", [])?;
            c.query_row("SELECT COUNT(*) FROM evaluation_items", [], |r| r.get::<_, i64>(0))
        })
        .map(|n| assert_eq!(n, 0))
        .unwrap();
}
