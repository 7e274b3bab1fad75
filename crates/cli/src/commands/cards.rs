use clap::{Subcommand, ValueEnum};
use psebench::api::cards::{CardAuditRequest, CardDetail, CardDiff, CardFilter, CardSaveRequest, CardSummary};
use psebench::api::rpc::{
    CardDiffParams, CardExportToParams, CardImportPathsParams, CardPathsParams, CardShowParams, Count, PolicyParams,
};
use psebench::card::lint::{LintReport, Severity};
use psebench::card::AuditStatus;
use psebench::util::format::count;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::engine;
use crate::output::{print_json, table, truncate};
use crate::Cli;

#[derive(Clone, Copy, ValueEnum)]
pub enum StatusArg {
    Draft,
    Audited,
    Approved,
}

impl From<StatusArg> for AuditStatus {
    fn from(s: StatusArg) -> Self {
        match s {
            StatusArg::Draft => AuditStatus::Draft,
            StatusArg::Audited => AuditStatus::Audited,
            StatusArg::Approved => AuditStatus::Approved,
        }
    }
}

#[derive(Subcommand)]
pub enum CardsCmd {
    /// Check card files (or the stored library) against the schema and the authoring rules.
    Lint {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// Lint the cards stored in the library instead of files.
        #[arg(long)]
        library: bool,
        /// Card files, folders, or cards.jsonl files.
        paths: Vec<PathBuf>,
    },
    /// For each clause, the combinations of its cards' conditions that no stored card admits.
    Coverage {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// One clause id (default: every clause of the policy).
        #[arg(long)]
        clause: Option<String>,
        /// Card files or folders to report on instead of the stored library.
        paths: Vec<PathBuf>,
    },
    /// Import card files, folders or cards.jsonl into the library (as drafts; all or nothing).
    Import {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// Name recorded as the author of the new versions.
        #[arg(long, default_value = "cli import")]
        author: String,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// List stored cards.
    List {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        #[arg(long)]
        clause: Option<String>,
        /// Reportable, Non_Reportable or Uncertain.
        #[arg(long = "type")]
        event_type: Option<String>,
        /// draft, audited or approved.
        #[arg(long)]
        status: Option<String>,
    },
    /// Show one card (current version unless --version).
    Show {
        id: String,
        #[arg(long)]
        version: Option<i64>,
    },
    /// Save an edited card document as a new version (back to draft).
    Save {
        id: String,
        file: PathBuf,
        #[arg(long)]
        author: String,
        #[arg(long)]
        note: Option<String>,
    },
    /// Record an audit decision.
    Audit {
        id: String,
        #[arg(long, value_enum)]
        status: StatusArg,
        #[arg(long)]
        auditor: String,
        #[arg(long)]
        notes: Option<String>,
    },
    /// Version history and audit log of a card.
    History { id: String },
    /// Line diff between two versions of a card.
    Diff { id: String, from: i64, to: i64 },
    /// Export current cards to a folder (one JSON per card) or a .jsonl file.
    Export {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        #[arg(long)]
        clause: Option<String>,
    },
}

fn print_coverage(clauses: &[psebench::api::cards::ClauseCoverage]) {
    for c in clauses {
        let r = &c.report;
        if let Some(note) = &r.note {
            println!(
                "{} ({}): {} cards, {} conditions. {note}",
                c.label,
                c.clause_id,
                r.cards.len(),
                r.conditions.len()
            );
            continue;
        }
        let gaps = r.combinations - r.covered;
        println!(
            "{} ({}): {} cards, {} conditions, {} of {} combinations admitted, {gaps} not.",
            c.label,
            c.clause_id,
            r.cards.len(),
            r.conditions.len(),
            r.covered,
            r.combinations
        );
        for g in &r.gaps {
            let shown: Vec<String> = g.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("    no card: {}", shown.join(", "));
        }
        if gaps > r.gaps.len() as u64 {
            println!("    … and {} more", gaps - r.gaps.len() as u64);
        }
    }
}

fn print_lint(report: &LintReport) {
    let mut last_path = String::new();
    for p in &report.problems {
        if p.path != last_path {
            println!("{}", p.path);
            last_path = p.path.clone();
        }
        let sev = match p.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let at = if p.pointer.is_empty() { "(card)".to_string() } else { p.pointer.clone() };
        println!("  {sev:<7} {:<22} {at}\n          {}", p.rule, p.message);
    }
    println!(
        "{}, {}{}",
        count(report.errors, "error"),
        count(report.warnings, "warning"),
        if report.problems.is_empty() { " — all cards pass." } else { "" }
    );
}

pub fn run(cli: &Cli, cmd: &CardsCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        CardsCmd::Lint { policy, library, paths } => {
            if !*library && paths.is_empty() {
                return Err(ApiError::invalid(
                    "Give card files or folders to lint, or --library to lint the stored cards.",
                ));
            }
            let mut report = if *library {
                e.call("cards.lint_library", &PolicyParams { policy: Some(policy.clone()) })?
            } else {
                LintReport::default()
            };
            if !paths.is_empty() {
                let r: LintReport =
                    e.call("cards.lint_paths", &CardPathsParams { paths: paths.clone(), policy: policy.clone() })?;
                report.problems.extend(r.problems);
                report = LintReport::from_problems(report.problems);
            }
            if cli.json {
                print_json(&report);
            } else {
                print_lint(&report);
            }
            return Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS });
        }
        CardsCmd::Coverage { policy, clause, paths } => {
            let r: Vec<psebench::api::cards::ClauseCoverage> = e.call(
                "cards.coverage",
                &psebench::api::rpc::CardCoverageParams {
                    policy: Some(policy.clone()),
                    clause: clause.clone(),
                    paths: paths.clone(),
                },
            )?;
            if cli.json {
                print_json(&r);
            } else {
                print_coverage(&r);
            }
        }
        CardsCmd::Import { policy, author, paths } => {
            let r: psebench::api::cards::CardsImportResult = e.call(
                "cards.import_files",
                &CardImportPathsParams { paths: paths.clone(), policy: policy.clone(), author: author.clone() },
            )?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Imported: {} new, {} updated (new version), {} unchanged. New and updated cards are drafts until audited.",
                    r.added.len(),
                    r.updated.len(),
                    r.unchanged.len()
                );
                if !r.lint.problems.is_empty() {
                    println!("Lint findings to fix before approval:");
                    print_lint(&r.lint);
                }
            }
        }
        CardsCmd::List { policy, clause, event_type, status } => {
            let list: Vec<CardSummary> = e.call(
                "cards.list",
                &CardFilter {
                    policy: Some(policy.clone()),
                    clause: clause.clone(),
                    event_type: event_type.clone(),
                    status: status.clone(),
                    ..Default::default()
                },
            )?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|c| {
                        vec![
                            c.card_id.clone(),
                            c.clause_label.clone().unwrap_or_else(|| c.clause_id.clone()),
                            c.event_type.clone(),
                            c.status.clone(),
                            format!("v{}", c.version),
                            c.variants.to_string(),
                            if c.lint_errors > 0 { format!("{} err", c.lint_errors) } else { "ok".into() },
                            truncate(&c.definition, 50),
                        ]
                    })
                    .collect();
                table(&["CARD", "CLAUSE", "TYPE", "STATUS", "VER", "VARIANTS", "LINT", "DEFINITION"], &rows);
                println!("{}", count(list.len(), "card"));
            }
        }
        CardsCmd::Show { id, version } => {
            let d: CardDetail = e.call("card.show", &CardShowParams { card_id: id.clone(), version: *version })?;
            if cli.json {
                print_json(&d);
            } else {
                println!(
                    "{} — {} — {} (v{} of {}, {}{})",
                    d.summary.card_id,
                    d.summary.clause_label.clone().unwrap_or_default(),
                    d.summary.event_type,
                    d.shown_version,
                    d.summary.version,
                    d.summary.status,
                    d.summary.auditor.as_ref().map(|a| format!(" by {a}")).unwrap_or_default()
                );
                println!("{}", psebench::card::to_pretty(&d.card));
                for p in &d.lint {
                    println!("lint {:?} {} {}: {}", p.severity, p.rule, p.pointer, p.message);
                }
            }
        }
        CardsCmd::Save { id, file, author, note } => {
            let json = psebench::util::files::read_text(file, psebench::util::files::MAX_JSON_FILE_BYTES)?;
            let d: CardDetail = e.call(
                "card.save",
                &CardSaveRequest {
                    card_id: id.clone(),
                    json,
                    author: author.clone(),
                    note: note.clone(),
                    base_version: None,
                },
            )?;
            if cli.json {
                print_json(&d);
            } else {
                println!(
                    "Saved {} as version {} (status: {}).",
                    d.summary.card_id, d.summary.version, d.summary.status
                );
            }
        }
        CardsCmd::Audit { id, status, auditor, notes } => {
            let d: CardDetail = e.call(
                "card.audit",
                &CardAuditRequest {
                    card_id: id.clone(),
                    status: (*status).into(),
                    auditor: auditor.clone(),
                    notes: notes.clone(),
                },
            )?;
            if cli.json {
                print_json(&d);
            } else {
                println!("{} v{} is now {} (by {}).", d.summary.card_id, d.summary.version, d.summary.status, auditor);
            }
        }
        CardsCmd::History { id } => {
            let d: CardDetail = e.call("card.show", &CardShowParams { card_id: id.clone(), version: None })?;
            if cli.json {
                print_json(&serde_json::json!({"versions": d.versions, "audit_log": d.audit_log}));
            } else {
                let rows: Vec<Vec<String>> = d
                    .versions
                    .iter()
                    .map(|v| {
                        vec![
                            format!("v{}", v.version),
                            v.created_at.clone(),
                            v.author.clone(),
                            v.note.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                table(&["VERSION", "WHEN", "AUTHOR", "NOTE"], &rows);
                println!();
                let rows: Vec<Vec<String>> = d
                    .audit_log
                    .iter()
                    .map(|a| {
                        vec![
                            format!("v{}", a.version),
                            a.at.clone(),
                            a.status.clone(),
                            a.auditor.clone(),
                            a.notes.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                table(&["VERSION", "WHEN", "STATUS", "AUDITOR", "NOTES"], &rows);
            }
        }
        CardsCmd::Diff { id, from, to } => {
            let d: CardDiff = e.call("card.diff", &CardDiffParams { card_id: id.clone(), from: *from, to: *to })?;
            if cli.json {
                print_json(&d);
            } else {
                for l in &d.lines {
                    let mark = match l.kind.as_str() {
                        "added" => '+',
                        "removed" => '-',
                        _ => ' ',
                    };
                    println!("{mark} {}", l.text);
                }
            }
        }
        CardsCmd::Export { out, policy, clause } => {
            let n = e
                .call::<_, Count>(
                    "cards.export_to",
                    &CardExportToParams {
                        out: out.clone(),
                        filter: CardFilter {
                            policy: Some(policy.clone()),
                            clause: clause.clone(),
                            ..Default::default()
                        },
                    },
                )?
                .count;
            if cli.json {
                print_json(&serde_json::json!({"exported": n, "out": out}));
            } else {
                println!("Exported {} to {}.", count(n, "card"), out.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
