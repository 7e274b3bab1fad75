//! Exports: the long format (one row per reviewer × case × question answered, with the time it
//! was answered) as CSV or JSONL, and the summary table in Markdown and LaTeX (booktabs).

use crate::util::format::count;
use std::collections::HashMap;

use super::repo::{AnswerRow, ItemRow};
use super::{Fraction, MeanSd, ReviewAnswerRow, ReviewExportFormat, ReviewStats, StatValue};
use crate::error::{ApiError, ApiResult};
use crate::util::csv_text::csv_string;
use crate::util::latex::latex_escape;
use crate::util::markdown::markdown_text as md;

/// The questions of the long format, in the order rows are written.
pub const QUESTIONS: [&str; 6] = ["realism", "plausibility", "blind_verdict", "agree", "comment", "time_spent_secs"];

/// The question of the rationale task's rows (one per condition of an answered task).
pub const RATIONALE_QUESTION: &str = "rationale_condition";

/// The columns of the CSV. The last two are filled only on rationale task rows.
pub const CSV_HEADER: [&str; 11] = [
    "session_id",
    "reviewer",
    "case_id",
    "case_type",
    "item_no",
    "question",
    "answer",
    "answered_at",
    "expected_verdict",
    "condition",
    "judge_established",
];

/// Long-format rows, by reviewer, item, then question. Unanswered questions have no row.
pub fn long_rows(session_id: &str, items: &[ItemRow], answers: &[AnswerRow]) -> Vec<ReviewAnswerRow> {
    let by_id: HashMap<&str, &ItemRow> = items.iter().map(|i| (i.case_id.as_str(), i)).collect();
    let mut out = Vec::new();
    for a in answers {
        let Some(it) = by_id.get(a.case_id.as_str()) else { continue };
        let r = &a.record;
        let parts: [(Option<String>, &Option<String>); 6] = [
            (r.realism.map(|v| v.to_string()), &r.realism_at),
            (r.plausibility.map(|v| v.to_string()), &r.plausibility_at),
            (r.blind_verdict.map(|v| v.as_str().to_string()), &r.blind_verdict_at),
            (r.agree.map(|v| if v { "agree" } else { "disagree" }.to_string()), &r.agree_at),
            (Some(r.comment.clone().unwrap_or_default()), &r.comment_at),
            (Some(format!("{}", r.time_spent_secs)), &r.time_spent_at),
        ];
        for (q, (value, at)) in QUESTIONS.iter().zip(parts) {
            if let (Some(value), Some(at)) = (value, at) {
                out.push(ReviewAnswerRow {
                    session_id: session_id.to_string(),
                    reviewer: a.reviewer.clone(),
                    case_id: a.case_id.clone(),
                    case_type: it.case_type.as_str().to_string(),
                    item_no: a.item_no,
                    question: q.to_string(),
                    answer: value,
                    answered_at: at.clone(),
                    expected_verdict: it.expected.as_str().to_string(),
                    condition: None,
                    judge_established: None,
                });
            }
        }
        if let (Some(task), Some(ticks), Some(at)) = (&it.rationale, &r.rationale_established, &r.rationale_at) {
            for c in &task.conditions {
                out.push(ReviewAnswerRow {
                    session_id: session_id.to_string(),
                    reviewer: a.reviewer.clone(),
                    case_id: a.case_id.clone(),
                    case_type: it.case_type.as_str().to_string(),
                    item_no: a.item_no,
                    question: RATIONALE_QUESTION.to_string(),
                    answer: if ticks.contains(&c.name) { "established" } else { "not_established" }.to_string(),
                    answered_at: at.clone(),
                    expected_verdict: it.expected.as_str().to_string(),
                    condition: Some(c.name.clone()),
                    judge_established: it.rationale_source.as_ref().map(|s| s.judge_hits.contains(&c.name)),
                });
            }
        }
    }
    out
}

pub fn to_text(rows: &[ReviewAnswerRow], format: ReviewExportFormat) -> ApiResult<String> {
    match format {
        ReviewExportFormat::Jsonl => {
            let mut s = String::new();
            for r in rows {
                s.push_str(&serde_json::to_string(r).map_err(|e| ApiError::internal(e.to_string()))?);
                s.push('\n');
            }
            Ok(s)
        }
        ReviewExportFormat::Csv => {
            // `csv_string` guards every cell against formulas; plain numbers (ratings, seconds,
            // `item_no`) stay numbers.
            let records = rows.iter().map(|r| {
                [
                    r.session_id.clone(),
                    r.reviewer.clone(),
                    r.case_id.clone(),
                    r.case_type.clone(),
                    r.item_no.to_string(),
                    r.question.clone(),
                    r.answer.clone(),
                    r.answered_at.clone(),
                    r.expected_verdict.clone(),
                    r.condition.clone().unwrap_or_default(),
                    match r.judge_established {
                        Some(true) => "yes".to_string(),
                        Some(false) => "no".to_string(),
                        None => String::new(),
                    },
                ]
            });
            let header = CSV_HEADER.map(String::from);
            Ok(csv_string(std::iter::once(header).chain(records))?)
        }
    }
}

