// Batch mode in the run forms: the switch, and the plan's lines on what batch mode costs and does.
// Used by the Evaluate and Generate forms alike.

import type { BatchNote } from "../api/generated";
import { BATCH_SWITCH_LABEL, batchCostLine, canBatch } from "./batch";
import { Checkbox } from "./Forms";
import "./batch.css";

/**
 * The batch-mode switch. `note` is the latest plan's (null while there is none yet): when none
 * of the chosen models has a batch API the switch is off, disabled, and says why.
 */
export function BatchSwitch({ on, onChange, note }: { on: boolean; onChange: (v: boolean) => void; note: BatchNote | undefined }) {
  const unavailable = !!note && !canBatch(note);
  return (
    <div className="batch-switch">
      <Checkbox
        label={BATCH_SWITCH_LABEL}
        checked={on && !unavailable}
        disabled={unavailable}
        onChange={onChange}
        hint={
          unavailable
            ? "Not available for these models: only OpenAI, Azure OpenAI, Anthropic and Gemini have a batch API. Models on other servers are always called one by one."
            : "The calls are sent in batches that the providers answer later, at their batch prices. The run waits for them; you can close the app meanwhile and it carries on when you reopen it."
        }
      />
    </div>
  );
}

/**
 * What the plan says about batch mode: both costs, how long the providers may take, and which
 * models are batched. Nothing when batch mode is neither asked for nor possible.
 */
export function BatchPlan({ usd, usdBatch, note }: { usd: number | null; usdBatch: number | null; note: BatchNote }) {
  const cost = batchCostLine(usd, usdBatch, note);
  if (!canBatch(note) && !note.note) return null;
  return (
    <div className={`batch-plan ${note.requested && canBatch(note) ? "batch-plan-on" : ""}`} data-testid="batch-plan">
      <h4>{note.requested && canBatch(note) ? "Batch mode is on" : "Batch mode"}</h4>
      {cost && <p className="batch-costs">{cost}</p>}
      {canBatch(note) && note.completion_window && <p className="small">Providers' completion window: {note.completion_window}.</p>}
      {note.note && <p className="small muted">{note.note}</p>}
    </div>
  );
}
