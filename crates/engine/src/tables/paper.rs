//! The paper's tables built from a metrics report: overall results, M1/M3/M4 by case type,
//! behaviour profile, precision/recall breakdown, uncertain routing, ask counts and per-clause M1.

use super::model::{Best, Cell, Column, ColumnGroup, Table};
use crate::metrics::per_clause::clause_rows;
use crate::metrics::{CaseTypeMetrics, MetricsReport, ModelMetrics, Prf};
use crate::policy::PolicyPack;
use crate::util::format::fmt_thousands;

/// Every table, in the order they appear in the paper (per-clause M1 last).
pub fn all_tables(report: &MetricsReport, pack: &PolicyPack) -> Vec<Table> {
    vec![
        table1_overall(report),
        table2_m1_by_case_type(report),
        table3_behavior(report),
        prf_breakdown(report),
        m3_by_case_type(report),
        m4_by_case_type(report),
        uncertain_routing(report),
        ask_count_distribution(report),
        per_clause_m1(report, pack),
    ]
}

/// [`all_tables`] with notes of the caller's (e.g. that the runs shown are not comparable) after
/// each caption.
pub fn all_tables_noted(report: &MetricsReport, pack: &PolicyPack, notes: &[String]) -> Vec<Table> {
    let mut tables = all_tables(report, pack);
    for t in &mut tables {
        for n in notes {
            if !t.caption.is_empty() {
                t.caption.push(' ');
            }
            t.caption.push_str(n);
        }
    }
    tables
}

fn f1(p: &Option<Prf>) -> Option<f64> {
    p.map(|p| p.f1)
}

fn model_cell(m: &ModelMetrics) -> Cell {
    Cell::text(m.model.clone())
}

/// Which case type a column is about.
#[derive(Clone, Copy)]
enum Kind {
    Complete,
    Missing,
    Uncertain,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Complete, Kind::Missing, Kind::Uncertain];
    fn name(self) -> &'static str {
        match self {
            Kind::Complete => "Complete",
            Kind::Missing => "Missing",
            Kind::Uncertain => "Uncertain",
        }
    }
    fn of(self, m: &ModelMetrics) -> &CaseTypeMetrics {
        match self {
            Kind::Complete => &m.by_case_type.complete,
            Kind::Missing => &m.by_case_type.missing,
            Kind::Uncertain => &m.by_case_type.uncertain,
        }
    }
}

/// How many cases of a type the report covers: "3,455", or a range when models disagree.
fn type_count(report: &MetricsReport, kind: Kind) -> Option<String> {
    let counts: Vec<u64> = report.models.iter().map(|m| kind.of(m).cases).collect();
    let lo = counts.iter().min()?;
    let hi = counts.iter().max()?;
    Some(if lo == hi { fmt_thousands(*lo) } else { format!("{}–{}", fmt_thousands(*lo), fmt_thousands(*hi)) })
}

/// "complete 3,455, missing 1,362, uncertain 257" (empty when there are no models).
fn type_counts_sentence(report: &MetricsReport) -> String {
    let parts: Vec<String> = Kind::ALL
        .iter()
        .filter_map(|k| type_count(report, *k).map(|n| format!("{} {n}", k.name().to_lowercase())))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" Cases per type: {}.", parts.join(", "))
    }
}

/// "the 257 uncertain cases" or "the uncertain cases" when unknown.
fn the_cases(report: &MetricsReport, kind: Kind) -> String {
    match type_count(report, kind) {
        Some(n) => format!("the {n} {} cases", kind.name().to_lowercase()),
        None => format!("the {} cases", kind.name().to_lowercase()),
    }
}

