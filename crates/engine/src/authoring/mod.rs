//! Model-assisted authoring from the policy text. This part holds the loyal extraction: a model
//! picks, by id, the policy sections that bear on one clause and says why; the engine checks the
//! ids and criteria (feeding problems back, at most three attempts), copies the chosen sections
//! whole into the extraction document, asks a second, independent call what it would add or
//! remove, and stores the result as a new version for the clause. A named person approves it,
//! possibly after adding or removing sections; the approved document then becomes the clause's
//! context for generation and for the judge (read through `policy::extraction`).

pub mod draft;
pub mod reply;
pub mod repo;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::llm::{CallContext, CancellationToken, ChatRequest, ChatResponse, Message, ModelHandle};
use crate::policy::sections::{extraction_document, policy_sections, PolicySections};
use crate::policy::{Clause, OfficialSection};
use crate::prompt::split::{load_split, SplitPrompt};
use crate::prompt::{load, Prompt};

/// Why a section bears on a clause.
pub const CRITERIA: &[&str] =
    &["defines_term", "inclusion_exclusion", "scope", "examples", "carve_out", "cross_reference"];

/// Extractor attempts before what is still wrong is reported.
pub const EXTRACT_ATTEMPTS: u32 = 3;
/// Tries to get a readable self-check reply.
const CHECK_TRIES: u32 = 2;

/// Why an extraction could not be proposed for approval.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractionFailed {
    /// Every attempt came back with a reply the engine could not use: nothing is stored, so
    /// nothing waits for approval.
    #[error(
        "The extraction for clause {clause} failed: after {attempts} tries the model's reply could not be used as a \
         choice of policy sections ({reason}). Nothing was stored for approval. Try again, or choose another model."
    )]
    UnusableReply { clause: String, attempts: u32, reason: String },
}

impl From<ExtractionFailed> for ApiError {
    fn from(e: ExtractionFailed) -> Self {
        ApiError::new(crate::error::ErrorCode::ValidationFailed, e.to_string())
    }
}

/// A section chosen for a clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChosenSection {
    pub section_id: String,
    pub criteria: Vec<String>,
    pub why: String,
    /// The person who added it at approval (absent for the model's choices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SelfCheckItem {
    pub section_id: String,
    pub reason: String,
}

/// What the independent self-check would change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SelfCheck {
    pub add: Vec<SelfCheckItem>,
    pub remove: Vec<SelfCheckItem>,
    /// Suggestions left out (unknown ids, no-ops) or why there is no self-check.
    pub notes: Vec<String>,
}

/// One model call behind an extraction, with its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AuthoringCall {
    /// `extractor` or `self_check`.
    pub role: String,
    pub attempt: u32,
    pub prompt_name: String,
    pub prompt_versions: IndexMap<String, String>,
    pub model: String,
    #[ts(type = "unknown")]
    pub request: Value,
    pub response_text: Option<String>,
    #[ts(type = "unknown")]
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

/// A stored extraction (one version for one clause).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Extraction {
    pub extraction_id: String,
    pub policy_id: String,
    pub clause_id: String,
    pub version: i64,
    /// `official` or `summary`: which text the sections came from.
    pub edition: String,
    pub source_hash: String,
    /// The current selection (the model's, or the approver's final list).
    pub sections: Vec<ChosenSection>,
    /// The model's selection as it came out of the extraction.
    pub proposed: Vec<ChosenSection>,
    pub rejected_ids: Vec<String>,
    pub problems: Vec<String>,
    pub self_check: SelfCheck,
    pub document: String,
    pub attempts: u32,
    pub model: String,
    pub prompt_versions: IndexMap<String, String>,
    /// `proposed` or `approved`.
    pub status: String,
    pub approved_by: Option<String>,
    pub approved_at: Option<String>,
    pub notes: Option<String>,
    pub created_at: String,
    pub calls: Vec<AuthoringCall>,
}

/// An extraction as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExtractionSummary {
    pub extraction_id: String,
    pub policy_id: String,
    pub clause_id: String,
    pub version: i64,
    pub status: String,
    pub sections: Vec<String>,
    pub model: String,
    pub approved_by: Option<String>,
    pub created_at: String,
}

/// A clause's latest extraction that failed: nothing was proposed for approval, and this says why.
/// It is kept until the clause is extracted again (a new failure replaces it, a success clears it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExtractionFailure {
    pub policy_id: String,
    pub clause_id: String,
    /// Always "failed".
    pub status: String,
    pub model: String,
    pub attempts: u32,
    /// Why the model's replies could not be used, in plain words.
    pub reason: String,
    /// The whole failure as shown: what failed, why, and what to do.
    pub message: String,
    pub failed_at: String,
}

