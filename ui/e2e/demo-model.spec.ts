// The demo model in a real browser: one click in Settings starts it inside the server and
// registers the model "demo"; a small evaluation on demo cases runs against it, and the run, the
// Results picker, the notice and the leaderboard all say the results are a simulation.

import { expect, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

test("Try the demo model, evaluate a few demo cases with it and see the results labelled a simulation", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load", {});
  await page.goto(`${studio.url}#/settings`);
  const state = page.getByTestId("demo-model-state");
  await expect(state).toContainText("Not started.");
  await page.getByRole("button", { name: "Try the demo model" }).click();
  await expect(state).toContainText("Running.");
  await expect(state).toContainText("not a real language model");
  // Registered as the model "demo", marked a simulation.
  const row = page.getByRole("row", { name: /demo/ }).filter({ has: page.getByRole("button", { name: "Test demo" }) });
  await expect(row.getByText("Simulation")).toBeVisible();
  await expect(page.getByRole("button", { name: "Stop the demo model" })).toBeVisible();

  await page.goto(`${studio.url}#/evaluate`);
  await page.getByLabel("At most this many cases").fill("6");
  await page.getByLabel("Model under test").selectOption("demo");
  await page.getByLabel("Information provider").selectOption("demo");
  await page.getByLabel("Judge").selectOption("demo");
  await page.getByRole("button", { name: /Start the run/ }).click();
  await expect(page).toHaveURL(/#\/evaluate\?run=eval-/);
  await expect(page.getByText("Finished.")).toBeVisible({ timeout: 30_000 });
  // The run panel and the run list say it is a simulation.
  await expect(page.getByText("A simulation.")).toBeVisible();
  await expect(page.getByText("The built-in demo model played the model under test, information provider and judge")).toBeVisible();
  const runRow = page.getByRole("row", { name: /demo/ }).filter({ hasText: "6 / 6" });
  await expect(runRow.getByText("Simulation")).toBeVisible();

  const runs = await studio.api("evaluation.list", {});
  expect(runs).toHaveLength(1);
  expect(runs[0].config.models?.eval.simulation).toBe(true);
  // The demo model answers plausibly but not perfectly: a readable verdict for every case.
  expect(runs[0].counts.done).toBe(6);

  await page.getByRole("link", { name: "See the results" }).click();
  await expect(page).toHaveURL(/#\/results\?runs=eval-/);
  await expect(page.getByText("Simulated results.")).toBeVisible();
  await expect(page.getByText(/demo was made with the built-in demo model/)).toBeVisible();
  await expect(page.getByRole("rowheader", { name: /demo/ }).getByText("Simulation")).toBeVisible();
  const report = await studio.api("metrics.runs", { run_ids: [runs[0].run_id] });
  expect(report.simulations).toEqual(["demo"]);

  // Stopped, it says so plainly and offers to start again.
  await page.goto(`${studio.url}#/settings`);
  await page.getByRole("button", { name: "Stop the demo model" }).click();
  await expect(state).toContainText("Stopped.");
  await expect(page.getByRole("button", { name: "Start the demo model again" })).toBeVisible();
  expect(errors).toEqual([]);
});
