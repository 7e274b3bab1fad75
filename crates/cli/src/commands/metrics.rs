use clap::Args;
use psebench::metrics::{compute, MetricsOptions, MetricsReport, Prf};
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
    /// Bootstrap resamples for the 95% confidence intervals (0 = off).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: u32,
    /// Seed for the bootstrap.
    #[arg(long, default_value_t = 20261122)]
    pub seed: u64,
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into())
}

fn f1(v: &Option<Prf>) -> String {
    pct(v.map(|p| p.f1))
}

pub fn print_report(r: &MetricsReport) {
    let rows: Vec<Vec<String>> = r
        .models
        .iter()
        .map(|m| {
            vec![
                m.model.clone(),
                m.cases.to_string(),
                pct(m.m1),
                pct(m.m2),
                f1(&m.m3),
                pct(m.m4),
                f1(&m.m5),
                f1(&m.m6),
                f1(&m.m7),
                f1(&m.m8),
            ]
        })
        .collect();
    table(&["MODEL", "CASES", "M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8"], &rows);
    println!("M1 verdict accuracy · M2 clause accuracy · M3 evidence F1 · M4 boundary-condition hit rate");
    println!("M5 missing-case detection F1 · M6 missing-slot F1 · M7 uncertain detection F1 · M8 reportable detection F1 (all %)");
}

pub fn run(cli: &Cli, args: &MetricsArgs) -> Result<ExitCode, ApiError> {
    let (Some(cases), Some(trajs)) = (&args.cases, &args.trajectories) else {
        return Err(ApiError::invalid("Give --cases FILE --trajectories FILE (or --run RUN once runs are stored)."));
    };
    let cases = psebench::case::io::read_cases(cases, &|p: &str| psebench::policy::builtin_pack(p).map(|pk| pk.vocab(&[])))?;
    let trajectories = psebench::trajectory::io::read_trajectories(trajs)?;
    let report = compute(&cases, &trajectories, &MetricsOptions { bootstrap_resamples: args.bootstrap, seed: args.seed });
    if cli.json {
        print_json(&report);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}
