// The case-by-model grid: decoding the engine's compact cells, filters (kept in the URL), sorting,
// and previous/next within the current filter. Pure functions over typed arrays, so 5,074 rows ×
// 15 models filter and sort in a few milliseconds.

import { base64ToBytes } from "../../api/files";
import type { ResultsGrid } from "../../api/generated";

/** Cell code (see the engine's `ResultsGrid`): 0 = no trajectory. */
export const present = (code: number) => (code & 1) === 1;
/** Verdict index: 0 none, 1 Reportable, 2 Non-reportable, 3 Uncertain. */
export const verdictOf = (code: number) => (code >> 1) & 3;
export const correctOf = (code: number) => (code & 8) === 8;
export const asksOf = (code: number) => code >> 4;

export const VERDICTS = ["", "Reportable", "Non-reportable", "Uncertain"] as const;
export const CASE_TYPES = ["complete", "missing", "uncertain"] as const;

/** The grid as typed arrays, ready for filtering. */
export type Grid = {
  models: string[];
  modelRuns: string[];
  caseIds: string[];
  caseType: Uint8Array;
  clauses: string[];
  clause: Uint32Array;
  gold: Uint8Array;
  /** One array per model column. */
  cells: Uint8Array[];
  /** Per case: how many models gave the right verdict. */
  right: Uint8Array;
  /** Per case: whether the models that answered gave different verdicts (no answer counts as one). */
  disagree: Uint8Array;
  rows: number;
};

export function decodeGrid(g: ResultsGrid): Grid {
  const n = g.case_ids.length;
  const cells = g.cells.map((c) => base64ToBytes(c));
  const right = new Uint8Array(n);
  const disagree = new Uint8Array(n);
  for (let r = 0; r < n; r++) {
    let seen = -1;
    let differ = 0;
    let ok = 0;
    for (let m = 0; m < cells.length; m++) {
      const c = cells[m][r];
      if (!present(c)) continue;
      if (correctOf(c)) ok++;
      const v = verdictOf(c);
      if (seen === -1) seen = v;
      else if (seen !== v) differ = 1;
    }
    right[r] = ok;
    disagree[r] = differ;
  }
  return {
    models: g.models,
    modelRuns: g.model_runs,
    caseIds: g.case_ids,
    caseType: Uint8Array.from(g.case_type),
    clauses: g.clauses,
    clause: Uint32Array.from(g.clause),
    gold: Uint8Array.from(g.gold),
    cells,
    right,
    disagree,
    rows: n,
  };
}

export type GridFilter = {
  /** Model column the outcome, asked and no-answer filters look at (null: any model). */
  model: number | null;
  /** Case type ("" = all). */
  type: string;
  /** Clause id ("" = all). */
  clause: string;
  outcome: "" | "correct" | "incorrect";
  asked: "" | "yes" | "no";
  disagree: boolean;
  noAnswer: boolean;
  /** Gold verdict ("" = all). */
  gold: string;
};

export const NO_FILTER: GridFilter = { model: null, type: "", clause: "", outcome: "", asked: "", disagree: false, noAnswer: false, gold: "" };

export function isFiltered(f: GridFilter): boolean {
  return Boolean(f.type || f.clause || f.outcome || f.asked || f.disagree || f.noAnswer || f.gold);
}

/**
 * Row indices that pass the filter. With a model chosen, the outcome, asked and no-answer filters
 * are about that model; without one, "correct" means every model that answered was right,
 * "incorrect" that at least one was wrong, "asked" that at least one asked, "did not ask" that
 * none did, and "no answer" that at least one gave none.
 */
export function filterRows(g: Grid, f: GridFilter): number[] {
  const out: number[] = [];
  const type = f.type ? CASE_TYPES.indexOf(f.type as (typeof CASE_TYPES)[number]) : -1;
  const clause = f.clause ? g.clauses.indexOf(f.clause) : -1;
  if (f.clause && clause < 0) return out;
  const gold = f.gold ? VERDICTS.indexOf(f.gold as (typeof VERDICTS)[number]) : -1;
  const cols = f.model !== null && f.model >= 0 && f.model < g.cells.length ? [g.cells[f.model]] : g.cells;
  const single = cols.length === 1 && f.model !== null;
  for (let r = 0; r < g.rows; r++) {
    if (type >= 0 && g.caseType[r] !== type) continue;
    if (clause >= 0 && g.clause[r] !== clause) continue;
    if (gold > 0 && g.gold[r] !== gold) continue;
    if (f.disagree && !g.disagree[r]) continue;
    if (f.outcome || f.asked || f.noAnswer || single) {
      let anyPresent = false;
      let allCorrect = true;
      let anyWrong = false;
      let anyAsked = false;
      let anyNoAnswer = false;
      for (const col of cols) {
        const c = col[r];
        if (!present(c)) continue;
        anyPresent = true;
        if (correctOf(c)) {
          /* right */
        } else {
          allCorrect = false;
          anyWrong = true;
        }
        if (asksOf(c) > 0) anyAsked = true;
        if (verdictOf(c) === 0) anyNoAnswer = true;
      }
      if (single && !anyPresent) continue;
      if (f.outcome === "correct" && !(anyPresent && allCorrect)) continue;
      if (f.outcome === "incorrect" && !anyWrong) continue;
      if (f.asked === "yes" && !anyAsked) continue;
      if (f.asked === "no" && (anyAsked || !anyPresent)) continue;
      if (f.noAnswer && !anyNoAnswer) continue;
    }
    out.push(r);
  }
  return out;
}

