import { describe, expect, it } from "vitest";
import type { AnchorBucket, CardSummary, GenerationPlan, ProvenanceAttempt } from "../../api/generated";
import {
  attemptSegments,
  availability,
  cardsInWords,
  cardsSpec,
  DEFAULT_FORM,
  destinationsKey,
  destinationWords,
  displayValue,
  dropReasonParts,
  factsOf,
  formProblem,
  groupAttempts,
  isLargeRun,
  LARGE_RUN_CALLS,
  largeRunKey,
  largeRunText,
  lastNarrative,
  leakRows,
  requestMessages,
  ROLE_LABEL,
  runConfig,
  sampleCards,
  selectedCards,
  STAGE_LABEL,
  stageEntries,
  stageSummary,
  startWaitsFor,
  toRequest,
} from "./logic";

const card = (id: string, clause: string, status = "approved", event_type = "Reportable"): CardSummary => ({
  card_id: id,
  policy_id: "mn29",
  clause_id: clause,
  clause_label: null,
  category: null,
  event_type,
  status,
  auditor: null,
  version: 1,
  origin: "builtin",
  updated_at: "",
  definition: "",
  boundary_conditions: 2,
  elements: 3,
  variants: 0,
  lint_errors: 0,
  lint_warnings: 0,
  provisional: [],
});

const attempt = (candidate_id: string, stage: string, n: number, passed: boolean, output: unknown = null): ProvenanceAttempt => ({
  candidate_id,
  stage,
  attempt: n,
  passed,
  issues: passed ? [] : ["x"],
  guard_findings: [],
  output: output as ProvenanceAttempt["output"],
  extracted: null,
  verifier: null,
  created_at: "",
  calls: [],
});

describe("the generation request", () => {
  it("turns the card choice into the engine's cards value", () => {
    expect(cardsSpec({ mode: "all", clause: "C", chosen: ["a"] })).toBe("all");
    expect(cardsSpec({ mode: "clause", clause: "C7", chosen: [] })).toBe("C7");
    expect(cardsSpec({ mode: "chosen", clause: "", chosen: ["a", "b"] })).toBe("a,b");
  });
  it("asks for what is missing before planning", () => {
    expect(formProblem(DEFAULT_FORM)).toMatch(/model/);
    const ok = { ...DEFAULT_FORM, model: "m" };
    expect(formProblem(ok)).toBeNull();
    expect(formProblem({ ...ok, mode: "chosen" })).toMatch(/Tick/);
    expect(formProblem({ ...ok, mode: "clause" })).toMatch(/clause/);
    expect(formProblem({ ...ok, anchorsPerCard: 0 })).toMatch(/1 to 1000/);
    expect(formProblem({ ...ok, anchorsPerCard: NaN })).toMatch(/1 to 1000/);
    expect(formProblem({ ...ok, concurrency: 1.5 })).toMatch(/Work at once/);
    expect(formProblem({ ...ok, maxCost: "-2" })).toMatch(/Spending cap/);
    expect(formProblem({ ...ok, maxCost: "2.5" })).toBeNull();
  });
  it("builds the request with defaults the engine understands", () => {
    const r = toRequest({ ...DEFAULT_FORM, mode: "all", model: "w", verifierModel: "", anchorOrigin: "imported", label: "  " });
    expect(r).toMatchObject({ cards: "all", model: "w", verifier_model: null, anchor_origin: "imported", label: null, anchors_per_card: 3, include_missing: true });
    expect(toRequest({ ...DEFAULT_FORM, model: "w", anchorOrigin: "all" }).anchor_origin).toBeNull();
    // The clause screen model is sent only when chosen (the engine defaults it to the checker).
    expect("screen_model" in r).toBe(false);
    expect(toRequest({ ...DEFAULT_FORM, model: "w", screenModel: "other" }).screen_model).toBe("other");
    // The spending cap is sent only when one is typed.
    expect("max_cost_usd" in r).toBe(false);
    expect(toRequest({ ...DEFAULT_FORM, model: "w", maxCost: "3" }).max_cost_usd).toBe(3);
    // Batch mode is off unless switched on.
    expect(r.batch).toBe(false);
    expect(toRequest({ ...DEFAULT_FORM, model: "w", batch: true }).batch).toBe(true);
    // The protocol is studio unless paper is chosen; a paper run sends no screen model.
    expect(r.protocol).toBe("studio");
    const paper = toRequest({ ...DEFAULT_FORM, model: "w", screenModel: "other", protocol: "paper" });
    expect(paper.protocol).toBe("paper");
    expect("screen_model" in paper).toBe(false);
  });
});

