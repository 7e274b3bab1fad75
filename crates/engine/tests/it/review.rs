//! Expert review over the 90 demo cases: sessions, blind-first, token isolation, autosave and
//! resume, statistics, adjudication, exports and review packs between two stores.

use psebench::api::Engine;
use psebench::case::repo::CaseFilter;
use psebench::review::pack;
use psebench::review::*;
use psebench::ErrorCode;
use std::collections::HashMap;

use crate::common::temp_engine;

fn demo() -> (tempfile::TempDir, Engine) {
    let (dir, e) = temp_engine();
    assert_eq!(e.demo_load().unwrap().imported, 90);
    (dir, e)
}

fn create(
    e: &Engine,
    name: &str,
    selection: ReviewSelection,
    reviewers: &[&str],
    overlap: Option<u32>,
    seed: u64,
) -> ReviewSessionDetail {
    e.review_create(&ReviewCreateRequest {
        name: name.into(),
        selection,
        reviewers: reviewers.iter().map(|s| s.to_string()).collect(),
        overlap,
        seed: Some(seed),
        guidelines: None,
        rationale_from: None,
    })
    .unwrap()
}

fn sample(c: u32, m: u32, u: u32) -> ReviewSelection {
    ReviewSelection::Stratified { complete: c, missing: m, uncertain: u, by_clause: false }
}

fn links(e: &Engine, session: &str) -> HashMap<String, String> {
    e.review_links(&ReviewLinksRequest { session_id: session.into(), reviewers: vec![], rotate: false })
        .unwrap()
        .links
        .into_iter()
        .map(|l| (l.reviewer, l.token.expect("a new link has a token")))
        .collect()
}

/// (reviewer, item_no) → (case id, case type, by-construction verdict), from the owner's view.
fn assignment(e: &Engine, session: &str) -> HashMap<(String, u32), (String, String, ReviewVerdict)> {
    let q = e
        .review_queue(&ReviewQueueRequest {
            session_id: session.into(),
            threshold: None,
            low_rating: None,
            include_decided: true,
            include_unflagged: true,
        })
        .unwrap();
    let mut out = HashMap::new();
    for it in q.items {
        for a in it.answers {
            out.insert(
                (a.reviewer.clone(), a.item_no),
                (it.case_id.clone(), it.case_type.clone(), it.expected_verdict),
            );
        }
    }
    out
}

fn patch() -> ReviewAnswerPatch {
    ReviewAnswerPatch::default()
}

/// Answer one item completely: ratings, a blind verdict, the reveal, an agree mark.
fn answer_fully(e: &Engine, token: &str, item: u32, realism: u8, plaus: u8, verdict: ReviewVerdict, agree: bool) {
    e.review_answer(
        token,
        item,
        &ReviewAnswerPatch {
            realism: Some(realism),
            plausibility: Some(plaus),
            blind_verdict: Some(verdict),
            ..patch()
        },
    )
    .unwrap();
    e.review_reveal(token, item).unwrap();
    e.review_answer(token, item, &ReviewAnswerPatch { agree: Some(agree), add_time_secs: Some(20.0), ..patch() })
        .unwrap();
}

