import { expect, registerMockModels, runEvalToEnd, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

let runs: Record<string, string> = {};

test("without finished runs Results explains and links to Evaluate", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/results`);
  await expect(page.getByText("No finished runs yet")).toBeVisible();
  await expect(page.getByRole("link", { name: "Start a run" })).toHaveAttribute("href", "#/evaluate");
  expect(errors).toEqual([]);
});

test("leaderboard: every model, sortable, F1 details on keyboard focus, paired tests", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await registerMockModels(studio);
  // Three models on the same cases: one asks then answers Reportable, one answers at once, one writes prose.
  runs = {
    asker: await runEvalToEnd(studio, "asker", "type=missing,limit=3"),
    answerer: await runEvalToEnd(studio, "answerer", "type=missing,limit=3"),
    garbage: await runEvalToEnd(studio, "garbage", "type=missing,limit=3"),
  };
  await page.goto(`${studio.url}#/results`);
  // Every finished run is chosen on the first visit, and remembered in the address.
  await expect(page).toHaveURL(/runs=/);
  for (const m of ["asker", "answerer", "garbage"]) await expect(page.getByRole("rowheader", { name: m, exact: true })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /M1.*Verdict accuracy/ })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /M8.*Reportable detection F1/ })).toBeVisible();

  // An F1 value explains itself on keyboard focus.
  const askerRow = page.getByRole("row", { name: /^asker/ });
  const f1 = askerRow.locator(".tip-trigger").last();
  await f1.focus();
  const tip = page.getByRole("tooltip");
  await expect(tip).toBeVisible();
  await expect(tip).toContainText("Precision");
  await expect(tip).toContainText("Recall");
  await expect(tip).toContainText(/TP \d+ · FP \d+ · FN \d+/);
  await page.keyboard.press("Escape");
  await expect(tip).toBeHidden();
  // Column headers explain the metric too.
  await page.getByRole("button", { name: /M5.*Missing-case detection F1/ }).hover();
  await expect(page.getByRole("tooltip")).toContainText("Does the model ask questions");
  // M1 shows its bootstrap interval.
  await expect(askerRow.locator(".ci").first()).toHaveText(/\[\d+\.\d, \d+\.\d\]$/);

  // Sorting by a metric reorders the rows.
  await page.getByRole("button", { name: /^Model/ }).click();
  await expect(page.locator("tbody th.lb-model").first()).toHaveText("answerer");
  await page.getByRole("button", { name: /^Model/ }).click();
  await expect(page.locator("tbody th.lb-model").first()).toHaveText("garbage");

  await expect(page.getByRole("heading", { name: "Do the models really differ?" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "p (exact)" })).toBeVisible();
  expect(errors).toEqual([]);
});

test("tables render and download as CSV, Markdown and LaTeX", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/results?runs=${Object.values(runs).join(",")}&tab=tables`);
  const first = page.locator(".paper-table").first();
  await expect(first.getByRole("heading")).toBeVisible();
  await expect(first.getByRole("cell", { name: "asker" })).toBeVisible();
  const csv = page.waitForEvent("download");
  await first.getByRole("button", { name: /^CSV: download / }).click();
  expect((await csv).suggestedFilename()).toMatch(/\.csv$/);
  const tex = page.waitForEvent("download");
  await first.getByRole("button", { name: /^LaTeX: download / }).click();
  expect((await tex).suggestedFilename()).toMatch(/\.tex$/);
  expect(errors).toEqual([]);
});

test("charts show with captions and download as PNG and SVG", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/results?runs=${Object.values(runs).join(",")}&tab=charts`);
  await expect(page.locator("figure.chart-card")).toHaveCount(5);
  const chart = page.locator("figure.chart-card").first();
  await expect(chart.locator("img")).toBeVisible();
  await expect(chart.locator("figcaption")).not.toBeEmpty();
  const png = page.waitForEvent("download");
  await chart.getByRole("button", { name: /^PNG \(2×\): download / }).click();
  const pngFile = await png;
  expect(pngFile.suggestedFilename()).toMatch(/@2x\.png$/);
  const bytes = (await import("node:fs")).readFileSync(await pngFile.path());
  expect(bytes.subarray(1, 4).toString()).toBe("PNG");
  const svg = page.waitForEvent("download");
  await chart.getByRole("button", { name: /^SVG: download / }).click();
  const svgFile = await svg;
  expect(svgFile.suggestedFilename()).toMatch(/\.svg$/);
  expect((await import("node:fs")).readFileSync(await svgFile.path(), "utf8")).toContain("<svg");
  expect(errors).toEqual([]);
});

