// Safe defaults in a real browser: Evaluate proposes a different model for each role and warns when
// the model under test informs on or judges itself; Generate starts from a small sample and asks
// before a run of more than 200 model calls; the audit dialog chooses no decision for the auditor;
// a name is only filled in from the same role, and the field says so.

import { expect, test, watchErrors } from "./fixtures";
import { addRemoteModel, OwnStudio, startStudio } from "./mockllm";

let studio: OwnStudio;

test.describe.configure({ mode: "serial" });

/** A model on this computer that is never called (plans and forms only). */
async function addLocalModel(name: string) {
  await studio.api("model.add", { name, kind: "openai-compatible", model: name, base_url: "http://127.0.0.1:9/v1", local: true });
}

test.beforeAll(async () => {
  studio = await startStudio();
  for (const name of ["alpha", "beta", "gamma"]) await addLocalModel(name);
  await addRemoteModel(studio, "cloud");
  await studio.api("demo.load", {});
});

test.afterAll(() => studio?.stop());

test("Evaluate proposes three different models and warns when the model under test plays another role", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/evaluate`);
  const model = page.getByLabel("Model under test");
  const info = page.getByLabel("Information provider");
  const judge = page.getByLabel("Judge");
  await expect(model).toHaveValue("alpha");
  const proposed = [await model.inputValue(), await info.inputValue(), await judge.inputValue()];
  expect(new Set(proposed).size).toBe(3);
  const warnings = page.getByTestId("role-warnings");
  await expect(warnings).toHaveCount(0);

  // The judge grading its own answers.
  await judge.selectOption("alpha");
  await expect(warnings).toHaveAttribute("role", "status");
  await expect(warnings).toContainText("alpha is both the model under test and the judge, so it grades its own rationales");
  await expect(warnings).toContainText("inflate M4");
  await expect(warnings).not.toContainText("information provider");
  // The provider too.
  await info.selectOption("alpha");
  await expect(warnings).toContainText("alpha is both the model under test and the information provider");
  await expect(warnings).toContainText("(a leak)");
  // The run can still start: the warning informs, it does not block.
  await expect(page.getByRole("button", { name: /Start the run/ })).toBeEnabled();
  await info.selectOption("beta");
  await judge.selectOption("gamma");
  await expect(warnings).toHaveCount(0);

  // A remembered choice that put one model in every role: each role gets its own model again.
  await page.evaluate(() => localStorage.setItem("psebench.evaluate.last", JSON.stringify({ model: "beta", info: "beta", judge: "beta" })));
  await page.reload();
  await expect(model).toHaveValue("beta");
  const again = [await model.inputValue(), await info.inputValue(), await judge.inputValue()];
  expect(new Set(again).size).toBe(3);
  await expect(warnings).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("Generate starts from a small sample and asks before a run of more than 200 model calls", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/generate`);
  await expect(page.getByRole("heading", { name: "Generate cases", level: 1 })).toBeVisible();
  await page.getByLabel("Writer model").selectOption("alpha");
  const sample = page.getByRole("radio", { name: /^A small sample to try first: 3 approved cards/ });
  await expect(sample).toBeChecked();
  await expect(page.getByLabel("Anchors per card")).toHaveValue("3");
  await expect(page.getByTestId("sample-cards").locator("code")).toHaveCount(3);

  // The sample plans well under 200 calls and starts without a further question.
  const plan = page.getByTestId("plan");
  await expect(plan.getByTestId("plan-candidates")).toHaveText(/^\d{1,2}$/);
  const calls = Number(((await plan.locator(".kv-row", { hasText: "Model calls" }).locator("dd").textContent()) ?? "").replace(/\D/g, ""));
  expect(calls).toBeGreaterThan(0);
  expect(calls).toBeLessThan(200);
  await expect(page.getByTestId("large-run")).toHaveCount(0);
  const start = page.getByRole("button", { name: /^Start generating [\d,]+ candidate cases$/ });
  await expect(start).toBeEnabled();

  // Every approved card: thousands of calls, free on local models, but only after a tick.
  await page.getByRole("radio", { name: /^All approved cards/ }).check();
  const large = page.getByTestId("large-run");
  await expect(large).toBeVisible();
  const confirm = large.getByRole("checkbox", { name: /^This run makes about [\d,]+ model calls for [\d,]+ candidate cases \(more than 200\); free on local models/ });
  await expect(confirm).not.toBeChecked();
  await expect(start).toBeDisabled();
  await expect(page.getByText("Tick the confirmation above to start.")).toBeVisible();
  await confirm.check();
  await expect(start).toBeEnabled();
  // A change of the run asks again.
  await page.getByLabel("Anchors per card").fill("4");
  await expect(large.getByRole("checkbox")).not.toBeChecked();
  await expect(start).toBeDisabled();

  // A remote, priced writer: the sentence states the estimated cost, next to the remote-data tick.
  await page.getByLabel("Writer model").selectOption("cloud");
  await expect(large.getByRole("checkbox", { name: /estimated cost about \$[\d.]+\. I want to start it\./ })).toBeVisible();
  await expect(page.getByText("Tick both confirmations above to start.")).toBeVisible();
  await expect(start).toBeDisabled();
  // (Nothing is started: these runs would be large.)
  expect(errors).toEqual([]);
});

