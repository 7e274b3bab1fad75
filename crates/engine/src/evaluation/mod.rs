//! The agentic evaluation environment as resumable runs: plan (counts, destinations, cost
//! estimate), create, execute with progress and cancellation, resume, list, show, export and
//! import trajectories, and metrics over stored runs.

pub mod compare;
pub mod config;
pub mod context;
pub mod environment;
pub mod examples;
mod job;
pub mod judge_input;
pub mod parse;
pub mod rejudge;
pub mod repo;
pub mod selection;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use crate::authoring::repo::approved_extraction;
use crate::case::Case;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::jobs::budget::CapChange;
use crate::jobs::concurrency::EndpointConcurrency;
use crate::jobs::{self, RunKind, RunModel, RunRow, RunStatus};
use crate::llm::ModelConfig;
use crate::metrics::{MetricsOptions, MetricsReport};
use crate::policy::extraction::{context_note, ClauseContextNote};
use crate::policy::repo as policy_repo;
use crate::protocol::{fingerprint, Protocol, RunProvenance};
use crate::trajectory::Trajectory;
pub use config::{EvaluationRunConfig, EvaluationRunModels};
use context::EvalPrompts;

/// The judge's clause text per (policy, clause).
type ClauseTexts = HashMap<(String, String), Arc<String>>;
use environment::Roles;
use repo::ItemCounts;

/// What `eval run` asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(default)]
pub struct EvaluationRunRequest {
    /// `all`, a cases JSONL file, or a filter (see `selection`).
    pub cases: String,
    pub model: String,
    pub info_model: String,
    pub judge_model: String,
    pub turns: u32,
    pub concurrency: u32,
    pub repeat: u32,
    pub label: Option<String>,
    /// Send the calls of models whose provider has a batch API as provider batches (about half
    /// the price; answers within the provider's completion window).
    pub batch: bool,
    /// Stop scheduling new cases before the spending would pass this many US$ (none: no cap).
    pub max_cost_usd: Option<f64>,
    /// `studio` (default) or `paper`: the method the run follows (`protocol`). Optional in
    /// requests: callers that do not say get `studio`.
    #[ts(as = "Option<Protocol>", optional)]
    pub protocol: Protocol,
}

impl Default for EvaluationRunRequest {
    fn default() -> Self {
        EvaluationRunRequest {
            cases: "all".into(),
            model: String::new(),
            info_model: String::new(),
            judge_model: String::new(),
            turns: 10,
            concurrency: 4,
            repeat: 1,
            label: None,
            batch: false,
            max_cost_usd: None,
            protocol: Protocol::Studio,
        }
    }
}

/// Where data goes during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Destination {
    pub role: String,
    pub model: String,
    pub destination: String,
    pub remote: bool,
}

/// A rough pre-run estimate (real usage is recorded per call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CostEstimate {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Null when a model has no price registered.
    pub usd: Option<f64>,
    /// The same in batch mode (batch prices where the provider has a batch API).
    pub usd_batch: Option<f64>,
    pub assumptions: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvaluationPlan {
    /// The method the run would follow.
    pub protocol: Protocol,
    /// The policies of the selected cases: each case is shown its own policy's prompt.
    pub policies: Vec<String>,
    pub cases: usize,
    pub by_type: BTreeMap<String, usize>,
    pub items: usize,
    pub destinations: Vec<Destination>,
    pub sends_data_off_machine: bool,
    pub estimate: CostEstimate,
    /// Per clause, the clause text the judge is shown: an approved extraction (with its version)
    /// or the built-in clause text when no extraction is approved.
    pub clause_contexts: Vec<ClauseContextNote>,
    /// Batch mode: which models it would batch, their providers' window, online vs batch cost.
    pub batch: crate::llm::batch::plan::BatchNote,
    /// When the estimate passes the spending cap: how many items the cap is expected to allow.
    pub cap: Option<jobs::budget::CapForecast>,
    /// Per endpoint the run calls: requests in flight asked for, allowed, and what bounds them.
    pub concurrency: Vec<EndpointConcurrency>,
}

