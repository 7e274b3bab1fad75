//! Expert review actions, one function per user action.
//!
//! Owner functions (`review_create` … `review_pack_merge`) take a session id, or a session name
//! that only one session has, and are for whoever holds the store: the desktop app and the CLI.
//! Reviewer functions (`review_me`, `review_item`, `review_answer`, `review_reveal`) take a
//! personal token and see only that reviewer's own items and answers; the HTTP server exposes only
//! these. The desktop app's local reviewer gets a token from `review_local_token`.
//! `review_pack_open` and `review_pack_answers_*` are used in the store of a reviewer who received
//! a pack.

use rusqlite::Connection;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::card::{repo as card_repo, ClauseCard};
use crate::case::repo::{self as case_repo, CaseFilter};
use crate::case::CaseType;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::evaluation::repo as eval_repo;
use crate::jobs::{self, RunKind};
use crate::review::answers::{self, AnswerRecord};
use crate::review::pack::{self, PackAnswer, PackAssignment, PackItem, PackKind, PackSeal, ReviewPackFile};
use crate::review::rationale;
use crate::review::repo::{self, AnswerRow, ItemRow, SessionRow};
use crate::review::sampling::{self, Candidate};
use crate::review::signing;
use crate::review::*;
use crate::trajectory::Trajectory;
use crate::util::files::{read_text, write_atomic};
use crate::util::now_rfc3339;

/// Seeds above this would not survive a JavaScript number.
pub const MAX_SEED: u64 = (1 << 53) - 1;
const MAX_NAME_CHARS: usize = 200;
const MAX_REVIEWER_CHARS: usize = 80;
const MAX_GUIDELINES_CHARS: usize = 200_000;
const MAX_NOTE_CHARS: usize = 20_000;

/// A session as its owner reads it: the session, its reviewers, its items and every answer.
type OwnerRows = (SessionRow, Vec<String>, Vec<ItemRow>, Vec<AnswerRow>);

/// The session and reviewer a token opens.
struct ReviewerCtx {
    session: SessionRow,
    reviewer: String,
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::ValidationFailed, msg)
}

fn clean_reviewer(raw: &str) -> ApiResult<String> {
    let r = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if r.is_empty() {
        return Err(invalid("A reviewer's name is empty; give each reviewer a name."));
    }
    if r.chars().count() > MAX_REVIEWER_CHARS {
        return Err(invalid(format!("The reviewer name \"{r}\" is longer than {MAX_REVIEWER_CHARS} characters.")));
    }
    if r.contains(',') || r.chars().any(char::is_control) {
        return Err(invalid(format!("The reviewer name \"{r}\" contains a comma; use names without commas.")));
    }
    Ok(r)
}

fn not_in_session(reviewer: &str, s: &SessionRow, all: &[String]) -> ApiError {
    ApiError::not_found(format!(
        "\"{reviewer}\" is not a reviewer of session \"{}\"; its reviewers are {}.",
        s.name,
        all.join(", ")
    ))
}

fn visiting_refused(s: &SessionRow, what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        format!(
            "Session \"{}\" was opened here from a review pack, so {what} is done in the store that created it. Here you can \
             answer the items and export the answers file.",
            s.name
        ),
    )
}

fn owner_session(c: &Connection, key: &str, what: &str) -> ApiResult<SessionRow> {
    let s = repo::resolve_session(c, key)?;
    if s.role == SessionRole::Visiting {
        return Err(visiting_refused(&s, what));
    }
    Ok(s)
}

fn item_not_found(item_no: u32, total: usize) -> ApiError {
    ApiError::not_found(format!(
        "There is no item {item_no}: you have {}, numbered 1 to {total}.",
        crate::util::format::count(total, "item")
    ))
}

fn summary_of(
    s: &SessionRow,
    reviewers: Vec<String>,
    items: usize,
    answers: &[AnswerRow],
    closed_at: Option<String>,
) -> ReviewSessionSummary {
    ReviewSessionSummary {
        session_id: s.session_id.clone(),
        name: s.name.clone(),
        role: s.role,
        created_at: s.created_at.clone(),
        cases: items as u32,
        reviewers,
        overlap: s.overlap,
        assignments: answers.len() as u32,
        completed: answers.iter().filter(|a| a.record.complete()).count() as u32,
        closed_at,
    }
}

fn reveal_of(item_no: u32, rec: &AnswerRecord, it: &ItemRow) -> Option<ReviewReveal> {
    match (rec.blind_verdict, &rec.revealed_at) {
        (Some(v), Some(at)) => Some(ReviewReveal {
            item_no,
            your_blind_verdict: v,
            matches_your_verdict: v == it.expected,
            revealed_at: at.clone(),
            material: it.reveal.clone(),
        }),
        _ => None,
    }
}

fn progress_and_resume(rows: &[AnswerRow]) -> (ReviewProgress, Option<u32>) {
    let p = progress_of(rows.iter().map(|a| a.record.complete()));
    let resume = rows.iter().find(|a| !a.record.complete()).map(|a| a.item_no);
    (p, resume)
}

fn find_reviewer(c: &Connection, s: &SessionRow, name: &str) -> ApiResult<String> {
    let all = repo::reviewers(c, &s.session_id)?;
    all.iter().find(|x| x.as_str() == name.trim()).cloned().ok_or_else(|| not_in_session(name, s, &all))
}

/// The case behind one of the reviewer's own item numbers.
fn own_case(c: &Connection, ctx: &ReviewerCtx, item_no: u32) -> ApiResult<String> {
    let mine = repo::assignments_of(c, &ctx.session.session_id, &ctx.reviewer)?;
    mine.iter()
        .find(|(n, _)| *n == item_no)
        .map(|(_, id)| id.clone())
        .ok_or_else(|| item_not_found(item_no, mine.len()))
}

/// A pack or answers file for a reviewer of a session, its answers signed with the seal's answers
/// key (an answers file does not carry that key). The caller signs the owner part of a new pack
/// and seals the file.
#[allow(clippy::too_many_arguments)]
fn pack_file(
    s: &SessionRow,
    kind: PackKind,
    reviewer: String,
    token: String,
    items: Vec<PackItem>,
    answers: Vec<PackAnswer>,
    now: String,
    seal: PackSeal,
) -> ApiResult<ReviewPackFile> {
    let (notice, guidelines) = match kind {
        PackKind::Pack => (pack::PACK_NOTICE, s.guidelines.clone()),
        PackKind::Answers => (pack::ANSWERS_NOTICE, String::new()),
    };
    let mut f = ReviewPackFile {
        format: pack::PACK_FORMAT.into(),
        version: pack::PACK_VERSION,
        kind,
        notice: notice.into(),
        session_id: s.session_id.clone(),
        session_name: s.name.clone(),
        session_created_at: s.created_at.clone(),
        fingerprint: s.fingerprint.clone(),
        overlap: s.overlap,
        reviewer,
        token,
        guidelines,
        exported_at: now,
        app_version: crate::version().into(),
        items,
        answers,
        pack_id: seal.pack_id,
        assignment: seal.assignment,
        owner_signature: seal.owner_signature,
        answers_key: String::new(),
        answers_signature: String::new(),
        checksum: String::new(),
    };
    signing::sign_answers(&mut f, &seal.answers_key)?;
    if kind == PackKind::Pack {
        f.answers_key = seal.answers_key;
    }
    Ok(f)
}

