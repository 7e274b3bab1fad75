import { expect, test, watchErrors } from "./fixtures";

test("home shows the workflow and opens the demo cases", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(studio.url);
  await expect(page.getByRole("heading", { name: "PSEBench Studio", level: 1 })).toBeVisible();
  await expect(page.getByText("You are using our summary edition of MN29")).toBeVisible();
  await page.getByRole("button", { name: "Open the 90 demo cases" }).click();
  await expect(page.getByText("Loaded 90 demo cases.")).toBeVisible();
  await expect(page.getByText("90 cases: 30 complete, 30 missing, 30 uncertain.")).toBeVisible();
  expect(errors).toEqual([]);
});

test("navigation works from the keyboard with a visible focus", async ({ page, studio }) => {
  await page.goto(studio.url);
  await page.keyboard.press("Tab"); // skip link
  await page.keyboard.press("Tab");
  const focused = page.locator(":focus");
  await expect(focused).toHaveText(/Home/);
  const outline = await focused.evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe("none");
  await page.getByRole("link", { name: "Policy" }).press("Enter");
  await expect(page).toHaveURL(/#\/policy/);
});

test("policy page lists clauses, guidance and evidence, and imports official text", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/policy`);
  await expect(page.getByRole("heading", { name: /Minnesota Adverse Health Events/ })).toBeVisible();
  await expect(page.getByText("Summary edition.")).toBeVisible();
  await expect(page.getByRole("cell", { name: "Surgical Events clause 1" })).toBeVisible();
  await page.getByRole("tab", { name: /Guidance/ }).click();
  await expect(page.getByRole("heading", { name: /General Recommendation 1/ })).toBeVisible();
  await page.getByRole("tab", { name: /Evidence vocabulary/ }).click();
  await expect(page.getByRole("cell", { name: "General Recommendation 3", exact: true })).toBeVisible();
  await page.getByRole("tab", { name: "Official text" }).click();
  const md = "# Surgical Events clause 1\nThe official words of clause one.\n\n# Surgical Events clause 2\nThe official words of clause two.\n";
  await page.locator('input[type="file"]').first().setInputFiles({ name: "statute.md", mimeType: "text/markdown", buffer: Buffer.from(md) });
  await page.getByRole("button", { name: "Import official text" }).click();
  await expect(page.getByText(/Imported statute.md: 2 sections, 2 matched/)).toBeVisible();
  await expect(page.getByText("Official text imported.")).toBeVisible();
  expect(errors).toEqual([]);
});
