//! PSEBench engine, the LLM layer and the jobs layer above it (see the crate documentation of
//! `psebench` for the whole stack):
//!
//! ```text
//! jobs                                  long-running work, progress, stop rules
//! llm                                   providers, retries, limits, cache, accounting
//! ```
//!
//! Below them is `psebench-core`; its modules are imported here under their own names, so that
//! `crate::store` and `crate::error` name them as they do in the engine. The engine (`psebench`)
//! re-exports `llm` and `jobs` (`psebench::llm`).

pub mod jobs;
pub mod llm;

use psebench_core::{error, secrets, store, util, version};
