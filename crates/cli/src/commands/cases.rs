use clap::Subcommand;
use psebench::api::removals::ExampleResultsRemoval;
use psebench::api::rpc::{CaseShowParams, CasesExportToParams, CasesImportFileParams, Count, NoParams};
use psebench::case::repo::{CaseFilter, CaseSummary};
use psebench::case::CaseType;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::engine;
use crate::output::{print_json, table};
use crate::Cli;

#[derive(Subcommand)]
pub enum CasesCmd {
    /// Import a cases.jsonl file (validated; all or nothing).
    Import {
        file: PathBuf,
        /// Overwrite stored cases whose content differs.
        #[arg(long)]
        replace: bool,
    },
    /// Export cases as JSONL.
    Export {
        /// The cases.jsonl file to write.
        #[arg(long, required_unless_present = "dataset", conflicts_with = "dataset")]
        out: Option<PathBuf>,
        /// Write a dataset folder instead: data/{complete,missing,uncertain}.jsonl, the cards
        /// used, and a README.md dataset card a dataset hub loads as is.
        #[arg(long, value_name = "DIR")]
        dataset: Option<PathBuf>,
        #[arg(long = "type")]
        case_type: Option<String>,
        #[arg(long)]
        clause: Option<String>,
        /// Also export cases flagged as excluded.
        #[arg(long)]
        include_excluded: bool,
    },
    /// List stored cases.
    List {
        #[arg(long = "type")]
        case_type: Option<String>,
        #[arg(long)]
        clause: Option<String>,
    },
    /// Label audit: screen cases against every clause of the policy with one or more models and
    /// report the cases whose label a majority of them disputes (a tie counts as disputed). The
    /// same as `psebench label-audit`.
    Screen(super::label_audit::LabelAuditArgs),
    /// Show one case (--provenance: every generation attempt behind it).
    Show {
        id: String,
        /// Print the generation history: every stage and attempt with its verdict and issues.
        #[arg(long)]
        provenance: bool,
    },
}

#[derive(Subcommand)]
pub enum DemoCmd {
    /// Load the 90 hand-written demo cases into the store.
    Load,
    /// Store example results of three fictional models on the demo cases, to explore the results
    /// screens and reports before any model is set up (no model is called); `--remove` deletes them.
    Results {
        /// Delete the example results instead (says what goes and asks first); the demo cases stay.
        #[arg(long)]
        remove: bool,
        /// With --remove: delete without asking (needed when no terminal can answer).
        #[arg(long, requires = "remove")]
        yes: bool,
    },
}

fn parse_type(t: &Option<String>) -> Result<Option<CaseType>, ApiError> {
    match t {
        None => Ok(None),
        Some(s) => CaseType::parse(s).map(Some).ok_or_else(|| {
            ApiError::invalid(format!("\"{s}\" is not a case type; use complete, missing or uncertain"))
        }),
    }
}

