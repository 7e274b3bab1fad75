//! Retry policy: bounded attempts, exponential backoff with full jitter, `Retry-After` honoured.

use rand::Rng;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so at most `max_retries + 1` attempts).
    pub max_retries: u32,
    pub base: Duration,
    pub cap: Duration,
    /// Longest `Retry-After` we wait for; longer requests are cut to this.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 6,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// Wait before retry number `retry` (1-based): the server's Retry-After when given, otherwise
    /// a random time in [0, min(cap, base·2^(retry-1))].
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(ra) = retry_after {
            return ra.min(self.max_retry_after);
        }
        let exp = self.base.saturating_mul(1u32 << (retry.saturating_sub(1)).min(16));
        let ceiling = exp.min(self.cap);
        let ms = ceiling.as_millis() as u64;
        if ms == 0 {
            return Duration::ZERO;
        }
        Duration::from_millis(rand::rng().random_range(ms / 4..=ms))
    }
}

/// Parse a Retry-After header: seconds, or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_millis((secs * 1000.0) as u64));
        }
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let now = chrono::Utc::now();
    let d = when.with_timezone(&chrono::Utc) - now;
    Some(d.to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_formats() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.25"), Some(Duration::from_millis(250)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy { base: Duration::from_millis(100), cap: Duration::from_millis(800), ..Default::default() };
        for _ in 0..50 {
            assert!(p.delay(1, None) <= Duration::from_millis(100));
            assert!(p.delay(10, None) <= Duration::from_millis(800));
        }
        assert_eq!(p.delay(3, Some(Duration::from_secs(500))), Duration::from_secs(120));
    }
}
