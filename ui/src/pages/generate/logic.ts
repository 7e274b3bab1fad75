// Pure logic of the Generate page (unit-tested in logic.test.ts): the cards request, anchors
// available per clause, stage and role words, the progress counters, attempt bars, facts.

import type { AnchorBucket, CardSummary, GenerationPlan, GenerationRequest, GenerationRunConfig, Protocol, ProvenanceAttempt } from "../../api/generated";
import { jsonText, num, usd } from "../../format";
import { DEFAULT_POLICY } from "../../api/generated";
import { parseCap } from "../../components/SpendingCap";

/** `sample`: a few approved cards to try the pipeline on first (see `sampleCards`). */
export type CardMode = "sample" | "all" | "clause" | "chosen";

export type GenerationForm = {
  mode: CardMode;
  clause: string;
  chosen: string[];
  anchorsPerCard: number;
  anchorOrigin: "all" | "builtin" | "imported";
  model: string;
  verifierModel: string; // "" = same as the writer
  screenModel: string; // "" = same as the checker
  seed: number;
  concurrency: number;
  includeMissing: boolean;
  label: string;
  /** The spending cap as typed ("" = no cap). */
  maxCost: string;
  /** Send the calls through the providers' batch APIs where the models have one. */
  batch: boolean;
  /** `studio` (the paper's method with the clause screen and the other checks) or `paper`. */
  protocol: Protocol;
};

// A new run starts small: a sample of three cards with three anchors each is about 15 candidate
// cases and 80 model calls with the built-in library, where every approved card with 25 anchors
// would be thousands of cases and tens of thousands of calls.
export const DEFAULT_FORM: GenerationForm = {
  mode: "sample",
  clause: "",
  chosen: [],
  anchorsPerCard: 3,
  anchorOrigin: "all",
  model: "",
  verifierModel: "",
  screenModel: "",
  seed: 0,
  concurrency: 4,
  includeMissing: true,
  label: "",
  maxCost: "",
  batch: false,
  protocol: "studio",
};

/** How many cards the sample takes. */
export const SAMPLE_SIZE = 3;

const SAMPLE_TYPES = ["Reportable", "Non_Reportable", "Uncertain"];

/**
 * A small sample of the approved cards: one reportable, one non-reportable and one uncertain card,
 * each from a different clause, spread over the policy (the first clause for the first type, a third
 * of the way along for the second, two thirds for the third). Where a type has no approved card, other
 * approved cards fill the sample, from clauses not used yet when possible. The same cards give the
 * same sample.
 */
export function sampleCards(cards: CardSummary[], size = SAMPLE_SIZE): CardSummary[] {
  const approved = cards.filter((c) => c.status === "approved");
  const clauses = Array.from(new Set(approved.map((c) => c.clause_id)));
  const picked: CardSummary[] = [];
  const used = new Set<string>();
  const take = (c: CardSummary) => {
    picked.push(c);
    used.add(c.clause_id);
  };
  SAMPLE_TYPES.forEach((type, k) => {
    if (picked.length >= size) return;
    const start = Math.floor((k * clauses.length) / SAMPLE_TYPES.length);
    for (let j = 0; j < clauses.length; j++) {
      const clause = clauses[(start + j) % clauses.length];
      if (used.has(clause)) continue;
      const card = approved.find((c) => c.clause_id === clause && c.event_type === type);
      if (card) {
        take(card);
        return;
      }
    }
  });
  for (const fresh of [true, false]) {
    for (const c of approved) {
      if (picked.length >= size) break;
      if (picked.includes(c) || (fresh && used.has(c.clause_id))) continue;
      take(c);
    }
  }
  return picked;
}

/** The engine's `cards` value: "all", a clause id, or card ids joined by commas ("" = nothing chosen yet). */
export function cardsSpec(f: Pick<GenerationForm, "mode" | "clause" | "chosen">, cards: CardSummary[] = []): string {
  if (f.mode === "all") return "all";
  if (f.mode === "clause") return f.clause;
  if (f.mode === "sample") return sampleCards(cards).map((c) => c.card_id).join(",");
  return f.chosen.join(",");
}

