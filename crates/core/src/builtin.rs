//! Data compiled into the binary: the built-in policy packs (`policies/`), the built-in clause-card
//! library, sample anchors and demo cases (`library/`), as raw files. Parsing is the job of the
//! modules that own the types (`policy::builtin`, `card`, `anchor`); tests check that all of it
//! parses and lints.

use include_dir::{include_dir, Dir};

static POLICIES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../policies");
static LIBRARY: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../library");

/// An embedded file: its path inside the repository folder and its text.
pub struct EmbeddedFile {
    pub path: String,
    pub text: &'static str,
}

/// The folder of each built-in policy pack (`policies/<id>/`: pack.json, clauses.json,
/// guidance.json). `policy` parses them.
pub fn policy_pack_dirs() -> impl Iterator<Item = &'static Dir<'static>> {
    POLICIES.dirs()
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

/// The built-in cards a policy's library no longer ships (`library/retired/<policy>.json`): a list
/// of `{"clause_card_id", "replaced_by": [ids], "reason"}`. A store that loaded one of them earlier
/// takes it out of use (see `card::builtin_library`).
pub fn retired_cards_file(policy_id: &str) -> Option<EmbeddedFile> {
    let path = format!("retired/{policy_id}.json");
    LIBRARY
        .get_file(&path)
        .and_then(|f| f.contents_utf8().map(|text| EmbeddedFile { path: format!("library/{path}"), text }))
}
