//! `psebench review …`: expert review sessions. Owner commands manage sessions, read results and
//! adjudicate; reviewer commands (`me`, `item`, `answer`, `reveal`, `rate`) act as one reviewer
//! through the same token functions the HTTP server uses (`--reviewer NAME` in this store, or
//! `--token TOKEN` from a personal link).

use clap::{Args, Subcommand};
use psebench::api::rpc::{
    AdjudicationsParams, Flag, GuidelinesParams, NoParams, PathParams, ReviewAnswerParams, ReviewAnswersFileParams,
    ReviewFileParams, ReviewItemParams, ReviewPackFileParams, ReviewTokenParams, ReviewerParams, SessionParams,
    TokenResult,
};
use psebench::review::*;
use psebench::util::format::count;
use psebench::ApiError;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use super::engine;
use crate::api::Api;
use crate::output::{print_json, table, truncate};
use crate::Cli;

#[derive(Subcommand)]
pub enum ReviewCmd {
    /// Create a session: a seeded stratified sample (or --cases), reviewers, overlap, guidelines.
    Create {
        #[arg(long)]
        name: String,
        /// Complete, missing and uncertain cases to draw.
        #[arg(long, default_value = "30,30,30")]
        sample: String,
        /// Spread each type's share over clauses in proportion to their case counts.
        #[arg(long)]
        by_clause: bool,
        /// Review exactly these case ids instead of a sample (comma-separated).
        #[arg(long, value_delimiter = ',')]
        cases: Vec<String>,
        /// Reviewer names, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        reviewers: Vec<String>,
        /// How many reviewers rate each case (default 2, or 1 with one reviewer).
        #[arg(long)]
        overlap: Option<u32>,
        /// Seed for the sample and the assignment (default: random, recorded with the session).
        #[arg(long)]
        seed: Option<u64>,
        /// A Markdown file of guidelines shown to reviewers before the first case.
        #[arg(long)]
        guidelines: Option<PathBuf>,
        /// Add the rationale task: reviewers tick the boundary conditions that a model's judged
        /// rationale from this evaluation run establishes (repeat or comma-separate for several runs).
        #[arg(long = "rationale-from", value_delimiter = ',')]
        rationale_from: Vec<String>,
    },
    /// List sessions with their progress.
    List,
    /// Show a session and each reviewer's progress.
    Show { session: String },
    /// How many cases a sample can draw on, per type and clause.
    Available,
    /// Print a session's guidelines, or replace them with --set FILE.md.
    Guidelines {
        session: String,
        #[arg(long)]
        set: Option<PathBuf>,
    },
    /// Delete a session and all its answers and decisions.
    Delete {
        session: String,
        /// Required: deleting cannot be undone.
        #[arg(long)]
        yes: bool,
    },
    /// Close a session: every reviewer link of it is refused from now on; the answers are kept.
    Close { session: String },
    /// Reopen a closed session: the links given out before work again.
    Reopen { session: String },
    /// Make personal review links (tokens are shown only now; --rotate replaces existing ones).
    Links {
        session: String,
        /// Only these reviewers (repeat or comma-separate).
        #[arg(long = "reviewer", value_delimiter = ',')]
        reviewers: Vec<String>,
        #[arg(long)]
        rotate: bool,
        /// The server address the links start with.
        #[arg(long, default_value = "http://127.0.0.1:PORT")]
        base: String,
    },
    /// A reviewer's own progress and where to resume.
    Me(Who),
    /// One of a reviewer's items: narrative and own answer (reveal material once opened).
    Item {
        #[command(flatten)]
        who: Who,
        #[arg(long)]
        item: u32,
    },
    /// Save parts of a reviewer's answer to an item.
    Answer {
        #[command(flatten)]
        who: Who,
        #[arg(long)]
        item: u32,
        #[arg(long)]
        realism: Option<u8>,
        #[arg(long)]
        plausibility: Option<u8>,
        /// Reportable, Non-reportable, Missing information (or missing), Uncertain.
        #[arg(long)]
        verdict: Option<String>,
        /// yes or no (only after the reveal).
        #[arg(long)]
        agree: Option<String>,
        /// A comment ("" clears it).
        #[arg(long)]
        comment: Option<String>,
        /// Seconds spent on the item since the last report.
        #[arg(long)]
        time: Option<f64>,
        /// The rationale task (after the reveal): the conditions the rationale establishes,
        /// comma-separated, or "none".
        #[arg(long)]
        rationale: Option<String>,
    },
    /// Open the by-construction verdict of an item (after the reviewer's own verdict is saved).
    Reveal {
        #[command(flatten)]
        who: Who,
        #[arg(long)]
        item: u32,
    },
    /// Answer the questionnaire in the terminal, one item at a time, resuming where you stopped.
    Rate(Who),
    /// Ratings, agreement with the by-construction verdicts and between reviewers.
    Stats { session: String },
    /// Cases to adjudicate.
    Queue {
        session: String,
        /// Rating spread (highest − lowest) above which a case is queued.
        #[arg(long)]
        threshold: Option<u8>,
        /// A rating at or below this queues a case (0: off).
        #[arg(long)]
        low: Option<u8>,
        /// Also list cases already decided.
        #[arg(long)]
        decided: bool,
        /// List every case with all answers.
        #[arg(long)]
        all: bool,
    },
    /// Record the final call on a case: accept, relabel:VERDICT or reject [--exclude].
    Adjudicate {
        session: String,
        case: String,
        #[arg(long)]
        decision: String,
        /// With reject: flag the case as excluded from the dataset.
        #[arg(long)]
        exclude: bool,
        /// The adjudicator's name.
        #[arg(long)]
        by: String,
        #[arg(long)]
        note: Option<String>,
    },
    /// Every decision recorded in a session (or for one case).
    History {
        session: String,
        #[arg(long)]
        case: Option<String>,
    },
    /// Long-format answers: one row per reviewer × case × question (.csv or .jsonl).
    Export {
        session: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// The summary table in Markdown and LaTeX, and the statistics as JSON, into a folder.
    Summary {
        session: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Review packs: reviewing with no server.
    #[command(subcommand)]
    Pack(PackCmd),
}

#[derive(Subcommand)]
pub enum PackCmd {
    /// Write a reviewer's pack (their cases, the reveal material and answers so far).
    Export {
        session: String,
        #[arg(long)]
        reviewer: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Open a pack received from the person running the review.
    Open { file: PathBuf },
    /// Write the answers file to send back (in the store where the pack was opened).
    Answers {
        session: String,
        #[arg(long)]
        reviewer: Option<String>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Merge a reviewer's answers file into the session (safe to repeat).
    Merge { file: PathBuf },
}

/// Who is reviewing: a reviewer of a session in this store, or a personal link's token.
#[derive(Args)]
pub struct Who {
    /// Session id or name (with --reviewer).
    session: Option<String>,
    #[arg(long)]
    reviewer: Option<String>,
    /// A personal link's token instead of --reviewer.
    #[arg(long)]
    token: Option<String>,
}

impl Who {
    fn token(&self, e: &Api) -> Result<String, ApiError> {
        if let Some(t) = &self.token {
            return Ok(t.clone());
        }
        match (&self.session, &self.reviewer) {
            (Some(s), Some(r)) => e
                .call::<_, TokenResult>(
                    "review.local_token",
                    &ReviewerParams { session: s.clone(), reviewer: r.clone() },
                )
                .map(|t| t.token),
            _ => Err(ApiError::invalid(
                "Say who is reviewing: SESSION --reviewer NAME, or --token TOKEN from a personal link.",
            )),
        }
    }
}

fn parse_sample(s: &str) -> Result<[u32; 3], ApiError> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let bad = || {
        ApiError::invalid(format!(
            "--sample takes three numbers, complete,missing,uncertain (like 30,30,30), not \"{s}\""
        ))
    };
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut out = [0u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p.parse().map_err(|_| bad())?;
    }
    Ok(out)
}

/// "none" (or nothing) for no condition, else condition names separated by commas.
fn parse_ticks(s: &str) -> Vec<String> {
    if s.trim().eq_ignore_ascii_case("none") {
        return Vec::new();
    }
    s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect()
}

fn print_rationale_task(t: &RationaleTask, ticked: Option<&Vec<String>>) {
    println!("\nA model's rationale for this case:\n");
    print!("{}", wrap(&t.rationale, 76).lines().map(|l| format!("  | {l}\n")).collect::<String>());
    println!("\nWhich of these conditions does the rationale establish (treating it as met or not met the way the case says)?");
    for (i, c) in t.conditions.iter().enumerate() {
        let mark = match ticked {
            Some(v) if v.contains(&c.name) => "[x]",
            Some(_) => "[ ]",
            None => "[?]",
        };
        println!(
            "  {} {mark} {} ({} in this case): {}",
            i + 1,
            c.name,
            if c.value { "holds" } else { "does not hold" },
            truncate(&c.meaning, 140)
        );
    }
}

fn print_judge_agreement(a: &JudgeAgreement) {
    print_judge_agreement_as(a.reviewer.as_deref().unwrap_or("pooled"), a);
}

/// One line of the judge-against-reviewers agreement, under the label `who`.
fn print_judge_agreement_as(who: &str, a: &JudgeAgreement) {
    let kappa = match a.kappa.value {
        Some(v) => format!("{v:.3}"),
        None => format!("– ({})", a.kappa.note.as_deref().unwrap_or("undefined")),
    };
    let share = |x: Option<f64>| x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "–".into());
    println!(
        "  {who:<16} kappa {kappa}  n={} decisions over {}  observed {}  expected {}  (both {}, judge only {}, reviewer only {}, neither {})",
        a.kappa.n,
        count(a.items, "item"),
        share(a.observed_agreement),
        share(a.expected_agreement),
        a.both,
        a.judge_only,
        a.reviewer_only,
        a.neither
    );
    if let Some(c) = &a.caution {
        println!("  {:<16} {c}", "");
    }
}

fn read_file(p: &Path) -> Result<String, ApiError> {
    psebench::util::files::read_text(p, psebench::util::files::MAX_TEXT_FILE_BYTES).map_err(ApiError::from)
}

fn fmt_stat(s: &StatValue) -> String {
    match s.value {
        Some(v) => format!("{v:.3} (n={})", s.n),
        None => format!("– ({})", s.note.as_deref().unwrap_or("undefined")),
    }
}

fn fmt_mean(m: &MeanSd) -> String {
    match (m.mean, m.sd) {
        (Some(a), Some(b)) => format!("{a:.2} ± {b:.2}"),
        (Some(a), None) => format!("{a:.2}"),
        _ => "–".into(),
    }
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for para in text.split('\n') {
        let mut line = String::new();
        for w in para.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn print_detail(d: &ReviewSessionDetail) {
    let s = &d.summary;
    println!(
        "{} — {} ({}{})",
        s.session_id,
        s.name,
        s.role.as_str(),
        if s.role == SessionRole::Visiting { ", opened from a pack" } else { "" }
    );
    let types: Vec<String> = d.cases_by_type.iter().map(|t| format!("{} {}", t.count, t.case_type)).collect();
    println!("Cases:     {} ({})", s.cases, types.join(", "));
    println!("Overlap:   each case rated by {}", s.overlap);
    if let Some(seed) = d.seed {
        println!("Seed:      {seed}");
    }
    if d.rationale_items > 0 {
        let from =
            if d.rationale_runs.is_empty() { String::new() } else { format!(" from {}", d.rationale_runs.join(", ")) };
        println!("Rationale: {} with a model's rationale to check{from}", count(d.rationale_items, "case"));
    }
    println!("Answers:   {} of {} complete\n", s.completed, s.assignments);
    let rows: Vec<Vec<String>> = d
        .progress
        .iter()
        .map(|p| {
            vec![
                p.reviewer.clone(),
                format!("{}/{}", p.completed, p.items),
                p.blind_saved.to_string(),
                p.revealed.to_string(),
                format!("{:.0} min", p.time_spent_secs / 60.0),
                p.last_answer_at.clone().unwrap_or_else(|| "-".into()),
                if p.link_active { "yes".into() } else { "no".into() },
            ]
        })
        .collect();
    table(&["REVIEWER", "DONE", "VERDICTS", "REVEALED", "TIME", "LAST ANSWER", "LINK"], &rows);
}

fn print_reveal(r: &ReviewReveal) {
    let m = &r.material;
    println!(
        "\nBy construction: {}   (your verdict: {}{})",
        m.expected_verdict.as_str(),
        r.your_blind_verdict.as_str(),
        if r.matches_your_verdict { ", the same" } else { ", different" }
    );
    print!("{}", wrap(&m.explanation, 78));
    if let Some(d) = &m.card_definition {
        print!("Card {}: {}", m.card_id, wrap(d, 78));
    }
    if !m.legal_basis.is_empty() {
        println!("Legal basis: {}", m.legal_basis.join("; "));
    }
    for b in &m.boundary_conditions {
        println!("  [{}] {}: {}", if b.value { "true " } else { "false" }, b.name, truncate(&b.meaning, 160));
    }
    for w in &m.withheld_elements {
        println!("  withheld {}: {}", w.name, truncate(&w.meaning, 160));
    }
    if let Some(s) = &m.missing_summary {
        print!("{}", wrap(s, 78));
    }
    println!("(case {})", m.case_id);
}

pub fn run(cli: &Cli, cmd: &ReviewCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        ReviewCmd::Create { name, sample, by_clause, cases, reviewers, overlap, seed, guidelines, rationale_from } => {
            let selection = if cases.is_empty() {
                let [c, m, u] = parse_sample(sample)?;
                ReviewSelection::Stratified { complete: c, missing: m, uncertain: u, by_clause: *by_clause }
            } else {
                ReviewSelection::Cases { case_ids: cases.clone() }
            };
            let guidelines = guidelines.as_deref().map(read_file).transpose()?;
            let d: ReviewSessionDetail = e.call(
                "review.create",
                &ReviewCreateRequest {
                    name: name.clone(),
                    selection,
                    reviewers: reviewers.clone(),
                    overlap: *overlap,
                    seed: *seed,
                    guidelines,
                    rationale_from: if rationale_from.is_empty() { None } else { Some(rationale_from.clone()) },
                },
            )?;
            if cli.json {
                print_json(&d);
            } else {
                print_detail(&d);
                println!(
                    "\nNext: `psebench review links {}` for personal links, or `review pack export` for packs.",
                    d.summary.session_id
                );
            }
        }
        ReviewCmd::List => {
            let list: Vec<ReviewSessionSummary> = e.call("review.list", &NoParams {})?;
            if cli.json {
                print_json(&list);
            } else if list.is_empty() {
                println!(
                    "No review sessions yet. Create one with `psebench review create --name NAME --reviewers A,B`."
                );
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|s| {
                        vec![
                            s.session_id.clone(),
                            s.name.clone(),
                            s.role.as_str().into(),
                            s.cases.to_string(),
                            s.reviewers.join(", "),
                            format!("{}/{}", s.completed, s.assignments),
                            s.created_at.clone(),
                        ]
                    })
                    .collect();
                table(&["SESSION", "NAME", "ROLE", "CASES", "REVIEWERS", "DONE", "CREATED"], &rows);
            }
        }
        ReviewCmd::Show { session } => {
            let d: ReviewSessionDetail = e.call("review.show", &SessionParams { session: session.clone() })?;
            if cli.json {
                print_json(&d);
            } else {
                print_detail(&d);
            }
        }
        ReviewCmd::Available => {
            let a: ReviewAvailable = e.call("review.available", &NoParams {})?;
            if cli.json {
                print_json(&a);
            } else {
                println!(
                    "Cases available for a sample: {} complete, {} missing, {} uncertain.\n",
                    a.complete, a.missing, a.uncertain
                );
                let rows: Vec<Vec<String>> = a
                    .by_clause
                    .iter()
                    .map(|c| {
                        vec![
                            c.clause_id.clone(),
                            c.complete.to_string(),
                            c.missing.to_string(),
                            c.uncertain.to_string(),
                        ]
                    })
                    .collect();
                table(&["CLAUSE", "COMPLETE", "MISSING", "UNCERTAIN"], &rows);
            }
        }
        ReviewCmd::Guidelines { session, set } => {
            let text = match set {
                Some(p) => {
                    let markdown = read_file(p)?;
                    e.call::<_, ReviewSessionDetail>(
                        "review.set_guidelines",
                        &GuidelinesParams { session: session.clone(), markdown },
                    )?
                    .guidelines
                }
                None => {
                    e.call::<_, ReviewSessionDetail>("review.show", &SessionParams { session: session.clone() })?
                        .guidelines
                }
            };
            if cli.json {
                print_json(&serde_json::json!({ "guidelines": text }));
            } else {
                print!("{text}");
            }
        }
        ReviewCmd::Delete { session, yes } => {
            if !yes {
                return Err(ApiError::invalid(
                    "Deleting a session removes all its answers and decisions and cannot be undone; add --yes to confirm.",
                ));
            }
            e.call::<_, Flag>("review.delete", &SessionParams { session: session.clone() })?;
            if cli.json {
                print_json(&serde_json::json!({ "deleted": session }));
            } else {
                println!("Deleted review session {session}.");
            }
        }
        ReviewCmd::Close { session } | ReviewCmd::Reopen { session } => {
            let closing = matches!(cmd, ReviewCmd::Close { .. });
            let d: ReviewSessionDetail = e.call(
                if closing { "review.close" } else { "review.reopen" },
                &SessionParams { session: session.clone() },
            )?;
            if cli.json {
                print_json(&d.summary);
            } else if closing {
                println!(
                    "Review \"{}\" is closed: its reviewers' links are refused from now on. The answers are kept \
                     (`psebench review reopen {}` opens it again).",
                    d.summary.name, d.summary.session_id
                );
            } else {
                println!("Review \"{}\" is open again: the links given out before work again.", d.summary.name);
            }
        }
        ReviewCmd::Links { session, reviewers, rotate, base } => {
            let l: ReviewLinks = e.call(
                "review.links",
                &ReviewLinksRequest { session_id: session.clone(), reviewers: reviewers.clone(), rotate: *rotate },
            )?;
            if cli.json {
                print_json(&l);
            } else {
                println!("Personal links for \"{}\" (each opens only that reviewer's cases):\n", l.session_name);
                for link in &l.links {
                    match &link.path {
                        Some(p) => println!("  {:<20} {}{}", link.reviewer, base.trim_end_matches('/'), p),
                        None => println!("  {:<20} (link already made; add --rotate to replace it)", link.reviewer),
                    }
                }
                // The command names this store, so that it works whatever store this one is.
                let share: psebench::review::sharing::ReviewShareStatus =
                    e.call("review.share_status", &SessionParams { session: l.session_id.clone() })?;
                println!(
                    "\nThe tokens are shown only now and stored hashed. To serve the links, use Share in the app, or run\n  {}\n\
                     which prints the links with the real address.",
                    share.headless_command
                );
                println!(
                    "Served with --lan, links and answers travel unencrypted (plain HTTP) on the local network: use it only on \
                     a network you trust, or add --tls-cert and --tls-key. `psebench review close {}` makes every link stop working.",
                    l.session_id
                );
            }
        }
        ReviewCmd::Me(who) => {
            let me = review_me(&e, &who.token(&e)?)?;
            if cli.json {
                print_json(&me);
            } else {
                println!(
                    "{} — reviewer {}: {}/{} items complete.",
                    me.session_name, me.reviewer, me.progress.completed, me.progress.total
                );
                match me.resume_item_no {
                    Some(n) => println!("Resume at item {n}."),
                    None => println!("All items are complete. Thank you."),
                }
            }
        }
        ReviewCmd::Item { who, item } => {
            let v = review_item(&e, &who.token(&e)?, *item)?;
            if cli.json {
                print_json(&v);
            } else {
                println!("Item {} of {} — {}\n", v.item_no, v.total_items, v.session_name);
                print!("{}", wrap(&v.narrative, 78));
                let a = &v.answer;
                println!(
                    "\nRealism {}  Plausibility {}  Verdict {}  Agree {}",
                    a.realism.map(|x| x.to_string()).unwrap_or("-".into()),
                    a.plausibility.map(|x| x.to_string()).unwrap_or("-".into()),
                    a.blind_verdict.map(|x| x.as_str()).unwrap_or("-"),
                    a.agree.map(|x| if x { "yes" } else { "no" }).unwrap_or("-")
                );
                if let Some(r) = &v.reveal {
                    print_reveal(r);
                }
                if let Some(t) = &v.rationale_task {
                    print_rationale_task(t, v.answer.rationale_established.as_ref());
                } else if v.has_rationale_task {
                    println!("\nThis item also asks you to check a model's rationale, once your verdict is saved and revealed.");
                }
            }
        }
        ReviewCmd::Answer { who, item, realism, plausibility, verdict, agree, comment, time, rationale } => {
            let blind_verdict = verdict
                .as_deref()
                .map(|v| {
                    ReviewVerdict::parse_loose(v).ok_or_else(|| {
                        ApiError::invalid(format!("\"{v}\" is not a verdict; use Reportable, Non-reportable, Missing information or Uncertain."))
                    })
                })
                .transpose()?;
            let agree = agree
                .as_deref()
                .map(|a| match a.trim().to_lowercase().as_str() {
                    "yes" | "y" | "agree" | "true" => Ok(true),
                    "no" | "n" | "disagree" | "false" => Ok(false),
                    other => Err(ApiError::invalid(format!("--agree takes yes or no, not \"{other}\"."))),
                })
                .transpose()?;
            let saved = review_answer(
                &e,
                &who.token(&e)?,
                *item,
                &ReviewAnswerPatch {
                    realism: *realism,
                    plausibility: *plausibility,
                    blind_verdict,
                    agree,
                    comment: comment.clone(),
                    add_time_secs: *time,
                    rationale_established: rationale.as_deref().map(parse_ticks),
                },
            )?;
            if cli.json {
                print_json(&saved);
            } else {
                let what = if saved.changed.is_empty() { "nothing new".to_string() } else { saved.changed.join(", ") };
                println!(
                    "Item {}: saved ({what}). {}/{} complete.",
                    item, saved.progress.completed, saved.progress.total
                );
            }
        }
        ReviewCmd::Reveal { who, item } => {
            let r = review_reveal(&e, &who.token(&e)?, *item)?;
            if cli.json {
                print_json(&r);
            } else {
                print_reveal(&r);
            }
        }
        ReviewCmd::Rate(who) => return rate(&e, &who.token(&e)?),
        ReviewCmd::Stats { session } => {
            let s: ReviewStats = e.call("review.stats", &SessionParams { session: session.clone() })?;
            if cli.json {
                print_json(&s);
            } else {
                println!("{} — {} of {} answers complete.\n", s.session_name, s.completed, s.assignments);
                let rows: Vec<Vec<String>> = s
                    .by_type
                    .iter()
                    .map(|t| {
                        vec![
                            t.case_type.clone(),
                            t.cases.to_string(),
                            fmt_mean(&t.realism),
                            fmt_mean(&t.plausibility),
                            t.cases_blind_agreement.text.clone(),
                            t.cases_agree_mark.text.clone(),
                            t.blind_agreement.text.clone(),
                            t.agree_mark.text.clone(),
                        ]
                    })
                    .collect();
                table(
                    &[
                        "TYPE",
                        "CASES",
                        "REALISM",
                        "PLAUSIBILITY",
                        "VERDICT=BC (CASES)",
                        "AGREE (CASES)",
                        "VERDICT=BC (ANSWERS)",
                        "AGREE (ANSWERS)",
                    ],
                    &rows,
                );
                let ir = &s.inter_rater;
                println!("\nBetween reviewers:");
                println!(
                    "  realism       Krippendorff's alpha (ordinal) {}",
                    fmt_stat(&ir.realism.krippendorff_alpha_ordinal)
                );
                println!(
                    "  plausibility  Krippendorff's alpha (ordinal) {}",
                    fmt_stat(&ir.plausibility.krippendorff_alpha_ordinal)
                );
                for (label, pairs) in [
                    ("realism", &ir.realism.weighted_kappa_pairs),
                    ("plausibility", &ir.plausibility.weighted_kappa_pairs),
                ] {
                    for p in pairs.iter() {
                        println!("  {label:<13} weighted kappa (quadratic), {} & {}: {}", p.a, p.b, fmt_stat(&p.stat));
                    }
                }
                for p in &ir.verdict.cohen_kappa_pairs {
                    println!("  verdict       Cohen's kappa, {} & {}: {}", p.a, p.b, fmt_stat(&p.stat));
                }
                println!("  verdict       Fleiss' kappa {}", fmt_stat(&ir.verdict.fleiss_kappa));
                println!(
                    "  verdict       Krippendorff's alpha (nominal) {}",
                    fmt_stat(&ir.verdict.krippendorff_alpha_nominal)
                );
                if !s.inter_rater_by_type.is_empty() {
                    println!("\nBetween reviewers, per case type (– when undefined; --json gives the reason):");
                    let short = |x: &psebench::review::StatValue| match x.value {
                        Some(v) => format!("{v:.3} (n={})", x.n),
                        None => format!("– (n={})", x.n),
                    };
                    let rows: Vec<Vec<String>> = s
                        .inter_rater_by_type
                        .iter()
                        .map(|t| {
                            let ir = &t.inter_rater;
                            vec![
                                t.case_type.clone(),
                                t.cases.to_string(),
                                short(&ir.realism.krippendorff_alpha_ordinal),
                                short(&ir.plausibility.krippendorff_alpha_ordinal),
                                short(&ir.verdict.fleiss_kappa),
                                short(&ir.verdict.krippendorff_alpha_nominal),
                            ]
                        })
                        .collect();
                    table(
                        &[
                            "TYPE",
                            "CASES",
                            "REALISM ALPHA",
                            "PLAUSIBILITY ALPHA",
                            "VERDICT FLEISS KAPPA",
                            "VERDICT ALPHA",
                        ],
                        &rows,
                    );
                }
                if let Some(r) = &s.rationale {
                    println!(
                        "\nThe M4 judge against reviewers (rationale task, {} from {}): Cohen's kappa over (item, condition) decisions",
                        count(r.items_with_task, "item"),
                        r.runs.join(", ")
                    );
                    for a in &r.per_reviewer {
                        print_judge_agreement(a);
                    }
                    print_judge_agreement(&r.pooled);
                    if !r.by_type.is_empty() {
                        println!("  Per case type (all reviewers pooled):");
                        for t in &r.by_type {
                            print_judge_agreement_as(&t.case_type, &t.agreement);
                        }
                    }
                }
            }
        }
        ReviewCmd::Queue { session, threshold, low, decided, all } => {
            let q: ReviewQueue = e.call(
                "review.queue",
                &ReviewQueueRequest {
                    session_id: session.clone(),
                    threshold: *threshold,
                    low_rating: *low,
                    include_decided: *decided,
                    include_unflagged: *all,
                },
            )?;
            if cli.json {
                print_json(&q);
            } else {
                println!(
                    "{} to decide, {} decided (spread threshold {}, low rating ≤ {}).\n",
                    count(q.pending, "case"),
                    q.decided,
                    q.threshold,
                    q.low_rating
                );
                for it in &q.items {
                    println!("{}  [{}; by construction {}]", it.case_id, it.case_type, it.expected_verdict.as_str());
                    for r in &it.reasons {
                        println!("  - {}", r.text);
                    }
                    for a in &it.answers {
                        println!(
                            "    {:<16} realism {} plausibility {} verdict {} agree {}{}",
                            a.reviewer,
                            a.realism.map(|x| x.to_string()).unwrap_or("-".into()),
                            a.plausibility.map(|x| x.to_string()).unwrap_or("-".into()),
                            a.blind_verdict.map(|x| x.as_str()).unwrap_or("-"),
                            a.agree.map(|x| if x { "yes" } else { "no" }).unwrap_or("-"),
                            a.comment.as_deref().map(|c| format!(" — \"{}\"", truncate(c, 80))).unwrap_or_default()
                        );
                    }
                    if let Some(d) = &it.decision {
                        println!("    decided: {} by {} on {}", d.decision.describe(), d.adjudicator, d.decided_at);
                    }
                }
            }
        }
        ReviewCmd::Adjudicate { session, case, decision, exclude, by, note } => {
            let decision = AdjudicationDecision::parse(decision).ok_or_else(|| {
                ApiError::invalid(format!("\"{decision}\" is not a decision; use accept, reject, or relabel:VERDICT (e.g. relabel:uncertain)."))
            })?;
            let d: ReviewAdjudication = e.call(
                "review.adjudicate",
                &ReviewAdjudicateRequest {
                    session_id: session.clone(),
                    case_id: case.clone(),
                    decision,
                    adjudicator: by.clone(),
                    note: note.clone(),
                    exclude: *exclude,
                },
            )?;
            if cli.json {
                print_json(&d);
            } else {
                println!("{}: {} by {}.", d.case_id, d.decision.describe(), d.adjudicator);
                if d.excluded_case {
                    println!("The case is now excluded from the dataset (runs leave it out); a later accept or relabel brings it back.");
                }
                if d.restored_case {
                    println!("The case is back in the dataset.");
                }
            }
        }
        ReviewCmd::History { session, case } => {
            let h: Vec<ReviewAdjudication> = e.call(
                "review.adjudications",
                &AdjudicationsParams { session: session.clone(), case_id: case.clone() },
            )?;
            if cli.json {
                print_json(&h);
            } else {
                let rows: Vec<Vec<String>> = h
                    .iter()
                    .map(|d| {
                        vec![
                            d.decided_at.clone(),
                            d.case_id.clone(),
                            d.decision.describe(),
                            d.adjudicator.clone(),
                            if d.superseded { "superseded".into() } else { "in force".into() },
                            d.note.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                table(&["WHEN", "CASE", "DECISION", "BY", "STATUS", "NOTE"], &rows);
            }
        }
        ReviewCmd::Export { session, out } => {
            let r: ReviewExportResult =
                e.call("review.export_to", &ReviewFileParams { session: session.clone(), out: out.clone() })?;
            if cli.json {
                print_json(&r);
            } else {
                println!("Wrote {} to {}.", count(r.rows, "row"), r.path);
            }
        }
        ReviewCmd::Summary { session, out } => {
            let r: ReviewSummaryFiles =
                e.call("review.summary_write", &ReviewFileParams { session: session.clone(), out: out.clone() })?;
            if cli.json {
                print_json(&r);
            } else {
                println!("Wrote {}.", r.files.join(", "));
            }
        }
        ReviewCmd::Pack(p) => return pack(cli, &e, p),
    }
    Ok(ExitCode::SUCCESS)
}

fn pack(cli: &Cli, e: &Api, cmd: &PackCmd) -> Result<ExitCode, ApiError> {
    match cmd {
        PackCmd::Export { session, reviewer, out } => {
            let r: ReviewPackExported = e.call(
                "review.pack_export_to",
                &ReviewPackFileParams { session: session.clone(), reviewer: reviewer.clone(), out: out.clone() },
            )?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Wrote {}'s review pack ({} items, {} already answered) to {}.\nThe file contains the by-construction verdicts: \
                     it is meant to be opened in the app (`psebench review pack open`), not read.",
                    r.reviewer,
                    r.items,
                    r.answered,
                    out.display()
                );
            }
        }
        PackCmd::Open { file } => {
            let r: ReviewPackOpened = e.call("review.pack_open_file", &PathParams { path: file.clone() })?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "{} session \"{}\" ({}) for {}: {} items, {} answered.",
                    if r.already_open { "Updated" } else { "Opened" },
                    r.session_name,
                    r.session_id,
                    r.reviewer,
                    r.items,
                    r.answered
                );
                println!("Review with `psebench review rate {} --reviewer \"{}\"`; then `review pack answers` to send them back.", r.session_id, r.reviewer);
            }
        }
        PackCmd::Answers { session, reviewer, out } => {
            let r: ReviewPackExported = e.call(
                "review.pack_answers_to",
                &ReviewAnswersFileParams { session: session.clone(), reviewer: reviewer.clone(), out: out.clone() },
            )?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Wrote {}'s answers ({} of {} items answered) to {}; send this file back.",
                    r.reviewer,
                    r.answered,
                    r.items,
                    out.display()
                );
            }
        }
        PackCmd::Merge { file } => {
            let r: ReviewPackMergeReport = e.call("review.pack_merge_file", &PathParams { path: file.clone() })?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "Merged {}'s answers into \"{}\": {} changed, {} updated.",
                    r.reviewer,
                    r.session_name,
                    count(r.items_changed, "item"),
                    count(r.fields_updated, "part")
                );
                for k in &r.kept {
                    println!("  kept: {k}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The terminal questionnaire. Reads one answer per line; "q" (or the end of input) stops, and
/// everything given so far is already saved.
fn rate(e: &Api, token: &str) -> Result<ExitCode, ApiError> {
    let me = review_me(e, token)?;
    println!(
        "{} — reviewer {}. {}/{} items complete.",
        me.session_name, me.reviewer, me.progress.completed, me.progress.total
    );
    if me.progress.completed == 0 {
        println!();
        print!("{}", me.guidelines);
    }
    let Some(mut item) = me.resume_item_no else {
        println!("All items are complete. Thank you.");
        return Ok(ExitCode::SUCCESS);
    };
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut ask = |prompt: &str| -> Option<String> {
        print!("{prompt}");
        let _ = std::io::stdout().flush();
        match lines.next() {
            Some(Ok(l)) if l.trim() != "q" => Some(l.trim().to_string()),
            _ => None,
        }
    };
    let stopped = |n: u32| {
        println!("\nStopped at item {n}; everything you entered is saved. Run the same command to continue.");
        Ok(ExitCode::SUCCESS)
    };
    loop {
        let v = review_item(e, token, item)?;
        let mut clock = Instant::now();
        let save = |patch: ReviewAnswerPatch, clock: &mut Instant| -> Result<ReviewAnswerSaved, ApiError> {
            let p = ReviewAnswerPatch { add_time_secs: Some(clock.elapsed().as_secs_f64()), ..patch };
            *clock = Instant::now();
            review_answer(e, token, item, &p)
        };
        println!("\n── Item {} of {} ({} complete) ──\n", v.item_no, v.total_items, v.progress.completed);
        print!("{}", wrap(&v.narrative, 78));
        for (label, anchors, current) in [
            ("Realism", &me.realism_anchors, v.answer.realism),
            ("Plausibility", &me.plausibility_anchors, v.answer.plausibility),
        ] {
            println!("\n{label}:");
            for a in anchors.iter() {
                println!("  {} {} — {}", a.value, a.label, a.meaning);
            }
            loop {
                let keep = current.map(|c| format!(" [Enter keeps {c}]")).unwrap_or_default();
                let Some(ans) = ask(&format!("{label} 1–5{keep}, q to stop: ")) else { return stopped(item) };
                if ans.is_empty() && current.is_some() {
                    break;
                }
                match ans.parse::<u8>() {
                    Ok(n) if (1..=5).contains(&n) => {
                        let p = if label == "Realism" {
                            ReviewAnswerPatch { realism: Some(n), ..Default::default() }
                        } else {
                            ReviewAnswerPatch { plausibility: Some(n), ..Default::default() }
                        };
                        save(p, &mut clock)?;
                        break;
                    }
                    _ => println!("Please type a number from 1 to 5."),
                }
            }
        }
        if v.reveal.is_none() {
            println!("\nYour own verdict:");
            for o in &me.verdict_options {
                println!("  {} {} — {}", o.key, o.verdict.as_str(), o.meaning);
            }
            loop {
                let keep = v.answer.blind_verdict.map(|c| format!(" [Enter keeps {}]", c.as_str())).unwrap_or_default();
                let Some(ans) = ask(&format!("Verdict 1–4{keep}, q to stop: ")) else { return stopped(item) };
                if ans.is_empty() && v.answer.blind_verdict.is_some() {
                    break;
                }
                let pick = ans
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| me.verdict_options.get(n.wrapping_sub(1)))
                    .map(|o| o.verdict);
                match pick.or_else(|| ReviewVerdict::parse_loose(&ans)) {
                    Some(verdict) => {
                        save(ReviewAnswerPatch { blind_verdict: Some(verdict), ..Default::default() }, &mut clock)?;
                        break;
                    }
                    None => println!("Please type 1, 2, 3 or 4."),
                }
            }
        }
        let r = review_reveal(e, token, item)?;
        print_reveal(&r);
        loop {
            let keep =
                v.answer.agree.map(|a| format!(" [Enter keeps {}]", if a { "y" } else { "n" })).unwrap_or_default();
            let Some(ans) = ask(&format!("Do you agree with the by-construction verdict? y/n{keep}, q to stop: "))
            else {
                return stopped(item);
            };
            let agree = match ans.to_lowercase().as_str() {
                "y" | "yes" => Some(true),
                "n" | "no" => Some(false),
                "" if v.answer.agree.is_some() => v.answer.agree,
                _ => None,
            };
            if let Some(a) = agree {
                save(ReviewAnswerPatch { agree: Some(a), ..Default::default() }, &mut clock)?;
                break;
            }
            println!("Please type y or n.");
        }
        let keep = if v.answer.comment.is_some() {
            " (Enter keeps the current one, - clears it)"
        } else {
            " (Enter for none)"
        };
        let Some(c) = ask(&format!("Comment{keep}: ")) else { return stopped(item) };
        let comment = match c.as_str() {
            "" => None,
            "-" => Some(String::new()),
            _ => Some(c),
        };
        let mut saved = save(ReviewAnswerPatch { comment, ..Default::default() }, &mut clock)?;
        if v.has_rationale_task {
            let v = review_item(e, token, item)?;
            if let Some(t) = &v.rationale_task {
                print_rationale_task(t, v.answer.rationale_established.as_ref());
                loop {
                    let keep =
                        if v.answer.rationale_established.is_some() { " [Enter keeps the marks shown]" } else { "" };
                    let Some(ans) = ask(&format!(
                        "Numbers of the conditions it establishes (e.g. 1,3), 0 for none{keep}, q to stop: "
                    )) else {
                        return stopped(item);
                    };
                    if ans.is_empty() && v.answer.rationale_established.is_some() {
                        break;
                    }
                    let picked: Option<Vec<String>> = if ans == "0" {
                        Some(Vec::new())
                    } else {
                        ans.split([',', ' '])
                            .filter(|x| !x.trim().is_empty())
                            .map(|x| x.trim().parse::<usize>().ok().and_then(|n| t.conditions.get(n.wrapping_sub(1))))
                            .map(|c| c.map(|c| c.name.clone()))
                            .collect()
                    };
                    match picked {
                        Some(list) if !ans.is_empty() => {
                            saved = save(
                                ReviewAnswerPatch { rationale_established: Some(list), ..Default::default() },
                                &mut clock,
                            )?;
                            break;
                        }
                        _ => println!(
                            "Please type condition numbers from 1 to {}, separated by commas, or 0.",
                            t.conditions.len()
                        ),
                    }
                }
            }
        }
        match saved.resume_item_no {
            Some(n) => item = n,
            None => {
                println!("\nAll {} items are complete. Thank you.", saved.progress.total);
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
}

fn review_me(e: &Api, token: &str) -> Result<ReviewMe, ApiError> {
    e.call("review.me", &ReviewTokenParams { token: token.to_string() })
}

fn review_item(e: &Api, token: &str, item_no: u32) -> Result<ReviewItemView, ApiError> {
    e.call("review.item", &ReviewItemParams { token: token.to_string(), item_no })
}

fn review_answer(e: &Api, token: &str, item_no: u32, patch: &ReviewAnswerPatch) -> Result<ReviewAnswerSaved, ApiError> {
    e.call("review.answer", &ReviewAnswerParams { token: token.to_string(), item_no, patch: patch.clone() })
}

fn review_reveal(e: &Api, token: &str, item_no: u32) -> Result<ReviewReveal, ApiError> {
    e.call("review.reveal", &ReviewItemParams { token: token.to_string(), item_no })
}