#[test]
fn sessions_sample_reproducibly_and_assign_with_overlap() {
    let (_d, e) = demo();
    let a = create(&e, "Pilot", ReviewSelection::default(), &["Ana", "Ben"], None, 42);
    assert_eq!(a.summary.cases, 90);
    assert_eq!(a.summary.overlap, 2);
    assert_eq!(a.summary.assignments, 180);
    assert_eq!(a.seed, Some(42));
    assert_eq!(a.cases_by_type.iter().map(|t| t.count).collect::<Vec<_>>(), vec![30, 30, 30]);
    assert!(a.guidelines.contains("How to review"), "default guidelines");
    assert!(a.progress.iter().all(|p| p.items == 90 && p.completed == 0 && !p.link_active));

    // Same seed: same sample and same per-reviewer order; another seed: another order.
    let smaller = |seed, name: &str| create(&e, name, sample(10, 10, 10), &["Ana", "Ben", "Cy"], Some(2), seed);
    let s1 = smaller(7, "S1");
    let s2 = smaller(7, "S2");
    let s3 = smaller(8, "S3");
    let m1 = assignment(&e, &s1.summary.session_id);
    let m2 = assignment(&e, &s2.summary.session_id);
    let m3 = assignment(&e, &s3.summary.session_id);
    assert_eq!(m1, m2);
    assert_ne!(m1, m3);
    assert_ne!(s1.fingerprint, s2.fingerprint, "each session is its own");
    // 30 cases × 2 reviewers over 3 reviewers: 20 each; each case exactly twice
    assert!(s1.progress.iter().all(|p| p.items == 20), "{:?}", s1.progress);
    let mut per_case: HashMap<&str, usize> = HashMap::new();
    for (case, _, _) in m1.values() {
        *per_case.entry(case.as_str()).or_default() += 1;
    }
    assert_eq!(per_case.len(), 30);
    assert!(per_case.values().all(|n| *n == 2));
    // stratified by clause also works and keeps the counts
    let bc = create(
        &e,
        "By clause",
        ReviewSelection::Stratified { complete: 12, missing: 6, uncertain: 9, by_clause: true },
        &["Ana"],
        None,
        3,
    );
    assert_eq!(bc.cases_by_type.iter().map(|t| t.count).collect::<Vec<_>>(), vec![12, 6, 9]);
    assert_eq!(bc.summary.overlap, 1, "one reviewer: overlap defaults to 1");

    // Listing and lookup by name
    assert_eq!(e.review_list().unwrap().len(), 5);
    assert_eq!(e.review_show("Pilot").unwrap().summary.session_id, a.summary.session_id);
    assert_eq!(e.review_show("nope").unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn sample_and_input_problems_are_explained() {
    let (_d, e) = demo();
    let req = |selection: ReviewSelection, reviewers: Vec<&str>, overlap: Option<u32>| ReviewCreateRequest {
        name: "x".into(),
        selection,
        reviewers: reviewers.into_iter().map(String::from).collect(),
        overlap,
        seed: Some(1),
        guidelines: None,
        rationale_from: None,
    };
    let err = e.review_create(&req(sample(31, 30, 30), vec!["Ana"], None)).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationFailed);
    assert!(err.message.contains("30 complete cases but the sample asks for 31"), "{}", err.message);
    assert!(err.message.contains("30 complete, 30 missing and 30 uncertain"), "{}", err.message);
    // excluded cases are not offered
    let first = e.cases_list(&CaseFilter::default()).unwrap().into_iter().find(|c| c.case_type == "complete").unwrap();
    e.case_set_excluded(&first.case_id, true, Some("test")).unwrap();
    assert_eq!(e.review_available().unwrap().complete, 29);
    let err = e.review_create(&req(sample(30, 1, 1), vec!["Ana"], None)).unwrap_err();
    assert!(err.message.contains("29 complete cases but"), "{}", err.message);
    let err = e
        .review_create(&req(ReviewSelection::Cases { case_ids: vec![first.case_id.clone()] }, vec!["Ana"], None))
        .unwrap_err();
    assert!(err.message.contains("excluded"), "{}", err.message);
    // hand-picked lists
    let err = e
        .review_create(&req(ReviewSelection::Cases { case_ids: vec!["no_such_case".into()] }, vec!["Ana"], None))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let ids: Vec<String> =
        e.cases_list(&CaseFilter::default()).unwrap().into_iter().take(4).map(|c| c.case_id).collect();
    let ok = e.review_create(&req(ReviewSelection::Cases { case_ids: ids.clone() }, vec!["Ana", "Ben"], None)).unwrap();
    assert_eq!(ok.summary.cases, 4);
    // reviewers and overlap
    assert!(e
        .review_create(&req(sample(1, 1, 1), vec![], None))
        .unwrap_err()
        .message
        .contains("at least one reviewer"));
    assert!(e
        .review_create(&req(sample(1, 1, 1), vec!["Ana", "ana"], None))
        .unwrap_err()
        .message
        .contains("named twice"));
    assert!(e
        .review_create(&req(sample(1, 1, 1), vec!["Ana", "Ben"], Some(3)))
        .unwrap_err()
        .message
        .contains("only 2 are named"));
    assert!(e.review_create(&req(sample(1, 1, 1), vec!["A, B"], None)).unwrap_err().message.contains("comma"));
    let mut r = req(sample(1, 1, 1), vec!["Ana"], None);
    r.seed = Some(u64::MAX);
    assert!(e.review_create(&r).unwrap_err().message.contains("seed"));
}

#[test]
fn blind_first_is_enforced_by_the_engine() {
    let (_d, e) = demo();
    let s = create(&e, "Blind", sample(2, 2, 2), &["Ana"], None, 5);
    let sid = s.summary.session_id;
    let tok = links(&e, &sid).remove("Ana").unwrap();
    let map = assignment(&e, &sid);

    // Before the reveal the item shows no case id, type or verdict.
    let view = e.review_item(&tok, 1).unwrap();
    assert!(view.reveal.is_none());
    let text = serde_json::to_string(&view).unwrap();
    let (case_id, _, _) = &map[&("Ana".to_string(), 1)];
    assert!(!text.contains(case_id.as_str()), "the case id (which names its type) is hidden before the reveal");
    fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    out.push(k.clone());
                    keys(x, out);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    keys(&serde_json::to_value(&view).unwrap(), &mut names);
    for hidden in
        ["case_id", "case_type", "expected_verdict", "clause_id", "card_id", "boundary_conditions", "withheld_elements"]
    {
        assert!(!names.iter().any(|k| k == hidden), "{hidden} must not appear before the reveal: {text}");
    }

    let err = e.review_reveal(&tok, 1).unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert!(err.message.contains("Give your own verdict"), "{}", err.message);
    let err = e.review_answer(&tok, 1, &ReviewAnswerPatch { agree: Some(true), ..patch() }).unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);

    e.review_answer(&tok, 1, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Reportable), ..patch() }).unwrap();
    e.review_answer(&tok, 1, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Uncertain), ..patch() }).unwrap();
    let rev = e.review_reveal(&tok, 1).unwrap();
    assert_eq!(rev.your_blind_verdict, ReviewVerdict::Uncertain);
    assert_eq!(&rev.material.case_id, case_id);
    let err = e
        .review_answer(&tok, 1, &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::Reportable), ..patch() })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert!(err.message.contains("locked"));
    // the same verdict again, ratings, agree and comment are fine
    let saved = e
        .review_answer(
            &tok,
            1,
            &ReviewAnswerPatch {
                blind_verdict: Some(ReviewVerdict::Uncertain),
                realism: Some(3),
                agree: Some(false),
                ..patch()
            },
        )
        .unwrap();
    assert_eq!(saved.changed, vec!["realism", "agree"]);
    assert_eq!(e.review_item(&tok, 1).unwrap().reveal.unwrap().revealed_at, rev.revealed_at, "reveal is remembered");

    // Reveal material by case type.
    for n in 1..=6u32 {
        let (_, t, expected) = map[&("Ana".to_string(), n)].clone();
        if n != 1 {
            e.review_answer(
                &tok,
                n,
                &ReviewAnswerPatch { blind_verdict: Some(ReviewVerdict::MissingInformation), ..patch() },
            )
            .unwrap();
        }
        let r = e.review_reveal(&tok, n).unwrap();
        assert_eq!(r.material.expected_verdict, expected);
        match t.as_str() {
            "complete" => {
                assert!(matches!(expected, ReviewVerdict::Reportable | ReviewVerdict::NonReportable));
                assert!(!r.material.boundary_conditions.is_empty());
                assert!(r.material.withheld_elements.is_empty());
            }
            "missing" => {
                assert_eq!(expected, ReviewVerdict::MissingInformation);
                assert!(!r.material.withheld_elements.is_empty());
                assert!(r.material.withheld_elements.iter().all(|w| !w.meaning.is_empty()));
                assert!(r.material.missing_summary.is_some(), "the built-in card explains the variant");
            }
            _ => {
                assert_eq!(expected, ReviewVerdict::Uncertain);
                assert!(r.material.card_definition.is_some());
                assert!(!r.material.legal_basis.is_empty());
            }
        }
    }
    assert_eq!(e.review_item(&tok, 99).unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn tokens_only_open_their_own_reviewers_items() {
    let (_d, e) = demo();
    let s = create(&e, "Tokens", sample(3, 3, 3), &["Ana", "Ben"], Some(2), 9);
    let sid = s.summary.session_id;
    let t = links(&e, &sid);
    let (ana, ben) = (t["Ana"].clone(), t["Ben"].clone());
    let map = assignment(&e, &sid);

    e.review_answer(
        &ana,
        1,
        &ReviewAnswerPatch { realism: Some(2), comment: Some("ANA-PRIVATE-NOTE".into()), ..patch() },
    )
    .unwrap();
    // Ben's item 1 is his own answer (empty), whatever case it is.
    let bview = e.review_item(&ben, 1).unwrap();
    assert_eq!(bview.answer.realism, None);
    assert_eq!(bview.reviewer, "Ben");
    let ben_case = &map[&("Ben".to_string(), 1)].0;
    let ana_item_for_ben_case =
        map.iter().find(|((r, _), (c, _, _))| r == "Ana" && c == ben_case).map(|((_, n), _)| *n).unwrap();
    // Ana writing "her" item for that case leaves Ben's answer untouched.
    e.review_answer(&ana, ana_item_for_ben_case, &ReviewAnswerPatch { plausibility: Some(1), ..patch() }).unwrap();
    assert_eq!(e.review_item(&ben, 1).unwrap().answer.plausibility, None);
    for n in 1..=9 {
        let v = serde_json::to_string(&e.review_item(&ben, n).unwrap()).unwrap();
        assert!(!v.contains("ANA-PRIVATE-NOTE") && !v.contains("Ana"), "Ben sees nothing of Ana");
    }
    let me = serde_json::to_string(&e.review_me(&ben).unwrap()).unwrap();
    assert!(!me.contains("ANA-PRIVATE-NOTE") && !me.contains("\"Ana\""));
    assert_eq!(e.review_me(&ana).unwrap().items[0].realism, Some(2));

    // No token, a wrong token, a malformed token: the same refusal.
    let unknown = "0".repeat(64);
    for bad in ["", "abc", unknown.as_str(), &ana.to_uppercase()] {
        let err = e.review_me(bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{bad}");
        assert!(e.review_answer(bad, 1, &ReviewAnswerPatch { realism: Some(1), ..patch() }).is_err());
        assert!(e.review_reveal(bad, 1).is_err());
        assert!(e.review_item(bad, 1).is_err());
    }
    // Rotating a link retires the old token; asking again without rotating keeps it (not shown).
    let again = e
        .review_links(&ReviewLinksRequest { session_id: sid.clone(), reviewers: vec!["Ana".into()], rotate: false })
        .unwrap();
    assert_eq!(again.links[0].status, LinkStatus::Unchanged);
    assert!(again.links[0].token.is_none());
    assert!(e.review_me(&ana).is_ok());
    let rotated = e
        .review_links(&ReviewLinksRequest { session_id: sid.clone(), reviewers: vec!["Ana".into()], rotate: true })
        .unwrap();
    assert_eq!(rotated.links[0].status, LinkStatus::Rotated);
    let ana2 = rotated.links[0].token.clone().unwrap();
    assert_eq!(e.review_me(&ana).unwrap_err().code, ErrorCode::Forbidden);
    assert_eq!(e.review_me(&ana2).unwrap().reviewer, "Ana");
    assert!(e.review_show(&sid).unwrap().progress.iter().all(|p| p.link_active));
    // Tokens are stored hashed only.
    let stored: Vec<String> = e
        .store()
        .with_conn(|c| {
            let mut st = c.prepare("SELECT token_hash FROM review_tokens")?;
            let v = st.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>();
            v
        })
        .unwrap();
    assert!(!stored.contains(&ana2) && stored.contains(&psebench::review::tokens::hash(&ana2)));
    // A local token (desktop app) goes through the same rules.
    let local = e.review_local_token(&sid, "Ben").unwrap();
    assert_eq!(e.review_local_token(&sid, "Ben").unwrap(), local);
    assert_eq!(e.review_reveal(&local, 1).unwrap_err().code, ErrorCode::Forbidden);
    assert_eq!(e.review_me(&local).unwrap().reviewer, "Ben");
    assert_eq!(e.review_local_token(&sid, "Zed").unwrap_err().code, ErrorCode::NotFound);
    // Another engine on the same store does not know this process's local token.
    let other = Engine::open(e.store().path()).unwrap();
    assert_eq!(other.review_me(&local).unwrap_err().code, ErrorCode::Forbidden);
    assert_eq!(other.review_me(&ben).unwrap().reviewer, "Ben");
}

#[test]
fn answers_are_saved_as_given_and_resume_where_one_stopped() {
    let (_d, e) = demo();
    let s = create(&e, "Autosave", sample(2, 2, 2), &["Ana"], None, 11);
    let sid = s.summary.session_id;
    let tok = links(&e, &sid).remove("Ana").unwrap();
    let me = e.review_me(&tok).unwrap();
    assert_eq!(me.resume_item_no, Some(1));
    assert_eq!(me.progress, ReviewProgress { completed: 0, total: 6 });
    assert_eq!(me.realism_anchors.len(), 5);
    assert_eq!(me.verdict_options.len(), 4);

    let r = e.review_answer(&tok, 1, &ReviewAnswerPatch { realism: Some(4), ..patch() }).unwrap();
    assert!(r.answer.realism_at.is_some() && r.answer.plausibility_at.is_none());
    // a second engine on the same file sees it at once: it was committed
    let other = Engine::open(e.store().path()).unwrap();
    assert_eq!(other.review_item(&tok, 1).unwrap().answer.realism, Some(4));

    answer_fully(&e, &tok, 1, 4, 4, ReviewVerdict::Reportable, true);
    answer_fully(&e, &tok, 3, 4, 4, ReviewVerdict::Reportable, true);
    let me = e.review_me(&tok).unwrap();
    assert_eq!(me.resume_item_no, Some(2));
    assert_eq!(me.progress.completed, 2);
    assert!(me.items[0].complete && !me.items[1].complete && me.items[2].complete);
    assert_eq!(me.time_spent_secs, 40.0);

    // Time: deltas add up, absurd reports are capped, negative ones refused.
    let t = e.review_answer(&tok, 2, &ReviewAnswerPatch { add_time_secs: Some(7.5), ..patch() }).unwrap();
    assert_eq!(t.answer.time_spent_secs, 7.5);
    let t = e.review_answer(&tok, 2, &ReviewAnswerPatch { add_time_secs: Some(100_000.0), ..patch() }).unwrap();
    assert!(t.time_capped);
    assert_eq!(t.answer.time_spent_secs, 907.5);
    assert_eq!(
        e.review_answer(&tok, 2, &ReviewAnswerPatch { add_time_secs: Some(-3.0), ..patch() }).unwrap_err().code,
        ErrorCode::ValidationFailed
    );
    assert_eq!(
        e.review_answer(&tok, 2, &ReviewAnswerPatch { realism: Some(6), ..patch() }).unwrap_err().code,
        ErrorCode::ValidationFailed
    );

    for n in [2, 4, 5, 6] {
        answer_fully(&e, &tok, n, 5, 5, ReviewVerdict::Uncertain, false);
    }
    let me = e.review_me(&tok).unwrap();
    assert_eq!(me.resume_item_no, None, "all done");
    assert_eq!(e.review_show(&sid).unwrap().progress[0].completed, 6);
    // The item view links to its neighbours.
    let v = e.review_item(&tok, 1).unwrap();
    assert_eq!((v.prev_item_no, v.next_item_no), (None, Some(2)));
    let v = e.review_item(&tok, 6).unwrap();
    assert_eq!((v.prev_item_no, v.next_item_no), (Some(5), None));
}

/// A 90-case session answered by two reviewers: Ana agrees with construction except on two complete
/// cases; Ben except on one missing case. Realism: Ana 5, Ben 4; plausibility: Ana 4, Ben 4, except
/// where noted.
/// Per (reviewer, item number): what that reviewer answered for the item.
type Answers = HashMap<(String, u32), (String, String, ReviewVerdict)>;

fn answered_session(e: &Engine) -> (String, Answers) {
    let s = create(e, "Full", ReviewSelection::default(), &["Ana", "Ben"], None, 2024);
    let sid = s.summary.session_id;
    let t = links(e, &sid);
    let map = assignment(e, &sid);
    let mut complete_seen = 0;
    let mut keys: Vec<&(String, u32)> = map.keys().collect();
    keys.sort();
    for key in keys {
        let (reviewer, item) = key;
        let (case_id, case_type, expected) = &map[key];
        let tok = &t[reviewer];
        let mut verdict = *expected;
        if reviewer == "Ana" && case_type == "complete" {
            complete_seen += 1;
            if complete_seen <= 2 {
                verdict = if *expected == ReviewVerdict::Reportable {
                    ReviewVerdict::NonReportable
                } else {
                    ReviewVerdict::Reportable
                };
            }
        }
        if reviewer == "Ben" && case_type == "missing" && case_id.ends_with("_1") && case_id.contains("Surgical_1_") {
            verdict = ReviewVerdict::Uncertain;
        }
        let realism = if reviewer == "Ana" { 5 } else { 4 };
        answer_fully(e, tok, *item, realism, 4, verdict, verdict == *expected);
    }
    (sid, map)
}

#[test]
fn statistics_of_a_fully_answered_session() {
    let (_d, e) = demo();
    let (sid, _) = answered_session(&e);
    let st = e.review_stats(&sid).unwrap();
    assert_eq!(st.completed, 180);
    let by: HashMap<&str, &TypeStats> = st.by_type.iter().map(|t| (t.case_type.as_str(), t)).collect();
    assert_eq!(by["complete"].cases_blind_agreement.text, "28/30");
    assert_eq!(by["missing"].cases_blind_agreement.text, "29/30");
    assert_eq!(by["uncertain"].cases_blind_agreement.text, "30/30");
    assert_eq!(by["complete"].cases_agree_mark.text, "28/30");
    assert_eq!(by["complete"].blind_agreement.text, "58/60");
    assert_eq!(by["all"].blind_agreement.text, "177/180");
    // realism: 30 fives and 30 fours per type → mean 4.5, sample SD sqrt(60·0.25/59)
    let r = &by["complete"].realism;
    assert_eq!(r.n, 60);
    assert!((r.mean.unwrap() - 4.5).abs() < 1e-12);
    assert!((r.sd.unwrap() - (15.0f64 / 59.0).sqrt()).abs() < 1e-12);
    assert_eq!(by["all"].plausibility.mean, Some(4.0));
    assert_eq!(by["all"].plausibility.sd, Some(0.0));
    // per reviewer
    let ana = &st.per_reviewer[0];
    assert_eq!(ana.reviewer, "Ana");
    assert_eq!(ana.by_type[0].blind_agreement.text, "28/30");
    assert_eq!(st.per_reviewer[1].by_type[1].blind_agreement.text, "29/30");
    // inter-rater: one pair, 90 items
    let v = &st.inter_rater.verdict;
    assert_eq!(v.cohen_kappa.n, 90);
    assert_eq!(v.fleiss_kappa.n, 90);
    assert!(v.cohen_kappa.value.unwrap() > 0.9 && v.cohen_kappa.value.unwrap() < 1.0);
    // realism: Ana always 5, Ben always 4 → no shared variation at all: kappa_w is 0
    // (expected disagreement equals observed), alpha is negative.
    let rk = st.inter_rater.realism.weighted_kappa.value.unwrap();
    assert!(rk.abs() < 1e-12, "{rk}");
    assert!(st.inter_rater.realism.krippendorff_alpha_ordinal.value.unwrap() < 0.0);
    // plausibility all 4 → undefined, with the reason
    assert_eq!(st.inter_rater.plausibility.krippendorff_alpha_ordinal.value, None);
    assert!(st.inter_rater.plausibility.weighted_kappa.note.is_some());

    // Summary tables and the long export.
    let sum = e.review_summary(&sid).unwrap();
    assert!(sum.markdown.contains("| Complete | 30 | 4.50 ± 0.50 | 4.00 ± 0.00 | 28/30 | 28/30 |"), "{}", sum.markdown);
    assert!(sum.latex.contains("\\toprule") && sum.latex.contains("Complete & 30 & $4.50 \\pm 0.50$"), "{}", sum.latex);
    assert!(sum.markdown.contains("### Agreement between reviewers, by case type"), "{}", sum.markdown);
    assert!(sum.markdown.contains("\n- Complete (30 cases): realism, alpha (ordinal) "), "{}", sum.markdown);
    assert_eq!(st.inter_rater_by_type.len(), 3);
    assert_eq!(st.inter_rater_by_type[0].cases, 30);
    let dir = tempfile::tempdir().unwrap();
    let files = e.review_summary_write(&sid, dir.path()).unwrap();
    assert_eq!(files.files.len(), 3);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("review-stats.json")).unwrap()).unwrap();
    assert_eq!(json["by_type"][0]["cases_blind_agreement"]["text"], "28/30");

    // 180 answers × (realism, plausibility, blind verdict, agree, time) = 900 rows; no comments.
    let rows = e.review_export_rows(&sid).unwrap();
    assert_eq!(rows.len(), 900);
    assert!(rows.iter().all(|r| !r.answered_at.is_empty()));
    let csv_path = dir.path().join("answers.csv");
    let res = e.review_export(&sid, &csv_path).unwrap();
    assert_eq!(res.rows, 900);
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert_eq!(csv.lines().count(), 901);
    assert!(csv.starts_with("session_id,reviewer,case_id,case_type,item_no,question,answer,answered_at"));
    let jl = dir.path().join("answers.jsonl");
    e.review_export(&sid, &jl).unwrap();
    assert_eq!(std::fs::read_to_string(&jl).unwrap().lines().count(), 900);
    assert_eq!(e.review_export(&sid, &dir.path().join("a.txt")).unwrap_err().code, ErrorCode::InvalidInput);
}

