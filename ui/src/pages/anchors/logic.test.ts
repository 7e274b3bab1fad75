import { describe, expect, it } from "vitest";
import type { AnchorBucket, AnchorJobView, AnchorSummary, Clause, Progress } from "../../api/generated";
import {
  barScale,
  batchSummary,
  bucketOriginText,
  bucketRows,
  bucketState,
  bucketSummary,
  canResumeJob,
  duplicateSentence,
  importFilesProblem,
  importSummary,
  jobCounts,
  languageName,
  needsTranslation,
} from "./logic";

const clause = (n: number, id: string, title: string): Clause => ({
  global_no: n,
  category: "Care Management",
  local_no: n,
  clause_id: id,
  label: `Care Management Events clause ${n}`,
  short_title: title,
  summary: "",
  statute_ref: "",
  confidence: "",
  provenance: "",
  notes: "",
});

const summary = (id: string, language: string, translated = false, clause_id: string | null = "X"): AnchorSummary => ({
  anchor_id: id,
  clause_id,
  bucket_origin: null,
  source: "s",
  language,
  origin: "imported",
  translated,
  words: 3,
  preview: "a b c",
});

describe("anchor buckets", () => {
  const clauses = [clause(7, "C7", "Fall"), clause(1, "C1", "Medication error"), clause(2, "C2", "Unsafe blood")];
  const buckets: AnchorBucket[] = [
    { clause_id: "C1", label: "x", builtin: 4, imported: 30 },
    { clause_id: "C7", label: "x", builtin: 4, imported: 1 },
    { clause_id: null, label: null, builtin: 0, imported: 3 },
  ];
  it("lists every clause in order, counts zero buckets and keeps unsorted anchors apart", () => {
    const { rows, unsorted } = bucketRows(buckets, clauses, 25);
    expect(rows.map((r) => [r.no, r.total, r.state])).toEqual([
      [1, 34, "enough"],
      [2, 0, "empty"],
      [7, 5, "few"],
    ]);
    expect(unsorted?.total).toBe(3);
    expect(bucketRows(buckets.slice(0, 2), clauses, 25).unsorted).toBeNull();
  });
  it("judges a bucket against the anchors a card wants", () => {
    expect(bucketState(0, 25)).toBe("empty");
    expect(bucketState(24, 25)).toBe("few");
    expect(bucketState(25, 25)).toBe("enough");
    expect(barScale(bucketRows(buckets, clauses, 25).rows, 25)).toBe(34);
    expect(barScale([], 25)).toBe(25);
  });
  it("summarises short and empty buckets in a sentence", () => {
    const { rows } = bucketRows(buckets, clauses, 25);
    expect(bucketSummary(rows, 25)).toBe("1 clause has fewer than 25 anchors (their cards use all they have); 1 clause has none (their cards are left out of generation).");
    expect(bucketSummary(rows.slice(0, 1), 25)).toBe("Every clause has at least 25 anchors.");
  });
});

describe("anchor import", () => {
  it("accepts one JSONL or CSV file, or any number of text files", () => {
    expect(importFilesProblem(["a.jsonl"])).toBeNull();
    expect(importFilesProblem(["a.CSV"])).toBeNull();
    expect(importFilesProblem(["a.txt", "b.txt"])).toBeNull();
    expect(importFilesProblem(["a.jsonl", "b.txt"])).toMatch(/one JSONL or CSV file at a time/);
    expect(importFilesProblem(["a.pdf"])).toMatch(/a.pdf: only/);
    expect(importFilesProblem([])).toBe("Choose a file first.");
  });
  it("says what was added, left unsorted and skipped", () => {
    const r = { file: "f.jsonl", added: ["a", "b"], duplicates: [{ anchor_id: "c", location: "f.jsonl:3", duplicate_of: "syn_1" }], unbucketed: 1, notes: [] };
    expect(importSummary(r)).toEqual([
      "Added 2 anchors.",
      "1 new anchor is not sorted into a clause yet; generation only uses sorted anchors.",
      "Skipped 1 duplicate: the same text is already stored.",
    ]);
    expect(duplicateSentence(r.duplicates[0])).toBe("f.jsonl:3 (c) has the same text as syn_1.");
    expect(importSummary({ ...r, added: [], duplicates: [], unbucketed: 0 })).toEqual(["No new anchor was added."]);
  });
});

