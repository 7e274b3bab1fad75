use clap::Subcommand;
use psebench::anchor::llm::{AnchorBatchResult, AnchorPresortRequest, AnchorTranslateRequest};
use psebench::anchor::{AnchorFilter, AnchorImportOptions};
use psebench::ApiError;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{engine, runtime};
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
    },
    /// Translate non-English anchors to English with a model, keeping the original text.
    Translate {
        #[arg(long)]
        model: String,
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
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
        "{what}: {} anchor(s) processed, {} changed, {} failed; {}+{} tokens, ${:.4}.",
        r.processed, r.changed, r.failed, r.input_tokens, r.output_tokens, r.cost_usd
    );
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
            let r = e.anchors_import(path, &opts)?;
            if cli.json {
                print_json(&r);
            } else {
                println!(
                    "{}: {} anchor(s) added, {} duplicate(s) skipped, {} without a bucket.",
                    r.file,
                    r.added.len(),
                    r.duplicates.len(),
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
            let list = e.anchors_list(&AnchorFilter {
                clause_id: clause.clone(),
                origin: origin.clone(),
                unbucketed_only: *unbucketed,
                language: None,
                search: None,
            })?;
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
                    "{} anchor(s){}",
                    list.len(),
                    if list.iter().any(|a| a.translated) { "; * = translated, original kept" } else { "" }
                );
            }
        }
        AnchorsCmd::Show { id } => {
            let a = e.anchors_show(id)?;
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
            let b = e.anchors_buckets(policy)?;
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
            let a = e.anchors_set_bucket(id, c)?;
            if cli.json {
                print_json(&a);
            } else {
                println!("{} is now in bucket {}.", a.anchor_id, a.clause_id.unwrap_or_else(|| "none".into()));
            }
        }
        AnchorsCmd::Presort { model, all, concurrency, policy, .. } => {
            let rt = runtime()?;
            let r = rt.block_on(e.anchors_presort(&AnchorPresortRequest {
                model: model.clone(),
                only_unbucketed: !*all,
                anchor_ids: vec![],
                policy: Some(policy.clone()),
                concurrency: Some(*concurrency),
            }))?;
            print_batch(cli, &r, "Pre-sort");
        }
        AnchorsCmd::Translate { model, concurrency } => {
            let rt = runtime()?;
            let r = rt.block_on(e.anchors_translate(&AnchorTranslateRequest {
                model: model.clone(),
                anchor_ids: vec![],
                concurrency: Some(*concurrency),
            }))?;
            print_batch(cli, &r, "Translation");
        }
        AnchorsCmd::Remove { ids } => {
            let n = e.anchors_remove(ids)?;
            if cli.json {
                print_json(&serde_json::json!({"removed": n}));
            } else {
                println!("Removed {n} anchor(s).");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
