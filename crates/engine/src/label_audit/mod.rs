//! The label audit: stored cases (generated, imported or demo) screened against the whole policy by
//! one or more models, each reply compared with the case's by-construction label by the same
//! agreement rule generation uses. A case is *disputed* when a majority of the screening models
//! disagree with its label; a tie (one of two models, two of four) counts as disputed too, since
//! a label that half of the independent screens reject deserves a person's look.
//!
//! How an audit is stored: a `runs` row of kind `label_audit` holds the request and the case ids
//! frozen when it was created; `label_audit_results` holds one row per (case, model). Resuming
//! screens only the (case, model) pairs that have no row yet.

mod job;
pub mod repo;
mod select;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{self, RunKind, RunStatus};
use crate::screen::agree;
use crate::screen::input;
use crate::screen::reply::KnownClause;
use crate::util::csv_text::csv_string;
use repo::ResultRow;

/// Tries a model gets to return a readable reply for one case.
const FORMAT_TRIES: u32 = 3;
/// Cases screened at once.
const CONCURRENCY: usize = 4;
/// Rough sizes behind the estimate (characters).
const CONTEXT_CHARS: f64 = 3_000.0;
const REPLY_CHARS: f64 = 600.0;
/// How ties count, said wherever results are shown.
pub const TIE_RULE: &str = "A case is disputed when a majority of the screening models disagree with its label; a tie (for example one of two models) counts as disputed, so that a person looks at it.";

/// What to audit and with which models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditRequest {
    /// `all`, a clause id, case ids separated by commas, or `type:Reportable|Non-reportable|Uncertain`
    /// (tokens may be combined with commas).
    pub cases: String,
    /// Registered model names (one to five).
    pub models: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub label: Option<String>,
}

/// The request as stored with the audit, with the cases it froze.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct AuditConfig {
    cases: String,
    models: Vec<String>,
    case_ids: Vec<String>,
    prompt_version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditDestination {
    pub model: String,
    pub destination: String,
    pub remote: bool,
}

/// What an audit would do and cost, before anything is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditPlan {
    pub cases: usize,
    pub models: Vec<String>,
    /// One call per case and model (more when a reply cannot be read).
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub tokens: u64,
    /// Null when a remote model has no price registered.
    pub usd: Option<f64>,
    pub destinations: Vec<LabelAuditDestination>,
    pub sends_data_off_machine: bool,
    pub notes: Vec<String>,
}

/// One model's reading of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelVerdict {
    /// Null when no reply could be read.
    pub verdict: Option<String>,
    pub clauses_met: Vec<String>,
    pub open_question: bool,
    pub agrees: bool,
}

/// A case whose label a majority of the models dispute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DisputedCase {
    pub case_id: String,
    pub label: String,
    /// Model name → its reading.
    pub verdicts: IndexMap<String, ModelVerdict>,
}

/// What `psebench cases screen --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditReport {
    /// Cases every model has screened.
    pub screened: usize,
    /// Screened cases that every model agrees with.
    pub agree: usize,
    pub disputed: Vec<DisputedCase>,
    /// Set when the audit finished but most of the models' screens ended on an unreadable reply;
    /// absent otherwise, so the report keeps its three fields when all went well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problems: Option<jobs::RunProblems>,
}

/// One screened case in the audit view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditRow {
    pub case_id: String,
    pub label: String,
    pub clause_id: String,
    pub verdicts: IndexMap<String, ModelVerdict>,
    pub disputed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct LabelAuditResultsRequest {
    /// The audit (default: the latest).
    #[serde(default)]
    pub run_id: Option<String>,
    #[serde(default)]
    pub disputed_only: Option<bool>,
    #[serde(default)]
    pub clause: Option<String>,
}

/// An audit's results, filtered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditResults {
    pub run_id: String,
    pub status: RunStatus,
    pub models: Vec<String>,
    pub screened: usize,
    pub agree: usize,
    pub disputed: Vec<DisputedCase>,
    pub rows: Vec<LabelAuditRow>,
    /// How ties count.
    pub tie_rule: String,
    /// Set when the audit finished but most of the models' screens ended on an unreadable reply.
    pub problems: Option<jobs::RunProblems>,
}

