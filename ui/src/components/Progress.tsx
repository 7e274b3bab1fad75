// Progress of long work: a bar with counts, time left, tokens and cost, and a cancel that asks once.

import { useState } from "react";
import type { Progress } from "../api/generated";
import { duration, num, tokens, usd } from "../format";
import { ConfirmDialog } from "./Dialog";
import { StatusBadge } from "./Badges";
import { RequestsInFlight } from "./RequestsInFlight";

export function ProgressBar({ value, max, label }: { value: number; max: number; label: string }) {
  const pctDone = max > 0 ? Math.min(100, (100 * value) / max) : 0;
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value}>
      <div className="progress-fill" style={{ width: `${pctDone}%` }} />
    </div>
  );
}

const COUNTER_LABEL: Record<string, string> = {
  correct: "correct",
  asks: "questions asked",
  parse_failures: "unreadable replies",
  errors: "provider errors",
  accepted: "accepted",
  dropped: "dropped",
  retries: "retries",
  judged: "judged",
  judge_failed: "without a usable judgement",
  drafted: "drafted",
  failed: "not drafted",
};

export function RunProgress({
  progress,
  unit = "cases",
  onCancel,
  cancelText = "Finished items are kept; you can resume the run later.",
}: {
  progress: Progress;
  unit?: string;
  onCancel?: () => void;
  cancelText?: string;
}) {
  const [asking, setAsking] = useState(false);
  const c = progress.counters;
  const tok = (c.prompt_tokens ?? 0) + (c.completion_tokens ?? 0) + (c.input_tokens ?? 0) + (c.output_tokens ?? 0) + (c.tokens ?? 0);
  const running = progress.status === "running";
  return (
    <div className="run-progress" aria-live="polite">
      <div className="row between">
        <div className="row gap">
          <StatusBadge status={progress.status} />
          <strong>
            {num(progress.done)} / {num(progress.total)} {unit}
          </strong>
          {running && progress.eta_secs !== null && <span className="muted">about {duration(progress.eta_secs)} left</span>}
        </div>
        {running && onCancel && (
          <button className="btn" onClick={() => setAsking(true)}>
            Stop
          </button>
        )}
      </div>
      <ProgressBar value={progress.done} max={progress.total} label={`${progress.done} of ${progress.total} ${unit} done`} />
      <div className="row gap wrap small muted">
        {Object.entries(COUNTER_LABEL)
          .filter(([k]) => c[k] !== undefined)
          .map(([k, label]) => (
            <span key={k}>
              {num(c[k])} {label}
            </span>
          ))}
        <span>{tokens(tok)} tokens</span>
        <span>{c.max_cost_usd !== undefined ? `${usd(c.spent_usd ?? c.cost_usd ?? 0)} of the ${usd(c.max_cost_usd)} cap` : usd(c.cost_usd ?? 0)}</span>
        <span>{duration(progress.elapsed_secs)} elapsed</span>
      </div>
      <RequestsInFlight counters={c} running={running} />
      {progress.message && <div className="small">{progress.message}</div>}
      {asking && (
        <ConfirmDialog
          title="Stop this run?"
          confirmLabel="Stop the run"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            onCancel?.();
          }}
        >
          Work in flight finishes first. {cancelText}
        </ConfirmDialog>
      )}
    </div>
  );
}