fn title(s: &str) -> String {
    match s {
        "all" => "All".into(),
        other => {
            let mut c = other.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        }
    }
}

fn mean_sd(m: &MeanSd, pm: &str) -> String {
    match (m.mean, m.sd) {
        (Some(mean), Some(sd)) => format!("{mean:.2}{pm}{sd:.2}"),
        (Some(mean), None) => format!("{mean:.2}"),
        _ => "–".into(),
    }
}

fn frac(f: &Fraction) -> String {
    if f.n == 0 {
        "–".into()
    } else {
        f.text.clone()
    }
}

fn stat(s: &StatValue) -> String {
    match s.value {
        Some(v) => format!("{v:.2} (n = {})", s.n),
        None => format!("undefined ({})", s.note.as_deref().unwrap_or("no data").trim_end_matches('.')),
    }
}

fn pair_lines(label: &str, pairs: &[super::PairStat]) -> Vec<String> {
    pairs.iter().map(|p| format!("- {label}, {} and {}: {}", md(&p.a), md(&p.b), stat(&p.stat))).collect()
}

/// The summary in Markdown: the per-type table, per-reviewer agreement and inter-rater agreement.
pub fn markdown(s: &ReviewStats) -> String {
    let mut out = format!("# Expert review: {}\n\n", md(&s.session_name));
    out.push_str(&format!(
        "{} ({}); each case rated by {}; {} of {} answers complete.\n\n",
        count(s.reviewers.len(), "reviewer"),
        s.reviewers.iter().map(|r| md(r)).collect::<Vec<_>>().join(", "),
        s.overlap,
        s.completed,
        s.assignments
    ));
    out.push_str("| Case type | Cases | Realism (mean ± SD) | Plausibility (mean ± SD) | Own verdict = by-construction | Agreed with by-construction |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    for t in &s.by_type {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            title(&t.case_type),
            t.cases,
            mean_sd(&t.realism, " ± "),
            mean_sd(&t.plausibility, " ± "),
            frac(&t.cases_blind_agreement),
            frac(&t.cases_agree_mark)
        ));
    }
    out.push_str(
        "\nRatings are on 1–5 scales, pooled over reviewers (SD with n − 1). The two agreement columns count cases: a case \
         agrees when every reviewer assigned to it gave the by-construction verdict blind (first column) or marked \"agree\" \
         after seeing it (second column), out of the cases where all of them answered.\n\n",
    );
    out.push_str("## Agreement with the by-construction verdict, per reviewer\n\n");
    out.push_str("Own verdict = by-construction / marked \"agree\", counted over that reviewer's answers.\n\n");
    out.push_str("| Reviewer | Complete | Missing | Uncertain | All |\n|---|---:|---:|---:|---:|\n");
    for r in &s.per_reviewer {
        let cells: Vec<String> =
            r.by_type.iter().map(|t| format!("{} / {}", frac(&t.blind_agreement), frac(&t.agree_mark))).collect();
        out.push_str(&format!("| {} | {} |\n", md(&r.reviewer), cells.join(" | ")));
    }
    let pooled: Vec<String> =
        s.by_type.iter().map(|t| format!("{} / {}", frac(&t.blind_agreement), frac(&t.agree_mark))).collect();
    out.push_str(&format!("| Pooled | {} |\n", pooled.join(" | ")));
    out.push_str("\n## Agreement between reviewers\n\n");
    let ir = &s.inter_rater;
    let mut lines = vec![
        format!("- Realism, Krippendorff's alpha (ordinal): {}", stat(&ir.realism.krippendorff_alpha_ordinal)),
        format!(
            "- Plausibility, Krippendorff's alpha (ordinal): {}",
            stat(&ir.plausibility.krippendorff_alpha_ordinal)
        ),
    ];
    lines.extend(pair_lines("Realism, Cohen's kappa with quadratic weights", &ir.realism.weighted_kappa_pairs));
    lines.extend(pair_lines(
        "Plausibility, Cohen's kappa with quadratic weights",
        &ir.plausibility.weighted_kappa_pairs,
    ));
    lines.extend(pair_lines("Own verdict, Cohen's kappa", &ir.verdict.cohen_kappa_pairs));
    lines.push(format!("- Own verdict, Fleiss' kappa: {}", stat(&ir.verdict.fleiss_kappa)));
    lines.push(format!(
        "- Own verdict, Krippendorff's alpha (nominal): {}",
        stat(&ir.verdict.krippendorff_alpha_nominal)
    ));
    out.push_str(&lines.join("\n"));
    out.push_str("\n\nn is the number of cases each statistic uses.\n");
    if !s.inter_rater_by_type.is_empty() {
        out.push_str("\n### Agreement between reviewers, by case type\n\n");
        for t in &s.inter_rater_by_type {
            let ir = &t.inter_rater;
            out.push_str(&format!(
                "- {} ({} cases): realism, alpha (ordinal) {}; plausibility, alpha (ordinal) {}; own verdict, Fleiss' kappa {}; own verdict, alpha (nominal) {}\n",
                title(&t.case_type),
                t.cases,
                stat(&ir.realism.krippendorff_alpha_ordinal),
                stat(&ir.plausibility.krippendorff_alpha_ordinal),
                stat(&ir.verdict.fleiss_kappa),
                stat(&ir.verdict.krippendorff_alpha_nominal)
            ));
        }
    }
    if let Some(r) = &s.rationale {
        out.push_str(&rationale_markdown(r));
    }
    out
}