/// What a finished (or stopped) run says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvaluationSummary {
    pub run_id: String,
    pub status: RunStatus,
    pub model: String,
    pub counts: ItemCounts,
    pub message: Option<String>,
    /// Set when the run finished but most of its cases ended on a reply that could not be read.
    pub problems: Option<jobs::RunProblems>,
}

/// A run as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvaluationRunView {
    #[serde(flatten)]
    pub run: RunRow<EvaluationRunConfig>,
    pub counts: ItemCounts,
    /// Set when the run finished but most of its cases ended on a reply that could not be read:
    /// the app shows "finished with problems" with this message instead of a plain "finished".
    pub problems: Option<jobs::RunProblems>,
}

/// What an evaluation calls a case that ended on a reply it could not read.
pub const UNREADABLE_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "cases ended on a reply that could not be read",
    reason: "the model did not answer in the JSON the task asks for",
    advice: "Those cases count as not answered, so the scores say little about the model. Check the model's settings \
             (a larger reply limit, JSON output) or try another model, then run it again.",
};

/// The warning for a finished evaluation whose cases mostly ended on an unreadable reply.
pub fn evaluation_problems(status: RunStatus, counts: &ItemCounts) -> Option<jobs::RunProblems> {
    if status != RunStatus::Completed {
        return None;
    }
    jobs::assess_problems(counts.done, counts.parse_failures, UNREADABLE_WORDS)
}

/// The policies of some cases, each once, in first-seen order.
fn policies_of(cases: &[Case]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in cases {
        if !out.contains(&c.policy) {
            out.push(c.policy.clone());
        }
    }
    out
}

fn estimate(
    system_chars: usize,
    cases: &[Case],
    repeats: u32,
    eval: &ModelConfig,
    info: &ModelConfig,
    judge: &ModelConfig,
) -> CostEstimate {
    // Assumptions: 1.5 model turns per case, 0.5 provider questions, 0.8 judged answers.
    let n = cases.len() as f64 * repeats.max(1) as f64;
    let narrative: f64 = cases.iter().map(|c| c.narrative.len() as f64).sum::<f64>() / cases.len().max(1) as f64;
    let facts: f64 = cases.iter().map(|c| context::fact_list(c).len() as f64).sum::<f64>() / cases.len().max(1) as f64;
    let eval_in = 1.5 * (system_chars as f64 + narrative + 600.0) / 4.0;
    let eval_out = 1.5 * 250.0;
    let info_in = 0.5 * (facts + 2200.0) / 4.0;
    let info_out = 0.5 * 80.0;
    let judge_in = 0.8 * 2200.0 / 4.0;
    let judge_out = 0.8 * 200.0;
    let (usd, usd_batch) = crate::llm::batch::plan::costs(&[
        (eval, n * eval_in, n * eval_out),
        (info, n * info_in, n * info_out),
        (judge, n * judge_in, n * judge_out),
    ]);
    CostEstimate {
        calls: (n * (1.5 + 0.5 + 0.8)).round() as u64,
        input_tokens: (n * (eval_in + info_in + judge_in)) as u64,
        output_tokens: (n * (eval_out + info_out + judge_out)) as u64,
        usd,
        usd_batch,
        assumptions:
            "about 1.5 model turns, 0.5 questions and 0.8 judged answers per case; cached replies cost nothing".into(),
    }
}

