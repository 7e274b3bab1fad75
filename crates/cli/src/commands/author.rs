//! `psebench author`: loyal extraction of the policy sections that bear on a clause and its
//! approval by a named person; structured drafting of cards or variants from the approved
//! extraction, their acceptance into the library or rejection; drafting every clause as a job.

use clap::Subcommand;
use psebench::authoring::draft::all::{DraftAllPlan, DraftAllRequest, DraftAllRun};
use psebench::authoring::draft::{
    AcceptRequest, AcceptResult, Draft, DraftFilter, DraftKind, DraftRequest, DraftResult, DraftSummary, RejectRequest,
};
use psebench::authoring::{
    ApproveRequest, ExtractRequest, ExtractResult, Extraction, ExtractionFilter, ExtractionSummary,
};
use psebench::card::lint::Severity;
use psebench::util::format::count;
use psebench::ApiError;
use std::process::ExitCode;

use super::engine;
use super::follow::{follow_run, Follow};
use crate::output::{print_json, table};
use crate::Cli;
use psebench::api::rpc::{Flag, IdParams, NoParams, RunStarted};

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
    /// Draft complete-case cards, Uncertain cards, or missing variants for one parent card, from
    /// the clause's approved extraction. The draft is checked in code (problems go back to the
    /// model, at most three attempts) and stored for a person to accept or reject.
    Draft {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        #[arg(long)]
        clause: String,
        /// complete, missing or uncertain.
        #[arg(long, value_parser = parse_kind)]
        kind: DraftKind,
        /// The parent card (with --kind missing).
        #[arg(long, value_name = "CARD_ID")]
        parent: Option<String>,
        /// Registered model that drafts.
        #[arg(long)]
        model: String,
    },
    /// Draft every clause that has an approved extraction, as a resumable job.
    DraftAll {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        #[arg(long)]
        model: String,
        /// Kinds to draft (repeatable; default: complete and uncertain).
        #[arg(long = "kind", value_parser = parse_kind)]
        kinds: Vec<DraftKind>,
        /// Only show the plan (what would be drafted and its estimated cost).
        #[arg(long)]
        plan: bool,
        /// Resume this stopped job instead of starting a new one.
        #[arg(long, value_name = "RUN_ID", conflicts_with = "plan")]
        resume: Option<String>,
    },
    /// Accept a draft into the library: its cards enter as `draft` (audit them with `psebench
    /// cards audit`); variants become a new version of their parent card.
    Accept {
        draft_id: String,
        /// Your name.
        #[arg(long)]
        by: String,
        #[arg(long)]
        notes: Option<String>,
        /// Accept only this item (repeatable; default: all).
        #[arg(long = "item", value_name = "ID")]
        items: Vec<String>,
    },
    /// Reject a draft; your name and reason are kept with it.
    Reject {
        draft_id: String,
        #[arg(long)]
        by: String,
        #[arg(long)]
        reason: String,
    },
    /// List extractions (newest version last), or drafts with --drafts.
    List {
        #[arg(long)]
        policy: Option<String>,
        #[arg(long)]
        clause: Option<String>,
        /// List drafts instead of extractions.
        #[arg(long)]
        drafts: bool,
    },
    /// Show one extraction (its sections, the self-check's suggestions, the document and its
    /// calls) or one draft (its items, problems, coverage and calls).
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
    println!("Model {} ({}); {} text, source hash {}", x.model, count(x.attempts, "attempt"), x.edition, x.source_hash);
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

fn parse_kind(s: &str) -> Result<DraftKind, String> {
    DraftKind::parse(s).ok_or_else(|| format!("\"{s}\" is not a kind: use complete, missing or uncertain"))
}

fn print_draft(d: &Draft) {
    println!(
        "{} — {} draft for clause {} of {}{} — {}{}",
        d.draft_id,
        d.kind.as_str(),
        d.clause_id,
        d.policy_id,
        d.parent_card_id.as_ref().map(|p| format!(" (parent {p})")).unwrap_or_default(),
        d.status,
        d.decided_by.as_ref().map(|b| format!(" by {b}")).unwrap_or_default()
    );
    println!(
        "Model {} ({}); written from extraction {} (v{})",
        d.model,
        count(d.attempts, "attempt"),
        d.extraction_id,
        d.extraction_version
    );
    println!("\nItems: {}", d.item_ids.join(", "));
    if d.problems.is_empty() {
        println!("The code checks find no problem.");
    } else {
        println!("\nProblems:");
        for p in &d.problems {
            let sev = if p.severity == Severity::Error { "error" } else { "warning" };
            println!("  {sev:7} {} {} — {}", p.item_id.as_deref().unwrap_or("(reply)"), p.rule, p.message);
        }
    }
    let failed: Vec<_> = d.self_check.iter().filter(|c| !c.passed).collect();
    if !failed.is_empty() {
        println!("\nThe model's own checks that did not pass:");
        for c in failed {
            println!("  {} — {}", c.check, c.note);
        }
    }
    if let Some(c) = &d.coverage {
        println!(
            "\nCoverage over {}: {} of {} combinations fit a card.",
            count(c.conditions.len(), "condition"),
            c.covered,
            c.combinations
        );
        for g in c.gaps.iter().take(5) {
            let text: Vec<String> = g.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("  not covered: {}", text.join(", "));
        }
        if let Some(n) = &c.note {
            println!("  {n}");
        }
    }
    if let Some(n) = &d.decision_notes {
        println!("\n{}: {n}", if d.status == "rejected" { "Reason" } else { "Notes" });
    }
    println!("\n{}", serde_json::to_string_pretty(&d.items).unwrap_or_default());
}

