//! The one call surface of the shells: `call(engine, caller, "cards.list", params)` decodes the
//! parameters into the method's typed request, runs the engine function (blocking work on the
//! blocking pool, long jobs spawned in the background) and encodes the typed result. The desktop
//! app's single Tauri command and `psebench serve`'s `POST /api/<method>` both go through here,
//! and the UI's TypeScript types are generated from the same table (`bindings`).
//!
//! # Method names
//!
//! A method is `<namespace>.<verb>` in lower snake case, and each concept has one name: the one
//! its engine module, its tables and the `Engine` method behind it use (`label_audit.plan` is
//! `Engine::label_audit_plan` in the `label_audit` module, writing `label_audit_results`).
//!
//! - **Records** (policies, cards, cases, models, anchors, batches, calls): the plural for what
//!   works on the collection or on several records (`cards.list`, `cards.import`, `cards.export`,
//!   `cards.lint_library`, `models.discover`, `anchors.buckets`, `anchors.presort`,
//!   `anchors.remove`), the singular for what works on the one record its parameters name
//!   (`card.show`, `card.save`, `card.audit`, `card.diff`, `case.set_excluded`, `policy.create`,
//!   `policy.delete`, `model.add`, `model.test`, `anchor.set_bucket`).
//! - **Workflows** (each kind of run, and review sessions): the singular name of the workflow
//!   (`generation`, `evaluation`, `label_audit`, `authoring`, `anchor_job`, `review`). `list` lists
//!   its runs, `show` shows one; `plan`, `create`, `start`, `execute`, `resume`, `cancel` work on
//!   one run. A job inside a workflow takes a prefix (`authoring.draft_all_start`); the records a
//!   workflow keeps are listed by their plural and shown by `<record>_show` (`authoring.drafts`,
//!   `authoring.draft_show`, `authoring.extractions`, `authoring.extraction_show`,
//!   `generation.candidates`).
//! - **Single things** of a store are named for themselves: `store`, `jobs`, `cache`, `usage`,
//!   `demo`, `library`, `metrics`, `results`, `report`.
//! - Command-line methods that read or write files by path end in `_file`, `_files`, `_paths`
//!   or `_to` ([`CLI_METHODS`]).
//!
//! Names that came before this rule (`cases.screen_plan`, `gen.create`, `author.draft`,
//! `cards.show`, `eval.list`, …) keep working: [`ALIASES`] maps each one to its canonical method,
//! [`call`] resolves it first, and no listing shows it. `eval.delete` and `eval.delete_preview` are
//! aliases of the same kind, for scripts that use the `eval.*` names. Stored values are not names of methods
//! and do not change: run kinds (`eval`, `generation`, `label_audit`, …), accounting stages
//! (`author_extract`, `clause_screen`, …), prompt template names (`gen_*`, `author_*`) and the
//! JSON fields of the file formats.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

use super::cards::{
    CardAuditRequest, CardDetail, CardDiff, CardFilter, CardSaveRequest, CardSummary, CardsImportResult,
};
use super::cases::{CaseDetail, CasesImportResult};
use super::files::{export_via_temp, Download, Upload, UploadDir};
use super::models::{ModelAddRequest, ModelTestResult, ModelView};
use super::policy::{
    NewPolicy, PolicyCreateResult, PolicyDeleteResult, PolicyImportRequest, PolicyImportResult, PolicySummary,
    PolicyView,
};
use super::removals::{ExampleResultsRemoval, RunRemoval};
use super::results::{
    ChartFileRequest, ResultsGrid, ResultsOverview, ResultsRequest, TableFileRequest, TrajectoryRequest, TrajectoryView,
};
use super::store_info::StoreInfo;
use super::Engine;
use crate::anchor::job::{AnchorJobPlan, AnchorJobRequest, AnchorJobView};
use crate::anchor::llm::{AnchorBatchResult, AnchorPresortRequest, AnchorTranslateRequest};
use crate::anchor::{Anchor, AnchorBucket, AnchorFilter, AnchorImportOptions, AnchorImportResult, AnchorSummary};
use crate::authoring::draft::all::{DraftAllPlan, DraftAllRequest, DraftAllRun};
use crate::authoring::draft::{
    AcceptRequest, AcceptResult, Draft, DraftDiff, DraftDiffRequest, DraftEditRequest, DraftFilter, DraftRequest,
    DraftResult, DraftSummary, RejectRequest,
};
use crate::authoring::{
    ApproveRequest, ExtractRequest, ExtractResult, Extraction, ExtractionFailure, ExtractionFilter, ExtractionSummary,
};
use crate::card::lint::LintReport;
use crate::case::repo::{CaseFilter, CaseSummary};
use crate::case::Case;
use crate::context::demo_model::DemoModelStatus;
use crate::context::discover::{DiscoverRequest, DiscoverResult};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::evaluation::examples::ExampleResults;
use crate::evaluation::rejudge::{RejudgeRequest, RejudgeSummary};
use crate::evaluation::{EvaluationPlan, EvaluationRunRequest, EvaluationRunView, EvaluationSummary};
use crate::export::dataset::DatasetExport;
use crate::export::{ReportRequest, ReportWritten};
use crate::generation::Provenance;
use crate::generation::{
    GenerationCandidateFilter, GenerationCandidateView, GenerationPlan, GenerationRequest, GenerationRunView,
    GenerationSummary,
};
use crate::generation::{GenerationStats, LibraryStats};
use crate::jobs::{Progress, RunKind, RunStatus};
use crate::label_audit::{
    LabelAuditPlan, LabelAuditReport, LabelAuditRequest, LabelAuditResults, LabelAuditResultsRequest, LabelAuditRunView,
};
use crate::llm::accounting::UsageTotals;
use crate::llm::cache::CacheStats;
use crate::llm::ledger::{CallFilter, LedgerCall};
use crate::metrics::{FileMetrics, MetricsOptions, MetricsReport};
use crate::policy::sections::PolicySections;
use crate::protocol::Comparability;
use crate::review::sharing::{ReviewShareRequest, ReviewShareStatus};
use crate::review::{
    ReviewAdjudicateRequest, ReviewAdjudication, ReviewAnswerPatch, ReviewAnswerSaved, ReviewAvailable,
    ReviewCreateRequest, ReviewExportFormat, ReviewExportResult, ReviewItemView, ReviewLinks, ReviewLinksRequest,
    ReviewMe, ReviewPackExported, ReviewPackMergeReport, ReviewPackOpened, ReviewQueue, ReviewQueueRequest,
    ReviewReveal, ReviewSessionDetail, ReviewSessionSummary, ReviewStats, ReviewSummary, ReviewSummaryFiles,
};

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// The person who owns this store: the desktop app, or a browser on this computer.
    Owner,
    /// A reviewer who opened a personal link; may only use the reviewer methods, with this token,
    /// and (when `session` is given) only for that review session.
    Reviewer { token: String, session: Option<String> },
    /// The `psebench` command line on this computer: every owner method, and also the
    /// [`CLI_METHODS`] (files read and written by path, long jobs run in the caller's foreground),
    /// which the app and `psebench serve` refuse.
    Cli,
}

/// Parameters of methods that take none (`{}` or null).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NoParams {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct IdParams {
    pub id: String,
}

/// Which batches to list: a run's, or all.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct BatchListParams {
    #[serde(default)]
    pub run_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunParams {
    pub run_id: String,
}

/// Parameters of resuming a stopped run, optionally under a new spending cap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct ResumeParams {
    pub run_id: String,
    /// A new spending cap in US$ (a run stopped at its cap needs a higher one).
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Resume without any spending cap.
    #[serde(default)]
    pub clear_max_cost: Option<bool>,
}

