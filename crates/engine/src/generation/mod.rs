//! Controllable, verified case generation as resumable runs: plan (cards, anchors, candidates,
//! destinations, cost estimate), create, execute with progress, cancellation and resume, list,
//! show, candidates, provenance, and statistics like the paper's.
//!
//! How a run is stored: the `runs` row (kind `generation`) holds the request;
//! `generation_run_cards` and `generation_run_anchors` freeze the exact card versions, contexts
//! and anchor texts; one `generation_candidates` row per (card, anchor, variant) holds its status;
//! `generation_attempts` holds every attempt, and the call ledger (`llm::ledger`) every model call.
//! Case ids are the candidate ids, built from run, card, anchor and variant, so a resumed run
//! produces the same ids.

pub mod config;
pub mod context;
pub mod guards;
mod job;
pub mod pipeline;
pub mod plan;
pub mod prompts;
pub mod repo;
pub mod stats;
pub mod views;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::card::ClauseCard;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::jobs::budget::CapChange;
use crate::jobs::{self, RunKind, RunModel, RunRow, RunStatus};
use crate::llm::ModelConfig;
use crate::protocol::{fingerprint, Protocol, RunProvenance};
use pipeline::{CardBundle, RunRoles};
use prompts::GenerationPrompts;

pub use config::{GenerationRunConfig, GenerationRunModels};
pub use stats::{GenerationStats, LibraryStats};

/// What `psebench generate` asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationRequest {
    /// Policy pack id (default: the default policy pack).
    #[serde(default = "default_policy")]
    pub policy: String,
    /// `all` (every approved card), a clause id (its approved cards), or card ids separated by
    /// commas (listed cards are used even when not approved, with a warning).
    pub cards: String,
    /// Anchors sampled from each card's clause bucket (default 25).
    #[serde(default = "default_anchors")]
    pub anchors_per_card: u32,
    /// Registered model for the Instantiator and the narrators.
    pub model: String,
    /// Registered model for the Extractor and the verifiers (default: `model`).
    #[serde(default)]
    pub verifier_model: Option<String>,
    /// Registered model for the policy-wide clause screen (default: the verifier model). Best a
    /// model of another family than `model`, so it does not share the writer's blind spots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub screen_model: Option<String>,
    /// Seed of the anchor sampling.
    #[serde(default)]
    pub seed: u64,
    /// (card, anchor) units worked on at once.
    #[serde(default = "default_concurrency")]
    pub concurrency: u32,
    /// Generate the cards' missing-information variants too (default true).
    #[serde(default = "default_true")]
    pub include_missing: bool,
    /// Sample only `builtin` or only `imported` anchors (default: all).
    #[serde(default)]
    pub anchor_origin: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
    /// Send the calls of models whose provider has a batch API as provider batches (about half
    /// the price; answers within the provider's completion window). Left out of stored requests
    /// when off, so runs stored before batch mode read and write back unchanged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
    /// Stop starting new card-and-anchor pairs before the spending would pass this many US$
    /// (none: no cap). A resume may raise or drop it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_cost_usd: Option<f64>,
    /// `studio` (default: the paper's method with the clause screen and this application's other
    /// checks) or `paper` (the paper's method only). Left out of stored requests when `studio`, so
    /// runs stored before protocols read and write back unchanged.
    #[serde(default, skip_serializing_if = "is_studio")]
    #[ts(as = "Option<Protocol>", optional)]
    pub protocol: Protocol,
}

/// The models a run of this protocol calls: a paper run never calls the clause screen's, so its
/// price does not matter to a spending cap.
fn called_models<'a>(
    protocol: Protocol,
    producer: &'a ModelConfig,
    verifier: &'a ModelConfig,
    screen: &'a ModelConfig,
) -> Vec<&'a ModelConfig> {
    if protocol.screens_records() {
        vec![producer, verifier, screen]
    } else {
        vec![producer, verifier]
    }
}

fn is_studio(p: &Protocol) -> bool {
    *p == Protocol::Studio
}

