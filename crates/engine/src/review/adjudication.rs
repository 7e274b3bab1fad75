//! The adjudication queue: cases where reviewers disagree with each other or with the verdict the
//! case was built to have, or rate it far apart or low. Pure: the caller loads the rows and
//! records decisions (see `Engine::review_adjudicate`).

use super::answers::AnswerRecord;
use super::repo::{AnswerRow, ItemRow};
use super::{QueueReason, ReviewVerdict, ReviewerAnswer};

/// Text stored as the dataset's exclusion reason; the `[review ID]` tag lets a later decision of
/// the same session undo exactly the exclusions it made.
pub fn exclusion_reason(session_id: &str, session_name: &str, adjudicator: &str, note: Option<&str>) -> String {
    let mut s = format!("Rejected in expert review \"{session_name}\" by {adjudicator} [review {session_id}]");
    if let Some(n) = note.filter(|n| !n.trim().is_empty()) {
        s.push_str(": ");
        s.push_str(n.trim());
    }
    s
}

pub fn excluded_by_session(reason: Option<&str>, session_id: &str) -> bool {
    reason.is_some_and(|r| r.contains(&format!("[review {session_id}]")))
}

pub fn owner_view(a: &AnswerRow) -> ReviewerAnswer {
    let r: &AnswerRecord = &a.record;
    ReviewerAnswer {
        reviewer: a.reviewer.clone(),
        item_no: a.item_no,
        realism: r.realism,
        plausibility: r.plausibility,
        blind_verdict: r.blind_verdict,
        agree: r.agree,
        comment: r.comment.clone(),
        time_spent_secs: r.time_spent_secs,
        complete: r.complete(),
        rationale_established: r.rationale_established.clone(),
    }
}

fn spread_reason(
    code: &str,
    label: &str,
    rows: &[&AnswerRow],
    value: impl Fn(&AnswerRecord) -> Option<u8>,
    threshold: u8,
) -> Option<QueueReason> {
    let vals: Vec<u8> = rows.iter().filter_map(|a| value(&a.record)).collect();
    let (lo, hi) = (vals.iter().min()?, vals.iter().max()?);
    (hi - lo > threshold).then(|| QueueReason {
        code: code.into(),
        text: format!(
            "{label} ratings range from {lo} to {hi}, more than {} apart.",
            crate::util::format::count(threshold, "point")
        ),
    })
}

fn low_reason(
    code: &str,
    label: &str,
    rows: &[&AnswerRow],
    value: impl Fn(&AnswerRecord) -> Option<u8>,
    low: u8,
) -> Option<QueueReason> {
    if low == 0 {
        return None;
    }
    let who: Vec<String> = rows
        .iter()
        .filter_map(|a| value(&a.record).filter(|v| *v <= low).map(|v| format!("{} gave {v}", a.reviewer)))
        .collect();
    (!who.is_empty())
        .then(|| QueueReason { code: code.into(), text: format!("Low {label} rating: {}.", who.join(", ")) })
}

