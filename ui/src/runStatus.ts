// Which stopped runs can be resumed, said once for every kind of run (evaluations, generation,
// drafting, label audits, anchor jobs). The engine's statuses are typed (RunStatus); a run that is
// still "pending" is about to start, so the app never offers to resume it.

import type { RunStatus } from "./api/generated";

/** Statuses of runs that stopped before every item was done: stopped, failed, interrupted, or stopped at the spending cap. */
export const RESUMABLE: ReadonlySet<RunStatus> = new Set<RunStatus>(["cancelled", "failed", "interrupted", "cost_capped"]);

/** Whether a run with this status (as stored, or as its live progress reports it) stopped and can be resumed. */
export function isResumable(status: string | undefined): boolean {
  const statuses: ReadonlySet<string> = RESUMABLE;
  return status !== undefined && statuses.has(status);
}
