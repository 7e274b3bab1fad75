use clap::Args;
use psebench::api::rpc::{MetricsFilesParams, MetricsRunsParams};
use psebench::metrics::{FileMetrics, MetricsOptions, MetricsReport, ModelMetrics, Prf};
use psebench::protocol::comparability::DAGGER;
use psebench::util::format::count;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::output::{print_json, table};
use crate::Cli;

#[derive(Args)]
pub struct MetricsArgs {
    /// Cases JSONL (FORMATS.md); with --trajectories, works without any database.
    #[arg(long, requires = "trajectories")]
    pub cases: Option<PathBuf>,
    /// Trajectories JSONL (FORMATS.md).
    #[arg(long, requires = "cases")]
    pub trajectories: Option<PathBuf>,
    /// Stored evaluation runs to score (one entry per model); instead of --cases/--trajectories.
    #[arg(long, num_args = 1.., conflicts_with_all = ["cases", "trajectories"])]
    pub run: Vec<String>,
    /// Bootstrap resamples for the 95% confidence intervals (0 = off).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: u32,
    /// Seed for the bootstrap.
    #[arg(long, default_value_t = 20261122)]
    pub seed: u64,
}

/// A percentage with one decimal, or a dash for null.
fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into())
}

fn f1(v: &Option<Prf>) -> String {
    pct(v.map(|p| p.f1))
}

fn precision(v: &Option<Prf>) -> String {
    pct(v.map(|p| p.precision))
}

fn recall(v: &Option<Prf>) -> String {
    pct(v.map(|p| p.recall))
}

/// A number of the form `x.xx`, or a dash.
fn decimal(v: Option<f64>, places: usize) -> String {
    v.map(|x| format!("{x:.places$}")).unwrap_or_else(|| "–".into())
}

fn section(title: &str) {
    println!();
    println!("{title}");
}

fn overall_table(models: &[ModelMetrics]) {
    let rows: Vec<Vec<String>> = models
        .iter()
        .map(|m| {
            vec![
                m.model.clone(),
                m.cases.to_string(),
                m.trajectories.to_string(),
                m.answered().to_string(),
                pct(m.m1),
                pct(m.m2),
                f1(&m.m3),
                if m.m4_unjudged > 0 { format!("{}*", pct(m.m4)) } else { pct(m.m4) },
                f1(&m.m5),
                f1(&m.m6),
                f1(&m.m7),
                f1(&m.m8),
            ]
        })
        .collect();
    table(&["MODEL", "CASES", "TRANSCRIPTS", "ANSWERED", "M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8"], &rows);
    println!("M1 verdict accuracy · M2 clause accuracy · M3 evidence F1 · M4 boundary-condition hit rate");
    println!("M5 missing-case detection F1 · M6 missing-slot F1 · M7 uncertain detection F1 · M8 reportable detection F1 (all %)");
    println!("TRANSCRIPTS = cases the model worked through (a trajectory); a case without one counts as wrong and not asked.");
    println!("ANSWERED = cases with a readable verdict (Reportable, Non-reportable or Uncertain); the others count as wrong.");
    for m in models.iter().filter(|m| m.m4_unjudged > 0) {
        println!(
            "* M4 of {}: {} with a rationale {} no usable judge result and {} as 0 hits; \
             run `psebench eval rejudge RUN --judge-model NAME` to judge {}.",
            m.model,
            count(m.m4_unjudged, "correct answer"),
            if m.m4_unjudged == 1 { "has" } else { "have" },
            if m.m4_unjudged == 1 { "counts" } else { "count" },
            if m.m4_unjudged == 1 { "it" } else { "them" }
        );
    }
}

fn prf_table(models: &[ModelMetrics]) {
    section("Precision / recall / F1 (%)");
    let rows: Vec<Vec<String>> = models
        .iter()
        .map(|m| {
            let mut row = vec![m.model.clone()];
            for v in [&m.m3, &m.m5, &m.m6, &m.m7, &m.m8] {
                row.extend([precision(v), recall(v), f1(v)]);
            }
            row
        })
        .collect();
    table(
        &["MODEL", "M3 P", "R", "F1", "M5 P", "R", "F1", "M6 P", "R", "F1", "M7 P", "R", "F1", "M8 P", "R", "F1"],
        &rows,
    );
}

