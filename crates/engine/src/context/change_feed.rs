//! Which kinds of stored data changed, for pages that show them: every open page learns that
//! review answers, runs, results, cards… changed, whoever wrote them (this process, the command
//! line, a review server on the same store).
//!
//! The store keeps one counter per kind in `change_counters`, bumped by triggers on that kind's
//! tables (migration `20261129120000_change_counters`), so no write path can forget to say so. A
//! watcher thread with a connection of its own looks every [`POLL`]: `PRAGMA data_version` tells
//! it cheaply whether any other connection committed since; only then are the counters read and
//! compared. Kinds whose counter moved are published as one [`ChangeEvent`]. The watcher runs
//! while someone listens and stops when the last listener is gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::error::{ApiError, ApiResult};
use crate::store::Store;

/// How often the watcher looks for changes.
pub const POLL: Duration = Duration::from_millis(500);

/// A kind of stored data that pages show and reload when it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Review sessions, reviewers, answers, links and adjudications.
    Reviews,
    /// Runs of every kind (evaluation, generation, authoring, audits): created, finished, deleted.
    Runs,
    /// The graded items of evaluation runs.
    Results,
    Cases,
    /// Clause cards, their versions and audit log.
    Cards,
    /// Anchors and anchor jobs' items.
    Anchors,
    Models,
    Policies,
    /// Provider batches.
    Batches,
    /// Authoring extractions and drafts.
    Authoring,
    /// Label audit results.
    LabelAudit,
}

impl ChangeKind {
    pub const ALL: [ChangeKind; 11] = [
        ChangeKind::Reviews,
        ChangeKind::Runs,
        ChangeKind::Results,
        ChangeKind::Cases,
        ChangeKind::Cards,
        ChangeKind::Anchors,
        ChangeKind::Models,
        ChangeKind::Policies,
        ChangeKind::Batches,
        ChangeKind::Authoring,
        ChangeKind::LabelAudit,
    ];

