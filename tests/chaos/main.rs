//! The fault suite: the real `psebench` binary killed, raced and starved on purpose (`kill`,
//! `writers`; the kinds of job beyond evaluation and generation in `kinds`), provider faults (`faults`, `faults_kinds`), a full or read-only disk (`disk`) and fuzzed imports
//! (`fuzz`). A short run is part of `cargo test -p psebench-cli`; `CHAOS_LONG=1` gives the full
//! figures (scripts/bench/chaos and scripts/bench/chaos-faults).

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

mod common_faults;
// A full disk and a read-only store are made with Unix tools (file-size limits, modes, mounts).
#[cfg(unix)]
mod disk;
mod faults;
mod faults_kinds;
mod fuzz;
mod kill;
mod kinds;
mod support;
mod writers;
