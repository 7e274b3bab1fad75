use crate::api::Api;
use clap::Subcommand;
use psebench::anchor::job::{AnchorJobKind, AnchorJobPlan, AnchorJobRequest};
use psebench::anchor::llm::AnchorBatchResult;
use psebench::anchor::{AnchorFilter, AnchorImportOptions};
use psebench::api::rpc::{
    AnchorBucketParams, AnchorIdParams, AnchorIdsParams, AnchorsImportFileParams, Count, Flag, NoParams, PolicyParams,
    RunParams, RunStarted,
};
use psebench::jobs::{Progress, RunStatus};
use psebench::util::format::count;
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::engine;
use super::follow::{follow_run, Follow};
use crate::output::{print_json, table, truncate};
use crate::Cli;

#[derive(Subcommand)]
pub enum AnchorsCmd {
    /// Import anchors from a .jsonl or .csv file, a .txt file, or a folder of .txt files (all or nothing).
    Import {
        path: PathBuf,
        /// Put every imported anchor in this clause's bucket.
        #[arg(long)]
        clause: Option<String>,
        /// Source for anchors that do not name one (default: the file name).
        #[arg(long)]
        source: Option<String>,
        /// Language for anchors that do not name one (default: en).
        #[arg(long)]
        language: Option<String>,
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
    },
    /// List anchors.
    List {
        #[arg(long)]
        clause: Option<String>,
        /// builtin or imported
        #[arg(long)]
        origin: Option<String>,
        /// Only anchors not yet in any clause's bucket.
        #[arg(long)]
        unbucketed: bool,
    },
    /// Show one anchor with its full text (and the original when translated).
    Show { id: String },
    /// How many anchors each clause's bucket holds.
    Buckets {
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
    },
    /// Put an anchor in a clause's bucket by hand (`none` takes it out of every bucket).
    Bucket { id: String, clause: String },
    /// Sort anchors into clause buckets by topic with a model (never changes buckets set by hand).
    Presort {
        #[arg(long)]
        model: String,
        /// Also re-sort anchors that already have a bucket (buckets set by hand still stay).
        #[arg(long, conflicts_with = "only_unbucketed")]
        all: bool,
        /// Only anchors without a bucket (the default).
        #[arg(long)]
        only_unbucketed: bool,
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
        #[arg(long, default_value = psebench::policy::DEFAULT_POLICY)]
        policy: String,
        /// Show what would be sent and what it would cost, without sending anything.
        #[arg(long)]
        plan: bool,
        /// Send the requests as one provider batch (OpenAI, Azure, Anthropic, Gemini): half the
        /// price, answers within the provider's window; `anchors resume RUN` picks it up again.
        #[arg(long)]
        batch: bool,
    },
    /// Translate non-English anchors to English with a model, keeping the original text.
    Translate {
        #[arg(long)]
        model: String,
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
        /// Show what would be sent and what it would cost, without sending anything.
        #[arg(long)]
        plan: bool,
        /// Send the requests as one provider batch (OpenAI, Azure, Anthropic, Gemini): half the
        /// price, answers within the provider's window; `anchors resume RUN` picks it up again.
        #[arg(long)]
        batch: bool,
    },
    /// List anchor pre-sort and translation jobs, newest first.
    Jobs,
    /// Go on with a stopped anchor job: only anchors not done yet (and those that failed).
    Resume {
        #[arg(value_name = "RUN")]
        run_id: String,
    },
    /// Delete anchors.
    Remove {
        #[arg(required = true)]
        ids: Vec<String>,
    },
}

fn print_batch(cli: &Cli, r: &AnchorBatchResult, what: &str) {
    if cli.json {
        print_json(r);
        return;
    }
    for i in &r.items {
        println!("  {:<40} {:<12} {}", i.anchor_id, i.outcome, i.clause_id.clone().unwrap_or_default());
        if i.outcome == "failed" {
            println!("      {}", i.note.clone().unwrap_or_default());
        }
    }
    println!(
        "{what}: {} processed, {} changed, {} failed; {}+{} tokens, ${:.4}.",
        count(r.processed, "anchor"),
        r.changed,
        r.failed,
        r.input_tokens,
        r.output_tokens,
        r.cost_usd
    );
}

fn print_plan(cli: &Cli, p: &AnchorJobPlan) {
    if cli.json {
        print_json(p);
        return;
    }
    println!(
        "{}{}; about {}, {} input and {} output tokens, {}; the text goes to {} ({}).",
        count(p.anchors, "anchor"),
        if p.kept_manual > 0 {
            let (they, are) = if p.kept_manual == 1 { ("it", "is") } else { ("they", "are") };
            format!(" ({} with a bucket set by hand, left as {they} {are})", p.kept_manual)
        } else {
            String::new()
        },
        count(p.calls, "call"),
        p.input_tokens,
        p.output_tokens,
        p.usd.map(|u| format!("US${u:.4}")).unwrap_or_else(|| "cost unknown".into()),
        p.destination,
        if p.sends_data_off_machine { "leaves this computer" } else { "stays on this computer" }
    );
    for n in &p.notes {
        println!("  {n}");
    }
}

