//! The LLM layer through the real HTTP client against the loopback mock provider.

use psebench::api::models::ModelAddRequest;
use psebench::api::{Engine, EngineOptions};
use psebench::llm::retry::RetryPolicy;
use psebench::llm::{CallContext, CancellationToken, ChatRequest, ClientOptions, LlmError, Message};
use psebench::mock::{Fault, MockServer, Reply, Rule, Script, UsageOverride, When};
use psebench::secrets::{MemoryStore, SecretStore, UnavailableStore};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 6,
        base: Duration::from_millis(2),
        cap: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(2),
    }
}

fn engine_with(secrets: Arc<dyn psebench::secrets::SecretStore>, use_cache: bool) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let opts =
        EngineOptions { secrets, client: ClientOptions { retry: fast_retry(), use_cache, ..Default::default() } };
    crate::common::seeded_store(&dir.path().join("s.db"));
    let e = Engine::open_with(&dir.path().join("s.db"), opts).unwrap();
    (dir, e)
}

fn add(e: &Engine, name: &str, kind: &str, base: &str, key: Option<&str>) {
    e.model_add(&ModelAddRequest {
        name: name.into(),
        kind: kind.into(),
        model: format!("{name}-id"),
        base_url: Some(base.into()),
        api_key: key.map(str::to_string),
        concurrency: Some(4),
        timeout_secs: Some(2),
        price_in: Some(1.0),
        price_out: Some(4.0),
        ..Default::default()
    })
    .unwrap();
}

fn structured_request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("SYSTEM-MARKER policy text"),
            Message::user("first question"),
            Message::assistant("{\"action\": \"ASK\"}"),
            Message::user("second question"),
        ],
        temperature: Some(0.2),
        top_p: Some(0.9),
        max_tokens: Some(300),
        seed: Some(7),
        ..Default::default()
    }
    .json_schema("verdict", json!({"type": "object", "properties": {"v": {"type": ["string", "null"]}}, "required": ["v"], "additionalProperties": false}))
}

fn script_json_reply() -> Script {
    Script {
        rules: vec![Rule {
            name: Some("any".into()),
            when: When { system_contains: Some("SYSTEM-MARKER".into()), ..Default::default() },
            reply: Some(Reply::Json { json: json!({"v": "ok"}) }),
            replies: vec![],
            fail_first: vec![],
            latency_ms: None,
            usage: Some(UsageOverride {
                input_tokens: Some(120),
                output_tokens: Some(9),
                cached_input_tokens: Some(100),
                reasoning_tokens: Some(3),
            }),
        }],
        ..Default::default()
    }
}

async fn call(e: &Engine, name: &str, req: &ChatRequest) -> Result<psebench::llm::ChatResponse, LlmError> {
    let h = e.model_handle(name).map_err(|x| LlmError::Config(x.message))?;
    e.llm().chat(&h, req, &CallContext::new(Some("run-1"), "test"), &CancellationToken::new()).await
}