/// Table 1: one row per model with M1–M8 (F1 for the F1-style metrics); best per column in bold.
pub fn table1_overall(report: &MetricsReport) -> Table {
    let metric = |name: &str, detail: &str| {
        let bold = format!("\\textbf{{{name}}}");
        Column::number(name).best(Best::Max).latex(&[bold.as_str(), detail])
    };
    let columns = vec![
        Column::text("Model"),
        metric("M1", "Verdict acc."),
        metric("M2", "Clause acc."),
        metric("M3", "Evidence F1"),
        metric("M4", "BC hit rate"),
        metric("M5", "Missing det. F1"),
        metric("M6", "Slot ident. F1"),
        metric("M7", "Uncertain det. F1"),
        metric("M8", "Reportable det. F1"),
    ];
    let mut t = Table::new(
        "table1_overall",
        "Overall results (M1–M8)",
        "Headline metrics per model, in percent. M1 verdict accuracy; M2 clause accuracy (cases both gold and \
         predicted Reportable); M3 evidence-citation F1; M4 boundary-condition hit rate; M5 missing-case detection F1; \
         M6 missing-slot identification F1; M7 uncertain detection F1; M8 reportable detection F1. Bold marks the \
         highest value of each column; – means the metric is undefined for this data.",
        columns,
    );
    t.rows = report
        .models
        .iter()
        .map(|m| {
            vec![
                model_cell(m),
                Cell::num(m.m1),
                Cell::num(m.m2),
                Cell::num(f1(&m.m3)),
                Cell::num(m.m4),
                Cell::num(f1(&m.m5)),
                Cell::num(f1(&m.m6)),
                Cell::num(f1(&m.m7)),
                Cell::num(f1(&m.m8)),
            ]
        })
        .collect();
    t
}

/// Columns Complete / Missing / Uncertain; with `with_n`, each header carries its case count.
fn case_type_columns(report: &MetricsReport, with_n: bool, best: Best) -> Vec<Column> {
    let mut cols = vec![Column::text("Model")];
    for k in Kind::ALL {
        let bold = format!("\\textbf{{{}}}", k.name());
        let col = match type_count(report, k).filter(|_| with_n) {
            Some(n) => {
                let tex_num = |s: &str| s.replace(',', "{,}");
                let tex_n = match n.split_once('–') {
                    Some((lo, hi)) => format!("{{\\footnotesize ($n{{=}}{}$--${}$)}}", tex_num(lo), tex_num(hi)),
                    None => format!("{{\\footnotesize ($n{{=}}{}$)}}", tex_num(&n)),
                };
                Column::number(format!("{} (n={n})", k.name())).latex(&[bold.as_str(), tex_n.as_str()])
            }
            None => Column::number(k.name()).latex(&[bold.as_str()]),
        };
        cols.push(col.best(best));
    }
    cols
}

/// Table 2: M1 per case type, with the number of cases of each type in the header.
pub fn table2_m1_by_case_type(report: &MetricsReport) -> Table {
    let mut t = Table::new(
        "table2_m1_by_case_type",
        "Verdict accuracy (M1) by case type",
        "M1 in percent on each case type; n is the number of cases of that type. Bold marks the highest \
         value of each column.",
        case_type_columns(report, true, Best::Max),
    );
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let mut row = vec![model_cell(m)];
            row.extend(Kind::ALL.iter().map(|k| Cell::num(k.of(m).m1)));
            row
        })
        .collect();
    t
}

