//! The engine handle every pipeline takes: the open store, the shared LLM client, the job hub and
//! the secret store. It sits at the bottom of the module stack (only `store`, `llm`, `jobs` and
//! `secrets` are below it), so generation, evaluation, review and the rest can take an [`Engine`]
//! without reaching up to `api`.
//!
//! Opening an engine with the built-in policy data loaded is `api`'s job (`Engine::open`), because
//! that needs the domain modules; this module only assembles the services.

pub mod batches;
pub mod change_feed;
pub mod demo_model;
pub mod discover;
pub mod model_test;
pub mod models;
pub mod simulation;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::{ApiError, ApiResult};
use crate::jobs::JobHub;
use crate::llm::{ClientOptions, LlmClient};
use crate::secrets::{KeyringStore, SecretStore};
use crate::store::Store;

/// How an engine is wired: where secrets live and how the LLM client behaves.
#[derive(Clone)]
pub struct EngineOptions {
    pub secrets: Arc<dyn SecretStore>,
    pub client: ClientOptions,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { secrets: Arc::new(KeyringStore), client: ClientOptions::default() }
    }
}

/// Per-process state that a module above this one keeps on the engine (a results cache, a
/// reviewer's local tokens) without this module knowing its type. One value per type, created on
/// first use and shared by every clone of the engine.
#[derive(Default)]
struct Extensions {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

/// The engine: an open store plus the services the pipelines share. Cheap to clone.
#[derive(Clone)]
pub struct Engine {
    store: Store,
    llm: Arc<LlmClient>,
    jobs: Arc<JobHub>,
    opts: EngineOptions,
    extensions: Arc<Extensions>,
}

impl Engine {
    /// Assemble the services around an already opened store. Nothing is loaded into the store;
    /// `api::Engine::open` does that.
    pub fn assemble(store: Store, opts: EngineOptions) -> Engine {
        let llm = Arc::new(LlmClient::new(store.clone(), opts.secrets.clone(), opts.client.clone()));
        Engine { store, llm, jobs: Arc::new(JobHub::default()), opts, extensions: Arc::default() }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Progress events and cancellation of running jobs.
    pub fn jobs(&self) -> &Arc<JobHub> {
        &self.jobs
    }

    /// Listen for the kinds of stored data that change from now on, written by this process or
    /// by another on the same store (see [`change_feed`]).
    pub fn change_events(&self) -> ApiResult<tokio::sync::broadcast::Receiver<change_feed::ChangeEvent>> {
        self.extension::<change_feed::ChangeFeed>().subscribe(&self.store)
    }

    /// The shared LLM client (cache, limits, accounting).
    pub fn llm(&self) -> &Arc<LlmClient> {
        &self.llm
    }

    /// What the run kernel (`jobs::runner`) needs to drive a long job.
    pub fn runner_services(&self) -> crate::jobs::runner::Services<'_> {
        crate::jobs::runner::Services { store: &self.store, hub: &self.jobs, llm: &self.llm }
    }

    /// Where API keys are kept.
    pub fn secrets(&self) -> &Arc<dyn SecretStore> {
        &self.opts.secrets
    }

    pub fn options(&self) -> &EngineOptions {
        &self.opts
    }

    /// A client that neither reads nor writes the cache (for checks that must reach the model).
    pub fn llm_without_cache(&self) -> LlmClient {
        let mut o = self.opts.client.clone();
        o.use_cache = false;
        LlmClient::new(self.store.clone(), self.opts.secrets.clone(), o)
    }

    /// Run sync engine work (a method that reads or writes the store) on a blocking thread, so
    /// async code does not hold up the runtime's worker threads while it runs.
    pub async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Engine) -> ApiResult<T> + Send + 'static,
    ) -> ApiResult<T> {
        let engine = self.clone();
        tokio::task::spawn_blocking(move || f(&engine))
            .await
            .map_err(|e| ApiError::internal(format!("a background engine task stopped unexpectedly: {e}")))?
    }

    /// The engine-wide value of type `T`, created with `T::default()` on first use.
    pub fn extension<T: Any + Send + Sync + Default>(&self) -> Arc<T> {
        let mut slots = self.extensions.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slot =
            slots.entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(T::default()) as Arc<dyn Any + Send + Sync>);
        match Arc::clone(slot).downcast::<T>() {
            Ok(v) => v,
            // Unreachable (the key is T's own TypeId); replace rather than panic.
            Err(_) => {
                let fresh = Arc::new(T::default());
                *slot = fresh.clone();
                fresh
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Counter(std::sync::atomic::AtomicU32);

    #[test]
    fn extensions_are_shared_by_clones_and_kept_per_type() {
        let e = Engine::assemble(
            Store::open_in_memory().unwrap(),
            EngineOptions {
                secrets: Arc::new(crate::secrets::MemoryStore::default()),
                client: ClientOptions::default(),
            },
        );
        let c = e.clone();
        e.extension::<Counter>().0.fetch_add(2, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(c.extension::<Counter>().0.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert!(c.extension::<Mutex<Vec<u8>>>().lock().unwrap().is_empty());
    }
}
