//! Review packs: reviewing with no server. The owner exports one JSON file per reviewer; the
//! reviewer opens it in their own copy of the app (a "visiting" session), answers, and sends back
//! an answers file, which the owner merges. Merging is per answer part, newer first, so merging the
//! same file twice changes nothing.
//!
//! A pack holds the reviewer's narratives *and* the by-construction material shown after each
//! blind verdict. The app still enforces blind-first when the pack is opened, but anyone who reads
//! the file itself can see the answers: a pack is a convenience, not a security boundary.
//!
//! The checksum (SHA-256 over the file with an empty checksum field) catches files damaged in
//! transit; the session fingerprint ties a file to one session and its assignment; the token ties
//! it to one reviewer. Since format 2, the owner's store signs what it issued and each pack's
//! answers with keyed signatures (see `signing`), so a file edited by hand is refused at merge even
//! when its checksum was recomputed. Files of format 1 carry no signature and are refused.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use super::answers::{AnswerParts, AnswerRecord};
use super::rationale::RationaleTask;
use super::{RevealMaterial, ReviewVerdict};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::ids::check_id;

pub const PACK_FORMAT: &str = "psebench-review-pack";
pub const PACK_VERSION: u32 = 2;
/// The first format with keyed signatures; older files are refused.
pub const FIRST_SIGNED_VERSION: u32 = 2;
/// Largest pack file accepted.
pub const MAX_PACK_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PackKind {
    /// Made by the session's owner for one reviewer: items, reveal material, answers so far.
    Pack,
    /// Made where the pack was opened: the reviewer's answers, to merge back.
    Answers,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PackItem {
    pub item_no: u32,
    pub case_id: String,
    pub case_type: String,
    pub clause_id: String,
    pub expected_verdict: ReviewVerdict,
    pub narrative: String,
    pub reveal: RevealMaterial,
    /// The rationale task of the item, when it has one (what the reviewer sees; never the judge's
    /// hits). Absent in packs without the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rationale_task: Option<RationaleTask>,
}

/// One of the reviewer's items as the owner issued it: signed by the owner and copied unchanged
/// into the answers file, so the cases and their expected verdicts cannot be edited on the way back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PackAssignment {
    pub item_no: u32,
    pub case_id: String,
    pub expected_verdict: ReviewVerdict,
}

/// What the reviewer's store keeps of a signed pack, to write the answers file: the owner's part
/// (copied unchanged) and the key that signs the answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackSeal {
    pub pack_id: String,
    pub assignment: Vec<PackAssignment>,
    pub owner_signature: String,
    pub answers_key: String,
}

/// One answer in a pack: the shared answer parts (`AnswerParts`) beside the item they answer,
/// converted from and to an `AnswerRecord` (`from_record`, `record`). Time is in whole milliseconds so the file has no floating-point
/// numbers (the checksum must survive a read and re-write exactly).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct PackAnswer {
    pub item_no: u32,
    pub case_id: String,
    #[serde(flatten)]
    pub parts: AnswerParts,
    #[ts(type = "number")]
    pub time_spent_ms: u64,
    pub time_spent_at: Option<String>,
}

impl PackAnswer {
    pub fn from_record(item_no: u32, case_id: &str, r: &AnswerRecord) -> PackAnswer {
        PackAnswer {
            item_no,
            case_id: case_id.to_string(),
            parts: r.parts.clone(),
            time_spent_ms: (r.time_spent_secs.max(0.0) * 1000.0).round() as u64,
            time_spent_at: r.time_spent_at.clone(),
        }
    }

    pub fn record(&self) -> AnswerRecord {
        AnswerRecord {
            parts: self.parts.clone(),
            time_spent_secs: self.time_spent_ms as f64 / 1000.0,
            time_spent_at: self.time_spent_at.clone(),
            rationale_required: false,
        }
    }
}

/// The file. Field names are a contract between copies of the app: add, never rename.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReviewPackFile {
    pub format: String,
    pub version: u32,
    pub kind: PackKind,
    /// For people who open the file in an editor.
    pub notice: String,
    pub session_id: String,
    pub session_name: String,
    pub session_created_at: String,
    pub fingerprint: String,
    pub overlap: u32,
    pub reviewer: String,
    pub token: String,
    pub guidelines: String,
    pub exported_at: String,
    pub app_version: String,
    /// The reviewer's items (empty in an answers file).
    pub items: Vec<PackItem>,
    pub answers: Vec<PackAnswer>,
    /// A random id of this pack (format 2 on).
    #[serde(default)]
    pub pack_id: String,
    /// The reviewer's items as issued (format 2 on): in the pack and in its answers file.
    #[serde(default)]
    pub assignment: Vec<PackAssignment>,
    /// The owner store's signature over what it issued (format 2 on).
    #[serde(default)]
    pub owner_signature: String,
    /// The key that signs this pack's answers: in a pack, empty in an answers file (format 2 on).
    #[serde(default)]
    pub answers_key: String,
    /// The answers signed with the pack's answers key (format 2 on).
    #[serde(default)]
    pub answers_signature: String,
    pub checksum: String,
}

