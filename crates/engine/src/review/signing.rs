//! Keyed signatures of review packs (HMAC-SHA256).
//!
//! The store that creates a review session keeps a signing key of 32 random bytes, made the first
//! time a pack is exported and never written to any file the app exports. Each pack carries:
//!
//! * `owner_signature`: the owner key's signature over what the owner issued (pack id, session,
//!   fingerprint, reviewer, the pack token's hash, and the reviewer's cases with the verdicts they
//!   were built to have). Only the owner's store can make or check it; an answers file copies it
//!   from the pack, so editing any of those fields is caught at merge.
//! * `answers_key`: a key for this pack only, derived from the owner key and the pack id. The
//!   reviewer's copy of the app needs it to sign the answers it writes, so it travels in the pack
//!   (never in an answers file) and the owner derives it again at merge.
//! * `answers_signature`: the answers signed with the pack's answers key.
//!
//! What this does and does not protect: an answers file edited by hand is refused, and so is any
//! change to what the owner issued. The answers key is in the pack file, though, so a reviewer who
//! reads it out of the file and writes their own signing code could forge answers for their own
//! pack. They cannot change the cases, the assignment or the expected verdicts, nor answer for
//! another reviewer (that takes another pack's token and key).

use hmac::{Hmac, Mac};
use rand::rngs::OsRng;
use rand::TryRngCore;
use rusqlite::Connection;
use serde::Serialize;
use sha2::Sha256;

use super::pack::{PackAnswer, PackAssignment, ReviewPackFile};
use crate::error::{ApiError, ApiResult};
use crate::store::settings;

type HmacSha256 = Hmac<Sha256>;

/// The settings row that holds the owner's signing key (hex).
const OWNER_KEY_SETTING: &str = "review_pack_signing_key";
pub const KEY_BYTES: usize = 32;

/// The owner store's signing key.
pub struct OwnerKey([u8; KEY_BYTES]);

impl std::fmt::Debug for OwnerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OwnerKey(hidden)")
    }
}

fn random_key() -> ApiResult<[u8; KEY_BYTES]> {
    let mut buf = [0u8; KEY_BYTES];
    OsRng.try_fill_bytes(&mut buf).map_err(|e| {
        ApiError::internal("The operating system could not provide random bytes for the review pack signing key.")
            .with_detail(e.to_string())
    })?;
    Ok(buf)
}

fn parse_key(hex_text: &str) -> Option<[u8; KEY_BYTES]> {
    let bytes = hex::decode(hex_text.trim()).ok()?;
    bytes.try_into().ok()
}

/// The store's signing key, made on first use. Call inside a transaction so two exports at once
/// agree on one key.
pub fn owner_key(conn: &Connection) -> ApiResult<OwnerKey> {
    let read = |c: &Connection| -> ApiResult<Option<String>> { Ok(settings::get(c, OWNER_KEY_SETTING)?) };
    if let Some(text) = read(conn)? {
        return parse_key(&text).map(OwnerKey).ok_or_else(|| {
            ApiError::internal(
                "The review pack signing key in this store is damaged, so packs cannot be signed or checked. Packs exported \
                 before cannot be merged any more; export new ones after the key is reset.",
            )
        });
    }
    let key = random_key()?;
    settings::set_if_absent(conn, OWNER_KEY_SETTING, &hex::encode(key))?;
    let text = read(conn)?.ok_or_else(|| ApiError::internal("the review pack signing key was not saved"))?;
    parse_key(&text).map(OwnerKey).ok_or_else(|| ApiError::internal("the review pack signing key was not saved"))
}

fn mac_of(key: &[u8], domain: &str, body: &[u8]) -> HmacSha256 {
    // HMAC takes keys of any length, so this cannot fail.
    let mut m =
        <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(domain.as_bytes());
    m.update(b"\n");
    m.update(body);
    m
}

fn json(v: &impl Serialize) -> ApiResult<Vec<u8>> {
    serde_json::to_vec(v).map_err(|e| ApiError::internal(e.to_string()))
}