fn case_type_table(models: &[ModelMetrics]) {
    let Some(first) = models.first() else { return };
    let b = &first.by_case_type;
    section(&format!(
        "By case type (complete {}, missing {}, uncertain {} cases; %)",
        b.complete.cases, b.missing.cases, b.uncertain.cases
    ));
    let rows: Vec<Vec<String>> = models
        .iter()
        .map(|m| {
            let s = [&m.by_case_type.complete, &m.by_case_type.missing, &m.by_case_type.uncertain];
            let mut row = vec![m.model.clone()];
            row.extend(s.iter().map(|t| pct(t.m1)));
            row.extend(s.iter().map(|t| f1(&t.m3)));
            row.extend(s.iter().map(|t| pct(t.m4)));
            row
        })
        .collect();
    table(
        &["MODEL", "M1 COMP", "M1 MISS", "M1 UNC", "M3 COMP", "M3 MISS", "M3 UNC", "M4 COMP", "M4 MISS", "M4 UNC"],
        &rows,
    );
}

fn behavior_table(models: &[ModelMetrics]) {
    section("Behaviour: ASKs on missing cases (% of cases), routing of uncertain cases, tokens");
    let rows: Vec<Vec<String>> = models
        .iter()
        .map(|m| {
            let b = &m.behavior;
            let mut row = vec![m.model.clone(), pct(b.missing_no_ask_pct)];
            for key in ["0", "1", "2", "3", "4+"] {
                row.push(pct(b.missing_ask_count_pct.as_ref().and_then(|h| h.get(key).copied())));
            }
            row.push(decimal(b.missing_avg_asks, 2));
            for key in ["Uncertain", "Reportable", "Non-reportable", "none"] {
                let count = m.uncertain_routing_counts.as_ref().and_then(|c| c.get(key).copied());
                let share = b.uncertain_routing_pct.as_ref().and_then(|r| r.get(key).copied());
                row.push(match (count, share) {
                    (Some(n), Some(p)) => format!("{n} ({p:.1})"),
                    _ => "–".into(),
                });
            }
            row.push(decimal(m.tokens.avg_completion_tokens, 0));
            row
        })
        .collect();
    table(&["MODEL", "NO ASK", "0", "1", "2", "3", "4+", "AVG", "→UNC", "→REP", "→NON", "→NONE", "TOKENS"], &rows);
}

fn interval_table(models: &[ModelMetrics]) {
    let Some(ci) = models.iter().find_map(|m| m.confidence_intervals.as_ref()) else { return };
    section(&format!(
        "{:.0}% confidence intervals ({}, {} resamples, seed {})",
        ci.level * 100.0,
        ci.method,
        ci.resamples,
        ci.seed
    ));
    let show = |v: Option<psebench::metrics::Interval>| match v {
        Some(i) => format!("[{:.1}, {:.1}]", i.lo, i.hi),
        None => "–".into(),
    };
    let rows: Vec<Vec<String>> = models
        .iter()
        .filter_map(|m| {
            let c = m.confidence_intervals.as_ref()?;
            Some(vec![m.model.clone(), pct(m.m1), show(c.m1), f1(&m.m7), show(c.m7), f1(&m.m8), show(c.m8)])
        })
        .collect();
    table(&["MODEL", "M1", "M1 CI", "M7", "M7 CI", "M8", "M8 CI"], &rows);
}

