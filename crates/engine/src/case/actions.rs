//! Case actions: import and export JSONL, list, show, exclude, load the demo set.

use serde::{Deserialize, Serialize};
use std::path::Path;

use super::io::{read_cases, write_cases};
use super::repo::{self, CaseFilter, CaseSummary};
use super::Case;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CasesImportResult {
    pub file: String,
    pub imported: usize,
    pub unchanged: usize,
    pub replaced: usize,
}

impl Engine {
    /// The vocabulary of any stored policy pack (built-in or created by a user), by id.
    pub fn vocab_lookup(&self) -> impl Fn(&str) -> Option<crate::policy::PolicyVocab> + '_ {
        move |policy: &str| self.pack_and_vocab(policy).ok().map(|(_, v)| v)
    }

    /// Import a cases JSONL file in one transaction. A case id that is already stored with
    /// different content is refused unless `replace` is set; identical content is skipped.
    pub fn cases_import(&self, path: &Path, replace: bool, origin: &str) -> ApiResult<CasesImportResult> {
        let lookup = self.vocab_lookup();
        let cases = read_cases(path, &lookup)?;
        self.store_cases(&cases, replace, origin, &path.display().to_string())
    }

    pub(crate) fn store_cases(
        &self,
        cases: &[Case],
        replace: bool,
        origin: &str,
        file: &str,
    ) -> ApiResult<CasesImportResult> {
        let mut res = CasesImportResult { file: file.to_string(), imported: 0, unchanged: 0, replaced: 0 };
        self.store().with_tx(|tx| -> ApiResult<()> {
            for c in cases {
                let json = repo::case_json(c)?;
                match repo::stored_json(tx, &c.case_id)? {
                    None => {
                        repo::insert_case(tx, c, &json, origin)?;
                        res.imported += 1;
                    }
                    Some(old) if old == json => res.unchanged += 1,
                    Some(_) if replace => {
                        repo::replace_case(tx, c, &json, origin)?;
                        res.replaced += 1;
                    }
                    Some(_) => {
                        return Err(ApiError::new(
                            ErrorCode::Conflict,
                            format!(
                                "{file}: case \"{}\" is already stored with different content; nothing was imported. \
                                 Import it again choosing to replace changed cases (`--replace` on the command line) to store the file's version.",
                                c.case_id
                            ),
                        ))
                    }
                }
            }
            Ok(())
        })?;
        Ok(res)
    }

    /// Load the 90 hand-written demo cases shipped with the app.
    pub fn demo_load(&self) -> ApiResult<CasesImportResult> {
        let f = crate::builtin::demo_cases().ok_or_else(|| ApiError::not_found("This build has no demo cases."))?;
        let lookup = self.vocab_lookup();
        let mut cases = Vec::new();
        for (i, line) in f.text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| ApiError::internal(format!("{}:{}: {e}", f.path, i + 1)))?;
            let c = crate::case::io::case_from_value(v)
                .map_err(|m| ApiError::internal(format!("{}:{}: {m}", f.path, i + 1)))?;
            let problems = crate::case::validate::check_case(&c, lookup(&c.policy).as_ref());
            if let Some(p) = problems.first() {
                return Err(ApiError::internal(format!("{}:{}: {p}", f.path, i + 1)));
            }
            cases.push(c);
        }
        self.store_cases(&cases, false, "demo", &f.path)
    }

    pub fn cases_export(&self, out: &Path, filter: &CaseFilter) -> ApiResult<usize> {
        let cases = self.store().with_conn(|c| repo::list_cases(c, filter))?;
        write_cases(out, &cases)?;
        Ok(cases.len())
    }

    pub fn cases_list(&self, filter: &CaseFilter) -> ApiResult<Vec<CaseSummary>> {
        self.store().with_read(|c| repo::list_summaries(c, filter))
    }

    pub fn cases_all(&self, filter: &CaseFilter) -> ApiResult<Vec<Case>> {
        self.store().with_read(|c| repo::list_cases(c, filter))
    }

    pub fn case_show(&self, case_id: &str) -> ApiResult<Case> {
        self.store().with_read(|c| repo::get_case(c, case_id))
    }

    /// Flag a case so runs leave it out (or bring it back).
    pub fn case_set_excluded(&self, case_id: &str, excluded: bool, reason: Option<&str>) -> ApiResult<()> {
        self.store().with_conn(|c| repo::set_excluded(c, case_id, excluded, reason))
    }
}
