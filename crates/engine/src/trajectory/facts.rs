//! What scoring reads from one trajectory, and nothing else: the model and case it belongs to,
//! its repeat index, and the per-case quantities of FORMATS.md "Trajectories" (ŷ, ĉ, Ĝ, whether
//! r̂ is empty, the judge's hits, the ASK count, Ê′ and completion tokens).
//!
//! The same facts come from a decoded [`Trajectory`] ([`TrajectoryFacts::fill_from`]) or straight
//! from a JSONL line ([`super::lean_read`]), so both paths score through one piece of code. A
//! `TrajectoryFacts` is meant to be reused from one trajectory to the next: filling it clears
//! the lists but keeps their memory.

use std::borrow::Cow;

use super::{InfoStatus, Trajectory, Turn};
use crate::case::Verdict;

/// The scoring-relevant content of one trajectory, borrowed from its text where possible.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrajectoryFacts<'a> {
    pub model: Cow<'a, str>,
    pub case_id: Cow<'a, str>,
    /// The extension field `repeat` when it is a non-negative integer, else 0.
    pub repeat: u64,
    /// ŷ: `final.final_verdict` when it is exactly one of the three verdicts.
    pub verdict: Option<Verdict>,
    /// ĉ: `final.targeted_clause`.
    pub clause: Option<Cow<'a, str>>,
    /// Ĝ as written (duplicates possible): `final.clause_and_guidance_evidence`.
    pub evidence: Vec<Cow<'a, str>>,
    /// Whether `final.rationale` is present and not blank.
    pub has_rationale: bool,
    /// Whether the trajectory carries a judge result.
    pub judged: bool,
    /// Whether that judge result records that the judge gave no usable judgement (`judge_error`).
    pub judge_failed: bool,
    /// `judge.hits` as written (empty when not judged).
    pub hits: Vec<Cow<'a, str>>,
    /// Eval turns whose action is ASK.
    pub asks: u64,
    /// Ê′ as written: `fields_used` of every answered info turn, in order (duplicates possible).
    pub recovered: Vec<Cow<'a, str>>,
    pub completion_tokens: u64,
}

impl<'a> TrajectoryFacts<'a> {
    /// Forget the previous trajectory, keeping the lists' memory.
    pub fn clear(&mut self) {
        self.model = Cow::Borrowed("");
        self.case_id = Cow::Borrowed("");
        self.repeat = 0;
        self.verdict = None;
        self.clause = None;
        self.evidence.clear();
        self.has_rationale = false;
        self.judged = false;
        self.judge_failed = false;
        self.hits.clear();
        self.asks = 0;
        self.recovered.clear();
        self.completion_tokens = 0;
    }

    /// Take the facts of a decoded trajectory.
    pub fn fill_from(&mut self, t: &'a Trajectory) {
        self.clear();
        self.model = Cow::Borrowed(&t.model);
        self.case_id = Cow::Borrowed(&t.case_id);
        self.repeat = t.repeat_index();
        self.verdict = t.predicted_verdict();
        self.clause = t.predicted_clause().map(Cow::Borrowed);
        if let Some(cited) = t.final_answer.as_ref().and_then(|f| f.clause_and_guidance_evidence.as_ref()) {
            self.evidence.extend(cited.iter().map(|s| Cow::Borrowed(s.as_str())));
        }
        self.has_rationale = t.rationale().is_some_and(|r| !r.trim().is_empty());
        if let Some(judge) = &t.judge {
            self.judged = true;
            self.judge_failed = judge.extra.contains_key("judge_error");
            self.hits.extend(judge.hits.iter().map(|s| Cow::Borrowed(s.as_str())));
        }
        self.asks = t.ask_count() as u64;
        for turn in &t.turns {
            if let Turn::Info(info) = turn {
                if info.status == InfoStatus::Answered {
                    self.recovered.extend(info.fields_used.iter().map(|s| Cow::Borrowed(s.as_str())));
                }
            }
        }
        self.completion_tokens = t.usage.completion_tokens;
    }

    /// The facts of a decoded trajectory, in a new value.
    pub fn of(t: &'a Trajectory) -> Self {
        let mut facts = TrajectoryFacts::default();
        facts.fill_from(t);
        facts
    }
}
