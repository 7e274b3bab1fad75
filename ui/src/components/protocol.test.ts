import { describe, expect, it } from "vitest";
import type { RunProvenance } from "../api/generated";
import { DEFAULT_PROTOCOL, editionName, madeWith, NOT_RECORDED, planPolicies, PROTOCOL_CHOICES, protocolMeaning, protocolName, rejudgeChoices, runProtocol, shortHash } from "./protocol";

const HASH = "a".repeat(20) + "b".repeat(44);

const prov = (over: Partial<RunProvenance> = {}): RunProvenance => ({
  protocol: "paper",
  prompt_versions: { eval_system_paper: "3", judge_user_paper: "1" },
  policy_editions: [{ policy: "mn29", edition: "summary", source_hash: HASH }],
  library_fingerprint: "0123456789abcdef0123",
  case_set_fingerprint: "fedcba9876543210fedc",
  case_count: 4,
  judge_model: "judge (gpt-judge)",
  ...over,
});

describe("protocol words", () => {
  it("recommends studio first and by default", () => {
    expect(DEFAULT_PROTOCOL).toBe("studio");
    expect(PROTOCOL_CHOICES.map((c) => c.value)).toEqual(["studio", "paper"]);
    expect(PROTOCOL_CHOICES[0].label).toContain("(recommended)");
    expect(PROTOCOL_CHOICES[1].label).toMatch(/^Paper — the paper's method only/);
  });
  it("names each protocol in words", () => {
    expect(protocolName("paper")).toBe("Paper");
    expect(protocolName("studio")).toBe("Studio");
    expect(protocolMeaning("paper")).toBe("the paper's method only");
    expect(protocolMeaning("studio")).toContain("additions");
  });
  it("shortens fingerprints and names editions", () => {
    expect(shortHash(HASH)).toBe("aaaaaaaaaaaa");
    expect(shortHash("abc")).toBe("abc");
    expect(editionName("summary")).toBe("summary edition");
    expect(editionName("official")).toBe("imported official text");
    expect(editionName("other")).toBe("other");
  });
});

describe("made with", () => {
  it("says plainly when nothing was recorded", () => {
    expect(madeWith(undefined, "evaluation")).toBeNull();
    expect(madeWith(null, "generation")).toBeNull();
    expect(NOT_RECORDED).toContain("studio protocol");
    expect(runProtocol(undefined)).toBe("studio");
    expect(runProtocol(prov())).toBe("paper");
  });
  it("reads an evaluation run's provenance", () => {
    const m = madeWith(prov(), "evaluation", (id) => (id === "mn29" ? "Minnesota adverse health events" : undefined))!;
    expect(m.protocolName).toBe("Paper");
    expect(m.protocolMeaning).toBe("the paper's method only");
    expect(m.policies).toEqual([{ policy: "mn29", name: "Minnesota adverse health events", edition: "summary edition", hash: { short: "aaaaaaaaaaaa", full: HASH } }]);
    expect(m.library).toEqual({ short: "0123456789ab", full: "0123456789abcdef0123" });
    expect(m.caseSet).toBe("4 cases");
    expect(m.caseSetHash.short).toBe("fedcba987654");
    expect(m.judge).toBe("judge (gpt-judge)");
    expect(m.prompts).toEqual([
      { name: "eval_system_paper", version: "3" },
      { name: "judge_user_paper", version: "1" },
    ]);
  });
  it("counts a generation run's cards, with the policy id when its name is unknown", () => {
    const m = madeWith(prov({ protocol: "studio", case_count: 1, judge_model: undefined, policy_editions: [{ policy: "mine", edition: "official", source_hash: "x" }] }), "generation")!;
    expect(m.protocolName).toBe("Studio");
    expect(m.caseSet).toBe("1 card");
    expect(m.judge).toBeNull();
    expect(m.policies[0]).toMatchObject({ name: "mine", edition: "imported official text" });
    expect(madeWith(prov({ case_count: 1200 }), "evaluation")!.caseSet).toBe("1,200 cases");
  });
});

describe("re-judging and plans", () => {
  it("offers the run's own protocol first, named", () => {
    const c = rejudgeChoices("paper", true);
    expect(c.map((x) => x.value)).toEqual(["", "studio", "paper"]);
    expect(c[0].label).toBe("The run's own protocol (Paper)");
    expect(rejudgeChoices("studio", false)[0].label).toBe("The run's own protocol (not recorded, so Studio)");
  });
  it("lists the policies only when there is more than one", () => {
    expect(planPolicies({ policies: ["mn29"] })).toBeNull();
    expect(planPolicies({ policies: [] })).toBeNull();
    expect(planPolicies({ policies: ["mn29", "mine"] }, (id) => (id === "mn29" ? "Minnesota" : undefined))).toBe("Minnesota, mine");
  });
});