#[test]
fn adjudication_queue_history_and_exclusion() {
    let (_d, e) = demo();
    let (sid, _) = answered_session(&e);
    let q = e
        .review_queue(&ReviewQueueRequest {
            session_id: sid.clone(),
            threshold: None,
            low_rating: None,
            include_decided: false,
            include_unflagged: false,
        })
        .unwrap();
    // Two complete cases (Ana) and one missing case (Ben) disagree; ratings 5 vs 4 are not apart enough.
    assert_eq!(q.items.len(), 3, "{:?}", q.items.iter().map(|i| &i.reasons).collect::<Vec<_>>());
    assert_eq!(q.pending, 3);
    let codes: Vec<&str> = q.items[0].reasons.iter().map(|r| r.code.as_str()).collect();
    assert!(
        codes.contains(&"verdicts_differ")
            && codes.contains(&"blind_differs_from_construction")
            && codes.contains(&"disagree_mark")
    );
    assert_eq!(q.items[0].answers.len(), 2, "the owner sees every reviewer's answer");
    // a strict spread threshold queues every case (5 vs 4 is more than 0 apart)
    let strict = e
        .review_queue(&ReviewQueueRequest {
            session_id: sid.clone(),
            threshold: Some(0),
            low_rating: None,
            include_decided: false,
            include_unflagged: false,
        })
        .unwrap();
    assert_eq!(strict.items.len(), 90);

    let case = q.items[0].case_id.clone();
    let reject = e
        .review_adjudicate(&ReviewAdjudicateRequest {
            session_id: sid.clone(),
            case_id: case.clone(),
            decision: AdjudicationDecision::Reject,
            adjudicator: "Dr Lee".into(),
            note: Some("narrative contradicts itself".into()),
            exclude: true,
        })
        .unwrap();
    assert!(reject.excluded_case);
    let summary = e.cases_list(&CaseFilter { include_excluded: true, ..Default::default() }).unwrap();
    assert!(summary.iter().find(|c| c.case_id == case).unwrap().excluded);
    assert!(e.cases_list(&CaseFilter::default()).unwrap().iter().all(|c| c.case_id != case), "runs leave it out");
    let q2 = e
        .review_queue(&ReviewQueueRequest {
            session_id: sid.clone(),
            threshold: None,
            low_rating: None,
            include_decided: false,
            include_unflagged: false,
        })
        .unwrap();
    assert_eq!((q2.items.len(), q2.pending, q2.decided), (2, 2, 1));
    let q3 = e
        .review_queue(&ReviewQueueRequest {
            session_id: sid.clone(),
            threshold: None,
            low_rating: None,
            include_decided: true,
            include_unflagged: false,
        })
        .unwrap();
    let decided = q3.items.iter().find(|i| i.case_id == case).unwrap();
    assert!(decided.excluded_in_dataset);
    assert_eq!(decided.decision.as_ref().unwrap().adjudicator, "Dr Lee");

    // A later decision supersedes, never deletes, and undoes this session's exclusion.
    let relabel = e
        .review_adjudicate(&ReviewAdjudicateRequest {
            session_id: sid.clone(),
            case_id: case.clone(),
            decision: AdjudicationDecision::Relabel { verdict: ReviewVerdict::Uncertain },
            adjudicator: "Dr Kim".into(),
            note: None,
            exclude: false,
        })
        .unwrap();
    assert!(relabel.restored_case);
    assert!(e.cases_list(&CaseFilter::default()).unwrap().iter().any(|c| c.case_id == case));
    let hist = e.review_adjudications(&sid, Some(&case)).unwrap();
    assert_eq!(hist.len(), 2);
    assert!(hist[0].superseded && !hist[1].superseded);
    assert_eq!(hist[0].decision, AdjudicationDecision::Reject);
    assert_eq!(hist[1].decision, AdjudicationDecision::Relabel { verdict: ReviewVerdict::Uncertain });

    // Refusals: exclusion without rejection, unknown case, no name.
    let mut bad = ReviewAdjudicateRequest {
        session_id: sid.clone(),
        case_id: case.clone(),
        decision: AdjudicationDecision::Accept,
        adjudicator: "Dr Lee".into(),
        note: None,
        exclude: true,
    };
    assert!(e.review_adjudicate(&bad).unwrap_err().message.contains("Only a rejection"));
    bad.exclude = false;
    bad.case_id = "nope".into();
    assert_eq!(e.review_adjudicate(&bad).unwrap_err().code, ErrorCode::NotFound);
    bad.case_id = case.clone();
    bad.adjudicator = "  ".into();
    assert!(e.review_adjudicate(&bad).is_err());
    // An exclusion made by someone else is not undone by the review.
    e.case_set_excluded(&case, true, Some("duplicate of another case")).unwrap();
    bad.adjudicator = "Dr Lee".into();
    let acc = e.review_adjudicate(&bad).unwrap();
    assert!(!acc.restored_case);
    assert!(e.cases_list(&CaseFilter::default()).unwrap().iter().all(|c| c.case_id != case));
}

