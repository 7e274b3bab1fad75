import { readFileSync } from "node:fs";
import { expect, test, watchErrors } from "./fixtures";

test("the empty state opens the demo cases; filters narrow the list and export follows them", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cases`);
  await expect(page.getByRole("heading", { name: "No cases yet" })).toBeVisible();
  await expect(page.getByText("Generate cases from the card library, or open the 90 demo cases")).toBeVisible();
  await page.getByRole("button", { name: "Open the 90 demo cases" }).click();
  await expect(page.getByText("Loaded 90 demo cases.")).toBeVisible();
  await expect(page.getByText("90 cases", { exact: true })).toBeVisible();
  await expect(page.getByText("30 complete · 30 missing information · 30 uncertain (gray zone)")).toBeVisible();

  await page.getByLabel("Case type").selectOption("missing");
  await expect(page.getByText(/Showing 30 of 90 cases/)).toBeVisible();
  await expect(page).toHaveURL(/type=missing/);
  await page.getByLabel("Clause").selectOption({ label: "Medication error (Care Management Events clause 1)" });
  await expect(page.getByText(/Showing 2 of 90 cases/)).toBeVisible();
  await expect(page.locator("tbody tr")).toHaveCount(2);
  // The card choices follow the clause.
  const cards = await page.getByLabel("Card").locator("option").allTextContents();
  expect(cards.slice(1).every((c) => c.endsWith("_CareManagement_1"))).toBe(true);
  await page.getByLabel("Card").selectOption(cards[1]);
  await expect(page.getByText(/Showing 1 of 90 cases/)).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page.getByText("90 cases", { exact: true })).toBeVisible();

  // Sort by words, longest first.
  await page.getByRole("button", { name: /^Words/ }).click();
  await page.getByRole("button", { name: /^Words/ }).click();
  await expect(page.locator("th[aria-sort='descending']")).toContainText("Words");

  // Export the uncertain cases only.
  await page.getByLabel("Case type").selectOption("uncertain");
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export 30 shown" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("cases.jsonl");
  const lines = readFileSync(await file.path(), "utf8").trim().split("\n");
  expect(lines).toHaveLength(30);
  expect(lines.every((l) => (JSON.parse(l) as { case_type: string }).case_type === "uncertain")).toBe(true);
  expect(errors).toEqual([]);
});

test("a case shows its narrative, ground truth and withheld facts; it can be excluded and included again", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await page.goto(`${studio.url}#/cases?type=missing`);
  // Keyboard: open a row with Enter.
  const row = page.locator("tbody tr", { hasText: "demo_Surgical_1_WrongBodyPart_missing_1" });
  await row.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#\/cases\/demo_Surgical_1_WrongBodyPart_missing_1\?type=missing/);
  await expect(page.getByRole("heading", { name: "Wrong body part (wrong site): missing information case", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Event description" })).toBeVisible();
  await expect(page.locator(".case-narrative")).toContainText("arthroscopy");
  await expect(page.locator(".case-head")).toContainText("Non-reportable");
  await expect(page.getByText(/1 fact is withheld from this description: steps taken at approached part/)).toBeVisible();
  const withheld = page.locator("tr.fact-masked");
  await expect(withheld).toHaveCount(1);
  await expect(withheld).toContainText("Withheld from the narrative");
  await expect(withheld).toContainText("Steps taken at approached part");
  await expect(page.getByRole("table").filter({ hasText: "Truth value" })).toContainText("does not hold");
  // Position in the filtered list, and the next case.
  await expect(page.getByText(/\d+ of 30/)).toBeVisible();

  // Links to the card and the policy.
  await expect(page.getByRole("link", { name: "CardNonrep_3_Surgical_1" })).toHaveAttribute("href", "#/cards/CardNonrep_3_Surgical_1");
  await expect(page.getByRole("link", { name: "Missing first invasive step" })).toHaveAttribute("href", /tab=variants/);
  await expect(page.getByRole("link", { name: /Surgical Event Recommendation 1/ })).toBeVisible();

  // Raw JSON behind a tab.
  await page.getByRole("tab", { name: "Raw JSON" }).click();
  await expect(page.locator("pre.json")).toContainText('"missing_variant_id": "missing_first_invasive_step"');
  await page.getByRole("tab", { name: "Case" }).click();

  // Exclude with a reason; Esc closes the dialog without changing anything.
  await page.getByRole("button", { name: "Exclude from runs…" }).click();
  let dialog = page.getByRole("dialog", { name: "Exclude this case from runs?" });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Exclude from runs…" }).click();
  dialog = page.getByRole("dialog", { name: "Exclude this case from runs?" });
  await expect(dialog.getByRole("button", { name: "Exclude from runs" })).toBeDisabled();
  await dialog.getByLabel("Reason").fill("The narrative hints at the answer.");
  await dialog.getByRole("button", { name: "Exclude from runs" }).click();
  await expect(page.getByText("This case is excluded from new runs.")).toBeVisible();
  await expect(page.getByText("Reason: The narrative hints at the answer.")).toBeVisible();
  await expect(page.locator(".case-head").getByText("Excluded from runs")).toBeVisible();

  // The list leaves it out unless asked to show excluded cases.
  await page.getByRole("link", { name: "Cases", exact: true }).first().click();
  await page.getByLabel("Case type").selectOption("");
  await expect(page.getByText("89 cases", { exact: true })).toBeVisible();
  await expect(page.getByText("1 excluded from runs not shown")).toBeVisible();
  await page.getByLabel("Show excluded cases (1)").check();
  const excludedRow = page.locator("tbody tr", { hasText: "demo_Surgical_1_WrongBodyPart_missing_1" });
  await expect(excludedRow).toContainText("Excluded");
  await excludedRow.click();
  await page.getByRole("button", { name: "Include in runs again" }).click();
  await expect(page.getByText("is included in runs again.")).toBeVisible();
  await expect(page.locator(".case-head").getByText("Excluded from runs")).toBeHidden();
  const stored = await studio.api("case.detail", { case_id: "demo_Surgical_1_WrongBodyPart_missing_1" });
  expect(stored.meta.excluded).toBe(false);
  expect(errors).toEqual([]);
});

test("import cases: a changed case is refused unless replacing is chosen", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  const original = await studio.api("case.show", { case_id: "demo_Surgical_2_WrongPatient_complete_1" });
  const fresh = { ...original, case_id: "my_case_1" };
  const changed = { ...original, narrative: `${original.narrative} A later note was added.` };
  await page.goto(`${studio.url}#/cases`);

  await page.getByRole("button", { name: "Import cases…" }).click();
  let dialog = page.getByRole("dialog", { name: "Import cases" });
  await dialog.locator('input[type="file"]').setInputFiles({ name: "mine.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(`${JSON.stringify(fresh)}\n`) });
  await dialog.getByRole("button", { name: "Import", exact: true }).click();
  await expect(dialog.getByText("1 new case, 0 replaced cases, 0 unchanged cases from mine.jsonl.")).toBeVisible();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByText("91 cases", { exact: true })).toBeVisible();
  await page.getByLabel("Origin").selectOption("imported");
  await expect(page.locator("tbody tr")).toHaveCount(1);
  await expect(page.locator("tbody tr")).toContainText("my_case_1");

  await page.getByRole("button", { name: "Import cases…" }).click();
  dialog = page.getByRole("dialog", { name: "Import cases" });
  await dialog.locator('input[type="file"]').setInputFiles({ name: "edited.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(`${JSON.stringify(changed)}\n`) });
  await dialog.getByRole("button", { name: "Import", exact: true }).click();
  await expect(dialog.getByRole("alert")).toContainText("already stored with different content; nothing was imported");
  await expect(dialog.getByText("tick “Replace cases that changed”")).toBeVisible();
  await dialog.getByLabel("Replace cases that changed").check();
  await dialog.getByRole("button", { name: "Import", exact: true }).click();
  await expect(dialog.getByText("0 new cases, 1 replaced case, 0 unchanged cases from edited.jsonl.")).toBeVisible();
  const after = await studio.api("case.show", { case_id: "demo_Surgical_2_WrongPatient_complete_1" });
  expect(after.narrative).toContain("A later note was added.");
  expect(errors).toEqual([]);
});
