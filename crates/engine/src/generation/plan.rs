//! Planning a generation run: which cards (approved ones, unless listed by id), which anchors for
//! each card (sampled from the card's clause bucket with a seeded generator, so the same request
//! gives the same plan), the candidates that follow (one per card and anchor, plus one per
//! missing-information variant and anchor), and a cost estimate from the sizes of the inputs.

use crate::util::format::count;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};

use super::context::card_context;
use super::prompts::GenerationPrompts;
use super::{GenerationCostEstimate, GenerationRequest, GenerationStageEstimate};
use crate::anchor::{Anchor, AnchorFilter};
use crate::authoring::repo::approved_extraction;
use crate::card::{ClauseCard, EventType};
use crate::case::CaseType;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::llm::ModelConfig;
use crate::policy::extraction::{context_note, ApprovedExtraction, ClauseContextNote};

pub struct PlannedCard {
    pub card: ClauseCard,
    pub version: i64,
    pub status: String,
    pub json: String,
    pub context: String,
}

pub struct PlannedCandidate {
    pub candidate_id: String,
    pub ord: usize,
    pub unit: usize,
    pub card_id: String,
    pub clause_id: String,
    pub event_type: EventType,
    pub case_type: CaseType,
    pub anchor_id: String,
    pub variant: Option<String>,
    pub parent: Option<String>,
}

pub struct Planned {
    pub policy: String,
    pub cards: Vec<PlannedCard>,
    pub anchors: BTreeMap<String, String>,
    pub candidates: Vec<PlannedCandidate>,
    pub units: usize,
    pub warnings: Vec<String>,
    pub unapproved: Vec<String>,
    pub without_anchors: Vec<String>,
    /// Per clause: the approved extraction used as context, or the built-in context.
    pub clause_contexts: Vec<ClauseContextNote>,
}

/// The case and candidate id: deterministic from run, card, anchor and variant.
pub fn candidate_id(run_id: &str, card_id: &str, anchor_id: &str, variant: Option<&str>) -> String {
    match variant {
        None => format!("{run_id}__{card_id}__{anchor_id}"),
        Some(v) => format!("{run_id}__{card_id}__{anchor_id}__{v}"),
    }
}

pub fn case_type_of(card: &ClauseCard) -> CaseType {
    if card.event_type == EventType::Uncertain {
        CaseType::Uncertain
    } else {
        CaseType::Complete
    }
}

fn rng_for(seed: u64, card_id: &str) -> ChaCha8Rng {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(card_id.as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 32];
    b.copy_from_slice(&d[..32]);
    ChaCha8Rng::from_seed(b)
}

type Selected = (Vec<PlannedCard>, Vec<String>, Vec<ClauseContextNote>);

