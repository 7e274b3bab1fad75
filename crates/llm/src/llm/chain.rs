//! An item's ledger writes, in order, without one commit each.
//!
//! A call made with a chain in its context (`CallContext::chained`) queues its ledger row and
//! cache entry and returns without waiting for their commit. The chain then holds the write:
//! - the item's next call waits for it to be committed before anything is sent, so a paid reply
//!   is on disk before the next request leaves (nothing paid is asked again after a crash);
//! - the item's own last write (a finished case) is queued behind it and commits it in the same
//!   transaction, one flush to the disk instead of two; [`CallChain::settle`] then reports it.
//!
//! A chain dropped with writes still queued starts their commit.

use std::sync::{Arc, Mutex};

use crate::store::{GroupedWrite, Store};

/// The ledger writes of one item's calls that are queued and not yet known to be committed.
#[derive(Clone)]
pub struct CallChain(Arc<Pending>);

struct Pending {
    store: Store,
    writes: Mutex<Vec<GroupedWrite<i64>>>,
}

impl CallChain {
    pub fn new(store: &Store) -> CallChain {
        CallChain(Arc::new(Pending { store: store.clone(), writes: Mutex::new(Vec::new()) }))
    }

    /// Hold a queued write until it is settled.
    pub(crate) fn hold(&self, w: GroupedWrite<i64>) {
        self.0.writes.lock().unwrap_or_else(|p| p.into_inner()).push(w);
    }

    /// The store the chain's writes go to.
    pub(crate) fn store(&self) -> &Store {
        &self.0.store
    }

    /// Wait until every held write is committed, starting the commit when no other write has.
    /// A write that failed is logged (usage totals miss that call), as for a call recorded at once.
    pub async fn settle(&self) {
        let writes = std::mem::take(&mut *self.0.writes.lock().unwrap_or_else(|p| p.into_inner()));
        if writes.is_empty() {
            return;
        }
        self.0.store.flush_grouped();
        for w in writes {
            if let Err(e) = w.committed().await {
                tracing::warn!(error = %e, "could not record a model call in the ledger; usage totals will miss it");
            }
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let held = self.writes.get_mut().map(|w| !w.is_empty()).unwrap_or(true);
        if held {
            self.store.flush_grouped();
        }
    }
}

impl std::fmt::Debug for CallChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallChain")
    }
}

/// Two contexts are alike whether or not their calls share a chain (it is how they are written,
/// not what they are).
impl PartialEq for CallChain {
    fn eq(&self, _: &CallChain) -> bool {
        true
    }
}
