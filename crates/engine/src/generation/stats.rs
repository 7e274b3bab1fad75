//! Statistics like the paper's dataset appendix: generation success per case type, the attempt
//! on which each stage succeeded, narrative length, case counts by category and by clause, and
//! the card-library tables (cards by category × event type, per-clause cards and variants, the
//! shape of cards and of missing variants).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

use super::pipeline::{STAGE_INSTANTIATION, STAGE_MISSING, STAGE_NARRATION};
use super::GenerationCounts;
use crate::card::{ClauseCard, EventType};
use crate::context::Engine;
use crate::error::ApiResult;
use crate::policy::PolicyPack;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationSuccessRow {
    pub case_type: String,
    /// Candidates started (accepted + dropped; variants never started are not counted).
    pub initiated: u64,
    pub accepted: u64,
    pub dropped: u64,
    /// accepted / initiated × 100; null when nothing was started.
    pub success_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct WinningAttemptsRow {
    /// instantiation | narration | missing_narration
    pub stage: String,
    /// Accepted cases the row covers.
    pub cases: u64,
    /// Cases whose stage passed on attempt 1, 2, 3.
    pub attempts: Vec<u64>,
    /// The same as percentages of `cases`.
    pub pct: Vec<Option<f64>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LengthRow {
    pub case_type: String,
    pub n: u64,
    pub mean: Option<f64>,
    pub median: Option<f64>,
    pub min: Option<f64>,
    pub p25: Option<f64>,
    pub p75: Option<f64>,
    pub p95: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseCountRow {
    /// Category name, or the clause label.
    pub key: String,
    /// The clause's global number (clause rows only).
    pub global_no: Option<u32>,
    pub complete: u64,
    pub missing: u64,
    pub uncertain: u64,
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DropRow {
    /// instantiation | narration | missing_narration | case | parent
    pub stage: String,
    pub candidates: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GenerationStats {
    pub run_id: String,
    pub policy: String,
    pub success: Vec<GenerationSuccessRow>,
    pub winning_attempts: Vec<WinningAttemptsRow>,
    /// Words per accepted narrative.
    pub narrative_length: Vec<LengthRow>,
    pub by_category: Vec<CaseCountRow>,
    pub by_clause: Vec<CaseCountRow>,
    /// Candidates that did not become cases, by the stage where they stopped.
    pub drops_by_stage: Vec<DropRow>,
    pub counts: GenerationCounts,
}

/// A candidate as the statistics need it.
#[derive(Debug, Clone, PartialEq)]
pub struct StatCandidate {
    pub candidate_id: String,
    pub case_type: String,
    pub clause_id: String,
    pub status: String,
    pub parent: Option<String>,
    pub narrative: Option<String>,
    pub drop_stage: Option<String>,
}

/// A passing attempt: on which attempt a candidate's stage succeeded.
#[derive(Debug, Clone, PartialEq)]
pub struct StatPass {
    pub candidate_id: String,
    pub stage: String,
    pub attempt: u32,
}

/// Percentile with linear interpolation between closest ranks (rank = p·(n−1)).
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64))
}

fn mean(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        None
    } else {
        Some(v.iter().sum::<f64>() / v.len() as f64)
    }
}

pub const CASE_TYPES: [&str; 3] = ["complete", "missing", "uncertain"];

fn count_row(key: String, global_no: Option<u32>, c: [u64; 3]) -> CaseCountRow {
    CaseCountRow { key, global_no, complete: c[0], missing: c[1], uncertain: c[2], total: c.iter().sum() }
}

fn type_index(t: &str) -> Option<usize> {
    CASE_TYPES.iter().position(|x| *x == t)
}

/// Categories in the pack's order (first appearance by clause number).
fn categories(pack: &PolicyPack) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut clauses = pack.clauses.clone();
    clauses.sort_by_key(|c| c.global_no);
    for c in clauses {
        if !out.contains(&c.category) {
            out.push(c.category.clone());
        }
    }
    out
}