describe("anchors per clause", () => {
  const cards = [card("a", "C1"), card("b", "C1"), card("c", "C2"), card("d", "C3", "draft")];
  const buckets: AnchorBucket[] = [
    { clause_id: "C1", label: null, builtin: 4, imported: 30 },
    { clause_id: "C2", label: null, builtin: 4, imported: 0 },
    { clause_id: null, label: null, builtin: 0, imported: 9 },
  ];
  it("selects the cards the engine will plan", () => {
    expect(selectedCards({ mode: "all", clause: "", chosen: [] }, cards).map((c) => c.card_id)).toEqual(["a", "b", "c"]);
    expect(selectedCards({ mode: "clause", clause: "C1", chosen: [] }, cards).map((c) => c.card_id)).toEqual(["a", "b"]);
    expect(selectedCards({ mode: "chosen", clause: "", chosen: ["d"] }, cards).map((c) => c.card_id)).toEqual(["d"]);
  });
  it("counts the anchors of the chosen origin and flags short and empty buckets", () => {
    const all = availability(cards, buckets, "all", 25);
    expect(all).toEqual([
      { clauseId: "C1", cards: 2, available: 34, used: 25, state: "enough" },
      { clauseId: "C2", cards: 1, available: 4, used: 4, state: "few" },
      { clauseId: "C3", cards: 1, available: 0, used: 0, state: "none" },
    ]);
    expect(availability(cards.slice(0, 1), buckets, "builtin", 25)[0]).toMatchObject({ available: 4, state: "few" });
    expect(availability(cards.slice(2, 3), buckets, "imported", 2)[0]).toMatchObject({ available: 0, state: "none" });
  });
});

describe("plans and progress", () => {
  it("changes the confirmation key when a destination changes", () => {
    const plan = { destinations: [{ role: "r", model: "m", destination: "https://x", remote: true }] } as unknown as GenerationPlan;
    const other = { destinations: [{ role: "r", model: "n", destination: "https://x", remote: true }] } as unknown as GenerationPlan;
    expect(destinationsKey(plan)).not.toBe(destinationsKey(other));
    expect(destinationsKey(undefined)).toBe("");
  });
  it("splits a winning-attempt bar into three labelled segments", () => {
    expect(attemptSegments([3, 1, 0], 4)).toEqual([
      { attempt: 1, count: 3, pct: 75 },
      { attempt: 2, count: 1, pct: 25 },
      { attempt: 3, count: 0, pct: 0 },
    ]);
    expect(attemptSegments([], 0).every((s) => s.pct === 0)).toBe(true);
  });
});

