// A spending cap on an evaluation run: the "Spending cap (US$)" field of the run form, the plan's
// note on how far the cap reaches, a run that stops as "Stopped: cost cap", and a resume under a
// higher cap that finishes it. The models run on a mock of this file's own whose every reply
// reports 10,000 input and 5,000 output tokens, so each call of the priced model costs US$ 0.02.

import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BIN, expect, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

const USAGE = { input_tokens: 10_000, output_tokens: 5_000 };
const SCRIPT = {
  rules: [
    { name: "info", when: { system_contains: "look-up service" }, usage: USAGE, reply: { json: { status: "unknown", answer_to_eval: "Not recorded.", fields_used: [] } } },
    { name: "judge", when: { system_contains: "You review the written reasoning" }, usage: USAGE, reply: { json: { hits: [], explanations: {} } } },
    {
      name: "priced",
      usage: USAGE,
      reply: { json: { action: "ANSWER", ask_question: null, final_verdict: "Non-reportable", targeted_clause: null, clause_and_guidance_evidence: ["General Recommendation 1"], rationale: "Below the threshold." } },
    },
  ],
};

let mock: ChildProcess | null = null;
let mockDir = "";

/** This file's mock provider; resolves with its OpenAI base URL. */
function startMock(): Promise<string> {
  mockDir = mkdtempSync(join(tmpdir(), "psebench-cap-"));
  const path = join(mockDir, "mock.json");
  writeFileSync(path, JSON.stringify(SCRIPT));
  return new Promise((ok, fail) => {
    const proc = spawn(BIN, ["mock-llm", "serve", "--port", "0", "--script", path], { stdio: ["ignore", "pipe", "pipe"] });
    mock = proc;
    const timer = setTimeout(() => fail(new Error("the mock provider did not start")), 20_000);
    createInterface({ input: proc.stdout }).on("line", (line) => {
      const m = line.match(/OpenAI base (http:\/\/\S+\/v1)/);
      if (m) {
        clearTimeout(timer);
        ok(m[1].replace(/\)$/, ""));
      }
    });
  });
}

test.afterAll(() => {
  mock?.kill();
  if (mockDir) rmSync(mockDir, { recursive: true, force: true });
});

test("a capped run stops at its cap and a higher cap finishes it", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const base = await startMock();
  // The judge (called only for correct answers) is free, so every case costs the same.
  for (const [name, price_in, price_out] of [["priced", 1, 2], ["info", 1, 2], ["judge", 0, 0]] as const) {
    await studio.api("model.add", { name, kind: "openai-compatible", model: name, base_url: base, local: false, price_in, price_out });
  }
  await studio.api("demo.load", {});
  await page.goto(`${studio.url}#/evaluate`);
  await page.getByLabel("Case type").selectOption("complete");
  await page.getByLabel("At most this many cases").fill("6");
  await page.getByLabel("Model under test").selectOption("priced");
  await page.getByLabel("Information provider").selectOption("info");
  await page.getByLabel("Judge").selectOption("judge");
  await page.getByLabel("Cases at once").fill("1");

  // The field is optional and checked: a negative amount blocks the start.
  const cap = page.getByLabel("Spending cap (US$)");
  await expect(cap).toHaveValue("");
  await cap.fill("-1");
  await expect(page.getByText(/above zero, or leave the field empty/)).toBeVisible();
  const start = page.getByRole("button", { name: /Start the run/ });
  await expect(start).toBeDisabled();

  // Each case costs one call (US$ 0.02): a cap of US$ 0.05 lets two start.
  await cap.fill("0.05");
  await expect(page.locator(".plan").getByText(/Spending cap \$0\.05:/)).toBeVisible();
  await expect(page.locator(".plan").getByText(/expected to allow \d of 6 items/)).toBeVisible();
  await expect(start).toBeEnabled();
  await start.click();

  await expect(page).toHaveURL(/#\/evaluate\?run=eval-/);
  await expect(page.getByText("Stopped: cost cap.")).toBeVisible({ timeout: 30_000 });
  const capped = /Stopped at the cost cap: US\$ 0\.04 spent of US\$ 0\.05; 2 of 6 cases done and kept/;
  await expect(page.getByRole("alert").getByText(capped)).toBeVisible();
  await expect(page.getByText("$0.04 of the $0.05 cap")).toBeVisible();
  const row = page.getByRole("row", { name: /priced/ });
  await expect(row.locator(".badge.status")).toHaveText(/Stopped: cost cap/);
  await expect(row.getByText("2 / 6")).toBeVisible();
  await expect(row.getByText(capped)).toBeVisible();

  // Resuming asks for a higher cap; the same cap is not accepted.
  await page.getByRole("button", { name: "Resume with a higher cap…" }).click();
  const dialog = page.getByRole("dialog", { name: "Resume the run" });
  await expect(dialog.getByText(/stopped at its spending cap of \$0\.05/)).toBeVisible();
  const newCap = dialog.getByLabel("Spending cap (US$)");
  await newCap.fill("0.05");
  await expect(dialog.getByText(/Give a cap above \$0\.05/)).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Resume", exact: true })).toBeDisabled();
  await newCap.fill("1");
  await dialog.getByRole("button", { name: "Resume", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Finished.")).toBeVisible({ timeout: 30_000 });
  await expect(row.getByText("6 / 6")).toBeVisible();
  await page.locator("summary", { hasText: "Run settings" }).click();
  await expect(page.locator(".run-details").getByText("$1.00")).toBeVisible();
  expect(errors).toEqual([]);
});
