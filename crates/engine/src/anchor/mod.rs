//! Anchor materials: short real-world (de-identified) incident texts that give generated
//! narratives their setting, vocabulary and register. Each anchor has a topical bucket (a clause
//! id) set on import, by hand, or by an optional LLM pre-sort; generation samples a card's anchors
//! from its clause's bucket only. The pre-sort is a topical sort, never a reportability judgement.
//!
//! The 120 synthetic sample anchors in `library/anchors/` are seeded into every store when the
//! engine opens (origin `builtin`, refreshed when this build's copy changes), so a new user can
//! generate at once; imported anchors sit beside them and runs can be limited to one origin.

pub mod io;
pub mod job;
pub mod llm;
pub mod repo;

use crate::util::format::count;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::store::Store;
use io::AnchorRecord;

/// A stored anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Anchor {
    pub anchor_id: String,
    /// The text generation uses (the English translation once translated).
    pub text: String,
    pub source: String,
    /// Language of `text` (e.g. `en`, `ja`).
    pub language: String,
    /// Topical bucket: a clause id of the policy, or null while unsorted (never sampled).
    pub clause_id: Option<String>,
    /// How the bucket was set: `file`, `manual`, `presort` or `builtin`.
    pub bucket_origin: Option<String>,
    /// The pre-sort model's one-line reason, when it set the bucket.
    pub bucket_note: Option<String>,
    /// The text as imported, kept when it was translated.
    pub original_text: Option<String>,
    pub original_language: Option<String>,
    pub translated_by: Option<String>,
    pub content_sha: String,
    /// `builtin` (the synthetic samples shipped with the app) or `imported`.
    pub origin: String,
    pub file_name: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A compact row for lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorSummary {
    pub anchor_id: String,
    pub clause_id: Option<String>,
    pub bucket_origin: Option<String>,
    pub source: String,
    pub language: String,
    pub origin: String,
    pub translated: bool,
    pub words: u32,
    /// The first words of the text.
    pub preview: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorFilter {
    pub clause_id: Option<String>,
    /// `builtin` or `imported`.
    pub origin: Option<String>,
    #[serde(default)]
    pub unbucketed_only: bool,
    pub language: Option<String>,
    /// Words that must all occur (case-insensitive) in the text, the original text, the id or
    /// the source.
    #[serde(default)]
    #[ts(optional)]
    pub search: Option<String>,
}

/// Defaults and overrides applied to every record of an import.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorImportOptions {
    /// Put every imported anchor in this clause's bucket (overrides the file's `clause_id`).
    pub clause_id: Option<String>,
    /// Source for records that do not name one (default: the file name).
    pub source: Option<String>,
    /// Language for records that do not name one (default: `en`).
    pub language: Option<String>,
    /// The policy whose clause ids are valid buckets (default: the default policy pack).
    pub policy: Option<String>,
}

/// An anchor that was not stored because the same text is already there (or earlier in the file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorDuplicate {
    /// The id the skipped record had (or would have had).
    pub anchor_id: String,
    /// Where it was in the file.
    pub location: String,
    /// The stored (or earlier) anchor with the same text.
    pub duplicate_of: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorImportResult {
    pub file: String,
    pub added: Vec<String>,
    pub duplicates: Vec<AnchorDuplicate>,
    /// Added anchors without a bucket (sort them with `anchors bucket` or `anchors presort`).
    pub unbucketed: u32,
    /// Defaults that were applied, in plain words.
    pub notes: Vec<String>,
}

/// How many anchors a clause's bucket holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorBucket {
    /// Null for anchors not sorted into any clause yet.
    pub clause_id: Option<String>,
    pub label: Option<String>,
    pub builtin: u32,
    pub imported: u32,
}

