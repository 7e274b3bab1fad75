//! A synthetic benchmark with the shape of the real one, for benchmarks and demos: 29 clauses,
//! about 68 % complete / 27 % missing / 5 % uncertain cases, and models of graded skill whose
//! trajectories ask questions, cite evidence, get judged and use tokens. Deterministic per seed.

use indexmap::IndexMap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::case::{Case, CaseCondition, CaseElement, CaseType, Verdict};
use crate::trajectory::{
    Action, EvalRole, EvalTurn, FinalAnswer, InfoRole, InfoStatus, InfoTurn, JudgeResult, Trajectory, TrajectoryUsage,
    Turn,
};

/// Build `cases` cases and, for each of `models` models, one trajectory per case.
///
/// Cases use the built-in MN29 pack's clause ids and labels (so they pass case validation), or
/// generated ones if the pack is unavailable.
pub fn synthetic_benchmark(cases: usize, models: usize, seed: u64) -> (Vec<Case>, Vec<Trajectory>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let policy = SyntheticPolicy::load();
    let case_list: Vec<Case> = (0..cases).map(|i| synthetic_case(i, &policy, &mut rng)).collect();
    let mut trajectories = Vec::with_capacity(cases * models);
    for m in 0..models {
        let profile = ModelProfile::new(m, models);
        for case in &case_list {
            trajectories.push(synthetic_trajectory(case, &profile, &policy, seed, &mut rng));
        }
    }
    (case_list, trajectories)
}

/// Clause ids, clause labels and guidance identifiers to draw from.
struct SyntheticPolicy {
    policy_id: String,
    clauses: Vec<(String, String)>,
    guidance: Vec<String>,
}

impl SyntheticPolicy {
    fn load() -> Self {
        match crate::policy::builtin_pack(crate::policy::DEFAULT_POLICY).filter(|p| !p.clauses.is_empty()) {
            Some(pack) => SyntheticPolicy {
                policy_id: pack.id.clone(),
                clauses: pack.clauses.iter().map(|c| (c.clause_id.clone(), c.label.clone())).collect(),
                guidance: pack.guidance.iter().map(|g| g.id.clone()).collect(),
            },
            None => Self::generated(),
        }
    }

    /// 29 made-up clauses in seven categories, as a fallback.
    fn generated() -> Self {
        let categories = [
            ("Surgical", 5),
            ("ProductOrDevice", 3),
            ("PatientProtection", 3),
            ("CareManagement", 9),
            ("Environmental", 4),
            ("Radiologic", 1),
            ("PotentialCriminal", 4),
        ];
        let clauses = categories
            .iter()
            .flat_map(|&(cat, n)| (1..=n).map(move |k| (format!("{cat}_{k}"), format!("{cat} Events clause {k}"))))
            .collect();
        let guidance = (1..=6).map(|k| format!("General Recommendation {k}")).collect();
        SyntheticPolicy { policy_id: crate::policy::DEFAULT_POLICY.into(), clauses, guidance }
    }

    fn evidence_pool(&self) -> impl Iterator<Item = &String> {
        self.clauses.iter().map(|(_, label)| label).chain(&self.guidance)
    }
}

fn chance(rng: &mut ChaCha8Rng, p: f64) -> bool {
    rng.random::<f64>() < p
}

fn pick<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.random_range(0..items.len())])
}

fn draw_case_type(rng: &mut ChaCha8Rng) -> CaseType {
    let r: f64 = rng.random();
    if r < 0.68 {
        CaseType::Complete
    } else if r < 0.95 {
        CaseType::Missing
    } else {
        CaseType::Uncertain
    }
}

fn synthetic_case(i: usize, policy: &SyntheticPolicy, rng: &mut ChaCha8Rng) -> Case {
    let (clause_id, label) = policy.clauses[i % policy.clauses.len()].clone();
    let case_type = draw_case_type(rng);
    let verdict = match case_type {
        CaseType::Uncertain => Verdict::Uncertain,
        _ if chance(rng, 0.6) => Verdict::Reportable,
        _ => Verdict::NonReportable,
    };
    let mut gold_legal_basis = Vec::new();
    if !chance(rng, 0.02) {
        gold_legal_basis.push(label.clone());
        if let Some(g) = pick(rng, &policy.guidance).filter(|_| chance(rng, 0.5)) {
            gold_legal_basis.push(g.clone());
        }
    }
    let boundary_conditions = (1..=rng.random_range(2..=5))
        .map(|k| CaseCondition {
            name: format!("condition_{k}"),
            meaning: format!("boundary condition {k}"),
            value: chance(rng, 0.7),
        })
        .collect();
    let elements: Vec<CaseElement> = (1..=rng.random_range(5..=8))
        .map(|k| CaseElement {
            name: format!("element_{k}"),
            meaning: format!("event element {k}"),
            value: Some(format!("value {k}")),
        })
        .collect();
    let masked_elements = if case_type == CaseType::Missing { masked(rng, &elements) } else { Vec::new() };
    Case {
        case_id: format!("syn-{i:06}"),
        case_type,
        policy: policy.policy_id.clone(),
        clause_id: clause_id.clone(),
        clause_card_id: format!("{clause_id}__card_{}", rng.random_range(1..=6)),
        missing_variant_id: (case_type == CaseType::Missing).then(|| format!("mv-{i:06}")),
        gold_verdict: verdict,
        gold_clause: (verdict == Verdict::Reportable).then(|| label.clone()),
        gold_legal_basis,
        boundary_conditions,
        elements,
        masked_elements,
        narrative: format!("Synthetic incident {i} considered under {label}."),
        anchor_id: None,
        extra: IndexMap::new(),
    }
}