/// An audit as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LabelAuditRunView {
    pub run_id: String,
    pub status: RunStatus,
    pub label: Option<String>,
    pub cases_filter: String,
    pub models: Vec<String>,
    pub cases: usize,
    pub screened: usize,
    pub disputed: usize,
    pub cost_usd: f64,
    pub created_at: String,
    pub finished_at: Option<String>,
    pub error: Option<String>,
    /// Set when the audit finished but most of the models' screens ended on an unreadable reply:
    /// the app shows "finished with problems" with this message instead of a plain "finished".
    pub problems: Option<jobs::RunProblems>,
}

/// What a label audit calls a screen whose reply it could not read.
pub const UNREADABLE_WORDS: jobs::ProblemWords = jobs::ProblemWords {
    what: "screens of a case by a model ended on a reply that could not be read",
    reason: "the model did not answer in the JSON the screen asks for",
    advice: "An unreadable screen neither supports nor disputes a label, so this audit says little. Check the models' \
             settings (a larger reply limit, JSON output) or choose other models, then run the audit again.",
};

/// The warning for a finished audit whose screens mostly ended on an unreadable reply.
pub(crate) fn label_audit_problems(status: RunStatus, rows: &[ResultRow]) -> Option<jobs::RunProblems> {
    if status != RunStatus::Completed {
        return None;
    }
    let unreadable = rows.iter().filter(|r| !r.readable).count() as u64;
    jobs::assess_problems(rows.len() as u64, unreadable, UNREADABLE_WORDS)
}

/// What one model's screen of one case shows it.
struct PolicyInputs {
    background: String,
    clauses: String,
    known: Vec<KnownClause>,
    pack: crate::policy::PolicyPack,
    official: Vec<crate::policy::OfficialSection>,
    allowed: HashMap<String, Vec<String>>,
}

fn models_of(req: &LabelAuditRequest) -> ApiResult<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for m in req.models.iter().flat_map(|m| m.split(',')).map(str::trim).filter(|m| !m.is_empty()) {
        if !out.iter().any(|x| x == m) {
            out.push(m.to_string());
        }
    }
    if out.is_empty() {
        return Err(ApiError::invalid(
            "Name at least one model to screen with (--models M1[,M2,M3]; registered models are listed by `psebench models list`).",
        ));
    }
    if out.len() > 5 {
        return Err(ApiError::invalid("Screen with at most five models at once."));
    }
    Ok(out)
}

/// A model's verdict, and whether it counts against the label.
fn verdict_of(r: &ResultRow) -> ModelVerdict {
    ModelVerdict {
        verdict: r.verdict.clone(),
        clauses_met: r.clause_ids(),
        open_question: r.open_question_present(),
        agrees: r.agrees,
    }
}

/// Per case (in audit order), the models' results; only cases every model has screened.
fn tally(cfg: &AuditConfig, rows: &[ResultRow]) -> Vec<LabelAuditRow> {
    let mut by_case: HashMap<&str, Vec<&ResultRow>> = HashMap::new();
    for r in rows {
        by_case.entry(r.case_id.as_str()).or_default().push(r);
    }
    let mut out = Vec::new();
    for id in &cfg.case_ids {
        let Some(rs) = by_case.get(id.as_str()) else { continue };
        let mut verdicts = IndexMap::new();
        for m in &cfg.models {
            if let Some(r) = rs.iter().find(|r| &r.model == m) {
                verdicts.insert(m.clone(), verdict_of(r));
            }
        }
        if verdicts.len() < cfg.models.len() {
            continue;
        }
        // An unreadable reply is no evidence against the label: it does not count as disagreeing.
        let against = rs.iter().filter(|r| r.readable && !r.agrees).count();
        out.push(LabelAuditRow {
            case_id: id.clone(),
            label: rs[0].label.clone(),
            clause_id: rs[0].clause_id.clone(),
            // Ties count as disputed (see TIE_RULE).
            disputed: against > 0 && against * 2 >= cfg.models.len(),
            verdicts,
        });
    }
    out
}

fn report_of(rows: &[LabelAuditRow]) -> (usize, usize, Vec<DisputedCase>) {
    let agree = rows.iter().filter(|r| r.verdicts.values().all(|v| v.agrees)).count();
    let disputed = rows
        .iter()
        .filter(|r| r.disputed)
        .map(|r| DisputedCase { case_id: r.case_id.clone(), label: r.label.clone(), verdicts: r.verdicts.clone() })
        .collect();
    (rows.len(), agree, disputed)
}

