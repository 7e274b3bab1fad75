// The spending cap of a run: the optional "Spending cap (US$)" field of the run forms, the plan's
// note on how far a cap reaches, and the Resume dialog that raises or drops the cap of a stopped run.

import { useState } from "react";
import type { CapForecast, ResumeParams } from "../api/generated";
import { num, usd } from "../format";
import { Modal } from "./Dialog";
import { Checkbox, Field } from "./Forms";

/** The cap typed in a field: empty is no cap; otherwise an amount above zero. */
export function parseCap(text: string): { cap?: number; error?: string } {
  const t = text.trim();
  if (t === "") return {};
  const v = Number(t);
  if (!Number.isFinite(v) || v <= 0) return { error: "Give an amount in US dollars above zero, or leave the field empty for no cap." };
  return { cap: v };
}

export function SpendingCapField({ value, onChange, unit, error }: { value: string; onChange: (v: string) => void; unit: string; error?: string }) {
  return (
    <Field
      label="Spending cap (US$)"
      hint={`Optional. No new ${unit} starts once the spending so far plus the work in flight would pass it; the run then stops and can be resumed with a higher cap.`}
      error={error}
    >
      {(id) => <input id={id} type="number" min={0} step={0.01} inputMode="decimal" placeholder="no cap" value={value} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}

/** What the plan says when the estimate passes the cap. */
export function CapForecastNote({ cap, unit }: { cap: CapForecast | null; unit: string }) {
  if (!cap) return null;
  return (
    <p className="small plan-cap" role="note">
      <strong>Spending cap {usd(cap.max_cost_usd)}:</strong> at about {usd(cap.item_estimate_usd)} each, it is expected to allow {num(cap.items_allowed)} of{" "}
      {num(cap.items)} {unit}. The run stops there, keeps what is done, and can be resumed with a higher cap.
    </p>
  );
}

/** Resume a stopped run, optionally under a new cap. A run stopped at its cap needs a higher one (or none). */
export function ResumeCapDialog({
  runId,
  capped,
  currentCap,
  spent,
  busy,
  onResume,
  onClose,
}: {
  runId: string;
  capped: boolean;
  currentCap: number | null;
  spent: number;
  busy: boolean;
  onResume: (p: ResumeParams) => void;
  onClose: () => void;
}) {
  const [text, setText] = useState(currentCap !== null ? String(capped ? Math.ceil(currentCap * 2 * 100) / 100 : currentCap) : "");
  const [noCap, setNoCap] = useState(false);
  const parsed = parseCap(text);
  const notHigher = capped && !noCap && currentCap !== null && (parsed.cap === undefined || parsed.cap <= currentCap);
  const error = noCap ? undefined : (parsed.error ?? (notHigher ? `Give a cap above ${usd(currentCap)}, or resume without a cap.` : undefined));
  const params: ResumeParams = noCap ? { run_id: runId, clear_max_cost: true } : parsed.cap !== undefined ? { run_id: runId, max_cost_usd: parsed.cap } : { run_id: runId };
  return (
    <Modal
      title="Resume the run"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={busy || !!error} onClick={() => onResume(params)}>
            {busy ? "Resuming…" : "Resume"}
          </button>
        </>
      }
    >
      <p>
        {capped ? (
          <>
            This run stopped at its spending cap of <strong>{usd(currentCap)}</strong> after spending <strong>{usd(spent)}</strong>. Raise the cap to finish
            it.
          </>
        ) : currentCap !== null ? (
          <>
            This run has a spending cap of <strong>{usd(currentCap)}</strong> ({usd(spent)} spent so far). You can change it before resuming.
          </>
        ) : (
          <>This run has no spending cap ({usd(spent)} spent so far). You can set one before resuming.</>
        )}
      </p>
      {!noCap && <SpendingCapField value={text} onChange={setText} unit="item" error={error} />}
      <Checkbox label="Resume without a spending cap" checked={noCap} onChange={setNoCap} />
    </Modal>
  );
}
