//! Whether runs shown side by side can be compared: the aspects of their provenance that differ,
//! a mark per run, and one plain sentence for the screen, the tables and the command line.

use serde::{Deserialize, Serialize};

use super::RunProvenance;

/// What is known of one run's difference from the others shown with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunMark {
    pub run_id: String,
    /// The run's model as the metrics report names it (the model, with the run id in brackets
    /// when several runs of one model are shown); empty when not known.
    #[serde(default)]
    pub model: String,
    /// `paper` or `studio`; none when the run does not record it.
    pub protocol: Option<String>,
    /// The aspects in which this run departs from the most common value among the runs shown
    /// (`protocol`, `prompts`, `policy edition`, `case set`, `judge`), each with its value.
    pub differs: Vec<String>,
    /// The run records no provenance (imported from a file, or made before runs recorded it).
    pub unrecorded: bool,
}

/// The verdict over a set of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Comparability {
    /// No recorded aspect differs.
    pub comparable: bool,
    /// The aspects that differ between runs (empty when comparable).
    pub differing: Vec<String>,
    /// One sentence saying what differs (and which runs record nothing); none when all is alike.
    pub sentence: Option<String>,
    /// One mark per run, in the order given.
    pub marks: Vec<RunMark>,
}

/// The mark put after a model's name in tables, charts and the command line when its run differs
/// from the others shown.
pub const DAGGER: &str = "†";

impl Comparability {
    /// The marks of runs that differ from the others (none when the runs are comparable).
    pub fn differing_marks(&self) -> impl Iterator<Item = &RunMark> {
        self.marks.iter().filter(|m| !m.differs.is_empty())
    }

    /// Whether the model (as the report names it) is marked as differing.
    pub fn marks_model(&self, model: &str) -> bool {
        self.differing_marks().any(|m| m.model == model)
    }

    /// A model's name as tables and charts show it: with a dagger when its run differs.
    pub fn label(&self, model: &str) -> String {
        if self.marks_model(model) {
            format!("{model} {DAGGER}")
        } else {
            model.to_string()
        }
    }

    /// The note under tables and charts when the runs are not comparable: the sentence, then
    /// what each marked run differs in. None when they are comparable.
    pub fn note(&self) -> Option<String> {
        if self.comparable {
            return None;
        }
        let mut note =
            format!("{DAGGER} {}", self.sentence.as_deref().unwrap_or("These runs are not directly comparable."));
        let each: Vec<String> = self
            .differing_marks()
            .map(|m| {
                let name = if m.model.is_empty() { m.run_id.clone() } else { m.model.clone() };
                format!("{name} ({})", m.differs.join("; "))
            })
            .collect();
        if !each.is_empty() {
            note.push_str(&format!(" Marked: {}.", each.join("; ")));
        }
        Some(note)
    }
}