/// What `psebench author extract` asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExtractRequest {
    #[serde(default)]
    pub policy: Option<String>,
    pub clause: String,
    pub model: String,
}

/// What `psebench author extract --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExtractResult {
    pub extraction_id: String,
    pub clause_id: String,
    pub sections: Vec<ChosenSection>,
    pub rejected_ids: Vec<String>,
    pub attempts: u32,
}

/// Approve an extraction with its final list of sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApproveRequest {
    pub extraction_id: String,
    /// The person approving (required).
    pub approved_by: String,
    /// The final section ids (the current selection with the person's additions and removals).
    pub sections: Vec<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// Which extractions to list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExtractionFilter {
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub clause: Option<String>,
}

struct Templates {
    extract: SplitPrompt,
    check: SplitPrompt,
    feedback: Prompt,
}

impl Templates {
    fn load() -> ApiResult<Templates> {
        Ok(Templates {
            extract: load_split("author_extract")?,
            check: load_split("author_extract_check")?,
            feedback: load("author_extract_feedback")?,
        })
    }
    fn versions(&self) -> IndexMap<String, String> {
        [&self.extract.prompt, &self.check.prompt, &self.feedback]
            .iter()
            .map(|p| (p.name.clone(), p.version.clone()))
            .collect()
    }
}

/// The target clause as the model sees it: label, title, summary, and its official text if imported.
fn clause_text(clause: &Clause, official: &[OfficialSection]) -> String {
    let mut s = format!(
        "{} — {} (clause id {})\n\nSummary: {}",
        clause.label, clause.short_title, clause.clause_id, clause.summary
    );
    for o in official.iter().filter(|o| o.source == "clauses" && o.evidence_id == clause.label) {
        s.push_str(&format!("\n\nOfficial wording ({}):\n{}", o.heading, o.body));
    }
    s
}