fn share(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "–".into())
}

/// The rationale task's section of the summary: the M4 judge against each reviewer, and pooled.
pub fn rationale_markdown(r: &super::RationaleStats) -> String {
    let mut out = String::from("\n## The M4 judge against reviewers (rationale task)\n\n");
    out.push_str(&format!(
        "{} carried a model's rationale from {}. Each (item, condition) is one decision: does the rationale \
         establish the condition? Cohen's kappa compares the judge's decisions with the reviewer's.\n\n",
        count(r.items_with_task, "item"),
        r.runs.iter().map(|x| md(x)).collect::<Vec<_>>().join(", ")
    ));
    out.push_str("| Reviewer | Items | Decisions (n) | Observed agreement | Expected agreement | Cohen's kappa | Both / judge only / reviewer only / neither |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---|\n");
    let mut notes = Vec::new();
    for a in r.per_reviewer.iter().chain(std::iter::once(&r.pooled)) {
        let who = a.reviewer.as_deref().map(md).unwrap_or_else(|| "Pooled".into());
        out.push_str(&format!(
            "| {who} | {} | {} | {} | {} | {} | {} / {} / {} / {} |\n",
            a.items,
            a.kappa.n,
            share(a.observed_agreement),
            share(a.expected_agreement),
            a.kappa.value.map(|v| format!("{v:.2}")).unwrap_or_else(|| "undefined".into()),
            a.both,
            a.judge_only,
            a.reviewer_only,
            a.neither
        ));
        if let Some(c) = &a.caution {
            notes.push(format!("- {who}: {c}"));
        } else if let (None, Some(n)) = (a.kappa.value, a.kappa.note.as_deref()) {
            if a.kappa.n > 0 {
                notes.push(format!("- {who}: {n}"));
            }
        }
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
        out.push('\n');
    }
    if !r.by_type.is_empty() {
        out.push_str("\nBy case type, all reviewers pooled:\n\n");
        for t in &r.by_type {
            let a = &t.agreement;
            out.push_str(&format!(
                "- {}: {}, {}, Cohen's kappa {}\n",
                title(&t.case_type),
                count(a.items, "item"),
                count(a.kappa.n, "decision"),
                a.kappa.value.map(|v| format!("{v:.2}")).unwrap_or_else(|| "undefined".into())
            ));
        }
    }
    out
}

