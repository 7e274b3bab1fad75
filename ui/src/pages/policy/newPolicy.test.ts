import { describe, expect, it } from "vitest";
import { checkPolicy, emptyPolicy, guidanceHeadings, policyFromFile, problemsFromDetail } from "./newPolicy";

describe("new policy form", () => {
  it("names every empty or repeated field", () => {
    const p = emptyPolicy();
    p.clauses.push({ ...p.clauses[0] });
    p.clauses[0] = { clause_id: "A_1", label: "A 1", category: "A", text: "t", short_title: "" };
    p.clauses[1] = { clause_id: "A_1", label: "A 1", category: "", text: "t", short_title: "" };
    const got = checkPolicy(p);
    expect(Object.keys(got).sort()).toEqual(["clauses[1].category", "clauses[1].clause_id", "clauses[1].label", "id", "jurisdiction", "name", "reporting_deadline"]);
    expect(checkPolicy({ ...p, id: "bad id" }).id).toMatch(/only hold letters/);
  });

  it("reads the engine's problems and the headings", () => {
    expect(problemsFromDetail('[{"field":"id","message":"taken"}]')).toEqual({ id: "taken" });
    expect(problemsFromDetail("not json")).toEqual({});
    expect(guidanceHeadings("intro\n# One  two\n```\n# not\n```\n## Three ##\n")).toEqual(["One two", "Three"]);
  });

  it("loads a policy file and refuses other text", () => {
    const r = policyFromFile('{"id":"x","clauses":[{"clause_id":"c","label":"L"}],"guidance_markdown":"# G"}');
    expect("policy" in r && r.policy.clauses[0].label).toBe("L");
    expect("error" in policyFromFile("nope")).toBe(true);
  });
});
