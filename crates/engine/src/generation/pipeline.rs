//! One unit of work: a (card, anchor) pair. Phase 1 instantiates the card's slots and verifies
//! them; phase 2 narrates, extracts and verifies; then the clause screen reads the complete record
//! against the whole policy, and a conflict with the card sends its reasons back to the
//! Instantiator (phase 1 and 2 again, within the Instantiator's `MAX_ATTEMPTS`); then each
//! missing-information variant of the card is narrated from the visible slots, extracted and
//! verified. Every producer stage gets at most `MAX_ATTEMPTS` attempts; the failed candidate and
//! the issues (a verifier's, a guard's or the screen's) go into the next attempt's prompt.
//! Attempts already stored for a candidate are replayed instead of being sent again, so a resumed
//! unit continues exactly where it stopped.

use indexmap::IndexMap;
use serde_json::{json, Value};
use std::collections::HashMap;

use super::guards::{self, TextGuard};
use super::prompts::{GenerationPrompts, SplitPrompt};
use super::repo::{self, AttemptRecord, CallRecord, CandidateRow};
use super::views::{self, SlotValues};
use crate::card::{ClauseCard, EventType, MissingVariant};
use crate::case::{Case, CaseCondition, CaseElement, CaseType};
use crate::context::Engine;
use crate::error::ApiError;
use crate::llm::json_extract::extract_json_object;
use crate::llm::{CallContext, CancellationToken, ChatRequest, LlmError, Message, ModelHandle};
use crate::protocol::Protocol;

/// Attempts each producer stage gets before a candidate is dropped.
pub const MAX_ATTEMPTS: u32 = 3;
/// Tries a checking role (Extractor, verifiers) gets to return a readable reply per attempt.
pub const FORMAT_TRIES: u32 = 3;

pub const STAGE_INSTANTIATION: &str = "instantiation";
pub const STAGE_NARRATION: &str = "narration";
pub const STAGE_MISSING: &str = "missing_narration";
pub const STAGE_SCREEN: &str = "clause_screen";

/// Why a unit stopped before finishing.
#[derive(Debug)]
pub enum StepError {
    /// The run was asked to stop; nothing is lost.
    Stopped,
    /// A provider failed after the client's own retries.
    Llm(LlmError),
    /// The store failed.
    Store(ApiError),
}

impl From<ApiError> for StepError {
    fn from(e: ApiError) -> Self {
        StepError::Store(e)
    }
}

/// The models of a run.
pub struct RunRoles {
    pub producer: ModelHandle,
    pub verifier: ModelHandle,
    /// The policy-wide clause screen.
    pub screen: ModelHandle,
}

/// What every screen call of a run shares: the whole policy as the screen reads it.
pub struct ScreenShared {
    pub policy_clauses: String,
    pub known: Vec<crate::screen::reply::KnownClause>,
}

/// A card as the run uses it, with everything derived from it prepared once.
pub struct CardBundle {
    pub card: ClauseCard,
    pub version: i64,
    pub card_json: String,
    pub context: String,
    pub meanings_json: String,
    pub guard: TextGuard,
    /// The clause label used as the gold clause of Reportable cases.
    pub clause_label: Option<String>,
}

impl CardBundle {
    pub fn new(
        card: ClauseCard,
        version: i64,
        card_json: String,
        context: String,
        clause_label: Option<String>,
    ) -> CardBundle {
        let meanings_json = views::pretty_map(&views::meanings(&card));
        let guard = TextGuard::for_card(&card);
        CardBundle { card, version, card_json, context, meanings_json, guard, clause_label }
    }
}

/// What every unit of a run shares.
pub struct RunShared<'a> {
    pub engine: &'a Engine,
    pub run_id: &'a str,
    pub policy: &'a str,
    pub prompts: &'a GenerationPrompts,
    pub background: &'a str,
    pub screen: &'a ScreenShared,
    pub roles: &'a RunRoles,
    /// The method the run follows: `paper` runs no clause screen, no text guards and gives a
    /// checking role one try at a readable reply.
    pub protocol: Protocol,
    /// Stops the run between calls (the call in flight finishes and is kept).
    pub stop: CancellationToken,
    /// Aborts calls in flight too.
    pub abort: CancellationToken,
    /// Called after every stored attempt and finished candidate (progress).
    pub on_progress: &'a (dyn Fn() + Sync),
}

type Replay = HashMap<(String, u32), AttemptRecord>;

/// A reply read by a checking role: the value, the JSON it came from, and notes on repairs.
type Parsed<T> = Result<(T, Value, Vec<String>), String>;

async fn replay_of(engine: &Engine, candidate_id: &str) -> Result<Replay, StepError> {
    let id = candidate_id.to_string();
    let stored = engine.store().call_read(move |c| repo::attempts(c, &id)).await?;
    Ok(stored.into_iter().map(|(_, a, _)| ((a.stage.clone(), a.attempt), a)).collect())
}

struct Reply {
    text: String,
    record: CallRecord,
    /// The model stopped at its token limit (the reply is probably incomplete).
    cut_off: bool,
    /// The reply held a reasoning model's reasoning and no answer.
    only_reasoning: bool,
}

/// Why a reply could not be read, saying so when the model was stopped at its token limit (small
/// local models often are, mid-object) and when a reasoning model never got past its reasoning.
fn unreadable_reason(r: &Reply, why: &str) -> String {
    crate::llm::reasoning::unreadable_reason(why, r.cut_off, r.only_reasoning)
}

