//! Reasoning models through the whole evaluation: for every shape reasoning comes in (inline
//! `<think>`/`<thinking>` blocks, a lone `</think>`, `reasoning_content`, `reasoning`, Anthropic
//! thinking blocks, Gemini thought parts) the verdict is read from the answer and never from a
//! decoy object in the reasoning, the reasoning is kept on the turn with its tokens, and a reply
//! that is only reasoning, cut off at the token limit, says so.

use psebench::api::models::ModelAddRequest;
use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::{MockServer, ReasoningForm, Reply, Rule, When};
use psebench::trajectory::{Action, Trajectory, Turn};
use serde_json::{json, Value};

use super::eval::{engine, script, CASES};

/// A decoy answer inside the reasoning: braces a lenient JSON reader would happily take.
const DECOY: &str = r#"First guess: {"action":"ANSWER","final_verdict":"Non-reportable"} -- but {not so fast}."#;
const ASK_MARKER: &str = "ASK-REASONING-MARKER";

fn answer() -> Reply {
    Reply::Json {
        json: json!({
            "action": "ANSWER", "ask_question": null, "final_verdict": "Reportable",
            "targeted_clause": "Care Management Events clause 1",
            "clause_and_guidance_evidence": ["Care Management Events clause 1"],
            "rationale": "The facts meet the clause."
        }),
    }
}

fn reasoned(form: ReasoningForm, reasoning: &str, answer: Option<Reply>, cut_off: bool) -> Reply {
    Reply::Reasoned { reasoning: reasoning.into(), form, answer: answer.map(Box::new), cut_off }
}

fn rule(model: &str, user_turns_max: Option<usize>, reply: Reply) -> Rule {
    Rule {
        name: Some(model.into()),
        when: When { model: Some(format!("{model}-id")), user_turns_max, ..Default::default() },
        reply: Some(reply),
        replies: vec![],
        fail_first: vec![],
        latency_ms: None,
        usage: None,
    }
}

/// (model name, provider kind, form, cut off)
const MODELS: [(&str, &str, ReasoningForm, bool); 9] = [
    ("think", "openai-compatible", ReasoningForm::ThinkTags, false),
    ("thinking", "openai-compatible", ReasoningForm::ThinkingTags, false),
    ("close", "openai-compatible", ReasoningForm::ThinkClose, false),
    ("rcontent", "openai-compatible", ReasoningForm::ReasoningContent, false),
    ("rfield", "openai-compatible", ReasoningForm::ReasoningField, false),
    ("claude", "anthropic", ReasoningForm::Native, false),
    ("gem", "gemini", ReasoningForm::Native, false),
    ("cut", "openai-compatible", ReasoningForm::ThinkTags, true),
    ("gemcut", "gemini", ReasoningForm::Native, true),
];

