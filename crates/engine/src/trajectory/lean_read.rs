//! Decoding one `trajectories.jsonl` line straight into [`TrajectoryFacts`], without building the
//! full [`super::Trajectory`] (transcript text, extension maps, untagged turns buffered twice).
//!
//! This reader only ever says "yes" to lines the full decoder accepts as well: every field the
//! full decoder types is checked against the same type here, every other value is still parsed
//! as JSON (numbers in range, valid escapes), and anything unusual (a repeated field, an enum
//! written as an object, a known field with an unexpected shape) is refused. A refusal means
//! "not sure", never "invalid": the caller then runs the full decoder on the line, which either
//! accepts it or explains exactly what is wrong. Tests compare both readers on many variants.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::facts::TrajectoryFacts;
use super::{Action, InfoStatus};
use crate::case::Verdict;

/// Fill `facts` from one JSON line. `Ok` means the full decoder accepts the line too and
/// `facts` holds what it would give; `Err` only means this reader is not sure.
pub fn read_line<'a>(line: &'a str, facts: &mut TrajectoryFacts<'a>) -> Result<(), serde_json::Error> {
    facts.clear();
    let mut de = serde_json::Deserializer::from_str(line);
    TrajectorySeed { facts }.deserialize(&mut de)?;
    de.end()
}

/// Marks each known field of one object as seen, refusing a second occurrence.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn first<E: de::Error>(&mut self, bit: u32) -> Result<(), E> {
        if self.0 & bit != 0 {
            return Err(E::custom("a field appears twice"));
        }
        self.0 |= bit;
        Ok(())
    }
    fn has(&self, bit: u32) -> bool {
        self.0 & bit != 0
    }
}

fn unsure<E: de::Error>(what: &str) -> E {
    E::custom(format_args!("the lean reader leaves {what} to the full decoder"))
}

// ---------- leaf values ----------

/// A JSON string, borrowed from the line when it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A JSON string whose content is not needed (checked, not kept).
struct AnyText;

impl<'de> de::Deserialize<'de> for AnyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(AnyText)
            }
        }
        d.deserialize_str(V)
    }
}

/// Any JSON value, parsed as fully as `serde_json::Value` parses it, then dropped.
/// (`IgnoredAny` would skip numbers without checking their range.)
struct AnyJson;

impl<'de> de::Deserialize<'de> for AnyJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyJsonVisitor).map(|_| AnyJson)
    }
}

/// Accepts any value; gives the value itself when it is a non-negative integer (what
/// `Value::as_u64` would give), else 0.
struct AnyJsonVisitor;

impl<'de> Visitor<'de> for AnyJsonVisitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, v: i64) -> Result<u64, E> {
        Ok(u64::try_from(v).unwrap_or(0))
    }
    fn visit_u64<E>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }
    fn visit_f64<E>(self, _: f64) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_str<E>(self, _: &str) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_unit<E>(self) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_none<E>(self) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        while seq.next_element::<AnyJson>()?.is_some() {}
        Ok(0)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        while map.next_key::<AnyJson>()?.is_some() {
            map.next_value::<AnyJson>()?;
        }
        Ok(0)
    }
}

/// The `repeat` extension field: any JSON value; its count when it is a non-negative integer.
struct RepeatValue(u64);

impl<'de> de::Deserialize<'de> for RepeatValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyJsonVisitor).map(RepeatValue)
    }
}

/// Appends the strings of a JSON array to a list (null is refused, as for `Vec<String>`).
struct AppendStrings<'l, 'a>(&'l mut Vec<Cow<'a, str>>);

impl<'de> DeserializeSeed<'de> for AppendStrings<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for AppendStrings<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(Text(s)) = seq.next_element()? {
            self.0.push(s);
        }
        Ok(())
    }
}

/// `Option<Vec<String>>`: null adds nothing.
struct AppendOptionalStrings<'l, 'a>(&'l mut Vec<Cow<'a, str>>);

impl<'de> DeserializeSeed<'de> for AppendOptionalStrings<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for AppendOptionalStrings<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings or null")
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        AppendStrings(self.0).deserialize(d)
    }
}