impl RunShared<'_> {
    #[allow(clippy::too_many_arguments)]
    async fn call(
        &self,
        role: &str,
        prompt: &SplitPrompt,
        with_feedback: bool,
        values: &[(&str, &str)],
        handle: &ModelHandle,
        schema_name: &str,
        schema: Value,
        repeat: u32,
    ) -> Result<Reply, StepError> {
        if self.stop.is_cancelled() {
            return Err(StepError::Stopped);
        }
        let (system, user) = prompt.render(values)?;
        let req = ChatRequest { repeat, ..ChatRequest::new(vec![Message::system(system), Message::user(user)]) }
            .json_schema(schema_name, schema);
        let ctx = CallContext::new(Some(self.run_id), role)
            .role(role)
            .prompt(&prompt.prompt.name, self.prompts.call_versions(prompt, with_feedback));
        let resp = self.engine.llm().chat(handle, &req, &ctx, &self.abort).await.map_err(|e| match e {
            LlmError::Cancelled => StepError::Stopped,
            e => StepError::Llm(e),
        })?;
        let record = CallRecord { call_id: resp.call_id, parsed: None, parse_notes: Vec::new() };
        let (cut_off, only_reasoning) = (resp.cut_off(), resp.only_reasoning());
        Ok(Reply { text: resp.text, record, cut_off, only_reasoning })
    }

    /// A checking role's call, asked again (with a different repeat index) while its reply cannot
    /// be read. Returns the parsed value, or None after the protocol's tries (`FORMAT_TRIES` in
    /// `studio`, one in `paper`) gave unreadable replies.
    #[allow(clippy::too_many_arguments)]
    async fn checked<T>(
        &self,
        role: &str,
        prompt: &SplitPrompt,
        values: &[(&str, &str)],
        schema_name: &str,
        schema: Value,
        attempt: u32,
        calls: &mut Vec<CallRecord>,
        parse: impl Fn(&str) -> Parsed<T>,
    ) -> Result<Option<T>, StepError> {
        let handle = if role == STAGE_SCREEN { &self.roles.screen } else { &self.roles.verifier };
        for t in 0..self.protocol.checker_format_tries() {
            let mut r =
                self.call(role, prompt, false, values, handle, schema_name, schema.clone(), attempt + 100 * t).await?;
            match parse(&r.text) {
                Ok((v, parsed, notes)) => {
                    r.record.parsed = Some(parsed);
                    r.record.parse_notes = notes;
                    calls.push(r.record);
                    return Ok(Some(v));
                }
                Err(why) => {
                    let why = unreadable_reason(&r, &why.to_string());
                    r.record.parse_notes = vec![format!("unreadable: {why}")];
                    calls.push(r.record);
                }
            }
        }
        Ok(None)
    }

    /// Store an attempt; it is handed back once stored.
    async fn save(&self, cand: &CandidateRow, a: AttemptRecord) -> Result<AttemptRecord, StepError> {
        let (run, id) = (self.run_id.to_string(), cand.candidate_id.clone());
        let a = self
            .engine
            .store()
            .call_tx(move |tx| {
                repo::insert_attempt(tx, &run, &id, &a)?;
                Ok(a)
            })
            .await?;
        (self.on_progress)();
        Ok(a)
    }
}

// ---- reading replies ---------------------------------------------------------------------------

fn parse_slot_values(text: &str, card: &ClauseCard) -> Result<(SlotValues, Vec<String>, Value, Vec<String>), String> {
    let ex = extract_json_object(text).map_err(|e| e.to_string())?;
    let mut notes = ex.repairs;
    let obj = match ex.value.get("slot_values").and_then(Value::as_object) {
        Some(o) => o.clone(),
        None => {
            let top = ex.value.as_object().cloned().unwrap_or_default();
            if !top.is_empty() && top.keys().all(|k| card.basic_event_elements.contains_key(k)) {
                notes.push("the slot values were not wrapped in \"slot_values\"; read them from the top level".into());
                top
            } else {
                return Err("the JSON object has no \"slot_values\" object".into());
            }
        }
    };
    let (values, bad) = views::read_slot_values(&obj);
    Ok((values, bad, Value::Object(obj), notes))
}

fn parse_narrative(text: &str) -> Result<(String, Value, Vec<String>), String> {
    match extract_json_object(text) {
        Ok(ex) => match ex.value.get("event_narrative").and_then(Value::as_str).map(str::trim) {
            Some(n) if !n.is_empty() => Ok((n.to_string(), ex.value.clone(), ex.repairs)),
            _ => Err("the JSON object has no non-empty \"event_narrative\" text".into()),
        },
        Err(e) => {
            let t = text.trim();
            if !t.contains('{') && t.split_whitespace().count() >= 20 {
                Ok((
                    t.to_string(),
                    json!({"event_narrative": t}),
                    vec!["the reply was plain text, not JSON; it was used as the narrative".into()],
                ))
            } else {
                Err(e.to_string())
            }
        }
    }
}

fn read_pass(v: &Value) -> Option<bool> {
    match v.get("pass")? {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("pass") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") || s.eq_ignore_ascii_case("fail") => Some(false),
        _ => None,
    }
}

