// Batch mode in a real browser: an evaluation run whose three models (registered as OpenAI models
// at the loopback mock) send their calls as provider batches. The form's switch and the plan's two
// costs, then the run's "Provider batches" panel while it waits and after it finished. The server
// gathers and polls batches every 50 ms; the mock ends each batch 4 s after it was sent, so the
// panel (refreshed every 3 s) sees the first round's batch still at the provider.

import { expect, MOCK_SCRIPT, test, watchErrors } from "./fixtures";
import { addMockModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

const KEY_VAR = "PSEBENCH_E2E_BATCH_KEY";
let mock: MockLlm;
let studio: OwnStudio;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await startStudio({ PSEBENCH_BATCH_GATHER_MS: "50", PSEBENCH_BATCH_POLL_MS: "50", [KEY_VAR]: "sk-e2e-batch-000000" });
  mock = await startMockLlm({ ...MOCK_SCRIPT, batch: { delay_ms: 4000, fail_every: 0, fail_batches: 0, expire_batches: 0 } });
  await studio.api("demo.load", {});
  for (const name of ["asker", "info", "judge"]) {
    await studio.api("model.add", { name, kind: "openai", model: name, base_url: mock.base, api_key_env: KEY_VAR, local: false, price_in: 30, price_out: 60 });
  }
  // A server without a batch API (OpenAI-compatible): batch mode has nothing to do for it.
  await addMockModel(studio, mock, "plain");
});

test.afterAll(() => {
  mock?.stop();
  studio?.stop();
});

const SWITCH = "Use the providers' batch APIs (about half the price; results can take up to 24 hours)";

