// The eight metrics as people read them: names, what each one measures, how to show a value, its
// precision/recall breakdown, confidence interval, and which model is best per column.

import type { Cell, Column, Interval, McNemar, ModelMetrics, Prf, Table } from "../../api/generated";

export type MetricKey = "M1" | "M2" | "M3" | "M4" | "M5" | "M6" | "M7" | "M8";

export type MetricInfo = {
  key: MetricKey;
  /** Short column name. */
  name: string;
  /** What it measures, in one or two plain sentences. */
  explain: string;
  prf: boolean;
  ci: boolean;
};

/**
 * "Answered" means one thing everywhere (the CLI's metrics table, this leaderboard, the README):
 * cases where the model gave a readable verdict. Cases the model worked through at all (with a
 * trajectory) are its "transcripts"; those without one were never run.
 */
export const ANSWERED = {
  label: "Answered",
  sub: "of all cases",
  explain: "Cases where the model gave a readable verdict (Reportable, Non-reportable or Uncertain), out of all cases in the chosen runs.",
};

/** Cases with a readable verdict: the number shown under "Answered". */
export const answeredCount = (m: ModelMetrics) => m.cases - m.no_verdict;

/** The note under "Answered" when some cases have no transcript at all (never run), else null. */
export function withoutTranscriptNote(m: ModelMetrics): string | null {
  const n = m.cases - m.trajectories;
  return n > 0 ? `${n.toLocaleString("en-US")} without a transcript` : null;
}

export const METRICS: MetricInfo[] = [
  {
    key: "M1",
    name: "Verdict accuracy",
    explain: "Percent of all cases whose final verdict (Reportable, Non-reportable or Uncertain) is the expected one. A case without a readable verdict counts as wrong.",
    prf: false,
    ci: true,
  },
  {
    key: "M2",
    name: "Clause accuracy",
    explain: "Among Reportable cases that the model also called Reportable: percent where it named the right clause.",
    prf: false,
    ci: false,
  },
  {
    key: "M3",
    name: "Evidence citation F1",
    explain: "Agreement between the clauses and guidance the model cited and the expected legal basis (F1, counts pooled over cases with a correct verdict).",
    prf: true,
    ci: false,
  },
  {
    key: "M4",
    name: "Boundary-condition hit rate",
    explain: "Share of each case's boundary conditions that the rationale addresses correctly, according to the judge model (cases with a correct verdict).",
    prf: false,
    ci: false,
  },
  {
    key: "M5",
    name: "Missing-case detection F1",
    explain: "Does the model ask questions when facts are missing, and only then? Asking on a complete or uncertain case counts as a false alarm.",
    prf: true,
    ci: false,
  },
  {
    key: "M6",
    name: "Missing-slot identification F1",
    explain: "On missing-information cases where the model asked: how well the facts it obtained match the facts that were withheld (F1).",
    prf: true,
    ci: false,
  },
  {
    key: "M7",
    name: "Uncertain detection F1",
    explain: "How well the model keeps the Uncertain verdict for the gray-zone cases that need it (F1, Uncertain as the positive class).",
    prf: true,
    ci: true,
  },
  {
    key: "M8",
    name: "Reportable detection F1",
    explain: "How well the model flags the events that must be reported (F1, Reportable as the positive class).",
    prf: true,
    ci: true,
  },
];

/** The headline number of a metric (percent), or null. */
export function metricValue(m: ModelMetrics, key: MetricKey): number | null {
  const v = m[key];
  if (v === null || v === undefined) return null;
  return typeof v === "number" ? v : v.f1;
}

export function metricPrf(m: ModelMetrics, key: MetricKey): Prf | null {
  const v = m[key];
  return v !== null && typeof v === "object" ? v : null;
}

export function metricCi(m: ModelMetrics, key: MetricKey): Interval | null {
  const ci = m.confidence_intervals;
  if (!ci) return null;
  if (key === "M1") return ci.M1;
  if (key === "M7") return ci.M7;
  if (key === "M8") return ci.M8;
  return null;
}

const one = (v: number) => v.toFixed(1);

/** "Precision 80.0 · Recall 75.0 · TP 12 · FP 3 · FN 4". */
export function prfText(p: Prf): string {
  return `Precision ${one(p.precision)} · Recall ${one(p.recall)} · TP ${p.tp} · FP ${p.fp} · FN ${p.fn}`;
}

/** "[88.1, 93.0]". */
export function ciText(i: Interval): string {
  return `[${one(i.lo)}, ${one(i.hi)}]`;
}

/** Indices of the best value in a list (ties all win); none when every value is null. */
export function bestIndices(values: (number | null)[], rule: "max" | "min" = "max"): Set<number> {
  let best: number | null = null;
  values.forEach((v) => {
    if (v === null || Number.isNaN(v)) return;
    if (best === null || (rule === "max" ? v > best : v < best)) best = v;
  });
  const out = new Set<number>();
  if (best === null) return out;
  // When every value is the same there is no best one to point out.
  const present = values.filter((v): v is number => v !== null && !Number.isNaN(v));
  if (present.length > 1 && present.every((v) => v.toFixed(1) === present[0].toFixed(1))) return out;
  // Compare at the shown precision, so two models shown with the same number are both bold.
  const shown = (best as number).toFixed(1);
  values.forEach((v, i) => {
    if (v !== null && v.toFixed(1) === shown) out.add(i);
  });
  return out;
}

/** p-value for people: "< 0.001", "0.042", "1.000". */
export function pValueText(p: number): string {
  if (p < 0.001) return "< 0.001";
  return p.toFixed(3);
}

export function mcnemarVerdict(t: McNemar): string {
  if (t.a_only + t.b_only === 0) return "No difference on shared cases";
  if (t.p_value >= 0.05) return "Not significant";
  return t.a_only > t.b_only ? `${t.model_a} better (p < 0.05)` : `${t.model_b} better (p < 0.05)`;
}

// ---- Generic tables from the engine ----

/** The text of a table cell: one decimal for numbers, "–" for nothing. */
export function cellText(c: Cell): string {
  switch (c.kind) {
    case "text":
      return c.text;
    case "number":
      return c.value === null ? "–" : c.value.toFixed(c.decimals);
    case "count":
      return c.value === null ? "–" : c.value.toLocaleString("en-US");
    case "count_pct":
      if (c.count === null && c.pct === null) return "–";
      return `${c.count === null ? "–" : c.count.toLocaleString("en-US")} (${c.pct === null ? "–" : c.pct.toFixed(1)}%)`;
  }
}

export function cellNumber(c: Cell): number | null {
  switch (c.kind) {
    case "number":
    case "count":
      return c.value;
    case "count_pct":
      return c.pct;
    default:
      return null;
  }
}

/** For each column, the rows whose value is the best (per the column's rule); shown in bold. */
export function bestCells(t: Table): Set<string> {
  const out = new Set<string>();
  t.columns.forEach((col: Column, ci) => {
    if (col.best === "none") return;
    const values = t.rows.map((r) => (r[ci] ? cellNumber(r[ci]) : null));
    for (const ri of bestIndices(values, col.best)) out.add(`${ri}:${ci}`);
  });
  return out;
}
