//! A label audit as a job of the runner (`jobs::runner`): its items are the audit's cases that a
//! model has still to screen; one item is one case screened by every such model, each result
//! stored the moment it is known.

use indexmap::IndexMap;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::{repo, AuditConfig, LabelAuditReport, PolicyInputs, CONCURRENCY, FORMAT_TRIES};
use crate::case::Case;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::jobs::runner::{ItemOutcome, ItemTokens, Job, JobSetup, Nouns, RunEnd, Tally};
use crate::jobs::RunKind;
use crate::llm::{ledger, CallContext, CancellationToken, ChatRequest, LlmError, Message, ModelHandle};
use crate::prompt::split::SplitPrompt;
use crate::screen::agree::{self, Expectation};
use crate::screen::input::{self, Fact};
use crate::screen::reply;
use repo::ResultRow;

/// What the audit reads once it is claimed: its models, the prompt, and the pairs already screened.
struct Loaded {
    handles: Vec<(String, ModelHandle)>,
    prompt: SplitPrompt,
    done_pairs: HashSet<(String, String)>,
}

pub(super) struct AuditJob<'e> {
    engine: &'e Engine,
    run_id: String,
    cfg: AuditConfig,
    loaded: Mutex<Option<Arc<Loaded>>>,
    /// The audit's stored results, read with the items and kept up to date here.
    rows: Mutex<Vec<ResultRow>>,
    /// Each policy's screening inputs, read once per policy.
    policies: Mutex<HashMap<String, Arc<PolicyInputs>>>,
}

impl<'e> AuditJob<'e> {
    pub fn new(engine: &'e Engine, run_id: &str, cfg: AuditConfig) -> Self {
        AuditJob {
            engine,
            run_id: run_id.to_string(),
            cfg,
            loaded: Mutex::new(None),
            rows: Mutex::new(Vec::new()),
            policies: Mutex::new(HashMap::new()),
        }
    }

