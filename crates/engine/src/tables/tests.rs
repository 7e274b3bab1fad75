//! Table contents checked exactly on a small hand-built report, and shape checks on 1, 3 and 15
//! models, with nulls, and on an empty report.

use indexmap::IndexMap;

use super::fixtures::{empty, model, pack, prf, report};
use super::*;
use crate::metrics::{MetricsReport, ModelMetrics};

fn map<V: Copy>(pairs: &[(&str, V)]) -> IndexMap<String, V> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Two models with round numbers; the second has a LaTeX-hostile name and some nulls.
fn small() -> MetricsReport {
    let mut a = model("GPT-5.5", 0.9, 0.8, 900.0);
    a.m1 = Some(93.64);
    a.m2 = Some(97.5);
    a.m3 = Some(prf(80.0, 70.0));
    a.m4 = Some(87.0);
    a.m5 = Some(prf(81.0, 83.0));
    a.m6 = Some(prf(88.0, 69.0));
    a.m7 = Some(prf(98.0, 65.0));
    a.m8 = Some(prf(86.0, 97.0));
    a.by_case_type.complete.m1 = Some(96.8);
    a.by_case_type.missing.m1 = Some(90.9);
    a.by_case_type.uncertain.m1 = Some(65.5);
    a.behavior.missing_no_ask_pct = Some(15.0);
    a.behavior.uncertain_routing_pct =
        Some(map(&[("Uncertain", 65.54), ("Reportable", 33.3), ("Non-reportable", 0.78), ("none", 0.39)]));
    a.uncertain_routing_counts =
        Some(map(&[("Uncertain", 170), ("Reportable", 84), ("Non-reportable", 2), ("none", 1)]));
    a.behavior.missing_ask_count_pct = Some(map(&[("0", 15.0), ("1", 72.1), ("2", 8.2), ("3", 3.3), ("4+", 1.4)]));
    a.behavior.missing_avg_asks = Some(1.0434);

    let mut b: ModelMetrics = model("my_model #2 & 50%", 0.7, 0.3, 300.0);
    b.m1 = Some(89.0);
    b.m2 = None;
    b.m3 = Some(prf(78.0, 58.0));
    b.m4 = Some(85.04);
    b.m5 = None;
    b.m6 = None;
    b.m7 = Some(prf(36.0, 8.0));
    b.m8 = Some(prf(81.0, 94.0));
    b.by_case_type.complete.m1 = Some(96.0);
    b.by_case_type.missing.m1 = None;
    b.by_case_type.uncertain.m1 = Some(8.8);
    b.behavior.missing_no_ask_pct = None;
    b.behavior.uncertain_routing_pct = None;
    b.uncertain_routing_counts = None;
    b.behavior.missing_ask_count_pct = None;
    b.behavior.missing_avg_asks = None;
    MetricsReport { models: vec![a, b], ..Default::default() }
}

#[test]
fn table1_csv_is_exact() {
    let t = table1_overall(&small());
    assert_eq!(
        t.to_csv().unwrap(),
        "Model,M1,M2,M3,M4,M5,M6,M7,M8\n\
         GPT-5.5,93.6,97.5,74.7,87.0,82.0,77.4,78.2,91.2\n\
         my_model #2 & 50%,89.0,,66.5,85.0,,,13.1,87.0\n"
    );
}

#[test]
fn table1_markdown_aligns_numbers_right_and_bolds_best() {
    let md = table1_overall(&small()).to_markdown();
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines[0], "**Overall results (M1–M8)**");
    // M2, M5 and M6 have a single value: nothing to compare, so nothing is bold there.
    assert_eq!(
        lines[2],
        "| Model             |       M1 |   M2 |       M3 |       M4 |   M5 |   M6 |       M7 |       M8 |"
    );
    assert_eq!(
        lines[3],
        "| :---------------- | -------: | ---: | -------: | -------: | ---: | ---: | -------: | -------: |"
    );
    assert_eq!(
        lines[4],
        "| GPT-5.5           | **93.6** | 97.5 | **74.7** | **87.0** | 82.0 | 77.4 | **78.2** | **91.2** |"
    );
    assert_eq!(
        lines[5],
        "| my_model #2 & 50% |     89.0 |    – |     66.5 |     85.0 |    – |    – |     13.1 |     87.0 |"
    );
}

