//! Who rates what: every case by exactly `k` reviewers, loads balanced, pairs of reviewers
//! co-rating as evenly as possible, deterministic given the seed.
//!
//! The algorithm (greedy, one case at a time):
//! 1. The cases are visited in a seeded random order (ChaCha8, stream 2).
//! 2. For each case, reviewers are ordered by how many cases they already have. Let `L` be the
//!    load of the k-th least loaded reviewer: every reviewer with a load below `L` is taken, and
//!    the remaining places are filled from the reviewers whose load is exactly `L`. Because only
//!    the least loaded reviewers are ever chosen, loads never differ by more than one.
//! 3. Among the reviewers at load `L`, the subset chosen is the one whose pairs (with each other
//!    and with the reviewers already taken) have co-rated the fewest cases so far; ties go to the
//!    first such subset in a seeded random order of the candidates. When the number of possible
//!    subsets is large (over 5,000), the subset is built one reviewer at a time by the same rule.
//! 4. A swap pass then evens out the pairs: for two cases, exchanging one reviewer of the first
//!    with one reviewer of the second leaves every load as it was; such a swap is made whenever
//!    it lowers the sum of squared pair counts, until no swap helps (sessions of up to 2,000
//!    cases; cases and reviewers are visited in a fixed order, so the result stays deterministic).
//! 5. Each reviewer's cases are then put in a seeded random order of their own (stream 3 + the
//!    reviewer's position), so reviewers do not all see the cases in the same order.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::error::{ApiError, ApiResult, ErrorCode};

const CASE_ORDER_STREAM: u64 = 2;
const ITEM_ORDER_STREAM: u64 = 3;
const EXHAUSTIVE_LIMIT: u64 = 5_000;
const SWAP_PASS_LIMIT: usize = 2_000;
const MAX_SWAP_PASSES: usize = 100;

fn rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// Check the overlap against the number of reviewers and cases.
pub fn check(n_cases: usize, n_reviewers: usize, k: usize) -> ApiResult<()> {
    if n_reviewers == 0 {
        return Err(ApiError::new(ErrorCode::ValidationFailed, "Name at least one reviewer."));
    }
    if k == 0 {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            "The overlap must be at least 1 (each case rated by at least one reviewer).",
        ));
    }
    if k > n_reviewers {
        return Err(ApiError::new(
            ErrorCode::ValidationFailed,
            format!(
                "Each case cannot be rated by {k} reviewers when only {n_reviewers} {} named; name more reviewers or lower the overlap to {n_reviewers}.",
                if n_reviewers == 1 { "is" } else { "are" }
            ),
        ));
    }
    if n_cases == 0 {
        return Err(ApiError::new(ErrorCode::ValidationFailed, "The session has no cases."));
    }
    Ok(())
}

/// For each reviewer (by position), the indices of their cases in the order they will see them.
pub fn assign(n_cases: usize, n_reviewers: usize, k: usize, seed: u64) -> ApiResult<Vec<Vec<usize>>> {
    check(n_cases, n_reviewers, k)?;
    let mut r = rng(seed, CASE_ORDER_STREAM);
    let mut order: Vec<usize> = (0..n_cases).collect();
    order.shuffle(&mut r);

    let mut load = vec![0usize; n_reviewers];
    let mut co = vec![vec![0usize; n_reviewers]; n_reviewers];
    let mut sets: Vec<Vec<usize>> = vec![Vec::new(); n_cases];

    for case in order {
        let mut by_load: Vec<usize> = (0..n_reviewers).collect();
        by_load.sort_by_key(|i| load[*i]);
        let level = load[by_load[k - 1]];
        let forced: Vec<usize> = (0..n_reviewers).filter(|i| load[*i] < level).collect();
        let mut pool: Vec<usize> = (0..n_reviewers).filter(|i| load[*i] == level).collect();
        pool.shuffle(&mut r);
        let need = k - forced.len();
        let chosen = choose(&forced, &pool, need, &co);
        for (x, a) in chosen.iter().enumerate() {
            load[*a] += 1;
            for b in &chosen[x + 1..] {
                co[*a][*b] += 1;
                co[*b][*a] += 1;
            }
        }
        sets[case] = chosen;
    }
    if n_cases <= SWAP_PASS_LIMIT && k < n_reviewers {
        even_out_pairs(&mut sets, &mut co);
    }
    let mut per: Vec<Vec<usize>> = vec![Vec::new(); n_reviewers];
    for (case, set) in sets.iter().enumerate() {
        for r in set {
            per[*r].push(case);
        }
    }
    for (i, list) in per.iter_mut().enumerate() {
        list.sort_unstable();
        list.shuffle(&mut rng(seed, ITEM_ORDER_STREAM + i as u64));
    }
    Ok(per)
}

