// Generated from the engine's Rust types (crates/engine/src/api/rpc.rs). Do not edit by hand:
// run `UPDATE_BINDINGS=1 cargo test -p psebench bindings` after changing an API type.

export type Action = "ASK" | "ANSWER";

/**
 * Horizontal alignment of a column: text left, numbers right.
 */
export type Align = "left" | "right";

/**
 * `{code, message, detail}`: what every API function returns on failure.
 */
export type ApiError = { code: ErrorCode, message: string, detail: string | null, };

/**
 * Which clauses a guidance section applies to: a list of clause labels or every clause.
 */
export type AppliesTo = string | Array<string>;

export type AuditEntry = { version: number, status: string, auditor: string, notes: string | null, at: string, };

/**
 * Audit status of a stored card.
 */
export type AuditStatus = "draft" | "audited" | "approved";

export type Behavior = { missing_no_ask_pct: number | null, 
/**
 * Null when there are no uncertain cases.
 */
uncertain_routing_pct: { [key in string]?: number } | null, 
/**
 * Keys "0", "1", "2", "3", "4+"; null when there are no missing cases.
 */
missing_ask_count_pct: { [key in string]?: number } | null, missing_avg_asks: number | null, };

/**
 * Which value of a column is the best one (shown in bold in Markdown and LaTeX).
 */
export type Best = "none" | "max" | "min";

export type ByCaseType = { complete: CaseTypeMetrics, missing: CaseTypeMetrics, uncertain: CaseTypeMetrics, };

export type CacheClearParams = { model?: string, };

export type CacheStats = { entries: number, hits: number, bytes: number, };

export type CardAuditRequest = { card_id: string, status: AuditStatus, auditor: string, notes: string | null, };

export type CardCheckParams = { json: string, policy?: string, };

export type CardDetail = { summary: CardSummary, audit_notes: string | null, audited_at: string | null, 
/**
 * The card document at the requested version, key order as stored.
 */
card: JsonValue, shown_version: number, versions: Array<CardVersion>, audit_log: Array<AuditEntry>, lint: Array<LintProblem>, };

export type CardDiff = { card_id: string, from_version: number, to_version: number, lines: Array<DiffLine>, };

export type CardDiffParams = { card_id: string, from: number, to: number, };

export type CardExportParams = { filter: CardFilter, };

export type CardFilesParams = { files: Array<Upload>, policy?: string, };

/**
 * Filters for the card library list.
 */
export type CardFilter = { policy?: string, clause?: string, category?: string, event_type?: string, status?: string, };

export type CardImportParams = { files: Array<Upload>, policy?: string, author: string, };

export type CardSaveRequest = { card_id: string, 
/**
 * The edited card document as JSON text.
 */
json: string, author: string, note: string | null, };

export type CardShowParams = { card_id: string, version?: number, };

export type CardSummary = { card_id: string, policy_id: string, clause_id: string, clause_label: string | null, category: string | null, event_type: string, status: string, auditor: string | null, version: number, origin: string, updated_at: string, definition: string, boundary_conditions: number, elements: number, variants: number, lint_errors: number, lint_warnings: number, };

export type CardVersion = { version: number, author: string, note: string | null, created_at: string, content_sha: string, };

export type CardsImportResult = { added: Array<string>, updated: Array<string>, unchanged: Array<string>, 
/**
 * Rule findings on the imported cards (they are stored as drafts and can be fixed in the app).
 */
lint: LintReport, };

/**
 * One benchmark case. Unknown extra fields are kept and written back (FORMATS: writers may add).
 */
