//! The label audit (`psebench label-audit`, also `psebench cases screen`): stored cases screened
//! against every clause of the policy by one or more models, through the `label_audit.*` methods.

use clap::Args;
use psebench::api::rpc::RunStarted;
use psebench::label_audit::{
    LabelAuditPlan, LabelAuditReport, LabelAuditRequest, LabelAuditResults, LabelAuditResultsRequest, TIE_RULE,
};
use psebench::util::format::count;
use psebench::ApiError;
use std::process::ExitCode;

use super::engine;
use crate::output::{print_json, table};
use crate::Cli;

/// What to audit and with which models (or which stopped audit to finish).
#[derive(Args)]
pub struct LabelAuditArgs {
    /// all | a clause id | case ids separated by commas | type:Reportable|Non-reportable|Uncertain
    #[arg(long, required_unless_present = "resume")]
    pub cases: Option<String>,
    /// Registered models, separated by commas (one to five).
    #[arg(long, value_delimiter = ',', required_unless_present = "resume")]
    pub models: Vec<String>,
    /// Finish a stopped audit instead of starting one.
    #[arg(long, conflicts_with_all = ["cases", "models"])]
    pub resume: Option<String>,
    #[arg(long)]
    pub label: Option<String>,
    /// Print what would be sent and the cost estimate, and stop.
    #[arg(long)]
    pub plan: bool,
    /// Do not ask before sending case facts and policy text to remote providers.
    #[arg(long)]
    pub yes: bool,
}

/// `psebench label-audit …`.
pub fn run(cli: &Cli, args: &LabelAuditArgs) -> Result<ExitCode, ApiError> {
    audit(cli, &engine(cli)?, args)
}

/// Plan, create (or resume) and follow a label audit, then print its results.
pub fn audit(cli: &Cli, e: &crate::api::Api, args: &LabelAuditArgs) -> Result<ExitCode, ApiError> {
    let LabelAuditArgs { cases, models, resume, label, plan: plan_only, yes } = args;
    let (plan_only, yes) = (*plan_only, *yes);
    let run_id = match resume {
        Some(r) => r.clone(),
        None => {
            let req = LabelAuditRequest {
                cases: cases.clone().unwrap_or_default(),
                models: models.to_vec(),
                label: label.clone(),
            };
            let plan: LabelAuditPlan = e.call("label_audit.plan", &req)?;
            if plan_only && cli.json {
                print_json(&plan);
                return Ok(ExitCode::SUCCESS);
            }
            if !cli.json {
                let usd = plan
                    .usd
                    .map(|u| format!("about ${u:.2}"))
                    .unwrap_or_else(|| "unknown (no price registered)".into());
                eprintln!(
                    "{} × {}: ~{} calls, ~{} tokens, cost {usd}.",
                    count(plan.cases, "case"),
                    count(plan.models.len(), "model"),
                    plan.calls,
                    plan.tokens
                );
                for d in &plan.destinations {
                    eprintln!("  {:<20} {}", d.model, d.destination);
                }
                for n in &plan.notes {
                    eprintln!("  ({n})");
                }
            }
            if plan_only {
                return Ok(ExitCode::SUCCESS);
            }
            let remote: Vec<String> = plan
                .destinations
                .iter()
                .filter(|d| d.remote)
                .map(|d| format!("{} ({})", d.model, d.destination))
                .collect();
            crate::output::confirm_remote(&remote, "case facts and the policy text", yes)?;
            let id = e.call::<_, RunStarted>("label_audit.create", &req)?.run_id;
            if !cli.json {
                eprintln!("Label audit {id} created.");
            }
            id
        }
    };
    let how = super::follow::Follow {
        unit: "cases",
        message: |p| {
            format!("{} agree · {} disputed · ${:.2}", p.counter("agree"), p.counter("disputed"), p.counter("cost_usd"))
        },
        stopping: "Stopping after the calls in flight… (finished screens are kept)",
        cancel: "label_audit.cancel",
        abort: None,
    };
    let report: LabelAuditReport = super::follow::follow_run(cli, e, &run_id, how, "label_audit.execute")?;
    let results: LabelAuditResults = e.call(
        "label_audit.results",
        &LabelAuditResultsRequest { run_id: Some(run_id.clone()), ..Default::default() },
    )?;
    if cli.json {
        print_json(&report);
    } else {
        let mut head: Vec<String> = vec!["CASE".into(), "LABEL".into()];
        head.extend(results.models.iter().map(|m| m.to_uppercase()));
        head.push("DISPUTED".into());
        let rows: Vec<Vec<String>> = results
            .rows
            .iter()
            .map(|r| {
                let mut row = vec![r.case_id.clone(), r.label.clone()];
                for m in &results.models {
                    row.push(match r.verdicts.get(m) {
                        Some(v) => format!(
                            "{} {}{}{}",
                            if v.agrees { "agrees" } else { "DISAGREES" },
                            v.verdict.clone().unwrap_or_else(|| "unreadable".into()),
                            if v.clauses_met.is_empty() {
                                String::new()
                            } else {
                                format!(" [{}]", v.clauses_met.join(", "))
                            },
                            if v.open_question { " (open question)" } else { "" }
                        ),
                        None => "-".into(),
                    });
                }
                row.push(if r.disputed { "yes".into() } else { String::new() });
                row
            })
            .collect();
        let head_ref: Vec<&str> = head.iter().map(String::as_str).collect();
        table(&head_ref, &rows);
        let share =
            if report.screened == 0 { 0.0 } else { 100.0 * report.disputed.len() as f64 / report.screened as f64 };
        println!(
            "{} screened; every model agrees with {}; a majority disputes {} ({share:.1}%).",
            count(report.screened, "case"),
            report.agree,
            report.disputed.len()
        );
        println!("{TIE_RULE}");
        if let Some(p) = &results.problems {
            println!("{}", p.message);
        }
        if results.status != psebench::jobs::RunStatus::Completed {
            println!("The audit is {}; resume it: psebench cases screen --resume {run_id}", results.status);
        }
    }
    Ok(if results.status == psebench::jobs::RunStatus::Completed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
