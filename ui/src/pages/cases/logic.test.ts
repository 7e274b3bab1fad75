import { describe, expect, it } from "vitest";
import type { CaseSummary } from "../../api/generated";
import { activeCaseFilters, caseFilterFromQuery, countBy, factRows, filterQuery, neighbours } from "./logic";

const row = (id: string, type = "complete"): CaseSummary => ({
  case_id: id,
  case_type: type,
  clause_id: "C",
  clause_card_id: "K",
  gold_verdict: "Reportable",
  origin: "demo",
  excluded: false,
  narrative_words: 10,
});

describe("case filters", () => {
  it("reads the engine filter from the address, ignoring unknown case types", () => {
    expect(caseFilterFromQuery(new URLSearchParams("type=missing&clause=A&card=K&origin=demo&excluded=1"))).toEqual({
      include_excluded: true,
      case_type: "missing",
      clause_id: "A",
      clause_card_id: "K",
      origin: "demo",
    });
    expect(caseFilterFromQuery(new URLSearchParams("type=bogus&clause=%20"))).toEqual({ include_excluded: false });
  });
  it("counts active filters and carries them into a case link", () => {
    const q = new URLSearchParams("type=missing&excluded=1&tab=json");
    expect(activeCaseFilters(caseFilterFromQuery(q))).toBe(2);
    expect(filterQuery(q)).toEqual({ type: "missing", excluded: "1" });
    expect(activeCaseFilters(caseFilterFromQuery(new URLSearchParams()))).toBe(0);
  });
});

describe("case lists", () => {
  it("counts rows by a key", () => {
    expect(countBy([row("a"), row("b", "missing"), row("c")], (r) => r.case_type)).toEqual({ complete: 2, missing: 1 });
  });
  it("finds the previous and next case and the position", () => {
    const rows = [row("a"), row("b"), row("c")];
    expect(neighbours(rows, "a")).toEqual({ prev: null, next: "b", index: 0, total: 3 });
    expect(neighbours(rows, "b")).toEqual({ prev: "a", next: "c", index: 1, total: 3 });
    expect(neighbours(rows, "c")).toEqual({ prev: "b", next: null, index: 2, total: 3 });
    expect(neighbours(rows, "z")).toEqual({ prev: null, next: null, index: -1, total: 3 });
  });
  it("marks the facts withheld from the narrative", () => {
    const facts = factRows(
      [
        { name: "a", meaning: "m", value: "1" },
        { name: "b", meaning: "m", value: null },
      ],
      ["b"],
    );
    expect(facts.map((f) => [f.name, f.masked])).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });
});