/// The change in Σ co² if reviewer `b` of case set `sx` and reviewer `d` of case set `sy` swap.
fn swap_delta(sx: &[usize], sy: &[usize], b: usize, d: usize, co: &[Vec<usize>]) -> i64 {
    let mut changes: Vec<((usize, usize), i64)> = Vec::with_capacity(4 * sx.len());
    let key = |i: usize, j: usize| (i.min(j), i.max(j));
    for x in sx.iter().filter(|x| **x != b) {
        changes.push((key(b, *x), -1));
        changes.push((key(d, *x), 1));
    }
    for y in sy.iter().filter(|y| **y != d) {
        changes.push((key(d, *y), -1));
        changes.push((key(b, *y), 1));
    }
    changes.sort();
    let mut delta = 0i64;
    let mut i = 0;
    while i < changes.len() {
        let (pair, mut dv) = changes[i];
        let mut j = i + 1;
        while j < changes.len() && changes[j].0 == pair {
            dv += changes[j].1;
            j += 1;
        }
        let c = co[pair.0][pair.1] as i64;
        delta += (c + dv).pow(2) - c.pow(2);
        i = j;
    }
    delta
}

fn apply_swap(sets: &mut [Vec<usize>], x: usize, y: usize, b: usize, d: usize, co: &mut [Vec<usize>]) {
    let mut bump = |i: usize, j: usize, up: bool| {
        for (p, q) in [(i, j), (j, i)] {
            co[p][q] = if up { co[p][q] + 1 } else { co[p][q].saturating_sub(1) };
        }
    };
    for r in sets[x].clone().into_iter().filter(|r| *r != b) {
        bump(b, r, false);
        bump(d, r, true);
    }
    for r in sets[y].clone().into_iter().filter(|r| *r != d) {
        bump(d, r, false);
        bump(b, r, true);
    }
    for r in sets[x].iter_mut() {
        if *r == b {
            *r = d;
        }
    }
    for r in sets[y].iter_mut() {
        if *r == d {
            *r = b;
        }
    }
}

