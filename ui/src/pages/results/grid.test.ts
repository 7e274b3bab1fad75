import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../api/files";
import type { ResultsGrid } from "../../api/generated";
import { cellWords, decodeGrid, filterFromQuery, filterRows, filterToQuery, neighbours, NO_FILTER, sortFromQuery, sortRows } from "./grid";

const b64 = (codes: number[]) => bytesToBase64(Uint8Array.from(codes));
/** Cell code as the engine writes it. */
const code = (verdict: number, correct: boolean, asks = 0) => 1 | (verdict << 1) | ((correct ? 1 : 0) << 3) | (Math.min(asks, 15) << 4);
const R = 1, N = 2, U = 3;

// Four cases × three models.
//            c1 (complete, gold R)  c2 (missing, gold N)  c3 (uncertain, gold U)  c4 (missing, gold R)
// alpha      R ✓                    N ✓ asked 2            R ✗                     no answer, asked 1
// beta       R ✓                    R ✗                    U ✓                     (not evaluated)
// gamma      R ✓                    N ✓                    N ✗                     R ✓ asked 3
const raw: ResultsGrid = {
  models: ["alpha", "beta", "gamma"],
  model_runs: ["run-a", "run-b", "run-g"],
  verdicts: ["", "Reportable", "Non-reportable", "Uncertain"],
  case_types: ["complete", "missing", "uncertain"],
  clauses: ["Surgical_1", "CareManagement_1"],
  case_ids: ["c1", "c2", "c3", "c10"],
  case_type: [0, 1, 2, 1],
  clause: [0, 1, 1, 0],
  gold: [R, N, U, R],
  cells: [
    [code(R, true), code(N, true, 2), code(R, false), code(0, false, 1)],
    [code(R, true), code(R, false), code(U, true), 0],
    [code(R, true), code(N, true), code(N, false), code(R, true, 3)],
  ].map(b64),
};
const g = decodeGrid(raw);
const ids = (rows: number[]) => rows.map((r) => g.caseIds[r]);
const f = (x: Partial<typeof NO_FILTER>) => ({ ...NO_FILTER, ...x });

