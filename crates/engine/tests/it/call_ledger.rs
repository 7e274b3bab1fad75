//! The call ledger: a store written by the release before it (`tests/fixtures/
//! store-before-call-ledger.db`: an extraction, a draft of two attempts, a generation run and a
//! label audit, with rows in gen_calls, author_calls, author_draft_calls and label_audit_results)
//! is upgraded, and every old call is found in the ledger with its request, reply, tokens and cost,
//! through `calls.list` and through the views that showed them before; usage totals do not change.
//! New calls of a label audit are recorded by the client with their context and parse notes.

use psebench::api::rpc::{call, Caller};
use psebench::api::Engine;
use psebench::llm::ledger::LedgerCall;
use psebench::mock::{MockServer, Script};
use rusqlite::Connection;
use serde_json::{json, Value};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/store-before-call-ledger.db");

/// One call as the old store kept it.
#[derive(Debug)]
struct OldCall {
    source: &'static str,
    run_id: Option<String>,
    item: String,
    role: String,
    request: Option<Value>,
    response_text: Option<String>,
    input_tokens: i64,
    output_tokens: i64,
    cost_usd: f64,
}

fn old_calls(c: &Connection) -> Vec<OldCall> {
    let mut out = Vec::new();
    let mut read = |source: &'static str, sql: &str| {
        let mut st = c.prepare(sql).unwrap();
        let rows = st
            .query_map([], |r| {
                Ok(OldCall {
                    source,
                    run_id: r.get(0)?,
                    item: r.get(1)?,
                    role: r.get(2)?,
                    request: r.get::<_, Option<String>>(3)?.map(|t| serde_json::from_str(&t).unwrap()),
                    response_text: r.get(4)?,
                    input_tokens: r.get(5)?,
                    output_tokens: r.get(6)?,
                    cost_usd: r.get(7)?,
                })
            })
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    };
    read(
        "gen_calls",
        "SELECT ga.run_id, ga.candidate_id, gc.role, gc.request_json, gc.response_text, gc.input_tokens, gc.output_tokens, gc.cost_usd
         FROM gen_calls gc JOIN gen_attempts ga ON ga.id = gc.attempt_id ORDER BY gc.id",
    );
    read(
        "author_calls",
        "SELECT NULL, extraction_id, role, request_json, response_text, input_tokens, output_tokens, cost_usd FROM author_calls ORDER BY id",
    );
    read(
        "author_draft_calls",
        "SELECT d.run_id, dc.draft_id, dc.role, dc.request_json, dc.response_text, dc.input_tokens, dc.output_tokens, dc.cost_usd
         FROM author_draft_calls dc JOIN author_drafts d ON d.id = dc.draft_id ORDER BY dc.id",
    );
    read(
        "label_audit_results",
        "SELECT run_id, case_id, 'screener', NULL, response_text, input_tokens, output_tokens, cost_usd FROM label_audit_results ORDER BY rowid",
    );
    out
}