/// The refusal for a file whose owner-issued part does not match its signature.
fn owner_part_edited(name: &str) -> ApiError {
    ApiError::new(
        ErrorCode::ValidationFailed,
        format!(
            "{name}: the part written by the person running the review (session, reviewer, pack id, cases, assignment or \
             expected verdicts) was edited after the pack was exported, so nothing was merged. Ask the reviewer to export \
             the answers file again from the app; if that fails too, export a new pack for them."
        ),
    )
}

/// The answers a reviewer has started, as they travel in packs.
fn started_answers(rows: &[AnswerRow]) -> Vec<PackAnswer> {
    rows.iter()
        .filter(|a| a.record.started())
        .map(|a| PackAnswer::from_record(a.item_no, &a.case_id, &a.record))
        .collect()
}

/// Merge answers from a file into a reviewer's stored answers (see `answers::merge`). Returns
/// (answers changed, parts updated, parts kept with the reason).
fn merge_answers(
    tx: &Connection,
    session_id: &str,
    reviewer: &str,
    incoming: &[PackAnswer],
) -> ApiResult<(u32, u32, Vec<String>)> {
    let (mut items, mut fields, mut kept) = (0u32, 0u32, Vec::new());
    for a in incoming {
        let local = repo::answer(tx, session_id, reviewer, &a.case_id)?;
        let m = answers::merge(&local, &a.record(), a.item_no);
        kept.extend(m.kept);
        if !m.changed.is_empty() {
            repo::write_answer(tx, session_id, reviewer, &a.case_id, &m.record)?;
            items += 1;
            fields += m.changed.len() as u32;
        }
    }
    Ok((items, fields, kept))
}