/** Why the form cannot be planned yet (in words), or null. */
export function formProblem(f: GenerationForm): string | null {
  if (!f.model) return "Choose the model that writes the cases.";
  if (f.mode === "clause" && !f.clause) return "Choose a clause.";
  if (f.mode === "chosen" && f.chosen.length === 0) return "Tick at least one card.";
  if (!Number.isInteger(f.anchorsPerCard) || f.anchorsPerCard < 1 || f.anchorsPerCard > 1000) return "Anchors per card must be a whole number from 1 to 1000.";
  if (!Number.isInteger(f.concurrency) || f.concurrency < 1 || f.concurrency > 256) return "Work at once must be a whole number from 1 to 256.";
  if (!Number.isInteger(f.seed) || f.seed < 0) return "The seed must be a whole number, 0 or more.";
  const cap = parseCap(f.maxCost ?? "");
  if (cap.error) return `Spending cap: ${cap.error}`;
  return null;
}

export function toRequest(f: GenerationForm, policy: string = DEFAULT_POLICY, cards: CardSummary[] = []): GenerationRequest {
  return {
    policy,
    cards: cardsSpec(f, cards),
    anchors_per_card: f.anchorsPerCard,
    model: f.model,
    verifier_model: f.verifierModel || null,
    // A paper run has no clause screen, so no screen model is sent.
    ...(f.screenModel && f.protocol !== "paper" ? { screen_model: f.screenModel } : {}),
    seed: f.seed,
    concurrency: f.concurrency,
    include_missing: f.includeMissing,
    anchor_origin: f.anchorOrigin === "all" ? null : f.anchorOrigin,
    label: f.label.trim() || null,
    batch: f.batch,
    protocol: f.protocol ?? "studio",
    ...(parseCap(f.maxCost ?? "").cap !== undefined ? { max_cost_usd: parseCap(f.maxCost ?? "").cap } : {}),
  };
}

/** The cards a form selects, from the card list (what the engine will plan, approved-only for all/clause). */
export function selectedCards(f: Pick<GenerationForm, "mode" | "clause" | "chosen">, cards: CardSummary[]): CardSummary[] {
  if (f.mode === "all") return cards.filter((c) => c.status === "approved");
  if (f.mode === "clause") return cards.filter((c) => c.clause_id === f.clause && c.status === "approved");
  if (f.mode === "sample") return sampleCards(cards);
  const set = new Set(f.chosen);
  return cards.filter((c) => set.has(c.card_id));
}

export type ClauseAvailability = {
  clauseId: string;
  cards: number;
  available: number;
  used: number;
  state: "enough" | "few" | "none";
};

/** Per clause of the selected cards: anchors in its bucket (for the chosen origin) and how many each card will use. */
export function availability(cards: CardSummary[], buckets: AnchorBucket[], origin: GenerationForm["anchorOrigin"], perCard: number): ClauseAvailability[] {
  const count = new Map<string, number>();
  for (const b of buckets) {
    if (!b.clause_id) continue;
    count.set(b.clause_id, origin === "builtin" ? b.builtin : origin === "imported" ? b.imported : b.builtin + b.imported);
  }
  const byClause = new Map<string, number>();
  for (const c of cards) byClause.set(c.clause_id, (byClause.get(c.clause_id) ?? 0) + 1);
  return [...byClause.entries()].map(([clauseId, n]) => {
    const available = count.get(clauseId) ?? 0;
    const used = Math.min(available, Math.max(0, perCard));
    return { clauseId, cards: n, available, used, state: available === 0 ? "none" : available < perCard ? "few" : "enough" };
  });
}

/** Above this many estimated model calls, a run starts only after an explicit confirmation. */
export const LARGE_RUN_CALLS = 200;

/** Whether a plan is large enough to need the explicit confirmation. */
export function isLargeRun(plan: Pick<GenerationPlan, "estimate"> | undefined): boolean {
  return !!plan && plan.estimate.calls > LARGE_RUN_CALLS;
}

/** What a large run costs, in words: dollars, free (every model on this computer) or unknown. */
export function costInWords(plan: Pick<GenerationPlan, "estimate" | "destinations">): string {
  const e = plan.estimate;
  const allLocal = plan.destinations.every((d) => !d.remote);
  if (e.usd === null) return "its cost is unknown (no price is registered for a remote model)";
  if (allLocal) return "free on local models, but it keeps this computer busy for a long time";
  return `estimated cost about ${usd(e.usd)}`;
}

