// Pages follow changes made anywhere on their store, without a reload: a reviewer answering on a
// review server (another process) moves the owner's progress count, and example results stored
// by the command line appear on an open Results page.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Page } from "@playwright/test";
import { BIN, expect, test, watchErrors } from "./fixtures";
import { fileStudio, FileStudio, serve, Served, tokenOf } from "./review-helpers";

let review: Served | null = null;
let studio: FileStudio;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await fileStudio();
});
test.afterAll(() => {
  review?.proc.kill();
  studio?.close();
});

/** Mark the page, to tell later that it was not loaded again. */
async function mark(page: Page) {
  await page.evaluate(() => ((window as unknown as { liveMark: string }).liveMark = "still here"));
}

async function notReloaded(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { liveMark?: string }).liveMark)).toBe("still here");
}

test("the owner's review progress moves as a reviewer answers elsewhere", async ({ page, browser }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  const session = await studio.api("review.create", {
    name: "Live review",
    selection: { kind: "stratified", complete: 1, missing: 1, uncertain: 1, by_clause: false },
    reviewers: ["Ana", "Ben"],
    seed: 11,
  });
  const sid = session.summary.session_id;

  await page.goto(`${studio.url}#/review/${sid}`);
  await expect(page.getByText(/0 of 6 answers complete/)).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Ana: 0 of 3 cases complete" })).toBeVisible();
  await mark(page);

  // Ana answers her first case on a review server: another process on the same store, in a
  // browser context of her own.
  review = await serve(["--review", sid, "--lan"], join(studio.dir, "store.db"), studio.dir);
  const ana = tokenOf(review.info.links.find((l) => l.reviewer === "Ana")!.link!);
  const context = await browser.newContext();
  const reviewer = await context.newPage();
  await reviewer.goto(`http://127.0.0.1:${review.info.port}/review/${ana}`);
  await expect(reviewer.getByRole("heading", { name: "How to review" })).toBeVisible();
  await reviewer.keyboard.press("Enter"); // start
  await expect(reviewer.getByRole("heading", { name: "Case 1 of 3" })).toBeVisible();
  await reviewer.keyboard.press("4"); // realism
  await reviewer.keyboard.press("5"); // plausibility
  await reviewer.keyboard.press("1"); // blind verdict
  await reviewer.keyboard.press("Enter"); // reveal
  await expect(reviewer.getByTestId("reveal")).toBeVisible();
  await reviewer.keyboard.press("a"); // agree
  await expect(reviewer.getByText("This case is complete.")).toBeVisible();

  // The owner's open page follows.
  await expect(page.getByText(/1 of 6 answers complete/)).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Ana: 1 of 3 cases complete" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Ben: 0 of 3 cases complete" })).toBeVisible();
  await notReloaded(page);
  await context.close();
  expect(errors).toEqual([]);
});

test("results stored by the command line appear on an open Results page", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/results`);
  await expect(page.getByRole("heading", { name: "No finished runs yet" })).toBeVisible();
  await mark(page);

  const cli = spawnSync(BIN, ["demo", "results"], {
    env: { ...process.env, PSEBENCH_DB: join(studio.dir, "store.db"), HOME: studio.dir, XDG_DATA_HOME: join(studio.dir, "data") },
    encoding: "utf8",
  });
  expect(cli.status, cli.stderr).toBe(0);

  await expect(page.locator("table.leaderboard tbody tr")).toHaveCount(3);
  await expect(page.locator("table.leaderboard").getByText("example-careful", { exact: true })).toBeVisible();
  await notReloaded(page);
  expect(errors).toEqual([]);
});