impl Engine {
    fn evaluation_models(&self, req: &EvaluationRunRequest) -> ApiResult<(ModelConfig, ModelConfig, ModelConfig)> {
        for (role, flag, name) in [
            ("the model under test", "--model", &req.model),
            ("the information provider", "--info-model", &req.info_model),
            ("the judge", "--judge-model", &req.judge_model),
        ] {
            if name.trim().is_empty() {
                return Err(ApiError::invalid(format!(
                    "Choose a registered model for {role} (`{flag}` on the command line)."
                )));
            }
        }
        Ok((
            self.model_get(&req.model)?.config,
            self.model_get(&req.info_model)?.config,
            self.model_get(&req.judge_model)?.config,
        ))
    }

    /// The judge's clause text for every (policy, clause) of `cases`, and what each one is.
    fn eval_clause_texts(&self, cases: &[&Case]) -> ApiResult<(ClauseTexts, Vec<ClauseContextNote>)> {
        let mut texts = HashMap::new();
        let mut notes = Vec::new();
        let mut packs = HashMap::new();
        for case in cases {
            let key = (case.policy.clone(), case.clause_id.clone());
            if texts.contains_key(&key) {
                continue;
            }
            if !packs.contains_key(&case.policy) {
                // A case of a policy this store lacks still runs; its judge just gets no clause text.
                let loaded = self
                    .store()
                    .with_conn(|c| {
                        Ok::<_, ApiError>((
                            policy_repo::load_pack(c, &case.policy)?,
                            policy_repo::official_sections(c, &case.policy)?,
                        ))
                    })
                    .ok();
                packs.insert(case.policy.clone(), loaded);
            }
            let Some(Some((pack, official))) = packs.get(&case.policy) else {
                texts.insert(key, Arc::new(format!("(Policy {} is not in this store.)", case.policy)));
                continue;
            };
            let approved = self.store().with_conn(|c| approved_extraction(c, &case.policy, &case.clause_id))?;
            notes.push(context_note(approved.as_ref(), &case.clause_id));
            let text = context::judge_clause_text(pack, official, &case.clause_id, approved.as_ref());
            texts.insert(key, Arc::new(text));
        }
        notes.sort_by(|a, b| a.clause_id.cmp(&b.clause_id));
        Ok((texts, notes))
    }

    /// What makes a new run: its protocol and prompts, the policy editions and card library of
    /// its cases' policies, its case set and its judge.
    fn evaluation_provenance(
        &self,
        protocol: Protocol,
        prompts: &EvalPrompts,
        cases: &[Case],
        judge: &ModelConfig,
    ) -> ApiResult<RunProvenance> {
        self.provenance_of(protocol, prompts.versions(), cases, Some(format!("{} ({})", judge.name, judge.model)))
    }

    /// The provenance of a run over `cases` with these prompts and judge (also the example runs').
    pub(crate) fn provenance_of(
        &self,
        protocol: Protocol,
        prompt_versions: indexmap::IndexMap<String, String>,
        cases: &[Case],
        judge_model: Option<String>,
    ) -> ApiResult<RunProvenance> {
        let policies = policies_of(cases);
        let (policy_editions, library) =
            self.store().with_read(|c| fingerprint::stored_policy_and_library(c, &policies))?;
        Ok(RunProvenance {
            protocol,
            prompt_versions,
            policy_editions,
            library_fingerprint: library,
            case_set_fingerprint: fingerprint::case_set(cases),
            case_count: cases.len(),
            judge_model,
        })
    }

    /// The evaluated model's system prompt for the cases of one policy.
    fn eval_system_prompt(&self, policy: &str, prompts: &EvalPrompts) -> ApiResult<String> {
        let (pack, official) = self
            .store()
            .with_conn(|c| {
                Ok::<_, ApiError>((policy_repo::load_pack(c, policy)?, policy_repo::official_sections(c, policy)?))
            })
            .map_err(|e| {
                if e.code == ErrorCode::NotFound {
                    ApiError::invalid(format!(
                        "Some cases belong to policy \"{policy}\", which is not in this store, so their model could not be shown that policy. Import the policy pack first, or leave those cases out of the selection."
                    ))
                } else {
                    e
                }
            })?;
        context::system_prompt(prompts, &pack, &official)
    }

