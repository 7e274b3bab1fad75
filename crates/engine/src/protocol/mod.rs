//! How a run was made, and whether runs can be compared.
//!
//! A generation or evaluation run follows one of two protocols:
//! - `paper`: the PSEBench method as the paper describes it and nothing more;
//! - `studio`: the paper's method plus this application's additions (listed in [`ADDITIONS`]).
//!
//! Every run stores its [`RunProvenance`]: the protocol, the prompts (name → version), the policy
//! edition it read (summary or imported official text, with a hash), the fingerprints of the card
//! library and of the case set, and the judge model. [`comparability`] reads the provenance of the
//! runs shown together and says, in one sentence, what differs between them.

pub mod comparability;
pub mod fingerprint;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use comparability::{comparability, Comparability, RunMark};

/// The method a run follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The paper's method and nothing more.
    Paper,
    /// The paper's method with this application's additions (the default).
    #[default]
    Studio,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Paper => "paper",
            Protocol::Studio => "studio",
        }
    }

    /// Reads `paper` or `studio` (any case, surrounding spaces ignored).
    pub fn parse(text: &str) -> Result<Protocol, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "paper" => Ok(Protocol::Paper),
            "studio" => Ok(Protocol::Studio),
            other => Err(format!(
                "\"{other}\" is not a protocol: use \"paper\" (the paper's method only) or \"studio\" (with this application's additions)"
            )),
        }
    }

    pub fn is_paper(self) -> bool {
        self == Protocol::Paper
    }

    /// The clause screen checks each generated record against every clause of the policy.
    pub fn screens_records(self) -> bool {
        self == Protocol::Studio
    }

    /// Cheap code checks (verdict words, clause numbers, leaked withheld values) run before a
    /// verifier is called.
    pub fn guards_text(self) -> bool {
        self == Protocol::Studio
    }

    /// Replies of the Extractor and of the verifiers that cannot be read are asked for again
    /// (up to this many tries) before the attempt counts as failed.
    pub fn checker_format_tries(self) -> u32 {
        match self {
            Protocol::Paper => 1,
            Protocol::Studio => 3,
        }
    }

    /// The evaluated model's replies are read leniently (code fences, prose around the object,
    /// trailing commas, an evidence string read as a one-item list).
    pub fn repairs_replies(self) -> bool {
        self == Protocol::Studio
    }

    /// The judge is shown the clause's wording beside the rationale and the boundary conditions.
    pub fn judge_sees_clause(self) -> bool {
        self == Protocol::Studio
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One place where the `studio` protocol departs from the paper.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Addition {
    pub id: &'static str,
    /// What the addition is.
    pub what: &'static str,
    /// What it changes in the results.
    pub changes: &'static str,
    /// How to turn it off.
    pub switch: &'static str,
}

/// Every departure of the `studio` protocol from the paper, in the order of the pipeline.
pub const ADDITIONS: &[Addition] = &[
    Addition {
        id: "clause_screen",
        what: "Generation screens every complete record against all clauses of the policy and sends a conflict back to the Instantiator.",
        changes: "Fewer cases whose facts also meet another clause; more calls, and a record may be instantiated again.",
        switch: "--protocol paper on `generate run`, or Protocol: paper on the Generate page",
    },
    Addition {
        id: "narration_after_screen",
        what: "After a screen conflict the record is instantiated again and narrated again, so one card-and-anchor pair can take up to 9 narration attempts.",
        changes: "Cases that the paper's three attempts would have dropped can still be accepted.",
        switch: "--protocol paper (no screen, at most 3 narration attempts)",
    },
    Addition {
        id: "text_guards",
        what: "Code checks run before the verifiers: verdict words, clause or statute numbers and withheld values in a narrative fail the attempt.",
        changes: "Plain leaks are caught without a verifier call; a few narratives a verifier would pass are rewritten.",
        switch: "--protocol paper",
    },
    Addition {
        id: "checker_format_retries",
        what: "An Extractor or verifier reply that cannot be read is asked for again, up to 3 times, before the attempt fails.",
        changes: "Fewer attempts lost to a malformed checker reply.",
        switch: "--protocol paper (one try)",
    },
    Addition {
        id: "prompt_cues",
        what: "The evaluated model's instructions add examples of each verdict's grounds (exclusions, harm thresholds, undefined limits) and a reminder that turns are limited.",
        changes: "Can move M1, M5 and M7 (models ask and abstain differently).",
        switch: "--protocol paper on `eval run`, or Protocol: paper on the Evaluate page",
    },
    Addition {
        id: "reply_repair",
        what: "A reply of the evaluated model is read leniently: code fences, prose around the JSON object, trailing commas, an evidence string taken as a one-item list.",
        changes: "Fewer unreadable turns, so higher M1 and M8 for models that wrap their JSON.",
        switch: "--protocol paper (an unreadable reply is a null verdict)",
    },
    Addition {
        id: "judge_clause_text",
        what: "The M4 judge also reads the clause's wording (its approved extraction, or the official or summary text).",
        changes: "Can move M4: the judge understands the conditions in the clause's own terms.",
        switch: "--protocol paper on `eval run` or `eval rejudge`",
    },
    Addition {
        id: "blind_first_review",
        what: "Expert reviewers rate realism and plausibility and give their own verdict before the by-construction verdict is shown.",
        changes: "Adds a blind agreement figure; the agree mark afterwards is the paper's question.",
        switch: "nothing to turn off for the paper's number: review results report the agree mark beside the blind agreement",
    },
];

/// The policy text a run read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PolicyEdition {
    pub policy: String,
    /// `summary` (the pack's own summaries) or `official` (text the user imported).
    pub edition: String,
    /// SHA-256 (hex) of the policy's sections as the run read them.
    pub source_hash: String,
}