describe("model helpers", () => {
  it("summarises a batch per outcome", () => {
    const items = [
      { anchor_id: "a", outcome: "changed", clause_id: "C1", note: "r" },
      { anchor_id: "b", outcome: "unchanged", clause_id: "C1", note: "r" },
      { anchor_id: "c", outcome: "kept_manual", clause_id: "C2", note: null },
      { anchor_id: "d", outcome: "failed", clause_id: null, note: "boom" },
    ];
    expect(batchSummary("presort", { processed: 4, changed: 1, failed: 1, items })).toBe(
      "4 anchors processed, 1 moved to a new bucket, 1 already in the right bucket, 1 kept because a person set the bucket, 1 failed.",
    );
    expect(batchSummary("translate", { processed: 1, changed: 1, failed: 0, items: items.slice(0, 1) })).toBe("1 anchor processed, 1 translated.");
  });
  it("finds the anchors still to translate and names languages", () => {
    const list = [summary("a", "en"), summary("b", "ja"), summary("c", "ja", true), summary("d", "EN")];
    expect(needsTranslation(list).map((a) => a.anchor_id)).toEqual(["b"]);
    expect(languageName("ja")).toBe("Japanese (ja)");
    expect(languageName("zz-unknown-x")).toBe("zz-unknown-x");
  });
  it("explains where a bucket came from", () => {
    expect(bucketOriginText("presort", "about a fall")).toBe("Sorted by a model: “about a fall”");
    expect(bucketOriginText("manual", null)).toBe("Bucket set by a person");
    expect(bucketOriginText(null, null)).toBe("Not sorted into a clause yet");
  });
});

describe("anchor jobs", () => {
  const view: AnchorJobView = {
    run_id: "anchors-1",
    kind: "presort",
    status: "cancelled",
    label: null,
    model: "m",
    policy: "p",
    concurrency: 4,
    batch: false,
    total: 5,
    done: 2,
    pending: 3,
    created_at: "2026-11-26T00:00:00Z",
    finished_at: null,
    error: null,
    problems: null,
    result: {
      model: "m",
      processed: 3,
      changed: 1,
      failed: 1,
      items: [
        { anchor_id: "a", outcome: "changed", clause_id: "X", note: null },
        { anchor_id: "b", outcome: "unchanged", clause_id: "X", note: null },
        { anchor_id: "c", outcome: "failed", clause_id: null, note: "HTTP 500" },
      ],
      input_tokens: 10,
      output_tokens: 5,
      cost_usd: 0.5,
    },
  };
  const live = (done: number): Progress => ({
    run_id: "anchors-1",
    kind: "anchors",
    status: "running",
    total: 5,
    done,
    counters: { changed: 3, unchanged: 1, kept_manual: 0, failed: 0, input_tokens: 20, output_tokens: 8, cost_usd: 1 },
    elapsed_secs: 1,
    eta_secs: null,
    message: null,
  });

  it("counts from the stored outcomes, or from live progress when it is ahead", () => {
    expect(jobCounts(view, undefined)).toEqual({ done: 2, total: 5, changed: 1, unchanged: 1, kept: 0, failed: 1, tokens: 15, cost: 0.5 });
    expect(jobCounts(view, live(4))).toEqual({ done: 4, total: 5, changed: 3, unchanged: 1, kept: 0, failed: 0, tokens: 28, cost: 1 });
    expect(jobCounts(view, live(1)).done).toBe(2);
  });

  it("offers Resume only for a stopped job with anchors left", () => {
    expect(canResumeJob(view, undefined)).toBe(true);
    expect(canResumeJob(view, "running")).toBe(false);
    expect(canResumeJob({ status: "completed", pending: 0 }, undefined)).toBe(false);
    expect(canResumeJob({ status: "failed", pending: 2 }, "failed")).toBe(true);
  });
});
