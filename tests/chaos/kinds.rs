//! The four other kinds of long job as chaos scenarios (`kill::Scenario`): re-judging a stored
//! run, "draft every clause", the label audit and an anchor pre-sort job. Each has a mock script
//! that answers its prompts validly, a setup, start and resume arguments, and an export of every
//! unit the run committed (one JSON object per line). `kill.rs` kills them at random moments and
//! `faults_kinds.rs` runs them with a fifth of the calls failing.

use serde_json::{json, Value};

use crate::kill::{eval_script, Scenario, LATENCY_MS};
use crate::support::{long, s, Env};

/// A model at the mock: one request at a time (so only the call in flight at a kill can be lost
/// between answer and commit), a 1 s timeout (the fault runs hang some calls for 1.5 s) and a
/// price, so costs are recorded as for a paid provider.
pub fn add_model(env: &Env, base: &str, name: &str) {
    env.ok(&[
        "models",
        "add",
        name,
        "--kind",
        "openai-compatible",
        "--model",
        name,
        "--base-url",
        base,
        "--concurrency",
        "1",
        "--timeout",
        "1",
        "--price-in",
        "1",
        "--price-out",
        "2",
    ]);
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|x| x.to_string()).collect()
}

fn lines(values: impl IntoIterator<Item = Value>) -> String {
    values.into_iter().map(|v| format!("{v}\n")).collect()
}

