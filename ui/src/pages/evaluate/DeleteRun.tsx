// Deleting runs: one run (from the Evaluate and Results run lists) or all the example results.
// The engine says what goes and what stays before anything is removed; the dialog shows it and
// asks once.

import { useAction, useApi } from "../../api/client";
import type { RunRemoval } from "../../api/generated";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Loading, toast } from "../../components/Feedback";

function RemovalLists({ removes, keeps }: { removes: string[]; keeps: string[] }) {
  return (
    <>
      <h3 className="small-heading">This removes</h3>
      <ul className="removal-list">
        {removes.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
      <h3 className="small-heading">This stays</h3>
      <ul className="removal-list">
        {keeps.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
    </>
  );
}

function runName(r: RunRemoval): string {
  return `${r.model || "a run without a model name"}${r.label ? ` · ${r.label}` : ""}`;
}

/** "Delete run…": what the engine will remove, then the deletion. */
export function DeleteRunDialog({ runId, onClose, onDeleted }: { runId: string; onClose: () => void; onDeleted?: (runId: string) => void }) {
  const preview = useApi("evaluation.delete_preview", { run_id: runId });
  const del = useAction("evaluation.delete");
  const p = preview.data;
  return (
    <Modal
      title="Delete this run?"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            disabled={!p || del.busy}
            onClick={async () => {
              const r = await del.run({ run_id: runId });
              if (r) {
                toast(`Deleted the run of ${runName(r)}.`);
                onDeleted?.(runId);
                onClose();
              }
            }}
          >
            {del.busy ? "Deleting…" : "Delete run"}
          </button>
        </>
      }
    >
      <ErrorBanner error={preview.error} title="This run cannot be deleted." />
      <ErrorBanner error={del.error} onDismiss={del.clearError} title="Nothing was deleted." />
      {!p && !preview.error && <Loading label="Reading what belongs to the run…" />}
      {p && (
        <>
          <p>
            The run of <strong>{runName(p)}</strong> <code className="id">{p.run_id}</code>
            {p.example ? " (example results of a fictional model)" : ""}.
          </p>
          <RemovalLists removes={p.removes} keeps={p.keeps} />
          <p className="muted small">Deleting cannot be undone. To keep a copy, export the run's trajectories first.</p>
        </>
      )}
    </Modal>
  );
}

/** "Remove example results": every example run of the fictional models at once. */
export function RemoveExamplesDialog({ onClose, onRemoved }: { onClose: () => void; onRemoved?: (runIds: string[]) => void }) {
  const preview = useApi("demo.remove_example_results_preview", {});
  const remove = useAction("demo.remove_example_results");
  const p = preview.data;
  return (
    <Modal
      title="Remove the example results?"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            disabled={!p || p.runs.length === 0 || remove.busy}
            onClick={async () => {
              const r = await remove.run({});
              if (r) {
                toast(`Removed the example results (${r.runs.length} runs).`);
                onRemoved?.(r.runs.map((x) => x.run_id));
                onClose();
              }
            }}
          >
            {remove.busy ? "Removing…" : "Remove example results"}
          </button>
        </>
      }
    >
      <ErrorBanner error={preview.error} title="The example results cannot be removed now." />
      <ErrorBanner error={remove.error} onDismiss={remove.clearError} title="Nothing was removed." />
      {!p && !preview.error && <Loading label="Reading the example results…" />}
      {p && (
        <>
          <p>{p.summary}</p>
          {p.runs.length > 0 && (
            <ul className="removal-list">
              {p.runs.map((r) => (
                <li key={r.run_id}>
                  <strong>{r.model}</strong>: {r.trajectories} transcripts <code className="id">{r.run_id}</code>
                </li>
              ))}
            </ul>
          )}
          <p className="muted small">You can bring them back at any time with “Explore example results” on the Results page.</p>
        </>
      )}
    </Modal>
  );
}