/// The position of a string among `names` (an enum in its plain string form); any other
/// string, or an enum written another way, is left to the full decoder.
fn name_position<'de, D: Deserializer<'de>>(d: D, names: &'static [&'static str]) -> Result<usize, D::Error> {
    struct V(&'static [&'static str]);
    impl<'de> Visitor<'de> for V {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "one of {:?}", self.0)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<usize, E> {
            self.0.iter().position(|n| *n == s).ok_or_else(|| unsure("an unknown name"))
        }
    }
    d.deserialize_str(V(names))
}

/// An eval turn's `action` (null is handled by `Option`).
struct ActionName(Action);

impl<'de> de::Deserialize<'de> for ActionName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = name_position(d, &["ASK", "ANSWER"])?;
        Ok(ActionName(if i == 0 { Action::Ask } else { Action::Answer }))
    }
}

/// An info turn's `status`.
struct StatusName(InfoStatus);

impl<'de> de::Deserialize<'de> for StatusName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let status = match name_position(d, &["answered", "refused_too_vague", "unknown"])? {
            0 => InfoStatus::Answered,
            1 => InfoStatus::RefusedTooVague,
            _ => InfoStatus::Unknown,
        };
        Ok(StatusName(status))
    }
}

/// A turn's `role`: whether it is "info" (else "eval").
struct InfoRole(bool);

impl<'de> de::Deserialize<'de> for InfoRole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        name_position(d, &["eval", "info"]).map(|i| InfoRole(i == 1))
    }
}

// ---------- objects ----------

const RUN_ID: u32 = 1;
const MODEL: u32 = 2;
const CASE_ID: u32 = 4;
const TURNS: u32 = 8;
const FINAL: u32 = 16;
const JUDGE: u32 = 32;
const USAGE: u32 = 64;
const ERROR: u32 = 128;

/// The whole trajectory object.
struct TrajectorySeed<'l, 'a> {
    facts: &'l mut TrajectoryFacts<'a>,
}

impl<'de> DeserializeSeed<'de> for TrajectorySeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TrajectorySeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a trajectory object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let facts = self.facts;
        let mut seen = Seen::default();
        while let Some(Text(key)) = map.next_key()? {
            match key.as_ref() {
                "run_id" => {
                    seen.first(RUN_ID)?;
                    map.next_value::<AnyText>()?;
                }
                "model" => {
                    seen.first(MODEL)?;
                    facts.model = map.next_value::<Text>()?.0;
                }
                "case_id" => {
                    seen.first(CASE_ID)?;
                    facts.case_id = map.next_value::<Text>()?.0;
                }
                "turns" => {
                    seen.first(TURNS)?;
                    map.next_value_seed(TurnsSeed { facts: &mut *facts })?;
                }
                "final" => {
                    seen.first(FINAL)?;
                    map.next_value_seed(FinalSeed { facts: &mut *facts })?;
                }
                "judge" => {
                    seen.first(JUDGE)?;
                    map.next_value_seed(JudgeSeed { facts: &mut *facts })?;
                }
                "usage" => {
                    seen.first(USAGE)?;
                    facts.completion_tokens = map.next_value_seed(UsageSeed)?;
                }
                "error" => {
                    seen.first(ERROR)?;
                    map.next_value::<Option<AnyText>>()?;
                }
                // An extension field; when repeated, the last one counts (as in the full decoder's map).
                "repeat" => facts.repeat = map.next_value::<RepeatValue>()?.0,
                _ => {
                    map.next_value::<AnyJson>()?;
                }
            }
        }
        if !(seen.has(RUN_ID) && seen.has(MODEL) && seen.has(CASE_ID) && seen.has(TURNS)) {
            return Err(unsure("a missing required field"));
        }
        Ok(())
    }
}

/// `turns`: a list of eval and info turns.
struct TurnsSeed<'l, 'a> {
    facts: &'l mut TrajectoryFacts<'a>,
}

impl<'de> DeserializeSeed<'de> for TurnsSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TurnsSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of turns")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(TurnSeed { facts: &mut *self.facts })?.is_some() {}
        Ok(())
    }
}

const ROLE: u32 = 1;
const RAW: u32 = 2;
const ACTION: u32 = 4;
const ASK_QUESTION: u32 = 8;
const STATUS: u32 = 16;
const ANSWER: u32 = 32;
const FIELDS_USED: u32 = 64;

/// One turn. The full decoder tries an eval turn first, then an info turn; the role decides
/// which one can match. Here every known field must have its type whatever the role, which
/// is stricter than needed and therefore safe.
struct TurnSeed<'l, 'a> {
    facts: &'l mut TrajectoryFacts<'a>,
}