fn progress_message(p: &Progress) -> String {
    let mut s = format!("{} changed", p.counter("changed"));
    if p.counter("failed") > 0.0 {
        s.push_str(&format!(" · {} failed", p.counter("failed")));
    }
    s
}

/// Work on an anchor job here with a progress line, then print its outcomes. A job that did not
/// finish says why and how to resume it, and exits with 1.
fn follow_job(cli: &Cli, e: &Api, run_id: &str, what: &str) -> Result<ExitCode, ApiError> {
    let how = Follow {
        unit: "anchors",
        message: progress_message,
        stopping: "Stopping after the anchors in flight; finished outcomes are kept.",
        cancel: "anchor_job.cancel",
        abort: None,
    };
    follow_run::<Flag>(cli, e, run_id, how, "anchor_job.execute")?;
    let view: psebench::anchor::job::AnchorJobView =
        e.call("anchor_job.show", &RunParams { run_id: run_id.to_string() })?;
    print_batch(cli, &view.result, what);
    if view.pending == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    if !cli.json {
        println!(
            "Job {run_id}: {} — {} of {} done.",
            crate::output::run_status_words(view.status, view.problems.as_ref()),
            view.done,
            count(view.total, "anchor")
        );
        if let Some(err) = &view.error {
            println!("{err}");
        }
        println!("Resume it with `psebench anchors resume {run_id}`.");
    }
    Ok(if view.status == RunStatus::Cancelled { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn start_job(cli: &Cli, e: &Api, req: &AnchorJobRequest, plan: bool, what: &str) -> Result<ExitCode, ApiError> {
    if plan {
        print_plan(cli, &e.call("anchor_job.plan", req)?);
        return Ok(ExitCode::SUCCESS);
    }
    let run_id = e.call::<_, RunStarted>("anchor_job.create", req)?.run_id;
    if !cli.json {
        eprintln!("Anchor job {run_id} started; Ctrl-C stops it after the anchors in flight.");
    }
    follow_job(cli, e, &run_id, what)
}

pub fn run(cli: &Cli, cmd: &AnchorsCmd) -> Result<ExitCode, ApiError> {
    let e = engine(cli)?;
    match cmd {
        AnchorsCmd::Import { path, clause, source, language, policy } => {
            let opts = AnchorImportOptions {
                clause_id: clause.clone(),
                source: source.clone(),
                language: language.clone(),
                policy: Some(policy.clone()),
            };
            let r: psebench::anchor::AnchorImportResult =
                e.call("anchors.import_file", &AnchorsImportFileParams { path: path.clone(), options: opts })?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "{}: {} added, {} skipped, {} without a bucket.",
                    r.file,
                    count(r.added.len(), "anchor"),
                    count(r.duplicates.len(), "duplicate"),
                    r.unbucketed
                );
                for d in &r.duplicates {
                    println!("  skipped {} ({}): same text as {}", d.anchor_id, d.location, d.duplicate_of);
                }
                for n in &r.notes {
                    println!("  note: {n}");
                }
                if r.unbucketed > 0 {
                    println!("Anchors without a bucket are never used. Sort them: psebench anchors bucket ID CLAUSE, or psebench anchors presort --model NAME.");
                }
            }
        }
        AnchorsCmd::List { clause, origin, unbucketed } => {
            let list: Vec<psebench::anchor::AnchorSummary> = e.call(
                "anchors.list",
                &AnchorFilter {
                    clause_id: clause.clone(),
                    origin: origin.clone(),
                    unbucketed_only: *unbucketed,
                    language: None,
                    search: None,
                },
            )?;
            if cli.json {
                print_json(&list);
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|a| {
                        vec![
                            a.anchor_id.clone(),
                            a.clause_id.clone().unwrap_or_else(|| "(none)".into()),
                            a.origin.clone(),
                            format!("{}{}", a.language, if a.translated { "*" } else { "" }),
                            a.words.to_string(),
                            truncate(&a.preview, 60),
                        ]
                    })
                    .collect();
                table(&["ANCHOR", "BUCKET", "ORIGIN", "LANG", "WORDS", "TEXT"], &rows);
                println!(
                    "{}{}",
                    count(list.len(), "anchor"),
                    if list.iter().any(|a| a.translated) { "; * = translated, original kept" } else { "" }
                );
            }
        }
        AnchorsCmd::Show { id } => {
            let a: psebench::anchor::Anchor = e.call("anchor.show", &AnchorIdParams { anchor_id: id.clone() })?;
            if cli.json {
                print_json(&a);
            } else {
                println!(
                    "{} — bucket {} ({}) — {} — {} — {}",
                    a.anchor_id,
                    a.clause_id.clone().unwrap_or_else(|| "none".into()),
                    a.bucket_origin.clone().unwrap_or_default(),
                    a.origin,
                    a.source,
                    a.language
                );
                if let Some(n) = &a.bucket_note {
                    println!("pre-sort reason: {n}");
                }
                println!("\n{}", a.text);
                if let Some(o) = &a.original_text {
                    println!(
                        "\nOriginal ({}), translated by {}:\n{o}",
                        a.original_language.clone().unwrap_or_default(),
                        a.translated_by.clone().unwrap_or_default()
                    );
                }
            }
        }
        AnchorsCmd::Buckets { policy } => {
            let b: Vec<psebench::anchor::AnchorBucket> =
                e.call("anchors.buckets", &PolicyParams { policy: Some(policy.clone()) })?;
            if cli.json {
                print_json(&b);
            } else {
                let rows: Vec<Vec<String>> = b
                    .iter()
                    .map(|x| {
                        vec![
                            x.clause_id.clone().unwrap_or_else(|| "(not sorted)".into()),
                            x.label.clone().unwrap_or_default(),
                            x.builtin.to_string(),
                            x.imported.to_string(),
                        ]
                    })
                    .collect();
                table(&["CLAUSE", "LABEL", "BUILT-IN", "IMPORTED"], &rows);
            }
        }
        AnchorsCmd::Bucket { id, clause } => {
            let c = if clause == "none" { None } else { Some(clause.as_str()) };
            let a: psebench::anchor::Anchor = e.call(
                "anchor.set_bucket",
                &AnchorBucketParams { anchor_id: id.clone(), clause_id: c.map(str::to_string) },
            )?;
            if cli.json {
                print_json(&a);
            } else {
                println!("{} is now in bucket {}.", a.anchor_id, a.clause_id.unwrap_or_else(|| "none".into()));
            }
        }
        AnchorsCmd::Presort { model, all, concurrency, policy, plan, batch, .. } => {
            let req = AnchorJobRequest {
                kind: AnchorJobKind::Presort,
                model: model.clone(),
                policy: Some(policy.clone()),
                anchor_ids: vec![],
                only_unbucketed: !*all,
                concurrency: Some(*concurrency),
                batch: *batch,
                label: None,
            };
            return start_job(cli, &e, &req, *plan, "Pre-sort");
        }
        AnchorsCmd::Translate { model, concurrency, plan, batch } => {
            let req = AnchorJobRequest {
                kind: AnchorJobKind::Translate,
                model: model.clone(),
                policy: None,
                anchor_ids: vec![],
                only_unbucketed: false,
                concurrency: Some(*concurrency),
                batch: *batch,
                label: None,
            };
            return start_job(cli, &e, &req, *plan, "Translation");
        }
        AnchorsCmd::Jobs => {
            let jobs: Vec<psebench::anchor::job::AnchorJobView> = e.call("anchor_job.list", &NoParams {})?;
            if cli.json {
                print_json(&jobs);
            } else {
                let rows: Vec<Vec<String>> = jobs
                    .iter()
                    .map(|j| {
                        vec![
                            j.run_id.clone(),
                            j.kind.as_str().into(),
                            crate::output::run_status_words(j.status, j.problems.as_ref()),
                            j.model.clone(),
                            format!("{}/{}", j.done, j.total),
                            j.result.changed.to_string(),
                            j.result.failed.to_string(),
                            format!("{:.4}", j.result.cost_usd),
                            j.created_at.clone(),
                        ]
                    })
                    .collect();
                table(&["JOB", "KIND", "STATUS", "MODEL", "DONE", "CHANGED", "FAILED", "USD", "CREATED"], &rows);
                if jobs.iter().any(|j| j.pending > 0 && j.status != RunStatus::Running) {
                    println!("Resume a stopped job with `psebench anchors resume JOB`.");
                }
            }
        }
        AnchorsCmd::Resume { run_id } => {
            let run = RunParams { run_id: run_id.clone() };
            e.call::<_, Flag>("anchor_job.check_resumable", &run)?;
            let what = match e.call::<_, psebench::anchor::job::AnchorJobView>("anchor_job.show", &run)?.kind {
                AnchorJobKind::Presort => "Pre-sort",
                AnchorJobKind::Translate => "Translation",
            };
            return follow_job(cli, &e, run_id, what);
        }
        AnchorsCmd::Remove { ids } => {
            let n = e.call::<_, Count>("anchors.remove", &AnchorIdsParams { anchor_ids: ids.clone() })?.count;
            if cli.json {
                print_json(&serde_json::json!({"removed": n}));
            } else {
                println!("Removed {}.", count(n, "anchor"));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