#[test]
fn table1_latex_escapes_names_and_bolds_the_best() {
    let tex = table1_overall(&small()).to_latex();
    assert!(tex.contains("\\begin{table*}[t]"), "{tex}");
    assert!(tex.contains("\\begin{tabular}{lrrrrrrrr}\n\\toprule\n"), "{tex}");
    assert!(tex.contains("\\textbf{Model} & \\textbf{M1} & \\textbf{M2}"), "{tex}");
    assert!(tex.contains(" & Verdict acc. & Clause acc. & "), "{tex}");
    assert!(tex.contains(
        "GPT-5.5 & \\textbf{93.6} & 97.5 & \\textbf{74.7} & \\textbf{87.0} & 82.0 & 77.4 & \\textbf{78.2} & \\textbf{91.2} \\\\\n"
    ), "{tex}");
    assert!(
        tex.contains("my\\_model \\#2 \\& 50\\% & 89.0 & -- & 66.5 & 85.0 & -- & -- & 13.1 & 87.0 \\\\\n"),
        "{tex}"
    );
    assert!(tex.contains("\\label{tab:table1_overall}"));
    assert!(tex.contains("\\midrule") && tex.contains("\\bottomrule"));
}

#[test]
fn table2_has_case_counts_in_the_header() {
    let t = table2_m1_by_case_type(&small());
    let csv = t.to_csv().unwrap();
    assert!(csv.starts_with("Model,\"Complete (n=3,455)\",\"Missing (n=1,362)\",Uncertain (n=257)\n"), "{csv}");
    assert!(csv.contains("GPT-5.5,96.8,90.9,65.5\n"), "{csv}");
    assert!(csv.contains("my_model #2 & 50%,96.0,,8.8\n"), "{csv}");
    let tex = t.to_latex();
    assert!(tex.contains("{\\footnotesize ($n{=}3{,}455$)}"), "{tex}");
    assert!(tex.contains("GPT-5.5 & \\textbf{96.8} & 90.9 & \\textbf{65.5}"), "{tex}");
    let md = t.to_markdown();
    assert!(md.contains("| Complete (n=3,455) |"), "{md}");
}

#[test]
fn table3_behavior_profile() {
    let t = table3_behavior(&small());
    assert_eq!(
        t.to_csv().unwrap(),
        "Model,Missing no-ask %,Uncertain →Unc %,Uncertain →Rep %\nGPT-5.5,15.0,65.5,33.3\nmy_model #2 & 50%,,,\n"
    );
    let tex = t.to_latex();
    assert!(tex.contains("\\multicolumn{2}{c}{\\textbf{Uncertain (\\%)}}"), "{tex}");
    assert!(tex.contains("\\cmidrule(lr){3-4}"), "{tex}");
    assert!(t.caption.contains("1,362 missing cases") && t.caption.contains("257 uncertain cases"), "{}", t.caption);
}

#[test]
fn prf_breakdown_has_p_r_f1_per_metric() {
    let t = prf_breakdown(&small());
    assert_eq!(t.columns.len(), 16);
    let header = t.to_csv().unwrap().lines().next().unwrap_or_default().to_string();
    assert_eq!(header, "Model,M3 P,M3 R,M3 F1,M5 P,M5 R,M5 F1,M6 P,M6 R,M6 F1,M7 P,M7 R,M7 F1,M8 P,M8 R,M8 F1");
    assert!(t
        .to_csv()
        .unwrap()
        .contains("GPT-5.5,80.0,70.0,74.7,81.0,83.0,82.0,88.0,69.0,77.4,98.0,65.0,78.2,86.0,97.0,91.2\n"));
    let tex = t.to_latex();
    assert!(tex.contains("\\multicolumn{3}{c}{\\textbf{M3} Evidence}"), "{tex}");
    assert!(tex.contains("\\cmidrule(lr){14-16}"), "{tex}");
    assert!(tex.contains("\\scriptsize"), "{tex}");
}

