//! A run's spending cap (`--max-cost`): before an item of work starts it asks the budget, which
//! lets it start only while what the run has spent, plus what the items already in flight are
//! expected to cost, plus this item's expected cost, stays within the cap. Once one item is
//! refused, every later one is refused too; items in flight finish and are kept.
//!
//! An item's expected cost is the mean actual cost of the run's finished items (those finished
//! before a resume included), or the plan's per-item estimate while none has finished. When an
//! item ends, its reservation is replaced by what it actually cost.

use std::sync::Mutex;

use crate::error::{ApiError, ApiResult};

/// What the budget starts from: the cap and what the run's stored counts say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetStart {
    /// The cap in US$; none means no cap (the budget still keeps the accounts).
    pub cap_usd: Option<f64>,
    /// US$ already spent by the run (stored counts).
    pub spent_usd: f64,
    /// Items finished before (stored counts), and what they cost together.
    pub finished_items: u64,
    pub finished_cost_usd: f64,
    /// The plan's estimate of one item, used until an item finishes.
    pub plan_item_usd: f64,
}

#[derive(Debug)]
struct Accounts {
    spent: f64,
    in_flight: f64,
    finished_items: u64,
    finished_cost: f64,
    refused: bool,
}

/// The spending budget of one execution of a run. Shared by the concurrent items of the run.
#[derive(Debug)]
pub struct CostBudget {
    cap: Option<f64>,
    plan_item: f64,
    accounts: Mutex<Accounts>,
}

/// An item's permission to start, holding the cost reserved for it. Give it back with
/// [`CostBudget::settle`] when the item ends.
#[derive(Debug)]
#[must_use = "a reservation must be settled with the item's actual cost"]
pub struct Reservation {
    reserved: f64,
}

/// How an item ended, for the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemEnd {
    /// Finished and saved: its cost counts towards the mean cost of an item.
    Finished,
    /// Stopped or failed: what it spent counts, but not towards the mean.
    Unfinished,
}

