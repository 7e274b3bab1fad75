//! The fault suite: provider faults, a full or read-only disk, and fuzzed imports.
//! `CHAOS_LONG=1` runs the long versions (scripts/bench/chaos-faults).

// Test helpers may unwrap: a failure is a failed test, with the message it carries.
#![allow(clippy::unwrap_used)]

mod common_faults;
mod disk;
mod faults;
mod fuzz;
