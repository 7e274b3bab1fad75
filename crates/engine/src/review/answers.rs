//! One reviewer's answer to one item, and the rules for changing it. This is the only place the
//! blind-first order is enforced: every path (personal link, desktop app, CLI, pack) goes through
//! `apply`, `reveal` and `merge`.
//!
//! * Each part (realism, plausibility, blind verdict, agree mark, comment, time) is saved on its
//!   own with the time it was given; re-sending the same value changes nothing.
//! * The by-construction verdict can be revealed only once a blind verdict is saved.
//! * After the reveal the blind verdict is locked; ratings and the comment may still change.
//! * The agree mark needs the reveal (one cannot agree with what one has not seen).
//! * Time spent is reported by the client as deltas of active time; one report counts for at most
//!   `MAX_TIME_REPORT_SECS` (a longer gap means the reviewer stepped away).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ReviewAnswerPatch, ReviewAnswerState, ReviewVerdict};
use crate::error::{ApiError, ApiResult, ErrorCode};

/// The most one time report can add (15 minutes).
pub const MAX_TIME_REPORT_SECS: f64 = 900.0;
/// The longest comment accepted.
pub const MAX_COMMENT_CHARS: usize = 20_000;
/// How far ahead of this computer's clock a time in an answers file may be: a day. The other
/// computer's clock may be wrong by minutes, or by hours when its time zone is set wrongly; a
/// day's margin accepts those and still refuses a date no answer can have (a year ahead, 2099).
pub const MAX_CLOCK_AHEAD_SECS: i64 = 24 * 60 * 60;

/// The parts of an answer that every form of it shares, each with the time it was given: the
/// one core of an answer. The stored row (`repo::AnswerRow`) and the API view
/// (`ReviewAnswerState`) hold it inside an [`AnswerRecord`]; a pack file (`pack::PackAnswer`)
/// holds it directly beside its own item fields and its time in whole milliseconds. In JSON the
/// parts sit flat beside the fields of whichever form holds them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct AnswerParts {
    pub realism: Option<u8>,
    pub realism_at: Option<String>,
    pub plausibility: Option<u8>,
    pub plausibility_at: Option<String>,
    pub blind_verdict: Option<ReviewVerdict>,
    pub blind_verdict_at: Option<String>,
    pub revealed_at: Option<String>,
    pub agree: Option<bool>,
    pub agree_at: Option<String>,
    pub comment: Option<String>,
    pub comment_at: Option<String>,
    /// The rationale task (items that have one): the conditions ticked as established by the
    /// rationale, an empty list when none. Left out of the JSON when not given, so answers
    /// without it read and sign exactly as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rationale_established: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rationale_at: Option<String>,
}

/// An answer as the store and the API hold it: the shared parts and the active time spent, in
/// seconds. Reads and writes of a part go straight through (`record.realism`), by `Deref`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct AnswerRecord {
    #[serde(flatten)]
    pub parts: AnswerParts,
    pub time_spent_secs: f64,
    pub time_spent_at: Option<String>,
    /// The item has a rationale task, so the answer is complete only once it is answered. Set
    /// when the answer is read from the store; never written anywhere.
    #[serde(skip)]
    #[ts(skip)]
    pub rationale_required: bool,
}

impl std::ops::Deref for AnswerRecord {
    type Target = AnswerParts;
    fn deref(&self) -> &AnswerParts {
        &self.parts
    }
}

impl std::ops::DerefMut for AnswerRecord {
    fn deref_mut(&mut self) -> &mut AnswerParts {
        &mut self.parts
    }
}

impl AnswerRecord {
    /// Every required part is given: both ratings, the blind verdict, the reveal and the agree
    /// mark, and the rationale task where the item has one.
    pub fn complete(&self) -> bool {
        self.realism.is_some()
            && self.plausibility.is_some()
            && self.blind_verdict.is_some()
            && self.revealed_at.is_some()
            && self.agree.is_some()
            && (!self.rationale_required || self.rationale_established.is_some())
    }

    /// Anything at all was given.
    pub fn started(&self) -> bool {
        self.realism_at.is_some()
            || self.plausibility_at.is_some()
            || self.blind_verdict_at.is_some()
            || self.agree_at.is_some()
            || self.comment_at.is_some()
            || self.rationale_at.is_some()
            || self.time_spent_secs > 0.0
    }