impl<'de> DeserializeSeed<'de> for TurnSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TurnSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a turn object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let facts = self.facts;
        let recovered_before = facts.recovered.len();
        let mut seen = Seen::default();
        let mut is_info = false;
        let mut action = None;
        let mut info_status = None;
        while let Some(Text(key)) = map.next_key()? {
            match key.as_ref() {
                "role" => {
                    seen.first(ROLE)?;
                    is_info = map.next_value::<InfoRole>()?.0;
                }
                "raw" => {
                    seen.first(RAW)?;
                    map.next_value::<AnyText>()?;
                }
                "action" => {
                    seen.first(ACTION)?;
                    action = map.next_value::<Option<ActionName>>()?.map(|a| a.0);
                }
                "ask_question" => {
                    seen.first(ASK_QUESTION)?;
                    map.next_value::<Option<AnyText>>()?;
                }
                "status" => {
                    seen.first(STATUS)?;
                    info_status = Some(map.next_value::<StatusName>()?.0);
                }
                "answer" => {
                    seen.first(ANSWER)?;
                    map.next_value::<AnyText>()?;
                }
                "fields_used" => {
                    seen.first(FIELDS_USED)?;
                    map.next_value_seed(AppendStrings(&mut facts.recovered))?;
                }
                _ => {
                    map.next_value::<AnyJson>()?;
                }
            }
        }
        if !seen.has(ROLE) {
            return Err(unsure("a turn without a role"));
        }
        let answered = if is_info {
            // An info turn needs its status.
            info_status.ok_or_else(|| unsure::<A::Error>("an info turn without a status"))? == InfoStatus::Answered
        } else {
            facts.asks += u64::from(action == Some(Action::Ask));
            false
        };
        if !answered {
            facts.recovered.truncate(recovered_before);
        }
        Ok(())
    }
}

const FINAL_VERDICT: u32 = 1;
const TARGETED_CLAUSE: u32 = 2;
const EVIDENCE: u32 = 4;
const RATIONALE: u32 = 8;

/// `final`: null or the parsed ANSWER.
struct FinalSeed<'l, 'a> {
    facts: &'l mut TrajectoryFacts<'a>,
}

impl<'de> DeserializeSeed<'de> for FinalSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for FinalSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a final answer object or null")
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let facts = self.facts;
        let mut seen = Seen::default();
        while let Some(Text(key)) = map.next_key()? {
            match key.as_ref() {
                "final_verdict" => {
                    seen.first(FINAL_VERDICT)?;
                    facts.verdict = map.next_value::<Option<Text>>()?.and_then(|Text(v)| Verdict::parse(&v));
                }
                "targeted_clause" => {
                    seen.first(TARGETED_CLAUSE)?;
                    facts.clause = map.next_value::<Option<Text>>()?.map(|Text(c)| c);
                }
                "clause_and_guidance_evidence" => {
                    seen.first(EVIDENCE)?;
                    map.next_value_seed(AppendOptionalStrings(&mut facts.evidence))?;
                }
                "rationale" => {
                    seen.first(RATIONALE)?;
                    facts.has_rationale = map.next_value::<Option<Text>>()?.is_some_and(|Text(r)| !r.trim().is_empty());
                }
                _ => {
                    map.next_value::<AnyJson>()?;
                }
            }
        }
        Ok(())
    }
}

/// `judge`: null or `{"hits": [...]}`.
struct JudgeSeed<'l, 'a> {
    facts: &'l mut TrajectoryFacts<'a>,
}

impl<'de> DeserializeSeed<'de> for JudgeSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for JudgeSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a judge object or null")
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let facts = self.facts;
        let mut seen = Seen::default();
        while let Some(Text(key)) = map.next_key()? {
            if key == "hits" {
                seen.first(1)?;
                map.next_value_seed(AppendStrings(&mut facts.hits))?;
            } else if key == "judge_error" {
                facts.judge_failed = true;
                map.next_value::<AnyJson>()?;
            } else {
                map.next_value::<AnyJson>()?;
            }
        }
        facts.judged = true;
        Ok(())
    }
}

/// `usage`: an object (null is refused, as by the full decoder); gives completion tokens.
struct UsageSeed;