/// The generation statistics from plain rows (the counts are filled in by the caller).
pub fn compute_generation(
    run_id: &str,
    pack: &PolicyPack,
    cands: &[StatCandidate],
    passes: &[StatPass],
) -> GenerationStats {
    let mut success = Vec::new();
    for t in CASE_TYPES {
        let of: Vec<&StatCandidate> = cands.iter().filter(|c| c.case_type == t).collect();
        let accepted = of.iter().filter(|c| c.status == "accepted").count() as u64;
        let dropped = of.iter().filter(|c| c.status == "dropped").count() as u64;
        let initiated = accepted + dropped;
        success.push(GenerationSuccessRow {
            case_type: t.into(),
            initiated,
            accepted,
            dropped,
            success_pct: if initiated == 0 { None } else { Some(100.0 * accepted as f64 / initiated as f64) },
        });
    }
    let pass_of: HashMap<(&str, &str), u32> =
        passes.iter().map(|p| ((p.candidate_id.as_str(), p.stage.as_str()), p.attempt)).collect();
    let accepted: Vec<&StatCandidate> = cands.iter().filter(|c| c.status == "accepted").collect();
    let mut winning = Vec::new();
    for stage in [STAGE_INSTANTIATION, STAGE_NARRATION, STAGE_MISSING] {
        let mut hist = [0u64; 3];
        let mut n = 0u64;
        for c in &accepted {
            // Missing cases inherit their parent's instantiation and complete narration.
            let owner = if stage == STAGE_MISSING {
                if c.case_type != "missing" {
                    continue;
                }
                c.candidate_id.as_str()
            } else {
                c.parent.as_deref().unwrap_or(c.candidate_id.as_str())
            };
            if let Some(a) = pass_of.get(&(owner, stage)) {
                n += 1;
                // A narration redone after a clause-screen conflict is numbered on from the earlier
                // round's attempts (4 and above) and has no bar of its own here.
                if (1..=3).contains(a) {
                    hist[(*a - 1) as usize] += 1;
                }
            }
        }
        winning.push(WinningAttemptsRow {
            stage: stage.into(),
            cases: n,
            attempts: hist.to_vec(),
            pct: hist.iter().map(|h| if n == 0 { None } else { Some(100.0 * *h as f64 / n as f64) }).collect(),
        });
    }
    let mut lengths = Vec::new();
    for t in CASE_TYPES {
        let mut w: Vec<f64> = accepted
            .iter()
            .filter(|c| c.case_type == t)
            .filter_map(|c| c.narrative.as_ref().map(|n| n.split_whitespace().count() as f64))
            .collect();
        w.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        lengths.push(LengthRow {
            case_type: t.into(),
            n: w.len() as u64,
            mean: mean(&w),
            median: percentile(&w, 0.5),
            min: w.first().copied(),
            p25: percentile(&w, 0.25),
            p75: percentile(&w, 0.75),
            p95: percentile(&w, 0.95),
            max: w.last().copied(),
        });
    }
    let mut by_clause_counts: HashMap<&str, [u64; 3]> = HashMap::new();
    for c in &accepted {
        if let Some(i) = type_index(&c.case_type) {
            by_clause_counts.entry(c.clause_id.as_str()).or_default()[i] += 1;
        }
    }
    let mut clauses = pack.clauses.clone();
    clauses.sort_by_key(|c| c.global_no);
    let by_clause: Vec<CaseCountRow> = clauses
        .iter()
        .map(|cl| {
            count_row(
                cl.label.clone(),
                Some(cl.global_no),
                by_clause_counts.get(cl.clause_id.as_str()).copied().unwrap_or_default(),
            )
        })
        .collect();
    let by_category: Vec<CaseCountRow> = categories(pack)
        .into_iter()
        .map(|cat| {
            let mut sum = [0u64; 3];
            for cl in clauses.iter().filter(|c| c.category == cat) {
                if let Some(x) = by_clause_counts.get(cl.clause_id.as_str()) {
                    for i in 0..3 {
                        sum[i] += x[i];
                    }
                }
            }
            count_row(cat, None, sum)
        })
        .collect();
    let mut drops: BTreeMap<String, u64> = BTreeMap::new();
    for c in cands.iter().filter(|c| c.status == "dropped" || c.status == "skipped") {
        *drops.entry(c.drop_stage.clone().unwrap_or_else(|| "unknown".into())).or_default() += 1;
    }
    GenerationStats {
        run_id: run_id.into(),
        policy: pack.id.clone(),
        success,
        winning_attempts: winning,
        narrative_length: lengths,
        by_category,
        by_clause,
        drops_by_stage: drops.into_iter().map(|(stage, candidates)| DropRow { stage, candidates }).collect(),
        counts: GenerationCounts::default(),
    }
}

