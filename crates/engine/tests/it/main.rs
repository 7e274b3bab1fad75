//! Engine integration tests (one binary, one module per area).

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

mod anchor_jobs;
mod anchors;
mod async_store;
mod authoring;
mod authoring_draft;
mod batch;
mod builtin;
mod call_ledger;
mod cards;
mod cases;
mod change_feed;
mod common;
mod compare;
mod concurrency;
mod cost_cap;
mod demo_model;
mod eval;
mod eval_delete;
mod eval_reasoning;
mod generation;
mod honest_states;
mod keyring;
mod label_audit;
mod layers;
mod llm;
mod model_test;
mod policy;
mod policy_new;
mod protocol;
mod redirects;
mod results_stored;
mod review;
mod review_rationale;
mod review_sharing;
mod screen;
mod store;
mod table_owners;