fn default_policy() -> String {
    crate::policy::DEFAULT_POLICY.into()
}
fn default_anchors() -> u32 {
    25
}
fn default_concurrency() -> u32 {
    4
}
fn default_true() -> bool {
    true
}

impl Default for GenerationRequest {
    fn default() -> Self {
        GenerationRequest {
            policy: default_policy(),
            cards: "all".into(),
            anchors_per_card: default_anchors(),
            model: String::new(),
            verifier_model: None,
            screen_model: None,
            seed: 0,
            concurrency: default_concurrency(),
            include_missing: true,
            anchor_origin: None,
            label: None,
            batch: false,
            max_cost_usd: None,
            protocol: Protocol::Studio,
        }
    }
}

/// Where data goes during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationDestination {
    pub role: String,
    pub model: String,
    pub destination: String,
    pub remote: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationStageEstimate {
    pub stage: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A rough pre-run estimate (real usage is recorded per call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationCostEstimate {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Null when a remote model has no price registered.
    pub usd: Option<f64>,
    /// The same in batch mode (batch prices where the provider has a batch API).
    pub usd_batch: Option<f64>,
    pub per_stage: Vec<GenerationStageEstimate>,
    pub assumptions: String,
}

/// What a run would do, before anything is sent anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationPlan {
    /// The method the run would follow (`paper`: no clause screen).
    pub protocol: Protocol,
    pub policy: String,
    pub cards: usize,
    /// Cards by event type (`Reportable`, `Non_Reportable`, `Uncertain`).
    pub cards_by_type: BTreeMap<String, usize>,
    /// (card, anchor) pairs.
    pub units: usize,
    pub candidates: usize,
    pub candidates_by_type: BTreeMap<String, usize>,
    pub anchors_per_card: u32,
    /// Listed cards that are not approved.
    pub unapproved_cards: Vec<String>,
    /// Cards left out because their clause bucket has no anchors.
    pub cards_without_anchors: Vec<String>,
    pub warnings: Vec<String>,
    pub destinations: Vec<GenerationDestination>,
    pub sends_data_off_machine: bool,
    pub estimate: GenerationCostEstimate,
    /// Per clause, the context its roles are given: an approved extraction (with its version) or
    /// the built-in context when no extraction is approved.
    pub clause_contexts: Vec<crate::policy::extraction::ClauseContextNote>,
    /// Batch mode: which models it would batch, their providers' window, online vs batch cost.
    pub batch: crate::llm::batch::plan::BatchNote,
    /// When the estimate passes the spending cap: how many card-and-anchor pairs the cap is
    /// expected to allow.
    pub cap: Option<jobs::budget::CapForecast>,
    /// Per endpoint the run calls: requests in flight asked for, allowed, and what bounds them.
    pub concurrency: Vec<crate::jobs::concurrency::EndpointConcurrency>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationTypeCounts {
    pub case_type: String,
    pub total: u64,
    pub accepted: u64,
    pub dropped: u64,
    pub skipped: u64,
    pub pending: u64,
}

/// Counts of a run's candidates, attempts and calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationCounts {
    pub total: u64,
    pub done: u64,
    pub pending: u64,
    pub accepted: u64,
    pub dropped: u64,
    /// Missing variants never started because their complete case was dropped.
    pub skipped: u64,
    /// Dropped candidates with a model reply that could not be read among their calls.
    pub unreadable: u64,
    pub units_total: u64,
    pub units_done: u64,
    pub attempts: u64,
    /// Attempts after the first of a stage.
    pub retries: u64,
    pub calls: u64,
    pub cache_hits: u64,
    /// Tokens of calls actually sent (cache hits excluded).
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    pub by_type: Vec<GenerationTypeCounts>,
}

/// What a finished (or stopped) run says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationSummary {
    pub run_id: String,
    pub status: RunStatus,
    pub counts: GenerationCounts,
    pub message: Option<String>,
    /// Set when the run finished but most of its candidates were dropped on unreadable replies.
    pub problems: Option<jobs::RunProblems>,
}

