// Honest states: an evaluation or a generation run whose replies could not be read finishes "with problems" and says
// how many and why (run list, run panel, Home, Results); an extraction whose replies cannot be used
// is "failed" with its reason and a way to try again, never waiting for approval; and without an
// OS keyring (as here: no D-Bus session) a key can be held in memory for this session and is the
// key the model's calls carry.

import { expect, registerMockModels, runEvalToEnd, test, watchErrors } from "./fixtures";
import { addMockModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

test.describe.configure({ mode: "serial" });

test("a run whose replies could not be read finishes with problems, with counts and the reason", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await registerMockModels(studio, ["garbage", "answerer", "info", "judge"]);
  const bad = await runEvalToEnd(studio, "garbage", "type=missing,limit=3", { concurrency: 1 });
  await runEvalToEnd(studio, "answerer", "type=missing,limit=3", { concurrency: 1 });
  const why = /3 of 3 cases ended on a reply that could not be read — the model did not answer in the JSON the task asks for/;

  await page.goto(`${studio.url}#/evaluate`);
  const badRow = page.getByRole("row", { name: /^garbage/ });
  await expect(badRow.locator(".status-completed_with_problems")).toHaveText(/Finished with problems/);
  await expect(badRow.getByText(why)).toBeVisible();
  const goodRow = page.getByRole("row", { name: /^answerer/ });
  await expect(goodRow).toContainText("Finished");
  await expect(goodRow).not.toContainText("with problems");

  await page.goto(`${studio.url}#/evaluate?run=${bad}`);
  const warning = page.getByRole("alert").filter({ hasText: "Finished with problems." });
  await expect(warning).toContainText(why);
  await expect(page.getByText("Finished.", { exact: true })).toHaveCount(0);

  await page.goto(`${studio.url}#/`);
  await expect(page.getByText(why).first()).toBeVisible();

  await page.goto(`${studio.url}#/results?runs=${bad}`);
  await expect(page.getByRole("alert").filter({ hasText: "garbage: finished with problems." })).toContainText(why);
  expect(errors).toEqual([]);
});

test.describe("a generation run whose writer's replies cannot be read", () => {
  let own: OwnStudio;
  let mock: MockLlm;
  const CARD = "CardRep_1_CareManagement_7";
  test.beforeAll(async () => {
    own = await startStudio();
    // The writer answers the fill-in-the-facts step in prose every time: the candidate is dropped
    // after its tries and its incomplete-report variant is never started.
    mock = await startMockLlm({ rules: [{ name: "prose", when: { system_contains: "You fill in the facts" }, reply: { text: "Some facts, in my own words." } }] });
    await addMockModel(own, mock, "writer");
  });
  test.afterAll(() => {
    mock?.stop();
    own?.stop();
  });

  test("finishes with problems in the run list and on the run's page", async ({ page }) => {
    const errors = watchErrors(page);
    const { run_id } = await own.api("generation.start", {
      policy: "mn29",
      cards: CARD,
      anchors_per_card: 1,
      model: "writer",
      verifier_model: "writer",
      seed: 7,
      concurrency: 1,
      include_missing: true,
      anchor_origin: null,
      label: "Unreadable writer",
    });
    await expect.poll(async () => (await own.api("generation.show", { run_id })).status, { timeout: 60_000 }).toBe("completed");
    const why = /1 of 1 candidates were dropped because the model's replies could not be read — the writing or checking model did not answer in the JSON the task asks for/;

    await page.goto(`${own.url}#/generate?tab=runs`);
    const row = page.getByRole("row", { name: /Unreadable writer/ });
    await expect(row.locator(".status-completed_with_problems")).toHaveText(/Finished with problems/);
    await expect(row.getByText(why)).toBeVisible();

    await page.goto(`${own.url}#/generate?run=${run_id}`);
    await expect(page.getByRole("alert").filter({ hasText: "Finished with problems." })).toContainText(why);
    await expect(page.getByText("Finished.", { exact: true })).toHaveCount(0);
    expect(errors).toEqual([]);
  });
});

const POLICY = "riverland-honest";
const FALL = "RL_Falls_1_LastingHarm";
const prose = { text: "I would rather not pick any sections today." };

