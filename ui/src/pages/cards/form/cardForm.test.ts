/// <reference types="node" />
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { LintProblem } from "../../../api/generated";
import {
  Doc,
  fieldDomId,
  formPointers,
  freeName,
  getAt,
  moveItem,
  nameProblem,
  otherFields,
  parseDraft,
  placeFindings,
  placeOf,
  removeCondition,
  removeSlot,
  renameCondition,
  renameSlot,
  setAt,
  toggleName,
  writeDraft,
} from "./cardForm";

// Two cards of the built-in library, as stored (the test runs in ui/).
const LIBRARY = "../library/mn29/CareManagement_1_MedicationError";
const uncertainCard = readFileSync(`${LIBRARY}/CardUnc_1_CareManagement_1.json`, "utf8");
const reportableCard = readFileSync(`${LIBRARY}/CardRep_1_CareManagement_1.json`, "utf8");

function docOf(text: string): Doc {
  const p = parseDraft(text);
  if (!p.ok) throw new Error(p.reason);
  return p.doc;
}

const problem = (pointer: string, rule = "schema"): LintProblem => ({ path: "edited card", clause_card_id: null, rule, severity: "error", pointer, message: `at ${pointer}` });

describe("the draft as a document", () => {
  it("reads and writes a library card back to the same text", () => {
    for (const text of [uncertainCard, reportableCard]) expect(writeDraft(docOf(text))).toBe(text);
  });

  it("says plainly why a text cannot be shown as a form", () => {
    const broken = parseDraft('{"clause_card_id": "X",');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.reason).toMatch(/^The text is not valid JSON/);
    const list = parseDraft("[1, 2]");
    expect(list.ok).toBe(false);
    if (!list.ok) expect(list.reason).toContain("not a card");
  });

  it("an edit changes its own field only: extension and unknown fields keep their values and places", () => {
    const doc = docOf(uncertainCard);
    const withUnknown = setAt(doc, ["fixed_fields", "boundary_conditions", "documented_risk_disregarded", "x_reviewer_flag"], { keep: [1, "two", null] });
    const text = writeDraft(withUnknown);
    let edited = docOf(text);
    edited = setAt(edited, ["fixed_fields", "boundary_conditions", "documented_risk_disregarded", "meaning"], "Changed meaning.");
    edited = setAt(edited, ["constraints_on_basic_event_elements_instantiation", 0], "Changed rule.");
    edited = renameSlot(edited, "harm_mechanism", "harm_route");
    const after = docOf(writeDraft(edited));
    // Extension fields: same values, same order of keys.
    expect(otherFields(after)).toEqual(otherFields(doc));
    expect(JSON.stringify(otherFields(after))).toBe(JSON.stringify(otherFields(doc)));
    expect(after.x_open_question).toEqual(doc.x_open_question);
    expect(after.x_ruled_out).toEqual(doc.x_ruled_out);
    expect(Object.keys(after)).toEqual(Object.keys(doc));
    // The unknown key inside a condition is still there.
    expect(getAt(after, ["fixed_fields", "boundary_conditions", "documented_risk_disregarded", "x_reviewer_flag"])).toEqual({ keep: [1, "two", null] });
    // The edits themselves.
    expect(getAt(after, ["fixed_fields", "boundary_conditions", "documented_risk_disregarded", "meaning"])).toBe("Changed meaning.");
    expect(getAt(after, ["constraints_on_basic_event_elements_instantiation", 0])).toBe("Changed rule.");
    // Everything else is as it was.
    const untouched = (d: Doc) => {
      const c = structuredClone(d);
      delete (c.fixed_fields as Doc).boundary_conditions;
      delete c.constraints_on_basic_event_elements_instantiation;
      delete c.basic_event_elements;
      return c;
    };
    expect(untouched(after)).toEqual(untouched(doc));
  });

  it("renaming a fact slot keeps its place and the conditions and variants that name it follow", () => {
    const doc = docOf(reportableCard);
    const slots = Object.keys(doc.basic_event_elements as Doc);
    const [first] = slots;
    const renamed = renameSlot(doc, first, "renamed_slot");
    expect(Object.keys(renamed.basic_event_elements as Doc)).toEqual(slots.map((s) => (s === first ? "renamed_slot" : s)));
    const mentions = JSON.stringify(renamed).match(new RegExp(`"${first}"`, "g"));
    expect(mentions).toBeNull();
    // Removing it takes it off every list too.
    const removed = removeSlot(renamed, "renamed_slot");
    expect(JSON.stringify(removed)).not.toContain('"renamed_slot"');
  });

  it("renaming or removing a condition updates the variants that leave it open", () => {
    const doc: Doc = {
      fixed_fields: { boundary_conditions: { a: { value: true }, b: { value: false } } },
      missing_information_variants: [{ missing_variant_id: "missing_a", masked_boundary_conditions: ["a", "b"] }],
    };
    const renamed = renameCondition(doc, "a", "c");
    expect(Object.keys(getAt(renamed, ["fixed_fields", "boundary_conditions"]) as Doc)).toEqual(["c", "b"]);
    expect(getAt(renamed, ["missing_information_variants", 0, "masked_boundary_conditions"])).toEqual(["c", "b"]);
    expect(getAt(removeCondition(renamed, "b"), ["missing_information_variants", 0, "masked_boundary_conditions"])).toEqual(["c"]);
    expect(doc.missing_information_variants).toEqual([{ missing_variant_id: "missing_a", masked_boundary_conditions: ["a", "b"] }]);
  });

  it("small list and name helpers", () => {
    expect(moveItem(["a", "b", "c"], 2, 0)).toEqual(["c", "a", "b"]);
    expect(moveItem(["a", "b"], 0, -1)).toEqual(["a", "b"]);
    expect(freeName("new_fact", ["new_fact", "new_fact_2"])).toBe("new_fact_3");
    expect(nameProblem(" ", "x", [])).toMatch(/needed/);
    expect(nameProblem("y", "x", ["x", "y"])).toMatch(/already used/);
    expect(nameProblem("x", "x", ["x"])).toBeNull();
    expect(toggleName({ l: ["a"] }, ["l"], "b", true)).toEqual({ l: ["a", "b"] });
    expect(toggleName({ l: ["a", "b"] }, ["l"], "a", false)).toEqual({ l: ["b"] });
    expect(setAt({ a: [1, 2, 3] }, ["a", 1], undefined)).toEqual({ a: [1, 3] });
  });
});

