//! Expert review of benchmark cases: sessions over a stratified sample, reviewers with overlapping
//! assignments, a blind-first questionnaire (own verdict before the by-construction one is shown),
//! agreement statistics, an adjudication queue, exports, and review packs for reviewing without a
//! server.
//!
//! Two ways in, over the same functions (see `workflow.rs`, one `Engine` method per user action):
//! * the owner of the store creates and manages sessions, reads results and adjudicates;
//! * a reviewer holds a personal token and can only read and answer their own assignment. The
//!   desktop app's local reviewer gets a token too (`Engine::review_local_token`), so the
//!   blind-first rule lives in one place (`answers.rs`).
//!
//! Files: `sampling` (which cases), `assignment` (who rates what), `repo` (SQL), `answers` (the
//! per-answer state machine), `reveal` (what is shown after the blind verdict), `tokens`,
//! `stats` (agreement statistics, pure), `results` (a session's statistics), `adjudication`,
//! `export` (long format, summary tables), `pack` (review packs), `closing` (closing and reopening a
//! session), `rationale` (the rationale task that checks the M4 judge against reviewers),
//! `workflow` (the user actions that tie these together).

pub mod adjudication;
pub mod answers;
pub mod assignment;
pub mod closing;
pub mod export;
pub mod pack;
pub mod rationale;
pub mod repo;
pub mod results;
pub mod reveal;
pub mod sampling;
pub mod sharing;
pub mod signing;
pub mod stats;
pub mod tokens;
pub mod workflow;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::case::{CaseType, Verdict};
pub use rationale::{JudgeAgreement, RationaleCondition, RationaleSource, RationaleStats, RationaleTask};

/// Default number of reviewers who rate each case.
pub const DEFAULT_OVERLAP: u32 = 2;
/// Default stratified sample: complete, missing, uncertain.
pub const DEFAULT_SAMPLE: [u32; 3] = [30, 30, 30];
/// Default rating spread above which co-raters' ratings send a case to the adjudication queue.
pub const DEFAULT_SPREAD_THRESHOLD: u8 = 2;
/// Default rating at or below which a case goes to the adjudication queue (0 turns it off).
pub const DEFAULT_LOW_RATING: u8 = 2;

/// The verdict vocabulary of the questionnaire: the three benchmark verdicts plus "Missing
/// information" (the answer a missing-information case is built to have).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
pub enum ReviewVerdict {
    Reportable,
    #[serde(rename = "Non-reportable")]
    NonReportable,
    #[serde(rename = "Missing information")]
    MissingInformation,
    Uncertain,
}

impl ReviewVerdict {
    pub const ALL: [ReviewVerdict; 4] = [
        ReviewVerdict::Reportable,
        ReviewVerdict::NonReportable,
        ReviewVerdict::MissingInformation,
        ReviewVerdict::Uncertain,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReviewVerdict::Reportable => "Reportable",
            ReviewVerdict::NonReportable => "Non-reportable",
            ReviewVerdict::MissingInformation => "Missing information",
            ReviewVerdict::Uncertain => "Uncertain",
        }
    }

    /// Index 0..4 in `ALL` (used by the statistics).
    pub fn index(self) -> usize {
        ReviewVerdict::ALL.iter().position(|v| *v == self).unwrap_or(0)
    }

    /// Exact contract strings only.
    pub fn parse(s: &str) -> Option<ReviewVerdict> {
        ReviewVerdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// What people type: any case, with or without the dash, short forms ("missing", "nonrep").
    pub fn parse_loose(s: &str) -> Option<ReviewVerdict> {
        let k: String = s.trim().to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect();
        match k.as_str() {
            "reportable" | "rep" | "r" => Some(ReviewVerdict::Reportable),
            "nonreportable" | "notreportable" | "nonrep" | "non" | "n" => Some(ReviewVerdict::NonReportable),
            "missinginformation" | "missinginfo" | "missing" | "m" => Some(ReviewVerdict::MissingInformation),
            "uncertain" | "unc" | "u" => Some(ReviewVerdict::Uncertain),
            _ => None,
        }
    }

    /// The answer a case is built to have: complete → its gold verdict; missing → Missing
    /// information; uncertain → Uncertain.
    pub fn by_construction(case_type: CaseType, gold: Verdict) -> ReviewVerdict {
        match case_type {
            CaseType::Missing => ReviewVerdict::MissingInformation,
            CaseType::Uncertain => ReviewVerdict::Uncertain,
            CaseType::Complete => match gold {
                Verdict::Reportable => ReviewVerdict::Reportable,
                Verdict::NonReportable => ReviewVerdict::NonReportable,
                Verdict::Uncertain => ReviewVerdict::Uncertain,
            },
        }
    }
}

