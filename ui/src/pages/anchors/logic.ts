// Pure logic of the Anchors page (unit-tested in logic.test.ts): bucket rows and their status,
// import checks and summaries, batch outcomes in words, language names.

import type { AnchorBatchItem, AnchorBucket, AnchorImportResult, AnchorJobView, AnchorSummary, Clause, Progress } from "../../api/generated";
import { plural } from "../../format";
import { isResumable } from "../../runStatus";

export const DEFAULT_PER_CARD = 25;

export type BucketState = "enough" | "few" | "empty";

export type BucketRow = {
  /** null: the anchors not sorted into any clause. */
  clauseId: string | null;
  no: number | null;
  title: string;
  label: string;
  category: string;
  builtin: number;
  imported: number;
  total: number;
  state: BucketState;
};

export function bucketState(total: number, target: number): BucketState {
  if (total === 0) return "empty";
  return total < target ? "few" : "enough";
}

/**
 * One row per clause of the policy (in clause order, zero rows included) plus, when there are
 * any, the unsorted anchors last.
 */
export function bucketRows(buckets: AnchorBucket[], clauses: Clause[], target: number): { rows: BucketRow[]; unsorted: BucketRow | null } {
  const by = new Map<string | null, AnchorBucket>(buckets.map((b) => [b.clause_id, b]));
  const rows: BucketRow[] = [...clauses]
    .sort((a, b) => a.global_no - b.global_no)
    .map((c) => {
      const b = by.get(c.clause_id);
      const builtin = b?.builtin ?? 0;
      const imported = b?.imported ?? 0;
      return {
        clauseId: c.clause_id,
        no: c.global_no,
        title: c.short_title,
        label: c.label,
        category: c.category,
        builtin,
        imported,
        total: builtin + imported,
        state: bucketState(builtin + imported, target),
      };
    });
  const u = by.get(null);
  const unsorted =
    u && u.builtin + u.imported > 0
      ? { clauseId: null, no: null, title: "Not sorted yet", label: "", category: "", builtin: u.builtin, imported: u.imported, total: u.builtin + u.imported, state: "few" as BucketState }
      : null;
  return { rows, unsorted };
}

/** The bar's scale: the largest bucket or the target, whichever is bigger. */
export function barScale(rows: BucketRow[], target: number): number {
  return Math.max(target, 1, ...rows.map((r) => r.total));
}

export function bucketSummary(rows: BucketRow[], target: number): string {
  const few = rows.filter((r) => r.state === "few").length;
  const empty = rows.filter((r) => r.state === "empty").length;
  if (few === 0 && empty === 0) return `Every clause has at least ${target} anchors.`;
  const parts: string[] = [];
  if (few > 0) parts.push(`${plural(few, "clause")} ${few === 1 ? "has" : "have"} fewer than ${target} anchors (their cards use all they have)`);
  if (empty > 0) parts.push(`${plural(empty, "clause")} ${empty === 1 ? "has" : "have"} none (their cards are left out of generation)`);
  return `${parts.join("; ")}.`;
}

function ext(name: string): string {
  const i = name.lastIndexOf(".");
  return i < 0 ? "" : name.slice(i + 1).toLowerCase();
}

/** Why a set of picked files cannot be imported together, or null when it can. */
export function importFilesProblem(names: string[]): string | null {
  if (names.length === 0) return "Choose a file first.";
  const kinds = names.map(ext);
  const bad = names.filter((_, i) => !["jsonl", "csv", "txt", "ndjson"].includes(kinds[i]));
  if (bad.length > 0) return `${bad.join(", ")}: only .jsonl, .csv and .txt files can be imported.`;
  if (names.length > 1 && !kinds.every((k) => k === "txt")) {
    return "Import one JSONL or CSV file at a time, or any number of .txt files (one anchor each).";
  }
  return null;
}

/** What an import did, in sentences. */
export function importSummary(r: AnchorImportResult): string[] {
  const out: string[] = [];
  out.push(r.added.length === 0 ? "No new anchor was added." : `Added ${plural(r.added.length, "anchor")}.`);
  if (r.unbucketed > 0) {
    out.push(`${plural(r.unbucketed, "new anchor is", "new anchors are")} not sorted into a clause yet; generation only uses sorted anchors.`);
  }
  if (r.duplicates.length > 0) {
    out.push(`Skipped ${plural(r.duplicates.length, "duplicate")}: the same text is already stored.`);
  }
  return out;
}