impl Engine {
    fn label_audit_config(&self, run_id: &str) -> ApiResult<(jobs::StoredRun, AuditConfig)> {
        let run = self.store().with_conn(|c| jobs::get_run(c, run_id))?;
        if run.kind != RunKind::LabelAudit {
            return Err(ApiError::invalid(format!("{run_id} is an {} run, not a label audit.", run.kind)));
        }
        let cfg: AuditConfig = serde_json::from_value(run.config.clone()).map_err(|e| {
            ApiError::internal(format!("label audit {run_id}: the stored configuration cannot be read: {e}"))
        })?;
        Ok((run, cfg))
    }

    fn label_audit_policy_inputs(&self, policy: &str) -> ApiResult<PolicyInputs> {
        let (pack, official, cards) = self.store().with_conn(|c| {
            Ok::<_, ApiError>((
                crate::policy::repo::load_pack(c, policy)?,
                crate::policy::repo::official_sections(c, policy)?,
                crate::card::repo::current_cards(c, policy)?,
            ))
        })?;
        let mut allowed = HashMap::new();
        for (row, json) in cards {
            if let Ok(card) = serde_json::from_str::<Value>(&json)
                .map_err(|e| e.to_string())
                .and_then(|v| crate::card::ClauseCard::from_value(&v).map_err(|e| e.to_string()))
            {
                allowed.insert(row.card_id, agree::allowed_other_clauses(&card));
            }
        }
        let background = crate::prompt::load("gen_background")?.render(&[("policy_name", &pack.name)])?;
        Ok(PolicyInputs {
            background,
            clauses: input::policy_clauses(&pack, &official),
            known: input::known_clauses(&pack),
            pack,
            official,
            allowed,
        })
    }

    /// What an audit of these cases with these models would send and cost.
    pub fn label_audit_plan(&self, req: &LabelAuditRequest) -> ApiResult<LabelAuditPlan> {
        let models = models_of(req)?;
        let cases = select::select(self, &req.cases)?;
        let prompt = crate::screen::prompt()?;
        let mut policies: HashMap<String, f64> = HashMap::new();
        let mut chars_in = 0.0;
        for c in &cases {
            if !policies.contains_key(&c.policy) {
                let p = self.label_audit_policy_inputs(&c.policy)?;
                policies.insert(c.policy.clone(), (p.clauses.len() + p.background.len()) as f64);
            }
            let facts: usize = c
                .elements
                .iter()
                .map(|e| e.name.len() + e.meaning.len() + e.value.as_ref().map_or(0, String::len) + 8)
                .sum();
            chars_in += prompt.prompt.text.len() as f64 + policies[&c.policy] + CONTEXT_CHARS + facts as f64;
        }
        let n = models.len() as f64;
        let (input_tokens, output_tokens) = (chars_in / 4.0 * n, REPLY_CHARS * cases.len() as f64 / 4.0 * n);
        let mut usd = Some(0.0);
        let mut destinations = Vec::new();
        let mut notes = vec![format!(
            "Estimate: one call per case and model, 4 characters per token, every clause of the policy in every prompt. {TIE_RULE}"
        )];
        for m in &models {
            let cfg = self.model_get(m)?.config;
            let price = match (cfg.price_in, cfg.price_out) {
                (Some(pi), Some(po)) => Some((chars_in / 4.0 * pi + REPLY_CHARS * cases.len() as f64 / 4.0 * po) / 1e6),
                _ if cfg.is_local() => Some(0.0),
                _ => None,
            };
            if price.is_none() {
                notes.push(format!("Model {m} has no price registered, so the cost cannot be estimated."));
            }
            usd = match (usd, price) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
            destinations.push(LabelAuditDestination {
                model: m.clone(),
                destination: cfg.destination(),
                remote: !cfg.is_local(),
            });
        }
        if models.len() % 2 == 0 {
            notes.push(format!("With {} models an even split is possible; it counts as disputed.", models.len()));
        }
        Ok(LabelAuditPlan {
            cases: cases.len(),
            calls: (cases.len() * models.len()) as u64,
            input_tokens: input_tokens as u64,
            output_tokens: output_tokens as u64,
            tokens: (input_tokens + output_tokens) as u64,
            usd,
            sends_data_off_machine: destinations.iter().any(|d| d.remote),
            destinations,
            models,
            notes,
        })
    }

