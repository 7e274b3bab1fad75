import { describe, expect, it } from "vitest";
import { reasoningSummary, reasoningText } from "./reasoning";

describe("a turn's reasoning", () => {
  it("is absent when the turn has none or only white space", () => {
    expect(reasoningText({})).toBeNull();
    expect(reasoningText({ reasoning: "  \n" })).toBeNull();
    expect(reasoningText({ reasoning: 42 })).toBeNull();
    expect(reasoningSummary({ reasoning_tokens: 10 })).toBeNull();
  });

  it("is named with its token count when the provider gave one", () => {
    expect(reasoningText({ reasoning: "  weigh {the} facts \n" })).toBe("weigh {the} facts");
    expect(reasoningSummary({ reasoning: "x", reasoning_tokens: 1234 })).toBe("Model's reasoning (1,234 tokens)");
    expect(reasoningSummary({ reasoning: "x", reasoning_tokens: 1 })).toBe("Model's reasoning (1 token)");
    expect(reasoningSummary({ reasoning: "x" })).toBe("Model's reasoning");
    expect(reasoningSummary({ reasoning: "x", reasoning_tokens: "n/a" })).toBe("Model's reasoning");
  });
});
