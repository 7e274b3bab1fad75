//! Pooled confusion counts and their precision / recall / F1 in percent.

use super::report::Prf;

/// True-positive, false-positive and false-negative counts, summed over cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub tp: u64,
    pub fp: u64,
    pub fn_: u64,
}

impl Counts {
    /// Add another case's counts (micro pooling).
    pub fn add(&mut self, other: Counts) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }

    /// Record one binary decision: `actual` is the gold class, `predicted` the model's call.
    pub fn add_decision(&mut self, actual: bool, predicted: bool) {
        match (actual, predicted) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => {}
        }
    }

    /// Precision, recall and F1 in percent. Each ratio with a zero denominator is 0.
    pub fn prf(self) -> Prf {
        let precision = percent(self.tp, self.tp + self.fp);
        let recall = percent(self.tp, self.tp + self.fn_);
        Prf { precision, recall, f1: f1_of(precision, recall), tp: self.tp, fp: self.fp, fn_: self.fn_ }
    }

    /// F1 alone (percent), for the bootstrap's inner loop.
    pub fn f1(self) -> f64 {
        f1_of(percent(self.tp, self.tp + self.fp), percent(self.tp, self.tp + self.fn_))
    }
}

/// Harmonic mean of precision and recall (both in percent); 0 when both are 0.
fn f1_of(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// `100 * part / whole`, or 0 when `whole` is 0.
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// `100 * part / whole`, or null when `whole` is 0 (an empty subset).
pub(crate) fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| percent(part, whole))
}

/// Overlap of a predicted list with a gold set. `gold` must be sorted and free of duplicates;
/// `predicted` may repeat a name, which then counts once. Short lists (the usual case) are
/// compared pairwise, without allocating.
pub(crate) fn set_counts<S: AsRef<str>>(gold: &[&str], predicted: &[S]) -> Counts {
    let in_gold = |p: &str| {
        let found = if gold.len() <= 8 { gold.iter().any(|g| same_name(g, p)) } else { gold.binary_search(&p).is_ok() };
        u64::from(found)
    };
    let (distinct, tp) = if predicted.len() <= 16 {
        let mut distinct = 0;
        let mut tp = 0;
        for (i, p) in predicted.iter().enumerate() {
            let p = p.as_ref();
            if !predicted[..i].iter().any(|q| same_name(q.as_ref(), p)) {
                distinct += 1;
                tp += in_gold(p);
            }
        }
        (distinct, tp)
    } else {
        let mut items: Vec<&str> = predicted.iter().map(AsRef::as_ref).collect();
        items.sort_unstable();
        items.dedup();
        (items.len() as u64, items.iter().map(|p| in_gold(p)).sum())
    };
    Counts { tp, fp: distinct - tp, fn_: gold.len() as u64 - tp }
}

/// String equality, checking the length and the last byte first: names on one list often
/// share a prefix and length ("condition_1", "condition_2"), so most unequal pairs are told
/// apart without a full comparison.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().last() == b.as_bytes().last() && a == b
}

/// Sorted, de-duplicated borrowed view of a list of names.
pub(crate) fn sorted_set(items: &[String]) -> Vec<&str> {
    let mut v: Vec<&str> = items.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    v
}
