//! Agreement of a model with itself when the same cases were run several times.

use super::prepare::{GoldCase, ModelRuns};
use super::prf::share;
use super::report::Consistency;

/// Consistency over the cases that have all K repeats, K being the largest number of distinct
/// repeats any case has; null unless some case was run more than once.
pub(crate) fn consistency(golds: &[GoldCase], runs: &ModelRuns) -> Option<Consistency> {
    let k = runs.by_case.iter().map(Vec::len).max().filter(|&k| k > 1)?;
    let mut cases = 0;
    let mut same = 0;
    let mut pass_all = 0;
    for (gold, repeats) in golds.iter().zip(&runs.by_case) {
        if repeats.len() != k {
            continue;
        }
        let verdicts: Vec<_> = repeats.iter().map(|(_, t)| t.predicted_verdict()).collect();
        cases += 1;
        same += u64::from(verdicts.iter().all(|v| *v == verdicts[0]));
        pass_all += u64::from(verdicts.iter().all(|v| *v == Some(gold.verdict)));
    }
    Some(Consistency {
        repeats: u32::try_from(k).unwrap_or(u32::MAX),
        cases,
        same_verdict_pct: share(same, cases),
        pass_all_k_pct: share(pass_all, cases),
    })
}