fn select_cards(engine: &Engine, policy: &str, spec: &str) -> ApiResult<Selected> {
    let rows = engine.store().with_conn(|c| crate::card::repo::current_cards(c, policy))?;
    let (pack, official) = engine.store().with_conn(|c| {
        Ok::<_, ApiError>((
            crate::policy::repo::load_pack(c, policy)?,
            crate::policy::repo::official_sections(c, policy)?,
        ))
    })?;
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(ApiError::invalid("Say which cards to generate from: all approved cards, one clause, or a list of card ids (`--cards all|CLAUSE|ID,ID`)."));
    }
    let mut chosen: Vec<(crate::card::repo::CardRow, String)> = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = HashSet::new();
    let tokens: Vec<&str> =
        if spec == "all" { vec!["all"] } else { spec.split(',').map(str::trim).filter(|s| !s.is_empty()).collect() };
    for t in tokens {
        if t == "all" || pack.clause(t).is_some() {
            let before = chosen.len();
            for (row, json) in rows.iter().filter(|(r, _)| (t == "all" || r.clause_id == t) && r.status == "approved") {
                if seen.insert(row.card_id.clone()) {
                    chosen.push((row.clone(), json.clone()));
                }
            }
            if chosen.len() == before {
                let total = rows.iter().filter(|(r, _)| t == "all" || r.clause_id == t).count();
                warnings.push(if total == 0 {
                    format!("There are no cards for {t}.")
                } else {
                    format!("None of the {} for {t} is approved; approve cards after auditing them (Card library → Audit, or `psebench cards audit`) or list their ids explicitly.", count(total, "card"))
                });
            }
            continue;
        }
        match rows.iter().find(|(r, _)| r.card_id == t) {
            Some((row, json)) => {
                if row.status != "approved" {
                    warnings.push(format!(
                        "Card {t} is \"{}\", not approved: cases generated from it rest on a specification no person has signed off.",
                        row.status
                    ));
                }
                if seen.insert(row.card_id.clone()) {
                    chosen.push((row.clone(), json.clone()));
                }
            }
            None => {
                return Err(ApiError::not_found(format!(
                    "\"{t}\" is neither a card id nor a clause id of policy {policy}. The card library lists the cards."
                )))
            }
        }
    }
    if chosen.is_empty() {
        return Err(ApiError::invalid(format!(
            "No approved card matches \"{spec}\", so there is nothing to generate from. {}",
            warnings.first().cloned().unwrap_or_default()
        )));
    }
    let mut out = Vec::new();
    let mut extractions: BTreeMap<String, Option<ApprovedExtraction>> = BTreeMap::new();
    for (row, json) in chosen {
        let v: serde_json::Value = serde_json::from_str(&json)
            .map_err(|e| ApiError::internal(format!("stored card {} unreadable: {e}", row.card_id)))?;
        let card = ClauseCard::from_value(&v)
            .map_err(|e| ApiError::internal(format!("stored card {} unreadable: {e}", row.card_id)))?;
        if !extractions.contains_key(&card.clause_id) {
            let found = engine.store().with_conn(|c| approved_extraction(c, policy, &card.clause_id))?;
            extractions.insert(card.clause_id.clone(), found);
        }
        // The clause's approved extraction, when there is one, replaces the built-in context; the
        // clause's own wording always leads it, even in a document approved without it.
        let context = match extractions.get(&card.clause_id).and_then(Option::as_ref) {
            Some(x) => crate::policy::extraction::context_with_clause(&x.document, &pack, &official, &card.clause_id),
            None => card_context(&card, &pack, &official),
        };
        out.push(PlannedCard {
            card,
            version: row.current_version,
            status: row.status.clone(),
            json: crate::card::to_pretty(&v),
            context,
        });
    }
    let notes = extractions.iter().map(|(clause, x)| context_note(x.as_ref(), clause)).collect();
    Ok((out, warnings, notes))
}

/// Work out everything a run will do. `run_id` names the candidates (plans shown before a run
/// is created use a placeholder).
pub fn plan(engine: &Engine, req: &GenerationRequest, run_id: &str) -> ApiResult<Planned> {
    let policy =
        if req.policy.trim().is_empty() { crate::policy::DEFAULT_POLICY.to_string() } else { req.policy.clone() };
    if req.anchors_per_card == 0 || req.anchors_per_card > 1000 {
        return Err(ApiError::invalid("The number of anchors per card must be between 1 and 1000."));
    }
    if let Some(o) = &req.anchor_origin {
        if !matches!(o.as_str(), "builtin" | "imported" | "all") {
            return Err(ApiError::invalid(format!("\"{o}\" is not an anchor origin; use builtin, imported or all.")));
        }
    }
    let (cards, mut warnings, clause_contexts) = select_cards(engine, &policy, &req.cards)?;
    let origin = req.anchor_origin.clone().filter(|o| o != "all");
    let all: Vec<Anchor> = engine.anchors_all(&AnchorFilter { origin: origin.clone(), ..Default::default() })?;
    let mut by_clause: BTreeMap<String, Vec<&Anchor>> = BTreeMap::new();
    for a in &all {
        if let Some(c) = &a.clause_id {
            by_clause.entry(c.clone()).or_default().push(a);
        }
    }
    let mut anchors = BTreeMap::new();
    let mut candidates = Vec::new();
    let mut units = 0usize;
    let mut without = Vec::new();
    // Clause -> (anchors its bucket holds, cards of the clause that asked for more).
    let mut short: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let unapproved: Vec<String> =
        cards.iter().filter(|c| c.status != "approved").map(|c| c.card.clause_card_id.clone()).collect();
    for pc in &cards {
        let card = &pc.card;
        let mut bucket: Vec<&Anchor> = by_clause.get(&card.clause_id).cloned().unwrap_or_default();
        if bucket.is_empty() {
            without.push(card.clause_card_id.clone());
            continue;
        }
        bucket.sort_by(|a, b| a.anchor_id.cmp(&b.anchor_id));
        let mut rng = rng_for(req.seed, &card.clause_card_id);
        bucket.shuffle(&mut rng);
        let n = (req.anchors_per_card as usize).min(bucket.len());
        if n < req.anchors_per_card as usize {
            short.entry(card.clause_id.clone()).or_insert((bucket.len(), 0)).1 += 1;
        }
        let case_type = case_type_of(card);
        for a in bucket.into_iter().take(n) {
            anchors.insert(a.anchor_id.clone(), a.text.clone());
            let parent = candidate_id(run_id, &card.clause_card_id, &a.anchor_id, None);
            candidates.push(PlannedCandidate {
                candidate_id: parent.clone(),
                ord: candidates.len(),
                unit: units,
                card_id: card.clause_card_id.clone(),
                clause_id: card.clause_id.clone(),
                event_type: card.event_type,
                case_type,
                anchor_id: a.anchor_id.clone(),
                variant: None,
                parent: None,
            });
            if req.include_missing && card.event_type != EventType::Uncertain {
                for v in card.variants() {
                    candidates.push(PlannedCandidate {
                        candidate_id: candidate_id(
                            run_id,
                            &card.clause_card_id,
                            &a.anchor_id,
                            Some(&v.missing_variant_id),
                        ),
                        ord: candidates.len(),
                        unit: units,
                        card_id: card.clause_card_id.clone(),
                        clause_id: card.clause_id.clone(),
                        event_type: card.event_type,
                        case_type: CaseType::Missing,
                        anchor_id: a.anchor_id.clone(),
                        variant: Some(v.missing_variant_id.clone()),
                        parent: Some(parent.clone()),
                    });
                }
            }
            units += 1;
        }
    }
    for (clause, (have, cards_short)) in &short {
        warnings.push(anchor_shortfall_warning(clause, *have, *cards_short, req.anchors_per_card as usize));
    }
    if !without.is_empty() {
        let (have, their, are) = if without.len() == 1 { ("has", "its", "is") } else { ("have", "their", "are") };
        warnings.push(format!(
            "{} {have} no anchors in {their} clause's bucket and {are} left out: {}. Import anchors for those clauses or put existing ones in their buckets.",
            count(without.len(), "card"),
            without.join(", ")
        ));
    }
    if candidates.is_empty() {
        return Err(ApiError::invalid(format!(
            "None of the chosen cards has anchors to work from{}. Import anchors (psebench anchors import) and sort them into clause buckets.",
            origin.map(|o| format!(" among the {o} anchors")).unwrap_or_default()
        )));
    }
    Ok(Planned {
        policy,
        cards,
        anchors,
        candidates,
        units,
        warnings,
        unapproved,
        without_anchors: without,
        clause_contexts,
    })
}

