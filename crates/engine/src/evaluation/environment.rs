//! The two-role environment for one case: the model under test reads the narrative and, turn by
//! turn, asks the stateless information provider for facts or answers; the last allowed turn
//! demands an answer; a correct answer's rationale goes to the M4 judge.

use indexmap::IndexMap;
use serde_json::{json, Value};
use std::sync::Arc;

use super::context::{condition_list, fact_list, EvalPrompts};
use super::judge_input::fenced_rationale;
use super::parse::{eval_reply, info_reply, judge_reply, EvalReply};
use crate::case::Case;
use crate::llm::{
    CallChain, CallContext, CancellationToken, ChatRequest, LlmClient, LlmError, Message, ModelHandle, Usage,
};
use crate::trajectory::{
    Action, EvalRole, EvalTurn, InfoRole, InfoStatus, InfoTurn, JudgeResult, Trajectory, TrajectoryUsage, Turn,
};

/// Attempts allowed to the information provider and the judge for a well-formed reply.
pub const ROLE_ATTEMPTS: u32 = 3;

pub struct Roles {
    pub eval: ModelHandle,
    pub info: ModelHandle,
    pub judge: ModelHandle,
}

pub struct CaseOutcome {
    pub trajectory: Trajectory,
    pub asks: u32,
    pub parse_failure: bool,
    /// All roles together.
    pub usage: Usage,
    pub cost_usd: f64,
}

fn info_schema(names: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["answered", "refused_too_vague", "unknown"]},
            "answer_to_eval": {"type": "string"},
            "fields_used": {"type": "array", "items": {"type": "string", "enum": names}}
        },
        "required": ["status", "answer_to_eval", "fields_used"],
        "additionalProperties": false
    })
}

fn judge_schema(names: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.to_string(), json!({"type": "string"}))).collect();
    json!({
        "type": "object",
        "properties": {
            "hits": {"type": "array", "items": {"type": "string", "enum": names}},
            "explanations": {"type": "object", "properties": props, "required": names, "additionalProperties": false}
        },
        "required": ["hits", "explanations"],
        "additionalProperties": false
    })
}

#[derive(Default)]
struct Meter {
    usage_eval: Usage,
    usage_info: Usage,
    usage_judge: Usage,
    cost: f64,
    /// Provider attempts that failed and were retried, over every call of the case.
    failed_attempts: usize,
}

/// Keep on the turn what went wrong with the attempts that were retried before a reply came.
fn note_failed_attempts(extra: &mut IndexMap<String, Value>, failed: &[String], meter: &mut Meter) {
    meter.failed_attempts += failed.len();
    if !failed.is_empty() {
        extra.insert("failed_attempts".into(), json!(failed));
    }
}

/// Keep a reasoning model's reasoning on its turn, beside the answer (`raw`), with the tokens
/// the provider says it spent on it.
fn note_reasoning(extra: &mut IndexMap<String, Value>, resp: &crate::llm::ChatResponse) {
    if let Some(r) = &resp.reasoning {
        extra.insert("reasoning".into(), json!(r));
    }
    if resp.usage.reasoning_tokens > 0 {
        extra.insert("reasoning_tokens".into(), json!(resp.usage.reasoning_tokens));
    }
}

/// The model under test's reasoning tokens over the case, for the trajectory's usage (absent
/// when none were reported).
fn reasoning_usage(u: &Usage) -> IndexMap<String, Value> {
    let mut extra = IndexMap::new();
    if u.reasoning_tokens > 0 {
        extra.insert("reasoning_tokens".into(), json!(u.reasoning_tokens));
    }
    extra
}

impl Meter {
    fn total(&self) -> Usage {
        let mut u = self.usage_eval;
        u.add(&self.usage_info);
        u.add(&self.usage_judge);
        u
    }
}