#[test]
fn routing_shows_counts_with_row_percentages() {
    let t = uncertain_routing(&small());
    assert_eq!(
        t.to_csv().unwrap(),
        "Model,→Unc.,→Rep.,→Non-rep.,None\nGPT-5.5,170 (65.5),84 (33.3),2 (0.8),1 (0.4)\nmy_model #2 & 50%,,,,\n"
    );
    let tex = t.to_latex();
    assert!(tex.contains("\\textbf{$\\to$Non-rep.}"), "{tex}");
    assert!(tex.contains("GPT-5.5 & 170 (65.5) & 84 (33.3) & 2 (0.8) & 1 (0.4) \\\\"), "{tex}");
}

#[test]
fn ask_distribution_with_average() {
    let t = ask_count_distribution(&small());
    assert_eq!(t.to_csv().unwrap().lines().next(), Some("Model,0,1,2,3,≥4,Avg."));
    assert!(t.to_csv().unwrap().contains("GPT-5.5,15.0,72.1,8.2,3.3,1.4,1.04\n"));
    assert!(t.to_latex().contains("\\textbf{$\\geq$4}"));
    let md = t.to_markdown();
    assert!(md.contains("| :---------------- | ---: | ---: | --: | --: | --: | ---: |"), "{md}");
}

#[test]
fn case_type_tables_for_m3_and_m4() {
    let r = small();
    let m3 = m3_by_case_type(&r);
    assert_eq!(m3.to_csv().unwrap().lines().next(), Some("Model,Complete,Missing,Uncertain"));
    assert_eq!(m3.rows[0].len(), 4);
    assert!(m3.caption.contains("complete 3,455, missing 1,362, uncertain 257"), "{}", m3.caption);
    let m4 = m4_by_case_type(&r);
    assert_eq!(m4.rows.len(), 2);
    // Neither is bolded (the paper does not rank these).
    assert!(!m4.to_latex().contains("\\textbf{7"));
}

#[test]
fn per_clause_rows_follow_the_pack_order() {
    let pack = pack();
    let r = report(3, true);
    let t = per_clause_m1(&r, &pack);
    assert_eq!(t.rows.len(), 29);
    assert_eq!(t.columns.len(), 3 + 3 + 1);
    assert_eq!(t.rows[0][0].plain().as_deref(), Some("Surgical Events clause 1"));
    assert_eq!(t.rows[0][1].plain().as_deref(), Some("Wrong body part (wrong site)"));
    assert_eq!(t.rows[28][0].plain().as_deref(), Some("Radiologic Events clause 1"));
    // Mean is the plain average of the models' values.
    let rows = clause_rows(&r, &pack);
    let values: Vec<f64> = rows[0].per_model.iter().flatten().copied().collect();
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    assert_eq!(rows[0].mean, Some(mean));
    assert_eq!(t.rows[0].last().and_then(Cell::plain), fmt_fixed(mean, 1));
}

#[test]
fn unknown_clause_ids_are_appended() {
    let pack = pack();
    let mut r = report(1, false);
    r.models[0].by_clause.push(crate::metrics::ClauseAccuracy {
        clause_id: "Other_9".into(),
        cases: 3,
        m1: Some(50.0),
    });
    let rows = clause_rows(&r, &pack);
    assert_eq!(rows.len(), 30);
    assert_eq!(rows[29].label, "Other_9");
    assert!(!rows[29].in_pack);
}