test.describe("an extraction that fails", () => {
  let own: OwnStudio;
  let mock: MockLlm;
  test.beforeAll(async () => {
    own = await startStudio();
    // Three unreadable replies (one extraction), then a usable one when asked again.
    mock = await startMockLlm({
      rules: [
        {
          name: "extract",
          when: { system_contains: "You help a compliance team build a library" },
          replies: [prose, prose, prose, { json: { relevant_sections: [{ section_id: "Lasting harm", criteria: ["defines_term"], why: "It defines lasting harm." }] } }],
        },
        { name: "check", when: { system_contains: "You review a selection of policy sections" }, reply: { json: { add: [], remove: [] } } },
      ],
    });
    await addMockModel(own, mock, "author");
    await own.api("policy.create", {
      id: POLICY,
      name: "Riverland rule",
      jurisdiction: "Riverland Health Authority",
      reporting_deadline: "within 10 working days",
      statute: "",
      clauses: [{ clause_id: FALL, label: "Falls clause 1", category: "Falls", text: "A patient falls in care and is left with harm lasting beyond a week.", short_title: "" }],
      guidance_markdown: "# Lasting harm\nHarm counts as lasting when it still limits the patient after seven days.\n",
    });
  });
  test.afterAll(() => {
    mock?.stop();
    own?.stop();
  });

  test("is failed with the reason and a Try again that runs it again, also after a reload", async ({ page }) => {
    const errors = watchErrors(page);
    await page.addInitScript((id) => window.localStorage.setItem("psebench.policy", id), POLICY);
    await page.goto(`${own.url}#/cards`);
    await page.getByRole("tab", { name: "Author from policy" }).click();
    await page.getByRole("button", { name: /Falls clause 1/ }).click();
    await page.getByRole("button", { name: "Run extraction" }).click();
    const failedNow = page.getByRole("alert").filter({ hasText: "Extraction failed." });
    await expect(failedNow).toContainText("after 3 tries the model's reply could not be used");
    await expect(failedNow).toContainText("not one JSON object");
    await expect(failedNow).toContainText("Nothing was stored for approval");
    await expect(page.getByText(/waiting for approval/)).toHaveCount(0);
    expect(await own.api("authoring.extractions", { policy: null, clause: null })).toEqual([]);

    // After a reload the failure is still there, with its reason and Try again; nothing to approve.
    await page.reload();
    await page.getByRole("tab", { name: "Author from policy" }).click();
    await page.getByRole("button", { name: /Falls clause 1/ }).click();
    const kept = page.getByTestId("extraction-failed");
    await expect(kept).toContainText("Failed:");
    await expect(kept).toContainText("not one JSON object");
    await expect(kept).toContainText("Nothing was stored for approval");
    await expect(page.getByRole("button", { name: "Approve extraction" })).toHaveCount(0);
    await expect(page.getByText(/waiting for approval/i)).toHaveCount(0);
    const failed = kept;

    await failed.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByTestId("extraction")).toBeVisible();
    await expect(page.getByText("Extraction failed.")).toHaveCount(0);
    await expect(page.getByTestId("extraction-failed")).toHaveCount(0);
    expect(await own.api("authoring.extraction_failures", { policy: null, clause: null })).toEqual([]);
    const stored = await own.api("authoring.extractions", { policy: null, clause: null });
    expect(stored.map((x) => x.status)).toEqual(["proposed"]);
    expect(errors).toEqual([]);
  });
});

test.describe("without an OS keyring", () => {
  let own: OwnStudio;
  let mock: MockLlm;
  const KEY = "sk-held-in-memory-4242";
  test.beforeAll(async () => {
    own = await startStudio();
    // The mock answers only calls that carry this key.
    mock = await startMockLlm({ require_key: KEY, rules: [{ name: "any", reply: { text: "ready" } }] });
  });
  test.afterAll(() => {
    mock?.stop();
    own?.stop();
  });

  test("saving a key offers to hold it in memory for this session, and the calls use it", async ({ page }) => {
    test.skip(!!process.env.DBUS_SESSION_BUS_ADDRESS, "a desktop session has a keyring");
    const errors = watchErrors(page);
    await page.goto(`${own.url}#/settings`);
    await page.getByRole("button", { name: "Add a model" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add a model" });
    await dialog.getByLabel("Name in PSEBench Studio").fill("keyed");
    await dialog.getByLabel("Model id").fill("keyed");
    await dialog.getByLabel("Server address (base URL)").fill(mock.base);
    await expect(dialog.getByText(/reads environment variables when it starts/)).toHaveCount(0);
    await dialog.getByLabel("Read it from an environment variable").check();
    await expect(dialog.getByText(/reads environment variables when it starts: set the variable, then start the app/)).toBeVisible();
    await dialog.getByLabel("Store a key in this computer's keyring").check();
    await dialog.getByLabel("API key").fill(KEY);
    await dialog.getByRole("button", { name: "Add model" }).click();

    const alert = dialog.getByRole("alert");
    await expect(alert).toContainText("No keyring on this computer.");
    await expect(alert).toContainText("This computer has no system keyring PSEBench Studio can keep the key in");
    await expect(alert).not.toContainText("D-Bus");
    await alert.getByRole("button", { name: "Keep the key in memory for this session" }).click();
    await expect(dialog).toBeHidden();

    const row = page.getByRole("row", { name: /keyed/ });
    await expect(row.getByText(/Key held in memory for this session only/)).toBeVisible();
    await page.getByRole("button", { name: "Test keyed" }).click();
    await expect(page.getByText("It answered")).toBeVisible();
    await expect(page.getByText(KEY)).toHaveCount(0);
    expect(errors).toEqual([]);
  });
});
