// Small labelled badges. Colour is never the only signal: every badge has a word and an icon.

import { Breakable } from "./Breakable";
import { CASE_TYPE_LABEL, EVENT_TYPE_LABEL, STATUS_LABEL, VERDICT_LABEL, verdictKey } from "../format";

const VERDICT_ICON: Record<string, string> = {
  Reportable: "▲",
  "Non-reportable": "●",
  Uncertain: "◆",
  "Missing information": "?",
  none: "–",
};

export function VerdictBadge({ verdict, compact = false, title }: { verdict: string | null | undefined; compact?: boolean; title?: string }) {
  const k = verdictKey(verdict);
  const label = VERDICT_LABEL[k];
  return (
    <span className={`badge verdict verdict-${k.replace(/\s+/g, "-").toLowerCase()}`} title={title ?? label}>
      <span aria-hidden className="badge-icon">
        {VERDICT_ICON[k]}
      </span>
      {compact ? <span className="sr-only">{label}</span> : label}
    </span>
  );
}

export function EventTypeBadge({ eventType }: { eventType: string }) {
  return <VerdictBadge verdict={eventType} title={`Card event type: ${EVENT_TYPE_LABEL[eventType] ?? eventType}`} />;
}

export function CaseTypeBadge({ caseType }: { caseType: string }) {
  return <span className={`badge casetype casetype-${caseType}`}>{CASE_TYPE_LABEL[caseType] ?? caseType}</span>;
}

const STATUS_ICON: Record<string, string> = {
  draft: "✎",
  audited: "◐",
  approved: "✓",
  running: "↻",
  completed: "✓",
  completed_with_problems: "⚠",
  cancelled: "■",
  failed: "!",
  interrupted: "‖",
  cost_capped: "$",
  pending: "…",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge status status-${status}`}>
      <span aria-hidden className="badge-icon">
        {STATUS_ICON[status] ?? "•"}
      </span>
      {STATUS_LABEL[status] ?? status}
    </span>
  );
}

export function LocalityBadge({ local }: { local: boolean }) {
  return local ? (
    <span className="badge local" title="Requests stay on this computer">
      <span aria-hidden className="badge-icon">⌂</span>On this computer
    </span>
  ) : (
    <span className="badge remote" title="Requests leave this computer">
      <span aria-hidden className="badge-icon">↗</span>Remote
    </span>
  );
}

/** An identifier: small, monospace, copyable. */
export function Id({ value }: { value: string }) {
  return (
    <code className="id" title="Click to copy" onClick={() => navigator.clipboard?.writeText(value).catch(() => {})}>
      <Breakable text={value} />
    </code>
  );
}

/** Marks a model, a run or a result made by the built-in demo model, a simulation. */
export function SimulationBadge() {
  return (
    <span className="badge simulation" title="Made by the built-in demo model: a scripted simulation for learning the app, not a real language model.">
      <span aria-hidden className="badge-icon">
        ⚗
      </span>
      Simulation
    </span>
  );
}