fn usage_totals(c: &Connection) -> Vec<(String, Option<String>, i64, i64, i64)> {
    let mut st = c
        .prepare(
            "SELECT stage, run_id, count(*), sum(input_tokens), sum(output_tokens) FROM llm_calls
             GROUP BY stage, run_id ORDER BY stage, run_id",
        )
        .unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

async fn ledger(e: &Engine, params: Value) -> Vec<LedgerCall> {
    serde_json::from_value(call(e, &Caller::Owner, "calls.list", params).await.unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgraded_store_keeps_every_old_call_in_the_ledger() {
    let before = Connection::open(FIXTURE).unwrap();
    let old = old_calls(&before);
    let counts = |s: &str| old.iter().filter(|c| c.source == s).count();
    assert_eq!(
        (counts("gen_calls"), counts("author_calls"), counts("author_draft_calls"), counts("label_audit_results")),
        (6, 2, 2, 10),
        "the fixture holds calls of every old shape"
    );
    let totals_before = usage_totals(&before);
    drop(before);

    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(FIXTURE, dir.path().join("s.db")).unwrap();
    let e = super::eval::engine(dir.path());
    assert!(e.store().open_report().applied.iter().any(|m| m.ends_with("_call_ledger")));
    let tables: Vec<String> = e
        .store()
        .with_read(|c| {
            let mut st =
                c.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%calls%' ORDER BY name")?;
            let rows = st.query_map([], |r| r.get(0))?;
            rows.collect::<Result<Vec<String>, rusqlite::Error>>()
        })
        .unwrap();
    assert_eq!(tables, vec!["llm_calls"], "the per-kind call tables are folded into the ledger");

    // Every old call is in the ledger, with its request, reply, tokens and cost.
    let mut seen = std::collections::HashSet::new();
    for o in &old {
        let mut params = json!({"item": o.item, "role": o.role});
        if let Some(run) = &o.run_id {
            params["run_id"] = json!(run);
        }
        let found = ledger(&e, params).await;
        let hit = found
            .iter()
            .find(|c| {
                !seen.contains(&c.id)
                    && c.response_text == o.response_text
                    && c.input_tokens as i64 == o.input_tokens
                    && c.output_tokens as i64 == o.output_tokens
                    && (c.cost_usd - o.cost_usd).abs() < 1e-12
                    && (o.request.is_none() || c.request == o.request)
            })
            .unwrap_or_else(|| panic!("{} call of {} ({}) is not in the ledger: {found:#?}", o.source, o.item, o.role));
        assert!(hit.origin_matches(o.source), "{hit:?}");
        seen.insert(hit.id);
    }
    assert_eq!(seen.len(), old.len());

    // Usage totals of the old runs are what they were.
    let after = e.store().with_read(|c| Ok::<_, rusqlite::Error>(usage_totals_counted(c))).unwrap();
    assert_eq!(after, totals_before, "folding old calls in counts no call twice");

    // The views that showed them read them from the ledger, in the same shapes.
    let gen = old.iter().find(|c| c.source == "gen_calls").unwrap();
    let p = e.generation_provenance(&gen.item).unwrap();
    let shown: Vec<&psebench::generation::ProvenanceCall> = p.attempts.iter().flat_map(|a| a.calls.iter()).collect();
    assert_eq!(shown.len(), 6, "{p:#?}");
    assert_eq!(shown[0].role, "instantiator");
    assert_eq!(Some(&shown[0].request), old[0].request.as_ref());
    assert!(shown.iter().all(|c| c.response_text.is_some() && c.input_tokens > 0));
    let ext = old.iter().find(|c| c.source == "author_calls").unwrap();
    let x = e.authoring_extraction_show(&ext.item).unwrap();
    assert_eq!(x.calls.iter().map(|c| c.role.as_str()).collect::<Vec<_>>(), vec!["extractor", "self_check"]);
    assert!(x.calls.iter().all(|c| c.request.get("messages").is_some() && c.cost_usd > 0.0));
    let draft = old.iter().find(|c| c.source == "author_draft_calls").unwrap();
    let d = e.authoring_draft_show(&draft.item).unwrap();
    assert_eq!(d.calls.iter().map(|c| c.attempt).collect::<Vec<_>>(), vec![1, 2]);
    assert!(
        d.calls[0].parse_notes.iter().any(|n| n.contains("harm_coarse")),
        "parse notes survive: {:?}",
        d.calls[0].parse_notes
    );
    let audit = old.iter().find(|c| c.source == "label_audit_results").unwrap();
    let run = audit.run_id.clone().unwrap();
    let calls = ledger(&e, json!({"run_id": run})).await;
    assert_eq!(calls.len(), 10);
    assert!(calls
        .iter()
        .all(|c| c.role.as_deref() == Some("screener") && c.prompt_versions.contains_key("gen_clause_screen")));
    let results = e
        .label_audit_results(&psebench::label_audit::LabelAuditResultsRequest {
            run_id: Some(run),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(results.screened, 5, "the audit's results are kept");

    // Naming neither a run nor an item is refused with a way forward.
    let err = call(&e, &Caller::Owner, "calls.list", json!({})).await.unwrap_err();
    assert!(err.message.contains("Name a run"), "{}", err.message);
}

fn usage_totals_counted(c: &Connection) -> Vec<(String, Option<String>, i64, i64, i64)> {
    let mut st = c
        .prepare(
            "SELECT stage, run_id, count(*), sum(input_tokens), sum(output_tokens) FROM llm_calls WHERE counted = 1
             GROUP BY stage, run_id ORDER BY stage, run_id",
        )
        .unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

trait Origin {
    fn origin_matches(&self, source: &str) -> bool;
}

impl Origin for LedgerCall {
    /// An old call's row names the stage the client accounted it under.
    fn origin_matches(&self, source: &str) -> bool {
        match source {
            "gen_calls" => self.step.is_some() && self.attempt.is_some(),
            "author_calls" => self.stage.starts_with("author_"),
            "author_draft_calls" => self.stage == "author_draft_complete",
            _ => self.stage == "clause_screen",
        }
    }
}

/// A new label audit: the client writes one ledger row per call with the case, try, role, prompt
/// and model, and the audit adds its reading of the reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_audit_records_each_call_with_its_context() {
    let mock =
        MockServer::start(Script { rules: super::label_audit::audit_rules(), ..Default::default() }, 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::label_audit::setup(dir.path(), &mock);
    let run = e
        .label_audit_create(&psebench::label_audit::LabelAuditRequest {
            cases: "all".into(),
            models: vec!["strict".into(), "loose".into()],
            label: None,
        })
        .unwrap();
    e.label_audit_execute(&run).await.unwrap();
    let calls = ledger(&e, json!({"run_id": run})).await;
    assert_eq!(calls.len(), 8, "4 cases × 2 models, one call each");
    assert_eq!(calls.len() as u64, mock.request_count());
    for c in &calls {
        assert_eq!((c.role.as_deref(), c.attempt, c.stage.as_str()), (Some("screener"), Some(1), "clause_screen"));
        assert!(c.item.is_some() && c.prompt_name.as_deref() == Some("gen_clause_screen"), "{c:?}");
        assert!(c.request.as_ref().unwrap()["messages"][1]["content"].as_str().unwrap().contains("FACT-"));
        assert!(c.response_text.is_some() && c.parsed.is_some() && c.input_tokens > 0 && c.cost_usd > 0.0);
        assert!(c.provider_model.is_some() && c.ok && c.counted);
    }
    let n1 = ledger(&e, json!({"run_id": run, "item": "n1"})).await;
    assert_eq!(n1.iter().map(|c| c.model.as_str()).collect::<Vec<_>>(), vec!["strict", "loose"]);
    assert_eq!(n1[1].parsed.as_ref().unwrap()["verdict"], "Reportable");
    // The totals count each call once.
    let usage = e.usage_by_stage(Some(&run)).unwrap();
    assert_eq!(usage.iter().map(|u| u.calls).sum::<u64>(), 8);
}