pub fn run(cli: &Cli, cmd: &CasesCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        CasesCmd::Screen(args) => return super::label_audit::audit(cli, &e, args),
        CasesCmd::Import { file, replace } => {
            let r: psebench::api::cases::CasesImportResult =
                e.call("cases.import_file", &CasesImportFileParams { file: file.clone(), replace: *replace })?;
            if cli.json {
                print_json(&r);
            } else {
                println!("{}: {} imported, {} unchanged, {} replaced.", r.file, r.imported, r.unchanged, r.replaced);
            }
        }
        CasesCmd::Export { out, dataset, case_type, clause, include_excluded } => {
            let filter = CaseFilter {
                case_type: parse_type(case_type)?,
                clause_id: clause.clone(),
                include_excluded: *include_excluded,
                ..Default::default()
            };
            if let Some(dir) = dataset {
                let d: psebench::export::dataset::DatasetExport =
                    e.call("cases.export_dataset", &CasesExportToParams { out: dir.clone(), filter: filter.clone() })?;
                if cli.json {
                    print_json(&d);
                } else {
                    let counts: Vec<String> = d.counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
                    println!("Wrote a dataset to {}: {} case(s), {} card(s).", d.folder, counts.join(", "), d.cards);
                    if !d.missing_cards.is_empty() {
                        println!("Not in the store, so not included: {}.", d.missing_cards.join(", "));
                    }
                    println!("Fill in `license` at the top of README.md before publishing it.");
                }
                return Ok(ExitCode::SUCCESS);
            }
            let out = out.clone().ok_or_else(|| ApiError::invalid("Give --out FILE or --dataset DIR."))?;
            let n = e.call::<_, Count>("cases.export_to", &CasesExportToParams { out: out.clone(), filter })?.count;
            if cli.json {
                print_json(&serde_json::json!({"exported": n, "out": out}));
            } else {
                println!("Exported {n} case(s) to {}.", out.display());
            }
        }
        CasesCmd::List { case_type, clause } => {
            let list: Vec<CaseSummary> = e.call(
                "cases.list",
                &CaseFilter { case_type: parse_type(case_type)?, clause_id: clause.clone(), ..Default::default() },
            )?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|c| {
                        vec![
                            c.case_id.clone(),
                            c.case_type.clone(),
                            c.clause_id.clone(),
                            c.gold_verdict.clone(),
                            c.origin.clone(),
                            c.narrative_words.to_string(),
                        ]
                    })
                    .collect();
                table(&["CASE", "TYPE", "CLAUSE", "GOLD", "ORIGIN", "WORDS"], &rows);
                println!("{} case(s)", list.len());
            }
        }
        CasesCmd::Show { id, provenance: true } => {
            e.call::<_, serde_json::Value>("case.show", &CaseShowParams { case_id: id.clone() })?;
            super::generate::print_provenance(cli, &e, id)?;
        }
        CasesCmd::Show { id, provenance: false } => {
            let c: psebench::case::Case = e.call("case.show", &CaseShowParams { case_id: id.clone() })?;
            if cli.json {
                print_json(&c);
            } else {
                println!(
                    "{} — {} — gold {} ({})\n",
                    c.case_id,
                    c.case_type.as_str(),
                    c.gold_verdict.as_str(),
                    c.clause_id
                );
                println!("{}\n", c.narrative);
                for el in &c.elements {
                    let masked = if c.masked_elements.contains(&el.name) { " [withheld]" } else { "" };
                    println!("  {}{}: {}", el.name, masked, el.value.clone().unwrap_or_else(|| "null".into()));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_demo(cli: &Cli, cmd: &DemoCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        DemoCmd::Load => {
            let r: psebench::api::cases::CasesImportResult = e.call("demo.load", &NoParams {})?;
            if cli.json {
                print_json(&r);
            } else {
                println!("Demo cases: {} loaded, {} already present.", r.imported, r.unchanged);
            }
        }
        DemoCmd::Results { remove: true, yes } => {
            let plan: ExampleResultsRemoval = e.call("demo.remove_example_results_preview", &NoParams {})?;
            if plan.runs.is_empty() {
                if cli.json {
                    print_json(&plan);
                } else {
                    println!("{}", plan.summary);
                }
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!("{}", plan.summary);
            for r in &plan.runs {
                crate::output::print_run_removal(r);
            }
            crate::output::confirm_delete("Remove the example results?", *yes)?;
            let done: ExampleResultsRemoval = e.call("demo.remove_example_results", &NoParams {})?;
            if cli.json {
                print_json(&done);
            } else {
                println!(
                    "Removed the example results: {}.",
                    done.runs.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>().join(", ")
                );
            }
        }
        DemoCmd::Results { remove: false, .. } => {
            let r: psebench::evaluation::examples::ExampleResults = e.call("demo.example_results", &NoParams {})?;
            if cli.json {
                print_json(&r);
            } else {
                if r.loaded_demo_cases {
                    println!("Loaded the 90 demo cases first.");
                }
                println!(
                    "Stored example results of fictional models (not a real evaluation): {}",
                    r.run_ids.join(", ")
                );
                println!("Explore them: psebench metrics --run {}", r.run_ids.join(" "));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