test("the switch says why it is off when no chosen model has a batch API", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/evaluate`);
  for (const role of ["Model under test", "Information provider", "Judge"]) await page.getByLabel(role).selectOption("plain");
  const plan = page.locator(".plan");
  await expect(plan.getByText("Where the case text goes")).toBeVisible();
  const toggle = page.getByLabel(SWITCH);
  await expect(toggle).toBeDisabled();
  await expect(toggle).not.toBeChecked();
  await expect(page.getByText(/Not available for these models: only OpenAI, Azure OpenAI, Anthropic and Gemini have a batch API/)).toBeVisible();
  // Batch mode neither asked for nor possible: the plan does not mention it.
  await expect(plan.getByTestId("batch-plan")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("a run in batch mode shows both costs, then its provider batches until they have ended", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/evaluate`);
  await page.getByLabel("Case type").selectOption("missing");
  await page.getByLabel("At most this many cases").fill("3");
  await page.getByLabel("Model under test").selectOption("asker");
  await page.getByLabel("Information provider").selectOption("info");
  await page.getByLabel("Judge").selectOption("judge");

  // Off: the plan already says what batch mode would cost.
  const plan = page.locator(".plan");
  const batchPlan = plan.getByTestId("batch-plan");
  await expect(batchPlan.getByText(/^Online: about \$\d+\.\d\d · In batch mode: about \$\d+\.\d\d$/)).toBeVisible();
  await expect(batchPlan.getByText(/^Batch mode would send the calls of asker, info, judge as provider batches/)).toBeVisible();

  // On: the same costs, the providers' window, and which models go out as batches.
  const toggle = page.getByLabel(SWITCH);
  await expect(toggle).toBeEnabled();
  await toggle.check();
  await expect(batchPlan.getByRole("heading", { name: "Batch mode is on" })).toBeVisible();
  const costs = (await batchPlan.locator(".batch-costs").textContent()) ?? "";
  const [online, batch] = [...costs.matchAll(/\$(\d+\.\d\d)/g)].map((m) => Number(m[1]));
  expect(batch).toBeCloseTo(online / 2, 1);
  await expect(batchPlan.getByText("Providers' completion window: within 24 hours.")).toBeVisible();
  await expect(batchPlan.getByText(/^Batch mode: the calls of asker, info, judge go out as provider batches at half the price/)).toBeVisible();
  await expect(page.getByText("Not used in batch mode: every case goes out together in each round.")).toBeVisible();

  await page.getByRole("button", { name: /Start the run \(3 items\)/ }).click();
  await expect(page).toHaveURL(/#\/evaluate\?run=eval-/);
  const runId = new URL(page.url().replace("#/", "")).searchParams.get("run")!;

  // While the run waits, the panel says for what, and that the app may be closed.
  const panel = page.locator(".batch-panel");
  await expect(panel.getByRole("heading", { name: "Provider batches" })).toBeVisible();
  await expect(panel.getByText(/^Waiting for \d+ batch(es)? at the providers; you can close the app — the run continues where it stopped when you reopen it\.$/)).toBeVisible({
    timeout: 15_000,
  });
  const rows = panel.locator("tbody tr");
  await expect(rows.filter({ hasText: "asker" }).first().getByText("At the provider")).toBeVisible();

  // Each round is a batch; the run finishes once the last one has ended.
  await expect(page.getByText("Finished.")).toBeVisible({ timeout: 90_000 });
  const firstBatch = rows.filter({ hasText: "asker" }).last();
  await expect(firstBatch.getByText("Ended")).toBeVisible();
  await expect(firstBatch.getByText("completed")).toBeVisible();
  await expect(panel.getByText(/^\d+ batches sent: \d+ ended; \d+ requests answered at batch prices\.$/)).toBeVisible();

  const batches = await studio.api("batches.list", { run_id: runId });
  expect(batches.length).toBeGreaterThanOrEqual(4);
  expect(batches.every((b) => b.state === "ended" && b.provider === "openai" && b.failed === 0)).toBe(true);
  await expect(rows.filter({ hasText: "Ended" })).toHaveCount(batches.length);
  await expect(panel.getByText(`${batches.length} batches sent: ${batches.length} ended;`, { exact: false })).toBeVisible();
  const show = await studio.api("evaluation.show", { run_id: runId });
  expect(show.config.batch).toBe(true);

  // The runs list marks the run, and the panel stays on its page afterwards.
  const runs = page.getByRole("table", { name: "Evaluation runs" });
  await expect(runs.getByRole("row", { name: /asker/ }).filter({ hasText: "batch mode" })).toHaveCount(1);
  await page.reload();
  await expect(page.locator(".batch-panel tbody tr").filter({ hasText: "Ended" })).toHaveCount(batches.length);
  expect(errors).toEqual([]);
});

test("the Generate form has the same switch and the plan's two costs", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/generate`);
  await page.getByLabel("Cards I choose").check();
  await page.getByLabel("Find cards").fill("CardRep_1_CareManagement_7");
  await page.getByRole("checkbox", { name: /^CardRep_1_CareManagement_7:/ }).check();
  await page.getByLabel("Anchors per card").fill("2");
  await page.getByLabel("Writer model").selectOption("asker");
  const batchPlan = page.getByTestId("plan").getByTestId("batch-plan");
  await expect(batchPlan.getByText(/^Online: about \$\d+\.\d\d · In batch mode: about \$\d+\.\d\d$/)).toBeVisible();
  const toggle = page.getByLabel(SWITCH);
  await toggle.check();
  await expect(batchPlan.getByRole("heading", { name: "Batch mode is on" })).toBeVisible();
  await expect(batchPlan.getByText(/^Batch mode: the calls of asker go out as provider batches/)).toBeVisible();
  await expect(page.getByText("Not used in batch mode: every pair goes out together at each stage.")).toBeVisible();
  // A writer without a batch API: the switch turns off and says why.
  await page.getByLabel("Writer model").selectOption("plain");
  await expect(toggle).toBeDisabled();
  await expect(toggle).not.toBeChecked();
  await expect(batchPlan.getByText("None of these models has a batch API; every call is made directly.")).toBeVisible();
  expect(errors).toEqual([]);
});
