// Details a careful reader checks: "Answered" on the leaderboard means a readable verdict, every
// repeat of a case can be read, a failed model test names the problem in one sentence, and the
// review statistics give agreement between reviewers for each case type.

import { createServer } from "node:net";
import { expect, MOCK_SCRIPT, registerMockModels, runEvalToEnd, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

const answer = (final_verdict: string) => ({
  json: { action: "ANSWER", ask_question: null, final_verdict, targeted_clause: null, clause_and_guidance_evidence: ["General Recommendation 1"], rationale: "Read once more." },
});

test("the leaderboard's Answered counts readable verdicts, not transcripts", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("demo.load");
  await registerMockModels(studio);
  await runEvalToEnd(studio, "answerer", "type=missing,limit=3", { concurrency: 1 });
  await runEvalToEnd(studio, "garbage", "type=missing,limit=3", { concurrency: 1 });
  await page.goto(`${studio.url}#/results`);
  const board = page.getByRole("table", { name: /^Leaderboard/ });
  await expect(board.getByRole("columnheader", { name: /Answered/ })).toBeVisible();
  // "garbage" went through all three cases (three transcripts) but gave no readable verdict.
  await expect(board.getByRole("row", { name: /^answerer/ })).toContainText("3 / 3");
  await expect(board.getByRole("row", { name: /^garbage/ })).toContainText("0 / 3");
  expect(errors).toEqual([]);
});

test("every repeat of a case can be chosen, with its verdict shown", async ({ page, studio }) => {
  const errors = watchErrors(page);
  // A model that changes its mind: Reportable, then Non-reportable, then prose.
  const rules = [...MOCK_SCRIPT.rules];
  rules.splice(2, 0, { name: "wobbly", when: { model: "wobbly" }, replies: [answer("Reportable"), answer("Non-reportable"), { text: "Hard to say." }] } as never);
  const root = studio.mockBase.replace(/\/v1$/, "");
  const replaced = await fetch(`${root}/_mock/script`, { method: "POST", body: JSON.stringify({ ...MOCK_SCRIPT, rules }) });
  expect(replaced.status).toBe(204);
  await studio.api("model.add", { name: "wobbly", kind: "openai-compatible", model: "wobbly", base_url: studio.mockBase, local: false });
  const run = await runEvalToEnd(studio, "wobbly", "type=complete,limit=1", { repeat: 3, concurrency: 1 });
  const caseId = (await studio.api("results.grid", { run_ids: [run] })).case_ids[0];

  await page.goto(`${studio.url}#/results/trajectory?run=${run}&case=${caseId}`);
  const picker = page.getByTestId("repeat-picker");
  await expect(picker).toContainText("Repeat 1 of 3");
  const group = page.getByRole("group", { name: "Repeats of this case" });
  await expect(group.getByRole("button")).toHaveCount(3);
  await expect(group.getByRole("button", { name: /^Repeat 1 of 3/ })).toHaveAttribute("aria-pressed", "true");
  // Each repeat's verdict is on its button.
  await expect(group.getByRole("button", { name: /: Reportable, / })).toHaveCount(1);
  await expect(group.getByRole("button", { name: /: no readable verdict, wrong$/ })).toHaveCount(1);
  // Choose the Non-reportable repeat with the keyboard.
  const target = group.getByRole("button", { name: /: Non-reportable, / });
  const label = (await target.getAttribute("aria-label")) ?? "";
  const n = label.match(/^Repeat (\d) of 3/)?.[1];
  await target.focus();
  await page.keyboard.press("Enter");
  await expect(target).toHaveAttribute("aria-pressed", "true");
  await expect(picker).toContainText(`Repeat ${n} of 3`);
  await expect(page).toHaveURL(new RegExp(`repeat=${Number(n) - 1}`));
  await expect(page.locator(".traj-summary > div", { hasText: "Given" })).toContainText("Non-reportable");
  expect(errors).toEqual([]);
});

test("a failed model test says in one sentence what is wrong", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const port = await new Promise<number>((ok) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => ok(p));
    });
  });
  await studio.api("model.add", { name: "stopped", kind: "openai-compatible", model: "x", base_url: `http://127.0.0.1:${port}/v1`, local: true });
  await page.goto(`${studio.url}#/settings`);
  await page.getByRole("button", { name: "Test stopped" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "The test failed." });
  await expect(alert).toContainText(`Nothing is listening at 127.0.0.1:${port}: the model server is not running, or it uses another port.`);
  // A provider problem is HTTP 502 from the server; the browser logs that, and nothing else.
  expect(errors.filter((e) => !/status of 502/.test(e))).toEqual([]);
});

test("review statistics give agreement between reviewers for each case type", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const created = await studio.api("review.create", {
    name: "By type",
    selection: { kind: "stratified", complete: 2, missing: 2, uncertain: 2, by_clause: false },
    reviewers: ["Ana", "Ben"],
    seed: 7,
  });
  const sid = created.summary.session_id;
  for (const [reviewer, realism] of [["Ana", 4], ["Ben", 5]] as const) {
    const { token } = await studio.api("review.local_token", { session: sid, reviewer });
    const me = await studio.api("review.me", { token });
    for (const it of me.items) {
      await studio.api("review.answer", { token, item_no: it.item_no, patch: { realism, plausibility: it.item_no % 2 ? 3 : 4, blind_verdict: "Uncertain", add_time_secs: 10 } });
    }
  }
  await page.goto(`${studio.url}#/review/${sid}?tab=results`);
  await expect(page.getByRole("heading", { name: "Reviewers' agreement with each other, by case type" })).toBeVisible();
  const table = page.getByRole("table", { name: "Reviewers' agreement with each other, by case type" });
  await expect(table.getByRole("row")).toHaveCount(4);
  for (const type of ["Complete", "Missing information", "Uncertain (gray zone)"]) {
    await expect(table.getByRole("row", { name: new RegExp(`^${type.replace(/[()]/g, "\\$&")} 2 `) })).toBeVisible();
  }
  expect(errors).toEqual([]);
});
