// Pure logic of batch mode in the app (unit-tested in batch.test.ts): the plan's two costs, the
// words for a batch's state, and the sentence above a run's provider batches.

import type { BatchNote, BatchView } from "../api/generated";
import { plural, usd } from "../format";

/** The switch's label, the same in both run forms. */
export const BATCH_SWITCH_LABEL = "Use the providers' batch APIs (about half the price; results can take up to 24 hours)";

/** Whether any model of a plan has a batch API (otherwise the switch has nothing to do). */
export function canBatch(note: BatchNote | undefined): boolean {
  return !!note && note.batched_models.length > 0;
}

function costWords(v: number | null): string {
  if (v === null) return "unknown (no price registered)";
  if (v === 0) return "free";
  return `about ${usd(v)}`;
}

/** "Online: about $4.10 · In batch mode: about $2.05", or null when no model of the plan has a batch API. */
export function batchCostLine(online: number | null, batch: number | null, note: BatchNote | undefined): string | null {
  if (!canBatch(note)) return null;
  return `Online: ${costWords(online)} · In batch mode: ${costWords(batch)}`;
}

/** A batch's state as a plain word, with the status badge's look and icon. */
export const BATCH_STATE: Record<string, { label: string; icon: string; badge: string }> = {
  submitting: { label: "Sending", icon: "↑", badge: "pending" },
  in_progress: { label: "At the provider", icon: "↻", badge: "running" },
  ended: { label: "Ended", icon: "✓", badge: "completed" },
  failed: { label: "Failed", icon: "!", badge: "failed" },
};

export function batchState(state: string): { label: string; icon: string; badge: string } {
  return BATCH_STATE[state] ?? { label: state.replace(/_/g, " "), icon: "•", badge: "pending" };
}

/** Batches still being sent or still at the provider. */
export function openBatches(list: BatchView[]): BatchView[] {
  return list.filter((b) => b.state === "submitting" || b.state === "in_progress");
}

/** The one sentence above the batches: what the run waits for, and what the person can do. */
export function batchSummary(list: BatchView[], running: boolean): string {
  const open = openBatches(list).length;
  const failed = list.filter((b) => b.state === "failed").length;
  const answered = list.reduce((n, b) => n + b.succeeded, 0);
  if (list.length === 0) {
    return running
      ? "No batch has been sent yet: the run gathers the first requests and sends them in a moment."
      : "This run sent no provider batch: every call was made directly.";
  }
  if (running && open > 0) {
    return `Waiting for ${plural(open, "batch", "batches")} at the providers; you can close the app — the run continues where it stopped when you reopen it.`;
  }
  if (running) {
    return `Every batch sent so far has ended (${plural(answered, "request")} answered); the run sends the next round as soon as its requests are ready.`;
  }
  if (open > 0) {
    return `${plural(open, "batch", "batches")} ${open === 1 ? "is" : "are"} still at the providers. Resume the run (or reopen the app) to collect ${open === 1 ? "its" : "their"} answers; nothing is sent twice.`;
  }
  const failedNote = failed > 0 ? `, ${failed} failed (their requests were tried again in a later batch)` : "";
  return `${plural(list.length, "batch", "batches")} sent: ${list.length - failed} ended${failedNote}; ${plural(answered, "request")} answered at batch prices.`;
}

/** A batch's time: the clock time with seconds, and the date too when it is not `today`. */
export function batchTime(iso: string | null | undefined, today: Date = new Date()): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return d.toDateString() === today.toDateString() ? time : `${d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" })}, ${time}`;
}

/** How often the batches of a running run are fetched again. */
export const BATCH_REFRESH_MS = 3000;
