//! Tables of the generation statistics and of the card library, like the paper's dataset
//! appendix, in CSV, Markdown and LaTeX, plus a `generation.md` index.

use std::path::{Path, PathBuf};

use crate::error::ApiError;
use crate::generation::stats::{CaseCountRow, GenerationStats, LibraryStats};
use crate::tables::{Cell, Column, Table};
use crate::util::files::write_atomic;

fn type_name(t: &str) -> &'static str {
    match t {
        "complete" => "Complete",
        "missing" => "Missing",
        "uncertain" => "Uncertain",
        _ => "Other",
    }
}

fn stage_name(s: &str) -> &'static str {
    match s {
        "instantiation" => "Instantiation",
        "narration" => "Complete narration",
        "missing_narration" => "Missing narration",
        _ => "Other",
    }
}

fn n(v: u64) -> Cell {
    Cell::count(Some(v))
}

/// Success rate per case type.
pub fn generation_success(s: &GenerationStats) -> Table {
    let columns = vec![
        Column::text("Case type"),
        Column::number("Started"),
        Column::number("Accepted"),
        Column::number("Dropped"),
        Column::number("Success %"),
    ];
    let mut t = Table::new(
        "gen_success",
        "Generation success by case type",
        format!(
            "Run {}: candidates started (accepted + dropped), accepted and dropped per case type; success is accepted / started. \
             Missing variants whose complete case was dropped were never started and are not counted.",
            s.run_id
        ),
        columns,
    );
    t.rows = s
        .success
        .iter()
        .map(|r| {
            vec![
                Cell::text(type_name(&r.case_type)),
                n(r.initiated),
                n(r.accepted),
                n(r.dropped),
                Cell::num(r.success_pct),
            ]
        })
        .collect();
    t
}

/// The attempt on which each stage passed, among accepted cases.
pub fn generation_winning_attempts(s: &GenerationStats) -> Table {
    let columns = vec![
        Column::text("Stage"),
        Column::number("Cases"),
        Column::number("Attempt 1"),
        Column::number("Attempt 2"),
        Column::number("Attempt 3"),
    ];
    let mut t = Table::new(
        "gen_winning_attempts",
        "Winning attempt per stage",
        "Among accepted cases, how many passed each stage on attempt 1, 2 or 3 (percent of the stage's cases in parentheses). \
         Missing cases count under instantiation and complete narration with their parent's attempts.",
        columns,
    );
    t.rows = s
        .winning_attempts
        .iter()
        .map(|r| {
            let mut row = vec![Cell::text(stage_name(&r.stage)), n(r.cases)];
            for i in 0..3 {
                row.push(Cell::CountPct { count: r.attempts.get(i).copied(), pct: r.pct.get(i).copied().flatten() });
            }
            row
        })
        .collect();
    t
}

/// Narrative length in words per case type.
pub fn generation_narrative_length(s: &GenerationStats) -> Table {
    let mut columns = vec![Column::text("Case type"), Column::number("n")];
    for c in ["Mean", "Median", "Min", "p25", "p75", "p95", "Max"] {
        columns.push(Column::number(c));
    }
    let mut t = Table::new(
        "gen_narrative_length",
        "Narrative length (words) by case type",
        "Words per accepted narrative (whitespace-separated). Percentiles interpolate linearly between ranks.",
        columns,
    );
    t.rows = s
        .narrative_length
        .iter()
        .map(|r| {
            let mut row = vec![Cell::text(type_name(&r.case_type)), n(r.n)];
            for v in [r.mean, r.median, r.min, r.p25, r.p75, r.p95, r.max] {
                row.push(Cell::num_with(v, 0));
            }
            row
        })
        .collect();
    t
}

fn count_rows(rows: &[CaseCountRow], with_number: bool) -> Vec<Vec<Cell>> {
    let mut out: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            let mut row = Vec::new();
            if with_number {
                row.push(Cell::count(r.global_no.map(u64::from)));
            }
            row.extend([Cell::text(r.key.clone()), n(r.complete), n(r.missing), n(r.uncertain), n(r.total)]);
            row
        })
        .collect();
    let sum = |f: fn(&CaseCountRow) -> u64| rows.iter().map(f).sum::<u64>();
    let mut total = Vec::new();
    if with_number {
        total.push(Cell::text(""));
    }
    total.extend([
        Cell::text("Total"),
        n(sum(|r| r.complete)),
        n(sum(|r| r.missing)),
        n(sum(|r| r.uncertain)),
        n(sum(|r| r.total)),
    ]);
    out.push(total);
    out
}