fn read_issues(v: &Value) -> Vec<String> {
    match v.get("issues") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| match x {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

fn parse_verdict(text: &str) -> Parsed<(bool, Vec<String>)> {
    let ex = extract_json_object(text).map_err(|e| e.to_string())?;
    let pass = read_pass(&ex.value).ok_or("the reply has no true/false \"pass\"")?;
    Ok(((pass, read_issues(&ex.value)), ex.value.clone(), ex.repairs))
}

/// The Missing-Variant Verifier's verdict with the leak rule enforced in code.
struct MissingVerdict {
    pass: bool,
    issues: Vec<String>,
}

fn parse_missing_verdict(text: &str, conditions: &[String]) -> Result<(MissingVerdict, Value, Vec<String>), String> {
    let ex = extract_json_object(text).map_err(|e| e.to_string())?;
    let mut notes = ex.repairs.clone();
    let said_pass = read_pass(&ex.value).ok_or("the reply has no true/false \"pass\"")?;
    let rows =
        ex.value.get("per_bc_check").and_then(Value::as_array).ok_or("the reply has no \"per_bc_check\" list")?;
    let mut seen: Vec<String> = Vec::new();
    let mut leaked: Vec<(String, String, String)> = Vec::new();
    for r in rows {
        let name = r.get("boundary_condition").and_then(Value::as_str).unwrap_or("").to_string();
        if !conditions.contains(&name) {
            return Err(format!("\"per_bc_check\" has a row for \"{name}\", which is not a withheld condition"));
        }
        if seen.contains(&name) {
            return Err(format!("\"per_bc_check\" has two rows for \"{name}\""));
        }
        let verdict = r.get("leak_verdict").and_then(Value::as_str).unwrap_or("");
        match verdict {
            "leaked" => leaked.push((
                name.clone(),
                r.get("evidence_phrase").and_then(Value::as_str).unwrap_or("").to_string(),
                r.get("explanation").and_then(Value::as_str).unwrap_or("").to_string(),
            )),
            "indeterminate" => {}
            other => {
                return Err(format!(
                    "row \"{name}\" has leak_verdict \"{other}\"; it must be \"leaked\" or \"indeterminate\""
                ))
            }
        }
        seen.push(name);
    }
    if let Some(missing) = conditions.iter().find(|c| !seen.contains(c)) {
        return Err(format!("\"per_bc_check\" has no row for the withheld condition \"{missing}\""));
    }
    let mut issues = read_issues(&ex.value);
    for (name, evidence, explanation) in &leaked {
        if !issues.iter().any(|i| i.contains(name.as_str())) {
            issues.push(format!(
                "the withheld condition {name} can be settled from the narrative (\"{evidence}\"): {explanation} Remove or rewrite that wording."
            ));
        }
    }
    if said_pass && !leaked.is_empty() {
        notes.push("the verifier said pass although a row is leaked; treated as a failure".into());
        issues.push(format!(
            "The check found that {} can be settled from the narrative, so the narrative cannot be accepted.",
            leaked.iter().map(|l| l.0.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    let pass = said_pass && leaked.is_empty();
    if !pass && issues.is_empty() {
        issues.push("The verifier rejected the narrative without naming a problem; make sure every visible fact is there and nothing withheld can be inferred.".into());
    }
    Ok((MissingVerdict { pass, issues }, ex.value.clone(), notes))
}

fn unreadable(what: &str, why: &str, shape: &str) -> String {
    format!("Your reply could not be read as {what} ({why}). Reply with exactly one JSON object of the form {shape} and nothing else.")
}

fn complete_extracted(card: &ClauseCard, values: SlotValues) -> SlotValues {
    card.basic_event_elements.keys().map(|k| (k.clone(), values.get(k).cloned().flatten())).collect()
}

// ---- stages ------------------------------------------------------------------------------------

enum StageOutcome<T> {
    Passed(T),
    Failed(Box<AttemptRecord>),
}

impl RunShared<'_> {
    /// Instantiation attempts `start..=MAX_ATTEMPTS`; `prev` is the rejected attempt (of this
    /// stage, or a clause screen's conflict) whose problems the first of them is told about.
    /// Passes with the slot values and the attempt that produced them.
    async fn instantiate(
        &self,
        b: &CardBundle,
        anchor: &str,
        cand: &CandidateRow,
        replay: &Replay,
        start: u32,
        mut prev: Option<AttemptRecord>,
    ) -> Result<StageOutcome<(SlotValues, u32)>, StepError> {
        for k in start..=MAX_ATTEMPTS {
            let rec = match replay.get(&(STAGE_INSTANTIATION.to_string(), k)) {
                Some(r) => r.clone(),
                None => {
                    let r = self.instantiation_attempt(b, anchor, k, prev.as_ref()).await?;
                    self.save(cand, r).await?
                }
            };
            if rec.passed {
                let obj = rec.output.as_object().cloned().unwrap_or_default();
                let (values, _) = views::read_slot_values(&obj);
                return Ok(StageOutcome::Passed((values, k)));
            }
            prev = Some(rec);
        }
        Ok(StageOutcome::Failed(Box::new(prev.unwrap_or_else(|| empty_record(STAGE_INSTANTIATION)))))
    }

    async fn instantiation_attempt(
        &self,
        b: &CardBundle,
        anchor: &str,
        k: u32,
        prev: Option<&AttemptRecord>,
    ) -> Result<AttemptRecord, StepError> {
        let prev_text = prev.map(|p| output_text(&p.output));
        let feedback =
            self.prompts.feedback(k, prev.map(|p| (prev_text.as_deref().unwrap_or(""), p.issues.as_slice())))?;
        let mut calls = Vec::new();
        let mut r = self
            .call(
                "instantiator",
                &self.prompts.instantiator,
                true,
                &[
                    ("background", self.background),
                    ("card_json", &b.card_json),
                    ("context", &b.context),
                    ("anchor_text", anchor),
                    ("retry_feedback", &feedback),
                ],
                &self.roles.producer,
                "instantiation",
                views::instantiator_schema(&b.card),
                k,
            )
            .await?;
        let text = r.text.clone();
        let parsed = parse_slot_values(&text, &b.card);
        let mut rec = AttemptRecord {
            stage: STAGE_INSTANTIATION.into(),
            attempt: k,
            passed: false,
            issues: vec![],
            guard_findings: vec![],
            output: Value::String(text),
            extracted: None,
            verifier: None,
            calls: vec![],
        };
        let (values, bad) = match parsed {
            Err(why) => {
                let why = unreadable_reason(&r, &why.to_string());
                r.record.parse_notes = vec![format!("unreadable: {why}")];
                calls.push(r.record);
                rec.issues = vec![unreadable("slot values", &why, "{\"slot_values\": {...}}")];
                rec.guard_findings = rec.issues.clone();
                rec.calls = calls;
                return Ok(rec);
            }
            Ok((values, bad, obj, notes)) => {
                r.record.parsed = Some(obj);
                r.record.parse_notes = notes;
                calls.push(r.record);
                (values, bad)
            }
        };
        rec.output = views::slot_values_json(&values);
        let findings = guards::check_instantiation(&b.card, &values, &bad, &b.guard);
        if !findings.is_empty() {
            rec.issues = findings.clone();
            rec.guard_findings = findings;
            rec.calls = calls;
            return Ok(rec);
        }
        let candidate_json = views::pretty(&rec.output);
        let verdict = self
            .checked(
                "instantiation_verifier",
                &self.prompts.instantiation_verifier,
                &[
                    ("background", self.background),
                    ("card_json", &b.card_json),
                    ("context", &b.context),
                    ("candidate_json", &candidate_json),
                ],
                "verification",
                views::verdict_schema(),
                k,
                &mut calls,
                parse_verdict,
            )
            .await?;
        apply_verdict(&mut rec, verdict);
        rec.calls = calls;
        Ok(rec)
    }

    /// Narrator (or Missing-Variant Narrator) → guards → Extractor → (guards) → verifier, at most
    /// `MAX_ATTEMPTS` attempts numbered from `first` (a record instantiated again after a screen
    /// conflict is narrated again, its attempts numbered after the earlier round's). Passes with
    /// the narrative and the number of attempts used.
    #[allow(clippy::too_many_arguments)]
    async fn narrate(
        &self,
        b: &CardBundle,
        anchor: &str,
        cand: &CandidateRow,
        replay: &Replay,
        full: &SlotValues,
        variant: Option<&MissingVariant>,
        first: u32,
    ) -> Result<StageOutcome<(String, u32)>, StepError> {
        let stage = if variant.is_some() { STAGE_MISSING } else { STAGE_NARRATION };
        let mut prev: Option<AttemptRecord> = None;
        for k in first..first + MAX_ATTEMPTS {
            let rec = match replay.get(&(stage.to_string(), k)) {
                Some(r) => r.clone(),
                None => {
                    let r = self.narration_attempt(b, anchor, full, variant, k, prev.as_ref()).await?;
                    self.save(cand, r).await?
                }
            };
            if rec.passed {
                return Ok(StageOutcome::Passed((output_text(&rec.output), k + 1 - first)));
            }
            prev = Some(rec);
        }
        Ok(StageOutcome::Failed(Box::new(prev.unwrap_or_else(|| empty_record(stage)))))
    }

    async fn narration_attempt(
        &self,
        b: &CardBundle,
        anchor: &str,
        full: &SlotValues,
        variant: Option<&MissingVariant>,
        k: u32,
        prev: Option<&AttemptRecord>,
    ) -> Result<AttemptRecord, StepError> {
        let stage = if variant.is_some() { STAGE_MISSING } else { STAGE_NARRATION };
        let prev_text = prev.map(|p| output_text(&p.output));
        let feedback =
            self.prompts.feedback(k, prev.map(|p| (prev_text.as_deref().unwrap_or(""), p.issues.as_slice())))?;
        let full_json = views::pretty(&views::slot_values_json(full));
        let mut calls = Vec::new();
        let mut r = match variant {
            None => {
                self.call(
                    "narrator",
                    &self.prompts.narrator,
                    true,
                    &[
                        ("background", self.background),
                        ("element_meanings", &b.meanings_json),
                        ("slot_values_json", &full_json),
                        ("context", &b.context),
                        ("anchor_text", anchor),
                        ("retry_feedback", &feedback),
                    ],
                    &self.roles.producer,
                    "event_narrative",
                    views::narrative_schema(),
                    k,
                )
                .await?
            }
            Some(v) => {
                let visible = views::visible_slots(&b.card, v);
                let visible_meanings = views::pretty_map(&views::meanings_of(&b.card, &visible));
                let visible_values = views::pretty(&views::slot_values_json(&views::subset(full, &visible)));
                let masked_meanings = views::pretty_map(&views::meanings_of(&b.card, &v.masked_basic_event_elements));
                let masked_conditions = views::pretty(&views::masked_conditions(&b.card, v));
                self.call(
                    "missing_narrator",
                    &self.prompts.missing_narrator,
                    true,
                    &[
                        ("background", self.background),
                        ("visible_meanings", &visible_meanings),
                        ("visible_slot_values_json", &visible_values),
                        ("variant_summary", &v.summary),
                        ("masked_meanings", &masked_meanings),
                        ("masked_conditions", &masked_conditions),
                        ("context", &b.context),
                        ("anchor_text", anchor),
                        ("retry_feedback", &feedback),
                    ],
                    &self.roles.producer,
                    "event_narrative",
                    views::narrative_schema(),
                    k,
                )
                .await?
            }
        };
        let text = r.text.clone();
        let mut rec = AttemptRecord {
            stage: stage.into(),
            attempt: k,
            passed: false,
            issues: vec![],
            guard_findings: vec![],
            output: Value::String(text.clone()),
            extracted: None,
            verifier: None,
            calls: vec![],
        };
        let narrative = match parse_narrative(&text) {
            Err(why) => {
                let why = unreadable_reason(&r, &why.to_string());
                r.record.parse_notes = vec![format!("unreadable: {why}")];
                calls.push(r.record);
                rec.issues = vec![unreadable("a narrative", &why, "{\"event_narrative\": \"...\"}")];
                rec.guard_findings = rec.issues.clone();
                rec.calls = calls;
                return Ok(rec);
            }
            Ok((n, parsed, notes)) => {
                r.record.parsed = Some(parsed);
                r.record.parse_notes = notes;
                calls.push(r.record);
                n
            }
        };
        rec.output = Value::String(narrative.clone());
        let mut findings = Vec::new();
        if self.protocol.guards_text() {
            findings = guards::check_narrative(&narrative, &b.guard);
            if let Some(v) = variant {
                findings.extend(guards::check_masked_leaks(&b.card, full, &v.masked_basic_event_elements, &narrative));
            }
        }
        if !findings.is_empty() {
            rec.issues = findings.clone();
            rec.guard_findings = findings;
            rec.calls = calls;
            return Ok(rec);
        }
        // The Extractor reads the narrative with the meaning-only view of every slot.
        let card = &b.card;
        let extracted = self
            .checked(
                "extractor",
                &self.prompts.extractor,
                &[("background", self.background), ("element_meanings", &b.meanings_json), ("narrative", &narrative)],
                "extraction",
                views::extractor_schema(card),
                k,
                &mut calls,
                |t| parse_slot_values(t, card).map(|(v, _, obj, notes)| (v, obj, notes)),
            )
            .await?;
        let Some(extracted) = extracted else {
            rec.issues = vec!["The Extractor's reply could not be read after several tries, so the narrative could not be checked; write it again.".into()];
            rec.calls = calls;
            return Ok(rec);
        };
        let extracted = complete_extracted(card, extracted);
        let extracted_json = views::slot_values_json(&extracted);
        rec.extracted = Some(extracted_json.clone());
        let extracted_pretty = views::pretty(&extracted_json);
        match variant {
            None => {
                let verdict = self
                    .checked(
                        "narrative_verifier",
                        &self.prompts.narrative_verifier,
                        &[
                            ("background", self.background),
                            ("element_meanings", &b.meanings_json),
                            ("canonical_json", &full_json),
                            ("narrative", &narrative),
                            ("extracted_json", &extracted_pretty),
                        ],
                        "verification",
                        views::verdict_schema(),
                        k,
                        &mut calls,
                        parse_verdict,
                    )
                    .await?;
                apply_verdict(&mut rec, verdict);
            }
            Some(v) => {
                let nulls = if self.protocol.guards_text() {
                    guards::check_masked_null(&v.masked_basic_event_elements, &extracted)
                } else {
                    Vec::new()
                };
                if !nulls.is_empty() {
                    rec.issues = nulls.clone();
                    rec.guard_findings = nulls;
                    rec.calls = calls;
                    return Ok(rec);
                }
                let conditions = v.masked_boundary_conditions.clone();
                let masked_names = serde_json::to_string_pretty(&v.masked_basic_event_elements).unwrap_or_default();
                let masked_conditions = views::pretty(&views::masked_conditions(&b.card, v));
                let verdict = self
                    .checked(
                        "missing_verifier",
                        &self.prompts.missing_verifier,
                        &[
                            ("background", self.background),
                            ("element_meanings", &b.meanings_json),
                            ("full_slot_values_json", &full_json),
                            ("masked_slot_names_json", &masked_names),
                            ("masked_conditions", &masked_conditions),
                            ("narrative", &narrative),
                            ("extracted_json", &extracted_pretty),
                        ],
                        "missing_verification",
                        views::missing_verdict_schema(&conditions),
                        k,
                        &mut calls,
                        |t| parse_missing_verdict(t, &conditions),
                    )
                    .await?;
                match verdict {
                    None => rec.issues = vec!["The verifier's reply could not be read after several tries; the narrative was not accepted unverified.".into()],
                    Some(m) => {
                        rec.passed = m.pass;
                        rec.issues = m.issues;
                        rec.verifier = calls.last().and_then(|c| c.parsed.clone());
                    }
                }
            }
        }
        rec.calls = calls;
        Ok(rec)
    }
}

impl RunShared<'_> {
    /// The clause screen of a complete record (attempt `k` of the Instantiator it belongs to): the
    /// whole policy, the clause's context and the record's facts go in; the reply is compared
    /// with the card. The card's verdict, event type and boundary conditions are not shown.
    async fn screen_attempt(&self, b: &CardBundle, values: &SlotValues, k: u32) -> Result<AttemptRecord, StepError> {
        use crate::screen::{agree, input, reply};
        let card = &b.card;
        let list: Vec<input::Fact<'_>> = card
            .basic_event_elements
            .iter()
            .map(|(n, e)| input::Fact { name: n, meaning: &e.meaning, value: values.get(n).and_then(|v| v.as_deref()) })
            .collect();
        let facts = input::facts(&list);
        let mut calls = Vec::new();
        let known = &self.screen.known;
        let read = self
            .checked(
                STAGE_SCREEN,
                &self.prompts.clause_screen,
                &[
                    ("background", self.background),
                    ("policy_clauses", &self.screen.policy_clauses),
                    ("context", &b.context),
                    ("facts", &facts),
                ],
                "clause_screen",
                reply::schema(),
                k,
                &mut calls,
                |t| reply::parse(t, known),
            )
            .await?;
        let mut rec = AttemptRecord {
            stage: STAGE_SCREEN.into(),
            attempt: k,
            passed: false,
            issues: vec![],
            guard_findings: vec![],
            // The record screened: it is what the Instantiator is shown again on a conflict.
            output: views::slot_values_json(values),
            extracted: None,
            verifier: None,
            calls,
        };
        match read {
            None => rec.issues = vec!["The clause screen's reply could not be read after several tries, so the record could not be checked against the whole policy; it was not accepted unscreened.".into()],
            Some(r) => {
                let a = agree::agreement(&agree::Expectation::of_card(card), &r);
                let mut v = serde_json::to_value(&r).unwrap_or(Value::Null);
                if let Some(o) = v.as_object_mut() {
                    o.insert("agrees".into(), json!(a.agrees));
                    o.insert("conflicts".into(), json!(a.conflicts));
                }
                rec.verifier = Some(v);
                rec.passed = a.agrees;
                rec.issues = a.conflicts;
            }
        }
        Ok(rec)
    }

    /// The complete (or uncertain) record of a unit: instantiate, narrate, screen; a screen conflict
    /// goes back to the Instantiator as feedback while it has attempts left. Accepts the case and
    /// returns its slot values, or marks the candidate dropped and returns why its variants skip.
    async fn complete_record(
        &self,
        b: &CardBundle,
        anchor: &str,
        cand: &CandidateRow,
        replay: &Replay,
    ) -> Result<Result<SlotValues, &'static str>, StepError> {
        let (mut start, mut prev, mut narration_next) = (1, None, 1);
        loop {
            let (values, k) = match self.instantiate(b, anchor, cand, replay, start, prev.take()).await? {
                StageOutcome::Passed(x) => x,
                StageOutcome::Failed(last) => {
                    finish(
                        self,
                        &cand.candidate_id,
                        "dropped",
                        STAGE_INSTANTIATION,
                        &drop_reason(STAGE_INSTANTIATION, &last),
                    )
                    .await?;
                    return Ok(Err("its complete case was dropped at instantiation"));
                }
            };
            let (id, json) = (cand.candidate_id.clone(), views::slot_values_json(&values));
            self.engine.store().call(move |c| repo::set_slot_values(c, &id, &json)).await?;
            // Narration attempts are numbered on from the earlier rounds', so each keeps its own
            // number and a resumed unit replays the same ones.
            let narrative = match self.narrate(b, anchor, cand, replay, &values, None, narration_next).await? {
                StageOutcome::Passed((n, used)) => {
                    narration_next += used;
                    n
                }
                StageOutcome::Failed(last) => {
                    finish(self, &cand.candidate_id, "dropped", STAGE_NARRATION, &drop_reason(STAGE_NARRATION, &last))
                        .await?;
                    return Ok(Err("its complete case was dropped at narration"));
                }
            };
            // The paper's pipeline has no clause screen: a narrated record is accepted.
            if !self.protocol.screens_records() {
                accept(self, b, cand, &values, &narrative, None).await?;
                return Ok(Ok(values));
            }
            let rec = match replay.get(&(STAGE_SCREEN.to_string(), k)) {
                Some(r) => r.clone(),
                None => {
                    let r = self.screen_attempt(b, &values, k).await?;
                    self.save(cand, r).await?
                }
            };
            if rec.passed {
                accept(self, b, cand, &values, &narrative, None).await?;
                return Ok(Ok(values));
            }
            if k >= MAX_ATTEMPTS {
                finish(self, &cand.candidate_id, "dropped", STAGE_SCREEN, &screen_drop_reason(&rec)).await?;
                return Ok(Err("its complete case was dropped at the clause screen"));
            }
            start = k + 1;
            prev = Some(rec);
        }
    }
}

/// Why a record the screen kept disputing was dropped, naming the clauses it found met.
fn screen_drop_reason(last: &AttemptRecord) -> String {
    let met: Vec<String> = last
        .verifier
        .as_ref()
        .and_then(|v| v.get("clauses_met"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|c| c.get("clause_id").and_then(Value::as_str)).map(str::to_string).collect())
        .unwrap_or_default();
    let met = if met.is_empty() { "none".to_string() } else { met.join(", ") };
    let issues = if last.issues.is_empty() { "no issue recorded".to_string() } else { last.issues.join(" | ") };
    format!(
        "the clause screen disagreed with the card through the last of {MAX_ATTEMPTS} attempts (clauses met: {met}); last problems: {issues}"
    )
}

fn apply_verdict(rec: &mut AttemptRecord, verdict: Option<(bool, Vec<String>)>) {
    match verdict {
        None => {
            rec.issues = vec![
            "The verifier's reply could not be read after several tries; the candidate was not accepted unverified."
                .into(),
        ]
        }
        Some((pass, issues)) => {
            rec.verifier = Some(json!({"pass": pass, "issues": issues}));
            rec.passed = pass;
            rec.issues = if !pass && issues.is_empty() {
                vec!["The verifier rejected the candidate without naming a problem.".into()]
            } else {
                issues
            };
        }
    }
}

fn empty_record(stage: &str) -> AttemptRecord {
    AttemptRecord {
        stage: stage.into(),
        attempt: 0,
        passed: false,
        issues: vec![],
        guard_findings: vec![],
        output: Value::Null,
        extracted: None,
        verifier: None,
        calls: vec![],
    }
}

/// The candidate as text, for the retry-feedback block.
fn output_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => views::pretty(other),
    }
}

fn drop_reason(stage: &str, last: &AttemptRecord) -> String {
    let issues = if last.issues.is_empty() { "no issue recorded".to_string() } else { last.issues.join(" | ") };
    format!("{stage} failed {MAX_ATTEMPTS} attempts; last problems: {issues}")
}

// ---- cases -------------------------------------------------------------------------------------

fn build_case(
    sh: &RunShared<'_>,
    b: &CardBundle,
    cand: &CandidateRow,
    full: &SlotValues,
    narrative: &str,
    variant: Option<&MissingVariant>,
) -> Case {
    let card = &b.card;
    let verdict = card.event_type.verdict();
    let case_type = CaseType::parse(&cand.case_type).unwrap_or(CaseType::Complete);
    let mut extra = IndexMap::new();
    extra.insert("generation_run_id".to_string(), json!(sh.run_id));
    extra.insert("candidate_id".to_string(), json!(cand.candidate_id));
    extra.insert("card_version".to_string(), json!(b.version));
    if let Some(p) = &cand.parent_candidate_id {
        extra.insert("parent_case_id".to_string(), json!(p));
    }
    Case {
        case_id: cand.candidate_id.clone(),
        case_type,
        policy: sh.policy.to_string(),
        clause_id: card.clause_id.clone(),
        clause_card_id: card.clause_card_id.clone(),
        missing_variant_id: variant.map(|v| v.missing_variant_id.clone()),
        gold_verdict: verdict,
        gold_clause: if card.event_type == EventType::Reportable { b.clause_label.clone() } else { None },
        gold_legal_basis: card.legal_basis().to_vec(),
        boundary_conditions: card
            .boundary_conditions()
            .iter()
            .map(|(n, bc)| CaseCondition { name: n.clone(), meaning: bc.meaning.clone(), value: bc.value })
            .collect(),
        elements: card
            .basic_event_elements
            .iter()
            .map(|(n, e)| CaseElement {
                name: n.clone(),
                meaning: e.meaning.clone(),
                value: full.get(n).cloned().flatten(),
            })
            .collect(),
        masked_elements: variant.map(|v| v.masked_basic_event_elements.clone()).unwrap_or_default(),
        narrative: narrative.to_string(),
        anchor_id: Some(cand.anchor_id.clone()),
        extra,
    }
}

async fn accept(
    sh: &RunShared<'_>,
    b: &CardBundle,
    cand: &CandidateRow,
    full: &SlotValues,
    narrative: &str,
    variant: Option<&MissingVariant>,
) -> Result<(), StepError> {
    let case = build_case(sh, b, cand, full, narrative, variant);
    let policy = sh.policy.to_string();
    let vocab = sh
        .engine
        .store()
        .call_read(move |c| {
            let pack = crate::policy::repo::load_pack(c, &policy)?;
            let official = crate::policy::repo::official_sections(c, &policy)?;
            Ok(pack.vocab(&official))
        })
        .await?;
    let problems = crate::case::validate::check_case(&case, Some(&vocab));
    if let Some(p) = problems.first() {
        let (id, why) = (cand.candidate_id.clone(), format!("the accepted case failed validation: {p}"));
        sh.engine.store().call(move |c| repo::mark_finished(c, &id, "dropped", "case", &why)).await?;
        (sh.on_progress)();
        return Ok(());
    }
    let json = crate::case::repo::case_json(&case)?;
    let slots = views::slot_values_json(full);
    let (id, narrative) = (cand.candidate_id.clone(), narrative.to_string());
    sh.engine
        .store()
        .call_tx(move |tx| {
            crate::case::repo::replace_case(tx, &case, &json, "generated")?;
            repo::mark_accepted(tx, &id, &case.case_id, &slots, &narrative)
        })
        .await?;
    (sh.on_progress)();
    Ok(())
}

async fn finish(sh: &RunShared<'_>, id: &str, status: &str, stage: &str, reason: &str) -> Result<(), StepError> {
    let (id, status, stage, reason) = (id.to_string(), status.to_string(), stage.to_string(), reason.to_string());
    sh.engine.store().call(move |c| repo::mark_finished(c, &id, &status, &stage, &reason)).await?;
    (sh.on_progress)();
    Ok(())
}

/// Work on one (card, anchor) unit: its complete (or uncertain) candidate, then its missing
/// variants. Candidates already finished are left alone.
pub async fn run_unit(
    sh: &RunShared<'_>,
    b: &CardBundle,
    anchor: &str,
    parent: &CandidateRow,
    variants: &[CandidateRow],
) -> Result<(), StepError> {
    let full: SlotValues = match parent.status.as_str() {
        "pending" => {
            let replay = replay_of(sh.engine, &parent.candidate_id).await?;
            match sh.complete_record(b, anchor, parent, &replay).await? {
                Ok(values) => values,
                Err(why) => return skip_variants(sh, variants, why).await,
            }
        }
        "accepted" => {
            let obj: serde_json::Map<String, Value> = match parent.slot_values_json.as_deref() {
                Some(s) => repo::CANDIDATE_SLOT_VALUES.parse(s, &parent.candidate_id).map_err(ApiError::from)?,
                None => Default::default(),
            };
            views::read_slot_values(&obj).0
        }
        _ => return skip_variants(sh, variants, "its complete case was dropped").await,
    };
    // A parent that was dropped for failing case validation is not usable either.
    let id = parent.candidate_id.clone();
    let parent_ok = sh
        .engine
        .store()
        .call_read(move |c| repo::candidate(c, &id))
        .await?
        .map(|p| p.status == "accepted")
        .unwrap_or(false);
    if !parent_ok {
        return skip_variants(sh, variants, "its complete case was not accepted").await;
    }
    // Missing variants are narrated from their parent's full record, which the clause screen has
    // already checked against the whole policy: the parent's screen covers them, so they are not
    // screened again.
    for v in variants.iter().filter(|v| v.status == "pending") {
        let Some(variant) = v.missing_variant_id.as_deref().and_then(|id| b.card.variant(id)) else {
            finish(
                sh,
                &v.candidate_id,
                "dropped",
                STAGE_MISSING,
                "the card no longer has this missing-information variant",
            )
            .await?;
            continue;
        };
        let replay = replay_of(sh.engine, &v.candidate_id).await?;
        match sh.narrate(b, anchor, v, &replay, &full, Some(variant), 1).await? {
            StageOutcome::Passed((n, _)) => accept(sh, b, v, &full, &n, Some(variant)).await?,
            StageOutcome::Failed(last) => {
                finish(sh, &v.candidate_id, "dropped", STAGE_MISSING, &drop_reason(STAGE_MISSING, &last)).await?
            }
        }
    }
    Ok(())
}

async fn skip_variants(sh: &RunShared<'_>, variants: &[CandidateRow], why: &str) -> Result<(), StepError> {
    for v in variants.iter().filter(|v| v.status == "pending") {
        finish(sh, &v.candidate_id, "skipped", "parent", &format!("not started: {why}")).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_verifier_cannot_pass_a_leak() {
        let conds = vec!["a".to_string(), "b".to_string()];
        let t = r#"{"per_bc_check": [{"boundary_condition": "a", "leak_verdict": "leaked", "evidence_phrase": "ICU for 3 days", "explanation": "shows harm."},
                    {"boundary_condition": "b", "leak_verdict": "indeterminate", "evidence_phrase": null, "explanation": "open"}], "pass": true, "issues": []}"#;
        let (m, _, notes) = parse_missing_verdict(t, &conds).unwrap();
        assert!(!m.pass);
        assert!(m.issues.iter().any(|i| i.contains("ICU for 3 days")), "{:?}", m.issues);
        assert!(notes.iter().any(|n| n.contains("treated as a failure")));
        // Rows must match the withheld conditions one to one.
        assert!(parse_missing_verdict(r#"{"per_bc_check": [], "pass": true, "issues": []}"#, &conds).is_err());
        assert!(parse_missing_verdict(
            r#"{"per_bc_check": [{"boundary_condition": "a", "leak_verdict": "maybe", "evidence_phrase": null, "explanation": ""}], "pass": true, "issues": []}"#,
            &["a".to_string()]
        )
        .is_err());
        let ok = r#"{"per_bc_check": [{"boundary_condition": "a", "leak_verdict": "indeterminate", "evidence_phrase": null, "explanation": "x"}], "pass": true, "issues": []}"#;
        assert!(parse_missing_verdict(ok, &["a".to_string()]).unwrap().0.pass);
    }

    #[test]
    fn verdicts_and_narratives_are_read_tolerantly() {
        let ((p, i), _, _) =
            parse_verdict("```json\n{\"pass\": \"false\", \"issues\": \"slot x is vague\"}\n```").unwrap();
        assert!(!p);
        assert_eq!(i, vec!["slot x is vague"]);
        assert!(parse_verdict("{\"issues\": []}").is_err());
        let (n, _, notes) = parse_narrative("At 02:10 the night nurse found the patient on the floor beside the bed, conscious, with a painful shortened left leg; the hip X-ray showed a fracture.").unwrap();
        assert!(n.starts_with("At 02:10"));
        assert!(!notes.is_empty());
        assert!(parse_narrative("{\"event_narrative\": \"\"}").is_err());
    }

    #[test]
    fn a_reply_cut_at_the_token_limit_says_so() {
        let why = "expected `:` at line 19 column 22";
        let reply = |cut_off, only_reasoning| Reply {
            text: String::new(),
            record: CallRecord { call_id: None, parsed: None, parse_notes: Vec::new() },
            cut_off,
            only_reasoning,
        };
        assert_eq!(unreadable_reason(&reply(false, false), why), why);
        let cut = unreadable_reason(&reply(true, false), why);
        assert!(cut.contains("token limit") && cut.contains(why), "{cut}");
        let only = unreadable_reason(&reply(true, true), why);
        assert!(only.contains("only the model's reasoning") && only.contains("more output tokens"), "{only}");
    }
}