/// One point of a 1–5 rating scale, with the words shown beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ScaleAnchor {
    pub value: u8,
    pub label: String,
    pub meaning: String,
}

/// A verdict choice with the sentence that explains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct VerdictOption {
    pub verdict: ReviewVerdict,
    pub key: String,
    pub meaning: String,
}

fn anchors(rows: &[(&str, &str)]) -> Vec<ScaleAnchor> {
    rows.iter()
        .enumerate()
        .map(|(i, (label, meaning))| ScaleAnchor {
            value: i as u8 + 1,
            label: label.to_string(),
            meaning: meaning.to_string(),
        })
        .collect()
}

/// Clinical realism: would a care team write this report about a real event?
pub fn realism_anchors() -> Vec<ScaleAnchor> {
    anchors(&[
        ("Not realistic", "No real event could have produced this report: impossible clinical details, or wording no clinician would use."),
        ("Hardly realistic", "Several clinical details are wrong or out of place; an experienced reader would doubt the report."),
        ("Partly realistic", "Believable on the whole, but some details or phrasing feel made up or generic."),
        ("Realistic", "Reads like a genuine incident report, with at most small oddities."),
        ("Completely realistic", "Could be filed by a care team tomorrow; nothing gives it away as synthetic."),
    ])
}

/// Internal plausibility: do the facts of the report fit together?
pub fn plausibility_anchors() -> Vec<ScaleAnchor> {
    anchors(&[
        (
            "Contradictory",
            "Facts contradict each other: the timeline, the people involved, the actions or the outcome do not fit.",
        ),
        ("Mostly inconsistent", "Several facts are hard to reconcile with one another."),
        ("Partly consistent", "The story holds together, apart from one clear gap or tension."),
        ("Consistent", "The facts fit together; any gaps are small."),
        ("Fully consistent", "Every fact fits with every other; nothing in the report pulls against the rest."),
    ])
}

/// The four verdict choices, with a keyboard key each (1–4).
pub fn verdict_options() -> Vec<VerdictOption> {
    let rows = [
        (ReviewVerdict::Reportable, "The event as described must be reported under one of the policy's clauses."),
        (ReviewVerdict::NonReportable, "The event as described meets none of the policy's reporting criteria."),
        (
            ReviewVerdict::MissingInformation,
            "The report leaves out facts that decide whether it is reportable; they would have to be found before deciding.",
        ),
        (
            ReviewVerdict::Uncertain,
            "The facts are known, but the policy itself does not settle the question; a person has to decide.",
        ),
    ];
    rows.iter()
        .enumerate()
        .map(|(i, (v, m))| VerdictOption { verdict: *v, key: (i + 1).to_string(), meaning: m.to_string() })
        .collect()
}

/// Guidelines shown before the first case when the session's creator wrote none.
pub const DEFAULT_GUIDELINES: &str = "\
# How to review

Thank you for reviewing. Each screen shows one incident report written for a patient-safety
triage benchmark. Please read it as you would read a report arriving at your desk, then answer:

1. **Realism (1–5).** Would a care team really write this about a real event?
2. **Plausibility (1–5).** Do the facts fit together (timeline, people, actions, outcome)?
3. **Your verdict.** Reportable, Non-reportable, Missing information (facts that decide it are
   not in the report) or Uncertain (the facts are known but the policy does not settle it).
   Decide on your own before you look at anything else.
4. **Compare.** Once your verdict is saved you can open the verdict the case was built to have,
   with the facts that decide it. Say whether you agree, and add a comment if anything is off.
   Your own verdict can no longer be changed at that point; ratings and comments can.

