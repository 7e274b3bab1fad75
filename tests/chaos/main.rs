//! Chaos tests: the real `psebench` binary killed, raced and starved on purpose. A short run is
//! part of `cargo test -p psebench-cli`; `CHAOS_LONG=1` (see scripts/bench/chaos) gives the full
//! figures.

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

mod kill;
mod support;
mod writers;