describe("findings next to their fields", () => {
  const doc = docOf(uncertainCard);
  const pointers = formPointers(doc);
  const BC = "/fixed_fields/boundary_conditions/documented_risk_disregarded";

  it("a finding on a field goes to that field", () => {
    expect(placeOf(`${BC}/meaning`, pointers)).toBe(`${BC}/meaning`);
    expect(placeOf("/constraints_on_basic_event_elements_instantiation/3", pointers)).toBe("/constraints_on_basic_event_elements_instantiation/3");
    expect(placeOf("/fixed_fields/governing_legal_basis/value/1", pointers)).toBe("/fixed_fields/governing_legal_basis/value/1");
    expect(placeOf("/x_open_question/question", pointers)).toBe("/x_open_question/question");
    expect(placeOf("/x_revision_note", pointers)).toBe("/x_revision_note");
  });

  it("a finding inside a field's value goes to the nearest field that holds it", () => {
    expect(placeOf(`${BC}/corresponding_basic_event_elements/0`, pointers)).toBe(`${BC}/corresponding_basic_event_elements`);
    expect(placeOf("/basic_event_elements/outcome_type/allowed_values/1", pointers)).toBe("/basic_event_elements/outcome_type/allowed_values");
    expect(placeOf("/x_ruled_out/Surgical_5_DeathOfHealthyPatient", pointers)).toBe("/x_ruled_out/Surgical_5_DeathOfHealthyPatient");
    expect(placeOf("/fixed_fields/boundary_conditions/no_such_condition/meaning", pointers)).toBe("/fixed_fields/boundary_conditions");
  });

  it("findings about the whole card, and parse errors, are listed apart", () => {
    const { byField, unplaced } = placeFindings([problem(""), problem("", "parse"), problem(`${BC}/meaning`), problem(`${BC}/meaning`), problem("/x_ruled_out")], pointers);
    expect(unplaced.map((p) => p.rule)).toEqual(["schema", "parse"]);
    expect(byField.get(`${BC}/meaning`)).toHaveLength(2);
    expect(byField.get("/x_ruled_out")).toHaveLength(1);
  });

  it("names with slashes and tildes are escaped in pointers and DOM ids stay valid", () => {
    const odd = setAt({}, ["basic_event_elements", "a/b~c"], { meaning: "" });
    const ps = formPointers(odd);
    expect(ps).toContain("/basic_event_elements/a~1b~0c/meaning");
    expect(placeOf("/basic_event_elements/a~1b~0c/meaning", ps)).toBe("/basic_event_elements/a~1b~0c/meaning");
    expect(fieldDomId("/basic_event_elements/a~1b~0c")).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
