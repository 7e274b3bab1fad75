// The rationale task with the keyboard: after the reveal the reviewer reads a model's judged
// rationale and ticks the boundary conditions it establishes; the owner's statistics compare those
// ticks with the M4 judge (Cohen's kappa with n).

import { join } from "node:path";
import { expect, test, watchErrors } from "./fixtures";
import { fileStudio, FileStudio, serve, Served, tokenOf } from "./review-helpers";

const CASES = ["demo_CareManagement_1_MedicationError_complete_1", "demo_CareManagement_1_MedicationError_complete_2"];

let review: Served | null = null;
let studio: FileStudio;

test.beforeAll(async () => {
  studio = await fileStudio();
});
test.afterAll(() => {
  review?.proc.kill();
  studio?.close();
});

test("a reviewer ticks the conditions a model's rationale establishes, with the keyboard", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await studio.api("demo.load");
  // An evaluation run from elsewhere, imported with the judge's results: its hit is each case's first condition.
  const conditions: Record<string, string[]> = {};
  const lines: string[] = [];
  for (const id of CASES) {
    const c = await studio.api("case.show", { case_id: id });
    conditions[id] = c.boundary_conditions.map((b) => b.name);
    lines.push(
      JSON.stringify({
        run_id: "judged-elsewhere",
        model: "tested-model",
        case_id: id,
        turns: [],
        final: { final_verdict: c.gold_verdict, targeted_clause: null, clause_and_guidance_evidence: [], rationale: `Reasoning about ${id}: the harm was serious.` },
        judge: { hits: [conditions[id][0]] },
        usage: { prompt_tokens: 0, completion_tokens: 0 },
      }),
    );
  }
  const imported = await studio.api("evaluation.import", { file: { name: "t.jsonl", base64: Buffer.from(lines.join("\n") + "\n").toString("base64") } });
  const run = imported.run_ids[0];
  const session = await studio.api("review.create", {
    name: "Judge check",
    selection: { kind: "cases", case_ids: CASES },
    reviewers: ["Ana"],
    overlap: 1,
    seed: 5,
    rationale_from: [run],
  });
  expect(session.rationale_items).toBe(2);
  const sid = session.summary.session_id;

  review = await serve(["--review", sid, "--lan"], join(studio.dir, "store.db"), studio.dir);
  const base = `http://127.0.0.1:${review.info.port}`;
  const ana = tokenOf(review.info.links.find((l) => l.reviewer === "Ana")!.link!);
  await page.goto(`${base}/review/${ana}`);
  await expect(page.getByRole("heading", { name: "How to review" })).toBeVisible();
  await page.keyboard.press("Enter");

  for (let i = 1; i <= 2; i++) {
    await expect(page.getByRole("heading", { name: `Case ${i} of 2` })).toBeVisible();
    // Nothing of the rationale before the reviewer's own verdict is locked.
    await expect(page.getByTestId("rationale-task")).toHaveCount(0);
    await expect(page.getByText("you will also check a model's reasoning")).toBeVisible();
    await page.keyboard.press("t");
    await expect(page.getByText(/rationale is shown once the by-construction verdict is open/).first()).toBeVisible();
    await page.keyboard.press("4");
    await page.keyboard.press("4");
    await page.keyboard.press("1");
    await page.keyboard.press("Enter"); // reveal
    await expect(page.getByTestId("reveal")).toBeVisible();
    await page.keyboard.press("a");
    const task = page.getByTestId("rationale-task");
    await expect(task).toBeVisible();
    await expect(page.getByTestId("rationale-text")).toContainText("the harm was serious");
    await expect(page.getByTestId("rationale-status")).toContainText("Not answered yet");
    // Not complete yet: Enter asks for the rationale task instead of moving on.
    await expect(page.getByText("This case is complete.")).toHaveCount(0);
    await page.keyboard.press("Enter");
    await expect(page.getByText(/Tick the conditions the model's rationale establishes/).first()).toBeVisible();
    await expect(page.getByRole("heading", { name: `Case ${i} of 2` })).toBeVisible();
    const boxes = task.getByRole("checkbox");
    if (i === 1) {
      // T goes to the first condition, Space ticks it, Tab and Space tick and untick the next.
      await page.keyboard.press("t");
      await expect(boxes.first()).toBeFocused();
      await page.keyboard.press("Space");
      await expect(boxes.first()).toBeChecked();
      await page.keyboard.press("Tab");
      await expect(boxes.nth(1)).toBeFocused();
      await page.keyboard.press("Space");
      await expect(page.getByTestId("rationale-status")).toContainText("Saved: 2 of");
      await page.keyboard.press("Space");
      await expect(boxes.nth(1)).not.toBeChecked();
      await expect(page.getByTestId("rationale-status")).toContainText("Saved: 1 of");
    } else {
      // N: the rationale establishes none of them.
      await page.keyboard.press("n");
      await expect(page.getByTestId("rationale-status")).toContainText("Saved: 0 of");
      await expect(boxes.first()).not.toBeChecked();
    }
    await expect(page.getByText("This case is complete.")).toBeVisible();
    await page.keyboard.press("Enter"); // next case, or the end
  }
  await expect(page.getByRole("heading", { name: "All 2 cases are complete. Thank you!" })).toBeVisible();
  expect(errors).toEqual([]);

  // The owner's statistics: the judge hit each case's first condition; Ana ticked the first
  // condition of her first case and nothing on the second.
  const stats = await studio.api("review.stats", { session: sid });
  const r = stats.rationale!;
  const n = CASES.reduce((k, id) => k + conditions[id].length, 0);
  expect(r.pooled.kappa.n).toBe(n);
  expect([r.pooled.both, r.pooled.judge_only, r.pooled.reviewer_only, r.pooled.neither]).toEqual([1, 1, 0, n - 2]);
  expect(r.pooled.observed_agreement).toBeCloseTo((n - 1) / n, 10);
  if (n < 20) expect(r.pooled.caution).toContain(`Only ${n} decision${n === 1 ? "" : "s"}:`);
  const rows = await studio.api("review.export", { session: sid, format: "jsonl" });
  const text = Buffer.from(rows.base64, "base64").toString("utf8");
  expect(text.split("\n").filter((l) => l.includes('"question":"rationale_condition"'))).toHaveLength(n);

  // The Review page shows the judge against the reviewer.
  await page.goto(`${studio.url}#/review/${sid}?tab=results`);
  await expect(page.getByRole("heading", { name: "The M4 judge against reviewers (rationale task)" })).toBeVisible();
  await expect(page.getByTestId("judge-agreement")).toContainText("All reviewers (pooled)");
});

test("the rationale task is chosen in the New review form, with the runs to draw from", async ({ page }) => {
  const errors = watchErrors(page);
  // Runs from the first test: the imported, judged run.
  const runs = await studio.api("evaluation.list");
  const run = runs.find((r) => r.counts.done > 0)!.run_id;
  await page.goto(`${studio.url}#/review`);
  await page.getByRole("link", { name: "New review" }).click();
  await page.getByLabel("Name of the review").fill("Judge check from the form");
  await expect(page.getByText("30 available").first()).toBeVisible();
  await page.getByLabel("Complete", { exact: true }).fill("30");
  await page.getByLabel("Missing information", { exact: true }).fill("0");
  await page.getByLabel("Uncertain (gray zone)", { exact: true }).fill("0");
  const name = page.getByLabel("Reviewer's name");
  await name.fill("Ana");
  await name.press("Enter");
  await page.getByLabel("Also check the M4 judge against the reviewers").check();
  // Switched on with no run chosen: the form says what is missing.
  await page.getByRole("button", { name: "Create the review (30 cases)" }).click();
  await expect(page.getByText("Choose at least one evaluation run for the rationale task")).toBeVisible();
  await page.getByLabel(new RegExp(run)).check();
  await page.getByRole("button", { name: "Create the review (30 cases)" }).click();
  await expect(page.getByText(`2 cases with a model's rationale to check (from ${run})`)).toBeVisible();
  expect(errors).toEqual([]);
});