impl<'de> DeserializeSeed<'de> for UsageSeed {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for UsageSeed {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a usage object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let mut seen = Seen::default();
        let mut completion = 0;
        while let Some(Text(key)) = map.next_key()? {
            match key.as_ref() {
                "prompt_tokens" => {
                    seen.first(1)?;
                    map.next_value::<u64>()?;
                }
                "completion_tokens" => {
                    seen.first(2)?;
                    completion = map.next_value::<u64>()?;
                }
                _ => {
                    map.next_value::<AnyJson>()?;
                }
            }
        }
        Ok(completion)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::metrics::synthetic_benchmark;
    use crate::trajectory::Trajectory;

    /// The property the reader promises: whenever it accepts a line, the full decoder accepts it
    /// too and gives the same facts. Returns whether the lean reader accepted.
    fn check(line: &str) -> bool {
        let mut facts = TrajectoryFacts::default();
        let lean = read_line(line, &mut facts).is_ok();
        if lean {
            let full: Trajectory = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("lean reader accepted a line the full decoder refuses ({e}): {line}"));
            assert_eq!(facts, TrajectoryFacts::of(&full), "different facts for {line}");
        }
        lean
    }

    /// Whether the full decoder accepts the line.
    fn full_accepts(line: &str) -> bool {
        serde_json::from_str::<Trajectory>(line).is_ok()
    }

    fn base_lines() -> Vec<Value> {
        let (_, ts) = synthetic_benchmark(60, 2, 5);
        ts.iter().map(|t| serde_json::to_value(t).unwrap()).collect()
    }

    /// A trajectory with every kind of turn and a filled final answer and judge.
    fn rich() -> Value {
        json!({
            "run_id": "r", "model": "m", "case_id": "c",
            "turns": [
                {"role": "eval", "raw": "ASK x", "action": "ASK", "ask_question": "q?"},
                {"role": "info", "status": "answered", "answer": "a", "fields_used": ["e1", "e2", "e1"]},
                {"role": "eval", "raw": "ASK y", "action": "ASK", "ask_question": null},
                {"role": "info", "status": "refused_too_vague", "answer": "", "fields_used": ["e3"]},
                {"role": "eval", "raw": "ANSWER", "action": "ANSWER"}
            ],
            "final": {"final_verdict": "Reportable", "targeted_clause": "Clause A",
                      "clause_and_guidance_evidence": ["A", "B", "A"], "rationale": "because"},
            "judge": {"hits": ["c1", "c2"]},
            "usage": {"prompt_tokens": 10, "completion_tokens": 20},
            "error": null
        })
    }

    #[test]
    fn accepts_written_trajectories_and_gives_the_full_decoders_facts() {
        for v in base_lines().into_iter().chain([rich()]) {
            assert!(check(&v.to_string()), "refused {v}");
        }
    }

    #[test]
    fn reads_escaped_text_extension_fields_and_the_repeat_index() {
        let mut v = rich();
        v["model"] = json!("m \"quoted\" \u{e9}");
        v["final"]["targeted_clause"] = json!("Clause\nA");
        v["turns"][1]["fields_used"] = json!(["e\\1"]);
        v["turns"][0]["latency_ms"] = json!(12);
        v["turns"][0]["raw"] = json!("line one\nline two \u{1F600}");
        v["final"]["parse_notes"] = json!({"nested": [1, 2.5, -3, null, true]});
        v["cost_usd"] = json!(0.25);
        for (repeat, expected) in [(json!(3), 3), (json!(-1), 0), (json!(2.0), 0), (json!("1"), 0), (json!(null), 0)] {
            v["repeat"] = repeat;
            let line = v.to_string();
            assert!(check(&line), "refused {line}");
            let mut facts = TrajectoryFacts::default();
            read_line(&line, &mut facts).unwrap();
            assert_eq!(facts.repeat, expected);
            assert_eq!(facts.model, "m \"quoted\" \u{e9}");
        }
        // Written by hand: \u escapes, including a surrogate pair.
        let line = r#"{"run_id":"r","model":"m\u00e9","case_id":"c","turns":[],"final":{"final_verdict":"Uncertain","rationale":"\ud83d\ude00"}}"#;
        assert!(check(line));
    }