    /// The latest time any part was given.
    pub fn last_at(&self) -> Option<&str> {
        [
            &self.realism_at,
            &self.plausibility_at,
            &self.blind_verdict_at,
            &self.revealed_at,
            &self.agree_at,
            &self.comment_at,
            &self.rationale_at,
            &self.time_spent_at,
        ]
        .into_iter()
        .filter_map(|t| t.as_deref())
        .max()
    }

    pub fn to_state(&self, item_no: u32) -> ReviewAnswerState {
        ReviewAnswerState { item_no, answer: self.clone(), complete: self.complete() }
    }
}

/// The result of applying a patch.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub record: AnswerRecord,
    pub changed: Vec<String>,
    pub time_capped: bool,
}

fn check_rating(name: &str, v: Option<u8>) -> ApiResult<()> {
    match v {
        Some(x) if !(1..=5).contains(&x) => Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!("{name} is rated from 1 to 5; {x} is not on the scale."),
        )),
        _ => Ok(()),
    }
}

pub fn blind_locked(item_no: u32) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        format!(
            "Your verdict for item {item_no} is locked because you have already seen the by-construction verdict: changing it \
             now would undo the blinding. You can still change your ratings and comment, and say whether you agree."
        ),
    )
}

/// The comment's length limit, the same for an answer given here and one that arrives in a file.
fn check_comment(comment: &str) -> ApiResult<()> {
    if comment.trim().chars().count() > MAX_COMMENT_CHARS {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!("The comment is longer than {MAX_COMMENT_CHARS} characters; please shorten it."),
        ));
    }
    Ok(())
}

/// Apply a patch to an answer. All checks run first, so a refused patch changes nothing.
pub fn apply(cur: &AnswerRecord, patch: &ReviewAnswerPatch, item_no: u32, now: &str) -> ApiResult<Applied> {
    check_rating("Realism", patch.realism)?;
    check_rating("Plausibility", patch.plausibility)?;
    let comment = patch.comment.as_ref().map(|c| c.trim().to_string());
    if let Some(c) = &comment {
        check_comment(c)?;
    }
    if let Some(t) = patch.add_time_secs {
        if !t.is_finite() || t < 0.0 {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                "Time spent must be a number of seconds, zero or more.",
            ));
        }
    }
    if let Some(v) = patch.blind_verdict {
        if cur.revealed_at.is_some() && cur.blind_verdict != Some(v) {
            return Err(blind_locked(item_no));
        }
    }
    if patch.rationale_established.is_some() && cur.revealed_at.is_none() {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "Save your own verdict for item {item_no} and open the by-construction verdict before checking the model's \
                 rationale: the rationale names the model's verdict, so it is shown only once yours is locked."
            ),
        ));
    }
    if patch.agree.is_some() && cur.revealed_at.is_none() {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "Save your own verdict for item {item_no} and open the by-construction verdict before saying whether you agree with it."
            ),
        ));
    }

    let mut r = cur.clone();
    let mut changed = Vec::new();
    let stamp = |at: &mut Option<String>| *at = Some(now.to_string());
    if let Some(v) = patch.realism {
        if r.realism != Some(v) {
            r.realism = Some(v);
            stamp(&mut r.realism_at);
            changed.push("realism".to_string());
        }
    }
    if let Some(v) = patch.plausibility {
        if r.plausibility != Some(v) {
            r.plausibility = Some(v);
            stamp(&mut r.plausibility_at);
            changed.push("plausibility".to_string());
        }
    }
    if let Some(v) = patch.blind_verdict {
        if r.blind_verdict != Some(v) {
            r.blind_verdict = Some(v);
            stamp(&mut r.blind_verdict_at);
            changed.push("blind_verdict".to_string());
        }
    }
    if let Some(v) = patch.agree {
        if r.agree != Some(v) {
            r.agree = Some(v);
            stamp(&mut r.agree_at);
            changed.push("agree".to_string());
        }
    }
    if let Some(c) = comment {
        let c = if c.is_empty() { None } else { Some(c) };
        if r.comment != c {
            r.comment = c;
            stamp(&mut r.comment_at);
            changed.push("comment".to_string());
        }
    }
    if let Some(v) = &patch.rationale_established {
        if r.rationale_established.as_ref() != Some(v) {
            r.rationale_established = Some(v.clone());
            stamp(&mut r.rationale_at);
            changed.push("rationale_established".to_string());
        }
    }
    let mut time_capped = false;
    if let Some(t) = patch.add_time_secs {
        let add = if t > MAX_TIME_REPORT_SECS {
            time_capped = true;
            MAX_TIME_REPORT_SECS
        } else {
            t
        };
        if add > 0.0 {
            r.time_spent_secs = ((r.time_spent_secs + add) * 1000.0).round() / 1000.0;
            stamp(&mut r.time_spent_at);
            changed.push("time_spent_secs".to_string());
        }
    }
    Ok(Applied { record: r, changed, time_capped })
}

