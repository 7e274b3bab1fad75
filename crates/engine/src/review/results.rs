//! A session's results from its stored answers: ratings and agreement with the by-construction
//! verdict per case type, per reviewer, and agreement between reviewers. Pure: the caller loads
//! the rows.

use std::collections::HashMap;

use super::rationale::{self, RationaleSource, RationaleStats, RationaleTask, TypeJudgeAgreement};
use super::repo::{AnswerRow, ItemRow};
use super::stats::{self, Metric};
use super::{
    Fraction, InterRater, PairStat, ReviewStats, ReviewVerdict, ReviewerAgreement, ReviewerTypeAgreement,
    ScaleAgreement, StatValue, TypeInterRater, TypeStats, VerdictAgreement,
};
use crate::case::CaseType;

/// The strata of the tables: the three case types, then everything.
pub const STRATA: [&str; 4] = ["complete", "missing", "uncertain", "all"];

fn in_stratum(t: CaseType, stratum: &str) -> bool {
    stratum == "all" || t.as_str() == stratum
}

struct Counts {
    agreed: usize,
    n: usize,
}

impl Counts {
    fn new() -> Self {
        Counts { agreed: 0, n: 0 }
    }
    fn add(&mut self, ok: bool) {
        self.n += 1;
        if ok {
            self.agreed += 1;
        }
    }
    fn fraction(&self) -> Fraction {
        stats::fraction(self.agreed, self.n)
    }
}

fn blind_and_agree<'a>(
    rows: impl Iterator<Item = &'a AnswerRow>,
    expected: &HashMap<&str, ReviewVerdict>,
) -> (Fraction, Fraction) {
    let mut blind = Counts::new();
    let mut mark = Counts::new();
    for a in rows {
        if let (Some(v), Some(e)) = (a.record.blind_verdict, expected.get(a.case_id.as_str())) {
            blind.add(v == *e);
        }
        if let Some(ok) = a.record.agree {
            mark.add(ok);
        }
    }
    (blind.fraction(), mark.fraction())
}

