import { describe, expect, it } from "vitest";
import { disputedShare, reviewAddress, scopeFilter, screenWords } from "./labelAudit";

describe("label audit helpers", () => {
  it("turns the form into the engine's case filter", () => {
    expect(scopeFilter({ kind: "all" })).toBe("all");
    expect(scopeFilter({ kind: "clause", clause: "Surgical_1_WrongBodyPart" })).toBe("Surgical_1_WrongBodyPart");
    expect(scopeFilter({ kind: "type", verdict: "Non-reportable" })).toBe("type:Non-reportable");
  });
  it("says the disputed share plainly", () => {
    expect(disputedShare(0, 0)).toBe("–");
    expect(disputedShare(3, 40)).toBe("3 of 40 (7.5 %)");
  });
  it("describes a model's screen in words", () => {
    expect(screenWords({ verdict: "Reportable", clauses_met: ["A", "B"], open_question: false })).toBe("Reportable · meets A, B");
    expect(screenWords({ verdict: null, clauses_met: [], open_question: true })).toBe("no readable verdict · open question");
  });
  it("prefills a review with the disputed cases", () => {
    expect(reviewAddress(["c 1", "c2"])).toBe("#/review/new?cases=c%201%2Cc2");
  });
});