    /// Raw JSON texts to put in place of a field's value.
    const VALUES: &[&str] = &[
        "null",
        "true",
        "0",
        "7",
        "-1",
        "1.5",
        "1e400",
        "-0",
        "18446744073709551616",
        "\"\"",
        "\"x\"",
        "\"ASK\"",
        "\"ANSWER\"",
        "\"answered\"",
        "\"unknown\"",
        "\"eval\"",
        "\"info\"",
        "\"Reportable\"",
        "\"\\ud800\"",
        "\"\\u0041SK\"",
        "[]",
        "[\"a\"]",
        "[\"a\",\"a\"]",
        "[1]",
        "[null]",
        "{}",
        "{\"eval\":null}",
        "{\"ASK\":null}",
        "{\"hits\":[\"x\"]}",
        "[[[[1e999]]]]",
        "{\"a\":{\"b\":\"\\ud800\"}}",
    ];

    fn with_placeholder(mut v: Value, path: &[&str], key: &str) -> Option<Value> {
        let mut at = &mut v;
        for p in path {
            at = match p.parse::<usize>() {
                Ok(i) => at.get_mut(i)?,
                Err(_) => at.get_mut(*p)?,
            };
        }
        at.as_object_mut()?.insert(key.to_string(), json!("@@VALUE@@"));
        Some(v)
    }

    /// Every known field (and an unknown one) of every object, replaced by every value in
    /// `VALUES`, removed, or given twice; none of these lines may fool the lean reader.
    #[test]
    fn never_accepts_what_the_full_decoder_refuses() {
        let objects: &[(&[&str], &[&str])] = &[
            (&[], &["run_id", "model", "case_id", "turns", "final", "judge", "usage", "error", "repeat", "other"]),
            (&["turns", "0"], &["role", "raw", "action", "ask_question", "status", "answer", "fields_used", "other"]),
            (&["turns", "1"], &["role", "raw", "action", "ask_question", "status", "answer", "fields_used", "other"]),
            (&["final"], &["final_verdict", "targeted_clause", "clause_and_guidance_evidence", "rationale", "other"]),
            (&["judge"], &["hits", "other"]),
            (&["usage"], &["prompt_tokens", "completion_tokens", "other"]),
        ];
        let (mut accepted, mut valid) = (0, 0);
        for (path, keys) in objects {
            for key in *keys {
                for raw in VALUES {
                    let v = with_placeholder(rich(), path, key).unwrap();
                    let line = v.to_string().replace("\"@@VALUE@@\"", raw);
                    accepted += usize::from(check(&line));
                    valid += usize::from(full_accepts(&line));
                    // The same field twice: the original value and the new one.
                    let v = with_placeholder(rich(), path, "@@TWICE@@").unwrap();
                    let line = v.to_string().replace("\"@@TWICE@@\":\"@@VALUE@@\"", &format!("\"{key}\":{raw}"));
                    accepted += usize::from(check(&line));
                    valid += usize::from(full_accepts(&line));
                }
                let mut v = rich();
                let mut at = &mut v;
                for p in *path {
                    at = match p.parse::<usize>() {
                        Ok(i) => &mut at[i],
                        Err(_) => &mut at[*p],
                    };
                }
                if let Some(o) = at.as_object_mut() {
                    o.shift_remove(*key);
                }
                accepted += usize::from(check(&v.to_string()));
                valid += usize::from(full_accepts(&v.to_string()));
            }
        }
        // Whole lines that are not trajectories at all.
        for line in ["", "null", "[]", "{}", "{\"run_id\":\"r\"}", "[\"r\",\"m\",\"c\",[]]", "{\"a\":1} x", "{"] {
            assert!(!check(line) && !full_accepts(line), "{line}");
        }
        // Most valid variants read lean. The others (about a quarter here) went to the full
        // decoder: an eval turn carrying an info turn's field with an odd type or the other way
        // round, and enums written as objects; trajectories written by this app have neither.
        assert!(accepted * 10 > valid * 6, "the lean reader accepted {accepted} of {valid} valid variants");
    }

    #[test]
    fn an_info_turn_counts_its_fields_only_when_answered() {
        let mut facts = TrajectoryFacts::default();
        let line = rich().to_string();
        read_line(&line, &mut facts).unwrap();
        assert_eq!(facts.recovered, vec!["e1", "e2", "e1"]);
        assert_eq!(facts.asks, 2);
        assert_eq!(facts.verdict, Some(Verdict::Reportable));
        assert!(facts.has_rationale && facts.judged);
        assert_eq!(facts.completion_tokens, 20);
    }
}
