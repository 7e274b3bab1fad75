//! The one rule every id that comes from an imported file must follow (run ids in trajectory
//! files, case ids in case files, card ids in card files, session ids in review packs): 1 to
//! [`MAX_ID_LEN`] characters from `A-Z a-z 0-9 . _ -`, not starting with a dot. Such an id can never
//! name a folder above or outside the one a file is written in, nor an absolute path, nor a hidden
//! file.

/// Longest id accepted. Generated case ids join the run, card and anchor ids (and a variant), so
/// they reach 120 to 160 characters; 200 keeps them importable and, with a suffix such as
/// `.trajectories.jsonl`, still under the 255-byte file-name limit of common file systems.
pub const MAX_ID_LEN: usize = 200;

/// Why an id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("the {kind} is empty; give it a name of letters, digits, '.', '_' or '-'")]
    Empty { kind: &'static str },
    #[error("the {kind} \"{id}\" is {len} characters long; at most {MAX_ID_LEN} are allowed")]
    TooLong { kind: &'static str, id: String, len: usize },
    #[error("the {kind} \"{id}\" starts with a dot, which is not allowed")]
    LeadingDot { kind: &'static str, id: String },
    #[error("the {kind} \"{id}\" contains {found}; only letters A-Z and a-z, digits, '.', '_' and '-' are allowed")]
    BadCharacter { kind: &'static str, id: String, found: String },
}

/// Check `id` against the rule; `kind` names what it is in the message ("run id", "case id", ...).
pub fn check_id(kind: &'static str, id: &str) -> Result<(), IdError> {
    if id.is_empty() {
        return Err(IdError::Empty { kind });
    }
    // Shown shortened in messages: an overlong id may be very long indeed.
    let shown = || {
        if id.chars().count() > 120 {
            format!("{}…", id.chars().take(120).collect::<String>())
        } else {
            id.to_string()
        }
    };
    if let Some(c) = id.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        let found = match c {
            '/' | '\\' => format!("a path separator ('{c}')"),
            c if c.is_control() || c.is_whitespace() => format!("the character U+{:04X}", c as u32),
            c => format!("the character '{c}'"),
        };
        return Err(IdError::BadCharacter { kind, id: shown(), found });
    }
    if id.len() > MAX_ID_LEN {
        return Err(IdError::TooLong { kind, id: shown(), len: id.len() });
    }
    if id.starts_with('.') {
        return Err(IdError::LeadingDot { kind, id: shown() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_use_today_pass() {
        for id in [
            "example-careful",
            "eval-20261125-101500-3f9a",
            "synthetic-7",
            "syn-000042",
            "CardRep_1_CareManagement_1",
            "case.v2",
            "rev-1",
            "a",
            "gen-20261125-101500-3f9a1b__CardRep_3_CareManagement_3_MaternalDeath__syn_CareManagement_3_MaternalDeathOrInjuryLowRiskPregnancy_1__v2",
            &"x".repeat(200),
        ] {
            assert_eq!(check_id("run id", id), Ok(()), "{id}");
        }
    }

    #[test]
    fn paths_dots_and_odd_characters_are_refused_with_a_reason() {
        let msg = |id: &str| check_id("run id", id).unwrap_err().to_string();
        assert!(msg("../../../../outside/x").contains("path separator ('/')"));
        assert!(msg("/tmp/x").contains("path separator ('/')"));
        assert!(msg("..\\x").contains("path separator ('\\')"));
        assert!(msg("..").contains("starts with a dot"));
        assert!(msg(".hidden").contains("starts with a dot"));
        assert!(msg("").contains("is empty"));
        assert!(msg("a b").contains("U+0020"));
        assert!(msg("a\0b").contains("U+0000"));
        assert!(msg("é").contains("'é'"));
        assert!(msg("C:x").contains("':'"));
        assert!(msg(&"x".repeat(201)).contains("201 characters"));
        assert!(msg("../x").starts_with("the run id \"../x\""));
    }
}
