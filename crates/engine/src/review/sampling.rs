//! Which cases a session reviews: a seeded stratified sample, or a hand-picked list.
//!
//! The stratified sample is reproducible: candidates are sorted by case id first (so the store's
//! row order does not matter), then shuffled with ChaCha8 seeded by the session's seed (stream 1).
//! With `by_clause`, each type's count is shared out over clauses in proportion to how many
//! candidates each clause has (largest-remainder rounding; ties in the remainder are broken in a
//! seeded random order), then drawn at random inside each clause.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashSet};

use crate::case::CaseType;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// The random stream used for sampling (assignment uses others).
const SAMPLE_STREAM: u64 = 1;

/// A case that may be sampled.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub case_id: String,
    pub case_type: CaseType,
    pub clause_id: String,
}

fn rng(seed: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(SAMPLE_STREAM);
    r
}

/// Draw `counts` (complete, missing, uncertain) cases. Returns case ids ordered by type, then id.
/// Fails, naming what is available, when a type has fewer candidates than asked for.
pub fn stratified(candidates: &[Candidate], counts: [u32; 3], by_clause: bool, seed: u64) -> ApiResult<Vec<String>> {
    if counts.iter().all(|c| *c == 0) {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            "The sample is empty: ask for at least one case of some type.",
        ));
    }
    let mut sorted: Vec<&Candidate> = candidates.iter().collect();
    sorted.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    let pools: Vec<Vec<&Candidate>> =
        CaseType::ALL.iter().map(|t| sorted.iter().copied().filter(|c| c.case_type == *t).collect()).collect();

    let short: Vec<usize> = (0..3).filter(|i| (pools[*i].len() as u64) < counts[*i] as u64).collect();
    if !short.is_empty() {
        let what: Vec<String> = short
            .iter()
            .map(|i| {
                format!(
                    "{} {} {} but the sample asks for {}",
                    pools[*i].len(),
                    CaseType::ALL[*i].as_str(),
                    crate::util::format::noun(pools[*i].len(), "case"),
                    counts[*i]
                )
            })
            .collect();
        let possible: Vec<u32> = (0..3).map(|i| counts[i].min(pools[i].len() as u32)).collect();
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!(
                "The store has {} (cases flagged as excluded do not count). A sample of {} complete, {} missing and {} uncertain \
                 cases is possible; ask for that, or add cases first.",
                what.join(", and "),
                possible[0],
                possible[1],
                possible[2]
            ),
        ));
    }

    let mut r = rng(seed);
    let mut out = Vec::new();
    for (i, pool) in pools.iter().enumerate() {
        let n = counts[i] as usize;
        if n == 0 {
            continue;
        }
        let mut picked: Vec<String> =
            if by_clause { by_clause_draw(pool, n, &mut r) } else { plain_draw(pool, n, &mut r) };
        picked.sort();
        out.extend(picked);
    }
    Ok(out)
}

fn plain_draw(pool: &[&Candidate], n: usize, r: &mut ChaCha8Rng) -> Vec<String> {
    let mut ids: Vec<&str> = pool.iter().map(|c| c.case_id.as_str()).collect();
    ids.shuffle(r);
    ids.into_iter().take(n).map(str::to_string).collect()
}

/// How many of `n` each group gets, in proportion to its size (largest remainder; ties broken by
/// `tiebreak`, a key per group). Sizes must sum to at least `n`.
pub fn proportional_quotas(sizes: &[usize], n: usize, tiebreak: &[u64]) -> Vec<usize> {
    let total: usize = sizes.iter().sum();
    if total == 0 {
        return vec![0; sizes.len()];
    }
    let mut quotas: Vec<usize> = sizes.iter().map(|s| n * s / total).collect();
    let rems: Vec<usize> = sizes.iter().map(|s| n * s % total).collect();
    let mut left = n - quotas.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|a, b| rems[*b].cmp(&rems[*a]).then(tiebreak[*a].cmp(&tiebreak[*b])));
    for g in order {
        if left == 0 {
            break;
        }
        if quotas[g] < sizes[g] {
            quotas[g] += 1;
            left -= 1;
        }
    }
    quotas
}

fn by_clause_draw(pool: &[&Candidate], n: usize, r: &mut ChaCha8Rng) -> Vec<String> {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in pool {
        groups.entry(c.clause_id.as_str()).or_default().push(c.case_id.as_str());
    }
    let sizes: Vec<usize> = groups.values().map(Vec::len).collect();
    let tiebreak: Vec<u64> = sizes.iter().map(|_| r.random::<u64>()).collect();
    let quotas = proportional_quotas(&sizes, n, &tiebreak);
    let mut out = Vec::with_capacity(n);
    for (ids, q) in groups.into_values().zip(quotas) {
        let mut ids = ids;
        ids.shuffle(r);
        out.extend(ids.into_iter().take(q).map(str::to_string));
    }
    out
}

