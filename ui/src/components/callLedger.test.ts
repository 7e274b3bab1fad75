import { describe, expect, it } from "vitest";
import { callTotals, failedTries, requestMessages, type CallLike } from "./CallLedger";

const call = (over: Partial<CallLike> = {}): CallLike => ({
  role: "drafter",
  prompt_name: "author_draft_complete",
  prompt_versions: { author_draft_complete: "abc" },
  model: "m",
  request: { messages: [{ role: "user", content: "hi" }] },
  response_text: "{}",
  parse_notes: [],
  input_tokens: 100,
  output_tokens: 20,
  cost_usd: 0.5,
  latency_ms: 12,
  cache_hit: false,
  ...over,
});

describe("the call ledger view", () => {
  it("finds failed tries in their own field or inside an older row's request", () => {
    expect(failedTries(call({ failed_attempts: ["attempt 1: 429"] }))).toEqual(["attempt 1: 429"]);
    expect(failedTries(call({ request: { messages: [], failed_attempts: ["attempt 1: timeout"] } }))).toEqual(["attempt 1: timeout"]);
    expect(failedTries(call())).toEqual([]);
  });

  it("sums calls in one line, saying how many came from the cache", () => {
    expect(callTotals([call(), call({ cache_hit: true, cost_usd: 0 })])).toBe("2 calls · 240 tokens · $0.50 · 1 from the cache");
    expect(callTotals([call()])).toBe("1 call · 120 tokens · $0.50");
  });

  it("reads the messages of a stored request", () => {
    expect(requestMessages(call().request)).toEqual([{ role: "user", content: "hi" }]);
    expect(requestMessages(null)).toEqual([]);
  });
});