/// Table 3: how often a model skips asking on missing cases and where uncertain cases go.
pub fn table3_behavior(report: &MetricsReport) -> Table {
    let columns = vec![
        Column::text("Model").latex(&["\\textbf{Model}", ""]),
        Column::number("Missing no-ask %").latex(&["\\textbf{Missing}", "\\textbf{no-ask \\%}"]),
        Column::number("Uncertain →Unc %").latex(&["", "\\textbf{$\\to$Unc}"]),
        Column::number("Uncertain →Rep %").latex(&["", "\\textbf{$\\to$Rep}"]),
    ];
    let caption = format!(
        "Behaviour profile. Missing no-ask %: share of {} on which the model never used ASK. \
         Uncertain →Unc / →Rep: share of {} the model labelled Uncertain (the correct answer) or Reportable.",
        the_cases(report, Kind::Missing),
        the_cases(report, Kind::Uncertain)
    );
    let mut t = Table::new("table3_behavior", "Behaviour profile", caption, columns);
    t.groups.push(ColumnGroup { latex: "\\textbf{Uncertain (\\%)}".into(), first: 2, span: 2 });
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let routing = m.behavior.uncertain_routing_pct.as_ref();
            vec![
                model_cell(m),
                Cell::num(m.behavior.missing_no_ask_pct),
                Cell::num(routing.and_then(|r| r.get("Uncertain").copied())),
                Cell::num(routing.and_then(|r| r.get("Reportable").copied())),
            ]
        })
        .collect();
    t
}

/// Reads one F1-style metric of a model.
type PrfOf = fn(&ModelMetrics) -> Option<Prf>;

/// Precision, recall and F1 behind M3, M5, M6, M7 and M8.
pub fn prf_breakdown(report: &MetricsReport) -> Table {
    let metrics: [(&str, &str, PrfOf); 5] = [
        ("M3", "Evidence", |m| m.m3),
        ("M5", "Missing det.", |m| m.m5),
        ("M6", "Slot ident.", |m| m.m6),
        ("M7", "Uncertain det.", |m| m.m7),
        ("M8", "Reportable det.", |m| m.m8),
    ];
    let mut columns = vec![Column::text("Model")];
    let mut groups = Vec::new();
    for (name, detail, _) in &metrics {
        groups.push(ColumnGroup { latex: format!("\\textbf{{{name}}} {detail}"), first: columns.len(), span: 3 });
        for part in ["P", "R", "F1"] {
            columns.push(Column::number(format!("{name} {part}")).latex(&[part]));
        }
    }
    let mut t = Table::new(
        "prf_breakdown",
        "Precision, recall and F1 of the F1-style metrics",
        "Precision (P), recall (R) and F1 in percent behind each F1-style metric, pooled over cases. M3 evidence \
         citation; M5 missing-case detection; M6 missing-slot identification (missing cases where the model asked); \
         M7 uncertain detection; M8 reportable detection.",
        columns,
    );
    t.groups = groups;
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let mut row = vec![model_cell(m)];
            for (_, _, get) in &metrics {
                let p = get(m);
                row.push(Cell::num(p.map(|p| p.precision)));
                row.push(Cell::num(p.map(|p| p.recall)));
                row.push(Cell::num(p.map(|p| p.f1)));
            }
            row
        })
        .collect();
    t
}

/// M3 (evidence-citation F1) per case type.
pub fn m3_by_case_type(report: &MetricsReport) -> Table {
    let mut t = Table::new(
        "m3_by_case_type",
        "Evidence-citation F1 (M3) by case type",
        format!(
            "M3 F1 in percent per case type, pooled over the correctly triaged cases of that type that have a \
             gold legal basis.{}",
            type_counts_sentence(report)
        ),
        case_type_columns(report, false, Best::None),
    );
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let mut row = vec![model_cell(m)];
            row.extend(Kind::ALL.iter().map(|k| Cell::num(f1(&k.of(m).m3))));
            row
        })
        .collect();
    t
}

/// M4 (boundary-condition hit rate) per case type.
pub fn m4_by_case_type(report: &MetricsReport) -> Table {
    let mut t = Table::new(
        "m4_by_case_type",
        "Boundary-condition hit rate (M4) by case type",
        format!(
            "M4 in percent per case type: boundary conditions the judge found in the rationale, over those listed, \
             on correctly triaged cases of that type.{}",
            type_counts_sentence(report)
        ),
        case_type_columns(report, false, Best::None),
    );
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let mut row = vec![model_cell(m)];
            row.extend(Kind::ALL.iter().map(|k| Cell::num(k.of(m).m4)));
            row
        })
        .collect();
    t
}