type Aspect = (&'static str, fn(&RunProvenance) -> String);

fn short(hash: &str) -> &str {
    hash.get(..10).unwrap_or(hash)
}

const ASPECTS: &[Aspect] = &[
    ("protocol", |p| p.protocol.to_string()),
    ("prompts", |p| p.prompt_versions.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(",")),
    ("policy edition", |p| {
        p.policy_editions
            .iter()
            .map(|e| format!("{} {} {}", e.policy, e.edition, short(&e.source_hash)))
            .collect::<Vec<_>>()
            .join("; ")
    }),
    ("case set", |p| format!("{} cases {}", p.case_count, short(&p.case_set_fingerprint))),
    ("judge", |p| p.judge_model.clone().unwrap_or_else(|| "none".into())),
];

/// How a run's value of an aspect is shown in its mark.
fn shown(aspect: &str, p: &RunProvenance, value: &str, common: &str) -> String {
    match aspect {
        "prompts" => {
            let other: std::collections::BTreeMap<&str, &str> =
                common.split(',').filter_map(|kv| kv.split_once('=')).collect();
            let changed: Vec<String> = p
                .prompt_versions
                .iter()
                .filter(|(n, v)| other.get(n.as_str()) != Some(&v.as_str()))
                .map(|(n, v)| format!("{n} {v}"))
                .collect();
            if changed.is_empty() {
                "prompts: fewer prompts than the others".into()
            } else {
                format!("prompts: {}", changed.join(", "))
            }
        }
        _ => format!("{aspect}: {value}"),
    }
}

fn join_words(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// Compare the provenance of runs shown together (`None`: the run records none).
pub fn comparability(runs: &[(String, Option<RunProvenance>)]) -> Comparability {
    let mut marks: Vec<RunMark> = runs
        .iter()
        .map(|(id, p)| RunMark {
            run_id: id.clone(),
            model: String::new(),
            protocol: p.as_ref().map(|p| p.protocol.to_string()),
            differs: Vec::new(),
            unrecorded: p.is_none(),
        })
        .collect();
    let mut differing = Vec::new();
    for (aspect, value_of) in ASPECTS {
        let values: Vec<Option<String>> = runs.iter().map(|(_, p)| p.as_ref().map(value_of)).collect();
        // The most common recorded value (ties: the first run's) is the reference.
        let mut counts: Vec<(&String, usize)> = Vec::new();
        for v in values.iter().flatten() {
            match counts.iter_mut().find(|(x, _)| *x == v) {
                Some(c) => c.1 += 1,
                None => counts.push((v, 1)),
            }
        }
        if counts.len() < 2 {
            continue;
        }
        let common = counts.iter().fold(counts[0], |best, c| if c.1 > best.1 { *c } else { best }).0.clone();
        differing.push(aspect.to_string());
        for (i, v) in values.iter().enumerate() {
            if let (Some(v), Some(p)) = (v, runs[i].1.as_ref()) {
                if *v != common {
                    marks[i].differs.push(shown(aspect, p, v, &common));
                }
            }
        }
    }
    let unrecorded: Vec<String> = marks.iter().filter(|m| m.unrecorded).map(|m| m.run_id.clone()).collect();
    let mut parts = Vec::new();
    if !differing.is_empty() {
        parts.push(format!("These runs differ in {}: compare their numbers with care.", join_words(&differing)));
    }
    if !unrecorded.is_empty() && runs.len() > 1 {
        parts.push(if unrecorded.len() == 1 {
            format!("Run {} does not record how it was made (imported, or made by an older version).", unrecorded[0])
        } else {
            format!(
                "Runs {} do not record how they were made (imported, or made by an older version).",
                join_words(&unrecorded)
            )
        });
    }
    Comparability {
        comparable: differing.is_empty(),
        differing,
        sentence: if parts.is_empty() { None } else { Some(parts.join(" ")) },
        marks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{PolicyEdition, Protocol};

    fn prov(protocol: Protocol, cases: &str, judge: &str) -> RunProvenance {
        RunProvenance {
            protocol,
            prompt_versions: [("eval_system".to_string(), "v1".to_string())].into_iter().collect(),
            policy_editions: vec![PolicyEdition {
                policy: "mn29".into(),
                edition: "summary".into(),
                source_hash: "abcdef0123456789".into(),
            }],
            library_fingerprint: "lib".into(),
            case_set_fingerprint: cases.into(),
            case_count: 90,
            judge_model: Some(judge.into()),
        }
    }

    #[test]
    fn alike_runs_are_comparable_and_say_nothing() {
        let c = comparability(&[
            ("a".into(), Some(prov(Protocol::Studio, "c1", "j"))),
            ("b".into(), Some(prov(Protocol::Studio, "c1", "j"))),
        ]);
        assert!(c.comparable && c.sentence.is_none());
        assert!(c.marks.iter().all(|m| m.differs.is_empty() && !m.unrecorded));
    }

    #[test]
    fn the_odd_run_out_is_marked_and_the_sentence_names_the_aspects() {
        let mut paper = prov(Protocol::Paper, "c1", "j");
        paper.prompt_versions.insert("eval_system".into(), "p1".into());
        let c = comparability(&[
            ("a".into(), Some(prov(Protocol::Studio, "c1", "j"))),
            ("b".into(), Some(paper)),
            ("c".into(), Some(prov(Protocol::Studio, "c2", "j"))),
        ]);
        assert!(!c.comparable);
        assert_eq!(c.differing, vec!["protocol", "prompts", "case set"]);
        let s = c.sentence.unwrap();
        assert!(s.contains("protocol, prompts and case set"), "{s}");
        assert!(c.marks[0].differs.is_empty());
        assert_eq!(c.marks[1].differs, vec!["protocol: paper", "prompts: eval_system p1"]);
        assert_eq!(c.marks[1].protocol.as_deref(), Some("paper"));
        assert_eq!(c.marks[2].differs.len(), 1);
        assert!(c.marks[2].differs[0].starts_with("case set: 90 cases c2"));
    }

    #[test]
    fn unrecorded_runs_are_named_but_do_not_make_a_difference() {
        let c = comparability(&[("a".into(), Some(prov(Protocol::Studio, "c1", "j"))), ("imp".into(), None)]);
        assert!(c.comparable);
        assert!(c.marks[1].unrecorded);
        assert!(c.sentence.unwrap().contains("Run imp does not record"));
        let alone = comparability(&[("imp".into(), None)]);
        assert!(alone.sentence.is_none());
    }
}
