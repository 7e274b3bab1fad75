// Deleting runs and removing the example results (issue 29, item 5): example results do not count
// as the user's work on Home, "Explore results" lands on them, one run goes through the dialog,
// then all example results go and Results says plainly that there is nothing yet.

import { expect, test, watchErrors } from "./fixtures";

test("example results: not counted on Home, explored, one run deleted, then all removed", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const examples = await studio.api("demo.example_results");
  expect(examples.run_ids).toHaveLength(3);

  // Home: example runs do not tick "Evaluation runs" or "Results".
  await page.goto(`${studio.url}#/`);
  const step = (title: string) => page.locator("li.step-item", { has: page.locator("strong", { hasText: new RegExp(`^${title}$`) }) });
  await expect(step("Evaluation runs")).toHaveClass(/step-todo/);
  await expect(step("Evaluation runs")).toContainText("(to do)");
  await expect(step("Results")).toHaveClass(/step-todo/);
  await expect(step("Results")).toContainText("they do not count as yours");
  await expect(page.locator(".stat", { hasText: "finished evaluation runs" }).locator(".stat-value")).toHaveText("0");
  await expect(page.getByRole("heading", { name: "Recent runs" })).toHaveCount(0);

  // "Explore results" lands on the Results page showing the example results.
  await step("Results").getByRole("button", { name: "Explore results" }).click();
  await expect(page).toHaveURL(/#\/results\?runs=example-/);
  await expect(page.getByText("Example results.", { exact: false })).toBeVisible();
  await expect(page.locator("table.leaderboard tbody tr")).toHaveCount(3);

  // Delete one example run through the dialog; Esc closes it first without deleting anything.
  await page.getByText("Runs compared").click();
  const deleteOverconfident = page.getByRole("button", { name: /^Delete run… example-overconfident/ });
  await deleteOverconfident.click();
  let dialog = page.getByRole("dialog", { name: "Delete this run?" });
  await expect(dialog).toContainText("90 cases (90 finished transcripts");
  await expect(dialog).toContainText("This stays");
  await expect(dialog).toContainText("(example results of a fictional model)");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page.locator("table.leaderboard tbody tr")).toHaveCount(3);
  await deleteOverconfident.click();
  dialog = page.getByRole("dialog", { name: "Delete this run?" });
  await dialog.getByRole("button", { name: "Delete run" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText(/Deleted the run of example-overconfident/)).toBeVisible();
  await expect(page.locator("table.leaderboard tbody tr")).toHaveCount(2);
  await expect(page.locator("table.leaderboard").getByText("example-overconfident", { exact: true })).toHaveCount(0);
  expect(page.url()).not.toContain("example-overconfident");
  expect((await studio.api("evaluation.list", {})).map((r) => r.run_id).sort()).toEqual(["example-average", "example-careful"]);

  // Remove the rest of the example results in one step, after the dialog says what goes.
  await page.getByRole("button", { name: "Remove example results" }).click();
  dialog = page.getByRole("dialog", { name: "Remove the example results?" });
  await expect(dialog).toContainText("Removes the 2 example runs of fictional models");
  await expect(dialog).toContainText("The demo cases and your own runs stay.");
  await dialog.getByRole("button", { name: "Remove example results" }).click();
  await expect(dialog).toHaveCount(0);
  // Results is empty again and says so honestly, with the way forward.
  await expect(page.getByRole("heading", { name: "No finished runs yet" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Start a run" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Explore example results" })).toBeVisible();
  expect(await studio.api("evaluation.list", {})).toEqual([]);
  // The demo cases stayed.
  expect((await studio.api("cases.list", { include_excluded: false })).length).toBe(90);

  // Home no longer offers to remove them.
  await page.goto(`${studio.url}#/`);
  await expect(step("Results")).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove example results" })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("Home's Explore results creates the example results when there are none, and a run is deleted from Evaluate", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/`);
  await page.getByRole("button", { name: "Explore results" }).click();
  await expect(page).toHaveURL(/#\/results\?runs=example-/);
  await expect(page.locator("table.leaderboard tbody tr")).toHaveCount(3);

  // Every run of the Evaluate page's list has "Delete run…", keyboard first.
  await page.goto(`${studio.url}#/evaluate`);
  const button = page.getByRole("button", { name: /^Delete run… example-average/ });
  await button.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Delete this run?" });
  await expect(dialog).toContainText("example-average");
  await expect(dialog.getByRole("button", { name: "Delete run" })).toBeEnabled();
  await dialog.getByRole("button", { name: "Delete run" }).focus();
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Delete run… example-average/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Delete run… example-careful/ })).toBeVisible();
  await studio.api("demo.remove_example_results", {});
  expect(errors).toEqual([]);
});
