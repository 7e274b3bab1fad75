//! Fingerprints that say whether two runs read the same things: the policy edition, the card
//! library and the case set. Each is a SHA-256 (hex) over length-prefixed parts, so no two
//! different inputs share a byte stream.

use sha2::{Digest, Sha256};

use super::PolicyEdition;
use crate::case::Case;
use crate::policy::sections::policy_sections;
use crate::policy::{OfficialSection, PolicyPack};

struct Hasher(Sha256);

impl Hasher {
    fn new(kind: &str) -> Hasher {
        let mut h = Hasher(Sha256::new());
        h.part(kind.as_bytes());
        h
    }
    fn part(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }
    fn finish(self) -> String {
        hex::encode(self.0.finalize())
    }
}

/// The policy text a run reads: the imported official text when there is any, else the pack's
/// summaries; the hash covers the clauses and every section.
pub fn policy_edition(pack: &PolicyPack, official: &[OfficialSection]) -> PolicyEdition {
    let sections = policy_sections(pack, official);
    let mut h = Hasher::new("policy");
    h.part(sections.source_hash.as_bytes());
    if official.iter().all(|s| s.source != "clauses") {
        // The summary clauses are not among the sections; they are what the run reads of them.
        for c in &pack.clauses {
            for part in [&c.clause_id, &c.label, &c.short_title, &c.summary] {
                h.part(part.as_bytes());
            }
        }
    }
    PolicyEdition { policy: pack.id.clone(), edition: sections.edition, source_hash: h.finish() }
}

/// The policy editions of stored policies (a policy missing from the store has none) and the
/// fingerprint of all their cards, read from the store: what a new run records of both.
pub fn stored_policy_and_library(
    conn: &rusqlite::Connection,
    policies: &[String],
) -> crate::error::ApiResult<(Vec<PolicyEdition>, String)> {
    let mut editions = Vec::new();
    let mut cards = Vec::new();
    for p in policies {
        if let Ok(pack) = crate::policy::repo::load_pack(conn, p) {
            editions.push(policy_edition(&pack, &crate::policy::repo::official_sections(conn, p)?));
        }
        for r in crate::card::repo::list_rows(conn, Some(p), None)? {
            cards.push((r.card_id, r.current_version, r.status));
        }
    }
    Ok((editions, library(&cards)))
}

/// The card library: every card of the policy as (id, version, status), in id order.
pub fn library(cards: &[(String, i64, String)]) -> String {
    let mut sorted: Vec<&(String, i64, String)> = cards.iter().collect();
    sorted.sort();
    let mut h = Hasher::new("library");
    for (id, version, status) in sorted {
        h.part(id.as_bytes());
        h.part(&version.to_le_bytes());
        h.part(status.as_bytes());
    }
    h.finish()
}

/// The case set: each case's full content, in id order (the order cases were chosen in does not
/// matter; an edited narrative or label does).
pub fn case_set<'a>(cases: impl IntoIterator<Item = &'a Case>) -> String {
    let mut sorted: Vec<&Case> = cases.into_iter().collect();
    sorted.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    sorted.dedup_by(|a, b| a.case_id == b.case_id);
    let mut h = Hasher::new("cases");
    for c in sorted {
        h.part(c.case_id.as_bytes());
        // Serialising a stored case cannot fail (plain data); an empty part would still differ.
        h.part(&serde_json::to_vec(c).unwrap_or_default());
    }
    h.finish()
}

/// The cards a generation run generates from: (id, version), in id order.
pub fn card_set(cards: &[(String, i64)]) -> String {
    let mut sorted: Vec<&(String, i64)> = cards.iter().collect();
    sorted.sort();
    let mut h = Hasher::new("cards");
    for (id, version) in sorted {
        h.part(id.as_bytes());
        h.part(&version.to_le_bytes());
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_and_card_fingerprints_ignore_order_and_see_versions() {
        let a = vec![("c1".to_string(), 1, "approved".to_string()), ("c2".to_string(), 2, "draft".to_string())];
        let b = vec![a[1].clone(), a[0].clone()];
        assert_eq!(library(&a), library(&b));
        let mut c = a.clone();
        c[0].1 = 2;
        assert_ne!(library(&a), library(&c));
        c = a.clone();
        c[1].2 = "approved".into();
        assert_ne!(library(&a), library(&c));
        assert_ne!(card_set(&[("a".into(), 1)]), card_set(&[("a".into(), 2)]));
    }

    #[test]
    fn a_summary_edition_changes_with_a_clause_summary() {
        let pack = crate::policy::builtin_pack(crate::policy::DEFAULT_POLICY).unwrap();
        let e = policy_edition(&pack, &[]);
        assert_eq!(e.edition, "summary");
        assert_eq!(e.source_hash, policy_edition(&pack, &[]).source_hash);
        let mut edited = pack.clone();
        edited.clauses[0].summary.push_str(" (edited)");
        assert_ne!(policy_edition(&edited, &[]).source_hash, e.source_hash);
    }
}