#[test]
fn every_table_handles_1_3_15_and_no_models() {
    let pack = pack();
    for n in [0usize, 1, 3, 15] {
        let r = if n == 0 { empty() } else { report(n, true) };
        for t in all_tables(&r, &pack) {
            let expected_rows = if t.id == "per_clause_m1" { 29 } else { n };
            assert_eq!(t.rows.len(), expected_rows, "{} with {n} models", t.id);
            for row in &t.rows {
                assert_eq!(row.len(), t.columns.len(), "{} row width", t.id);
            }
            let csv = t.to_csv().unwrap();
            assert_eq!(csv.lines().count(), expected_rows + 1, "{}", t.id);
            let md = t.to_markdown();
            assert!(md.contains("| :--"), "{}", t.id);
            let tex = t.to_latex();
            assert!(tex.contains(&format!("\\label{{tab:{}}}", t.id)));
            assert_eq!(tex.matches("\\begin{").count(), tex.matches("\\end{").count(), "{}", t.id);
            if n == 1 {
                assert!(!md.contains("**") || md.starts_with("**"), "single model must not be bolded: {}", t.id);
                assert_eq!(md.matches("**").count(), 2, "only the title is bold with one model: {}", t.id);
            }
        }
    }
}

#[test]
fn table_ids_are_unique() {
    let ids: Vec<String> = all_tables(&small(), &pack()).into_iter().map(|t| t.id).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(ids.len(), sorted.len());
}

#[test]
fn write_report_files_writes_everything() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let pack = pack();
    let files =
        crate::export::write_report_files(&report(3, true), &pack, dir.path()).unwrap_or_else(|e| panic!("{e}"));
    // 9 tables × 3 formats + 5 charts × 3 files + metrics.json + index.md.
    assert_eq!(files.len(), 9 * 3 + 5 * 3 + 2);
    for f in &files {
        assert!(f.exists(), "{} missing", f.display());
    }
    let index = std::fs::read_to_string(dir.path().join("index.md")).unwrap_or_default();
    assert!(index.contains("](tables/table1_overall.md)"), "{index}");
    assert!(index.contains("![Do models ask"), "{index}");
    assert!(index.contains("charts/m5_m6_scatter@2x.png"), "{index}");
    let png = std::fs::read(dir.path().join("charts/per_clause_difficulty@2x.png")).unwrap_or_default();
    let one = std::fs::read(dir.path().join("charts/per_clause_difficulty.png")).unwrap_or_default();
    let (w1, h1) = crate::charts::png::png_size(&one).unwrap_or((0, 0));
    assert_eq!(crate::charts::png::png_size(&png), Some((2 * w1, 2 * h1)));
    // No stray temporary files are left behind.
    let leftovers = std::fs::read_dir(dir.path().join("charts"))
        .map(|d| d.filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().contains(".tmp")).count())
        .unwrap_or(0);
    assert_eq!(leftovers, 0);
}

/// Model names that a spreadsheet would run as formulas, one per model.
const HOSTILE_NAMES: [&str; 6] =
    ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-2+3", "@SUM(A1)", "\tleading tab", "\rleading cr"];

/// Every cell of a CSV text, header included.
fn csv_cells(text: &str) -> Vec<String> {
    let mut rd = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    rd.records()
        .flat_map(|r| r.unwrap_or_else(|e| panic!("{e}")).iter().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// A cell a spreadsheet would read as a formula (plain numbers such as `-0.5` are not).
fn runs_as_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err()
}

#[test]
fn every_report_csv_guards_model_names_that_look_like_formulas() {
    let mut r = report(HOSTILE_NAMES.len(), false);
    for (m, name) in r.models.iter_mut().zip(HOSTILE_NAMES) {
        m.model = name.to_string();
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let files = crate::export::write_report_files(&r, &pack(), dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let csvs: Vec<_> = files.iter().filter(|f| f.extension().is_some_and(|x| x == "csv")).collect();
    assert_eq!(csvs.len(), 9, "{csvs:?}");
    for f in csvs {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let cells = csv_cells(&text);
        let bad: Vec<&String> = cells.iter().filter(|c| runs_as_formula(c)).collect();
        assert!(bad.is_empty(), "{}: {bad:?}", f.display());
        // Every file names the models somewhere (as a row or as a column) and each name is guarded.
        for name in HOSTILE_NAMES {
            let guarded = format!("'{name}");
            assert!(cells.iter().any(|c| c.starts_with(&guarded)), "{}: {name:?} not found guarded", f.display());
        }
    }
}