    /// What a run would do, without starting it.
    pub fn evaluation_plan(&self, req: &EvaluationRunRequest) -> ApiResult<EvaluationPlan> {
        let (m, i, j) = self.evaluation_models(req)?;
        let cases = selection::select_cases(self, &req.cases)?;
        if cases.is_empty() {
            return Err(ApiError::invalid(
                "The selection has no cases. Load the 90 demo cases, import cases, or generate some.",
            ));
        }
        let prompts = EvalPrompts::load(req.protocol)?;
        let policies = policies_of(&cases);
        // Every policy of the selection must be in the store: each case is shown its own.
        let mut system_chars = 0;
        for p in &policies {
            system_chars = system_chars.max(self.eval_system_prompt(p, &prompts)?.len());
        }
        let mut by_type = BTreeMap::new();
        for c in &cases {
            *by_type.entry(c.case_type.as_str().to_string()).or_insert(0) += 1;
        }
        let destinations: Vec<Destination> = [("model under test", &m), ("information provider", &i), ("judge", &j)]
            .iter()
            .map(|(role, c)| Destination {
                role: role.to_string(),
                model: c.name.clone(),
                destination: c.destination(),
                remote: !c.is_local(),
            })
            .collect();
        let cap = jobs::budget::check_cap(req.max_cost_usd)?;
        jobs::budget::check_priced(cap, &[&m, &i, &j])?;
        let estimate = estimate(system_chars, &cases, req.repeat, &m, &i, &j);
        let items = cases.len() * req.repeat.max(1) as usize;
        let concurrency = jobs::concurrency::plan(
            self.llm(),
            &[("model under test", &m), ("information provider", &i), ("judge", &j)],
            req.concurrency,
            items,
        );
        Ok(EvaluationPlan {
            protocol: req.protocol,
            policies,
            cases: cases.len(),
            by_type,
            items,
            sends_data_off_machine: destinations.iter().any(|d| d.remote),
            destinations,
            cap: jobs::budget::CapForecast::of(
                cap,
                if req.batch { estimate.usd_batch } else { estimate.usd },
                items as u64,
            ),
            estimate,
            // Under the paper protocol the judge is shown no clause text at all.
            clause_contexts: if req.protocol.judge_sees_clause() {
                self.eval_clause_texts(&cases.iter().collect::<Vec<_>>())?.1
            } else {
                Vec::new()
            },
            batch: crate::llm::batch::plan::note(req.batch, &[&m, &i, &j]),
            concurrency,
        })
    }

    /// Create a run (all items pending). Nothing is sent to any model yet.
    pub fn evaluation_create(&self, req: &EvaluationRunRequest) -> ApiResult<String> {
        let (m, i, j) = self.evaluation_models(req)?;
        if req.turns == 0 || req.turns > 50 {
            return Err(ApiError::invalid("The turn budget must be between 1 and 50 turns."));
        }
        let cap = jobs::budget::check_cap(req.max_cost_usd)?;
        jobs::budget::check_priced(cap, &[&m, &i, &j])?;
        let cases = selection::select_cases(self, &req.cases)?;
        if cases.is_empty() {
            return Err(ApiError::invalid("The selection has no cases."));
        }
        let prompts = EvalPrompts::load(req.protocol)?;
        let provenance = self.evaluation_provenance(req.protocol, &prompts, &cases, &j)?;
        let run_id = jobs::new_run_id(RunKind::Eval);
        let config = EvaluationRunConfig {
            cases: Some(req.cases.clone()),
            policy: Some(cases[0].policy.clone()),
            model: m.name.clone(),
            info_model: Some(i.name.clone()),
            judge_model: Some(j.name.clone()),
            models: Some(EvaluationRunModels {
                eval: RunModel::of(&m),
                info: RunModel::of(&i),
                judge: RunModel::of(&j),
            }),
            turns: Some(req.turns),
            concurrency: Some(req.concurrency.clamp(1, 256)),
            repeat: Some(req.repeat.max(1)),
            max_cost_usd: cap,
            prompt_versions: Some(prompts.versions()),
            batch: req.batch.then_some(true),
            provenance: Some(provenance),
            ..EvaluationRunConfig::default()
        };
        let ids: Vec<String> = cases.iter().map(|c| c.case_id.clone()).collect();
        self.store().with_tx(|tx| -> ApiResult<()> {
            jobs::insert_run(tx, &run_id, RunKind::Eval, req.label.as_deref(), &config)?;
            repo::insert_items(tx, &run_id, &ids, req.repeat.max(1))?;
            Ok(())
        })?;
        Ok(run_id)
    }