describe("provenance", () => {
  it("marks withheld facts of an accepted case", () => {
    const { facts, fromCase } = factsOf(
      { elements: [{ name: "a", meaning: "A", value: "1" }, { name: "b", meaning: "B", value: "2" }], masked_elements: ["b"] },
      [],
    );
    expect(fromCase).toBe(true);
    expect(facts.map((f) => [f.name, f.withheld])).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });
  it("falls back to the last passing facts of a dropped candidate", () => {
    const attempts = [attempt("p", "instantiation", 1, false, { a: "bad" }), attempt("p", "instantiation", 2, true, { a: "good", b: null }), attempt("p", "narration", 1, false, "Text one"), attempt("p", "narration", 2, false, "Text two")];
    const { facts, fromCase } = factsOf(null, attempts);
    expect(fromCase).toBe(false);
    expect(facts).toEqual([
      { name: "a", meaning: "", value: "good", withheld: false },
      { name: "b", meaning: "", value: null, withheld: false },
    ]);
    expect(lastNarrative(attempts, "p")).toBe("Text two");
    expect(lastNarrative(attempts, "other")).toBeNull();
  });
  it("groups attempts by stage and marks a missing case's inherited stages", () => {
    const attempts = [attempt("p", "instantiation", 1, false), attempt("p", "instantiation", 2, true), attempt("p", "narration", 1, true), attempt("m", "missing_narration", 1, true)];
    const g = groupAttempts(attempts, "m");
    expect(g.map((x) => [x.stage, x.inherited, x.attempts.length])).toEqual([
      ["instantiation", true, 2],
      ["narration", true, 1],
      ["missing_narration", false, 1],
    ]);
  });
  it("lists every attempt of a stage, with the failed facts behind a screen attempt that never ran", () => {
    const facts1 = { ...attempt("p", "instantiation", 1, false), issues: ["The age is missing."] };
    const attempts = [facts1, attempt("p", "instantiation", 2, true), attempt("p", "narration", 1, true), attempt("p", "clause_screen", 2, true)];
    const groups = groupAttempts(attempts, "p");
    const screen = groups.find((x) => x.stage === "clause_screen")!;
    const entries = stageEntries(screen, attempts);
    expect(entries.map((e) => [e.kind, e.kind === "attempt" ? e.attempt.attempt : e.attempt])).toEqual([
      ["not-run", 1],
      ["attempt", 2],
    ]);
    expect(entries[0].kind === "not-run" && entries[0].because?.issues).toEqual(["The age is missing."]);
    expect(stageSummary(screen, attempts)).toBe("passed on attempt 2; attempt 1 not run");
    const facts = groups.find((x) => x.stage === "instantiation")!;
    expect(stageEntries(facts, attempts).map((e) => e.kind)).toEqual(["attempt", "attempt"]);
    expect(stageSummary(facts, attempts)).toBe("passed on attempt 2, after 1 failed attempt");
    expect(stageSummary(groups.find((x) => x.stage === "narration")!, attempts)).toBe("passed on attempt 1");
    const dropped = [attempt("q", "missing_narration", 1, false), attempt("q", "missing_narration", 2, false), attempt("q", "missing_narration", 3, false)];
    expect(stageSummary(groupAttempts(dropped, "q")[0], dropped)).toBe("failed 3 of 3 attempts");
  });
  it("names each role once, the same way everywhere", () => {
    expect(ROLE_LABEL.missing_verifier).toBe("Incomplete-report checker");
    expect(ROLE_LABEL.missing_narrator).toBe("Incomplete-report writer");
    expect(STAGE_LABEL.missing_narration).toBe("Incomplete report");
    expect(new Set(Object.values(ROLE_LABEL)).size).toBe(Object.keys(ROLE_LABEL).length);
    expect(Object.values(ROLE_LABEL).some((l) => /_|verifier|narrator|instantiat/i.test(l))).toBe(false);
    expect(destinationWords("instantiator and narrators")).toBe("Writer model");
    expect(destinationWords("clause screen")).toBe("Clause screen model");
  });
  it("reads request messages and the leak rows defensively", () => {
    expect(requestMessages({ messages: [{ role: "system", content: "S" }, { role: "user", content: [1] }] })).toEqual([
      { role: "system", content: "S" },
      { role: "user", content: "[\n  1\n]" },
    ]);
    expect(requestMessages(null)).toEqual([]);
    expect(leakRows({ per_bc_check: [{ boundary_condition: "x", leak_verdict: "leaked", evidence_phrase: "hip", explanation: "e" }] })).toEqual([
      { condition: "x", verdict: "leaked", evidence: "hip", explanation: "e" },
    ]);
    expect(leakRows({ pass: true })).toEqual([]);
  });
  it("reads a run's stored config", () => {
    const c = runConfig({ request: { cards: "C7", anchors_per_card: 2, seed: 3, include_missing: false, anchor_origin: null }, model: "w", verifier_model: "v", concurrency: 1, prompt_versions: { gen_narrator: "2" } });
    expect(c).toMatchObject({ cards: "C7", anchorsPerCard: 2, seed: 3, includeMissing: false, model: "w", verifierModel: "v", concurrency: 1, promptVersions: { gen_narrator: "2" } });
    expect(runConfig(null).cards).toBe("");
    expect(c.batch).toBe(false);
    expect(runConfig({ request: { cards: "all", batch: true }, batch: true }).batch).toBe(true);
    // The protocol: the recorded one, else the request's, else studio (runs made before protocols).
    expect(c.protocol).toBe("studio");
    expect(runConfig({ request: { cards: "all", protocol: "paper" } }).protocol).toBe("paper");
    const provenance = { protocol: "paper" as const, prompt_versions: {}, policy_editions: [], library_fingerprint: "", case_set_fingerprint: "", case_count: 1 };
    expect(runConfig({ request: { cards: "all" }, provenance }).protocol).toBe("paper");
    expect(cardsInWords("all", () => null)).toBe("All approved cards");
    expect(cardsInWords("C7", (id) => (id === "C7" ? "7. Fall" : null))).toBe("Approved cards of 7. Fall");
    expect(cardsInWords("a,b", () => null)).toBe("2 chosen cards");
  });
});

describe("words for the engine's notes", () => {
  it("splits a drop reason into a sentence and its problems", () => {
    expect(dropReasonParts("missing_narration failed 3 attempts; last problems: a leak | another")).toEqual({
      lead: "All 3 attempts failed. The checks found these problems on the last one:",
      problems: ["a leak", "another"],
    });
    expect(dropReasonParts("not generated: its anchor was removed from the store")).toEqual({ lead: "not generated: its anchor was removed from the store", problems: [] });
    expect(dropReasonParts(null).lead).toBe("No reason was recorded.");
  });
  it("reads enum values as words and leaves prose alone", () => {
    expect(displayValue("serious_injury")).toBe("serious injury");
    expect(displayValue("Hip fracture; see note_1")).toBe("Hip fracture; see note_1");
    expect(displayValue("death")).toBe("death");
  });
});

