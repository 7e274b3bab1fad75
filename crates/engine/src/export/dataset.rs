//! A dataset folder for the community: the cases as `data/{complete,missing,uncertain}.jsonl` (the
//! FORMATS.md case format, one file per case type), the clause cards they were built from in
//! `cards/`, and a `README.md` dataset card whose YAML header names the files, the features, the
//! counts, and the generation models and prompt versions, with the license left for the
//! publisher to fill in. A dataset hub that reads a YAML-headed README and JSONL files loads it as is.

use crate::util::format::{count, noun};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::card::io::export_file_stem;
use crate::case::repo::CaseFilter;
use crate::case::{Case, CaseType};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::util::files::write_atomic;

/// The case types in file order, with their file names.
pub const SPLITS: [(CaseType, &str); 3] =
    [(CaseType::Complete, "complete"), (CaseType::Missing, "missing"), (CaseType::Uncertain, "uncertain")];

/// The fields of a case record and their types, as the dataset card lists them.
const FEATURES: &[(&str, &str)] = &[
    ("case_id", "string"),
    ("case_type", "string"),
    ("policy", "string"),
    ("clause_id", "string"),
    ("clause_card_id", "string"),
    ("missing_variant_id", "string"),
    ("gold_verdict", "string"),
    ("gold_clause", "string"),
    ("gold_legal_basis", "list of string"),
    ("boundary_conditions", "list of {name, value, meaning}"),
    ("elements", "list of {name, field_type, meaning, value}"),
    ("masked_elements", "list of string"),
    ("narrative", "string"),
    ("anchor_id", "string"),
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DatasetExport {
    pub folder: String,
    /// Cases per split (`complete`, `missing`, `uncertain`).
    pub counts: IndexMap<String, usize>,
    pub cards: usize,
    /// Card ids the cases name that are not in the store (listed in the README).
    pub missing_cards: Vec<String>,
    pub files: Vec<String>,
}

/// Refuse a dataset folder that is a symbolic link, or whose `data` or `cards` folder is one: the
/// export would write wherever the link points, not into the folder that was chosen.
fn refuse_linked_folders(dir: &Path) -> ApiResult<()> {
    for (path, what) in
        [(dir.to_path_buf(), "The dataset folder"), (dir.join("data"), "The folder"), (dir.join("cards"), "The folder")]
    {
        let linked = std::fs::symlink_metadata(&path).map(|m| m.file_type().is_symlink()).unwrap_or(false);
        if linked {
            return Err(ApiError::invalid(format!(
                "{what} {} is a link to another place, so the export would write there instead of into the folder you \
                 chose. Nothing was written. Remove the link, or export to a new folder.",
                path.display()
            )));
        }
    }
    Ok(())
}

/// A YAML string scalar, always quoted.
fn y(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', " "))
}

struct Provenance {
    runs: Vec<String>,
    models: Vec<String>,
    prompt_versions: BTreeMap<String, String>,
    hand_written: usize,
}

impl Engine {
    fn dataset_provenance(&self, cases: &[Case]) -> Provenance {
        let mut p = Provenance { runs: vec![], models: vec![], prompt_versions: BTreeMap::new(), hand_written: 0 };
        for c in cases {
            match c.extra.get("generation_run_id").and_then(|v| v.as_str()) {
                Some(r) if !p.runs.iter().any(|x| x == r) => p.runs.push(r.to_string()),
                Some(_) => {}
                None => p.hand_written += 1,
            }
        }
        for r in &p.runs {
            let Ok(view) = self.generation_show(r) else { continue };
            let cfg = &view.config;
            for m in [Some(&cfg.model), Some(&cfg.verifier_model), cfg.screen_model.as_ref()].into_iter().flatten() {
                if !m.is_empty() && !p.models.contains(m) {
                    p.models.push(m.clone());
                }
            }
            for (k, v) in &cfg.prompt_versions {
                p.prompt_versions.insert(k.clone(), v.clone());
            }
        }
        p
    }

    /// Write the cases `filter` selects as a dataset folder at `dir` (created if needed; files of
    /// an earlier export there are replaced).
    pub fn cases_export_dataset(&self, dir: &Path, filter: &CaseFilter) -> ApiResult<DatasetExport> {
        let cases = self.cases_all(filter)?;
        if cases.is_empty() {
            return Err(ApiError::invalid("No case matches, so there is nothing to export."));
        }
        refuse_linked_folders(dir)?;
        for sub in ["data", "cards"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| {
                ApiError::invalid(format!("The folder {} could not be created: {e}", dir.join(sub).display()))
            })?;
        }
        // Again now that the folders exist: one may have been put there in between.
        refuse_linked_folders(dir)?;
        let mut files = Vec::new();
        let mut counts = IndexMap::new();
        for (t, name) in SPLITS {
            let part: Vec<Case> = cases.iter().filter(|c| c.case_type == t).cloned().collect();
            let rel = format!("data/{}.jsonl", export_file_stem(name));
            crate::case::io::write_cases(&dir.join(&rel), &part)?;
            counts.insert(name.to_string(), part.len());
            files.push(rel);
        }
        // The cards the cases were built from, at their current version.
        let mut card_ids: Vec<String> = cases.iter().map(|c| c.clause_card_id.clone()).collect();
        card_ids.sort();
        card_ids.dedup();
        let mut missing_cards = Vec::new();
        let mut written = 0;
        // File names already used, compared as Windows and macOS do (ignoring case): two ids that
        // make the same name ("a.b" and "a_b") get "-2", "-3"… rather than overwrite each other.
        let mut taken: HashSet<String> = HashSet::new();
        for id in &card_ids {
            match self.card_show(id, None) {
                Ok(d) => {
                    crate::util::ids::check_id("card", id).map_err(|e| ApiError::invalid(e.to_string()))?;
                    let stem = export_file_stem(id);
                    let mut name = stem.clone();
                    let mut n = 1;
                    while !taken.insert(name.to_lowercase()) {
                        n += 1;
                        name = format!("{stem}-{n}");
                    }
                    let rel = format!("cards/{name}.json");
                    write_atomic(&dir.join(&rel), crate::card::to_pretty(&d.card).as_bytes())?;
                    files.push(rel);
                    written += 1;
                }
                Err(_) => missing_cards.push(id.clone()),
            }
        }
        let readme = self.dataset_card(&cases, &counts, written, &missing_cards)?;
        write_atomic(&dir.join("README.md"), readme.as_bytes())?;
        files.push("README.md".into());
        Ok(DatasetExport { folder: dir.display().to_string(), counts, cards: written, missing_cards, files })
    }

    fn dataset_card(
        &self,
        cases: &[Case],
        counts: &IndexMap<String, usize>,
        cards: usize,
        missing_cards: &[String],
    ) -> ApiResult<String> {
        let policies: Vec<String> = {
            let mut p: Vec<String> = cases.iter().map(|c| c.policy.clone()).collect();
            p.sort();
            p.dedup();
            p
        };
        let policy_names: Vec<String> =
            policies.iter().map(|id| self.policy_show(id).map(|v| v.name).unwrap_or_else(|_| id.clone())).collect();
        let prov = self.dataset_provenance(cases);
        let mut per_clause: BTreeMap<String, [usize; 3]> = BTreeMap::new();
        for c in cases {
            let row = per_clause.entry(c.clause_id.clone()).or_default();
            let i = SPLITS.iter().position(|(t, _)| *t == c.case_type).unwrap_or(0);
            row[i] += 1;
        }
        let mut s = String::from("---\n");
        s.push_str("# Fill in the license under which you publish this dataset before sharing it.\n");
        s.push_str("license: \"\"\n");
        s.push_str(&format!("pretty_name: {}\n", y(&format!("PSEBench cases ({})", policy_names.join(", ")))));
        s.push_str("language:\n  - en\n");
        s.push_str("task_categories:\n  - text-classification\n");
        s.push_str("tags:\n  - patient-safety\n  - benchmark\n  - psebench\n");
        s.push_str("configs:\n  - config_name: default\n    data_files:\n");
        for (_, name) in SPLITS {
            s.push_str(&format!("      - split: {name}\n        path: data/{name}.jsonl\n"));
        }
        s.push_str("dataset_info:\n  features:\n");
        for (name, ty) in FEATURES {
            s.push_str(&format!("    - name: {name}\n      dtype: {}\n", y(ty)));
        }
        s.push_str("  splits:\n");
        for (name, n) in counts {
            s.push_str(&format!("    - name: {name}\n      num_examples: {n}\n"));
        }
        s.push_str("psebench:\n");
        s.push_str(&format!("  app_version: {}\n", y(crate::version())));
        s.push_str(&format!("  policies: [{}]\n", policies.iter().map(|p| y(p)).collect::<Vec<_>>().join(", ")));
        s.push_str(&format!("  clause_cards: {cards}\n"));
        s.push_str(&format!(
            "  generation_runs: [{}]\n",
            prov.runs.iter().map(|p| y(p)).collect::<Vec<_>>().join(", ")
        ));
        s.push_str(&format!(
            "  generation_models: [{}]\n",
            prov.models.iter().map(|p| y(p)).collect::<Vec<_>>().join(", ")
        ));
        s.push_str("  prompt_versions:\n");
        if prov.prompt_versions.is_empty() {
            s.push_str("    {}\n");
        }
        for (k, v) in &prov.prompt_versions {
            s.push_str(&format!("    {k}: {}\n", y(v)));
        }
        s.push_str(&format!("  hand_written_cases: {}\n", prov.hand_written));
        s.push_str("---\n\n");
        s.push_str(&format!("# PSEBench cases: {}\n\n", policy_names.join(", ")));
        s.push_str(
            "Each record is one patient-safety event narrative with the verdict it was built to have under the \
             reporting policy (Reportable, Non-reportable or Uncertain), the clause and the policy passages behind \
             that verdict, the boundary conditions that decide it, and the facts (elements) the narrative states. \
             Missing-information cases withhold some facts (`masked_elements`); a model should ask for them before \
             answering.\n\n",
        );
        s.push_str("## Files\n\n");
        s.push_str("| File | Cases |\n| --- | --- |\n");
        for (name, n) in counts {
            s.push_str(&format!("| `data/{name}.jsonl` | {n} |\n"));
        }
        s.push_str(&format!(
            "\nThe {cards} clause cards the cases were built from are in `cards/` (their current version when exported).\n"
        ));
        if !missing_cards.is_empty() {
            s.push_str(&format!(
                "These cards are named by cases but were not in the store, so they are not included: {}.\n",
                missing_cards.join(", ")
            ));
        }
        s.push_str("\n## Cases per clause\n\n| Clause | Complete | Missing | Uncertain |\n| --- | --- | --- | --- |\n");
        for (clause, [a, b, c]) in &per_clause {
            s.push_str(&format!("| {clause} | {a} | {b} | {c} |\n"));
        }
        s.push_str("\n## How the cases were made\n\n");
        if prov.runs.is_empty() {
            s.push_str("No case here came from a generation run of this store (imported or hand-written cases).\n");
        } else {
            let generated = cases.len() - prov.hand_written;
            s.push_str(&format!(
                "{} {} from generation {} {} with the {} {}. The prompt versions (a hash of each \
                 template's text) are in the header above.\n",
                count(generated, "case"),
                if generated == 1 { "comes" } else { "come" },
                noun(prov.runs.len(), "run"),
                prov.runs.join(", "),
                noun(prov.models.len(), "model"),
                if prov.models.is_empty() { "(not recorded)".to_string() } else { prov.models.join(", ") }
            ));
        }
        if prov.hand_written > 0 {
            s.push_str(&format!(
                "{} {} imported or written by hand.\n",
                count(prov.hand_written, "case"),
                if prov.hand_written == 1 { "was" } else { "were" }
            ));
        }
        s.push_str("\n## License\n\nSet `license` in the header before publishing. Cases generated from real incident reports \
                    (anchors) may carry their style and scene: check what your sources allow.\n");
        Ok(s)
    }
}