    /// Work on a run until every item is done, the run is cancelled, or providers keep failing.
    /// Finished cases are committed one by one; calling it again resumes.
    pub async fn evaluation_execute(&self, run_id: &str) -> ApiResult<EvaluationSummary> {
        // One row by its key: quick, so it stays on this thread.
        let run = self.evaluation_run(run_id)?;
        let cfg = &run.config;
        let model = cfg.model.as_str();
        let (info_model, judge_model) =
            (cfg.info_model.as_deref().unwrap_or(""), cfg.judge_model.as_deref().unwrap_or(""));
        if model.is_empty() {
            return Err(ApiError::invalid(format!("Run {run_id} was imported from a file and cannot be executed.")));
        }
        let batch = cfg.is_batch();
        let roles = Roles {
            eval: self.model_handle(model)?.batched(batch),
            info: self.model_handle(info_model)?.batched(batch),
            judge: self.model_handle(judge_model)?.batched(batch),
        };
        let cap = cfg.max_cost_usd;
        jobs::budget::check_priced(cap, &[&roles.eval.cfg, &roles.info.cfg, &roles.judge.cfg])?;
        let prompts = EvalPrompts::load(cfg.protocol())?;
        let job = job::EvaluationJob::new(self, run_id, roles, prompts, cfg.turns(), cfg.concurrency(), batch, cap);
        jobs::runner::execute(self.runner_services(), &job).await
    }

    /// Before a resume: apply a new spending cap (or drop it). A run stopped at its cap resumes
    /// only with a higher cap or none; this says so in plain words.
    pub fn evaluation_prepare_resume(&self, run_id: &str, change: CapChange) -> ApiResult<()> {
        let run = self.evaluation_run(run_id)?;
        let counts = self.store().with_read(|c| repo::counts(c, run_id))?;
        let capped = run.status == RunStatus::CostCapped;
        let next = change.apply(run_id, run.config.max_cost_usd, capped, counts.cost_usd)?;
        if next != run.config.max_cost_usd {
            let mut config = run.config;
            config.max_cost_usd = next;
            self.store().with_conn(|c| jobs::set_config(c, run_id, &config))?;
        }
        Ok(())
    }

    fn evaluation_summary(&self, run_id: &str, message: Option<String>) -> ApiResult<EvaluationSummary> {
        let run = self.evaluation_run(run_id)?;
        let counts = self.store().with_conn(|c| repo::counts(c, run_id))?;
        Ok(EvaluationSummary {
            run_id: run_id.to_string(),
            status: run.status,
            model: run.config.model,
            problems: evaluation_problems(run.status, &counts),
            counts,
            message: message.or(run.error),
        })
    }

    /// Ask a run working in this process to stop after the cases in flight.
    pub fn evaluation_cancel(&self, run_id: &str) -> ApiResult<bool> {
        Ok(self.jobs().cancel(run_id))
    }

