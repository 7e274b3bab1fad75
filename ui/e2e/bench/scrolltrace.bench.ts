// Diagnostic (not a test): where the time goes while the case grid scrolls. Uses the store and
// server given by BENCH_URL (the link it printed, with its key) and BENCH_RUNS (start them by hand), prints time per trace event name.
import { test } from "@playwright/test";

test("scroll trace", async ({ page, browser }) => {
  const link = process.env.BENCH_URL!;
  const url = `${new URL(link).origin}/`;
  await page.goto(link); // signs this tab in (the page keeps the key of the link's fragment)
  const runs = process.env.BENCH_RUNS!;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${url}#/results?runs=${encodeURIComponent(runs)}&tab=cases`);
  await page.waitForFunction(`document.querySelectorAll(".g-row").length > 20`);
  await page.waitForTimeout(500);
  await browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline"] });
  const frames = await page.evaluate(async () => {
    const el = document.querySelector(".g-scroll") as HTMLElement;
    return new Promise<number[]>((resolve) => {
      const out: number[] = [];
      let last = 0;
      let n = 0;
      const step = (t: number) => {
        if (last) out.push(t - last);
        last = t;
        el.scrollTop += 90;
        if (++n < 120) requestAnimationFrame(step);
        else resolve(out);
      };
      requestAnimationFrame(step);
    });
  });
  const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: { name: string; ph: string; dur?: number }[] };
  const by: Record<string, number> = {};
  for (const e of trace.traceEvents) if (e.ph === "X" && e.dur) by[e.name] = (by[e.name] ?? 0) + e.dur / 1000;
  const top = Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log("frames median", [...frames].sort((a, b) => a - b)[frames.length >> 1], "sum", frames.reduce((a, b) => a + b, 0));
  for (const [k, v] of top) console.log(k.padEnd(40), v.toFixed(1));
});