Every answer is saved as soon as you give it, so you can stop at any time and pick up where you
left off. You will not see other reviewers' answers.

If you review from a pack file: the file itself holds the verdict each case was built to have.
The app shows it only after your own verdict is saved; that order is kept by the app, not by
encryption, so please do not open the file in an editor. The file is signed, and answers from an
edited file are refused when they are merged.

Keys in the app: 1–5 for ratings, 1–4 for the verdict, J/→ next, K/← previous, ? guidelines.
";

/// Who created a session in this store: `owner` (made here) or `visiting` (opened from a pack).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionRole {
    Owner,
    Visiting,
}

impl SessionRole {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionRole::Owner => "owner",
            SessionRole::Visiting => "visiting",
        }
    }
    pub fn parse(s: &str) -> Option<SessionRole> {
        match s {
            "owner" => Some(SessionRole::Owner),
            "visiting" => Some(SessionRole::Visiting),
            _ => None,
        }
    }
}

/// How the cases of a session are chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReviewSelection {
    /// A seeded random sample with these many cases of each type; with `by_clause`, each type's
    /// share is spread over clauses in proportion to how many cases each clause has.
    Stratified {
        complete: u32,
        missing: u32,
        uncertain: u32,
        #[serde(default)]
        by_clause: bool,
    },
    /// Exactly these cases.
    Cases { case_ids: Vec<String> },
}

impl Default for ReviewSelection {
    fn default() -> Self {
        ReviewSelection::Stratified {
            complete: DEFAULT_SAMPLE[0],
            missing: DEFAULT_SAMPLE[1],
            uncertain: DEFAULT_SAMPLE[2],
            by_clause: false,
        }
    }
}

/// Create a session. `overlap` defaults to 2 (or 1 with a single reviewer); `seed` defaults to a
/// random one, which is recorded so the sample and assignment can be reproduced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields = nullable)]
pub struct ReviewCreateRequest {
    pub name: String,
    #[serde(default)]
    pub selection: ReviewSelection,
    pub reviewers: Vec<String>,
    #[serde(default)]
    pub overlap: Option<u32>,
    /// At most 2^53 − 1, so that it survives JavaScript numbers.
    #[serde(default)]
    #[ts(type = "number | null", optional)]
    pub seed: Option<u64>,
    /// Markdown shown before the first case and on demand.
    #[serde(default)]
    pub guidelines: Option<String>,
    /// Add the rationale task: evaluation runs whose judged rationales reviewers check against the
    /// case's boundary conditions (see `rationale`). Absent or empty: no rationale task.
    #[serde(default)]
    pub rationale_from: Option<Vec<String>>,
}

/// How many cases the store offers for a sample (not excluded), per type and clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewAvailable {
    pub complete: u32,
    pub missing: u32,
    pub uncertain: u32,
    pub by_clause: Vec<ClauseCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClauseCount {
    pub clause_id: String,
    pub complete: u32,
    pub missing: u32,
    pub uncertain: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TypeCount {
    pub case_type: String,
    pub count: u32,
}

/// A line in the list of sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewSessionSummary {
    pub session_id: String,
    pub name: String,
    pub role: SessionRole,
    pub created_at: String,
    pub cases: u32,
    pub reviewers: Vec<String>,
    pub overlap: u32,
    /// Reviewer × case assignments, and how many of them are fully answered.
    pub assignments: u32,
    pub completed: u32,
    /// When the owner closed the session (its links are refused since); null while it is open.
    #[serde(default)]
    pub closed_at: Option<String>,
}

/// One reviewer's progress (owner view).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewerProgress {
    pub reviewer: String,
    pub items: u32,
    pub completed: u32,
    pub blind_saved: u32,
    pub revealed: u32,
    pub time_spent_secs: f64,
    pub last_answer_at: Option<String>,
    /// A personal link (token) is active for this reviewer.
    pub link_active: bool,
    /// Review packs exported for this reviewer.
    pub packs_issued: u32,
}

