// A run that went through every item but whose results were mostly unusable (replies that could
// not be read, calls that failed) is not a plain "finished": the engine sends its warning
// (`problems`, with counts and the reason) and the app shows it as its own state, everywhere a
// run's status is shown. The engine decides; this file only maps its warning to a status.

/** The engine's warning for a finished run whose results are mostly unusable. */
export interface RunProblemsLike {
  unusable: number | bigint;
  finished: number | bigint;
  message: string;
}

/** The status a list or badge shows: "completed_with_problems" for a run with a warning. An anchor
 * job whose anchors mostly failed is stored as failed (so that Resume tries them again), and is
 * shown with the same warning. */
export function shownStatus(status: string, problems: RunProblemsLike | null | undefined): string {
  return (status === "completed" || status === "failed") && problems ? "completed_with_problems" : status;
}

/** Whether a run finished with a warning about its results. */
export function finishedWithProblems(r: { status: string; problems?: RunProblemsLike | null }): boolean {
  return shownStatus(r.status, r.problems) === "completed_with_problems";
}

/** The warning's sentence when the run finished with problems, else null. */
export function problemsMessage(r: { status: string; problems?: RunProblemsLike | null }): string | null {
  return finishedWithProblems(r) ? (r.problems?.message ?? null) : null;
}
