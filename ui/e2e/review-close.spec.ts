// Closing a review: the owner closes it from the session page (after a confirmation), every
// personal link is then refused with a plain sentence, and reopening makes the links work again.
// The links screen warns that a LAN review server speaks plain HTTP.

import { join } from "node:path";
import { expect, test, watchErrors } from "./fixtures";
import { call, fileStudio, FileStudio, serve, Served, tokenOf } from "./review-helpers";

let review: Served | null = null;
let studio: FileStudio;

test.beforeAll(async () => {
  studio = await fileStudio();
});
test.afterAll(() => {
  review?.proc.kill();
  studio?.close();
});

test("a closed review refuses its links until it is reopened", async ({ page, browser }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  const session = await studio.api("review.create", {
    name: "Closing review",
    selection: { kind: "stratified", complete: 1, missing: 1, uncertain: 1, by_clause: false },
    reviewers: ["Ana"],
    seed: 4,
  });
  const sid = session.summary.session_id;
  review = await serve(["--review", sid, "--lan"], join(studio.dir, "store.db"), studio.dir);
  const base = `http://127.0.0.1:${review.info.port}`;
  const ana = tokenOf(review.info.links.find((l) => l.reviewer === "Ana")!.link!);
  const asAna = { "x-review-token": ana };
  expect((await call(base, "review.me", {}, asAna)).status).toBe(200);

  // The reviewer's page opens while the review is open.
  const reviewer = await browser.newPage();
  await reviewer.goto(`${base}/review/${ana}`);
  await expect(reviewer.getByText("reviewing as Ana")).toBeVisible();

  // The owner sees the plain-HTTP warning next to the links, then closes the review.
  await page.goto(`${studio.url}#/review/${sid}?tab=links`);
  await page.getByLabel("Computers on my local network").check();
  await expect(page.getByTestId("lan-plain-http")).toContainText("unencrypted");
  await page.getByRole("button", { name: "Close review…" }).click();
  await expect(page.getByRole("dialog", { name: "Close “Closing review”?" })).toBeVisible();
  await page.getByRole("button", { name: "Close the review" }).click();
  await expect(page.getByTestId("review-closed")).toBeVisible();
  await expect(page.getByRole("button", { name: "Make links for everyone without one" })).toBeDisabled();

  const refused = await call(base, "review.me", {}, asAna);
  expect(refused.status).toBe(403);
  expect((refused.body as { message: string }).message).toContain("This review has been closed by its organiser");
  await reviewer.reload();
  await expect(reviewer.getByText(/This review has been closed by its organiser/)).toBeVisible();

  // Reopened, the same link works again.
  await page.getByRole("button", { name: "Reopen review" }).click();
  await expect(page.getByTestId("review-closed")).toHaveCount(0);
  expect((await call(base, "review.me", {}, asAna)).status).toBe(200);
  await reviewer.close();
  expect(errors).toEqual([]);
});
