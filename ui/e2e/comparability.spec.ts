// Runs made differently are marked where they are compared (issue 27): a studio run and a paper
// run side by side get a warning with one sentence, each row names its protocol, and the paper
// run's row carries a "† differs" mark that says what differs on keyboard focus; the tables say it
// too. A run on other cases is not paired with the rest, with a plain sentence saying why.

import { expect, registerMockModels, runEvalToEnd, test, watchErrors, type Studio } from "./fixtures";

async function runPaper(studio: Studio, model: string, cases: string): Promise<string> {
  const { run_id } = await studio.api("evaluation.start", {
    cases,
    model,
    info_model: "info",
    judge_model: "judge",
    turns: 4,
    concurrency: 4,
    repeat: 1,
    batch: false,
    protocol: "paper",
  });
  for (let i = 0; i < 200; i++) {
    const r = await studio.api("evaluation.show", { run_id });
    if (r.status === "completed") return run_id;
    if (["failed", "cancelled"].includes(r.status)) throw new Error(`${model}: ${r.status} ${r.error}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`${model} did not finish`);
}

test("the leaderboard marks a paper run beside a studio run, and pairs only runs on the same cases", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await registerMockModels(studio, ["asker", "answerer", "info", "judge"]);
  const studioRun = await runEvalToEnd(studio, "asker", "type=missing,limit=3");
  const paperRun = await runPaper(studio, "answerer", "type=missing,limit=3");

  await page.goto(`${studio.url}#/results?runs=${studioRun},${paperRun}`);
  const warning = page.getByRole("alert").filter({ hasText: "These numbers are not directly comparable." });
  await expect(warning).toBeVisible();
  await expect(warning).toContainText("These runs differ in protocol");

  // Each row names its run's protocol; the paper run is the one marked.
  const paperRow = page.getByRole("row", { name: /^answerer/ });
  const studioRow = page.getByRole("row", { name: /^asker/ });
  await expect(paperRow.getByText("paper protocol")).toBeVisible();
  await expect(studioRow.getByText("studio protocol")).toBeVisible();
  await expect(studioRow.getByText("† differs")).toHaveCount(0);
  const mark = paperRow.getByText("† differs");
  await expect(mark).toBeVisible();
  await mark.focus();
  const tip = page.getByRole("tooltip");
  await expect(tip).toContainText("Made differently from the other runs shown.");
  await expect(tip).toContainText("Protocol: paper");
  await page.keyboard.press("Escape");
  await expect(tip).toBeHidden();
  // Same cases: the two runs are still compared case by case.
  await expect(page.getByRole("heading", { name: "Do the models really differ?" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "p (exact)" })).toBeVisible();
  await expect(page.getByText("Pairs not tested")).toHaveCount(0);

  // The paper's tables mark the model and say why under each table.
  await page.getByRole("tab", { name: "Tables" }).click();
  await expect(page.getByText("answerer †").first()).toBeVisible();
  await expect(page.getByText(/These runs differ in protocol/).first()).toBeVisible();

  // A run on fewer cases: no paired test with it, and a sentence saying why.
  const fewer = await runEvalToEnd(studio, "answerer", "type=missing,limit=2");
  await page.goto(`${studio.url}#/results?runs=${studioRun},${fewer}`);
  await expect(page.getByRole("alert").filter({ hasText: "These runs differ in case set" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Pairs not tested" })).toBeVisible();
  // Pairs are named in the models' order (answerer, then asker).
  await expect(page.getByText(`Runs ${fewer} and ${studioRun} were made on different case sets (2 and 3 cases)`)).toBeVisible();
  await expect(page.getByText("Compare runs made on the same cases.")).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "p (exact)" })).toHaveCount(0);

  // Runs made alike show no warning, and one line names their shared protocol.
  await page.goto(`${studio.url}#/results?runs=${studioRun}`);
  await expect(page.getByRole("rowheader", { name: "asker", exact: true })).toBeVisible();
  await expect(page.getByText("These numbers are not directly comparable.")).toHaveCount(0);
  await expect(page.getByText(/Every run here follows the studio protocol/)).toBeVisible();
  expect(errors).toEqual([]);
});