/** The sentence of the large-run confirmation. */
export function largeRunText(plan: Pick<GenerationPlan, "estimate" | "destinations" | "candidates">): string {
  return `This run makes about ${num(plan.estimate.calls)} model calls for ${num(plan.candidates)} candidate cases (more than ${LARGE_RUN_CALLS}); ${costInWords(plan)}. I want to start it.`;
}

/** A key of what a large-run confirmation was given for: any change of the request or the plan asks again. */
export function largeRunKey(request: GenerationRequest | null, plan: Pick<GenerationPlan, "estimate"> | undefined): string {
  if (!request || !plan) return "";
  return JSON.stringify({ ...request, label: null, calls: plan.estimate.calls, usd: plan.estimate.usd });
}

/** Why Start waits for a tick, or null. */
export function startWaitsFor(remote: { needed: boolean; given: boolean }, large: { needed: boolean; given: boolean }): string | null {
  const r = remote.needed && !remote.given;
  const l = large.needed && !large.given;
  if (r && l) return "Tick both confirmations above to start.";
  if (r || l) return "Tick the confirmation above to start.";
  return null;
}

/** A key of where a plan sends data; a confirmation is asked again when it changes. */
export function destinationsKey(plan: GenerationPlan | undefined): string {
  if (!plan) return "";
  return plan.destinations.map((d) => `${d.role}=${d.model}@${d.destination}:${d.remote}`).join("|");
}

export const STAGE_LABEL: Record<string, string> = {
  instantiation: "Facts",
  narration: "Narrative",
  missing_narration: "Incomplete report",
  clause_screen: "Clause screen",
  parent: "Complete case",
  case: "Saving the case",
  card: "Card",
  anchor: "Anchor",
};

export const STAGE_LONG: Record<string, string> = {
  instantiation: "Filling in and checking the facts",
  narration: "Writing and checking the narrative",
  missing_narration: "Writing and checking the incomplete first report",
  clause_screen: "Checking the facts against every clause of the policy",
  parent: "its complete case was dropped, so this variant was never started",
  case: "Saving the accepted case",
  card: "The run's copy of the card",
  anchor: "The anchor",
};

/**
 * The one name of each generation role, used wherever the role appears: the diagram of how a
 * case is made, the model calls of a run and of an attempt. The stage an incomplete report is
 * written in is "Incomplete report"; its roles are named after it.
 */
export const ROLE_LABEL: Record<string, string> = {
  instantiator: "Fact writer",
  instantiation_verifier: "Fact checker",
  narrator: "Narrative writer",
  extractor: "Fact reader",
  narrative_verifier: "Narrative checker",
  missing_narrator: "Incomplete-report writer",
  missing_verifier: "Incomplete-report checker",
  clause_screen: "Clause screen",
};

/** The models a generation plan sends data to, named as the form names them. */
export const DESTINATION_LABEL: Record<string, string> = {
  "instantiator and narrators": "Writer model",
  "extractor and verifiers": "Checker model",
  "clause screen": "Clause screen model",
};

export function destinationWords(role: string): string {
  return DESTINATION_LABEL[role] ?? role.charAt(0).toUpperCase() + role.slice(1);
}

export const CANDIDATE_STATUS: Record<string, { label: string; icon: string }> = {
  accepted: { label: "Accepted", icon: "✓" },
  dropped: { label: "Dropped", icon: "✕" },
  pending: { label: "Not finished", icon: "…" },
  skipped: { label: "Skipped", icon: "–" },
};

export type Segment = { attempt: number; count: number; pct: number };

/** The three segments of a winning-attempt bar (percent of the stage's cases; zero-width when none). */
export function attemptSegments(attempts: number[], cases: number): Segment[] {
  return [0, 1, 2].map((i) => {
    const count = attempts[i] ?? 0;
    return { attempt: i + 1, count, pct: cases > 0 ? (100 * count) / cases : 0 };
  });
}

export type Fact = { name: string; meaning: string; value: string | null; withheld: boolean };

