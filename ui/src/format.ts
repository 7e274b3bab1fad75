// Words and numbers as our users read them.

export type VerdictKey = "Reportable" | "Non-reportable" | "Uncertain" | "Missing information" | "none";

/** A verdict string (gold, predicted or review) normalised to one of the known keys. */
export function verdictKey(v: string | null | undefined): VerdictKey {
  switch (v) {
    case "Reportable":
      return "Reportable";
    case "Non-reportable":
    case "Non_Reportable":
      return "Non-reportable";
    case "Uncertain":
      return "Uncertain";
    case "Missing information":
    case "Missing":
      return "Missing information";
    default:
      return "none";
  }
}

export const VERDICT_LABEL: Record<VerdictKey, string> = {
  Reportable: "Reportable",
  "Non-reportable": "Non-reportable",
  Uncertain: "Uncertain",
  "Missing information": "Missing information",
  none: "No verdict",
};

export const CASE_TYPE_LABEL: Record<string, string> = {
  complete: "Complete",
  missing: "Missing information",
  uncertain: "Uncertain (gray zone)",
};

export const EVENT_TYPE_LABEL: Record<string, string> = {
  Reportable: "Reportable",
  Non_Reportable: "Non-reportable",
  Uncertain: "Uncertain",
};

export const STATUS_LABEL: Record<string, string> = {
  draft: "Draft",
  audited: "Audited",
  approved: "Approved",
  pending: "Not started",
  running: "Running",
  completed: "Finished",
  cancelled: "Stopped",
  failed: "Stopped by a problem",
  interrupted: "Interrupted",
  cost_capped: "Stopped: cost cap",
};

/** A percentage with one decimal, or an en dash when undefined. */
export function pct(v: number | null | undefined, decimals = 1): string {
  return v === null || v === undefined || Number.isNaN(v) ? "–" : v.toFixed(decimals);
}

export function num(v: number | null | undefined, decimals = 0): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  return v.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return "unknown";
  if (v === 0) return "$0";
  if (v < 0.01) return "< $0.01";
  return `$${v.toFixed(2)}`;
}

export function tokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return "–";
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return n.toLocaleString("en-US");
}

export function duration(secs: number | null | undefined): string {
  if (secs === null || secs === undefined || !Number.isFinite(secs)) return "–";
  const s = Math.max(0, Math.round(secs));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** "2026-11-24T01:20:42Z" → "24 Nov 2026, 01:20". */
export function when(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** `snake_case_name` → "snake case name" (for boundary conditions and elements). */
export function humanize(name: string): string {
  return name.replace(/_/g, " ").replace(/\s+/g, " ").trim();
}

export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * A value read from stored JSON, as text: strings as they are, numbers and flags as written, lists
 * as `String()` writes them, and objects as JSON (where `String()` would print "[object Object]").
 */
export function jsonText(v: unknown): string {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return JSON.stringify(v);
  return String(v);
}

/**
 * Where a long name or id may wrap: after `-_.:/` and between the words of a CamelCase name
 * ("demo_CareManagement_1" → "demo_", "Care", "Management_", "1"). The parts join back to `text`.
 */
export function breakParts(text: string): string[] {
  return text.split(/(?<=[-_.:/])|(?<=[a-z])(?=[A-Z])/).filter((p) => p !== "");
}
