//! Whether a run that went through every item still produced too little to rely on: when more
//! than half of its finished items came back unusable (a reply that could not be read), the run
//! ends in a warning state that says how many and why, instead of a plain "finished". The rule
//! and its words live here so every kind of run says it the same way.

use serde::{Deserialize, Serialize};

/// A finished run whose results are mostly unusable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunProblems {
    /// Finished items that came back unusable.
    pub unusable: u64,
    /// Finished items in all.
    pub finished: u64,
    /// Why they were unusable, in plain words.
    pub reason: String,
    /// The whole warning as one sentence ("Finished with problems: 3 of 3 …").
    pub message: String,
}

/// What a kind of run calls its unusable items, and why they are unusable.
#[derive(Debug, Clone, Copy)]
pub struct ProblemWords {
    /// "cases ended on a reply that could not be read"
    pub what: &'static str,
    /// "the model did not answer in the JSON the task asks for"
    pub reason: &'static str,
    /// What to do about it.
    pub advice: &'static str,
}

/// The warning for a run with `unusable` of `finished` items unusable, when they are more than
/// half of them; `None` otherwise (a few unreadable replies are part of measuring a model).
pub fn assess(finished: u64, unusable: u64, words: ProblemWords) -> Option<RunProblems> {
    if unusable == 0 || unusable.saturating_mul(2) <= finished {
        return None;
    }
    let message =
        format!("Finished with problems: {unusable} of {finished} {} — {}. {}", words.what, words.reason, words.advice);
    Some(RunProblems { unusable, finished, reason: words.reason.to_string(), message })
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: ProblemWords = ProblemWords { what: "replies could not be read", reason: "not JSON", advice: "Check it." };

    #[test]
    fn more_than_half_unusable_is_a_warning_with_counts_and_reason() {
        let p = assess(3, 3, W).unwrap();
        assert_eq!(p.message, "Finished with problems: 3 of 3 replies could not be read — not JSON. Check it.");
        assert_eq!((p.unusable, p.finished), (3, 3));
        assert!(assess(4, 3, W).is_some());
    }

    #[test]
    fn half_or_fewer_unusable_is_no_warning() {
        assert_eq!(assess(4, 2, W), None);
        assert_eq!(assess(10, 0, W), None);
        assert_eq!(assess(0, 0, W), None);
    }
}