/** The facts of a candidate: the case's elements when accepted, else the last passing (or last) facts attempt. */
export function factsOf(
  caseValue: { elements?: { name: string; meaning: string; value: string | null }[]; masked_elements?: string[] } | null | undefined,
  attempts: ProvenanceAttempt[],
): { facts: Fact[]; fromCase: boolean } {
  if (caseValue && Array.isArray(caseValue.elements)) {
    const masked = new Set(caseValue.masked_elements ?? []);
    return { facts: caseValue.elements.map((e) => ({ name: e.name, meaning: e.meaning, value: e.value, withheld: masked.has(e.name) })), fromCase: true };
  }
  const inst = attempts.filter((a) => a.stage === "instantiation");
  const best = [...inst].reverse().find((a) => a.passed) ?? inst[inst.length - 1];
  const out = best?.output;
  if (!out || typeof out !== "object" || Array.isArray(out)) return { facts: [], fromCase: false };
  return {
    facts: Object.entries(out as Record<string, unknown>).map(([name, v]) => ({ name, meaning: "", value: v === null || v === undefined ? null : jsonText(v), withheld: false })),
    fromCase: false,
  };
}

/** The last narrative a candidate's own stages produced (for a dropped candidate). */
export function lastNarrative(attempts: ProvenanceAttempt[], candidateId: string): string | null {
  const own = attempts.filter((a) => a.candidate_id === candidateId && (a.stage === "narration" || a.stage === "missing_narration"));
  const last = own[own.length - 1];
  return last && typeof last.output === "string" ? last.output : null;
}

export type StageGroup = { key: string; stage: string; inherited: boolean; attempts: ProvenanceAttempt[] };

/** Attempts grouped by stage in order; a missing case's parent stages are marked as inherited. */
export function groupAttempts(attempts: ProvenanceAttempt[], candidateId: string): StageGroup[] {
  const groups: StageGroup[] = [];
  for (const a of attempts) {
    const inherited = a.candidate_id !== candidateId;
    const key = `${a.candidate_id}:${a.stage}`;
    let g = groups.find((x) => x.key === key);
    if (!g) {
      g = { key, stage: a.stage, inherited, attempts: [] };
      groups.push(g);
    }
    g.attempts.push(a);
  }
  return groups;
}

/** An attempt of a stage, or an attempt number the stage never ran, with the failure that stopped it. */
export type StageEntry = { kind: "attempt"; attempt: ProvenanceAttempt } | { kind: "not-run"; attempt: number; because: ProvenanceAttempt | null };

/**
 * Every attempt number of a stage from 1 to its last, in order. The clause screen is numbered
 * after the facts attempt it screens, so when facts attempt 1 failed the screen's first attempt is
 * number 2: number 1 is listed as not run, with the failed facts attempt that explains why.
 */
export function stageEntries(g: StageGroup, all: ProvenanceAttempt[]): StageEntry[] {
  const byNo = new Map(g.attempts.map((a) => [a.attempt, a]));
  const last = Math.max(0, ...g.attempts.map((a) => a.attempt));
  const out: StageEntry[] = [];
  for (let k = 1; k <= last; k++) {
    const a = byNo.get(k);
    if (a) {
      out.push({ kind: "attempt", attempt: a });
      continue;
    }
    const candidate = g.attempts[0]?.candidate_id;
    const before = g.stage === "clause_screen" ? all.find((x) => x.candidate_id === candidate && x.stage === "instantiation" && x.attempt === k && !x.passed) ?? null : null;
    out.push({ kind: "not-run", attempt: k, because: before });
  }
  // Attempts without a number (never expected) keep their place at the end.
  for (const a of g.attempts) if (a.attempt < 1) out.push({ kind: "attempt", attempt: a });
  return out;
}

/**
 * A stage's outcome for its heading: "passed on attempt 2, after 1 failed attempt", "failed 3 of 3
 * attempts", and which attempt numbers it never ran ("attempt 1 not run").
 */
export function stageSummary(g: StageGroup, all: ProvenanceAttempt[]): string {
  const notRun = stageEntries(g, all).flatMap((e) => (e.kind === "not-run" ? [e.attempt] : []));
  const skipped = notRun.length === 0 ? "" : `; attempt${notRun.length === 1 ? "" : "s"} ${notRun.join(" and ")} not run`;
  const passed = [...g.attempts].reverse().find((a) => a.passed);
  if (!passed) return `failed ${g.attempts.length} of 3 attempts${skipped}`;
  const failed = g.attempts.filter((a) => !a.passed && a.attempt < passed.attempt).length;
  const after = failed === 0 ? "" : `, after ${failed === 1 ? "1 failed attempt" : `${failed} failed attempts`}`;
  return `passed on attempt ${passed.attempt}${after}${skipped}`;
}

