//! Structured drafting: from a clause's approved extraction, a model drafts complete-case cards,
//! Uncertain cards, or missing-information variants for one parent card. Every reply is checked in
//! code (`checks`) and summarised in a coverage report (`coverage`); problems and the model's own
//! failed self-checks go back to it, at most three attempts; what still fails is kept with its
//! reasons. A named person then accepts the draft into the library (as `draft` cards, audited and
//! approved there), edits it, or rejects it with a reason. `all` runs drafting for a whole policy
//! as a resumable job.

pub mod all;
pub mod checks;
pub mod repo;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;

use self::checks::{check_cards, check_variants, item_label, CheckContext};
use super::{call_record, clause_text, policy_or_default, AuthoringCall};
use crate::card::actions::{line_diff, DiffLine};
use crate::card::coverage::{coverage, CoverageReport};
use crate::card::lint::Severity;
use crate::card::schema::{card_schema_value, VARIANTS_SCHEMA};
use crate::card::{to_pretty, AuditStatus, ClauseCard, EventType};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::llm::json_extract::extract_json_object;
use crate::llm::{CallContext, CancellationToken, ChatRequest, Message, ModelHandle};
use crate::policy::{Clause, PolicyVocab};
use crate::prompt::split::{load_split, SplitPrompt};
use crate::prompt::{load, Prompt};

/// Drafting attempts before what is still wrong is kept as the draft's problems.
pub const DRAFT_ATTEMPTS: u32 = 3;

/// What is drafted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DraftKind {
    /// Reportable and Non_Reportable cards for a clause.
    Complete,
    /// Missing-information variants for one parent card.
    Missing,
    /// Uncertain cards for a clause, given its existing cards.
    Uncertain,
}

impl DraftKind {
    pub const ALL: [DraftKind; 3] = [DraftKind::Complete, DraftKind::Missing, DraftKind::Uncertain];
    pub fn as_str(self) -> &'static str {
        match self {
            DraftKind::Complete => "complete",
            DraftKind::Missing => "missing",
            DraftKind::Uncertain => "uncertain",
        }
    }
    pub fn parse(s: &str) -> Option<DraftKind> {
        DraftKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
    /// In words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            DraftKind::Complete => "complete-case (Reportable or Non_Reportable)",
            DraftKind::Missing => "missing-information variant",
            DraftKind::Uncertain => "Uncertain",
        }
    }
    fn prompt_name(self) -> &'static str {
        match self {
            DraftKind::Complete => "author_draft_complete",
            DraftKind::Missing => "author_draft_missing",
            DraftKind::Uncertain => "author_draft_uncertain",
        }
    }
    /// The key of the drafted list in the reply.
    fn list_key(self) -> &'static str {
        match self {
            DraftKind::Complete => "clause_cards",
            DraftKind::Missing => "missing_information_variants",
            DraftKind::Uncertain => "uncertain_cards",
        }
    }
    /// The key of an item's id.
    fn id_key(self) -> &'static str {
        match self {
            DraftKind::Missing => "missing_variant_id",
            _ => "clause_card_id",
        }
    }
}

/// The ids of drafted items (card ids, or variant ids), `#n` for items without one.
pub fn item_ids(kind: DraftKind, items: &[Value]) -> Vec<String> {
    items.iter().enumerate().map(|(n, v)| item_label(v, kind.id_key(), n)).collect()
}

/// What `psebench author draft` asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftRequest {
    #[serde(default)]
    pub policy: Option<String>,
    pub clause: String,
    pub kind: DraftKind,
    /// The parent card (kind `missing` only).
    #[serde(default)]
    pub parent: Option<String>,
    pub model: String,
}

/// One finding of the code checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftProblem {
    /// The card or variant it concerns (none for the reply as a whole).
    pub item_id: Option<String>,
    /// A lint rule id, `schema`, or a `draft-*` rule.
    pub rule: String,
    pub severity: Severity,
    /// JSON Pointer into the item.
    pub pointer: String,
    pub message: String,
}

/// One of the model's own checks of its reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SelfCheckNote {
    pub check: String,
    pub passed: bool,
    pub note: String,
}

/// The existing card of the clause closest to a drafted card (most condition names in common).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NearestCard {
    pub item_id: String,
    pub card_id: Option<String>,
}

