//! Engine integration tests (one binary, one module per area).

mod anchors;
mod builtin;
mod cards;
mod cases;
mod common;
mod eval;
mod generation;
mod keyring;
mod layers;
mod llm;
mod policy;
mod review;
mod store;
