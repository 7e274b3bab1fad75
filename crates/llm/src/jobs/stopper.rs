//! When a run should stop by itself: at once on a provider error that retrying cannot fix (a
//! missing key, a refused model, a bad configuration), or after several work items in a row failed
//! even after the client's own retries. The first reason is kept and becomes the run's message.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::llm::LlmError;

/// Items failing one after another before a run stops itself.
pub const CONSECUTIVE_FAILURES_TO_STOP: u32 = 5;

/// A provider error that every further call would repeat.
pub fn is_fatal(e: &LlmError) -> bool {
    match e {
        LlmError::MissingKey { .. } | LlmError::Secrets(_) | LlmError::Config(_) => true,
        // The model's address redirects elsewhere: every call would be refused the same way.
        LlmError::Redirected { .. } | LlmError::ForeignAddress { .. } => true,
        LlmError::Rejected { status, .. } => matches!(status, 401 | 403 | 404),
        _ => false,
    }
}

pub struct RunStopper {
    stop: CancellationToken,
    in_a_row: AtomicU32,
    reason: Mutex<Option<String>>,
    /// What one work item is called in messages ("cases", "card-and-anchor pairs").
    items: &'static str,
    /// What is kept when the run stops ("cases", "candidates").
    kept: &'static str,
}

impl RunStopper {
    pub fn new(stop: CancellationToken, items: &'static str, kept: &'static str) -> RunStopper {
        RunStopper { stop, in_a_row: AtomicU32::new(0), reason: Mutex::new(None), items, kept }
    }

    /// An item finished: the streak of failures is over.
    pub fn succeeded(&self) {
        self.in_a_row.store(0, Ordering::SeqCst);
    }

    /// Stop the run for this reason (the first reason given wins).
    pub fn stop(&self, reason: String) {
        let mut r = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        if r.is_none() {
            *r = Some(reason);
        }
        self.stop.cancel();
    }

    /// An item failed because of its model calls; stops the run when retrying cannot help.
    pub fn model_failed(&self, e: &LlmError) {
        let n = self.in_a_row.fetch_add(1, Ordering::SeqCst) + 1;
        if is_fatal(e) {
            self.stop(format!(
                "{e} Fix this in Settings → Models (or with `psebench models`) and resume the run; finished {} are kept.",
                self.kept
            ));
        } else if n >= CONSECUTIVE_FAILURES_TO_STOP {
            self.stop(format!(
                "{n} {} in a row failed; last problem: {e}. Finished {} are kept; resume when the provider is reachable again.",
                self.items, self.kept
            ));
        }
    }

    /// Why the run stopped itself, if it did.
    pub fn reason(&self) -> Option<String> {
        self.reason.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transient() -> LlmError {
        LlmError::Cancelled
    }

    #[test]
    fn a_streak_of_failures_stops_the_run_and_a_success_resets_it() {
        let s = RunStopper::new(CancellationToken::new(), "cases", "cases");
        for _ in 0..CONSECUTIVE_FAILURES_TO_STOP - 1 {
            s.model_failed(&transient());
        }
        s.succeeded();
        for _ in 0..CONSECUTIVE_FAILURES_TO_STOP - 1 {
            s.model_failed(&transient());
        }
        assert!(s.reason().is_none() && !s.stop.is_cancelled());
        s.model_failed(&transient());
        assert!(s.stop.is_cancelled());
        assert!(s.reason().unwrap().starts_with("5 cases in a row failed"));
    }

    #[test]
    fn a_fatal_error_stops_at_once_and_the_first_reason_is_kept() {
        let s = RunStopper::new(CancellationToken::new(), "pairs", "candidates");
        s.model_failed(&LlmError::MissingKey { model: "m".into() });
        assert!(s.stop.is_cancelled());
        s.stop("later reason".into());
        let r = s.reason().unwrap();
        assert!(r.contains("Settings → Models") && r.contains("finished candidates are kept"), "{r}");
    }

    #[test]
    fn a_redirecting_model_server_stops_the_run_at_once() {
        let s = RunStopper::new(CancellationToken::new(), "cases", "cases");
        s.model_failed(&LlmError::Redirected {
            model: "m".into(),
            status: 307,
            from: "http://127.0.0.1:9/v1/chat/completions".into(),
            to: "http://10.0.0.5/v1/chat/completions".into(),
        });
        assert!(s.stop.is_cancelled());
        let r = s.reason().unwrap();
        assert!(r.contains("http://10.0.0.5/v1/chat/completions") && r.contains("Correct the model's address"), "{r}");
    }
}
