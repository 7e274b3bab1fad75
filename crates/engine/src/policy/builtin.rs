//! The built-in policy packs, parsed from the files compiled into the binary.

use include_dir::Dir;
use serde_json::Value;
use std::sync::OnceLock;

use super::PolicyPack;

fn load_pack(dir: &Dir<'static>) -> Result<PolicyPack, String> {
    let read = |name: &str| -> Result<Value, String> {
        let f =
            dir.get_file(dir.path().join(name)).ok_or_else(|| format!("{}/{name} missing", dir.path().display()))?;
        let text = f.contents_utf8().ok_or_else(|| format!("{name} is not UTF-8"))?;
        serde_json::from_str(text).map_err(|e| format!("{}/{name}: {e}", dir.path().display()))
    };
    let mut pack = read("pack.json")?;
    let obj = pack.as_object_mut().ok_or("pack.json is not an object")?;
    obj.insert("clauses".into(), read("clauses.json")?);
    obj.insert("guidance".into(), read("guidance.json")?);
    serde_json::from_value(pack).map_err(|e| format!("{}: {e}", dir.path().display()))
}

fn packs() -> &'static Result<Vec<PolicyPack>, String> {
    static P: OnceLock<Result<Vec<PolicyPack>, String>> = OnceLock::new();
    P.get_or_init(|| crate::builtin::policy_pack_dirs().map(load_pack).collect())
}

/// The built-in packs (empty if the embedded data is broken; `builtin_errors` says why).
pub fn policy_packs() -> Vec<PolicyPack> {
    packs().clone().unwrap_or_default()
}

/// Problems with the embedded data, for tests and diagnostics.
pub fn builtin_errors() -> Option<String> {
    packs().as_ref().err().cloned()
}

/// A fingerprint of everything built in, so a store reloads it only when it changed.
pub fn fingerprint(policy_id: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for f in crate::builtin::library_card_files(policy_id) {
        h.update(f.path.as_bytes());
        h.update(f.text.as_bytes());
    }
    if let Some(f) = crate::builtin::retired_cards_file(policy_id) {
        h.update(f.path.as_bytes());
        h.update(f.text.as_bytes());
    }
    if let Some(p) = policy_packs().into_iter().find(|p| p.id == policy_id) {
        h.update(serde_json::to_string(&p).unwrap_or_default().as_bytes());
    }
    hex::encode(h.finalize())
}