test("case grid: filters, then open transcripts (ask, provider answer, final answer; unreadable replies)", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/results?runs=${Object.values(runs).join(",")}&tab=cases`);
  const status = page.getByRole("status").filter({ hasText: "Showing" });
  await expect(status).toContainText("Showing 3 of 3 cases");
  await expect(page.getByRole("columnheader", { name: /garbage/ })).toBeVisible();

  // garbage never answers: "no answer" for it keeps every case; answerer always answers.
  await page.getByLabel("Model", { exact: true }).selectOption("garbage");
  await page.getByLabel(/^No answer/).check();
  await expect(status).toContainText("Showing 3 of 3");
  await page.getByLabel("Model", { exact: true }).selectOption("answerer");
  await expect(status).toContainText("Showing 0 of 3");
  await expect(page.getByText("No case matches these filters")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(status).toContainText("Showing 3 of 3");
  // The asker asked on every case, the answerer never did; the three models disagree everywhere.
  await page.getByLabel("Model", { exact: true }).selectOption("answerer");
  await page.getByLabel("Questions", { exact: true }).selectOption("yes");
  await expect(status).toContainText("Showing 0 of 3");
  await page.getByLabel("Model", { exact: true }).selectOption("asker");
  await expect(status).toContainText("Showing 3 of 3");
  await page.getByLabel("Questions", { exact: true }).selectOption("");
  await page.getByLabel("Models disagree", { exact: true }).check();
  await expect(status).toContainText("Showing 3 of 3");
  await page.getByLabel("Models disagree", { exact: true }).uncheck();
  // The filters are in the address, so a reload keeps them.
  await expect(page).toHaveURL(/model=asker/);

  // Open the asker's transcript on the first case.
  await page.getByRole("link", { name: /^asker: Reportable/ }).first().click();
  await expect(page).toHaveURL(/#\/results\/trajectory\?.*run=.*case=/);
  await expect(page.getByText("Asks", { exact: true })).toBeVisible();
  await expect(page.getByText("How long did the patient stay in intensive care?", { exact: true })).toBeVisible();
  // The model's reasoning sits beside the question, closed until opened.
  const reasoning = page.getByTestId("turn-reasoning").first();
  await expect(reasoning.locator("summary")).toContainText(/Model's reasoning \(\d+ tokens?\)/);
  const thought = reasoning.getByText("Whether the harm was serious depends on the stay in intensive care; {not yet known}.");
  await expect(thought).toBeHidden();
  await reasoning.locator("summary").click();
  await expect(thought).toBeVisible();
  await expect(page.getByText("Information provider").first()).toBeVisible();
  await expect(page.getByText("The patient stayed 3 days in intensive care.")).toBeVisible();
  await expect(page.getByText("Answers", { exact: true })).toBeVisible();
  await expect(page.locator("dl.answer").getByText("Reportable")).toBeVisible();
  await expect(page.getByText("A serious injury followed a medication error.", { exact: true })).toBeVisible();
  // The raw reply, tokens and time are behind a disclosure.
  await page.getByText("Details: raw reply, tokens, time").first().click();
  await expect(page.locator("pre.raw").first()).toContainText('"action"');

  // Next and previous within the filter, with the keyboard too.
  await expect(page.getByText("Case 1 of 3 in the current filter")).toBeVisible();
  const first = page.url();
  await page.keyboard.press("j");
  await expect(page.getByText("Case 2 of 3 in the current filter")).toBeVisible();
  expect(page.url()).not.toBe(first);
  await page.getByRole("link", { name: "← Previous" }).click();
  await expect(page.getByText("Case 1 of 3 in the current filter")).toBeVisible();

  // Scoring: expected against given.
  await page.getByRole("tab", { name: "Scoring" }).click();
  await expect(page.getByRole("row", { name: /Verdict \(M1\)/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Missing information (M5, M6)" })).toBeVisible();
  await page.getByRole("tab", { name: "Metadata" }).click();
  await expect(page.getByText("Information provider", { exact: true })).toBeVisible();
  await page.getByRole("tab", { name: "Raw JSON" }).click();
  await expect(page.locator("pre.json").first()).toContainText('"turns"');

  // The garbage model's transcript on the same case: no readable answer, with the raw reply.
  await page.getByRole("tab", { name: "Transcript" }).click();
  await page.getByRole("link", { name: /^garbage:/ }).click();
  await expect(page.getByText("No readable answer").first()).toBeVisible();
  await expect(page.getByText("Probably reportable, I would say, but let me think about it at length.").first()).toBeVisible();
  await expect(page.getByText("The case ended without a readable answer.")).toBeVisible();

  // Back to the grid with the filters kept.
  await page.getByRole("link", { name: "← Back to the cases" }).click();
  await expect(page).toHaveURL(/tab=cases/);
  await expect(page.getByLabel("Model", { exact: true })).toHaveValue("asker");
  expect(errors).toEqual([]);
});

test("results work for runs imported from trajectories", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const d = await studio.api("evaluation.export", { run_id: runs.asker });
  const text = Buffer.from(d.base64, "base64").toString("utf8").replace(/"model":"asker"/g, '"model":"asker-elsewhere"').replace(/"run_id":"[^"]+"/g, '"run_id":"from-elsewhere"');
  const imported = await studio.api("evaluation.import", { file: { name: "t.jsonl", base64: Buffer.from(text).toString("base64") } });
  await page.goto(`${studio.url}#/results?runs=${imported.run_ids.join(",")}`);
  await expect(page.getByRole("rowheader", { name: "asker-elsewhere" })).toBeVisible();
  await page.getByRole("tab", { name: "Cases" }).click();
  await page.getByRole("link", { name: /^asker-elsewhere: Reportable/ }).first().click();
  await expect(page.getByText("How long did the patient stay in intensive care?", { exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test("example results can be explored before any model is set up", async ({ page }) => {
  // A store of its own: no runs, no models.
  const { fileStudio } = await import("./review-helpers");
  const s = await fileStudio();
  try {
    const errors = watchErrors(page);
    await page.goto(`${s.url}#/results`);
    await expect(page.getByRole("heading", { name: "No finished runs yet" })).toBeVisible();
    await page.getByRole("button", { name: "Explore example results" }).click();
    await expect(page.getByText("Example results.", { exact: false })).toBeVisible();
    await expect(page.locator("table.leaderboard tbody tr")).toHaveCount(3);
    await expect(page.locator("table.leaderboard").getByText("example-careful", { exact: true })).toBeVisible();
    // The example runs are made alike: no warning that they are not comparable.
    await expect(page.getByText("These numbers are not directly comparable.")).toHaveCount(0);
    await page.getByRole("tab", { name: "Charts" }).click();
    await expect(page.getByRole("heading", { name: /Do models ask when facts are missing/ }).first()).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    s.close();
  }
});
