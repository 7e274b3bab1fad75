// Pure helpers of the authoring workspace: where each clause stands, which sections an approval
// would keep, problems grouped per drafted item, and reading drafted items defensively.

import type { Draft, DraftProblem, DraftSummary, ExtractionSummary, ModelView } from "../../../api/generated";

export const KIND_LABEL: Record<string, string> = {
  complete: "Complete-case cards",
  uncertain: "Uncertain cards",
  missing: "Missing-information variants",
};

/** Why a section bears on a clause (the extractor's criteria), in words. */
export const CRITERION_LABEL: Record<string, string> = {
  defines_term: "Defines a term",
  inclusion_exclusion: "Says what is included or excluded",
  scope: "Sets the scope",
  examples: "Gives examples",
  carve_out: "Makes an exception",
  cross_reference: "Points to another section",
};

/** A criterion in words; an unknown one is written out from its name ("new_rule" → "New rule"). */
export function criterionWords(c: string): string {
  return CRITERION_LABEL[c] ?? conditionWords(c);
}

export const DRAFT_STATUS_LABEL: Record<string, string> = {
  proposed: "Waiting for review",
  failed: "Has errors",
  accepted: "Accepted",
  rejected: "Rejected",
};

/** Where one clause stands in authoring. */
export type ClauseState = {
  clauseId: string;
  /** Latest extraction version, if any. */
  latest: ExtractionSummary | undefined;
  /** The newest approved extraction, if any. */
  approved: ExtractionSummary | undefined;
  drafts: number;
  openDrafts: number;
};

export function clauseStates(clauseIds: string[], extractions: ExtractionSummary[], drafts: DraftSummary[]): Map<string, ClauseState> {
  const out = new Map<string, ClauseState>();
  for (const id of clauseIds) out.set(id, { clauseId: id, latest: undefined, approved: undefined, drafts: 0, openDrafts: 0 });
  for (const x of extractions) {
    const s = out.get(x.clause_id);
    if (!s) continue;
    if (!s.latest || x.version > s.latest.version) s.latest = x;
    if (x.status === "approved" && (!s.approved || x.version > s.approved.version)) s.approved = x;
  }
  for (const d of drafts) {
    const s = out.get(d.clause_id);
    if (!s) continue;
    s.drafts += 1;
    if (d.status === "proposed" || d.status === "failed") s.openDrafts += 1;
  }
  return out;
}

/** A one-line account of a clause's extraction, in plain words. */
export function extractionWords(s: ClauseState | undefined): string {
  if (!s?.latest) return "No extraction yet";
  if (s.approved && s.approved.version === s.latest.version) return `Extraction approved (version ${s.approved.version})`;
  if (s.approved) return `Version ${s.latest.version} waiting; version ${s.approved.version} approved`;
  return `Extraction waiting for approval (version ${s.latest.version})`;
}

/** The sections the person keeps: the extraction's, plus those ticked, minus those unticked. */
export function keptSections(order: string[], chosen: string[], toggled: Set<string>): string[] {
  const base = new Set(chosen);
  return order.filter((id) => base.has(id) !== toggled.has(id));
}

export function toggle(set: Set<string>, id: string): Set<string> {
  const n = new Set(set);
  if (n.has(id)) n.delete(id);
  else n.add(id);
  return n;
}

/** Why the approve button is disabled, or null when it can be pressed. */
export function approveBlocker(name: string, kept: number, status: string): string | null {
  if (status === "approved") return "This version is already approved.";
  if (kept === 0) return "Keep at least one section to approve.";
  if (!name.trim()) return "Enter your name to approve: it is recorded with the decision.";
  return null;
}

/** Why drafting is not possible yet, or null. */
export function draftBlocker(hasApproved: boolean, kind: string, parent: string, model: string): string | null {
  if (!hasApproved) return "Drafting starts from an approved extraction. Run an extraction in panel 1, check its sections and approve it first.";
  if (!model) return "Register a model in Settings to draft cards.";
  if (kind === "missing" && !parent) return "Choose the card that the missing-information variants belong to.";
  return null;
}

export type ProblemGroup = { itemId: string | null; errors: number; warnings: number; problems: DraftProblem[] };

/** Problems per drafted item (problems of the whole draft first), errors before warnings. */
export function groupDraftProblems(problems: DraftProblem[], itemIds: string[]): ProblemGroup[] {
  const order = new Map<string | null, number>([[null, -1], ...itemIds.map((id, i) => [id, i] as [string, number])]);
  const groups = new Map<string | null, ProblemGroup>();
  for (const p of problems) {
    const k = p.item_id ?? null;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { itemId: k, errors: 0, warnings: 0, problems: [] }));
    g.problems.push(p);
    if (p.severity === "error") g.errors += 1;
    else g.warnings += 1;
  }
  const out = Array.from(groups.values());
  for (const g of out) g.problems.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1));
  return out.sort((a, b) => (order.get(a.itemId) ?? 1e6) - (order.get(b.itemId) ?? 1e6));
}