describe("case grid", () => {
  it("decodes cells and derives right counts and disagreement", () => {
    expect(Array.from(g.right)).toEqual([3, 2, 1, 1]);
    expect(Array.from(g.disagree)).toEqual([0, 1, 1, 1]);
    expect(cellWords(g.cells[0][1])).toBe("Non-reportable, correct, asked 2 questions");
    expect(cellWords(g.cells[0][3])).toBe("no readable answer, incorrect, asked 1 question");
    expect(cellWords(0)).toBe("not evaluated");
    expect(cellWords(code(R, true, 40))).toBe("Reportable, correct, asked 15 or more questions");
  });

  it("filters by case type, clause, expected verdict and disagreement", () => {
    expect(ids(filterRows(g, NO_FILTER))).toEqual(["c1", "c2", "c3", "c10"]);
    expect(ids(filterRows(g, f({ type: "missing" })))).toEqual(["c2", "c10"]);
    expect(ids(filterRows(g, f({ clause: "Surgical_1" })))).toEqual(["c1", "c10"]);
    expect(ids(filterRows(g, f({ clause: "Unknown_9" })))).toEqual([]);
    expect(ids(filterRows(g, f({ gold: "Reportable" })))).toEqual(["c1", "c10"]);
    expect(ids(filterRows(g, f({ disagree: true })))).toEqual(["c2", "c3", "c10"]);
  });

  it("applies outcome, questions and no-answer to the chosen model", () => {
    expect(ids(filterRows(g, f({ model: 0, outcome: "correct" })))).toEqual(["c1", "c2"]);
    expect(ids(filterRows(g, f({ model: 0, outcome: "incorrect" })))).toEqual(["c3", "c10"]);
    expect(ids(filterRows(g, f({ model: 0, asked: "yes" })))).toEqual(["c2", "c10"]);
    expect(ids(filterRows(g, f({ model: 0, asked: "no" })))).toEqual(["c1", "c3"]);
    expect(ids(filterRows(g, f({ model: 0, noAnswer: true })))).toEqual(["c10"]);
    // A chosen model hides the cases it did not evaluate.
    expect(ids(filterRows(g, f({ model: 1 })))).toEqual(["c1", "c2", "c3"]);
  });

  it("without a chosen model: every model correct, some incorrect, some asked, none asked", () => {
    expect(ids(filterRows(g, f({ outcome: "correct" })))).toEqual(["c1"]);
    expect(ids(filterRows(g, f({ outcome: "incorrect" })))).toEqual(["c2", "c3", "c10"]);
    expect(ids(filterRows(g, f({ asked: "yes" })))).toEqual(["c2", "c10"]);
    expect(ids(filterRows(g, f({ asked: "no" })))).toEqual(["c1", "c3"]);
    expect(ids(filterRows(g, f({ noAnswer: true })))).toEqual(["c10"]);
  });

  it("sorts by id (numeric-aware), models right and a model's outcome, stably", () => {
    const all = filterRows(g, NO_FILTER);
    expect(ids(sortRows(g, all, { key: "case", dir: "asc" }))).toEqual(["c1", "c2", "c3", "c10"]);
    expect(ids(sortRows(g, all, { key: "case", dir: "desc" }))).toEqual(["c10", "c3", "c2", "c1"]);
    expect(ids(sortRows(g, all, { key: "right", dir: "asc" }))).toEqual(["c3", "c10", "c2", "c1"]);
    // alpha: correct first (fewest questions first), then incorrect, then no answer.
    expect(ids(sortRows(g, all, { key: "m0", dir: "asc" }))).toEqual(["c1", "c2", "c3", "c10"]);
    // beta: not evaluated goes last.
    expect(ids(sortRows(g, all, { key: "m1", dir: "asc" }))).toEqual(["c1", "c3", "c2", "c10"]);
    expect(sortRows(g, all, null)).toBe(all);
  });

  it("keeps filters and sort in the address", () => {
    const filter = f({ model: 2, type: "missing", outcome: "incorrect", asked: "yes", disagree: true, noAnswer: true, gold: "Reportable", clause: "Surgical_1" });
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filterToQuery(filter, g.models))) if (v) q.set(k, v);
    expect(q.get("model")).toBe("gamma");
    expect(filterFromQuery(q, g.models)).toEqual(filter);
    expect(filterFromQuery(new URLSearchParams("model=nobody&outcome=maybe"), g.models)).toEqual(NO_FILTER);
    expect(sortFromQuery(new URLSearchParams("sort=m12:desc"))).toEqual({ key: "m12", dir: "desc" });
    expect(sortFromQuery(new URLSearchParams("sort=drop table"))).toBeNull();
  });

  it("finds previous and next within the current order", () => {
    expect(neighbours([5, 2, 9], 2)).toEqual({ index: 1, prev: 5, next: 9 });
    expect(neighbours([5, 2, 9], 5)).toEqual({ index: 0, prev: null, next: 2 });
    expect(neighbours([5, 2, 9], 7)).toEqual({ index: -1, prev: null, next: null });
  });

  it("filters 5,074 × 15 quickly", () => {
    const n = 5074;
    const big = decodeGrid({
      ...raw,
      models: Array.from({ length: 15 }, (_, i) => `m${i}`),
      model_runs: Array.from({ length: 15 }, (_, i) => `r${i}`),
      case_ids: Array.from({ length: n }, (_, i) => `case-${i}`),
      case_type: Array.from({ length: n }, (_, i) => i % 3),
      clause: Array.from({ length: n }, (_, i) => i % 2),
      gold: Array.from({ length: n }, (_, i) => 1 + (i % 3)),
      cells: Array.from({ length: 15 }, (_, m) => b64(Array.from({ length: n }, (_, i) => code(1 + ((i + m) % 3), (i + m) % 4 !== 0, (i * m) % 5)))),
    });
    const t0 = performance.now();
    const rows = filterRows(big, { ...NO_FILTER, model: 3, outcome: "incorrect", disagree: true });
    sortRows(big, rows, { key: "right", dir: "asc" });
    expect(performance.now() - t0).toBeLessThan(100);
    expect(rows.length).toBeGreaterThan(0);
  });
});