/// Verdicts given on uncertain cases: counts with row percentages.
pub fn uncertain_routing(report: &MetricsReport) -> Table {
    let keys = ["Uncertain", "Reportable", "Non-reportable", "none"];
    let columns = vec![
        Column::text("Model"),
        Column::number("→Unc.").latex(&["\\textbf{$\\to$Unc.}"]),
        Column::number("→Rep.").latex(&["\\textbf{$\\to$Rep.}"]),
        Column::number("→Non-rep.").latex(&["\\textbf{$\\to$Non-rep.}"]),
        Column::number("None").latex(&["\\textbf{None}"]),
    ];
    let caption = format!(
        "Verdicts on {}: number of cases with the row percentage in parentheses. Only →Unc. is correct; \
         None counts runs that ended without a usable verdict.",
        the_cases(report, Kind::Uncertain)
    );
    let mut t = Table::new("uncertain_routing", "Where uncertain cases are routed", caption, columns);
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let mut row = vec![model_cell(m)];
            for k in keys {
                let count = m.uncertain_routing_counts.as_ref().and_then(|c| c.get(k).copied());
                let pct = m.behavior.uncertain_routing_pct.as_ref().and_then(|p| p.get(k).copied());
                row.push(Cell::CountPct { count, pct });
            }
            row
        })
        .collect();
    t
}

/// Distribution of the number of ASK actions on missing cases, with the mean.
pub fn ask_count_distribution(report: &MetricsReport) -> Table {
    let keys = ["0", "1", "2", "3", "4+"];
    let mut columns = vec![Column::text("Model")];
    for k in ["0", "1", "2", "3"] {
        let bold = format!("\\textbf{{{k}}}");
        columns.push(Column::number(k).latex(&[bold.as_str()]));
    }
    columns.push(Column::number("≥4").latex(&["\\textbf{$\\geq$4}"]));
    columns.push(Column::number("Avg.").latex(&["\\textbf{Avg.}"]));
    let caption = format!(
        "Questions asked on {}: percent of those cases on which the model used ASK 0, 1, 2, 3 or at least 4 \
         times. Avg. is the mean number of ASK actions per missing case.",
        the_cases(report, Kind::Missing)
    );
    let mut t =
        Table::new("ask_count_distribution", "How many questions models ask on missing cases", caption, columns);
    t.rows = report
        .models
        .iter()
        .map(|m| {
            let dist = m.behavior.missing_ask_count_pct.as_ref();
            let mut row = vec![model_cell(m)];
            row.extend(keys.iter().map(|k| Cell::num(dist.and_then(|d| d.get(*k).copied()))));
            row.push(Cell::num_with(m.behavior.missing_avg_asks, 2));
            row
        })
        .collect();
    t
}

/// M1 per clause: rows are the pack's clauses in global order, one column per model, plus the mean.
pub fn per_clause_m1(report: &MetricsReport, pack: &PolicyPack) -> Table {
    let mut columns = vec![Column::text("Clause"), Column::text("Short title"), Column::number("Cases")];
    columns.extend(report.models.iter().map(|m| Column::number(m.model.clone())));
    columns.push(Column::number("Mean"));
    let caption = format!(
        "Verdict accuracy (M1, %) on the cases written from each clause of {}, one column per model. Cases is the \
         number of cases for the clause; Mean averages the models that have a value.",
        if pack.name.is_empty() { pack.id.clone() } else { pack.name.clone() }
    );
    let mut t = Table::new("per_clause_m1", "Verdict accuracy (M1) by clause", caption, columns);
    t.rows = clause_rows(report, pack)
        .into_iter()
        .map(|r| {
            let mut row = vec![Cell::text(r.label), Cell::text(r.short_title), Cell::count(r.cases)];
            row.extend(r.per_model.into_iter().map(Cell::num));
            row.push(Cell::num(r.mean));
            row
        })
        .collect();
    t
}