/// Open the by-construction verdict. Refused until a blind verdict is saved; the first reveal's
/// time is kept. Returns the record and whether this call revealed it.
pub fn reveal(cur: &AnswerRecord, item_no: u32, now: &str) -> ApiResult<(AnswerRecord, bool)> {
    if cur.blind_verdict.is_none() {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("Give your own verdict for item {item_no} first: the by-construction verdict is shown only after yours is saved."),
        ));
    }
    if cur.revealed_at.is_some() {
        return Ok((cur.clone(), false));
    }
    let mut r = cur.clone();
    r.revealed_at = Some(now.to_string());
    Ok((r, true))
}

/// The result of merging an answer that arrived from elsewhere.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub record: AnswerRecord,
    pub changed: Vec<&'static str>,
    pub kept: Vec<String>,
}

/// True when `incoming` was given strictly later than `local` (or `local` was never given).
fn newer(incoming: &Option<String>, local: &Option<String>) -> bool {
    match (incoming, local) {
        (Some(i), Some(l)) => i > l,
        (Some(_), None) => true,
        _ => false,
    }
}

fn take<T: Clone + PartialEq>(lv: &mut T, lat: &mut Option<String>, iv: &T, iat: &Option<String>) -> bool {
    if newer(iat, lat) {
        *lv = iv.clone();
        *lat = iat.clone();
        true
    } else {
        false
    }
}

/// Merge an answer from a pack into the stored one, part by part: the part given later wins;
/// equal times change nothing, so merging the same answers twice is a no-op. The earliest reveal
/// is kept. A blind verdict locked by a reveal here is not replaced.
pub fn merge(local: &AnswerRecord, incoming: &AnswerRecord, item_no: u32) -> Merged {
    let mut r = local.clone();
    let mut changed = Vec::new();
    let mut kept = Vec::new();
    if take(&mut r.parts.realism, &mut r.parts.realism_at, &incoming.realism, &incoming.realism_at) {
        changed.push("realism");
    }
    if take(&mut r.parts.plausibility, &mut r.parts.plausibility_at, &incoming.plausibility, &incoming.plausibility_at)
    {
        changed.push("plausibility");
    }
    if newer(&incoming.blind_verdict_at, &r.blind_verdict_at) {
        if local.revealed_at.is_some() && local.blind_verdict.is_some() && local.blind_verdict != incoming.blind_verdict
        {
            kept.push(format!(
                "item {item_no}: kept the verdict {} given before the reveal; the later {} was not taken",
                local.blind_verdict.map(|v| v.as_str()).unwrap_or("-"),
                incoming.blind_verdict.map(|v| v.as_str()).unwrap_or("-")
            ));
        } else {
            r.blind_verdict = incoming.blind_verdict;
            r.blind_verdict_at = incoming.blind_verdict_at.clone();
            changed.push("blind_verdict");
        }
    }
    let earliest = match (&r.revealed_at, &incoming.revealed_at) {
        (Some(a), Some(b)) => Some(a.min(b).clone()),
        (a, b) => a.clone().or_else(|| b.clone()),
    };
    if earliest != r.revealed_at {
        r.revealed_at = earliest;
        changed.push("revealed");
    }
    // A verdict given here after the reveal happened elsewhere was not blind: the one given
    // before that reveal (in the incoming answer) is the blind verdict.
    let after_reveal = matches!((&r.blind_verdict_at, &r.revealed_at), (Some(b), Some(rv)) if b > rv);
    if after_reveal && incoming.blind_verdict.is_some() && incoming.blind_verdict_at <= r.revealed_at {
        if r.blind_verdict != incoming.blind_verdict {
            kept.push(format!(
                "item {item_no}: took the verdict {} given before the reveal; {} was given after it and is not blind",
                incoming.blind_verdict.map(|v| v.as_str()).unwrap_or("-"),
                r.blind_verdict.map(|v| v.as_str()).unwrap_or("-")
            ));
        }
        r.blind_verdict = incoming.blind_verdict;
        r.blind_verdict_at = incoming.blind_verdict_at.clone();
        if !changed.contains(&"blind_verdict") {
            changed.push("blind_verdict");
        }
    }
    if take(&mut r.parts.agree, &mut r.parts.agree_at, &incoming.agree, &incoming.agree_at) {
        changed.push("agree");
    }
    if take(&mut r.parts.comment, &mut r.parts.comment_at, &incoming.comment, &incoming.comment_at) {
        changed.push("comment");
    }
    if take(
        &mut r.parts.rationale_established,
        &mut r.parts.rationale_at,
        &incoming.rationale_established,
        &incoming.rationale_at,
    ) {
        changed.push("rationale_established");
    }
    if take(&mut r.time_spent_secs, &mut r.time_spent_at, &incoming.time_spent_secs, &incoming.time_spent_at) {
        changed.push("time_spent_secs");
    }
    Merged { record: r, changed, kept }
}