    /// The kind's name in `change_counters` (the same as its JSON name).
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Reviews => "reviews",
            ChangeKind::Runs => "runs",
            ChangeKind::Results => "results",
            ChangeKind::Cases => "cases",
            ChangeKind::Cards => "cards",
            ChangeKind::Anchors => "anchors",
            ChangeKind::Models => "models",
            ChangeKind::Policies => "policies",
            ChangeKind::Batches => "batches",
            ChangeKind::Authoring => "authoring",
            ChangeKind::LabelAudit => "label_audit",
        }
    }

    fn from_name(name: &str) -> Option<ChangeKind> {
        ChangeKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Kinds of stored data that changed since the last event (pushed as `event: change`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChangeEvent {
    pub kinds: Vec<ChangeKind>,
}

type Counters = HashMap<ChangeKind, i64>;

/// How the watcher reads the store: a connection of its own (a file store, where `data_version`
/// sees every other connection's commits), or the store's one connection (in memory).
enum Reader {
    Own { conn: Connection, data_version: i64 },
    Shared(Store),
}

impl Reader {
    fn open(store: &Store) -> ApiResult<Reader> {
        match store.own_connection()? {
            Some(conn) => {
                let data_version = data_version(&conn)?;
                Ok(Reader::Own { conn, data_version })
            }
            None => Ok(Reader::Shared(store.clone())),
        }
    }

    /// The counters, or `None` when nothing was committed since the last look.
    fn counters_if_changed(&mut self) -> ApiResult<Option<Counters>> {
        match self {
            Reader::Own { conn, data_version: seen } => {
                let now = data_version(conn)?;
                if now == *seen {
                    return Ok(None);
                }
                *seen = now;
                read_counters(conn).map(Some)
            }
            Reader::Shared(store) => store.with_read(read_counters).map(Some),
        }
    }

    fn counters(&self) -> ApiResult<Counters> {
        match self {
            Reader::Own { conn, .. } => read_counters(conn),
            Reader::Shared(store) => store.with_read(read_counters),
        }
    }
}

fn data_version(conn: &Connection) -> ApiResult<i64> {
    Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
}

/// How many changes of `kind` the store has counted so far (0 when none was ever counted). A value
/// that moved means that kind of data changed, whichever process wrote it: a cache keyed by it
/// (the stored Results report) is never stale.
pub fn change_count(conn: &Connection, kind: ChangeKind) -> ApiResult<i64> {
    let mut stmt = conn.prepare_cached("SELECT counter FROM change_counters WHERE kind = ?1")?;
    let mut rows = stmt.query([kind.name()])?;
    Ok(match rows.next()? {
        Some(row) => row.get(0)?,
        None => 0,
    })
}

fn read_counters(conn: &Connection) -> ApiResult<Counters> {
    let mut stmt = conn.prepare_cached("SELECT kind, counter FROM change_counters")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    let mut out = Counters::new();
    for row in rows {
        let (name, counter) = row?;
        // A kind this build does not know (written by a newer one) is not followed.
        if let Some(kind) = ChangeKind::from_name(&name) {
            out.insert(kind, counter);
        }
    }
    Ok(out)
}

/// The kinds whose counter differs between two readings, in a stable order.
fn changed_kinds(before: &Counters, after: &Counters) -> Vec<ChangeKind> {
    let mut kinds: Vec<ChangeKind> = after.iter().filter(|(k, v)| before.get(k) != Some(v)).map(|(k, _)| *k).collect();
    kinds.sort();
    kinds
}

/// The engine's change feed (one per engine, shared by its clones: `Engine::changes`).
pub struct ChangeFeed {
    sender: broadcast::Sender<ChangeEvent>,
    /// Whether a watcher thread is running; changed only under this lock.
    watching: Mutex<bool>,
}

impl Default for ChangeFeed {
    fn default() -> Self {
        ChangeFeed { sender: broadcast::channel(64).0, watching: Mutex::new(false) }
    }
}

impl ChangeFeed {
    /// Listen for changes to `store` (the engine's). Changes committed after this call are
    /// reported, by this process or any other.
    pub fn subscribe(self: &Arc<Self>, store: &Store) -> ApiResult<broadcast::Receiver<ChangeEvent>> {
        let mut watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
        let rx = self.sender.subscribe();
        if !*watching {
            // The starting point is read here, before the caller goes on to write anything.
            let reader = Reader::open(store)?;
            let start = reader.counters()?;
            let feed = Arc::clone(self);
            std::thread::Builder::new()
                .name("psebench-change-feed".into())
                .spawn(move || feed.watch(reader, start))
                .map_err(|e| ApiError::internal(format!("could not start watching the store for changes: {e}")))?;
            *watching = true;
        }
        Ok(rx)
    }

    fn watch(&self, mut reader: Reader, mut last: Counters) {
        loop {
            std::thread::sleep(POLL);
            {
                let mut watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
                if self.sender.receiver_count() == 0 {
                    *watching = false;
                    return;
                }
            }
            match reader.counters_if_changed() {
                Ok(Some(now)) => {
                    let kinds = changed_kinds(&last, &now);
                    last = now;
                    if !kinds.is_empty() {
                        // No listener left is not an error: the next look ends the watcher.
                        let _ = self.sender.send(ChangeEvent { kinds });
                    }
                }
                Ok(None) => {}
                // A busy or briefly unreadable store: look again next time.
                Err(e) => tracing::debug!(error = %e, "could not read the store's change counters"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_kinds_whose_counter_moved_are_reported() {
        let before: Counters = [(ChangeKind::Reviews, 1), (ChangeKind::Runs, 4), (ChangeKind::Cards, 0)].into();
        let after: Counters = [(ChangeKind::Reviews, 1), (ChangeKind::Runs, 5), (ChangeKind::Cards, 2)].into();
        assert_eq!(changed_kinds(&before, &after), vec![ChangeKind::Runs, ChangeKind::Cards]);
        assert!(changed_kinds(&after, &after).is_empty());
    }

    #[test]
    fn every_kind_has_a_counter_in_a_fresh_store() {
        let store = Store::open_in_memory().unwrap();
        let counters = store.with_read(read_counters).unwrap();
        for kind in ChangeKind::ALL {
            assert_eq!(counters.get(&kind), Some(&0), "{kind:?}");
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.name());
        }
    }
}
