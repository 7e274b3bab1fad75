//! How the CLI shows requests in flight: per endpoint in a run's plan, and live in its progress line.

use psebench::jobs::concurrency::{EndpointConcurrency, ALLOWED, CEILING, CUTS, IN_FLIGHT};
use psebench::jobs::Progress;
use psebench::util::format::count;

/// One line per endpoint of a plan, then its note.
pub fn print_plan(endpoints: &[EndpointConcurrency]) {
    for c in endpoints {
        eprintln!(
            "Requests in flight at {}: up to {} (asked {}, model registered for {}, starting limit {}).",
            c.endpoint, c.max_in_flight, c.asked, c.registered_limit, c.effective_limit
        );
        eprintln!("  {}", c.note);
    }
}

/// " · 61/64 requests in flight (2 rate-limit cuts)" for a progress line, or nothing when the
/// run does not report them.
pub fn progress_suffix(p: &Progress) -> String {
    if !p.counters.contains_key(ALLOWED) {
        return String::new();
    }
    let (now, allowed, ceiling, cuts) = (p.counter(IN_FLIGHT), p.counter(ALLOWED), p.counter(CEILING), p.counter(CUTS));
    let mut s = format!(" · {now:.0}/{allowed:.0} requests in flight");
    if cuts > 0.0 {
        s.push_str(&format!(" (cut from {ceiling:.0} by {})", count(cuts.round() as u64, "rate-limit reply burst")));
    }
    s
}
