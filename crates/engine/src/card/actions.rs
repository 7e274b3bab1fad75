//! Card library actions: lint files or the library, import, list, show, edit, audit, history,
//! diff, export.

use crate::util::format::count;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;

use crate::card::io::{export_docs, load_docs};
use crate::card::lint::{lint_documents, LintInput, LintProblem, LintReport, Severity};
use crate::card::repo::{self, AuditEntry, CardRow, CardVersion};
use crate::card::{schema, to_pretty, AuditStatus, ClauseCard};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::files::parse_json;

use super::repo::CARD_JSON;

/// One clause's coverage report (`cards_coverage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClauseCoverage {
    pub clause_id: String,
    pub label: String,
    pub report: crate::card::coverage::CoverageReport,
}

/// Filters for the card library list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(default)]
pub struct CardFilter {
    pub policy: Option<String>,
    pub clause: Option<String>,
    pub category: Option<String>,
    pub event_type: Option<String>,
    pub status: Option<String>,
    /// Words that must all occur (in any case) in the card id or its definition.
    pub search: Option<String>,
}

/// Whether every word of `search` occurs in the card id or definition (ignoring case).
pub fn matches_search(summary: &CardSummary, search: Option<&str>) -> bool {
    let Some(q) = search else { return true };
    let hay = format!("{} {}", summary.card_id, summary.definition).to_lowercase();
    q.split_whitespace().all(|w| hay.contains(&w.to_lowercase()))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardSummary {
    pub card_id: String,
    pub policy_id: String,
    pub clause_id: String,
    pub clause_label: Option<String>,
    pub category: Option<String>,
    pub event_type: String,
    pub status: String,
    pub auditor: Option<String>,
    pub version: i64,
    pub origin: String,
    pub updated_at: String,
    pub definition: String,
    pub boundary_conditions: usize,
    pub elements: usize,
    pub variants: usize,
    pub lint_errors: usize,
    pub lint_warnings: usize,
    /// Guidance ids the card cites whose status in the pack is `provisional` (not yet checked
    /// against the official guidance); the app shows them as a badge.
    pub provisional: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardDetail {
    pub summary: CardSummary,
    pub audit_notes: Option<String>,
    pub audited_at: Option<String>,
    /// The card document at the requested version, key order as stored.
    pub card: Value,
    pub shown_version: i64,
    pub versions: Vec<CardVersion>,
    pub audit_log: Vec<AuditEntry>,
    pub lint: Vec<LintProblem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardsImportResult {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: Vec<String>,
    /// Rule findings on the imported cards (they are stored as drafts and can be fixed in the app).
    pub lint: LintReport,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardSaveRequest {
    pub card_id: String,
    /// The edited card document as JSON text.
    pub json: String,
    pub author: String,
    pub note: Option<String>,
    /// The version the edit started from. When given and the card has changed since (someone
    /// else saved a newer version), the save is refused instead of silently replacing their work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub base_version: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardAuditRequest {
    pub card_id: String,
    pub status: AuditStatus,
    pub auditor: String,
    pub notes: Option<String>,
}

/// One line of a version diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiffLine {
    /// `same`, `added` or `removed`.
    pub kind: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardDiff {
    pub card_id: String,
    pub from_version: i64,
    pub to_version: i64,
    pub lines: Vec<DiffLine>,
}

fn reject_unreadable(failures: Vec<crate::card::io::LoadFailure>) -> ApiResult<()> {
    if failures.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = failures.iter().map(|f| f.error.to_string()).collect();
    Err(ApiError::new(
        ErrorCode::InvalidInput,
        format!(
            "{} could not be read, so nothing was imported. First problem: {}",
            count(lines.len(), "file"),
            lines[0]
        ),
    )
    .with_detail(lines.join("\n")))
}

impl Engine {
    /// Lint card files without importing them.
    pub fn cards_lint_paths(&self, paths: &[PathBuf], policy: &str) -> ApiResult<LintReport> {
        let (_, vocab) = self.pack_and_vocab(policy)?;
        let (docs, failures) = load_docs(paths)?;
        let inputs: Vec<LintInput> = docs.into_iter().map(|d| LintInput { path: d.origin, value: d.value }).collect();
        let mut report = lint_documents(&inputs, &vocab);
        let mut problems: Vec<LintProblem> = failures
            .into_iter()
            .map(|f| LintProblem {
                path: f.origin,
                clause_card_id: None,
                rule: "parse".into(),
                severity: Severity::Error,
                pointer: String::new(),
                message: f.error.to_string(),
            })
            .collect();
        problems.append(&mut report.problems);
        Ok(LintReport::from_problems(problems))
    }

    /// Lint every current card of a policy together (the neighbour rules compare cards). A stored
    /// card that is not JSON any more is an error naming it, not a lint finding. The report is kept
    /// while neither the cards nor the policy's vocabulary change, since opening a card or listing
    /// the library asks for it each time.
    pub fn cards_lint_library(&self, policy: &str) -> ApiResult<LintReport> {
        let (_, vocab) = self.pack_and_vocab(policy)?;
        let rows = self.store().with_conn(|c| repo::current_cards(c, policy))?;
        self.lint_library_rows(policy, &vocab, &rows)
    }

    /// The library's lint report from its policy's vocabulary and current cards, already loaded
    /// by the caller (the card list and a card's page need both for themselves too).
    fn lint_library_rows(
        &self,
        policy: &str,
        vocab: &crate::policy::PolicyVocab,
        rows: &[(CardRow, String)],
    ) -> ApiResult<LintReport> {
        let key = library_fingerprint(vocab, rows);
        let cache = self.extension::<LibraryLintCache>();
        if let Some(report) = cache.get(policy, key) {
            return Ok(report);
        }
        let inputs: Vec<LintInput> = rows
            .iter()
            .map(|(row, json)| {
                Ok(LintInput {
                    path: format!("library:{}@v{}", row.card_id, row.current_version),
                    value: CARD_JSON.parse(json, &row.card_id)?,
                })
            })
            .collect::<ApiResult<_>>()?;
        let report = lint_documents(&inputs, vocab);
        cache.put(policy, key, &report);
        Ok(report)
    }

    /// The coverage report of every clause's cards, or of one clause: which true/false
    /// combinations of its conditions no card admits. The cards are the stored ones (current
    /// versions, any status), or those read from `paths` (files, folders or cards.jsonl) when given.
    pub fn cards_coverage(
        &self,
        policy: &str,
        clause: Option<&str>,
        paths: &[PathBuf],
    ) -> ApiResult<Vec<ClauseCoverage>> {
        let (pack, _) = self.pack_and_vocab(policy)?;
        if let Some(c) = clause {
            if pack.clause(c).is_none() {
                return Err(ApiError::not_found(format!("The policy {policy} has no clause {c}.")));
            }
        }
        let mut cards: Vec<ClauseCard> = Vec::new();
        if paths.is_empty() {
            for (row, json) in self.store().with_conn(|c| repo::current_cards(c, policy))? {
                let value = CARD_JSON.parse(&json, &row.card_id)?;
                cards.push(
                    ClauseCard::from_value(&value).map_err(|e| {
                        ApiError::internal(format!("The stored card {} cannot be read: {e}", row.card_id))
                    })?,
                );
            }
        } else {
            let (docs, failures) = load_docs(paths)?;
            if let Some(f) = failures.first() {
                return Err(ApiError::invalid(format!("{} cannot be read: {}", f.origin, f.error)));
            }
            for d in docs {
                cards.push(
                    ClauseCard::from_value(&d.value)
                        .map_err(|e| ApiError::invalid(format!("{} is not a clause card: {e}", d.origin)))?,
                );
            }
        }
        Ok(pack
            .clauses
            .iter()
            .filter(|cl| clause.is_none_or(|c| c == cl.clause_id))
            .map(|cl| {
                let of: Vec<&ClauseCard> = cards.iter().filter(|c| c.clause_id == cl.clause_id).collect();
                ClauseCoverage {
                    clause_id: cl.clause_id.clone(),
                    label: cl.label.clone(),
                    report: crate::card::coverage::coverage(&of),
                }
            })
            .collect())
    }

    /// Import card files into the library as drafts. All or nothing: unreadable files, schema
    /// violations, duplicate ids and unknown clauses reject the whole import.
    pub fn cards_import(&self, paths: &[PathBuf], policy: &str, author: &str) -> ApiResult<CardsImportResult> {
        self.cards_import_named(paths, policy, author, &|p: &str| p.to_string())
    }

    /// `cards_import` with the name under which each file is recorded in the version notes
    /// (uploads are read from a temporary folder but noted under the name the user chose).
    pub fn cards_import_named(
        &self,
        paths: &[PathBuf],
        policy: &str,
        author: &str,
        name: &dyn Fn(&str) -> String,
    ) -> ApiResult<CardsImportResult> {
        let (_, vocab) = self.pack_and_vocab(policy)?;
        let (docs, failures) = load_docs(paths)?;
        reject_unreadable(failures)?;
        if docs.is_empty() {
            return Err(ApiError::invalid("No card files found (looked for *.json and *.jsonl)."));
        }
        let inputs: Vec<LintInput> =
            docs.iter().map(|d| LintInput { path: d.origin.clone(), value: d.value.clone() }).collect();
        let report = lint_documents(&inputs, &vocab);
        let blocking: Vec<&LintProblem> = report
            .problems
            .iter()
            .filter(|p| matches!(p.rule.as_str(), "schema" | "duplicate-card-id" | "clause-unknown"))
            .collect();
        if let Some(first) = blocking.first() {
            let all: Vec<String> =
                blocking.iter().map(|p| format!("{} {}: {}", p.path, p.pointer, p.message)).collect();
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!(
                    "{} {} this import, so nothing was imported. First: {} {}: {}",
                    count(blocking.len(), "problem"),
                    if blocking.len() == 1 { "stops" } else { "stop" },
                    first.path,
                    if first.pointer.is_empty() { "(whole card)" } else { &first.pointer },
                    first.message
                ),
            )
            .with_detail(all.join("\n")));
        }
        for d in &docs {
            if let Some(id) = d.value.get("clause_card_id").and_then(Value::as_str) {
                crate::util::ids::check_id("card id", id).map_err(|e| {
                    ApiError::new(ErrorCode::ValidationFailed, format!("{}: {e}; nothing was imported", d.origin))
                })?;
            }
        }
        let mut result = CardsImportResult { added: vec![], updated: vec![], unchanged: vec![], lint: report };
        self.store().with_tx(|tx| -> ApiResult<()> {
            for d in &docs {
                let card =
                    ClauseCard::from_value(&d.value).map_err(|e| ApiError::invalid(format!("{}: {e}", d.origin)))?;
                let json = to_pretty(&d.value);
                match repo::get_row(tx, &card.clause_card_id)? {
                    None => {
                        repo::insert_card(
                            tx,
                            &repo::NewCard {
                                policy_id: policy,
                                card: &card,
                                json: &json,
                                status: AuditStatus::Draft,
                                auditor: None,
                                origin: "imported",
                                author,
                                note: Some(&format!("imported from {}", name(&d.origin))),
                            },
                        )?;
                        result.added.push(card.clause_card_id.clone());
                    }
                    Some(row) => {
                        if row.policy_id != policy {
                            return Err(ApiError::conflict(format!(
                                "{}: card id \"{}\" already belongs to policy {}; nothing was imported",
                                d.origin, card.clause_card_id, row.policy_id
                            )));
                        }
                        let origin = if row.origin == "builtin" { "edited" } else { row.origin.as_str() };
                        let note = format!("imported from {}", name(&d.origin));
                        let v = repo::NewVersion {
                            card: &card,
                            json: &json,
                            author,
                            note: Some(&note),
                            status: AuditStatus::Draft,
                            auditor: None,
                            origin,
                        };
                        match repo::add_version(tx, &v)? {
                            Some(_) => result.updated.push(card.clause_card_id.clone()),
                            None => result.unchanged.push(card.clause_card_id.clone()),
                        }
                    }
                }
            }
            Ok(())
        })?;
        Ok(result)
    }

    fn summarize(
        &self,
        row: &CardRow,
        json: &str,
        pack: &crate::policy::PolicyPack,
        lint: &[LintProblem],
    ) -> CardSummary {
        let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
        let card = ClauseCard::from_value(&value).ok();
        let clause = pack.clause(&row.clause_id);
        CardSummary {
            card_id: row.card_id.clone(),
            policy_id: row.policy_id.clone(),
            clause_id: row.clause_id.clone(),
            clause_label: clause.map(|c| c.label.clone()),
            category: clause.map(|c| c.category.clone()),
            event_type: row.event_type.clone(),
            status: row.status.clone(),
            auditor: row.auditor.clone(),
            version: row.current_version,
            origin: row.origin.clone(),
            updated_at: row.updated_at.clone(),
            definition: card.as_ref().map(|c| c.clause_card_definition.clone()).unwrap_or_default(),
            boundary_conditions: card.as_ref().map(|c| c.boundary_conditions().len()).unwrap_or(0),
            elements: card.as_ref().map(|c| c.basic_event_elements.len()).unwrap_or(0),
            variants: card.as_ref().map(|c| c.variants().len()).unwrap_or(0),
            lint_errors: lint.iter().filter(|p| p.severity == Severity::Error).count(),
            lint_warnings: lint.iter().filter(|p| p.severity == Severity::Warning).count(),
            provisional: card.as_ref().map(|c| pack.provisional_ids(c.legal_basis())).unwrap_or_default(),
        }
    }

    pub fn cards_list(&self, filter: &CardFilter) -> ApiResult<Vec<CardSummary>> {
        let policy = filter.policy.clone().unwrap_or_else(|| crate::policy::DEFAULT_POLICY.to_string());
        let (pack, vocab) = self.pack_and_vocab(&policy)?;
        let rows = self.store().with_read(|c| repo::current_cards(c, &policy))?;
        let report = self.lint_library_rows(&policy, &vocab, &rows)?;
        let out = rows
            .iter()
            .filter(|(r, _)| filter.clause.as_deref().map(|c| c == r.clause_id).unwrap_or(true))
            .filter(|(r, _)| filter.event_type.as_deref().map(|t| t == r.event_type).unwrap_or(true))
            .filter(|(r, _)| filter.status.as_deref().map(|s| s == r.status).unwrap_or(true))
            .filter(|(r, _)| {
                filter
                    .category
                    .as_deref()
                    .map(|cat| pack.clause(&r.clause_id).map(|c| c.category == cat).unwrap_or(false))
                    .unwrap_or(true)
            })
            .map(|(row, json)| {
                let lint: Vec<LintProblem> = report
                    .problems
                    .iter()
                    .filter(|p| p.clause_card_id.as_deref() == Some(&row.card_id))
                    .cloned()
                    .collect();
                self.summarize(row, json, &pack, &lint)
            })
            .filter(|s| matches_search(s, filter.search.as_deref()))
            .collect();
        Ok(out)
    }

    pub fn card_show(&self, card_id: &str, version: Option<i64>) -> ApiResult<CardDetail> {
        let (row, json, versions, audit_log) = self.store().with_conn(|c| {
            Ok::<_, ApiError>((
                repo::require_row(c, card_id)?,
                repo::card_json(c, card_id, version)?,
                repo::versions(c, card_id)?,
                repo::audit_log(c, card_id)?,
            ))
        })?;
        let (pack, vocab) = self.pack_and_vocab(&row.policy_id)?;
        let rows = self.store().with_read(|c| repo::current_cards(c, &row.policy_id))?;
        let report = self.lint_library_rows(&row.policy_id, &vocab, &rows)?;
        let lint: Vec<LintProblem> =
            report.problems.into_iter().filter(|p| p.clause_card_id.as_deref() == Some(card_id)).collect();
        let value: Value =
            serde_json::from_str(&json).map_err(|e| ApiError::internal(format!("stored card unreadable: {e}")))?;
        Ok(CardDetail {
            summary: self.summarize(&row, &json, &pack, &lint),
            audit_notes: row.audit_notes.clone(),
            audited_at: row.audited_at.clone(),
            card: value,
            shown_version: version.unwrap_or(row.current_version),
            versions,
            audit_log,
            lint,
        })
    }

    /// Check an edited card document without saving it (the editor calls this as the user types).
    pub fn card_check(&self, json: &str, policy: &str) -> ApiResult<LintReport> {
        let (_, vocab) = self.pack_and_vocab(policy)?;
        let value = match parse_json(std::path::Path::new("edited card"), json) {
            Ok(v) => v,
            Err(e) => {
                return Ok(LintReport::from_problems(vec![LintProblem {
                    path: "edited card".into(),
                    clause_card_id: None,
                    rule: "parse".into(),
                    severity: Severity::Error,
                    pointer: String::new(),
                    message: e.to_string(),
                }]))
            }
        };
        Ok(lint_documents(&[LintInput { path: "edited card".into(), value }], &vocab))
    }

    /// Save an edited card as a new version (status returns to draft). Schema violations refuse
    /// the save; rule findings are saved and shown.
    pub fn card_save(&self, req: &CardSaveRequest) -> ApiResult<CardDetail> {
        if req.author.trim().is_empty() {
            return Err(ApiError::invalid("Say who made the change (author) so the version history stays meaningful."));
        }
        let row = self.store().with_conn(|c| repo::require_row(c, &req.card_id))?;
        let value = parse_json(std::path::Path::new("edited card"), &req.json)?;
        let problems = schema::validate_card(&value);
        if let Some(first) = problems.first() {
            let all: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.pointer, p.message)).collect();
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!(
                    "The card does not match the schema, so it was not saved. {}: {}",
                    if first.pointer.is_empty() { "(card)" } else { &first.pointer },
                    first.message
                ),
            )
            .with_detail(all.join("\n")));
        }
        let card = ClauseCard::from_value(&value).map_err(|e| ApiError::invalid(e.to_string()))?;
        if card.clause_card_id != req.card_id {
            return Err(ApiError::invalid(format!(
                "The edited document has clause_card_id \"{}\" but you are editing \"{}\". Ids cannot be changed by editing; import it as a new card instead.",
                card.clause_card_id, req.card_id
            )));
        }
        let (_, vocab) = self.pack_and_vocab(&row.policy_id)?;
        if !vocab.clause_ids.contains(&card.clause_id) {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("\"{}\" is not a clause of policy {}; the card was not saved.", card.clause_id, row.policy_id),
            ));
        }
        let json = to_pretty(&value);
        let origin = if row.origin == "builtin" { "edited".to_string() } else { row.origin.clone() };
        let v = repo::NewVersion {
            card: &card,
            json: &json,
            author: &req.author,
            note: req.note.as_deref(),
            status: AuditStatus::Draft,
            auditor: None,
            origin: &origin,
        };
        self.store().with_tx(|tx| {
            if let Some(base) = req.base_version {
                let now = repo::require_row(tx, &req.card_id)?;
                if now.current_version != base {
                    return Err(changed_since(&req.card_id, base, now.current_version));
                }
            }
            repo::add_version(tx, &v)
        })?;
        self.card_show(&req.card_id, None)
    }

    /// Record an audit decision. Approving or marking audited requires a card without lint errors.
    pub fn card_audit(&self, req: &CardAuditRequest) -> ApiResult<CardDetail> {
        if req.auditor.trim().is_empty() {
            return Err(ApiError::invalid(
                "Enter the auditor's name; every audit decision is recorded with who made it.",
            ));
        }
        let detail = self.card_show(&req.card_id, None)?;
        if req.status != AuditStatus::Draft && detail.summary.lint_errors > 0 {
            let first = detail
                .lint
                .iter()
                .find(|p| p.severity == Severity::Error)
                .map(|p| p.message.clone())
                .unwrap_or_default();
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "Card \"{}\" still has {}, so it cannot be marked {}. Fix {} first. First error: {first}",
                    req.card_id,
                    count(detail.summary.lint_errors, "lint error"),
                    req.status.as_str(),
                    if detail.summary.lint_errors == 1 { "it" } else { "them" }
                ),
            ));
        }
        // A card a model drafted goes through both steps: audited first, then approved.
        if req.status == AuditStatus::Approved
            && detail.summary.origin == "authored"
            && detail.summary.status == AuditStatus::Draft.as_str()
        {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "Card \"{}\" was drafted by a model, so it is marked audited before it can be approved. Mark it audited first.",
                    req.card_id
                ),
            ));
        }
        self.store()
            .with_tx(|tx| repo::set_audit(tx, &req.card_id, req.status, req.auditor.trim(), req.notes.as_deref()))?;
        self.card_show(&req.card_id, None)
    }

    pub fn card_diff(&self, card_id: &str, from: i64, to: i64) -> ApiResult<CardDiff> {
        let (a, b) = self.store().with_conn(|c| {
            Ok::<_, ApiError>((repo::card_json(c, card_id, Some(from))?, repo::card_json(c, card_id, Some(to))?))
        })?;
        Ok(CardDiff { card_id: card_id.to_string(), from_version: from, to_version: to, lines: line_diff(&a, &b) })
    }

    /// Export the current cards (optionally filtered) to a folder or a `.jsonl` file.
    pub fn cards_export(&self, out: &std::path::Path, filter: &CardFilter) -> ApiResult<usize> {
        let policy = filter.policy.clone().unwrap_or_else(|| crate::policy::DEFAULT_POLICY.to_string());
        let wanted: HashMap<String, Vec<String>> =
            self.cards_list(filter)?.into_iter().map(|s| (s.card_id, s.provisional)).collect();
        let rows = self.store().with_conn(|c| repo::current_cards(c, &policy))?;
        let cards: Vec<(String, String, Value)> = rows
            .into_iter()
            .filter_map(|(r, json)| wanted.get(&r.card_id).map(|p| (r, json, p)))
            .map(|(r, json, provisional)| {
                let mut value: Value = serde_json::from_str(&json).map_err(|e| ApiError::internal(e.to_string()))?;
                mark_provisional(&mut value, provisional);
                Ok((r.clause_id, r.card_id, value))
            })
            .collect::<ApiResult<_>>()?;
        export_docs(&cards, out)
    }

    /// Current parsed cards of a policy (for generation and statistics).
    pub fn current_cards(&self, policy: &str) -> ApiResult<Vec<(CardRow, ClauseCard)>> {
        let rows = self.store().with_conn(|c| repo::current_cards(c, policy))?;
        rows.into_iter()
            .map(|(row, json)| {
                let v: Value = serde_json::from_str(&json).map_err(|e| ApiError::internal(e.to_string()))?;
                let card = ClauseCard::from_value(&v)
                    .map_err(|e| ApiError::internal(format!("stored card {} unreadable: {e}", row.card_id)))?;
                Ok((row, card))
            })
            .collect()
    }
}