/** "notes.txt has the same text as ours-1" */
export function duplicateSentence(d: { anchor_id: string; location: string; duplicate_of: string }): string {
  return `${d.location} (${d.anchor_id}) has the same text as ${d.duplicate_of}.`;
}

export const OUTCOME_LABEL: Record<string, string> = {
  changed: "Changed",
  unchanged: "Unchanged",
  kept_manual: "Kept (set by hand)",
  failed: "Failed",
};

export const OUTCOME_ICON: Record<string, string> = {
  changed: "✓",
  unchanged: "=",
  kept_manual: "✋",
  failed: "!",
};

export function batchSummary(kind: "presort" | "translate", r: { processed: number; changed: number; failed: number; items: AnchorBatchItem[] }): string {
  const verb = kind === "presort" ? "moved to a new bucket" : "translated";
  const kept = r.items.filter((i) => i.outcome === "kept_manual").length;
  const parts = [`${plural(r.processed, "anchor")} processed`, `${r.changed} ${verb}`];
  if (kind === "presort") parts.push(`${r.items.filter((i) => i.outcome === "unchanged").length} already in the right bucket`);
  if (kept > 0) parts.push(`${kept} kept because a person set the bucket`);
  if (r.failed > 0) parts.push(`${r.failed} failed`);
  return `${parts.join(", ")}.`;
}

export type JobCounts = { done: number; total: number; changed: number; unchanged: number; kept: number; failed: number; tokens: number; cost: number };

/**
 * A job's counts: from its live progress when that is at least as far along as the stored view
 * (it arrives first), otherwise from the stored outcomes.
 */
export function jobCounts(view: AnchorJobView, live: Progress | undefined): JobCounts {
  if (live && live.done >= view.done) {
    const c = live.counters;
    return {
      done: live.done,
      total: live.total,
      changed: c.changed ?? 0,
      unchanged: c.unchanged ?? 0,
      kept: c.kept_manual ?? 0,
      failed: c.failed ?? 0,
      tokens: (c.input_tokens ?? 0) + (c.output_tokens ?? 0),
      cost: c.cost_usd ?? 0,
    };
  }
  const r = view.result;
  return {
    done: view.done,
    total: view.total,
    changed: r.changed,
    unchanged: r.items.filter((i) => i.outcome === "unchanged").length,
    kept: r.items.filter((i) => i.outcome === "kept_manual").length,
    failed: r.failed,
    tokens: r.input_tokens + r.output_tokens,
    cost: r.cost_usd,
  };
}

/** A job stopped with anchors left to do, and not running now, can be resumed. */
export function canResumeJob(job: Pick<AnchorJobView, "status" | "pending">, liveStatus: string | undefined): boolean {
  const status = liveStatus ?? job.status;
  return job.pending > 0 && isResumable(status);
}

export const JOB_KIND_LABEL: Record<string, string> = { presort: "Sort by topic", translate: "Translate to English" };

let names: Intl.DisplayNames | null | undefined;

/** "ja" → "Japanese (ja)"; unknown codes are shown as they are. */
export function languageName(code: string): string {
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames(["en"], { type: "language" });
    } catch {
      names = null;
    }
  }
  try {
    const n = names?.of(code);
    if (n && n.toLowerCase() !== code.toLowerCase()) return `${n} (${code})`;
  } catch {
    /* not a language code */
  }
  return code;
}

export function languagesOf(list: AnchorSummary[]): string[] {
  return Array.from(new Set(list.map((a) => a.language))).sort();
}

/** Anchors a translation would work on: not English and not translated yet. */
export function needsTranslation(list: AnchorSummary[]): AnchorSummary[] {
  return list.filter((a) => !a.translated && a.language.toLowerCase() !== "en");
}

export function bucketOriginText(origin: string | null, note: string | null): string {
  switch (origin) {
    case "builtin":
      return "Bucket of the built-in sample";
    case "manual":
      return "Bucket set by a person";
    case "file":
      return "Bucket named in the imported file";
    case "presort":
      return note ? `Sorted by a model: “${note}”` : "Sorted by a model";
    default:
      return "Not sorted into a clause yet";
  }
}