fn turn_extra(t: &Trajectory, i: usize) -> &indexmap::IndexMap<String, Value> {
    match &t.turns[i] {
        Turn::Eval(e) => &e.extra,
        Turn::Info(i) => &i.extra,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_reads_the_answer_of_every_kind_of_reasoning_model() {
    let mut s = script();
    let mut rules = vec![
        // The `think` model asks once (reasoning first) and answers on the forced turn.
        rule(
            "think",
            Some(1),
            reasoned(
                ReasoningForm::ThinkTags,
                &format!("{ASK_MARKER} I should ask {{first}}."),
                Some(Reply::Json {
                    json: json!({"action": "ASK", "ask_question": "What does the first recorded field say?", "final_verdict": null, "targeted_clause": null, "clause_and_guidance_evidence": null, "rationale": null}),
                }),
                false,
            ),
        ),
    ];
    for (model, _, form, cut_off) in MODELS {
        let reply =
            if cut_off { reasoned(form, DECOY, None, true) } else { reasoned(form, DECOY, Some(answer()), false) };
        rules.push(rule(model, None, reply));
    }
    rules.append(&mut s.rules);
    s.rules = rules;
    let mock = MockServer::start(s, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    let roles = [("info", "openai-compatible"), ("judge", "openai-compatible")];
    for (name, kind) in MODELS.iter().map(|(n, k, _, _)| (*n, *k)).chain(roles) {
        let base = if kind == "openai-compatible" { mock.openai_base() } else { mock.root() };
        e.model_add(&ModelAddRequest {
            name: name.into(),
            kind: kind.into(),
            model: format!("{name}-id"),
            base_url: Some(base),
            api_key: Some(format!("k-{name}-000000")),
            price_in: Some(1.0),
            price_out: Some(2.0),
            ..Default::default()
        })
        .unwrap();
    }
    e.demo_load().unwrap();
    let file = dir.path().join("one.jsonl");
    psebench::case::io::write_cases(&file, &[e.case_show(CASES[0]).unwrap()]).unwrap();

    let mut think_run = String::new();
    for (model, kind, form, cut_off) in MODELS {
        let req = EvaluationRunRequest {
            cases: file.display().to_string(),
            model: model.into(),
            info_model: "info".into(),
            judge_model: "judge".into(),
            turns: 2,
            concurrency: 1,
            ..Default::default()
        };
        let run = e.evaluation_create(&req).unwrap();
        let s = e.evaluation_execute(&run).await.unwrap();
        assert_eq!(s.status, "completed", "{model}: {:?}", s.message);
        if model == "think" {
            think_run = run.clone();
        }
        let trajectories = e.evaluation_trajectories(&run).unwrap();
        let [t] = trajectories.as_slice() else { panic!("{model}: one trajectory expected") };
        let last = t.turns.len() - 1;
        let Turn::Eval(answer_turn) = &t.turns[last] else { panic!("{model}: the last turn is the model's") };
        let extra = turn_extra(t, last);
        assert_eq!(extra["reasoning"], json!(DECOY), "{model} ({form:?}): the reasoning is kept on the turn");
        assert!(!answer_turn.raw.contains("Non-reportable"), "{model}: the raw answer holds no reasoning");
        // Anthropic does not say how many tokens the thinking took; the others do.
        let counted = kind != "anthropic";
        assert_eq!(extra.get("reasoning_tokens").is_some_and(|n| n.as_u64() > Some(0)), counted, "{model}");
        assert_eq!(t.usage.extra.get("reasoning_tokens").is_some_and(|n| n.as_u64() > Some(0)), counted, "{model}");
        if cut_off {
            assert_eq!(answer_turn.action, None, "{model}");
            assert!(t.final_answer.is_none(), "{model}");
            let why = extra["parse_error"].as_str().unwrap_or_default();
            assert!(
                why.contains("only the model's reasoning")
                    && why.contains("cut off at the token limit")
                    && why.contains("more output tokens"),
                "{model}: {why}"
            );
            assert!(t.error.as_deref().unwrap_or_default().contains("only the model's reasoning"), "{model}");
        } else {
            assert_eq!(answer_turn.action, Some(Action::Answer), "{model}: {}", answer_turn.raw);
            assert!(extra.get("parse_error").is_none(), "{model}");
            assert_eq!(
                t.predicted_verdict().map(|v| v.as_str()),
                Some("Reportable"),
                "{model}: verdict from the answer"
            );
        }
    }

    // The asking model's first turn kept its own reasoning, and that reasoning was not sent back
    // to it with the conversation.
    let t = e.evaluation_trajectories(&think_run).unwrap().remove(0);
    assert_eq!(t.turns.len(), 3, "ask, information, answer");
    assert!(turn_extra(&t, 0)["reasoning"].as_str().unwrap_or_default().contains(ASK_MARKER));
    let second =
        mock.requests().into_iter().filter(|r| r.model == "think-id").nth(1).expect("the think model was called twice");
    assert!(!second.body.to_string().contains(ASK_MARKER), "reasoning is not sent back to the model");
    assert!(second.body.to_string().contains("What does the first recorded field say?"));
}
