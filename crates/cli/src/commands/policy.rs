use clap::Subcommand;
use psebench::api::policy::PolicyImportRequest;
use psebench::api::rpc::{IdParams, NoParams};
use psebench::util::format::count;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::engine;
use crate::output::{print_json, table, truncate};
use crate::Cli;

#[derive(Subcommand)]
pub enum PolicyCmd {
    /// List installed policy packs.
    List,
    /// Show a pack: clauses, guidance sections, evidence vocabulary.
    Show { id: String },
    /// Import official text (Markdown), split into sections at each heading.
    Import {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// Official clause (statute) text as Markdown.
        #[arg(long)]
        clauses: Option<PathBuf>,
        /// Official guidance text as Markdown.
        #[arg(long)]
        guidance: Option<PathBuf>,
    },
    /// Create a policy pack of your own from a JSON file: id, name, jurisdiction,
    /// reporting_deadline, clauses (clause_id, label, category, text) and guidance_markdown.
    Create { file: PathBuf },
    /// Delete a policy pack you created (only while no card or case uses it).
    Delete { id: String },
}

pub fn run(cli: &Cli, cmd: &PolicyCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        PolicyCmd::List => {
            let list: Vec<psebench::api::policy::PolicySummary> = e.call("policies.list", &NoParams {})?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|p| {
                        vec![
                            p.id.clone(),
                            p.name.clone(),
                            format!("{}{}", p.edition, if p.official_text_imported { " + official text" } else { "" }),
                            p.clauses.to_string(),
                            p.guidance_sections.to_string(),
                            p.evidence_ids.to_string(),
                        ]
                    })
                    .collect();
                table(&["ID", "NAME", "EDITION", "CLAUSES", "GUIDANCE", "EVIDENCE IDS"], &rows);
            }
        }
        PolicyCmd::Show { id } => {
            let v: psebench::api::policy::PolicyView = e.call("policy.show", &IdParams { id: id.clone() })?;
            if cli.json {
                print_json(&v);
            } else {
                println!("{} ({})", v.name, v.id);
                println!("{}\n", v.statute);
                if !v.official_text.clauses || !v.official_text.guidance {
                    println!("NOTE: {}\n", v.edition_notice);
                }
                let rows: Vec<Vec<String>> = v
                    .clauses
                    .iter()
                    .map(|c| {
                        vec![
                            c.global_no.to_string(),
                            c.label.clone(),
                            c.clause_id.clone(),
                            truncate(&c.short_title, 60),
                        ]
                    })
                    .collect();
                table(&["#", "LABEL", "CLAUSE ID", "TITLE"], &rows);
                println!();
                let rows: Vec<Vec<String>> =
                    v.guidance.iter().map(|g| vec![g.id.clone(), g.status.clone(), truncate(&g.topic, 70)]).collect();
                table(&["GUIDANCE ID", "STATUS", "TOPIC"], &rows);
                println!("\nEvidence vocabulary: {} identifiers.", v.evidence.len());
            }
        }
        PolicyCmd::Import { policy, clauses, guidance } => {
            let r: psebench::api::policy::PolicyImportResult = e.call(
                "policy.import_files",
                &PolicyImportRequest { policy: policy.clone(), clauses: clauses.clone(), guidance: guidance.clone() },
            )?;
            if cli.json {
                print_json(&r);
            } else {
                for d in &r.documents {
                    println!(
                        "Imported {} ({}): {} sections, {} matched known ids, {} new evidence ids",
                        d.file,
                        d.source,
                        d.sections,
                        d.matched.len(),
                        d.new_evidence_ids.len()
                    );
                }
                println!(
                    "The summaries of policy {} are kept; the official text is used wherever it exists.",
                    r.policy
                );
            }
        }
        PolicyCmd::Create { file } => {
            let new = psebench::api::policy::read_new_policy(file)?;
            let r: psebench::api::policy::PolicyCreateResult = e.call("policy.create", &new)?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Created policy {} with {} and {}.",
                    r.id,
                    count(r.clauses.len(), "clause"),
                    count(r.guidance_sections.len(), "guidance section")
                );
                println!("See it with `psebench policy show {}`.", r.id);
            }
        }
        PolicyCmd::Delete { id } => {
            let r: psebench::api::policy::PolicyDeleteResult = e.call("policy.delete", &IdParams { id: id.clone() })?;
            if cli.json {
                print_json(&r);
            } else {
                println!("Deleted policy {}.", r.id);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
