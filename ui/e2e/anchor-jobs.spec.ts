// Anchor pre-sort as a job in a real browser: the dialog starts a job over the built-in samples of
// one bucket (selected in the list; the job is the same whatever the count),
// shows a progress bar with counts and the outcomes as they arrive, stops on request, and the
// Anchors page lists the stopped job with Resume, which finishes only what was left.

import { expect, test, watchErrors } from "./fixtures";
import { addMockModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

const FALL = "CareManagement_7_Fall";
// The bucket whose anchors the job sorts (all of them move to the fall bucket).
const BEDRAILS = "Environmental_4_RestraintsOrBedrails";

// Slow enough answers that the job is still running when the test looks at it.
const SCRIPT = {
  latency_ms: 1500,
  rules: [
    {
      name: "presort",
      when: { system_contains: "You sort short healthcare incident texts by topic" },
      reply: { json: { clause_id: FALL, reason: "A patient fell." } },
    },
  ],
};

let mock: MockLlm;
let studio: OwnStudio;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await startStudio();
  mock = await startMockLlm(SCRIPT);
  await addMockModel(studio, mock, "sorter");
});

test.afterAll(() => {
  mock?.stop();
  studio?.stop();
});

test("a pre-sort job shows progress and outcomes, stops, and resumes from the Anchors page", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/anchors?clause=${BEDRAILS}`);
  await expect(page.getByText("26 anchors match, of 754")).toBeVisible();
  await page.getByLabel("Select every anchor shown").check();
  await page.getByRole("button", { name: "Sort with a model…" }).click();
  const dialog = page.getByRole("dialog", { name: "Sort anchors into buckets with a model" });
  await dialog.getByLabel("Model").selectOption("sorter");
  await expect(dialog.getByLabel(/Every anchor \(754\)/)).toBeVisible();
  await dialog.getByLabel(/The selected anchors \(26\)/).check();
  await dialog.getByRole("button", { name: "Sort 26 anchors" }).click();

  // Progress with counts, and outcomes as they arrive.
  const panel = dialog.getByTestId("batch-result");
  await expect(panel.getByRole("progressbar")).toBeVisible();
  await expect(panel.getByText(/\/ 26 anchors/)).toBeVisible();
  await expect(panel.getByRole("row", { name: /Changed/ }).first()).toBeVisible();
  await expect(panel.getByText("A patient fell.").first()).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Close (the job keeps running)" })).toBeVisible();

  // Stop after the anchors in flight: the rest stays to do.
  await panel.getByRole("button", { name: "Stop" }).click();
  await expect(panel.getByText("The job stopped before every anchor was done.")).toBeVisible({ timeout: 20_000 });
  await expect(panel.getByText(/still to do: resume the job from the Anchors page/)).toBeVisible();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);

  // The Anchors page lists the stopped job; Resume finishes only what was left.
  const jobs = (await studio.api("anchor_job.list", {})) as { run_id: string; done: number; pending: number; status: string }[];
  expect(jobs).toHaveLength(1);
  expect(jobs[0].status).toBe("cancelled");
  expect(jobs[0].pending).toBeGreaterThan(0);
  const doneBefore = jobs[0].done;
  const table = page.getByRole("table", { name: /Sorting and translation jobs/ });
  const row = table.getByRole("row", { name: /Sort by topic/ });
  await expect(row.getByText("Stopped")).toBeVisible();
  await expect(row.getByText(`${doneBefore} / 26`)).toBeVisible();
  await row.getByRole("button", { name: "Resume" }).click();
  await expect(row.getByText("Finished")).toBeVisible({ timeout: 60_000 });
  await expect(row.getByText("26 / 26")).toBeVisible();

  // Opening the job shows every anchor's outcome.
  await row.click();
  const again = page.getByRole("dialog", { name: "Sort anchors into buckets with a model" });
  await expect(again.getByText("Sorting finished.")).toBeVisible();
  await expect(again.getByText(/26 anchors processed, \d+ moved to a new bucket/)).toBeVisible();
  expect(errors).toEqual([]);
});