export type GridSortKey = "case" | "type" | "clause" | "gold" | "right" | `m${number}`;
export type GridSort = { key: GridSortKey; dir: "asc" | "desc" } | null;

/** Sort row indices (stable; ties keep the runs' case order). */
export function sortRows(g: Grid, rows: number[], sort: GridSort): number[] {
  if (!sort) return rows;
  const f = sort.dir === "asc" ? 1 : -1;
  const out = rows.slice();
  let cmp: (a: number, b: number) => number;
  switch (sort.key) {
    case "case":
      cmp = (a, b) => compareIds(g.caseIds[a], g.caseIds[b]);
      break;
    case "type":
      cmp = (a, b) => g.caseType[a] - g.caseType[b];
      break;
    case "clause":
      cmp = (a, b) => compareIds(g.clauses[g.clause[a]], g.clauses[g.clause[b]]);
      break;
    case "gold":
      cmp = (a, b) => g.gold[a] - g.gold[b];
      break;
    case "right":
      cmp = (a, b) => g.right[a] - g.right[b];
      break;
    default: {
      const col = g.cells[Number(sort.key.slice(1))];
      // Correct < incorrect < no answer < no trajectory; then by questions asked.
      const rank = (c: number) => (!present(c) ? 40 : verdictOf(c) === 0 ? 30 : correctOf(c) ? 0 : 10) * 16 + asksOf(c);
      cmp = col ? (a, b) => rank(col[a]) - rank(col[b]) : () => 0;
    }
  }
  out.sort((a, b) => cmp(a, b) * f || a - b);
  return out;
}

const collator = new Intl.Collator(undefined, { numeric: true });
function compareIds(a: string, b: string): number {
  return collator.compare(a, b);
}

/** Filter and sort ↔ URL query parameters (so the trajectory viewer can step within them). */
export function filterFromQuery(q: URLSearchParams, models: string[]): GridFilter {
  const m = q.get("model");
  const mi = m ? models.indexOf(m) : -1;
  const outcome = q.get("outcome");
  const asked = q.get("asked");
  return {
    model: mi >= 0 ? mi : null,
    type: q.get("type") ?? "",
    clause: q.get("clause") ?? "",
    outcome: outcome === "correct" || outcome === "incorrect" ? outcome : "",
    asked: asked === "yes" || asked === "no" ? asked : "",
    disagree: q.get("disagree") === "1",
    noAnswer: q.get("noanswer") === "1",
    gold: q.get("gold") ?? "",
  };
}

export function filterToQuery(f: GridFilter, models: string[]): Record<string, string | null> {
  return {
    model: f.model !== null ? models[f.model] ?? null : null,
    type: f.type || null,
    clause: f.clause || null,
    outcome: f.outcome || null,
    asked: f.asked || null,
    disagree: f.disagree ? "1" : null,
    noanswer: f.noAnswer ? "1" : null,
    gold: f.gold || null,
  };
}

export function sortFromQuery(q: URLSearchParams): GridSort {
  const s = q.get("sort");
  if (!s) return null;
  const [key, dir] = s.split(":");
  if (!/^(case|type|clause|gold|right|m\d+)$/.test(key)) return null;
  return { key: key as GridSortKey, dir: dir === "desc" ? "desc" : "asc" };
}

export function sortToQuery(s: GridSort): string | null {
  return s ? `${s.key}:${s.dir}` : null;
}

/** Previous and next rows around `row` in `order` (the filtered, sorted rows). */
export function neighbours(order: number[], row: number): { index: number; prev: number | null; next: number | null } {
  const i = order.indexOf(row);
  if (i < 0) return { index: -1, prev: null, next: null };
  return { index: i, prev: i > 0 ? order[i - 1] : null, next: i + 1 < order.length ? order[i + 1] : null };
}

/** A cell in words: "Reportable, correct, asked 2 questions". */
export function cellWords(code: number): string {
  if (!present(code)) return "not evaluated";
  const v = verdictOf(code);
  const asks = asksOf(code);
  const verdict = v === 0 ? "no readable answer" : VERDICTS[v];
  const right = correctOf(code) ? "correct" : "incorrect";
  const asked = asks === 0 ? "no questions" : asks === 1 ? "asked 1 question" : `asked ${asks >= 15 ? "15 or more" : asks} questions`;
  return `${verdict}, ${right}, ${asked}`;
}