// ---- the card library --------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LibraryCategoryRow {
    pub category: String,
    pub reportable: u64,
    pub non_reportable: u64,
    pub uncertain: u64,
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LibraryClauseRow {
    pub global_no: u32,
    pub clause_id: String,
    pub label: String,
    /// Reportable and Non_Reportable cards.
    pub complete_cards: u64,
    pub missing_variants: u64,
    pub uncertain_cards: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardShapeRow {
    /// `boundary_conditions` or `basic_event_elements`
    pub measure: String,
    pub event_type: String,
    pub cards: u64,
    pub mean: Option<f64>,
    pub median: Option<f64>,
    /// Cards with at most 2, 3 to 4, and 5 or more.
    pub at_most_2: u64,
    pub from_3_to_4: u64,
    pub at_least_5: u64,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MissingShape {
    pub variants: u64,
    /// Variants withholding 1, 2, 3, 4, and 5 or more slots.
    pub withheld: Vec<u64>,
    pub mean: Option<f64>,
    pub median: Option<f64>,
    pub parents_with_variants: u64,
    pub parents_with_one: u64,
    pub parents_with_more: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LibraryStats {
    pub policy: String,
    /// Whether only approved cards were counted.
    pub approved_only: bool,
    pub cards: u64,
    pub by_category: Vec<LibraryCategoryRow>,
    pub by_clause: Vec<LibraryClauseRow>,
    pub shape: Vec<CardShapeRow>,
    pub missing: MissingShape,
}

fn shape_row(measure: &str, event_type: &str, counts: &[u64]) -> CardShapeRow {
    let mut v: Vec<f64> = counts.iter().map(|c| *c as f64).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    CardShapeRow {
        measure: measure.into(),
        event_type: event_type.into(),
        cards: counts.len() as u64,
        mean: mean(&v),
        median: percentile(&v, 0.5),
        at_most_2: counts.iter().filter(|c| **c <= 2).count() as u64,
        from_3_to_4: counts.iter().filter(|c| (3..=4).contains(*c)).count() as u64,
        at_least_5: counts.iter().filter(|c| **c >= 5).count() as u64,
        min: counts.iter().min().copied(),
        max: counts.iter().max().copied(),
    }
}

/// The card-library statistics from parsed cards.
pub fn compute_library(pack: &PolicyPack, cards: &[ClauseCard], approved_only: bool) -> LibraryStats {
    let mut clauses = pack.clauses.clone();
    clauses.sort_by_key(|c| c.global_no);
    let by_category = categories(pack)
        .into_iter()
        .map(|cat| {
            let of = |t: EventType| {
                cards
                    .iter()
                    .filter(|c| {
                        c.event_type == t && pack.clause(&c.clause_id).map(|cl| cl.category == cat).unwrap_or(false)
                    })
                    .count() as u64
            };
            let (r, n, u) = (of(EventType::Reportable), of(EventType::NonReportable), of(EventType::Uncertain));
            LibraryCategoryRow { category: cat, reportable: r, non_reportable: n, uncertain: u, total: r + n + u }
        })
        .collect();
    let by_clause = clauses
        .iter()
        .map(|cl| {
            let of: Vec<&ClauseCard> = cards.iter().filter(|c| c.clause_id == cl.clause_id).collect();
            LibraryClauseRow {
                global_no: cl.global_no,
                clause_id: cl.clause_id.clone(),
                label: cl.label.clone(),
                complete_cards: of.iter().filter(|c| c.event_type != EventType::Uncertain).count() as u64,
                missing_variants: of
                    .iter()
                    .filter(|c| c.event_type != EventType::Uncertain)
                    .map(|c| c.variants().len() as u64)
                    .sum(),
                uncertain_cards: of.iter().filter(|c| c.event_type == EventType::Uncertain).count() as u64,
            }
        })
        .collect();
    let mut shape = Vec::new();
    for (measure, f) in [
        ("boundary_conditions", (|c: &ClauseCard| c.boundary_conditions().len() as u64) as fn(&ClauseCard) -> u64),
        ("basic_event_elements", |c: &ClauseCard| c.basic_event_elements.len() as u64),
    ] {
        for t in [EventType::Reportable, EventType::NonReportable, EventType::Uncertain] {
            let counts: Vec<u64> = cards.iter().filter(|c| c.event_type == t).map(f).collect();
            shape.push(shape_row(measure, t.as_str(), &counts));
        }
    }
    let variants: Vec<u64> =
        cards.iter().flat_map(|c| c.variants().iter().map(|v| v.masked_basic_event_elements.len() as u64)).collect();
    let mut withheld = vec![0u64; 5];
    for n in &variants {
        let i = (*n as usize).clamp(1, 5) - 1;
        withheld[i] += 1;
    }
    let mut sorted: Vec<f64> = variants.iter().map(|v| *v as f64).collect();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let per_parent: Vec<usize> = cards.iter().map(|c| c.variants().len()).filter(|n| *n > 0).collect();
    LibraryStats {
        policy: pack.id.clone(),
        approved_only,
        cards: cards.len() as u64,
        by_category,
        by_clause,
        shape,
        missing: MissingShape {
            variants: variants.len() as u64,
            withheld,
            mean: mean(&sorted),
            median: percentile(&sorted, 0.5),
            parents_with_variants: per_parent.len() as u64,
            parents_with_one: per_parent.iter().filter(|n| **n == 1).count() as u64,
            parents_with_more: per_parent.iter().filter(|n| **n > 1).count() as u64,
        },
    }
}

impl Engine {
    /// Statistics of one generation run (any status; pending candidates count nowhere).
    pub fn generation_stats(&self, run_id: &str) -> ApiResult<GenerationStats> {
        let run = self.generation_show(run_id)?;
        let policy = Some(run.config.policy)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| crate::policy::DEFAULT_POLICY.to_string());
        let (pack, _) = self.pack_and_vocab(&policy)?;
        let rows = self.store().with_conn(|c| super::repo::candidates(c, run_id))?;
        let cands: Vec<StatCandidate> = rows
            .iter()
            .map(|r| StatCandidate {
                candidate_id: r.candidate_id.clone(),
                case_type: r.case_type.clone(),
                clause_id: r.clause_id.clone(),
                status: r.status.clone(),
                parent: r.parent_candidate_id.clone(),
                narrative: r.narrative.clone(),
                drop_stage: r.drop_stage.clone(),
            })
            .collect();
        let passes: Vec<StatPass> = self.store().with_conn(|c| -> ApiResult<Vec<StatPass>> {
            let mut stmt = c.prepare(
                "SELECT candidate_id, stage, attempt FROM generation_attempts WHERE run_id = ?1 AND passed = 1 ORDER BY id",
            )?;
            let rows = stmt
                .query_map([run_id], |r| {
                    Ok(StatPass { candidate_id: r.get(0)?, stage: r.get(1)?, attempt: r.get::<_, i64>(2)? as u32 })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })?;
        let mut s = compute_generation(run_id, &pack, &cands, &passes);
        s.counts = run.counts;
        Ok(s)
    }

    /// Statistics of the card library of a policy (approved cards only, or every current card).
    pub fn library_stats(&self, policy: &str, approved_only: bool) -> ApiResult<LibraryStats> {
        let (pack, _) = self.pack_and_vocab(policy)?;
        let cards: Vec<ClauseCard> = self
            .current_cards(policy)?
            .into_iter()
            .filter(|(row, _)| !approved_only || row.status == "approved")
            .map(|(_, c)| c)
            .collect();
        Ok(compute_library(&pack, &cards, approved_only))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack() -> PolicyPack {
        crate::policy::builtin_pack("mn29").unwrap()
    }

    fn cand(
        id: &str,
        t: &str,
        clause: &str,
        status: &str,
        parent: Option<&str>,
        words: usize,
        drop: Option<&str>,
    ) -> StatCandidate {
        StatCandidate {
            candidate_id: id.into(),
            case_type: t.into(),
            clause_id: clause.into(),
            status: status.into(),
            parent: parent.map(str::to_string),
            narrative: if status == "accepted" { Some(vec!["w"; words].join(" ")) } else { None },
            drop_stage: drop.map(str::to_string),
        }
    }

    fn pass(id: &str, stage: &str, a: u32) -> StatPass {
        StatPass { candidate_id: id.into(), stage: stage.into(), attempt: a }
    }

    #[test]
    fn generation_statistics_match_a_hand_count() {
        let s1 = "Surgical_1_WrongBodyPart";
        let c1 = "CareManagement_1_MedicationError";
        let cands = vec![
            cand("a", "complete", s1, "accepted", None, 100, None),
            cand("a_m", "missing", s1, "accepted", Some("a"), 60, None),
            cand("b", "complete", s1, "accepted", None, 200, None),
            cand("b_m", "missing", s1, "dropped", Some("b"), 0, Some("missing_narration")),
            cand("c", "complete", c1, "dropped", None, 0, Some("narration")),
            cand("c_m", "missing", c1, "skipped", Some("c"), 0, Some("parent")),
            cand("d", "uncertain", c1, "accepted", None, 300, None),
            cand("e", "complete", c1, "pending", None, 0, None),
        ];
        let passes = vec![
            pass("a", "instantiation", 1),
            pass("a", "narration", 2),
            pass("a_m", "missing_narration", 3),
            pass("b", "instantiation", 2),
            pass("b", "narration", 1),
            pass("c", "instantiation", 1),
            pass("d", "instantiation", 3),
            pass("d", "narration", 1),
        ];
        let s = compute_generation("r", &pack(), &cands, &passes);
        // success: complete 2 of 3 started (e is pending), missing 1 of 2 (c_m never started), uncertain 1 of 1
        let row = |t: &str| s.success.iter().find(|r| r.case_type == t).unwrap().clone();
        assert_eq!((row("complete").initiated, row("complete").accepted), (3, 2));
        assert!((row("complete").success_pct.unwrap() - 200.0 / 3.0).abs() < 1e-9);
        assert_eq!((row("missing").initiated, row("missing").accepted, row("missing").success_pct), (2, 1, Some(50.0)));
        assert_eq!(row("uncertain").success_pct, Some(100.0));
        // winning attempts over accepted cases: a, a_m (inherits a), b, d
        let w = |st: &str| s.winning_attempts.iter().find(|r| r.stage == st).unwrap().clone();
        assert_eq!((w("instantiation").cases, w("instantiation").attempts.clone()), (4, vec![2, 1, 1]));
        assert_eq!((w("narration").cases, w("narration").attempts.clone()), (4, vec![2, 2, 0]));
        assert_eq!((w("missing_narration").cases, w("missing_narration").attempts.clone()), (1, vec![0, 0, 1]));
        assert_eq!(w("narration").pct[0], Some(50.0));
        // narrative length: complete [100, 200]
        let l = s.narrative_length.iter().find(|r| r.case_type == "complete").unwrap();
        assert_eq!((l.n, l.mean, l.median, l.min, l.max), (2, Some(150.0), Some(150.0), Some(100.0), Some(200.0)));
        assert_eq!(l.p25, Some(125.0));
        assert_eq!(l.p95, Some(195.0));
        let none = s.narrative_length.iter().find(|r| r.case_type == "missing").unwrap();
        assert_eq!((none.n, none.mean), (1, Some(60.0)));
        // counts by clause and category
        let sur = s.by_clause.iter().find(|r| r.global_no == Some(1)).unwrap();
        assert_eq!((sur.complete, sur.missing, sur.uncertain, sur.total), (2, 1, 0, 3));
        assert_eq!(s.by_clause.len(), 29);
        let cm = s.by_category.iter().find(|r| r.key == "Care Management").unwrap();
        assert_eq!((cm.complete, cm.uncertain, cm.total), (0, 1, 1));
        assert_eq!(s.by_category.iter().map(|r| r.total).sum::<u64>(), 4);
        let drops: Vec<(String, u64)> = s.drops_by_stage.iter().map(|d| (d.stage.clone(), d.candidates)).collect();
        assert_eq!(drops, vec![("missing_narration".into(), 1), ("narration".into(), 1), ("parent".into(), 1)]);
    }

    #[test]
    fn percentiles_interpolate_linearly() {
        let v = [10.0, 20.0, 30.0, 40.0, 50.0];
        assert_eq!(percentile(&v, 0.5), Some(30.0));
        assert_eq!(percentile(&v, 0.25), Some(20.0));
        assert_eq!(percentile(&v, 0.95), Some(48.0));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[7.0], 0.95), Some(7.0));
    }

    #[test]
    fn library_statistics_of_the_builtin_library() {
        let cards: Vec<ClauseCard> = crate::builtin::library_card_files("mn29")
            .iter()
            .filter_map(|f| serde_json::from_str::<serde_json::Value>(f.text).ok())
            .filter_map(|v| ClauseCard::from_value(&v).ok())
            .collect();
        let s = compute_library(&pack(), &cards, false);
        assert_eq!(s.cards as usize, cards.len());
        assert_eq!(s.by_category.iter().map(|r| r.total).sum::<u64>(), s.cards);
        assert_eq!(s.by_clause.len(), 29);
        let variants: u64 = s.by_clause.iter().map(|r| r.missing_variants).sum();
        assert_eq!(variants, s.missing.variants);
        assert_eq!(s.missing.withheld.iter().sum::<u64>(), s.missing.variants);
        assert_eq!(s.missing.parents_with_one + s.missing.parents_with_more, s.missing.parents_with_variants);
        let unc = s.shape.iter().find(|r| r.measure == "boundary_conditions" && r.event_type == "Uncertain").unwrap();
        assert_eq!(unc.at_most_2 + unc.from_3_to_4 + unc.at_least_5, unc.cards);
        assert_eq!(s.by_clause.iter().map(|r| r.complete_cards + r.uncertain_cards).sum::<u64>(), s.cards);
    }
}