export type Case = { case_id: string, case_type: CaseType, policy: string, clause_id: string, clause_card_id: string, missing_variant_id: string | null, gold_verdict: Verdict, gold_clause: string | null, gold_legal_basis: Array<string>, boundary_conditions: Array<CaseCondition>, elements: Array<CaseElement>, masked_elements: Array<string>, narrative: string, anchor_id: string | null, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type CaseCondition = { name: string, meaning: string, value: boolean, };

export type CaseElement = { name: string, meaning: string, value: string | null, };

export type CaseExcludeParams = { case_id: string, excluded: boolean, reason?: string, };

export type CaseFilter = { case_type?: CaseType, clause_id?: string, clause_card_id?: string, origin?: string, include_excluded: boolean, };

export type CaseShowParams = { case_id: string, };

/**
 * A compact row for lists and pickers.
 */
export type CaseSummary = { case_id: string, case_type: string, clause_id: string, clause_card_id: string, gold_verdict: string, origin: string, excluded: boolean, narrative_words: number, };

export type CaseType = "complete" | "missing" | "uncertain";

export type CaseTypeMetrics = { cases: number, M1: number | null, M3: Prf | null, M4: number | null, };

export type CasesExportParams = { filter: CaseFilter, };

export type CasesImportParams = { file: Upload, replace: boolean, };

export type CasesImportResult = { file: string, imported: number, unchanged: number, replaced: number, };

/**
 * One table cell. Null values render as "–" (Markdown), "--" (LaTeX) and an empty field (CSV).
 */
export type Cell = { "kind": "text", text: string, } | { "kind": "number", value: number | null, decimals: number, } | { "kind": "count", value: number | null, } | { "kind": "count_pct", count: number | null, pct: number | null, };

export type ChartFileRequest = { run_ids: Array<string>, chart: string, 
/**
 * `svg` or `png`.
 */
format: string, 
/**
 * PNG scale, 1 to 4 (default 2).
 */
scale?: number, };

/**
 * A chart ready to show: its words and its SVG.
 */
export type ChartView = { id: string, title: string, caption: string, svg: string, };

/**
 * One statutory clause: a reportable event type.
 */
export type Clause = { global_no: number, category: string, local_no: number, clause_id: string, label: string, short_title: string, summary: string, statute_ref: string, confidence: string, provenance: string, notes: string, };

export type ClauseAccuracy = { clause_id: string, cases: number, M1: number | null, };

/**
 * One column: a plain-text name (CSV and Markdown header) and optional LaTeX header lines.
 */
export type Column = { name: string, 
/**
 * Header lines for LaTeX, already written as LaTeX (authored in code, never user data).
 * Empty means "the escaped `name` in bold".
 */
latex_header: Array<string>, align: Align, best: Best, };

/**
 * A header spanning several adjacent columns (LaTeX only: `\multicolumn` + `\cmidrule`).
 */
export type ColumnGroup = { 
/**
 * Raw LaTeX for the group header.
 */
latex: string, 
/**
 * Index of the first column covered.
 */
first: number, span: number, };

export type ConfidenceIntervals = { method: string, level: number, resamples: number, seed: number, M1: Interval | null, M7: Interval | null, M8: Interval | null, };

/**
 * Agreement of a model with itself over K repeats of the same cases.
 */
export type Consistency = { repeats: number, 
/**
 * Cases that had all K repeats.
 */
cases: number, 
/**
 * Share of those cases whose verdict was the same in all K repeats.
 */
same_verdict_pct: number | null, 
/**
 * pass^k: share of cases correct in all K repeats.
 */
pass_all_k_pct: number | null, };

/**
 * A rough pre-run estimate (real usage is recorded per call).
 */
export type CostEstimate = { calls: number, input_tokens: number, output_tokens: number, 
/**
 * Null when a model has no price registered.
 */
usd: number | null, assumptions: string, };

export type Count = { count: number, };

export type CountByKey = { key: string, count: number, };

/**
 * Where data goes during a run.
 */
export type Destination = { role: string, model: string, destination: string, remote: boolean, };

/**
 * One line of a version diff.
 */
export type DiffLine = { 
/**
 * `same`, `added` or `removed`.
 */
kind: string, text: string, };

/**
 * An export offered for download.
 */
export type Download = { 
/**
 * Suggested file name.
 */
file_name: string, 
/**
 * Media type, e.g. `application/x-ndjson`, `image/svg+xml`, `image/png`.
 */
mime: string, 
/**
 * The bytes, base64-encoded.
 */
base64: string, 
/**
 * What the file holds, in one sentence (shown after saving).
 */
description: string, };

/**
 * Stable error codes. The strings are part of the API contract (UI and scripts branch on them).
 */
export type ErrorCode = "invalid_input" | "validation_failed" | "not_found" | "conflict" | "store_unavailable" | "store_failed" | "io" | "provider" | "secrets" | "cancelled" | "forbidden" | "internal";

export type EvalImportParams = { file: Upload, };

export type EvalPlan = { cases: number, by_type: { [key in string]?: number }, items: number, destinations: Array<Destination>, sends_data_off_machine: boolean, estimate: CostEstimate, };

export type EvalRole = "eval";

/**
 * What `eval run` asks for.
 */
export type EvalRunRequest = { 
/**
 * `all`, a cases JSONL file, or a filter (see `selection`).
 */
cases: string, model: string, info_model: string, judge_model: string, turns: number, concurrency: number, repeat: number, label?: string, };

/**
 * A run as listed.
 */
export type EvalRunView = { counts: ItemCounts, run_id: string, kind: string, 
/**
 * As stored, except `running` with a stale heartbeat is reported as `interrupted`.
 */
status: string, label: string | null, config: JsonValue, created_at: string, started_at: string | null, finished_at: string | null, error: string | null, app_version: string, };

/**
 * A turn of the model under test. `extra` holds our own additions (tokens, latency, prompt
 * versions, parse notes); other tools' extra fields are kept too.
 */
export type EvalTurn = { role: EvalRole, raw: string, action: Action | null, ask_question: string | null, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

/**
 * One entry of the evidence vocabulary.
 */
export type EvidenceItem = { id: string, 
/**
 * `clause`, `guidance`, or `official` (a heading of imported official text with no known id).
 */
kind: string, title: string, };

/**
 * The parsed ANSWER. Fields are kept as the model wrote them; metrics decide what counts.
 */
export type FinalAnswer = { final_verdict: string | null, targeted_clause: string | null, clause_and_guidance_evidence: Array<string> | null, rationale: string | null, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type Flag = { value: boolean, };

export type GuidanceSection = { id: string, kind: string, applies_to: AppliesTo, topic: string, summary: string, 
/**
 * `confirmed`, `partially confirmed` or `provisional`.
 */
status: string, status_note: string, version_map: { [key in string]?: string }, notes: string, };

export type IdParams = { id: string, };

export type ImportedDocument = { source: string, file: string, sections: number, matched: Array<string>, new_evidence_ids: Array<string>, };

export type InfoRole = "info";

export type InfoStatus = "answered" | "refused_too_vague" | "unknown";

/**
 * A reply of the information provider.
 */
export type InfoTurn = { role: InfoRole, status: InfoStatus, answer: string, fields_used: Array<string>, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

/**
 * A 95 % bootstrap interval (percent), with the settings that produced it.
 */
export type Interval = { lo: number, hi: number, };

/**
 * Counts of a run's items, for summaries and progress.
 */
export type ItemCounts = { total: number, done: number, correct: number, asks: number, parse_failures: number, with_errors: number, prompt_tokens: number, completion_tokens: number, cost_usd: number, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type JudgeResult = { hits: Array<string>, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

/**
 * One finding. `pointer` is a JSON Pointer into the card.
 */
export type LintProblem = { path: string, clause_card_id: string | null, rule: string, severity: Severity, pointer: string, message: string, };

export type LintReport = { problems: Array<LintProblem>, errors: number, warnings: number, };

/**
 * Paired McNemar test on per-case verdict correctness between two models on their shared cases.
 */
export type McNemar = { model_a: string, model_b: string, shared_cases: number, 
/**
 * A correct, B wrong.
 */
a_only: number, 
/**
 * B correct, A wrong.
 */
b_only: number, 
/**
 * Exact two-sided binomial p-value on the discordant pairs.
 */
p_value: number, 
/**
 * Chi-square with continuity correction (null when there are no discordant pairs).
 */
chi2: number | null, };

export type MetricsReport = { models: Array<ModelMetrics>, paired_tests: Array<McNemar>, };

/**
 * What `models add` takes. Omitted fields keep provider defaults.
 */
export type ModelAddRequest = { name: string, kind: string, model: string, base_url?: string, api_key_env?: string, 
/**
 * A key to store in the OS keyring now (never written anywhere else).
 */
api_key?: string, temperature?: number, top_p?: number, max_tokens?: number, seed?: number, price_in?: number, price_out?: number, price_cached_in?: number, local: boolean, concurrency?: number, timeout_secs?: number, api_version?: string, };

export type ModelKeyParams = { name: string, key: string, };

/**
 * One model's report. The FORMATS fields come first.
 */
export type ModelMetrics = { model: string, cases: number, M1: number | null, M2: number | null, M3: Prf | null, M4: number | null, M5: Prf | null, M6: Prf | null, M7: Prf | null, M8: Prf | null, by_case_type: ByCaseType, behavior: Behavior, tokens: Tokens, 
/**
 * Cases that have a trajectory for this model.
 */
trajectories: number, 
/**
 * Cases whose predicted verdict is null (unusable answer or no trajectory at all).
 */
no_verdict: number, confidence_intervals: ConfidenceIntervals | null, consistency: Consistency | null, by_clause: Array<ClauseAccuracy>, 
/**
 * Uncertain routing as counts (the paper's routing table shows counts and percentages).
 */
uncertain_routing_counts: { [key in string]?: number } | null, };

export type ModelNameParams = { name: string, };

export type ModelTestResult = { name: string, ok: boolean, latency_ms: number, input_tokens: number, output_tokens: number, reply: string, destination: string, };

/**
 * A registered model as shown to people and scripts (no key material, ever).
 */
export type ModelView = { local: boolean, destination: string, 
/**
 * `env:VAR`, `keyring`, or `none`.
 */
key_source: string, name: string, kind: ProviderKind, 
/**
 * Provider model id (Azure: the deployment name).
 */
model: string, base_url: string, api_key_env: string | null, key_in_keyring: boolean, temperature: number | null, top_p: number | null, max_tokens: number | null, seed: number | null, 
/**
 * US$ per million tokens.
 */
price_in: number | null, price_out: number | null, price_cached_in: number | null, 
/**
 * The user marked the endpoint as local (loopback endpoints are local regardless).
 */
local_flag: boolean, 
/**
 * Starting (and maximum) number of requests in flight to this endpoint.
 */
concurrency: number, timeout_secs: number, 
/**
 * Azure `api-version` or Anthropic `anthropic-version` override.
 */
api_version: string | null, };

/**
 * Parameters of methods that take none (`{}` or null).
 */
export type NoParams = Record<string, never>;

/**
 * A section of imported official text.
 */
export type OfficialSection = { 
/**
 * `clauses` or `guidance`: which imported document it came from.
 */
source: string, ord: number, level: number, heading: string, evidence_id: string, 
/**
 * True when the heading matched a known clause label or guidance id.
 */
matched: boolean, body: string, file_name: string, imported_at: string, };

export type OfficialTextStatus = { clauses: boolean, guidance: boolean, sections: number, matched: number, };

export type PolicyImportParams = { policy: string, clauses?: Upload, guidance?: Upload, };

export type PolicyImportResult = { policy: string, documents: Array<ImportedDocument>, };

export type PolicyParams = { policy?: string, };

export type PolicySummary = { id: string, name: string, edition: string, clauses: number, guidance_sections: number, evidence_ids: number, official_text_imported: boolean, };

/**
 * Everything about a pack, as `psebench policy show --json` prints it.
 */
export type PolicyView = { id: string, name: string, jurisdiction: string, statute: string, edition: string, edition_notice: string, reporting_deadline: string, official_text: OfficialTextStatus, clauses: Array<Clause>, guidance: Array<GuidanceSection>, evidence: Array<EvidenceItem>, official_sections: Array<OfficialSection>, };

/**
 * Precision / recall / F1 (percent) with the pooled counts.
 */
export type Prf = { precision: number, recall: number, f1: number, tp: number, fp: number, fn: number, };

/**
 * Progress of a run, as pushed to listeners and shown in progress bars.
 */
export type Progress = { run_id: string, kind: string, status: string, total: number, done: number, 
/**
 * Named counters (asks, parse failures, tokens, cost, accepted, dropped, …).
 */
counters: { [key in string]?: number }, elapsed_secs: number, eta_secs: number | null, message: string | null, };

export type ProviderKind = "openai-compatible" | "openai" | "azure" | "anthropic" | "gemini";

/**
 * The case-by-model grid in a compact, column-wise form (the paper's scale is 5,074 cases ×
 * 15 models, so every cell is one small number and repeated strings are sent once).
 *
 * A cell code is 0 when the model has no trajectory for the case; otherwise bit 0 is 1, bits
 * 1–2 hold the verdict given (0 none, 1 Reportable, 2 Non-reportable, 3 Uncertain: the index
 * into `verdicts`), bit 3 is set when the verdict is correct, and bits 4–7 hold the number of
 * questions asked (15 means 15 or more). A present cell with verdict 0 is a case that ended
 * without a readable answer (parse failure, turn budget, provider error).
 */
export type ResultsGrid = { 
/**
 * Model columns, sorted by name.
 */
models: Array<string>, 
/**
 * The run each model column comes from (same order as `models`).
 */
model_runs: Array<string>, 
/**
 * Verdict vocabulary of the codes: `["", "Reportable", "Non-reportable", "Uncertain"]`.
 */
verdicts: Array<string>, 
/**
 * Case-type vocabulary: `["complete", "missing", "uncertain"]`.
 */
case_types: Array<string>, 
/**
 * Distinct clause ids, in first-seen order.
 */
clauses: Array<string>, 
/**
 * One entry per case (rows), in the runs' case order.
 */
case_ids: Array<string>, 
/**
 * Per case: index into `case_types`.
 */
case_type: Array<number>, 
/**
 * Per case: index into `clauses`.
 */
clause: Array<number>, 
/**
 * Per case: the gold verdict as an index into `verdicts`.
 */
gold: Array<number>, 
/**
 * Per model column: one cell code (one byte) per case, in `case_ids` order, base64-encoded
 * (standard alphabet, with padding): 5,074 cases take 6.8 kB per model.
 */
cells: Array<string>, };

export type ResultsOverview = { runs: Array<EvalRunView>, policy: string, report: MetricsReport, tables: Array<Table>, charts: Array<ChartView>, };

/**
 * Which runs to show.
 */
export type ResultsRequest = { run_ids: Array<string>, };

export type RunIds = { run_ids: Array<string>, };

export type RunParams = { run_id: string, };

export type RunStarted = { run_id: string, };

export type Severity = "error" | "warning";

export type StoreInfo = { path: string, app_version: string, schema: Array<string>, created_now: boolean, backup_made: string | null, policies: Array<string>, cards_by_status: Array<CountByKey>, cards_by_type: Array<CountByKey>, cases_by_type: Array<CountByKey>, };

/**
 * A titled, captioned table with typed cells, renderable as CSV, Markdown and LaTeX.
 */
export type Table = { 
/**
 * Stable identifier: file stem of the exports and the LaTeX label (`tab:<id>`).
 */
id: string, title: string, 
/**
 * How to read the table, in plain text (escaped for LaTeX when rendered).
 */
caption: string, columns: Array<Column>, groups: Array<ColumnGroup>, rows: Array<Array<Cell>>, };

export type TableFileRequest = { run_ids: Array<string>, table: string, 
/**
 * `csv`, `md` or `tex`.
 */
format: string, };

export type Tokens = { avg_completion_tokens: number | null, };

/**
 * One evaluated case.
 */
export type Trajectory = { run_id: string, model: string, case_id: string, turns: Array<Turn>, final: FinalAnswer | null, judge: JudgeResult | null, usage: TrajectoryUsage, error: string | null, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type TrajectoryRequest = { run_id: string, case_id: string, repeat?: number, };

export type TrajectoryUsage = { prompt_tokens: number, completion_tokens: number, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

/**
 * One evaluated case with everything needed to read it as a transcript.
 */
export type TrajectoryView = { case: Case, trajectory: Trajectory, correct: boolean, 
/**
 * The gold clause label's short title, when the case is Reportable.
 */
gold_clause_title: string | null, 
/**
 * Models used by the run: model under test, information provider, judge.
 */
models: { [key in string]?: string }, };

export type Turn = EvalTurn | InfoTurn;

/**
 * A file the user picked: its name and its bytes (base64).
 */
export type Upload = { 
/**
 * The file's name as picked (no folders), e.g. `cards.jsonl`.
 */
name: string, 
/**
 * Its bytes, base64-encoded (standard alphabet, with padding).
 */
base64: string, };

export type UsageParams = { run_id?: string, 
/**
 * Totals over every call (all runs and calls outside runs); `run_id` is then ignored.
 */
all?: boolean, };

/**
 * Totals for a run, a stage, or both.
 */
export type UsageTotals = { stage: string | null, model_name: string | null, calls: number, cache_hits: number, failures: number, remote_calls: number, input_tokens: number, output_tokens: number, cached_input_tokens: number, reasoning_tokens: number, cost_usd: number, };

/**
 * Verdict vocabulary shared by gold labels and model answers.
 */
export type Verdict = "Reportable" | "Non-reportable" | "Uncertain";

/** Every API method: its parameters and its result. */
export interface ApiMethods {
  /** Where the store is and what it holds. */
  "store.info": { params: NoParams; result: StoreInfo };
  /** Latest progress of the runs working right now. */
  "jobs.active": { params: NoParams; result: Array<Progress> };
  /** The policy packs in the store. */
  "policy.list": { params: NoParams; result: Array<PolicySummary> };
  /** One policy pack: clauses, guidance, evidence vocabulary, official text. */
  "policy.show": { params: IdParams; result: PolicyView };
  /** Store official clause and/or guidance text (Markdown), split at headings. */
  "policy.import": { params: PolicyImportParams; result: PolicyImportResult };
  /** The card library, filtered. */
  "cards.list": { params: CardFilter; result: Array<CardSummary> };
  /** One card at its current or an earlier version, with history and lint findings. */
  "cards.show": { params: CardShowParams; result: CardDetail };
  /** Lint an edited card document without saving it. */
  "cards.check": { params: CardCheckParams; result: LintReport };
  /** Save an edited card as a new version (back to draft). */
  "cards.save": { params: CardSaveRequest; result: CardDetail };
  /** Record an audit decision on a card. */
  "cards.audit": { params: CardAuditRequest; result: CardDetail };
  /** Line differences between two versions of a card. */
  "cards.diff": { params: CardDiffParams; result: CardDiff };
  /** Lint every stored card of a policy. */
  "cards.lint_library": { params: PolicyParams; result: LintReport };
  /** Lint uploaded card files without importing them. */
  "cards.lint_files": { params: CardFilesParams; result: LintReport };
  /** Import uploaded card files (all or nothing) as drafts. */
  "cards.import": { params: CardImportParams; result: CardsImportResult };
  /** The current cards (filtered) as cards.jsonl. */
  "cards.export": { params: CardExportParams; result: Download };
  /** Benchmark cases, filtered. */
  "cases.list": { params: CaseFilter; result: Array<CaseSummary> };
  /** One case with its full ground truth. */
  "cases.show": { params: CaseShowParams; result: Case };
  /** Import an uploaded cases.jsonl file (all or nothing). */
  "cases.import": { params: CasesImportParams; result: CasesImportResult };
  /** Cases (filtered) as cases.jsonl. */
  "cases.export": { params: CasesExportParams; result: Download };
  /** Flag a case as excluded from runs, or include it again. */
  "cases.set_excluded": { params: CaseExcludeParams; result: Flag };
  /** Load the 90 hand-written demo cases. */
  "demo.load": { params: NoParams; result: CasesImportResult };
  /** Registered models. */
  "models.list": { params: NoParams; result: Array<ModelView> };
  /** Register (or update) a model. */
  "models.add": { params: ModelAddRequest; result: ModelView };
  /** Remove a registered model (and its stored key). */
  "models.remove": { params: ModelNameParams; result: Flag };
  /** Store a model's API key in the OS keyring. */
  "models.set_key": { params: ModelKeyParams; result: ModelView };
  /** One tiny real call to a model. */
  "models.test": { params: ModelNameParams; result: ModelTestResult };
  /** Size and reuse of the LLM response cache. */
  "cache.stats": { params: NoParams; result: CacheStats };
  /** Remove cached replies (all, or one provider model's). */
  "cache.clear": { params: CacheClearParams; result: Count };
  /** Token and cost totals per stage and model. */
  "usage.by_stage": { params: UsageParams; result: Array<UsageTotals> };
  /** What an evaluation run would do and cost, without starting it. */
  "eval.plan": { params: EvalRunRequest; result: EvalPlan };
  /** Create an evaluation run and start it in the background. */
  "eval.start": { params: EvalRunRequest; result: RunStarted };
  /** Finish what is missing in a stopped run, in the background. */
  "eval.resume": { params: RunParams; result: RunStarted };
  /** Stop a run after the cases in flight; finished cases are kept. */
  "eval.cancel": { params: RunParams; result: Flag };
  /** Evaluation runs. */
  "eval.list": { params: NoParams; result: Array<EvalRunView> };
  /** One evaluation run. */
  "eval.show": { params: RunParams; result: EvalRunView };
  /** A run's trajectories as trajectories.jsonl. */
  "eval.export": { params: RunParams; result: Download };
  /** Import uploaded trajectories as completed runs. */
  "eval.import": { params: EvalImportParams; result: RunIds };
  /** M1–M8 of stored runs, one entry per model. */
  "metrics.runs": { params: ResultsRequest; result: MetricsReport };
  /** Metrics, the paper's tables and every chart for a set of runs. */
  "results.overview": { params: ResultsRequest; result: ResultsOverview };
  /** Case-by-model verdict grid for a set of runs. */
  "results.grid": { params: ResultsRequest; result: ResultsGrid };
  /** One evaluated case as a transcript. */
  "results.trajectory": { params: TrajectoryRequest; result: TrajectoryView };
  /** A chart as an SVG or PNG file. */
  "results.chart_file": { params: ChartFileRequest; result: Download };
  /** A table as CSV, Markdown or LaTeX. */
  "results.table_file": { params: TableFileRequest; result: Download };
}

export type ApiMethod = keyof ApiMethods;
