import { describe, expect, it } from "vitest";
import type { BatchNote, BatchView } from "../api/generated";
import { batchCostLine, batchState, batchSummary, batchTime, canBatch, openBatches } from "./batch";

const note = (batched: string[], direct: string[] = []): BatchNote => ({
  requested: true,
  batched_models: batched,
  direct_models: direct,
  completion_window: batched.length ? "within 24 hours" : null,
  note: "…",
});

const batch = (state: string, over: Partial<BatchView> = {}): BatchView => ({
  batch_id: `b-${state}`,
  provider_batch_id: "pb",
  model_name: "m",
  provider: "openai",
  run_id: "eval-1",
  state,
  provider_status: null,
  requests: 4,
  succeeded: state === "ended" ? 4 : 0,
  failed: 0,
  waiting: state === "ended" ? 0 : 4,
  error: null,
  created_at: "2026-11-26T01:00:00Z",
  updated_at: "2026-11-26T01:00:00Z",
  ended_at: null,
  ...over,
});

describe("the plan's batch lines", () => {
  it("gives both costs only when a model has a batch API", () => {
    expect(batchCostLine(4.1, 2.05, note(["m"]))).toBe("Online: about $4.10 · In batch mode: about $2.05");
    expect(batchCostLine(0, 0, note(["m"]))).toBe("Online: free · In batch mode: free");
    expect(batchCostLine(null, null, note(["m"]))).toBe("Online: unknown (no price registered) · In batch mode: unknown (no price registered)");
    expect(batchCostLine(4.1, 4.1, note([], ["local"]))).toBeNull();
    expect(batchCostLine(4.1, 2.05, undefined)).toBeNull();
  });

  it("knows when the switch has nothing to do", () => {
    expect(canBatch(note(["m"], ["x"]))).toBe(true);
    expect(canBatch(note([], ["x"]))).toBe(false);
    expect(canBatch(undefined)).toBe(false);
  });
});

describe("a run's provider batches", () => {
  it("names every state in words, and unknown ones readably", () => {
    expect(batchState("in_progress").label).toBe("At the provider");
    expect(batchState("ended").label).toBe("Ended");
    expect(batchState("failed").badge).toBe("failed");
    expect(batchState("cancelling").label).toBe("cancelling");
  });

  it("says what a running run waits for", () => {
    const list = [batch("in_progress"), batch("submitting"), batch("ended")];
    expect(openBatches(list)).toHaveLength(2);
    expect(batchSummary(list, true)).toBe(
      "Waiting for 2 batches at the providers; you can close the app — the run continues where it stopped when you reopen it.",
    );
    expect(batchSummary([batch("in_progress")], true)).toMatch(/^Waiting for 1 batch at the providers;/);
    expect(batchSummary([batch("ended")], true)).toMatch(/^Every batch sent so far has ended \(4 requests answered\)/);
    expect(batchSummary([], true)).toMatch(/No batch has been sent yet/);
  });

  it("sums up a run that no longer runs", () => {
    expect(batchSummary([batch("ended"), batch("failed", { succeeded: 0 })], false)).toBe(
      "2 batches sent: 1 ended, 1 failed (their requests were tried again in a later batch); 4 requests answered at batch prices.",
    );
    expect(batchSummary([batch("in_progress")], false)).toMatch(/^1 batch is still at the providers\. Resume the run/);
    expect(batchSummary([], false)).toBe("This run sent no provider batch: every call was made directly.");
  });

  it("shows times with seconds, and the date when it is another day", () => {
    const today = new Date("2026-11-26T12:00:00");
    expect(batchTime("2026-11-26T10:20:30", today)).toBe("10:20:30");
    expect(batchTime("2026-11-20T10:20:30", today)).toBe("20 Nov 2026, 10:20:30");
    expect(batchTime(null, today)).toBe("–");
  });
});