impl ReviewPackFile {
    /// Whether the items of a pack are exactly the issued assignment (always true of an answers
    /// file, which has no items).
    pub fn items_match_assignment(&self) -> bool {
        if self.kind == PackKind::Answers {
            return self.items.is_empty();
        }
        let mut items: Vec<PackAssignment> = self
            .items
            .iter()
            .map(|i| PackAssignment {
                item_no: i.item_no,
                case_id: i.case_id.clone(),
                expected_verdict: i.expected_verdict,
            })
            .collect();
        let mut issued = self.assignment.clone();
        items.sort_by_key(|a| a.item_no);
        issued.sort_by_key(|a| a.item_no);
        items == issued
            && self
                .items
                .iter()
                .all(|i| i.reveal.expected_verdict == i.expected_verdict && i.reveal.case_id == i.case_id)
    }
}

pub const PACK_NOTICE: &str = "PSEBench Studio review pack. Open it with the app (Review > Open a review pack, or \
`psebench review pack open FILE`). It contains the verdict each case was built to have; please do not read the file \
itself before reviewing. The app shows that verdict only after yours is saved; the file itself cannot hide it. \
The file is signed: if it is edited, the answers made from it will be refused.";
pub const ANSWERS_NOTICE: &str =
    "PSEBench Studio review answers. Send this file back to the person running the review; \
they merge it with `psebench review pack merge FILE` or Review > Merge answers.";

/// The session fingerprint: a hash over the session's identity, its cases (id, by-construction
/// verdict, narrative) and the whole assignment. Two stores agree on it only when they hold the
/// same session with the same cases and assignment.
pub fn fingerprint(
    session_id: &str,
    created_at: &str,
    overlap: u32,
    items: &[(&str, ReviewVerdict, &str)],
    assignment: &[(&str, u32, &str)],
) -> String {
    let mut h = Sha256::new();
    h.update(format!("psebench-review-session\n{session_id}\n{created_at}\n{overlap}\n"));
    let mut items: Vec<&(&str, ReviewVerdict, &str)> = items.iter().collect();
    items.sort_by(|a, b| a.0.cmp(b.0));
    for (id, v, narrative) in items {
        h.update(format!("item\t{id}\t{}\t{}\n", v.as_str(), hex::encode(Sha256::digest(narrative.as_bytes()))));
    }
    let mut asg: Vec<&(&str, u32, &str)> = assignment.iter().collect();
    asg.sort();
    for (r, n, id) in asg {
        h.update(format!("assign\t{r}\t{n}\t{id}\n"));
    }
    hex::encode(h.finalize())
}

fn checksum_of(file: &ReviewPackFile) -> ApiResult<String> {
    let mut f = file.clone();
    f.checksum = String::new();
    let text = serde_json::to_string(&f).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(hex::encode(Sha256::digest(text.as_bytes())))
}

