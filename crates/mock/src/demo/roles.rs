//! Which role a request plays, told from stable phrases of its system prompt (the templates in
//! `prompts/`). A test below fails when a template no longer holds its phrase, so that a change
//! of wording cannot silently leave the demo model unable to recognise a role.

/// Every role of the application the demo model can play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The model under test (both protocols).
    Evaluated,
    InformationProvider,
    Judge,
    Instantiator,
    InstantiationVerifier,
    Narrator,
    Extractor,
    NarrativeVerifier,
    MissingNarrator,
    MissingVerifier,
    ClauseScreen,
    AuthorExtract,
    AuthorExtractCheck,
    DraftComplete,
    DraftUncertain,
    DraftMissing,
    AnchorPresort,
    AnchorTranslate,
    /// The model list's connectivity check ("Reply with the single word: …").
    ConnectivityCheck,
}

/// (template file, phrase of its system part, role). The first phrase found wins, so more
/// specific phrases come first.
pub const MARKERS: &[(&str, &str, Role)] = &[
    ("eval_system", "You act as the patient-safety officer", Role::Evaluated),
    ("eval_system_paper", "You are a patient-safety reviewer", Role::Evaluated),
    ("info_system", "You are a look-up service for the record", Role::InformationProvider),
    ("judge_system", "You review the written reasoning behind a reportability decision", Role::Judge),
    ("gen_instantiator", "You fill in the facts of one synthetic patient-safety event", Role::Instantiator),
    ("gen_instantiation_verifier", "You check one candidate fact record", Role::InstantiationVerifier),
    ("gen_missing_narrator", "You write the first, incomplete report", Role::MissingNarrator),
    ("gen_narrator", "You write the free-text description of one patient-safety event", Role::Narrator),
    ("gen_extractor", "fill a fixed set of fact slots from it", Role::Extractor),
    ("gen_narrative_verifier", "kept the facts it was written from", Role::NarrativeVerifier),
    ("gen_missing_verifier", "You check an intentionally incomplete description", Role::MissingVerifier),
    ("gen_clause_screen", "You screen one event's facts against every clause", Role::ClauseScreen),
    ("author_extract", "pick out, from a numbered list of the policy's sections", Role::AuthorExtract),
    ("author_extract_check", "You review a selection of policy sections", Role::AuthorExtractCheck),
    ("author_draft_uncertain", "You draft Uncertain clause cards", Role::DraftUncertain),
    ("author_draft_complete", "You draft clause cards for a patient-safety test library", Role::DraftComplete),
    ("author_draft_missing", "You write missing-information variants", Role::DraftMissing),
    ("anchor_presort", "You sort short healthcare incident texts by topic", Role::AnchorPresort),
    ("anchor_translate", "You translate healthcare incident reports into English", Role::AnchorTranslate),
];

/// The role a request plays, from its system prompt (None: not one of the application's roles).
pub fn detect(system: &str) -> Option<Role> {
    if let Some((_, _, role)) = MARKERS.iter().find(|(_, phrase, _)| system.contains(phrase)) {
        return Some(*role);
    }
    if system.contains("Reply with the single word") {
        return Some(Role::ConnectivityCheck);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The system part of a template (above `<!-- user -->` where there is one).
    fn system_part(name: &str) -> String {
        let path = format!("{}/../../prompts/{name}.md", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        text.split("<!-- user -->").next().unwrap_or_default().to_string()
    }

    #[test]
    fn every_role_template_still_holds_the_phrase_the_demo_model_recognises_it_by() {
        for (file, phrase, role) in MARKERS {
            let system = system_part(file);
            assert!(
                system.contains(phrase),
                "prompts/{file}.md no longer contains \"{phrase}\": update demo::roles::MARKERS so the demo model still recognises it"
            );
            assert_eq!(detect(&system), Some(*role), "prompts/{file}.md is recognised as another role");
        }
    }
}
