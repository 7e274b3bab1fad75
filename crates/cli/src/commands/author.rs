//! `psebench author`: loyal extraction of the policy sections that bear on a clause, its
//! approval by a named person, and listing and showing extractions.

use clap::Subcommand;
use psebench::authoring::{ApproveRequest, ExtractRequest, Extraction, ExtractionFilter};
use psebench::ApiError;
use std::process::ExitCode;

use super::{engine, runtime};
use crate::output::{print_json, table};
use crate::Cli;

#[derive(Subcommand)]
pub enum AuthorCmd {
    /// Ask a model which policy sections bear on a clause (stored as the clause's next extraction
    /// version), or, with --approve, approve an extraction in your name.
    Extract {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// The clause to extract for.
        #[arg(long, required_unless_present = "approve")]
        clause: Option<String>,
        /// Registered model that chooses the sections and, in a second call, checks the choice.
        #[arg(long, required_unless_present = "approve", conflicts_with = "approve")]
        model: Option<String>,
        /// Approve this extraction instead of running a new one.
        #[arg(long, value_name = "EXTRACTION_ID")]
        approve: Option<String>,
        /// Your name: an extraction is only approved by a named person.
        #[arg(long, requires = "approve")]
        by: Option<String>,
        /// A section id to add before approving (repeatable).
        #[arg(long = "add", value_name = "SECTION_ID", requires = "approve")]
        add: Vec<String>,
        /// A section id to remove before approving (repeatable).
        #[arg(long = "remove", value_name = "SECTION_ID", requires = "approve")]
        remove: Vec<String>,
        /// A note kept with the approval.
        #[arg(long, requires = "approve")]
        notes: Option<String>,
    },
    /// List extractions (newest version last).
    List {
        #[arg(long)]
        policy: Option<String>,
        #[arg(long)]
        clause: Option<String>,
    },
    /// Show one extraction: its sections, the self-check's suggestions, the document and its calls.
    Show { id: String },
    /// The sections of a policy's text an extraction chooses from.
    Sections {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
    },
}

fn print_extraction(x: &Extraction) {
    println!(
        "{} — clause {} of {} — version {} — {}{}",
        x.extraction_id,
        x.clause_id,
        x.policy_id,
        x.version,
        x.status,
        x.approved_by.as_ref().map(|b| format!(" by {b}")).unwrap_or_default()
    );
    println!("Model {} ({} attempt(s)); {} text, source hash {}", x.model, x.attempts, x.edition, x.source_hash);
    println!("\nChosen sections:");
    for s in &x.sections {
        let who = s.added_by.as_ref().map(|b| format!(" (added by {b})")).unwrap_or_default();
        println!("  [{}] {}{} — {}", s.section_id, s.criteria.join(", "), who, s.why);
    }
    if !x.rejected_ids.is_empty() {
        println!("\nIds the model named that do not exist: {}", x.rejected_ids.join(", "));
    }
    for p in &x.problems {
        println!("  still wrong after the last attempt: {p}");
    }
    if !x.self_check.add.is_empty() || !x.self_check.remove.is_empty() {
        println!("\nThe self-check would:");
        for a in &x.self_check.add {
            println!("  add    [{}] {}", a.section_id, a.reason);
        }
        for r in &x.self_check.remove {
            println!("  remove [{}] {}", r.section_id, r.reason);
        }
    } else {
        println!("\nThe self-check suggests no change.");
    }
    for n in &x.self_check.notes {
        println!("  note: {n}");
    }
    if let Some(n) = &x.notes {
        println!("\nApproval notes: {n}");
    }
    println!("\n{}", x.document);
}

pub fn run(cli: &Cli, cmd: &AuthorCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        AuthorCmd::Extract { approve: Some(id), by, add, remove, notes, .. } => {
            let current = e.author_show(id)?;
            let mut sections: Vec<String> =
                current.sections.iter().map(|s| s.section_id.clone()).filter(|s| !remove.contains(s)).collect();
            for a in add {
                if !sections.contains(a) {
                    sections.push(a.clone());
                }
            }
            let x = e.author_approve(&ApproveRequest {
                extraction_id: id.clone(),
                approved_by: by.clone().unwrap_or_default(),
                sections,
                notes: notes.clone(),
            })?;
            if cli.json {
                print_json(&x);
            } else {
                println!(
                    "Approved {} ({} section(s)) by {}; generation and the judge now use it for clause {}.",
                    x.extraction_id,
                    x.sections.len(),
                    x.approved_by.clone().unwrap_or_default(),
                    x.clause_id
                );
            }
        }
        AuthorCmd::Extract { policy, clause, model, .. } => {
            let req = ExtractRequest {
                policy: Some(policy.clone()),
                clause: clause.clone().unwrap_or_default(),
                model: model.clone().unwrap_or_default(),
            };
            let r = runtime()?.block_on(e.author_extract(&req))?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Extraction {} for {}: {} section(s) after {} attempt(s).",
                    r.extraction_id,
                    r.clause_id,
                    r.sections.len(),
                    r.attempts
                );
                for s in &r.sections {
                    println!("  [{}] {} — {}", s.section_id, s.criteria.join(", "), s.why);
                }
                if !r.rejected_ids.is_empty() {
                    println!("Still naming ids that do not exist: {}", r.rejected_ids.join(", "));
                }
                println!(
                    "Review it with `psebench author show {id}`, then approve it: `psebench author extract --approve {id} --by NAME [--add SECTION] [--remove SECTION]`.",
                    id = r.extraction_id
                );
            }
        }
        AuthorCmd::List { policy, clause } => {
            let list = e.author_list(&ExtractionFilter { policy: policy.clone(), clause: clause.clone() })?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|x| {
                        vec![
                            x.extraction_id.clone(),
                            x.clause_id.clone(),
                            x.version.to_string(),
                            x.status.clone(),
                            x.approved_by.clone().unwrap_or_default(),
                            x.sections.len().to_string(),
                            x.model.clone(),
                        ]
                    })
                    .collect();
                table(&["EXTRACTION", "CLAUSE", "VERSION", "STATUS", "APPROVED BY", "SECTIONS", "MODEL"], &rows);
                println!("{} extraction(s)", list.len());
            }
        }
        AuthorCmd::Show { id } => {
            let x = e.author_show(id)?;
            if cli.json {
                print_json(&x);
            } else {
                print_extraction(&x);
            }
        }
        AuthorCmd::Sections { policy } => {
            let s = e.author_sections(policy)?;
            if cli.json {
                print_json(&s);
            } else {
                println!("{} ({} text), source hash {}", s.policy_id, s.edition, s.source_hash);
                for x in &s.sections {
                    println!("  [{}] {}", x.section_id, x.heading);
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
