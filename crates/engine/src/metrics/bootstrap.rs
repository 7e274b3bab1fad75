//! Percentile bootstrap over cases for M1, M7 F1 and M8 F1.
//!
//! Each case is reduced once to a 5-bit code (correct?, uncertain case?, predicted Uncertain?,
//! gold Reportable?, predicted Reportable? — M1, M7 and M8 depend on nothing else), so one
//! resample is N index draws into a byte array plus a 32-bin histogram.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::prepare::{GoldCase, Outcome};
use super::prf::Counts;
use super::report::{ConfidenceIntervals, Interval};
use crate::case::{CaseType, Verdict};

pub(crate) const METHOD: &str = "percentile bootstrap over cases";
pub(crate) const LEVEL: f64 = 0.95;

const CORRECT: u8 = 1;
const UNCERTAIN_CASE: u8 = 2;
const PREDICTED_UNCERTAIN: u8 = 4;
const GOLD_REPORTABLE: u8 = 8;
const PREDICTED_REPORTABLE: u8 = 16;
const CODES: usize = 32;

/// The bits of one case that M1, M7 and M8 read.
pub(crate) fn case_code(gold: &GoldCase, o: &Outcome) -> u8 {
    let mut code = 0;
    let flags = [
        (o.correct(gold), CORRECT),
        (gold.case_type == CaseType::Uncertain, UNCERTAIN_CASE),
        (o.verdict == Some(Verdict::Uncertain), PREDICTED_UNCERTAIN),
        (gold.verdict == Verdict::Reportable, GOLD_REPORTABLE),
        (o.verdict == Some(Verdict::Reportable), PREDICTED_REPORTABLE),
    ];
    for (on, bit) in flags {
        if on {
            code |= bit;
        }
    }
    code
}

/// M1, M7 F1 and M8 F1 (percent) of a sample given as a histogram of case codes.
fn statistics(histogram: &[u64; CODES]) -> [f64; 3] {
    let mut cases = 0;
    let mut correct = 0;
    let mut m7 = Counts::default();
    let mut m8 = Counts::default();
    for (code, &n) in histogram.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let code = code as u8;
        let has = |bit: u8| code & bit != 0;
        cases += n;
        if has(CORRECT) {
            correct += n;
        }
        add_weighted(&mut m7, has(UNCERTAIN_CASE), has(PREDICTED_UNCERTAIN), n);
        add_weighted(&mut m8, has(GOLD_REPORTABLE), has(PREDICTED_REPORTABLE), n);
    }
    [100.0 * correct as f64 / cases as f64, m7.f1(), m8.f1()]
}

/// Record `n` identical binary decisions.
fn add_weighted(counts: &mut Counts, actual: bool, predicted: bool, n: u64) {
    match (actual, predicted) {
        (true, true) => counts.tp += n,
        (false, true) => counts.fp += n,
        (true, false) => counts.fn_ += n,
        (false, false) => {}
    }
}

/// Uniform draws from `0..n` by Lemire's multiply-and-reject method: exact (no modulo bias)
/// and one 32-bit word per draw in all but a vanishing fraction of draws.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexDraw {
    n: u32,
    /// 2³² mod n: low products below it are rejected so every index is equally likely.
    threshold: u32,
}

impl IndexDraw {
    /// Null for an empty range or one that does not fit 32 bits.
    pub fn new(n: usize) -> Option<Self> {
        let n = u32::try_from(n).ok().filter(|&n| n > 0)?;
        Some(IndexDraw { n, threshold: n.wrapping_neg() % n })
    }

    #[inline]
    pub fn sample(&self, rng: &mut impl RngCore) -> usize {
        loop {
            let product = u64::from(rng.next_u32()) * u64::from(self.n);
            if product as u32 >= self.threshold {
                return (product >> 32) as usize;
            }
        }
    }
}

/// Draw `codes.len()` cases with replacement and count their codes. Four interleaved counters
/// keep consecutive increments of the same bin from waiting on each other.
fn resample(codes: &[u8], draw: &IndexDraw, rng: &mut ChaCha8Rng) -> [u64; CODES] {
    let mut lanes = [[0u32; CODES]; 4];
    let mut left = codes.len();
    while left >= 4 {
        for lane in &mut lanes {
            lane[usize::from(codes[draw.sample(rng)])] += 1;
        }
        left -= 4;
    }
    for _ in 0..left {
        lanes[0][usize::from(codes[draw.sample(rng)])] += 1;
    }
    let mut histogram = [0u64; CODES];
    for lane in &lanes {
        for (total, &n) in histogram.iter_mut().zip(lane) {
            *total += u64::from(n);
        }
    }
    histogram
}

/// A stable 64-bit tag of a model name (FNV-1a), so each model draws from its own ChaCha
/// stream: its interval does not change when other models are added or removed.
fn stream_of(model: &str) -> u64 {
    model.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The `q` quantile (0–1) of sorted, non-empty values, interpolating linearly between order
/// statistics (the usual "type 7" definition).
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn interval(mut values: Vec<f64>) -> Interval {
    values.sort_by(f64::total_cmp);
    let tail = (1.0 - LEVEL) / 2.0;
    Interval { lo: quantile(&values, tail), hi: quantile(&values, 1.0 - tail) }
}

/// Bootstrap intervals for one model; null when `resamples` is 0. With no cases the settings
/// are reported and every interval is null.
pub(crate) fn confidence_intervals(
    codes: &[u8],
    model: &str,
    resamples: u32,
    seed: u64,
) -> Option<ConfidenceIntervals> {
    if resamples == 0 {
        return None;
    }
    let mut ci =
        ConfidenceIntervals { method: METHOD.to_string(), level: LEVEL, resamples, seed, m1: None, m7: None, m8: None };
    let Some(draw) = IndexDraw::new(codes.len()) else {
        return Some(ci); // no cases: nothing to resample
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream_of(model));
    let capacity = resamples.min(100_000) as usize;
    let mut series: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(capacity));
    for _ in 0..resamples {
        let histogram = resample(codes, &draw, &mut rng);
        for (s, v) in series.iter_mut().zip(statistics(&histogram)) {
            s.push(v);
        }
    }
    let [m1, m7, m8] = series.map(interval);
    ci.m1 = Some(m1);
    ci.m7 = Some(m7);
    ci.m8 = Some(m8);
    Some(ci)
}