/// What the owner issues with a pack, in a fixed order: the signed part.
#[derive(Serialize)]
struct OwnerPart<'a> {
    pack_id: &'a str,
    session_id: &'a str,
    session_created_at: &'a str,
    fingerprint: &'a str,
    overlap: u32,
    reviewer: &'a str,
    token_sha256: String,
    assignment: &'a [PackAssignment],
}

fn owner_part(f: &ReviewPackFile) -> ApiResult<Vec<u8>> {
    json(&OwnerPart {
        pack_id: &f.pack_id,
        session_id: &f.session_id,
        session_created_at: &f.session_created_at,
        fingerprint: &f.fingerprint,
        overlap: f.overlap,
        reviewer: &f.reviewer,
        token_sha256: super::tokens::hash(&f.token),
        assignment: &f.assignment,
    })
}

fn answers_part(pack_id: &str, answers: &[PackAnswer]) -> ApiResult<Vec<u8>> {
    json(&(pack_id, answers))
}

const OWNER_DOMAIN: &str = "psebench review pack: owner part";
const ANSWERS_KEY_DOMAIN: &str = "psebench review pack: answers key";
const ANSWERS_DOMAIN: &str = "psebench review pack: answers";

/// The answers key of one pack (hex), derived from the owner key and the pack id.
pub fn answers_key(owner: &OwnerKey, pack_id: &str) -> String {
    hex::encode(mac_of(&owner.0, ANSWERS_KEY_DOMAIN, pack_id.as_bytes()).finalize().into_bytes())
}

/// Sign what the owner issued (sets `owner_signature`).
pub fn sign_owner_part(owner: &OwnerKey, f: &mut ReviewPackFile) -> ApiResult<()> {
    f.owner_signature = hex::encode(mac_of(&owner.0, OWNER_DOMAIN, &owner_part(f)?).finalize().into_bytes());
    Ok(())
}

/// Whether `owner_signature` matches what the owner issued (constant-time comparison).
pub fn owner_part_intact(owner: &OwnerKey, f: &ReviewPackFile) -> ApiResult<bool> {
    let Ok(sig) = hex::decode(&f.owner_signature) else { return Ok(false) };
    Ok(mac_of(&owner.0, OWNER_DOMAIN, &owner_part(f)?).verify_slice(&sig).is_ok())
}

fn answers_mac(key_hex: &str, f: &ReviewPackFile) -> ApiResult<Option<HmacSha256>> {
    let Some(key) = parse_key(key_hex) else { return Ok(None) };
    Ok(Some(mac_of(&key, ANSWERS_DOMAIN, &answers_part(&f.pack_id, &f.answers)?)))
}

/// Sign the answers with a pack's answers key (sets `answers_signature`).
pub fn sign_answers(f: &mut ReviewPackFile, key_hex: &str) -> ApiResult<()> {
    let m = answers_mac(key_hex, f)?.ok_or_else(|| ApiError::internal("the review pack's answers key is damaged"))?;
    f.answers_signature = hex::encode(m.finalize().into_bytes());
    Ok(())
}

/// Whether `answers_signature` matches the answers under a pack's answers key.
pub fn answers_intact(f: &ReviewPackFile, key_hex: &str) -> ApiResult<bool> {
    let Ok(sig) = hex::decode(&f.answers_signature) else { return Ok(false) };
    Ok(answers_mac(key_hex, f)?.is_some_and(|m| m.verify_slice(&sig).is_ok()))
}

/// A fresh pack id: 16 random bytes as hex.
pub fn new_pack_id() -> ApiResult<String> {
    Ok(hex::encode(&random_key()?[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_made_once_and_differ_between_stores() {
        let c1 = Connection::open_in_memory().unwrap();
        let c2 = Connection::open_in_memory().unwrap();
        for c in [&c1, &c2] {
            c.execute_batch("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)").unwrap();
        }
        let a = owner_key(&c1).unwrap();
        assert_eq!(owner_key(&c1).unwrap().0, a.0, "the key is kept");
        assert_ne!(owner_key(&c2).unwrap().0, a.0);
        assert_ne!(answers_key(&a, "p1"), answers_key(&a, "p2"));
        c1.execute("UPDATE settings SET value = 'zz'", []).unwrap();
        assert!(owner_key(&c1).unwrap_err().message.contains("damaged"));
    }
}
