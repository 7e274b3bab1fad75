// Example runs (fictional models, made by "Explore example results") versus the user's own runs:
// what Home counts, where "Explore results" goes, and what the Results page keeps selected after a
// run is deleted.

import type { RunStatus } from "../../api/generated";

type RunLike = { run_id: string; status: RunStatus; config: { example?: boolean } };

export function isExample(r: RunLike | undefined): boolean {
  return r?.config.example === true;
}

/** What Home counts: the user's own runs only; example runs are reported apart. */
export function homeCounts(runs: RunLike[]): { own: number; ownFinished: number; exampleFinished: string[] } {
  const own = runs.filter((r) => !isExample(r));
  return {
    own: own.length,
    ownFinished: own.filter((r) => r.status === "completed").length,
    exampleFinished: runs.filter((r) => isExample(r) && r.status === "completed").map((r) => r.run_id),
  };
}

/** The `runs` query of the Results page once some runs are gone: the rest, or null for none. */
export function selectionWithout(selected: string[], gone: string[]): string | null {
  const rest = selected.filter((id) => !gone.includes(id));
  return rest.length ? rest.join(",") : null;
}