/// The plan's warning when the cards of a clause ask for more anchors than its bucket holds: each
/// card then uses the whole bucket, so its scenes are reused card after card.
fn anchor_shortfall_warning(clause: &str, have: usize, cards: usize, want: usize) -> String {
    let anchors = if have == 1 { "1 anchor".to_string() } else { format!("{have} anchors") };
    let fewer = want - have;
    if cards == 1 {
        format!(
            "1 card of {clause} asks for {want} anchors but the clause's bucket holds {anchors}: it uses all {have} \
             ({fewer} fewer cases than asked). Import anchors for this clause to widen its scenes."
        )
    } else {
        format!(
            "{cards} cards of {clause} ask for {want} anchors each but the clause's bucket holds {anchors}: each card \
             uses all {have} ({fewer} fewer cases per card than asked), so the same {have} scenes are reused by all \
             {cards} cards. Import anchors for this clause to widen its scenes."
        )
    }
}

fn tokens(chars: f64) -> f64 {
    chars / 4.0
}

/// A rough estimate of calls, tokens and cost. Real usage is recorded per call.
pub fn estimate(
    planned: &Planned,
    prompts: &GenerationPrompts,
    producer: &ModelConfig,
    verifier: &ModelConfig,
    screen: &ModelConfig,
    screen_policy_chars: f64,
    screens: bool,
) -> GenerationCostEstimate {
    const RETRY_FACTOR_INST: f64 = 1.2;
    const RETRY_FACTOR_NARR: f64 = 1.1;
    const RETRY_FACTOR_MISSING: f64 = 1.4;
    const RETRY_FACTOR_SCREEN: f64 = 1.2;
    const SCREEN_REPLY: f64 = 600.0;
    const NARRATIVE: f64 = 1100.0;
    const MISSING_NARRATIVE: f64 = 700.0;
    const VERDICT: f64 = 200.0;
    let bg = prompts.background.text.len() as f64;
    let t = |p: &super::prompts::SplitPrompt| p.prompt.text.len() as f64 + bg;
    let anchor_avg = if planned.anchors.is_empty() {
        0.0
    } else {
        planned.anchors.values().map(|a| a.len() as f64).sum::<f64>() / planned.anchors.len() as f64
    };
    let mut stages = vec![
        GenerationStageEstimate { stage: "instantiation".into(), calls: 0, input_tokens: 0, output_tokens: 0 },
        GenerationStageEstimate { stage: "narration".into(), calls: 0, input_tokens: 0, output_tokens: 0 },
        GenerationStageEstimate { stage: "missing_narration".into(), calls: 0, input_tokens: 0, output_tokens: 0 },
        GenerationStageEstimate { stage: "clause_screen".into(), calls: 0, input_tokens: 0, output_tokens: 0 },
    ];
    let (mut prod_in, mut prod_out, mut ver_in, mut ver_out) = (0.0, 0.0, 0.0, 0.0);
    let (mut scr_in, mut scr_out) = (0.0, 0.0);
    for c in &planned.candidates {
        let Some(pc) = planned.cards.iter().find(|p| p.card.clause_card_id == c.card_id) else { continue };
        let card = pc.json.len() as f64;
        let ctx = pc.context.len() as f64;
        let meanings: f64 =
            pc.card.basic_event_elements.iter().map(|(k, e)| (k.len() + e.meaning.len() + 8) as f64).sum();
        let slots = pc.card.basic_event_elements.len() as f64 * 160.0;
        let mut add = |i: usize, f: f64, p_in: f64, p_out: f64, v_in: f64, v_out: f64, calls: f64| {
            stages[i].calls += (calls * f).round() as u64;
            stages[i].input_tokens += tokens((p_in + v_in) * f) as u64;
            stages[i].output_tokens += tokens((p_out + v_out) * f) as u64;
            prod_in += tokens(p_in * f);
            prod_out += tokens(p_out * f);
            ver_in += tokens(v_in * f);
            ver_out += tokens(v_out * f);
        };
        if c.variant.is_none() {
            add(
                0,
                RETRY_FACTOR_INST,
                t(&prompts.instantiator) + card + ctx + anchor_avg,
                slots,
                t(&prompts.instantiation_verifier) + card + ctx + slots,
                VERDICT,
                2.0,
            );
            add(
                1,
                RETRY_FACTOR_NARR,
                t(&prompts.narrator) + meanings + slots + ctx + anchor_avg,
                NARRATIVE,
                t(&prompts.extractor)
                    + meanings
                    + NARRATIVE
                    + t(&prompts.narrative_verifier)
                    + meanings
                    + 2.0 * slots
                    + NARRATIVE,
                slots + VERDICT,
                3.0,
            );
            // One screen of the complete record (missing variants share their parent's); none
            // under the paper protocol.
            if !screens {
                continue;
            }
            let screen_in = t(&prompts.clause_screen) + screen_policy_chars + ctx + meanings + slots;
            stages[3].calls += RETRY_FACTOR_SCREEN.round() as u64;
            stages[3].input_tokens += tokens(screen_in * RETRY_FACTOR_SCREEN) as u64;
            stages[3].output_tokens += tokens(SCREEN_REPLY * RETRY_FACTOR_SCREEN) as u64;
            scr_in += tokens(screen_in * RETRY_FACTOR_SCREEN);
            scr_out += tokens(SCREEN_REPLY * RETRY_FACTOR_SCREEN);
        } else {
            add(
                2,
                RETRY_FACTOR_MISSING,
                t(&prompts.missing_narrator) + meanings + slots + ctx + anchor_avg + 400.0,
                MISSING_NARRATIVE,
                t(&prompts.extractor)
                    + meanings
                    + MISSING_NARRATIVE
                    + t(&prompts.missing_verifier)
                    + meanings
                    + 2.0 * slots
                    + MISSING_NARRATIVE
                    + 400.0,
                slots + 2.0 * VERDICT,
                3.0,
            );
        }
    }
    if !screens {
        stages.retain(|s| s.stage != "clause_screen");
    }
    let mut priced = vec![(producer, prod_in, prod_out), (verifier, ver_in, ver_out)];
    if screens {
        priced.push((screen, scr_in, scr_out));
    }
    let (usd, usd_batch) = crate::llm::batch::plan::costs(&priced);
    GenerationCostEstimate {
        calls: stages.iter().map(|s| s.calls).sum(),
        input_tokens: stages.iter().map(|s| s.input_tokens).sum(),
        output_tokens: stages.iter().map(|s| s.output_tokens).sum(),
        usd,
        usd_batch,
        per_stage: stages,
        assumptions: "sizes of the cards, contexts and anchors as planned; about 160 characters per slot value, 1,100 per complete and 700 per missing narrative; 1.2 instantiation, 1.1 narration and 1.4 missing-narration attempts per candidate; 1.2 clause screens per complete record (studio protocol), each with every clause of the policy; 4 characters per token; cached replies cost nothing".into(),
    }
}