pub fn generation_cases_by_category(s: &GenerationStats) -> Table {
    let columns = vec![
        Column::text("Category"),
        Column::number("Compl."),
        Column::number("Miss."),
        Column::number("Unc."),
        Column::number("Total"),
    ];
    let mut t = Table::new(
        "gen_cases_by_category",
        "Generated cases by category and case type",
        "Accepted cases per policy category and case type.",
        columns,
    );
    t.rows = count_rows(&s.by_category, false);
    t
}

pub fn generation_cases_by_clause(s: &GenerationStats) -> Table {
    let columns = vec![
        Column::number("#"),
        Column::text("Clause"),
        Column::number("Compl."),
        Column::number("Miss."),
        Column::number("Unc."),
        Column::number("Total"),
    ];
    let mut t = Table::new(
        "gen_cases_by_clause",
        "Generated cases by clause and case type",
        "Accepted cases per clause (global clause number) and case type.",
        columns,
    );
    t.rows = count_rows(&s.by_clause, true);
    t
}

pub fn lib_cards_by_category(l: &LibraryStats) -> Table {
    let columns = vec![
        Column::text("Category"),
        Column::number("Rep."),
        Column::number("Non-Rep."),
        Column::number("Unc."),
        Column::number("Total"),
    ];
    let which = if l.approved_only { "approved cards" } else { "all current cards" };
    let mut t = Table::new(
        "lib_cards_by_category",
        "Clause cards by category and event type",
        format!(
            "The {} card library ({which}): Reportable, Non_Reportable and Uncertain cards per category.",
            l.policy
        ),
        columns,
    );
    t.rows = l
        .by_category
        .iter()
        .map(|r| vec![Cell::text(r.category.clone()), n(r.reportable), n(r.non_reportable), n(r.uncertain), n(r.total)])
        .collect();
    let s = |f: fn(&crate::generation::stats::LibraryCategoryRow) -> u64| l.by_category.iter().map(f).sum::<u64>();
    t.rows.push(vec![
        Cell::text("Total"),
        n(s(|r| r.reportable)),
        n(s(|r| r.non_reportable)),
        n(s(|r| r.uncertain)),
        n(s(|r| r.total)),
    ]);
    t
}

pub fn lib_clause_counts(l: &LibraryStats) -> Table {
    let columns = vec![
        Column::number("#"),
        Column::text("Clause"),
        Column::number("Complete"),
        Column::number("Missing var."),
        Column::number("Uncertain"),
    ];
    let mut t = Table::new(
        "lib_clause_counts",
        "Cards and missing-information variants per clause",
        "Reportable and Non_Reportable cards (Complete), their missing-information variants, and Uncertain cards, per clause.",
        columns,
    );
    t.rows = l
        .by_clause
        .iter()
        .map(|r| {
            vec![
                Cell::count(Some(u64::from(r.global_no))),
                Cell::text(r.label.clone()),
                n(r.complete_cards),
                n(r.missing_variants),
                n(r.uncertain_cards),
            ]
        })
        .collect();
    let s = |f: fn(&crate::generation::stats::LibraryClauseRow) -> u64| l.by_clause.iter().map(f).sum::<u64>();
    t.rows.push(vec![
        Cell::text(""),
        Cell::text("Total"),
        n(s(|r| r.complete_cards)),
        n(s(|r| r.missing_variants)),
        n(s(|r| r.uncertain_cards)),
    ]);
    t
}

pub fn lib_card_shape(l: &LibraryStats) -> Table {
    let columns = vec![
        Column::text("Field"),
        Column::text("Event type"),
        Column::number("Cards"),
        Column::number("Mean"),
        Column::number("Med."),
        Column::number("≤2").latex(&["\\textbf{$\\leq$2}"]),
        Column::number("3–4").latex(&["\\textbf{3--4}"]),
        Column::number("≥5").latex(&["\\textbf{$\\geq$5}"]),
        Column::text("Range"),
    ];
    let mut t = Table::new(
        "lib_card_shape",
        "Boundary conditions and basic event elements per card",
        "Per event type: mean and median count per card, cards with at most 2, 3 to 4, and 5 or more, and the range.",
        columns,
    );
    t.rows = l
        .shape
        .iter()
        .map(|r| {
            let field = if r.measure == "boundary_conditions" { "Boundary conditions" } else { "Basic event elements" };
            let range = match (r.min, r.max) {
                (Some(a), Some(b)) => format!("{a}–{b}"),
                _ => String::new(),
            };
            vec![
                Cell::text(field),
                Cell::text(r.event_type.clone()),
                n(r.cards),
                Cell::num_with(r.mean, 2),
                Cell::num(r.median),
                n(r.at_most_2),
                n(r.from_3_to_4),
                n(r.at_least_5),
                Cell::text(range),
            ]
        })
        .collect();
    t
}