/// A generation run as listed and shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationRunView {
    pub run_id: String,
    pub status: RunStatus,
    pub label: Option<String>,
    /// The request and the prompt versions it was created with.
    pub config: GenerationRunConfig,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub error: Option<String>,
    pub counts: GenerationCounts,
    /// Set when the run finished but most of its candidates were dropped on unreadable replies:
    /// the app shows "finished with problems" with this message instead of a plain "finished".
    pub problems: Option<jobs::RunProblems>,
}

/// What a generation run calls a candidate dropped on replies it could not read.
pub const UNREADABLE_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "candidates were dropped because the model's replies could not be read",
    reason: "the writing or checking model did not answer in the JSON the task asks for",
    advice: "Few cases came out of this run. Check the models' settings (a larger reply limit, JSON output) or choose \
             other models, then run it again.",
};

/// The warning for a finished generation run whose candidates were mostly dropped on unreadable
/// replies.
pub fn generation_problems(status: RunStatus, counts: &GenerationCounts) -> Option<jobs::RunProblems> {
    if status != RunStatus::Completed {
        return None;
    }
    // Candidates never started (skipped because their complete case was dropped) are not counted.
    jobs::assess_problems(counts.done.saturating_sub(counts.skipped), counts.unreadable, UNREADABLE_WORDS)
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationCandidateFilter {
    /// pending | accepted | dropped | skipped
    pub status: Option<String>,
    pub case_type: Option<String>,
    pub clause_id: Option<String>,
    pub clause_card_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationCandidateView {
    pub candidate_id: String,
    pub run_id: String,
    pub case_type: String,
    pub clause_card_id: String,
    pub clause_id: String,
    pub event_type: String,
    pub anchor_id: String,
    pub missing_variant_id: Option<String>,
    pub parent_candidate_id: Option<String>,
    pub status: String,
    /// instantiation | narration | clause_screen | missing_narration | parent | case
    pub drop_stage: Option<String>,
    pub drop_reason: Option<String>,
    pub case_id: Option<String>,
    pub narrative_words: Option<u32>,
}

/// One model call of an attempt, exactly as sent and received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProvenanceCall {
    /// instantiator | instantiation_verifier | narrator | extractor | narrative_verifier | clause_screen | missing_narrator | missing_verifier
    pub role: String,
    pub prompt_name: String,
    /// template name → version of every template that shaped the request
    pub prompt_versions: IndexMap<String, String>,
    pub model: String,
    /// `{messages, response_format, repeat}`
    pub request: Value,
    pub response_text: Option<String>,
    pub parsed: Option<Value>,
    pub parse_notes: Vec<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub cost_usd: f64,
    pub latency_ms: u64,
    pub cache_hit: bool,
    /// The call's row in the call ledger (`calls.list`).
    #[serde(default)]
    pub call_id: Option<i64>,
}

/// One attempt of one stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProvenanceAttempt {
    /// The candidate the attempt belongs to (a missing case also shows its parent's attempts).
    pub candidate_id: String,
    /// instantiation | narration | clause_screen | missing_narration
    pub stage: String,
    pub attempt: u32,
    pub passed: bool,
    /// What was fed back to the producer (guard findings and verifier issues).
    pub issues: Vec<String>,
    /// The deterministic checks' findings.
    pub guard_findings: Vec<String>,
    /// The producer's candidate: slot values, or the narrative text.
    pub output: Value,
    /// The Extractor's reading of the narrative.
    pub extracted: Option<Value>,
    /// The verifier's parsed verdict (for `clause_screen`: the screen's reply and its agreement with the card).
    pub verifier: Option<Value>,
    pub created_at: String,
    pub calls: Vec<ProvenanceCall>,
}

/// The whole story of a case or a dropped candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Provenance {
    pub candidate: GenerationCandidateView,
    pub card_version: Option<i64>,
    pub anchor_text: Option<String>,
    /// The accepted case (FORMATS.md fields), when there is one.
    pub case: Option<Value>,
    /// Every attempt in order; for a missing case its parent's instantiation and narration come first.
    pub attempts: Vec<ProvenanceAttempt>,
    /// Prompt name → version, as the run was created.
    pub prompt_versions: IndexMap<String, String>,
}

