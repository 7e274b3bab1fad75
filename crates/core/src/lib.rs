//! PSEBench engine, bottom layers (see the crate documentation of `psebench` for the whole stack):
//!
//! ```text
//! store · secrets · prompt · builtin    SQLite; API keys; prompt templates; embedded files;
//! · logging                             the log setup
//! util                                  files, text and number helpers
//! error                                 the error type every layer returns
//! ```
//!
//! A module may use the modules below it and none above or beside it (`crates/engine/tests/it/layers.rs`).
//! The engine (`psebench`) re-exports every module here under its own name (`psebench::store`).

pub mod builtin;
pub mod error;
pub mod logging;
pub mod prompt;
pub mod secrets;
pub mod store;
pub mod util;

pub use error::{ApiError, ErrorCode};

/// Version of this build, shown in `psebench --version` and stored with every run.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
