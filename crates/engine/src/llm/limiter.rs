//! Adaptive concurrency per endpoint: start at the configured limit, halve on a 429, grow back
//! one slot per "limit" successes (additive increase), never above the configured maximum.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// A cut happens at most once per this window, so a burst of 429s from one overload counts once.
const CUT_WINDOW: Duration = Duration::from_millis(500);

struct State {
    limit: f64,
    in_flight: u32,
    last_cut: Option<Instant>,
}

pub struct AdaptiveLimiter {
    max: u32,
    state: Mutex<State>,
    notify: Notify,
}

/// Holding one slot; dropping it frees the slot.
pub struct Slot {
    limiter: Arc<AdaptiveLimiter>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut s = self.limiter.lock();
        s.in_flight = s.in_flight.saturating_sub(1);
        drop(s);
        self.limiter.notify.notify_waiters();
    }
}

impl AdaptiveLimiter {
    pub fn new(max: u32) -> Arc<AdaptiveLimiter> {
        let max = max.max(1);
        Arc::new(AdaptiveLimiter {
            max,
            state: Mutex::new(State { limit: max as f64, in_flight: 0, last_cut: None }),
            notify: Notify::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait for a free slot.
    pub async fn acquire(self: &Arc<Self>) -> Slot {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = self.lock();
                if (s.in_flight as f64) < s.limit.floor().max(1.0) {
                    s.in_flight += 1;
                    return Slot { limiter: self.clone() };
                }
            }
            notified.await;
        }
    }

    pub fn on_success(&self) {
        let mut s = self.lock();
        if s.limit < self.max as f64 {
            s.limit = (s.limit + 1.0 / s.limit).min(self.max as f64);
            drop(s);
            self.notify.notify_waiters();
        }
    }

    pub fn on_rate_limited(&self) {
        let mut s = self.lock();
        let now = Instant::now();
        if s.last_cut.map(|t| now.duration_since(t) >= CUT_WINDOW).unwrap_or(true) {
            s.limit = (s.limit / 2.0).max(1.0);
            s.last_cut = Some(now);
        }
    }

    /// Current limit (whole requests).
    pub fn limit(&self) -> u32 {
        self.lock().limit.floor() as u32
    }

    pub fn in_flight(&self) -> u32 {
        self.lock().in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cuts_on_429_and_grows_back() {
        let l = AdaptiveLimiter::new(8);
        assert_eq!(l.limit(), 8);
        l.on_rate_limited();
        assert_eq!(l.limit(), 4);
        l.on_rate_limited(); // within the window: ignored
        assert_eq!(l.limit(), 4);
        for _ in 0..100 {
            l.on_success();
        }
        assert_eq!(l.limit(), 8);
    }

    #[tokio::test]
    async fn never_more_in_flight_than_the_limit() {
        let l = AdaptiveLimiter::new(2);
        let a = l.acquire().await;
        let _b = l.acquire().await;
        let l2 = l.clone();
        let waiter = tokio::spawn(async move {
            let _c = l2.acquire().await;
        });
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert!(!waiter.is_finished());
        assert_eq!(l.in_flight(), 2);
        drop(a);
        tokio::time::timeout(Duration::from_secs(1), waiter).await.unwrap().unwrap();
    }
}