/// The extension field an exported card carries when it cites provisional guidance.
pub const PROVISIONAL_FIELD: &str = "x_provisional";

/// Note on an exported card which of its cited guidance ids are provisional (replacing any older
/// note), so the mark travels with the file.
fn mark_provisional(card: &mut Value, provisional: &[String]) {
    let Some(obj) = card.as_object_mut() else { return };
    obj.remove(PROVISIONAL_FIELD);
    if !provisional.is_empty() {
        obj.insert(
            PROVISIONAL_FIELD.into(),
            serde_json::json!({
                "guidance_ids": provisional,
                "note": "These cited guidance sections are provisional in this policy pack: check them against the official guidance before relying on the card."
            }),
        );
    }
}

/// Line diff by longest common subsequence (cards are small).
pub fn line_diff(a: &str, b: &str) -> Vec<DiffLine> {
    let x: Vec<&str> = a.lines().collect();
    let y: Vec<&str> = b.lines().collect();
    let (n, m) = (x.len(), y.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if x[i] == y[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n || j < m {
        if i < n && j < m && x[i] == y[j] {
            out.push(DiffLine { kind: "same".into(), text: x[i].into() });
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(DiffLine { kind: "added".into(), text: y[j].into() });
            j += 1;
        } else {
            out.push(DiffLine { kind: "removed".into(), text: x[i].into() });
            i += 1;
        }
    }
    out
}

/// The refusal of a save whose edit started from a version that is no longer the current one.
fn changed_since(card_id: &str, base: i64, current: i64) -> ApiError {
    ApiError::new(
        ErrorCode::Conflict,
        format!(
            "Card {card_id} changed while you were editing: you started from version {base}, and version {current} \
             has been saved since. Your edit was not saved. Look at the newer version first, then save again \
             if your change still applies."
        ),
    )
}

/// The last library lint report per policy, with the fingerprint of what it was computed from.
#[derive(Default)]
struct LibraryLintCache(std::sync::Mutex<HashMap<String, (u64, LintReport)>>);

impl LibraryLintCache {
    fn get(&self, policy: &str, key: u64) -> Option<LintReport> {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.get(policy).filter(|(k, _)| *k == key).map(|(_, r)| r.clone())
    }

    fn put(&self, policy: &str, key: u64, report: &LintReport) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(policy.to_string(), (key, report.clone()));
    }
}

/// A hash of everything a library lint depends on: the vocabulary and each current card's id,
/// version and text (a card edited by another process on the same store changes it too).
fn library_fingerprint(vocab: &crate::policy::PolicyVocab, rows: &[(CardRow, String)]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(vocab).unwrap_or_default().hash(&mut h);
    for (row, json) in rows {
        (&row.card_id, row.current_version, json).hash(&mut h);
    }
    h.finish()
}
