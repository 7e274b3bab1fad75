// Choosing the model that authors, and asking once before policy text leaves this computer.

import { ReactNode, useState } from "react";
import type { ModelView } from "../../../api/generated";
import { LocalityBadge } from "../../../components/Badges";
import { ConfirmDialog } from "../../../components/Dialog";
import { needsRemoteConfirm } from "./logic";

export function ModelSelect({ id, label, models, value, onChange }: { id: string; label: string; models: ModelView[]; value: string; onChange: (v: string) => void }) {
  const m = models.find((x) => x.name === value);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="row gap">
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          {models.map((x) => (
            <option key={x.name} value={x.name}>
              {x.name} — {x.local ? "on this computer" : "remote"}
            </option>
          ))}
        </select>
        {m && <LocalityBadge local={m.local} />}
      </div>
    </div>
  );
}

/**
 * Run `action` at once for a model on this computer; for a remote one, first say what is sent and
 * where, and run it only after the person agrees.
 */
export function useRemoteGuard(models: ModelView[]) {
  const [pending, setPending] = useState<{ model: ModelView; what: ReactNode; run: () => unknown } | null>(null);
  const guard = (modelName: string, what: ReactNode, run: () => unknown) => {
    const m = models.find((x) => x.name === modelName);
    if (m && needsRemoteConfirm(m)) setPending({ model: m, what, run });
    else void run();
  };
  const dialog = pending && (
    <ConfirmDialog
      title="Send policy text to a remote model?"
      confirmLabel="Send and continue"
      onCancel={() => setPending(null)}
      onConfirm={() => {
        const p = pending;
        setPending(null);
        void p.run();
      }}
    >
      <p>
        {pending.what} will be sent to <strong>{pending.model.name}</strong> at <code className="id">{pending.model.destination}</code>, which is
        outside this computer.
      </p>
      <p className="muted small">Check that your organisation allows this provider to read the policy text. Choose a model on this computer to keep everything here.</p>
    </ConfirmDialog>
  );
  return { guard, dialog };
}

export function Blocked({ reason }: { reason: string | null }) {
  if (!reason) return null;
  return (
    <p className="small muted blocked-reason" role="note">
      {reason}
    </p>
  );
}