    pub fn evaluation_list(&self) -> ApiResult<Vec<EvaluationRunView>> {
        let runs = self.store().with_read(|c| jobs::list_runs(c, Some(RunKind::Eval)))?;
        runs.into_iter()
            .map(|r| {
                let counts = self.store().with_read(|c| repo::counts(c, &r.run_id))?;
                let problems = evaluation_problems(r.status, &counts);
                Ok(EvaluationRunView { run: r.typed()?, counts, problems })
            })
            .collect()
    }

    /// A stored evaluation run with its typed configuration.
    fn evaluation_run(&self, run_id: &str) -> ApiResult<RunRow<EvaluationRunConfig>> {
        let run = self.store().with_read(|c| jobs::get_run(c, run_id))?;
        if run.kind != RunKind::Eval {
            return Err(ApiError::invalid(format!("{run_id} is a {} run, not an evaluation.", run.kind)));
        }
        Ok(run.typed()?)
    }

    pub fn evaluation_show(&self, run_id: &str) -> ApiResult<EvaluationRunView> {
        let run = self.evaluation_run(run_id)?;
        let counts = self.store().with_read(|c| repo::counts(c, run_id))?;
        let problems = evaluation_problems(run.status, &counts);
        Ok(EvaluationRunView { run, counts, problems })
    }

    pub fn evaluation_trajectories(&self, run_id: &str) -> ApiResult<Vec<Trajectory>> {
        self.store().with_read(|c| {
            jobs::get_run(c, run_id)?;
            repo::trajectories(c, run_id)
        })
    }

    /// Write a run's trajectories as FORMATS.md JSONL.
    pub fn evaluation_export(&self, run_id: &str, out: &Path) -> ApiResult<usize> {
        let t = self.evaluation_trajectories(run_id)?;
        crate::trajectory::io::write_trajectories(out, &t)?;
        Ok(t.len())
    }

    /// Store trajectories from a file as completed runs (one per run_id and model in the file).
    /// All or nothing; every case must already be in the store.
    pub fn evaluation_import(&self, path: &Path) -> ApiResult<Vec<String>> {
        let items = crate::trajectory::io::read_trajectories(path)?;
        if items.is_empty() {
            return Err(ApiError::invalid(format!("{}: no trajectories found", path.display())));
        }
        let mut groups: BTreeMap<(String, String), Vec<Trajectory>> = BTreeMap::new();
        for t in items {
            groups.entry((t.run_id.clone(), t.model.clone())).or_default().push(t);
        }
        let mut cases: HashMap<String, Case> = HashMap::new();
        for ts in groups.values() {
            for t in ts {
                if !cases.contains_key(&t.case_id) {
                    let c = self.case_show(&t.case_id).map_err(|_| {
                        ApiError::new(
                            ErrorCode::ValidationFailed,
                            format!("{}: case \"{}\" is not in the store; import its cases file first (psebench cases import)", path.display(), t.case_id),
                        )
                    })?;
                    cases.insert(t.case_id.clone(), c);
                }
            }
        }
        let mut created = Vec::new();
        self.store().with_tx(|tx| -> ApiResult<()> {
            for ((file_run, model), ts) in &groups {
                let mut run_id = if file_run.is_empty() { jobs::new_run_id(RunKind::Eval) } else { file_run.clone() };
                let mut n = 2;
                while jobs::get_run(tx, &run_id).is_ok() {
                    run_id = format!("{file_run}-imported-{n}");
                    n += 1;
                }
                let config = EvaluationRunConfig {
                    imported_from: Some(path.display().to_string()),
                    model: model.clone(),
                    imported: Some(true),
                    ..EvaluationRunConfig::default()
                };
                jobs::insert_run(tx, &run_id, RunKind::Eval, Some(&format!("imported: {model}")), &config)?;
                let mut seen: HashMap<&str, u32> = HashMap::new();
                for t in ts {
                    let repeat =
                        t.extra.get("repeat").and_then(|v| v.as_u64()).map(|r| r as u32).unwrap_or_else(|| {
                            let e = seen.entry(t.case_id.as_str()).or_insert(0);
                            *e += 1;
                            *e - 1
                        });
                    let mut t2 = t.clone();
                    t2.run_id = run_id.clone();
                    let correct = t2.predicted_verdict() == cases.get(&t.case_id).map(|c| c.gold_verdict);
                    repo::insert_done(tx, &run_id, repeat, &t2, correct)?;
                }
                jobs::set_status(tx, &run_id, RunStatus::Completed, None)?;
                created.push(run_id);
            }
            Ok(())
        })?;
        Ok(created)
    }

