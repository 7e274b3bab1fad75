// Generated from the engine's Rust types (crates/engine/src/api/rpc.rs). Do not edit by hand:
// run `UPDATE_BINDINGS=1 cargo test -p psebench bindings` after changing an API type.

/**
 * Accept a draft (all items, or the ones named) into the library.
 */
export type AcceptRequest = { draft_id: string, by: string, notes: string | null, item_ids: Array<string> | null, };

export type AcceptResult = { draft_id: string, status: string, 
/**
 * Library cards created or given a new version.
 */
cards: Array<string>, };

export type Action = "ASK" | "ANSWER";

/**
 * One place where the `studio` protocol departs from the paper.
 */
export type Addition = { id: string, 
/**
 * What the addition is.
 */
what: string, 
/**
 * What it changes in the results.
 */
changes: string, 
/**
 * How to turn it off.
 */
switch: string, };

/**
 * The final call on a case.
 */
export type AdjudicationDecision = { "kind": "accept" } | { "kind": "relabel", verdict: ReviewVerdict, } | { "kind": "reject" };

export type AdjudicationsParams = { session: string, case_id?: string, };

/**
 * Horizontal alignment of a column: text left, numbers right.
 */
export type Align = "left" | "right";

/**
 * A stored anchor.
 */
export type Anchor = { anchor_id: string, 
/**
 * The text generation uses (the English translation once translated).
 */
text: string, source: string, 
/**
 * Language of `text` (e.g. `en`, `ja`).
 */
language: string, 
/**
 * Topical bucket: a clause id of the policy, or null while unsorted (never sampled).
 */
clause_id: string | null, 
/**
 * How the bucket was set: `file`, `manual`, `presort` or `builtin`.
 */
bucket_origin: string | null, 
/**
 * The pre-sort model's one-line reason, when it set the bucket.
 */
bucket_note: string | null, 
/**
 * The text as imported, kept when it was translated.
 */
original_text: string | null, original_language: string | null, translated_by: string | null, content_sha: string, 
/**
 * `builtin` (the synthetic samples shipped with the app) or `imported`.
 */
origin: string, file_name: string | null, created_at: string, updated_at: string, };

/**
 * One anchor's outcome in a batch (or a job).
 */
export type AnchorBatchItem = { anchor_id: string, 
/**
 * `changed`, `unchanged`, `kept_manual` or `failed` (a failed anchor is tried again on resume).
 */
outcome: string, 
/**
 * The new bucket (pre-sort) or null.
 */
clause_id: string | null, 
/**
 * The model's reason, or the error.
 */
note: string | null, };

export type AnchorBatchResult = { model: string, processed: number, changed: number, failed: number, items: Array<AnchorBatchItem>, input_tokens: number, output_tokens: number, cost_usd: number, };

/**
 * How many anchors a clause's bucket holds.
 */
export type AnchorBucket = { 
/**
 * Null for anchors not sorted into any clause yet.
 */
clause_id: string | null, label: string | null, builtin: number, imported: number, };

export type AnchorBucketParams = { anchor_id: string, 
/**
 * A clause id, or null to take the anchor out of every bucket.
 */
clause_id?: string, };

/**
 * An anchor that was not stored because the same text is already there (or earlier in the file).
 */
export type AnchorDuplicate = { 
/**
 * The id the skipped record had (or would have had).
 */
anchor_id: string, 
/**
 * Where it was in the file.
 */
location: string, 
/**
 * The stored (or earlier) anchor with the same text.
 */
duplicate_of: string, };

export type AnchorFilter = { clause_id: string | null, 
/**
 * `builtin` or `imported`.
 */
origin: string | null, unbucketed_only: boolean, language: string | null, 
/**
 * Words that must all occur (case-insensitive) in the text, the original text, the id or
 * the source.
 */
search?: string, };

export type AnchorIdParams = { anchor_id: string, };

export type AnchorIdsParams = { anchor_ids: Array<string>, };

/**
 * Defaults and overrides applied to every record of an import.
 */
export type AnchorImportOptions = { 
/**
 * Put every imported anchor in this clause's bucket (overrides the file's `clause_id`).
 */
clause_id: string | null, 
/**
 * Source for records that do not name one (default: the file name).
 */
source: string | null, 
/**
 * Language for records that do not name one (default: `en`).
 */
language: string | null, 
/**
 * The policy whose clause ids are valid buckets (default: the default policy pack).
 */
policy: string | null, };

export type AnchorImportResult = { file: string, added: Array<string>, duplicates: Array<AnchorDuplicate>, 
/**
 * Added anchors without a bucket (sort them with `anchors bucket` or `anchors presort`).
 */
unbucketed: number, 
/**
 * Defaults that were applied, in plain words.
 */
notes: Array<string>, };

/**
 * What an anchor job does to each anchor.
 */
export type AnchorJobKind = "presort" | "translate";

/**
 * What a job would send and cost, before anything is sent.
 */
export type AnchorJobPlan = { kind: AnchorJobKind, model: string, 
/**
 * Anchors the job would take.
 */
anchors: number, 
/**
 * Of those, anchors whose bucket a person set (left as they are, nothing sent).
 */
kept_manual: number, 
/**
 * About one call per anchor sent (more when a reply cannot be read).
 */
calls: number, input_tokens: number, output_tokens: number, tokens: number, 
/**
 * Null when a remote model has no price registered.
 */
usd: number | null, destination: string, sends_data_off_machine: boolean, batch: boolean, notes: Array<string>, };

/**
 * What to start (or plan) as an anchor job.
 */
export type AnchorJobRequest = { kind: AnchorJobKind, model: string, 
/**
 * The policy whose clauses are the buckets (pre-sort; default: the default policy).
 */
policy: string | null, 
/**
 * Only these anchors (empty: every anchor that qualifies).
 */
anchor_ids: Array<string>, 
/**
 * Pre-sort only: take only anchors without a bucket (default). Buckets set by a person are
 * never changed either way.
 */
only_unbucketed: boolean, 
/**
 * Anchors handled at once (default 4, at most 64).
 */
concurrency: number | null, 
/**
 * Send through the provider's batch interface (cheaper, slower) where the model supports it.
 */
batch: boolean, label: string | null, };

/**
 * An anchor job with its outcomes so far.
 */
export type AnchorJobView = { run_id: string, kind: AnchorJobKind, status: RunStatus, label: string | null, model: string, policy: string, concurrency: number, batch: boolean, 
/**
 * Anchors the job froze.
 */
total: number, 
/**
 * Anchors handled for good (changed, unchanged or kept as set by hand).
 */
done: number, 
/**
 * Anchors not handled yet or failed (taken again on resume).
 */
pending: number, created_at: string, finished_at: string | null, 
/**
 * Why the job stopped, when it did not finish.
 */
error: string | null, 
/**
 * Outcomes of the anchors handled so far, in the job's order (`anchor_job.list` leaves the
 * items out; `anchor_job.show` has them).
 */
result: AnchorBatchResult, 
/**
 * Set when the job went through every anchor but most of them failed (their replies could
 * not be read or their calls failed): the app shows "finished with problems" with this
 * message. Resume tries the failed anchors again.
 */
problems: RunProblems | null, };

/**
 * What `anchors presort` asks for.
 */
export type AnchorPresortRequest = { model: string, 
/**
 * Only anchors without a bucket (default). Buckets set by hand are never changed.
 */
only_unbucketed: boolean, 
/**
 * Limit to these anchors (empty: every anchor that qualifies).
 */
anchor_ids: Array<string>, policy: string | null, concurrency: number | null, };

/**
 * A compact row for lists.
 */
export type AnchorSummary = { anchor_id: string, clause_id: string | null, bucket_origin: string | null, source: string, language: string, origin: string, translated: boolean, words: number, 
/**
 * The first words of the text.
 */
preview: string, };

/**
 * What `anchors translate` asks for: every anchor whose language is not English and that has
 * not been translated yet (or only the listed ones).
 */
export type AnchorTranslateRequest = { model: string, anchor_ids: Array<string>, concurrency: number | null, };

export type AnchorsImportParams = { 
/**
 * One JSONL or CSV file, or one or more `.txt` files (one anchor each).
 */
files: Array<Upload>, options?: AnchorImportOptions, };

/**
 * `{code, message, detail}`: what every API function returns on failure.
 */
export type ApiError = { code: ErrorCode, message: string, detail: string | null, };

/**
 * Which clauses a guidance section applies to: a list of clause labels or every clause.
 */
export type AppliesTo = string | Array<string>;

/**
 * Approve an extraction with its final list of sections.
 */
export type ApproveRequest = { extraction_id: string, 
/**
 * The person approving (required).
 */
approved_by: string, 
/**
 * The final section ids (the current selection with the person's additions and removals).
 */
sections: Array<string>, notes: string | null, };

export type AuditEntry = { version: number, status: string, auditor: string, notes: string | null, at: string, };

/**
 * Audit status of a stored card.
 */
export type AuditStatus = "draft" | "audited" | "approved";

/**
 * One model call behind an extraction, with its provenance.
 */
export type AuthoringCall = { 
/**
 * `extractor` or `self_check`.
 */
role: string, attempt: number, prompt_name: string, prompt_versions: { [key in string]?: string }, model: string, request: unknown, response_text: string | null, parsed: unknown, parse_notes: Array<string>, input_tokens: number, output_tokens: number, cached_input_tokens: number, cost_usd: number, latency_ms: number, cache_hit: boolean, 
/**
 * The call's row in the call ledger (`calls.list`).
 */
call_id: number | null, };

/**
 * Which batches to list: a run's, or all.
 */
export type BatchListParams = { run_id?: string, };

/**
 * Batch mode in a run's plan.
 */
export type BatchNote = { 
/**
 * The run is (to be) made in batch mode.
 */
requested: boolean, 
/**
 * Models whose calls would go through their provider's batch API.
 */
batched_models: Array<string>, 
/**
 * Models called directly all the same (OpenAI-compatible servers have no batch API).
 */
direct_models: Array<string>, 
/**
 * The longest completion window of the batched models' providers, in plain words.
 */
completion_window: string | null, 
/**
 * One sentence for the plan (empty when batch mode is neither asked for nor possible).
 */
note: string, };

/**
 * A batch as shown in progress views and `psebench batches`.
 */
export type BatchView = { batch_id: string, provider_batch_id: string | null, model_name: string, provider: string, run_id: string | null, 
/**
 * `submitting`, `in_progress`, `ended` or `failed`.
 */
state: string, 
/**
 * The provider's own word for it (validating, in_progress, finalizing, completed, expired, ended, …).
 */
provider_status: string | null, requests: number, succeeded: number, failed: number, 
/**
 * Requests whose answers the run has not taken yet.
 */
waiting: number, error: string | null, created_at: string, updated_at: string, ended_at: string | null, };

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

/**
 * Which calls to list.
 */
export type CallFilter = { 
/**
 * The run (required unless `item` is given: authoring extractions have no run).
 */
run_id: string | null, item: string | null, step: string | null, attempt: number | null, role: string | null, 
/**
 * Rows to skip (in ledger order).
 */
offset: number | null, 
/**
 * At most this many rows (default 500, at most 5,000).
 */
limit: number | null, };

/**
 * What a plan says about a spending cap the estimate passes.
 */
export type CapForecast = { 
/**
 * The cap in US$.
 */
max_cost_usd: number, 
/**
 * Items the cap is expected to allow at the estimated cost per item.
 */
items_allowed: number, 
/**
 * Items the run has.
 */
items: number, 
/**
 * The estimated cost of one item (US$).
 */
item_estimate_usd: number, };

export type CardAuditRequest = { card_id: string, status: AuditStatus, auditor: string, notes: string | null, };

export type CardCheckParams = { json: string, policy?: string, };

export type CardCoverageParams = { policy?: string, 
/**
 * One clause id; every clause when absent.
 */
clause?: string, 
/**
 * Card files or folders on this computer to report on instead of the stored library.
 */
paths?: Array<string>, };

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
export type CardFilter = { policy?: string, clause?: string, category?: string, event_type?: string, status?: string, 
/**
 * Words that must all occur (in any case) in the card id or its definition.
 */
search?: string, };

export type CardImportParams = { files: Array<Upload>, policy?: string, author: string, };

export type CardSaveRequest = { card_id: string, 
/**
 * The edited card document as JSON text.
 */
json: string, author: string, note: string | null, 
/**
 * The version the edit started from. When given and the card has changed since (someone
 * else saved a newer version), the save is refused instead of silently replacing their work.
 */
base_version?: number, };

export type CardShapeRow = { 
/**
 * `boundary_conditions` or `basic_event_elements`
 */
measure: string, event_type: string, cards: number, mean: number | null, median: number | null, 
/**
 * Cards with at most 2, 3 to 4, and 5 or more.
 */
at_most_2: number, from_3_to_4: number, at_least_5: number, min: number | null, max: number | null, };