impl CostBudget {
    pub fn new(start: BudgetStart) -> CostBudget {
        CostBudget {
            cap: start.cap_usd,
            plan_item: start.plan_item_usd.max(0.0),
            accounts: Mutex::new(Accounts {
                spent: start.spent_usd.max(0.0),
                in_flight: 0.0,
                finished_items: start.finished_items,
                finished_cost: start.finished_cost_usd.max(0.0),
                refused: false,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Accounts> {
        self.accounts.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn cap(&self) -> Option<f64> {
        self.cap
    }

    /// The expected cost of the next item.
    pub fn item_estimate(&self) -> f64 {
        let a = self.lock();
        Self::estimate_in(&a, self.plan_item)
    }

    fn estimate_in(a: &Accounts, plan_item: f64) -> f64 {
        if a.finished_items > 0 {
            a.finished_cost / a.finished_items as f64
        } else {
            plan_item
        }
    }

    /// Let one more item start, or refuse (and from then on refuse every item).
    pub fn admit(&self) -> Option<Reservation> {
        let mut a = self.lock();
        if a.refused {
            return None;
        }
        let item = Self::estimate_in(&a, self.plan_item);
        if let Some(cap) = self.cap {
            // A hair of slack so that sums of decimal prices that land exactly on the cap pass.
            if a.spent + a.in_flight + item > cap + 1e-9 {
                a.refused = true;
                return None;
            }
        }
        a.in_flight += item;
        Some(Reservation { reserved: item })
    }

    /// An item ended: its reservation is replaced by what it actually cost.
    pub fn settle(&self, r: Reservation, actual_usd: f64, end: ItemEnd) {
        let actual = if actual_usd.is_finite() { actual_usd.max(0.0) } else { 0.0 };
        let mut a = self.lock();
        a.in_flight = (a.in_flight - r.reserved).max(0.0);
        a.spent += actual;
        if end == ItemEnd::Finished {
            a.finished_items += 1;
            a.finished_cost += actual;
        }
    }

    /// Whether an item was refused: the run stops on its cap.
    pub fn stopped_by_cap(&self) -> bool {
        self.lock().refused
    }

    /// US$ spent so far (before this execution included).
    pub fn spent(&self) -> f64 {
        self.lock().spent
    }
}

/// What a plan says about a spending cap the estimate passes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct CapForecast {
    /// The cap in US$.
    pub max_cost_usd: f64,
    /// Items the cap is expected to allow at the estimated cost per item.
    pub items_allowed: u64,
    /// Items the run has.
    pub items: u64,
    /// The estimated cost of one item (US$).
    pub item_estimate_usd: f64,
}

impl CapForecast {
    /// The forecast when the estimate passes the cap; none when everything fits or there is no cap.
    pub fn of(cap_usd: Option<f64>, total_estimate_usd: Option<f64>, items: u64) -> Option<CapForecast> {
        let (cap, total) = (cap_usd?, total_estimate_usd?);
        if items == 0 {
            return None;
        }
        let item = total / items as f64;
        items_within_cap(Some(cap), 0.0, item, items).map(|allowed| CapForecast {
            max_cost_usd: cap,
            items_allowed: allowed,
            items,
            item_estimate_usd: item,
        })
    }
}

/// How many of `items` further items fit under `cap_usd`, when `spent_usd` is already spent and
/// each is expected to cost `item_usd`. `None` when all of them fit (or no cap).
pub fn items_within_cap(cap_usd: Option<f64>, spent_usd: f64, item_usd: f64, items: u64) -> Option<u64> {
    let cap = cap_usd?;
    if item_usd <= 0.0 {
        return None;
    }
    let room = (cap - spent_usd + 1e-9).max(0.0);
    let n = (room / item_usd).floor();
    if n >= items as f64 {
        None
    } else {
        Some(n as u64)
    }
}

/// A cap as given by a user: a positive, finite amount of US$.
pub fn check_cap(cap: Option<f64>) -> ApiResult<Option<f64>> {
    match cap {
        Some(c) if !c.is_finite() || c <= 0.0 => Err(ApiError::invalid(format!(
            "The spending cap must be an amount of US dollars above zero (got {c}). Leave it out to run without a cap."
        ))),
        other => Ok(other),
    }
}

/// A sum of US$ as shown to people: `US$ 4.98`, or more digits for sums under a cent.
pub fn usd(v: f64) -> String {
    if v != 0.0 && v.abs() < 0.01 {
        format!("US$ {v:.4}")
    } else {
        format!("US$ {v:.2}")
    }
}

/// The message of a run stopped at its cap.
pub fn capped_message(spent_usd: f64, cap_usd: f64, done: u64, total: u64, unit: &str) -> String {
    format!(
        "Stopped at the cost cap: {} spent of {}; {} of {} {unit} done and kept. Resume with a higher cap to finish.",
        usd(spent_usd),
        usd(cap_usd),
        thousands(done),
        thousands(total)
    )
}

/// A whole number with commas between thousands (1,000).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// How a resume changes a run's cap.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum CapChange {
    /// Keep the cap the run has.
    #[default]
    Keep,
    /// Set a new cap (US$).
    Set(f64),
    /// Run on without a cap.
    Clear,
}

impl CapChange {
    /// From the resume parameters: a new cap, or the wish to drop it.
    pub fn from_params(max_cost_usd: Option<f64>, clear: bool) -> ApiResult<CapChange> {
        match (check_cap(max_cost_usd)?, clear) {
            (Some(_), true) => {
                Err(ApiError::invalid("Give either a new spending cap or ask to drop the cap, not both."))
            }
            (Some(c), false) => Ok(CapChange::Set(c)),
            (None, true) => Ok(CapChange::Clear),
            (None, false) => Ok(CapChange::Keep),
        }
    }

    /// The cap a resumed run works under. A run that stopped on its cap (`capped`) resumes only
    /// with a higher cap or none.
    pub fn apply(self, run_id: &str, current: Option<f64>, capped: bool, spent_usd: f64) -> ApiResult<Option<f64>> {
        let next = match self {
            CapChange::Keep => current,
            CapChange::Set(c) => Some(c),
            CapChange::Clear => None,
        };
        if capped {
            if let (Some(old), Some(new)) = (current, next) {
                if new <= old {
                    return Err(ApiError::invalid(format!(
                        "Run {run_id} stopped at its spending cap of {} ({} spent). Resuming it under the same cap would stop again at once: give a higher cap (--max-cost, or the cap field of Resume) or drop the cap.",
                        usd(old),
                        usd(spent_usd)
                    )));
                }
            }
        }
        Ok(next)
    }
}

/// Refuse a cap when a remote model has no price: its spending cannot be counted.
pub fn check_priced(cap: Option<f64>, models: &[&crate::llm::ModelConfig]) -> ApiResult<()> {
    if cap.is_none() {
        return Ok(());
    }
    let unpriced: Vec<&str> = models
        .iter()
        .filter(|m| !m.is_local() && (m.price_in.is_none() || m.price_out.is_none()))
        .map(|m| m.name.as_str())
        .collect();
    if unpriced.is_empty() {
        return Ok(());
    }
    let mut names = unpriced;
    names.dedup();
    Err(ApiError::invalid(format!(
        "A spending cap cannot be kept when a remote model has no price: {} has none registered. Register its prices (Settings → Models, or `psebench models add` with --price-in and --price-out) or run without a cap.",
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(cap: Option<f64>, spent: f64, finished: u64, plan: f64) -> BudgetStart {
        BudgetStart {
            cap_usd: cap,
            spent_usd: spent,
            finished_items: finished,
            finished_cost_usd: spent,
            plan_item_usd: plan,
        }
    }

    #[test]
    fn items_start_while_spent_plus_in_flight_plus_the_next_fit_under_the_cap() {
        let b = CostBudget::new(start(Some(1.0), 0.0, 0, 0.3));
        // Plan estimate 0.3 each: three reservations fit (0.9), the fourth would pass 1.0.
        let r1 = b.admit().unwrap();
        let r2 = b.admit().unwrap();
        let r3 = b.admit().unwrap();
        assert!(b.admit().is_none());
        assert!(b.stopped_by_cap());
        // Once refused, always refused, even when the in-flight items turn out cheap.
        b.settle(r1, 0.05, ItemEnd::Finished);
        b.settle(r2, 0.05, ItemEnd::Finished);
        b.settle(r3, 0.0, ItemEnd::Unfinished);
        assert!(b.admit().is_none());
        assert!((b.spent() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn the_estimate_is_the_mean_actual_cost_once_items_finish() {
        let b = CostBudget::new(start(Some(1.0), 0.0, 0, 0.5));
        assert_eq!(b.item_estimate(), 0.5);
        let r = b.admit().unwrap();
        b.settle(r, 0.2, ItemEnd::Finished);
        assert!((b.item_estimate() - 0.2).abs() < 1e-12);
        // An unfinished item's spending counts, but not towards the mean.
        let r = b.admit().unwrap();
        b.settle(r, 0.1, ItemEnd::Unfinished);
        assert!((b.item_estimate() - 0.2).abs() < 1e-12);
        assert!((b.spent() - 0.3).abs() < 1e-12);
        // 0.3 spent + 0.2 + 0.2 + 0.2 = 0.9; a fourth 0.2 would pass 1.0.
        let _a = b.admit().unwrap();
        let _b = b.admit().unwrap();
        let _c = b.admit().unwrap();
        assert!(b.admit().is_none());
    }

    #[test]
    fn a_resumed_run_starts_from_what_it_spent() {
        // 4 items done for 2.0 before: the mean is 0.5; 1.0 left under a 3.0 cap is two items.
        let b = CostBudget::new(start(Some(3.0), 2.0, 4, 9.0));
        assert_eq!(b.item_estimate(), 0.5);
        let _a = b.admit().unwrap();
        let _b = b.admit().unwrap();
        assert!(b.admit().is_none());
        // Without a cap everything starts and the accounts are still kept.
        let b = CostBudget::new(start(None, 2.0, 4, 9.0));
        for _ in 0..100 {
            let r = b.admit().unwrap();
            b.settle(r, 1.0, ItemEnd::Finished);
        }
        assert!((b.spent() - 102.0).abs() < 1e-9);
    }

    #[test]
    fn the_plan_says_how_many_items_a_cap_allows() {
        assert_eq!(items_within_cap(Some(5.0), 0.0, 1.0, 10), Some(5));
        assert_eq!(items_within_cap(Some(5.0), 0.0, 0.3, 10), None);
        assert_eq!(items_within_cap(Some(5.0), 4.5, 1.0, 10), Some(0));
        assert_eq!(items_within_cap(None, 0.0, 1.0, 10), None);
        assert_eq!(items_within_cap(Some(1.0), 0.0, 0.0, 10), None);
    }

    #[test]
    fn resuming_a_capped_run_needs_a_higher_cap_or_none() {
        let keep = CapChange::from_params(None, false).unwrap();
        let err = keep.apply("eval-1", Some(5.0), true, 4.98).unwrap_err();
        assert!(err.message.contains("US$ 5.00") && err.message.contains("higher cap"), "{}", err.message);
        assert!(CapChange::Set(5.0).apply("eval-1", Some(5.0), true, 4.98).is_err());
        assert_eq!(CapChange::Set(8.0).apply("eval-1", Some(5.0), true, 4.98).unwrap(), Some(8.0));
        assert_eq!(CapChange::Clear.apply("eval-1", Some(5.0), true, 4.98).unwrap(), None);
        // A run stopped for another reason resumes under its cap, or a lower one.
        assert_eq!(keep.apply("eval-1", Some(5.0), false, 1.0).unwrap(), Some(5.0));
        assert_eq!(CapChange::Set(2.0).apply("eval-1", Some(5.0), false, 1.0).unwrap(), Some(2.0));
        assert!(CapChange::from_params(Some(0.0), false).is_err());
        assert!(CapChange::from_params(Some(1.0), true).is_err());
    }

    #[test]
    fn the_message_says_what_was_spent_and_done() {
        assert_eq!(
            capped_message(4.98, 5.0, 412, 1000, "cases"),
            "Stopped at the cost cap: US$ 4.98 spent of US$ 5.00; 412 of 1,000 cases done and kept. Resume with a higher cap to finish."
        );
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(usd(0.0042), "US$ 0.0042");
    }
}
