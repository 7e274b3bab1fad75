// The owner's expert review pages: set up a review from the demo cases, follow progress, make
// personal links, send a review pack to a reviewer who answers it in their own copy of the app and
// sends the answers back, read the results, adjudicate (excluding a case from runs), export.

import { readFileSync } from "node:fs";
import { rmSync } from "node:fs";
import type { ReviewVerdict } from "../src/api/generated";
import { expect, signIn, test, watchErrors } from "./fixtures";
import { asOwner, call, fileStudio, FileStudio, ok, otherApp } from "./review-helpers";

type Ctx = { sid: string; caseIds: string[] };
const ctx: Ctx = { sid: "", caseIds: [] };

test.describe.configure({ mode: "serial" });

let studio: FileStudio;
test.beforeAll(async () => {
  studio = await fileStudio();
});
test.afterAll(() => studio?.close());

test("set up a review from the demo cases and see its progress", async ({ page }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await page.goto(`${studio.url}#/review`);
  await expect(page.getByRole("heading", { name: "No review sessions yet" })).toBeVisible();
  await page.getByRole("link", { name: "New review" }).click();
  await expect(page.getByRole("heading", { name: "New review", level: 1 })).toBeVisible();
  await page.getByLabel("Name of the review").fill("E2E review");
  await expect(page.getByText("30 available").first()).toBeVisible();
  await page.getByLabel("Complete", { exact: true }).fill("2");
  await page.getByLabel("Missing information", { exact: true }).fill("2");
  await page.getByLabel("Uncertain (gray zone)", { exact: true }).fill("2");
  await page.getByLabel("Seed").fill("42");
  const name = page.getByLabel("Reviewer's name");
  await name.fill("Ana");
  await name.press("Enter");
  await name.fill("Ben");
  await page.getByRole("button", { name: "Add reviewer" }).click();
  await expect(page.getByRole("list", { name: "Reviewers" }).getByRole("listitem")).toHaveCount(2);
  await expect(page.getByText(/Each case is rated by 2 of the 2 reviewers: 12 ratings in all/)).toBeVisible();
  // The suggested guidelines are previewed as they will be shown.
  await expect(page.getByRole("heading", { name: "Reviewing benchmark cases" })).toBeVisible();
  await page.getByRole("button", { name: "Create the review (6 cases)" }).click();

  await expect(page.getByRole("heading", { name: "E2E review", level: 1 })).toBeVisible();
  await expect(page.getByText(/6 cases · 2 reviewers \(Ana, Ben\) · each case rated by 2/)).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Ana: 0 of 6 cases complete" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Ben: 0 of 6 cases complete" })).toBeVisible();
  await expect(page.locator("code", { hasText: /^42$/ })).toBeVisible(); // the seed, for reproducing the sample
  ctx.sid = new URL(page.url()).hash.split("/")[2].split("?")[0];
  expect(ctx.sid).toMatch(/^rev-/);

  // Same seed, same cases: a second session made through the API draws the same sample.
  const again = await studio.api("review.create", {
    name: "Same seed",
    selection: { kind: "stratified", complete: 2, missing: 2, uncertain: 2, by_clause: false },
    reviewers: ["Ana", "Ben"],
    seed: 42,
  });
  const ids = async (s: string) =>
    (await studio.api("review.queue", { session_id: s, include_unflagged: true, include_decided: true })).items.map((i) => i.case_id).sort();
  ctx.caseIds = await ids(ctx.sid);
  expect(await ids(again.summary.session_id)).toEqual(ctx.caseIds);
  await studio.api("review.delete", { session: again.summary.session_id });

  // The list shows the session with a progress bar per reviewer.
  await page.goto(`${studio.url}#/review`);
  await expect(page.getByRole("link", { name: "E2E review" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Ana: 0 of 6 cases complete" })).toBeVisible();
  expect(errors).toEqual([]);
});

test("personal links are made once, shown in full and can be replaced", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/review/${ctx.sid}?tab=links`);
  await expect(page.getByText(`psebench serve --review ${ctx.sid} --lan --port 8766`)).toBeVisible();
  await page.getByRole("button", { name: "Make links for everyone without one" }).click();
  const anaLink = page.getByTestId("link-Ana");
  await expect(anaLink).toHaveText(/^http:\/\/127\.0\.0\.1:8766\/review\/[0-9a-f]{64}$/);
  await expect(page.getByTestId("link-Ben")).toHaveText(/\/review\/[0-9a-f]{64}$/);
  const first = await anaLink.textContent();
  await page.getByRole("row", { name: /Ana/ }).getByRole("button", { name: "Replace link" }).click();
  await expect(page.getByRole("dialog", { name: "Replace Ana's link?" })).toBeVisible();
  await page.getByRole("button", { name: "Replace the link" }).click();
  await expect(anaLink).not.toHaveText(first!);
  await expect(anaLink).toHaveText(/\/review\/[0-9a-f]{64}$/);
  // The address field changes every link shown.
  await page.getByLabel("Address of the review server").fill("http://192.168.1.20:9000");
  await expect(anaLink).toHaveText(/^http:\/\/192\.168\.1\.20:9000\/review\//);
  await expect(page.getByText(`psebench serve --review ${ctx.sid} --lan --port 9000`)).toBeVisible();
  // After a reload the links are no longer shown (tokens are stored hashed), but known to be active.
  await page.reload();
  await expect(page.getByText(/Given out earlier and still valid/).first()).toBeVisible();
  expect(errors).toEqual([]);
});

test("a review pack is answered in another copy of the app and merged back", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/review/${ctx.sid}?tab=links`);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export pack for Ana" }).click()]);
  expect(dl.suggestedFilename()).toMatch(/^review-pack-rev-.*-Ana\.json$/);
  const packPath = await dl.path();
  const pack = JSON.parse(readFileSync(packPath, "utf8")) as { reviewer: string; items: { item_no: number; expected_verdict: ReviewVerdict }[] };
  expect(pack.reviewer).toBe("Ana");
  expect(pack.items).toHaveLength(6);

  // Ana's own copy of the app: open the pack, answer in the questionnaire, save the answers file.
  const other = await otherApp();
  try {
    const p2 = await page.context().newPage();
    await signIn(p2, { url: other.info.url, link: other.info.link ?? "" });
    await p2.goto(`${other.info.url}#/review`);
    await p2.locator('input[type="file"]').setInputFiles(packPath);
    await expect(p2.getByText(/“E2E review” for Ana: 6 cases/)).toBeVisible();
    await p2.getByRole("link", { name: "Start answering" }).click();
    await expect(p2.getByText("reviewing as Ana")).toBeVisible();
    await p2.keyboard.press("Enter");
    await expect(p2.getByRole("heading", { name: "Case 1 of 6" })).toBeVisible();
    // Answer the first case with the mouse this time.
    await p2.locator('[data-question="realism"] [role="radio"]').nth(4).click();
    await p2.locator('[data-question="plausibility"] [role="radio"]').nth(3).click();
    const expected = pack.items[0].expected_verdict;
    await p2.getByRole("radio", { name: new RegExp(`^${expected} `) }).click();
    await p2.getByRole("button", { name: /Save my verdict and show the by-construction verdict/ }).click();
    await expect(p2.getByTestId("reveal")).toBeVisible();
    await p2.getByRole("radio", { name: /^Agree / }).click();
    await expect(p2.getByText("This case is complete.")).toBeVisible();
    // The other five through the API of Ana's copy (the questionnaire is tested elsewhere).
    const tok = (await ok(other.info.url, "review.local_token", { session: ctx.sid, reviewer: "Ana" }, asOwner(other))).token;
    for (const it of pack.items.slice(1)) {
      await ok(other.info.url, "review.answer", { token: tok, item_no: it.item_no, patch: { realism: 5, plausibility: 4, blind_verdict: it.expected_verdict, add_time_secs: 30 } }, asOwner(other));
      await ok(other.info.url, "review.reveal", { token: tok, item_no: it.item_no }, asOwner(other));
      await ok(other.info.url, "review.answer", { token: tok, item_no: it.item_no, patch: { agree: true } }, asOwner(other));
    }
    await p2.getByRole("link", { name: "Leave" }).click();
    await p2.getByRole("tab", { name: "Send answers back" }).click();
    const [ans] = await Promise.all([p2.waitForEvent("download"), p2.getByRole("button", { name: /Save Ana's answers file/ }).click()]);
    expect(ans.suggestedFilename()).toMatch(/^review-answers-rev-.*-Ana\.json$/);
    const answersPath = await ans.path();
    await p2.close();

    // Back in the owner's app: merge, then merge again (nothing changes).
    await page.locator('input[type="file"]').setInputFiles(answersPath);
    await expect(page.getByTestId("merge-report")).toContainText("6 answered cases in the file; 6 cases changed");
    await page.locator('input[type="file"]').setInputFiles(answersPath);
    await expect(page.getByText("Nothing new in this file.")).toBeVisible();
    await expect(page.getByTestId("merge-report")).toContainText("0 cases changed");
    // A pack of this store cannot be opened here as a visiting review: a clear refusal.
    await page.goto(`${studio.url}#/review`);
    await page.locator('input[type="file"]').setInputFiles(packPath);
    await expect(page.getByText(/was created in this store/)).toBeVisible();
    await page.goto(`${studio.url}#/review/${ctx.sid}?tab=progress`);
    await expect(page.getByRole("progressbar", { name: "Ana: 6 of 6 cases complete" })).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    other.proc.kill();
    rmSync(other.dir, { recursive: true, force: true });
  }
});

test("results, adjudication with exclusion, and exports", async ({ page }) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  // Ben answers here (seeded through the API): he disagrees on his first case and rates it low.
  const tok = (await studio.api("review.local_token", { session: ctx.sid, reviewer: "Ben" })).token;
  const me = await studio.api("review.me", { token: tok });
  let disputed = "";
  for (const it of me.items) {
    const first = it.item_no === 1;
    const verdicts: ReviewVerdict[] = ["Reportable", "Non-reportable", "Missing information", "Uncertain"];
    const view = await studio.api("review.item", { token: tok, item_no: it.item_no });
    await studio.api("review.answer", { token: tok, item_no: it.item_no, patch: { realism: first ? 1 : 4, plausibility: first ? 2 : 4, add_time_secs: 20 } });
    // Ben's blind verdict: for his first case, one that differs from what the case was built to have.
    const reveal0 = await call(studio.url, "review.reveal", { token: tok, item_no: it.item_no }, studio.owner);
    expect(reveal0.status).toBe(403); // blind first: no verdict yet, nothing revealed
    await studio.api("review.answer", { token: tok, item_no: it.item_no, patch: { blind_verdict: verdicts[0] } });
    const r = await studio.api("review.reveal", { token: tok, item_no: it.item_no });
    await studio.api("review.answer", { token: tok, item_no: it.item_no, patch: { agree: !first, comment: first ? "Realism is poor: no such ward." : null } });
    if (first) disputed = r.material.case_id;
    expect(view.reviewer).toBe("Ben");
  }

  await page.goto(`${studio.url}#/review/${ctx.sid}?tab=results`);
  await expect(page.getByRole("heading", { name: "Ratings and agreement with the by-construction verdict" })).toBeVisible();
  const table = page.getByRole("table", { name: /per case type/ });
  await expect(table.getByRole("row", { name: /^Complete/ })).toBeVisible();
  await expect(table.getByRole("row", { name: /All cases/ })).toContainText(/\d+\/6/);
  const ir = page.getByRole("table", { name: "Agreement between reviewers" });
  await expect(ir.getByRole("row", { name: /Realism Krippendorff's alpha, ordinal/ })).toBeVisible();
  await expect(ir.getByRole("row", { name: /Own verdict Fleiss' kappa/ })).toContainText(/\(.+\)|not available/);
  await expect(page.getByText(/0\.61–0\.80 substantial/)).toBeVisible();
  await expect(page.getByRole("img", { name: /How reviewers rated each case type/ })).toBeVisible();

  // Adjudication: the disputed case is queued with its reasons and both reviewers' answers.
  await page.getByRole("tab", { name: "Adjudication" }).click();
  const card = page.getByTestId("queue-item").filter({ hasText: disputed });
  await expect(card).toBeVisible();
  await expect(card.getByRole("list", { name: "Why this case is here" })).toContainText(/./);
  await expect(card.getByRole("table", { name: "Answers of the reviewers" }).getByRole("row")).toHaveCount(3);
  await expect(card).toContainText("Realism is poor: no such ward.");
  // No final call is chosen beforehand, and no name is filled in that was typed in another role.
  await expect(card.getByRole("radio", { checked: true })).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Record decision" })).toBeDisabled();
  await expect(card.getByText("Choose the final call first: nothing is chosen for you.")).toBeVisible();
  await expect(card.getByLabel("Adjudicator")).toHaveValue("");
  await card.getByLabel("Reject: not fit for the benchmark").check();
  await card.getByLabel("Exclude this case from runs").check();
  await card.getByLabel("Adjudicator").fill("Dr. Lead");
  await card.getByLabel("Note (optional)").fill("Not a credible report.");
  await card.getByRole("button", { name: "Record decision" }).click();
  await expect(page.getByText(`Rejected: ${disputed}, excluded from runs.`)).toBeVisible();
  await expect(page.getByTestId("queue-item").filter({ hasText: disputed })).toHaveCount(0);
  await page.getByLabel("Show decided cases too").check();
  const decided = page.getByTestId("queue-item").filter({ hasText: disputed });
  await expect(decided.getByText("Excluded from runs")).toBeVisible();
  await expect(decided.locator(".badge", { hasText: "Rejected by Dr. Lead" })).toBeVisible();
  await decided.getByText("Decisions on this case (1)").click();
  await expect(decided.getByText("Not a credible report.")).toBeVisible();
  // The adjudicator's name is remembered for the next decision.
  await expect(decided.getByLabel("Adjudicator")).toHaveValue("Dr. Lead");
  await expect(decided.getByText("Filled in with the name you last used as adjudicator. You can change it.")).toBeVisible();
  // The decision in force is not chosen again for the adjudicator.
  await expect(decided.getByRole("radio", { checked: true })).toHaveCount(0);
  // The case is flagged in the dataset, so runs leave it out.
  const cases = await studio.api("cases.list", { include_excluded: true });
  expect(cases.find((c) => c.case_id === disputed)?.excluded).toBe(true);
  const available = await studio.api("cases.list", { include_excluded: false });
  expect(available.some((c) => c.case_id === disputed)).toBe(false);

  // Exports: long CSV, and the summary table rendered with Markdown and LaTeX downloads.
  await page.getByRole("tab", { name: "Export" }).click();
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  expect(csv.suggestedFilename()).toBe(`review-${ctx.sid}.csv`);
  const text = readFileSync(await csv.path(), "utf8");
  const lines = text.trim().split("\n");
  expect(lines[0]).toContain("reviewer");
  expect(lines[0]).toContain("question");
  expect(lines.length).toBeGreaterThan(12 * 5);
  expect(text).toContain("Realism is poor: no such ward.");
  await expect(page.getByRole("columnheader", { name: "Case type" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Complete", exact: true })).toBeVisible();
  const [md] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download Markdown" }).click()]);
  expect(readFileSync(await md.path(), "utf8")).toContain("| Case type |");
  const [tex] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download LaTeX" }).click()]);
  expect(readFileSync(await tex.path(), "utf8")).toContain("\\toprule");
  expect(errors).toEqual([]);
});

test("guidelines are edited with a preview, and a reviewer can answer in this app", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/review/${ctx.sid}?tab=guidelines`);
  const box = page.getByLabel("Guidelines (Markdown)");
  await box.fill("# Our rules\n\nRead **slowly**. <script>alert(1)</script>\n\n- one\n- two\n");
  await expect(page.locator(".rev-preview").getByRole("heading", { name: "Our rules" })).toBeVisible();
  await expect(page.locator(".rev-preview strong", { hasText: "slowly" })).toBeVisible();
  await expect(page.locator(".rev-preview")).toContainText("<script>alert(1)</script>");
  await page.getByRole("button", { name: "Save guidelines" }).click();
  await expect(page.getByText(/Guidelines saved/)).toBeVisible();
  expect((await studio.api("review.show", { session: ctx.sid })).guidelines).toContain("# Our rules");

  // Answer here: Ben's questionnaire inside the app (Ben finished everything already).
  await page.getByRole("tab", { name: "Answer here" }).click();
  await page.getByRole("link", { name: "Continue as Ben" }).click();
  await expect(page.getByText("reviewing as Ben")).toBeVisible();
  await expect(page.getByRole("heading", { name: "All 6 cases are complete. Thank you!" })).toBeVisible();
  await page.keyboard.press("g");
  await expect(page.getByRole("dialog", { name: "Guidelines" }).getByRole("heading", { name: "Our rules" })).toBeVisible();
  await page.keyboard.press("Escape");
  await page.keyboard.press("k");
  await expect(page.getByRole("heading", { name: "Case 6 of 6" })).toBeVisible();
  await page.getByRole("link", { name: "Leave" }).click();
  await expect(page.getByRole("tab", { name: "Answer here" })).toHaveAttribute("aria-selected", "true");
  expect(errors).toEqual([]);
});

test("a review of hand-picked cases", async ({ page }) => {
  const errors = watchErrors(page);
  if ((await studio.api("cases.list", { include_excluded: true })).length === 0) await studio.api("demo.load");
  await page.goto(`${studio.url}#/review/new`);
  await page.getByLabel("Name of the review").fill("Hand-picked");
  await page.getByLabel("Cases I pick").check();
  await page.getByLabel("Case type", { exact: true }).selectOption("uncertain");
  await page.getByLabel("Search", { exact: true }).fill("Surgical");
  const boxes = page.getByRole("checkbox", { name: /^Pick demo_Surgical/ });
  await expect(boxes.first()).toBeVisible();
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await expect(page.getByText("2 cases picked")).toBeVisible();
  await page.getByLabel("Only picked cases").check();
  await expect(page.getByRole("checkbox", { name: /^Pick demo_/ })).toHaveCount(2);
  const name = page.getByLabel("Reviewer's name");
  await name.fill("Cleo");
  await name.press("Enter");
  await page.getByRole("button", { name: "Create the review (2 cases)" }).click();
  await expect(page.getByRole("heading", { name: "Hand-picked", level: 1 })).toBeVisible();
  await expect(page.getByText(/2 cases · 1 reviewer \(Cleo\) · each case rated by 1/)).toBeVisible();
  await expect(page.getByText("Picked by hand (2)")).toBeVisible();
  expect(errors).toEqual([]);
});