/// The per-type table in LaTeX with booktabs rules.
pub fn latex(s: &ReviewStats) -> String {
    let mut out = String::from("% Requires \\usepackage{booktabs}\n\\begin{table}[t]\n\\centering\n\\small\n");
    out.push_str("\\begin{tabular}{lrcccc}\n\\toprule\n");
    out.push_str("Case type & Cases & Realism & Plausibility & Own verdict & Agreed \\\\\n\\midrule\n");
    for t in &s.by_type {
        if t.case_type == "all" {
            out.push_str("\\midrule\n");
        }
        let cell = |m: &MeanSd| match m.mean {
            Some(_) => format!("${}$", mean_sd(m, " \\pm ")),
            None => "--".into(),
        };
        let f = |x: &Fraction| if x.n == 0 { "--".to_string() } else { x.text.clone() };
        out.push_str(&format!(
            "{} & {} & {} & {} & {} & {} \\\\\n",
            title(&t.case_type),
            t.cases,
            cell(&t.realism),
            cell(&t.plausibility),
            f(&t.cases_blind_agreement),
            f(&t.cases_agree_mark)
        ));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    out.push_str(&format!(
        "\\caption{{Expert review ({}): realism and plausibility on 1--5 scales (mean $\\pm$ SD over all ratings), and the \
         cases where every reviewer's own verdict matched the by-construction verdict, or every reviewer marked agreement \
         with it.}}\n",
        latex_escape(&s.session_name)
    ));
    out.push_str("\\label{tab:expert-review}\n\\end{table}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseType;
    use crate::review::answers::{AnswerParts, AnswerRecord};
    use crate::review::ReviewVerdict;

    fn item() -> ItemRow {
        crate::review::repo::test_item("c1", CaseType::Missing, ReviewVerdict::MissingInformation)
    }

    #[test]
    fn long_rows_have_one_row_per_answered_question() {
        let a = AnswerRow {
            reviewer: "A".into(),
            item_no: 4,
            case_id: "c1".into(),
            record: AnswerRecord {
                parts: AnswerParts {
                    realism: Some(4),
                    realism_at: Some("t1".into()),
                    blind_verdict: Some(ReviewVerdict::Uncertain),
                    blind_verdict_at: Some("t2".into()),
                    comment: Some("a, \"quoted\" note".into()),
                    comment_at: Some("t3".into()),
                    ..AnswerParts::default()
                },
                time_spent_secs: 30.26,
                time_spent_at: Some("t4".into()),
                rationale_required: false,
            },
        };
        let rows = long_rows("s", &[item()], &[a]);
        let qs: Vec<&str> = rows.iter().map(|r| r.question.as_str()).collect();
        assert_eq!(qs, vec!["realism", "blind_verdict", "comment", "time_spent_secs"]);
        assert_eq!(rows[1].answer, "Uncertain");
        assert_eq!(rows[1].answered_at, "t2");
        assert_eq!(rows[3].answer, "30.26");
        assert_eq!(rows[0].expected_verdict, "Missing information");
        let csv = to_text(&rows, ReviewExportFormat::Csv).unwrap();
        let mut rd = csv::Reader::from_reader(csv.as_bytes());
        let recs: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
        assert_eq!(recs.len(), 4);
        assert_eq!(&recs[2][6], "a, \"quoted\" note");
        assert_eq!(rd.headers().unwrap().iter().collect::<Vec<_>>(), CSV_HEADER.to_vec());
        let jsonl = to_text(&rows, ReviewExportFormat::Jsonl).unwrap();
        assert_eq!(jsonl.lines().count(), 4);
        let v: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
        assert_eq!(v["item_no"], 4);
        assert_eq!(v["question"], "realism");
    }

    #[test]
    fn csv_cells_that_look_like_formulas_are_quoted_but_numbers_are_not() {
        let rows: Vec<ReviewAnswerRow> = [
            ("comment", "=HYPERLINK(\"http://evil\",\"x\")"),
            ("comment", "-1 is wrong"),
            ("comment", "plain remark"),
            ("time_spent_secs", "-0.5"),
            ("realism", "4"),
        ]
        .iter()
        .map(|(q, a)| ReviewAnswerRow {
            session_id: "s".into(),
            reviewer: "@bob".into(),
            case_id: "c1".into(),
            case_type: "missing".into(),
            item_no: 1,
            question: q.to_string(),
            answer: a.to_string(),
            answered_at: "t".into(),
            expected_verdict: "Missing information".into(),
            condition: None,
            judge_established: None,
        })
        .collect();
        let csv = to_text(&rows, ReviewExportFormat::Csv).unwrap();
        let mut rd = csv::Reader::from_reader(csv.as_bytes());
        let recs: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
        assert_eq!(&recs[0][6], "'=HYPERLINK(\"http://evil\",\"x\")");
        assert_eq!(&recs[1][6], "'-1 is wrong");
        assert_eq!(&recs[2][6], "plain remark");
        assert_eq!(&recs[3][6], "-0.5");
        assert_eq!(&recs[4][6], "4");
        assert!(recs.iter().all(|r| &r[1] == "'@bob"));
        // JSONL keeps the text exactly as answered.
        let jsonl = to_text(&rows, ReviewExportFormat::Jsonl).unwrap();
        assert!(jsonl.lines().next().unwrap().contains("\"answer\":\"=HYPERLINK"));
    }

    #[test]
    fn latex_summary_escapes_the_session_name() {
        let stats = crate::review::results::compute("s", "Pilot <A|B> 50% & co", 1, &[], &[item()], &[], "t");
        let tex = latex(&stats);
        assert!(tex.contains("Expert review (Pilot \\textless{}A\\textbar{}B\\textgreater{} 50\\% \\& co)"), "{tex}");
    }
}
