// The Label audit on the Cases page: two models screen the demo's Non-reportable cases against the
// whole policy; one agrees with every label, the other meets a clause in its first answer. The
// view plans the audit, follows it to the end, shows each model's screen next to the label,
// filters to the disputed case, exports CSV, and opens a new review prefilled with that case.

import { expect, test, watchErrors } from "./fixtures";
import { addMockModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

const SCREEN = "You screen one event's facts against every clause";
const AGREE = { clauses_met: [], open_question: { present: false, section_id: null, why: "" }, verdict: "Non-reportable" };
const MEETS = {
  clauses_met: [{ clause_id: "CareManagement_1_MedicationError", why: "a drug error harmed the patient" }],
  open_question: { present: false, section_id: null, why: "" },
  verdict: "Reportable",
};
const SCRIPT = {
  rules: [
    { name: "sceptic", when: { system_contains: SCREEN, model: "sceptic" }, replies: [{ json: MEETS }, { json: AGREE }] },
    { name: "agreeable", when: { system_contains: SCREEN }, reply: { json: AGREE } },
  ],
};

let studio: OwnStudio;
let mock: MockLlm;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await startStudio();
  mock = await startMockLlm(SCRIPT);
  await addMockModel(studio, mock, "agreeable");
  await addMockModel(studio, mock, "sceptic");
  await studio.api("demo.load", {});
});

test.afterAll(() => {
  mock?.stop();
  studio?.stop();
});

test("screen the Non-reportable cases with two models and review the disputed one", async ({ page }) => {
  test.setTimeout(60_000);
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cases`);
  await page.getByRole("tab", { name: "Label audit" }).click();
  await expect(page).toHaveURL(/view=audit/);
  await expect(page.getByText("No label audit yet")).toBeVisible();

  await page.getByLabel("Cases", { exact: true }).selectOption("type:Non-reportable");
  await expect(page.getByRole("button", { name: "Choose models to plan the audit" })).toBeDisabled();
  await page.getByLabel("agreeable (on this computer)").check();
  await page.getByLabel("sceptic (on this computer)").check();
  const plan = page.locator(".plan");
  await expect(plan.getByText("Model calls")).toBeVisible();
  const start = page.getByRole("button", { name: /^Screen \d+ cases$/ });
  await expect(start).toBeEnabled();
  const n = Number(((await start.textContent()) ?? "").match(/\d+/)![0]);
  expect(n).toBeGreaterThan(1);
  await start.click();

  await expect(page.getByText(`${n} screened`, { exact: false })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator(".run-progress")).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByText("1 of " + n)).toBeVisible();
  await expect(page.getByText(/^A case is disputed when a majority/)).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "disputed" }).filter({ hasText: "meets CareManagement_1_MedicationError" })).toHaveCount(1);

  await page.getByLabel("Only disputed cases").check();
  await expect(page).toHaveURL(/disputed=1/);
  const rows = page.locator(".data-table tbody tr, table tbody tr").filter({ hasText: "disputed" });
  await expect(rows).toHaveCount(1);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^label-audit-.*\.csv$/);
  const csv = (await import("node:fs")).readFileSync(await file.path(), "utf8");
  expect(csv.split("\n")[0]).toContain("case_id,label,clause_id,disputed");

  await page.getByRole("button", { name: "Review the 1 disputed case" }).click();
  await expect(page).toHaveURL(/#\/review\/new\?cases=/);
  await expect(page.getByRole("textbox", { name: "Name of the review" })).toHaveValue(/^Disputed labels/);
  await expect(page.getByText("1 case picked", { exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});