    /// Cases and trajectories of stored runs, ready for metrics. A model name used by several of
    /// the chosen runs is suffixed with its run id so their results stay apart.
    pub fn runs_for_metrics(&self, run_ids: &[String]) -> ApiResult<(Vec<Case>, Vec<Trajectory>)> {
        self.runs_with(run_ids, |r| self.evaluation_trajectories(r))
    }

    /// Like `runs_for_metrics`, with trajectories read for scoring only (no transcript text): the
    /// fast path of the Results screen.
    pub fn runs_for_scoring(&self, run_ids: &[String]) -> ApiResult<(Vec<Case>, Vec<Trajectory>)> {
        self.runs_with(run_ids, |r| {
            let texts = self.store().with_read(|c| {
                jobs::get_run(c, r)?;
                repo::trajectory_texts(c, r)
            })?;
            crate::trajectory::scoring::parse_many_for_scoring(&texts)
                .map_err(|e| ApiError::internal(format!("a stored trajectory of run {r} is unreadable: {e}")))
        })
    }

    fn runs_with(
        &self,
        run_ids: &[String],
        load: impl Fn(&str) -> ApiResult<Vec<Trajectory>>,
    ) -> ApiResult<(Vec<Case>, Vec<Trajectory>)> {
        let mut all: Vec<Trajectory> = Vec::new();
        let mut case_ids: Vec<String> = Vec::new();
        let mut per_run: Vec<(String, Vec<Trajectory>)> = Vec::new();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for r in run_ids {
            let t = load(r)?;
            for id in self.store().with_read(|c| repo::case_ids(c, r))? {
                if seen.insert(id.clone()) {
                    case_ids.push(id);
                }
            }
            per_run.push((r.clone(), t));
        }
        let mut model_runs: HashMap<String, usize> = HashMap::new();
        for (_, ts) in &per_run {
            if let Some(m) = ts.first().map(|t| t.model.clone()) {
                *model_runs.entry(m).or_default() += 1;
            }
        }
        for (run, ts) in per_run {
            for mut t in ts {
                if model_runs.get(&t.model).copied().unwrap_or(0) > 1 {
                    t.model = format!("{} [{run}]", t.model);
                }
                all.push(t);
            }
        }
        // One query for all cases, then keep the run's ones in run order.
        let mut by_id: HashMap<String, Case> = self
            .cases_all(&crate::case::repo::CaseFilter { include_excluded: true, ..Default::default() })?
            .into_iter()
            .map(|c| (c.case_id.clone(), c))
            .collect();
        let mut cases = Vec::with_capacity(case_ids.len());
        for id in case_ids {
            let c = by_id
                .remove(&id)
                .ok_or_else(|| ApiError::not_found(format!("case \"{id}\" of the run is no longer in the store")))?;
            cases.push(c);
        }
        Ok((cases, all))
    }

    /// Metrics of stored runs (one entry per model), with what differs in how the runs were made
    /// and the paired tests refused across case sets.
    pub fn metrics_for_runs(&self, run_ids: &[String], opts: &MetricsOptions) -> ApiResult<MetricsReport> {
        let (cases, trajectories) = self.runs_for_metrics(run_ids)?;
        let mut report = crate::metrics::compute(&cases, &trajectories, opts);
        self.compare_runs_in(run_ids, &mut report)?;
        Ok(report)
    }
}
