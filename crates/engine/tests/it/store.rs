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
    assert_eq!(sync, 1, "synchronous=NORMAL");
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
    let kept: String = store.with_conn(|c| c.query_row("SELECT name FROM policies WHERE id = 'p'", [], |r| r.get(0))).unwrap();
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