#[test]
fn review_packs_travel_to_another_store_and_merge_back_once() {
    let (dir, owner) = demo();
    let s = create(&owner, "Packs", sample(3, 3, 3), &["Ana", "Ben"], Some(2), 77);
    let sid = s.summary.session_id.clone();
    let map = assignment(&owner, &sid);
    // Ana answered item 1 on the LAN before getting a pack.
    let ana_link = links(&owner, &sid).remove("Ana").unwrap();
    owner.review_answer(&ana_link, 1, &ReviewAnswerPatch { realism: Some(2), ..patch() }).unwrap();

    let pack_path = dir.path().join("ana-pack.json");
    let info = owner.review_pack_export(&sid, "Ana", &pack_path).unwrap();
    assert_eq!((info.items, info.answered), (9, 1));
    let file_text = std::fs::read_to_string(&pack_path).unwrap();
    let pack_file = pack::parse("ana-pack.json", &file_text).unwrap();
    // the pack's token does not open the owner's store (it only merges)
    assert_eq!(owner.review_me(&pack_file.token).unwrap_err().code, ErrorCode::Forbidden);
    // opening a pack where the session was created is refused
    assert_eq!(owner.review_pack_open(&pack_path).unwrap_err().code, ErrorCode::Conflict);

    // A second store, with no cases at all.
    let (_d2, visit) = temp_engine();
    let opened = visit.review_pack_open(&pack_path).unwrap();
    assert_eq!((opened.items, opened.answered, opened.already_open), (9, 1, false));
    let again = visit.review_pack_open(&pack_path).unwrap();
    assert!(again.already_open);
    assert_eq!(again.fields_updated, 0);
    let shown = visit.review_show(&sid).unwrap();
    assert_eq!(shown.summary.role, SessionRole::Visiting);
    assert_eq!(shown.summary.reviewers, vec!["Ana"]);
    // owner-only actions are refused in the visiting store
    assert_eq!(visit.review_stats(&sid).unwrap_err().code, ErrorCode::Forbidden);
    assert_eq!(
        visit
            .review_links(&ReviewLinksRequest { session_id: sid.clone(), reviewers: vec![], rotate: false })
            .unwrap_err()
            .code,
        ErrorCode::Forbidden
    );
    assert!(visit.review_pack_export_text(&sid, "Ana").is_err());

    // Ana reviews in the visiting store; blind-first holds there too.
    let tok = visit.review_local_token(&sid, "Ana").unwrap();
    assert_eq!(visit.review_me(&pack_file.token).unwrap().reviewer, "Ana", "the pack's token opens it here");
    let me = visit.review_me(&tok).unwrap();
    assert_eq!(me.items[0].realism, Some(2), "answers so far came with the pack");
    assert_eq!(me.resume_item_no, Some(1));
    assert_eq!(visit.review_reveal(&tok, 2).unwrap_err().code, ErrorCode::Forbidden);
    for n in 1..=9 {
        let (_, _, expected) = map[&("Ana".to_string(), n)];
        answer_fully(&visit, &tok, n, 4, 3, expected, true);
    }
    visit.review_answer(&tok, 4, &ReviewAnswerPatch { comment: Some("dose seems high".into()), ..patch() }).unwrap();
    let answers_path = dir.path().join("ana-answers.json");
    let out = visit.review_pack_answers_export(&sid, None, &answers_path).unwrap();
    assert_eq!(out.answered, 9);
    // an answers file is not a pack
    assert!(visit.review_pack_open(&answers_path).unwrap_err().message.contains("answers file"));

    // Merge into the owner's store: once changes things, twice changes nothing.
    let m1 = owner.review_pack_merge(&answers_path).unwrap();
    assert_eq!(m1.reviewer, "Ana");
    assert_eq!(m1.items_changed, 9);
    assert!(m1.fields_updated > 30);
    let m2 = owner.review_pack_merge(&answers_path).unwrap();
    assert_eq!((m2.items_changed, m2.fields_updated), (0, 0));
    let before = owner.review_export_rows(&sid).unwrap();
    owner.review_pack_merge(&answers_path).unwrap();
    assert_eq!(owner.review_export_rows(&sid).unwrap(), before);
    let shown = owner.review_show(&sid).unwrap();
    let ana = shown.progress.iter().find(|p| p.reviewer == "Ana").unwrap();
    assert_eq!(ana.completed, 9);
    assert!(before.iter().any(|r| r.question == "comment" && r.answer == "dose seems high"));
    // merging the original pack (older answers) changes nothing either
    assert_eq!(owner.review_pack_merge(&pack_path).unwrap().fields_updated, 0);

    // Refusals, all with nothing merged.
    let answers_text = std::fs::read_to_string(&answers_path).unwrap();
    let tampered = answers_text.replacen("\"realism\": 4", "\"realism\": 5", 1);
    assert!(owner
        .review_pack_merge_text("edited.json", &tampered)
        .unwrap_err()
        .message
        .contains("changed after it was exported"));
    let reseal = |f: pack::ReviewPackFile| pack::seal(f).unwrap();
    let base = pack::parse("a", &answers_text).unwrap();
    let mut other_fp = base.clone();
    other_fp.fingerprint = "0".repeat(64);
    let err = owner.review_pack_merge_text("fp.json", &reseal(other_fp)).unwrap_err();
    assert!(err.message.contains("fingerprint"), "{}", err.message);
    let mut as_ben = base.clone();
    as_ben.reviewer = "Ben".into();
    assert_eq!(owner.review_pack_merge_text("ben.json", &reseal(as_ben)).unwrap_err().code, ErrorCode::Forbidden);
    // Answers are signed with a key the pack carries: edited answers are refused, but someone who
    // takes that key from the pack file can sign their own (the merge checks below still hold).
    let mut edited_answer = base.clone();
    edited_answer.answers[0].parts.realism = Some(1);
    let err = owner.review_pack_merge_text("edited.json", &reseal(edited_answer)).unwrap_err();
    assert!(err.message.contains("changed outside the app"), "{}", err.message);
    let reseal = |mut f: pack::ReviewPackFile| {
        psebench::review::signing::sign_answers(&mut f, &pack_file.answers_key).unwrap();
        pack::seal(f).unwrap()
    };
    let mut wrong_item = base.clone();
    let ben_only = map
        .iter()
        .find(|((r, _), (c, _, _))| r == "Ben" && !map.iter().any(|((r2, _), (c2, _, _))| r2 == "Ana" && c2 == c));
    if let Some((_, (ben_case, _, _))) = ben_only {
        wrong_item.answers[0].case_id = ben_case.clone();
        let err = owner.review_pack_merge_text("wrong.json", &reseal(wrong_item)).unwrap_err();
        assert!(err.message.contains("not assigned to Ana"), "{}", err.message);
    } else {
        // overlap 2 with 2 reviewers: both rate everything, so swap two of Ana's items instead
        let (a0, a1) = (wrong_item.answers[0].case_id.clone(), wrong_item.answers[1].case_id.clone());
        wrong_item.answers[0].case_id = a1;
        wrong_item.answers[1].case_id = a0;
        let err = owner.review_pack_merge_text("wrong.json", &reseal(wrong_item)).unwrap_err();
        assert!(err.message.contains("not assigned to Ana"), "{}", err.message);
    }
    // a pack of a session this store does not have
    let (_d3, third) = demo();
    let other = create(&third, "Elsewhere", sample(1, 1, 1), &["Ana"], None, 1);
    let (_, foreign) = third.review_pack_export_text(&other.summary.session_id, "Ana").unwrap();
    let err = owner.review_pack_merge_text("foreign.json", &foreign).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(err.message.contains("Elsewhere") && err.message.contains("not in this store"), "{}", err.message);
    assert!(owner.review_pack_merge_text("x.json", "not json").unwrap_err().message.contains("not valid JSON"));
    // deleting the visiting copy removes it entirely
    visit.review_delete(&sid).unwrap();
    assert!(visit.review_list().unwrap().is_empty());
    assert_eq!(visit.review_me(&tok).unwrap_err().code, ErrorCode::Forbidden);
}

