// Record an audit decision on a card: draft, audited or approved, with the auditor's name and notes.
// No decision is chosen beforehand: the auditor picks one, and the button waits for it.

import { useState } from "react";
import { useAction } from "../../api/client";
import type { AuditStatus, CardDetail } from "../../api/generated";
import { StatusBadge } from "../../components/Badges";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Notice, toast } from "../../components/Feedback";
import { TextArea } from "../../components/Forms";
import { NameField, useRememberedName } from "../../components/NameField";
import { plural, STATUS_LABEL } from "../../format";
import { decisionBlocker } from "./logic";
import { Blocked } from "./authoring/ModelChoice";

const CHOICES: { value: AuditStatus; text: string }[] = [
  { value: "draft", text: "Being written or changed. Not used to generate cases." },
  { value: "audited", text: "Checked by a person against the policy, waiting for approval. Not used to generate cases yet." },
  { value: "approved", text: "Ready: cases are generated from approved cards only." },
];

export function AuditDialog({ detail, onClose, onShowLint }: { detail: CardDetail; onClose: () => void; onShowLint: () => void }) {
  const s = detail.summary;
  const [status, setStatus] = useState<AuditStatus | null>(null);
  const { name: auditor, setName: setAuditor, prefilled, remember } = useRememberedName("auditor");
  const [notes, setNotes] = useState("");
  const audit = useAction("card.audit");
  const blocker = decisionBlocker(status, auditor);

  const submit = async () => {
    if (!status) return;
    remember();
    const d = await audit.run({ card_id: s.card_id, status, auditor: auditor.trim(), notes: notes.trim() || null });
    if (d) {
      toast(`${s.card_id} is now ${STATUS_LABEL[d.summary.status].toLowerCase()}.`);
      onClose();
    }
  };

  return (
    <Modal
      title="Record an audit decision"
      onClose={onClose}
      footer={
        <>
          <Blocked reason={blocker} />
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={!!blocker || audit.busy} onClick={submit}>
            {audit.busy ? "Recording…" : status ? `Mark as ${STATUS_LABEL[status].toLowerCase()}` : "Record the decision"}
          </button>
        </>
      }
    >
      <div className="row gap wrap">
        <span className="muted">
          {s.card_id}, version {s.version}, is now
        </span>
        <StatusBadge status={s.status} />
      </div>
      <fieldset className="radio-group">
        <legend>Decision</legend>
        {CHOICES.map((c) => (
          <label key={c.value} className={`radio-choice ${status === c.value ? "radio-on" : ""}`}>
            <input type="radio" name="audit-status" value={c.value} checked={status === c.value} onChange={() => setStatus(c.value)} />
            <span>
              <StatusBadge status={c.value} />
              <span className="muted small radio-text">{c.text}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {s.lint_errors > 0 && status !== null && status !== "draft" ? (
        <Notice kind="warn" title={`This card has ${plural(s.lint_errors, "lint error")}.`}>
          A card can be marked audited or approved only when it has no lint errors.{" "}
          <button
            type="button"
            className="link"
            onClick={() => {
              onClose();
              onShowLint();
            }}
          >
            See the problems
          </button>
        </Notice>
      ) : (
        <p className="muted small">A card can be marked audited or approved only when it has no lint errors. Only approved cards are used for generation.</p>
      )}
      <NameField role="auditor" label="Auditor" value={auditor} onChange={setAuditor} prefilled={prefilled} hint="Your name, recorded with the decision." />
      <TextArea label="Notes (optional)" value={notes} onChange={setNotes} rows={3} hint="What you checked, or what must change." />
      <ErrorBanner error={audit.error} onDismiss={audit.clearError} title="The decision was not recorded." />
    </Modal>
  );
}
