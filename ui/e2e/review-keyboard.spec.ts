// A full review done with the keyboard only, through a reviewer's personal link served by
// `psebench serve --review SESSION --lan` on the test's store.

import { join } from "node:path";
import { duration } from "../src/format";
import { expect, test, watchErrors } from "./fixtures";
import { call, fileStudio, FileStudio, ok, serve, Served, tokenOf } from "./review-helpers";

// What the reviewer answers for each case: realism, plausibility, the verdict key, agree.
const PLAN = [
  { realism: 4, plausibility: 5, key: "1", verdict: "Reportable", agree: "a" },
  { realism: 3, plausibility: 4, key: "2", verdict: "Non-reportable", agree: "d" },
  { realism: 5, plausibility: 3, key: "3", verdict: "Missing information", agree: "a" },
  { realism: 2, plausibility: 2, key: "4", verdict: "Uncertain", agree: "a" },
];

let review: Served | null = null;
let studio: FileStudio;

test.beforeAll(async () => {
  studio = await fileStudio();
});
test.afterAll(() => {
  review?.proc.kill();
  studio?.close();
});

test("a reviewer completes a whole review with the keyboard only, over a personal link", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await studio.api("demo.load");
  const session = await studio.api("review.create", {
    name: "Keyboard review",
    selection: { kind: "stratified", complete: 2, missing: 1, uncertain: 1, by_clause: false },
    reviewers: ["Ana", "Ben"],
    overlap: 2,
    seed: 11,
  });
  const sid: string = session.summary.session_id;
  const N = PLAN.length;
  expect(session.summary.cases).toBe(N);

  review = await serve(["--review", sid, "--lan"], join(studio.dir, "store.db"), studio.dir);
  const port = review.info.port;
  const base = `http://127.0.0.1:${port}`;
  const linkOf = (name: string) => review!.info.links.find((l) => l.reviewer === name)!.link!;
  const ana = tokenOf(linkOf("Ana"));
  const ben = tokenOf(linkOf("Ben"));
  const asAna = { "x-review-token": ana };

  // The link's host is this computer's network address; the browser uses the loopback address.
  await page.goto(`${base}/review/${ana}`);
  await expect(page.getByRole("heading", { name: "How to review" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0); // no owner navigation
  await expect(page.getByText("reviewing as Ana")).toBeVisible();

  // The key sheet and the guidelines are one key away; Esc closes them.
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  // This review has no rationale task: the key that goes to a model's rationale is not offered.
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).not.toContainText("rationale");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.keyboard.press("Enter"); // start
  const progress = page.getByRole("progressbar", { name: /cases complete/ });

  for (let i = 1; i <= N; i++) {
    const p = PLAN[i - 1];
    await expect(page.getByRole("heading", { name: `Case ${i} of ${N}` })).toBeVisible();
    await expect(page.getByTestId("reveal")).toHaveCount(0);

    if (i === 3) {
      // Ratings are saved as they are given: reload mid-case and find them again.
      await page.keyboard.press(String(p.realism));
      await page.keyboard.press(String(p.plausibility));
      await expect.poll(async () => (await ok(base, "review.item", { item_no: 3 }, asAna)).answer.plausibility).toBe(p.plausibility);
      await page.reload();
      await expect(page.getByRole("heading", { name: `Case 3 of ${N}` })).toBeVisible();
      await expect(page.locator('[data-question="realism"] [role="radio"][aria-checked="true"]')).toContainText(String(p.realism));
      await expect(page.locator('[data-question="plausibility"] [role="radio"][aria-checked="true"]')).toContainText(String(p.plausibility));
      await expect(page.locator('[data-question="verdict"] [role="radio"][aria-checked="true"]')).toHaveCount(0);
      // The number keys now act on the verdict, the first open question.
      await expect(page.locator('[data-question="verdict"]')).toHaveClass(/q-active/);
    } else {
      await page.keyboard.press(String(p.realism));
      await page.keyboard.press(String(p.plausibility));
    }
    if (i === 1) {
      // Enter before choosing a verdict shows nothing but a hint.
      await page.keyboard.press("Enter");
      await expect(page.getByText(/Choose your own verdict first/).first()).toBeVisible();
      await expect(page.getByTestId("reveal")).toHaveCount(0);
    }
    await page.keyboard.press(p.key);
    await expect(page.locator('[data-question="verdict"] [role="radio"][aria-checked="true"]')).toContainText(p.verdict);
    // The blind verdict is saved as soon as it is given, and still nothing is revealed, on screen
    // or through the API.
    await expect.poll(async () => (await ok(base, "review.item", { item_no: i }, asAna)).answer.blind_verdict).toBe(p.verdict);
    await expect(page.getByText("✓ Saved")).toBeVisible();
    await expect(page.getByTestId("reveal")).toHaveCount(0);
    expect((await ok(base, "review.item", { item_no: i }, asAna)).reveal).toBeNull();

    await page.keyboard.press("Enter"); // save the verdict and reveal
    await expect(page.getByTestId("reveal")).toBeVisible();
    await expect(page.getByTestId("reveal")).toContainText("Your verdict");
    await expect(page.locator('[data-question="verdict"]')).toContainText("Locked");
    await page.keyboard.press(p.agree);
    await expect(page.getByText("This case is complete.")).toBeVisible();
    if (i === N) {
      // C opens the comment box; keys typed there are text, not shortcuts; Esc leaves it.
      await page.keyboard.press("c");
      await expect(page.getByLabel(/^Comment/)).toBeFocused();
      await page.keyboard.type("jk 12 ad? The dose seems high.");
      await page.keyboard.press("Escape");
      await expect(page.getByLabel(/^Comment/)).not.toBeFocused();
      await expect(page.getByRole("heading", { name: `Case ${N} of ${N}` })).toBeVisible();
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect
        .poll(async () => (await ok(base, "review.item", { item_no: N }, asAna)).answer.comment)
        .toBe("jk 12 ad? The dose seems high.");
      expect((await ok(base, "review.item", { item_no: N }, asAna)).answer.agree).toBe(p.agree === "a");
    }
    await expect(progress).toHaveAttribute("aria-valuenow", String(i));
    await expect(page.getByText(`${i} of ${N} complete`)).toBeVisible();

    if (i === 2) {
      // Stop and come back: the review opens at the first unfinished case.
      await page.reload();
      await expect(page.getByRole("heading", { name: `Case 3 of ${N}` })).toBeVisible();
      await expect(progress).toHaveAttribute("aria-valuenow", "2");
    } else {
      await page.keyboard.press(i === N ? "j" : "Enter"); // next (Enter works on a finished case)
    }
  }
  await expect(page.getByRole("heading", { name: `All ${N} cases are complete. Thank you!` })).toBeVisible();
  // The time spent the reviewer reads is the owner's figure, including the last case.
  await expect
    .poll(async () => {
      const owner = (await studio.api("review.show", { session: sid })).progress.find((p) => p.reviewer === "Ana")!.time_spent_secs;
      return owner > 0 && (await page.locator(".rv-done").innerText()).includes(`Time spent: ${duration(owner)}.`);
    })
    .toBe(true);
  await expect(page.locator(".rv-keyline")).not.toContainText("rationale");

  // Back with K to the last case: answers are there, the verdict locked.
  await page.keyboard.press("k");
  await expect(page.getByRole("heading", { name: `Case ${N} of ${N}` })).toBeVisible();
  await expect(page.getByTestId("reveal")).toBeVisible();
  expect(errors).toEqual([]);

  // The owner sees the answers and the time spent.
  const detail = await studio.api("review.show", { session: sid });
  const anaProgress = detail.progress.find((p) => p.reviewer === "Ana");
  expect(anaProgress?.completed).toBe(N);
  expect(anaProgress?.revealed).toBe(N);
  expect(anaProgress?.time_spent_secs).toBeGreaterThan(0);
  expect(detail.progress.find((p) => p.reviewer === "Ben")?.completed).toBe(0);
  const all = await studio.api("review.queue", { session_id: sid, include_unflagged: true, include_decided: true });
  const anaAnswers = all.items.map((it) => it.answers.find((a) => a.reviewer === "Ana")).sort((a, b) => (a?.item_no ?? 0) - (b?.item_no ?? 0));
  expect(anaAnswers.map((a) => [a?.realism, a?.plausibility, a?.blind_verdict, a?.agree])).toEqual(
    PLAN.map((p) => [p.realism, p.plausibility, p.verdict, p.agree === "a"]),
  );
  expect(anaAnswers.every((a) => (a?.time_spent_secs ?? 0) > 0)).toBe(true);

  // Another reviewer's link reaches only that reviewer's own items: Ben sees none of Ana's
  // answers, even when he puts Ana's token in the request body, and cannot reach past his items.
  const asBen = { "x-review-token": ben };
  const benItem = await ok(base, "review.item", { token: ana, item_no: 1 }, asBen);
  expect(benItem.reviewer).toBe("Ben");
  expect(benItem.answer.blind_verdict).toBeNull();
  expect(benItem.reveal).toBeNull();
  expect((await call(base, "review.reveal", { item_no: 1 }, asBen)).status).toBe(403); // Ben has no verdict yet
  expect((await call(base, "review.item", { item_no: N + 1 }, asBen)).status).toBe(404);
  expect((await call(base, "review.answer", { item_no: N + 1, patch: { realism: 1 } }, asBen)).status).toBe(404);
  expect((await call(base, "review.queue", { session_id: sid }, asBen)).status).toBe(403); // owner methods
  expect((await call(base, "review.me", {})).status).toBe(403); // no link
  expect((await call(base, "review.me", {}, { "x-review-token": "0".repeat(64) })).status).toBe(403);

  // A page of another web site cannot use a link: a foreign Origin is refused.
  const foreign = await call(base, "review.me", {}, { ...asAna, origin: "http://evil.example" });
  expect(foreign.status).toBe(403);
  const same = await call(base, "review.me", {}, { ...asAna, origin: base });
  expect(same.status).toBe(200);
});

test("a broken link and the review server's address without a link get a clear page", async ({ page }) => {
  const errors = watchErrors(page);
  const sessions = await studio.api("review.list");
  if (!review) test.skip(true, "needs the review server of the first test");
  const base = `http://127.0.0.1:${review!.info.port}`;
  expect(sessions.length).toBeGreaterThan(0);
  await page.goto(`${base}/review/${"ab".repeat(32)}`);
  await expect(page.getByRole("heading", { name: "This review link does not work" })).toBeVisible();
  await page.goto(`${base}/`);
  await expect(page.getByRole("heading", { name: "Open your personal review link" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
  expect(errors.filter((e) => !/EventSource|events/.test(e))).toEqual([]);
});
