// The small things that tripped new users up, checked in a real browser: a one-word edit shows as
// one changed word, case ids are shown whole, the M5-vs-M6 chart says why it is empty (no missing
// cases, or a model that never asked), chart titles appear once, and each generation role has one name.

import { expect, registerMockModels, runEvalToEnd, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

let runs: { complete: string; missing: string } = { complete: "", missing: "" };

test("a one-word edit of a card is shown as that word in the version diff", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const cards = await studio.api("cards.list", {});
  const card = cards.find((c) => /\w+\W*$/.test(c.definition))!;
  const detail = await studio.api("card.show", { card_id: card.card_id });
  const doc = detail.card as Record<string, unknown>;
  const old = String(doc.clause_card_definition);
  const word = old.match(/(\w+)\W*$/)![1];
  const edited = old.replace(/(\w+)(\W*)$/, "rewritten$2");
  await studio.api("card.save", { card_id: card.card_id, json: JSON.stringify({ ...doc, clause_card_definition: edited }, null, 2), author: "Dana Reyes", note: "One word" });

  await page.goto(`${studio.url}#/cards/${encodeURIComponent(card.card_id)}?tab=history`);
  const diff = page.getByRole("table", { name: /^Differences from version \d+ to version \d+$/ });
  const removed = diff.locator(".diff-row.diff-removed");
  const added = diff.locator(".diff-row.diff-added");
  await expect(page.getByText(/: 1 line changed\.$/)).toBeVisible();
  await expect(removed).toHaveCount(1);
  await expect(added).toHaveCount(1);
  // The lines keep their whole text; only the changed word is marked on each.
  await expect(removed).toContainText(old);
  await expect(added).toContainText(edited);
  await expect(removed.locator("mark.diff-word")).toHaveText([word]);
  await expect(added.locator("mark.diff-word")).toHaveText(["rewritten"]);
  expect(errors).toEqual([]);
});

test("the M5-vs-M6 chart tells runs without missing cases from a model that never asked", async ({ page, studio }) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await registerMockModels(studio);
  runs = {
    complete: await runEvalToEnd(studio, "answerer", "type=complete,limit=2"),
    missing: await runEvalToEnd(studio, "answerer", "type=missing,limit=2"),
  };
  const chart = page.locator("figure.chart-card").first();

  await page.goto(`${studio.url}#/results?runs=${runs.complete}&tab=charts`);
  await expect(chart.locator("figcaption")).toContainText("No data to plot: These runs have no missing-information cases");
  await expect(chart.locator("figcaption")).not.toContainText("never asked");
  // The chart draws its own title; the heading above it is for screen readers only.
  await expect(chart.getByRole("heading", { name: /Do models ask when facts are missing/ })).toHaveClass(/sr-only/);
  const svg = decodeURIComponent((await chart.locator("img").getAttribute("src"))!.split(",").slice(1).join(","));
  expect(svg.match(/Do models ask when facts are missing/g)?.length).toBe(1);

  await page.goto(`${studio.url}#/results?runs=${runs.missing}&tab=charts`);
  await expect(chart.locator("figcaption")).toContainText("but the model never asked a question on them");
  await expect(chart.locator("figcaption")).toContainText("answerer (never asked a question on its missing-information cases");
  await expect(chart.locator("figcaption")).not.toContainText("These runs have no missing-information cases");
  expect(errors).toEqual([]);
});

test("case ids are shown whole in the results grid and the case list", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/results?runs=${runs.complete},${runs.missing}&tab=cases`);
  const ids = page.locator(".g-id");
  await expect(ids).toHaveCount(4);
  for (const el of await ids.all()) {
    const full = (await el.getAttribute("title"))!;
    expect(full).toMatch(/^demo_/);
    await expect(el).toHaveText(full);
    // Nothing is clipped: the whole id fits in its (two-line) cell.
    expect(await el.evaluate((e) => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1)).toBe(true);
  }
  await expect(page.locator(".g-table")).not.toContainText("…");

  await page.goto(`${studio.url}#/cases?type=uncertain`);
  const longest = "demo_CareManagement_3_MaternalDeathOrInjuryLowRiskPregnancy_uncertain_1";
  const cell = page.locator("code.id", { hasText: longest });
  await expect(cell).toHaveText(longest);
  expect(await cell.evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
  // The case list grows with the page (no small scroll box of its own inside the page).
  const list = page.locator(".table-wrap").filter({ has: page.locator("caption", { hasText: "Benchmark cases" }) });
  await expect(list).toHaveClass(/table-grow/);
  expect(errors).toEqual([]);
});

test("each generation role has one name: the incomplete report's checker", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/generate`);
  const diagram = page.getByLabel("How a case is made");
  await expect(diagram.getByText("Incomplete-report writer")).toBeVisible();
  await expect(diagram.getByText("Incomplete-report checker")).toBeVisible();
  await expect(diagram.getByRole("heading", { name: /Incomplete report/ })).toBeVisible();
  await expect(diagram).not.toContainText("Missing-variant");
  await expect(diagram).not.toContainText("verifier");
  expect(errors).toEqual([]);
});