/// Seed (or refresh) the built-in sample anchors. Runs when the engine opens; does nothing when
/// the store already has this build's copy. A broken sample line is skipped, never fatal.
pub fn seed_builtin_anchors(store: &Store) -> ApiResult<()> {
    use sha2::{Digest, Sha256};
    let files = crate::builtin::anchor_files();
    let mut h = Sha256::new();
    for f in &files {
        h.update(f.path.as_bytes());
        h.update(f.text.as_bytes());
    }
    let fp = hex::encode(h.finalize());
    let key = "builtin_fingerprint:anchors";
    let known = store.with_conn(|c| crate::store::settings::get(c, key))?;
    if known.as_deref() == Some(fp.as_str()) {
        return Ok(());
    }
    store.with_tx(|tx| -> ApiResult<()> {
        for f in &files {
            let Ok(records) = io::parse_jsonl(&f.path, f.text) else { continue };
            for r in records {
                let Some(id) = r.anchor_id.as_deref() else { continue };
                let new = repo::NewAnchor {
                    anchor_id: id,
                    text: &r.text,
                    source: r.source.as_deref().unwrap_or("synthetic sample"),
                    language: r.language.as_deref().unwrap_or("en"),
                    clause_id: r.clause_id.as_deref(),
                    bucket_origin: r.clause_id.as_ref().map(|_| "builtin"),
                    origin: "builtin",
                    file_name: Some(&f.path),
                };
                match repo::get(tx, id)? {
                    Some(existing) if existing.origin == "builtin" => repo::refresh_builtin(tx, &new)?,
                    Some(_) => {} // the user's anchor with this id wins
                    None => {
                        if repo::by_sha(tx, &repo::content_sha(&r.text))?.is_none() {
                            repo::insert(tx, &new)?;
                        }
                    }
                }
            }
        }
        crate::store::settings::set(tx, key, &fp)?;
        Ok(())
    })
}

/// An anchor id checked against the rule every id in the engine follows (`util::ids::check_id`),
/// as a sentence.
fn check_anchor_id(id: &str) -> Result<(), String> {
    crate::util::ids::check_id("anchor id", id).map_err(|e| e.to_string())
}

/// The id rule's refusal as an error for an id given to an API.
fn refused_anchor_id(why: String) -> ApiError {
    let mut chars = why.chars();
    let sentence = match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => why,
    };
    ApiError::invalid(sentence)
}

impl Engine {
    fn clause_ids(&self, policy: &str) -> ApiResult<Vec<String>> {
        Ok(self.pack_and_vocab(policy)?.1.clause_ids)
    }

    /// Import anchors from a `.jsonl` or `.csv` file, a `.txt` file, or a folder of `.txt` files.
    /// All or nothing; texts already stored are reported as duplicates and skipped.
    pub fn anchors_import(&self, path: &Path, opts: &AnchorImportOptions) -> ApiResult<AnchorImportResult> {
        let records = io::read_path(path)?;
        self.store_anchor_records(&path.display().to_string(), records, opts)
    }

    /// The same as `anchors_import` for file contents uploaded as text (the desktop app and the
    /// HTTP server). `file_name` decides the format by its extension.
    pub fn anchors_import_text(
        &self,
        file_name: &str,
        text: &str,
        opts: &AnchorImportOptions,
    ) -> ApiResult<AnchorImportResult> {
        let records = io::parse_named(file_name, text)?;
        self.store_anchor_records(file_name, records, opts)
    }