#[test]
fn guidelines_can_be_written_and_shown_to_reviewers() {
    let (_d, e) = demo();
    let s = e
        .review_create(&ReviewCreateRequest {
            name: "Guided".into(),
            selection: sample(1, 1, 1),
            reviewers: vec!["Ana".into()],
            overlap: None,
            seed: None,
            guidelines: Some("# Our rules\n\nRead twice.".into()),
            rationale_from: None,
        })
        .unwrap();
    assert!(s.seed.is_some(), "a random seed is chosen and recorded");
    let tok = links(&e, &s.summary.session_id).remove("Ana").unwrap();
    assert!(e.review_me(&tok).unwrap().guidelines.starts_with("# Our rules"));
    e.review_guidelines_set(&s.summary.session_id, "New text").unwrap();
    assert_eq!(e.review_me(&tok).unwrap().guidelines, "New text\n");
    e.review_delete(&s.summary.session_id).unwrap();
    assert_eq!(e.review_me(&tok).unwrap_err().code, ErrorCode::Forbidden);
}

/// A session with one reviewer who answered everything in a visiting store: (owner, pack text,
/// answers text, the visiting store kept alive).
struct PackRound {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    owner: Engine,
    pack: String,
    answers: String,
}

fn pack_round() -> PackRound {
    let (d1, owner) = demo();
    let s = create(&owner, "Signed", sample(2, 2, 2), &["Ana"], None, 5);
    let sid = s.summary.session_id.clone();
    let map = assignment(&owner, &sid);
    let (_, pack_text) = owner.review_pack_export_text(&sid, "Ana").unwrap();
    let (d2, visit) = temp_engine();
    visit.review_pack_open_text("ana-pack.json", &pack_text).unwrap();
    let tok = visit.review_local_token(&sid, "Ana").unwrap();
    for n in 1..=6 {
        let (_, _, expected) = map[&("Ana".to_string(), n)];
        answer_fully(&visit, &tok, n, 4, 3, expected, true);
    }
    let (_, answers) = visit.review_pack_answers_text(&sid, None).unwrap();
    PackRound { _dirs: (d1, d2), owner, pack: pack_text, answers }
}