/// Check an answer that arrives in a file before it is merged, with the rules an answer given
/// here obeys: values on the scales, the comment's length, a consistent order (an agree mark needs
/// a reveal, a reveal needs a blind verdict), and every part's time a real date and time that is
/// not later than now (allowing the other computer's clock [`MAX_CLOCK_AHEAD_SECS`] ahead), in UTC.
pub fn validate_incoming(a: &AnswerRecord, item_no: u32) -> ApiResult<()> {
    validate_incoming_at(a, item_no, chrono::Utc::now())
}

/// [`validate_incoming`] against a given "now".
pub fn validate_incoming_at(a: &AnswerRecord, item_no: u32, now: chrono::DateTime<chrono::Utc>) -> ApiResult<()> {
    let located = |e: ApiError| ApiError::new(e.code, format!("Item {item_no}: {} Nothing was merged.", e.message));
    check_rating("Realism", a.realism).map_err(located)?;
    check_rating("Plausibility", a.plausibility).map_err(located)?;
    if let Some(c) = &a.comment {
        check_comment(c).map_err(located)?;
    }
    let bad = |what: &str| {
        ApiError::new(
            ErrorCode::ValidationFailed,
            format!("The answer to item {item_no} is inconsistent ({what}); nothing was merged."),
        )
    };
    if a.revealed_at.is_some() && a.blind_verdict.is_none() {
        return Err(bad("the by-construction verdict was opened without a blind verdict"));
    }
    if a.agree.is_some() && a.revealed_at.is_none() {
        return Err(bad("an agree mark was given without opening the by-construction verdict"));
    }
    if a.rationale_established.is_some() && a.revealed_at.is_none() {
        return Err(bad("the rationale task was answered without opening the by-construction verdict"));
    }
    if !a.time_spent_secs.is_finite() || a.time_spent_secs < 0.0 {
        return Err(bad("the time spent is not a number of seconds"));
    }
    for (v, at, name) in [
        (a.realism.is_some(), &a.realism_at, "realism"),
        (a.plausibility.is_some(), &a.plausibility_at, "plausibility"),
        (a.blind_verdict.is_some(), &a.blind_verdict_at, "blind verdict"),
        (a.agree.is_some(), &a.agree_at, "agree mark"),
        (a.rationale_established.is_some(), &a.rationale_at, "rationale task"),
    ] {
        if v && at.is_none() {
            return Err(bad(&format!("the {name} has no time")));
        }
    }
    let latest = now + chrono::Duration::seconds(MAX_CLOCK_AHEAD_SECS);
    for (at, name) in [
        (&a.realism_at, "realism"),
        (&a.plausibility_at, "plausibility"),
        (&a.blind_verdict_at, "blind verdict"),
        (&a.revealed_at, "reveal"),
        (&a.agree_at, "agree mark"),
        (&a.comment_at, "comment"),
        (&a.rationale_at, "rationale task"),
        (&a.time_spent_at, "time spent"),
    ] {
        let Some(at) = at else { continue };
        let Ok(when) = chrono::DateTime::parse_from_rfc3339(at) else {
            return Err(bad(&format!("the time of the {name}, \"{}\", is not a date and time", shorten(at))));
        };
        // The app writes every time in UTC (ending in `Z`), and answers are ordered by comparing
        // those texts: a time with another offset would sort wrongly, so it is refused.
        if !at.ends_with('Z') {
            return Err(bad(&format!("the time of the {name}, \"{}\", is not in UTC (ending in Z)", shorten(at))));
        }
        if when > latest {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!(
                    "The answer to item {item_no} has its {name} dated {at}, which is later than the clock of this computer \
                     ({}); nothing was merged. Check the date and time on the reviewer's computer, then export the answers again.",
                    now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
            ));
        }
    }
    Ok(())
}

