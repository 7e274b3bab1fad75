//! Data compiled into the binary: the built-in policy packs (`policies/`), the built-in clause-card
//! library, sample anchors and demo cases (`library/`). Tests check that all of it parses and lints.

use include_dir::{include_dir, Dir};
use serde_json::Value;
use std::sync::OnceLock;

use crate::policy::PolicyPack;

static POLICIES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../policies");
static LIBRARY: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../library");

/// An embedded file: its path inside the repository folder and its text.
pub struct EmbeddedFile {
    pub path: String,
    pub text: &'static str,
}

fn load_pack(dir: &Dir<'static>) -> Result<PolicyPack, String> {
    let read = |name: &str| -> Result<Value, String> {
        let f = dir.get_file(dir.path().join(name)).ok_or_else(|| format!("{}/{name} missing", dir.path().display()))?;
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
    P.get_or_init(|| POLICIES.dirs().map(load_pack).collect())
}

/// The built-in packs (empty if the embedded data is broken; `builtin_errors` says why).
pub fn policy_packs() -> Vec<PolicyPack> {
    packs().as_ref().map(|p| p.clone()).unwrap_or_default()
}

/// Problems with the embedded data, for tests and diagnostics.
pub fn builtin_errors() -> Option<String> {
    packs().as_ref().err().cloned()
}

fn collect(dir: &'static Dir<'static>, ext: &str, out: &mut Vec<EmbeddedFile>) {
    for f in dir.files() {
        if f.path().extension().and_then(|e| e.to_str()) == Some(ext) {
            if let Some(text) = f.contents_utf8() {
                out.push(EmbeddedFile { path: format!("library/{}", f.path().display()), text });
            }
        }
    }
    for d in dir.dirs() {
        collect(d, ext, out);
    }
}

/// The built-in clause cards of a policy: every `library/<policy>/**/*.json`, sorted by path.
pub fn library_card_files(policy_id: &str) -> Vec<EmbeddedFile> {
    let mut out = Vec::new();
    if let Some(d) = LIBRARY.get_dir(policy_id) {
        collect(d, "json", &mut out);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Sample anchors: `library/anchors/*.jsonl`.
pub fn anchor_files() -> Vec<EmbeddedFile> {
    let mut out = Vec::new();
    if let Some(d) = LIBRARY.get_dir("anchors") {
        collect(d, "jsonl", &mut out);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The hand-written demo cases (`library/demo/cases.jsonl`), if present.
pub fn demo_cases() -> Option<EmbeddedFile> {
    LIBRARY
        .get_file("demo/cases.jsonl")
        .and_then(|f| f.contents_utf8().map(|text| EmbeddedFile { path: "library/demo/cases.jsonl".into(), text }))
}

/// A fingerprint of everything built in, so a store reloads it only when it changed.
pub fn fingerprint(policy_id: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for f in library_card_files(policy_id) {
        h.update(f.path.as_bytes());
        h.update(f.text.as_bytes());
    }
    if let Some(p) = policy_packs().into_iter().find(|p| p.id == policy_id) {
        h.update(serde_json::to_string(&p).unwrap_or_default().as_bytes());
    }
    hex::encode(h.finalize())
}
