// Hostile content stays inert on every screen that shows it: script tags, an element with an
// event handler, a right-to-left override, a NUL byte and very long text, in case narratives,
// a model's rationale and evidence, and a reviewer's comment. Nothing may run (no dialog, no
// global set by the injected code), nothing may be parsed into the page (no injected element),
// the page keeps answering, and the text is shown as text.

import type { Page } from "@playwright/test";
import { expect, MOCK_SCRIPT, Studio, test, watchErrors } from "./fixtures";
import { addMockModel, MockLlm, startMockLlm } from "./mockllm";

test.describe.configure({ mode: "serial" });

const SCRIPT = `<script>window.__pwned=(window.__pwned||0)+1;alert("script ran")</script>`;
const IMG = `<img src="x" data-hostile="1" onerror="window.__pwned=(window.__pwned||0)+1;alert('img ran')">`;
const RTL = "\u202Efdp.exe";
const NUL = "before\u0000after";
const HOSTILE = `${SCRIPT} ${IMG} ${RTL} ${NUL}`;
const ONE_MB = "W".repeat(1024 * 1024);

let mock: MockLlm | null = null;
const ctx = { run: "", sid: "", hostileCase: "", bigCase: "" };

test.afterAll(() => mock?.stop());

/** Record dialogs (dismissing them) so a test can assert none fired. */
function watchDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on("dialog", (d) => {
    seen.push(d.message());
    void d.dismiss();
  });
  return seen;
}

/** Nothing ran, nothing was injected, the page still answers, and the hostile text is shown as text. */
async function assertInert(page: Page, dialogs: string[]) {
  // Present as text (a parsed tag would leave no such text behind); it may sit in a collapsed part.
  await expect(page.getByText("<script>window.__pwned", { exact: false }).first()).toBeAttached();
  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.locator("[data-hostile]")).toHaveCount(0);
  await expect(page.locator("body script")).toHaveCount(0);
  const t0 = Date.now();
  expect(await page.evaluate(() => document.title.length >= 0)).toBe(true);
  expect(Date.now() - t0).toBeLessThan(5_000);
}

async function setUp(studio: Studio) {
  await studio.api("demo.load");
  const all = await studio.api("cases.list", { include_excluded: false });
  const template = await studio.api("case.show", { case_id: all.find((c) => c.case_type === "complete")!.case_id });
  ctx.hostileCase = "hostile_narrative_1";
  ctx.bigCase = "hostile_big_narrative_1";
  const lines = [
    { ...template, case_id: ctx.hostileCase, narrative: `${HOSTILE} The patient fell on the ward.` },
    { ...template, case_id: ctx.bigCase, narrative: `${SCRIPT} ${ONE_MB}` },
  ].map((c) => JSON.stringify(c));
  const file = { name: "hostile.jsonl", base64: Buffer.from(lines.join("\n") + "\n", "utf8").toString("base64") };
  const imported = await studio.api("cases.import", { file, replace: false });
  expect(imported.imported).toBe(2);

  const judge = MOCK_SCRIPT.rules.filter((r) => r.name === "judge" || r.name === "info");
  mock = await startMockLlm({
    rules: [
      ...judge,
      {
        name: "hostile",
        reply: {
          json: {
            action: "ANSWER",
            ask_question: null,
            final_verdict: "Reportable",
            targeted_clause: HOSTILE,
            clause_and_guidance_evidence: [HOSTILE, "General Recommendation 1"],
            rationale: `${HOSTILE} ${"R".repeat(200_000)}`,
          },
        },
      },
    ],
  });
  for (const m of ["hostile", "info", "judge"]) await addMockModel(studio, mock, m);
  const { run_id } = await studio.api("evaluation.start", { cases: "origin=imported", model: "hostile", info_model: "info", judge_model: "judge", turns: 2, concurrency: 2, repeat: 1, batch: false });
  for (let i = 0; i < 300; i++) {
    const r = await studio.api("evaluation.show", { run_id });
    if (r.status === "completed") break;
    if (["failed", "cancelled"].includes(r.status)) throw new Error(`run ${r.status}: ${r.error}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  ctx.run = run_id;

  const session = await studio.api("review.create", {
    name: "Hostile review",
    selection: { kind: "cases", case_ids: [ctx.hostileCase, ctx.bigCase] },
    reviewers: ["Ana"],
    overlap: 1,
    seed: 3,
  });
  ctx.sid = session.summary.session_id;
  const tok = (await studio.api("review.local_token", { session: ctx.sid, reviewer: "Ana" })).token;
  const me = await studio.api("review.me", { token: tok });
  for (const it of me.items) {
    await studio.api("review.answer", { token: tok, item_no: it.item_no, patch: { realism: 1, plausibility: 1, blind_verdict: "Uncertain" } });
    await studio.api("review.reveal", { token: tok, item_no: it.item_no });
    await studio.api("review.answer", { token: tok, item_no: it.item_no, patch: { agree: false, comment: `${HOSTILE} ${"C".repeat(15_000)}` } });
  }
}

test("cases: hostile narratives are shown as text", async ({ page, studio }) => {
  test.setTimeout(120_000);
  await setUp(studio);
  const errors = watchErrors(page);
  const dialogs = watchDialogs(page);
  await page.goto(`${studio.url}#/cases?origin=imported`);
  await expect(page.getByText(ctx.hostileCase).first()).toBeVisible();
  await page.goto(`${studio.url}#/cases/${ctx.hostileCase}`);
  await expect(page.getByText(RTL, { exact: false }).first()).toBeVisible();
  await assertInert(page, dialogs);
  await page.goto(`${studio.url}#/cases/${ctx.bigCase}`);
  await expect(page.getByText("WWWWWWWW", { exact: false }).first()).toBeVisible();
  await assertInert(page, dialogs);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /Cases/ }).click();
  await expect(page).toHaveURL(/#\/cases/);
  expect(errors).toEqual([]);
});

test("results: a hostile rationale and evidence in the transcript and the case grid", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const dialogs = watchDialogs(page);
  await page.goto(`${studio.url}#/results?runs=${ctx.run}&tab=cases`);
  await expect(page.getByText(ctx.hostileCase).first()).toBeVisible();
  await assertInert(page, dialogs).catch(async () => {
    // The grid need not show the rationale; what matters is that nothing ran or was injected.
    expect(dialogs).toEqual([]);
    await expect(page.locator("[data-hostile]")).toHaveCount(0);
  });
  for (const c of [ctx.hostileCase, ctx.bigCase]) {
    await page.goto(`${studio.url}#/results/trajectory?runs=${ctx.run}&run=${ctx.run}&case=${c}`);
    await expect(page.getByText("Answers", { exact: true }).first()).toBeVisible();
    await assertInert(page, dialogs);
  }
  expect(errors).toEqual([]);
});

test("review: hostile narratives and comments in adjudication and in the questionnaire", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const dialogs = watchDialogs(page);
  await page.goto(`${studio.url}#/review/${ctx.sid}?tab=adjudication`);
  await expect(page.getByTestId("queue-item").first()).toBeVisible();
  await assertInert(page, dialogs);
  await page.goto(`${studio.url}#/review/${ctx.sid}/answer/Ana`);
  await expect(page.getByText("All 2 cases are complete")).toBeVisible();
  // Back through both cases: narrative, revealed material and the comment box.
  for (let i = 0; i < 2; i++) {
    await page.keyboard.press("k");
    await expect(page.getByText("<script>window.__pwned", { exact: false }).first()).toBeVisible();
    await assertInert(page, dialogs);
  }
  expect(errors).toEqual([]);
});
