// Deciding a draft: accept (some or all of its items) in a named person's name, edit its JSON and
// have it checked again, or reject it with a reason that is kept.

import { useState } from "react";
import { useAction } from "../../../api/client";
import type { Draft } from "../../../api/generated";
import { Modal } from "../../../components/Dialog";
import { ErrorBanner, toast } from "../../../components/Feedback";
import { TextArea } from "../../../components/Forms";
import { plural } from "../../../format";
import { NameField, useRememberedName } from "../../../components/NameField";
import { Blocked } from "./ModelChoice";
import { acceptBlocker, itemsWithErrors, parseItems, rejectBlocker } from "./logic";

export function AcceptDialog({ draft, onClose, onAccepted }: { draft: Draft; onClose: () => void; onAccepted: (cards: string[]) => void }) {
  const withErrors = itemsWithErrors(draft.problems);
  const [chosen, setChosen] = useState<string[]>(draft.item_ids.filter((id) => !withErrors.has(id)));
  const { name, setName, prefilled, remember } = useRememberedName("draftDecider");
  const [notes, setNotes] = useState("");
  const accept = useAction("authoring.accept");
  const blocker = acceptBlocker(name, chosen, withErrors);
  const isVariants = draft.kind === "missing";
  return (
    <Modal
      title="Accept the draft"
      onClose={onClose}
      footer={
        <>
          <Blocked reason={blocker} />
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn btn-primary"
            disabled={!!blocker || accept.busy}
            onClick={async () => {
              remember();
              const all = chosen.length === draft.item_ids.length;
              const r = await accept.run({ draft_id: draft.draft_id, by: name.trim(), notes: notes.trim() || null, item_ids: all ? null : chosen });
              if (r) {
                toast(`${plural(r.cards.length, "card")} added to the library as drafts.`);
                onAccepted(r.cards);
                onClose();
              }
            }}
          >
            {accept.busy ? "Accepting…" : `Accept ${plural(chosen.length, isVariants ? "variant" : "card")}`}
          </button>
        </>
      }
    >
      <p className="small">
        {isVariants
          ? `The variants are added to ${draft.parent_card_id ?? "the parent card"} as a new version, which goes back to draft.`
          : "Accepted cards enter the library as drafts. A person then audits and approves them there before cases are generated from them."}
      </p>
      <fieldset className="radio-group">
        <legend>{isVariants ? "Variants to accept" : "Cards to accept"}</legend>
        {draft.item_ids.map((id) => (
          <label key={id} className="row gap">
            <input
              type="checkbox"
              checked={chosen.includes(id)}
              onChange={(e) => setChosen(e.target.checked ? draft.item_ids.filter((x) => x === id || chosen.includes(x)) : chosen.filter((x) => x !== id))}
            />
            <code className="id">{id}</code>
            {withErrors.has(id) && <span className="error-text small">has errors</span>}
          </label>
        ))}
      </fieldset>
      <NameField role="draftDecider" label="Accepted by" value={name} onChange={setName} prefilled={prefilled} hint="Your name, recorded with the cards." />
      <TextArea label="Notes (optional)" value={notes} onChange={setNotes} rows={2} />
      <ErrorBanner error={accept.error} onDismiss={accept.clearError} title="The draft was not accepted." />
    </Modal>
  );
}

export function RejectDialog({ draft, onClose }: { draft: Draft; onClose: () => void }) {
  const { name, setName, prefilled, remember } = useRememberedName("draftDecider");
  const [reason, setReason] = useState("");
  const reject = useAction("authoring.reject");
  const blocker = rejectBlocker(name, reason);
  return (
    <Modal
      title="Reject the draft"
      onClose={onClose}
      footer={
        <>
          <Blocked reason={blocker} />
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            disabled={!!blocker || reject.busy}
            onClick={async () => {
              remember();
              const r = await reject.run({ draft_id: draft.draft_id, by: name.trim(), reason: reason.trim() });
              if (r) {
                toast("The draft is rejected; it stays listed with your reason.");
                onClose();
              }
            }}
          >
            {reject.busy ? "Rejecting…" : "Reject draft"}
          </button>
        </>
      }
    >
      <p className="small">Nothing enters the library. The draft is kept, marked rejected, with your name and reason.</p>
      <NameField role="draftDecider" label="Rejected by" value={name} onChange={setName} prefilled={prefilled} hint="Your name, kept with the reason." />
      <TextArea label="Reason" value={reason} onChange={setReason} rows={3} hint="What is wrong with it: this helps the next draft." />
      <ErrorBanner error={reject.error} onDismiss={reject.clearError} title="The draft was not rejected." />
    </Modal>
  );
}

export function EditDialog({ draft, onClose }: { draft: Draft; onClose: () => void }) {
  const [text, setText] = useState(() => JSON.stringify(draft.items, null, 2));
  const { name, setName, prefilled, remember } = useRememberedName("author");
  const [result, setResult] = useState<Draft | null>(null);
  const edit = useAction("authoring.draft_edit");
  const parsed = parseItems(text);
  const blocker = !parsed.ok ? parsed.message : !name.trim() ? "Enter your name: the edit is recorded with it." : null;
  return (
    <Modal
      title="Edit the draft"
      wide
      onClose={onClose}
      footer={
        <>
          <Blocked reason={blocker} />
          <button className="btn" onClick={onClose}>
            {result ? "Close" : "Cancel"}
          </button>
          <button
            className="btn btn-primary"
            disabled={!!blocker || edit.busy}
            onClick={async () => {
              if (!parsed.ok) return;
              remember();
              const r = await edit.run({ draft_id: draft.draft_id, by: name.trim(), json: parsed.json });
              if (r) setResult(r);
            }}
          >
            {edit.busy ? "Checking…" : "Save and check"}
          </button>
        </>
      }
    >
      <p className="small muted">The items as JSON (a list). Saving checks them again; the problems found are shown below and on the draft.</p>
      <TextArea label="Items (JSON)" value={text} onChange={setText} rows={18} mono />
      <NameField role="author" label="Edited by" value={name} onChange={setName} prefilled={prefilled} hint="Your name, recorded with the edit." />
      {result && (
        <div role="status" className="stack" data-testid="edit-result">
          {result.problems.length === 0 ? (
            <p className="small">
              <span aria-hidden>✓ </span>Saved. No problems found.
            </p>
          ) : (
            <>
              <p className="small">
                Saved. {plural(result.problems.filter((p) => p.severity === "error").length, "error")} and{" "}
                {plural(result.problems.filter((p) => p.severity === "warning").length, "warning")} found:
              </p>
              <ul className="small">
                {result.problems.map((p, i) => (
                  <li key={i} className={p.severity === "error" ? "error-text" : "warn-text"}>
                    {p.item_id ? <code className="id">{p.item_id}</code> : null} {p.rule}: {p.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <ErrorBanner error={edit.error} onDismiss={edit.clearError} title="The edit was not saved." />
    </Modal>
  );
}