/// The plan's warning when the clause screen is the writer's own model (or the same provider
/// model under another name): a model screening its own output tends to share its blind spots.
fn same_model_warning(producer: &ModelConfig, screen: &ModelConfig) -> Option<String> {
    let same = producer.name == screen.name || (producer.model == screen.model && producer.base_url == screen.base_url);
    same.then(|| {
        format!(
            "The clause screen uses the same model as the writer ({}), so it may share the writer's blind spots. Choose a screen model of another family (--screen-model, or \"Clause screen model\" on the Generate page).",
            producer.name
        )
    })
}

impl Engine {
    fn generation_models(&self, req: &GenerationRequest) -> ApiResult<(ModelConfig, ModelConfig, ModelConfig)> {
        if req.model.trim().is_empty() {
            return Err(ApiError::invalid("Choose the model that writes the cases (registered models are listed in Settings → Models, or by `psebench models list`)."));
        }
        let producer = self.model_get(&req.model)?.config;
        let verifier = match req.verifier_model.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(v) => self.model_get(v)?.config,
            None => producer.clone(),
        };
        let screen = match req.screen_model.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(v) => self.model_get(v)?.config,
            None => verifier.clone(),
        };
        Ok((producer, verifier, screen))
    }

    /// What a run would do (cards, anchors, candidates, where data goes, a cost estimate),
    /// without creating it.
    pub fn generation_plan(&self, req: &GenerationRequest) -> ApiResult<GenerationPlan> {
        let (producer, verifier, screen) = self.generation_models(req)?;
        let planned = plan::plan(self, req, "RUN")?;
        let prompts = GenerationPrompts::load()?;
        let mut cards_by_type = BTreeMap::new();
        for c in &planned.cards {
            if !planned.without_anchors.contains(&c.card.clause_card_id) {
                *cards_by_type.entry(c.card.event_type.as_str().to_string()).or_insert(0) += 1;
            }
        }
        let mut candidates_by_type = BTreeMap::new();
        for c in &planned.candidates {
            *candidates_by_type.entry(c.case_type.as_str().to_string()).or_insert(0) += 1;
        }
        let screens = req.protocol.screens_records();
        // The paper protocol runs no clause screen: its model is neither called nor shown.
        let mut roles = vec![("instantiator and narrators", &producer), ("extractor and verifiers", &verifier)];
        if screens {
            roles.push(("clause screen", &screen));
        }
        let destinations: Vec<GenerationDestination> = roles
            .iter()
            .map(|(role, c)| GenerationDestination {
                role: role.to_string(),
                model: c.name.clone(),
                destination: c.destination(),
                remote: !c.is_local(),
            })
            .collect();
        let mut warnings = planned.warnings.clone();
        if let Some(w) = same_model_warning(&producer, &screen).filter(|_| screens) {
            warnings.push(w);
        }
        let screen_policy_chars = self.screen_policy_text(&planned.policy)?.0.len() as f64;
        let cap = jobs::budget::check_cap(req.max_cost_usd)?;
        jobs::budget::check_priced(cap, &called_models(req.protocol, &producer, &verifier, &screen))?;
        let estimate = plan::estimate(&planned, &prompts, &producer, &verifier, &screen, screen_policy_chars, screens);
        let concurrency = jobs::concurrency::plan(self.llm(), &roles, req.concurrency, planned.units);
        Ok(GenerationPlan {
            protocol: req.protocol,
            cap: jobs::budget::CapForecast::of(
                cap,
                if req.batch { estimate.usd_batch } else { estimate.usd },
                planned.units as u64,
            ),
            policy: planned.policy.clone(),
            cards: cards_by_type.values().sum(),
            cards_by_type,
            units: planned.units,
            candidates: planned.candidates.len(),
            candidates_by_type,
            anchors_per_card: req.anchors_per_card,
            unapproved_cards: planned.unapproved.clone(),
            cards_without_anchors: planned.without_anchors.clone(),
            warnings,
            sends_data_off_machine: destinations.iter().any(|d| d.remote),
            destinations,
            estimate,
            clause_contexts: planned.clause_contexts.clone(),
            batch: crate::llm::batch::plan::note(req.batch, &[&producer, &verifier, &screen]),
            concurrency,
        })
    }

    /// Create a run with every candidate pending. Nothing is sent to any model yet.
    pub fn generation_create(&self, req: &GenerationRequest) -> ApiResult<String> {
        let (producer, verifier, screen) = self.generation_models(req)?;
        let cap = jobs::budget::check_cap(req.max_cost_usd)?;
        jobs::budget::check_priced(cap, &called_models(req.protocol, &producer, &verifier, &screen))?;
        let prompts = GenerationPrompts::load()?;
        let run_id = jobs::new_run_id(RunKind::Generation);
        let planned = plan::plan(self, req, &run_id)?;
        let unit_estimate_usd = if planned.units == 0 {
            None
        } else {
            let chars = self.screen_policy_text(&planned.policy)?.0.len() as f64;
            let e = plan::estimate(
                &planned,
                &prompts,
                &producer,
                &verifier,
                &screen,
                chars,
                req.protocol.screens_records(),
            );
            // Batch mode pays batch prices.
            if req.batch { e.usd_batch } else { e.usd }.map(|u| u / planned.units as f64)
        };
        let config = GenerationRunConfig {
            request: req.clone(),
            policy: planned.policy.clone(),
            model: producer.name.clone(),
            verifier_model: verifier.name.clone(),
            screen_model: Some(screen.name.clone()),
            models: Some(GenerationRunModels {
                producer: RunModel::of(&producer),
                verifier: RunModel::of(&verifier),
                screen: Some(RunModel::of(&screen)),
            }),
            concurrency: Some(req.concurrency.clamp(1, 256)),
            batch: req.batch.then_some(true),
            warnings: planned.warnings.clone(),
            provenance: Some(self.generation_run_provenance(req.protocol, &prompts, &planned)?),
            prompt_versions: prompts.versions(),
            unit_estimate_usd,
            extra: IndexMap::new(),
        };
        self.store().with_tx(|tx| -> ApiResult<()> {
            jobs::insert_run(tx, &run_id, RunKind::Generation, req.label.as_deref(), &config)?;
            repo::insert_inputs(tx, &run_id, &planned.cards, &planned.anchors)?;
            repo::insert_candidates(tx, &run_id, &planned.candidates)?;
            Ok(())
        })?;
        Ok(run_id)
    }

    /// What makes a new generation run: its protocol and prompts, the policy edition and card
    /// library it reads, and the cards it generates from.
    fn generation_run_provenance(
        &self,
        protocol: Protocol,
        prompts: &GenerationPrompts,
        planned: &plan::Planned,
    ) -> ApiResult<RunProvenance> {
        let policy = planned.policy.clone();
        let (policy_editions, library) =
            self.store().with_read(|c| fingerprint::stored_policy_and_library(c, std::slice::from_ref(&policy)))?;
        let cards: Vec<(String, i64)> =
            planned.cards.iter().map(|c| (c.card.clause_card_id.clone(), c.version)).collect();
        let mut prompt_versions = prompts.versions();
        // A paper run never calls the clause screen.
        if !protocol.screens_records() {
            prompt_versions.shift_remove("gen_clause_screen");
        }
        Ok(RunProvenance {
            protocol,
            prompt_versions,
            policy_editions,
            library_fingerprint: library,
            case_set_fingerprint: fingerprint::card_set(&cards),
            case_count: cards.len(),
            judge_model: None,
        })
    }

    /// A stored generation run with its typed configuration.
    fn generation_run(&self, run_id: &str) -> ApiResult<RunRow<GenerationRunConfig>> {
        let run = self.store().with_conn(|c| jobs::get_run(c, run_id))?;
        if run.kind != RunKind::Generation {
            return Err(ApiError::invalid(format!("{run_id} is an {} run, not a generation run.", run.kind)));
        }
        Ok(run.typed()?)
    }

    /// Work on a run until every candidate is accepted, dropped or skipped, the run is stopped, or
    /// providers keep failing. Calling it again resumes: finished candidates are kept, stored
    /// attempts are replayed, and calls already answered come from the cache.
    pub async fn generation_execute(&self, run_id: &str) -> ApiResult<GenerationSummary> {
        // One row by its key: quick, so it stays on this thread.
        let run = self.generation_run(run_id)?;
        let cfg = &run.config;
        let cap = cfg.request.max_cost_usd;
        // Runs created before the screen existed screen with their verifier model.
        let screen_model = cfg.screen_model.clone().unwrap_or_else(|| cfg.verifier_model.clone());
        let batch = cfg.is_batch();
        let roles = RunRoles {
            producer: self.model_handle(&cfg.model)?.batched(batch),
            verifier: self.model_handle(&cfg.verifier_model)?.batched(batch),
            screen: self.model_handle(&screen_model)?.batched(batch),
        };
        let called = called_models(cfg.protocol(), &roles.producer.cfg, &roles.verifier.cfg, &roles.screen.cfg);
        jobs::budget::check_priced(cap, &called)?;
        let prompts = GenerationPrompts::load()?;
        let pol = cfg.policy.clone();
        let (pack, screen_clauses, known_clauses) = self
            .blocking(move |e| {
                let (pack, _) = e.pack_and_vocab(&pol)?;
                let (screen_clauses, known_clauses) = e.screen_policy_text(&pol)?;
                Ok((pack, screen_clauses, known_clauses))
            })
            .await?;
        let background = prompts.background.render(&[("policy_name", &pack.name)])?;
        let mut bundles: HashMap<String, Arc<CardBundle>> = HashMap::new();
        let run = run_id.to_string();
        for (card_id, version, json, context) in self.store().call_read(move |c| repo::run_cards(c, &run)).await? {
            let v: Value = serde_json::from_str(&json)
                .map_err(|e| ApiError::internal(format!("run {run_id}: stored card {card_id} unreadable: {e}")))?;
            let card = ClauseCard::from_value(&v)
                .map_err(|e| ApiError::internal(format!("run {run_id}: stored card {card_id} unreadable: {e}")))?;
            let label = pack.clause(&card.clause_id).map(|c| c.label.clone());
            bundles.insert(card_id, Arc::new(CardBundle::new(card, version, json, context, label)));
        }
        let run = run_id.to_string();
        let anchors: HashMap<String, String> =
            self.store().call_read(move |c| repo::run_anchors(c, &run)).await?.into_iter().collect();
        let job = job::GenerationJob {
            engine: self,
            run_id: run_id.to_string(),
            policy: cfg.policy.clone(),
            prompts,
            background,
            screen: pipeline::ScreenShared { policy_clauses: screen_clauses, known: known_clauses },
            roles,
            protocol: cfg.protocol(),
            bundles,
            anchors,
            concurrency: cfg.concurrency(),
            batch,
            cap,
            unit_estimate_usd: cfg.unit_estimate_usd.unwrap_or(0.0),
        };
        jobs::runner::execute(self.runner_services(), &job).await
    }

    /// Every clause of the policy as the screen reads it, and the ids and labels a reply may name.
    fn screen_policy_text(&self, policy: &str) -> ApiResult<(String, Vec<crate::screen::reply::KnownClause>)> {
        let (pack, official) = self.store().with_conn(|c| {
            Ok::<_, ApiError>((
                crate::policy::repo::load_pack(c, policy)?,
                crate::policy::repo::official_sections(c, policy)?,
            ))
        })?;
        Ok((crate::screen::input::policy_clauses(&pack, &official), crate::screen::input::known_clauses(&pack)))
    }

    fn generation_summary(&self, run_id: &str, message: Option<String>) -> ApiResult<GenerationSummary> {
        let run = self.generation_run(run_id)?;
        let counts = self.store().with_conn(|c| repo::counts(c, run_id))?;
        let problems = generation_problems(run.status, &counts);
        Ok(GenerationSummary {
            run_id: run_id.to_string(),
            status: run.status,
            counts,
            message: message.or(run.error),
            problems,
        })
    }

    /// Before a resume: apply a new spending cap (or drop it). A run stopped at its cap resumes
    /// only with a higher cap or none; this says so in plain words.
    pub fn generation_prepare_resume(&self, run_id: &str, change: CapChange) -> ApiResult<()> {
        let run = self.generation_run(run_id)?;
        let counts = self.store().with_read(|c| repo::counts(c, run_id))?;
        let current = run.config.request.max_cost_usd;
        let next = change.apply(run_id, current, run.status == RunStatus::CostCapped, counts.cost_usd)?;
        if next != current {
            let mut config = run.config;
            config.request.max_cost_usd = next;
            self.store().with_conn(|c| jobs::set_config(c, run_id, &config))?;
        }
        Ok(())
    }

    /// Ask a run working in this process to stop after the model calls in flight (they are kept).
    pub fn generation_cancel(&self, run_id: &str) -> ApiResult<bool> {
        Ok(self.jobs().cancel(run_id))
    }

    /// Stop a run at once, abandoning the calls in flight (their answers, if any, are lost).
    pub fn generation_abort(&self, run_id: &str) -> ApiResult<bool> {
        let a = self.jobs().cancel(run_id);
        let b = self.jobs().cancel(&jobs::runner::abort_key(run_id));
        Ok(a || b)
    }

    fn run_view(&self, r: RunRow<GenerationRunConfig>) -> ApiResult<GenerationRunView> {
        let counts = self.store().with_conn(|c| repo::counts(c, &r.run_id))?;
        let problems = generation_problems(r.status, &counts);
        Ok(GenerationRunView {
            problems,
            run_id: r.run_id,
            status: r.status,
            label: r.label,
            config: r.config,
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            error: r.error,
            counts,
        })
    }

    pub fn generation_list(&self) -> ApiResult<Vec<GenerationRunView>> {
        let runs = self.store().with_read(|c| jobs::list_runs(c, Some(RunKind::Generation)))?;
        runs.into_iter().map(|r| self.run_view(r.typed()?)).collect()
    }

    pub fn generation_show(&self, run_id: &str) -> ApiResult<GenerationRunView> {
        let r = self.generation_run(run_id)?;
        self.run_view(r)
    }

    /// A run's candidates (all, or filtered by status, case type, clause or card).
    pub fn generation_candidates(
        &self,
        run_id: &str,
        filter: &GenerationCandidateFilter,
    ) -> ApiResult<Vec<GenerationCandidateView>> {
        self.generation_run(run_id)?;
        self.store().with_conn(|c| repo::list_views(c, run_id, filter))
    }

    /// Everything that happened to a case or a candidate: every attempt of every stage with its
    /// prompts, model, request, response, tokens, verdict and issues.
    pub fn generation_provenance(&self, case_or_candidate_id: &str) -> ApiResult<Provenance> {
        self.store().with_conn(|c| {
            let cand = repo::candidate_for_case(c, case_or_candidate_id)?.ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!("\"{case_or_candidate_id}\" is not a generated case or candidate; only generated cases have a generation history."),
                )
            })?;
            let mut attempts = Vec::new();
            if let Some(p) = &cand.parent_candidate_id {
                attempts.extend(repo::provenance_attempts(c, p)?);
            }
            attempts.extend(repo::provenance_attempts(c, &cand.candidate_id)?);
            let card_version = repo::run_cards(c, &cand.run_id)?.into_iter().find(|x| x.0 == cand.clause_card_id).map(|x| x.1);
            let anchor_text = repo::run_anchor(c, &cand.run_id, &cand.anchor_id)?;
            let case = match &cand.case_id {
                Some(id) => match crate::case::repo::stored_json(c, id)? {
                    Some(j) => Some(crate::case::repo::CASE_JSON.parse(&j, id)?),
                    None => None,
                },
                None => None,
            };
            let prompt_versions = jobs::get_run(c, &cand.run_id)?.typed::<GenerationRunConfig>()?.config.prompt_versions;
            Ok(Provenance {
                candidate: repo::view(&cand),
                card_version,
                anchor_text,
                case,
                attempts,
                prompt_versions,
            })
        })
    }
}
