//! PSEBench engine: everything behind the desktop app, the CLI and the local HTTP server.
//!
//! The modules form a stack. A module may use the modules below it and none above or beside it
//! (the test `tests/it/layers.rs` reads every `crate::` path and holds the same list). Each table
//! of the store is read and written by one module only (`tests/it/table_owners.rs`):
//!
//! ```text
//! api                                   thin typed surface the shells call
//! export · results                      report files: tables and charts written to a folder;
//!                                       the Results screen's views (grid, transcript, charts)
//! review                                human review sessions (reads evaluation runs' rationales)
//! generation · evaluation · label_audit pipelines: case generation, evaluation runs and re-judging,
//!                                       the label audit of stored cases (screened by models)
//! anchor · screen                       anchor materials and their model-assisted sorting; the
//!                                       policy-wide clause screen
//! authoring                             loyal extraction of the policy passages for each clause,
//!                                       approved by a person (the context of the modules above)
//! tables                                the paper's tables (CSV, Markdown, LaTeX)
//! charts                                the paper's charts (SVG, PNG)
//! metrics                               M1–M8, intervals, paired tests, per-clause rows
//! card · trajectory                     clause cards; evaluation transcripts
//! case                                  benchmark cases
//! policy                                policy packs (built-in ones parsed from `builtin`)
//! context                               the engine handle: store, LLM client, jobs, secrets
//! jobs                                  long-running work, progress, stop rules
//! llm                                   providers, retries, limits, cache, accounting
//! store · secrets · prompt · builtin    SQLite; API keys; prompt templates; embedded files;
//! · logging                             the log setup
//! util                                  files, text and number helpers
//! error                                 the error type every layer returns
//! ```
//!
//! Outside the stack, behind cargo features: `server` (`psebench serve`), `mock` (the loopback
//! mock provider) and `bench` (benchmarks). The desktop app builds none of them.

pub mod anchor;
pub mod api;
pub mod authoring;
#[cfg(feature = "bench")]
pub mod bench;
pub mod builtin;
pub mod card;
pub mod case;
pub mod charts;
pub mod context;
pub mod error;
pub mod evaluation;
pub mod export;
pub mod generation;
pub mod jobs;
pub mod label_audit;
pub mod llm;
pub mod logging;
pub mod metrics;
#[cfg(feature = "mock")]
pub mod mock;
pub mod policy;
pub mod prompt;
pub mod results;
pub mod review;
pub mod screen;
pub mod secrets;
#[cfg(feature = "server")]
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