export type CardShowParams = { card_id: string, version?: number, };

export type CardSummary = { card_id: string, policy_id: string, clause_id: string, clause_label: string | null, category: string | null, event_type: string, status: string, auditor: string | null, version: number, origin: string, updated_at: string, definition: string, boundary_conditions: number, elements: number, variants: number, lint_errors: number, lint_warnings: number, 
/**
 * Guidance ids the card cites whose status in the pack is `provisional` (not yet checked
 * against the official guidance); the app shows them as a badge.
 */
provisional: Array<string>, };

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

export type CaseCountRow = { 
/**
 * Category name, or the clause label.
 */
key: string, 
/**
 * The clause's global number (clause rows only).
 */
global_no: number | null, complete: number, missing: number, uncertain: number, total: number, };

/**
 * One case for the case view: its content, what the store knows about it, and the names the
 * page shows for its clause and card.
 */
export type CaseDetail = { case: Case, meta: CaseMeta, 
/**
 * The clause's label and short title in the case's policy (None when the policy does not know it).
 */
clause_label: string | null, clause_short_title: string | null, 
/**
 * Audit status of the case's card in the library, or None when the library has no such card.
 */
card_status: string | null, };

export type CaseElement = { name: string, meaning: string, value: string | null, };

export type CaseExcludeParams = { case_id: string, excluded: boolean, reason?: string, };

export type CaseFilter = { case_type?: CaseType, clause_id?: string, clause_card_id?: string, origin?: string, include_excluded: boolean, };

/**
 * What the store knows about a case beyond its content: where it came from and whether runs
 * leave it out.
 */
export type CaseMeta = { 
/**
 * `demo`, `imported` or `generated`.
 */
origin: string, excluded: boolean, excluded_reason: string | null, created_at: string, };

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

/**
 * Kinds of stored data that changed since the last event (pushed as `event: change`).
 */
export type ChangeEvent = { kinds: Array<ChangeKind>, };

/**
 * A kind of stored data that pages show and reload when it changes.
 */
export type ChangeKind = "reviews" | "runs" | "results" | "cases" | "cards" | "anchors" | "models" | "policies" | "batches" | "authoring" | "label_audit";

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
 * A section chosen for a clause.
 */
export type ChosenSection = { section_id: string, criteria: Array<string>, why: string, 
/**
 * The person who added it at approval (absent for the model's choices).
 */
added_by?: string | null, };

/**
 * One statutory clause: a reportable event type.
 */
export type Clause = { global_no: number, category: string, local_no: number, clause_id: string, label: string, short_title: string, summary: string, statute_ref: string, confidence: string, provenance: string, notes: string, };

export type ClauseAccuracy = { clause_id: string, cases: number, M1: number | null, };

/**
 * What a plan says about a clause's context.
 */
export type ClauseContextNote = { clause_id: string, 
/**
 * `approved extraction vN (id)` or `built-in context, no approved extraction`.
 */
context: string, extraction_id: string | null, };

export type ClauseCount = { clause_id: string, complete: number, missing: number, uncertain: number, };

/**
 * One clause's coverage report (`cards_coverage`).
 */
export type ClauseCoverage = { clause_id: string, label: string, report: CoverageReport, };

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

/**
 * The verdict over a set of runs.
 */
export type Comparability = { 
/**
 * No recorded aspect differs.
 */
comparable: boolean, 
/**
 * The aspects that differ between runs (empty when comparable).
 */
differing: Array<string>, 
/**
 * One sentence saying what differs (and which runs record nothing); none when all is alike.
 */
sentence: string | null, 
/**
 * One mark per run, in the order given.
 */
marks: Array<RunMark>, };

/**
 * What bounds the requests a run keeps in flight at one endpoint.
 */
export type ConcurrencyBound = "run" | "endpoint";

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
usd: number | null, 
/**
 * The same in batch mode (batch prices where the provider has a batch API).
 */
usd_batch: number | null, assumptions: string, };

export type Count = { count: number, };

export type CountByKey = { key: string, count: number, };

export type CoverageReport = { 
/**
 * Condition names in first-seen order.
 */
conditions: Array<string>, 
/**
 * Cards taken into account (the draft and the clause's existing cards).
 */
cards: Array<string>, 
/**
 * 2^conditions (0 when not enumerated).
 */
combinations: number, 
/**
 * Combinations at least one card admits.
 */
covered: number, 
/**
 * Combinations no card admits, at most MAX_GAPS_SHOWN of them.
 */
gaps: Record<string, boolean>[], note: string | null, };

/**
 * Where the demo model stands.
 */
export type DemoModelStatus = { 
/**
 * The registered model's name (`demo`).
 */
model_name: string, 
/**
 * The demo model answers in this app now.
 */
running: boolean, 
/**
 * Its address while it runs.
 */
base_url: string | null, 
/**
 * A model named `demo` is registered as the demo model (it may be stopped).
 */
registered: boolean, 
/**
 * What to tell the person, in one or two sentences.
 */
message: string, };

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

export type DiscoverRequest = { 
/**
 * Ports to try (default: the usual ones of local servers).
 */
ports?: Array<number>, 
/**
 * Ports to try as well as those (a server on a port of its own).
 */
extra_ports?: Array<number>, };

export type DiscoverResult = { servers: Array<DiscoveredServer>, 
/**
 * Every port tried, answering or not.
 */
checked: Array<number>, };

export type DiscoveredModel = { 
/**
 * The model id the server reports.
 */
id: string, 
/**
 * A free registry name for it.
 */
suggested_name: string, 
/**
 * The registered model that already points at this server and id, if any.
 */
registered_as: string | null, };

export type DiscoveredServer = { port: number, 
/**
 * What usually listens there (a guess from the port).
 */
product: string, 
/**
 * The base URL to register (`http://127.0.0.1:PORT/v1`).
 */
base_url: string, models: Array<DiscoveredModel>, };

/**
 * A case whose label a majority of the models dispute.
 */
export type DisputedCase = { case_id: string, label: string, 
/**
 * Model name → its reading.
 */
verdicts: { [key in string]?: ModelVerdict }, };

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
 * A stored draft.
 */
export type Draft = { draft_id: string, policy_id: string, clause_id: string, kind: DraftKind, parent_card_id: string | null, extraction_id: string, extraction_version: number, 
/**
 * The drafted cards (kinds complete and uncertain) or variants (kind missing).
 */
items: unknown[], item_ids: Array<string>, problems: Array<DraftProblem>, self_check: Array<SelfCheckNote>, coverage: CoverageReport | null, nearest: Array<NearestCard>, 
/**
 * The extraction's section ids the items cite.
 */
cited: Array<string>, attempts: number, model: string, prompt_versions: { [key in string]?: string }, 
/**
 * `proposed` (checks pass), `failed` (errors remain), `accepted` or `rejected`.
 */
status: string, decided_by: string | null, decided_at: string | null, 
/**
 * Notes on acceptance, or the reason for rejection.
 */
decision_notes: string | null, accepted_ids: Array<string>, edited_by: string | null, edited_at: string | null, run_id: string | null, created_at: string, calls: Array<AuthoringCall>, };

/**
 * One thing the job would draft (or skips, with why).
 */
export type DraftAllItem = { clause_id: string, label: string, kind: DraftKind, parent_card_id: string | null, 
/**
 * `to draft`, `drafted` or `no approved extraction`.
 */
state: string, };

export type DraftAllPlan = { policy: string, model: string, items: Array<DraftAllItem>, to_draft: number, skipped: number, calls: number, input_tokens: number, output_tokens: number, 
/**
 * Null when a remote model has no price registered.
 */
usd: number | null, destination: string, sends_data_off_machine: boolean, notes: Array<string>, };

export type DraftAllRequest = { policy: string | null, model: string, 
/**
 * Which kinds to draft, in this order per clause (default: complete, then uncertain).
 */
kinds: Array<DraftKind>, label: string | null, };

/**
 * A "draft every clause" job as listed.
 */
export type DraftAllRun = { run_id: string, status: RunStatus, policy: string, model: string, kinds: Array<DraftKind>, label: string | null, created_at: string, finished_at: string | null, error: string | null, 
/**
 * Drafts the job has stored so far.
 */
drafts: number, 
/**
 * Of those, drafts that failed (their replies could not be read or did not pass the checks).
 */
failed: number, 
/**
 * Set when the job went through every clause but most of its drafts failed: the app shows
 * "finished with problems" with this message instead of a plain "finished".
 */
problems: RunProblems | null, };

export type DraftDiff = { item_id: string, against: string, lines: Array<DiffLine>, };

export type DraftDiffRequest = { draft_id: string, item_id: string, 
/**
 * The library card to compare with.
 */
against: string, };

/**
 * Replace a draft's items with an edited version (checked again).
 */
export type DraftEditRequest = { draft_id: string, by: string, 
/**
 * The items as a JSON array (cards, or variants for kind missing).
 */
json: string, };

/**
 * Which drafts to list.
 */
export type DraftFilter = { policy?: string, clause?: string, status?: string, };

/**
 * What is drafted.
 */
export type DraftKind = "complete" | "missing" | "uncertain";

/**
 * One finding of the code checks.
 */
export type DraftProblem = { 
/**
 * The card or variant it concerns (none for the reply as a whole).
 */
item_id: string | null, 
/**
 * A lint rule id, `schema`, or a `draft-*` rule.
 */
rule: string, severity: Severity, 
/**
 * JSON Pointer into the item.
 */
pointer: string, message: string, };

/**
 * What `psebench author draft` asks for.
 */
export type DraftRequest = { policy: string | null, clause: string, kind: DraftKind, 
/**
 * The parent card (kind `missing` only).
 */
parent: string | null, model: string, };

/**
 * What `psebench author draft --json` prints.
 */
export type DraftResult = { draft_id: string, 
/**
 * The drafted card ids (variant ids for kind missing).
 */
cards: Array<string>, attempts: number, problems: Array<DraftProblem>, };

/**
 * A draft as listed.
 */
export type DraftSummary = { draft_id: string, policy_id: string, clause_id: string, kind: DraftKind, parent_card_id: string | null, status: string, item_ids: Array<string>, errors: number, warnings: number, attempts: number, model: string, created_at: string, run_id: string | null, };

export type DropRow = { 
/**
 * instantiation | narration | missing_narration | case | parent
 */
stage: string, candidates: number, };

/**
 * One endpoint a run calls, as the plan shows it.
 */
export type EndpointConcurrency = { 
/**
 * The endpoint's base URL.
 */
endpoint: string, 
/**
 * Registered models the run calls at this endpoint, with their roles.
 */
models: Array<string>, 
/**
 * The run's `concurrency`.
 */
asked: number, 
/**
 * The `concurrency` the endpoint's model was registered with.
 */
registered_limit: number, 
/**
 * The endpoint's limit when the run starts (the registered value, lifted to `asked`).
 */
effective_limit: number, 
/**
 * The most requests the run can have in flight there at once.
 */
max_in_flight: number, bound_by: ConcurrencyBound, 
/**
 * A plain sentence on what bounds it.
 */
note: string, };

/**
 * Stable error codes. The strings are part of the API contract (UI and scripts branch on them).
 */
export type ErrorCode = "invalid_input" | "validation_failed" | "not_found" | "conflict" | "store_unavailable" | "store_failed" | "io" | "provider" | "secrets" | "keyring_unavailable" | "cancelled" | "forbidden" | "unauthorized" | "internal";

export type EvalRole = "eval";

/**
 * A turn of the model under test. `extra` holds our own additions (tokens, latency, prompt
 * versions, parse notes); other tools' extra fields are kept too.
 */