fn sections_text(sections: &PolicySections) -> String {
    sections
        .sections
        .iter()
        .map(|s| format!("## [{}] {}\n{}", s.section_id, s.heading, s.body))
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn selection_text(chosen: &[ChosenSection]) -> String {
    if chosen.is_empty() {
        return "(no section was chosen)".into();
    }
    chosen
        .iter()
        .map(|c| format!("- [{}] criteria: {}; why: {}", c.section_id, c.criteria.join(", "), c.why))
        .collect::<Vec<_>>()
        .join("\n")
}

fn call_record(
    role: &str,
    attempt: u32,
    prompt: &Prompt,
    versions: IndexMap<String, String>,
    handle: &ModelHandle,
    resp: &ChatResponse,
) -> AuthoringCall {
    AuthoringCall {
        role: role.into(),
        attempt,
        prompt_name: prompt.name.clone(),
        prompt_versions: versions,
        model: handle.cfg.name.clone(),
        request: Value::Null,
        response_text: Some(resp.text.clone()),
        parsed: None,
        parse_notes: vec![],
        input_tokens: resp.usage.input_tokens,
        output_tokens: resp.usage.output_tokens,
        cached_input_tokens: resp.usage.cached_input_tokens,
        cost_usd: resp.cost_usd,
        latency_ms: resp.latency_ms,
        cache_hit: resp.cache_hit,
        call_id: resp.call_id,
    }
}

fn selection_schema() -> Value {
    json!({"type": "object", "additionalProperties": false, "required": ["relevant_sections"], "properties": {
        "relevant_sections": {"type": "array", "items": {"type": "object", "additionalProperties": false,
            "required": ["section_id", "criteria", "why"], "properties": {
                "section_id": {"type": "string"},
                "criteria": {"type": "array", "items": {"type": "string", "enum": CRITERIA}},
                "why": {"type": "string"}}}}}})
}

fn check_schema() -> Value {
    let item = json!({"type": "object", "additionalProperties": false, "required": ["section_id", "reason"],
        "properties": {"section_id": {"type": "string"}, "reason": {"type": "string"}}});
    json!({"type": "object", "additionalProperties": false, "required": ["add", "remove"], "properties": {
        "add": {"type": "array", "items": item}, "remove": {"type": "array", "items": item}}})
}

fn policy_or_default(p: &Option<String>) -> String {
    p.as_deref().map(str::trim).filter(|p| !p.is_empty()).unwrap_or(crate::policy::DEFAULT_POLICY).to_string()
}

impl Engine {
    fn authoring_sources(&self, policy: &str) -> ApiResult<(crate::policy::PolicyPack, Vec<OfficialSection>)> {
        self.store().with_conn(|c| {
            Ok((crate::policy::repo::load_pack(c, policy)?, crate::policy::repo::official_sections(c, policy)?))
        })
    }

    /// The policy's text split into the sections an extraction chooses from.
    pub fn authoring_sections(&self, policy: &str) -> ApiResult<PolicySections> {
        let (pack, official) = self.authoring_sources(policy)?;
        Ok(policy_sections(&pack, &official))
    }

    /// Run a loyal extraction for one clause and store it as the clause's next version.
    pub async fn authoring_extract(&self, req: &ExtractRequest) -> ApiResult<ExtractResult> {
        let policy = policy_or_default(&req.policy);
        let pol = policy.clone();
        let (pack, official) = self.blocking(move |e| e.authoring_sources(&pol)).await?;
        let clause = pack.clause(req.clause.trim()).cloned().ok_or_else(|| {
            ApiError::not_found(format!(
                "Policy {policy} has no clause \"{}\". `psebench policy show {policy}` lists its clause ids.",
                req.clause
            ))
        })?;
        let sections = policy_sections(&pack, &official);
        if sections.sections.is_empty() {
            return Err(ApiError::invalid(format!(
                "Policy {policy} has no guidance sections to choose from; import its official text first (`psebench policy import`)."
            )));
        }
        let handle = self.model_handle(&req.model)?;
        let t = Templates::load()?;
        let clause_txt = clause_text(&clause, &official);
        let sections_txt = sections_text(&sections);
        // Each new version asks afresh (the cache key includes the repeat index), while a call
        // repeated within one version can be served from the cache.
        let (pol, clause_id) = (policy.clone(), clause.clause_id.clone());
        let expected_version = self.store().call_read(move |c| repo::next_version(c, &pol, &clause_id)).await?;
        let base_repeat = (expected_version.max(1) as u32 - 1) * 100;
        let cancel = CancellationToken::new();
        let ctx = CallContext::new(None, "author_extract");
        let mut calls: Vec<AuthoringCall> = Vec::new();
        let mut checked = None;
        let mut attempts = 0;
        let mut feedback = String::new();
        let mut asked: Vec<String> = Vec::new();
        for attempt in 1..=EXTRACT_ATTEMPTS {
            attempts = attempt;
            let (system, user) = t.extract.render(&[
                ("clause_text", &clause_txt),
                ("edition", &sections.edition),
                ("sections", &sections_txt),
                ("feedback", &feedback),
            ])?;
            let chat = ChatRequest {
                temperature: Some(0.0),
                repeat: base_repeat + attempt - 1,
                ..ChatRequest::new(vec![Message::system(system), Message::user(user)])
            }
            .json_schema("relevant_sections", selection_schema());
            let mut versions = IndexMap::new();
            versions.insert(t.extract.prompt.name.clone(), t.extract.prompt.version.clone());
            if attempt > 1 {
                versions.insert(t.feedback.name.clone(), t.feedback.version.clone());
            }
            let call_ctx =
                ctx.clone().role("extractor").attempt(attempt).prompt(&t.extract.prompt.name, versions.clone());
            asked.push(crate::llm::cache::key(&handle.cfg, &chat));
            let resp = self.llm().chat(&handle, &chat, &call_ctx, &cancel).await?;
            let mut rec = call_record("extractor", attempt, &t.extract.prompt, versions, &handle, &resp);
            let r = reply::read_selection(&resp.text, &sections);
            rec.parsed = r.parsed.clone();
            rec.parse_notes = r.repairs.iter().cloned().chain(r.problems.iter().cloned()).collect();
            calls.push(rec);
            let done = r.problems.is_empty();
            if !done {
                let problems = r.problems.iter().map(|p| format!("- {p}")).collect::<Vec<_>>().join("\n");
                feedback = t.feedback.render(&[
                    ("attempt", &(attempt + 1).to_string()),
                    ("previous_reply", resp.text.trim()),
                    ("problems", &problems),
                ])?;
            }
            checked = Some(r);
            if done {
                break;
            }
        }
        let checked = checked.ok_or_else(|| ApiError::internal("the extraction made no attempt"))?;
        if checked.valid.is_empty() && !checked.problems.is_empty() {
            // No usable choice at all: a failure with its reason, never an empty proposal. Its
            // replies leave the cache, so that trying again asks the model afresh.
            crate::llm::cache::forget(self.store(), asked).await?;
            let reason = checked.problems.join(" ");
            let failed =
                ExtractionFailed::UnusableReply { clause: clause.clause_id.clone(), attempts, reason: reason.clone() };
            // The failure is kept (replacing an earlier one), so that it still shows with its
            // reason after a reload and in other windows.
            let f = ExtractionFailure {
                policy_id: policy.clone(),
                clause_id: clause.clause_id.clone(),
                status: "failed".into(),
                model: handle.cfg.name.clone(),
                attempts,
                reason,
                message: failed.to_string(),
                failed_at: crate::util::now_rfc3339(),
            };
            self.store().call(move |c| repo::record_failure(c, &f)).await?;
            return Err(failed.into());
        }
        let chosen_ids: Vec<String> = checked.valid.iter().map(|c| c.section_id.clone()).collect();

        let self_check = self
            .authoring_self_check(&t, &handle, &clause_txt, &sections, &checked.valid, base_repeat, &mut calls)
            .await?;

        let document = extraction_document(&pack, &official, &clause.clause_id, &sections, &chosen_ids);
        let mut ordered = checked.valid.clone();
        ordered.sort_by_key(|c| sections.position(&c.section_id).unwrap_or(usize::MAX));
        let clause_id = clause.clause_id.clone();
        let x = Extraction {
            extraction_id: String::new(),
            policy_id: policy.clone(),
            clause_id: clause_id.clone(),
            version: 0,
            edition: sections.edition.clone(),
            source_hash: sections.source_hash.clone(),
            sections: ordered.clone(),
            proposed: ordered,
            rejected_ids: checked.rejected_ids,
            problems: checked.problems,
            self_check,
            document,
            attempts,
            model: handle.cfg.name.clone(),
            prompt_versions: t.versions(),
            status: "proposed".into(),
            approved_by: None,
            approved_at: None,
            notes: None,
            created_at: String::new(),
            calls,
        };
        let x = self
            .store()
            .call_tx(move |tx| {
                let version = repo::next_version(tx, &policy, &clause_id)?;
                let x = Extraction {
                    extraction_id: format!("ext-{policy}-{clause_id}-v{version}"),
                    version,
                    created_at: crate::util::now_rfc3339(),
                    ..x
                };
                repo::insert(tx, &x)?;
                // A usable extraction replaces the clause's failed one.
                repo::clear_failure(tx, &policy, &clause_id)?;
                Ok(x)
            })
            .await?;
        Ok(ExtractResult {
            extraction_id: x.extraction_id,
            clause_id: x.clause_id,
            sections: x.sections,
            rejected_ids: x.rejected_ids,
            attempts: x.attempts,
        })
    }

    #[allow(clippy::too_many_arguments)]
    async fn authoring_self_check(
        &self,
        t: &Templates,
        handle: &ModelHandle,
        clause_txt: &str,
        sections: &PolicySections,
        chosen: &[ChosenSection],
        base_repeat: u32,
        calls: &mut Vec<AuthoringCall>,
    ) -> ApiResult<SelfCheck> {
        let ids: Vec<String> = chosen.iter().map(|c| c.section_id.clone()).collect();
        let (system, user) = t.check.render(&[
            ("clause_text", clause_txt),
            ("edition", &sections.edition),
            ("sections", &sections_text(sections)),
            ("selection", &selection_text(chosen)),
        ])?;
        let ctx = CallContext::new(None, "author_self_check");
        let mut last = String::new();
        for attempt in 1..=CHECK_TRIES {
            let chat = ChatRequest {
                temperature: Some(0.0),
                repeat: base_repeat + attempt - 1,
                ..ChatRequest::new(vec![Message::system(&system), Message::user(&user)])
            }
            .json_schema("extraction_self_check", check_schema());
            let mut versions = IndexMap::new();
            versions.insert(t.check.prompt.name.clone(), t.check.prompt.version.clone());
            let call_ctx =
                ctx.clone().role("self_check").attempt(attempt).prompt(&t.check.prompt.name, versions.clone());
            let resp = self.llm().chat(handle, &chat, &call_ctx, &CancellationToken::new()).await?;
            let mut rec = call_record("self_check", attempt, &t.check.prompt, versions, handle, &resp);
            match reply::read_self_check(&resp.text, sections, &ids) {
                Ok((check, parsed)) => {
                    rec.parsed = Some(parsed);
                    rec.parse_notes = check.notes.clone();
                    calls.push(rec);
                    return Ok(check);
                }
                Err(why) => {
                    let why = resp.unreadable_reason(&why.to_string());
                    rec.parse_notes = vec![format!("unreadable: {why}")];
                    calls.push(rec);
                    last = why;
                }
            }
        }
        Ok(SelfCheck {
            notes: vec![format!("The self-check reply could not be read after {CHECK_TRIES} tries ({last}).")],
            ..Default::default()
        })
    }

    /// Every extraction, optionally of one policy and/or one clause.
    pub fn authoring_extractions(&self, f: &ExtractionFilter) -> ApiResult<Vec<ExtractionSummary>> {
        self.store().with_conn(|c| repo::list(c, f.policy.as_deref(), f.clause.as_deref()))
    }

    /// Failed extractions (the latest per clause), optionally of one policy and/or one clause.
    pub fn authoring_extraction_failures(&self, f: &ExtractionFilter) -> ApiResult<Vec<ExtractionFailure>> {
        self.store().with_read(|c| repo::failures(c, f.policy.as_deref(), f.clause.as_deref()))
    }

    /// One extraction with its document, self-check and calls.
    pub fn authoring_extraction_show(&self, id: &str) -> ApiResult<Extraction> {
        self.store().with_conn(|c| repo::get(c, id))?.ok_or_else(|| {
            ApiError::not_found(format!("There is no extraction \"{id}\"; `psebench author list` shows them."))
        })
    }

    /// Approve an extraction with its final list of sections. A named person is required; sections
    /// the person adds keep the self-check's reason when it suggested them.
    pub fn authoring_approve(&self, req: &ApproveRequest) -> ApiResult<Extraction> {
        let by = req.approved_by.trim();
        if by.is_empty() {
            return Err(ApiError::invalid("An extraction is approved by a named person: give your name (--by NAME)."));
        }
        let mut x = self.authoring_extraction_show(&req.extraction_id)?;
        if x.status == "approved" {
            return Err(ApiError::conflict(format!(
                "Extraction {} was already approved by {}; run a new extraction to change it.",
                x.extraction_id,
                x.approved_by.as_deref().unwrap_or("someone")
            )));
        }
        let (pack, official) = self.authoring_sources(&x.policy_id)?;
        let sections = policy_sections(&pack, &official);
        if sections.source_hash != x.source_hash {
            return Err(ApiError::conflict(format!(
                "The text of policy {} changed after extraction {} was made, so its sections may no longer match. Run `psebench author extract` again.",
                x.policy_id, x.extraction_id
            )));
        }
        let unknown: Vec<&String> = req.sections.iter().filter(|id| sections.get(id).is_none()).collect();
        if !unknown.is_empty() {
            return Err(ApiError::invalid(format!(
                "These are not section ids of policy {}: {}. `psebench author show {}` lists the sections.",
                x.policy_id,
                unknown.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", "),
                x.extraction_id
            )));
        }
        if req.sections.is_empty() {
            return Err(ApiError::invalid("An approved extraction needs at least one section."));
        }
        let mut final_list: Vec<ChosenSection> = Vec::new();
        for id in &req.sections {
            if final_list.iter().any(|c| &c.section_id == id) {
                continue;
            }
            match x.sections.iter().find(|c| &c.section_id == id) {
                Some(c) => final_list.push(c.clone()),
                None => {
                    let why = x
                        .self_check
                        .add
                        .iter()
                        .find(|a| &a.section_id == id)
                        .map(|a| format!("suggested by the self-check: {}", a.reason))
                        .unwrap_or_else(|| "added by the approver".into());
                    final_list.push(ChosenSection {
                        section_id: id.clone(),
                        criteria: vec![],
                        why,
                        added_by: Some(by.to_string()),
                    });
                }
            }
        }
        final_list.sort_by_key(|c| sections.position(&c.section_id).unwrap_or(usize::MAX));
        let ids: Vec<String> = final_list.iter().map(|c| c.section_id.clone()).collect();
        x.document = extraction_document(&pack, &official, &x.clause_id, &sections, &ids);
        x.sections = final_list;
        x.status = "approved".into();
        x.approved_by = Some(by.to_string());
        x.approved_at = Some(crate::util::now_rfc3339());
        x.notes = req.notes.clone().filter(|n| !n.trim().is_empty());
        self.store().with_tx(|tx| repo::approve(tx, &x))?;
        self.authoring_extraction_show(&x.extraction_id)
    }
}
