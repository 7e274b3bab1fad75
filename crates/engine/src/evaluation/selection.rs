//! Which cases a run uses: `all`, a cases JSONL file, or a filter such as
//! `type=missing,clause=CareManagement_1_MedicationError,origin=demo,limit=20`.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

use crate::case::repo::CaseFilter;
use crate::case::{Case, CaseType};
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};

/// Resolve a selection to cases in the store (a file's cases are imported first).
pub fn select_cases(engine: &Engine, selection: &str) -> ApiResult<Vec<Case>> {
    let s = selection.trim();
    if s.is_empty() || s == "all" {
        return engine.cases_all(&CaseFilter::default());
    }
    let p = Path::new(s);
    if p.exists() {
        engine.cases_import(p, false, "imported")?;
        let ids: Vec<String> = {
            // Every stored pack, so cases written under a user's own policy are read too.
            let lookup = engine.vocab_lookup();
            crate::case::io::read_cases(p, &lookup)
                .map(|v| v.into_iter().map(|c| c.case_id).collect())
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        for id in ids {
            out.push(engine.case_show(&id)?);
        }
        return Ok(out);
    }
    if !s.contains('=') {
        return Err(ApiError::invalid(format!(
            "\"{s}\" is not a file and not a filter. Use all, a cases .jsonl file, or a filter like type=missing,clause=ID,origin=demo,limit=20,seed=1"
        )));
    }
    let mut f = CaseFilter::default();
    let mut limit: Option<usize> = None;
    let mut seed: Option<u64> = None;
    for part in s.split(',') {
        let (k, v) =
            part.split_once('=').ok_or_else(|| ApiError::invalid(format!("\"{part}\" should look like key=value")))?;
        let (k, v) = (k.trim(), v.trim());
        match k {
            "type" => {
                f.case_type = Some(CaseType::parse(v).ok_or_else(|| {
                    ApiError::invalid(format!("type must be complete, missing or uncertain, not \"{v}\""))
                })?)
            }
            "clause" => f.clause_id = Some(v.to_string()),
            "card" => f.clause_card_id = Some(v.to_string()),
            "origin" => f.origin = Some(v.to_string()),
            "limit" => {
                limit = Some(v.parse().map_err(|_| ApiError::invalid(format!("limit must be a number, not \"{v}\"")))?)
            }
            "seed" => {
                seed = Some(v.parse().map_err(|_| ApiError::invalid(format!("seed must be a number, not \"{v}\"")))?)
            }
            other => {
                return Err(ApiError::invalid(format!(
                    "unknown filter \"{other}\"; use type, clause, card, origin, limit, seed"
                )))
            }
        }
    }
    let mut cases = engine.cases_all(&f)?;
    if let Some(seed) = seed {
        cases.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    }
    if let Some(n) = limit {
        cases.truncate(n);
    }
    Ok(cases)
}