/// Everything about a session except the answers (owner view).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewSessionDetail {
    pub summary: ReviewSessionSummary,
    pub guidelines: String,
    /// Null for a session opened from a pack.
    pub selection: Option<ReviewSelection>,
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
    pub fingerprint: String,
    pub cases_by_type: Vec<TypeCount>,
    pub progress: Vec<ReviewerProgress>,
    /// Items with a rationale task, and the evaluation runs their rationales came from.
    #[serde(default)]
    pub rationale_items: u32,
    #[serde(default)]
    pub rationale_runs: Vec<String>,
}

/// Create personal links: a token for each named reviewer (all when `reviewers` is empty).
/// Without `rotate`, reviewers who already have an active token keep it (and it cannot be shown
/// again: tokens are stored hashed); with `rotate`, their old token stops working.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewLinksRequest {
    pub session_id: String,
    #[serde(default)]
    pub reviewers: Vec<String>,
    #[serde(default)]
    pub rotate: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    Created,
    Rotated,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewerLink {
    pub reviewer: String,
    /// The plain token, present only when it was created or rotated now. Shown once.
    pub token: Option<String>,
    /// `/review/TOKEN`, to append to the server's address.
    pub path: Option<String>,
    pub status: LinkStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewLinks {
    pub session_id: String,
    pub session_name: String,
    pub links: Vec<ReviewerLink>,
}

/// Completed items out of all of a reviewer's items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewProgress {
    pub completed: u32,
    pub total: u32,
}

/// One of the reviewer's own items in their list (no narrative, nothing about the case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewItemStatus {
    pub item_no: u32,
    pub realism: Option<u8>,
    pub plausibility: Option<u8>,
    pub blind_verdict: Option<ReviewVerdict>,
    pub revealed: bool,
    pub agree: Option<bool>,
    pub has_comment: bool,
    pub complete: bool,
    /// The item has a rationale task, and whether it is answered.
    #[serde(default)]
    pub has_rationale_task: bool,
    #[serde(default)]
    pub rationale_done: bool,
}

/// What a reviewer's token opens: their session's guidelines and scales, and their own items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewMe {
    pub session_id: String,
    pub session_name: String,
    pub reviewer: String,
    /// True in a store where the session was opened from a review pack.
    pub visiting: bool,
    pub guidelines: String,
    pub realism_anchors: Vec<ScaleAnchor>,
    pub plausibility_anchors: Vec<ScaleAnchor>,
    pub verdict_options: Vec<VerdictOption>,
    pub items: Vec<ReviewItemStatus>,
    pub progress: ReviewProgress,
    /// The first item that is not complete (where to resume); null when all are done.
    pub resume_item_no: Option<u32>,
    pub time_spent_secs: f64,
}

/// A reviewer's own answer to one item, with when each part was last given. In JSON the
/// answer's parts sit beside `item_no` and `complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewAnswerState {
    pub item_no: u32,
    #[serde(flatten)]
    pub answer: answers::AnswerRecord,
    /// Realism, plausibility, blind verdict, reveal and the agree mark are all given.
    pub complete: bool,
}

impl std::ops::Deref for ReviewAnswerState {
    type Target = answers::AnswerRecord;
    fn deref(&self) -> &answers::AnswerRecord {
        &self.answer
    }
}

/// Part of an answer, saved as it is given. Absent fields are left as they are. An empty comment
/// clears the comment. `add_time_secs` adds active time spent on the item since the client's last
/// report (reports above 15 minutes count as 15 minutes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
#[ts(optional_fields = nullable)]
pub struct ReviewAnswerPatch {
    pub realism: Option<u8>,
    pub plausibility: Option<u8>,
    pub blind_verdict: Option<ReviewVerdict>,
    pub agree: Option<bool>,
    pub comment: Option<String>,
    pub add_time_secs: Option<f64>,
    /// The rationale task: the conditions the rationale establishes (all of them, each time; an
    /// empty list means none). Only after the reveal, and only on an item with a rationale task.
    pub rationale_established: Option<Vec<String>>,
}

/// Result of saving part of an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewAnswerSaved {
    pub answer: ReviewAnswerState,
    /// Names of the parts whose value changed (re-sending the same value changes nothing).
    pub changed: Vec<String>,
    /// True when the reported time was more than the cap and was counted as the cap.
    pub time_capped: bool,
    pub progress: ReviewProgress,
    pub resume_item_no: Option<u32>,
}

