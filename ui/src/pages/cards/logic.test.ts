import { describe, expect, it } from "vitest";
import type { Clause, LintProblem } from "../../api/generated";
import {
  activeFilterCount,
  blocksImport,
  clauseOptions,
  contentItems,
  decisionBlocker,
  diffBlocks,
  diffCounts,
  diffStats,
  filterFromQuery,
  groupProblems,
  lineInMessage,
  lineOfPointer,
  parseMessage,
  nameTitle,
  offsetOfLine,
  partId,
  pointerLabel,
  pointerLines,
  pointerTarget,
  pointerTokens,
  splitKnownIds,
} from "./logic";

const clause = (n: number, id: string, category: string, short: string): Clause => ({
  global_no: n,
  category,
  local_no: n,
  clause_id: id,
  label: `${category} Events clause ${n}`,
  short_title: short,
  summary: "",
  statute_ref: "",
  confidence: "",
  provenance: "",
  notes: "",
});

describe("library filters", () => {
  it("reads the filter from the address and counts what is active", () => {
    const f = filterFromQuery(new URLSearchParams("clause=Surgical_1&type=Reportable&q=%20allergy%20&status="));
    expect(f).toEqual({ policy: "mn29", clause: "Surgical_1", event_type: "Reportable", search: "allergy" });
    expect(activeFilterCount(f)).toBe(3);
    expect(activeFilterCount(filterFromQuery(new URLSearchParams("")))).toBe(0);
  });
  it("groups clause choices by category in policy order, optionally for one category", () => {
    const cl = [clause(2, "B", "Care", "Fall"), clause(1, "A", "Surgical", "Wrong site"), clause(3, "C", "Care", "Burn")];
    const g = clauseOptions(cl);
    expect(g.map((x) => x.category)).toEqual(["Surgical", "Care"]);
    expect(g[1].options).toEqual([
      { value: "B", label: "Fall (Care Events clause 2)" },
      { value: "C", label: "Burn (Care Events clause 3)" },
    ]);
    expect(clauseOptions(cl, "Care")).toHaveLength(1);
  });
});

describe("JSON pointers", () => {
  const text = `{
  "clause_card_id": "X",
  "fixed_fields": {
    "boundary_conditions": {
      "a/b": {
        "value": true,
        "corresponding_basic_event_elements": [
          "one",
          "two"
        ]
      }
    }
  },
  "list": [{"k": 1}, 2]
}
`;
  it("unescapes tokens and names places for people", () => {
    expect(pointerTokens("/fixed_fields/boundary_conditions/a~1b/value")).toEqual(["fixed_fields", "boundary_conditions", "a/b", "value"]);
    expect(pointerLabel("/fixed_fields/boundary_conditions/x")).toBe("boundary_conditions › x");
    expect(pointerLabel("")).toBe("whole card");
  });
  it("maps a finding to the tab and part of the card view", () => {
    expect(pointerTarget("/fixed_fields/boundary_conditions/serious_harm/corresponding_basic_event_elements/0")).toMatchObject({ tab: "decision", anchor: "bc-serious_harm" });
    expect(pointerTarget("/fixed_fields/governing_legal_basis/value/2")).toMatchObject({ tab: "decision", anchor: "legal-basis" });
    expect(pointerTarget("/basic_event_elements/outcome")).toMatchObject({ tab: "elements", anchor: "el-outcome" });
    expect(pointerTarget("/constraints_on_basic_event_elements_instantiation")).toMatchObject({ tab: "constraints" });
    expect(pointerTarget("/missing_information_variants/1/masked_basic_event_elements/0")).toMatchObject({ tab: "variants", anchor: "mv-1" });
    expect(pointerTarget("/clause_id")).toMatchObject({ tab: "decision", anchor: "card-top" });
    expect(partId("bc", "odd name!")).toBe("bc-odd_20name_21");
  });
  it("finds the line of every value, keys included, and falls back to the nearest parent", () => {
    const lines = pointerLines(text);
    expect(lines.get("/clause_card_id")).toBe(2);
    expect(lines.get("/fixed_fields/boundary_conditions/a~1b")).toBe(5);
    expect(lines.get("/fixed_fields/boundary_conditions/a~1b/corresponding_basic_event_elements/1")).toBe(9);
    expect(lines.get("/list/0/k")).toBe(14);
    expect(lineOfPointer(text, "/fixed_fields/boundary_conditions/a~1b/nope/3")).toBe(5);
    expect(lineOfPointer(text, "")).toBe(1);
  });
  it("locates what it can in broken JSON", () => {
    const broken = `{\n  "a": 1,\n  "b": [\n    "x",\n  oops\n`;
    const lines = pointerLines(broken);
    expect(lines.get("/a")).toBe(2);
    expect(lines.get("/b/0")).toBe(4);
    expect(lineOfPointer(broken, "/c")).toBe(1);
  });
  it("turns lines into offsets and reads line numbers from parse messages", () => {
    expect(offsetOfLine("ab\ncd\nef", 1)).toBe(0);
    expect(offsetOfLine("ab\ncd\nef", 3)).toBe(6);
    expect(offsetOfLine("ab", 9)).toBe(2);
    expect(lineInMessage("edited card: expected `,` at line 12 column 5")).toBe(12);
    expect(lineInMessage("edited card:16:21: not valid JSON (expected ident)")).toBe(16);
    expect(lineInMessage("no position")).toBeNull();
    expect(parseMessage("edited card:16:21: not valid JSON (expected ident)")).toBe(
      "Line 16, column 21: not valid JSON (expected ident). Check for a missing comma, quote or bracket near there.",
    );
    expect(parseMessage("something else")).toBe("something else");
  });
});

