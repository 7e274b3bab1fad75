//! The built-in clause-card library: loaded into a store with the built-in policy packs when this
//! build's copy differs from what the store has, without overwriting cards the user edited.

use crate::card::repo as card_repo;
use crate::card::{AuditStatus, ClauseCard};
use crate::error::{ApiError, ApiResult};
use crate::policy::{repo as policy_repo, PolicyPack};
use crate::store::Store;

/// Name recorded as author and auditor of the built-in library.
pub const BUILTIN_AUDITOR: &str = "PSEBench Studio team";

/// The extension field where a corrected built-in card says what changed and why.
pub const REVISION_NOTE_FIELD: &str = "x_revision_note";

/// Load built-in packs and libraries when this build's copy differs from what the store has.
pub fn seed(store: &Store) -> ApiResult<()> {
    if let Some(err) = crate::policy::builtin::builtin_errors() {
        return Err(ApiError::internal(format!("the built-in policy data of this build is broken: {err}")));
    }
    for pack in crate::policy::builtin_packs() {
        let key = format!("builtin_fingerprint:{}", pack.id);
        let fp = crate::policy::builtin::fingerprint(&pack.id);
        let known = store.with_conn(|c| crate::store::settings::get(c, &key))?;
        if known.as_deref() == Some(fp.as_str()) {
            continue;
        }
        store.with_tx(|tx| -> ApiResult<()> {
            policy_repo::upsert_pack(tx, &pack, true)?;
            sync_builtin_library(tx, &pack)?;
            crate::store::settings::set(tx, &key, &fp)?;
            Ok(())
        })?;
    }
    Ok(())
}

/// A built-in card that could not be loaded (the test suite keeps this list empty).
pub fn builtin_card_problem(text: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Err(e) => Some(format!("not valid JSON: {e}")),
        Ok(v) => crate::card::schema::validate_card(&v).first().map(|p| format!("{} {}", p.pointer, p.message)),
    }
}

/// Insert built-in cards that are missing; refresh those the user has not changed. A broken
/// built-in card is skipped rather than making the whole store unusable.
fn sync_builtin_library(conn: &rusqlite::Connection, pack: &PolicyPack) -> ApiResult<()> {
    for f in crate::builtin::library_card_files(&pack.id) {
        if builtin_card_problem(f.text).is_some() {
            continue;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(f.text) else { continue };
        let Ok(card) = ClauseCard::from_value(&value) else { continue };
        let json = crate::card::to_pretty(&value);
        // A built-in card that was corrected carries `x_revision_note`; its history shows it.
        let revision = value.get(REVISION_NOTE_FIELD).and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty());
        let first_note = match revision {
            Some(r) => format!("built-in library (revised: {r})"),
            None => "built-in library".to_string(),
        };
        let update_note = match revision {
            Some(r) => format!("built-in library updated (revised: {r})"),
            None => "built-in library updated".to_string(),
        };
        match card_repo::get_row(conn, &card.clause_card_id)? {
            None => card_repo::insert_card(
                conn,
                &card_repo::NewCard {
                    policy_id: &pack.id,
                    card: &card,
                    json: &json,
                    status: AuditStatus::Approved,
                    auditor: Some(BUILTIN_AUDITOR),
                    origin: "builtin",
                    author: BUILTIN_AUDITOR,
                    note: Some(&first_note),
                },
            )?,
            Some(row) if row.origin == "builtin" => {
                card_repo::add_version(
                    conn,
                    &card_repo::NewVersion {
                        card: &card,
                        json: &json,
                        author: BUILTIN_AUDITOR,
                        note: Some(&update_note),
                        status: AuditStatus::Approved,
                        auditor: Some(BUILTIN_AUDITOR),
                        origin: "builtin",
                    },
                )?;
            }
            Some(_) => {} // the user's edited copy wins
        }
    }
    for r in retired_cards(&pack.id) {
        withdraw_retired(conn, &r)?;
    }
    Ok(())
}

/// A card the built-in library no longer ships, and why.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct RetiredCard {
    pub clause_card_id: String,
    #[serde(default)]
    pub replaced_by: Vec<String>,
    pub reason: String,
}

/// The retired built-in cards of a policy (an unreadable list counts as none; the test suite
/// checks that it reads).
pub fn retired_cards(policy_id: &str) -> Vec<RetiredCard> {
    crate::builtin::retired_cards_file(policy_id).and_then(|f| serde_json::from_str(f.text).ok()).unwrap_or_default()
}

/// The note recorded when a store takes a retired built-in card out of use.
pub fn withdrawal_note(r: &RetiredCard) -> String {
    let replaced =
        if r.replaced_by.is_empty() { String::new() } else { format!(" Replaced by {}.", r.replaced_by.join(", ")) };
    format!("Withdrawn from the built-in library: {}{replaced}", r.reason.trim())
}

/// A retired card that this store loaded from an earlier build, and that nobody but the built-in
/// library has approved since, goes back to draft with the reason in its audit log: generation
/// then leaves it out and the overlap with its replacement is not silent. A copy the user edited
/// or approved in their own name is left alone.
fn withdraw_retired(conn: &rusqlite::Connection, r: &RetiredCard) -> ApiResult<()> {
    let Some(row) = card_repo::get_row(conn, &r.clause_card_id)? else { return Ok(()) };
    let ours = row.origin == "builtin" && row.auditor.as_deref() == Some(BUILTIN_AUDITOR);
    if !ours || row.status == AuditStatus::Draft.as_str() {
        return Ok(());
    }
    card_repo::set_audit(conn, &r.clause_card_id, AuditStatus::Draft, BUILTIN_AUDITOR, Some(&withdrawal_note(r)))?;
    Ok(())
}