/// A condition that decides the case, with its value in this case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RevealCondition {
    pub name: String,
    pub meaning: String,
    pub value: bool,
}

/// A fact left out of a missing-information case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RevealElement {
    pub name: String,
    pub meaning: String,
}

/// What the reviewer may see once their blind verdict is saved: the verdict the case was built to
/// have and the reasons. Snapshotted when the session is created (or a pack is opened).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RevealMaterial {
    pub case_id: String,
    #[ts(type = "\"complete\" | \"missing\" | \"uncertain\"")]
    pub case_type: CaseType,
    pub expected_verdict: ReviewVerdict,
    /// One sentence saying what the case was built to be.
    pub explanation: String,
    /// The targeted clause label when the case is Reportable.
    pub clause_label: Option<String>,
    pub clause_id: String,
    pub card_id: String,
    /// The card's one-line definition (when the card is in the library).
    pub card_definition: Option<String>,
    pub legal_basis: Vec<String>,
    pub legal_basis_meaning: Option<String>,
    /// Complete and uncertain cases: the conditions that decide the case, with their values.
    pub boundary_conditions: Vec<RevealCondition>,
    /// Missing cases: the facts that were left out of the report.
    pub withheld_elements: Vec<RevealElement>,
    /// Missing cases: the card's summary of the missing-information variant, when known.
    pub missing_summary: Option<String>,
    /// Missing cases: why the remaining report cannot be classified, when the card says so.
    pub why_not_classifiable: Option<String>,
}

/// The by-construction answer to an item, next to the reviewer's own blind verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewReveal {
    pub item_no: u32,
    pub your_blind_verdict: ReviewVerdict,
    pub matches_your_verdict: bool,
    pub revealed_at: String,
    pub material: RevealMaterial,
}

/// One item as its reviewer sees it: only an item number and the narrative until the reveal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewItemView {
    pub session_id: String,
    pub session_name: String,
    pub reviewer: String,
    pub item_no: u32,
    pub total_items: u32,
    pub prev_item_no: Option<u32>,
    pub next_item_no: Option<u32>,
    pub narrative: String,
    pub answer: ReviewAnswerState,
    /// Present once the reviewer has opened the by-construction verdict for this item.
    pub reveal: Option<ReviewReveal>,
    pub progress: ReviewProgress,
    /// The item has a rationale task; the task itself is present once the verdict is revealed.
    #[serde(default)]
    pub has_rationale_task: bool,
    #[serde(default)]
    pub rationale_task: Option<RationaleTask>,
}

/// A statistic with the number of items it rests on; `value` is null with a `note` saying why
/// when it is undefined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StatValue {
    pub value: Option<f64>,
    pub n: u32,
    pub note: Option<String>,
}

/// Mean and sample standard deviation (n − 1) of ratings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct MeanSd {
    pub n: u32,
    pub mean: Option<f64>,
    pub sd: Option<f64>,
}

/// "x/n": how many of n agreed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Fraction {
    pub agreed: u32,
    pub n: u32,
    pub text: String,
}

/// Ratings and agreement with the by-construction verdict for one case type (or "all").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TypeStats {
    pub case_type: String,
    pub cases: u32,
    /// Pooled over all ratings (reviewer × case).
    pub realism: MeanSd,
    pub plausibility: MeanSd,
    /// Blind verdicts equal to the by-construction verdict, over all blind verdicts given.
    pub blind_agreement: Fraction,
    /// Agree marks, over all agree/disagree marks given.
    pub agree_mark: Fraction,
    /// Cases whose every assigned reviewer gave a blind verdict equal to the by-construction
    /// verdict, over the cases where all assigned reviewers gave one (the paper-style "28/30").
    pub cases_blind_agreement: Fraction,
    /// Cases that every assigned reviewer marked "agree", over cases fully marked.
    pub cases_agree_mark: Fraction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewerTypeAgreement {
    pub case_type: String,
    pub blind_agreement: Fraction,
    pub agree_mark: Fraction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewerAgreement {
    pub reviewer: String,
    /// complete, missing, uncertain, all.
    pub by_type: Vec<ReviewerTypeAgreement>,
}

/// A statistic for one pair of reviewers over the items both answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PairStat {
    pub a: String,
    pub b: String,
    pub stat: StatValue,
}