/// The engine on a scenario's store, for the few reads the CLI has no JSON output for.
fn engine(env: &Env) -> psebench::api::Engine {
    let opts = psebench::api::EngineOptions {
        secrets: std::sync::Arc::new(psebench::secrets::MemoryStore::default()),
        client: Default::default(),
    };
    psebench::api::Engine::open_with(&env.db(), opts).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Re-judging: an evaluation run made in the setup, judged again by a second judge model.

const SECOND_LOOK: &str = "second look";

pub struct Rejudge;

impl Rejudge {
    fn args(run: &str) -> Vec<String> {
        args(&["eval", "rejudge", run, "--judge-model", "judge2", "--concurrency", "1", "--json"])
    }
}

impl Scenario for Rejudge {
    fn name(&self) -> &'static str {
        "rejudge"
    }
    /// The evaluation's script without the question turn (the setup's run stays short), and a
    /// second judge that answers more slowly, so that kills land while it works.
    fn script(&self) -> Value {
        let mut script = eval_script();
        let rules = script["rules"].as_array_mut().unwrap();
        rules.retain(|r| r["name"] != "ask");
        let second = json!({"name": "judge2", "latency_ms": 3 * LATENCY_MS,
                            "when": {"model": "judge2", "system_contains": "You review the written reasoning", "last_user_regex": "- name: (\\w+)"},
                            "reply": {"json": {"hits": ["{{1}}"], "explanations": {"{{1}}": SECOND_LOOK}}}});
        rules.insert(0, second);
        script
    }
    fn setup(&self, env: &Env, base: &str) {
        for name in ["m", "info", "judge", "judge2"] {
            add_model(env, base, name);
        }
        env.ok(&["demo", "load"]);
        let limit = if long() { 60 } else { 24 };
        let out = env.json(&[
            "eval",
            "run",
            "--cases",
            &format!("origin=demo,limit={limit}"),
            "--model",
            "m",
            "--info-model",
            "info",
            "--judge-model",
            "judge",
            "--concurrency",
            "1",
        ]);
        assert_eq!(out["status"], "completed", "{out}");
    }
    fn start_args(&self, env: &Env) -> Vec<String> {
        Rejudge::args(&self.run_id(env).unwrap())
    }
    fn group(&self) -> &'static str {
        "eval"
    }
    /// Re-judging has no resume subcommand: the same command again on the same run.
    fn resume_args(&self, run: &str) -> Vec<String> {
        Rejudge::args(run)
    }
    fn completed(&self, _env: &Env, out: &Value) -> bool {
        out["message"].is_null() && out["eligible"].as_u64().is_some_and(|n| n > 0) && out["failed"] == 0
    }
    /// The trajectories whose judgement is the second judge's.
    fn export(&self, env: &Env, run: &str) -> String {
        let out = env.path("export.jsonl");
        env.ok(&["eval", "export", run, "--out", s(&out)]);
        let text = std::fs::read_to_string(out).unwrap();
        lines(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|t| t["judge"].to_string().contains(SECOND_LOOK)),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// "Draft every clause": a policy of the user's own whose clauses all have an approved extraction.

const POLICY: &str = "chaos-pack";
const DRAFTER: &str = "You draft clause cards for a patient-safety test library";

/// Three clauses (eight in the long run), in two categories.
fn policy_clauses() -> Vec<(String, String, String)> {
    let n = if long() { 4 } else { 2 };
    let mut out = Vec::new();
    for cat in ["Falls", "Burns"] {
        for k in 1..=n {
            out.push((format!("CX_{cat}_{k}"), format!("{cat} clause {k}"), cat.to_string()));
        }
    }
    out.truncate(if long() { 8 } else { 3 });
    out
}

fn drafted_card(prefix: &str, event_type: &str, lasting: bool) -> Value {
    json!({
      "clause_card_id": format!("{prefix}_1_{{{{2}}}}_{{{{3}}}}"),
      "clause_card_definition": format!("A patient is harmed in the service's care ({{{{1}}}}) and the harm {} a week later.", if lasting { "still limits them" } else { "is gone" }),
      "clause_id": "{{1}}",
      "event_type": event_type,
      "fixed_fields": {
        "governing_legal_basis": {"value": ["Lasting harm"], "meaning": "The clause needs harm lasting beyond a week."},
        "boundary_conditions": {
          "event_in_care": {"value": true, "meaning": "The event happened while the patient was in the service's care.", "corresponding_basic_event_elements": ["event_description"]},
          "harm_lasting": {"value": lasting, "meaning": "Harm from the event still limited the patient after seven days.", "corresponding_basic_event_elements": ["harm_course"]}
        }
      },
      "basic_event_elements": {
        "event_description": {"field_type": "string", "meaning": "How, where and when the event happened.", "allowed_content": "concrete circumstances", "disallowed_content": "verdict words"},
        "harm_course": {"field_type": "string", "meaning": "The harm the event caused and how it developed over the following days.", "allowed_content": "concrete course", "disallowed_content": "verdict words"}
      },
      "constraints_on_basic_event_elements_instantiation": [
        "No slot value and no sentence of the narrative may contain the words \"reportable\" or \"non-reportable\"."
      ]
    })
}

pub struct DraftAll;

impl DraftAll {
    fn args(resume: Option<&str>) -> Vec<String> {
        let mut a =
            args(&["author", "draft-all", "--policy", POLICY, "--model", "author", "--kind", "complete", "--json"]);
        if let Some(r) = resume {
            a.extend(args(&["--resume", r]));
        }
        a
    }
}

impl Scenario for DraftAll {
    fn name(&self) -> &'static str {
        "draft-all"
    }
    fn script(&self) -> Value {
        json!({
            "latency_ms": LATENCY_MS,
            "rules": [
                {"name": "extract", "when": {"system_contains": "You help a compliance team build a library"},
                 "reply": {"json": {"relevant_sections": [
                    {"section_id": "Lasting harm", "criteria": ["defines_term"], "why": "defines lasting harm"},
                    {"section_id": "Care of the service", "criteria": ["scope"], "why": "says when the patient is in care"}]}}},
                {"name": "check", "when": {"system_contains": "You review a selection of policy sections"}, "reply": {"json": {"add": [], "remove": []}}},
                {"name": "draft", "when": {"system_contains": DRAFTER, "last_user_regex": "Target clause id: (\\S+)\\s+Card id parts: Category = (\\w+), k = (\\d+)"},
                 "reply": {"json": {
                    "target_clause_id": "{{1}}",
                    "clause_cards": [drafted_card("CardRep", "Reportable", true), drafted_card("CardNonrep", "Non_Reportable", false)],
                    "self_check": [{"check": "legal basis only from the passages", "passed": true, "note": ""}]}}}
            ]
        })
    }
    fn setup(&self, env: &Env, base: &str) {
        add_model(env, base, "author");
        let clauses: Vec<Value> = policy_clauses()
            .iter()
            .map(|(id, label, cat)| {
                json!({"clause_id": id, "label": label, "category": cat,
                       "text": format!("An event of the {cat} kind in the service's care whose harm lasts beyond a week ({label}).")})
            })
            .collect();
        let pack = json!({
            "id": POLICY, "name": "Chaos pack", "jurisdiction": "Test Authority",
            "reporting_deadline": "within 10 working days", "clauses": clauses,
            "guidance_markdown": "# Lasting harm\nHarm counts as lasting when it still limits the patient after seven days.\n\n# Care of the service\nAny time the patient is on the premises or with staff off site.\n"
        });
        let f = env.file("pack.json", &pack.to_string());
        env.ok(&["policy", "create", s(&f)]);
        for (clause, _, _) in policy_clauses() {
            let x = env.json(&["author", "extract", "--policy", POLICY, "--clause", &clause, "--model", "author"]);
            let id = x["extraction_id"].as_str().unwrap();
            env.ok(&["author", "extract", "--approve", id, "--by", "Chaos Reviewer"]);
        }
    }
    fn start_args(&self, _env: &Env) -> Vec<String> {
        DraftAll::args(None)
    }
    fn group(&self) -> &'static str {
        "author"
    }
    /// The job of the drafts stored so far (a job killed before its first draft is started anew).
    fn run_id(&self, env: &Env) -> Option<String> {
        let drafts = env.json(&["author", "list", "--drafts", "--policy", POLICY]);
        drafts.as_array()?.iter().find_map(|d| d["run_id"].as_str().map(str::to_string))
    }
    fn resume_args(&self, run: &str) -> Vec<String> {
        DraftAll::args(Some(run))
    }
    fn completed(&self, _env: &Env, out: &Value) -> bool {
        out["status"] == "completed" && out["drafts"].as_u64() == Some(policy_clauses().len() as u64)
    }
    /// The stored drafts, without their generated ids.
    fn export(&self, env: &Env, _run: &str) -> String {
        let drafts = env.json(&["author", "list", "--drafts", "--policy", POLICY]);
        lines(drafts.as_array().unwrap().iter().map(|d| {
            let mut d = d.clone();
            d.as_object_mut().unwrap().remove("draft_id");
            d
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// The label audit: imported cases screened by one model against every clause.

const SCREEN: &str = "You screen one event's facts against every clause";
const FALL: &str = "CareManagement_7_Fall";

fn audit_cases() -> usize {
    if long() {
        30
    } else {
        12
    }
}

pub struct LabelAudit;

impl Scenario for LabelAudit {
    fn name(&self) -> &'static str {
        "label-audit"
    }
    fn script(&self) -> Value {
        let met = |clauses: &[&str], verdict: &str| {
            json!({"clauses_met": clauses.iter().map(|c| json!({"clause_id": c, "why": "its elements are in the facts"})).collect::<Vec<_>>(),
                   "open_question": {"present": false, "section_id": null, "why": null}, "verdict": verdict})
        };
        json!({
            "latency_ms": LATENCY_MS,
            "rules": [
                {"name": "rep", "when": {"system_contains": SCREEN, "last_user_contains": "FACT-REP"}, "reply": {"json": met(&[FALL], "Reportable")}},
                {"name": "non", "when": {"system_contains": SCREEN, "last_user_contains": "FACT-NON"}, "reply": {"json": met(&[], "Non-reportable")}}
            ]
        })
    }
    fn setup(&self, env: &Env, base: &str) {
        add_model(env, base, "screener");
        let cases = (0..audit_cases()).map(|i| {
            let rep = i % 3 != 0;
            let (verdict, fact) = if rep {
                ("Reportable", format!("FACT-REP patient {i} was found on the floor with a hip fracture"))
            } else {
                ("Non-reportable", format!("FACT-NON patient {i} sat down on the floor unhurt"))
            };
            json!({
              "case_id": format!("audit-{i:02}"), "case_type": "complete", "policy": "mn29", "clause_id": FALL,
              "clause_card_id": format!("CardAudit_{i}"), "missing_variant_id": null, "gold_verdict": verdict,
              "gold_clause": if rep { json!("Care Management Events clause 7") } else { Value::Null },
              "gold_legal_basis": ["Care Management Events clause 7"], "boundary_conditions": [],
              "elements": [{"name": "fall_description", "meaning": "How, where and when the patient fell.", "value": fact}],
              "masked_elements": [], "narrative": format!("Ward notes. {fact}"), "anchor_id": null
            })
        });
        let f = env.file("audit.jsonl", &lines(cases));
        env.ok(&["cases", "import", s(&f)]);
    }
    /// The label audit asks four calls at a time (`label_audit::CONCURRENCY`): a kill can find
    /// up to four unanswered, not only the newest.
    fn calls_in_flight(&self) -> u64 {
        4
    }
    fn start_args(&self, _env: &Env) -> Vec<String> {
        args(&["cases", "screen", "--cases", "all", "--models", "screener", "--yes", "--json"])
    }
    fn group(&self) -> &'static str {
        "cases"
    }
    /// The CLI lists no audits: the engine's list, read-only.
    fn run_id(&self, env: &Env) -> Option<String> {
        engine(env).label_audit_list().unwrap().first().map(|r| r.run_id.clone())
    }
    fn resume_args(&self, run: &str) -> Vec<String> {
        args(&["cases", "screen", "--resume", run, "--yes", "--json"])
    }
    fn completed(&self, env: &Env, out: &Value) -> bool {
        let runs = engine(env).label_audit_list().unwrap();
        out["screened"].as_u64() == Some(audit_cases() as u64)
            && runs.first().is_some_and(|r| r.status == psebench::jobs::RunStatus::Completed)
    }
    /// One line per case and model screened (the CLI prints only the disputed cases, so the
    /// engine's results are read directly).
    fn export(&self, env: &Env, run: &str) -> String {
        let req =
            psebench::label_audit::LabelAuditResultsRequest { run_id: Some(run.to_string()), ..Default::default() };
        let results = engine(env).label_audit_results(&req).unwrap();
        let mut out = Vec::new();
        for row in results.rows {
            for (model, verdict) in &row.verdicts {
                out.push(json!({"case_id": row.case_id, "label": row.label, "model": model, "verdict": verdict}));
            }
        }
        lines(out)
    }
}

// ---------------------------------------------------------------------------------------------
// An anchor job: imported anchors without a bucket, pre-sorted by a model.

fn presort_anchors() -> usize {
    if long() {
        30
    } else {
        12
    }
}

pub struct AnchorPresort;

impl Scenario for AnchorPresort {
    fn name(&self) -> &'static str {
        "anchor-presort"
    }
    fn script(&self) -> Value {
        json!({
            "latency_ms": LATENCY_MS,
            "rules": [
                {"name": "burn", "when": {"system_contains": "You sort short healthcare incident texts", "last_user_contains": "scalded"},
                 "reply": {"json": {"clause_id": "Environmental_3_Burn", "reason": "a burn"}}},
                {"name": "fall", "when": {"system_contains": "You sort short healthcare incident texts"},
                 "reply": {"json": {"clause_id": FALL, "reason": "a fall"}}}
            ]
        })
    }
    fn setup(&self, env: &Env, base: &str) {
        add_model(env, base, "sorter");
        let anchors = (0..presort_anchors()).map(|i| {
            let what = if i % 4 == 0 { "was scalded by a hot drink" } else { "slipped and fell" };
            json!({"anchor_id": format!("presort-{i:02}"), "text": format!("On ward {i} the patient {what} during the afternoon round."), "source": "chaos"})
        });
        let f = env.file("anchors.jsonl", &lines(anchors));
        env.ok(&["anchors", "import", s(&f)]);
    }
    fn start_args(&self, _env: &Env) -> Vec<String> {
        args(&["anchors", "presort", "--model", "sorter", "--concurrency", "1", "--json"])
    }
    fn group(&self) -> &'static str {
        "anchors"
    }
    fn run_id(&self, env: &Env) -> Option<String> {
        let jobs = env.json(&["anchors", "jobs"]);
        jobs.as_array()?.first()?.get("run_id")?.as_str().map(str::to_string)
    }
    fn completed(&self, env: &Env, out: &Value) -> bool {
        let jobs = env.json(&["anchors", "jobs"]);
        out["failed"] == 0 && jobs[0]["status"] == "completed" && jobs[0]["pending"] == 0
    }
    /// The imported anchors the job put in a bucket.
    fn export(&self, env: &Env, _run: &str) -> String {
        let list = env.json(&["anchors", "list", "--origin", "imported"]);
        lines(list.as_array().unwrap().iter().filter(|a| !a["clause_id"].is_null()).cloned())
    }
}

#[test]
fn a_rejudging_killed_at_random_moments_resumes_without_loss_or_repeated_calls() {
    crate::kill::chaos(&Rejudge);
}

#[test]
fn a_draft_every_clause_job_killed_at_random_moments_resumes_without_loss_or_repeated_calls() {
    crate::kill::chaos(&DraftAll);
}

#[test]
fn a_label_audit_killed_at_random_moments_resumes_without_loss_or_repeated_calls() {
    crate::kill::chaos(&LabelAudit);
}

#[test]
fn an_anchor_presort_job_killed_at_random_moments_resumes_without_loss_or_repeated_calls() {
    crate::kill::chaos(&AnchorPresort);
}