#[tokio::test]
async fn each_provider_maps_requests_and_responses() {
    let mock = MockServer::start(script_json_reply(), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "oa", "openai-compatible", &mock.openai_base(), Some("k-openai-123456"));
    add(&e, "az", "azure", &mock.root(), Some("k-azure-123456"));
    add(&e, "an", "anthropic", &mock.root(), Some("k-anthropic-123456"));
    add(&e, "ge", "gemini", &mock.root(), Some("k-gemini-123456"));
    let req = structured_request();
    for name in ["oa", "az", "an", "ge"] {
        let r = call(&e, name, &req).await.unwrap_or_else(|err| panic!("{name}: {err}"));
        let v: Value = serde_json::from_str(&r.text).unwrap_or_else(|_| panic!("{name}: {}", r.text));
        assert_eq!(v, json!({"v": "ok"}), "{name}");
        assert_eq!(r.usage.output_tokens, 9, "{name}");
        assert_eq!(r.usage.cached_input_tokens, 100, "{name}");
        assert_eq!(r.usage.input_tokens, 120, "{name}");
        if name != "an" {
            assert_eq!(r.usage.reasoning_tokens, 3, "{name}");
        }
        assert!((r.cost_usd - (20.0 * 1.0 + 100.0 * 1.0 + 9.0 * 4.0) / 1e6).abs() < 1e-12, "{name}: {}", r.cost_usd);
    }
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 4);
    assert!(reqs.iter().all(|r| r.had_key && r.outcome == "ok"));
    // OpenAI: messages with roles, sampling parameters, json_schema
    let b = &reqs[0].body;
    assert_eq!(b["model"], "oa-id");
    assert_eq!(b["messages"][0], json!({"role": "system", "content": "SYSTEM-MARKER policy text"}));
    assert_eq!(b["messages"][2]["role"], "assistant");
    assert_eq!(
        (b["temperature"].as_f64(), b["top_p"].as_f64(), b["max_tokens"].as_u64(), b["seed"].as_i64()),
        (Some(0.2), Some(0.9), Some(300), Some(7))
    );
    assert_eq!(b["response_format"]["type"], "json_schema");
    assert_eq!(b["response_format"]["json_schema"]["name"], "verdict");
    // Azure: deployment in the path, no model field
    assert_eq!(reqs[1].api, "azure");
    assert!(reqs[1].body.get("model").is_none());
    // Anthropic: top-level system, alternating messages, forced tool for the schema
    let b = &reqs[2].body;
    assert_eq!(b["system"], "SYSTEM-MARKER policy text");
    assert_eq!(b["messages"].as_array().unwrap().len(), 3);
    assert_eq!(b["max_tokens"], 300);
    assert_eq!(b["tool_choice"], json!({"type": "tool", "name": "verdict"}));
    assert_eq!(b["tools"][0]["input_schema"]["required"], json!(["v"]));
    // Gemini: systemInstruction, model role, generationConfig with a converted schema
    let b = &reqs[3].body;
    assert_eq!(b["systemInstruction"]["parts"][0]["text"], "SYSTEM-MARKER policy text");
    assert_eq!(b["contents"][1]["role"], "model");
    let g = &b["generationConfig"];
    assert_eq!(
        (g["temperature"].as_f64(), g["topP"].as_f64(), g["maxOutputTokens"].as_u64(), g["seed"].as_i64()),
        (Some(0.2), Some(0.9), Some(300), Some(7))
    );
    assert_eq!(g["responseMimeType"], "application/json");
    assert_eq!(g["responseSchema"]["properties"]["v"], json!({"type": "string", "nullable": true}));
    assert!(g["responseSchema"].get("additionalProperties").is_none());
}

#[tokio::test]
async fn anthropic_plain_json_uses_a_prefill() {
    let mock = MockServer::start(Script::always("{\"a\": 1}"), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "an", "anthropic", &mock.root(), Some("k-anthropic-123456"));
    let mut req = ChatRequest::new(vec![Message::user("give json")]);
    req.response_format = psebench::llm::ResponseFormat::Json;
    let r = call(&e, "an", &req).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&r.text).unwrap(), json!({"a": 1}));
    let body = &mock.requests()[0].body;
    assert_eq!(body["messages"][1], json!({"role": "assistant", "content": "{"}));
}

fn failing(faults: Vec<Fault>) -> Script {
    Script {
        rules: vec![Rule {
            name: Some("r".into()),
            when: When::default(),
            reply: Some(Reply::Text { text: "fine".into() }),
            replies: vec![],
            fail_first: faults,
            latency_ms: None,
            usage: None,
        }],
        ..Default::default()
    }
}

