//! How many model requests a run really keeps in flight, per endpoint: what the plan says before
//! a run starts, the lifts a run holds while it works, and the live numbers its progress carries.
//!
//! A run asks for `concurrency` items at once. Each endpoint it calls has its own adaptive limit,
//! which starts at the model's registered `concurrency`; a run asking for more lifts that ceiling
//! for as long as it works (see `LlmClient::lift`), and a rate-limit reply still halves it.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::llm::{LiftGuard, LimiterSnapshot, LlmClient, ModelConfig};

/// Progress counter: requests to the watched endpoint waiting for an answer now.
pub const IN_FLIGHT: &str = "requests_in_flight";
/// Progress counter: requests the watched endpoint allows at once now (after any cut).
pub const ALLOWED: &str = "requests_allowed";
/// Progress counter: the most the watched endpoint's limit may grow back to during this run.
pub const CEILING: &str = "requests_ceiling";
/// Progress counter: times a rate-limit reply (HTTP 429) halved the watched endpoint's limit during this run.
pub const CUTS: &str = "rate_limit_cuts";

/// What bounds the requests a run keeps in flight at one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ConcurrencyBound {
    /// The run's own worker count (`concurrency`), or its number of items when that is smaller.
    Run,
    /// The endpoint's limit: a cut after rate-limit replies that has not grown back yet.
    Endpoint,
}

/// One endpoint a run calls, as the plan shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EndpointConcurrency {
    /// The endpoint's base URL.
    pub endpoint: String,
    /// Registered models the run calls at this endpoint, with their roles.
    pub models: Vec<String>,
    /// The run's `concurrency`.
    pub asked: u32,
    /// The `concurrency` the endpoint's model was registered with.
    pub registered_limit: u32,
    /// The endpoint's limit when the run starts (the registered value, lifted to `asked`).
    pub effective_limit: u32,
    /// The most requests the run can have in flight there at once.
    pub max_in_flight: u32,
    pub bound_by: ConcurrencyBound,
    /// A plain sentence on what bounds it.
    pub note: String,
}

/// The endpoints of a run's models (in role order, each endpoint once) as the plan shows them.
/// `roles` pairs a role with the model; `items` is the number of work items of the run.
pub fn plan(llm: &LlmClient, roles: &[(&str, &ModelConfig)], asked: u32, items: usize) -> Vec<EndpointConcurrency> {
    let asked = asked.clamp(1, 256);
    let mut out: Vec<EndpointConcurrency> = Vec::new();
    for (role, cfg) in roles {
        let label = format!("{} ({role})", cfg.name);
        if let Some(e) = out.iter_mut().find(|e| e.endpoint == cfg.base_url) {
            e.models.push(label);
            continue;
        }
        let now = llm.endpoint_snapshot(cfg);
        // A lift above today's ceiling starts the limit there; otherwise the limit stays as it is
        // (a cut that is still growing back, or a larger lift of another run).
        let effective = if asked > now.ceiling { asked } else { now.limit };
        let workers = asked.min(items.max(1).min(u32::MAX as usize) as u32);
        let max_in_flight = workers.min(effective);
        let (bound_by, note) = if effective < workers {
            (
                ConcurrencyBound::Endpoint,
                format!(
                    "Rate-limit replies have cut this endpoint to {effective} requests at once; it grows back toward {} as requests succeed.",
                    now.ceiling.max(asked)
                ),
            )
        } else if (items as u64) < asked as u64 {
            (
                ConcurrencyBound::Run,
                format!(
                    "The run has only {}, so at most {} {} out at once.",
                    crate::util::format::count(items, "item"),
                    crate::util::format::count(max_in_flight, "request"),
                    if max_in_flight == 1 { "goes" } else { "go" }
                ),
            )
        } else if asked > now.registered {
            (
                ConcurrencyBound::Run,
                format!(
                    "The model is registered for {} requests at once; this run lifts that to {asked} while it works. A rate-limit reply (HTTP 429) halves the limit, which then grows back.",
                    now.registered
                ),
            )
        } else {
            (
                ConcurrencyBound::Run,
                format!(
                    "The run works on {asked} items at once, so that many requests go out at most (the endpoint allows {effective})."
                ),
            )
        };
        out.push(EndpointConcurrency {
            endpoint: cfg.base_url.clone(),
            models: vec![label],
            asked,
            registered_limit: now.registered,
            effective_limit: effective,
            max_in_flight,
            bound_by,
            note,
        });
    }
    out
}

/// The lifts a run holds while it works, one per endpoint; dropping this takes them back.
pub struct RunLifts {
    guards: Vec<(String, LiftGuard)>,
}

impl RunLifts {
    /// Lift every endpoint of `models` to `to` requests at once.
    pub fn new(llm: &LlmClient, models: &[&ModelConfig], to: u32) -> RunLifts {
        let mut guards: Vec<(String, LiftGuard)> = Vec::new();
        for cfg in models {
            if !guards.iter().any(|(e, _)| e == &cfg.base_url) {
                guards.push((cfg.base_url.clone(), llm.lift(cfg, to.clamp(1, 256))));
            }
        }
        RunLifts { guards }
    }

    /// The live state of the model's endpoint, cuts counted since the run began.
    pub fn snapshot(&self, cfg: &ModelConfig) -> Option<LimiterSnapshot> {
        self.guards.iter().find(|(e, _)| e == &cfg.base_url).map(|(_, g)| g.snapshot())
    }

    /// Add the live counters of the model's endpoint to a progress event.
    pub fn add_counters(&self, cfg: &ModelConfig, counters: &mut IndexMap<String, f64>) {
        if let Some(s) = self.snapshot(cfg) {
            counters.insert(IN_FLIGHT.into(), s.in_flight as f64);
            counters.insert(ALLOWED.into(), s.limit as f64);
            counters.insert(CEILING.into(), s.ceiling as f64);
            counters.insert(CUTS.into(), s.cuts as f64);
        }
    }
}