/// What made a run: enough to tell whether two runs' numbers can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunProvenance {
    pub protocol: Protocol,
    /// Every prompt the run uses, name → version.
    pub prompt_versions: IndexMap<String, String>,
    /// The policy editions the run read (one per policy of its cases).
    pub policy_editions: Vec<PolicyEdition>,
    /// SHA-256 over the policy's cards (id, version, status) when the run was created.
    pub library_fingerprint: String,
    /// SHA-256 over the run's cases (evaluation) or the cards it generates from (generation).
    pub case_set_fingerprint: String,
    /// Number of cases the case-set fingerprint covers.
    pub case_count: usize,
    /// The M4 judge's registered name and model id (evaluation runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub judge_model: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_parse_and_print() {
        assert_eq!(Protocol::parse(" Paper ").unwrap(), Protocol::Paper);
        assert_eq!(Protocol::parse("studio").unwrap(), Protocol::Studio);
        let e = Protocol::parse("strict").unwrap_err();
        assert!(e.contains("paper") && e.contains("studio"), "{e}");
        assert_eq!(serde_json::to_string(&Protocol::Paper).unwrap(), "\"paper\"");
        assert_eq!(Protocol::default(), Protocol::Studio);
    }

    #[test]
    fn the_paper_protocol_turns_every_addition_off() {
        let p = Protocol::Paper;
        assert!(!p.screens_records() && !p.guards_text() && !p.repairs_replies() && !p.judge_sees_clause());
        assert_eq!(p.checker_format_tries(), 1);
        let s = Protocol::Studio;
        assert!(s.screens_records() && s.guards_text() && s.repairs_replies() && s.judge_sees_clause());
        let ids: std::collections::HashSet<&str> = ADDITIONS.iter().map(|a| a.id).collect();
        assert_eq!(ids.len(), ADDITIONS.len());
    }

    #[test]
    fn the_readme_lists_every_addition() {
        let readme = include_str!("../../../../README.md");
        let section = &readme[readme.find("## Fidelity to the paper").expect("the README has the section")..];
        for a in ADDITIONS {
            assert!(section.contains(&format!("(`{}`)", a.id)), "README's fidelity table lacks {}", a.id);
        }
    }
}