/// A stored draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Draft {
    pub draft_id: String,
    pub policy_id: String,
    pub clause_id: String,
    pub kind: DraftKind,
    pub parent_card_id: Option<String>,
    pub extraction_id: String,
    pub extraction_version: i64,
    /// The drafted cards (kinds complete and uncertain) or variants (kind missing).
    #[ts(type = "unknown[]")]
    pub items: Vec<Value>,
    pub item_ids: Vec<String>,
    pub problems: Vec<DraftProblem>,
    pub self_check: Vec<SelfCheckNote>,
    pub coverage: Option<CoverageReport>,
    pub nearest: Vec<NearestCard>,
    /// The extraction's section ids the items cite.
    pub cited: Vec<String>,
    pub attempts: u32,
    pub model: String,
    pub prompt_versions: IndexMap<String, String>,
    /// `proposed` (checks pass), `failed` (errors remain), `accepted` or `rejected`.
    pub status: String,
    pub decided_by: Option<String>,
    pub decided_at: Option<String>,
    /// Notes on acceptance, or the reason for rejection.
    pub decision_notes: Option<String>,
    pub accepted_ids: Vec<String>,
    pub edited_by: Option<String>,
    pub edited_at: Option<String>,
    pub run_id: Option<String>,
    pub created_at: String,
    pub calls: Vec<AuthoringCall>,
}

/// A draft as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftSummary {
    pub draft_id: String,
    pub policy_id: String,
    pub clause_id: String,
    pub kind: DraftKind,
    pub parent_card_id: Option<String>,
    pub status: String,
    pub item_ids: Vec<String>,
    pub errors: usize,
    pub warnings: usize,
    pub attempts: u32,
    pub model: String,
    pub created_at: String,
    pub run_id: Option<String>,
}

/// What `psebench author draft --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftResult {
    pub draft_id: String,
    /// The drafted card ids (variant ids for kind missing).
    pub cards: Vec<String>,
    pub attempts: u32,
    pub problems: Vec<DraftProblem>,
}

/// Which drafts to list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(default)]
pub struct DraftFilter {
    pub policy: Option<String>,
    pub clause: Option<String>,
    pub status: Option<String>,
}