/** `{messages: [{role, content}]}` → the messages, whatever else the request holds. */
export { requestMessages } from "../../components/CallLedger";

export type LeakRow = { condition: string; verdict: string; evidence: string | null; explanation: string };

/** The Missing-Variant Verifier's per-condition rows, when present. */
export function leakRows(verifier: unknown): LeakRow[] {
  if (!verifier || typeof verifier !== "object") return [];
  const rows = (verifier as { per_bc_check?: unknown }).per_bc_check;
  if (!Array.isArray(rows)) return [];
  return rows.map((r) => {
    const o = (r ?? {}) as Record<string, unknown>;
    return {
      condition: jsonText(o.boundary_condition ?? ""),
      verdict: jsonText(o.leak_verdict ?? ""),
      evidence: typeof o.evidence_phrase === "string" ? o.evidence_phrase : null,
      explanation: jsonText(o.explanation ?? ""),
    };
  });
}

/** The config of a run as the Generate page shows it. */
export type RunConfig = {
  cards: string;
  anchorsPerCard: number | null;
  anchorOrigin: string | null;
  model: string;
  verifierModel: string;
  screenModel: string;
  seed: number | null;
  includeMissing: boolean | null;
  concurrency: number | null;
  maxCost: number | null;
  batch: boolean;
  warnings: string[];
  promptVersions: Record<string, string>;
  /** The protocol the run follows (studio for runs made before protocols). */
  protocol: Protocol;
};

/** A generation run's config as the engine sends it, any part of it possibly absent. */
export type StoredGenConfig = Partial<Omit<GenerationRunConfig, "request">> & { request?: Partial<GenerationRequest> };

export function runConfig(config: StoredGenConfig | null): RunConfig {
  const c = config ?? {};
  const r = c.request ?? {};
  return {
    cards: r.cards ?? "",
    anchorsPerCard: r.anchors_per_card ?? null,
    anchorOrigin: r.anchor_origin ?? null,
    model: c.model ?? r.model ?? "",
    verifierModel: c.verifier_model ?? r.verifier_model ?? c.model ?? "",
    screenModel: c.screen_model ?? r.screen_model ?? c.verifier_model ?? r.verifier_model ?? c.model ?? "",
    seed: r.seed ?? null,
    includeMissing: r.include_missing ?? null,
    concurrency: c.concurrency ?? r.concurrency ?? null,
    maxCost: r.max_cost_usd ?? null,
    batch: c.batch ?? r.batch ?? false,
    warnings: c.warnings ?? [],
    promptVersions: Object.fromEntries(Object.entries(c.prompt_versions ?? {}).map(([k, v]) => [k, v ?? ""])),
    protocol: c.provenance?.protocol ?? r.protocol ?? "studio",
  };
}

/** "all approved cards", "the approved cards of 7. Fall", "2 chosen cards". */
export function cardsInWords(spec: string, clauseName: (id: string) => string | null): string {
  if (spec === "all") return "All approved cards";
  const parts = spec.split(",").map((s) => s.trim()).filter(Boolean);
  if (parts.length === 1) {
    const c = clauseName(parts[0]);
    if (c) return `Approved cards of ${c}`;
    return parts[0];
  }
  return `${parts.length} chosen cards`;
}

/** The engine's drop reason ("missing_narration failed 3 attempts; last problems: a | b") in parts. */
export function dropReasonParts(reason: string | null | undefined): { lead: string; problems: string[] } {
  if (!reason) return { lead: "No reason was recorded.", problems: [] };
  const m = reason.match(/^(\w+) failed (\d+) attempts; last problems: ([\s\S]*)$/);
  if (!m) return { lead: reason, problems: [] };
  const problems = m[3].split(" | ").map((x) => x.trim()).filter(Boolean);
  return { lead: `All ${m[2]} attempts failed. The checks found these problems on the last one:`, problems };
}

/** Enum-like values ("serious_injury") read as words; other values as they are. */
export function displayValue(v: string): string {
  return /^[a-z0-9]+(_[a-z0-9]+)+$/.test(v) ? v.replace(/_/g, " ") : v;
}
