//! The two protocols through the real HTTP client against the loopback mock: a `paper`
//! generation makes no clause-screen call; a `paper` evaluation sends the paper-equivalent
//! prompts (checked by name and version), reads a fenced reply as no verdict where `studio`
//! repairs it, and gives the judge no clause text; every run records what made it; a run over
//! cases of two policies shows each case its own policy.

use psebench::evaluation::EvaluationRunRequest;
use psebench::generation::GenerationRequest;
use psebench::mock::MockServer;
use psebench::protocol::Protocol;
use psebench::trajectory::Turn;
use serde_json::json;

use super::generation::{bodies_by, request, script_with, setup, user_text, REP};

fn eval_request(file: &std::path::Path, model: &str, protocol: Protocol) -> EvaluationRunRequest {
    EvaluationRunRequest {
        cases: file.display().to_string(),
        model: model.into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        turns: 4,
        concurrency: 2,
        protocol,
        ..Default::default()
    }
}

fn system_text(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    // OpenAI-style bodies carry it as the first message, Anthropic ones in "system" (text or blocks).
    if let Some(s) = v["system"].as_str() {
        return s.to_string();
    }
    if let Some(blocks) = v["system"].as_array() {
        return blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    }
    v["messages"][0]["content"].as_str().unwrap_or("").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paper_generation_makes_no_screen_call_and_says_so() {
    let mock = MockServer::start(script_with(vec![]), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path(), &mock);

    let paper = GenerationRequest { protocol: Protocol::Paper, ..request(REP, 2) };
    let plan = e.generation_plan(&paper).unwrap();
    assert_eq!(plan.protocol, Protocol::Paper);
    assert!(plan.destinations.iter().all(|d| d.role != "clause screen"), "no screen model is called");
    assert!(plan.estimate.per_stage.iter().all(|s| s.stage != "clause_screen"));
    // A spending cap needs the price of every model called: a paper run never calls the screen's.
    e.model_add(&psebench::api::models::ModelAddRequest {
        name: "far-screen".into(),
        kind: "openai".into(),
        model: "far-screen-id".into(),
        base_url: Some("https://api.example.invalid/v1".into()),
        ..Default::default()
    })
    .unwrap();
    let capped =
        GenerationRequest { screen_model: Some("far-screen".into()), max_cost_usd: Some(5.0), ..paper.clone() };
    e.generation_plan(&capped).expect("the unpriced screen model is not called under paper");
    let refused = e.generation_plan(&GenerationRequest { protocol: Protocol::Studio, ..capped }).unwrap_err();
    assert!(refused.message.contains("far-screen"), "{}", refused.message);
    let studio_plan = e.generation_plan(&request(REP, 2)).unwrap();
    assert!(studio_plan.destinations.iter().any(|d| d.role == "clause screen"));
    assert!(studio_plan.estimate.calls > plan.estimate.calls);
    let run = e.generation_create(&paper).unwrap();
    let s = e.generation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert!(s.counts.accepted >= 2, "{:?}", s.counts);
    assert!(bodies_by(&mock, "screen").is_empty() && bodies_by(&mock, "screen-unc").is_empty(), "no screen call");
    let shown = e.generation_show(&run).unwrap();
    let p = shown.config.provenance.expect("a new run records its provenance");
    assert_eq!(p.protocol, Protocol::Paper);
    assert!(!p.prompt_versions.contains_key("gen_clause_screen"));
    assert!(p.prompt_versions.contains_key("gen_instantiator"));
    assert_eq!((p.case_count, p.policy_editions[0].edition.as_str()), (1, "summary"));
    assert_eq!(shown.config.request.protocol, Protocol::Paper);
    // No stored attempt of the run is a screen attempt.
    let views = e.generation_candidates(&run, &Default::default()).unwrap();
    assert!(!views.is_empty());

    // The same pairs under `studio` are screened.
    let studio = e.generation_create(&GenerationRequest { seed: 8, ..request(REP, 2) }).unwrap();
    let s = e.generation_execute(&studio).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    assert!(!bodies_by(&mock, "screen").is_empty(), "studio screens every complete record");
    let sp = e.generation_show(&studio).unwrap().config.provenance.unwrap();
    assert_eq!(sp.protocol, Protocol::Studio);
    assert!(sp.prompt_versions.contains_key("gen_clause_screen"));
    assert_eq!(sp.library_fingerprint, p.library_fingerprint, "same library");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paper_evaluation_uses_the_paper_prompts_and_reads_replies_strictly() {
    let mock = MockServer::start(super::eval::script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    super::eval::register(&e, &mock);
    let file = super::eval::cases_file(&e, dir.path());
    let paper_system = psebench::prompt::load("eval_system_paper").unwrap();
    let paper_judge = psebench::prompt::load("judge_user_paper").unwrap();

    // "direct" wraps its JSON in a code fence: studio repairs it, paper reads no verdict.
    let mut runs = Vec::new();
    for protocol in [Protocol::Studio, Protocol::Paper] {
        let run = e.evaluation_create(&eval_request(&file, "direct", protocol)).unwrap();
        let s = e.evaluation_execute(&run).await.unwrap();
        assert_eq!(s.status, "completed", "{protocol}: {:?}", s.message);
        runs.push(run);
    }
    for t in e.evaluation_trajectories(&runs[0]).unwrap() {
        assert!(t.final_answer.is_some(), "studio repaired the fence");
    }
    for t in e.evaluation_trajectories(&runs[1]).unwrap() {
        assert!(t.final_answer.is_none(), "paper: a fenced reply is no verdict");
        let Turn::Eval(only) = &t.turns[0] else { panic!() };
        assert!(only.extra["parse_error"].as_str().unwrap().contains("paper protocol"), "{:?}", only.extra);
        assert!(only.raw.starts_with("```json"), "the reply is kept as it came");
        assert_eq!(only.extra["prompt_versions"]["eval_system_paper"], json!(paper_system.version));
    }
    let shown = e.evaluation_show(&runs[1]).unwrap().run.config;
    let p = shown.provenance.unwrap();
    assert_eq!(p.protocol, Protocol::Paper);
    assert_eq!(p.prompt_versions.get("eval_system_paper"), Some(&paper_system.version));
    assert_eq!(p.prompt_versions.get("judge_user_paper"), Some(&paper_judge.version));
    assert!(!p.prompt_versions.contains_key("eval_system"));
    assert_eq!(p.case_count, 4);
    assert_eq!(p.judge_model.as_deref(), Some("judge (judge-id)"));
    let studio = e.evaluation_show(&runs[0]).unwrap().run.config.provenance.unwrap();
    assert_eq!(studio.case_set_fingerprint, p.case_set_fingerprint, "same cases, same fingerprint");
    assert!(studio.prompt_versions.contains_key("eval_system"));
    let c = e.runs_comparability(&runs).unwrap();
    assert!(!c.comparable && c.differing.contains(&"protocol".to_string()), "{c:?}");

    // The model under test was shown the paper's instructions under paper, ours under studio.
    let direct = bodies_by(&mock, "direct");
    let (with_paper, with_studio): (Vec<_>, Vec<_>) =
        direct.iter().map(|b| system_text(b)).partition(|s| s.starts_with("You are a patient-safety reviewer"));
    assert!(!with_paper.is_empty() && !with_studio.is_empty());
    assert!(with_paper.iter().all(|s| !s.contains("You have a limited number of turns")), "no studio cues");
    assert!(with_studio.iter().all(|s| s.contains("You have a limited number of turns")));

    // "asker" answers correctly: under paper the judge reads the rationale and the conditions only.
    let before = bodies_by(&mock, "judge").len();
    let run = e.evaluation_create(&eval_request(&file, "asker", Protocol::Paper)).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    let judged = bodies_by(&mock, "judge");
    assert!(judged.len() > before, "the judge was called");
    for b in &judged[before..] {
        let u = user_text(b);
        assert!(u.starts_with("Reasoning to review"), "no clause text before the rationale: {u}");
        assert!(!u.contains("The clause this case was written for"));
    }
    for t in e.evaluation_trajectories(&run).unwrap() {
        if let Some(j) = &t.judge {
            assert_eq!(j.extra["prompt_versions"]["judge_user_paper"], json!(paper_judge.version));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_over_two_policies_shows_each_case_its_own_policy() {
    use super::policy_new::{new_policy, FALL, POLICY};
    let mock = MockServer::start(super::eval::script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    super::eval::register(&e, &mock);
    e.policy_create(&new_policy()).unwrap();
    e.demo_load().unwrap();
    let mn = e.case_show(super::eval::CASES[0]).unwrap();
    let mut rl = serde_json::to_value(&mn).unwrap();
    rl["case_id"] = json!("rl_mixed_1");
    rl["policy"] = json!(POLICY);
    rl["clause_id"] = json!(FALL);
    rl["gold_clause"] = json!("Falls clause 1");
    rl["gold_legal_basis"] = json!(["Falls clause 1"]);
    rl["narrative"] =
        json!("RIVERLAND-CASE: a resident fell in the day room and still could not bear weight ten days later.");
    let rl_file = dir.path().join("rl.jsonl");
    std::fs::write(&rl_file, format!("{}\n", serde_json::to_string(&rl).unwrap())).unwrap();
    e.cases_import(&rl_file, false, "imported").unwrap();
    let both = dir.path().join("both.jsonl");
    let cases = vec![mn.clone(), e.case_show("rl_mixed_1").unwrap()];
    psebench::case::io::write_cases(&both, &cases).unwrap();

    let req = eval_request(&both, "asker", Protocol::Studio);
    let plan = e.evaluation_plan(&req).unwrap();
    assert_eq!(plan.policies, vec!["mn29".to_string(), POLICY.to_string()]);
    let run = e.evaluation_create(&req).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    let p = e.evaluation_show(&run).unwrap().run.config.provenance.unwrap();
    assert_eq!(p.policy_editions.len(), 2);
    let bodies: Vec<String> =
        bodies_by(&mock, "asker-first").into_iter().chain(bodies_by(&mock, "asker-then")).collect();
    let rl_bodies: Vec<&String> = bodies.iter().filter(|b| b.contains("RIVERLAND-CASE")).collect();
    let mn_bodies: Vec<&String> = bodies.iter().filter(|b| b.contains(&mn.narrative[..40])).collect();
    assert!(!rl_bodies.is_empty() && !mn_bodies.is_empty());
    for b in rl_bodies {
        let s = system_text(b);
        assert!(s.contains("Riverland adverse event rule") && s.contains("Falls clause 1"), "{s}");
        assert!(!s.contains("Care Management Events clause 1"), "not the other policy");
    }
    for b in mn_bodies {
        let s = system_text(b);
        assert!(s.contains("Care Management Events clause 1") && !s.contains("Riverland"), "mn29 case");
    }
}