/// Replace a draft's items with an edited version (checked again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftEditRequest {
    pub draft_id: String,
    pub by: String,
    /// The items as a JSON array (cards, or variants for kind missing).
    pub json: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftDiffRequest {
    pub draft_id: String,
    pub item_id: String,
    /// The library card to compare with.
    pub against: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftDiff {
    pub item_id: String,
    pub against: String,
    pub lines: Vec<DiffLine>,
}

/// Accept a draft (all items, or the ones named) into the library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AcceptRequest {
    pub draft_id: String,
    pub by: String,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub item_ids: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AcceptResult {
    pub draft_id: String,
    pub status: String,
    /// Library cards created or given a new version.
    pub cards: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RejectRequest {
    pub draft_id: String,
    pub by: String,
    pub reason: String,
}

/// Everything a draft is written from and checked against.
struct Inputs {
    vocab: PolicyVocab,
    /// Clauses whose events are easily confused with this clause's, with why.
    neighbours: Vec<(String, String)>,
    clause: Clause,
    extraction: crate::authoring::Extraction,
    citable: Vec<String>,
    taken_ids: HashSet<String>,
    /// The clause's current cards.
    existing: Vec<ClauseCard>,
    parent: Option<ClauseCard>,
    clause_text: String,
}

struct Checked {
    items: Vec<Value>,
    problems: Vec<DraftProblem>,
    self_check: Vec<SelfCheckNote>,
    coverage: Option<CoverageReport>,
}

fn errors(p: &[DraftProblem]) -> usize {
    p.iter().filter(|p| p.severity == Severity::Error).count()
}

fn read_reply(
    kind: DraftKind,
    text: &str,
    inputs: &Inputs,
) -> (Option<Value>, Vec<Value>, Vec<SelfCheckNote>, Vec<DraftProblem>) {
    let mut problems = Vec::new();
    let whole = |m: String| DraftProblem {
        item_id: None,
        rule: "reply".into(),
        severity: Severity::Error,
        pointer: String::new(),
        message: m,
    };
    let value = match extract_json_object(text) {
        Ok(x) => x.value,
        Err(e) => {
            problems.push(whole(format!("The reply was not one JSON object ({e}).")));
            return (None, vec![], vec![], problems);
        }
    };
    let (key, want) = match kind {
        DraftKind::Missing => {
            ("parent_card_id", inputs.parent.as_ref().map(|p| p.clause_card_id.clone()).unwrap_or_default())
        }
        _ => ("target_clause_id", inputs.clause.clause_id.clone()),
    };
    match value.get(key).and_then(Value::as_str) {
        Some(v) if v == want => {}
        Some(v) => problems.push(whole(format!("\"{key}\" must be \"{want}\", not \"{v}\"."))),
        None => problems.push(whole(format!("The reply has no \"{key}\"; it must be \"{want}\"."))),
    }
    let items = match value.get(kind.list_key()).and_then(Value::as_array) {
        Some(a) => a.clone(),
        None => {
            problems.push(whole(format!("The reply has no \"{}\" list.", kind.list_key())));
            vec![]
        }
    };
    let self_check = value
        .get("self_check")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| {
                    Some(SelfCheckNote {
                        check: c.get("check").and_then(Value::as_str)?.to_string(),
                        passed: c.get("passed").and_then(Value::as_bool).unwrap_or(true),
                        note: c.get("note").and_then(Value::as_str).unwrap_or_default().to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    (Some(value), items, self_check, problems)
}

fn check_items(kind: DraftKind, items: &[Value], inputs: &Inputs) -> (Vec<DraftProblem>, Option<CoverageReport>) {
    let cx = CheckContext {
        vocab: &inputs.vocab,
        clause_id: &inputs.clause.clause_id,
        citable: &inputs.citable,
        taken_ids: &inputs.taken_ids,
        existing: &inputs.existing,
    };
    match kind {
        DraftKind::Missing => match &inputs.parent {
            Some(parent) => (check_variants(parent, items, &inputs.existing, &cx), None),
            None => (vec![], None),
        },
        _ => {
            let (problems, cards) = check_cards(kind, items, &cx);
            let mut set: Vec<&ClauseCard> = cards.iter().collect();
            set.extend(
                inputs.existing.iter().filter(|c| kind == DraftKind::Uncertain || c.event_type != EventType::Uncertain),
            );
            (problems, Some(coverage(&set)))
        }
    }
}

fn problems_text(p: &[DraftProblem]) -> String {
    if p.is_empty() {
        return "(none)".into();
    }
    p.iter()
        .map(|p| {
            let place = match (&p.item_id, p.pointer.is_empty()) {
                (Some(i), false) => format!("{i} at {}", p.pointer),
                (Some(i), true) => i.clone(),
                (None, _) => "the reply".into(),
            };
            let sev = if p.severity == Severity::Error { "error" } else { "warning" };
            format!("- [{sev}, {}] {place}: {}", p.rule, p.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn self_check_text(s: &[SelfCheckNote]) -> String {
    let failed: Vec<String> = s.iter().filter(|c| !c.passed).map(|c| format!("- {}: {}", c.check, c.note)).collect();
    if failed.is_empty() {
        "(none)".into()
    } else {
        failed.join("\n")
    }
}

fn neighbours_text(n: &[(String, String)]) -> String {
    if n.is_empty() {
        return "(the policy names none for this clause)".into();
    }
    n.iter().map(|(id, why)| format!("- {id}: {why}")).collect::<Vec<_>>().join("\n")
}

/// The combinations of the existing Reportable and Non_Reportable cards' conditions that none of
/// them admits, in words for the drafting prompt: a drafter given a clause with cards works on these.
pub(crate) fn open_regions_text(existing: &[ClauseCard]) -> String {
    let settled: Vec<&ClauseCard> = existing.iter().filter(|c| c.event_type != EventType::Uncertain).collect();
    if settled.is_empty() {
        return "(no cards yet: the whole clause is open)".to_string();
    }
    let report = coverage(&settled);
    if report.combinations == 0 {
        return format!(
            "(not worked out: {}) Draft only for events that none of the existing cards describes.",
            report.note.unwrap_or_default()
        );
    }
    if report.gaps.is_empty() {
        return format!(
            "Nothing: every combination of the {} conditions the existing cards use fits one of them. Draft a card only for a real \
             event that needs a condition they do not use; otherwise reply with an empty list.",
            report.conditions.len()
        );
    }
    let mut out = format!(
        "{} of {} combinations of the existing cards' conditions fit no card (a combination that cannot happen in real life needs no card):\n",
        report.combinations - report.covered,
        report.combinations
    );
    for gap in &report.gaps {
        let words: Vec<String> = gap.iter().map(|(name, value)| format!("{name} = {value}")).collect();
        out.push_str(&format!("- {}\n", words.join(", ")));
    }
    if let Some(note) = report.note {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

fn pretty(v: &impl Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

struct Templates {
    draft: SplitPrompt,
    feedback: Prompt,
}

impl Engine {
    /// Everything a draft of `kind` for `clause` is written from. Refused without an approved
    /// extraction, and for kind missing without a parent card of the clause.
    fn draft_inputs(&self, policy: &str, clause_id: &str, kind: DraftKind, parent: Option<&str>) -> ApiResult<Inputs> {
        let (pack, vocab) = self.pack_and_vocab(policy)?;
        let mut clause_key = clause_id.trim().to_string();
        let parent_id = parent.map(str::trim).filter(|p| !p.is_empty());
        if kind == DraftKind::Missing && parent_id.is_none() {
            return Err(ApiError::invalid(
                "Missing-information variants are drafted for one parent card: give its id (--parent CARD_ID).",
            ));
        }
        if kind != DraftKind::Missing && parent_id.is_some() {
            return Err(ApiError::invalid("--parent only goes with --kind missing."));
        }
        let library = self.current_cards(policy)?;
        let parent_card = match parent_id {
            Some(p) => {
                let (_, card) = library.iter().find(|(r, _)| r.card_id == p).cloned().ok_or_else(|| {
                    ApiError::not_found(format!(
                        "Policy {policy} has no card \"{p}\"; `psebench cards list` shows them."
                    ))
                })?;
                if clause_key.is_empty() {
                    clause_key = card.clause_id.clone();
                }
                if card.clause_id != clause_key {
                    return Err(ApiError::invalid(format!(
                        "Card {p} belongs to clause {}, not {clause_key}.",
                        card.clause_id
                    )));
                }
                if card.event_type == EventType::Uncertain {
                    return Err(ApiError::invalid(format!(
                        "{p} is an Uncertain card; only Reportable and Non_Reportable cards get missing variants."
                    )));
                }
                Some(card)
            }
            None => None,
        };
        let clause = pack.clause(&clause_key).cloned().ok_or_else(|| {
            ApiError::not_found(format!(
                "Policy {policy} has no clause \"{clause_key}\". `psebench policy show {policy}` lists its clause ids."
            ))
        })?;
        let approved = self
            .store()
            .with_conn(|c| crate::authoring::repo::approved_extraction(c, policy, &clause.clause_id))?
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "Clause {} has no approved extraction yet. Run `psebench author extract --clause {}` and approve it first: drafts may cite only approved passages.",
                        clause.clause_id, clause.clause_id
                    ),
                )
            })?;
        let extraction = self.authoring_extraction_show(&approved.extraction_id)?;
        let mut citable: Vec<String> = vec![clause.label.clone()];
        for s in &extraction.sections {
            if !citable.contains(&s.section_id) {
                citable.push(s.section_id.clone());
            }
        }
        let all_ids: HashSet<String> = self
            .store()
            .with_conn(|c| crate::card::repo::list_rows(c, None, None))?
            .into_iter()
            .map(|r| r.card_id)
            .collect();
        let existing: Vec<ClauseCard> =
            library.into_iter().filter(|(_, c)| c.clause_id == clause.clause_id).map(|(_, c)| c).collect();
        let official = self.store().with_conn(|c| crate::policy::repo::official_sections(c, policy))?;
        let clause_text = clause_text(&clause, &official);
        let neighbours: Vec<(String, String)> = vocab
            .neighbours
            .iter()
            .filter_map(|p| p.other(&clause.clause_id).map(|o| (o.to_string(), p.reason.clone())))
            .collect();
        Ok(Inputs {
            neighbours,
            vocab,
            clause,
            extraction,
            citable,
            taken_ids: all_ids,
            existing,
            parent: parent_card,
            clause_text,
        })
    }

    fn draft_templates(kind: DraftKind) -> ApiResult<Templates> {
        Ok(Templates { draft: load_split(kind.prompt_name())?, feedback: load("author_draft_feedback")? })
    }

    fn draft_render(
        &self,
        kind: DraftKind,
        t: &Templates,
        inputs: &Inputs,
        feedback: &str,
    ) -> ApiResult<(String, String)> {
        let clause_ids: Vec<&str> = inputs.existing.iter().map(|c| c.clause_card_id.as_str()).collect();
        match kind {
            DraftKind::Missing => {
                let parent =
                    inputs.parent.as_ref().ok_or_else(|| ApiError::internal("missing draft without a parent"))?;
                let taken: Vec<&str> = parent.variants().iter().map(|v| v.missing_variant_id.as_str()).collect();
                let siblings: Vec<Value> = inputs.existing.iter().map(ClauseCard::to_value).collect();
                let schema: Value = serde_json::from_str(VARIANTS_SCHEMA).unwrap_or(Value::Null);
                t.draft.render(&[
                    ("parent_card", &pretty(&parent.to_value())),
                    ("sibling_cards", &pretty(&siblings)),
                    ("taken_ids", &if taken.is_empty() { "(none)".to_string() } else { taken.join(", ") }),
                    ("extraction", &inputs.extraction.document),
                    ("variants_schema", &pretty(&schema)),
                    ("feedback", feedback),
                ])
            }
            _ => {
                let suffix = format!("_{}_{}", inputs.clause.category, inputs.clause.local_no);
                let mut taken: Vec<&str> = clause_ids.clone();
                taken.extend(inputs.taken_ids.iter().filter(|id| id.ends_with(&suffix)).map(String::as_str));
                taken.sort();
                taken.dedup();
                let existing: Vec<Value> = inputs.existing.iter().map(ClauseCard::to_value).collect();
                let open = open_regions_text(&inputs.existing);
                let citable = inputs.citable.iter().map(|c| format!("- {c}")).collect::<Vec<_>>().join("\n");
                let taken = if taken.is_empty() { "(none)".to_string() } else { taken.join(", ") };
                let local_no = inputs.clause.local_no.to_string();
                let neighbours = neighbours_text(&inputs.neighbours);
                let existing = if existing.is_empty() { "(none yet)".to_string() } else { pretty(&existing) };
                let schema = pretty(&card_schema_value());
                let mut values: Vec<(&str, &str)> = vec![
                    ("clause_text", &inputs.clause_text),
                    ("clause_id", &inputs.clause.clause_id),
                    ("category", &inputs.clause.category),
                    ("local_no", &local_no),
                    ("extraction", &inputs.extraction.document),
                    ("citable_ids", &citable),
                    ("taken_ids", &taken),
                    ("neighbours", &neighbours),
                    ("existing_cards", &existing),
                    ("card_schema", &schema),
                    ("feedback", feedback),
                ];
                if kind == DraftKind::Complete {
                    values.push(("open_regions", &open));
                }
                t.draft.render(&values)
            }
        }
    }

    /// Draft cards or variants for one clause, check them, and store the draft.
    pub async fn authoring_draft(&self, req: &DraftRequest) -> ApiResult<DraftResult> {
        let d = self.authoring_draft_in(req, None, &CancellationToken::new()).await?;
        Ok(DraftResult { draft_id: d.draft_id, cards: d.item_ids, attempts: d.attempts, problems: d.problems })
    }

    pub(crate) async fn authoring_draft_in(
        &self,
        req: &DraftRequest,
        run_id: Option<&str>,
        cancel: &CancellationToken,
    ) -> ApiResult<Draft> {
        let policy = policy_or_default(&req.policy);
        let kind = req.kind;
        // The inputs read the policy, its cards and the approved extraction: a blocking thread.
        let (pol, clause, parent) = (policy.clone(), req.clause.clone(), req.parent.clone());
        let inputs = self.blocking(move |e| e.draft_inputs(&pol, &clause, kind, parent.as_deref())).await?;
        // One registry row by its name: quick, so it stays on this thread.
        let handle: ModelHandle = self.model_handle(&req.model)?;
        let t = Self::draft_templates(kind)?;
        let (pol, clause) = (policy.clone(), inputs.clause.clause_id.clone());
        let number = self.store().call_read(move |c| repo::count_for_clause(c, &pol, &clause)).await? + 1;
        let base_repeat = (number as u32 - 1) * 100;
        let ctx = CallContext::new(run_id, &format!("author_draft_{}", kind.as_str()));
        let mut calls = Vec::new();
        let mut feedback = String::new();
        let mut last: Option<Checked> = None;
        let mut attempts = 0;
        for attempt in 1..=DRAFT_ATTEMPTS {
            attempts = attempt;
            let (system, user) = self.draft_render(kind, &t, &inputs, &feedback)?;
            let chat = ChatRequest {
                temperature: Some(0.0),
                repeat: base_repeat + attempt - 1,
                response_format: crate::llm::ResponseFormat::Json,
                ..ChatRequest::new(vec![Message::system(system), Message::user(user)])
            };
            let mut versions = IndexMap::new();
            versions.insert(t.draft.prompt.name.clone(), t.draft.prompt.version.clone());
            if attempt > 1 {
                versions.insert(t.feedback.name.clone(), t.feedback.version.clone());
            }
            let call_ctx = ctx.clone().role("drafter").attempt(attempt).prompt(&t.draft.prompt.name, versions.clone());
            let resp = self.llm().chat(&handle, &chat, &call_ctx, cancel).await?;
            let mut rec = call_record("drafter", attempt, &t.draft.prompt, versions, &handle, &resp);
            let (parsed, items, self_check, mut problems) = read_reply(kind, &resp.text, &inputs);
            let (more, cov) = if parsed.is_some() { check_items(kind, &items, &inputs) } else { (vec![], None) };
            problems.extend(more);
            rec.parsed = parsed;
            rec.parse_notes = problems.iter().map(|p| p.message.clone()).collect();
            calls.push(rec);
            let done = errors(&problems) == 0 && self_check.iter().all(|c| c.passed);
            if !done && attempt < DRAFT_ATTEMPTS {
                feedback = t.feedback.render(&[
                    ("attempt", &(attempt + 1).to_string()),
                    ("previous_reply", resp.text.trim()),
                    ("problems", &problems_text(&problems)),
                    ("self_check", &self_check_text(&self_check)),
                ])?;
            }
            last = Some(Checked { items, problems, self_check, coverage: cov });
            if done {
                break;
            }
        }
        let last = last.ok_or_else(|| ApiError::internal("the draft made no attempt"))?;
        let mut prompt_versions = IndexMap::new();
        prompt_versions.insert(t.draft.prompt.name.clone(), t.draft.prompt.version.clone());
        prompt_versions.insert(t.feedback.name.clone(), t.feedback.version.clone());
        let status = if errors(&last.problems) == 0 { "proposed" } else { "failed" };
        let clause_id = inputs.clause.clause_id.clone();
        let d = Draft {
            draft_id: String::new(),
            policy_id: policy.clone(),
            clause_id: clause_id.clone(),
            kind,
            parent_card_id: inputs.parent.as_ref().map(|p| p.clause_card_id.clone()),
            extraction_id: inputs.extraction.extraction_id.clone(),
            extraction_version: inputs.extraction.version,
            item_ids: item_ids(kind, &last.items),
            items: last.items,
            problems: last.problems,
            self_check: last.self_check,
            coverage: last.coverage,
            nearest: vec![],
            cited: vec![],
            attempts,
            model: handle.cfg.name.clone(),
            prompt_versions,
            status: status.into(),
            decided_by: None,
            decided_at: None,
            decision_notes: None,
            accepted_ids: vec![],
            edited_by: None,
            edited_at: None,
            run_id: run_id.map(str::to_string),
            created_at: crate::util::now_rfc3339(),
            calls,
        };
        let id = self
            .store()
            .call_tx(move |tx| {
                let n = repo::count_for_clause(tx, &policy, &clause_id)? + 1;
                let mut d = d;
                d.draft_id = format!("draft-{policy}-{clause_id}-{}-{n}", kind.as_str());
                repo::insert(tx, &d)?;
                Ok(d.draft_id)
            })
            .await?;
        self.blocking(move |e| e.authoring_draft_show(&id)).await
    }

    /// Drafts, optionally of one policy, clause or status.
    pub fn authoring_drafts(&self, f: &DraftFilter) -> ApiResult<Vec<DraftSummary>> {
        let rows = self.store().with_conn(|c| {
            repo::list(c, f.policy.as_deref(), f.clause.as_deref(), f.status.as_deref().filter(|s| !s.is_empty()), None)
        })?;
        Ok(rows.iter().map(repo::summary).collect())
    }

    /// One draft with its items, problems, coverage, nearest existing cards and model calls.
    pub fn authoring_draft_show(&self, id: &str) -> ApiResult<Draft> {
        let mut d = self.store().with_conn(|c| repo::get(c, id))?.ok_or_else(|| {
            ApiError::not_found(format!("There is no draft \"{id}\"; `psebench author list --drafts` shows them."))
        })?;
        let existing: Vec<ClauseCard> = self
            .current_cards(&d.policy_id)?
            .into_iter()
            .filter(|(_, c)| c.clause_id == d.clause_id)
            .map(|(_, c)| c)
            .collect();
        d.nearest = nearest(&d, &existing);
        d.cited = cited(&d, &existing);
        Ok(d)
    }

    /// Replace a draft's items with an edited version and check them again.
    pub fn authoring_draft_edit(&self, req: &DraftEditRequest) -> ApiResult<Draft> {
        let by = req.by.trim();
        if by.is_empty() {
            return Err(ApiError::invalid("Say who edited the draft (your name), so its history stays meaningful."));
        }
        let mut d = self.authoring_draft_show(&req.draft_id)?;
        if d.status == "accepted" || d.status == "rejected" {
            return Err(ApiError::conflict(format!(
                "Draft {} was already {}; edit the cards in the library instead, or draft again.",
                d.draft_id, d.status
            )));
        }
        let items: Vec<Value> = match serde_json::from_str::<Value>(&req.json) {
            Ok(Value::Array(a)) => a,
            Ok(_) => return Err(ApiError::invalid("The edited draft must be a JSON list (of cards, or of variants).")),
            Err(e) => return Err(ApiError::invalid(format!("The edited draft is not valid JSON: {e}"))),
        };
        let inputs = self.draft_inputs(&d.policy_id, &d.clause_id, d.kind, d.parent_card_id.as_deref())?;
        let (problems, cov) = check_items(d.kind, &items, &inputs);
        d.item_ids = item_ids(d.kind, &items);
        d.items = items;
        d.status = if errors(&problems) == 0 { "proposed".into() } else { "failed".into() };
        d.problems = problems;
        d.coverage = cov;
        d.edited_by = Some(by.to_string());
        d.edited_at = Some(crate::util::now_rfc3339());
        self.store().with_tx(|tx| repo::update(tx, &d))?;
        self.authoring_draft_show(&d.draft_id)
    }

    /// A drafted card (or, for variants, the parent with them) against a library card.
    pub fn authoring_draft_diff(&self, req: &DraftDiffRequest) -> ApiResult<DraftDiff> {
        let d = self.authoring_draft_show(&req.draft_id)?;
        let pos = d
            .item_ids
            .iter()
            .position(|i| i == &req.item_id)
            .ok_or_else(|| ApiError::not_found(format!("Draft {} has no item \"{}\".", d.draft_id, req.item_id)))?;
        let against = self.card_show(&req.against, None)?;
        let mine = match d.kind {
            DraftKind::Missing => {
                let mut parent = against.card.clone();
                let mut vs =
                    parent.get("missing_information_variants").and_then(Value::as_array).cloned().unwrap_or_default();
                vs.push(d.items[pos].clone());
                parent["missing_information_variants"] = Value::Array(vs);
                parent
            }
            _ => d.items[pos].clone(),
        };
        Ok(DraftDiff {
            item_id: req.item_id.clone(),
            against: req.against.clone(),
            lines: line_diff(&to_pretty(&against.card), &to_pretty(&mine)),
        })
    }

    /// Accept a draft's items into the library as `draft` cards (origin `authored`); for variants,
    /// the parent card gets a new version with them. Refused while an accepted item has errors.
    pub fn authoring_accept(&self, req: &AcceptRequest) -> ApiResult<AcceptResult> {
        let by = req.by.trim();
        if by.is_empty() {
            return Err(ApiError::invalid("A draft is accepted by a named person: give your name (--by NAME)."));
        }
        let mut d = self.authoring_draft_show(&req.draft_id)?;
        if d.status == "failed" && d.items.is_empty() {
            return Err(ApiError::conflict(format!(
                "Draft {} failed, so it has nothing to accept: {} Draft the clause again.",
                d.draft_id,
                failed_reason(&d)
            )));
        }
        if d.status == "accepted" || d.status == "rejected" {
            return Err(ApiError::conflict(format!(
                "Draft {} was already {} by {}.",
                d.draft_id,
                d.status,
                d.decided_by.as_deref().unwrap_or("someone")
            )));
        }
        let chosen: Vec<usize> = match &req.item_ids {
            Some(ids) if !ids.is_empty() => {
                let mut out = Vec::new();
                for id in ids {
                    let p = d.item_ids.iter().position(|i| i == id).ok_or_else(|| {
                        ApiError::invalid(format!(
                            "Draft {} has no item \"{id}\"; its items are {}.",
                            d.draft_id,
                            d.item_ids.join(", ")
                        ))
                    })?;
                    out.push(p);
                }
                out
            }
            _ => (0..d.items.len()).collect(),
        };
        if chosen.is_empty() {
            return Err(ApiError::invalid(format!("Draft {} has nothing to accept.", d.draft_id)));
        }
        // Check again now: the library may have changed since the draft was made.
        let inputs = self.draft_inputs(&d.policy_id, &d.clause_id, d.kind, d.parent_card_id.as_deref())?;
        let picked: Vec<Value> = chosen.iter().map(|&i| d.items[i].clone()).collect();
        let (problems, _) = check_items(d.kind, &picked, &inputs);
        let blocking: Vec<&DraftProblem> = problems.iter().filter(|p| p.severity == Severity::Error).collect();
        if let Some(first) = blocking.first() {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!(
                    "{} must be fixed before these items can enter the library (edit the draft). First: {}{}",
                    crate::util::format::count(blocking.len(), "problem"),
                    first.item_id.as_deref().map(|i| format!("{i}: ")).unwrap_or_default(),
                    first.message
                ),
            )
            .with_detail(problems_text(&problems)));
        }
        let note = format!(
            "accepted from {} (model {}, extraction v{}){}",
            d.draft_id,
            d.model,
            d.extraction_version,
            req.notes.as_deref().filter(|n| !n.trim().is_empty()).map(|n| format!(": {n}")).unwrap_or_default()
        );
        let mut stored = Vec::new();
        match d.kind {
            DraftKind::Missing => {
                let parent =
                    inputs.parent.clone().ok_or_else(|| ApiError::internal("missing draft without a parent"))?;
                let mut v = parent.to_value();
                let mut vs =
                    v.get("missing_information_variants").and_then(Value::as_array).cloned().unwrap_or_default();
                vs.extend(picked.iter().cloned());
                v["missing_information_variants"] = Value::Array(vs);
                let card = ClauseCard::from_value(&v).map_err(|e| ApiError::invalid(e.to_string()))?;
                let json = to_pretty(&card.to_value());
                self.store().with_tx(|tx| {
                    let row = crate::card::repo::require_row(tx, &card.clause_card_id)?;
                    let origin = if row.origin == "builtin" { "edited".to_string() } else { row.origin.clone() };
                    crate::card::repo::add_version(
                        tx,
                        &crate::card::repo::NewVersion {
                            card: &card,
                            json: &json,
                            author: by,
                            note: Some(&note),
                            status: AuditStatus::Draft,
                            auditor: None,
                            origin: &origin,
                        },
                    )?;
                    Ok::<_, ApiError>(())
                })?;
                stored.push(card.clause_card_id.clone());
            }
            _ => {
                let cards: Vec<ClauseCard> = picked
                    .iter()
                    .map(|v| ClauseCard::from_value(v).map_err(|e| ApiError::invalid(e.to_string())))
                    .collect::<ApiResult<_>>()?;
                self.store().with_tx(|tx| {
                    for card in &cards {
                        let json = to_pretty(&card.to_value());
                        crate::card::repo::insert_card(
                            tx,
                            &crate::card::repo::NewCard {
                                card,
                                json: &json,
                                policy_id: &d.policy_id,
                                status: AuditStatus::Draft,
                                auditor: None,
                                origin: "authored",
                                author: by,
                                note: Some(&note),
                            },
                        )?;
                    }
                    Ok::<_, ApiError>(())
                })?;
                stored.extend(cards.iter().map(|c| c.clause_card_id.clone()));
            }
        }
        let accepted_items: Vec<String> = chosen.iter().map(|&i| d.item_ids[i].clone()).collect();
        d.status = "accepted".into();
        d.decided_by = Some(by.to_string());
        d.decided_at = Some(crate::util::now_rfc3339());
        d.decision_notes = req.notes.clone().filter(|n| !n.trim().is_empty());
        d.accepted_ids = accepted_items;
        self.store().with_tx(|tx| repo::update(tx, &d))?;
        Ok(AcceptResult { draft_id: d.draft_id, status: d.status, cards: stored })
    }

    /// Reject a draft; the reason is kept with it.
    pub fn authoring_reject(&self, req: &RejectRequest) -> ApiResult<Draft> {
        let by = req.by.trim();
        if by.is_empty() {
            return Err(ApiError::invalid("A draft is rejected by a named person: give your name (--by NAME)."));
        }
        let reason = req.reason.trim();
        if reason.is_empty() {
            return Err(ApiError::invalid("Say why the draft is rejected (--reason); the reason is kept with it."));
        }
        let mut d = self.authoring_draft_show(&req.draft_id)?;
        if d.status == "accepted" || d.status == "rejected" {
            return Err(ApiError::conflict(format!("Draft {} was already {}.", d.draft_id, d.status)));
        }
        d.status = "rejected".into();
        d.decided_by = Some(by.to_string());
        d.decided_at = Some(crate::util::now_rfc3339());
        d.decision_notes = Some(reason.to_string());
        self.store().with_tx(|tx| repo::update(tx, &d))?;
        self.authoring_draft_show(&d.draft_id)
    }
}

fn bc_names(v: &Value) -> HashSet<String> {
    v.pointer("/fixed_fields/boundary_conditions")
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// For each drafted card, the existing card of the clause with the most condition names in common.
fn nearest(d: &Draft, existing: &[ClauseCard]) -> Vec<NearestCard> {
    d.items
        .iter()
        .zip(&d.item_ids)
        .map(|(item, id)| {
            let card_id = if d.kind == DraftKind::Missing {
                d.parent_card_id.clone()
            } else {
                let mine = bc_names(item);
                existing
                    .iter()
                    .filter(|c| &c.clause_card_id != id)
                    .map(|c| {
                        let theirs: HashSet<String> = c.boundary_conditions().keys().cloned().collect();
                        let same_type = item.get("event_type").and_then(Value::as_str) == Some(c.event_type.as_str());
                        ((mine.intersection(&theirs).count(), same_type), c.clause_card_id.clone())
                    })
                    .filter(|((n, _), _)| *n > 0)
                    .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
                    .map(|(_, id)| id)
            };
            NearestCard { item_id: id.clone(), card_id }
        })
        .collect()
}

/// The section ids the draft's items cite (for variants, the parent's legal basis).
fn cited(d: &Draft, existing: &[ClauseCard]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |ids: Vec<String>| {
        for i in ids {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    };
    match d.kind {
        DraftKind::Missing => {
            if let Some(p) = existing.iter().find(|c| Some(&c.clause_card_id) == d.parent_card_id.as_ref()) {
                add(p.legal_basis().to_vec());
            }
        }
        _ => {
            for item in &d.items {
                let ids = item
                    .pointer("/fixed_fields/governing_legal_basis/value")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                    .unwrap_or_default();
                add(ids);
                if let Some(s) = item.pointer("/x_open_question/section_id").and_then(Value::as_str) {
                    add(vec![s.to_string()]);
                }
            }
        }
    }
    out
}

/// Why a draft failed, in the words of its checks (the errors left after its last try).
pub fn failed_reason(d: &Draft) -> String {
    let errs: Vec<&str> =
        d.problems.iter().filter(|p| p.severity == Severity::Error).map(|p| p.message.as_str()).collect();
    if errs.is_empty() {
        "its replies could not be used.".to_string()
    } else {
        errs.join(" ")
    }
}
