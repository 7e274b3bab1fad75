import { describe, expect, it } from "vitest";
import { pairRun, similar, tokens, wordDiff } from "./diff";

const join = (parts: { text: string }[]) => parts.map((p) => p.text).join("");
const changed = (parts: { text: string; changed: boolean }[]) => parts.filter((p) => p.changed).map((p) => p.text);

describe("word-level diff", () => {
  it("splits a line into words, spaces and punctuation", () => {
    expect(tokens('  "verdict": "Reportable",')).toEqual(["  ", '"', "verdict", '"', ":", " ", '"', "Reportable", '"', ","]);
    expect(tokens("")).toEqual([]);
  });

  it("marks only the word that changed, and each side joins back to its line", () => {
    const before = '  "event": "The patient fell in the hallway",';
    const after = '  "event": "The patient fell in the bathroom",';
    const d = wordDiff(before, after);
    expect(join(d.before)).toBe(before);
    expect(join(d.after)).toBe(after);
    expect(changed(d.before)).toEqual(["hallway"]);
    expect(changed(d.after)).toEqual(["bathroom"]);
  });

  it("joins neighbouring changed words into one mark", () => {
    const d = wordDiff("a stage 3 ulcer", "a stage four pressure ulcer");
    expect(changed(d.after)).toEqual(["four pressure"]);
    expect(changed(d.before)).toEqual(["3"]);
  });

  it("marks added words when nothing was removed", () => {
    const d = wordDiff("the nurse gave the dose", "the nurse gave the wrong dose");
    expect(changed(d.before)).toEqual([]);
    expect(changed(d.after)).toEqual(["wrong"]);
    expect(join(d.after)).toBe("the nurse gave the wrong dose");
  });

  it("pairs only lines that are versions of one another", () => {
    expect(similar("The patient fell in the hallway", "The patient fell in the bathroom")).toBe(true);
    expect(similar("old", "new")).toBe(false);
    expect(similar('      "allergy_recrd"', '      "allergy_record"')).toBe(true);
    expect(similar("The patient fell", "A nurse gave the wrong drug")).toBe(false);
    expect(similar("", "")).toBe(false);
  });

  it("gives pieces for the paired lines of a run and leaves the others whole", () => {
    const run = [
      { kind: "removed" as const, text: '"x_decision": "kept as written"' },
      { kind: "removed" as const, text: "}" },
      { kind: "added" as const, text: '"x_decision": "kept as corrected"' },
      { kind: "added" as const, text: '"x_note": "a new field entirely"' },
    ];
    const parts = pairRun(run);
    expect(parts[0] && changed(parts[0])).toEqual(["written"]);
    expect(parts[2] && changed(parts[2])).toEqual(["corrected"]);
    expect(parts[1]).toBeNull();
    expect(parts[3]).toBeNull();
  });
});
