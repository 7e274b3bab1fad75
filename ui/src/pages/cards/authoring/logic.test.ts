import { describe, expect, it } from "vitest";
import type { DraftProblem, DraftSummary, ExtractionSummary, ModelView } from "../../../api/generated";
import {
  acceptBlocker,
  approveBlocker,
  criterionWords,
  asText,
  cardCountsByClause,
  cardCountWords,
  clauseStates,
  conditionWords,
  defaultModel,
  draftBlocker,
  extractionWords,
  groupDraftProblems,
  itemsWithErrors,
  keptSections,
  openQuestion,
  parseItems,
  rejectBlocker,
  toggle,
} from "./logic";

const x = (clause: string, version: number, status: string): ExtractionSummary => ({
  extraction_id: `${clause}-${version}`,
  policy_id: "p",
  clause_id: clause,
  version,
  status,
  sections: [],
  model: "m",
  approved_by: status === "approved" ? "Dana" : null,
  created_at: "2026-01-01T00:00:00Z",
});

const d = (clause: string, status: string): DraftSummary => ({
  draft_id: `${clause}-${status}`,
  policy_id: "p",
  clause_id: clause,
  kind: "complete",
  parent_card_id: null,
  status,
  item_ids: [],
  errors: 0,
  warnings: 0,
  attempts: 1,
  model: "m",
  created_at: "2026-01-01T00:00:00Z",
  run_id: null,
});

const prob = (item: string | null, severity: "error" | "warning", rule = "r"): DraftProblem => ({ item_id: item, rule, severity, pointer: "", message: rule });

describe("clause states", () => {
  it("keeps the latest and the newest approved extraction, and counts drafts still to review", () => {
    const s = clauseStates(["A", "B", "C"], [x("A", 1, "approved"), x("A", 2, "proposed"), x("B", 1, "proposed"), x("Z", 1, "approved")], [d("A", "proposed"), d("A", "accepted"), d("A", "failed")]);
    const a = s.get("A");
    expect(a?.latest?.version).toBe(2);
    expect(a?.approved?.version).toBe(1);
    expect([a?.drafts, a?.openDrafts]).toEqual([3, 2]);
    expect(extractionWords(a)).toBe("Version 2 waiting; version 1 approved");
    expect(extractionWords(s.get("B"))).toBe("Extraction waiting for approval (version 1)");
    expect(extractionWords(s.get("C"))).toBe("No extraction yet");
    expect(s.has("Z")).toBe(false);
  });
});

describe("section selection", () => {
  it("adds ticked and drops unticked sections, in the policy's order", () => {
    const order = ["a", "b", "c", "d"];
    expect(keptSections(order, ["c", "a"], new Set())).toEqual(["a", "c"]);
    expect(keptSections(order, ["c", "a"], new Set(["a", "d"]))).toEqual(["c", "d"]);
    expect(toggle(toggle(new Set(["x"]), "y"), "x")).toEqual(new Set(["y"]));
  });

  it("says why approval is not possible yet", () => {
    expect(approveBlocker("", 2, "proposed")).toMatch(/Enter your name/);
    expect(approveBlocker("Dana", 0, "proposed")).toMatch(/at least one section/);
    expect(approveBlocker("Dana", 2, "approved")).toMatch(/already approved/);
    expect(approveBlocker(" Dana ", 2, "proposed")).toBeNull();
  });
});