/** Items with error-level problems (they cannot be accepted). */
export function itemsWithErrors(problems: DraftProblem[]): Set<string> {
  return new Set(problems.filter((p) => p.severity === "error" && p.item_id).map((p) => p.item_id as string));
}

/** Whether a draft can still be decided (accepted, edited or rejected). */
export function isOpen(d: Pick<Draft, "status" | "item_ids">): boolean {
  return d.status === "proposed" || (d.status === "failed" && !draftHasNothing(d));
}

/** A failed draft with no item at all: the model's replies could not be used, so there is nothing
 * to accept, edit or reject, only to draft again. */
export function draftHasNothing(d: Pick<Draft, "status" | "item_ids">): boolean {
  return d.status === "failed" && d.item_ids.length === 0;
}

/** A draft's status in words ("Failed" for a draft with nothing in it). */
export function draftStatusLabel(d: Pick<Draft, "status" | "item_ids">): string {
  return draftHasNothing(d) ? "Failed" : (DRAFT_STATUS_LABEL[d.status] ?? d.status);
}

/** Why a draft failed, in the words of the errors its checks left. */
export function draftFailedReason(d: Pick<Draft, "problems">): string {
  const errors = d.problems.filter((p) => p.severity === "error").map((p) => p.message);
  return errors.length ? errors.join(" ") : "the model's replies could not be used.";
}

/** Why accepting the chosen items is refused, or null. */
export function acceptBlocker(name: string, chosen: string[], withErrors: Set<string>): string | null {
  if (chosen.length === 0) return "Choose at least one card to accept.";
  const bad = chosen.filter((id) => withErrors.has(id));
  if (bad.length) return `${bad.join(", ")} still ${bad.length === 1 ? "has" : "have"} errors: edit the draft or leave ${bad.length === 1 ? "it" : "them"} out.`;
  if (!name.trim()) return "Enter your name to accept: it is recorded with the cards.";
  return null;
}

/** Why rejecting is refused, or null. */
export function rejectBlocker(name: string, reason: string): string | null {
  if (!name.trim()) return "Enter your name to reject.";
  if (!reason.trim()) return "Say why the draft is rejected; the reason is kept with it.";
  return null;
}

/** Parse edited items: a JSON array, or a plain message saying what is wrong. */
export function parseItems(text: string): { ok: true; json: string } | { ok: false; message: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `This is not valid JSON yet: ${(e as Error).message}` };
  }
  if (!Array.isArray(v)) return { ok: false, message: "The draft's items must be a JSON list: start with [ and end with ]." };
  if (v.length === 0) return { ok: false, message: "The list is empty: a draft keeps at least one item." };
  return { ok: true, json: JSON.stringify(v) };
}

/** The open question an Uncertain card carries, if it has one. */
export function openQuestion(item: unknown): { section_id: string; question: string } | null {
  const q = item && typeof item === "object" ? (item as Record<string, unknown>).x_open_question : undefined;
  if (!q || typeof q !== "object") return null;
  const o = q as Record<string, unknown>;
  return { section_id: asText(o.section_id), question: asText(o.question) };
}

/** Remote models send the policy text off this computer: the app asks first. */
export function needsRemoteConfirm(m: ModelView | undefined): boolean {
  return !!m && !m.local;
}

/** Default model: the first on this computer, else the first registered. */
export function defaultModel(models: ModelView[]): string {
  return (models.find((m) => m.local) ?? models[0])?.name ?? "";
}

/** "fall_in_care" → "Fall in care". */
export function conditionWords(name: string): string {
  const s = name.replace(/_/g, " ").trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Any JSON value as text: strings as they are, other values as JSON, nothing as "". */
export function asText(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** How many cards a clause has, by event type. */
export type ClauseCardCounts = { reportable: number; nonReportable: number; uncertain: number; total: number };

/** Cards in the library counted per clause and event type (every status: drafts count too). */
export function cardCountsByClause(cards: { clause_id: string; event_type: string }[]): Map<string, ClauseCardCounts> {
  const out = new Map<string, ClauseCardCounts>();
  for (const c of cards) {
    const n = out.get(c.clause_id) ?? { reportable: 0, nonReportable: 0, uncertain: 0, total: 0 };
    if (c.event_type === "Reportable") n.reportable++;
    else if (c.event_type === "Non_Reportable") n.nonReportable++;
    else if (c.event_type === "Uncertain") n.uncertain++;
    n.total++;
    out.set(c.clause_id, n);
  }
  return out;
}

/** "4 cards: 1 reportable, 2 non-reportable, 1 uncertain" (types with no card left out). */
export function cardCountWords(n: ClauseCardCounts | undefined): string {
  if (!n || n.total === 0) return "No cards yet";
  const parts = [
    n.reportable ? `${n.reportable} reportable` : "",
    n.nonReportable ? `${n.nonReportable} non-reportable` : "",
    n.uncertain ? `${n.uncertain} uncertain` : "",
  ].filter(Boolean);
  const other = n.total - n.reportable - n.nonReportable - n.uncertain;
  if (other > 0) parts.push(`${other} of another type`);
  return `${n.total} card${n.total === 1 ? "" : "s"}: ${parts.join(", ")}`;
}
