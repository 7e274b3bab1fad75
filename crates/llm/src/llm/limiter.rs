//! Adaptive concurrency per endpoint: start at the ceiling, halve on a 429, grow back one slot per
//! "limit" successes (additive increase), never above the ceiling.
//!
//! The ceiling is the model's registered `concurrency` unless a run has lifted it: a run that
//! works on more requests at once than the model was registered with holds a [`LiftGuard`] for as
//! long as it works, and the ceiling is the largest of the registered value and every live lift.
//! When the last guard is dropped the registered value is back.

use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// A cut happens at most once per this window, so a burst of 429s from one overload counts once.
const CUT_WINDOW: Duration = Duration::from_millis(500);

struct State {
    limit: f64,
    in_flight: u32,
    last_cut: Option<Instant>,
    /// The largest the limit may grow to now.
    ceiling: u32,
    /// The value each live lift asked for.
    lifts: Vec<u32>,
    /// Cuts since the limiter was made.
    cuts: u64,
    /// Most requests in flight at once since the limiter was made.
    peak_in_flight: u32,
}

pub struct AdaptiveLimiter {
    registered: u32,
    state: Mutex<State>,
    notify: Notify,
}

/// What an endpoint's limiter is doing right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimiterSnapshot {
    /// Requests allowed at once right now (after any cut).
    pub limit: u32,
    /// Requests on their way or waiting for an answer.
    pub in_flight: u32,
    /// The most the limit may grow back to (the registered value, or a run's lift).
    pub ceiling: u32,
    /// The model's registered `concurrency`.
    pub registered: u32,
    /// Times a rate-limit reply (HTTP 429) halved the limit.
    pub cuts: u64,
    /// Most requests in flight at once.
    pub peak_in_flight: u32,
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

/// A run's lift of an endpoint's ceiling; dropping it takes the lift back.
pub struct LiftGuard {
    limiter: Arc<AdaptiveLimiter>,
    to: u32,
    cuts_before: u64,
}

impl LiftGuard {
    /// The endpoint's state, with `cuts` counted since this lift began.
    pub fn snapshot(&self) -> LimiterSnapshot {
        let mut s = self.limiter.snapshot();
        s.cuts = s.cuts.saturating_sub(self.cuts_before);
        s
    }

    /// The ceiling this lift asked for.
    pub fn lifted_to(&self) -> u32 {
        self.to
    }
}

impl Drop for LiftGuard {
    fn drop(&mut self) {
        let mut s = self.limiter.lock();
        if let Some(i) = s.lifts.iter().position(|&v| v == self.to) {
            s.lifts.swap_remove(i);
        }
        let ceiling = s.lifts.iter().copied().max().unwrap_or(0).max(self.limiter.registered);
        s.ceiling = ceiling;
        s.limit = s.limit.min(ceiling as f64);
    }
}

impl AdaptiveLimiter {
    pub fn new(max: u32) -> Arc<AdaptiveLimiter> {
        let max = max.max(1);
        Arc::new(AdaptiveLimiter {
            registered: max,
            state: Mutex::new(State {
                limit: max as f64,
                in_flight: 0,
                last_cut: None,
                ceiling: max,
                lifts: Vec::new(),
                cuts: 0,
                peak_in_flight: 0,
            }),
            notify: Notify::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Raise the ceiling to `to` (when that is higher) until the guard is dropped. The limit
    /// itself starts at the new ceiling; a later 429 still halves it.
    pub fn lift(self: &Arc<Self>, to: u32) -> LiftGuard {
        let to = to.max(1);
        let mut s = self.lock();
        s.lifts.push(to);
        let cuts_before = s.cuts;
        if to > s.ceiling {
            s.ceiling = to;
            s.limit = to as f64;
            drop(s);
            self.notify.notify_waiters();
        }
        LiftGuard { limiter: self.clone(), to, cuts_before }
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
                    s.peak_in_flight = s.peak_in_flight.max(s.in_flight);
                    return Slot { limiter: self.clone() };
                }
            }
            notified.await;
        }
    }

    pub fn on_success(&self) {
        let mut s = self.lock();
        let ceiling = s.ceiling as f64;
        if s.limit < ceiling {
            s.limit = (s.limit + 1.0 / s.limit).min(ceiling);
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
            s.cuts += 1;
        }
    }

    /// Current limit (whole requests).
    pub fn limit(&self) -> u32 {
        self.lock().limit.floor() as u32
    }

    pub fn in_flight(&self) -> u32 {
        self.lock().in_flight
    }

    pub fn snapshot(&self) -> LimiterSnapshot {
        let s = self.lock();
        LimiterSnapshot {
            limit: s.limit.floor().max(1.0) as u32,
            in_flight: s.in_flight,
            ceiling: s.ceiling,
            registered: self.registered,
            cuts: s.cuts,
            peak_in_flight: s.peak_in_flight,
        }
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
        assert_eq!(l.snapshot().cuts, 1);
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

    #[tokio::test]
    async fn a_lift_raises_the_ceiling_until_it_is_dropped() {
        let l = AdaptiveLimiter::new(8);
        let g = l.lift(64);
        let s = l.snapshot();
        assert_eq!((s.limit, s.ceiling, s.registered), (64, 64, 8));
        let mut slots = Vec::new();
        for _ in 0..64 {
            slots.push(tokio::time::timeout(Duration::from_secs(1), l.acquire()).await.unwrap());
        }
        assert_eq!(l.snapshot().peak_in_flight, 64);
        drop(slots);
        drop(g);
        let s = l.snapshot();
        assert_eq!((s.limit, s.ceiling), (8, 8), "the registered value is back");
        // A lift below the registered value changes nothing.
        let low = l.lift(4);
        assert_eq!((l.limit(), l.snapshot().ceiling), (8, 8));
        drop(low);
        assert_eq!(l.limit(), 8);
    }

    #[tokio::test]
    async fn two_lifts_take_the_larger_and_the_last_one_restores() {
        let l = AdaptiveLimiter::new(8);
        let a = l.lift(32);
        let b = l.lift(16);
        assert_eq!(l.snapshot().ceiling, 32);
        drop(a);
        assert_eq!((l.limit(), l.snapshot().ceiling), (16, 16), "the other run's lift still holds");
        drop(b);
        assert_eq!((l.limit(), l.snapshot().ceiling), (8, 8));
    }

    #[tokio::test]
    async fn a_lifted_limit_is_still_cut_by_a_429_and_grows_back_to_the_lift() {
        let l = AdaptiveLimiter::new(8);
        let g = l.lift(64);
        l.on_rate_limited();
        let s = g.snapshot();
        assert_eq!((s.limit, s.ceiling, s.cuts), (32, 64, 1));
        for _ in 0..2000 {
            l.on_success();
        }
        assert_eq!(l.limit(), 64);
        // A cut before a lift is not counted against it.
        let later = l.lift(64);
        assert_eq!(later.snapshot().cuts, 0);
    }
}
