import { describe, expect, it } from "vitest";
import { accuracySoFar, ALL_CASES, buildSelection, canResume, describeSelection, parseSelection } from "./selection";

describe("case selection", () => {
  it("builds the engine's selection string", () => {
    expect(buildSelection(ALL_CASES)).toBe("all");
    expect(buildSelection({ ...ALL_CASES, type: "missing" })).toBe("type=missing");
    expect(buildSelection({ type: "missing", clause: "CareManagement_1", origin: "demo", limit: 20, seed: 1 })).toBe("type=missing,clause=CareManagement_1,origin=demo,limit=20,seed=1");
    // A seed only matters with a limit; a limit of zero or less means no limit.
    expect(buildSelection({ ...ALL_CASES, seed: 7 })).toBe("all");
    expect(buildSelection({ ...ALL_CASES, limit: 0, seed: 7 })).toBe("all");
    expect(buildSelection({ ...ALL_CASES, limit: 12.7 })).toBe("limit=12");
  });
  it("reads a selection back", () => {
    const c = { type: "uncertain" as const, clause: "Surgical_2", origin: "imported", limit: 5, seed: 3 };
    expect(parseSelection(buildSelection(c))).toEqual(c);
    expect(parseSelection("all")).toEqual(ALL_CASES);
    expect(parseSelection("/path/to/cases.jsonl")).toEqual(ALL_CASES);
  });
  it("describes a selection in words", () => {
    expect(describeSelection(ALL_CASES)).toBe("All cases");
    expect(describeSelection({ ...ALL_CASES, type: "missing", origin: "demo" })).toBe("All demo missing-information cases");
    expect(describeSelection({ ...ALL_CASES, clause: "X", limit: 20 }, () => "Surgical Events clause 1")).toBe("The first 20 cases of Surgical Events clause 1");
    expect(describeSelection({ ...ALL_CASES, limit: 20, seed: 1 })).toBe("20 randomly chosen cases (seed 1)");
  });
  it("knows which runs can resume and their accuracy so far", () => {
    const run = (status: string, done: number, imported = false) =>
      ({ run_id: "r", status, config: imported ? { imported: true } : { model: "m" }, counts: { total: 10, done, correct: 0 } }) as never;
    expect(canResume(run("cancelled", 4))).toBe(true);
    expect(canResume(run("interrupted", 0))).toBe(true);
    expect(canResume(run("failed", 10))).toBe(false);
    expect(canResume(run("completed", 10))).toBe(false);
    expect(canResume(run("cancelled", 4, true))).toBe(false);
    expect(accuracySoFar({ done: 0, correct: 0 })).toBeNull();
    expect(accuracySoFar({ done: 8, correct: 6 })).toBe(75);
  });
});