/// Check a hand-picked list: every id known, none twice, none excluded. Keeps the given order.
pub fn hand_picked(ids: &[String], known: &[Candidate], excluded: &HashSet<String>) -> ApiResult<Vec<String>> {
    let ids: Vec<String> = ids.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    if ids.is_empty() {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            "The list of cases is empty: name at least one case id.",
        ));
    }
    let all: HashSet<&str> = known.iter().map(|c| c.case_id.as_str()).collect();
    let mut seen = HashSet::new();
    let mut unknown = Vec::new();
    for id in &ids {
        if !seen.insert(id.as_str()) {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("Case \"{id}\" is listed twice; list each case once."),
            ));
        }
        if excluded.contains(id) {
            return Err(ApiError::new(
                ErrorCode::ValidationFailed,
                format!("Case \"{id}\" is flagged as excluded from the dataset; bring it back first or leave it out of the list."),
            ));
        }
        if !all.contains(id.as_str()) {
            unknown.push(format!("\"{id}\""));
        }
    }
    if !unknown.is_empty() {
        return Err(ApiError::not_found(format!(
            "{} of the listed cases {} not in this store: {}. `psebench cases list` shows the stored cases.",
            unknown.len(),
            if unknown.len() == 1 { "is" } else { "are" },
            unknown.join(", ")
        )));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands() -> Vec<Candidate> {
        let mut v = Vec::new();
        for (t, per_clause) in
            [(CaseType::Complete, [10, 6, 4]), (CaseType::Missing, [8, 8, 4]), (CaseType::Uncertain, [5, 5, 5])]
        {
            for (k, n) in per_clause.iter().enumerate() {
                for i in 0..*n {
                    v.push(Candidate {
                        case_id: format!("{}_{k}_{i:02}", t.as_str()),
                        case_type: t,
                        clause_id: format!("Clause_{k}"),
                    });
                }
            }
        }
        v
    }

    fn type_of(id: &str) -> &str {
        id.split('_').next().unwrap()
    }

    #[test]
    fn same_seed_same_sample_other_seed_other_sample() {
        let c = cands();
        let a = stratified(&c, [10, 10, 5], false, 7).unwrap();
        let b = stratified(&c, [10, 10, 5], false, 7).unwrap();
        assert_eq!(a, b);
        let mut reversed = c.clone();
        reversed.reverse();
        assert_eq!(stratified(&reversed, [10, 10, 5], false, 7).unwrap(), a, "input order does not matter");
        assert_ne!(stratified(&c, [10, 10, 5], false, 8).unwrap(), a);
        assert_eq!(stratified(&c, [10, 10, 5], true, 7).unwrap(), stratified(&c, [10, 10, 5], true, 7).unwrap());
    }

    #[test]
    fn exact_counts_per_stratum_and_no_duplicates() {
        let c = cands();
        for seed in 0..20 {
            for by_clause in [false, true] {
                let s = stratified(&c, [12, 3, 15], by_clause, seed).unwrap();
                assert_eq!(s.iter().filter(|i| type_of(i) == "complete").count(), 12);
                assert_eq!(s.iter().filter(|i| type_of(i) == "missing").count(), 3);
                assert_eq!(s.iter().filter(|i| type_of(i) == "uncertain").count(), 15);
                let set: HashSet<_> = s.iter().collect();
                assert_eq!(set.len(), s.len());
            }
        }
    }

    #[test]
    fn by_clause_is_proportional() {
        let c = cands();
        // complete: clause sizes 10, 6, 4 (of 20); 10 drawn → 5, 3, 2 exactly.
        let s = stratified(&c, [10, 0, 0], true, 3).unwrap();
        let per = |k: usize| s.iter().filter(|i| i.starts_with(&format!("complete_{k}_"))).count();
        assert_eq!((per(0), per(1), per(2)), (5, 3, 2));
    }

    #[test]
    fn quotas_use_largest_remainders_and_never_exceed_a_group() {
        assert_eq!(proportional_quotas(&[10, 6, 4], 10, &[0, 1, 2]), vec![5, 3, 2]);
        // 7 of (5,5,5): 2.33 each → 2,2,2 and one more to the first tiebreak.
        assert_eq!(proportional_quotas(&[5, 5, 5], 7, &[9, 1, 5]), vec![2, 3, 2]);
        assert_eq!(proportional_quotas(&[1, 1, 30], 3, &[0, 1, 2]).iter().sum::<usize>(), 3);
        assert_eq!(proportional_quotas(&[2, 3], 5, &[0, 1]), vec![2, 3]);
        assert_eq!(proportional_quotas(&[], 0, &[]), Vec::<usize>::new());
    }

    #[test]
    fn too_few_cases_says_how_many_there_are() {
        let c = cands();
        let e = stratified(&c, [30, 30, 5], false, 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed);
        assert!(e.message.contains("20 complete cases but the sample asks for 30"), "{}", e.message);
        assert!(e.message.contains("20 missing cases but the sample asks for 30"), "{}", e.message);
        assert!(e.message.contains("20 complete, 20 missing and 5 uncertain"), "{}", e.message);
        assert!(stratified(&c, [0, 0, 0], false, 1).is_err());
    }

    #[test]
    fn hand_picked_lists_are_checked() {
        let c = cands();
        let none = HashSet::new();
        let ok = hand_picked(&["missing_0_01".into(), " complete_0_00 ".into()], &c, &none).unwrap();
        assert_eq!(ok, vec!["missing_0_01", "complete_0_00"]);
        let e = hand_picked(&["nope".into(), "complete_0_00".into()], &c, &none).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("\"nope\""));
        assert!(hand_picked(&["complete_0_00".into(), "complete_0_00".into()], &c, &none)
            .unwrap_err()
            .message
            .contains("twice"));
        let ex: HashSet<String> = ["complete_0_00".to_string()].into();
        assert!(hand_picked(&["complete_0_00".into()], &c, &ex).unwrap_err().message.contains("excluded"));
        assert!(hand_picked(&[], &c, &none).is_err());
    }
}