/// One or two distinct withheld elements.
fn masked(rng: &mut ChaCha8Rng, elements: &[CaseElement]) -> Vec<String> {
    let first = rng.random_range(0..elements.len());
    let mut out = vec![elements[first].name.clone()];
    if chance(rng, 0.4) {
        let second = (first + 1 + rng.random_range(0..elements.len() - 1)) % elements.len();
        out.push(elements[second].name.clone());
    }
    out
}

/// How one synthetic model behaves; model 0 is the strongest.
struct ModelProfile {
    name: String,
    skill: f64,
    ask_rate: f64,
    false_ask_rate: f64,
    extra_ask_rate: f64,
    abstain_rate: f64,
    parse_failure_rate: f64,
    token_base: u64,
}

impl ModelProfile {
    fn new(m: usize, models: usize) -> Self {
        let rank = m as f64 / (models.max(2) - 1) as f64;
        let skill = 0.92 - 0.55 * rank;
        let shy = m % 4 == 3;
        ModelProfile {
            name: format!("synthetic-model-{m:02}"),
            skill,
            ask_rate: if shy { 0.05 } else { 0.25 + 0.7 * skill },
            false_ask_rate: 0.02 + 0.12 * (1.0 - skill),
            extra_ask_rate: if m % 5 == 4 { 0.7 } else { 0.2 },
            abstain_rate: if m % 3 == 2 { 0.05 } else { 0.1 + 0.6 * skill },
            parse_failure_rate: 0.003 + 0.02 * (1.0 - skill),
            token_base: 150 + 120 * (m as u64 % 5),
        }
    }
}

fn synthetic_trajectory(
    case: &Case,
    p: &ModelProfile,
    policy: &SyntheticPolicy,
    seed: u64,
    rng: &mut ChaCha8Rng,
) -> Trajectory {
    let asks = ask_count(case, p, rng);
    let mut turns = Vec::with_capacity(2 * asks + 1);
    let mut recovered_masked = false;
    for q in 0..asks {
        turns.push(eval_turn(
            format!("ASK question {}", q + 1),
            Some(Action::Ask),
            Some(format!("Question {}?", q + 1)),
        ));
        let info = info_turn(case, p, rng);
        recovered_masked |= info.fields_used.iter().any(|f| case.masked_elements.contains(f));
        turns.push(Turn::Info(info));
    }
    let parse_failed = chance(rng, p.parse_failure_rate);
    let final_answer = (!parse_failed).then(|| final_answer(case, p, policy, recovered_masked, rng));
    turns.push(eval_turn("ANSWER".into(), (!parse_failed).then_some(Action::Answer), None));
    let judge = final_answer.as_ref().filter(|_| !chance(rng, 0.01)).map(|f| judge(case, p, f, rng));
    let usage = TrajectoryUsage {
        prompt_tokens: 900 + 400 * asks as u64 + rng.random_range(0..300),
        completion_tokens: p.token_base + 120 * asks as u64 + rng.random_range(0..600),
        extra: IndexMap::new(),
    };
    Trajectory {
        run_id: format!("synthetic-{seed}"),
        model: p.name.clone(),
        case_id: case.case_id.clone(),
        turns,
        final_answer,
        judge,
        usage,
        error: parse_failed.then(|| "no parseable ANSWER".to_string()),
        extra: IndexMap::new(),
    }
}

/// ASKs: usually on missing cases (sometimes several), occasionally elsewhere.
fn ask_count(case: &Case, p: &ModelProfile, rng: &mut ChaCha8Rng) -> usize {
    let first = if case.case_type == CaseType::Missing { p.ask_rate } else { p.false_ask_rate };
    if !chance(rng, first) {
        return 0;
    }
    let mut n = 1;
    while n < 6 && chance(rng, p.extra_ask_rate) {
        n += 1;
    }
    n
}

