// A run that went through every case but whose replies were mostly unreadable is not a plain
// "finished": the engine sends its warning (`problems`, with counts and the reason) and the app
// shows it as its own state, everywhere a run's status is shown.

/** The engine's warning for a finished run whose results are mostly unusable. */
export interface RunProblemsLike {
  unusable: number | bigint;
  finished: number | bigint;
  message: string;
}

/** The status a list or badge shows: "completed_with_problems" for a finished run with a warning. */
export function shownStatus(status: string, problems: RunProblemsLike | null | undefined): string {
  return status === "completed" && problems ? "completed_with_problems" : status;
}

/** Whether a run finished with a warning about its results. */
export function finishedWithProblems(r: { status: string; problems?: RunProblemsLike | null }): boolean {
  return shownStatus(r.status, r.problems) === "completed_with_problems";
}