pub fn run(cli: &Cli, cmd: &AuthorCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        AuthorCmd::Extract { approve: Some(id), by, add, remove, notes, .. } => {
            let current: Extraction = e.call("authoring.extraction_show", &IdParams { id: id.clone() })?;
            let mut sections: Vec<String> =
                current.sections.iter().map(|s| s.section_id.clone()).filter(|s| !remove.contains(s)).collect();
            for a in add {
                if !sections.contains(a) {
                    sections.push(a.clone());
                }
            }
            let x: Extraction = e.call(
                "authoring.approve",
                &ApproveRequest {
                    extraction_id: id.clone(),
                    approved_by: by.clone().unwrap_or_default(),
                    sections,
                    notes: notes.clone(),
                },
            )?;
            if cli.json {
                print_json(&x);
            } else {
                println!(
                    "Approved {} ({}) by {}; generation and the judge now use it for clause {}.",
                    x.extraction_id,
                    count(x.sections.len(), "section"),
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
            let r: ExtractResult = e.call("authoring.extract", &req)?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Extraction {} for {}: {} after {}.",
                    r.extraction_id,
                    r.clause_id,
                    count(r.sections.len(), "section"),
                    count(r.attempts, "attempt")
                );
                for s in &r.sections {
                    println!("  [{}] {} — {}", s.section_id, s.criteria.join(", "), s.why);
                }
                if !r.rejected_ids.is_empty() {
                    println!("Still naming ids that do not exist: {}", r.rejected_ids.join(", "));
                }
                if r.sections.is_empty() {
                    println!(
                        "No section could be read from the model's replies; `psebench author show {}` shows what it answered. You can still add sections by hand when you approve.",
                        r.extraction_id
                    );
                }
                println!(
                    "Review it with `psebench author show {id}`, then approve it: `psebench author extract --approve {id} --by NAME [--add SECTION] [--remove SECTION]`.",
                    id = r.extraction_id
                );
            }
        }
        AuthorCmd::Draft { policy, clause, kind, parent, model } => {
            let req = DraftRequest {
                policy: Some(policy.clone()),
                clause: clause.clone(),
                kind: *kind,
                parent: parent.clone(),
                model: model.clone(),
            };
            let r: DraftResult = e.call("authoring.draft", &req)?;
            if cli.json {
                print_json(&r);
            } else {
                let errors = r.problems.iter().filter(|p| p.severity == Severity::Error).count();
                println!(
                    "Draft {}: {} after {}: {}",
                    r.draft_id,
                    count(r.cards.len(), "item"),
                    count(r.attempts, "attempt"),
                    r.cards.join(", ")
                );
                if errors == 0 {
                    println!("The code checks pass ({}).", count(r.problems.len(), "warning"));
                } else {
                    println!(
                        "{} {} after the last attempt (kept with the draft):",
                        count(errors, "problem"),
                        if errors == 1 { "remains" } else { "remain" }
                    );
                    for p in r.problems.iter().filter(|p| p.severity == Severity::Error) {
                        println!("  {} {} — {}", p.item_id.as_deref().unwrap_or("(reply)"), p.rule, p.message);
                    }
                }
                println!(
                    "Review it with `psebench author show {id}`, then `psebench author accept {id} --by NAME` or `psebench author reject {id} --by NAME --reason WHY`.",
                    id = r.draft_id
                );
            }
        }
        AuthorCmd::DraftAll { policy, model, kinds, plan, resume } => {
            let req = DraftAllRequest {
                policy: Some(policy.clone()),
                model: model.clone(),
                kinds: kinds.clone(),
                label: None,
            };
            if *plan {
                let p: DraftAllPlan = e.call("authoring.draft_all_plan", &req)?;
                if cli.json {
                    print_json(&p);
                } else {
                    let rows: Vec<Vec<String>> = p
                        .items
                        .iter()
                        .map(|i| {
                            vec![
                                i.clause_id.clone(),
                                i.kind.as_str().into(),
                                i.parent_card_id.clone().unwrap_or_default(),
                                i.state.clone(),
                            ]
                        })
                        .collect();
                    table(&["CLAUSE", "KIND", "PARENT", "STATE"], &rows);
                    println!(
                        "{} to draft, {} skipped; about {}, {} input and {} output tokens, {}; data goes to {}.",
                        p.to_draft,
                        p.skipped,
                        count(p.calls, "call"),
                        p.input_tokens,
                        p.output_tokens,
                        p.usd.map(|u| format!("US${u:.2}")).unwrap_or_else(|| "cost unknown".into()),
                        p.destination
                    );
                    for n in &p.notes {
                        println!("  {n}");
                    }
                }
                return Ok(ExitCode::SUCCESS);
            }
            let run_id = match resume {
                Some(r) => r.clone(),
                None => e.call::<_, RunStarted>("authoring.draft_all_create", &req)?.run_id,
            };
            let how = Follow {
                unit: "drafts",
                message: |p| p.message.clone().unwrap_or_default(),
                stopping: "Stopping after the draft in progress; finished drafts are kept.",
                cancel: "authoring.draft_all_cancel",
                abort: None,
            };
            follow_run::<Flag>(cli, &e, &run_id, how, "authoring.draft_all_execute")?;
            let runs: Vec<DraftAllRun> = e.call("authoring.draft_all_list", &NoParams {})?;
            let run = runs.iter().find(|r| r.run_id == run_id);
            if cli.json {
                print_json(&run);
            } else if let Some(r) = run {
                println!(
                    "Job {}: {} — {} stored, {} failed.",
                    r.run_id,
                    crate::output::run_status_words(r.status, r.problems.as_ref()),
                    count(r.drafts, "draft"),
                    r.failed
                );
                if let Some(err) = &r.error {
                    println!("{err}");
                }
                println!("List them with `psebench author list --drafts --policy {}`.", r.policy);
            }
        }
        AuthorCmd::Accept { draft_id, by, notes, items } => {
            let r: AcceptResult = e.call(
                "authoring.accept",
                &AcceptRequest {
                    draft_id: draft_id.clone(),
                    by: by.clone(),
                    notes: notes.clone(),
                    item_ids: if items.is_empty() { None } else { Some(items.clone()) },
                },
            )?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Accepted {}: {} entered the library as draft. Audit each with `psebench cards audit CARD --status audited --auditor NAME`, then approve it the same way.",
                    r.draft_id,
                    r.cards.join(", ")
                );
            }
        }
        AuthorCmd::Reject { draft_id, by, reason } => {
            let d: Draft = e.call(
                "authoring.reject",
                &RejectRequest { draft_id: draft_id.clone(), by: by.clone(), reason: reason.clone() },
            )?;
            if cli.json {
                print_json(&d);
            } else {
                println!("Rejected {} ({}); the reason is kept with it.", d.draft_id, reason);
            }
        }
        AuthorCmd::List { policy, clause, drafts: true } => {
            let list: Vec<DraftSummary> = e.call(
                "authoring.drafts",
                &DraftFilter { policy: policy.clone(), clause: clause.clone(), status: None },
            )?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|d| {
                        vec![
                            d.draft_id.clone(),
                            d.clause_id.clone(),
                            d.kind.as_str().into(),
                            d.status.clone(),
                            d.item_ids.len().to_string(),
                            d.errors.to_string(),
                            d.model.clone(),
                        ]
                    })
                    .collect();
                table(&["DRAFT", "CLAUSE", "KIND", "STATUS", "ITEMS", "ERRORS", "MODEL"], &rows);
                println!("{}", count(list.len(), "draft"));
            }
        }
        AuthorCmd::Show { id } if id.starts_with("draft-") => {
            let d: Draft = e.call("authoring.draft_show", &IdParams { id: id.clone() })?;
            if cli.json {
                print_json(&d);
            } else {
                print_draft(&d);
            }
        }
        AuthorCmd::List { policy, clause, .. } => {
            let list: Vec<ExtractionSummary> =
                e.call("authoring.extractions", &ExtractionFilter { policy: policy.clone(), clause: clause.clone() })?;
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
                println!("{}", count(list.len(), "extraction"));
            }
        }
        AuthorCmd::Show { id } => {
            let x: Extraction = e.call("authoring.extraction_show", &IdParams { id: id.clone() })?;
            if cli.json {
                print_json(&x);
            } else {
                print_extraction(&x);
            }
        }
        AuthorCmd::Sections { policy } => {
            let s: psebench::policy::sections::PolicySections =
                e.call("authoring.sections", &IdParams { id: policy.clone() })?;
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