/// Agreement between reviewers on a 1–5 scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ScaleAgreement {
    /// Cohen's kappa with quadratic weights over the fixed 1–5 scale, per pair of reviewers.
    pub weighted_kappa_pairs: Vec<PairStat>,
    /// The pair's value when exactly one pair of reviewers co-rated items; otherwise null.
    pub weighted_kappa: StatValue,
    /// Krippendorff's alpha with the ordinal metric, all reviewers, missing ratings allowed.
    pub krippendorff_alpha_ordinal: StatValue,
}

/// Agreement between reviewers on the blind verdict (four categories).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct VerdictAgreement {
    pub cohen_kappa_pairs: Vec<PairStat>,
    /// The pair's value when exactly one pair of reviewers co-rated items; otherwise null.
    pub cohen_kappa: StatValue,
    /// Fleiss' kappa over the cases with exactly `overlap` blind verdicts.
    pub fleiss_kappa: StatValue,
    /// Krippendorff's alpha with the nominal metric (any number of reviewers, missing allowed).
    pub krippendorff_alpha_nominal: StatValue,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct InterRater {
    pub realism: ScaleAgreement,
    pub plausibility: ScaleAgreement,
    pub verdict: VerdictAgreement,
}

/// Agreement between reviewers over the cases of one type only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TypeInterRater {
    /// complete, missing or uncertain.
    pub case_type: String,
    /// Cases of this type in the session.
    pub cases: u32,
    pub inter_rater: InterRater,
}

/// A session's results (owner only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewStats {
    pub session_id: String,
    pub session_name: String,
    pub reviewers: Vec<String>,
    pub overlap: u32,
    pub cases: u32,
    pub assignments: u32,
    pub completed: u32,
    /// complete, missing, uncertain, then "all".
    pub by_type: Vec<TypeStats>,
    pub per_reviewer: Vec<ReviewerAgreement>,
    /// Over all cases of the session.
    pub inter_rater: InterRater,
    /// The same per case type: complete, missing, uncertain (empty in results stored before it).
    #[serde(default)]
    pub inter_rater_by_type: Vec<TypeInterRater>,
    /// Agreement between the M4 judge and reviewers on the rationale task; null when the session
    /// has none.
    #[serde(default)]
    pub rationale: Option<RationaleStats>,
    pub computed_at: String,
}

/// Which cases go to the adjudication queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields = nullable)]
pub struct ReviewQueueRequest {
    pub session_id: String,
    /// Ratings of the same case whose spread (highest − lowest) is greater than this are queued.
    /// Default 2.
    #[serde(default)]
    pub threshold: Option<u8>,
    /// A rating at or below this queues the case. Default 2; 0 turns it off.
    #[serde(default)]
    pub low_rating: Option<u8>,
    /// Also list cases that already have a decision.
    #[serde(default)]
    pub include_decided: bool,
    /// List every case of the session, flagged or not (for browsing all answers).
    #[serde(default)]
    pub include_unflagged: bool,
}

/// Why a case is in the queue. `code` is stable: verdicts_differ, blind_differs_from_construction,
/// disagree_mark, realism_spread, plausibility_spread, low_realism, low_plausibility.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct QueueReason {
    pub code: String,
    pub text: String,
}

/// One reviewer's answer to a case (owner view).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewerAnswer {
    pub reviewer: String,
    pub item_no: u32,
    pub realism: Option<u8>,
    pub plausibility: Option<u8>,
    pub blind_verdict: Option<ReviewVerdict>,
    pub agree: Option<bool>,
    pub comment: Option<String>,
    pub time_spent_secs: f64,
    pub complete: bool,
    /// The conditions ticked in the rationale task (null when not answered or no task).
    #[serde(default)]
    pub rationale_established: Option<Vec<String>>,
}

/// The final call on a case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AdjudicationDecision {
    /// The case stays as it is.
    Accept,
    /// The case's correct answer is another verdict (recorded with the review; the case's
    /// by-construction label is not rewritten).
    Relabel { verdict: ReviewVerdict },
    /// The case is not fit for the benchmark.
    Reject,
}