    /// Screen one case with every model that has not screened it yet. Err: why the audit must stop.
    async fn screen_case(
        &self,
        loaded: &Loaded,
        case_id: &str,
        stop: &CancellationToken,
    ) -> Result<ItemOutcome, String> {
        let (e, run_id) = (self.engine, self.run_id.as_str());
        let store_failed = |e: ApiError| {
            format!(
                "The store failed ({}); finished screens are kept. Resume the audit once the problem is fixed.",
                e.message
            )
        };
        let id = case_id.to_string();
        let case: Case = match e.store().call_read(move |c| crate::case::repo::get_case(c, &id)).await {
            Ok(c) => c,
            Err(e) if e.code == ErrorCode::NotFound => {
                tracing::warn!(run = %run_id, case = %case_id, "case removed since the audit was created; skipped");
                return Ok(ItemOutcome::Skipped);
            }
            Err(e) => return Err(store_failed(e)),
        };
        let known = self.policies.lock().unwrap_or_else(|p| p.into_inner()).get(&case.policy).cloned();
        let p = match known {
            Some(p) => p,
            None => {
                let policy = case.policy.clone();
                let inputs = e.blocking(move |e| e.label_audit_policy_inputs(&policy)).await.map_err(store_failed)?;
                let p = Arc::new(inputs);
                self.policies.lock().unwrap_or_else(|p| p.into_inner()).insert(case.policy.clone(), p.clone());
                p
            }
        };
        let (policy, clause) = (case.policy.clone(), case.clause_id.clone());
        let extraction = e
            .store()
            .call_read(move |c| crate::authoring::repo::approved_extraction(c, &policy, &clause))
            .await
            .map_err(store_failed)?;
        let context = match extraction {
            Some(x) => {
                crate::policy::extraction::context_with_clause(&x.document, &p.pack, &p.official, &case.clause_id)
            }
            None => {
                crate::policy::context::clause_context(&case.clause_id, &case.gold_legal_basis, &p.pack, &p.official)
            }
        };
        let list: Vec<Fact<'_>> = case
            .elements
            .iter()
            .map(|e| Fact { name: &e.name, meaning: &e.meaning, value: e.value.as_deref() })
            .collect();
        let facts = input::facts(&list);
        let prompt = &loaded.prompt;
        let (system, user) = prompt
            .render(&[
                ("background", &p.background),
                ("policy_clauses", &p.clauses),
                ("context", &context),
                ("facts", &facts),
            ])
            .map_err(|e| e.message)?;
        let exp = Expectation {
            label: case.gold_verdict,
            clause_id: case.clause_id.clone(),
            allowed_other: p.allowed.get(&case.clause_card_id).cloned().unwrap_or_default(),
        };
        let mut spent_usd = 0.0;
        for (model, handle) in &loaded.handles {
            if loaded.done_pairs.contains(&(case_id.to_string(), model.clone())) {
                continue;
            }
            if stop.is_cancelled() {
                return Ok(ItemOutcome::Stopped { spent_usd });
            }
            let mut row = ResultRow {
                case_id: case_id.to_string(),
                model: model.clone(),
                label: case.gold_verdict.as_str().to_string(),
                clause_id: case.clause_id.clone(),
                readable: false,
                verdict: None,
                clauses_met: json!([]),
                open_question: Value::Null,
                agrees: false,
                conflicts: vec![],
                input_tokens: 0,
                output_tokens: 0,
                cost_usd: 0.0,
            };
            // Each try's reading, added to its row of the call ledger when the result is stored.
            let mut readings: Vec<(i64, ledger::Completion)> = Vec::new();
            let mut versions = IndexMap::new();
            versions.insert(prompt.prompt.name.clone(), prompt.prompt.version.clone());
            for t in 0..FORMAT_TRIES {
                let req = ChatRequest {
                    repeat: t,
                    ..ChatRequest::new(vec![Message::system(system.clone()), Message::user(user.clone())])
                }
                .json_schema("clause_screen", reply::schema());
                let ctx = CallContext::new(Some(run_id), "clause_screen")
                    .item(case_id)
                    .attempt(t + 1)
                    .role("screener")
                    .prompt(&prompt.prompt.name, versions.clone());
                let resp = match e.llm().chat(handle, &req, &ctx, stop).await {
                    Ok(r) => r,
                    Err(LlmError::Cancelled) => return Ok(ItemOutcome::Stopped { spent_usd }),
                    Err(e) => {
                        return Err(format!(
                            "Model {model} failed on case {case_id} ({e}); finished screens are kept. Resume the audit once the provider answers again."
                        ))
                    }
                };
                row.input_tokens += resp.usage.input_tokens;
                row.output_tokens += resp.usage.output_tokens;
                row.cost_usd += resp.cost_usd;
                // An unreadable reply is asked again, and kept as unreadable after the last try.
                let mut reading = ledger::Completion::default();
                match reply::parse(&resp.text, &p.known) {
                    Ok((r, value, notes)) => {
                        reading.parsed = Some(value);
                        reading.parse_notes = notes;
                        if let Some(id) = resp.call_id {
                            readings.push((id, reading));
                        }
                        let a = agree::agreement(&exp, &r);
                        row.readable = true;
                        row.verdict = Some(r.verdict.as_str().to_string());
                        row.clauses_met = serde_json::to_value(&r.clauses_met).unwrap_or(json!([]));
                        row.open_question = serde_json::to_value(&r.open_question).unwrap_or(Value::Null);
                        row.agrees = a.agrees;
                        row.conflicts = a.conflicts;
                        break;
                    }
                    Err(why) => {
                        reading.parse_notes = vec![format!("unreadable: {why}")];
                        if let Some(id) = resp.call_id {
                            readings.push((id, reading));
                        }
                    }
                }
            }
            let run = run_id.to_string();
            let row = e
                .store()
                .call(move |c| {
                    for (id, reading) in &readings {
                        ledger::complete(c, *id, reading)?;
                    }
                    repo::insert(c, &run, &row)?;
                    Ok(row)
                })
                .await
                .map_err(store_failed)?;
            spent_usd += row.cost_usd;
            self.rows.lock().unwrap_or_else(|p| p.into_inner()).push(row);
        }
        Ok(ItemOutcome::Done { spent_usd, note: None })
    }
}