describe("prose with ids", () => {
  it("links only known ids, keeping the rest of the text", () => {
    const known = new Set(["CardNonrep_1_CareManagement_1"]);
    expect(splitKnownIds("fits CardNonrep_1_CareManagement_1, not CardRep_9_X.", known)).toEqual(["fits ", { id: "CardNonrep_1_CareManagement_1" }, ", not CardRep_9_X."]);
    expect(splitKnownIds("no ids here", known)).toEqual(["no ids here"]);
    expect(splitKnownIds("outcome_type is death", (w) => w === "outcome_type")).toEqual([{ id: "outcome_type" }, " is death"]);
  });
  it("titles names and lists content", () => {
    expect(nameTitle("serious_injury_present")).toBe("Serious injury present");
    expect(contentItems(["a", { b: 1 }])).toEqual(["a", '{"b":1}']);
    expect(contentItems("  ")).toEqual([]);
    expect(contentItems(null)).toEqual([]);
  });
});

describe("diff display", () => {
  const lines = [
    ...Array.from({ length: 10 }, (_, i) => ({ kind: "same", text: `s${i}` })),
    { kind: "added", text: "new" },
    { kind: "removed", text: "old" },
    ...Array.from({ length: 10 }, (_, i) => ({ kind: "same", text: `t${i}` })),
  ];
  it("counts added and removed lines", () => {
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1 });
  });
  it("numbers both sides, shows removals first, and folds long unchanged stretches", () => {
    const blocks = diffBlocks(lines, 2);
    expect(blocks.map((b) => [b.kind, b.rows.length])).toEqual([
      ["skip", 8],
      ["lines", 6],
      ["skip", 8],
    ]);
    const shown = blocks[1].rows;
    expect(shown.map((r) => r.kind)).toEqual(["same", "same", "removed", "added", "same", "same"]);
    expect(shown[2]).toEqual({ kind: "removed", text: "old", oldNo: 11, newNo: null });
    expect(shown[3]).toEqual({ kind: "added", text: "new", oldNo: null, newNo: 11 });
    expect(shown[4]).toMatchObject({ oldNo: 12, newNo: 12 });
  });
  it("marks the changed words of a line that replaces a similar one", () => {
    const edit = [
      { kind: "same", text: "{" },
      { kind: "removed", text: '  "title": "Wrong dose given to a child",' },
      { kind: "added", text: '  "title": "Wrong drug given to a child",' },
      { kind: "same", text: "}" },
    ];
    const rows = diffBlocks(edit, 3)[0].rows;
    expect(rows[1].parts?.filter((p) => p.changed).map((p) => p.text)).toEqual(["dose"]);
    expect(rows[2].parts?.filter((p) => p.changed).map((p) => p.text)).toEqual(["drug"]);
    expect(rows[0].parts).toBeUndefined();
    expect(diffCounts(diffBlocks(edit, 3))).toEqual({ changed: 1, added: 0, removed: 0 });
    expect(diffCounts(diffBlocks(lines, 2))).toEqual({ changed: 0, added: 1, removed: 1 });
  });
  it("does not fold one or two lines", () => {
    const short = [{ kind: "same", text: "a" }, { kind: "added", text: "b" }, { kind: "same", text: "c" }];
    expect(diffBlocks(short, 0).map((b) => b.kind)).toEqual(["lines"]);
  });
});

describe("lint findings", () => {
  const p = (rule: string, severity: "error" | "warning", card: string | null, path = "f.json"): LintProblem => ({ path, clause_card_id: card, rule, severity, pointer: "", message: rule });
  it("tells which findings stop an import", () => {
    expect(blocksImport(p("schema", "error", "A"))).toBe(true);
    expect(blocksImport(p("clause-unknown", "error", "A"))).toBe(true);
    expect(blocksImport(p("bc-unknown-element", "error", "A"))).toBe(false);
    expect(blocksImport(p("overlapping-cards", "warning", "A"))).toBe(false);
  });
  it("groups findings by card, or by file when the card has no id", () => {
    const g = groupProblems([p("a", "error", "A"), p("parse", "error", null, "x.jsonl"), p("b", "warning", "A")]);
    expect(g.map((x) => [x.key, x.problems.length])).toEqual([
      ["card:A", 2],
      ["file:x.jsonl", 1],
    ]);
  });
});

describe("audit decision", () => {
  it("waits for a decision and a name: nothing is chosen beforehand", () => {
    expect(decisionBlocker(null, "Dana Reyes")).toMatch(/Choose a decision/);
    expect(decisionBlocker("approved", "  ")).toMatch(/Enter your name/);
    expect(decisionBlocker("approved", "Dana Reyes")).toBeNull();
    expect(decisionBlocker("draft", "Dana Reyes")).toBeNull();
  });
});