    /// Create an audit (nothing is sent yet); the cases are frozen now.
    pub fn label_audit_create(&self, req: &LabelAuditRequest) -> ApiResult<String> {
        let models = models_of(req)?;
        for m in &models {
            self.model_get(m)?;
        }
        let cases = select::select(self, &req.cases)?;
        let cfg = AuditConfig {
            cases: req.cases.trim().to_string(),
            models,
            case_ids: cases.iter().map(|c| c.case_id.clone()).collect(),
            prompt_version: crate::screen::prompt()?.prompt.version,
        };
        let run_id = jobs::new_run_id(RunKind::LabelAudit);
        self.store().with_tx(|tx| jobs::insert_run(tx, &run_id, RunKind::LabelAudit, req.label.as_deref(), &cfg))?;
        Ok(run_id)
    }

    /// Screen (or resume screening) every (case, model) pair of an audit that has no result yet.
    pub async fn label_audit_execute(&self, run_id: &str) -> ApiResult<LabelAuditReport> {
        // One row by its key: quick, so it stays on this thread.
        let (_, cfg) = self.label_audit_config(run_id)?;
        let job = job::AuditJob::new(self, run_id, cfg);
        jobs::runner::execute(self.runner_services(), &job).await
    }

    /// Ask an audit running in this process to stop after the calls in flight.
    pub fn label_audit_cancel(&self, run_id: &str) -> ApiResult<bool> {
        self.label_audit_config(run_id)?;
        Ok(self.jobs().cancel(run_id))
    }

    /// The summary `psebench cases screen` prints.
    pub fn label_audit_report(&self, run_id: &str) -> ApiResult<LabelAuditReport> {
        let r = self.label_audit_results(&LabelAuditResultsRequest {
            run_id: Some(run_id.to_string()),
            ..Default::default()
        })?;
        Ok(LabelAuditReport { screened: r.screened, agree: r.agree, disputed: r.disputed, problems: r.problems })
    }

