// A policy of the user's own, made in the "New policy" dialog: checks shown next to the fields
// (the app's own, then the engine's clash with the built-in pack), three clauses and guidance
// Markdown, then the new policy listed, shown with its clauses and guidance sections, and
// selectable beside the built-in one. A policy file loads into the same form.

import { expect, test, watchErrors } from "./fixtures";

const GUIDANCE = "# Lasting harm\nHarm counts as lasting when it still limits the patient after seven days.\n\n# Care of the service\nAny time the patient is on the premises or with staff off site.\n";

test("create a three-clause policy and find it listed with its clauses and guidance", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/policy`);
  await page.getByRole("button", { name: "New policy" }).click();
  const dialog = page.getByRole("dialog", { name: "New policy" });
  await expect(dialog).toBeVisible();

  // Nothing filled in: every missing field says what it needs.
  await dialog.getByRole("button", { name: "Create policy" }).click();
  await expect(dialog.getByText("Give the policy a name people will recognise.")).toBeVisible();
  await expect(dialog.getByText("Give the clause a label, the name cards and answers cite.")).toBeVisible();

  await dialog.getByLabel("Policy id").fill("mn29");
  await dialog.getByLabel("Policy name").fill("Riverland adverse event rule");
  await dialog.getByLabel("Jurisdiction").fill("Riverland Health Authority");
  await dialog.getByLabel("Reporting deadline").fill("within 10 working days of discovery");
  const clauses: [string, string, string, string][] = [
    ["RL_Falls_1", "Falls clause 1", "Falls", "A patient falls in care and is left with harm lasting beyond a week."],
    ["RL_Meds_1", "Medicines clause 1", "Medicines", "A medicine meant for one patient is given to another."],
    ["RL_Meds_2", "Medicines clause 2", "Medicines", "A dose ten times the prescribed dose reaches the patient."],
  ];
  for (const [i, [id, label, category, text]] of clauses.entries()) {
    if (i > 0) await dialog.getByRole("button", { name: "Add a clause" }).click();
    const n = i + 1;
    await dialog.getByLabel(`Clause ${n} id`).fill(id);
    await dialog.getByLabel(`Clause ${n} label`).fill(label);
    await dialog.getByLabel(`Clause ${n} category`).fill(category);
    await dialog.getByLabel(`Clause ${n} text`).fill(text);
  }
  await dialog.getByLabel("Guidance (Markdown)").fill(GUIDANCE);
  await expect(dialog.getByText("Sections: Lasting harm · Care of the service")).toBeVisible();

  // The engine refuses the built-in pack's id, and says so next to the id.
  await dialog.getByRole("button", { name: "Create policy" }).click();
  await expect(dialog.getByText(/There is already a policy pack "mn29"/)).toBeVisible();
  await dialog.getByLabel("Policy id").fill("riverland-ae");
  await dialog.getByRole("button", { name: "Create policy" }).click();
  await expect(dialog).toBeHidden();

  await expect(page).toHaveURL(/policy=riverland-ae/);
  await expect(page.getByRole("heading", { name: "Riverland adverse event rule", level: 1 })).toBeVisible();
  await expect(page.getByText("Reporting deadline: within 10 working days of discovery")).toBeVisible();
  await expect(page.locator("tbody tr")).toHaveCount(3);
  for (const [, label, category] of clauses) await expect(page.locator("tbody tr").filter({ hasText: label })).toContainText(category);
  await page.getByRole("tab", { name: "Guidance (2)" }).click();
  await expect(page.getByRole("heading", { name: "Lasting harm", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Care of the service", exact: true })).toBeVisible();
  await expect(page.getByText("Harm counts as lasting when it still limits the patient after seven days.")).toBeVisible();

  // Listed beside the built-in pack, and selectable.
  const list = await studio.api("policies.list", {});
  expect(list.map((p) => [p.id, p.clauses, p.builtin])).toContainEqual(["riverland-ae", 3, false]);
  await page.getByLabel("Policy", { exact: true }).selectOption(await studio.api("policy.show", { id: "mn29" }).then((p) => p.id));
  await expect(page.getByRole("heading", { name: /Minnesota/, level: 1 })).toBeVisible();
  await page.getByLabel("Policy", { exact: true }).selectOption("riverland-ae");
  await expect(page.getByRole("heading", { name: "Riverland adverse event rule", level: 1 })).toBeVisible();

  // The policy in use is the new one: the card library offers its clauses.
  await page.goto(`${studio.url}#/cards`);
  await expect(page.getByLabel("Clause").locator("option").first()).toHaveText("All 3 clauses");
  await expect(page.getByLabel("Clause").locator("option", { hasText: "Medicines clause 2" })).toHaveCount(1);
  expect(errors).toEqual([]);
});

test("a policy file fills in the form", async ({ page, studio }) => {
  await page.goto(`${studio.url}#/policy`);
  await page.getByRole("button", { name: "New policy" }).click();
  const dialog = page.getByRole("dialog", { name: "New policy" });
  const file = {
    id: "harbour",
    name: "Harbour incident rule",
    jurisdiction: "Harbour District",
    reporting_deadline: "within 5 days",
    clauses: [{ clause_id: "HB_1_Burn", label: "Burns clause 1", category: "Burns", text: "A burn needing a skin graft." }],
    guidance_markdown: "# Grafting\nAny skin graft.\n",
  };
  await dialog.locator('input[type="file"]').setInputFiles({ name: "harbour.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
  await expect(dialog.getByLabel("Policy id")).toHaveValue("harbour");
  await expect(dialog.getByLabel("Clause 1 label")).toHaveValue("Burns clause 1");
  await dialog.getByRole("button", { name: "Create policy" }).click();
  await expect(page.getByRole("heading", { name: "Harbour incident rule", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Delete policy" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete policy" }).click();
  await expect(page.getByRole("heading", { name: /Minnesota/, level: 1 })).toBeVisible();
});