pub fn compute(
    session_id: &str,
    session_name: &str,
    overlap: u32,
    reviewers: &[String],
    items: &[ItemRow],
    answers: &[AnswerRow],
    computed_at: &str,
) -> ReviewStats {
    let type_of: HashMap<&str, CaseType> = items.iter().map(|i| (i.case_id.as_str(), i.case_type)).collect();
    let expected: HashMap<&str, ReviewVerdict> = items.iter().map(|i| (i.case_id.as_str(), i.expected)).collect();
    let mut by_case: HashMap<&str, Vec<&AnswerRow>> = HashMap::new();
    for a in answers {
        by_case.entry(a.case_id.as_str()).or_default().push(a);
    }
    let of_stratum = |a: &&AnswerRow, s: &str| type_of.get(a.case_id.as_str()).is_some_and(|t| in_stratum(*t, s));

    let by_type = STRATA
        .iter()
        .map(|s| {
            let rows: Vec<&AnswerRow> = answers.iter().filter(|a| of_stratum(a, s)).collect();
            let realism: Vec<f64> = rows.iter().filter_map(|a| a.record.realism.map(f64::from)).collect();
            let plaus: Vec<f64> = rows.iter().filter_map(|a| a.record.plausibility.map(f64::from)).collect();
            let (blind, mark) = blind_and_agree(rows.iter().copied(), &expected);
            let mut case_blind = Counts::new();
            let mut case_mark = Counts::new();
            let mut cases = 0;
            for it in items.iter().filter(|i| in_stratum(i.case_type, s)) {
                cases += 1;
                let rs = by_case.get(it.case_id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
                if !rs.is_empty() && rs.iter().all(|a| a.record.blind_verdict.is_some()) {
                    case_blind.add(rs.iter().all(|a| a.record.blind_verdict == Some(it.expected)));
                }
                if !rs.is_empty() && rs.iter().all(|a| a.record.agree.is_some()) {
                    case_mark.add(rs.iter().all(|a| a.record.agree == Some(true)));
                }
            }
            TypeStats {
                case_type: s.to_string(),
                cases,
                realism: stats::mean_sd(&realism),
                plausibility: stats::mean_sd(&plaus),
                blind_agreement: blind,
                agree_mark: mark,
                cases_blind_agreement: case_blind.fraction(),
                cases_agree_mark: case_mark.fraction(),
            }
        })
        .collect();

    let per_reviewer = reviewers
        .iter()
        .map(|r| ReviewerAgreement {
            reviewer: r.clone(),
            by_type: STRATA
                .iter()
                .map(|s| {
                    let (blind, mark) =
                        blind_and_agree(answers.iter().filter(|a| &a.reviewer == r && of_stratum(a, s)), &expected);
                    ReviewerTypeAgreement { case_type: s.to_string(), blind_agreement: blind, agree_mark: mark }
                })
                .collect(),
        })
        .collect();

    let inter_rater = inter_rater_over(reviewers, items, &by_case, overlap);
    let inter_rater_by_type = STRATA
        .iter()
        .filter(|s| **s != "all")
        .map(|s| {
            let typed: Vec<ItemRow> = items.iter().filter(|i| in_stratum(i.case_type, s)).cloned().collect();
            TypeInterRater {
                case_type: s.to_string(),
                cases: typed.len() as u32,
                inter_rater: inter_rater_over(reviewers, &typed, &by_case, overlap),
            }
        })
        .collect();

    ReviewStats {
        session_id: session_id.to_string(),
        session_name: session_name.to_string(),
        reviewers: reviewers.to_vec(),
        overlap,
        cases: items.len() as u32,
        assignments: answers.len() as u32,
        completed: answers.iter().filter(|a| a.record.complete()).count() as u32,
        by_type,
        per_reviewer,
        inter_rater,
        inter_rater_by_type,
        rationale: rationale_stats(reviewers, items, answers),
        computed_at: computed_at.to_string(),
    }
}

/// Agreement between reviewers over `items` (all of a session's, or those of one type).
fn inter_rater_over(
    reviewers: &[String],
    items: &[ItemRow],
    by_case: &HashMap<&str, Vec<&AnswerRow>>,
    overlap: u32,
) -> InterRater {
    InterRater {
        realism: scale_agreement(reviewers, items, by_case, |a| a.record.realism),
        plausibility: scale_agreement(reviewers, items, by_case, |a| a.record.plausibility),
        verdict: verdict_agreement(reviewers, items, by_case, overlap),
    }
}

/// Agreement between the M4 judge and the reviewers on the rationale task, per reviewer and
/// pooled; None when no item of the session has a task with the judge's side known.
fn rationale_stats(reviewers: &[String], items: &[ItemRow], answers: &[AnswerRow]) -> Option<RationaleStats> {
    let tasks: HashMap<&str, (&RationaleTask, &RationaleSource)> = items
        .iter()
        .filter_map(|i| Some((i.case_id.as_str(), (i.rationale.as_ref()?, i.rationale_source.as_ref()?))))
        .collect();
    if tasks.is_empty() {
        return None;
    }
    let type_of: HashMap<&str, CaseType> = items.iter().map(|i| (i.case_id.as_str(), i.case_type)).collect();
    let of_type = |who: Option<&str>, stratum: &str| -> (u32, Vec<rationale::Decision>) {
        let mut n_items = 0;
        let mut d = Vec::new();
        let typed = |a: &&AnswerRow| type_of.get(a.case_id.as_str()).is_some_and(|t| in_stratum(*t, stratum));
        for a in answers.iter().filter(|a| who.is_none_or(|w| a.reviewer == w)).filter(typed) {
            if let (Some((task, source)), Some(ticks)) =
                (tasks.get(a.case_id.as_str()), &a.record.rationale_established)
            {
                n_items += 1;
                d.extend(rationale::decisions(task, source, ticks));
            }
        }
        (n_items, d)
    };
    let of = |who: Option<&str>| of_type(who, "all");
    let (n, pooled) = of(None);
    let by_type = STRATA
        .iter()
        .filter(|s| **s != "all")
        .filter_map(|s| {
            let (n, d) = of_type(None, s);
            (n > 0)
                .then(|| TypeJudgeAgreement { case_type: s.to_string(), agreement: rationale::agreement(None, n, &d) })
        })
        .collect();
    let mut runs: Vec<String> = tasks.values().map(|(_, s)| s.run_id.clone()).collect();
    runs.sort();
    runs.dedup();
    Some(RationaleStats {
        items_with_task: tasks.len() as u32,
        runs,
        pooled: rationale::agreement(None, n, &pooled),
        per_reviewer: reviewers
            .iter()
            .map(|r| {
                let (n, d) = of(Some(r));
                rationale::agreement(Some(r), n, &d)
            })
            .collect(),
        by_type,
    })
}

/// Per pair of reviewers (first, second): the values both gave, case by case.
type PairedValues<T> = Vec<(String, String, Vec<(T, T)>)>;

/// For each pair of reviewers who share at least one case: the pairs of values both gave.
fn pairwise<T: Copy>(
    reviewers: &[String],
    items: &[ItemRow],
    by_case: &HashMap<&str, Vec<&AnswerRow>>,
    value: impl Fn(&AnswerRow) -> Option<T>,
) -> PairedValues<T> {
    let mut out = Vec::new();
    for (x, a) in reviewers.iter().enumerate() {
        for b in &reviewers[x + 1..] {
            let mut shared = false;
            let mut pairs = Vec::new();
            for it in items {
                let rs = by_case.get(it.case_id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
                let ra = rs.iter().find(|r| &r.reviewer == a);
                let rb = rs.iter().find(|r| &r.reviewer == b);
                if let (Some(ra), Some(rb)) = (ra, rb) {
                    shared = true;
                    if let (Some(va), Some(vb)) = (value(ra), value(rb)) {
                        pairs.push((va, vb));
                    }
                }
            }
            if shared {
                out.push((a.clone(), b.clone(), pairs));
            }
        }
    }
    out
}

fn single_pair(pairs: &[PairStat]) -> StatValue {
    match pairs.len() {
        0 => stats::undefined(0, "No two reviewers rated the same case."),
        1 => pairs[0].stat.clone(),
        n => stats::undefined(0, format!("{n} pairs of reviewers rated cases together; see the value for each pair.")),
    }
}

fn scale_agreement(
    reviewers: &[String],
    items: &[ItemRow],
    by_case: &HashMap<&str, Vec<&AnswerRow>>,
    value: impl Fn(&AnswerRow) -> Option<u8> + Copy,
) -> ScaleAgreement {
    let pairs: Vec<PairStat> = pairwise(reviewers, items, by_case, value)
        .into_iter()
        .map(|(a, b, p)| {
            let idx: Vec<(usize, usize)> = p.iter().map(|(x, y)| (*x as usize - 1, *y as usize - 1)).collect();
            PairStat { a, b, stat: stats::weighted_kappa_quadratic(&idx, 5) }
        })
        .collect();
    let units: Vec<Vec<f64>> = items
        .iter()
        .map(|it| {
            by_case
                .get(it.case_id.as_str())
                .map(|rs| rs.iter().filter_map(|r| value(r).map(f64::from)).collect())
                .unwrap_or_default()
        })
        .collect();
    ScaleAgreement {
        weighted_kappa: single_pair(&pairs),
        weighted_kappa_pairs: pairs,
        krippendorff_alpha_ordinal: stats::krippendorff_alpha(&units, Metric::Ordinal),
    }
}

fn verdict_agreement(
    reviewers: &[String],
    items: &[ItemRow],
    by_case: &HashMap<&str, Vec<&AnswerRow>>,
    overlap: u32,
) -> VerdictAgreement {
    let k = ReviewVerdict::ALL.len();
    let pairs: Vec<PairStat> = pairwise(reviewers, items, by_case, |r| r.record.blind_verdict)
        .into_iter()
        .map(|(a, b, p)| {
            let idx: Vec<(usize, usize)> = p.iter().map(|(x, y)| (x.index(), y.index())).collect();
            PairStat { a, b, stat: stats::cohen_kappa(&idx, k) }
        })
        .collect();
    let verdicts_of = |it: &ItemRow| -> Vec<ReviewVerdict> {
        by_case
            .get(it.case_id.as_str())
            .map(|rs| rs.iter().filter_map(|r| r.record.blind_verdict).collect())
            .unwrap_or_default()
    };
    let fleiss = if overlap < 2 {
        stats::undefined(
            0,
            "Each case is rated by one reviewer, so there is no agreement between reviewers to measure.",
        )
    } else {
        let table: Vec<Vec<u32>> = items
            .iter()
            .map(verdicts_of)
            .filter(|v| v.len() == overlap as usize)
            .map(|v| {
                let mut row = vec![0u32; k];
                for x in v {
                    row[x.index()] += 1;
                }
                row
            })
            .collect();
        stats::fleiss_kappa(&table)
    };
    let units: Vec<Vec<f64>> =
        items.iter().map(|it| verdicts_of(it).iter().map(|v| v.index() as f64).collect()).collect();
    VerdictAgreement {
        cohen_kappa: single_pair(&pairs),
        cohen_kappa_pairs: pairs,
        fleiss_kappa: fleiss,
        krippendorff_alpha_nominal: stats::krippendorff_alpha(&units, Metric::Nominal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::answers::{AnswerParts, AnswerRecord};

    fn item(id: &str, t: CaseType, e: ReviewVerdict) -> ItemRow {
        crate::review::repo::test_item(id, t, e)
    }

    fn ans(r: &str, id: &str, realism: u8, plaus: u8, v: ReviewVerdict, agree: bool) -> AnswerRow {
        AnswerRow {
            reviewer: r.into(),
            item_no: 1,
            case_id: id.into(),
            record: AnswerRecord {
                parts: AnswerParts {
                    realism: Some(realism),
                    realism_at: Some("t".into()),
                    plausibility: Some(plaus),
                    plausibility_at: Some("t".into()),
                    blind_verdict: Some(v),
                    blind_verdict_at: Some("t".into()),
                    revealed_at: Some("t".into()),
                    agree: Some(agree),
                    agree_at: Some("t".into()),
                    ..AnswerParts::default()
                },
                ..AnswerRecord::default()
            },
        }
    }

    #[test]
    fn type_tables_pool_ratings_and_count_cases_where_everyone_agreed() {
        use ReviewVerdict::*;
        let items = vec![
            item("c1", CaseType::Complete, Reportable),
            item("c2", CaseType::Complete, NonReportable),
            item("m1", CaseType::Missing, MissingInformation),
        ];
        let answers = vec![
            ans("A", "c1", 5, 4, Reportable, true),
            ans("B", "c1", 4, 4, Reportable, true),
            ans("A", "c2", 3, 2, Reportable, false),
            ans("B", "c2", 5, 4, NonReportable, true),
            ans("A", "m1", 4, 3, MissingInformation, true),
            ans("B", "m1", 4, 5, Uncertain, true),
        ];
        let s = compute("s", "n", 2, &["A".into(), "B".into()], &items, &answers, "now");
        let complete = &s.by_type[0];
        assert_eq!(complete.cases, 2);
        // realism 5,4,3,5: mean 4.25; sd sqrt(((.75)²+(.25)²+(1.25)²+(.75)²)/3) = sqrt(2.75/3)
        assert_eq!(complete.realism.n, 4);
        assert!((complete.realism.mean.unwrap() - 4.25).abs() < 1e-12);
        assert!((complete.realism.sd.unwrap() - (2.75f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(complete.blind_agreement.text, "3/4");
        assert_eq!(complete.agree_mark.text, "3/4");
        assert_eq!(complete.cases_blind_agreement.text, "1/2");
        assert_eq!(complete.cases_agree_mark.text, "1/2");
        let missing = &s.by_type[1];
        assert_eq!(missing.cases_blind_agreement.text, "0/1");
        assert_eq!(missing.cases_agree_mark.text, "1/1");
        assert_eq!(s.by_type[3].case_type, "all");
        assert_eq!(s.by_type[3].blind_agreement.text, "4/6");
        assert_eq!(s.per_reviewer[0].by_type[3].blind_agreement.text, "2/3");
        assert_eq!(s.per_reviewer[1].by_type[0].agree_mark.text, "2/2");
        assert_eq!(s.completed, 6);
        // inter-rater: one pair, three items
        assert_eq!(s.inter_rater.verdict.cohen_kappa_pairs.len(), 1);
        assert_eq!(s.inter_rater.verdict.cohen_kappa.n, 3);
        assert_eq!(s.inter_rater.verdict.fleiss_kappa.n, 3);
        assert_eq!(s.inter_rater.realism.weighted_kappa.n, 3);
        assert_eq!(s.inter_rater.realism.krippendorff_alpha_ordinal.n, 3);
    }

    /// Two reviewers' verdicts on four cases, agreeing on three: kappa 0.4375 / 0.6875 (below).
    const KAPPA_PAIRS: [(ReviewVerdict, ReviewVerdict); 4] = [
        (ReviewVerdict::Reportable, ReviewVerdict::Reportable),
        (ReviewVerdict::Reportable, ReviewVerdict::NonReportable),
        (ReviewVerdict::NonReportable, ReviewVerdict::NonReportable),
        (ReviewVerdict::Uncertain, ReviewVerdict::Uncertain),
    ];

    #[test]
    fn verdict_kappa_by_hand_through_the_session_tables() {
        use ReviewVerdict::*;
        // Pairs (A,B): (R,R) (R,N) (N,N) (U,U): p_o = 3/4; A: R .5, N .25, U .25; B: R .25, N .5, U .25;
        // p_e = .125 + .125 + .0625 = .3125; kappa = (.75 − .3125)/(.6875) = 0.63636…
        let items: Vec<ItemRow> = (0..4).map(|i| item(&format!("c{i}"), CaseType::Complete, Reportable)).collect();
        let pairs = KAPPA_PAIRS;
        let mut answers = Vec::new();
        for (i, (a, b)) in pairs.iter().enumerate() {
            answers.push(ans("A", &format!("c{i}"), 3, 3, *a, true));
            answers.push(ans("B", &format!("c{i}"), 3, 3, *b, true));
        }
        let s = compute("s", "n", 2, &["A".into(), "B".into()], &items, &answers, "now");
        let k = s.inter_rater.verdict.cohen_kappa.value.unwrap();
        assert!((k - 0.4375 / 0.6875).abs() < 1e-12, "{k}");
        // all ratings 3: no variation → weighted kappa and alpha undefined, with a reason
        assert_eq!(s.inter_rater.realism.weighted_kappa.value, None);
        assert!(s.inter_rater.realism.krippendorff_alpha_ordinal.note.is_some());
    }

    #[test]
    fn every_statistic_is_also_given_per_case_type() {
        use ReviewVerdict::*;
        // Complete: the four pairs of the test above (kappa 0.4375 / 0.6875), realism 3 and 5.
        // Missing: two cases, both reviewers give the by-construction verdict on one of them.
        let mut items: Vec<ItemRow> = (0..4).map(|i| item(&format!("c{i}"), CaseType::Complete, Reportable)).collect();
        items.push(item("m1", CaseType::Missing, MissingInformation));
        items.push(item("m2", CaseType::Missing, MissingInformation));
        let pairs = KAPPA_PAIRS;
        let mut answers = Vec::new();
        for (i, (a, b)) in pairs.iter().enumerate() {
            answers.push(ans("A", &format!("c{i}"), 3, 4, *a, true));
            answers.push(ans("B", &format!("c{i}"), 5, 4, *b, true));
        }
        answers.push(ans("A", "m1", 1, 2, MissingInformation, true));
        answers.push(ans("B", "m1", 2, 2, MissingInformation, true));
        answers.push(ans("A", "m2", 4, 5, Uncertain, false));
        answers.push(ans("B", "m2", 5, 5, MissingInformation, true));
        let s = compute("s", "n", 2, &["A".into(), "B".into()], &items, &answers, "now");

        let (complete, missing, uncertain) = (&s.by_type[0], &s.by_type[1], &s.by_type[2]);
        assert_eq!((complete.cases, missing.cases, uncertain.cases), (4, 2, 0));
        assert_eq!(complete.realism.mean, Some(4.0));
        assert_eq!(complete.plausibility.mean, Some(4.0));
        assert_eq!(missing.realism.mean, Some(3.0));
        assert_eq!(missing.plausibility.mean, Some(3.5));
        assert_eq!(complete.blind_agreement.text, "3/8");
        assert_eq!(missing.blind_agreement.text, "3/4");
        assert_eq!(missing.cases_blind_agreement.text, "1/2");
        assert_eq!(uncertain.realism.mean, None);

        let types: Vec<&str> = s.inter_rater_by_type.iter().map(|t| t.case_type.as_str()).collect();
        assert_eq!(types, ["complete", "missing", "uncertain"]);
        let by = |t: usize| &s.inter_rater_by_type[t].inter_rater;
        let k = by(0).verdict.cohen_kappa.value.unwrap();
        assert!((k - 0.4375 / 0.6875).abs() < 1e-12, "the complete cases alone give the by-hand kappa: {k}");
        assert_eq!(by(0).verdict.cohen_kappa.n, 4);
        assert_eq!(by(1).verdict.cohen_kappa.n, 2);
        assert_eq!(by(1).realism.krippendorff_alpha_ordinal.n, 2);
        assert_eq!(s.inter_rater_by_type[2].cases, 0);
        assert_eq!(by(2).verdict.cohen_kappa.value, None, "no uncertain case: undefined, with a reason");
        assert_eq!(s.inter_rater.verdict.cohen_kappa.n, 6, "the session-wide value is unchanged");
    }

    #[test]
    fn several_pairs_are_reported_per_pair_and_fleiss_uses_full_items() {
        use ReviewVerdict::*;
        let items = vec![item("c1", CaseType::Uncertain, Uncertain), item("c2", CaseType::Uncertain, Uncertain)];
        let answers = vec![
            ans("A", "c1", 4, 4, Uncertain, true),
            ans("B", "c1", 4, 4, Uncertain, true),
            ans("B", "c2", 2, 4, Reportable, false),
            ans("C", "c2", 4, 4, Uncertain, true),
        ];
        let s = compute("s", "n", 2, &["A".into(), "B".into(), "C".into()], &items, &answers, "now");
        assert_eq!(s.inter_rater.verdict.cohen_kappa_pairs.len(), 2, "A–B and B–C share cases; A–C do not");
        assert_eq!(s.inter_rater.verdict.cohen_kappa.value, None);
        assert_eq!(s.inter_rater.verdict.fleiss_kappa.n, 2);
        let one = compute("s", "n", 1, &["A".into()], &items[..1], &answers[..1], "now");
        assert_eq!(one.inter_rater.verdict.fleiss_kappa.value, None);
    }
}