    /// An audit's results (the latest audit when no run is named), optionally only the disputed
    /// cases or one clause's.
    pub fn label_audit_results(&self, req: &LabelAuditResultsRequest) -> ApiResult<LabelAuditResults> {
        let run_id = match req.run_id.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(id) => id.to_string(),
            None => self
                .store()
                .with_read(|c| jobs::list_runs(c, Some(RunKind::LabelAudit)))?
                .into_iter()
                .next()
                .map(|r| r.run_id)
                .ok_or_else(|| ApiError::not_found("No label audit has been run yet. Start one with `psebench cases screen` or from the Cases page."))?,
        };
        let (run, cfg) = self.label_audit_config(&run_id)?;
        let stored = self.store().with_conn(|c| repo::results(c, &run_id))?;
        let problems = label_audit_problems(run.status, &stored);
        let rows: Vec<LabelAuditRow> = tally(&cfg, &stored)
            .into_iter()
            .filter(|r| !req.disputed_only.unwrap_or(false) || r.disputed)
            .filter(|r| req.clause.as_deref().map(|c| c.trim().is_empty() || r.clause_id == c.trim()).unwrap_or(true))
            .collect();
        let (screened, agree, disputed) = report_of(&rows);
        Ok(LabelAuditResults {
            run_id,
            status: run.status,
            models: cfg.models,
            screened,
            agree,
            disputed,
            rows,
            tie_rule: TIE_RULE.to_string(),
            problems,
        })
    }

    /// Every label audit, newest first.
    pub fn label_audit_list(&self) -> ApiResult<Vec<LabelAuditRunView>> {
        let runs = self.store().with_read(|c| jobs::list_runs(c, Some(RunKind::LabelAudit)))?;
        let mut out = Vec::new();
        for r in runs {
            let (_, cfg) = self.label_audit_config(&r.run_id)?;
            let stored = self.store().with_conn(|c| repo::results(c, &r.run_id))?;
            let rows = tally(&cfg, &stored);
            out.push(LabelAuditRunView {
                problems: label_audit_problems(r.status, &stored),
                run_id: r.run_id,
                status: r.status,
                label: r.label,
                cases_filter: cfg.cases.clone(),
                cases: cfg.case_ids.len(),
                screened: rows.len(),
                disputed: rows.iter().filter(|x| x.disputed).count(),
                cost_usd: stored.iter().map(|x| x.cost_usd).sum(),
                models: cfg.models,
                created_at: r.created_at,
                finished_at: r.finished_at,
                error: r.error,
            });
        }
        Ok(out)
    }

    /// An audit as CSV: one line per screened case, with each model's verdict, clauses met, open
    /// question and agreement.
    pub fn label_audit_csv(&self, run_id: &str) -> ApiResult<String> {
        let r = self.label_audit_results(&LabelAuditResultsRequest {
            run_id: Some(run_id.to_string()),
            ..Default::default()
        })?;
        let mut head = vec!["case_id".to_string(), "label".into(), "clause_id".into(), "disputed".into()];
        for m in &r.models {
            for k in ["verdict", "clauses_met", "open_question", "agrees"] {
                head.push(format!("{m} {k}"));
            }
        }
        let mut records = vec![head];
        for row in &r.rows {
            // `csv_string` guards every cell (model names in the header included) against formulas:
            // an imported case id may start with "-".
            let mut f: Vec<String> = vec![row.case_id.clone(), row.label.clone(), row.clause_id.clone()];
            f.push(row.disputed.to_string());
            for m in &r.models {
                match row.verdicts.get(m) {
                    Some(v) => f.extend([
                        v.verdict.clone().unwrap_or_else(|| "unreadable".into()),
                        v.clauses_met.join(" "),
                        v.open_question.to_string(),
                        v.agrees.to_string(),
                    ]),
                    None => f.extend(std::iter::repeat_n(String::new(), 4)),
                }
            }
            records.push(f);
        }
        Ok(csv_string(records)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(case: &str, model: &str, agrees: bool, readable: bool) -> ResultRow {
        ResultRow {
            case_id: case.into(),
            model: model.into(),
            label: "Non-reportable".into(),
            clause_id: "X_1".into(),
            readable,
            verdict: readable.then(|| if agrees { "Non-reportable".into() } else { "Reportable".into() }),
            clauses_met: if agrees { json!([]) } else { json!([{"clause_id": "Y_2", "why": "w"}]) },
            open_question: json!({"present": false}),
            agrees: readable && agrees,
            conflicts: vec![],
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: 0.0,
        }
    }

    #[test]
    fn a_majority_or_a_tie_disputes_a_label() {
        let cfg = AuditConfig {
            cases: "all".into(),
            models: vec!["a".into(), "b".into()],
            case_ids: vec!["c1".into(), "c2".into(), "c3".into(), "c4".into()],
            prompt_version: "v".into(),
        };
        let rows = vec![
            row("c1", "a", true, true),
            row("c1", "b", true, true),
            row("c2", "a", false, true),
            row("c2", "b", false, true),
            row("c3", "a", true, true),
            row("c3", "b", false, true),
            row("c4", "a", true, true), // b has not screened c4 yet
        ];
        let t = tally(&cfg, &rows);
        assert_eq!(
            t.iter().map(|r| (r.case_id.as_str(), r.disputed)).collect::<Vec<_>>(),
            vec![("c1", false), ("c2", true), ("c3", true)],
            "c3 is a tie"
        );
        let (screened, agree, disputed) = report_of(&t);
        assert_eq!((screened, agree, disputed.len()), (3, 1, 2));
        // Three models: one dissent is no majority.
        let three = AuditConfig { models: vec!["a".into(), "b".into(), "c".into()], ..cfg.clone() };
        let rows3 = vec![row("c1", "a", true, true), row("c1", "b", false, true), row("c1", "c", true, true)];
        assert!(!tally(&three, &rows3)[0].disputed);
        assert_eq!(disputed[0].verdicts["a"].clauses_met, vec!["Y_2"]);
        // An unreadable reply does not count against the label.
        let one = AuditConfig { models: vec!["a".into()], case_ids: vec!["c5".into()], ..cfg };
        assert!(!tally(&one, &[row("c5", "a", false, false)])[0].disputed);
    }
}
