// The engine's warning for a run that finished with problems, as one line under the run's name in
// a list (the same look as the evaluation list's).

import { problemsMessage, type RunProblemsLike } from "../runProblems";

export function RunProblemsLine({ run }: { run: { status: string; problems?: RunProblemsLike | null } }) {
  const message = problemsMessage(run);
  if (!message) return null;
  return (
    <div className="small run-error" data-testid="run-problems">
      <span aria-hidden>⚠ </span>
      {message}
    </div>
  );
}