describe("a small start", () => {
  const lib = [
    card("rep-1", "C1", "approved", "Reportable"),
    card("non-1", "C1", "approved", "Non_Reportable"),
    card("unc-1", "C1", "approved", "Uncertain"),
    card("rep-2", "C2", "approved", "Reportable"),
    card("non-2", "C2", "approved", "Non_Reportable"),
    card("rep-3", "C3", "approved", "Reportable"),
    card("unc-3", "C3", "draft", "Uncertain"),
    card("non-4", "C4", "approved", "Non_Reportable"),
    card("unc-5", "C5", "approved", "Uncertain"),
    card("rep-6", "C6", "approved", "Reportable"),
  ];
  it("starts from a sample of three cards with three anchors each", () => {
    expect(DEFAULT_FORM.mode).toBe("sample");
    expect(DEFAULT_FORM.anchorsPerCard).toBe(3);
  });
  it("samples one approved card of each event type from different clauses, spread over the policy", () => {
    // Six clauses: the reportable card from C1, the non-reportable from the third of the way (C3 has
    // none, so C4), the uncertain from two thirds (C5).
    expect(sampleCards(lib).map((c) => c.card_id)).toEqual(["rep-1", "non-4", "unc-5"]);
    expect(cardsSpec({ mode: "sample", clause: "", chosen: [] }, lib)).toBe("rep-1,non-4,unc-5");
    expect(selectedCards({ mode: "sample", clause: "", chosen: [] }, lib).map((c) => c.card_id)).toEqual(["rep-1", "non-4", "unc-5"]);
    expect(toRequest({ ...DEFAULT_FORM, model: "w" }, "mn29", lib).cards).toBe("rep-1,non-4,unc-5");
    // The same library, the same sample.
    expect(sampleCards([...lib])).toEqual(sampleCards(lib));
  });
  it("fills the sample with other approved cards when a type is missing, and never takes a draft", () => {
    const reportableOnly = [card("a", "C1"), card("b", "C1"), card("c", "C2"), card("d", "C3", "draft")];
    expect(sampleCards(reportableOnly).map((c) => c.card_id)).toEqual(["a", "c", "b"]);
    expect(sampleCards([card("x", "C1", "draft")])).toEqual([]);
    expect(cardsSpec({ mode: "sample", clause: "", chosen: [] }, [])).toBe("");
  });
  const plan = (calls: number, usd: number | null, remote: boolean) =>
    ({
      candidates: 980,
      estimate: { calls, usd },
      destinations: [{ role: "writer", model: "m", destination: "x", remote }],
    }) as unknown as GenerationPlan;
  it("asks for an explicit confirmation above 200 model calls, stating calls and cost", () => {
    expect(LARGE_RUN_CALLS).toBe(200);
    expect(isLargeRun(plan(200, 0, false))).toBe(false);
    expect(isLargeRun(plan(201, 0, false))).toBe(true);
    expect(isLargeRun(undefined)).toBe(false);
    expect(largeRunText(plan(5300, 0, false))).toBe(
      "This run makes about 5,300 model calls for 980 candidate cases (more than 200); free on local models, but it keeps this computer busy for a long time. I want to start it.",
    );
    expect(largeRunText(plan(5300, 12.345, true))).toContain("estimated cost about $12.35");
    expect(largeRunText(plan(5300, null, true))).toContain("its cost is unknown");
  });
  it("asks again when the request or the plan changes, but not for a new name", () => {
    const r = toRequest({ ...DEFAULT_FORM, model: "w" }, "mn29", [card("a", "C1")]);
    const k = largeRunKey(r, plan(300, 0, false));
    expect(k).not.toBe("");
    expect(largeRunKey({ ...r, label: "Pilot" }, plan(300, 0, false))).toBe(k);
    expect(largeRunKey({ ...r, anchors_per_card: 4 }, plan(300, 0, false))).not.toBe(k);
    expect(largeRunKey(r, plan(400, 0, false))).not.toBe(k);
    expect(largeRunKey(null, plan(300, 0, false))).toBe("");
  });
  it("says which tick Start waits for", () => {
    const no = { needed: false, given: false };
    expect(startWaitsFor(no, no)).toBeNull();
    expect(startWaitsFor({ needed: true, given: false }, no)).toBe("Tick the confirmation above to start.");
    expect(startWaitsFor(no, { needed: true, given: false })).toBe("Tick the confirmation above to start.");
    expect(startWaitsFor({ needed: true, given: false }, { needed: true, given: false })).toBe("Tick both confirmations above to start.");
    expect(startWaitsFor({ needed: true, given: true }, { needed: true, given: true })).toBeNull();
  });
});