/// Set the checksum and write the file as pretty JSON.
pub fn seal(mut file: ReviewPackFile) -> ApiResult<String> {
    file.checksum = checksum_of(&file)?;
    let mut s = serde_json::to_string_pretty(&file).map_err(|e| ApiError::internal(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

fn invalid(name: &str, msg: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::InvalidInput, format!("{name}: {msg}"))
}

/// The line of `text` (1-based) where the JSON string `value` first appears after `"key"`, for
/// messages about one field of a pretty-printed file; 1 when it cannot be found.
fn line_of(text: &str, key: &str, value: &str) -> usize {
    let quoted = serde_json::to_string(value).unwrap_or_default();
    let key = format!("\"{key}\"");
    let at = text.match_indices(&key).find_map(|(i, _)| {
        let rest = text[i + key.len()..].trim_start().strip_prefix(':')?.trim_start();
        rest.starts_with(&quoted).then_some(i)
    });
    at.map_or(1, |i| text[..i].matches('\n').count() + 1)
}

/// The session id and every case id in the file follow the id rule (they name rows and, in
/// exports, files); the first one that does not is refused with its line.
fn check_ids(name: &str, text: &str, file: &ReviewPackFile) -> ApiResult<()> {
    let ids = std::iter::once(("session id", "session_id", file.session_id.as_str()))
        .chain(file.items.iter().map(|i| ("case id", "case_id", i.case_id.as_str())))
        .chain(file.answers.iter().map(|a| ("case id", "case_id", a.case_id.as_str())));
    for (kind, key, id) in ids {
        check_id(kind, id).map_err(|e| {
            ApiError::new(ErrorCode::ValidationFailed, format!("{name}:{}: {e}", line_of(text, key, id)))
        })?;
    }
    Ok(())
}

/// Read a pack or answers file, checking its format, version, ids and checksum.
pub fn parse(name: &str, text: &str) -> ApiResult<ReviewPackFile> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        invalid(
            name,
            format!("not a review pack: the file is not valid JSON (line {}, column {}).", e.line(), e.column()),
        )
    })?;
    if value.get("format").and_then(|v| v.as_str()) != Some(PACK_FORMAT) {
        return Err(invalid(name, "not a PSEBench review pack or answers file."));
    }
    let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
    if version > PACK_VERSION as u64 {
        return Err(invalid(
            name,
            format!("this file was made by a newer version of PSEBench Studio (file format {version}); update the app to open it."),
        ));
    }
    if version < FIRST_SIGNED_VERSION as u64 {
        return Err(invalid(
            name,
            format!(
                "this file was made by an older version of PSEBench Studio (file format {version}) whose packs are not signed, so \
                 edits to it could not be detected. The person running the review should export a new pack for this reviewer; \
                 answers already given come with it."
            ),
        ));
    }
    let file: ReviewPackFile = serde_json::from_value(value)
        .map_err(|e| invalid(name, format!("the review pack is incomplete or damaged ({e}).")))?;
    check_ids(name, text, &file)?;
    if checksum_of(&file)? != file.checksum {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!(
                "{name}: the file was changed after it was exported (its checksum does not match), so it cannot be trusted. \
                 Ask for a fresh copy, or export it again."
            ),
        ));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> ReviewPackFile {
        ReviewPackFile {
            format: PACK_FORMAT.into(),
            version: PACK_VERSION,
            kind: PackKind::Answers,
            notice: ANSWERS_NOTICE.into(),
            session_id: "rev-1".into(),
            session_name: "Pilot".into(),
            session_created_at: "t0".into(),
            fingerprint: "f".into(),
            overlap: 2,
            reviewer: "Ana".into(),
            token: "x".into(),
            guidelines: String::new(),
            exported_at: "t1".into(),
            app_version: "0".into(),
            items: vec![],
            answers: vec![PackAnswer {
                item_no: 1,
                case_id: "c".into(),
                time_spent_ms: 12_345,
                ..PackAnswer::default()
            }],
            pack_id: "p".into(),
            assignment: vec![],
            owner_signature: String::new(),
            answers_key: String::new(),
            answers_signature: String::new(),
            checksum: String::new(),
        }
    }

    #[test]
    fn sealed_files_read_back_and_edits_are_caught() {
        let text = seal(file()).unwrap();
        let back = parse("a.json", &text).unwrap();
        assert_eq!(back.answers[0].record().time_spent_secs, 12.345);
        let edited = text.replace("\"Ana\"", "\"Ben\"");
        let e = parse("a.json", &edited).unwrap_err();
        assert!(e.message.contains("changed after it was exported"), "{}", e.message);
        assert!(parse("a.json", "{").unwrap_err().message.contains("not valid JSON"));
        assert!(parse("a.json", "{\"format\": \"other\"}").unwrap_err().message.contains("not a PSEBench review pack"));
        let newer = text.replace("\"version\": 2", "\"version\": 99");
        assert!(parse("a.json", &newer).unwrap_err().message.contains("newer version"));
        let mut old = file();
        old.version = 1;
        let e = parse("a.json", &seal(old).unwrap()).unwrap_err();
        assert!(e.message.contains("not signed") && e.message.contains("export a new pack"), "{}", e.message);
    }

    #[test]
    fn a_session_or_case_id_that_is_a_path_is_refused_with_its_line() {
        let mut f = file();
        f.session_id = "../../../../outside/x".into();
        let e = parse("a.json", &seal(f).unwrap()).unwrap_err();
        assert!(e.message.starts_with("a.json:6: the session id \"../../../../outside/x\""), "{}", e.message);
        let mut f = file();
        f.answers[0].case_id = "/tmp/x".into();
        let text = seal(f).unwrap();
        let line = text.lines().position(|l| l.contains("\"/tmp/x\"")).unwrap() + 1;
        let e = parse("a.json", &text).unwrap_err();
        assert!(e.message.starts_with(&format!("a.json:{line}: the case id \"/tmp/x\"")), "{}", e.message);
    }

    #[test]
    fn fingerprint_depends_on_cases_and_assignment_not_on_order() {
        let items = [("a", ReviewVerdict::Reportable, "text a"), ("b", ReviewVerdict::Uncertain, "text b")];
        let asg = [("Ana", 1, "a"), ("Ben", 1, "b")];
        let f = fingerprint("s", "t", 1, &items, &asg);
        let items_rev = [items[1], items[0]];
        let asg_rev = [asg[1], asg[0]];
        assert_eq!(fingerprint("s", "t", 1, &items_rev, &asg_rev), f);
        assert_ne!(fingerprint("s", "t", 1, &items, &[("Ana", 1, "b"), ("Ben", 1, "a")]), f);
        assert_ne!(fingerprint("s", "t", 1, &[items[0], ("b", ReviewVerdict::Uncertain, "edited")], &asg), f);
        assert_ne!(fingerprint("s2", "t", 1, &items, &asg), f);
    }
}