fn usage_json(u: &Usage) -> Value {
    json!({"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens, "cached_prompt_tokens": u.cached_input_tokens, "reasoning_tokens": u.reasoning_tokens})
}

#[allow(clippy::too_many_arguments)]
pub async fn run_case(
    client: &LlmClient,
    roles: &Roles,
    prompts: &EvalPrompts,
    system: &Arc<str>,
    case: &Case,
    clause_text: &str,
    repeat: u32,
    turns_budget: u32,
    run_id: &str,
    chain: &CallChain,
    cancel: &CancellationToken,
) -> Result<CaseOutcome, LlmError> {
    let element_names: Vec<&str> = case.element_names().collect();
    let bc_names: Vec<&str> = case.condition_names().collect();
    // The ledger keeps each call's item and messages; the run's system prompts (the whole policy)
    // are kept with the run, not once per call.
    // The case's calls queue their ledger rows on its chain: each is committed before the case's
    // next call is sent, and the last one with the finished case.
    let ctx = |stage: &str| {
        CallContext::new(Some(run_id), stage).item(&case.case_id).role(stage).without_system_text().chained(chain)
    };
    let (ctx_eval, ctx_info, ctx_judge) = (ctx("eval"), ctx("info"), ctx("judge"));
    let mut meter = Meter {
        usage_eval: Usage::default(),
        usage_info: Usage::default(),
        usage_judge: Usage::default(),
        cost: 0.0,
        failed_attempts: 0,
    };
    let mut messages = vec![Message::system(system)];
    let mut pending_user =
        prompts.initial.render(&[("event_narrative", &case.narrative)]).map_err(|e| LlmError::Config(e.message))?;
    let mut turns: Vec<Turn> = Vec::new();
    let mut final_answer = None;
    let mut error: Option<String> = None;
    let mut asks = 0u32;
    let mut parse_failure = false;
    let turns_budget = turns_budget.max(1);

    for t in 1..=turns_budget {
        let forced = t == turns_budget;
        if forced {
            pending_user.push_str("\n\n");
            pending_user.push_str(&prompts.force_answer.text);
        }
        messages.push(Message::user(std::mem::take(&mut pending_user)));
        let req = ChatRequest { repeat, ..ChatRequest::new(messages.clone()) };
        let resp = client.chat(&roles.eval, &req, &ctx_eval, cancel).await?;
        meter.usage_eval.add(&resp.usage);
        meter.cost += resp.cost_usd;
        let mut extra: IndexMap<String, Value> = IndexMap::new();
        extra.insert("turn".into(), json!(t));
        extra.insert("forced".into(), json!(forced));
        extra.insert("prompt_tokens".into(), json!(resp.usage.input_tokens));
        extra.insert("completion_tokens".into(), json!(resp.usage.output_tokens));
        extra.insert("latency_ms".into(), json!(resp.latency_ms));
        extra.insert("cache_hit".into(), json!(resp.cache_hit));
        note_failed_attempts(&mut extra, &resp.failed_attempts, &mut meter);
        note_reasoning(&mut extra, &resp);
        extra.insert(
            "prompt_versions".into(),
            json!({
                prompts.system.name.as_str(): prompts.system.version,
                prompts.initial.name.as_str(): prompts.initial.version,
                prompts.force_answer.name.as_str(): prompts.force_answer.version
            }),
        );
        let parsed = eval_reply(&resp.text, prompts.protocol.repairs_replies());
        let parsed = parsed.map_err(|why| resp.unreadable_reason(&why));
        let (action, question) = match &parsed {
            Ok(p) => {
                if !p.notes.is_empty() {
                    extra.insert("parse_notes".into(), json!(p.notes));
                }
                match &p.value {
                    EvalReply::Ask { question } => (Some(Action::Ask), Some(question.clone())),
                    EvalReply::Answer(_) => (Some(Action::Answer), None),
                }
            }
            Err(reason) => {
                extra.insert("parse_error".into(), json!(reason));
                (None, None)
            }
        };
        turns.push(Turn::Eval(EvalTurn {
            role: EvalRole::Eval,
            raw: resp.text.clone(),
            action,
            ask_question: question.clone(),
            extra,
        }));
        match parsed {
            Err(reason) => {
                parse_failure = true;
                error = Some(format!("turn {t}: the reply could not be read ({reason})"));
                break;
            }
            Ok(p) => match p.value {
                EvalReply::Answer(f) => {
                    final_answer = Some(f);
                    break;
                }
                EvalReply::Ask { question } => {
                    asks += 1;
                    if forced {
                        error = Some(format!("turn {t}: asked a question on the last allowed turn"));
                        break;
                    }
                    let (info_turn, status, answer) = ask_provider(
                        client,
                        roles,
                        prompts,
                        case,
                        &element_names,
                        &question,
                        &ctx_info,
                        cancel,
                        &mut meter,
                    )
                    .await?;
                    turns.push(Turn::Info(info_turn));
                    messages.push(Message::assistant(resp.text.clone()));
                    pending_user = prompts
                        .followup(status)
                        .render(&[("answer_to_eval", &answer)])
                        .map_err(|e| LlmError::Config(e.message))?;
                }
            },
        }
    }
    if final_answer.is_none() && error.is_none() {
        error = Some("no answer within the turn budget".into());
    }

    // M4 judge: only where it can count (verdict correct, conditions to hit, a rationale to read).
    let mut judge = None;
    if let Some(f) = &final_answer {
        let correct = f.final_verdict.as_deref() == Some(case.gold_verdict.as_str());
        let rationale = f.rationale.as_deref().unwrap_or("").trim();
        if correct && !bc_names.is_empty() && !rationale.is_empty() {
            judge = Some(
                run_judge(
                    client,
                    &roles.judge,
                    prompts,
                    case,
                    clause_text,
                    &bc_names,
                    rationale,
                    &ctx_judge,
                    cancel,
                    &mut meter,
                )
                .await?,
            );
        }
    }

    let mut extra: IndexMap<String, Value> = IndexMap::new();
    extra.insert("repeat".into(), json!(repeat));
    extra.insert("case_type".into(), json!(case.case_type.as_str()));
    extra.insert("info_usage".into(), usage_json(&meter.usage_info));
    extra.insert("judge_usage".into(), usage_json(&meter.usage_judge));
    extra.insert("cost_usd".into(), json!(meter.cost));
    if meter.failed_attempts > 0 {
        extra.insert("failed_attempts".into(), json!(meter.failed_attempts));
    }
    extra.insert(
        "models".into(),
        json!({"eval": roles.eval.cfg.name, "info": roles.info.cfg.name, "judge": roles.judge.cfg.name}),
    );
    let usage = meter.total();
    Ok(CaseOutcome {
        trajectory: Trajectory {
            run_id: run_id.to_string(),
            model: roles.eval.cfg.name.clone(),
            case_id: case.case_id.clone(),
            turns,
            final_answer,
            judge,
            usage: TrajectoryUsage {
                prompt_tokens: meter.usage_eval.input_tokens,
                completion_tokens: meter.usage_eval.output_tokens,
                extra: reasoning_usage(&meter.usage_eval),
            },
            error,
            extra,
        },
        asks,
        parse_failure,
        usage,
        cost_usd: meter.cost,
    })
}

#[allow(clippy::too_many_arguments)]
async fn ask_provider(
    client: &LlmClient,
    roles: &Roles,
    prompts: &EvalPrompts,
    case: &Case,
    element_names: &[&str],
    question: &str,
    ctx: &CallContext,
    cancel: &CancellationToken,
    meter: &mut Meter,
) -> Result<(InfoTurn, InfoStatus, String), LlmError> {
    let user = prompts
        .info_user
        .render(&[("fact_list", &fact_list(case)), ("question", question)])
        .map_err(|e| LlmError::Config(e.message))?;
    let mut last_problem = String::new();
    let mut failed: Vec<String> = Vec::new();
    for attempt in 0..ROLE_ATTEMPTS {
        let req = ChatRequest {
            repeat: attempt,
            ..ChatRequest::new(vec![Message::system(&prompts.info_system_text), Message::user(&user)])
        }
        .json_schema("information_provider_reply", info_schema(element_names));
        let resp = client.chat(&roles.info, &req, ctx, cancel).await?;
        meter.usage_info.add(&resp.usage);
        meter.cost += resp.cost_usd;
        failed.extend(resp.failed_attempts);
        match info_reply(&resp.text, element_names) {
            Ok(p) => {
                let r = p.value;
                let mut extra: IndexMap<String, Value> = IndexMap::new();
                extra.insert("prompt_tokens".into(), json!(resp.usage.input_tokens));
                extra.insert("completion_tokens".into(), json!(resp.usage.output_tokens));
                extra.insert("latency_ms".into(), json!(resp.latency_ms));
                extra.insert("attempts".into(), json!(attempt + 1));
                note_failed_attempts(&mut extra, &failed, meter);
                extra.insert(
                    "prompt_versions".into(),
                    json!({"info_system": prompts.info_system.version, "info_user": prompts.info_user.version}),
                );
                if !r.dropped_fields.is_empty() {
                    extra.insert("dropped_fields".into(), json!(r.dropped_fields));
                }
                let answer = r.answer.clone();
                let status = r.status;
                return Ok((
                    InfoTurn { role: InfoRole::Info, status, answer: r.answer, fields_used: r.fields_used, extra },
                    status,
                    answer,
                ));
            }
            Err(problem) => last_problem = problem,
        }
    }
    // The provider never produced a usable reply: the caller learns nothing.
    let answer = "The information provider could not answer this question.".to_string();
    let mut extra: IndexMap<String, Value> = IndexMap::new();
    extra.insert("provider_error".into(), json!(last_problem));
    extra.insert("attempts".into(), json!(ROLE_ATTEMPTS));
    note_failed_attempts(&mut extra, &failed, meter);
    Ok((
        InfoTurn {
            role: InfoRole::Info,
            status: InfoStatus::Unknown,
            answer: answer.clone(),
            fields_used: vec![],
            extra,
        },
        InfoStatus::Unknown,
        answer,
    ))
}

#[allow(clippy::too_many_arguments)]
async fn run_judge(
    client: &LlmClient,
    judge: &ModelHandle,
    prompts: &EvalPrompts,
    case: &Case,
    clause_text: &str,
    bc_names: &[&str],
    rationale: &str,
    ctx: &CallContext,
    cancel: &CancellationToken,
    meter: &mut Meter,
) -> Result<JudgeResult, LlmError> {
    let (fenced, conditions) = (fenced_rationale(rationale), condition_list(case));
    let mut slots = vec![("rationale", fenced.as_str()), ("boundary_conditions", conditions.as_str())];
    // The paper's judge reads the rationale and the conditions only.
    if prompts.protocol.judge_sees_clause() {
        slots.push(("clause_text", clause_text));
    }
    let user = prompts.judge_user.render(&slots).map_err(|e| LlmError::Config(e.message))?;
    let mut last_problem = String::new();
    let mut failed: Vec<String> = Vec::new();
    for attempt in 0..ROLE_ATTEMPTS {
        let req = ChatRequest {
            temperature: Some(0.0),
            repeat: attempt,
            ..ChatRequest::new(vec![Message::system(&prompts.judge_system_text), Message::user(&user)])
        }
        .json_schema("boundary_condition_judgement", judge_schema(bc_names));
        let resp = client.chat(judge, &req, ctx, cancel).await?;
        meter.usage_judge.add(&resp.usage);
        meter.cost += resp.cost_usd;
        failed.extend(resp.failed_attempts);
        match judge_reply(&resp.text, bc_names) {
            Ok(p) => {
                let mut extra: IndexMap<String, Value> = IndexMap::new();
                extra.insert("explanations".into(), p.value.explanations);
                if !p.value.dropped_hits.is_empty() {
                    extra.insert("dropped_hits".into(), json!(p.value.dropped_hits));
                }
                extra.insert("attempts".into(), json!(attempt + 1));
                note_failed_attempts(&mut extra, &failed, meter);
                extra.insert("model".into(), json!(judge.cfg.name));
                extra.insert(
                    "prompt_versions".into(),
                    json!({
                        prompts.judge_system.name.as_str(): prompts.judge_system.version,
                        prompts.judge_user.name.as_str(): prompts.judge_user.version
                    }),
                );
                return Ok(JudgeResult { hits: p.value.hits, extra });
            }
            Err(problem) => last_problem = problem,
        }
    }
    let mut extra: IndexMap<String, Value> = IndexMap::new();
    extra.insert(
        "judge_error".into(),
        json!(format!("no well-formed judgement after {ROLE_ATTEMPTS} attempts: {last_problem}")),
    );
    note_failed_attempts(&mut extra, &failed, meter);
    Ok(JudgeResult { hits: vec![], extra })
}

/// Judge one stored rationale again (re-judging a run): the judgement, with the judge's usage
/// and cost. The judge sees exactly what it sees during a run.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn rejudge_rationale(
    client: &LlmClient,
    judge: &ModelHandle,
    prompts: &EvalPrompts,
    case: &Case,
    clause_text: &str,
    rationale: &str,
    ctx: &CallContext,
    cancel: &CancellationToken,
) -> Result<(JudgeResult, Usage, f64), LlmError> {
    let bc_names: Vec<&str> = case.condition_names().collect();
    let mut meter = Meter::default();
    let r = run_judge(client, judge, prompts, case, clause_text, &bc_names, rationale, ctx, cancel, &mut meter).await?;
    Ok((r, meter.usage_judge, meter.cost))
}
