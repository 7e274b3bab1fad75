//! PSEBench engine: everything behind the desktop app, the CLI and the local HTTP server.
//!
//! The modules form a stack. A module may use the modules below it and none above or beside it
//! (the test `tests/it/layers.rs` reads every `crate::` path and holds the same list). The stack is
//! split into crates along the same order, so the compiler refuses any use of a higher crate's
//! module from a lower crate; the layers test still orders the modules inside each crate. Each table
//! of the store is read and written by one module only (`tests/it/table_owners.rs`):
//!
//! ```text
//! crate psebench (crates/engine)
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
//! protocol                              the protocol a run follows (paper|studio), what made it,
//!                                       whether runs compare
//! card · trajectory                     clause cards; evaluation transcripts
//! case                                  benchmark cases
//! policy                                policy packs (built-in ones parsed from `builtin`)
//! context                               the engine handle: store, LLM client, jobs, secrets
//!
//! crate psebench-llm (crates/llm)
//! jobs                                  long-running work, progress, stop rules
//! llm                                   providers, retries, limits, cache, accounting
//!
//! crate psebench-core (crates/core)
//! store · secrets · prompt · builtin    SQLite; API keys; prompt templates; embedded files;
//! · logging                             the log setup
//! util                                  files, text and number helpers
//! error                                 the error type every layer returns
//! ```
//!
//! Everything from `context` up stays in this crate: `context` defines the engine handle and the
//! modules above it add their methods to it (`impl Engine`), which only the defining crate may do.
//! The lower crates' modules are re-exported here under their own names, so `crate::store` inside
//! the engine and `psebench::store` outside it name the same module as before the split.
//!
//! Outside the stack: `psebench-server` (crates/server, `psebench serve`) and `psebench-bench`
//! (crates/bench, the benchmarks) are crates above this one; `psebench-mock` (crates/mock, the
//! loopback mock provider) uses nothing of the engine; the engine runs its demo model in-process
//! (`context::demo_model`) and re-exports the crate as `psebench::mock` with the `mock` feature.
//! The desktop app builds neither the server nor the benchmarks; the CLI builds the server, and
//! the benchmarks only with its `bench` feature.

pub use psebench_core::{builtin, error, logging, prompt, secrets, store, util};
pub use psebench_llm::{jobs, llm};
#[cfg(feature = "mock")]
pub use psebench_mock as mock;

pub mod anchor;
pub mod api;
pub mod authoring;
pub mod card;
pub mod case;
pub mod charts;
pub mod context;
pub mod evaluation;
pub mod export;
pub mod generation;
pub mod label_audit;
pub mod metrics;
pub mod policy;
pub mod protocol;
pub mod results;
pub mod review;
pub mod screen;
pub mod tables;
pub mod trajectory;

pub use error::{ApiError, ErrorCode};
/// Version of this build, shown in `psebench --version` and stored with every run.
pub use psebench_core::version;