fn consistency_table(models: &[ModelMetrics]) {
    let rows: Vec<Vec<String>> = models
        .iter()
        .filter_map(|m| {
            let c = m.consistency.as_ref()?;
            Some(vec![
                m.model.clone(),
                c.repeats.to_string(),
                c.cases.to_string(),
                pct(c.same_verdict_pct),
                pct(c.pass_all_k_pct),
            ])
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    section("Consistency over repeats (%)");
    table(&["MODEL", "K", "CASES", "SAME VERDICT", "PASS^K"], &rows);
}

fn paired_table(r: &MetricsReport) {
    if r.paired_tests.is_empty() {
        refused_pairs(r);
        return;
    }
    section("Paired McNemar tests on verdict correctness (shared cases)");
    let rows: Vec<Vec<String>> = r
        .paired_tests
        .iter()
        .map(|t| {
            vec![
                t.model_a.clone(),
                t.model_b.clone(),
                t.shared_cases.to_string(),
                t.a_only.to_string(),
                t.b_only.to_string(),
                format_p(t.p_value),
                decimal(t.chi2, 2),
            ]
        })
        .collect();
    table(&["A", "B", "SHARED", "A ONLY", "B ONLY", "EXACT P", "CHI2 (CC)"], &rows);
    refused_pairs(r);
}

/// Pairs whose paired test was refused (runs on different case sets), one line each.
fn refused_pairs(r: &MetricsReport) {
    if r.refused_pairs.is_empty() {
        return;
    }
    section("Paired tests not made");
    for p in &r.refused_pairs {
        println!("{} and {}: {}", p.model_a, p.model_b, p.reason);
    }
}

/// Whether the runs compare, in one line before the tables.
fn comparability_line(r: &MetricsReport) {
    let Some(c) = &r.comparability else { return };
    let Some(sentence) = &c.sentence else { return };
    if c.comparable {
        println!("Note: {sentence}");
    } else {
        println!("Not directly comparable: {sentence}");
        println!("Models marked {DAGGER} were made differently from the others (see the note under the first table).");
    }
    println!();
}

/// What each marked model's run differs in, under the first table.
fn comparability_footnotes(r: &MetricsReport) {
    let Some(c) = &r.comparability else { return };
    for m in c.differing_marks() {
        let name = if m.model.is_empty() { &m.run_id } else { &m.model };
        println!("{DAGGER} {name} (run {}): {}", m.run_id, m.differs.join("; "));
    }
}

/// p-values: fixed notation down to 0.0001, scientific below, and a bound where a double
/// can no longer hold the value.
fn format_p(p: f64) -> String {
    if p < 1e-300 {
        "<1e-300".into()
    } else if p >= 1e-4 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
    }
}

pub fn print_report(report: &MetricsReport) {
    if report.models.is_empty() {
        println!("No trajectories to score.");
        return;
    }
    comparability_line(report);
    // Models whose runs differ from the others carry a dagger after their name.
    let (shown, _) = report.marked();
    let r: &MetricsReport = &shown;
    overall_table(&r.models);
    comparability_footnotes(r);
    if !report.simulations.is_empty() {
        println!("{}", psebench::metrics::simulation_note(&report.simulations));
    }
    prf_table(&r.models);
    case_type_table(&r.models);
    behavior_table(&r.models);
    interval_table(&r.models);
    consistency_table(&r.models);
    paired_table(r);
}

pub fn run(cli: &Cli, args: &MetricsArgs) -> Result<ExitCode, ApiError> {
    let opts = MetricsOptions { bootstrap_resamples: args.bootstrap, seed: args.seed };
    if !args.run.is_empty() {
        let e = super::engine(cli)?;
        let report: MetricsReport =
            e.call("metrics.compute_runs", &MetricsRunsParams { run_ids: args.run.clone(), options: opts })?;
        if cli.json {
            print_json(&report);
        } else {
            print_report(&report);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(cases), Some(trajs)) = (&args.cases, &args.trajectories) else {
        return Err(ApiError::invalid("Give --cases FILE --trajectories FILE, or --run RUN... for stored runs."));
    };
    // Tens of megabytes of JSON become many small values: let the heap grow in large steps.
    psebench::util::memory::grow_heap_in_large_steps();
    // The cases are read with every stored pack, so cases written under a user's own policy are read too.
    let e = super::engine(cli)?;
    let FileMetrics { report, ignored } = e.call(
        "metrics.files",
        &MetricsFilesParams { cases: cases.clone(), trajectories: trajs.clone(), options: opts },
    )?;
    for skipped in ignored {
        if skipped.unknown_case > 0 {
            eprintln!(
                "note: {}: {} {} a case_id that is not in the cases file; ignored",
                skipped.model,
                count(skipped.unknown_case, "trajectory"),
                if skipped.unknown_case == 1 { "names" } else { "name" }
            );
        }
        if skipped.duplicates > 0 {
            eprintln!(
                "note: {}: {} {} a case and repeat index already seen; the first one is used",
                skipped.model,
                count(skipped.duplicates, "trajectory"),
                if skipped.duplicates == 1 { "repeats" } else { "repeat" }
            );
        }
    }
    if cli.json {
        print_json(&report);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}