fn eval_turn(raw: String, action: Option<Action>, ask_question: Option<String>) -> Turn {
    Turn::Eval(EvalTurn { role: EvalRole::Eval, raw, action, ask_question, extra: IndexMap::new() })
}

/// The provider answers most questions; skilled models ask for the withheld slots.
fn info_turn(case: &Case, p: &ModelProfile, rng: &mut ChaCha8Rng) -> InfoTurn {
    let r: f64 = rng.random();
    let status = if r < 0.72 {
        InfoStatus::Answered
    } else if r < 0.88 {
        InfoStatus::RefusedTooVague
    } else {
        InfoStatus::Unknown
    };
    let fields_used = match status {
        InfoStatus::Answered if chance(rng, p.skill) && !case.masked_elements.is_empty() => {
            vec![case.masked_elements[rng.random_range(0..case.masked_elements.len())].clone()]
        }
        InfoStatus::Answered => pick(rng, &case.elements).map(|e| vec![e.name.clone()]).unwrap_or_default(),
        _ => Vec::new(),
    };
    let answer =
        if fields_used.is_empty() { "No answer.".into() } else { format!("Answer about {}.", fields_used.join(", ")) };
    InfoTurn { role: InfoRole::Info, status, answer, fields_used, extra: IndexMap::new() }
}

fn predicted_verdict(case: &Case, p: &ModelProfile, recovered_masked: bool, rng: &mut ChaCha8Rng) -> Verdict {
    let p_correct = match case.case_type {
        CaseType::Complete => p.skill,
        CaseType::Missing if recovered_masked => p.skill,
        CaseType::Missing => 0.75 * p.skill,
        CaseType::Uncertain => p.abstain_rate,
    };
    if chance(rng, p_correct) {
        return case.gold_verdict;
    }
    let (likely, other) = match case.gold_verdict {
        Verdict::Uncertain => (Verdict::Reportable, Verdict::NonReportable),
        Verdict::Reportable => (Verdict::NonReportable, Verdict::Uncertain),
        Verdict::NonReportable => (Verdict::Reportable, Verdict::Uncertain),
    };
    if chance(rng, 0.75) {
        likely
    } else {
        other
    }
}

fn final_answer(
    case: &Case,
    p: &ModelProfile,
    policy: &SyntheticPolicy,
    recovered_masked: bool,
    rng: &mut ChaCha8Rng,
) -> FinalAnswer {
    let verdict = predicted_verdict(case, p, recovered_masked, rng);
    let verdict_text = if chance(rng, 0.004) { "reportable".to_string() } else { verdict.as_str().to_string() };
    let targeted_clause = (verdict == Verdict::Reportable).then(|| match &case.gold_clause {
        Some(gold) if chance(rng, p.skill + 0.05) => gold.clone(),
        _ => pick(rng, &policy.clauses).map(|c| c.1.clone()).unwrap_or_default(),
    });
    let rationale = if chance(rng, 0.01) { String::new() } else { format!("Reasoning about {}.", case.clause_id) };
    FinalAnswer {
        final_verdict: Some(verdict_text),
        targeted_clause,
        clause_and_guidance_evidence: Some(citations(case, p, policy, rng)),
        rationale: Some(rationale),
        extra: IndexMap::new(),
    }
}

/// Part of the gold basis, sometimes an unrelated identifier, occasionally a duplicate.
fn citations(case: &Case, p: &ModelProfile, policy: &SyntheticPolicy, rng: &mut ChaCha8Rng) -> Vec<String> {
    let mut out: Vec<String> =
        case.gold_legal_basis.iter().filter(|_| chance(rng, 0.45 + 0.4 * p.skill)).cloned().collect();
    if chance(rng, 0.05 + 0.3 * (1.0 - p.skill)) {
        let pool: Vec<&String> = policy.evidence_pool().collect();
        if let Some(extra) = pick(rng, &pool) {
            out.push((*extra).clone());
        }
    }
    if let Some(first) = out.first().cloned().filter(|_| chance(rng, 0.02)) {
        out.push(first);
    }
    out
}

/// Judge hits: most of the card's conditions for skilled models, rarely a name off the card.
fn judge(case: &Case, p: &ModelProfile, answer: &FinalAnswer, rng: &mut ChaCha8Rng) -> JudgeResult {
    let has_rationale = answer.rationale.as_deref().is_some_and(|r| !r.trim().is_empty());
    let mut hits: Vec<String> = if has_rationale {
        case.condition_names().filter(|_| chance(rng, 0.45 + 0.45 * p.skill)).map(str::to_string).collect()
    } else {
        Vec::new()
    };
    if chance(rng, 0.02) {
        hits.push("not_a_condition_of_this_card".into());
    }
    JudgeResult { hits, extra: IndexMap::new() }
}