describe("drafting", () => {
  it("needs an approved extraction, a model and, for variants, a parent card", () => {
    expect(draftBlocker(false, "complete", "", "m")).toMatch(/approved extraction/);
    expect(draftBlocker(true, "complete", "", "")).toMatch(/Register a model/);
    expect(draftBlocker(true, "missing", "", "m")).toMatch(/Choose the card/);
    expect(draftBlocker(true, "missing", "CardRep_1", "m")).toBeNull();
  });

  it("groups problems per item in the draft's order, the draft's own first, errors first", () => {
    const g = groupDraftProblems([prob("B", "warning", "w1"), prob("A", "warning", "w2"), prob("B", "error", "e1"), prob(null, "error", "e0")], ["A", "B"]);
    expect(g.map((x) => x.itemId)).toEqual([null, "A", "B"]);
    expect(g[2].problems.map((p) => p.rule)).toEqual(["e1", "w1"]);
    expect([g[2].errors, g[2].warnings]).toEqual([1, 1]);
  });

  it("refuses to accept items with errors, nothing, or without a name", () => {
    const bad = itemsWithErrors([prob("A", "error"), prob("B", "warning"), prob(null, "error")]);
    expect(bad).toEqual(new Set(["A"]));
    expect(acceptBlocker("Dana", ["A", "B"], bad)).toMatch(/A still has errors/);
    expect(acceptBlocker("Dana", [], bad)).toMatch(/at least one/);
    expect(acceptBlocker(" ", ["B"], bad)).toMatch(/Enter your name/);
    expect(acceptBlocker("Dana", ["B"], bad)).toBeNull();
  });

  it("rejects only with a name and a reason", () => {
    expect(rejectBlocker("", "why")).toMatch(/name/);
    expect(rejectBlocker("Dana", "  ")).toMatch(/Say why/);
    expect(rejectBlocker("Dana", "why")).toBeNull();
  });

  it("reads edited items as a non-empty JSON list", () => {
    expect(parseItems("[{")).toMatchObject({ ok: false });
    expect(parseItems('{"a": 1}')).toEqual({ ok: false, message: "The draft's items must be a JSON list: start with [ and end with ]." });
    expect(parseItems("[]")).toMatchObject({ ok: false });
    expect(parseItems('[ {"a": 1} ]')).toEqual({ ok: true, json: '[{"a":1}]' });
  });

  it("reads an Uncertain card's open question defensively", () => {
    expect(openQuestion({ x_open_question: { section_id: "Lasting harm", question: "Does it count?" } })).toEqual({ section_id: "Lasting harm", question: "Does it count?" });
    expect(openQuestion({ x_open_question: { section_id: 3 } })).toEqual({ section_id: "3", question: "" });
    expect(openQuestion({})).toBeNull();
    expect(openQuestion(null)).toBeNull();
    expect(asText({ a: 1 })).toBe('{"a":1}');
  });
});

describe("models and words", () => {
  const m = (name: string, local: boolean) => ({ name, local }) as ModelView;
  it("prefers a model on this computer", () => {
    expect(defaultModel([m("cloud", false), m("here", true)])).toBe("here");
    expect(defaultModel([m("cloud", false)])).toBe("cloud");
    expect(defaultModel([])).toBe("");
  });
  it("turns condition names into words", () => {
    expect(conditionWords("fall_in_care")).toBe("Fall in care");
  });
});

describe("section criteria in words", () => {
  it("writes each criterion as a phrase, never its code", () => {
    expect(criterionWords("defines_term")).toBe("Defines a term");
    expect(criterionWords("carve_out")).toBe("Makes an exception");
    expect(criterionWords("new_kind_of_reason")).toBe("New kind of reason");
  });
});

describe("card counts per clause", () => {
  it("counts every card by event type and says so in words", () => {
    const counts = cardCountsByClause([
      { clause_id: "A", event_type: "Reportable" },
      { clause_id: "A", event_type: "Non_Reportable" },
      { clause_id: "A", event_type: "Non_Reportable" },
      { clause_id: "B", event_type: "Uncertain" },
    ]);
    expect(counts.get("A")).toEqual({ reportable: 1, nonReportable: 2, uncertain: 0, total: 3 });
    expect(cardCountWords(counts.get("A"))).toBe("3 cards: 1 reportable, 2 non-reportable");
    expect(cardCountWords(counts.get("B"))).toBe("1 card: 1 uncertain");
    expect(cardCountWords(counts.get("C"))).toBe("No cards yet");
  });
});

describe("a draft with nothing in it", () => {
  const problem = (severity: "error" | "warning", message: string) => ({ item_id: null, rule: "schema", severity, pointer: "", message }) as unknown as DraftProblem;
  it("is failed with its reason and never open for a decision", async () => {
    const { draftHasNothing, draftFailedReason, draftStatusLabel, isOpen } = await import("./logic");
    const empty = { status: "failed", item_ids: [] as string[], problems: [problem("error", "The reply is not one JSON object."), problem("warning", "minor")] };
    expect(draftHasNothing(empty)).toBe(true);
    expect(isOpen(empty)).toBe(false);
    expect(draftStatusLabel(empty)).toBe("Failed");
    expect(draftFailedReason(empty)).toBe("The reply is not one JSON object.");
    const withErrors = { status: "failed", item_ids: ["CardRep_1"] };
    expect(draftHasNothing(withErrors)).toBe(false);
    expect(isOpen(withErrors)).toBe(true);
    expect(draftStatusLabel(withErrors)).toBe("Has errors");
    expect(isOpen({ status: "proposed", item_ids: [] })).toBe(true);
  });
});