/// A value from a file short enough to quote in a message.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

/// An answer that arrives in a file must have its blind verdict dated no later than the reveal:
/// the app never shows the by-construction verdict first, so a later blind verdict means the file
/// was made some other way. The case is named in the refusal.
pub fn check_blind_before_reveal(a: &AnswerRecord, case_id: &str, item_no: u32) -> ApiResult<()> {
    let (Some(blind_at), Some(revealed_at)) = (&a.blind_verdict_at, &a.revealed_at) else { return Ok(()) };
    let when = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    let refuse = |why: String| {
        ApiError::new(
            ErrorCode::ValidationFailed,
            format!("The answer to case \"{case_id}\" (item {item_no}) {why}; nothing was merged."),
        )
    };
    match (when(blind_at), when(revealed_at)) {
        (Some(b), Some(r)) if b > r => Err(refuse(format!(
            "has its blind verdict dated {blind_at}, after the by-construction verdict was shown at {revealed_at}, so it \
             was not given blind"
        ))),
        (Some(_), Some(_)) => Ok(()),
        _ => Err(refuse("has a blind verdict or reveal time that is not a date and time".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch() -> ReviewAnswerPatch {
        ReviewAnswerPatch::default()
    }

    #[test]
    fn parts_are_saved_with_their_own_time_and_resending_changes_nothing() {
        let a = apply(&AnswerRecord::default(), &ReviewAnswerPatch { realism: Some(4), ..patch() }, 1, "t1").unwrap();
        assert_eq!(a.changed, vec!["realism"]);
        assert_eq!(a.record.realism_at.as_deref(), Some("t1"));
        let b = apply(&a.record, &ReviewAnswerPatch { realism: Some(4), plausibility: Some(3), ..patch() }, 1, "t2")
            .unwrap();
        assert_eq!(b.changed, vec!["plausibility"]);
        assert_eq!(b.record.realism_at.as_deref(), Some("t1"), "unchanged value keeps its time");
        assert_eq!(b.record.plausibility_at.as_deref(), Some("t2"));
        assert!(!b.record.complete());
    }

    #[test]
    fn blind_first_order_is_enforced() {
        let r0 = AnswerRecord::default();
        let e = reveal(&r0, 3, "t").unwrap_err();
        assert_eq!(e.code, ErrorCode::Forbidden);
        assert!(e.message.contains("item 3"));
        let e = apply(&r0, &ReviewAnswerPatch { agree: Some(true), ..patch() }, 3, "t").unwrap_err();
        assert_eq!(e.code, ErrorCode::Forbidden);
        // blind verdict may change freely before the reveal
        let r1 = apply(&r0, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Reportable), ..patch() }, 3, "t1")
            .unwrap()
            .record;
        let r1 = apply(&r1, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Uncertain), ..patch() }, 3, "t2")
            .unwrap()
            .record;
        let (r2, first) = reveal(&r1, 3, "t3").unwrap();
        assert!(first);
        let (r2b, again) = reveal(&r2, 3, "t9").unwrap();
        assert!(!again);
        assert_eq!(r2b.revealed_at.as_deref(), Some("t3"), "the first reveal time is kept");
        // locked after the reveal (same value is fine, a different one is refused)
        assert!(apply(&r2, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Uncertain), ..patch() }, 3, "t4")
            .is_ok());
        let e = apply(&r2, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Reportable), ..patch() }, 3, "t4")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Forbidden);
        assert!(e.message.contains("locked"));
        // ratings, agree and comment still change
        let r3 = apply(
            &r2,
            &ReviewAnswerPatch {
                realism: Some(5),
                plausibility: Some(4),
                agree: Some(false),
                comment: Some(" odd dose ".into()),
                ..patch()
            },
            3,
            "t5",
        )
        .unwrap()
        .record;
        assert!(r3.complete());
        assert_eq!(r3.comment.as_deref(), Some("odd dose"));
        let r4 = apply(&r3, &ReviewAnswerPatch { comment: Some("  ".into()), ..patch() }, 3, "t6").unwrap();
        assert_eq!(r4.record.comment, None, "an empty comment clears it");
        assert_eq!(r4.changed, vec!["comment"]);
    }

    #[test]
    fn a_refused_patch_changes_nothing() {
        let r0 = AnswerRecord::default();
        let e =
            apply(&r0, &ReviewAnswerPatch { realism: Some(4), plausibility: Some(6), ..patch() }, 1, "t").unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed);
        assert!(e.message.contains("6 is not on the scale"));
        assert!(apply(&r0, &ReviewAnswerPatch { realism: Some(0), ..patch() }, 1, "t").is_err());
        assert!(apply(&r0, &ReviewAnswerPatch { comment: Some("x".repeat(MAX_COMMENT_CHARS + 1)), ..patch() }, 1, "t")
            .is_err());
        assert!(apply(&r0, &ReviewAnswerPatch { add_time_secs: Some(-1.0), ..patch() }, 1, "t").is_err());
        assert!(apply(&r0, &ReviewAnswerPatch { add_time_secs: Some(f64::NAN), ..patch() }, 1, "t").is_err());
    }

    #[test]
    fn time_accumulates_and_absurd_reports_are_capped() {
        let a = apply(&AnswerRecord::default(), &ReviewAnswerPatch { add_time_secs: Some(12.5), ..patch() }, 1, "t1")
            .unwrap();
        let b = apply(&a.record, &ReviewAnswerPatch { add_time_secs: Some(86_400.0), ..patch() }, 1, "t2").unwrap();
        assert!(b.time_capped);
        assert_eq!(b.record.time_spent_secs, 12.5 + MAX_TIME_REPORT_SECS);
        let c = apply(&b.record, &ReviewAnswerPatch { add_time_secs: Some(0.0), ..patch() }, 1, "t3").unwrap();
        assert!(c.changed.is_empty());
        assert_eq!(c.record.time_spent_at.as_deref(), Some("t2"));
    }

    #[test]
    fn the_rationale_task_waits_for_the_reveal_counts_for_completion_and_merges_newer_first() {
        let ticks = |v: &[&str]| ReviewAnswerPatch {
            rationale_established: Some(v.iter().map(|s| s.to_string()).collect()),
            ..patch()
        };
        let mut r0 = given();
        r0.plausibility = Some(3);
        r0.plausibility_at = Some("2026-01-01T10:00:30.000Z".into());
        r0.rationale_required = true;
        assert!(!r0.complete(), "an item with a task is not complete without it");
        let mut hidden = r0.clone();
        hidden.revealed_at = None;
        hidden.agree = None;
        hidden.agree_at = None;
        let e = apply(&hidden, &ticks(&[]), 2, "t").unwrap_err();
        assert_eq!(e.code, ErrorCode::Forbidden);
        assert!(e.message.contains("item 2"), "{}", e.message);
        let a = apply(&r0, &ticks(&["x"]), 2, "2026-01-01T11:00:00.000Z").unwrap();
        assert_eq!(a.changed, vec!["rationale_established"]);
        assert!(a.record.complete());
        assert!(apply(&a.record, &ticks(&["x"]), 2, "t9").unwrap().changed.is_empty(), "the same ticks change nothing");
        let none = apply(&a.record, &ticks(&[]), 2, "2026-01-01T11:05:00.000Z").unwrap().record;
        assert_eq!(none.rationale_established, Some(vec![]), "an empty list is an answer: none established");
        assert!(none.complete());
        // Merging: the later answer wins; an older one changes nothing.
        let m = merge(&a.record, &none, 2);
        assert_eq!(m.changed, vec!["rationale_established"]);
        assert_eq!(m.record.rationale_established, Some(vec![]));
        assert!(merge(&none, &a.record, 2).changed.is_empty());
        // A file with ticks but no reveal, or ticks without a time, is refused.
        let mut bad = hidden.clone();
        bad.rationale_established = Some(vec![]);
        bad.rationale_at = Some("t".into());
        assert!(validate_incoming(&bad, 2).unwrap_err().message.contains("rationale task"));
        let mut untimed = none.clone();
        untimed.rationale_at = None;
        assert!(validate_incoming(&untimed, 2).unwrap_err().message.contains("has no time"));
        // Without the task the answer serializes exactly as before.
        let json = serde_json::to_string(&given().parts).unwrap();
        assert!(!json.contains("rationale"), "{json}");
    }

    fn given() -> AnswerRecord {
        AnswerRecord {
            parts: AnswerParts {
                realism: Some(4),
                realism_at: Some("2026-01-01T10:00:00.000Z".into()),
                blind_verdict: Some(ReviewVerdict::Reportable),
                blind_verdict_at: Some("2026-01-01T10:01:00.000Z".into()),
                revealed_at: Some("2026-01-01T10:02:00.000Z".into()),
                agree: Some(true),
                agree_at: Some("2026-01-01T10:03:00.000Z".into()),
                ..AnswerParts::default()
            },
            time_spent_secs: 40.0,
            time_spent_at: Some("2026-01-01T10:03:00.000Z".into()),
            rationale_required: false,
        }
    }

    #[test]
    fn merge_takes_newer_parts_and_is_idempotent() {
        let local = AnswerRecord::default();
        let m1 = merge(&local, &given(), 1);
        assert_eq!(m1.record, given());
        assert_eq!(m1.changed, vec!["realism", "blind_verdict", "revealed", "agree", "time_spent_secs"]);
        let m2 = merge(&m1.record, &given(), 1);
        assert!(m2.changed.is_empty(), "merging twice changes nothing: {:?}", m2.changed);
        assert_eq!(m2.record, m1.record);
        // older incoming parts lose
        let mut older = given();
        older.realism = Some(1);
        older.realism_at = Some("2025-12-31T00:00:00.000Z".into());
        let m3 = merge(&given(), &older, 1);
        assert_eq!(m3.record.realism, Some(4));
    }

    #[test]
    fn merge_never_leaves_a_blind_verdict_dated_after_the_reveal() {
        // Here: a verdict given through a link, never revealed. Elsewhere (a pack): an earlier
        // verdict, then the reveal, both before the verdict given here.
        let local = AnswerRecord {
            parts: AnswerParts {
                blind_verdict: Some(ReviewVerdict::Uncertain),
                blind_verdict_at: Some("2026-01-01T11:00:00.000Z".into()),
                ..AnswerParts::default()
            },
            ..AnswerRecord::default()
        };
        let incoming = given();
        let m = merge(&local, &incoming, 3);
        assert_eq!(m.record.blind_verdict, Some(ReviewVerdict::Reportable));
        assert_eq!(m.record.blind_verdict_at, incoming.blind_verdict_at);
        assert!(check_blind_before_reveal(&m.record, "c", 3).is_ok());
        assert!(m.kept.iter().any(|k| k.contains("given before the reveal")), "{:?}", m.kept);
        let again = merge(&m.record, &incoming, 3);
        assert!(again.changed.is_empty(), "{:?}", again.changed);
        let mut late = given();
        late.blind_verdict_at = Some("2026-01-01T10:05:00.000Z".into());
        assert!(check_blind_before_reveal(&late, "case-7", 2).unwrap_err().message.contains("\"case-7\" (item 2)"));
    }

    #[test]
    fn merge_keeps_a_blind_verdict_locked_by_a_reveal() {
        let mut incoming = given();
        incoming.blind_verdict = Some(ReviewVerdict::Uncertain);
        incoming.blind_verdict_at = Some("2026-02-01T00:00:00.000Z".into());
        let m = merge(&given(), &incoming, 7);
        assert_eq!(m.record.blind_verdict, Some(ReviewVerdict::Reportable));
        assert_eq!(m.kept.len(), 1);
        assert!(m.kept[0].contains("item 7"));
        // the earliest reveal wins
        let mut later = given();
        later.revealed_at = Some("2026-03-01T00:00:00.000Z".into());
        assert_eq!(merge(&given(), &later, 1).record.revealed_at, given().revealed_at);
        assert_eq!(merge(&later, &given(), 1).record.revealed_at, given().revealed_at);
    }

    #[test]
    fn the_api_view_and_the_pack_keep_their_json_fields() {
        let keys =
            |v: serde_json::Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        let parts = [
            "realism",
            "realism_at",
            "plausibility",
            "plausibility_at",
            "blind_verdict",
            "blind_verdict_at",
            "revealed_at",
            "agree",
            "agree_at",
            "comment",
            "comment_at",
        ];
        let state = given().to_state(2);
        let json = serde_json::to_value(&state).unwrap();
        let mut want = vec!["item_no"];
        want.extend(parts);
        want.extend(["time_spent_secs", "time_spent_at", "complete"]);
        assert_eq!(keys(json.clone()), want);
        assert_eq!(json["time_spent_secs"], 40.0);
        assert_eq!(serde_json::from_value::<ReviewAnswerState>(json).unwrap(), state);
        let packed = crate::review::pack::PackAnswer::from_record(2, "c2", &given());
        let mut want = vec!["item_no", "case_id"];
        want.extend(parts);
        want.extend(["time_spent_ms", "time_spent_at"]);
        assert_eq!(keys(serde_json::to_value(&packed).unwrap()), want);
        assert_eq!(packed.record(), given());
    }

    #[test]
    fn incoming_answers_are_checked() {
        assert!(validate_incoming(&given(), 1).is_ok());
        let mut a = given();
        a.blind_verdict = None;
        a.blind_verdict_at = None;
        assert!(validate_incoming(&a, 1).unwrap_err().message.contains("without a blind verdict"));
        let mut b = given();
        b.realism = Some(9);
        assert!(validate_incoming(&b, 2).unwrap_err().message.starts_with("Item 2"));
        let mut c = given();
        c.revealed_at = None;
        assert!(validate_incoming(&c, 1).is_err());
    }

    /// The rules of the live answer path hold for answers that arrive in a file, each refusal a
    /// plain sentence naming the item.
    #[test]
    fn incoming_answers_obey_the_live_limits_and_dates() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-01-02T00:00:00Z").unwrap().with_timezone(&chrono::Utc);
        let check = |a: &AnswerRecord| validate_incoming_at(a, 3, now);
        assert!(check(&given()).is_ok());

        let mut long = given();
        long.comment = Some("x".repeat(2_000_000));
        long.comment_at = Some("2026-01-01T10:04:00.000Z".into());
        let e = check(&long).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed);
        assert_eq!(
            e.message,
            "Item 3: The comment is longer than 20000 characters; please shorten it. Nothing was merged."
        );
        // The same limit as a comment typed here: exactly the limit passes, one more does not.
        long.comment = Some("x".repeat(MAX_COMMENT_CHARS));
        assert!(check(&long).is_ok());
        let live = ReviewAnswerPatch { comment: Some("x".repeat(MAX_COMMENT_CHARS + 1)), ..patch() };
        let live_message = apply(&given(), &live, 3, "t").unwrap_err().message;
        assert_eq!(format!("Item 3: {live_message} Nothing was merged."), e.message);

        for (name, set) in [
            ("realism", (|a: &mut AnswerRecord, t: &str| a.realism_at = Some(t.into())) as fn(&mut AnswerRecord, &str)),
            ("blind verdict", |a, t| a.blind_verdict_at = Some(t.into())),
            ("reveal", |a, t| a.revealed_at = Some(t.into())),
            ("agree mark", |a, t| a.agree_at = Some(t.into())),
            ("comment", |a, t| {
                a.comment = Some("ok".into());
                a.comment_at = Some(t.into())
            }),
            ("time spent", |a, t| a.time_spent_at = Some(t.into())),
        ] {
            let mut future = given();
            set(&mut future, "2099-01-01T00:00:00.000Z");
            let e = check(&future).unwrap_err();
            assert!(e.message.contains(&format!("has its {name} dated 2099-01-01T00:00:00.000Z")), "{}", e.message);
            assert!(
                e.message.contains("later than the clock of this computer (2026-01-02T00:00:00Z)"),
                "{}",
                e.message
            );
            assert!(e.message.contains("Check the date and time on the reviewer's computer"), "{}", e.message);

            let mut not_a_date = given();
            set(&mut not_a_date, "yesterday-ish");
            let e = check(&not_a_date).unwrap_err();
            assert_eq!(
                e.message,
                format!(
                    "The answer to item 3 is inconsistent (the time of the {name}, \"yesterday-ish\", is not a date and time); \
                     nothing was merged."
                )
            );
        }
        // A clock hours fast (a wrong time zone) is accepted; more than a day is not.
        let mut fast = given();
        fast.comment = Some("ok".into());
        fast.comment_at = Some("2026-01-02T23:59:59Z".into());
        assert!(check(&fast).is_ok());
        fast.comment_at = Some("2026-01-03T00:00:01Z".into());
        assert!(check(&fast).is_err());
        // A time with an offset other than Z would be ordered wrongly against the app's own.
        fast.comment_at = Some("2026-01-01T12:00:00+05:00".into());
        assert!(check(&fast).unwrap_err().message.contains("is not in UTC (ending in Z)"));
        // Ratings off the scale, as the live path refuses them.
        let mut off = given();
        off.plausibility = Some(0);
        off.plausibility_at = Some("2026-01-01T10:00:00.000Z".into());
        assert_eq!(
            check(&off).unwrap_err().message,
            "Item 3: Plausibility is rated from 1 to 5; 0 is not on the scale. Nothing was merged."
        );
    }
}