    fn store_anchor_records(
        &self,
        file: &str,
        records: Vec<AnchorRecord>,
        opts: &AnchorImportOptions,
    ) -> ApiResult<AnchorImportResult> {
        if records.is_empty() {
            return Err(ApiError::invalid(format!("{file}: no anchors found in the file.")));
        }
        let policy = opts.policy.clone().unwrap_or_else(|| crate::policy::DEFAULT_POLICY.into());
        let clauses = self.clause_ids(&policy)?;
        if let Some(c) = &opts.clause_id {
            if !clauses.contains(c) {
                return Err(ApiError::invalid(format!(
                    "\"{c}\" is not a clause id of policy {policy}; `psebench policy show {policy}` lists them (e.g. {}).",
                    clauses.first().cloned().unwrap_or_default()
                )));
            }
        }
        let mut problems = Vec::new();
        let mut notes = Vec::new();
        let (mut default_source, mut default_lang) = (0u32, 0u32);
        let mut seen_ids: HashMap<String, String> = HashMap::new();
        let mut seen_sha: HashMap<String, String> = HashMap::new();
        let mut to_add: Vec<(AnchorRecord, String, String, String, Option<String>)> = Vec::new();
        let mut duplicates = Vec::new();
        let file_short = file.rsplit(['/', '\\']).next().unwrap_or(file).to_string();
        self.store().with_conn(|c| -> ApiResult<()> {
            for r in records {
                let id = r.anchor_id.clone().unwrap_or_else(|| r.fallback_id.clone());
                if let Err(why) = check_anchor_id(&id) {
                    problems.push(format!("{}: {why}", r.location));
                    continue;
                }
                let clause = opts.clause_id.clone().or_else(|| r.clause_id.clone());
                if let Some(cl) = &clause {
                    if !clauses.contains(cl) {
                        problems.push(format!("{}: \"{cl}\" is not a clause id of policy {policy}", r.location));
                        continue;
                    }
                }
                let source = r.source.clone().or_else(|| opts.source.clone()).unwrap_or_else(|| {
                    default_source += 1;
                    file_short.clone()
                });
                let lang = r.language.clone().or_else(|| opts.language.clone()).unwrap_or_else(|| {
                    default_lang += 1;
                    "en".into()
                });
                let sha = repo::content_sha(&r.text);
                if let Some(first) = seen_sha.get(&sha) {
                    duplicates.push(AnchorDuplicate { anchor_id: id, location: r.location.clone(), duplicate_of: first.clone() });
                    continue;
                }
                if let Some(existing) = repo::by_sha(c, &sha)? {
                    duplicates.push(AnchorDuplicate { anchor_id: id, location: r.location.clone(), duplicate_of: existing });
                    continue;
                }
                if let Some(prev) = seen_ids.get(&id) {
                    problems.push(format!("{}: the id \"{id}\" is used twice in the file (first at {prev}) with different text", r.location));
                    continue;
                }
                if repo::get(c, &id)?.is_some() {
                    problems.push(format!(
                        "{}: an anchor with id \"{id}\" is already stored with different text; give this one another id",
                        r.location
                    ));
                    continue;
                }
                seen_ids.insert(id.clone(), r.location.clone());
                seen_sha.insert(sha, id.clone());
                to_add.push((r, id, source, lang, clause));
            }
            Ok(())
        })?;
        if !problems.is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{file}: {} found, so no anchor was imported. First: {}",
                    count(problems.len(), "problem"),
                    problems[0]
                ),
            )
            .with_detail(problems.join("\n")));
        }
        if default_source > 0 {
            notes.push(format!("{} named no source; recorded as \"{file_short}\".", count(default_source, "anchor")));
        }
        if default_lang > 0 {
            notes.push(format!("{} named no language; recorded as English (en).", count(default_lang, "anchor")));
        }
        let mut added = Vec::new();
        let mut unbucketed = 0;
        self.store().with_tx(|tx| -> ApiResult<()> {
            for (r, id, source, lang, clause) in &to_add {
                repo::insert(
                    tx,
                    &repo::NewAnchor {
                        anchor_id: id,
                        text: r.text.trim(),
                        source,
                        language: lang,
                        clause_id: clause.as_deref(),
                        bucket_origin: clause
                            .as_ref()
                            .map(|_| if opts.clause_id.is_some() { "manual" } else { "file" }),
                        origin: "imported",
                        file_name: Some(&file_short),
                    },
                )?;
                if clause.is_none() {
                    unbucketed += 1;
                }
                added.push(id.clone());
            }
            Ok(())
        })?;
        Ok(AnchorImportResult { file: file.to_string(), added, duplicates, unbucketed, notes })
    }

    pub fn anchors_list(&self, filter: &AnchorFilter) -> ApiResult<Vec<AnchorSummary>> {
        Ok(self.store().with_read(|c| repo::list(c, filter))?.iter().map(repo::summary).collect())
    }

    /// Full anchors (text included) matching a filter.
    pub fn anchors_all(&self, filter: &AnchorFilter) -> ApiResult<Vec<Anchor>> {
        self.store().with_read(|c| repo::list(c, filter))
    }

    /// One anchor. Every API that takes an anchor id comes through here (bucket, pre-sort and
    /// translation lists), so an id that breaks the id rule is refused with the reason.
    pub fn anchor_show(&self, anchor_id: &str) -> ApiResult<Anchor> {
        check_anchor_id(anchor_id).map_err(refused_anchor_id)?;
        self.store().with_conn(|c| repo::require(c, anchor_id))
    }

    /// Put an anchor in a clause's bucket by hand (None: take it out of every bucket). A bucket
    /// set by hand is never changed by the pre-sort.
    pub fn anchor_set_bucket(&self, anchor_id: &str, clause_id: Option<&str>) -> ApiResult<Anchor> {
        let a = self.anchor_show(anchor_id)?;
        if let Some(c) = clause_id {
            if !self.known_clause_anywhere(c)? {
                return Err(ApiError::invalid(format!(
                    "\"{c}\" is not a clause id of any installed policy; `psebench policy list` names the policies and `psebench policy show ID` lists each one's clause ids."
                )));
            }
        }
        self.store().with_conn(|conn| repo::set_bucket(conn, &a.anchor_id, clause_id, "manual", None))?;
        self.anchor_show(anchor_id)
    }

    fn known_clause_anywhere(&self, clause: &str) -> ApiResult<bool> {
        let ids: Vec<String> = self.store().with_conn(crate::policy::repo::list_pack_ids)?;
        for p in ids {
            if self.clause_ids(&p)?.iter().any(|c| c == clause) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Delete anchors (for example an imported text that should never have left the hospital).
    /// Cases already generated from them keep their `anchor_id` but no longer find the text.
    /// `forget` runs in the same transaction for each id, so the copies of an anchor's text that
    /// modules above this one keep go with it (`api::removals::anchors_remove` passes generation's).
    pub fn anchors_remove_with(
        &self,
        anchor_ids: &[String],
        forget: impl Fn(&rusqlite::Connection, &str) -> ApiResult<()>,
    ) -> ApiResult<u32> {
        for id in anchor_ids {
            // An anchor stored by an older version under an id that breaks today's rule can still
            // be removed; any other id must follow the rule.
            let stored = self.store().with_conn(|c| repo::get(c, id))?.is_some();
            if !stored {
                check_anchor_id(id).map_err(refused_anchor_id)?;
                self.anchor_show(id)?;
            }
        }
        let mut n = 0;
        self.store().with_tx(|tx| -> ApiResult<()> {
            for id in anchor_ids {
                n += repo::remove(tx, id)? as u32;
                forget(tx, id)?;
            }
            Ok(())
        })?;
        Ok(n)
    }

    /// Anchors per clause bucket, in the policy's clause order, with unsorted anchors last.
    pub fn anchors_buckets(&self, policy: &str) -> ApiResult<Vec<AnchorBucket>> {
        let (pack, _) = self.pack_and_vocab(policy)?;
        let counts = self.store().with_conn(repo::bucket_counts)?;
        let mut by: BTreeMap<Option<String>, (u32, u32)> = BTreeMap::new();
        for (clause, origin, n) in counts {
            let e = by.entry(clause).or_default();
            if origin == "builtin" {
                e.0 += n
            } else {
                e.1 += n
            }
        }
        let mut out: Vec<AnchorBucket> = pack
            .clauses
            .iter()
            .map(|c| {
                let (b, i) = by.remove(&Some(c.clause_id.clone())).unwrap_or_default();
                AnchorBucket {
                    clause_id: Some(c.clause_id.clone()),
                    label: Some(c.label.clone()),
                    builtin: b,
                    imported: i,
                }
            })
            .collect();
        for (clause, (b, i)) in by {
            out.push(AnchorBucket { clause_id: clause, label: None, builtin: b, imported: i });
        }
        Ok(out)
    }
}