/// Step 4: swaps between cases that keep loads and lower Σ co².
fn even_out_pairs(sets: &mut [Vec<usize>], co: &mut [Vec<usize>]) {
    for _ in 0..MAX_SWAP_PASSES {
        let mut improved = false;
        for x in 0..sets.len() {
            for y in x + 1..sets.len() {
                let only_x: Vec<usize> = sets[x].iter().copied().filter(|r| !sets[y].contains(r)).collect();
                let only_y: Vec<usize> = sets[y].iter().copied().filter(|r| !sets[x].contains(r)).collect();
                'pairs: for b in &only_x {
                    for d in &only_y {
                        if swap_delta(&sets[x], &sets[y], *b, *d, co) < 0 {
                            apply_swap(sets, x, y, *b, *d, co);
                            improved = true;
                            break 'pairs;
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
}

fn binomial(n: usize, k: usize) -> u64 {
    let k = k.min(n.saturating_sub(k));
    let mut acc: u64 = 1;
    for i in 0..k {
        acc = acc.saturating_mul((n - i) as u64) / (i as u64 + 1);
        if acc > EXHAUSTIVE_LIMIT * 1000 {
            return u64::MAX;
        }
    }
    acc
}

fn pair_cost(set: &[usize], co: &[Vec<usize>]) -> usize {
    let mut c = 0;
    for (x, a) in set.iter().enumerate() {
        for b in &set[x + 1..] {
            c += co[*a][*b];
        }
    }
    c
}

/// Pick `need` of `pool` to join `forced`, keeping co-rating counts even.
fn choose(forced: &[usize], pool: &[usize], need: usize, co: &[Vec<usize>]) -> Vec<usize> {
    let mut chosen = forced.to_vec();
    if need == 0 {
        return chosen;
    }
    if binomial(pool.len(), need) <= EXHAUSTIVE_LIMIT {
        let mut best: Option<(usize, Vec<usize>)> = None;
        let mut idx: Vec<usize> = (0..need).collect();
        loop {
            let mut set = chosen.clone();
            set.extend(idx.iter().map(|i| pool[*i]));
            let cost = pair_cost(&set, co);
            if best.as_ref().is_none_or(|(b, _)| cost < *b) {
                best = Some((cost, set));
            }
            // next combination of `need` positions out of pool.len(), in lexicographic order
            let mut i = need;
            loop {
                if i == 0 {
                    return best.map(|(_, s)| s).unwrap_or(chosen);
                }
                i -= 1;
                if idx[i] < pool.len() - need + i {
                    idx[i] += 1;
                    for j in i + 1..need {
                        idx[j] = idx[j - 1] + 1;
                    }
                    break;
                }
            }
        }
    }
    let mut left: Vec<usize> = pool.to_vec();
    for _ in 0..need {
        let (pos, _) = left
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| chosen.iter().map(|a| co[*a][**c]).sum::<usize>())
            .unwrap_or((0, &0));
        chosen.push(left.remove(pos));
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loads(a: &[Vec<usize>]) -> Vec<usize> {
        a.iter().map(Vec::len).collect()
    }

    fn pair_counts(a: &[Vec<usize>], n_cases: usize) -> Vec<usize> {
        let r = a.len();
        let mut per_case: Vec<Vec<usize>> = vec![Vec::new(); n_cases];
        for (i, list) in a.iter().enumerate() {
            for c in list {
                per_case[*c].push(i);
            }
        }
        let mut out = Vec::new();
        for x in 0..r {
            for y in x + 1..r {
                out.push(per_case.iter().filter(|v| v.contains(&x) && v.contains(&y)).count());
            }
        }
        out
    }

    fn spread(v: &[usize]) -> usize {
        v.iter().max().unwrap_or(&0) - v.iter().min().unwrap_or(&0)
    }

    #[test]
    fn every_case_has_exactly_k_distinct_reviewers_and_loads_differ_by_at_most_one() {
        for (n, r, k) in
            [(90, 2, 2), (90, 3, 2), (90, 4, 2), (90, 5, 3), (91, 4, 3), (7, 3, 1), (10, 6, 4), (1, 3, 2), (90, 12, 5)]
        {
            for seed in [0u64, 1, 42, 9_007_199_254_740_991] {
                let a = assign(n, r, k, seed).unwrap();
                let mut per_case = vec![Vec::new(); n];
                for (i, list) in a.iter().enumerate() {
                    let mut sorted = list.clone();
                    sorted.sort();
                    sorted.dedup();
                    assert_eq!(sorted.len(), list.len(), "a reviewer never gets a case twice");
                    for c in list {
                        per_case[*c].push(i);
                    }
                }
                assert!(per_case.iter().all(|v| v.len() == k), "({n},{r},{k}) every case has {k} reviewers");
                assert!(spread(&loads(&a)) <= 1, "({n},{r},{k}) loads {:?}", loads(&a));
                assert_eq!(loads(&a).iter().sum::<usize>(), n * k);
            }
        }
    }

    #[test]
    fn pairs_co_rate_evenly() {
        // (cases, reviewers, overlap, largest allowed spread of pair counts). With 4 reviewers and
        // overlap 3 each case leaves out one reviewer; loads of 67 or 68 mean 22 or 23 cases left
        // out, so a pair co-rates 90 − 22 − 22 = 46, 45 or 44 cases: a spread of 2 is the best possible.
        for (n, r, k, allowed) in
            [(90, 3, 2, 0), (90, 4, 2, 1), (90, 5, 2, 1), (90, 4, 3, 2), (90, 5, 3, 1), (90, 6, 3, 1), (91, 7, 3, 1)]
        {
            for seed in 0..10u64 {
                let a = assign(n, r, k, seed).unwrap();
                let p = pair_counts(&a, n);
                assert!(spread(&p) <= allowed, "({n},{r},{k}) seed {seed}: pair counts {p:?}");
            }
        }
        // Two reviewers with overlap 2 rate everything together.
        let a = assign(90, 2, 2, 5).unwrap();
        assert_eq!(pair_counts(&a, 90), vec![90]);
    }

    #[test]
    fn deterministic_for_a_seed_and_different_for_another() {
        let a = assign(90, 3, 2, 11).unwrap();
        assert_eq!(a, assign(90, 3, 2, 11).unwrap());
        assert_ne!(a, assign(90, 3, 2, 12).unwrap());
        // Reviewers who rate the same cases see them in different orders.
        let b = assign(30, 2, 2, 11).unwrap();
        let mut s0 = b[0].clone();
        let mut s1 = b[1].clone();
        assert_ne!(b[0], b[1]);
        s0.sort();
        s1.sort();
        assert_eq!(s0, s1);
    }

    #[test]
    fn impossible_overlaps_are_refused() {
        let e = assign(10, 2, 3, 0).unwrap_err();
        assert!(e.message.contains("only 2 are named"), "{}", e.message);
        assert!(assign(10, 2, 0, 0).is_err());
        assert!(assign(10, 0, 1, 0).is_err());
        assert!(assign(0, 2, 1, 0).is_err());
    }

    #[test]
    fn binomial_is_right_and_saturates() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(6, 3), 20);
        assert_eq!(binomial(4, 0), 1);
        assert_eq!(binomial(60, 30), u64::MAX);
    }
}
