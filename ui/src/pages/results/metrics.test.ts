import { describe, expect, it } from "vitest";
import type { ModelMetrics, Table } from "../../api/generated";
import { ANSWERED, answeredCount, bestCells, bestIndices, cellText, ciText, mcnemarVerdict, METRICS, prfText, pValueText, withoutTranscriptNote } from "./metrics";

describe("metrics as people read them", () => {
  it("calls a readable verdict answered, as the CLI's ANSWERED column does, and a missing trajectory no transcript", () => {
    // 90 cases, 88 with a transcript, 85 with a readable verdict.
    const m = { cases: 90, trajectories: 88, no_verdict: 5 } as ModelMetrics;
    expect(ANSWERED.label).toBe("Answered");
    expect(ANSWERED.explain).toMatch(/^Cases where the model gave a readable verdict/);
    expect(answeredCount(m)).toBe(85);
    expect(withoutTranscriptNote(m)).toBe("2 without a transcript");
    expect(withoutTranscriptNote({ ...m, trajectories: 90 })).toBeNull();
  });
  it("writes the F1 tooltip with precision, recall and counts", () => {
    expect(prfText({ precision: 80, recall: 66.6666, f1: 72.7, tp: 12, fp: 3, fn: 6 })).toBe("Precision 80.0 · Recall 66.7 · TP 12 · FP 3 · FN 6");
    expect(ciText({ lo: 88.06, hi: 93 })).toBe("[88.1, 93.0]");
  });
  it("labels the eight metrics as the paper does", () => {
    expect(METRICS.map((m) => `${m.key} ${m.name}`)).toEqual([
      "M1 Verdict accuracy",
      "M2 Clause accuracy",
      "M3 Evidence citation F1",
      "M4 Boundary-condition hit rate",
      "M5 Missing-case detection F1",
      "M6 Missing-slot identification F1",
      "M7 Uncertain detection F1",
      "M8 Reportable detection F1",
    ]);
    expect(METRICS.filter((m) => m.ci).map((m) => m.key)).toEqual(["M1", "M7", "M8"]);
    expect(METRICS.find((m) => m.key === "M4")!.explain).toMatch(/judge/);
  });
  it("marks the best value, ties at the shown precision, and nothing when all tie", () => {
    expect(Array.from(bestIndices([50, null, 72.04, 72.01]))).toEqual([2, 3]);
    expect(Array.from(bestIndices([3, 1, 2], "min"))).toEqual([1]);
    expect(bestIndices([null, null]).size).toBe(0);
    expect(bestIndices([0, 0, 0]).size).toBe(0);
    expect(Array.from(bestIndices([5]))).toEqual([0]);
  });
  it("formats p-values and reads paired tests", () => {
    expect(pValueText(0.0004)).toBe("< 0.001");
    expect(pValueText(0.0423)).toBe("0.042");
    const t = { model_a: "A", model_b: "B", shared_cases: 90, a_only: 12, b_only: 2, p_value: 0.01, chi2: 5.8 };
    expect(mcnemarVerdict(t)).toBe("A better (p < 0.05)");
    expect(mcnemarVerdict({ ...t, p_value: 0.3 })).toBe("Not significant");
    expect(mcnemarVerdict({ ...t, a_only: 0, b_only: 0, p_value: 1 })).toBe("No difference on shared cases");
  });
  it("renders generic table cells and finds the best ones per column rule", () => {
    expect(cellText({ kind: "number", value: 94.56, decimals: 1 })).toBe("94.6");
    expect(cellText({ kind: "number", value: null, decimals: 1 })).toBe("–");
    expect(cellText({ kind: "count", value: 5074 })).toBe("5,074");
    expect(cellText({ kind: "count_pct", count: 12, pct: 40 })).toBe("12 (40.0%)");
    const t: Table = {
      id: "t",
      title: "T",
      caption: "",
      groups: [],
      columns: [
        { name: "Model", latex_header: [], align: "left", best: "none" },
        { name: "M1", latex_header: [], align: "right", best: "max" },
        { name: "Asks", latex_header: [], align: "right", best: "min" },
      ],
      rows: [
        [{ kind: "text", text: "a" }, { kind: "number", value: 90, decimals: 1 }, { kind: "number", value: 2, decimals: 1 }],
        [{ kind: "text", text: "b" }, { kind: "number", value: 80, decimals: 1 }, { kind: "number", value: 1, decimals: 1 }],
      ],
    };
    expect(Array.from(bestCells(t)).sort()).toEqual(["0:1", "1:2"]);
  });
});