/// Why a case belongs in the queue (empty when it does not).
pub fn reasons(item: &ItemRow, rows: &[&AnswerRow], threshold: u8, low: u8) -> Vec<QueueReason> {
    let mut out = Vec::new();
    let verdicts: Vec<(&str, ReviewVerdict)> =
        rows.iter().filter_map(|a| a.record.blind_verdict.map(|v| (a.reviewer.as_str(), v))).collect();
    let mut distinct: Vec<ReviewVerdict> = verdicts.iter().map(|(_, v)| *v).collect();
    distinct.sort();
    distinct.dedup();
    if distinct.len() > 1 {
        out.push(QueueReason {
            code: "verdicts_differ".into(),
            text: format!(
                "Reviewers' own verdicts differ: {}.",
                verdicts.iter().map(|(r, v)| format!("{r}: {}", v.as_str())).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    let off: Vec<String> =
        verdicts.iter().filter(|(_, v)| *v != item.expected).map(|(r, v)| format!("{r} said {}", v.as_str())).collect();
    if !off.is_empty() {
        out.push(QueueReason {
            code: "blind_differs_from_construction".into(),
            text: format!(
                "Own verdict differs from the by-construction verdict ({}): {}.",
                item.expected.as_str(),
                off.join(", ")
            ),
        });
    }
    let disagree: Vec<&str> =
        rows.iter().filter(|a| a.record.agree == Some(false)).map(|a| a.reviewer.as_str()).collect();
    if !disagree.is_empty() {
        out.push(QueueReason {
            code: "disagree_mark".into(),
            text: format!("Marked as disagreeing with the by-construction verdict by {}.", disagree.join(", ")),
        });
    }
    out.extend(spread_reason("realism_spread", "Realism", rows, |r| r.realism, threshold));
    out.extend(spread_reason("plausibility_spread", "Plausibility", rows, |r| r.plausibility, threshold));
    out.extend(low_reason("low_realism", "realism", rows, |r| r.realism, low));
    out.extend(low_reason("low_plausibility", "plausibility", rows, |r| r.plausibility, low));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseType;
    use crate::review::answers::AnswerParts;

    fn item(e: ReviewVerdict) -> ItemRow {
        crate::review::repo::test_item("c", CaseType::Complete, e)
    }

    fn row(
        r: &str,
        realism: Option<u8>,
        plaus: Option<u8>,
        v: Option<ReviewVerdict>,
        agree: Option<bool>,
    ) -> AnswerRow {
        AnswerRow {
            reviewer: r.into(),
            item_no: 1,
            case_id: "c".into(),
            record: AnswerRecord {
                parts: AnswerParts { realism, plausibility: plaus, blind_verdict: v, agree, ..AnswerParts::default() },
                ..AnswerRecord::default()
            },
        }
    }

    fn codes(v: &[QueueReason]) -> Vec<&str> {
        v.iter().map(|r| r.code.as_str()).collect()
    }

    #[test]
    fn agreeing_reviewers_with_good_ratings_are_not_queued() {
        use ReviewVerdict::*;
        let a = row("A", Some(4), Some(4), Some(Reportable), Some(true));
        let b = row("B", Some(5), Some(3), Some(Reportable), Some(true));
        assert!(reasons(&item(Reportable), &[&a, &b], 2, 2).is_empty());
    }

    #[test]
    fn each_reason_is_found() {
        use ReviewVerdict::*;
        let a = row("A", Some(5), Some(5), Some(Reportable), Some(true));
        let b = row("B", Some(2), Some(3), Some(Uncertain), Some(false));
        let r = reasons(&item(Reportable), &[&a, &b], 2, 2);
        assert_eq!(
            codes(&r),
            vec![
                "verdicts_differ",
                "blind_differs_from_construction",
                "disagree_mark",
                "realism_spread",
                "low_realism"
            ]
        );
        assert!(r[1].text.contains("B said Uncertain"));
        // a spread equal to the threshold is not "more than" it
        let c = row("C", Some(3), Some(3), Some(Reportable), None);
        let d = row("D", Some(5), Some(5), Some(Reportable), None);
        assert!(reasons(&item(Reportable), &[&c, &d], 2, 2).is_empty());
        assert_eq!(codes(&reasons(&item(Reportable), &[&c, &d], 1, 0)), vec!["realism_spread", "plausibility_spread"]);
        // low ratings can be switched off
        let e = row("E", Some(1), Some(1), Some(Reportable), None);
        assert_eq!(codes(&reasons(&item(Reportable), &[&e], 2, 0)), Vec::<&str>::new());
        assert_eq!(codes(&reasons(&item(Reportable), &[&e], 2, 1)), vec!["low_realism", "low_plausibility"]);
        // a single reviewer who differs from construction
        let f = row("F", None, None, Some(NonReportable), None);
        assert_eq!(codes(&reasons(&item(Reportable), &[&f], 2, 2)), vec!["blind_differs_from_construction"]);
    }

    #[test]
    fn exclusion_reasons_are_tagged_with_the_session() {
        let r = exclusion_reason("rev-1", "Pilot", "Dr Lee", Some(" duplicate "));
        assert_eq!(r, "Rejected in expert review \"Pilot\" by Dr Lee [review rev-1]: duplicate");
        assert!(excluded_by_session(Some(&r), "rev-1"));
        assert!(!excluded_by_session(Some(&r), "rev-2"));
        assert!(!excluded_by_session(None, "rev-1"));
    }
}
