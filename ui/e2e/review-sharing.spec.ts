// Share: the owner serves a review's personal links from the running app (no terminal), a reviewer
// in another browser answers at the first click, Stop makes the links stop connecting and the page
// says so; a reviewer link opened on the owner's own server goes to the questionnaire; the command
// offered for a terminal names the store.

import { join } from "node:path";
import { expect, test, watchErrors } from "./fixtures";
import { call, fileStudio, FileStudio, tokenOf } from "./review-helpers";

let studio: FileStudio;

test.beforeAll(async () => {
  studio = await fileStudio();
});
test.afterAll(() => studio?.close());

test("Share serves a review's links from the app until it is stopped", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await studio.api("demo.load");
  const session = await studio.api("review.create", {
    name: "Shared review",
    selection: { kind: "stratified", complete: 1, missing: 1, uncertain: 1, by_clause: false },
    reviewers: ["Ana"],
    seed: 7,
  });
  const sid = session.summary.session_id;
  await page.goto(`${studio.url}#/review/${sid}?tab=links`);
  const state = page.getByTestId("share-state");
  await expect(state).toContainText("Not being served");
  await expect(state).toHaveAttribute("data-serving", "no");

  // The command for a terminal carries this store's path.
  await page.getByText("Serve them without the app, from a terminal").click();
  await expect(page.getByLabel("Command to start the review server")).toContainText(
    `psebench --db ${join(studio.dir, "store.db")} serve --review ${sid}`,
  );

  // The local-network choice warns about plain HTTP before anything is served.
  await page.getByLabel("Computers on my local network").check();
  await expect(page.getByTestId("lan-plain-http")).toContainText("unencrypted");
  await page.getByLabel("This computer only").check();
  await expect(page.getByTestId("lan-plain-http")).toHaveCount(0);

  // Start (any free port: tests run side by side).
  await page.getByLabel("Port").fill("0");
  await page.getByRole("button", { name: "Start sharing" }).click();
  await expect(state).toHaveAttribute("data-serving", "yes");
  await expect(state).toContainText(/Reviewer links are being served at http:\/\/127\.0\.0\.1:\d+/);
  await page.getByRole("button", { name: "Make links for everyone without one" }).click();
  const link = (await page.getByTestId("link-Ana").textContent()) ?? "";
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/review\/[0-9a-f]{64}$/);
  const shared = new URL(link);
  expect(shared.port).not.toBe(new URL(studio.url).port);
  await expect(state).toContainText(`at ${shared.origin}`);

  // A reviewer in another browser (no owner key) answers at the first click.
  const reviewerCtx = await browser.newContext();
  const reviewer = await reviewerCtx.newPage();
  await reviewer.goto(link);
  await expect(reviewer.getByText("reviewing as Ana")).toBeVisible();
  await reviewer.keyboard.press("Enter");
  await expect(reviewer.getByRole("heading", { name: "Case 1 of 3" })).toBeVisible();
  await reviewer.locator('[data-question="realism"] [role="radio"]').nth(4).click();
  await reviewer.locator('[data-question="plausibility"] [role="radio"]').nth(3).click();
  await reviewer.getByRole("radio", { name: /^Reportable / }).click();
  await reviewer.getByRole("button", { name: /Save my verdict and show the by-construction verdict/ }).click();
  await expect(reviewer.getByTestId("reveal")).toBeVisible();
  const progress = (await studio.api("review.show", { session: sid })).progress.find((p) => p.reviewer === "Ana");
  expect(progress?.blind_saved).toBe(1);

  // The shared listener is a review server: the token opens no owner method.
  const token = tokenOf(link);
  expect((await call(shared.origin, "review.list", {}, { "x-review-token": token })).status).toBe(403);

  // The same link on the owner's own address goes to the questionnaire too, not to the notice
  // about the owner's printed link.
  const onMain = await reviewerCtx.newPage();
  await onMain.goto(`${new URL(studio.url).origin}${shared.pathname}`);
  await expect(onMain.getByText("reviewing as Ana")).toBeVisible();
  await expect(onMain.getByText("Open the link that psebench serve printed")).toHaveCount(0);

  // Stop: the link no longer connects, and the page says sharing is off.
  await page.getByRole("button", { name: "Stop sharing" }).click();
  await expect(state).toHaveAttribute("data-serving", "no");
  await expect(state).toContainText("Not being served");
  await expect(call(shared.origin, "review.me", {}, { "x-review-token": token })).rejects.toThrow();
  await expect(reviewer.goto(link)).rejects.toThrow();
  // After a reload the page still knows it is off.
  await page.reload();
  await expect(page.getByTestId("share-state")).toHaveAttribute("data-serving", "no");
  await reviewerCtx.close();
  expect(errors).toEqual([]);
});
