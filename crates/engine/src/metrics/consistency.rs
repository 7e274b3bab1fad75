//! Agreement of a model with itself when the same cases were run several times.

use super::prepare::{GoldCase, ModelRuns, Repeats};
use super::prf::share;
use super::report::Consistency;

/// Consistency over the cases that have all K repeats, K being the largest number of distinct
/// repeats any case has; null unless some case was run more than once.
pub(crate) fn consistency(golds: &[GoldCase], runs: &ModelRuns) -> Option<Consistency> {
    let k = runs.by_case.iter().map(Repeats::len).max().filter(|&k| k > 1)?;
    let mut cases = 0;
    let mut same = 0;
    let mut pass_all = 0;
    for (gold, repeats) in golds.iter().zip(&runs.by_case) {
        if repeats.len() != k {
            continue;
        }
        let first = repeats.primary().verdict;
        cases += 1;
        same += u64::from(repeats.outcomes().all(|o| o.verdict == first));
        pass_all += u64::from(repeats.outcomes().all(|o| o.verdict == Some(gold.verdict)));
    }
    Some(Consistency {
        repeats: u32::try_from(k).unwrap_or(u32::MAX),
        cases,
        same_verdict_pct: share(same, cases),
        pass_all_k_pct: share(pass_all, cases),
    })
}
