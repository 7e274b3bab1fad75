// Diagnostic (not a test): where the time goes when the Results page opens on a tab. Uses a
// running server (BENCH_URL: the link it printed, with its key; BENCH_RUNS); BENCH_TAB picks the tab (default cases).
import { test } from "@playwright/test";

/** The part of a Chromium trace event read here. */
type TraceEvent = { name: string; ph: string; dur?: number; args?: { data?: { functionName?: string; url?: string; lineNumber?: number } } };

test("load trace", async ({ page, browser }) => {
  const link = process.env.BENCH_URL!;
  const url = `${new URL(link).origin}/`;
  await page.goto(link); // signs this tab in (the page keeps the key of the link's fragment)
  const runs = process.env.BENCH_RUNS!;
  const tab = process.env.BENCH_TAB ?? "cases";
  const ready = tab === "cases" ? `document.querySelectorAll(".g-row").length > 20` : `document.querySelectorAll("table.leaderboard tbody tr").length > 1`;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${url}#/results?runs=${encodeURIComponent(runs)}&tab=${tab}`);
  await page.waitForFunction(ready);
  await page.goto("about:blank");
  await browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"] });
  await page.goto(`${url}#/results?runs=${encodeURIComponent(runs)}&tab=${tab}`);
  await page.waitForFunction(ready, undefined, { polling: "raf" });
  const t = await page.evaluate(() => performance.now());
  const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
  const by: Record<string, number> = {};
  for (const e of trace.traceEvents) if (e.ph === "X" && e.dur && e.dur > 100) by[e.name] = (by[e.name] ?? 0) + e.dur / 1000;
  console.log("ready at", t.toFixed(0));
  for (const [k, v] of Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 18)) console.log(k.padEnd(40), v.toFixed(1));
  // The longest script tasks.
  const long = trace.traceEvents.filter((e) => e.name === "FunctionCall" && (e.dur ?? 0) > 8000).map((e) => `${((e.dur ?? 0) / 1000).toFixed(1)} ms ${e.args?.data?.functionName ?? ""} ${e.args?.data?.url?.split("/").pop() ?? ""}:${e.args?.data?.lineNumber ?? ""}`);
  console.log(long.slice(0, 10).join("\n"));
});
