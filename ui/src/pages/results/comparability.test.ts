import { describe, expect, it } from "vitest";
import type { Comparability } from "../../api/generated";
import { differenceText, marksByModel, protocolsOf, sharedProtocolText } from "./Comparability";

describe("comparability marks", () => {
  const c: Comparability = {
    comparable: false,
    differing: ["protocol"],
    sentence: "These runs differ in protocol, compare their numbers with care.",
    marks: [
      { run_id: "r1", model: "gpt [r1]", protocol: "studio", differs: [], unrecorded: false },
      { run_id: "r2", model: "gpt [r2]", protocol: "paper", differs: ["protocol: paper", "policy edition: mn29 official ab12"], unrecorded: false },
      { run_id: "r3", model: "", protocol: null, differs: [], unrecorded: true },
    ],
  };

  it("finds each model's mark by the name the report gives it", () => {
    const m = marksByModel(c);
    expect(m.get("gpt [r2]")?.protocol).toBe("paper");
    expect(m.get("gpt [r1]")?.differs).toEqual([]);
    expect(m.has("")).toBe(false);
    expect(marksByModel(undefined).size).toBe(0);
  });

  it("says what differs in words", () => {
    expect(differenceText("protocol: paper")).toBe("Protocol: paper");
    expect(differenceText("policy edition: mn29 official ab12")).toBe("Policy text: mn29 official ab12");
    expect(differenceText("case set: 45 cases 0123456789")).toBe("Cases: 45 cases 0123456789");
    expect(differenceText("something else")).toBe("something else");
  });

  it("names the protocol once when every run follows the same one", () => {
    expect([...protocolsOf(c)].sort()).toEqual(["paper", "studio"]);
    expect(sharedProtocolText(c)).toBeNull();
    const alike: Comparability = { comparable: true, differing: [], sentence: null, marks: [c.marks[0], { ...c.marks[0], run_id: "r4", model: "claude" }] };
    expect(sharedProtocolText(alike)).toBe("Every run here follows the studio protocol: made with the paper's method plus this application's additions.");
    expect(sharedProtocolText({ ...alike, marks: [...alike.marks, c.marks[2]] })).toBeNull();
  });
});