export type EvalTurn = { role: EvalRole, raw: string, action: Action | null, ask_question: string | null, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type EvaluationImportParams = { file: Upload, };

export type EvaluationPlan = { 
/**
 * The method the run would follow.
 */
protocol: Protocol, 
/**
 * The policies of the selected cases: each case is shown its own policy's prompt.
 */
policies: Array<string>, cases: number, by_type: { [key in string]?: number }, items: number, destinations: Array<Destination>, sends_data_off_machine: boolean, estimate: CostEstimate, 
/**
 * Per clause, the clause text the judge is shown: an approved extraction (with its version)
 * or the built-in clause text when no extraction is approved.
 */
clause_contexts: Array<ClauseContextNote>, 
/**
 * Batch mode: which models it would batch, their providers' window, online vs batch cost.
 */
batch: BatchNote, 
/**
 * When the estimate passes the spending cap: how many items the cap is expected to allow.
 */
cap: CapForecast | null, 
/**
 * Per endpoint the run calls: requests in flight asked for, allowed, and what bounds them.
 */
concurrency: Array<EndpointConcurrency>, };

export type EvaluationRunConfig = { 
/**
 * The case selection (`all`, a cases file or a filter).
 */
cases?: string, 
/**
 * Policy pack id of the cases.
 */
policy?: string, 
/**
 * The trajectories file an imported run came from.
 */
imported_from?: string, 
/**
 * The registered name of the model under test (for imported runs: the model named in the file).
 */
model: string, info_model?: string, judge_model?: string, models?: EvaluationRunModels, 
/**
 * Turn budget per case.
 */
turns?: number, 
/**
 * Cases worked on at once.
 */
concurrency?: number, 
/**
 * Times each case is run.
 */
repeat?: number, 
/**
 * The spending cap in US$ (none: no cap). A resume may raise or drop it.
 */
max_cost_usd?: number, 
/**
 * Prompt name → version, as the run was created.
 */
prompt_versions?: { [key in string]?: string }, 
/**
 * Calls go through the providers' batch APIs where they have one.
 */
batch?: boolean, 
/**
 * What made the run: protocol, prompts, policy edition, library and case-set fingerprints,
 * judge (absent in imported runs and in runs made before runs recorded it).
 */
provenance?: RunProvenance, 
/**
 * The run was imported from a file (it cannot be executed).
 */
imported?: boolean, 
/**
 * One of the example runs of fictional models (no model was called).
 */
example?: boolean, };

/**
 * The models an evaluation run calls, by role.
 */
export type EvaluationRunModels = { 
/**
 * The model under test.
 */
eval: RunModel, 
/**
 * The information provider.
 */
info: RunModel, judge: RunModel, };

/**
 * What `eval run` asks for.
 */
export type EvaluationRunRequest = { 
/**
 * `all`, a cases JSONL file, or a filter (see `selection`).
 */
cases: string, model: string, info_model: string, judge_model: string, turns: number, concurrency: number, repeat: number, label?: string, 
/**
 * Send the calls of models whose provider has a batch API as provider batches (about half
 * the price; answers within the provider's completion window).
 */
batch: boolean, 
/**
 * Stop scheduling new cases before the spending would pass this many US$ (none: no cap).
 */
max_cost_usd?: number, 
/**
 * `studio` (default) or `paper`: the method the run follows (`protocol`). Optional in
 * requests: callers that do not say get `studio`.
 */
protocol?: Protocol, };

/**
 * A run as listed.
 */
export type EvaluationRunView = { counts: ItemCounts, 
/**
 * Set when the run finished but most of its cases ended on a reply that could not be read:
 * the app shows "finished with problems" with this message instead of a plain "finished".
 */
problems: RunProblems | null, run_id: string, kind: RunKind, 
/**
 * As stored, except `running` with a stale heartbeat is reported as `interrupted`.
 */
status: RunStatus, label: string | null, config: EvaluationRunConfig, created_at: string, started_at: string | null, finished_at: string | null, error: string | null, app_version: string, };

/**
 * One entry of the evidence vocabulary.
 */
export type EvidenceItem = { id: string, 
/**
 * `clause`, `guidance`, or `official` (a heading of imported official text with no known id).
 */
kind: string, title: string, };

export type ExampleResults = { 
/**
 * The example runs (one per fictional model).
 */
run_ids: Array<string>, 
/**
 * Whether the demo cases had to be loaded first.
 */
loaded_demo_cases: boolean, };

/**
 * What removing the example results removes (or removed): one entry per example run.
 */
export type ExampleResultsRemoval = { runs: Array<RunRemoval>, 
/**
 * One sentence: what goes and what stays.
 */
summary: string, };

/**
 * What `psebench author extract` asks for.
 */
export type ExtractRequest = { policy: string | null, clause: string, model: string, };

/**
 * What `psebench author extract --json` prints.
 */
export type ExtractResult = { extraction_id: string, clause_id: string, sections: Array<ChosenSection>, rejected_ids: Array<string>, attempts: number, };

/**
 * A stored extraction (one version for one clause).
 */
export type Extraction = { extraction_id: string, policy_id: string, clause_id: string, version: number, 
/**
 * `official` or `summary`: which text the sections came from.
 */
edition: string, source_hash: string, 
/**
 * The current selection (the model's, or the approver's final list).
 */
sections: Array<ChosenSection>, 
/**
 * The model's selection as it came out of the extraction.
 */
proposed: Array<ChosenSection>, rejected_ids: Array<string>, problems: Array<string>, self_check: SelfCheck, document: string, attempts: number, model: string, prompt_versions: { [key in string]?: string }, 
/**
 * `proposed` or `approved`.
 */
status: string, approved_by: string | null, approved_at: string | null, notes: string | null, created_at: string, calls: Array<AuthoringCall>, };

/**
 * A clause's latest extraction that failed: nothing was proposed for approval, and this says why.
 * It is kept until the clause is extracted again (a new failure replaces it, a success clears it).
 */
export type ExtractionFailure = { policy_id: string, clause_id: string, 
/**
 * Always "failed".
 */
status: string, model: string, attempts: number, 
/**
 * Why the model's replies could not be used, in plain words.
 */
reason: string, 
/**
 * The whole failure as shown: what failed, why, and what to do.
 */
message: string, failed_at: string, };

/**
 * Which extractions to list.
 */
export type ExtractionFilter = { policy: string | null, clause: string | null, };

/**
 * An extraction as listed.
 */
export type ExtractionSummary = { extraction_id: string, policy_id: string, clause_id: string, version: number, status: string, sections: Array<string>, model: string, approved_by: string | null, created_at: string, };

export type FileParams = { file: Upload, };

/**
 * The parsed ANSWER. Fields are kept as the model wrote them; metrics decide what counts.
 */
export type FinalAnswer = { final_verdict: string | null, targeted_clause: string | null, clause_and_guidance_evidence: Array<string> | null, rationale: string | null, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type Flag = { value: boolean, };

/**
 * "x/n": how many of n agreed.
 */
export type Fraction = { agreed: number, n: number, text: string, };

export type GenerationCandidateFilter = { 
/**
 * pending | accepted | dropped | skipped
 */
status: string | null, case_type: string | null, clause_id: string | null, clause_card_id: string | null, };

export type GenerationCandidateView = { candidate_id: string, run_id: string, case_type: string, clause_card_id: string, clause_id: string, event_type: string, anchor_id: string, missing_variant_id: string | null, parent_candidate_id: string | null, status: string, 
/**
 * instantiation | narration | clause_screen | missing_narration | parent | case
 */
drop_stage: string | null, drop_reason: string | null, case_id: string | null, narrative_words: number | null, };

export type GenerationCandidatesParams = { run_id: string, filter?: GenerationCandidateFilter, };

/**
 * A rough pre-run estimate (real usage is recorded per call).
 */
export type GenerationCostEstimate = { calls: number, input_tokens: number, output_tokens: number, 
/**
 * Null when a remote model has no price registered.
 */
usd: number | null, 
/**
 * The same in batch mode (batch prices where the provider has a batch API).
 */
usd_batch: number | null, per_stage: Array<GenerationStageEstimate>, assumptions: string, };

/**
 * Counts of a run's candidates, attempts and calls.
 */
export type GenerationCounts = { total: number, done: number, pending: number, accepted: number, dropped: number, 
/**
 * Missing variants never started because their complete case was dropped.
 */
skipped: number, 
/**
 * Dropped candidates with a model reply that could not be read among their calls.
 */
unreadable: number, units_total: number, units_done: number, attempts: number, 
/**
 * Attempts after the first of a stage.
 */
retries: number, calls: number, cache_hits: number, 
/**
 * Tokens of calls actually sent (cache hits excluded).
 */
input_tokens: number, output_tokens: number, cost_usd: number, by_type: Array<GenerationTypeCounts>, };

/**
 * Where data goes during a run.
 */
export type GenerationDestination = { role: string, model: string, destination: string, remote: boolean, };

/**
 * What a run would do, before anything is sent anywhere.
 */
export type GenerationPlan = { 
/**
 * The method the run would follow (`paper`: no clause screen).
 */
protocol: Protocol, policy: string, cards: number, 
/**
 * Cards by event type (`Reportable`, `Non_Reportable`, `Uncertain`).
 */
cards_by_type: { [key in string]?: number }, 
/**
 * (card, anchor) pairs.
 */
units: number, candidates: number, candidates_by_type: { [key in string]?: number }, anchors_per_card: number, 
/**
 * Listed cards that are not approved.
 */
unapproved_cards: Array<string>, 
/**
 * Cards left out because their clause bucket has no anchors.
 */
cards_without_anchors: Array<string>, warnings: Array<string>, destinations: Array<GenerationDestination>, sends_data_off_machine: boolean, estimate: GenerationCostEstimate, 
/**
 * Per clause, the context its roles are given: an approved extraction (with its version) or
 * the built-in context when no extraction is approved.
 */
clause_contexts: Array<ClauseContextNote>, 
/**
 * Batch mode: which models it would batch, their providers' window, online vs batch cost.
 */
batch: BatchNote, 
/**
 * When the estimate passes the spending cap: how many card-and-anchor pairs the cap is
 * expected to allow.
 */
cap: CapForecast | null, 
/**
 * Per endpoint the run calls: requests in flight asked for, allowed, and what bounds them.
 */
concurrency: Array<EndpointConcurrency>, };

/**
 * What `psebench generate` asks for.
 */
export type GenerationRequest = { 
/**
 * Policy pack id (default: the default policy pack).
 */
policy: string, 
/**
 * `all` (every approved card), a clause id (its approved cards), or card ids separated by
 * commas (listed cards are used even when not approved, with a warning).
 */
cards: string, 
/**
 * Anchors sampled from each card's clause bucket (default 25).
 */
anchors_per_card: number, 
/**
 * Registered model for the Instantiator and the narrators.
 */
model: string, 
/**
 * Registered model for the Extractor and the verifiers (default: `model`).
 */
verifier_model: string | null, 
/**
 * Registered model for the policy-wide clause screen (default: the verifier model). Best a
 * model of another family than `model`, so it does not share the writer's blind spots.
 */
screen_model?: string, 
/**
 * Seed of the anchor sampling.
 */
seed: number, 
/**
 * (card, anchor) units worked on at once.
 */
concurrency: number, 
/**
 * Generate the cards' missing-information variants too (default true).
 */
include_missing: boolean, 
/**
 * Sample only `builtin` or only `imported` anchors (default: all).
 */
anchor_origin: string | null, label: string | null, 
/**
 * Send the calls of models whose provider has a batch API as provider batches (about half
 * the price; answers within the provider's completion window). Left out of stored requests
 * when off, so runs stored before batch mode read and write back unchanged.
 */
batch?: boolean, 
/**
 * Stop starting new card-and-anchor pairs before the spending would pass this many US$
 * (none: no cap). A resume may raise or drop it.
 */
max_cost_usd?: number, 
/**
 * `studio` (default: the paper's method with the clause screen and this application's other
 * checks) or `paper` (the paper's method only). Left out of stored requests when `studio`, so
 * runs stored before protocols read and write back unchanged.
 */
protocol?: Protocol, };

export type GenerationRunConfig = { 
/**
 * The request the run was created from.
 */
request: GenerationRequest, 
/**
 * Policy pack id.
 */
policy: string, 
/**
 * Registered name of the model that writes the cases.
 */
model: string, 
/**
 * Registered name of the model that checks them.
 */
verifier_model: string, 
/**
 * Registered name of the model that screens each record against the whole policy (absent in
 * runs made before the screen existed; they screen with `verifier_model`).
 */
screen_model?: string, models?: GenerationRunModels, 
/**
 * (card, anchor) units worked on at once.
 */
concurrency?: number, 
/**
 * Calls go through the providers' batch APIs where they have one.
 */
batch?: boolean, 
/**
 * What the planner noted (unapproved cards used, cards without anchors, …).
 */
warnings: Array<string>, 
/**
 * Prompt name → version, as the run was created.
 */
prompt_versions: { [key in string]?: string }, 
/**
 * The plan's estimated cost of one card-and-anchor pair in US$ (what a spending cap counts
 * with until pairs finish; absent in older runs and when a price is unknown).
 */
unit_estimate_usd?: number, 
/**
 * What made the run: protocol, prompts, policy edition, library and card-set fingerprints
 * (absent in runs made before runs recorded it).
 */
provenance?: RunProvenance, };

/**
 * The models a generation run calls, by role.
 */
export type GenerationRunModels = { 
/**
 * Instantiator and narrators.
 */
producer: RunModel, 
/**
 * Extractor and verifiers.
 */
verifier: RunModel, 
/**
 * The policy-wide clause screen (absent in runs made before it existed).
 */
screen?: RunModel, };

/**
 * A generation run as listed and shown.
 */
export type GenerationRunView = { run_id: string, status: RunStatus, label: string | null, 
/**
 * The request and the prompt versions it was created with.
 */
config: GenerationRunConfig, created_at: string, started_at: string | null, finished_at: string | null, error: string | null, counts: GenerationCounts, 
/**
 * Set when the run finished but most of its candidates were dropped on unreadable replies:
 * the app shows "finished with problems" with this message instead of a plain "finished".
 */
problems: RunProblems | null, };

export type GenerationStageEstimate = { stage: string, calls: number, input_tokens: number, output_tokens: number, };

export type GenerationStats = { run_id: string, policy: string, success: Array<GenerationSuccessRow>, winning_attempts: Array<WinningAttemptsRow>, 
/**
 * Words per accepted narrative.
 */
narrative_length: Array<LengthRow>, by_category: Array<CaseCountRow>, by_clause: Array<CaseCountRow>, 
/**
 * Candidates that did not become cases, by the stage where they stopped.
 */
drops_by_stage: Array<DropRow>, counts: GenerationCounts, };

export type GenerationSuccessRow = { case_type: string, 
/**
 * Candidates started (accepted + dropped; variants never started are not counted).
 */
initiated: number, accepted: number, dropped: number, 
/**
 * accepted / initiated × 100; null when nothing was started.
 */
success_pct: number | null, };

export type GenerationTypeCounts = { case_type: string, total: number, accepted: number, dropped: number, skipped: number, pending: number, };

export type GuidanceSection = { id: string, kind: string, applies_to: AppliesTo, topic: string, summary: string, 
/**
 * `confirmed`, `partially confirmed` or `provisional`.
 */
status: string, status_note: string, version_map: { [key in string]?: string }, notes: string, };

export type GuidelinesParams = { session: string, markdown: string, };

export type IdParams = { id: string, };

export type ImportedDocument = { source: string, file: string, sections: number, matched: Array<string>, new_evidence_ids: Array<string>, };

export type InfoRole = "info";

export type InfoStatus = "answered" | "refused_too_vague" | "unknown";

/**
 * A reply of the information provider.
 */
export type InfoTurn = { role: InfoRole, status: InfoStatus, answer: string, fields_used: Array<string>, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type InterRater = { realism: ScaleAgreement, plausibility: ScaleAgreement, verdict: VerdictAgreement, };

/**
 * A 95 % bootstrap interval (percent), with the settings that produced it.
 */
export type Interval = { lo: number, hi: number, };

/**
 * Counts of a run's items, for summaries and progress.
 */
export type ItemCounts = { total: number, done: number, correct: number, asks: number, parse_failures: number, with_errors: number, prompt_tokens: number, completion_tokens: number, cost_usd: number, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

/**
 * Agreement between the M4 judge and reviewers (one reviewer, or all of them pooled) over
 * (item, condition) decisions: established or not.
 */
export type JudgeAgreement = { 
/**
 * The reviewer, or null for all reviewers pooled.
 */
reviewer: string | null, 
/**
 * Rationale tasks answered.
 */
items: number, 
/**
 * Cohen's kappa; `n` is the number of (item, condition) decisions.
 */
kappa: StatValue, 
/**
 * p_o: the share of decisions where reviewer and judge agree.
 */
observed_agreement: number | null, 
/**
 * p_e: the share expected by chance from how often each of them says "established".
 */
expected_agreement: number | null, 
/**
 * The 2×2 table: both say established, only the judge, only the reviewer, neither.
 */
both: number, judge_only: number, reviewer_only: number, neither: number, 
/**
 * A plain warning when there are too few decisions to read much into the kappa.
 */
caution: string | null, };

export type JudgeResult = { hits: Array<string>, } & ({ [key in string]?: number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null });

export type LabelAuditDestination = { model: string, destination: string, remote: boolean, };

/**
 * What an audit would do and cost, before anything is sent.
 */
export type LabelAuditPlan = { cases: number, models: Array<string>, 
/**
 * One call per case and model (more when a reply cannot be read).
 */
calls: number, input_tokens: number, output_tokens: number, tokens: number, 
/**
 * Null when a remote model has no price registered.
 */
usd: number | null, destinations: Array<LabelAuditDestination>, sends_data_off_machine: boolean, notes: Array<string>, };

/**
 * What to audit and with which models.
 */
export type LabelAuditRequest = { 
/**
 * `all`, a clause id, case ids separated by commas, or `type:Reportable|Non-reportable|Uncertain`
 * (tokens may be combined with commas).
 */
cases: string, 
/**
 * Registered model names (one to five).
 */
models: Array<string>, label?: string, };

/**
 * An audit's results, filtered.
 */
export type LabelAuditResults = { run_id: string, status: RunStatus, models: Array<string>, screened: number, agree: number, disputed: Array<DisputedCase>, rows: Array<LabelAuditRow>, 
/**
 * How ties count.
 */
tie_rule: string, 
/**
 * Set when the audit finished but most of the models' screens ended on an unreadable reply.
 */
problems: RunProblems | null, };

export type LabelAuditResultsRequest = { 
/**
 * The audit (default: the latest).
 */
run_id?: string, disputed_only?: boolean, clause?: string, };

/**
 * One screened case in the audit view.
 */
export type LabelAuditRow = { case_id: string, label: string, clause_id: string, verdicts: { [key in string]?: ModelVerdict }, disputed: boolean, };

/**
 * An audit as listed.
 */
export type LabelAuditRunView = { run_id: string, status: RunStatus, label: string | null, cases_filter: string, models: Array<string>, cases: number, screened: number, disputed: number, cost_usd: number, created_at: string, finished_at: string | null, error: string | null, 
/**
 * Set when the audit finished but most of the models' screens ended on an unreadable reply:
 * the app shows "finished with problems" with this message instead of a plain "finished".
 */
problems: RunProblems | null, };

/**
 * One row of the ledger.
 */
export type LedgerCall = { id: number, run_id: string | null, 
/**
 * The accounting stage (eval, judge, instantiator, author_extract, clause_screen, …).
 */
stage: string, item: string | null, step: string | null, attempt: number | null, role: string | null, prompt_name: string | null, prompt_versions: { [key in string]?: string }, 
/**
 * The registered model name.
 */
model: string, 
/**
 * The model id the provider says answered.
 */
provider_model: string | null, remote: boolean, request: unknown, response_text: string | null, parsed: unknown, parse_notes: Array<string>, 
/**
 * What went wrong with the tries before the one that answered, oldest first.
 */
failed_attempts: Array<string>, 
/**
 * HTTP tries made (0 for a cache hit).
 */
tries: number, input_tokens: number, output_tokens: number, cached_input_tokens: number, reasoning_tokens: number, cost_usd: number, latency_ms: number, cache_hit: boolean, batch_id: string | null, ok: boolean, error: string | null, at: string, 
/**
 * Counted in the usage totals (false: a row folded in from an older store whose usage is
 * already counted by another row).
 */
counted: boolean, };

export type LengthRow = { case_type: string, n: number, mean: number | null, median: number | null, min: number | null, p25: number | null, p75: number | null, p95: number | null, max: number | null, };

export type LibraryCategoryRow = { category: string, reportable: number, non_reportable: number, uncertain: number, total: number, };

export type LibraryClauseRow = { global_no: number, clause_id: string, label: string, 
/**
 * Reportable and Non_Reportable cards.
 */
complete_cards: number, missing_variants: number, uncertain_cards: number, };

export type LibraryStats = { policy: string, 
/**
 * Whether only approved cards were counted.
 */
approved_only: boolean, cards: number, by_category: Array<LibraryCategoryRow>, by_clause: Array<LibraryClauseRow>, shape: Array<CardShapeRow>, missing: MissingShape, };

export type LibraryStatsParams = { policy?: string, 
/**
 * Count only approved cards (what generation uses).
 */
approved_only: boolean, };

export type LinkStatus = "created" | "rotated" | "unchanged";

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

/**
 * Mean and sample standard deviation (n − 1) of ratings.
 */
export type MeanSd = { n: number, mean: number | null, sd: number | null, };

export type MetricsReport = { models: Array<ModelMetrics>, paired_tests: Array<McNemar>, 
/**
 * Pairs of models left out of `paired_tests` because their runs were made on different
 * case sets.
 */
refused_pairs?: Array<RefusedPair>, 
/**
 * Whether the runs scored can be compared (what differs in how they were made), for stored
 * runs.
 */
comparability?: Comparability, 
/**
 * The models (as named above) whose runs were made with a simulation in some role, the
 * built-in demo model, for stored runs: marked "(simulation)" in tables and charts, with a
 * note.
 */
simulations?: Array<string>, };

export type MissingShape = { variants: number, 
/**
 * Variants withholding 1, 2, 3, 4, and 5 or more slots.
 */
withheld: Array<number>, mean: number | null, median: number | null, parents_with_variants: number, parents_with_one: number, parents_with_more: number, };

/**
 * What `models add` takes. Omitted fields keep provider defaults.
 */
export type ModelAddRequest = { name: string, kind: string, model: string, base_url?: string, api_key_env?: string, 
/**
 * A key to store in the OS keyring now (never written anywhere else).
 */
api_key?: string, 
/**
 * Keep `api_key` in memory for this session only instead of the OS keyring (for a computer
 * without one): it is never written anywhere and is forgotten when the app closes.
 */
key_for_session?: boolean, temperature?: number, top_p?: number, max_tokens?: number, seed?: number, price_in?: number, price_out?: number, price_cached_in?: number, local: boolean, concurrency?: number, timeout_secs?: number, api_version?: string, 
/**
 * When the base URL moves to another scheme, host or port, keep the environment variable
 * (or keyring key) for the new address. Without it the key link is dropped (a key typed in
 * this request always counts as confirmed).
 */
confirm_key_for_new_host?: boolean, };

export type ModelKeyParams = { name: string, key: string, };

/**
 * One model's report. The FORMATS fields come first.
 */
export type ModelMetrics = { model: string, cases: number, M1: number | null, M2: number | null, M3: Prf | null, M4: number | null, M5: Prf | null, M6: Prf | null, M7: Prf | null, M8: Prf | null, by_case_type: ByCaseType, behavior: Behavior, tokens: Tokens, 
/**
 * Cases that have a trajectory for this model: shown as "Transcripts" (never "Answered").
 */
trajectories: number, 
/**
 * Cases counted in M4 (correct answer, a rationale, conditions to hit) that have no usable
 * judge result: each counts as 0 hits. Non-zero means M4 understates the model until the
 * run is re-judged (`psebench eval rejudge`).
 */
m4_unjudged: number, 
/**
 * Cases whose predicted verdict is null (unusable answer or no trajectory at all). The rest
 * are the "Answered" cases ([`ModelMetrics::answered`]).
 */
no_verdict: number, confidence_intervals: ConfidenceIntervals | null, consistency: Consistency | null, by_clause: Array<ClauseAccuracy>, 
/**
 * Uncertain routing as counts (the paper's routing table shows counts and percentages).
 */
uncertain_routing_counts: { [key in string]?: number } | null, };

export type ModelNameParams = { name: string, };

export type ModelTestResult = { name: string, ok: boolean, latency_ms: number, input_tokens: number, output_tokens: number, reply: string, destination: string, };

/**
 * One model's reading of one case.
 */
export type ModelVerdict = { 
/**
 * Null when no reply could be read.
 */
verdict: string | null, clauses_met: Array<string>, open_question: boolean, agrees: boolean, };

/**
 * A registered model as shown to people and scripts (no key material, ever).
 */
export type ModelView = { local: boolean, destination: string, 
/**
 * `session` (a key held in memory for this session), `env:VAR`, `keyring`, or `none`.
 */
key_source: string, 
/**
 * The key is held in memory only and lasts until the app closes.
 */
key_for_session_only: boolean, name: string, kind: ProviderKind, 
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
api_version: string | null, 
/**
 * Set when the base URL moved to another scheme, host or port and the key link was dropped:
 * says which, and how to confirm the key for the new address. No key is sent meanwhile.
 */
key_link_dropped: string | null, 
/**
 * Its endpoint said, when the model was registered, that it is a simulation (the built-in
 * demo model): its results are labelled a simulation wherever they appear.
 */
simulation: boolean, };

/**
 * The existing card of the clause closest to a drafted card (most condition names in common).
 */
export type NearestCard = { item_id: string, card_id: string | null, };

/**
 * One clause of a new policy.
 */
export type NewClause = { 
/**
 * Machine id used by cards and cases (`A-Z a-z 0-9 . _ -`).
 */
clause_id: string, 
/**
 * The name people and models cite, e.g. "Falls clause 1".
 */
label: string, 
/**
 * The group the clause belongs to (e.g. "Falls").
 */
category: string, 
/**
 * The clause wording or a faithful summary of it.
 */
text: string, 
/**
 * A few words shown in lists; the label when left out.
 */
short_title: string, };

/**
 * What `psebench policy create FILE` reads and `policy.create` takes.
 */
export type NewPolicy = { id: string, name: string, jurisdiction: string, 
/**
 * When a report is due, in the policy's own terms (e.g. "within 10 working days").
 */
reporting_deadline: string, 
/**
 * The law or rule the policy comes from (optional).
 */
statute: string, clauses: Array<NewClause>, 
/**
 * Guidance as Markdown; every heading starts a section whose id is the heading text.
 */
guidance_markdown: string, };

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

export type PackAnswersParams = { session: string, reviewer?: string, };

/**
 * A statistic for one pair of reviewers over the items both answered.
 */
export type PairStat = { a: string, b: string, stat: StatValue, };

/**
 * What creating a pack did.
 */
export type PolicyCreateResult = { id: string, clauses: Array<string>, guidance_sections: Array<string>, };

export type PolicyDeleteResult = { id: string, deleted: boolean, };

/**
 * The policy text a run read.
 */
export type PolicyEdition = { policy: string, 
/**
 * `summary` (the pack's own summaries) or `official` (text the user imported).
 */
edition: string, 
/**
 * SHA-256 (hex) of the policy's sections as the run read them.
 */
source_hash: string, };

export type PolicyImportParams = { policy: string, clauses?: Upload, guidance?: Upload, };

export type PolicyImportResult = { policy: string, documents: Array<ImportedDocument>, };

export type PolicyParams = { policy?: string, };

/**
 * One section of the policy text, copied as stored.
 */
export type PolicySection = { 
/**
 * Unique within the policy's sections.
 */
section_id: string, heading: string, body: string, 
/**
 * `official clauses`, `official guidance` or `summary guidance`.
 */
origin: string, };

/**
 * The sections of one policy in source order.
 */
export type PolicySections = { policy_id: string, 
/**
 * `official` (imported text) or `summary` (the pack's own summaries).
 */
edition: string, sections: Array<PolicySection>, 
/**
 * SHA-256 (hex) of the sections' ids, headings and bodies.
 */
source_hash: string, };

export type PolicySummary = { id: string, name: string, edition: string, clauses: number, guidance_sections: number, evidence_ids: number, official_text_imported: boolean, 
/**
 * True for a pack that comes with the app; false for one a user created.
 */
builtin: boolean, };

/**
 * Everything about a pack, as `psebench policy show --json` prints it.
 */
export type PolicyView = { id: string, name: string, jurisdiction: string, statute: string, edition: string, edition_notice: string, reporting_deadline: string, 
/**
 * True for a pack that comes with the app; false for one a user created.
 */
builtin: boolean, official_text: OfficialTextStatus, clauses: Array<Clause>, guidance: Array<GuidanceSection>, evidence: Array<EvidenceItem>, official_sections: Array<OfficialSection>, };

/**
 * Precision / recall / F1 (percent) with the pooled counts.
 */
export type Prf = { precision: number, recall: number, f1: number, tp: number, fp: number, fn: number, };

/**
 * Progress of a run, as pushed to listeners and shown in progress bars.
 */
export type Progress = { run_id: string, kind: RunKind, status: RunStatus, total: number, done: number, 
/**
 * Named counters (asks, parse failures, tokens, cost, accepted, dropped, …).
 */
counters: { [key in string]?: number }, elapsed_secs: number, eta_secs: number | null, message: string | null, };

/**
 * The method a run follows.
 */
export type Protocol = "paper" | "studio";

/**
 * The whole story of a case or a dropped candidate.
 */
export type Provenance = { candidate: GenerationCandidateView, card_version: number | null, anchor_text: string | null, 
/**
 * The accepted case (FORMATS.md fields), when there is one.
 */
case: JsonValue | null, 
/**
 * Every attempt in order; for a missing case its parent's instantiation and narration come first.
 */
attempts: Array<ProvenanceAttempt>, 
/**
 * Prompt name → version, as the run was created.
 */
prompt_versions: { [key in string]?: string }, };

/**
 * One attempt of one stage.
 */
export type ProvenanceAttempt = { 
/**
 * The candidate the attempt belongs to (a missing case also shows its parent's attempts).
 */
candidate_id: string, 
/**
 * instantiation | narration | clause_screen | missing_narration
 */
stage: string, attempt: number, passed: boolean, 
/**
 * What was fed back to the producer (guard findings and verifier issues).
 */
issues: Array<string>, 
/**
 * The deterministic checks' findings.
 */
guard_findings: Array<string>, 
/**
 * The producer's candidate: slot values, or the narrative text.
 */
output: JsonValue, 
/**
 * The Extractor's reading of the narrative.
 */
extracted: JsonValue | null, 
/**
 * The verifier's parsed verdict (for `clause_screen`: the screen's reply and its agreement with the card).
 */
verifier: JsonValue | null, created_at: string, calls: Array<ProvenanceCall>, };

/**
 * One model call of an attempt, exactly as sent and received.
 */
export type ProvenanceCall = { 
/**
 * instantiator | instantiation_verifier | narrator | extractor | narrative_verifier | clause_screen | missing_narrator | missing_verifier
 */
role: string, prompt_name: string, 
/**
 * template name → version of every template that shaped the request
 */
prompt_versions: { [key in string]?: string }, model: string, 
/**
 * `{messages, response_format, repeat}`
 */
request: JsonValue, response_text: string | null, parsed: JsonValue | null, parse_notes: Array<string>, input_tokens: number, output_tokens: number, cached_input_tokens: number, cost_usd: number, latency_ms: number, cache_hit: boolean, 
/**
 * The call's row in the call ledger (`calls.list`).
 */
call_id: number | null, };

export type ProviderKind = "openai-compatible" | "openai" | "azure" | "anthropic" | "gemini";

export type QueueItem = { case_id: string, case_type: string, clause_id: string, expected_verdict: ReviewVerdict, narrative: string, reasons: Array<QueueReason>, answers: Array<ReviewerAnswer>, 
/**
 * Assigned reviewers, and how many of them completed the case.
 */
raters: number, raters_done: number, 
/**
 * The decision in force, if any.
 */
decision: ReviewAdjudication | null, excluded_in_dataset: boolean, 
/**
 * The rationale task of the case, if any, and the M4 judge's hits on it (owner view), to
 * compare with each reviewer's `rationale_established`.
 */
rationale: RationaleTask | null, judge_established: Array<string> | null, };

/**
 * Why a case is in the queue. `code` is stable: verdicts_differ, blind_differs_from_construction,
 * disagree_mark, realism_spread, plausibility_spread, low_realism, low_plausibility.
 */
export type QueueReason = { code: string, text: string, };

/**
 * A boundary condition as the rationale task shows it.
 */
export type RationaleCondition = { name: string, meaning: string, 
/**
 * The value the case was built with (the judge is given it too).
 */
value: boolean, };

/**
 * The rationale task's part of a session's results.
 */
export type RationaleStats = { 
/**
 * Items with a rationale task, and the runs their rationales came from.
 */
items_with_task: number, runs: Array<string>, pooled: JudgeAgreement, per_reviewer: Array<JudgeAgreement>, 
/**
 * All reviewers pooled over the items of one case type: complete, missing, uncertain
 * (types without a task are left out).
 */
by_type: Array<TypeJudgeAgreement>, };

/**
 * What the reviewer sees of an item's rationale task (after the reveal).
 */
export type RationaleTask = { 
/**
 * The tested model's rationale, as it wrote it.
 */
rationale: string, 
/**
 * The conditions to tick, in the order of the case.
 */
conditions: Array<RationaleCondition>, };

/**
 * A pair of models whose paired test was refused, and why (in a sentence for the reader).
 */
export type RefusedPair = { model_a: string, model_b: string, reason: string, };

export type RejectRequest = { draft_id: string, by: string, reason: string, };

export type RejudgeRequest = { run_id: string, judge_model: string, 
/**
 * Judge only trajectories without a usable judgement (default: all that can count in M4).
 */
only_missing: boolean, concurrency: number | null, 
/**
 * `paper` (the judge reads the rationale and the boundary conditions) or `studio` (also the
 * clause's wording). Default: the protocol the run was made with.
 */
protocol?: Protocol, };

/**
 * One repeat of a case in a run, as listed next to its transcript.
 */
export type RepeatOutcome = { 
/**
 * 0-based repeat index (the `repeat` parameter of `results.trajectory`).
 */
repeat: number, 
/**
 * The readable verdict given, or null.
 */
verdict: Verdict | null, correct: boolean, };

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

export type ResultsOverview = { runs: Array<EvaluationRunView>, policy: string, report: MetricsReport, tables: Array<Table>, charts: Array<ChartView>, };

/**
 * Which runs to show.
 */
export type ResultsRequest = { run_ids: Array<string>, };

/**
 * Parameters of resuming a stopped run, optionally under a new spending cap.
 */
export type ResumeParams = { run_id: string, 
/**
 * A new spending cap in US$ (a run stopped at its cap needs a higher one).
 */
max_cost_usd?: number, 
/**
 * Resume without any spending cap.
 */
clear_max_cost?: boolean, };

/**
 * A condition that decides the case, with its value in this case.
 */
export type RevealCondition = { name: string, meaning: string, value: boolean, };

/**
 * A fact left out of a missing-information case.
 */
export type RevealElement = { name: string, meaning: string, };

/**
 * What the reviewer may see once their blind verdict is saved: the verdict the case was built to
 * have and the reasons. Snapshotted when the session is created (or a pack is opened).
 */
export type RevealMaterial = { case_id: string, case_type: "complete" | "missing" | "uncertain", expected_verdict: ReviewVerdict, 
/**
 * One sentence saying what the case was built to be.
 */
explanation: string, 
/**
 * The targeted clause label when the case is Reportable.
 */
clause_label: string | null, clause_id: string, card_id: string, 
/**
 * The card's one-line definition (when the card is in the library).
 */
card_definition: string | null, legal_basis: Array<string>, legal_basis_meaning: string | null, 
/**
 * Complete and uncertain cases: the conditions that decide the case, with their values.
 */
boundary_conditions: Array<RevealCondition>, 
/**
 * Missing cases: the facts that were left out of the report.
 */
withheld_elements: Array<RevealElement>, 
/**
 * Missing cases: the card's summary of the missing-information variant, when known.
 */
missing_summary: string | null, 
/**
 * Missing cases: why the remaining report cannot be classified, when the card says so.
 */
why_not_classifiable: string | null, };

/**
 * Record the final call on a case of a session.
 */
export type ReviewAdjudicateRequest = { session_id: string, case_id: string, decision: AdjudicationDecision, adjudicator: string, note?: string | null, 
/**
 * With `reject`: flag the case as excluded in the dataset (runs leave it out). A later
 * accept or relabel of the same case brings it back.
 */
exclude: boolean, };

/**
 * A recorded decision. Later decisions supersede earlier ones; none is ever deleted.
 */
export type ReviewAdjudication = { id: number, session_id: string, case_id: string, decision: AdjudicationDecision, adjudicator: string, note: string | null, decided_at: string, 
/**
 * This decision flagged the case as excluded in the dataset.
 */
excluded_case: boolean, 
/**
 * This decision removed an exclusion made by an earlier rejection in this session.
 */
restored_case: boolean, 
/**
 * A later decision on the same case exists.
 */
superseded: boolean, };

export type ReviewAnswerParams = { token: string, item_no: number, patch: ReviewAnswerPatch, };

/**
 * Part of an answer, saved as it is given. Absent fields are left as they are. An empty comment
 * clears the comment. `add_time_secs` adds active time spent on the item since the client's last
 * report (reports above 15 minutes count as 15 minutes).
 */
export type ReviewAnswerPatch = { realism?: number | null, plausibility?: number | null, blind_verdict?: ReviewVerdict | null, agree?: boolean | null, comment?: string | null, add_time_secs?: number | null, 
/**
 * The rationale task: the conditions the rationale establishes (all of them, each time; an
 * empty list means none). Only after the reveal, and only on an item with a rationale task.
 */
rationale_established?: Array<string> | null, };

/**
 * Result of saving part of an answer.
 */
export type ReviewAnswerSaved = { answer: ReviewAnswerState, 
/**
 * Names of the parts whose value changed (re-sending the same value changes nothing).
 */
changed: Array<string>, 
/**
 * True when the reported time was more than the cap and was counted as the cap.
 */
time_capped: boolean, progress: ReviewProgress, resume_item_no: number | null, };

/**
 * A reviewer's own answer to one item, with when each part was last given. In JSON the
 * answer's parts sit beside `item_no` and `complete`.
 */
export type ReviewAnswerState = { item_no: number, 
/**
 * Realism, plausibility, blind verdict, reveal and the agree mark are all given.
 */
complete: boolean, time_spent_secs: number, time_spent_at: string | null, realism: number | null, realism_at: string | null, plausibility: number | null, plausibility_at: string | null, blind_verdict: ReviewVerdict | null, blind_verdict_at: string | null, revealed_at: string | null, agree: boolean | null, agree_at: string | null, comment: string | null, comment_at: string | null, 
/**
 * The rationale task (items that have one): the conditions ticked as established by the
 * rationale, an empty list when none. Left out of the JSON when not given, so answers
 * without it read and sign exactly as before.
 */
rationale_established?: Array<string>, rationale_at?: string, };

/**
 * How many cases the store offers for a sample (not excluded), per type and clause.
 */
export type ReviewAvailable = { complete: number, missing: number, uncertain: number, by_clause: Array<ClauseCount>, };

/**
 * Create a session. `overlap` defaults to 2 (or 1 with a single reviewer); `seed` defaults to a
 * random one, which is recorded so the sample and assignment can be reproduced.
 */
export type ReviewCreateRequest = { name: string, selection: ReviewSelection, reviewers: Array<string>, overlap?: number | null, 
/**
 * At most 2^53 − 1, so that it survives JavaScript numbers.
 */
seed?: number | null, 
/**
 * Markdown shown before the first case and on demand.
 */
guidelines?: string | null, 
/**
 * Add the rationale task: evaluation runs whose judged rationales reviewers check against the
 * case's boundary conditions (see `rationale`). Absent or empty: no rationale task.
 */
rationale_from?: Array<string> | null, };

/**
 * Long-format export: one row per reviewer × case × question answered.
 */
export type ReviewExportFormat = "csv" | "jsonl";

export type ReviewExportParams = { session: string, format: ReviewExportFormat, };

export type ReviewItemParams = { token: string, item_no: number, };

/**
 * One of the reviewer's own items in their list (no narrative, nothing about the case).
 */
export type ReviewItemStatus = { item_no: number, realism: number | null, plausibility: number | null, blind_verdict: ReviewVerdict | null, revealed: boolean, agree: boolean | null, has_comment: boolean, complete: boolean, 
/**
 * The item has a rationale task, and whether it is answered.
 */
has_rationale_task: boolean, rationale_done: boolean, };

/**
 * One item as its reviewer sees it: only an item number and the narrative until the reveal.
 */
export type ReviewItemView = { session_id: string, session_name: string, reviewer: string, item_no: number, total_items: number, prev_item_no: number | null, next_item_no: number | null, narrative: string, answer: ReviewAnswerState, 
/**
 * Present once the reviewer has opened the by-construction verdict for this item.
 */
reveal: ReviewReveal | null, progress: ReviewProgress, 
/**
 * The item has a rationale task; the task itself is present once the verdict is revealed.
 */
has_rationale_task: boolean, rationale_task: RationaleTask | null, };

export type ReviewLinks = { session_id: string, session_name: string, links: Array<ReviewerLink>, };

/**
 * Create personal links: a token for each named reviewer (all when `reviewers` is empty).
 * Without `rotate`, reviewers who already have an active token keep it (and it cannot be shown
 * again: tokens are stored hashed); with `rotate`, their old token stops working.
 */
export type ReviewLinksRequest = { session_id: string, reviewers: Array<string>, rotate: boolean, };

/**
 * What a reviewer's token opens: their session's guidelines and scales, and their own items.
 */
export type ReviewMe = { session_id: string, session_name: string, reviewer: string, 
/**
 * True in a store where the session was opened from a review pack.
 */
visiting: boolean, guidelines: string, realism_anchors: Array<ScaleAnchor>, plausibility_anchors: Array<ScaleAnchor>, verdict_options: Array<VerdictOption>, items: Array<ReviewItemStatus>, progress: ReviewProgress, 
/**
 * The first item that is not complete (where to resume); null when all are done.
 */
resume_item_no: number | null, time_spent_secs: number, };

/**
 * What merging a pack's answers changed.
 */
export type ReviewPackMergeReport = { session_id: string, session_name: string, reviewer: string, items_in_file: number, items_changed: number, fields_updated: number, 
/**
 * Parts kept as they were, with the reason (for example a blind verdict locked by a reveal).
 */
kept: Array<string>, };

/**
 * What opening a review pack did in this store.
 */
export type ReviewPackOpened = { session_id: string, session_name: string, reviewer: string, items: number, 
/**
 * Items that already had answers in the pack or in this store.
 */
answered: number, 
/**
 * The session was already open here (answers were merged, newer first).
 */
already_open: boolean, fields_updated: number, };

/**
 * Completed items out of all of a reviewer's items.
 */
export type ReviewProgress = { completed: number, total: number, };

export type ReviewQueue = { session_id: string, threshold: number, low_rating: number, items: Array<QueueItem>, 
/**
 * Flagged cases without a decision, and flagged cases with one.
 */
pending: number, decided: number, };

/**
 * Which cases go to the adjudication queue.
 */
export type ReviewQueueRequest = { session_id: string, 
/**
 * Ratings of the same case whose spread (highest − lowest) is greater than this are queued.
 * Default 2.
 */
threshold?: number | null, 
/**
 * A rating at or below this queues the case. Default 2; 0 turns it off.
 */
low_rating?: number | null, 
/**
 * Also list cases that already have a decision.
 */
include_decided: boolean, 
/**
 * List every case of the session, flagged or not (for browsing all answers).
 */
include_unflagged: boolean, };

/**
 * The by-construction answer to an item, next to the reviewer's own blind verdict.
 */
export type ReviewReveal = { item_no: number, your_blind_verdict: ReviewVerdict, matches_your_verdict: boolean, revealed_at: string, material: RevealMaterial, };

/**
 * How the cases of a session are chosen.
 */
export type ReviewSelection = { "kind": "stratified", complete: number, missing: number, uncertain: number, by_clause: boolean, } | { "kind": "cases", case_ids: Array<string>, };

/**
 * Everything about a session except the answers (owner view).
 */
export type ReviewSessionDetail = { summary: ReviewSessionSummary, guidelines: string, 
/**
 * Null for a session opened from a pack.
 */
selection: ReviewSelection | null, seed: number | null, fingerprint: string, cases_by_type: Array<TypeCount>, progress: Array<ReviewerProgress>, 
/**
 * Items with a rationale task, and the evaluation runs their rationales came from.
 */
rationale_items: number, rationale_runs: Array<string>, };

/**
 * A line in the list of sessions.
 */
export type ReviewSessionSummary = { session_id: string, name: string, role: SessionRole, created_at: string, cases: number, reviewers: Array<string>, overlap: number, 
/**
 * Reviewer × case assignments, and how many of them are fully answered.
 */
assignments: number, completed: number, 
/**
 * When the owner closed the session (its links are refused since); null while it is open.
 */
closed_at: string | null, };

/**
 * Start serving a session's reviewer links.
 */
export type ReviewShareRequest = { 
/**
 * Session id or name.
 */
session: string, 
/**
 * Listen on every network interface (reviewers on the local network) instead of this
 * computer only.
 */
lan: boolean, 
/**
 * The port (default 8766; 0 picks a free one).
 */
port?: number, 
/**
 * HTTPS certificate (PEM) and its private key; both or neither.
 */
tls_cert?: string, tls_key?: string, };

/**
 * Whether a session's reviewer links are being served by this app, and where.
 */
export type ReviewShareStatus = { session_id: string, 
/**
 * True while the links are being served.
 */
serving: boolean, 
/**
 * Whether this program can serve links itself (the app and `psebench serve` can; the command
 * line alone cannot).
 */
available: boolean, 
/**
 * The address reviewer links start with while served (`http://127.0.0.1:8766`), else null.
 */
base_url: string | null, port: number | null, 
/**
 * Served on the local network (every interface), not only this computer.
 */
lan: boolean, https: boolean, 
/**
 * Served on the local network over plain HTTP: links and answers travel unencrypted.
 */
plain_http_on_lan: boolean, started_at: string | null, 
/**
 * Why serving ended without being stopped, if it did.
 */
note: string | null, 
/**
 * The command that serves the same links from a terminal instead (carries the store path).
 */
headless_command: string, };

/**
 * A session's results (owner only).
 */
export type ReviewStats = { session_id: string, session_name: string, reviewers: Array<string>, overlap: number, cases: number, assignments: number, completed: number, 
/**
 * complete, missing, uncertain, then "all".
 */
by_type: Array<TypeStats>, per_reviewer: Array<ReviewerAgreement>, 
/**
 * Over all cases of the session.
 */
inter_rater: InterRater, 
/**
 * The same per case type: complete, missing, uncertain (empty in results stored before it).
 */
inter_rater_by_type: Array<TypeInterRater>, 
/**
 * Agreement between the M4 judge and reviewers on the rationale task; null when the session
 * has none.
 */
rationale: RationaleStats | null, computed_at: string, };

/**
 * The paper-style summary table in Markdown and LaTeX (booktabs), with the statistics.
 */
export type ReviewSummary = { markdown: string, latex: string, stats: ReviewStats, };

/**
 * The calls of a reviewer: `token` is their personal token (a link's, or one made for a reviewer
 * working in this app). Over a review link the server puts the link's token here.
 */
export type ReviewTokenParams = { token: string, };

/**
 * The verdict vocabulary of the questionnaire: the three benchmark verdicts plus "Missing
 * information" (the answer a missing-information case is built to have).
 */
export type ReviewVerdict = "Reportable" | "Non-reportable" | "Missing information" | "Uncertain";

export type ReviewerAgreement = { reviewer: string, 
/**
 * complete, missing, uncertain, all.
 */
by_type: Array<ReviewerTypeAgreement>, };

/**
 * One reviewer's answer to a case (owner view).
 */
export type ReviewerAnswer = { reviewer: string, item_no: number, realism: number | null, plausibility: number | null, blind_verdict: ReviewVerdict | null, agree: boolean | null, comment: string | null, time_spent_secs: number, complete: boolean, 
/**
 * The conditions ticked in the rationale task (null when not answered or no task).
 */
rationale_established: Array<string> | null, };

export type ReviewerLink = { reviewer: string, 
/**
 * The plain token, present only when it was created or rotated now. Shown once.
 */
token: string | null, 
/**
 * `/review/TOKEN`, to append to the server's address.
 */
path: string | null, status: LinkStatus, };

export type ReviewerParams = { session: string, reviewer: string, };

/**
 * One reviewer's progress (owner view).
 */
export type ReviewerProgress = { reviewer: string, items: number, completed: number, blind_saved: number, revealed: number, time_spent_secs: number, last_answer_at: string | null, 
/**
 * A personal link (token) is active for this reviewer.
 */
link_active: boolean, 
/**
 * Review packs exported for this reviewer.
 */
packs_issued: number, };

export type ReviewerTypeAgreement = { case_type: string, blind_agreement: Fraction, agree_mark: Fraction, };

export type RunIds = { run_ids: Array<string>, };

/**
 * The kind of work a run does.
 */
export type RunKind = "eval" | "generation" | "authoring" | "label_audit" | "anchors";

/**
 * What is known of one run's difference from the others shown with it.
 */
export type RunMark = { run_id: string, 
/**
 * The run's model as the metrics report names it (the model, with the run id in brackets
 * when several runs of one model are shown); empty when not known.
 */
model: string, 
/**
 * `paper` or `studio`; none when the run does not record it.
 */
protocol: string | null, 
/**
 * The aspects in which this run departs from the most common value among the runs shown
 * (`protocol`, `prompts`, `policy edition`, `case set`, `judge`), each with its value.
 */
differs: Array<string>, 
/**
 * The run records no provenance (imported from a file, or made before runs recorded it).
 */
unrecorded: boolean, };

/**
 * A model as recorded when a run was created: what was called, without secrets.
 */
export type RunModel = { 
/**
 * The registered name.
 */
name: string, 
/**
 * The provider kind (`openai-compatible`, `openai`, `azure`, `anthropic`, `gemini`).
 */
kind: string, 
/**
 * The provider's model id.
 */
model: string, base_url: string, temperature: number | null, max_tokens: number | null, 
/**
 * Runs on this computer (no data leaves it).
 */
local: boolean, 
/**
 * The model was a simulation (the built-in demo model), not a real language model. Left out
 * when false, so runs of real models are stored as before.
 */
simulation?: boolean, };

export type RunParams = { run_id: string, };

/**
 * A finished run whose results are mostly unusable.
 */
export type RunProblems = { 
/**
 * Finished items that came back unusable.
 */
unusable: number, 
/**
 * Finished items in all.
 */
finished: number, 
/**
 * Why they were unusable, in plain words.
 */
reason: string, 
/**
 * The whole warning as one sentence ("Finished with problems: 3 of 3 …").
 */
message: string, };

/**
 * What made a run: enough to tell whether two runs' numbers can be compared.
 */
export type RunProvenance = { protocol: Protocol, 
/**
 * Every prompt the run uses, name → version.
 */
prompt_versions: { [key in string]?: string }, 
/**
 * The policy editions the run read (one per policy of its cases).
 */
policy_editions: Array<PolicyEdition>, 
/**
 * SHA-256 over the policy's cards (id, version, status) when the run was created.
 */
library_fingerprint: string, 
/**
 * SHA-256 over the run's cases (evaluation) or the cards it generates from (generation).
 */
case_set_fingerprint: string, 
/**
 * Number of cases the case-set fingerprint covers.
 */
case_count: number, 
/**
 * The M4 judge's registered name and model id (evaluation runs).
 */
judge_model?: string, };

/**
 * What deleting an evaluation run removes, read from the store before it goes (a preview), or
 * what it removed. The sentences say it in plain words for a confirmation.
 */
export type RunRemoval = { run_id: string, 
/**
 * The model under test ("" for a run imported without one).
 */
model: string, label: string | null, 
/**
 * One of the example runs of fictional models.
 */
example: boolean, status: RunStatus, 
/**
 * Items of the run (case and repeat), finished or not.
 */
items: number, 
/**
 * Finished transcripts among them.
 */
trajectories: number, 
/**
 * Finished answers with a result of the M4 judge.
 */
judged: number, 
/**
 * Model calls the call ledger holds for the run: their text goes, their tokens and cost
 * stay in the store's spending totals.
 */
ledger_calls: number, 
/**
 * Provider batches the run sent (batch mode).
 */
batches: number, 
/**
 * Expert-review sessions that took rationales from the run; they keep their own copies and
 * are not changed.
 */
review_sessions: Array<string>, 
/**
 * What goes, one sentence each.
 */
removes: Array<string>, 
/**
 * What stays, one sentence each.
 */
keeps: Array<string>, };

export type RunStarted = { run_id: string, };

/**
 * Where a run stands.
 */
export type RunStatus = "pending" | "running" | "interrupted" | "cancelled" | "failed" | "completed" | "cost_capped";

/**
 * Agreement between reviewers on a 1–5 scale.
 */
export type ScaleAgreement = { 
/**
 * Cohen's kappa with quadratic weights over the fixed 1–5 scale, per pair of reviewers.
 */
weighted_kappa_pairs: Array<PairStat>, 
/**
 * The pair's value when exactly one pair of reviewers co-rated items; otherwise null.
 */
weighted_kappa: StatValue, 
/**
 * Krippendorff's alpha with the ordinal metric, all reviewers, missing ratings allowed.
 */
krippendorff_alpha_ordinal: StatValue, };

/**
 * One point of a 1–5 rating scale, with the words shown beside it.
 */
export type ScaleAnchor = { value: number, label: string, meaning: string, };

/**
 * What the independent self-check would change.
 */
export type SelfCheck = { add: Array<SelfCheckItem>, remove: Array<SelfCheckItem>, 
/**
 * Suggestions left out (unknown ids, no-ops) or why there is no self-check.
 */
notes: Array<string>, };

export type SelfCheckItem = { section_id: string, reason: string, };

/**
 * One of the model's own checks of its reply.
 */
export type SelfCheckNote = { check: string, passed: boolean, note: string, };

export type SessionParams = { 
/**
 * A session id (or a name only one session has).
 */
session: string, };

/**
 * Who created a session in this store: `owner` (made here) or `visiting` (opened from a pack).
 */
export type SessionRole = "owner" | "visiting";

export type Severity = "error" | "warning";

/**
 * A statistic with the number of items it rests on; `value` is null with a `note` saying why
 * when it is undefined.
 */
export type StatValue = { value: number | null, n: number, note: string | null, };

export type StoreInfo = { path: string, app_version: string, schema: Array<string>, created_now: boolean, backup_made: string | null, policies: Array<string>, cards_by_status: Array<CountByKey>, cards_by_type: Array<CountByKey>, cases_by_type: Array<CountByKey>, 
/**
 * The folder of the daily log files that the desktop app and `psebench serve` write (a week
 * of them is kept), next to the database file.
 */
log_folder: string, };

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

export type TokenResult = { token: string, };

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
models: { [key in string]?: string }, 
/**
 * Every finished repeat of this case in the run (one entry when the run has no repeats),
 * with its verdict, so that any of them can be opened.
 */
repeats: Array<RepeatOutcome>, };

export type Turn = EvalTurn | InfoTurn;

export type TypeCount = { case_type: string, count: number, };

/**
 * Agreement between reviewers over the cases of one type only.
 */
export type TypeInterRater = { 
/**
 * complete, missing or uncertain.
 */
case_type: string, 
/**
 * Cases of this type in the session.
 */
cases: number, inter_rater: InterRater, };

/**
 * The judge against all reviewers (pooled) on the items of one case type.
 */
export type TypeJudgeAgreement = { case_type: string, agreement: JudgeAgreement, };

/**
 * Ratings and agreement with the by-construction verdict for one case type (or "all").
 */
export type TypeStats = { case_type: string, cases: number, 
/**
 * Pooled over all ratings (reviewer × case).
 */
realism: MeanSd, plausibility: MeanSd, 
/**
 * Blind verdicts equal to the by-construction verdict, over all blind verdicts given.
 */
blind_agreement: Fraction, 
/**
 * Agree marks, over all agree/disagree marks given.
 */
agree_mark: Fraction, 
/**
 * Cases whose every assigned reviewer gave a blind verdict equal to the by-construction
 * verdict, over the cases where all assigned reviewers gave one (the paper-style "28/30").
 */
cases_blind_agreement: Fraction, 
/**
 * Cases that every assigned reviewer marked "agree", over cases fully marked.
 */
cases_agree_mark: Fraction, };

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
export type UsageTotals = { stage: string | null, model_name: string | null, calls: number, cache_hits: number, failures: number, remote_calls: number, 
/**
 * Calls answered through a provider batch (at batch prices).
 */
batch_calls: number, input_tokens: number, output_tokens: number, cached_input_tokens: number, reasoning_tokens: number, cost_usd: number, };

/**
 * Verdict vocabulary shared by gold labels and model answers.
 */
export type Verdict = "Reportable" | "Non-reportable" | "Uncertain";

/**
 * Agreement between reviewers on the blind verdict (four categories).
 */
export type VerdictAgreement = { cohen_kappa_pairs: Array<PairStat>, 
/**
 * The pair's value when exactly one pair of reviewers co-rated items; otherwise null.
 */
cohen_kappa: StatValue, 
/**
 * Fleiss' kappa over the cases with exactly `overlap` blind verdicts.
 */
fleiss_kappa: StatValue, 
/**
 * Krippendorff's alpha with the nominal metric (any number of reviewers, missing allowed).
 */
krippendorff_alpha_nominal: StatValue, };

/**
 * A verdict choice with the sentence that explains it.
 */
export type VerdictOption = { verdict: ReviewVerdict, key: string, meaning: string, };

export type WinningAttemptsRow = { 
/**
 * instantiation | narration | missing_narration
 */
stage: string, 
/**
 * Accepted cases the row covers.
 */
cases: number, 
/**
 * Cases whose stage passed on attempt 1, 2, 3.
 */
attempts: Array<number>, 
/**
 * The same as percentages of `cases`.
 */
pct: Array<number | null>, };

/** Every API method: its parameters and its result. */
export interface ApiMethods {
  /** Where the store is and what it holds. */
  "store.info": { params: NoParams; result: StoreInfo };
  /** Latest progress of the runs working right now. */
  "jobs.active": { params: NoParams; result: Array<Progress> };
  /** The policy packs in the store. */
  "policies.list": { params: NoParams; result: Array<PolicySummary> };
  /** One policy pack: clauses, guidance, evidence vocabulary, official text. */
  "policy.show": { params: IdParams; result: PolicyView };
  /** Create a user policy pack from its id, name, jurisdiction, reporting deadline, clauses and guidance Markdown. */
  "policy.create": { params: NewPolicy; result: PolicyCreateResult };
  /** Delete a user policy pack that no card or case uses. */
  "policy.delete": { params: IdParams; result: PolicyDeleteResult };
  /** Store official clause and/or guidance text (Markdown), split at headings. */
  "policy.import": { params: PolicyImportParams; result: PolicyImportResult };
  /** The card library, filtered. */
  "cards.list": { params: CardFilter; result: Array<CardSummary> };
  /** One card at its current or an earlier version, with history and lint findings. */
  "card.show": { params: CardShowParams; result: CardDetail };
  /** Lint an edited card document without saving it. */
  "card.check": { params: CardCheckParams; result: LintReport };
  /** Save an edited card as a new version (back to draft). */
  "card.save": { params: CardSaveRequest; result: CardDetail };
  /** Record an audit decision on a card. */
  "card.audit": { params: CardAuditRequest; result: CardDetail };
  /** Line differences between two versions of a card. */
  "card.diff": { params: CardDiffParams; result: CardDiff };
  /** Lint every stored card of a policy. */
  "cards.lint_library": { params: PolicyParams; result: LintReport };
  /** Which combinations of each clause's conditions no stored card admits. */
  "cards.coverage": { params: CardCoverageParams; result: Array<ClauseCoverage> };
  /** Lint uploaded card files without importing them. */
  "cards.lint_files": { params: CardFilesParams; result: LintReport };
  /** Import uploaded card files (all or nothing) as drafts. */
  "cards.import": { params: CardImportParams; result: CardsImportResult };
  /** The current cards (filtered) as cards.jsonl. */
  "cards.export": { params: CardExportParams; result: Download };
  /** Benchmark cases, filtered. */
  "cases.list": { params: CaseFilter; result: Array<CaseSummary> };
  /** One case with its full ground truth. */
  "case.show": { params: CaseShowParams; result: Case };
  /** One case with where it came from, whether runs leave it out, and its clause and card names. */
  "case.detail": { params: CaseShowParams; result: CaseDetail };
  /** Import an uploaded cases.jsonl file (all or nothing). */
  "cases.import": { params: CasesImportParams; result: CasesImportResult };
  /** Cases (filtered) as cases.jsonl. */
  "cases.export": { params: CasesExportParams; result: Download };
  /** Flag a case as excluded from runs, or include it again. */
  "case.set_excluded": { params: CaseExcludeParams; result: Flag };
  /** What a label audit (cases screened against the whole policy by one or more models) would send and cost. */
  "label_audit.plan": { params: LabelAuditRequest; result: LabelAuditPlan };
  /** Create a label audit and start it in the background. */
  "label_audit.start": { params: LabelAuditRequest; result: RunStarted };
  /** Screen what is still missing in a stopped label audit, in the background. */
  "label_audit.resume": { params: RunParams; result: RunStarted };
  /** Stop a label audit after the calls in flight; finished screens are kept. */
  "label_audit.cancel": { params: RunParams; result: Flag };
  /** A label audit's results (the latest when no run is named), optionally only disputed cases or one clause. */
  "label_audit.results": { params: LabelAuditResultsRequest; result: LabelAuditResults };
  /** Every label audit, newest first. */
  "label_audit.list": { params: NoParams; result: Array<LabelAuditRunView> };
  /** A label audit as CSV: one line per case with each model's verdict, clauses and agreement. */
  "label_audit.export": { params: RunParams; result: Download };
  /** Load the 90 hand-written demo cases. */
  "demo.load": { params: NoParams; result: CasesImportResult };
  /** Store example results of three fictional models on the demo cases (no model is called). */
  "demo.example_results": { params: NoParams; result: ExampleResults };
  /** What removing the example results would remove, without removing anything. */
  "demo.remove_example_results_preview": { params: NoParams; result: ExampleResultsRemoval };
  /** Delete every example run of the fictional models; the demo cases and your own runs stay. */
  "demo.remove_example_results": { params: NoParams; result: ExampleResultsRemoval };
  /** Whether the demo model (a simulation for learning the app) is running here, and whether the model "demo" is registered. */
  "demo.model_status": { params: NoParams; result: DemoModelStatus };
  /** Start the demo model on a free port of this computer and register it as the model "demo" (a simulation, labelled so in every result). */
  "demo.model_start": { params: NoParams; result: DemoModelStatus };
  /** Stop the demo model; the model "demo" stays registered and can be started again. */
  "demo.model_stop": { params: NoParams; result: DemoModelStatus };
  /** Registered models. */
  "models.list": { params: NoParams; result: Array<ModelView> };
  /** Register (or update) a model. */
  "model.add": { params: ModelAddRequest; result: ModelView };
  /** Look for model servers on this computer (Ollama, LM Studio, llama.cpp, vLLM) and list their models. */
  "models.discover": { params: DiscoverRequest; result: DiscoverResult };
  /** Provider batches of a run in batch mode (or all), with their state and counts. */
  "batches.list": { params: BatchListParams; result: Array<BatchView> };
  /** Remove a registered model (and its stored key). */
  "model.remove": { params: ModelNameParams; result: Flag };
  /** Store a model's API key in the OS keyring. */
  "model.set_key": { params: ModelKeyParams; result: ModelView };
  /** Hold a model's API key in memory for this session only (for a computer without an OS keyring); never written anywhere, forgotten when the app closes. */
  "model.keep_key_for_session": { params: ModelKeyParams; result: ModelView };
  /** One tiny real call to a model. */
  "model.test": { params: ModelNameParams; result: ModelTestResult };
  /** Size and reuse of the LLM response cache. */
  "cache.stats": { params: NoParams; result: CacheStats };
  /** Remove cached replies (all, or one provider model's). */
  "cache.clear": { params: CacheClearParams; result: Count };
  /** Token and cost totals per stage and model. */
  "usage.by_stage": { params: UsageParams; result: Array<UsageTotals> };
  /** The call ledger: every model call of a run (or of one item: a generation candidate, an extraction, a draft, a case), in order, with its request, reply, parse notes, failed attempts, tokens and cost. Filters: item, step, attempt, role; offset and limit (default 500). */
  "calls.list": { params: CallFilter; result: Array<LedgerCall> };
  /** What the studio protocol adds to the paper's method: each addition, what it changes in the results, and how to turn it off. */
  "protocol.additions": { params: NoParams; result: Array<Addition> };
  /** What an evaluation run would do and cost, without starting it. */
  "evaluation.plan": { params: EvaluationRunRequest; result: EvaluationPlan };
  /** Create an evaluation run and start it in the background. */
  "evaluation.start": { params: EvaluationRunRequest; result: RunStarted };
  /** Finish what is missing in a stopped run, in the background (optionally under a new spending cap). */
  "evaluation.resume": { params: ResumeParams; result: RunStarted };
  /** Run only the M4 judge again over a stored or imported run, in the background, with the judge model named. */
  "evaluation.rejudge": { params: RejudgeRequest; result: RunStarted };
  /** Stop a run after the cases in flight; finished cases are kept. */
  "evaluation.cancel": { params: RunParams; result: Flag };
  /** Evaluation runs. */
  "evaluation.list": { params: NoParams; result: Array<EvaluationRunView> };
  /** One evaluation run. */
  "evaluation.show": { params: RunParams; result: EvaluationRunView };
  /** What deleting an evaluation run would remove and what stays, without removing anything (refused for a run still running). */
  "evaluation.delete_preview": { params: RunParams; result: RunRemoval };
  /** Delete an evaluation run with its transcripts, judge results and provider batches, and the text of its model calls (their usage stays in the totals); refused for a run still running. */
  "evaluation.delete": { params: RunParams; result: RunRemoval };
  /** A run's trajectories as trajectories.jsonl. */
  "evaluation.export": { params: RunParams; result: Download };
  /** Import uploaded trajectories as completed runs. */
  "evaluation.import": { params: EvaluationImportParams; result: RunIds };
  /** Whether stored runs can be compared: what differs in how they were made (protocol, prompts, policy edition, case set, judge), with a mark per run and one sentence. */
  "evaluation.comparability": { params: RunIds; result: Comparability };
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
  /** Anchor materials, filtered. */
  "anchors.list": { params: AnchorFilter; result: Array<AnchorSummary> };
  /** One anchor with its text (and original before translation). */
  "anchor.show": { params: AnchorIdParams; result: Anchor };
  /** Anchors per clause bucket. */
  "anchors.buckets": { params: PolicyParams; result: Array<AnchorBucket> };
  /** Import uploaded anchors: one JSONL or CSV file, or .txt files (duplicates skipped). */
  "anchors.import": { params: AnchorsImportParams; result: AnchorImportResult };
  /** Put an anchor in a clause's bucket by hand (or in none). */
  "anchor.set_bucket": { params: AnchorBucketParams; result: Anchor };
  /** Remove anchors. */
  "anchors.remove": { params: AnchorIdsParams; result: Count };
  /** Sort anchors into clause buckets with a model (a topical sort). */
  "anchors.presort": { params: AnchorPresortRequest; result: AnchorBatchResult };
  /** Translate anchors to English with a model (the original is kept). */
  "anchors.translate": { params: AnchorTranslateRequest; result: AnchorBatchResult };
  /** What an anchor pre-sort or translation job would send and cost, without sending anything. */
  "anchor_job.plan": { params: AnchorJobRequest; result: AnchorJobPlan };
  /** Create an anchor pre-sort or translation job and start it in the background. */
  "anchor_job.start": { params: AnchorJobRequest; result: RunStarted };
  /** Handle the anchors a stopped anchor job has not done yet (and those that failed), in the background. */
  "anchor_job.resume": { params: RunParams; result: RunStarted };
  /** Stop an anchor job after the anchors in flight; finished outcomes are kept. */
  "anchor_job.cancel": { params: RunParams; result: Flag };
  /** Every anchor job, newest first, with its counts (without per-anchor outcomes). */
  "anchor_job.list": { params: NoParams; result: Array<AnchorJobView> };
  /** One anchor job with the outcome of every anchor handled so far. */
  "anchor_job.show": { params: RunParams; result: AnchorJobView };
  /** The policy's text split into the sections an extraction chooses from, with the text's hash. */
  "authoring.sections": { params: IdParams; result: PolicySections };
  /** Ask a model which policy sections bear on a clause, check its reply and store the extraction as the clause's next version. */
  "authoring.extract": { params: ExtractRequest; result: ExtractResult };
  /** Approve an extraction with its final list of sections, in a named person's name. */
  "authoring.approve": { params: ApproveRequest; result: Extraction };
  /** Extractions, optionally of one policy or one clause. */
  "authoring.extractions": { params: ExtractionFilter; result: Array<ExtractionSummary> };
  /** Failed extractions (the latest of each clause, with the reason), optionally of one policy or one clause; a later extraction of the clause replaces or clears it. */
  "authoring.extraction_failures": { params: ExtractionFilter; result: Array<ExtractionFailure> };
  /** One extraction: its sections, document, self-check and every model call. */
  "authoring.extraction_show": { params: IdParams; result: Extraction };
  /** Draft complete-case cards, Uncertain cards or missing variants for one clause from its approved extraction; check them in code (feeding problems back, at most three attempts) and store the draft. */
  "authoring.draft": { params: DraftRequest; result: DraftResult };
  /** Drafts, optionally of one policy, clause or status. */
  "authoring.drafts": { params: DraftFilter; result: Array<DraftSummary> };
  /** One draft: its items, problems, the model's self-check, the coverage report, the nearest existing cards and every model call. */
  "authoring.draft_show": { params: IdParams; result: Draft };
  /** Replace a draft's items with an edited JSON list and check them again. */
  "authoring.draft_edit": { params: DraftEditRequest; result: Draft };
  /** A drafted card (or the parent with a drafted variant) against a library card, line by line. */
  "authoring.draft_diff": { params: DraftDiffRequest; result: DraftDiff };
  /** Accept a draft (or some of its items) into the library as draft cards, in a named person's name. */
  "authoring.accept": { params: AcceptRequest; result: AcceptResult };
  /** Reject a draft, with the person's name and reason (kept). */
  "authoring.reject": { params: RejectRequest; result: Draft };
  /** What drafting every clause would do and cost, without sending anything. */
  "authoring.draft_all_plan": { params: DraftAllRequest; result: DraftAllPlan };
  /** Start drafting every clause as a background job. */
  "authoring.draft_all_start": { params: DraftAllRequest; result: RunStarted };
  /** Draft what is still missing in a stopped drafting job, in the background. */
  "authoring.draft_all_resume": { params: RunParams; result: RunStarted };
  /** Stop a drafting job after the item in progress; finished drafts are kept. */
  "authoring.draft_all_cancel": { params: RunParams; result: Flag };
  /** Every drafting job, newest first. */
  "authoring.draft_all_list": { params: NoParams; result: Array<DraftAllRun> };
  /** What a generation run would do and cost, without starting it. */
  "generation.plan": { params: GenerationRequest; result: GenerationPlan };
  /** Create a generation run and start it in the background. */
  "generation.start": { params: GenerationRequest; result: RunStarted };
  /** Finish what is missing in a stopped generation run, in the background (optionally under a new spending cap). */
  "generation.resume": { params: ResumeParams; result: RunStarted };
  /** Stop a generation run after the calls in flight; finished attempts are kept. */
  "generation.cancel": { params: RunParams; result: Flag };
  /** Generation runs. */
  "generation.list": { params: NoParams; result: Array<GenerationRunView> };
  /** One generation run. */
  "generation.show": { params: RunParams; result: GenerationRunView };
  /** The candidate cases of a run (accepted, dropped, pending). */
  "generation.candidates": { params: GenerationCandidatesParams; result: Array<GenerationCandidateView> };
  /** Every attempt of every stage behind a case or a dropped candidate. */
  "generation.provenance": { params: IdParams; result: Provenance };
  /** Statistics of a generation run, like the paper's. */
  "generation.stats": { params: RunParams; result: GenerationStats };
  /** Statistics of the clause-card library. */
  "library.stats": { params: LibraryStatsParams; result: LibraryStats };
  /** How many cases of each type a review could sample. */
  "review.available": { params: NoParams; result: ReviewAvailable };
  /** Create a review session: sample, reviewers, overlap, guidelines. */
  "review.create": { params: ReviewCreateRequest; result: ReviewSessionDetail };
  /** Review sessions. */
  "review.list": { params: NoParams; result: Array<ReviewSessionSummary> };
  /** One review session with each reviewer's progress (never their answers). */
  "review.show": { params: SessionParams; result: ReviewSessionDetail };
  /** Replace a session's guidelines (Markdown). */
  "review.set_guidelines": { params: GuidelinesParams; result: ReviewSessionDetail };
  /** Delete a review session and its answers. */
  "review.delete": { params: SessionParams; result: Flag };
  /** Close a review session: every reviewer link of it is refused until it is reopened; answers are kept. */
  "review.close": { params: SessionParams; result: ReviewSessionDetail };
  /** Reopen a closed review session: the links given out before work again. */
  "review.reopen": { params: SessionParams; result: ReviewSessionDetail };
  /** Personal review links (tokens are shown only when created or rotated). */
  "review.links": { params: ReviewLinksRequest; result: ReviewLinks };
  /** Serve a review session's reviewer links from this app (this computer only, or the local network), so they work at once. */
  "review.share_start": { params: ReviewShareRequest; result: ReviewShareStatus };
  /** Stop serving a review session's reviewer links: they stop connecting. */
  "review.share_stop": { params: SessionParams; result: ReviewShareStatus };
  /** Whether a review session's reviewer links are being served by this app, where, and the command that serves them from a terminal. */
  "review.share_status": { params: SessionParams; result: ReviewShareStatus };
  /** A token for a reviewer answering in this app (kept in memory only). */
  "review.local_token": { params: ReviewerParams; result: TokenResult };
  /** Ratings, agreement with the expected verdicts, and inter-rater agreement. */
  "review.stats": { params: SessionParams; result: ReviewStats };
  /** Cases for adjudication: disagreements between reviewers or with the verdict. */
  "review.queue": { params: ReviewQueueRequest; result: ReviewQueue };
  /** Record an adjudicator's final call on a case. */
  "review.adjudicate": { params: ReviewAdjudicateRequest; result: ReviewAdjudication };
  /** Who decided what, for a session or one case. */
  "review.adjudications": { params: AdjudicationsParams; result: Array<ReviewAdjudication> };
  /** Every answer in long format (CSV or JSONL). */
  "review.export": { params: ReviewExportParams; result: Download };
  /** The summary table like the paper's (Markdown and LaTeX) with the statistics. */
  "review.summary": { params: SessionParams; result: ReviewSummary };
  /** A review pack for one reviewer to complete in another copy of the app. */
  "review.pack_export": { params: ReviewerParams; result: Download };
  /** Open a review pack received from a session's owner. */
  "review.pack_open": { params: FileParams; result: ReviewPackOpened };
  /** The answers given to an opened pack, to send back to the session's owner. */
  "review.pack_answers": { params: PackAnswersParams; result: Download };
  /** Merge a reviewer's answers file into its session (merging twice changes nothing). */
  "review.pack_merge": { params: FileParams; result: ReviewPackMergeReport };
  /** A reviewer's guidelines, items, progress and where to resume. */
  "review.me": { params: ReviewTokenParams; result: ReviewMe };
  /** One of the reviewer's cases: the narrative and their own answers. */
  "review.item": { params: ReviewItemParams; result: ReviewItemView };
  /** Save part of a reviewer's answer as it is given. */
  "review.answer": { params: ReviewAnswerParams; result: ReviewAnswerSaved };
  /** Reveal the expected verdict (only after the blind verdict is saved). */
  "review.reveal": { params: ReviewItemParams; result: ReviewReveal };
}

export type ApiMethod = keyof ApiMethods;

/** The policy pack used when none is named (the engine's `policy::DEFAULT_POLICY`). */
export const DEFAULT_POLICY = "mn29";
