import { describe, expect, it } from "vitest";
import { homeCounts, isExample, selectionWithout } from "./examples";

const run = (run_id: string, status: "completed" | "running" | "failed", example?: boolean) => ({ run_id, status, config: example === undefined ? {} : { example } });

describe("example runs", () => {
  it("are told apart by their configuration", () => {
    expect(isExample(run("a", "completed", true))).toBe(true);
    expect(isExample(run("a", "completed", false))).toBe(false);
    expect(isExample(run("a", "completed"))).toBe(false);
    expect(isExample(undefined)).toBe(false);
  });

  it("do not count as the user's runs on Home", () => {
    const runs = [run("example-careful", "completed", true), run("example-average", "completed", true), run("mine", "failed"), run("mine-2", "completed")];
    expect(homeCounts(runs)).toEqual({ own: 2, ownFinished: 1, exampleFinished: ["example-careful", "example-average"] });
    expect(homeCounts(runs.slice(0, 2))).toEqual({ own: 0, ownFinished: 0, exampleFinished: ["example-careful", "example-average"] });
    expect(homeCounts([])).toEqual({ own: 0, ownFinished: 0, exampleFinished: [] });
  });

  it("leave the Results selection with the runs that remain", () => {
    expect(selectionWithout(["a", "b", "c"], ["b"])).toBe("a,c");
    expect(selectionWithout(["a"], ["a"])).toBeNull();
    expect(selectionWithout(["a", "b"], ["a", "b", "x"])).toBeNull();
    expect(selectionWithout([], ["a"])).toBeNull();
  });
});