/// Change a file's JSON with `edit`, then write it again with a valid checksum, as someone who
/// edits the file by hand and recomputes the unkeyed checksum would.
fn edited(text: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    edit(&mut v);
    let f: pack::ReviewPackFile = serde_json::from_value(v).unwrap();
    pack::seal(f).unwrap()
}

fn flip_expected(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "expected_verdict" {
                    *x = serde_json::json!(if x == "Reportable" { "Uncertain" } else { "Reportable" });
                } else {
                    flip_expected(x);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(flip_expected),
        _ => {}
    }
}

#[test]
fn an_untouched_signed_round_trip_merges() {
    let r = pack_round();
    let m = r.owner.review_pack_merge_text("ana-answers.json", &r.answers).unwrap();
    assert_eq!(m.items_changed, 6);
    assert_eq!(r.owner.review_pack_merge_text("ana-pack.json", &r.pack).unwrap().fields_updated, 0);
}

#[test]
fn an_edited_expected_verdict_is_refused_at_merge() {
    let r = pack_round();
    for (name, text) in [("pack.json", &r.pack), ("answers.json", &r.answers)] {
        let forged = edited(text, flip_expected);
        assert_ne!(&forged, text);
        let e = r.owner.review_pack_merge_text(name, &forged).unwrap_err();
        assert!(e.message.contains("edited after the pack was exported"), "{name}: {}", e.message);
        assert!(e.message.contains("nothing was merged"), "{}", e.message);
    }
    assert!(r.owner.review_pack_merge_text("answers.json", &r.answers).is_ok());
}