impl AdjudicationDecision {
    pub fn kind(&self) -> &'static str {
        match self {
            AdjudicationDecision::Accept => "accept",
            AdjudicationDecision::Relabel { .. } => "relabel",
            AdjudicationDecision::Reject => "reject",
        }
    }
    /// `accept`, `reject`, or `relabel:VERDICT` (verdict words as `parse_loose` reads them).
    pub fn parse(s: &str) -> Option<AdjudicationDecision> {
        let t = s.trim();
        match t.to_lowercase().as_str() {
            "accept" => return Some(AdjudicationDecision::Accept),
            "reject" => return Some(AdjudicationDecision::Reject),
            _ => {}
        }
        let (k, v) = t.split_once(':')?;
        if k.trim().eq_ignore_ascii_case("relabel") {
            ReviewVerdict::parse_loose(v).map(|verdict| AdjudicationDecision::Relabel { verdict })
        } else {
            None
        }
    }
    pub fn describe(&self) -> String {
        match self {
            AdjudicationDecision::Accept => "accepted as it is".into(),
            AdjudicationDecision::Relabel { verdict } => format!("relabelled as {}", verdict.as_str()),
            AdjudicationDecision::Reject => "rejected".into(),
        }
    }
}

/// Record the final call on a case of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields = nullable)]
pub struct ReviewAdjudicateRequest {
    pub session_id: String,
    pub case_id: String,
    pub decision: AdjudicationDecision,
    pub adjudicator: String,
    #[serde(default)]
    pub note: Option<String>,
    /// With `reject`: flag the case as excluded in the dataset (runs leave it out). A later
    /// accept or relabel of the same case brings it back.
    #[serde(default)]
    pub exclude: bool,
}

/// A recorded decision. Later decisions supersede earlier ones; none is ever deleted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewAdjudication {
    pub id: u32,
    pub session_id: String,
    pub case_id: String,
    pub decision: AdjudicationDecision,
    pub adjudicator: String,
    pub note: Option<String>,
    pub decided_at: String,
    /// This decision flagged the case as excluded in the dataset.
    pub excluded_case: bool,
    /// This decision removed an exclusion made by an earlier rejection in this session.
    pub restored_case: bool,
    /// A later decision on the same case exists.
    pub superseded: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct QueueItem {
    pub case_id: String,
    pub case_type: String,
    pub clause_id: String,
    pub expected_verdict: ReviewVerdict,
    pub narrative: String,
    pub reasons: Vec<QueueReason>,
    pub answers: Vec<ReviewerAnswer>,
    /// Assigned reviewers, and how many of them completed the case.
    pub raters: u32,
    pub raters_done: u32,
    /// The decision in force, if any.
    pub decision: Option<ReviewAdjudication>,
    pub excluded_in_dataset: bool,
    /// The rationale task of the case, if any, and the M4 judge's hits on it (owner view), to
    /// compare with each reviewer's `rationale_established`.
    #[serde(default)]
    pub rationale: Option<RationaleTask>,
    #[serde(default)]
    pub judge_established: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewQueue {
    pub session_id: String,
    pub threshold: u8,
    pub low_rating: u8,
    pub items: Vec<QueueItem>,
    /// Flagged cases without a decision, and flagged cases with one.
    pub pending: u32,
    pub decided: u32,
}

/// Long-format export: one row per reviewer × case × question answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReviewExportFormat {
    Csv,
    Jsonl,
}

/// A row of the long format. `question` is realism, plausibility, blind_verdict, agree, comment,
/// time_spent_secs or rationale_condition (one row per condition of an answered rationale task:
/// `condition` names it, `answer` is established or not_established, `judge_established` is the
/// M4 judge's call on the same condition).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewAnswerRow {
    pub session_id: String,
    pub reviewer: String,
    pub case_id: String,
    pub case_type: String,
    pub item_no: u32,
    pub question: String,
    pub answer: String,
    pub answered_at: String,
    pub expected_verdict: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_established: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewExportResult {
    pub path: String,
    pub format: ReviewExportFormat,
    pub rows: u32,
}

