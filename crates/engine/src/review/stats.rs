//! Agreement statistics as pure functions. Each returns its value with the number of items it
//! rests on, or no value and a sentence saying why it is undefined.
//!
//! * `mean_sd`: mean and sample standard deviation (divisor n − 1).
//! * `cohen_kappa`: (p_o − p_e) / (1 − p_e) for two raters.
//! * `weighted_kappa_quadratic`: Cohen's weighted kappa with quadratic disagreement weights
//!   (i − j)² / (K − 1)² over a fixed K-point scale: 1 − Σ w·p_observed / Σ w·p_expected.
//! * `fleiss_kappa`: Fleiss (1971) for a fixed number of ratings per item.
//! * `krippendorff_alpha`: from the coincidence matrix, for nominal, ordinal and interval data,
//!   any number of raters, missing ratings allowed (items with fewer than two ratings drop out).

use super::{Fraction, MeanSd, StatValue};

pub fn stat(value: f64, n: usize) -> StatValue {
    StatValue { value: Some(value), n: n as u32, note: None }
}

pub fn undefined(n: usize, why: impl Into<String>) -> StatValue {
    StatValue { value: None, n: n as u32, note: Some(why.into()) }
}

pub fn mean_sd(xs: &[f64]) -> MeanSd {
    let n = xs.len();
    if n == 0 {
        return MeanSd { n: 0, mean: None, sd: None };
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let sd =
        if n > 1 { Some((xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()) } else { None };
    MeanSd { n: n as u32, mean: Some(mean), sd }
}

pub fn fraction(agreed: usize, n: usize) -> Fraction {
    Fraction { agreed: agreed as u32, n: n as u32, text: format!("{agreed}/{n}") }
}

/// Cohen's kappa over pairs of category indices (< `k`).
pub fn cohen_kappa(pairs: &[(usize, usize)], k: usize) -> StatValue {
    weighted(pairs, k, |i, j| if i == j { 0.0 } else { 1.0 }, "kappa")
}

/// Cohen's kappa with the two shares it is made of: p_o (observed agreement) and p_e (agreement
/// expected by chance from each rater's own proportions). Both shares are given whenever there is
/// at least one pair, even when the kappa itself is undefined.
#[derive(Debug, Clone, PartialEq)]
pub struct KappaDetail {
    pub kappa: StatValue,
    pub observed: Option<f64>,
    pub expected: Option<f64>,
}

/// Cohen's kappa over pairs of category indices (< `k`), with p_o and p_e.
pub fn cohen_kappa_detail(pairs: &[(usize, usize)], k: usize) -> KappaDetail {
    let kappa = cohen_kappa(pairs, k);
    let n = pairs.len();
    if n == 0 || pairs.iter().any(|(a, b)| *a >= k || *b >= k) {
        return KappaDetail { kappa, observed: None, expected: None };
    }
    let nf = n as f64;
    let observed = pairs.iter().filter(|(a, b)| a == b).count() as f64 / nf;
    let expected = (0..k)
        .map(|c| {
            let a = pairs.iter().filter(|(x, _)| *x == c).count() as f64;
            let b = pairs.iter().filter(|(_, y)| *y == c).count() as f64;
            a * b / (nf * nf)
        })
        .sum();
    KappaDetail { kappa, observed: Some(observed), expected: Some(expected) }
}

/// Cohen's kappa with quadratic weights over a fixed scale of `k` ordered categories (0..k).
pub fn weighted_kappa_quadratic(pairs: &[(usize, usize)], k: usize) -> StatValue {
    let denom = ((k.max(2) - 1) as f64).powi(2);
    weighted(pairs, k, |i, j| (i as f64 - j as f64).powi(2) / denom, "weighted kappa")
}

fn weighted(pairs: &[(usize, usize)], k: usize, w: impl Fn(usize, usize) -> f64, name: &str) -> StatValue {
    let n = pairs.len();
    if n == 0 {
        return undefined(0, "No item was rated by both reviewers.");
    }
    let mut obs = vec![vec![0.0; k]; k];
    let mut row = vec![0.0; k];
    let mut col = vec![0.0; k];
    for (a, b) in pairs {
        if *a >= k || *b >= k {
            return undefined(n, format!("A rating is outside the scale of {k} categories."));
        }
        obs[*a][*b] += 1.0;
        row[*a] += 1.0;
        col[*b] += 1.0;
    }
    let nf = n as f64;
    let mut d_obs = 0.0;
    let mut d_exp = 0.0;
    for i in 0..k {
        for j in 0..k {
            let wij = w(i, j);
            d_obs += wij * obs[i][j] / nf;
            d_exp += wij * row[i] * col[j] / (nf * nf);
        }
    }
    if d_exp <= 1e-12 {
        return undefined(
            n,
            format!("The {name} is undefined: both reviewers gave the same single answer to every item, so there is no variation to compare."),
        );
    }
    stat(1.0 - d_obs / d_exp, n)
}

/// Fleiss' kappa. `counts[i][j]` = how many raters put item i in category j; every item must
/// have the same number of ratings (at least two).
pub fn fleiss_kappa(counts: &[Vec<u32>]) -> StatValue {
    let n_items = counts.len();
    if n_items == 0 {
        return undefined(0, "No item has the full number of ratings.");
    }
    let m: u32 = counts[0].iter().sum();
    if m < 2 {
        return undefined(n_items, "Fleiss' kappa needs at least two ratings per item.");
    }
    if counts.iter().any(|r| r.iter().sum::<u32>() != m) {
        return undefined(n_items, "Fleiss' kappa needs the same number of ratings for every item.");
    }
    let k = counts[0].len();
    let (nf, mf) = (n_items as f64, m as f64);
    let mut p = vec![0.0; k];
    let mut p_bar = 0.0;
    for r in counts {
        for (j, c) in r.iter().enumerate() {
            if j < k {
                p[j] += *c as f64;
            }
        }
        let s: f64 = r.iter().map(|c| (*c as f64).powi(2)).sum();
        p_bar += (s - mf) / (mf * (mf - 1.0));
    }
    p_bar /= nf;
    let p_e: f64 = p.iter().map(|x| (x / (nf * mf)).powi(2)).sum();
    if (1.0 - p_e).abs() <= 1e-12 {
        return undefined(n_items, "Fleiss' kappa is undefined: every rating is in the same category.");
    }
    stat((p_bar - p_e) / (1.0 - p_e), n_items)
}

/// The level of measurement for Krippendorff's alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Nominal,
    Ordinal,
    Interval,
}

/// Krippendorff's alpha. `units[u]` holds the values given to item u (missing ones left out).
/// `n` in the result is the number of items with at least two values.
pub fn krippendorff_alpha(units: &[Vec<f64>], metric: Metric) -> StatValue {
    let pairable: Vec<&Vec<f64>> = units.iter().filter(|u| u.len() >= 2).collect();
    let n_units = pairable.len();
    if n_units == 0 {
        return undefined(0, "No item has two or more ratings.");
    }
    let mut values: Vec<f64> = pairable.iter().flat_map(|u| u.iter().copied()).collect();
    values.sort_by(|a, b| a.total_cmp(b));
    values.dedup();
    let v = values.len();
    let idx = |x: f64| values.iter().position(|y| *y == x).unwrap_or(0);
    // coincidence matrix
    let mut o = vec![vec![0.0; v]; v];
    for u in &pairable {
        let m = u.len() as f64;
        for (i, a) in u.iter().enumerate() {
            for (j, b) in u.iter().enumerate() {
                if i != j {
                    o[idx(*a)][idx(*b)] += 1.0 / (m - 1.0);
                }
            }
        }
    }
    let nc: Vec<f64> = o.iter().map(|r| r.iter().sum()).collect();
    let n: f64 = nc.iter().sum();
    let delta2 = |c: usize, k: usize| -> f64 {
        match metric {
            Metric::Nominal => {
                if c == k {
                    0.0
                } else {
                    1.0
                }
            }
            Metric::Interval => (values[c] - values[k]).powi(2),
            Metric::Ordinal => {
                let (a, b) = (c.min(k), c.max(k));
                let s: f64 = nc[a..=b].iter().sum();
                (s - (nc[a] + nc[b]) / 2.0).powi(2)
            }
        }
    };
    let mut d_o = 0.0;
    let mut d_e = 0.0;
    for c in 0..v {
        for k in 0..v {
            let d = delta2(c, k);
            d_o += o[c][k] * d;
            d_e += nc[c] * nc[k] * d;
        }
    }
    if d_e <= 1e-12 {
        return undefined(
            n_units,
            "Krippendorff's alpha is undefined: every rating has the same value, so there is no variation.",
        );
    }
    stat(1.0 - (n - 1.0) * d_o / d_e, n_units)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(v: &StatValue, want: f64, tol: f64) {
        let got = v.value.unwrap_or_else(|| panic!("undefined: {:?}", v.note));
        assert!((got - want).abs() < tol, "got {got}, want {want}");
    }

    /// Expand a contingency table (rows: rater A, columns: rater B) into rating pairs.
    fn pairs(table: &[&[usize]]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, row) in table.iter().enumerate() {
            for (j, n) in row.iter().enumerate() {
                out.extend(std::iter::repeat_n((i, j), *n));
            }
        }
        out
    }

    #[test]
    fn mean_and_sample_sd_by_hand() {
        // 4,5,5,4,3: mean 21/5 = 4.2; squared deviations .04+.64+.64+.04+1.44 = 2.8; 2.8/4 = .7.
        let m = mean_sd(&[4.0, 5.0, 5.0, 4.0, 3.0]);
        assert_eq!(m.n, 5);
        assert!((m.mean.unwrap() - 4.2).abs() < 1e-12);
        assert!((m.sd.unwrap() - 0.7f64.sqrt()).abs() < 1e-12);
        let one = mean_sd(&[3.0]);
        assert_eq!((one.mean, one.sd), (Some(3.0), None));
        assert_eq!(mean_sd(&[]).mean, None);
        assert_eq!(fraction(28, 30).text, "28/30");
    }

    #[test]
    fn cohen_kappa_two_by_two_by_hand() {
        // 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
        // p_o = 35/50 = .70; A says yes 25/50, B says yes 30/50: p_e = .5·.6 + .5·.4 = .50;
        // kappa = (.70 − .50) / (1 − .50) = 0.4.
        let k = cohen_kappa(&pairs(&[&[20, 5], &[10, 15]]), 2);
        close(&k, 0.4, 1e-12);
        assert_eq!(k.n, 50);
    }

    #[test]
    fn cohen_kappa_three_by_three_by_hand() {
        // Rows A, columns B: [10 2 3 | 1 8 1 | 4 2 19], N = 50.
        // p_o = (10 + 8 + 19)/50 = .74; row sums 15,10,25; column sums 15,12,23;
        // p_e = (15·15 + 10·12 + 25·23)/2500 = 920/2500 = .368; kappa = .372/.632.
        let k = cohen_kappa(&pairs(&[&[10, 2, 3], &[1, 8, 1], &[4, 2, 19]]), 3);
        close(&k, 0.372 / 0.632, 1e-12);
    }

    #[test]
    fn kappa_edge_cases() {
        assert_eq!(cohen_kappa(&[], 4).value, None);
        assert_eq!(cohen_kappa(&[], 4).n, 0);
        let same = cohen_kappa(&[(1, 1), (1, 1), (1, 1)], 4);
        assert_eq!(same.value, None, "no variation");
        assert!(same.note.unwrap().contains("no variation"));
        close(&cohen_kappa(&[(0, 0), (1, 1), (2, 2), (3, 3)], 4), 1.0, 1e-12);
        assert_eq!(cohen_kappa(&[(0, 7)], 4).value, None);
    }

    #[test]
    fn quadratic_weighted_kappa_by_hand() {
        // Ratings 1..5 as indices 0..4. A = 1,2,3,4,5; B = 1,2,3,5,4.
        // Weights (i − j)²/16. Observed: two items one point apart → (1/16 + 1/16)/5 = 0.025.
        // Expected: both marginals uniform → Σ_ij (i − j)² / 25 / 16 = 100/400 = 0.25.
        // kappa_w = 1 − 0.025/0.25 = 0.9.
        let k = weighted_kappa_quadratic(&[(0, 0), (1, 1), (2, 2), (3, 4), (4, 3)], 5);
        close(&k, 0.9, 1e-12);
        // A second hand example with uneven marginals: A = 1,1,2,5; B = 2,1,2,4.
        // Observed: (0,1): 1/16, (4,3): 1/16 → (2/16)/4 = 0.03125.
        // Marginals A: idx0 .5, idx1 .25, idx4 .25; B: idx0 .25, idx1 .5, idx3 .25.
        // Expected Σ pA·pB·(i−j)²/16: A0: .5(.25·0 + .5·1 + .25·9) = 1.375; A1: .25(.25·1 + 0 + .25·4) = .3125;
        // A4: .25(.25·16 + .5·9 + .25·1) = 2.1875; total 3.875/16 = .2421875.
        // kappa_w = 1 − .03125/.2421875 = 1 − 0.129032… = 0.870967…
        let k2 = weighted_kappa_quadratic(&[(0, 1), (0, 0), (1, 1), (4, 3)], 5);
        close(&k2, 1.0 - 0.03125 / 0.2421875, 1e-12);
        // With two categories the quadratic weights are 0/1, so it equals Cohen's kappa.
        let p = pairs(&[&[20, 5], &[10, 15]]);
        close(&weighted_kappa_quadratic(&p, 2), cohen_kappa(&p, 2).value.unwrap(), 1e-12);
    }

    #[test]
    fn fleiss_kappa_on_the_fleiss_1971_table() {
        // The 10 subjects × 14 raters × 5 categories example reproduced in many textbooks
        // (and on Wikipedia): P̄ = 0.378, P̄e = 0.213, kappa = 0.210.
        let t: Vec<Vec<u32>> = vec![
            vec![0, 0, 0, 0, 14],
            vec![0, 2, 6, 4, 2],
            vec![0, 0, 3, 5, 6],
            vec![0, 3, 9, 2, 0],
            vec![2, 2, 8, 1, 1],
            vec![7, 7, 0, 0, 0],
            vec![3, 2, 6, 3, 0],
            vec![2, 5, 3, 2, 2],
            vec![6, 5, 2, 1, 0],
            vec![0, 2, 2, 3, 7],
        ];
        let k = fleiss_kappa(&t);
        close(&k, 0.20993, 5e-5);
        assert_eq!(k.n, 10);
        assert_eq!(fleiss_kappa(&[vec![1, 1], vec![2, 1]]).value, None, "unequal ratings per item");
        assert_eq!(fleiss_kappa(&[vec![2, 0], vec![2, 0]]).value, None, "one category only");
        assert_eq!(fleiss_kappa(&[]).n, 0);
    }

    #[test]
    fn fleiss_with_two_raters_is_scotts_pi() {
        // Items: (a,a) (a,b) (b,b) (b,b): p_o = .75; pooled proportions a = 3/8, b = 5/8;
        // p_e = 9/64 + 25/64 = 34/64; pi = (.75 − 34/64)/(1 − 34/64) = (14/64)/(30/64) = 7/15.
        let k = fleiss_kappa(&[vec![2, 0], vec![1, 1], vec![0, 2], vec![0, 2]]);
        close(&k, 7.0 / 15.0, 1e-12);
    }

    /// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units,
    /// values 1–5 with missing data (unit 12 has one value and drops out).
    fn reliability_data() -> Vec<Vec<f64>> {
        let rows: [[Option<f64>; 12]; 4] = {
            let n = None;
            let s = |x: f64| Some(x);
            [
                [s(1.), s(2.), s(3.), s(3.), s(2.), s(1.), s(4.), s(1.), s(2.), n, n, n],
                [s(1.), s(2.), s(3.), s(3.), s(2.), s(2.), s(4.), s(1.), s(2.), s(5.), n, s(3.)],
                [n, s(3.), s(3.), s(3.), s(2.), s(3.), s(4.), s(2.), s(2.), s(5.), s(1.), n],
                [s(1.), s(2.), s(3.), s(3.), s(2.), s(4.), s(4.), s(1.), s(2.), s(5.), s(1.), n],
            ]
        };
        (0..12).map(|u| rows.iter().filter_map(|r| r[u]).collect()).collect()
    }

    #[test]
    fn krippendorff_alpha_matches_the_published_example() {
        let d = reliability_data();
        let nominal = krippendorff_alpha(&d, Metric::Nominal);
        close(&nominal, 0.743, 5e-4);
        close(&krippendorff_alpha(&d, Metric::Interval), 0.849, 5e-4);
        // Ordinal: 0.815 in the paper; the hand computation gives 0.81539.
        close(&krippendorff_alpha(&d, Metric::Ordinal), 0.815, 5e-4);
        assert_eq!(nominal.n, 11, "unit 12 has a single value");
    }

    #[test]
    fn krippendorff_ordinal_by_hand_on_a_small_table() {
        // Units (a,b): (1,1) (2,3) (3,3). Coincidences: o11 = 2, o23 = o32 = 1, o33 = 2;
        // n1 = 2, n2 = 1, n3 = 3, n = 6. Ordinal δ²: (1,2) = (2+1 − 1.5)² = 2.25;
        // (2,3) = (1+3 − 2)² = 4; (1,3) = (2+1+3 − 2.5)² = 12.25.
        // D_o·n = 2·4 = 8 (o23 + o32). Σ n_c n_k δ² = 2(2·1·2.25 + 1·3·4 + 2·3·12.25) = 2(4.5 + 12 + 73.5) = 180.
        // alpha = 1 − (n − 1)·8/180 = 1 − 40/180 = 0.7777…
        let a = krippendorff_alpha(&[vec![1.0, 1.0], vec![2.0, 3.0], vec![3.0, 3.0]], Metric::Ordinal);
        close(&a, 1.0 - 40.0 / 180.0, 1e-12);
        assert_eq!(krippendorff_alpha(&[vec![2.0, 2.0], vec![2.0, 2.0]], Metric::Ordinal).value, None);
        assert_eq!(krippendorff_alpha(&[vec![2.0]], Metric::Nominal).n, 0);
    }

    #[test]
    fn nominal_alpha_on_two_raters_without_missing_values() {
        // Two raters, nominal, no missing values: alpha = 1 − (n−1)·D_o / D_e.
        // Units (0,0) (0,1) (1,1) (1,1): n = 8, n0 = 3, n1 = 5; o01 = o10 = 1;
        // alpha = 1 − 7·2/(2·3·5) = 1 − 14/30 = 0.5333…
        let a = krippendorff_alpha(&[vec![0.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0], vec![1.0, 1.0]], Metric::Nominal);
        close(&a, 1.0 - 14.0 / 30.0, 1e-12);
    }
}
