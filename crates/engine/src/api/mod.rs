//! The single surface the shells call: one function per user action, typed requests and
//! responses, errors as `{code, message, detail}`. The CLI, the desktop app and `psebench serve`
//! all go through `Engine`.

pub mod cases;
pub mod files;
pub mod removals;
pub mod results;
pub mod rpc;
#[cfg(feature = "mock")]
pub mod seeded_copy;
pub mod store_info;

// The user actions live with their domain (one `Engine` method each); these names keep the
// request and response types where the shells have always found them.
pub use crate::card::actions as cards;
pub use crate::context::models;
pub use crate::policy::actions as policy;

use std::path::Path;
use std::sync::Arc;

use crate::error::ApiResult;
use crate::llm::ClientOptions;
use crate::store::Store;

pub use crate::card::builtin_library::{builtin_card_problem, BUILTIN_AUDITOR};

pub use crate::context::{Engine, EngineOptions};

impl Engine {
    /// Open (or create) the store at `path`, apply migrations, and load the built-in policy packs
    /// and card libraries. API keys go to the OS keyring.
    pub fn open(path: &Path) -> ApiResult<Engine> {
        Self::open_with(path, EngineOptions::default())
    }

    pub fn open_with(path: &Path, opts: EngineOptions) -> ApiResult<Engine> {
        let store = Store::open(path)?;
        Self::assemble_seeded(store, opts)
    }

    /// An engine on a private in-memory store (tests, file-only computations).
    pub fn open_in_memory() -> ApiResult<Engine> {
        let opts = EngineOptions {
            secrets: Arc::new(crate::secrets::MemoryStore::default()),
            client: ClientOptions::default(),
        };
        Self::assemble_seeded(Store::open_in_memory()?, opts)
    }

    fn assemble_seeded(store: Store, opts: EngineOptions) -> ApiResult<Engine> {
        let engine = Engine::assemble(store, opts);
        crate::card::builtin_library::seed(engine.store())?;
        crate::anchor::seed_builtin_anchors(engine.store())?;
        Ok(engine)
    }
}
