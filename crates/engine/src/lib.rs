//! PSEBench engine: everything behind the desktop app, the CLI and the local HTTP server.
//!
//! Dependencies point one way: `policy`, `card` → `case` → pipelines → `metrics` → exports.
//! `store` is the SQLite service; `api` is the only surface the shells call.

pub mod anchor;
pub mod api;
pub mod bench;
pub mod builtin;
pub mod card;
pub mod case;
pub mod charts;
pub mod error;
pub mod evaluation;
pub mod generation;
pub mod jobs;
pub mod llm;
pub mod logging;
pub mod metrics;
pub mod mock;
pub mod policy;
pub mod prompt;
pub mod review;
pub mod secrets;
pub mod server;
pub mod store;
pub mod tables;
pub mod trajectory;
pub mod util;

pub use error::{ApiError, ErrorCode};

/// Version of this build, shown in `psebench --version` and stored with every run.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
