import { expect, registerMockModels, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

test("without cases or models the page says what to do", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/evaluate`);
  await expect(page.getByText("No cases to evaluate yet")).toBeVisible();
  await page.getByRole("button", { name: "Open the 90 demo cases" }).click();
  await expect(page.getByText("No models registered yet")).toBeVisible();
  await expect(page.getByRole("link", { name: "Add models in Settings" })).toHaveAttribute("href", "#/settings");
  await expect(page.getByText("No runs yet.")).toBeVisible();
  expect(errors).toEqual([]);
});

test("start a run against the mock provider and watch it finish", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await registerMockModels(studio, ["asker", "info", "judge"]);
  // Progress arrives on the event stream, read with fetch so that it carries the tab's key.
  const stream = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/events");
  await page.goto(`${studio.url}#/evaluate`);
  const events = await stream;
  expect(events.status()).toBe(200);
  expect(events.headers()["content-type"]).toBe("text/event-stream");
  expect(events.request().headers()["authorization"]).toBe(`Bearer ${studio.token}`);
  expect(events.url()).not.toContain(studio.token);
  await page.getByLabel("Case type").selectOption("missing");
  await page.getByLabel("At most this many cases").fill("4");
  await expect(page.getByText("Selection:")).toBeVisible();
  await expect(page.locator("code", { hasText: "type=missing,limit=4" })).toBeVisible();
  await page.getByLabel("Model under test").selectOption("asker");
  await page.getByLabel("Information provider").selectOption("info");
  await page.getByLabel("Judge").selectOption("judge");

  const plan = page.locator(".plan");
  await expect(plan.getByText("Evaluation items")).toBeVisible();
  await expect(plan.locator("dd").first()).toContainText("4");
  await expect(plan.getByText("4 missing information")).toBeVisible();
  // Every role runs on the loopback mock: local, no confirmation needed.
  await expect(plan.getByText("On this computer")).toHaveCount(3);
  await expect(plan.getByRole("checkbox")).toHaveCount(0);
  const start = page.getByRole("button", { name: /Start the run/ });
  await expect(start).toBeEnabled();
  await start.click();

  await expect(page).toHaveURL(/#\/evaluate\?run=eval-/);
  const bar = page.getByRole("progressbar");
  await expect(page.getByText("Finished.")).toBeVisible({ timeout: 30_000 });
  await expect(bar.first()).toHaveAttribute("aria-valuenow", "4");
  await expect(bar.first()).toHaveAttribute("aria-valuemax", "4");
  const results = page.getByRole("link", { name: "See the results" });
  await expect(results).toBeVisible();
  await expect(page.getByRole("row", { name: /asker/ }).getByText("Finished")).toBeVisible();
  await expect(page.getByRole("row", { name: /asker/ }).getByText("4 / 4")).toBeVisible();
  await results.click();
  await expect(page).toHaveURL(/#\/results\?runs=eval-/);
  await expect(page.getByRole("rowheader", { name: "asker" })).toBeVisible();
  expect(errors).toEqual([]);
});

test("a remote model needs a confirmation before the run can start", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("model.add", { name: "cloud", kind: "openai-compatible", model: "gpt-x", base_url: "https://api.example.com/v1", local: false, price_in: 1, price_out: 4 });
  await page.goto(`${studio.url}#/evaluate`);
  await page.getByLabel("Model under test").selectOption("cloud");
  await page.getByLabel("Information provider").selectOption("info");
  await page.getByLabel("Judge").selectOption("judge");
  const plan = page.locator(".plan");
  await expect(plan.locator(".badge.remote")).toBeVisible();
  await expect(plan.getByText("api.example.com").first()).toBeVisible();
  await expect(plan.getByText(/about \$/)).toBeVisible();
  const confirm = plan.getByLabel(/This run sends case text to api\.example\.com \(remote\)/);
  await expect(confirm).toBeVisible();
  const start = page.getByRole("button", { name: /Start the run/ });
  await expect(start).toBeDisabled();
  await confirm.check();
  await expect(start).toBeEnabled();
  // Changing the destination asks again.
  await page.getByLabel("Model under test").selectOption("asker");
  await expect(plan.getByRole("checkbox")).toHaveCount(0);
  await page.getByLabel("Model under test").selectOption("cloud");
  await expect(plan.getByRole("checkbox")).not.toBeChecked();
  await expect(start).toBeDisabled();
  // (The run is not started: it would send data to the internet.)
  expect(errors).toEqual([]);
});

test("stop a running run, then resume it to the end", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await registerMockModels(studio, ["slow"]);
  await page.goto(`${studio.url}#/evaluate`);
  await page.getByLabel("Case type").selectOption("complete");
  await page.getByLabel("At most this many cases").fill("12");
  await page.getByLabel("Model under test").selectOption("slow");
  await page.getByLabel("Information provider").selectOption("info");
  await page.getByLabel("Judge").selectOption("judge");
  await page.getByLabel("Cases at once").fill("1");
  await page.getByRole("button", { name: /Start the run \(12 items\)/ }).click();
  await expect(page.getByText(/1 \/ 12 cases|2 \/ 12 cases/)).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Stop this run?" });
  await expect(dialog.getByText(/Finished items are kept/)).toBeVisible();
  await dialog.getByRole("button", { name: "Stop the run" }).click();
  await expect(page.getByText("Stopped.", { exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("alert").getByText(/Stopped at your request: \d+ of 12 cases are done and kept/)).toBeVisible();
  const row = page.getByRole("row", { name: /slow/ });
  await expect(row.locator(".badge.status")).toHaveText(/Stopped/);

  await page.getByRole("button", { name: "Resume the run" }).click();
  await expect(page.getByText("Finished.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("progressbar").first()).toHaveAttribute("aria-valuenow", "12");
  await expect(row.getByText("12 / 12")).toBeVisible();
  expect(errors).toEqual([]);
});

test("export a run's trajectories and import them back", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/evaluate`);
  const row = page.getByRole("row", { name: /asker/ }).first();
  const download = page.waitForEvent("download");
  await row.getByRole("button", { name: /Export the trajectories/ }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.trajectories\.jsonl$/);
  const path = await file.path();
  const text = (await import("node:fs")).readFileSync(path, "utf8");
  expect(text.trim().split("\n")).toHaveLength(4);

  await page.getByRole("button", { name: "Import trajectories" }).click();
  const dialog = page.getByRole("dialog", { name: "Import trajectories" });
  await dialog.locator('input[type="file"]').setInputFiles({ name: "mine.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(text) });
  await dialog.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByText("Imported 1 run from mine.jsonl.")).toBeVisible();
  await expect(page.getByText("imported", { exact: true }).first()).toBeVisible();
  expect(errors).toEqual([]);
});

test("re-judge an imported run whose answers were never judged", async ({ page, studio }) => {
  const errors = watchErrors(page);
  // The asker run's trajectories without their judgements, imported as another model.
  const runs = (await studio.api("evaluation.list", {})) as { run_id: string; config: { model: string } }[];
  const asker = runs.find((r) => r.config.model === "asker")!;
  const download = await studio.api("evaluation.export", { run_id: asker.run_id });
  const text = Buffer.from((download as { base64: string }).base64, "base64").toString("utf8");
  const stripped = text
    .trim()
    .split("\n")
    .map((l) => JSON.stringify({ ...JSON.parse(l), model: "asker-unjudged", judge: null }))
    .join("\n");
  await page.goto(`${studio.url}#/evaluate`);
  // Wait for the list of runs: clicking while it loads could be lost in its first render.
  await expect(page.getByRole("row", { name: /asker/ }).first()).toBeVisible();
  await page.getByRole("button", { name: "Import trajectories" }).click();
  const imp = page.getByRole("dialog", { name: "Import trajectories" });
  await expect(imp).toBeVisible();
  await imp.locator('input[type="file"]').setInputFiles({ name: "unjudged.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(stripped) });
  await imp.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByText("Imported 1 run from unjudged.jsonl.")).toBeVisible();
  const all = (await studio.api("evaluation.list", {})) as { run_id: string; config: { model: string | null; judge_model: string | null } }[];
  const mine = all.find((r) => JSON.stringify(r).includes("asker-unjudged"))!;
  const before = (await studio.api("results.overview", { run_ids: [mine.run_id] })) as { report: { models: { m4_unjudged: number }[] } };
  const unjudged = before.report.models[0].m4_unjudged;
  await page.goto(`${studio.url}#/results?runs=${mine.run_id}`);
  await expect(page.getByText(`${unjudged} unjudged`, { exact: true })).toBeVisible();

  await page.goto(`${studio.url}#/evaluate?run=${mine.run_id}`);
  await page.getByRole("button", { name: "Re-judge (M4)" }).click();
  const dialog = page.getByRole("dialog", { name: "Re-judge this run (M4)" });
  await expect(dialog.getByText("This run has no judge on record")).toBeVisible();
  await dialog.getByLabel("Judge model").selectOption("judge");
  await dialog.getByLabel("Only answers without a usable judgement").check();
  await dialog.getByRole("button", { name: "Re-judge" }).click();
  // The notice stays a few seconds; the progress line may already be gone when the job is quick.
  await expect(page.getByRole("status").filter({ hasText: "Re-judging with judge; the run shows its progress." })).toBeVisible();
  await expect
    .poll(async () => ((await studio.api("evaluation.show", { run_id: mine.run_id })) as { config: { judge_model: string | null } }).config.judge_model, { timeout: 20_000 })
    .toBe("judge");
  const after = (await studio.api("results.overview", { run_ids: [mine.run_id] })) as { report: { models: { m4_unjudged: number }[] } };
  expect(after.report.models[0].m4_unjudged).toBe(0);
  await page.goto(`${studio.url}#/results?runs=${mine.run_id}`);
  await expect(page.getByRole("rowheader", { name: "asker-unjudged" })).toBeVisible();
  await expect(page.getByText(/^\d+ unjudged$/)).toHaveCount(0);
  expect(unjudged).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test("a run under the paper protocol says so in its plan, its Made with panel and the re-judge dialog", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await registerMockModels(studio, ["answerer", "info", "judge"]);
  await page.goto(`${studio.url}#/evaluate`);
  const protocol = page.getByRole("group", { name: "Protocol" });
  await expect(protocol.getByRole("radio", { name: /^Studio — the paper's method with this application's additions \(recommended\)/ })).toBeChecked();
  // What studio adds comes from the engine's own list.
  await protocol.getByText("What does the studio protocol add?").click();
  await expect(protocol.getByText(/A reply of the evaluated model is read leniently/)).toBeVisible();

  await page.getByLabel("Case type").selectOption("complete");
  await page.getByLabel("At most this many cases").fill("2");
  await page.getByLabel("Model under test").selectOption("answerer");
  await page.getByLabel("Information provider").selectOption("info");
  await page.getByLabel("Judge", { exact: true }).selectOption("judge");
  const plan = page.locator(".plan");
  await expect(plan.getByTestId("plan-protocol")).toContainText("Studio protocol");
  await protocol.getByRole("radio", { name: /^Paper — the paper's method only/ }).check();
  await expect(protocol.getByText(/the judge reads only the\s+rationale and the boundary conditions/)).toBeVisible();
  await expect(plan.getByTestId("plan-protocol")).toContainText("Paper protocol");
  await expect(plan.getByTestId("plan-protocol")).toContainText("the paper's method only");
  await page.getByLabel("Name of the run (optional)").fill("paper check");
  await page.getByRole("button", { name: /Start the run \(2 items\)/ }).click();
  await expect(page).toHaveURL(/#\/evaluate\?run=eval-/);
  await expect(page.getByText("Finished.")).toBeVisible({ timeout: 30_000 });

  const made = page.getByTestId("made-with");
  await expect(made.getByRole("heading", { name: "Made with" })).toBeVisible();
  await expect(made.getByText("Paper protocol")).toBeVisible();
  await expect(made).toContainText("the paper's method only");
  await expect(made).toContainText("summary edition");
  await expect(made).toContainText("2 cases");
  await expect(made).toContainText("judge");
  // The prompts are collapsed until asked for.
  await expect(made.getByText("eval_system_paper")).toBeHidden();
  await made.getByText(/prompts, with their versions/).click();
  await expect(made.getByText("eval_system_paper")).toBeVisible();
  // The list of runs marks it too.
  await expect(page.getByRole("row", { name: /answerer/ }).getByText("Paper protocol")).toBeVisible();

  // Re-judging keeps the run's own protocol unless another is chosen.
  await page.getByRole("button", { name: "Re-judge (M4)" }).click();
  const dialog = page.getByRole("dialog", { name: "Re-judge this run (M4)" });
  const choice = dialog.getByLabel("Protocol");
  await expect(choice).toHaveValue("");
  await expect(choice.locator("option:checked")).toHaveText("The run's own protocol (Paper)");
  await choice.selectOption("studio");
  await expect(dialog.getByText(/not comparable with runs judged the run's own way/)).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();

  // An imported run recorded nothing about how it was made.
  const runs = (await studio.api("evaluation.list", {})) as { run_id: string; config: { imported?: boolean } }[];
  const imported = runs.find((r) => r.config.imported)!;
  await page.goto(`${studio.url}#/evaluate?run=${imported.run_id}`);
  await expect(page.getByTestId("made-with")).toContainText("Not recorded (imported, or made by an older version; such runs followed the studio protocol)");
  expect(errors).toEqual([]);
});
