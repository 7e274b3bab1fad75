// Screenshots of the Settings, Evaluate and Results pages in both themes at two widths, for review.
// Output: $SHOTS (default /tmp/psebench-shots).

import { mkdirSync } from "node:fs";
import { Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { BIN, registerMockModels, Studio, test } from "../fixtures";

const OUT = process.env.SHOTS ?? "/tmp/psebench-shots";

async function runToEnd(studio: Studio, model: string, cases: string) {
  const { run_id } = await studio.api("evaluation.start", { cases, model, info_model: "info", judge_model: "judge", turns: 4, concurrency: 8, repeat: 1, batch: false });
  for (;;) {
    const r = await studio.api("evaluation.show", { run_id });
    if (r.status !== "running" && r.status !== "pending") return run_id;
    await new Promise((ok) => setTimeout(ok, 150));
  }
}

async function shot(page: Page, name: string, full = true) {
  // Let the page grow with its content (the app scrolls inside <main>), so full-page shots show everything.
  if (full) await page.addStyleTag({ content: "html,body,#root,.shell{height:auto!important} main{overflow:visible!important}" });
  await page.waitForTimeout(350);
  await page.screenshot({ path: `${OUT}/${name}.png`, fullPage: full });
}

test("screens", async ({ page, studio }) => {
  mkdirSync(OUT, { recursive: true });
  await studio.api("demo.load");
  await registerMockModels(studio);
  await studio.api("model.add", { name: "cloud-gpt", kind: "openai", model: "gpt-4o-mini", api_key_env: "OPENAI_API_KEY", local: false, price_in: 0.15, price_out: 0.6 });
  await studio.api("model.test", { name: "answerer" });
  const runs = [await runToEnd(studio, "asker", "all"), await runToEnd(studio, "answerer", "all"), await runToEnd(studio, "garbage", "type=missing,limit=10")];
  const ids = runs.join(",");
  for (const theme of ["light", "dark"]) {
    for (const width of [1280, 900]) {
      const tag = `${theme}-${width}`;
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${studio.url}#/`);
      await page.evaluate((t) => localStorage.setItem("psebench.theme", t), theme);
      await page.goto(`${studio.url}#/settings`);
      await page.reload();
      await page.getByRole("button", { name: "Test answerer" }).click();
      await page.getByText("It answered").waitFor();
      await shot(page, `settings-models-${tag}`);
      await page.getByRole("button", { name: "Add a model" }).click();
      await shot(page, `settings-form-${tag}`, false);
      await page.keyboard.press("Escape");
      await page.goto(`${studio.url}#/settings?tab=data`);
      await shot(page, `settings-data-${tag}`);
      await page.goto(`${studio.url}#/settings?tab=appearance`);
      await shot(page, `settings-appearance-${tag}`, false);
      await page.goto(`${studio.url}#/evaluate`);
      await page.getByLabel("Model under test").selectOption("cloud-gpt");
      await page.locator(".plan").getByText("Evaluation items").waitFor();
      await shot(page, `evaluate-${tag}`);
      await page.goto(`${studio.url}#/evaluate?run=${runs[0]}`);
      await page.getByText("Finished.").waitFor();
      await shot(page, `evaluate-run-${tag}`, false);
      await page.goto(`${studio.url}#/results?runs=${ids}`);
      await page.locator("table.leaderboard").waitFor();
      await page.locator(".leaderboard .tip-trigger").nth(5).focus();
      await shot(page, `results-leaderboard-${tag}`);
      await page.goto(`${studio.url}#/results?runs=${ids}&tab=tables`);
      await page.locator(".paper-table").first().waitFor();
      await shot(page, `results-tables-${tag}`, false);
      await page.goto(`${studio.url}#/results?runs=${ids}&tab=charts`);
      await page.locator("figure.chart-card img").first().waitFor();
      await shot(page, `results-charts-${tag}`);
      await page.goto(`${studio.url}#/results?runs=${ids}&tab=cases`);
      await page.locator(".g-row").nth(3).waitFor();
      await shot(page, `results-cases-${tag}`, false);
      await page.locator("a.gc").first().click();
      await page.getByText("Case 1 of").waitFor();
      await shot(page, `results-transcript-${tag}`);
      await page.getByRole("tab", { name: "Scoring" }).click();
      await shot(page, `results-scoring-${tag}`);
      await page.goto(`${studio.url}#/results/trajectory?runs=${ids}&run=${runs[2]}&case=${encodeURIComponent((await studio.api("results.grid", { run_ids: [runs[2]] })).case_ids[0])}`);
      await page.getByText("No readable answer").first().waitFor();
      await shot(page, `results-garbage-${tag}`);
    }
  }
  // Fifteen synthetic models on 400 cases, as at the paper's scale.
  const loaded = JSON.parse(execFileSync(BIN, ["--json", "bench", "load-results", "--cases", "400", "--models", "15"], { env: { ...process.env, PSEBENCH_DB: join(studio.dir, "store.db"), HOME: studio.dir } }).toString()) as { run_ids: string[] };
  const many = loaded.run_ids.join(",");
  for (const theme of ["light", "dark"]) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.evaluate((t) => localStorage.setItem("psebench.theme", t), theme);
    await page.goto(`${studio.url}#/results?runs=${many}`);
    await page.reload();
    await page.locator("table.leaderboard").waitFor();
    await shot(page, `scale-leaderboard-${theme}`);
    await page.goto(`${studio.url}#/results?runs=${many}&tab=cases&model=synthetic-model-04&outcome=incorrect`);
    await page.locator(".g-row").nth(3).waitFor();
    await shot(page, `scale-cases-${theme}`, false);
  }
});