impl Job for AuditJob<'_> {
    type Item = String;
    type Summary = LabelAuditReport;

    fn setup(&self) -> JobSetup<'_> {
        JobSetup {
            run_id: &self.run_id,
            kind: RunKind::LabelAudit,
            nouns: Nouns { items: "cases", kept: "screens", streak: "cases", resume_note: "" },
            // The endpoints keep their registered concurrency, as before the runner.
            models: vec![],
            concurrency: CONCURRENCY,
            batch: false,
            cap_usd: None,
            rerun_finished: false,
            start_message: None,
            watched: None,
        }
    }

    async fn items(&self) -> ApiResult<Vec<String>> {
        let e = self.engine;
        let handles: Vec<(String, ModelHandle)> =
            self.cfg.models.iter().map(|m| Ok((m.clone(), e.model_handle(m)?))).collect::<ApiResult<_>>()?;
        let prompt = crate::screen::prompt()?;
        let run = self.run_id.clone();
        let stored = e.store().call_read(move |c| repo::results(c, &run)).await?;
        let done_pairs: HashSet<(String, String)> =
            stored.iter().map(|r| (r.case_id.clone(), r.model.clone())).collect();
        let todo: Vec<String> = self
            .cfg
            .case_ids
            .iter()
            .filter(|id| self.cfg.models.iter().any(|m| !done_pairs.contains(&((*id).clone(), m.clone()))))
            .cloned()
            .collect();
        *self.rows.lock().unwrap_or_else(|p| p.into_inner()) = stored;
        *self.loaded.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(Loaded { handles, prompt, done_pairs }));
        Ok(todo)
    }

    async fn run_item(&self, case_id: String, tokens: &ItemTokens) -> ItemOutcome {
        let Some(loaded) = self.loaded.lock().unwrap_or_else(|p| p.into_inner()).clone() else {
            return ItemOutcome::Skipped;
        };
        // Stop ends the calls in flight too: an interrupted screen is asked again in full on resume.
        match self.screen_case(&loaded, &case_id, &tokens.stop).await {
            Ok(outcome) => outcome,
            Err(why) => ItemOutcome::Halt(why),
        }
    }

    async fn tally(&self) -> ApiResult<Tally> {
        let (screened, agree, disputed, cost) = {
            let rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
            let (screened, agree, disputed) = super::report_of(&super::tally(&self.cfg, &rows));
            (screened as u64, agree, disputed.len(), rows.iter().map(|r| r.cost_usd).sum::<f64>())
        };
        let mut counters = IndexMap::new();
        counters.insert("screened".to_string(), screened as f64);
        counters.insert("agree".to_string(), agree as f64);
        counters.insert("disputed".to_string(), disputed as f64);
        counters.insert("cost_usd".to_string(), cost);
        Ok(Tally {
            total: self.cfg.case_ids.len() as u64,
            done: screened,
            // A model error stops the audit with its reason; a removed case is simply skipped.
            unfinished: 0,
            spent_usd: cost,
            budget_units: screened,
            counters,
        })
    }

    fn problems(&self, _t: &Tally) -> Option<crate::jobs::RunProblems> {
        let rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        super::label_audit_problems(crate::jobs::RunStatus::Completed, &rows)
    }

    async fn summary(&self, _end: RunEnd) -> ApiResult<LabelAuditReport> {
        let run = self.run_id.clone();
        self.engine.blocking(move |e| e.label_audit_report(&run)).await
    }
}