test("the audit dialog chooses no decision, and names come only from the same role", async ({ page }) => {
  const errors = watchErrors(page);
  const card = "CardRep_1_CareManagement_7";
  await page.goto(`${studio.url}#/cards/${card}`);
  // A name typed earlier as author (card editor, import) is not the auditor's.
  await page.evaluate(() => localStorage.setItem("psebench.author", "Ann Author"));
  await page.reload();

  await page.getByRole("button", { name: "Record audit decision…" }).click();
  let audit = page.getByRole("dialog", { name: "Record an audit decision" });
  await expect(audit.getByRole("radio")).toHaveCount(3);
  await expect(audit.getByRole("radio", { checked: true })).toHaveCount(0);
  const submit = audit.getByRole("button", { name: "Record the decision" });
  await expect(submit).toBeDisabled();
  await expect(audit.getByText("Choose a decision first: nothing is chosen for you.")).toBeVisible();
  await expect(audit.getByLabel("Auditor")).toHaveValue("");
  await expect(audit.getByText(/Filled in with the name/)).toHaveCount(0);
  await audit.getByRole("radio", { name: /Approved/ }).check();
  await expect(audit.getByRole("button", { name: "Mark as approved" })).toBeDisabled();
  await expect(audit.getByText("Enter your name: it is recorded with the decision.")).toBeVisible();
  await audit.getByLabel("Auditor").fill("Sam Auditor");
  await audit.getByLabel("Notes (optional)").fill("Checked again against the clause.");
  await audit.getByRole("button", { name: "Mark as approved" }).click();
  await expect(audit).toBeHidden();
  await expect(page.locator(".card-view-head")).toContainText("Approved by Sam Auditor");

  // Next time: the auditor's own name, said so under the field, and still editable.
  await page.getByRole("button", { name: "Record audit decision…" }).click();
  audit = page.getByRole("dialog", { name: "Record an audit decision" });
  await expect(audit.getByRole("radio", { checked: true })).toHaveCount(0);
  await expect(audit.getByLabel("Auditor")).toHaveValue("Sam Auditor");
  const hint = audit.getByText("Filled in with the name you last used to record a card's audit decision. You can change it.");
  await expect(hint).toBeVisible();
  await audit.getByLabel("Auditor").fill("Kim Other");
  await expect(audit.getByLabel("Auditor")).toHaveValue("Kim Other");
  await expect(hint).toHaveCount(0);
  await audit.getByRole("button", { name: "Cancel" }).click();

  // The card editor offers the author's name, not the auditor's.
  await page.getByRole("tab", { name: /Edit/ }).click();
  await expect(page.getByLabel("Your name")).toHaveValue("Ann Author");
  await expect(page.getByText("Filled in with the name you last used as author (writing, importing or editing cards). You can change it.")).toBeVisible();
  expect(errors).toEqual([]);
});
