//! Paired McNemar tests between models on per-case verdict correctness.

use super::report::McNemar;

/// Per-case correctness of one model: null where it has no trajectory for the case.
pub(crate) struct Correctness<'a> {
    pub model: &'a str,
    pub per_case: Vec<Option<bool>>,
}

/// One test per pair of models, in the order the models are given (sorted by name).
pub(crate) fn all_pairs(models: &[Correctness]) -> Vec<McNemar> {
    let mut out = Vec::new();
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            out.push(mcnemar(a, b));
        }
    }
    out
}

/// McNemar on the cases both models have a trajectory for.
pub(crate) fn mcnemar(a: &Correctness, b: &Correctness) -> McNemar {
    let mut shared = 0;
    let mut a_only = 0;
    let mut b_only = 0;
    for (x, y) in a.per_case.iter().zip(&b.per_case) {
        if let (Some(x), Some(y)) = (x, y) {
            shared += 1;
            a_only += u64::from(*x && !*y);
            b_only += u64::from(!*x && *y);
        }
    }
    McNemar {
        model_a: a.model.to_string(),
        model_b: b.model.to_string(),
        shared_cases: shared,
        a_only,
        b_only,
        p_value: exact_p_value(a_only, b_only),
        chi2: chi_square_corrected(a_only, b_only),
    }
}

/// Exact two-sided binomial p-value of McNemar's test: with n = b + c discordant pairs and
/// X ~ Bin(n, 1/2), p = min(1, 2 P[X ≤ min(b, c)]); 1 when n = 0. Summed in log space so large
/// counts neither overflow the binomial coefficients nor underflow 2⁻ⁿ.
pub fn exact_p_value(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    let mut log_choose = 0.0_f64; // ln C(n, j), starting at j = 0
    let mut log_tail = f64::NEG_INFINITY; // ln Σ_{i ≤ j} C(n, i)
    for j in 0..=k {
        log_tail = log_add(log_tail, log_choose);
        log_choose += ((n - j) as f64).ln() - ((j + 1) as f64).ln();
    }
    let log_p = std::f64::consts::LN_2 + log_tail - n as f64 * std::f64::consts::LN_2;
    log_p.exp().min(1.0)
}

/// ln(eˣ + eʸ) without overflow.
fn log_add(x: f64, y: f64) -> f64 {
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

/// McNemar's chi-square with continuity correction, (|b − c| − 1)² / (b + c); null when b + c = 0.
pub fn chi_square_corrected(b: u64, c: u64) -> Option<f64> {
    let n = b + c;
    (n > 0).then(|| {
        let d = b.abs_diff(c) as f64 - 1.0;
        d * d / n as f64
    })
}