pub fn lib_missing_shape(l: &LibraryStats) -> Table {
    let mut columns = vec![Column::text("Withheld slots")];
    for c in ["1", "2", "3", "4", "≥5"] {
        columns.push(Column::number(c));
    }
    columns.push(Column::number("Mean"));
    columns.push(Column::number("Med."));
    let m = &l.missing;
    let mut t = Table::new(
        "lib_missing_shape",
        "Withheld slots per missing-information variant",
        format!(
            "{} variants on {} parent cards ({} with one variant, {} with more).",
            m.variants, m.parents_with_variants, m.parents_with_one, m.parents_with_more
        ),
        columns,
    );
    let mut row = vec![Cell::text(format!("Variants (n = {})", m.variants))];
    row.extend(m.withheld.iter().map(|v| n(*v)));
    row.push(Cell::num_with(m.mean, 2));
    row.push(Cell::num(m.median));
    t.rows = vec![row];
    t
}

pub fn generation_tables(s: &GenerationStats) -> Vec<Table> {
    vec![
        generation_success(s),
        generation_winning_attempts(s),
        generation_narrative_length(s),
        generation_cases_by_category(s),
        generation_cases_by_clause(s),
    ]
}

pub fn library_tables(l: &LibraryStats) -> Vec<Table> {
    vec![lib_cards_by_category(l), lib_clause_counts(l), lib_card_shape(l), lib_missing_shape(l)]
}

/// Write the tables of a generation run and/or of the card library into `out_dir/tables/`, the
/// statistics as JSON, and `generation.md` listing them. Returns the paths written.
pub fn write_generation_files(
    gen: Option<&GenerationStats>,
    lib: Option<&LibraryStats>,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ApiError> {
    let mut written = Vec::new();
    let mut index = String::from("# PSEBench generation and card-library statistics\n\n");
    index.push_str(&format!("Written by psebench {}.\n\n", crate::version()));
    let put = |rel: String, bytes: &[u8], written: &mut Vec<PathBuf>| -> Result<(), ApiError> {
        let path = out_dir.join(&rel);
        write_atomic(&path, bytes)?;
        written.push(path);
        Ok(())
    };
    let section = |title: &str,
                   tables: Vec<Table>,
                   json_name: &str,
                   json: Vec<u8>,
                   index: &mut String,
                   written: &mut Vec<PathBuf>|
     -> Result<(), ApiError> {
        index.push_str(&format!("## {title}\n\n| Table | Files |\n| :--- | :--- |\n"));
        for t in tables {
            put(format!("tables/{}.csv", t.id), t.to_csv()?.as_bytes(), written)?;
            put(format!("tables/{}.md", t.id), t.to_markdown().as_bytes(), written)?;
            put(format!("tables/{}.tex", t.id), t.to_latex().as_bytes(), written)?;
            index.push_str(&format!(
                "| {} | [Markdown](tables/{id}.md) · [CSV](tables/{id}.csv) · [LaTeX](tables/{id}.tex) |\n",
                t.title.replace('|', "\\|"),
                id = t.id
            ));
        }
        put(json_name.to_string(), &json, written)?;
        index.push_str(&format!("\nData: [{json_name}]({json_name})\n\n"));
        Ok(())
    };
    let enc = |v: &dyn erased::Json| v.bytes();
    if let Some(s) = gen {
        section(
            &format!("Generation run {}", s.run_id),
            generation_tables(s),
            "generation.json",
            enc(s),
            &mut index,
            &mut written,
        )?;
    }
    if let Some(l) = lib {
        section(
            &format!("Card library ({})", l.policy),
            library_tables(l),
            "library.json",
            enc(l),
            &mut index,
            &mut written,
        )?;
    }
    let path = out_dir.join("generation.md");
    write_atomic(&path, index.as_bytes())?;
    written.push(path);
    Ok(written)
}

mod erased {
    /// Pretty JSON of either statistics type.
    pub trait Json {
        fn bytes(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Json for T {
        fn bytes(&self) -> Vec<u8> {
            serde_json::to_vec_pretty(self).unwrap_or_default()
        }
    }
}
