// Move one anchor to a clause's bucket (or out of every bucket), choosing the clause by its
// short title. A bucket set by a person is never changed by the model pre-sort.

import { useMemo, useState } from "react";
import { useAction } from "../../api/client";
import { Modal } from "../../components/Dialog";
import { ErrorBanner } from "../../components/Feedback";
import type { ClauseIndex } from "./clauses";

export function BucketDialog({
  anchorId,
  current,
  clauses,
  onClose,
  onMoved,
}: {
  anchorId: string;
  current: string | null;
  clauses: ClauseIndex | undefined;
  onClose: () => void;
  onMoved: (clause: string | null) => void;
}) {
  const [choice, setChoice] = useState<string>(current ?? "");
  const [filter, setFilter] = useState("");
  const move = useAction("anchor.set_bucket");
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (clauses?.list ?? []).filter((c) => !f || `${c.global_no} ${c.short_title} ${c.label} ${c.category}`.toLowerCase().includes(f));
  }, [clauses, filter]);
  const save = async () => {
    const r = await move.run({ anchor_id: anchorId, clause_id: choice || undefined });
    if (r) onMoved(r.clause_id);
  };
  return (
    <Modal
      title="Move to a bucket"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={move.busy || choice === (current ?? "")} onClick={save}>
            Move
          </button>
        </>
      }
    >
      <p className="small muted">
        Choose the clause whose kind of event this report is about. This only decides which cards may borrow its setting; it says nothing about
        whether the event is reportable.
      </p>
      <div className="field">
        <label htmlFor="bucket-filter">Find a clause</label>
        <input id="bucket-filter" type="search" value={filter} placeholder="e.g. fall, medication, burn" onChange={(e) => setFilter(e.target.value)} />
      </div>
      <fieldset className="clause-choices">
        <legend className="sr-only">Bucket for {anchorId}</legend>
        <label className={`clause-choice ${choice === "" ? "checked" : ""}`}>
          <input type="radio" name="bucket" value="" checked={choice === ""} onChange={() => setChoice("")} />
          <span>
            <strong>No bucket</strong>
            <span className="muted small"> — kept, but never used for generation</span>
          </span>
        </label>
        {shown.map((c) => (
          <label key={c.clause_id} className={`clause-choice ${choice === c.clause_id ? "checked" : ""}`}>
            <input type="radio" name="bucket" value={c.clause_id} checked={choice === c.clause_id} onChange={() => setChoice(c.clause_id)} />
            <span>
              <strong>
                {c.global_no}. {c.short_title}
              </strong>
              <span className="muted small"> — {c.label}</span>
              {c.clause_id === current && <span className="badge">current</span>}
            </span>
          </label>
        ))}
        {shown.length === 0 && <p className="muted small">No clause matches “{filter}”.</p>}
      </fieldset>
      <ErrorBanner error={move.error} onDismiss={move.clearError} title="The anchor was not moved." />
    </Modal>
  );
}
