//! Stored runs shown together: whether they can be compared (what differs in how they were made,
//! keyed by the name the metrics report gives each run's model), and which paired tests must be
//! refused because two runs were made on different case sets.

use std::collections::HashMap;

use super::examples;
use crate::context::Engine;
use crate::error::ApiResult;
use crate::metrics::MetricsReport;
use crate::protocol::{comparability, Comparability, RunProvenance};

use super::repo;

/// What a run was made on, for the paired tests.
struct RunCases {
    run_id: String,
    /// The recorded case-set fingerprint (none for imported and older runs).
    fingerprint: Option<String>,
    /// Its case ids, sorted.
    ids: Vec<String>,
    count: usize,
}

/// The name the metrics report gives each run's model: the model, with the run id in brackets
/// when several of the runs are of the same model (as `runs_for_metrics` names them).
pub(crate) fn report_labels(models: &[(&str, &str)]) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, m) in models {
        *count.entry(m).or_default() += 1;
    }
    models
        .iter()
        .map(|(run, m)| if count.get(m).copied().unwrap_or(0) > 1 { format!("{m} [{run}]") } else { m.to_string() })
        .collect()
}

/// Why two runs cannot be paired case by case, in a sentence; none when they can.
fn paired_refusal(a: &RunCases, b: &RunCases) -> Option<String> {
    let (same, edited) = match (&a.fingerprint, &b.fingerprint) {
        (Some(x), Some(y)) => (x == y, true),
        _ => (a.ids == b.ids, false),
    };
    if same {
        return None;
    }
    let sizes = if a.count != b.count {
        format!("{} and {} cases", a.count, b.count)
    } else if edited {
        format!("{} cases each, but not the same ones, or some were edited between the runs", a.count)
    } else {
        format!("{} cases each, but not the same ones", a.count)
    };
    Some(format!(
        "Runs {} and {} were made on different case sets ({sizes}), so a paired test cannot compare them case by case. Compare runs made on the same cases.",
        a.run_id, b.run_id
    ))
}

impl Engine {
    /// Whether stored evaluation runs can be compared: what differs in how they were made. Each
    /// mark names the run's model as the metrics report does.
    pub fn runs_comparability(&self, run_ids: &[String]) -> ApiResult<Comparability> {
        let runs: Vec<_> = run_ids.iter().map(|r| self.evaluation_run(r)).collect::<ApiResult<_>>()?;
        let mut provenance: Vec<(String, Option<RunProvenance>)> = Vec::with_capacity(runs.len());
        for r in &runs {
            let p = match &r.config.provenance {
                Some(p) => Some(p.clone()),
                // Example runs stored before runs recorded their provenance: the same as new ones.
                None if r.config.is_example() => Some(self.example_provenance()?),
                None => None,
            };
            provenance.push((r.run_id.clone(), p));
        }
        let mut c = comparability(&provenance);
        let models: Vec<(&str, &str)> = runs.iter().map(|r| (r.run_id.as_str(), r.config.model.as_str())).collect();
        for (mark, label) in c.marks.iter_mut().zip(report_labels(&models)) {
            mark.model = label;
        }
        Ok(c)
    }

    /// Add to a report of these runs whether they can be compared, and move the paired tests
    /// between runs made on different case sets into its refused pairs. Runs that record their
    /// case set are compared by its fingerprint (which also sees edited cases); otherwise by
    /// their case ids.
    pub(crate) fn compare_runs_in(&self, run_ids: &[String], report: &mut MetricsReport) -> ApiResult<()> {
        let c = self.runs_comparability(run_ids)?;
        let mut by_model: HashMap<String, RunCases> = HashMap::new();
        for mark in &c.marks {
            let run = self.evaluation_run(&mark.run_id)?;
            let mut ids = self.store().with_read(|conn| repo::case_ids(conn, &mark.run_id))?;
            ids.sort();
            ids.dedup();
            let recorded = run.config.provenance.as_ref();
            by_model.insert(
                mark.model.clone(),
                RunCases {
                    run_id: mark.run_id.clone(),
                    fingerprint: recorded.map(|p| p.case_set_fingerprint.clone()),
                    count: recorded.map(|p| p.case_count).unwrap_or(ids.len()),
                    ids,
                },
            );
        }
        report.refuse_pairs(|a, b| match (by_model.get(a), by_model.get(b)) {
            (Some(a), Some(b)) => paired_refusal(a, b),
            _ => None,
        });
        for mark in &c.marks {
            if self.evaluation_run(&mark.run_id)?.config.is_simulation() && !report.simulations.contains(&mark.model) {
                report.simulations.push(mark.model.clone());
            }
        }
        report.comparability = Some(c);
        Ok(())
    }

    /// The provenance of the example runs: the studio protocol, no prompts and no judge (no model
    /// is called), and the demo cases they are made on.
    pub(crate) fn example_provenance(&self) -> ApiResult<RunProvenance> {
        let filter = crate::case::repo::CaseFilter { origin: Some("demo".into()), ..Default::default() };
        let cases = self.cases_all(&filter)?;
        self.provenance_of(
            crate::protocol::Protocol::Studio,
            Default::default(),
            &cases,
            Some(examples::EXAMPLE_JUDGE.to_string()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, fp: Option<&str>, ids: &[&str]) -> RunCases {
        RunCases {
            run_id: id.into(),
            fingerprint: fp.map(String::from),
            ids: ids.iter().map(|s| s.to_string()).collect(),
            count: ids.len(),
        }
    }

    #[test]
    fn labels_name_the_run_only_when_a_model_repeats() {
        let l = report_labels(&[("r1", "gpt"), ("r2", "gpt"), ("r3", "claude")]);
        assert_eq!(l, ["gpt [r1]", "gpt [r2]", "claude"]);
    }

    #[test]
    fn pairs_are_refused_across_case_sets_in_a_plain_sentence() {
        let a = run("a", Some("f1"), &["c1", "c2"]);
        assert_eq!(paired_refusal(&a, &run("b", Some("f1"), &["c1", "c2"])), None);
        let fewer = paired_refusal(&a, &run("b", Some("f2"), &["c1"])).unwrap();
        assert!(fewer.starts_with("Runs a and b were made on different case sets (2 and 1 cases)"), "{fewer}");
        assert!(fewer.ends_with("Compare runs made on the same cases."));
        let edited = paired_refusal(&a, &run("b", Some("f2"), &["c1", "c2"])).unwrap();
        assert!(edited.contains("2 cases each") && edited.contains("edited"), "{edited}");
        // Without a recorded fingerprint on both sides, the case ids decide.
        assert_eq!(paired_refusal(&a, &run("imp", None, &["c1", "c2"])), None);
        let other = paired_refusal(&a, &run("imp", None, &["c1", "c3"])).unwrap();
        assert!(other.contains("2 cases each, but not the same ones)"), "{other}");
    }
}