#[tokio::test]
async fn transient_faults_are_retried_until_success() {
    let faults = vec![
        Fault::RateLimit { retry_after_secs: Some(0.05) },
        Fault::ServerError,
        Fault::Unavailable,
        Fault::Timeout { hang_ms: 5_000 },
        Fault::MalformedJson,
        Fault::Truncated,
    ];
    let mock = MockServer::start(failing(faults.clone()), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "m", "openai-compatible", &mock.openai_base(), None);
    e.model_add(&ModelAddRequest {
        name: "m".into(),
        kind: "openai-compatible".into(),
        model: "x".into(),
        base_url: Some(mock.openai_base()),
        timeout_secs: Some(1),
        ..Default::default()
    })
    .unwrap();
    let r = call(&e, "m", &ChatRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert_eq!(r.text, "fine");
    assert_eq!(r.attempts, 7, "six faults then a success");
    let outcomes: Vec<String> = mock.requests().iter().map(|q| q.outcome.clone()).collect();
    assert_eq!(
        outcomes,
        vec!["rate_limit", "server_error", "unavailable", "timeout", "malformed_json", "truncated", "ok"]
    );
    // wrong content type is transient too
    mock.set_script(failing(vec![Fault::WrongContentType]));
    let r = call(&e, "m", &ChatRequest::new(vec![Message::user("again")])).await.unwrap();
    assert_eq!(r.attempts, 2);
    // a connection reset after the request was sent (no status at all) is retried as well
    mock.set_script(failing(vec![Fault::Reset, Fault::Reset]));
    let r = call(&e, "m", &ChatRequest::new(vec![Message::user("once more")])).await.unwrap();
    assert_eq!((r.text.as_str(), r.attempts), ("fine", 3));
    let last: Vec<String> = mock.requests().iter().rev().take(3).map(|q| q.outcome.clone()).collect();
    assert_eq!(last, vec!["ok", "reset", "reset"]);
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let mock = MockServer::start(failing(vec![Fault::RateLimit { retry_after_secs: Some(0.3) }]), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "m", "openai-compatible", &mock.openai_base(), None);
    let t = Instant::now();
    call(&e, "m", &ChatRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert!(t.elapsed() >= Duration::from_millis(300), "waited {:?}", t.elapsed());
}

#[tokio::test]
async fn gives_up_after_the_retry_budget_with_a_typed_error() {
    let mock = MockServer::start(failing(vec![Fault::ServerError; 20]), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "m", "openai-compatible", &mock.openai_base(), None);
    let err = call(&e, "m", &ChatRequest::new(vec![Message::user("hi")])).await.unwrap_err();
    match &err {
        LlmError::RetriesExhausted { attempts, last, .. } => {
            assert_eq!(*attempts, 7);
            assert!(matches!(**last, LlmError::Server { status: 500, .. }));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(mock.request_count(), 7);
    assert!(err.to_string().contains("gave up after 7 attempts"));
}

#[tokio::test]
async fn a_400_is_never_retried() {
    let mock = MockServer::start(failing(vec![Fault::BadRequest; 5]), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "m", "openai-compatible", &mock.openai_base(), None);
    let err = call(&e, "m", &ChatRequest::new(vec![Message::user("hi")])).await.unwrap_err();
    assert!(matches!(err, LlmError::Rejected { status: 400, .. }), "{err:?}");
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn the_cache_keys_on_model_request_and_repeat_and_never_stores_errors() {
    let mock = MockServer::start(
        Script { default_reply: Some(Reply::Template { template: "reply {{n}}".into() }), ..Default::default() },
        0,
    )
    .await
    .unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), true);
    add(&e, "a", "openai-compatible", &mock.openai_base(), None);
    add(&e, "b", "openai-compatible", &mock.openai_base(), None);
    let req = ChatRequest::new(vec![Message::user("same")]);
    let first = call(&e, "a", &req).await.unwrap();
    let again = call(&e, "a", &req).await.unwrap();
    assert!(!first.cache_hit && again.cache_hit);
    assert_eq!(first.text, again.text);
    assert_eq!(mock.request_count(), 1);
    let other_model = call(&e, "b", &req).await.unwrap();
    assert!(!other_model.cache_hit);
    let mut repeat = req.clone();
    repeat.repeat = 1;
    assert!(!call(&e, "a", &repeat).await.unwrap().cache_hit);
    let mut warmer = req.clone();
    warmer.temperature = Some(1.0);
    assert!(!call(&e, "a", &warmer).await.unwrap().cache_hit);
    assert_eq!(mock.request_count(), 4);
    // errors are not cached
    mock.set_script(failing(vec![Fault::BadRequest]));
    let q = ChatRequest::new(vec![Message::user("fails once")]);
    assert!(call(&e, "a", &q).await.is_err());
    assert_eq!(call(&e, "a", &q).await.unwrap().text, "fine");
    // clearing empties it
    assert!(e.cache_stats().unwrap().entries >= 5);
    e.cache_clear(None).unwrap();
    assert_eq!(e.cache_stats().unwrap().entries, 0);
    // accounting: per stage totals for the run
    let totals = e.usage_by_stage(Some("run-1")).unwrap();
    let all = psebench::llm::accounting::sum(&totals);
    assert_eq!(all.cache_hits, 1);
    assert_eq!(all.failures, 1);
    assert!(all.cost_usd > 0.0);
}

#[tokio::test]
async fn cancellation_stops_a_call_in_flight() {
    let mock = MockServer::start(Script { latency_ms: 5_000, ..Script::always("late") }, 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    e.model_add(&ModelAddRequest {
        name: "m".into(),
        kind: "openai-compatible".into(),
        model: "x".into(),
        base_url: Some(mock.openai_base()),
        timeout_secs: Some(30),
        ..Default::default()
    })
    .unwrap();
    let h = e.model_handle("m").unwrap();
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let t = Instant::now();
    let err = e
        .llm()
        .chat(&h, &ChatRequest::new(vec![Message::user("hi")]), &CallContext::new(None, "t"), &cancel)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Cancelled));
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn rate_limits_cut_the_concurrency_limit() {
    let mut s = failing(vec![Fault::RateLimit { retry_after_secs: Some(0.01) }; 3]);
    s.rules[0].latency_ms = Some(20);
    let mock = MockServer::start(s, 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    e.model_add(&ModelAddRequest {
        name: "m".into(),
        kind: "openai-compatible".into(),
        model: "x".into(),
        base_url: Some(mock.openai_base()),
        concurrency: Some(8),
        ..Default::default()
    })
    .unwrap();
    let h = e.model_handle("m").unwrap();
    assert_eq!(e.llm().current_limit(&h.cfg), 8);
    call(&e, "m", &ChatRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert!(e.llm().current_limit(&h.cfg) < 8, "a 429 halves the limit");
}

#[tokio::test]
async fn keys_from_keyring_env_or_a_clear_error() {
    let mock = MockServer::start(Script { require_key: Some("sk-right-0000000000".into()), ..Script::always("hi") }, 0)
        .await
        .unwrap();
    // keyring unavailable: storing a key says what to do instead
    let (_d, e) = engine_with(Arc::new(UnavailableStore), false);
    let err = e
        .model_add(&ModelAddRequest {
            name: "m".into(),
            kind: "openai".into(),
            model: "x".into(),
            base_url: Some(mock.openai_base()),
            api_key: Some("sk-right-0000000000".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code.as_str(), "keyring_unavailable");
    assert!(err.message.contains("--api-key-env"), "{}", err.message);
    // the environment variable route works without any keyring
    std::env::set_var("PSEBENCH_TEST_KEY_A", "sk-right-0000000000");
    e.model_add(&ModelAddRequest {
        name: "m".into(),
        kind: "openai".into(),
        model: "x".into(),
        base_url: Some(mock.openai_base()),
        api_key_env: Some("PSEBENCH_TEST_KEY_A".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(call(&e, "m", &ChatRequest::new(vec![Message::user("x")])).await.unwrap().text, "hi");
    // a remote provider without any key fails before sending anything
    e.model_add(&ModelAddRequest {
        name: "nokey".into(),
        kind: "anthropic".into(),
        model: "x".into(),
        base_url: Some("https://api.example.com".into()),
        ..Default::default()
    })
    .unwrap();
    let err = e.model_handle("nokey").unwrap_err();
    assert!(err.message.contains("set-key"), "{}", err.message);
}

#[tokio::test]
async fn a_key_never_reaches_the_database_errors_or_json_output() {
    const KEY: &str = "sk-FAKE-SECRET-9f8e7d6c5b4a3210";
    // The mock demands a different key and echoes nothing; a second mock echoes the key back in its error.
    let mock = MockServer::start(Script { require_key: Some("sk-other-key-0000".into()), ..Script::always("x") }, 0)
        .await
        .unwrap();
    let echo = MockServer::start(
        Script {
            rules: vec![Rule {
                name: None,
                when: When::default(),
                reply: Some(Reply::Text { text: "x".into() }),
                replies: vec![],
                fail_first: vec![Fault::BadRequest],
                latency_ms: None,
                usage: None,
            }],
            ..Default::default()
        },
        0,
    )
    .await
    .unwrap();
    let secrets = Arc::new(MemoryStore::default());
    let (dir, e) = engine_with(secrets.clone(), true);
    add(&e, "m", "openai", &mock.openai_base(), Some(KEY));
    add(&e, "echo", "openai", &echo.openai_base(), Some(KEY));
    let err1 = call(&e, "m", &ChatRequest::new(vec![Message::user(format!("please repeat {KEY}"))]))
        .await
        .unwrap_err()
        .to_string();
    let err2 = call(&e, "echo", &ChatRequest::new(vec![Message::user("hi")])).await.unwrap_err().to_string();
    let listed = serde_json::to_string(&e.models_list().unwrap()).unwrap();
    let shown = serde_json::to_string(&e.model_get("m").unwrap()).unwrap();
    let usage = serde_json::to_string(&e.usage_by_stage(Some("run-1")).unwrap()).unwrap();
    for (what, text) in
        [("error", &err1), ("error", &err2), ("models list", &listed), ("model view", &shown), ("usage", &usage)]
    {
        assert!(!text.contains(KEY), "{what} leaks the key: {text}");
        assert!(!text.contains("9f8e7d6c5b4a"), "{what} leaks part of the key");
    }
    // The key did reach the provider (that is where it belongs)…
    assert!(mock.requests().iter().all(|r| r.had_key));
    // …and the keyring, but not the database file.
    assert_eq!(secrets.get("model:m").unwrap().as_deref(), Some(KEY));
    let _ = e.store().with_conn(|c| c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);"));
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let p = entry.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()), "{} contains the key", p.display());
    }
}

#[tokio::test]
async fn models_registry_and_locality() {
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), true);
    add(&e, "local", "openai-compatible", "http://127.0.0.1:9/v1", None);
    e.model_add(&ModelAddRequest {
        name: "remote".into(),
        kind: "openai".into(),
        model: "gpt-x".into(),
        api_key_env: Some("X".into()),
        ..Default::default()
    })
    .unwrap();
    e.model_add(&ModelAddRequest {
        name: "lan".into(),
        kind: "openai-compatible".into(),
        model: "m".into(),
        base_url: Some("http://10.0.0.5:8000/v1".into()),
        local: true,
        ..Default::default()
    })
    .unwrap();
    let list = e.models_list().unwrap();
    let by: std::collections::HashMap<_, _> = list.iter().map(|m| (m.config.name.as_str(), m)).collect();
    assert!(by["local"].local && by["lan"].local && !by["remote"].local);
    assert_eq!(by["remote"].config.base_url, "https://api.openai.com/v1");
    assert_eq!(by["remote"].key_source, "env:X");
    assert!(by["remote"].destination.contains("remote"));
    let err = e
        .model_add(&ModelAddRequest {
            name: "bad name!".into(),
            kind: "openai".into(),
            model: "m".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code.as_str(), "invalid_input");
    let err = e
        .model_add(&ModelAddRequest { name: "v".into(), kind: "vllm".into(), model: "m".into(), ..Default::default() })
        .unwrap_err();
    assert!(err.message.contains("openai-compatible"));
    e.model_remove("lan").unwrap();
    assert_eq!(e.models_list().unwrap().len(), 2);
}

#[tokio::test]
async fn models_test_makes_one_real_call() {
    let mock = MockServer::start(Script::always("ready"), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), true);
    add(&e, "m", "gemini", &mock.root(), Some("k-gem-0000000"));
    let r = e.model_test("m").await.unwrap();
    assert_eq!(r.reply, "ready");
    assert!(r.input_tokens > 0 && r.output_tokens > 0);
    let r2 = e.model_test("m").await.unwrap();
    assert_eq!(r2.reply, "ready");
    assert_eq!(mock.request_count(), 2, "tests bypass the cache");
}

/// A model's key link (keyring or environment variable) does not follow a change of its base
/// URL's host: the request to the new address carries no key, and the model says why.
#[tokio::test]
async fn a_key_link_is_dropped_when_the_base_url_host_changes() {
    let first = MockServer::start_with(Script::always("ready"), 0, true).await.unwrap();
    let elsewhere = MockServer::start_with(Script::always("ready"), 0, true).await.unwrap();
    let secrets = Arc::new(MemoryStore::default());
    let (_d, e) = engine_with(secrets.clone(), false);
    std::env::set_var("PSEBENCH_TEST_HOSTKEY", "sk-env-canary-000000");
    let req = |name: &str, base: &str, env: Option<&str>, key: Option<&str>| ModelAddRequest {
        name: name.into(),
        kind: "openai-compatible".into(),
        model: "x".into(),
        base_url: Some(base.into()),
        api_key_env: env.map(str::to_string),
        api_key: key.map(str::to_string),
        ..Default::default()
    };
    e.model_add(&req("kr", &first.openai_base(), None, Some("sk-keyring-canary-0000"))).unwrap();
    e.model_add(&req("ev", &first.openai_base(), Some("PSEBENCH_TEST_HOSTKEY"), None)).unwrap();
    e.model_test("kr").await.unwrap();
    e.model_test("ev").await.unwrap();
    assert!(first.requests().iter().all(|r| r.had_key), "both keys reach the first address");
    // The same edit form, saved again with only the address changed (another loopback port).
    for (name, env) in [("kr", None), ("ev", Some("PSEBENCH_TEST_HOSTKEY"))] {
        let v = e.model_add(&req(name, &elsewhere.openai_base(), env, None)).unwrap();
        assert_eq!(v.key_source, "none", "{name}");
        let notice = v.config.key_link_dropped.clone().unwrap_or_default();
        assert!(notice.contains("confirm"), "{name}: {notice}");
        assert_eq!(e.model_get(name).unwrap().config.key_link_dropped, v.config.key_link_dropped);
        e.model_test(name).await.unwrap();
    }
    let sent = elsewhere.requests();
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|r| !r.had_key), "no key followed the new address");
    assert_eq!(secrets.get("model:kr").unwrap(), None, "the stored key was deleted");
    // Confirmed again: a key typed anew, or the variable with the confirmation.
    e.model_add(&req("kr", &elsewhere.openai_base(), None, Some("sk-new-000000000"))).unwrap();
    let ev = e
        .model_add(&ModelAddRequest {
            confirm_key_for_new_host: Some(true),
            ..req("ev", &elsewhere.openai_base(), Some("PSEBENCH_TEST_HOSTKEY"), None)
        })
        .unwrap();
    assert_eq!((ev.key_source.as_str(), ev.config.key_link_dropped.clone()), ("env:PSEBENCH_TEST_HOSTKEY", None));
    e.model_test("kr").await.unwrap();
    e.model_test("ev").await.unwrap();
    assert!(elsewhere.requests()[2..].iter().all(|r| r.had_key));
    // Only the path changed (same scheme, host and port): the link stays.
    let v = e
        .model_add(&req("ev", &format!("{}/other/v1", elsewhere.root()), Some("PSEBENCH_TEST_HOSTKEY"), None))
        .unwrap();
    assert_eq!(v.key_source, "env:PSEBENCH_TEST_HOSTKEY");
}

#[tokio::test]
async fn a_server_that_refuses_structured_output_gets_a_weaker_mode_and_the_call_says_so() {
    let mut script = script_json_reply();
    script.refuse_response_formats = vec!["json_schema".into(), "json".into()];
    let mock = MockServer::start(script, 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "local", "openai-compatible", &mock.openai_base(), None);
    let r = call(&e, "local", &structured_request()).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&r.text).unwrap(), json!({"v": "ok"}), "the prompt still asks for JSON");
    assert_eq!(r.failed_attempts.len(), 2, "{:?}", r.failed_attempts);
    assert!(r.failed_attempts[0].contains("asked for a plain JSON object instead"), "{:?}", r.failed_attempts);
    assert!(r.failed_attempts[1].contains("asked for plain text instead"), "{:?}", r.failed_attempts);
    let formats: Vec<Option<String>> = mock
        .requests()
        .iter()
        .map(|q| q.body.pointer("/response_format/type").and_then(Value::as_str).map(str::to_string))
        .collect();
    assert_eq!(formats, vec![Some("json_schema".to_string()), Some("json_object".to_string()), None]);
    // The next call to the same model starts at the mode its server accepted.
    let again = call(&e, "local", &structured_request()).await.unwrap();
    assert!(again.failed_attempts.is_empty(), "{:?}", again.failed_attempts);
    assert_eq!(mock.requests().len(), 4);
    assert!(mock.requests()[3].body.get("response_format").is_none());
}

#[tokio::test]
async fn local_servers_are_found_with_their_models_and_registered_ones_are_named() {
    let script = Script { served_models: vec!["llama3:8b".into(), "qwen2.5-7b-instruct".into()], ..Default::default() };
    let mock = MockServer::start(script, 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    let port = mock.addr().port();
    // A port where nothing listens is checked and left out.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let req = psebench::context::discover::DiscoverRequest { ports: Some(vec![port, silent]), extra_ports: None };
    let found = e.models_discover(&req).await.unwrap();
    assert_eq!(found.checked, vec![port, silent]);
    assert_eq!(found.servers.len(), 1);
    let s = &found.servers[0];
    assert_eq!(s.base_url, format!("http://127.0.0.1:{port}/v1"));
    let ids: Vec<&str> = s.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, vec!["llama3:8b", "qwen2.5-7b-instruct"]);
    assert_eq!(s.models[0].suggested_name, "llama3-8b");
    assert!(s.models.iter().all(|m| m.registered_as.is_none()));

    // One click: register it as suggested; it is local, and the next look says so.
    e.model_add(&ModelAddRequest {
        name: s.models[0].suggested_name.clone(),
        kind: "openai-compatible".into(),
        model: "llama3:8b".into(),
        base_url: Some(s.base_url.clone()),
        local: true,
        ..Default::default()
    })
    .unwrap();
    let again = e.models_discover(&req).await.unwrap();
    assert_eq!(again.servers[0].models[0].registered_as.as_deref(), Some("llama3-8b"));
    assert_eq!(again.servers[0].models[1].registered_as, None);
    let view = e.models_list().unwrap().into_iter().find(|m| m.config.name == "llama3-8b").unwrap();
    assert!(view.local);
}

fn ledger_rows(e: &Engine) -> i64 {
    e.store().with_read(|c| c.query_row("SELECT count(*) FROM llm_calls", [], |r| r.get(0))).unwrap()
}

/// A chained call returns before its ledger row is committed; the item's next call commits it
/// before that call is sent, and settling the chain (or the item's own last write) commits the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chained_calls_are_on_disk_before_the_next_call_of_their_item_is_sent() {
    let mock = MockServer::start(script_json_reply(), 0).await.unwrap();
    let (_d, e) = engine_with(Arc::new(MemoryStore::default()), false);
    add(&e, "m", "openai-compatible", &mock.openai_base(), None);
    let handle = e.model_handle("m").unwrap();
    let chain = psebench::llm::CallChain::new(e.store());
    let ctx = CallContext::new(Some("run-1"), "eval").item("case-1").chained(&chain);
    let cancel = CancellationToken::new();
    let first = e.llm().chat(&handle, &structured_request(), &ctx, &cancel).await.unwrap();
    assert_eq!(first.call_id, None, "the row is queued, not yet written");
    assert_eq!(ledger_rows(&e), 0);
    let second = ChatRequest { repeat: 1, ..structured_request() };
    e.llm().chat(&handle, &second, &ctx, &cancel).await.unwrap();
    assert_eq!(ledger_rows(&e), 1, "the first call's row was committed before the second call went out");
    chain.settle().await;
    assert_eq!(ledger_rows(&e), 2);
    // A chain dropped with a row still queued commits it.
    e.llm().chat(&handle, &ChatRequest { repeat: 2, ..structured_request() }, &ctx, &cancel).await.unwrap();
    drop(ctx);
    drop(chain);
    for _ in 0..200 {
        if ledger_rows(&e) == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(ledger_rows(&e), 3);
    assert_eq!(mock.request_count(), 3);
}