impl ResumeParams {
    fn cap_change(&self) -> ApiResult<crate::jobs::budget::CapChange> {
        crate::jobs::budget::CapChange::from_params(self.max_cost_usd, self.clear_max_cost.unwrap_or(false))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunStarted {
    pub run_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CardShowParams {
    pub card_id: String,
    #[serde(default)]
    pub version: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CardCheckParams {
    pub json: String,
    #[serde(default)]
    pub policy: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CardCoverageParams {
    #[serde(default)]
    pub policy: Option<String>,
    /// One clause id; every clause when absent.
    #[serde(default)]
    pub clause: Option<String>,
    /// Card files or folders on this computer to report on instead of the stored library.
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardDiffParams {
    pub card_id: String,
    pub from: i64,
    pub to: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct PolicyParams {
    #[serde(default)]
    pub policy: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CardFilesParams {
    pub files: Vec<Upload>,
    #[serde(default)]
    pub policy: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CardImportParams {
    pub files: Vec<Upload>,
    #[serde(default)]
    pub policy: Option<String>,
    pub author: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CardExportParams {
    #[serde(default)]
    pub filter: CardFilter,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct PolicyImportParams {
    pub policy: String,
    #[serde(default)]
    pub clauses: Option<Upload>,
    #[serde(default)]
    pub guidance: Option<Upload>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseShowParams {
    pub case_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CasesImportParams {
    pub file: Upload,
    #[serde(default)]
    pub replace: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CaseExcludeParams {
    pub case_id: String,
    pub excluded: bool,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CasesExportParams {
    #[serde(default)]
    pub filter: CaseFilter,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelNameParams {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelKeyParams {
    pub name: String,
    pub key: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct CacheClearParams {
    #[serde(default)]
    pub model: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct UsageParams {
    #[serde(default)]
    pub run_id: Option<String>,
    /// Totals over every call (all runs and calls outside runs); `run_id` is then ignored.
    #[serde(default)]
    pub all: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvaluationImportParams {
    pub file: Upload,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Count {
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Flag {
    pub value: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunIds {
    pub run_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct AnchorsImportParams {
    /// One JSONL or CSV file, or one or more `.txt` files (one anchor each).
    pub files: Vec<Upload>,
    #[serde(default)]
    pub options: Option<AnchorImportOptions>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorIdParams {
    pub anchor_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct AnchorBucketParams {
    pub anchor_id: String,
    /// A clause id, or null to take the anchor out of every bucket.
    #[serde(default)]
    pub clause_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AnchorIdsParams {
    pub anchor_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct GenerationCandidatesParams {
    pub run_id: String,
    #[serde(default)]
    pub filter: Option<GenerationCandidateFilter>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct LibraryStatsParams {
    #[serde(default)]
    pub policy: Option<String>,
    /// Count only approved cards (what generation uses).
    #[serde(default)]
    pub approved_only: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionParams {
    /// A session id (or a name only one session has).
    pub session: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GuidelinesParams {
    pub session: String,
    pub markdown: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewerParams {
    pub session: String,
    pub reviewer: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TokenResult {
    pub token: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct AdjudicationsParams {
    pub session: String,
    #[serde(default)]
    pub case_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewExportParams {
    pub session: String,
    pub format: ReviewExportFormat,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct PackAnswersParams {
    pub session: String,
    #[serde(default)]
    pub reviewer: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileParams {
    pub file: Upload,
}

/// The calls of a reviewer: `token` is their personal token (a link's, or one made for a reviewer
/// working in this app). Over a review link the server puts the link's token here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewTokenParams {
    pub token: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewItemParams {
    pub token: String,
    pub item_no: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewAnswerParams {
    pub token: String,
    pub item_no: u32,
    pub patch: ReviewAnswerPatch,
}

// Parameters of the command line's own methods (`CLI_METHODS`): paths on this computer.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathParams {
    pub path: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardPathsParams {
    pub paths: Vec<PathBuf>,
    pub policy: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardImportPathsParams {
    pub paths: Vec<PathBuf>,
    pub policy: String,
    pub author: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardExportToParams {
    pub out: PathBuf,
    #[serde(default)]
    pub filter: CardFilter,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CasesImportFileParams {
    pub file: PathBuf,
    #[serde(default)]
    pub replace: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CasesExportToParams {
    pub out: PathBuf,
    #[serde(default)]
    pub filter: CaseFilter,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFileParams {
    pub run_id: String,
    pub out: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsRunsParams {
    pub run_ids: Vec<String>,
    pub options: MetricsOptions,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsFilesParams {
    pub cases: PathBuf,
    pub trajectories: PathBuf,
    pub options: MetricsOptions,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnchorsImportFileParams {
    pub path: PathBuf,
    #[serde(default)]
    pub options: AnchorImportOptions,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewFileParams {
    pub session: String,
    pub out: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewPackFileParams {
    pub session: String,
    pub reviewer: String,
    pub out: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewAnswersFileParams {
    pub session: String,
    #[serde(default)]
    pub reviewer: Option<String>,
    pub out: PathBuf,
}

/// Decode a method's parameters; a missing body counts as `{}`.
fn params<P: DeserializeOwned>(method: &str, v: Value) -> ApiResult<P> {
    let v = if v.is_null() { Value::Object(Default::default()) } else { v };
    serde_path_to_error::deserialize(v).map_err(|e| {
        let at = e.path().to_string();
        ApiError::new(ErrorCode::InvalidInput, format!("The request for {method} is not valid: {}", e.inner()))
            .with_detail(if at == "." { String::new() } else { format!("at {at}") })
    })
}

fn encode<R: Serialize>(r: R) -> ApiResult<Value> {
    serde_json::to_value(r).map_err(|e| ApiError::internal(format!("the answer could not be encoded: {e}")))
}

/// Run synchronous engine work (SQLite, file parsing, metrics) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(format!("a background task failed: {e}")))?
}

fn policy_or_default(p: &Option<String>) -> String {
    p.clone().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| crate::policy::DEFAULT_POLICY.to_string())
}

/// Start a long job in the background; its progress arrives as events, its outcome in the store.
/// A failure before the job could report anything is published as its last progress.
fn spawn_job<F>(engine: Engine, run_id: String, kind: RunKind, work: F)
where
    F: std::future::Future<Output = ApiResult<()>> + Send + 'static,
{
    tokio::spawn(async move {
        if let Err(e) = work.await {
            engine.jobs().publish(Progress {
                run_id,
                kind,
                status: RunStatus::Failed,
                total: 0,
                done: 0,
                counters: Default::default(),
                elapsed_secs: 0.0,
                eta_secs: None,
                message: Some(e.message),
            });
        }
    });
}

/// Resume, in the background, the batch-mode runs left interrupted while their batches were out
/// (the app or CLI was closed): their polling picks up where it stopped. Returns their ids. Call
/// it inside the async runtime when the app or the server opens the store.
pub fn resume_batch_runs(engine: &Engine) -> Vec<String> {
    let runs = match engine.batch_runs_to_resume() {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "could not look for batch-mode runs to resume");
            return Vec::new();
        }
    };
    let mut ids = Vec::new();
    for (run_id, kind) in runs {
        tracing::info!(run = %run_id, "resuming a batch-mode run whose batches are still out");
        match kind {
            RunKind::Eval => spawn_evaluation(engine.clone(), run_id.clone()),
            RunKind::Generation => spawn_generation(engine.clone(), run_id.clone()),
            _ => continue,
        }
        ids.push(run_id);
    }
    ids
}

fn spawn_evaluation(engine: Engine, run_id: String) {
    let (e, id) = (engine.clone(), run_id.clone());
    spawn_job(engine, run_id, RunKind::Eval, async move { e.evaluation_execute(&id).await.map(|_| ()) });
}

fn spawn_generation(engine: Engine, run_id: String) {
    let (e, id) = (engine.clone(), run_id.clone());
    spawn_job(engine, run_id, RunKind::Generation, async move { e.generation_execute(&id).await.map(|_| ()) });
}

fn spawn_draft_all(engine: Engine, run_id: String) {
    let (e, id) = (engine.clone(), run_id.clone());
    spawn_job(engine, run_id, RunKind::Authoring, async move { e.authoring_draft_all_execute(&id).await });
}

fn spawn_label_audit(engine: Engine, run_id: String) {
    let (e, id) = (engine.clone(), run_id.clone());
    spawn_job(engine, run_id, RunKind::LabelAudit, async move { e.label_audit_execute(&id).await.map(|_| ()) });
}

fn spawn_anchor_job(engine: Engine, run_id: String) {
    let (e, id) = (engine.clone(), run_id.clone());
    spawn_job(engine, run_id, RunKind::AnchorJob, async move { e.anchor_job_execute(&id).await });
}

fn text_download(file_name: &str, mime: &str, text: &str, description: &str) -> Download {
    Download::from_bytes(file_name, mime, text.as_bytes(), description)
}

fn upload_text(u: &Upload) -> ApiResult<String> {
    let dir = UploadDir::new(std::slice::from_ref(u))?;
    dir.run(|paths| {
        crate::util::files::read_text(&paths[0], crate::util::files::MAX_TEXT_FILE_BYTES).map_err(ApiError::from)
    })
}

macro_rules! api_methods {
    ($( $name:literal [$doc:literal] ($e:ident, $p:ident : $P:ty) -> $R:ty $body:block )*
     cli_only:
     $( $cname:literal [$cdoc:literal] ($ce:ident, $cp:ident : $CP:ty) -> $CR:ty $cbody:block )*) => {
        /// Every method of the app and the server: name and what it does.
        pub const METHODS: &[(&str, &str)] = &[ $( ($name, $doc), )* ];

        /// Methods only the command line may call ([`Caller::Cli`]): they read or write files by
        /// path on this computer, or run a long job in the caller's foreground (the app and the
        /// server start the same jobs in the background and follow their progress events).
        pub const CLI_METHODS: &[(&str, &str)] = &[ $( ($cname, $cdoc), )* ];

        async fn dispatch(engine: &Engine, method: &str, raw: Value) -> ApiResult<Value> {
            match method {
                $( $name => {
                    #[allow(unused_variables)]
                    let $p: $P = params($name, raw)?;
                    #[allow(unused_variables)]
                    let $e = engine.clone();
                    let out: $R = $body;
                    encode(out)
                } )*
                $( $cname => {
                    #[allow(unused_variables)]
                    let $cp: $CP = params($cname, raw)?;
                    #[allow(unused_variables)]
                    let $ce = engine.clone();
                    let out: $CR = $cbody;
                    encode(out)
                } )*
                other => Err(ApiError::not_found(format!("There is no API method \"{other}\"."))),
            }
        }

        /// Visit the parameter and result types of every method of the app (TypeScript generation).
        pub(crate) fn visit_method_types(v: &mut bindings::Collector) {
            $( v.method::<$P, $R>($name, $doc); )*
        }
    };
}

api_methods! {
    "store.info" ["Where the store is and what it holds."] (e, p: NoParams) -> StoreInfo {
        blocking(move || e.store_info()).await?
    }
    "jobs.active" ["Latest progress of the runs working right now."] (e, p: NoParams) -> Vec<Progress> {
        e.jobs().active()
    }
    "policies.list" ["The policy packs in the store."] (e, p: NoParams) -> Vec<PolicySummary> {
        blocking(move || e.policies_list()).await?
    }
    "policy.show" ["One policy pack: clauses, guidance, evidence vocabulary, official text."] (e, p: IdParams) -> PolicyView {
        blocking(move || e.policy_show(&p.id)).await?
    }
    "policy.create" ["Create a user policy pack from its id, name, jurisdiction, reporting deadline, clauses and guidance Markdown."] (e, p: NewPolicy) -> PolicyCreateResult {
        blocking(move || e.policy_create(&p)).await?
    }
    "policy.delete" ["Delete a user policy pack that no card or case uses."] (e, p: IdParams) -> PolicyDeleteResult {
        blocking(move || e.policy_delete(&p.id)).await?
    }
    "policy.import" ["Store official clause and/or guidance text (Markdown), split at headings."] (e, p: PolicyImportParams) -> PolicyImportResult {
        blocking(move || {
            let files: Vec<Upload> = [p.clauses.clone(), p.guidance.clone()].into_iter().flatten().collect();
            let dir = UploadDir::new(&files)?;
            dir.run(|paths| {
                let mut it = paths.iter();
                let clauses = p.clauses.as_ref().and_then(|_| it.next().cloned());
                let guidance = p.guidance.as_ref().and_then(|_| it.next().cloned());
                e.policy_import(&PolicyImportRequest { policy: p.policy.clone(), clauses, guidance })
            })
            .map(|mut r| {
                for d in &mut r.documents {
                    d.file = dir.clean(&d.file);
                }
                r
            })
        })
        .await?
    }
    "cards.list" ["The card library, filtered."] (e, p: CardFilter) -> Vec<CardSummary> {
        blocking(move || e.cards_list(&p)).await?
    }
    "card.show" ["One card at its current or an earlier version, with history and lint findings."] (e, p: CardShowParams) -> CardDetail {
        blocking(move || e.card_show(&p.card_id, p.version)).await?
    }
    "card.check" ["Lint an edited card document without saving it."] (e, p: CardCheckParams) -> LintReport {
        blocking(move || e.card_check(&p.json, &policy_or_default(&p.policy))).await?
    }
    "card.save" ["Save an edited card as a new version (back to draft)."] (e, p: CardSaveRequest) -> CardDetail {
        blocking(move || e.card_save(&p)).await?
    }
    "card.audit" ["Record an audit decision on a card."] (e, p: CardAuditRequest) -> CardDetail {
        blocking(move || e.card_audit(&p)).await?
    }
    "card.diff" ["Line differences between two versions of a card."] (e, p: CardDiffParams) -> CardDiff {
        blocking(move || e.card_diff(&p.card_id, p.from, p.to)).await?
    }
    "cards.lint_library" ["Lint every stored card of a policy."] (e, p: PolicyParams) -> LintReport {
        blocking(move || e.cards_lint_library(&policy_or_default(&p.policy))).await?
    }
    "cards.coverage" ["Which combinations of each clause's conditions no stored card admits."] (e, p: CardCoverageParams) -> Vec<crate::card::actions::ClauseCoverage> {
        blocking(move || e.cards_coverage(&policy_or_default(&p.policy), p.clause.as_deref(), &p.paths)).await?
    }
    "cards.lint_files" ["Lint uploaded card files without importing them."] (e, p: CardFilesParams) -> LintReport {
        blocking(move || {
            let dir = UploadDir::new(&p.files)?;
            let mut report = dir.run(|paths| e.cards_lint_paths(paths, &policy_or_default(&p.policy)))?;
            for prob in &mut report.problems {
                prob.path = dir.clean(&prob.path);
                prob.message = dir.clean(&prob.message);
            }
            Ok(report)
        })
        .await?
    }
    "cards.import" ["Import uploaded card files (all or nothing) as drafts."] (e, p: CardImportParams) -> CardsImportResult {
        blocking(move || {
            let dir = UploadDir::new(&p.files)?;
            let mut res = dir.run(|paths| e.cards_import_named(paths, &policy_or_default(&p.policy), &p.author, &|f: &str| dir.clean(f)))?;
            for prob in &mut res.lint.problems {
                prob.path = dir.clean(&prob.path);
            }
            Ok(res)
        })
        .await?
    }
    "cards.export" ["The current cards (filtered) as cards.jsonl."] (e, p: CardExportParams) -> Download {
        blocking(move || {
            let bytes = export_via_temp("cards.jsonl", |path| e.cards_export(path, &p.filter).map(|_| ()))?;
            Ok(Download::from_bytes("cards.jsonl", "application/x-ndjson", &bytes, "Clause cards, one JSON document per line"))
        })
        .await?
    }
    "cases.list" ["Benchmark cases, filtered."] (e, p: CaseFilter) -> Vec<CaseSummary> {
        blocking(move || e.cases_list(&p)).await?
    }
    "case.show" ["One case with its full ground truth."] (e, p: CaseShowParams) -> Case {
        blocking(move || e.case_show(&p.case_id)).await?
    }
    "case.detail" ["One case with where it came from, whether runs leave it out, and its clause and card names."] (e, p: CaseShowParams) -> CaseDetail {
        blocking(move || e.case_detail(&p.case_id)).await?
    }
    "cases.import" ["Import an uploaded cases.jsonl file (all or nothing)."] (e, p: CasesImportParams) -> CasesImportResult {
        blocking(move || {
            let dir = UploadDir::new(std::slice::from_ref(&p.file))?;
            let mut r = dir.run(|paths| e.cases_import(&paths[0], p.replace, "imported"))?;
            r.file = p.file.name.clone();
            Ok(r)
        })
        .await?
    }
    "cases.export" ["Cases (filtered) as cases.jsonl."] (e, p: CasesExportParams) -> Download {
        blocking(move || {
            let bytes = export_via_temp("cases.jsonl", |path| e.cases_export(path, &p.filter).map(|_| ()))?;
            Ok(Download::from_bytes("cases.jsonl", "application/x-ndjson", &bytes, "Benchmark cases, one JSON object per line"))
        })
        .await?
    }
    "case.set_excluded" ["Flag a case as excluded from runs, or include it again."] (e, p: CaseExcludeParams) -> Flag {
        blocking(move || e.case_set_excluded(&p.case_id, p.excluded, p.reason.as_deref()).map(|_| Flag { value: p.excluded })).await?
    }
    "label_audit.plan" ["What a label audit (cases screened against the whole policy by one or more models) would send and cost."] (e, p: LabelAuditRequest) -> LabelAuditPlan {
        blocking(move || e.label_audit_plan(&p)).await?
    }
    "label_audit.start" ["Create a label audit and start it in the background."] (e, p: LabelAuditRequest) -> RunStarted {
        let e2 = e.clone();
        let run_id = blocking(move || e2.label_audit_create(&p)).await?;
        spawn_label_audit(e, run_id.clone());
        RunStarted { run_id }
    }
    "label_audit.resume" ["Screen what is still missing in a stopped label audit, in the background."] (e, p: RunParams) -> RunStarted {
        let e2 = e.clone();
        let id = p.run_id.clone();
        blocking(move || {
            e2.label_audit_results(&LabelAuditResultsRequest { run_id: Some(id.clone()), ..Default::default() })?;
            // Refused now, not in the background, when another process executes the audit.
            e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))
        })
        .await?;
        spawn_label_audit(e, p.run_id.clone());
        RunStarted { run_id: p.run_id }
    }
    "label_audit.cancel" ["Stop a label audit after the calls in flight; finished screens are kept."] (e, p: RunParams) -> Flag {
        Flag { value: e.label_audit_cancel(&p.run_id)? }
    }
    "label_audit.results" ["A label audit's results (the latest when no run is named), optionally only disputed cases or one clause."] (e, p: LabelAuditResultsRequest) -> LabelAuditResults {
        blocking(move || e.label_audit_results(&p)).await?
    }
    "label_audit.list" ["Every label audit, newest first."] (e, p: NoParams) -> Vec<LabelAuditRunView> {
        blocking(move || e.label_audit_list()).await?
    }
    "label_audit.export" ["A label audit as CSV: one line per case with each model's verdict, clauses and agreement."] (e, p: RunParams) -> Download {
        blocking(move || {
            let text = e.label_audit_csv(&p.run_id)?;
            Ok(text_download(&format!("label-audit-{}.csv", p.run_id), "text/csv", &text, "Label audit, one row per screened case"))
        })
        .await?
    }
    "demo.load" ["Load the 90 hand-written demo cases."] (e, p: NoParams) -> CasesImportResult {
        blocking(move || e.demo_load()).await?
    }
    "demo.example_results" ["Store example results of three fictional models on the demo cases (no model is called)."] (e, p: NoParams) -> ExampleResults {
        blocking(move || e.demo_example_results()).await?
    }
    "demo.remove_example_results_preview" ["What removing the example results would remove, without removing anything."] (e, p: NoParams) -> ExampleResultsRemoval {
        blocking(move || e.demo_remove_example_results_preview()).await?
    }
    "demo.remove_example_results" ["Delete every example run of the fictional models; the demo cases and your own runs stay."] (e, p: NoParams) -> ExampleResultsRemoval {
        blocking(move || e.demo_remove_example_results()).await?
    }
    "demo.model_status" ["Whether the demo model (a simulation for learning the app) is running here, and whether the model \"demo\" is registered."] (e, p: NoParams) -> DemoModelStatus {
        e.demo_model_status().await?
    }
    "demo.model_start" ["Start the demo model on a free port of this computer and register it as the model \"demo\" (a simulation, labelled so in every result)."] (e, p: NoParams) -> DemoModelStatus {
        e.demo_model_start().await?
    }
    "demo.model_stop" ["Stop the demo model; the model \"demo\" stays registered and can be started again."] (e, p: NoParams) -> DemoModelStatus {
        e.demo_model_stop().await?
    }
    "models.list" ["Registered models."] (e, p: NoParams) -> Vec<ModelView> {
        blocking(move || e.models_list()).await?
    }
    "model.add" ["Register (or update) a model."] (e, p: ModelAddRequest) -> ModelView {
        e.model_register(&p).await?
    }
    "models.discover" ["Look for model servers on this computer (Ollama, LM Studio, llama.cpp, vLLM) and list their models."] (e, p: DiscoverRequest) -> DiscoverResult {
        e.models_discover(&p).await?
    }
    "batches.list" ["Provider batches of a run in batch mode (or all), with their state and counts."] (e, p: BatchListParams) -> Vec<crate::llm::batch::repo::BatchView> {
        let e2 = e.clone();
        blocking(move || e2.batches_list(p.run_id.as_deref())).await?
    }
    "model.remove" ["Remove a registered model (and its stored key)."] (e, p: ModelNameParams) -> Flag {
        blocking(move || e.model_remove(&p.name).map(|_| Flag { value: true })).await?
    }
    "model.set_key" ["Store a model's API key in the OS keyring."] (e, p: ModelKeyParams) -> ModelView {
        blocking(move || e.model_set_key(&p.name, &p.key)).await?
    }
    "model.keep_key_for_session" ["Hold a model's API key in memory for this session only (for a computer without an OS keyring); never written anywhere, forgotten when the app closes."] (e, p: ModelKeyParams) -> ModelView {
        blocking(move || e.model_keep_key_for_session(&p.name, &p.key)).await?
    }
    "model.test" ["One tiny real call to a model."] (e, p: ModelNameParams) -> ModelTestResult {
        e.model_test(&p.name).await?
    }
    "cache.stats" ["Size and reuse of the LLM response cache."] (e, p: NoParams) -> CacheStats {
        blocking(move || e.cache_stats()).await?
    }
    "cache.clear" ["Remove cached replies (all, or one provider model's)."] (e, p: CacheClearParams) -> Count {
        blocking(move || e.cache_clear(p.model.as_deref()).map(|count| Count { count })).await?
    }
    "usage.by_stage" ["Token and cost totals per stage and model."] (e, p: UsageParams) -> Vec<UsageTotals> {
        blocking(move || if p.all == Some(true) { e.usage_all_by_stage() } else { e.usage_by_stage(p.run_id.as_deref()) }).await?
    }
    "calls.list" ["The call ledger: every model call of a run (or of one item: a generation candidate, an extraction, a draft, a case), in order, with its request, reply, parse notes, failed attempts, tokens and cost. Filters: item, step, attempt, role; offset and limit (default 500)."] (e, p: CallFilter) -> Vec<LedgerCall> {
        blocking(move || e.calls_list(&p)).await?
    }
    "protocol.additions" ["What the studio protocol adds to the paper's method: each addition, what it changes in the results, and how to turn it off."] (e, p: NoParams) -> Vec<crate::protocol::Addition> {
        crate::protocol::ADDITIONS.to_vec()
    }
    "evaluation.plan" ["What an evaluation run would do and cost, without starting it."] (e, p: EvaluationRunRequest) -> EvaluationPlan {
        blocking(move || e.evaluation_plan(&p)).await?
    }
    "evaluation.start" ["Create an evaluation run and start it in the background."] (e, p: EvaluationRunRequest) -> RunStarted {
        let e2 = e.clone();
        let run_id = blocking(move || e2.evaluation_create(&p)).await?;
        spawn_evaluation(e, run_id.clone());
        RunStarted { run_id }
    }
    "evaluation.resume" ["Finish what is missing in a stopped run, in the background (optionally under a new spending cap)."] (e, p: ResumeParams) -> RunStarted {
        let e2 = e.clone();
        let id = p.run_id.clone();
        let change = p.cap_change()?;
        blocking(move || {
            e2.evaluation_show(&id)?;
            e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))?;
            e2.evaluation_prepare_resume(&id, change)?;
            // Refused now, not in the background, when another process executes the run.
            e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))
        })
        .await?;
        spawn_evaluation(e, p.run_id.clone());
        RunStarted { run_id: p.run_id }
    }
    "evaluation.rejudge" ["Run only the M4 judge again over a stored or imported run, in the background, with the judge model named."] (e, p: RejudgeRequest) -> RunStarted {
        let e2 = e.clone();
        let id = p.run_id.clone();
        let judge = p.judge_model.clone();
        blocking(move || {
            e2.evaluation_show(&id)?;
            e2.model_handle(&judge)?;
            e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))
        })
        .await?;
        let run_id = p.run_id.clone();
        let e3 = e.clone();
        spawn_job(e, run_id.clone(), RunKind::Eval, async move { e3.evaluation_rejudge(&p).await.map(|_| ()) });
        RunStarted { run_id }
    }
    "evaluation.cancel" ["Stop a run after the cases in flight; finished cases are kept."] (e, p: RunParams) -> Flag {
        Flag { value: e.evaluation_cancel(&p.run_id)? }
    }
    "evaluation.list" ["Evaluation runs."] (e, p: NoParams) -> Vec<EvaluationRunView> {
        blocking(move || e.evaluation_list()).await?
    }
    "evaluation.show" ["One evaluation run."] (e, p: RunParams) -> EvaluationRunView {
        blocking(move || e.evaluation_show(&p.run_id)).await?
    }
    "evaluation.delete_preview" ["What deleting an evaluation run would remove and what stays, without removing anything (refused for a run still running)."] (e, p: RunParams) -> RunRemoval {
        blocking(move || e.evaluation_delete_preview(&p.run_id)).await?
    }
    "evaluation.delete" ["Delete an evaluation run with its transcripts, judge results and provider batches, and the text of its model calls (their usage stays in the totals); refused for a run still running."] (e, p: RunParams) -> RunRemoval {
        blocking(move || e.evaluation_delete(&p.run_id)).await?
    }
    "evaluation.export" ["A run's trajectories as trajectories.jsonl."] (e, p: RunParams) -> Download {
        blocking(move || {
            let name = format!("{}.trajectories.jsonl", p.run_id);
            let bytes = export_via_temp(&name, |path| e.evaluation_export(&p.run_id, path).map(|_| ()))?;
            Ok(Download::from_bytes(&name, "application/x-ndjson", &bytes, "Trajectories, one evaluated case per line"))
        })
        .await?
    }
    "evaluation.import" ["Import uploaded trajectories as completed runs."] (e, p: EvaluationImportParams) -> RunIds {
        blocking(move || {
            let dir = UploadDir::new(std::slice::from_ref(&p.file))?;
            dir.run(|paths| e.evaluation_import(&paths[0])).map(|run_ids| RunIds { run_ids })
        })
        .await?
    }
    "evaluation.comparability" ["Whether stored runs can be compared: what differs in how they were made (protocol, prompts, policy edition, case set, judge), with a mark per run and one sentence."] (e, p: RunIds) -> Comparability {
        blocking(move || e.runs_comparability(&p.run_ids)).await?
    }
    "metrics.runs" ["M1–M8 of stored runs, one entry per model."] (e, p: ResultsRequest) -> MetricsReport {
        blocking(move || e.results_data(&p.run_ids).map(|d| d.report.clone())).await?
    }
    "results.overview" ["Metrics, the paper's tables and every chart for a set of runs."] (e, p: ResultsRequest) -> ResultsOverview {
        blocking(move || e.results_overview(&p)).await?
    }
    "results.grid" ["Case-by-model verdict grid for a set of runs."] (e, p: ResultsRequest) -> ResultsGrid {
        blocking(move || e.results_grid(&p)).await?
    }
    "results.trajectory" ["One evaluated case as a transcript."] (e, p: TrajectoryRequest) -> TrajectoryView {
        blocking(move || e.results_trajectory(&p)).await?
    }
    "results.chart_file" ["A chart as an SVG or PNG file."] (e, p: ChartFileRequest) -> Download {
        blocking(move || e.results_chart_file(&p)).await?
    }
    "results.table_file" ["A table as CSV, Markdown or LaTeX."] (e, p: TableFileRequest) -> Download {
        blocking(move || e.results_table_file(&p)).await?
    }
    "anchors.list" ["Anchor materials, filtered."] (e, p: AnchorFilter) -> Vec<AnchorSummary> {
        blocking(move || e.anchors_list(&p)).await?
    }
    "anchor.show" ["One anchor with its text (and original before translation)."] (e, p: AnchorIdParams) -> Anchor {
        blocking(move || e.anchor_show(&p.anchor_id)).await?
    }
    "anchors.buckets" ["Anchors per clause bucket."] (e, p: PolicyParams) -> Vec<AnchorBucket> {
        blocking(move || e.anchors_buckets(&policy_or_default(&p.policy))).await?
    }
    "anchors.import" ["Import uploaded anchors: one JSONL or CSV file, or .txt files (duplicates skipped)."] (e, p: AnchorsImportParams) -> AnchorImportResult {
        blocking(move || {
            let dir = UploadDir::new(&p.files)?;
            let opts = p.options.clone().unwrap_or_default();
            let all_txt = p.files.len() > 1 && dir.paths.iter().all(|x| x.extension().and_then(|e| e.to_str()) == Some("txt"));
            if p.files.len() > 1 && !all_txt {
                return Err(ApiError::invalid("Import one JSONL or CSV file at a time, or any number of .txt files."));
            }
            dir.run(|paths| if all_txt { e.anchors_import(dir.path(), &opts) } else { e.anchors_import(&paths[0], &opts) })
        })
        .await?
    }
    "anchor.set_bucket" ["Put an anchor in a clause's bucket by hand (or in none)."] (e, p: AnchorBucketParams) -> Anchor {
        blocking(move || e.anchor_set_bucket(&p.anchor_id, p.clause_id.as_deref())).await?
    }
    "anchors.remove" ["Remove anchors."] (e, p: AnchorIdsParams) -> Count {
        blocking(move || e.anchors_remove(&p.anchor_ids).map(|n| Count { count: n as u64 })).await?
    }
    "anchors.presort" ["Sort anchors into clause buckets with a model (a topical sort)."] (e, p: AnchorPresortRequest) -> AnchorBatchResult {
        e.anchors_presort(&p).await?
    }
    "anchors.translate" ["Translate anchors to English with a model (the original is kept)."] (e, p: AnchorTranslateRequest) -> AnchorBatchResult {
        e.anchors_translate(&p).await?
    }
    "anchor_job.plan" ["What an anchor pre-sort or translation job would send and cost, without sending anything."] (e, p: AnchorJobRequest) -> AnchorJobPlan {
        blocking(move || e.anchor_job_plan(&p)).await?
    }
    "anchor_job.start" ["Create an anchor pre-sort or translation job and start it in the background."] (e, p: AnchorJobRequest) -> RunStarted {
        let e2 = e.clone();
        let run_id = blocking(move || e2.anchor_job_create(&p)).await?;
        spawn_anchor_job(e, run_id.clone());
        RunStarted { run_id }
    }
    "anchor_job.resume" ["Handle the anchors a stopped anchor job has not done yet (and those that failed), in the background."] (e, p: RunParams) -> RunStarted {
        let (e2, id) = (e.clone(), p.run_id.clone());
        // Refused now, not in the background, when another process works on the job.
        blocking(move || e2.anchor_job_check_resumable(&id)).await?;
        spawn_anchor_job(e, p.run_id.clone());
        RunStarted { run_id: p.run_id }
    }
    "anchor_job.cancel" ["Stop an anchor job after the anchors in flight; finished outcomes are kept."] (e, p: RunParams) -> Flag {
        Flag { value: e.anchor_job_cancel(&p.run_id)? }
    }
    "anchor_job.list" ["Every anchor job, newest first, with its counts (without per-anchor outcomes)."] (e, p: NoParams) -> Vec<AnchorJobView> {
        blocking(move || e.anchor_job_list()).await?
    }
    "anchor_job.show" ["One anchor job with the outcome of every anchor handled so far."] (e, p: RunParams) -> AnchorJobView {
        blocking(move || e.anchor_job_show(&p.run_id)).await?
    }
    "authoring.sections" ["The policy's text split into the sections an extraction chooses from, with the text's hash."] (e, p: IdParams) -> PolicySections {
        blocking(move || e.authoring_sections(&p.id)).await?
    }
    "authoring.extract" ["Ask a model which policy sections bear on a clause, check its reply and store the extraction as the clause's next version."] (e, p: ExtractRequest) -> ExtractResult {
        e.authoring_extract(&p).await?
    }
    "authoring.approve" ["Approve an extraction with its final list of sections, in a named person's name."] (e, p: ApproveRequest) -> Extraction {
        blocking(move || e.authoring_approve(&p)).await?
    }
    "authoring.extractions" ["Extractions, optionally of one policy or one clause."] (e, p: ExtractionFilter) -> Vec<ExtractionSummary> {
        blocking(move || e.authoring_extractions(&p)).await?
    }
    "authoring.extraction_failures" ["Failed extractions (the latest of each clause, with the reason), optionally of one policy or one clause; a later extraction of the clause replaces or clears it."] (e, p: ExtractionFilter) -> Vec<ExtractionFailure> {
        blocking(move || e.authoring_extraction_failures(&p)).await?
    }
    "authoring.extraction_show" ["One extraction: its sections, document, self-check and every model call."] (e, p: IdParams) -> Extraction {
        blocking(move || e.authoring_extraction_show(&p.id)).await?
    }
    "authoring.draft" ["Draft complete-case cards, Uncertain cards or missing variants for one clause from its approved extraction; check them in code (feeding problems back, at most three attempts) and store the draft."] (e, p: DraftRequest) -> DraftResult {
        e.authoring_draft(&p).await?
    }
    "authoring.drafts" ["Drafts, optionally of one policy, clause or status."] (e, p: DraftFilter) -> Vec<DraftSummary> {
        blocking(move || e.authoring_drafts(&p)).await?
    }
    "authoring.draft_show" ["One draft: its items, problems, the model's self-check, the coverage report, the nearest existing cards and every model call."] (e, p: IdParams) -> Draft {
        blocking(move || e.authoring_draft_show(&p.id)).await?
    }
    "authoring.draft_edit" ["Replace a draft's items with an edited JSON list and check them again."] (e, p: DraftEditRequest) -> Draft {
        blocking(move || e.authoring_draft_edit(&p)).await?
    }
    "authoring.draft_diff" ["A drafted card (or the parent with a drafted variant) against a library card, line by line."] (e, p: DraftDiffRequest) -> DraftDiff {
        blocking(move || e.authoring_draft_diff(&p)).await?
    }
    "authoring.accept" ["Accept a draft (or some of its items) into the library as draft cards, in a named person's name."] (e, p: AcceptRequest) -> AcceptResult {
        blocking(move || e.authoring_accept(&p)).await?
    }
    "authoring.reject" ["Reject a draft, with the person's name and reason (kept)."] (e, p: RejectRequest) -> Draft {
        blocking(move || e.authoring_reject(&p)).await?
    }
    "authoring.draft_all_plan" ["What drafting every clause would do and cost, without sending anything."] (e, p: DraftAllRequest) -> DraftAllPlan {
        blocking(move || e.authoring_draft_all_plan(&p)).await?
    }
    "authoring.draft_all_start" ["Start drafting every clause as a background job."] (e, p: DraftAllRequest) -> RunStarted {
        let e2 = e.clone();
        let run_id = blocking(move || e2.authoring_draft_all_create(&p)).await?;
        spawn_draft_all(e, run_id.clone());
        RunStarted { run_id }
    }
    "authoring.draft_all_resume" ["Draft what is still missing in a stopped drafting job, in the background."] (e, p: RunParams) -> RunStarted {
        let e2 = e.clone();
        let id = p.run_id.clone();
        blocking(move || e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))).await?;
        spawn_draft_all(e, p.run_id.clone());
        RunStarted { run_id: p.run_id }
    }
    "authoring.draft_all_cancel" ["Stop a drafting job after the item in progress; finished drafts are kept."] (e, p: RunParams) -> Flag {
        Flag { value: e.authoring_draft_all_cancel(&p.run_id)? }
    }
    "authoring.draft_all_list" ["Every drafting job, newest first."] (e, p: NoParams) -> Vec<DraftAllRun> {
        blocking(move || e.authoring_draft_all_list()).await?
    }
    "generation.plan" ["What a generation run would do and cost, without starting it."] (e, p: GenerationRequest) -> GenerationPlan {
        blocking(move || e.generation_plan(&p)).await?
    }
    "generation.start" ["Create a generation run and start it in the background."] (e, p: GenerationRequest) -> RunStarted {
        let e2 = e.clone();
        let run_id = blocking(move || e2.generation_create(&p)).await?;
        spawn_generation(e, run_id.clone());
        RunStarted { run_id }
    }
    "generation.resume" ["Finish what is missing in a stopped generation run, in the background (optionally under a new spending cap)."] (e, p: ResumeParams) -> RunStarted {
        let e2 = e.clone();
        let id = p.run_id.clone();
        let change = p.cap_change()?;
        blocking(move || {
            e2.generation_show(&id)?;
            e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))?;
            e2.generation_prepare_resume(&id, change)?;
            // Refused now, not in the background, when another process executes the run.
            e2.store().with_conn(|c| crate::jobs::ensure_free(c, &id, e2.jobs().owner()))
        })
        .await?;
        spawn_generation(e, p.run_id.clone());
        RunStarted { run_id: p.run_id }
    }
    "generation.cancel" ["Stop a generation run after the calls in flight; finished attempts are kept."] (e, p: RunParams) -> Flag {
        Flag { value: e.generation_cancel(&p.run_id)? }
    }
    "generation.list" ["Generation runs."] (e, p: NoParams) -> Vec<GenerationRunView> {
        blocking(move || e.generation_list()).await?
    }
    "generation.show" ["One generation run."] (e, p: RunParams) -> GenerationRunView {
        blocking(move || e.generation_show(&p.run_id)).await?
    }
    "generation.candidates" ["The candidate cases of a run (accepted, dropped, pending)."] (e, p: GenerationCandidatesParams) -> Vec<GenerationCandidateView> {
        blocking(move || e.generation_candidates(&p.run_id, &p.filter.clone().unwrap_or_default())).await?
    }
    "generation.provenance" ["Every attempt of every stage behind a case or a dropped candidate."] (e, p: IdParams) -> Provenance {
        blocking(move || e.generation_provenance(&p.id)).await?
    }
    "generation.stats" ["Statistics of a generation run, like the paper's."] (e, p: RunParams) -> GenerationStats {
        blocking(move || e.generation_stats(&p.run_id)).await?
    }
    "library.stats" ["Statistics of the clause-card library."] (e, p: LibraryStatsParams) -> LibraryStats {
        blocking(move || e.library_stats(&policy_or_default(&p.policy), p.approved_only)).await?
    }
    "review.available" ["How many cases of each type a review could sample."] (e, p: NoParams) -> ReviewAvailable {
        blocking(move || e.review_available()).await?
    }
    "review.create" ["Create a review session: sample, reviewers, overlap, guidelines."] (e, p: ReviewCreateRequest) -> ReviewSessionDetail {
        blocking(move || e.review_create(&p)).await?
    }
    "review.list" ["Review sessions."] (e, p: NoParams) -> Vec<ReviewSessionSummary> {
        blocking(move || e.review_list()).await?
    }
    "review.show" ["One review session with each reviewer's progress (never their answers)."] (e, p: SessionParams) -> ReviewSessionDetail {
        blocking(move || e.review_show(&p.session)).await?
    }
    "review.set_guidelines" ["Replace a session's guidelines (Markdown)."] (e, p: GuidelinesParams) -> ReviewSessionDetail {
        blocking(move || e.review_guidelines_set(&p.session, &p.markdown)).await?
    }
    "review.delete" ["Delete a review session and its answers."] (e, p: SessionParams) -> Flag {
        blocking(move || e.review_delete(&p.session).map(|_| Flag { value: true })).await?
    }
    "review.close" ["Close a review session: every reviewer link of it is refused until it is reopened; answers are kept."] (e, p: SessionParams) -> ReviewSessionDetail {
        blocking(move || e.review_close(&p.session)).await?
    }
    "review.reopen" ["Reopen a closed review session: the links given out before work again."] (e, p: SessionParams) -> ReviewSessionDetail {
        blocking(move || e.review_reopen(&p.session)).await?
    }
    "review.links" ["Personal review links (tokens are shown only when created or rotated)."] (e, p: ReviewLinksRequest) -> ReviewLinks {
        blocking(move || e.review_links(&p)).await?
    }
    "review.share_start" ["Serve a review session's reviewer links from this app (this computer only, or the local network), so they work at once."] (e, p: ReviewShareRequest) -> ReviewShareStatus {
        e.review_share_start(&p).await?
    }
    "review.share_stop" ["Stop serving a review session's reviewer links: they stop connecting."] (e, p: SessionParams) -> ReviewShareStatus {
        e.review_share_stop(&p.session).await?
    }
    "review.share_status" ["Whether a review session's reviewer links are being served by this app, where, and the command that serves them from a terminal."] (e, p: SessionParams) -> ReviewShareStatus {
        blocking(move || e.review_share_status(&p.session)).await?
    }
    "review.local_token" ["A token for a reviewer answering in this app (kept in memory only)."] (e, p: ReviewerParams) -> TokenResult {
        blocking(move || e.review_local_token(&p.session, &p.reviewer).map(|token| TokenResult { token })).await?
    }
    "review.stats" ["Ratings, agreement with the expected verdicts, and inter-rater agreement."] (e, p: SessionParams) -> ReviewStats {
        blocking(move || e.review_stats(&p.session)).await?
    }
    "review.queue" ["Cases for adjudication: disagreements between reviewers or with the verdict."] (e, p: ReviewQueueRequest) -> ReviewQueue {
        blocking(move || e.review_queue(&p)).await?
    }
    "review.adjudicate" ["Record an adjudicator's final call on a case."] (e, p: ReviewAdjudicateRequest) -> ReviewAdjudication {
        blocking(move || e.review_adjudicate(&p)).await?
    }
    "review.adjudications" ["Who decided what, for a session or one case."] (e, p: AdjudicationsParams) -> Vec<ReviewAdjudication> {
        blocking(move || e.review_adjudications(&p.session, p.case_id.as_deref())).await?
    }
    "review.export" ["Every answer in long format (CSV or JSONL)."] (e, p: ReviewExportParams) -> Download {
        blocking(move || {
            let text = e.review_export_text(&p.session, p.format)?;
            let (ext, mime) = match p.format {
                ReviewExportFormat::Csv => ("csv", "text/csv"),
                ReviewExportFormat::Jsonl => ("jsonl", "application/x-ndjson"),
            };
            Ok(text_download(&format!("review-{}.{ext}", p.session), mime, &text, "Review answers, one row per reviewer, case and question"))
        })
        .await?
    }
    "review.summary" ["The summary table like the paper's (Markdown and LaTeX) with the statistics."] (e, p: SessionParams) -> ReviewSummary {
        blocking(move || e.review_summary(&p.session)).await?
    }
    "review.pack_export" ["A review pack for one reviewer to complete in another copy of the app."] (e, p: ReviewerParams) -> Download {
        blocking(move || {
            let (info, text) = e.review_pack_export_text(&p.session, &p.reviewer)?;
            let name = format!("review-pack-{}-{}.json", info.session_id, p.reviewer.replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
            Ok(text_download(&name, "application/json", &text, &format!("Review pack for {} ({} cases)", info.reviewer, info.items)))
        })
        .await?
    }
    "review.pack_open" ["Open a review pack received from a session's owner."] (e, p: FileParams) -> ReviewPackOpened {
        blocking(move || {
            let text = upload_text(&p.file)?;
            e.review_pack_open_text(&p.file.name, &text)
        })
        .await?
    }
    "review.pack_answers" ["The answers given to an opened pack, to send back to the session's owner."] (e, p: PackAnswersParams) -> Download {
        blocking(move || {
            let (info, text) = e.review_pack_answers_text(&p.session, p.reviewer.as_deref())?;
            let name = format!("review-answers-{}-{}.json", info.session_id, info.reviewer.replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
            Ok(text_download(&name, "application/json", &text, &format!("{} answered {} of {} cases", info.reviewer, info.answered, info.items)))
        })
        .await?
    }
    "review.pack_merge" ["Merge a reviewer's answers file into its session (merging twice changes nothing)."] (e, p: FileParams) -> ReviewPackMergeReport {
        blocking(move || {
            let text = upload_text(&p.file)?;
            e.review_pack_merge_text(&p.file.name, &text)
        })
        .await?
    }
    "review.me" ["A reviewer's guidelines, items, progress and where to resume."] (e, p: ReviewTokenParams) -> ReviewMe {
        blocking(move || e.review_me(&p.token)).await?
    }
    "review.item" ["One of the reviewer's cases: the narrative and their own answers."] (e, p: ReviewItemParams) -> ReviewItemView {
        blocking(move || e.review_item(&p.token, p.item_no)).await?
    }
    "review.answer" ["Save part of a reviewer's answer as it is given."] (e, p: ReviewAnswerParams) -> ReviewAnswerSaved {
        blocking(move || e.review_answer(&p.token, p.item_no, &p.patch)).await?
    }
    "review.reveal" ["Reveal the expected verdict (only after the blind verdict is saved)."] (e, p: ReviewItemParams) -> ReviewReveal {
        blocking(move || e.review_reveal(&p.token, p.item_no)).await?
    }

cli_only:

    "policy.import_files" ["Store official clause and/or guidance text from Markdown files on this computer."] (e, p: PolicyImportRequest) -> PolicyImportResult {
        blocking(move || e.policy_import(&p)).await?
    }
    "cards.lint_paths" ["Lint card files or folders on this computer without importing them."] (e, p: CardPathsParams) -> LintReport {
        blocking(move || e.cards_lint_paths(&p.paths, &p.policy)).await?
    }
    "cards.import_files" ["Import card files or folders on this computer (all or nothing) as drafts."] (e, p: CardImportPathsParams) -> CardsImportResult {
        blocking(move || e.cards_import(&p.paths, &p.policy, &p.author)).await?
    }
    "cards.export_to" ["Write the current cards (filtered) to a folder or a .jsonl file on this computer."] (e, p: CardExportToParams) -> Count {
        blocking(move || e.cards_export(&p.out, &p.filter).map(|n| Count { count: n as u64 })).await?
    }
    "cases.import_file" ["Import a cases.jsonl file on this computer (all or nothing)."] (e, p: CasesImportFileParams) -> CasesImportResult {
        blocking(move || e.cases_import(&p.file, p.replace, "imported")).await?
    }
    "cases.export_to" ["Write cases (filtered) to a cases.jsonl file on this computer."] (e, p: CasesExportToParams) -> Count {
        blocking(move || e.cases_export(&p.out, &p.filter).map(|n| Count { count: n as u64 })).await?
    }
    "cases.export_dataset" ["Write cases (filtered) as a dataset folder (cases, card, README) on this computer."] (e, p: CasesExportToParams) -> DatasetExport {
        blocking(move || e.cases_export_dataset(&p.out, &p.filter)).await?
    }
    "label_audit.create" ["Create a label audit without starting it."] (e, p: LabelAuditRequest) -> RunStarted {
        blocking(move || e.label_audit_create(&p).map(|run_id| RunStarted { run_id })).await?
    }
    "label_audit.execute" ["Run (or finish) a label audit and wait for its report."] (e, p: RunParams) -> LabelAuditReport {
        e.label_audit_execute(&p.run_id).await?
    }
    "evaluation.create" ["Create an evaluation run without starting it."] (e, p: EvaluationRunRequest) -> RunStarted {
        blocking(move || e.evaluation_create(&p).map(|run_id| RunStarted { run_id })).await?
    }
    "evaluation.prepare_resume" ["Make a stopped run ready to be finished (optionally under a new spending cap)."] (e, p: ResumeParams) -> Flag {
        let change = p.cap_change()?;
        blocking(move || e.evaluation_prepare_resume(&p.run_id, change).map(|_| Flag { value: true })).await?
    }
    "evaluation.execute" ["Run (or finish) an evaluation run and wait for its summary."] (e, p: RunParams) -> EvaluationSummary {
        e.evaluation_execute(&p.run_id).await?
    }
    "evaluation.rejudge_execute" ["Run only the M4 judge again over a stored or imported run and wait for its summary."] (e, p: RejudgeRequest) -> RejudgeSummary {
        e.evaluation_rejudge(&p).await?
    }
    "evaluation.export_to" ["Write a run's trajectories to a JSONL file on this computer."] (e, p: RunFileParams) -> Count {
        blocking(move || e.evaluation_export(&p.run_id, &p.out).map(|n| Count { count: n as u64 })).await?
    }
    "evaluation.import_file" ["Import a trajectories file on this computer as completed runs."] (e, p: PathParams) -> RunIds {
        blocking(move || e.evaluation_import(&p.path).map(|run_ids| RunIds { run_ids })).await?
    }
    "metrics.compute_runs" ["M1–M8 of stored runs with the given bootstrap settings."] (e, p: MetricsRunsParams) -> MetricsReport {
        blocking(move || e.metrics_for_runs(&p.run_ids, &p.options)).await?
    }
    "metrics.files" ["M1–M8 of a trajectories file scored against a cases file, both on this computer."] (e, p: MetricsFilesParams) -> FileMetrics {
        blocking(move || e.metrics_files(&p.cases, &p.trajectories, &p.options)).await?
    }
    "report.write" ["Read and score evaluation results (stored runs or files) and/or generation statistics, and write the tables and charts into a folder on this computer."] (e, p: ReportRequest) -> ReportWritten {
        blocking(move || e.report_write(&p)).await?
    }
    "anchors.import_file" ["Import anchors from a JSONL, CSV or .txt file, or a folder of .txt files, on this computer."] (e, p: AnchorsImportFileParams) -> AnchorImportResult {
        blocking(move || e.anchors_import(&p.path, &p.options)).await?
    }
    "anchor_job.create" ["Create an anchor pre-sort or translation job without starting it."] (e, p: AnchorJobRequest) -> RunStarted {
        blocking(move || e.anchor_job_create(&p).map(|run_id| RunStarted { run_id })).await?
    }
    "anchor_job.check_resumable" ["Refuse an anchor job that does not exist or that another process works on."] (e, p: RunParams) -> Flag {
        blocking(move || e.anchor_job_check_resumable(&p.run_id).map(|_| Flag { value: true })).await?
    }
    "anchor_job.execute" ["Run (or finish) an anchor job and wait until it ends."] (e, p: RunParams) -> Flag {
        e.anchor_job_execute(&p.run_id).await.map(|_| Flag { value: true })?
    }
    "authoring.draft_all_create" ["Create a job drafting every clause without starting it."] (e, p: DraftAllRequest) -> RunStarted {
        blocking(move || e.authoring_draft_all_create(&p).map(|run_id| RunStarted { run_id })).await?
    }
    "authoring.draft_all_execute" ["Run (or finish) a job drafting every clause and wait until it ends."] (e, p: RunParams) -> Flag {
        e.authoring_draft_all_execute(&p.run_id).await.map(|_| Flag { value: true })?
    }
    "generation.create" ["Create a generation run without starting it."] (e, p: GenerationRequest) -> RunStarted {
        blocking(move || e.generation_create(&p).map(|run_id| RunStarted { run_id })).await?
    }
    "generation.prepare_resume" ["Make a stopped generation run ready to be finished (optionally under a new spending cap)."] (e, p: ResumeParams) -> Flag {
        let change = p.cap_change()?;
        blocking(move || e.generation_prepare_resume(&p.run_id, change).map(|_| Flag { value: true })).await?
    }
    "generation.execute" ["Run (or finish) a generation run and wait for its summary."] (e, p: RunParams) -> GenerationSummary {
        e.generation_execute(&p.run_id).await?
    }
    "generation.abort" ["Stop a generation run at once, without waiting for the calls in flight."] (e, p: RunParams) -> Flag {
        Flag { value: e.generation_abort(&p.run_id)? }
    }
    "review.export_to" ["Write every answer of a session (CSV or JSONL, by the file's extension) to a file on this computer."] (e, p: ReviewFileParams) -> ReviewExportResult {
        blocking(move || e.review_export(&p.session, &p.out)).await?
    }
    "review.summary_write" ["Write a session's summary tables (Markdown, LaTeX, JSON) into a folder on this computer."] (e, p: ReviewFileParams) -> ReviewSummaryFiles {
        blocking(move || e.review_summary_write(&p.session, &p.out)).await?
    }
    "review.pack_export_to" ["Write a review pack for one reviewer to a file on this computer."] (e, p: ReviewPackFileParams) -> ReviewPackExported {
        blocking(move || e.review_pack_export(&p.session, &p.reviewer, &p.out)).await?
    }
    "review.pack_answers_to" ["Write the answers given to an opened pack to a file on this computer."] (e, p: ReviewAnswersFileParams) -> ReviewPackExported {
        blocking(move || e.review_pack_answers_export(&p.session, p.reviewer.as_deref(), &p.out)).await?
    }
    "review.pack_open_file" ["Open a review pack file on this computer."] (e, p: PathParams) -> ReviewPackOpened {
        blocking(move || e.review_pack_open(&p.path)).await?
    }
    "review.pack_merge_file" ["Merge a reviewer's answers file on this computer into its session."] (e, p: PathParams) -> ReviewPackMergeReport {
        blocking(move || e.review_pack_merge(&p.path)).await?
    }
}

/// Old method names that keep answering, each with the canonical method it now names (see the
/// naming rule at the top of this file). [`call`] resolves them before anything else, so an old
/// name runs the same handler with the same permissions; they are never listed as methods of
/// their own ([`METHODS`], `GET /api/_methods`, the UI's generated types). Never remove an entry:
/// scripts and other tools still send these names.
pub const ALIASES: &[(&str, &str)] = &[
    // One record is singular, the collection plural.
    ("policy.list", "policies.list"),
    ("cards.show", "card.show"),
    ("cards.check", "card.check"),
    ("cards.save", "card.save"),
    ("cards.audit", "card.audit"),
    ("cards.diff", "card.diff"),
    ("cases.show", "case.show"),
    ("cases.detail", "case.detail"),
    ("cases.set_excluded", "case.set_excluded"),
    ("models.add", "model.add"),
    ("models.remove", "model.remove"),
    ("models.set_key", "model.set_key"),
    ("models.test", "model.test"),
    ("anchors.show", "anchor.show"),
    ("anchors.set_bucket", "anchor.set_bucket"),
    // The label audit is `label_audit`, not a part of `cases`.
    ("cases.screen_plan", "label_audit.plan"),
    ("cases.screen_start", "label_audit.start"),
    ("cases.screen_resume", "label_audit.resume"),
    ("cases.screen_cancel", "label_audit.cancel"),
    ("cases.screen_results", "label_audit.results"),
    ("cases.screen_runs", "label_audit.list"),
    ("cases.screen_export", "label_audit.export"),
    ("cases.screen_create", "label_audit.create"),
    ("cases.screen_execute", "label_audit.execute"),
    // Anchor jobs are a workflow of their own.
    ("anchors.job_plan", "anchor_job.plan"),
    ("anchors.job_start", "anchor_job.start"),
    ("anchors.job_resume", "anchor_job.resume"),
    ("anchors.job_cancel", "anchor_job.cancel"),
    ("anchors.jobs", "anchor_job.list"),
    ("anchors.job_show", "anchor_job.show"),
    ("anchors.job_create", "anchor_job.create"),
    ("anchors.job_check_resumable", "anchor_job.check_resumable"),
    ("anchors.job_execute", "anchor_job.execute"),
    // Authoring, with its extractions and drafts named as records.
    ("author.sections", "authoring.sections"),
    ("author.extract", "authoring.extract"),
    ("author.approve", "authoring.approve"),
    ("author.list", "authoring.extractions"),
    ("author.show", "authoring.extraction_show"),
    ("author.draft", "authoring.draft"),
    ("author.drafts", "authoring.drafts"),
    ("author.draft_show", "authoring.draft_show"),
    ("author.draft_edit", "authoring.draft_edit"),
    ("author.draft_diff", "authoring.draft_diff"),
    ("author.accept", "authoring.accept"),
    ("author.reject", "authoring.reject"),
    ("author.draft_all_plan", "authoring.draft_all_plan"),
    ("author.draft_all_start", "authoring.draft_all_start"),
    ("author.draft_all_resume", "authoring.draft_all_resume"),
    ("author.draft_all_cancel", "authoring.draft_all_cancel"),
    ("author.draft_all_runs", "authoring.draft_all_list"),
    ("author.draft_all_create", "authoring.draft_all_create"),
    ("author.draft_all_execute", "authoring.draft_all_execute"),
    // Generation and evaluation by their full names.
    ("gen.plan", "generation.plan"),
    ("gen.start", "generation.start"),
    ("gen.resume", "generation.resume"),
    ("gen.cancel", "generation.cancel"),
    ("gen.list", "generation.list"),
    ("gen.show", "generation.show"),
    ("gen.candidates", "generation.candidates"),
    ("gen.provenance", "generation.provenance"),
    ("gen.stats", "generation.stats"),
    ("gen.create", "generation.create"),
    ("gen.prepare_resume", "generation.prepare_resume"),
    ("gen.execute", "generation.execute"),
    ("gen.abort", "generation.abort"),
    ("eval.plan", "evaluation.plan"),
    ("eval.start", "evaluation.start"),
    ("eval.resume", "evaluation.resume"),
    ("eval.rejudge", "evaluation.rejudge"),
    ("eval.cancel", "evaluation.cancel"),
    ("eval.list", "evaluation.list"),
    ("eval.show", "evaluation.show"),
    ("eval.export", "evaluation.export"),
    ("eval.import", "evaluation.import"),
    ("eval.create", "evaluation.create"),
    ("eval.prepare_resume", "evaluation.prepare_resume"),
    ("eval.execute", "evaluation.execute"),
    ("eval.rejudge_execute", "evaluation.rejudge_execute"),
    ("eval.export_to", "evaluation.export_to"),
    ("eval.import_file", "evaluation.import_file"),
    ("eval.delete", "evaluation.delete"),
    ("eval.delete_preview", "evaluation.delete_preview"),
];

/// The canonical name of `method`: the method an old name ([`ALIASES`]) now is, else itself.
pub fn canonical(method: &str) -> &str {
    ALIASES.iter().find(|(old, _)| *old == method).map_or(method, |(_, new)| *new)
}

/// The old names ([`ALIASES`]) that still call `method`.
pub fn aliases_of(method: &str) -> impl Iterator<Item = &'static str> + '_ {
    ALIASES.iter().filter(move |(_, new)| *new == method).map(|(old, _)| *old)
}

/// Methods a reviewer's personal link may use (the server passes the link's token to them).
pub const REVIEWER_METHODS: &[&str] = &["review.me", "review.item", "review.answer", "review.reveal"];

/// Refuse a reviewer token that opens nothing, or (when `served` is given) opens a review other
/// than the one being served. The server calls this before reading a request's body.
pub async fn check_reviewer(engine: &Engine, token: &str, served: Option<&str>) -> ApiResult<()> {
    let e = engine.clone();
    let t = token.to_string();
    let owner = blocking(move || e.review_token_session(&t)).await?;
    if let Some(served) = served {
        let e = engine.clone();
        let s = served.to_string();
        let served_id = blocking(move || e.review_show(&s).map(|d| d.summary.session_id.clone())).await?;
        if owner != served_id {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "This review link does not belong to the review being served here.",
            ));
        }
    }
    Ok(())
}

/// Whether `method` is one of the command line's own methods ([`CLI_METHODS`]).
pub fn is_cli_method(method: &str) -> bool {
    CLI_METHODS.iter().any(|(n, _)| *n == method)
}

/// Call one API method, by its name or an old name ([`ALIASES`]). Errors are `{code, message,
/// detail}`. Every call is logged at debug level (`-vv` on the command line) as `api call <method>`
/// with the canonical name.
pub async fn call(engine: &Engine, caller: &Caller, method: &str, params: Value) -> ApiResult<Value> {
    let called = method;
    let method = canonical(called);
    if called == method {
        tracing::debug!("api call {method}");
    } else {
        tracing::debug!("api call {method} (called by its old name {called})");
    }
    match caller {
        Caller::Cli => dispatch(engine, method, params).await,
        Caller::Owner => {
            if is_cli_method(method) {
                return Err(ApiError::new(
                    ErrorCode::Forbidden,
                    format!("\"{method}\" reads or writes files on this computer, or runs a job in the foreground: only the psebench command line can call it."),
                ));
            }
            dispatch(engine, method, params).await
        }
        Caller::Reviewer { token, session } => {
            if !REVIEWER_METHODS.contains(&method) {
                return Err(ApiError::new(
                    ErrorCode::Forbidden,
                    "A review link can only be used to answer its own review.",
                ));
            }
            if session.is_some() {
                check_reviewer(engine, token, session.as_deref()).await?;
            }
            let mut params = if params.is_null() { Value::Object(Default::default()) } else { params };
            match params.as_object_mut() {
                Some(o) => {
                    o.insert("token".into(), Value::String(token.clone()));
                }
                None => return Err(ApiError::invalid("The request's parameters must be a JSON object.")),
            }
            dispatch(engine, method, params).await
        }
    }
}

/// [`call`] with typed parameters and result: what the command line uses.
pub async fn call_typed<P, R>(engine: &Engine, caller: &Caller, method: &str, params: &P) -> ApiResult<R>
where
    P: Serialize + ?Sized,
    R: DeserializeOwned,
{
    let raw = serde_json::to_value(params)
        .map_err(|e| ApiError::internal(format!("the request for {method} could not be encoded: {e}")))?;
    let out = call(engine, caller, method, raw).await?;
    serde_json::from_value(out)
        .map_err(|e| ApiError::internal(format!("the answer of {method} could not be decoded: {e}")))
}

/// The progress events of every run of this engine (what the app's event channel and the
/// server's `/api/events` stream carry).
pub fn progress_events(engine: &Engine) -> tokio::sync::broadcast::Receiver<Progress> {
    engine.jobs().subscribe()
}

pub mod bindings {
    //! TypeScript declarations for every method's parameters and result, and for job progress
    //! events, generated from the Rust types. `ui/src/api/generated.ts` is checked by a test:
    //! when it is out of date the test fails; `UPDATE_BINDINGS=1 cargo test -p psebench bindings`
    //! rewrites it.

    use std::any::TypeId;
    use std::collections::{BTreeMap, HashSet};
    use ts_rs::{TypeVisitor, TS};

    #[derive(Default)]
    pub struct Collector {
        seen: HashSet<TypeId>,
        decls: BTreeMap<String, String>,
        methods: Vec<(String, String, String, String)>,
    }

    impl TypeVisitor for Collector {
        fn visit<T: TS + 'static + ?Sized>(&mut self) {
            if !self.seen.insert(TypeId::of::<T>()) {
                return;
            }
            if T::output_path().is_some() {
                let mut decl = String::new();
                if let Some(d) = T::docs() {
                    decl.push_str(&d);
                }
                decl.push_str("export ");
                decl.push_str(&T::decl());
                self.decls.insert(T::ident(), decl);
            }
            T::visit_dependencies(self);
            T::visit_generics(self);
        }
    }

    impl Collector {
        pub fn method<P: TS + 'static, R: TS + 'static>(&mut self, name: &str, doc: &str) {
            self.visit::<P>();
            self.visit::<R>();
            self.methods.push((name.to_string(), doc.to_string(), P::name(), R::name()));
        }
    }

    /// The whole generated file.
    pub fn typescript() -> String {
        let mut c = Collector::default();
        super::visit_method_types(&mut c);
        c.visit::<crate::jobs::Progress>();
        c.visit::<crate::context::change_feed::ChangeEvent>();
        c.visit::<crate::error::ApiError>();
        let mut out = String::from(
            "// Generated from the engine's Rust types (crates/engine/src/api/rpc.rs). Do not edit by hand:\n\
             // run `UPDATE_BINDINGS=1 cargo test -p psebench bindings` after changing an API type.\n\n",
        );
        for d in c.decls.values() {
            // 64-bit integers travel as JSON numbers (counts and ids far below 2^53), not bigint.
            let d = d.replace("bigint", "number");
            out.push_str(&d);
            out.push_str("\n\n");
        }
        out.push_str("/** Every API method: its parameters and its result. */\nexport interface ApiMethods {\n");
        for (name, doc, p, r) in &c.methods {
            out.push_str(&format!("  /** {doc} */\n  \"{name}\": {{ params: {p}; result: {r} }};\n"));
        }
        out.push_str("}\n\nexport type ApiMethod = keyof ApiMethods;\n");
        out.push_str(&format!(
            "\n/** The policy pack used when none is named (the engine's `policy::DEFAULT_POLICY`). */\n\
             export const DEFAULT_POLICY = \"{}\";\n",
            crate::policy::DEFAULT_POLICY
        ));
        out
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn bindings_are_up_to_date() {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/api/generated.ts");
            let fresh = super::typescript();
            if std::env::var("UPDATE_BINDINGS").is_ok() {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).expect("create ui/src/api");
                }
                std::fs::write(&path, &fresh).expect("write generated.ts");
                return;
            }
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == fresh,
                "ui/src/api/generated.ts is out of date with the engine's API types. \
                 Run `UPDATE_BINDINGS=1 cargo test -p psebench bindings` and commit the result."
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_decode_params_and_report_unknown_methods() {
        let e = Engine::open_in_memory().unwrap();
        let info = call(&e, &Caller::Owner, "store.info", Value::Null).await.unwrap();
        assert!(info["policies"].as_array().unwrap().iter().any(|p| p == "mn29"));
        let err = call(&e, &Caller::Owner, "card.show", serde_json::json!({"card": 1})).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains("card.show"), "{}", err.message);
        let err = call(&e, &Caller::Owner, "nope.nothing", Value::Null).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_studio_additions_are_listed_for_the_ui() {
        let e = Engine::open_in_memory().unwrap();
        let list = call(&e, &Caller::Owner, "protocol.additions", Value::Null).await.unwrap();
        let ids: Vec<&str> = list.as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
        assert_eq!(ids, crate::protocol::ADDITIONS.iter().map(|a| a.id).collect::<Vec<_>>());
        assert!(list[0]["what"].as_str().is_some_and(|w| !w.is_empty()));
    }

    #[test]
    fn every_alias_names_a_method_and_no_method_is_an_alias() {
        let methods: Vec<&str> = METHODS.iter().chain(CLI_METHODS).map(|(n, _)| *n).collect();
        let mut seen = std::collections::HashSet::new();
        for m in &methods {
            assert!(seen.insert(*m), "{m} is in the method table twice");
        }
        let mut old_names = std::collections::HashSet::new();
        for (old, new) in ALIASES {
            assert!(methods.contains(new), "the alias {old} names {new}, which is not a method");
            assert!(!methods.contains(old), "{old} is both a method and an alias");
            assert!(old_names.insert(*old), "{old} is listed twice among the aliases");
            assert_eq!(canonical(old), *new);
            assert_eq!(canonical(new), *new, "{new} is itself an alias: aliases point at canonical names");
            assert!(aliases_of(new).any(|o| o == *old));
        }
        assert_eq!(canonical("cards.list"), "cards.list");
        assert_eq!(canonical("nope.nothing"), "nope.nothing");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn old_method_names_answer_like_the_canonical_ones() {
        let e = Engine::open_in_memory().unwrap();
        let card = e.cards_list(&Default::default()).unwrap().remove(0).card_id;
        let same = |old: &'static str, new: &'static str, params: Value| {
            let e = e.clone();
            async move {
                let a = call(&e, &Caller::Owner, old, params.clone()).await.unwrap();
                let b = call(&e, &Caller::Owner, new, params).await.unwrap();
                assert_eq!(a, b, "{old} and {new}");
            }
        };
        same("cards.show", "card.show", serde_json::json!({"card_id": card})).await;
        same("policy.list", "policies.list", Value::Null).await;
        same("cases.screen_runs", "label_audit.list", Value::Null).await;
        same("gen.list", "generation.list", Value::Null).await;
        same("eval.list", "evaluation.list", Value::Null).await;
        same("author.list", "authoring.extractions", Value::Null).await;
        same("anchors.jobs", "anchor_job.list", Value::Null).await;
        // An old name keeps the permissions of its method: a command-line method stays refused to
        // the app, a bad request names the method it reached.
        let err = call(&e, &Caller::Owner, "gen.create", Value::Null).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let err = call(&e, &Caller::Owner, "cards.show", serde_json::json!({"card": 1})).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains("card.show"), "{}", err.message);
        let who = Caller::Reviewer { token: "t".into(), session: None };
        assert_eq!(call(&e, &who, "eval.list", Value::Null).await.unwrap_err().code, ErrorCode::Forbidden);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn usage_totals_cover_every_call_when_asked() {
        let e = Engine::open_in_memory().unwrap();
        e.store()
            .with_conn(|c| {
                c.execute_batch(
                    "INSERT INTO llm_calls (run_id, stage, model_name, endpoint, ok, cache_hit, remote, attempts, input_tokens, output_tokens, cost_usd, at)
                     VALUES ('r1', 'eval', 'm', 'e', 1, 0, 1, 1, 10, 5, 0.5, '2026-01-01T00:00:00Z'),
                            (NULL, 'models-test', 'm', 'e', 1, 0, 1, 1, 3, 1, 0.0, '2026-01-01T00:00:00Z');",
                )
            })
            .unwrap();
        let outside: Vec<crate::llm::accounting::UsageTotals> =
            serde_json::from_value(call(&e, &Caller::Owner, "usage.by_stage", Value::Null).await.unwrap()).unwrap();
        assert_eq!(outside.len(), 1);
        let all: Vec<crate::llm::accounting::UsageTotals> = serde_json::from_value(
            call(&e, &Caller::Owner, "usage.by_stage", serde_json::json!({"all": true})).await.unwrap(),
        )
        .unwrap();
        assert_eq!(all.iter().map(|t| t.calls).sum::<u64>(), 2);
        assert_eq!(all.iter().map(|t| t.input_tokens).sum::<u64>(), 13);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reviewer_link_cannot_use_owner_methods() {
        let e = Engine::open_in_memory().unwrap();
        let who = Caller::Reviewer { token: "t".into(), session: None };
        for m in ["store.info", "cards.list", "models.list", "evaluation.list"] {
            let err = call(&e, &who, m, Value::Null).await.unwrap_err();
            assert_eq!(err.code, ErrorCode::Forbidden, "{m}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_uploaded_card_is_noted_under_its_own_name() {
        use base64::Engine as _;
        let e = Engine::open_in_memory().unwrap();
        let first = e.cards_list(&Default::default()).unwrap().remove(0);
        let mut card = e.card_show(&first.card_id, None).unwrap().card;
        card["clause_card_id"] = Value::String("CardRep_77_Upload".into());
        let b64 = base64::engine::general_purpose::STANDARD.encode(card.to_string());
        let params = serde_json::json!({"files": [{"name": "mine.json", "base64": b64}], "author": "Dana"});
        call(&e, &Caller::Owner, "cards.import", params).await.unwrap();
        let shown = e.card_show("CardRep_77_Upload", None).unwrap();
        assert_eq!(shown.versions[0].note.as_deref(), Some("imported from mine.json"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn uploads_import_and_exports_download() {
        use base64::Engine as _;
        let e = Engine::open_in_memory().unwrap();
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        // A broken cases file: the error names the uploaded file, not a temporary path.
        let err = call(
            &e,
            &Caller::Owner,
            "cases.import",
            serde_json::json!({"file": {"name": "mine.jsonl", "base64": b64("{not json\n")}}),
        )
        .await
        .unwrap_err();
        assert!(err.message.contains("mine.jsonl"), "{}", err.message);
        assert!(!err.message.contains("psebench-upload"), "{}", err.message);
        call(&e, &Caller::Owner, "demo.load", Value::Null).await.unwrap();
        let d: Download = serde_json::from_value(
            call(&e, &Caller::Owner, "cases.export", serde_json::json!({"filter": {"case_type": "uncertain"}}))
                .await
                .unwrap(),
        )
        .unwrap();
        assert_eq!(String::from_utf8(d.bytes().unwrap()).unwrap().lines().count(), 30);
    }
}