/// The case's card, to reveal its conditions after rating; None when the card is not in the
/// library (deleted, or the case came from elsewhere) or is not a card this version can read.
/// A stored card that is not JSON at all is an error naming it.
fn load_card(c: &Connection, card_id: &str) -> ApiResult<Option<ClauseCard>> {
    let json = match card_repo::card_json(c, card_id, None) {
        Ok(json) => json,
        Err(e) if e.code == crate::error::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let v: serde_json::Value = card_repo::CARD_JSON.parse(&json, card_id)?;
    Ok(ClauseCard::from_value(&v).ok())
}

/// The run ids asked for, trimmed, without blanks or repeats.
fn clean_runs(raw: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in raw.iter().flat_map(|r| r.split(',')).map(str::trim).filter(|r| !r.is_empty()) {
        if !out.iter().any(|x| x == r) {
            out.push(r.to_string());
        }
    }
    out
}

/// For each case of a new session that has a usable judged rationale in one of `runs`: the run
/// and the trajectory chosen (seeded). Refused when a run is unknown or no case has one.
fn rationales_for(
    c: &Connection,
    runs: &[String],
    case_ids: &[String],
    seed: u64,
) -> ApiResult<HashMap<String, (String, Trajectory)>> {
    let mut all: Vec<(String, Trajectory)> = Vec::new();
    for run in runs {
        if !jobs::run_exists(c, run, RunKind::Eval)? {
            let known = jobs::run_ids(c, RunKind::Eval)?;
            return Err(ApiError::not_found(if known.is_empty() {
                format!("There is no evaluation run \"{run}\" in this store (there are none yet), so it cannot supply rationales.")
            } else {
                format!(
                    "There is no evaluation run \"{run}\" in this store; the runs are: {}.",
                    known.iter().take(20).cloned().collect::<Vec<_>>().join(", ")
                )
            }));
        }
        for text in eval_repo::done_trajectory_texts(c, run, case_ids)? {
            let t: Trajectory = serde_json::from_str(&text).map_err(|e| {
                ApiError::internal(format!("a stored trajectory of run {run} is unreadable")).with_detail(e.to_string())
            })?;
            all.push((run.clone(), t));
        }
    }
    let candidates: Vec<(&str, &Trajectory)> = all.iter().map(|(r, t)| (r.as_str(), t)).collect();
    let mut out = HashMap::new();
    for id in case_ids {
        if let Some((run, t)) = rationale::pick(id, seed, &candidates) {
            out.insert(id.clone(), (run.to_string(), t.clone()));
        }
    }
    if out.is_empty() {
        return Err(invalid(format!(
            "None of the {} of this session has a judged rationale in {} {}: the M4 judge only reads a rationale \
             when the model's verdict was right and its rationale not empty. Pick cases that run judged (--cases), or \
             another run, or create the session without the rationale task.",
            crate::util::format::count(case_ids.len(), "case"),
            if runs.len() == 1 { "run" } else { "runs" },
            runs.join(", ")
        )));
    }
    Ok(out)
}

impl Engine {
    // ------------------------------------------------------------------ owner: sessions

    /// How many cases a sample can draw on (not excluded), per type and per clause.
    pub fn review_available(&self) -> ApiResult<ReviewAvailable> {
        let all = self.cases_list(&CaseFilter::default())?;
        let mut out = ReviewAvailable { complete: 0, missing: 0, uncertain: 0, by_clause: Vec::new() };
        let mut by: std::collections::BTreeMap<String, ClauseCount> = Default::default();
        for c in &all {
            let e = by.entry(c.clause_id.clone()).or_insert_with(|| ClauseCount {
                clause_id: c.clause_id.clone(),
                complete: 0,
                missing: 0,
                uncertain: 0,
            });
            match CaseType::parse(&c.case_type) {
                Some(CaseType::Complete) => {
                    out.complete += 1;
                    e.complete += 1
                }
                Some(CaseType::Missing) => {
                    out.missing += 1;
                    e.missing += 1
                }
                Some(CaseType::Uncertain) => {
                    out.uncertain += 1;
                    e.uncertain += 1
                }
                None => {}
            }
        }
        out.by_clause = by.into_values().collect();
        Ok(out)
    }

    /// Create a session: draw or check the cases, assign them to reviewers with the requested
    /// overlap, snapshot each case's narrative and reveal material. All or nothing.
    pub fn review_create(&self, req: &ReviewCreateRequest) -> ApiResult<ReviewSessionDetail> {
        let name = req.name.trim().to_string();
        if name.is_empty() {
            return Err(invalid("Give the review session a name."));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(invalid(format!("The session name is longer than {MAX_NAME_CHARS} characters.")));
        }
        let mut reviewers: Vec<String> = Vec::new();
        for r in &req.reviewers {
            let r = clean_reviewer(r)?;
            if reviewers.iter().any(|x| x.to_lowercase() == r.to_lowercase()) {
                return Err(invalid(format!(
                    "The reviewer \"{r}\" is named twice; each reviewer needs a different name."
                )));
            }
            reviewers.push(r);
        }
        if reviewers.is_empty() {
            return Err(invalid("Name at least one reviewer."));
        }
        let overlap = req.overlap.unwrap_or(DEFAULT_OVERLAP.min(reviewers.len() as u32));
        let seed = match req.seed {
            Some(s) if s > MAX_SEED => return Err(invalid(format!("The seed must be at most {MAX_SEED}."))),
            Some(s) => s,
            None => rand::random::<u64>() & MAX_SEED,
        };
        let guidelines = match req.guidelines.as_deref().map(str::trim) {
            Some(g) if !g.is_empty() => {
                if g.chars().count() > MAX_GUIDELINES_CHARS {
                    return Err(invalid(format!("The guidelines are longer than {MAX_GUIDELINES_CHARS} characters.")));
                }
                format!("{g}\n")
            }
            _ => DEFAULT_GUIDELINES.to_string(),
        };

        let summaries = self.cases_list(&CaseFilter { include_excluded: true, ..Default::default() })?;
        let mut candidates = Vec::new();
        let mut known = Vec::new();
        let mut excluded = HashSet::new();
        for s in &summaries {
            let Some(t) = CaseType::parse(&s.case_type) else { continue };
            let c = Candidate { case_id: s.case_id.clone(), case_type: t, clause_id: s.clause_id.clone() };
            if s.excluded {
                excluded.insert(s.case_id.clone());
            } else {
                candidates.push(c.clone());
            }
            known.push(c);
        }
        let case_ids = match &req.selection {
            ReviewSelection::Stratified { complete, missing, uncertain, by_clause } => {
                sampling::stratified(&candidates, [*complete, *missing, *uncertain], *by_clause, seed)?
            }
            ReviewSelection::Cases { case_ids } => sampling::hand_picked(case_ids, &known, &excluded)?,
        };
        let plan = crate::review::assignment::assign(case_ids.len(), reviewers.len(), overlap as usize, seed)?;
        let rationale_runs = clean_runs(req.rationale_from.as_deref().unwrap_or_default());
        let rationales = if rationale_runs.is_empty() {
            HashMap::new()
        } else {
            self.store().with_conn(|c| rationales_for(c, &rationale_runs, &case_ids, seed))?
        };
        let guidelines = if rationales.is_empty() || guidelines.contains(rationale::GUIDELINES_SECTION.trim()) {
            guidelines
        } else {
            format!("{}\n{}", guidelines.trim_end(), rationale::GUIDELINES_SECTION)
        };

        let session_id = format!("rev-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let now = now_rfc3339();
        self.store().with_tx(|tx| -> ApiResult<()> {
            let mut items = Vec::with_capacity(case_ids.len());
            for (ord, id) in case_ids.iter().enumerate() {
                let case = case_repo::get_case(tx, id)?;
                let card = load_card(tx, &case.clause_card_id)?;
                let reveal = crate::review::reveal::material(&case, card.as_ref());
                let (rationale, rationale_source) = match rationales.get(id) {
                    Some((run, t)) => {
                        let (task, source) = rationale::snapshot(&case, run, t);
                        (Some(task), Some(source))
                    }
                    None => (None, None),
                };
                items.push(ItemRow {
                    case_id: case.case_id.clone(),
                    ord: ord as u32 + 1,
                    case_type: case.case_type,
                    clause_id: case.clause_id.clone(),
                    expected: reveal.expected_verdict,
                    narrative: case.narrative.clone(),
                    reveal,
                    rationale,
                    rationale_source,
                });
            }
            let mut assignment: Vec<(&str, u32, &str)> = Vec::new();
            for (r, list) in reviewers.iter().zip(&plan) {
                for (k, idx) in list.iter().enumerate() {
                    assignment.push((r.as_str(), k as u32 + 1, case_ids[*idx].as_str()));
                }
            }
            let fp_items: Vec<(&str, ReviewVerdict, &str)> =
                items.iter().map(|i| (i.case_id.as_str(), i.expected, i.narrative.as_str())).collect();
            let fingerprint = pack::fingerprint(&session_id, &now, overlap, &fp_items, &assignment);
            repo::insert_session(
                tx,
                &SessionRow {
                    session_id: session_id.clone(),
                    name: name.clone(),
                    role: SessionRole::Owner,
                    guidelines: guidelines.clone(),
                    overlap,
                    seed: Some(seed),
                    selection: Some(req.selection.clone()),
                    fingerprint,
                    created_at: now.clone(),
                    opened_at: now.clone(),
                },
            )?;
            for (i, r) in reviewers.iter().enumerate() {
                repo::insert_reviewer(tx, &session_id, r, i as u32, None)?;
            }
            for it in &items {
                repo::insert_item(tx, &session_id, it)?;
            }
            for (r, n, id) in &assignment {
                repo::insert_assignment(tx, &session_id, r, *n, id)?;
            }
            Ok(())
        })?;
        self.review_show(&session_id)
    }

    /// All sessions in this store, newest first.
    pub fn review_list(&self) -> ApiResult<Vec<ReviewSessionSummary>> {
        self.store().with_conn(|c| {
            let mut out = Vec::new();
            for s in repo::list_sessions(c)? {
                let reviewers = repo::reviewers(c, &s.session_id)?;
                let items = repo::items(c, &s.session_id)?.len();
                let answers = repo::answers(c, &s.session_id, None)?;
                let closed = crate::review::closing::closed_at(c, &s.session_id)?;
                out.push(summary_of(&s, reviewers, items, &answers, closed));
            }
            Ok(out)
        })
    }

    /// A session with each reviewer's progress (never the answers themselves).
    pub fn review_show(&self, session: &str) -> ApiResult<ReviewSessionDetail> {
        self.store().with_conn(|c| {
            let s = repo::resolve_session(c, session)?;
            let reviewers = repo::reviewers(c, &s.session_id)?;
            let items = repo::items(c, &s.session_id)?;
            let answers = repo::answers(c, &s.session_id, None)?;
            let mut progress = Vec::new();
            for r in &reviewers {
                let mine: Vec<&AnswerRow> = answers.iter().filter(|a| &a.reviewer == r).collect();
                progress.push(ReviewerProgress {
                    reviewer: r.clone(),
                    items: mine.len() as u32,
                    completed: mine.iter().filter(|a| a.record.complete()).count() as u32,
                    blind_saved: mine.iter().filter(|a| a.record.blind_verdict.is_some()).count() as u32,
                    revealed: mine.iter().filter(|a| a.record.revealed_at.is_some()).count() as u32,
                    time_spent_secs: mine.iter().map(|a| a.record.time_spent_secs).sum(),
                    last_answer_at: mine.iter().filter_map(|a| a.record.last_at()).max().map(str::to_string),
                    link_active: repo::active_tokens(c, &s.session_id, r, "link")? > 0,
                    packs_issued: repo::active_tokens(c, &s.session_id, r, "pack")?,
                });
            }
            let cases_by_type = CaseType::ALL
                .iter()
                .map(|t| TypeCount {
                    case_type: t.as_str().into(),
                    count: items.iter().filter(|i| i.case_type == *t).count() as u32,
                })
                .collect();
            Ok(ReviewSessionDetail {
                summary: summary_of(
                    &s,
                    reviewers,
                    items.len(),
                    &answers,
                    crate::review::closing::closed_at(c, &s.session_id)?,
                ),
                guidelines: s.guidelines.clone(),
                selection: s.selection.clone(),
                seed: s.seed,
                fingerprint: s.fingerprint.clone(),
                cases_by_type,
                progress,
                rationale_items: items.iter().filter(|i| i.rationale.is_some()).count() as u32,
                rationale_runs: {
                    let mut runs: Vec<String> =
                        items.iter().filter_map(|i| i.rationale_source.as_ref().map(|s| s.run_id.clone())).collect();
                    runs.sort();
                    runs.dedup();
                    runs
                },
            })
        })
    }

    /// Replace a session's guidelines (Markdown). Packs exported later carry the new text.
    pub fn review_guidelines_set(&self, session: &str, markdown: &str) -> ApiResult<ReviewSessionDetail> {
        let text = markdown.trim();
        if text.chars().count() > MAX_GUIDELINES_CHARS {
            return Err(invalid(format!("The guidelines are longer than {MAX_GUIDELINES_CHARS} characters.")));
        }
        let text = if text.is_empty() { DEFAULT_GUIDELINES.to_string() } else { format!("{text}\n") };
        let id = self.store().with_conn(|c| {
            let s = owner_session(c, session, "changing the guidelines")?;
            repo::set_guidelines(c, &s.session_id, &text)?;
            Ok::<_, ApiError>(s.session_id)
        })?;
        self.review_show(&id)
    }

    /// Delete a session and everything recorded in it (answers, tokens, decisions). Cases the
    /// session excluded from the dataset stay excluded.
    pub fn review_delete(&self, session: &str) -> ApiResult<()> {
        let id = self.store().with_tx(|tx| {
            let s = repo::resolve_session(tx, session)?;
            repo::delete_session(tx, &s.session_id)?;
            Ok::<_, ApiError>(s.session_id)
        })?;
        self.extension::<crate::review::tokens::LocalTokens>().forget_session(&id);
        Ok(())
    }

    /// Create (or, with `rotate`, replace) personal links. Plain tokens appear only in this answer.
    pub fn review_links(&self, req: &ReviewLinksRequest) -> ApiResult<ReviewLinks> {
        self.store().with_tx(|tx| {
            let s = owner_session(tx, &req.session_id, "making review links")?;
            if crate::review::closing::closed_at(tx, &s.session_id)?.is_some() {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "Review \"{}\" is closed, so its links are refused. Reopen it first (psebench review reopen, or \
                         Reopen review in the app).",
                        s.name
                    ),
                ));
            }
            let all = repo::reviewers(tx, &s.session_id)?;
            let targets: Vec<String> = if req.reviewers.is_empty() {
                all.clone()
            } else {
                let mut t = Vec::new();
                for r in &req.reviewers {
                    let r = r.trim();
                    let found = all.iter().find(|x| x.as_str() == r).ok_or_else(|| not_in_session(r, &s, &all))?;
                    t.push(found.clone());
                }
                t
            };
            let now = now_rfc3339();
            let mut links = Vec::new();
            for r in targets {
                let active = repo::active_tokens(tx, &s.session_id, &r, "link")? > 0;
                if active && !req.rotate {
                    links.push(ReviewerLink { reviewer: r, token: None, path: None, status: LinkStatus::Unchanged });
                    continue;
                }
                repo::revoke_tokens(tx, &s.session_id, &r, "link", &now)?;
                let token = crate::review::tokens::new_token()?;
                repo::insert_token(tx, &crate::review::tokens::hash(&token), &s.session_id, &r, "link", &now)?;
                links.push(ReviewerLink {
                    reviewer: r,
                    path: Some(format!("/review/{token}")),
                    token: Some(token),
                    status: if active { LinkStatus::Rotated } else { LinkStatus::Created },
                });
            }
            Ok(ReviewLinks { session_id: s.session_id.clone(), session_name: s.name.clone(), links })
        })
    }

    /// A token for reviewing as `reviewer` in this process (the desktop app's "I am reviewer X",
    /// the CLI's `review answer`). It is valid only in this process and never stored.
    pub fn review_local_token(&self, session: &str, reviewer: &str) -> ApiResult<String> {
        let (id, r) = self.store().with_conn(|c| {
            let s = repo::resolve_session(c, session)?;
            let r = find_reviewer(c, &s, reviewer)?;
            Ok::<_, ApiError>((s.session_id, r))
        })?;
        self.extension::<crate::review::tokens::LocalTokens>().get_or_make(&id, &r)
    }

    // ------------------------------------------------------------------ owner: results

    fn owner_rows(&self, session: &str, what: &str) -> ApiResult<OwnerRows> {
        self.store().with_conn(|c| {
            let s = owner_session(c, session, what)?;
            let reviewers = repo::reviewers(c, &s.session_id)?;
            let items = repo::items(c, &s.session_id)?;
            let answers = repo::answers(c, &s.session_id, None)?;
            Ok((s, reviewers, items, answers))
        })
    }

    /// Ratings, agreement with the by-construction verdict and agreement between reviewers.
    pub fn review_stats(&self, session: &str) -> ApiResult<ReviewStats> {
        let (s, reviewers, items, answers) = self.owner_rows(session, "reading the results")?;
        Ok(crate::review::results::compute(
            &s.session_id,
            &s.name,
            s.overlap,
            &reviewers,
            &items,
            &answers,
            &now_rfc3339(),
        ))
    }

    /// Cases to adjudicate, with every reviewer's answers and the decision in force.
    pub fn review_queue(&self, req: &ReviewQueueRequest) -> ApiResult<ReviewQueue> {
        let threshold = req.threshold.unwrap_or(DEFAULT_SPREAD_THRESHOLD);
        let low = req.low_rating.unwrap_or(DEFAULT_LOW_RATING);
        if threshold > 4 || low > 5 {
            return Err(invalid(
                "The spread threshold is 0 to 4 points and the low-rating mark 0 to 5 on the 1–5 scales.",
            ));
        }
        let (s, _reviewers, items, answers) = self.owner_rows(&req.session_id, "adjudication")?;
        let decisions = self.store().with_conn(|c| repo::adjudications(c, &s.session_id, None))?;
        let latest: HashMap<&str, &ReviewAdjudication> =
            decisions.iter().filter(|d| !d.superseded).map(|d| (d.case_id.as_str(), d)).collect();
        let mut by_case: HashMap<&str, Vec<&AnswerRow>> = HashMap::new();
        for a in &answers {
            by_case.entry(a.case_id.as_str()).or_default().push(a);
        }
        let mut out = ReviewQueue {
            session_id: s.session_id.clone(),
            threshold,
            low_rating: low,
            items: Vec::new(),
            pending: 0,
            decided: 0,
        };
        for it in &items {
            let rows = by_case.get(it.case_id.as_str()).cloned().unwrap_or_default();
            let reasons = crate::review::adjudication::reasons(it, &rows, threshold, low);
            let decision = latest.get(it.case_id.as_str()).map(|d| (*d).clone());
            if !reasons.is_empty() {
                if decision.is_some() {
                    out.decided += 1;
                } else {
                    out.pending += 1;
                }
            }
            let listed = req.include_unflagged || (!reasons.is_empty() && (req.include_decided || decision.is_none()));
            if !listed {
                continue;
            }
            let excluded =
                self.store().with_conn(|c| case_repo::exclusion(c, &it.case_id))?.map(|(e, _)| e).unwrap_or(false);
            out.items.push(QueueItem {
                case_id: it.case_id.clone(),
                case_type: it.case_type.as_str().into(),
                clause_id: it.clause_id.clone(),
                expected_verdict: it.expected,
                narrative: it.narrative.clone(),
                reasons,
                raters: rows.len() as u32,
                raters_done: rows.iter().filter(|a| a.record.complete()).count() as u32,
                answers: rows.iter().map(|a| crate::review::adjudication::owner_view(a)).collect(),
                decision,
                excluded_in_dataset: excluded,
                rationale: it.rationale.clone(),
                judge_established: it.rationale_source.as_ref().map(|s| s.judge_hits.clone()),
            });
        }
        Ok(out)
    }

    /// Record the final call on a case. A rejection may flag the case as excluded from runs; a
    /// later accept or relabel in the same session removes an exclusion this session made.
    /// Decisions are never deleted: the latest one is in force.
    pub fn review_adjudicate(&self, req: &ReviewAdjudicateRequest) -> ApiResult<ReviewAdjudication> {
        let adjudicator = req.adjudicator.split_whitespace().collect::<Vec<_>>().join(" ");
        if adjudicator.is_empty() {
            return Err(invalid("Say who is deciding: the adjudicator's name is required."));
        }
        let note = req.note.as_deref().map(str::trim).filter(|n| !n.is_empty());
        if note.is_some_and(|n| n.chars().count() > MAX_NOTE_CHARS) {
            return Err(invalid(format!("The note is longer than {MAX_NOTE_CHARS} characters.")));
        }
        if req.exclude && req.decision != AdjudicationDecision::Reject {
            return Err(invalid(
                "Only a rejection can exclude a case from the dataset; choose reject, or leave out the exclusion.",
            ));
        }
        self.store().with_tx(|tx| {
            let s = owner_session(tx, &req.session_id, "adjudication")?;
            let case_id = req.case_id.trim();
            if repo::item(tx, &s.session_id, case_id)?.is_none() {
                return Err(ApiError::not_found(format!("Case \"{case_id}\" is not part of review session \"{}\".", s.name)));
            }
            let now = now_rfc3339();
            let current = case_repo::exclusion(tx, case_id)?;
            let mut excluded_case = false;
            let mut restored_case = false;
            match (&req.decision, current) {
                (AdjudicationDecision::Reject, Some((false, _))) if req.exclude => {
                    let reason = crate::review::adjudication::exclusion_reason(&s.session_id, &s.name, &adjudicator, note);
                    case_repo::set_excluded(tx, case_id, true, Some(&reason))?;
                    excluded_case = true;
                }
                (AdjudicationDecision::Reject, None) if req.exclude => {
                    return Err(ApiError::not_found(format!(
                        "Case \"{case_id}\" is no longer in this store's dataset, so it cannot be excluded; record the rejection without excluding it."
                    )));
                }
                (AdjudicationDecision::Accept | AdjudicationDecision::Relabel { .. }, Some((true, reason)))
                    if crate::review::adjudication::excluded_by_session(reason.as_deref(), &s.session_id) =>
                {
                    case_repo::set_excluded(tx, case_id, false, None)?;
                    restored_case = true;
                }
                _ => {}
            }
            let id = repo::insert_adjudication(
                tx,
                &repo::NewAdjudication {
                    session_id: &s.session_id,
                    case_id,
                    decision: &req.decision,
                    adjudicator: &adjudicator,
                    note,
                    now: &now,
                    excluded_case,
                    restored_case,
                },
            )?;
            repo::adjudications(tx, &s.session_id, Some(case_id))?
                .into_iter()
                .find(|d| d.id as i64 == id)
                .ok_or_else(|| ApiError::internal("the decision was not stored"))
        })
    }

    /// Every decision of a session (or one case), oldest first.
    pub fn review_adjudications(&self, session: &str, case_id: Option<&str>) -> ApiResult<Vec<ReviewAdjudication>> {
        self.store().with_conn(|c| {
            let s = owner_session(c, session, "adjudication")?;
            repo::adjudications(c, &s.session_id, case_id)
        })
    }

    // ------------------------------------------------------------------ owner: exports

    /// One row per reviewer × case × question answered.
    pub fn review_export_rows(&self, session: &str) -> ApiResult<Vec<ReviewAnswerRow>> {
        let (s, _, items, answers) = self.owner_rows(session, "exporting the answers")?;
        Ok(crate::review::export::long_rows(&s.session_id, &items, &answers))
    }

    pub fn review_export_text(&self, session: &str, format: ReviewExportFormat) -> ApiResult<String> {
        crate::review::export::to_text(&self.review_export_rows(session)?, format)
    }

    /// Write the long format to `out`; the format follows the extension (.csv or .jsonl).
    pub fn review_export(&self, session: &str, out: &Path) -> ApiResult<ReviewExportResult> {
        let ext = out.extension().and_then(|e| e.to_str()).map(str::to_lowercase);
        let format = match ext.as_deref() {
            Some("csv") => ReviewExportFormat::Csv,
            Some("jsonl") => ReviewExportFormat::Jsonl,
            _ => {
                return Err(ApiError::invalid(format!("{}: use a file name ending in .csv or .jsonl.", out.display())))
            }
        };
        let rows = self.review_export_rows(session)?;
        write_atomic(out, crate::review::export::to_text(&rows, format)?.as_bytes())?;
        Ok(ReviewExportResult { path: out.display().to_string(), format, rows: rows.len() as u32 })
    }

    /// The paper-style summary table (Markdown and LaTeX) and the statistics.
    pub fn review_summary(&self, session: &str) -> ApiResult<ReviewSummary> {
        let stats = self.review_stats(session)?;
        Ok(ReviewSummary {
            markdown: crate::review::export::markdown(&stats),
            latex: crate::review::export::latex(&stats),
            stats,
        })
    }

    /// Write `review-summary.md`, `review-summary.tex` and `review-stats.json` into `dir`.
    pub fn review_summary_write(&self, session: &str, dir: &Path) -> ApiResult<ReviewSummaryFiles> {
        let s = self.review_summary(session)?;
        let json = serde_json::to_string_pretty(&s.stats).map_err(|e| ApiError::internal(e.to_string()))? + "\n";
        let mut files = Vec::new();
        for (name, text) in
            [("review-summary.md", &s.markdown), ("review-summary.tex", &s.latex), ("review-stats.json", &json)]
        {
            let p = dir.join(name);
            write_atomic(&p, text.as_bytes())?;
            files.push(p.display().to_string());
        }
        Ok(ReviewSummaryFiles { dir: dir.display().to_string(), files })
    }

    // ------------------------------------------------------------------ packs

    /// A review pack for one reviewer (their items, reveal material and answers so far), as text.
    /// Each pack gets a new token, which also authorises merging its answers back.
    pub fn review_pack_export_text(&self, session: &str, reviewer: &str) -> ApiResult<(ReviewPackExported, String)> {
        self.store().with_tx(|tx| {
            let s = owner_session(tx, session, "exporting review packs")?;
            let r = find_reviewer(tx, &s, reviewer)?;
            let items: HashMap<String, ItemRow> =
                repo::items(tx, &s.session_id)?.into_iter().map(|i| (i.case_id.clone(), i)).collect();
            let rows = repo::answers(tx, &s.session_id, Some(&r))?;
            let now = now_rfc3339();
            let token = crate::review::tokens::new_token()?;
            repo::insert_token(tx, &crate::review::tokens::hash(&token), &s.session_id, &r, "pack", &now)?;
            let mut pack_items = Vec::new();
            for a in &rows {
                let it = items.get(&a.case_id).ok_or_else(|| ApiError::internal("an assignment has no case"))?;
                pack_items.push(PackItem {
                    item_no: a.item_no,
                    case_id: it.case_id.clone(),
                    case_type: it.case_type.as_str().into(),
                    clause_id: it.clause_id.clone(),
                    expected_verdict: it.expected,
                    narrative: it.narrative.clone(),
                    reveal: it.reveal.clone(),
                    rationale_task: it.rationale.clone(),
                });
            }
            let answers = started_answers(&rows);
            let info = ReviewPackExported {
                session_id: s.session_id.clone(),
                reviewer: r.clone(),
                items: pack_items.len() as u32,
                answered: answers.len() as u32,
                path: None,
            };
            let key = signing::owner_key(tx)?;
            let pack_id = signing::new_pack_id()?;
            let seal = PackSeal {
                answers_key: signing::answers_key(&key, &pack_id),
                pack_id,
                assignment: pack_items
                    .iter()
                    .map(|i| PackAssignment {
                        item_no: i.item_no,
                        case_id: i.case_id.clone(),
                        expected_verdict: i.expected_verdict,
                    })
                    .collect(),
                owner_signature: String::new(),
            };
            let mut f = pack_file(&s, PackKind::Pack, r, token, pack_items, answers, now, seal)?;
            signing::sign_owner_part(&key, &mut f)?;
            let text = pack::seal(f)?;
            Ok((info, text))
        })
    }

    pub fn review_pack_export(&self, session: &str, reviewer: &str, out: &Path) -> ApiResult<ReviewPackExported> {
        let (mut info, text) = self.review_pack_export_text(session, reviewer)?;
        write_atomic(out, text.as_bytes())?;
        info.path = Some(out.display().to_string());
        Ok(info)
    }

    /// Open a review pack received from a session's owner: the session appears here as
    /// "visiting", and only its reviewer's token functions can use it. Opening a newer pack of the
    /// same session again merges its answers (newer first).
    pub fn review_pack_open_text(&self, name: &str, text: &str) -> ApiResult<ReviewPackOpened> {
        let f = pack::parse(name, text)?;
        if f.kind != PackKind::Pack {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{name} is an answers file, not a review pack: merge it in the store that created the session (review pack merge)."),
            ));
        }
        let reviewer = clean_reviewer(&f.reviewer)?;
        if !crate::review::tokens::well_formed(&f.token) {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{name}: the pack's token is damaged; ask for a fresh pack."),
            ));
        }
        // The owner's signature can only be checked where the session was created; here the
        // items must agree with what it covers, and the answers with the pack's own key.
        if f.pack_id.is_empty() || f.owner_signature.is_empty() || !f.items_match_assignment() {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{name}: the pack's items do not match what was issued with it (the file was edited); ask for a fresh pack."),
            ));
        }
        if !signing::answers_intact(&f, &f.answers_key)? {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("{name}: the answers in the pack were changed outside the app (their signature does not match); ask for a fresh pack."),
            ));
        }
        let seal = PackSeal {
            pack_id: f.pack_id.clone(),
            assignment: f.assignment.clone(),
            owner_signature: f.owner_signature.clone(),
            answers_key: f.answers_key.clone(),
        };
        // Check the items before touching the store.
        let mut seen_no = HashSet::new();
        let mut seen_id = HashSet::new();
        let mut items = Vec::new();
        for it in &f.items {
            let bad = |m: &str| {
                ApiError::new(
                    ErrorCode::ValidationFailed,
                    format!("{name}: item {} {m}; ask for a fresh pack.", it.item_no),
                )
            };
            let case_type = CaseType::parse(&it.case_type).ok_or_else(|| bad("has an unknown case type"))?;
            if it.item_no == 0
                || !seen_no.insert(it.item_no)
                || !seen_id.insert(it.case_id.clone())
                || it.reveal.case_id != it.case_id
            {
                return Err(bad("is numbered twice or does not match its case"));
            }
            items.push(ItemRow {
                case_id: it.case_id.clone(),
                ord: it.item_no,
                case_type,
                clause_id: it.clause_id.clone(),
                expected: it.expected_verdict,
                narrative: it.narrative.clone(),
                reveal: it.reveal.clone(),
                rationale: it.rationale_task.clone(),
                rationale_source: None,
            });
        }
        if items.is_empty() {
            return Err(ApiError::new(ErrorCode::ValidationFailed, format!("{name}: the pack has no items.")));
        }
        let by_no: HashMap<u32, &str> = f.items.iter().map(|i| (i.item_no, i.case_id.as_str())).collect();
        for a in &f.answers {
            if by_no.get(&a.item_no) != Some(&a.case_id.as_str()) {
                return Err(ApiError::new(
                    ErrorCode::ValidationFailed,
                    format!(
                        "{name}: an answer refers to item {} that is not in the pack; ask for a fresh pack.",
                        a.item_no
                    ),
                ));
            }
            answers::validate_incoming(&a.record(), a.item_no)?;
            if let Some(ticks) = &a.parts.rationale_established {
                let task = f.items.iter().find(|i| i.item_no == a.item_no).and_then(|i| i.rationale_task.as_ref());
                rationale::check_ticks(task, ticks, a.item_no)?;
            }
        }
        let token_hash = crate::review::tokens::hash(&f.token);
        self.store().with_tx(|tx| {
            let now = now_rfc3339();
            let existing = repo::get_session(tx, &f.session_id)?;
            let mut already_open = false;
            match &existing {
                Some(s) if s.role == SessionRole::Owner => {
                    return Err(ApiError::conflict(format!(
                        "Session \"{}\" was created in this store, so its pack is for another copy of the app. To bring a reviewer's \
                         answers back here, merge their answers file (review pack merge).",
                        s.name
                    )))
                }
                Some(s) if s.fingerprint != f.fingerprint => {
                    return Err(ApiError::conflict(format!(
                        "A different version of session \"{}\" is already open here (its cases or assignment differ). Delete it \
                         first (review delete) if this pack replaces it.",
                        s.name
                    )))
                }
                Some(_) => already_open = true,
                None => repo::insert_session(
                    tx,
                    &SessionRow {
                        session_id: f.session_id.clone(),
                        name: f.session_name.clone(),
                        role: SessionRole::Visiting,
                        guidelines: f.guidelines.clone(),
                        overlap: f.overlap,
                        seed: None,
                        selection: None,
                        fingerprint: f.fingerprint.clone(),
                        created_at: f.session_created_at.clone(),
                        opened_at: now.clone(),
                    },
                )?,
            }
            let reviewers = repo::reviewers(tx, &f.session_id)?;
            let known_reviewer = reviewers.contains(&reviewer);
            if !known_reviewer {
                repo::insert_reviewer(tx, &f.session_id, &reviewer, reviewers.len() as u32, Some(&f.token))?;
            } else {
                // The same items, or the pack is not this session's version.
                let mine = repo::assignments_of(tx, &f.session_id, &reviewer)?;
                let want: Vec<(u32, String)> = {
                    let mut v: Vec<(u32, String)> = f.items.iter().map(|i| (i.item_no, i.case_id.clone())).collect();
                    v.sort();
                    v
                };
                if mine != want {
                    return Err(ApiError::conflict(format!("{name}: the items differ from the copy of this pack opened earlier.")));
                }
                repo::set_pack_token(tx, &f.session_id, &reviewer, &f.token)?;
            }
            repo::set_pack_seal(tx, &f.session_id, &reviewer, &seal)?;
            repo::insert_token(tx, &token_hash, &f.session_id, &reviewer, "pack", &now)?;
            if !known_reviewer {
                for it in &items {
                    if repo::item(tx, &f.session_id, &it.case_id)?.is_none() {
                        repo::insert_item(tx, &f.session_id, it)?;
                    }
                    repo::insert_assignment(tx, &f.session_id, &reviewer, it.ord, &it.case_id)?;
                }
            }
            let (_, fields_updated, _) = merge_answers(tx, &f.session_id, &reviewer, &f.answers)?;
            let rows = repo::answers(tx, &f.session_id, Some(&reviewer))?;
            Ok(ReviewPackOpened {
                session_id: f.session_id.clone(),
                session_name: f.session_name.clone(),
                reviewer: reviewer.clone(),
                items: rows.len() as u32,
                answered: rows.iter().filter(|a| a.record.started()).count() as u32,
                already_open,
                fields_updated,
            })
        })
    }

    pub fn review_pack_open(&self, path: &Path) -> ApiResult<ReviewPackOpened> {
        let text = read_text(path, pack::MAX_PACK_BYTES)?;
        self.review_pack_open_text(&path.display().to_string(), &text)
    }

    /// In the store where a pack was opened: the reviewer's answers as an answers file to send
    /// back. `reviewer` may be omitted when the session has one reviewer here.
    pub fn review_pack_answers_text(
        &self,
        session: &str,
        reviewer: Option<&str>,
    ) -> ApiResult<(ReviewPackExported, String)> {
        self.store().with_conn(|c| {
            let s = repo::resolve_session(c, session)?;
            if s.role == SessionRole::Owner {
                return Err(ApiError::new(
                    ErrorCode::Forbidden,
                    format!(
                        "Session \"{}\" was created in this store, so its answers are already here. Answers files are made in the \
                         copy of the app where a review pack was opened.",
                        s.name
                    ),
                ));
            }
            let all = repo::reviewers(c, &s.session_id)?;
            let r = match reviewer {
                Some(r) => find_reviewer(c, &s, r)?,
                None if all.len() == 1 => all[0].clone(),
                None => {
                    return Err(invalid(format!(
                        "Session \"{}\" has several reviewers here ({}); say whose answers to export.",
                        s.name,
                        all.join(", ")
                    )))
                }
            };
            let token = repo::pack_token(c, &s.session_id, &r)?
                .ok_or_else(|| ApiError::internal("the review pack's token was not kept; open the pack again"))?;
            let seal = repo::pack_seal(c, &s.session_id, &r)?.ok_or_else(|| {
                ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "The pack of session \"{}\" was opened with an older version of the app, which did not keep what is needed \
                         to sign the answers. Open the same pack again (your answers are kept), or ask for a new pack.",
                        s.name
                    ),
                )
            })?;
            let rows = repo::answers(c, &s.session_id, Some(&r))?;
            let answers = started_answers(&rows);
            let info = ReviewPackExported {
                session_id: s.session_id.clone(),
                reviewer: r.clone(),
                items: rows.len() as u32,
                answered: answers.len() as u32,
                path: None,
            };
            let f = pack_file(&s, PackKind::Answers, r, token, Vec::new(), answers, now_rfc3339(), seal)?;
            let text = pack::seal(f)?;
            Ok((info, text))
        })
    }

    pub fn review_pack_answers_export(
        &self,
        session: &str,
        reviewer: Option<&str>,
        out: &Path,
    ) -> ApiResult<ReviewPackExported> {
        let (mut info, text) = self.review_pack_answers_text(session, reviewer)?;
        write_atomic(out, text.as_bytes())?;
        info.path = Some(out.display().to_string());
        Ok(info)
    }

    /// In the store that created the session: merge a reviewer's answers file (or pack). Each
    /// answer part is taken when it was given later than the stored one, so merging the same file
    /// twice changes nothing. Refused as a whole for another session, another version of the
    /// session, a token not issued for that reviewer, or answers to items not assigned to them.
    pub fn review_pack_merge_text(&self, name: &str, text: &str) -> ApiResult<ReviewPackMergeReport> {
        let f = pack::parse(name, text)?;
        self.store().with_tx(|tx| {
            let s = repo::get_session(tx, &f.session_id)?.ok_or_else(|| {
                ApiError::not_found(format!(
                    "{name} belongs to review session \"{}\" ({}), which is not in this store. Merge it in the store where that \
                     session was created.",
                    f.session_name, f.session_id
                ))
            })?;
            if s.role == SessionRole::Visiting {
                return Err(visiting_refused(&s, "merging answers"));
            }
            if s.fingerprint != f.fingerprint {
                return Err(ApiError::new(
                    ErrorCode::ValidationFailed,
                    format!(
                        "{name} does not match session \"{}\" as stored here (the session fingerprint differs): it was made for \
                         another version of the session. Nothing was merged.",
                        s.name
                    ),
                ));
            }
            let valid = crate::review::tokens::well_formed(&f.token)
                && repo::token(tx, &crate::review::tokens::hash(&f.token))?
                    .is_some_and(|t| t.session_id == s.session_id && t.reviewer == f.reviewer && t.kind == "pack" && !t.revoked);
            if !valid {
                return Err(ApiError::new(
                    ErrorCode::Forbidden,
                    format!(
                        "{name} does not carry a pack token issued for reviewer \"{}\" of session \"{}\"; nothing was merged. \
                         Answers can only come back from a pack exported for that reviewer.",
                        f.reviewer, s.name
                    ),
                ));
            }
            let key = signing::owner_key(tx)?;
            if !signing::owner_part_intact(&key, &f)? || !f.items_match_assignment() {
                return Err(owner_part_edited(name));
            }
            let assigned: HashMap<u32, String> = repo::assignments_of(tx, &s.session_id, &f.reviewer)?.into_iter().collect();
            let stored_items = repo::items(tx, &s.session_id)?;
            let tasks: HashMap<&str, Option<&RationaleTask>> =
                stored_items.iter().map(|i| (i.case_id.as_str(), i.rationale.as_ref())).collect();
            let expected: HashMap<String, ReviewVerdict> =
                stored_items.iter().map(|i| (i.case_id.clone(), i.expected)).collect();
            let issued_here = f.assignment.len() == assigned.len()
                && f.assignment.iter().all(|a| {
                    assigned.get(&a.item_no) == Some(&a.case_id) && expected.get(&a.case_id) == Some(&a.expected_verdict)
                });
            if !issued_here {
                return Err(owner_part_edited(name));
            }
            if !signing::answers_intact(&f, &signing::answers_key(&key, &f.pack_id))? {
                return Err(ApiError::new(
                    ErrorCode::ValidationFailed,
                    format!(
                        "{name}: the answers were changed outside the app after it saved them (their signature does not match), \
                         so nothing was merged. Ask the reviewer to export the answers file again from the app."
                    ),
                ));
            }
            for a in &f.answers {
                if assigned.get(&a.item_no) != Some(&a.case_id) {
                    return Err(ApiError::new(
                        ErrorCode::ValidationFailed,
                        format!(
                            "{name} has an answer for case \"{}\" as item {}, which is not assigned to {} in this session; nothing \
                             was merged.",
                            a.case_id, a.item_no, f.reviewer
                        ),
                    ));
                }
                answers::validate_incoming(&a.record(), a.item_no)?;
                answers::check_blind_before_reveal(&a.record(), &a.case_id, a.item_no)?;
                if let Some(ticks) = &a.parts.rationale_established {
                    rationale::check_ticks(tasks.get(a.case_id.as_str()).copied().flatten(), ticks, a.item_no)
                        .map_err(|e| ApiError::new(e.code, format!("{name}: {} Nothing was merged.", e.message)))?;
                }
            }
            let (items_changed, fields_updated, kept) = merge_answers(tx, &s.session_id, &f.reviewer, &f.answers)?;
            Ok(ReviewPackMergeReport {
                session_id: s.session_id.clone(),
                session_name: s.name.clone(),
                reviewer: f.reviewer.clone(),
                items_in_file: f.answers.len() as u32,
                items_changed,
                fields_updated,
                kept,
            })
        })
    }

    pub fn review_pack_merge(&self, path: &Path) -> ApiResult<ReviewPackMergeReport> {
        let text = read_text(path, pack::MAX_PACK_BYTES)?;
        self.review_pack_merge_text(&path.display().to_string(), &text)
    }

    // ------------------------------------------------------------------ reviewer (token)

    fn reviewer_ctx(&self, c: &Connection, token: &str) -> ApiResult<ReviewerCtx> {
        let token = token.trim();
        if !crate::review::tokens::well_formed(token) {
            return Err(crate::review::tokens::refused());
        }
        let h = crate::review::tokens::hash(token);
        let (session_id, reviewer) = match repo::token(c, &h)? {
            Some(t) if !t.revoked => {
                let s = repo::get_session(c, &t.session_id)?.ok_or_else(crate::review::tokens::refused)?;
                // A pack token opens items only where the pack was opened; in the owner's store
                // it only authorises merging the pack's answers.
                if t.kind == "pack" && s.role == SessionRole::Owner {
                    return Err(crate::review::tokens::refused());
                }
                (t.session_id, t.reviewer)
            }
            Some(_) => return Err(crate::review::tokens::refused()),
            None => self
                .extension::<crate::review::tokens::LocalTokens>()
                .resolve(&h)
                .ok_or_else(crate::review::tokens::refused)?,
        };
        let session = repo::get_session(c, &session_id)?.ok_or_else(crate::review::tokens::refused)?;
        if !repo::reviewers(c, &session_id)?.contains(&reviewer) {
            return Err(crate::review::tokens::refused());
        }
        crate::review::closing::ensure_open(c, &session_id)?;
        Ok(ReviewerCtx { session, reviewer })
    }

    /// The reviewer's session: guidelines, scales, their own items with their own answers,
    /// progress and where to resume.
    /// The session a reviewer token belongs to (the HTTP server keeps links to their session).
    pub fn review_token_session(&self, token: &str) -> ApiResult<String> {
        self.store().with_conn(|c| Ok(self.reviewer_ctx(c, token)?.session.session_id.clone()))
    }

    pub fn review_me(&self, token: &str) -> ApiResult<ReviewMe> {
        self.store().with_conn(|c| {
            let ctx = self.reviewer_ctx(c, token)?;
            let rows = repo::answers(c, &ctx.session.session_id, Some(&ctx.reviewer))?;
            let (progress, resume) = progress_and_resume(&rows);
            Ok(ReviewMe {
                session_id: ctx.session.session_id.clone(),
                session_name: ctx.session.name.clone(),
                reviewer: ctx.reviewer.clone(),
                visiting: ctx.session.role == SessionRole::Visiting,
                guidelines: ctx.session.guidelines.clone(),
                realism_anchors: realism_anchors(),
                plausibility_anchors: plausibility_anchors(),
                verdict_options: verdict_options(),
                items: rows
                    .iter()
                    .map(|a| ReviewItemStatus {
                        item_no: a.item_no,
                        realism: a.record.realism,
                        plausibility: a.record.plausibility,
                        blind_verdict: a.record.blind_verdict,
                        revealed: a.record.revealed_at.is_some(),
                        agree: a.record.agree,
                        has_comment: a.record.comment.is_some(),
                        complete: a.record.complete(),
                        has_rationale_task: a.record.rationale_required,
                        rationale_done: a.record.rationale_established.is_some(),
                    })
                    .collect(),
                progress,
                resume_item_no: resume,
                time_spent_secs: rows.iter().map(|a| a.record.time_spent_secs).sum(),
            })
        })
    }

    /// One of the reviewer's items: its narrative and their answer; the reveal material only once
    /// they have opened it.
    pub fn review_item(&self, token: &str, item_no: u32) -> ApiResult<ReviewItemView> {
        self.store().with_conn(|c| {
            let ctx = self.reviewer_ctx(c, token)?;
            let rows = repo::answers(c, &ctx.session.session_id, Some(&ctx.reviewer))?;
            let pos =
                rows.iter().position(|a| a.item_no == item_no).ok_or_else(|| item_not_found(item_no, rows.len()))?;
            let a = &rows[pos];
            let it = repo::item(c, &ctx.session.session_id, &a.case_id)?
                .ok_or_else(|| ApiError::internal("an assignment has no case"))?;
            let (progress, _) = progress_and_resume(&rows);
            Ok(ReviewItemView {
                session_id: ctx.session.session_id.clone(),
                session_name: ctx.session.name.clone(),
                reviewer: ctx.reviewer.clone(),
                item_no,
                total_items: rows.len() as u32,
                prev_item_no: pos.checked_sub(1).map(|p| rows[p].item_no),
                next_item_no: rows.get(pos + 1).map(|r| r.item_no),
                narrative: it.narrative.clone(),
                answer: a.record.to_state(item_no),
                reveal: reveal_of(item_no, &a.record, &it),
                progress,
                has_rationale_task: it.rationale.is_some(),
                rationale_task: if a.record.revealed_at.is_some() { it.rationale.clone() } else { None },
            })
        })
    }

    /// Save part of the reviewer's answer to an item (autosave). Committed before returning.
    pub fn review_answer(&self, token: &str, item_no: u32, patch: &ReviewAnswerPatch) -> ApiResult<ReviewAnswerSaved> {
        self.store().with_tx(|tx| {
            let ctx = self.reviewer_ctx(tx, token)?;
            let sid = ctx.session.session_id.as_str();
            let case_id = own_case(tx, &ctx, item_no)?;
            let cur = repo::answer(tx, sid, &ctx.reviewer, &case_id)?;
            let checked;
            let patch = match &patch.rationale_established {
                Some(ticks) => {
                    let it = repo::item(tx, sid, &case_id)?
                        .ok_or_else(|| ApiError::internal("an assignment has no case"))?;
                    checked = ReviewAnswerPatch {
                        rationale_established: Some(rationale::check_ticks(it.rationale.as_ref(), ticks, item_no)?),
                        ..patch.clone()
                    };
                    &checked
                }
                None => patch,
            };
            let applied = answers::apply(&cur, patch, item_no, &now_rfc3339())?;
            if !applied.changed.is_empty() {
                repo::write_answer(tx, sid, &ctx.reviewer, &case_id, &applied.record)?;
            }
            let rows = repo::answers(tx, sid, Some(&ctx.reviewer))?;
            let (progress, resume) = progress_and_resume(&rows);
            Ok(ReviewAnswerSaved {
                answer: applied.record.to_state(item_no),
                changed: applied.changed,
                time_capped: applied.time_capped,
                progress,
                resume_item_no: resume,
            })
        })
    }

    /// Show the by-construction verdict of an item. Refused (Forbidden) until the reviewer's own
    /// blind verdict for it is saved; from then on that verdict is locked.
    pub fn review_reveal(&self, token: &str, item_no: u32) -> ApiResult<ReviewReveal> {
        self.store().with_tx(|tx| {
            let ctx = self.reviewer_ctx(tx, token)?;
            let sid = ctx.session.session_id.as_str();
            let case_id = own_case(tx, &ctx, item_no)?;
            let cur = repo::answer(tx, sid, &ctx.reviewer, &case_id)?;
            let (rec, first) = answers::reveal(&cur, item_no, &now_rfc3339())?;
            if first {
                repo::write_answer(tx, sid, &ctx.reviewer, &case_id, &rec)?;
            }
            let it = repo::item(tx, sid, &case_id)?.ok_or_else(|| ApiError::internal("an assignment has no case"))?;
            reveal_of(item_no, &rec, &it).ok_or_else(|| ApiError::internal("the reveal was not recorded"))
        })
    }
}