#[test]
fn an_answer_edited_by_hand_is_refused_at_merge() {
    let r = pack_round();
    let forged = edited(&r.answers, |v| v["answers"][0]["realism"] = serde_json::json!(1));
    let e = r.owner.review_pack_merge_text("answers.json", &forged).unwrap_err();
    assert_eq!(e.code, ErrorCode::ValidationFailed);
    assert!(e.message.contains("answers were changed outside the app"), "{}", e.message);
    let stats = r.owner.review_export_rows(&pack::parse("a", &r.answers).unwrap().session_id).unwrap();
    assert!(stats.iter().all(|row| row.question != "realism" || row.answer.is_empty()), "nothing was merged");
}

#[test]
fn a_blind_verdict_dated_after_its_reveal_is_refused_with_the_case_named() {
    let r = pack_round();
    let f = pack::parse("a", &r.answers).unwrap();
    let case = f.answers[2].case_id.clone();
    // Forged the way a determined reviewer could: with the answers key the pack carries.
    let key = pack::parse("p", &r.pack).unwrap().answers_key;
    let mut f2 = f.clone();
    let revealed = f2.answers[2].parts.revealed_at.clone().unwrap();
    // A second after the reveal: not in the future (that is refused on its own), but not blind.
    let later = chrono::DateTime::parse_from_rfc3339(&revealed).unwrap() + chrono::Duration::seconds(1);
    f2.answers[2].parts.blind_verdict_at =
        Some(later.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    psebench::review::signing::sign_answers(&mut f2, &key).unwrap();
    let e = r.owner.review_pack_merge_text("answers.json", &pack::seal(f2).unwrap()).unwrap_err();
    assert!(e.message.contains(&format!("\"{case}\"")), "{}", e.message);
    assert!(e.message.contains("after the by-construction verdict was shown"), "{}", e.message);
}

const HOSTILE: &str = "<script>alert(1)</script> <img src=x onerror=alert(2)> \u{202E}fdp.exe | a*b_c `x` [l](javascript:alert(3)) 50% & $x$ #1 {} \\end{table} ~^";

/// Hostile narratives, session names and comments come out of every export quoted or escaped,
/// and the data formats read back to the same text.
#[test]
fn hostile_text_is_escaped_in_every_export_and_reads_back() {
    let (dir, e) = demo();
    let template_id = e.cases_list(&CaseFilter::default()).unwrap()[0].case_id.clone();
    let mut case = serde_json::to_value(e.case_show(&template_id).unwrap()).unwrap();
    let narrative = format!("{HOSTILE} nul:\u{0}: {}", "N".repeat(1024 * 1024));
    case["case_id"] = "hostile_case_1".into();
    case["narrative"] = narrative.clone().into();
    let path =
        crate::common::write(dir.path(), "hostile.jsonl", format!("{}\n", serde_json::to_string(&case).unwrap()));
    assert_eq!(e.cases_import(&path, false, "imported").unwrap().imported, 1);
    // cases.jsonl reads back to the same narrative
    let out = dir.path().join("out.jsonl");
    e.cases_export(&out, &CaseFilter { origin: Some("imported".into()), ..Default::default() }).unwrap();
    let line = std::fs::read_to_string(&out).unwrap();
    let back: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(back["narrative"].as_str(), Some(narrative.as_str()));

    let name = "Pilot <script>alert(1)</script> \u{202E} | *x* _y_ 50% & $ # [l](javascript:x)";
    let s = e
        .review_create(&ReviewCreateRequest {
            name: name.into(),
            selection: ReviewSelection::Cases { case_ids: vec!["hostile_case_1".into()] },
            reviewers: vec!["Ana".into()],
            overlap: None,
            seed: Some(1),
            guidelines: None,
            rationale_from: None,
        })
        .unwrap();
    let sid = s.summary.session_id.clone();
    let tok = e.review_local_token(&sid, "Ana").unwrap();
    let comment = format!("=1+2 {HOSTILE}\u{0}\n\"quoted\", line two {}", "C".repeat(15_000));
    answer_fully(&e, &tok, 1, 1, 1, ReviewVerdict::Uncertain, false);
    e.review_answer(&tok, 1, &ReviewAnswerPatch { comment: Some(comment.clone()), ..patch() }).unwrap();

    // CSV: one cell, quoted, read back intact (a formula-looking cell gets its prefix).
    let csv_text = e.review_export_text(&sid, ReviewExportFormat::Csv).unwrap();
    let mut rd = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = rd.headers().unwrap().clone();
    let answer_col = headers.iter().position(|h| h == "answer").unwrap();
    let cells: Vec<String> = rd.records().map(|r| r.unwrap()[answer_col].to_string()).collect();
    assert!(cells.iter().any(|c| c.trim_start_matches('\'') == comment), "the comment reads back from the CSV");
    assert!(!cells.iter().any(|c| c.starts_with('=')), "no cell starts as a formula");
    // JSONL: every line is JSON, the comment reads back exactly.
    let jsonl = e.review_export_text(&sid, ReviewExportFormat::Jsonl).unwrap();
    let rows: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(rows.iter().any(|r| r["answer"].as_str() == Some(comment.as_str())));

    // Markdown and LaTeX summaries: the session name cannot add markup or break out.
    let sum = e.review_summary(&sid).unwrap();
    assert!(!sum.markdown.contains("<script>"), "{}", &sum.markdown[..200]);
    assert!(!sum.markdown.contains("](javascript"), "no live link");
    let heading = sum.markdown.lines().next().unwrap();
    assert!(heading.contains("\\|") && heading.contains("\\*x\\*"), "{heading}");
    assert!(!sum.latex.contains("50% "), "percent signs are escaped");
    assert!(sum.latex.contains("50\\%") && sum.latex.contains("\\&") && sum.latex.contains("\\$"));
}

/// An answers file signed with the pack's own key (as a determined reviewer could) is held to the
/// rules of the live answer path: a comment over the length limit, a part dated in the future, a
/// time that is not a date, a rating off the scale and a verdict that does not exist are each
/// refused with a plain sentence, and nothing is merged.
#[test]
fn a_merged_answers_file_obeys_the_limits_and_dates_of_the_live_path() {
    let r = pack_round();
    let f = pack::parse("a", &r.answers).unwrap();
    let sid = f.session_id.clone();
    let key = pack::parse("p", &r.pack).unwrap().answers_key;
    let forge = |edit: &dyn Fn(&mut pack::ReviewPackFile)| {
        let mut f2 = f.clone();
        edit(&mut f2);
        psebench::review::signing::sign_answers(&mut f2, &key).unwrap();
        pack::seal(f2).unwrap()
    };
    let item = f.answers[1].item_no;
    type Edit = Box<dyn Fn(&mut pack::ReviewPackFile)>;
    let cases: Vec<(&str, Edit, String)> = vec![
        (
            "long comment",
            Box::new(|f| f.answers[1].parts.comment = Some("x".repeat(2_000_000))),
            format!("Item {item}: The comment is longer than 20000 characters; please shorten it."),
        ),
        (
            "comment dated 2099",
            Box::new(|f| f.answers[1].parts.comment_at = Some("2099-01-01T00:00:00.000Z".into())),
            format!("The answer to item {item} has its comment dated 2099-01-01T00:00:00.000Z, which is later than the clock"),
        ),
        (
            "reveal dated 2099",
            Box::new(|f| {
                f.answers[1].parts.blind_verdict_at = Some("2098-01-01T00:00:00.000Z".into());
                f.answers[1].parts.revealed_at = Some("2099-01-01T00:00:00.000Z".into());
            }),
            format!("The answer to item {item} has its blind verdict dated 2098-01-01T00:00:00.000Z"),
        ),
        (
            "time that is not a date",
            Box::new(|f| f.answers[1].parts.realism_at = Some("last Tuesday".into())),
            format!(
                "The answer to item {item} is inconsistent (the time of the realism, \"last Tuesday\", is not a date and time)"
            ),
        ),
        (
            "rating off the scale",
            Box::new(|f| f.answers[1].parts.realism = Some(7)),
            format!("Item {item}: Realism is rated from 1 to 5; 7 is not on the scale."),
        ),
    ];
    for (what, edit, expected) in &cases {
        let e = r.owner.review_pack_merge_text("answers.json", &forge(edit.as_ref())).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed, "{what}");
        assert!(e.message.starts_with(expected.as_str()), "{what}: {}", e.message);
        assert!(e.message.to_lowercase().contains("nothing was merged"), "{what}: {}", e.message);
    }
    // A verdict that does not exist does not even read as an answers file.
    let mut v: serde_json::Value = serde_json::from_str(&forge(&|_| {})).unwrap();
    v["answers"][1]["blind_verdict"] = serde_json::json!("Maybe");
    let e = r.owner.review_pack_merge_text("answers.json", &v.to_string()).unwrap_err();
    assert!(e.message.contains("incomplete or damaged") && e.message.contains("Maybe"), "{}", e.message);
    // Nothing of any refused file was merged; the untouched file still merges.
    let rows = r.owner.review_export_rows(&sid).unwrap();
    assert!(rows.iter().all(|row| !["realism", "comment"].contains(&row.question.as_str()) || row.answer.is_empty()));
    assert_eq!(r.owner.review_pack_merge_text("answers.json", &r.answers).unwrap().items_changed, 6);
}