/// The paper-style summary table in Markdown and LaTeX (booktabs), with the statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewSummary {
    pub markdown: String,
    pub latex: String,
    pub stats: ReviewStats,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewSummaryFiles {
    pub dir: String,
    pub files: Vec<String>,
}

/// A pack or answers file written for a reviewer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewPackExported {
    pub session_id: String,
    pub reviewer: String,
    pub items: u32,
    pub answered: u32,
    /// Where it was written (null when returned as text).
    pub path: Option<String>,
}

/// What opening a review pack did in this store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewPackOpened {
    pub session_id: String,
    pub session_name: String,
    pub reviewer: String,
    pub items: u32,
    /// Items that already had answers in the pack or in this store.
    pub answered: u32,
    /// The session was already open here (answers were merged, newer first).
    pub already_open: bool,
    pub fields_updated: u32,
}

/// What merging a pack's answers changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewPackMergeReport {
    pub session_id: String,
    pub session_name: String,
    pub reviewer: String,
    pub items_in_file: u32,
    pub items_changed: u32,
    pub fields_updated: u32,
    /// Parts kept as they were, with the reason (for example a blind verdict locked by a reveal).
    pub kept: Vec<String>,
}

/// Counts for a set of items: helper for progress.
pub(crate) fn progress_of(complete: impl Iterator<Item = bool>) -> ReviewProgress {
    let mut p = ReviewProgress { completed: 0, total: 0 };
    for c in complete {
        p.total += 1;
        if c {
            p.completed += 1;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_words_round_trip_and_loose_parsing() {
        for v in ReviewVerdict::ALL {
            assert_eq!(ReviewVerdict::parse(v.as_str()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(v.as_str()));
            assert_eq!(ReviewVerdict::ALL[v.index()], v);
        }
        assert_eq!(ReviewVerdict::parse_loose("non-reportable"), Some(ReviewVerdict::NonReportable));
        assert_eq!(ReviewVerdict::parse_loose("Missing"), Some(ReviewVerdict::MissingInformation));
        assert_eq!(ReviewVerdict::parse_loose("maybe"), None);
        assert_eq!(
            ReviewVerdict::by_construction(CaseType::Complete, Verdict::NonReportable),
            ReviewVerdict::NonReportable
        );
        assert_eq!(
            ReviewVerdict::by_construction(CaseType::Missing, Verdict::Reportable),
            ReviewVerdict::MissingInformation
        );
    }

    #[test]
    fn decisions_parse_and_serialize_with_a_kind_tag() {
        assert_eq!(AdjudicationDecision::parse("accept"), Some(AdjudicationDecision::Accept));
        assert_eq!(
            AdjudicationDecision::parse("relabel:uncertain"),
            Some(AdjudicationDecision::Relabel { verdict: ReviewVerdict::Uncertain })
        );
        assert_eq!(AdjudicationDecision::parse("relabel:sometimes"), None);
        let v = serde_json::to_value(AdjudicationDecision::Relabel { verdict: ReviewVerdict::NonReportable }).unwrap();
        assert_eq!(v, serde_json::json!({"kind": "relabel", "verdict": "Non-reportable"}));
    }

    #[test]
    fn scales_have_five_points_and_verdicts_four_keys() {
        assert_eq!(realism_anchors().iter().map(|a| a.value).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
        assert_eq!(plausibility_anchors().len(), 5);
        let keys: Vec<String> = verdict_options().into_iter().map(|o| o.key).collect();
        assert_eq!(keys, vec!["1", "2", "3", "4"]);
    }

    #[test]
    fn typescript_declarations_are_generated() {
        // The lead generates bindings centrally; this checks the derives produce sensible types.
        let d = ReviewVerdict::decl();
        assert!(d.contains("\"Missing information\""), "{d}");
        let p = ReviewAnswerPatch::decl();
        assert!(p.contains("realism?: number | null"), "{p}");
        let s = ReviewSelection::decl();
        assert!(s.contains("\"kind\": \"stratified\""), "{s}");
        let c = ReviewCreateRequest::decl();
        assert!(c.contains("seed?: number | null"), "{c}");
    }
}
