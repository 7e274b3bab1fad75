// Benchmark (not a test): the Results page at the paper's scale, 5,074 cases × 15 models = 76,110
// trajectories. Stores the synthetic set with `psebench bench load-results`, serves it, and
// measures in Chromium:
//   - page load → leaderboard rendered (first visit after the server starts, and again),
//   - page load → case grid rendered,
//   - in-app navigation (from Home, the app already open) → leaderboard / grid rendered,
//   - a grid filter change, a grid sort, a leaderboard sort (event → DOM updated → next frame),
//   - scrolling the grid (time per scroll step until the new rows are painted).
// Run with a release build:
//   cargo build --release -p psebench-cli && cd ui && npm run build &&
//   PSEBENCH_BIN=../target/release/psebench npx playwright test -c e2e/bench/playwright.bench.config.ts results.bench.ts
// Results are printed and written to $BENCH_OUT (default /tmp/psebench-results-bench.json).

import { test } from "@playwright/test";
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BIN, ROOT } from "../fixtures";

const CASES = Number(process.env.BENCH_CASES ?? 5074);
const MODELS = Number(process.env.BENCH_MODELS ?? 15);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);

function serve(db: string, home: string): Promise<{ proc: ChildProcess; url: string; link: string }> {
  return new Promise((ok, fail) => {
    const proc = spawn(BIN, ["serve", "--port", "0", "--json", "--ui-dir", join(ROOT, "ui/dist")], {
      env: { ...process.env, PSEBENCH_DB: db, HOME: home },
      stdio: ["ignore", "pipe", "inherit"],
    });
    createInterface({ input: proc.stdout }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const { url, link } = JSON.parse(line) as { url: string; link: string };
      ok({ proc, url, link });
    });
    proc.on("exit", (c) => fail(new Error(`serve exited with ${c}`)));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const max = (xs: number[]) => Math.max(...xs);
const round = (x: number) => Math.round(x * 10) / 10;

test("Results page at 5,074 cases × 15 models", async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), "psebench-bench-"));
  const db = join(dir, "store.db");
  const loaded = JSON.parse(execFileSync(BIN, ["--json", "bench", "load-results", "--cases", String(CASES), "--models", String(MODELS)], { env: { ...process.env, PSEBENCH_DB: db, HOME: dir } }).toString()) as { run_ids: string[]; cases: number; trajectories: number };
  const runs: string = loaded.run_ids.join(",");
  const { proc, url, link } = await serve(db, dir);
  const out: Record<string, unknown> = { cases: loaded.cases, trajectories: loaded.trajectories, runs: loaded.run_ids.length, binary: BIN };
  try {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(link); // the printed link: the tab keeps its key (sessionStorage) across the navigations below
    const results = `${url}#/results?runs=${encodeURIComponent(runs)}`;

    /** Navigate to a fresh page and return ms from navigation start until `ready` holds. */
    const breakdowns: Record<string, Record<string, number>> = {};
    const load = async (target: string, ready: string, name?: string) => {
      await page.goto("about:blank");
      await page.goto(target);
      await page.waitForFunction(ready, undefined, { timeout: 120_000, polling: "raf" });
      const done = await page.evaluate(() => new Promise<number>((r) => requestAnimationFrame(() => r(performance.now()))));
      if (name) {
        // When each API answer arrived (ms after navigation start).
        breakdowns[name] = await page.evaluate(() => {
          const out: Record<string, number> = {};
          for (const e of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
            const m = e.name.match(/\/api\/([\w.]+)$/) ?? e.name.match(/\/(assets\/[^/]+\.js)$/);
            if (m) out[m[1]] = Math.round(e.responseEnd);
          }
          out.dom_content_loaded = Math.round((performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).domContentLoadedEventEnd);
          return out;
        });
        breakdowns[name].ready = Math.round(done);
      }
      return done;
    };
    const leaderboardReady = `document.querySelectorAll("table.leaderboard tbody tr").length === ${MODELS}`;
    const gridReady = `document.querySelectorAll(".g-row").length > 20 && /Showing/.test(document.querySelector(".grid-status")?.textContent ?? "")`;

    // First visit after the server starts: the engine loads and scores 76,110 trajectories.
    const log = (...a: unknown[]) => process.env.BENCH_VERBOSE && console.log(...a);
    const coldLeaderboard = await load(results, leaderboardReady, "leaderboard_first_visit");
    log("cold leaderboard", coldLeaderboard);
    const warmLeaderboard: number[] = [];
    for (let i = 0; i < REPEATS; i++) warmLeaderboard.push(await load(results, leaderboardReady, "leaderboard"));
    const grid: number[] = [];
    for (let i = 0; i < REPEATS; i++) grid.push(await load(`${results}&tab=cases`, gridReady, "grid"));
    // In-app navigation (the app is already open on Home, as a user would have it): set the
    // address and wait for the view.
    const inApp = async (hash: string, ready: string) => {
      await page.goto(`${url}#/`);
      await page.getByRole("heading", { name: "PSEBench Studio", level: 1 }).waitFor();
      await page.waitForTimeout(300);
      return page.evaluate(
        async ([h, r]) => {
          const t0 = performance.now();
          location.hash = h;
          await new Promise<void>((done) => {
            const ok = () =>
              r === "grid"
                ? document.querySelectorAll(".g-row").length > 20 && /Showing/.test(document.querySelector(".grid-status")?.textContent ?? "")
                : document.querySelectorAll("table.leaderboard tbody tr").length === Number(r);
            const check = () => (ok() ? requestAnimationFrame(() => done()) : requestAnimationFrame(check));
            check();
          });
          return performance.now() - t0;
        },
        [hash, ready] as const,
      );
    };
    const leaderboardInApp: number[] = [];
    const gridInApp: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      leaderboardInApp.push(await inApp(`#/results?runs=${encodeURIComponent(runs)}`, String(MODELS)));
      gridInApp.push(await inApp(`#/results?runs=${encodeURIComponent(runs)}&tab=cases`, "grid"));
    }
    // The transfer sizes of the two big answers.
    const sizes = await page.evaluate(async ([u, r]) => {
      const post = (m: string) => fetch(`${u}api/${m}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ run_ids: r.split(",") }) }).then((x) => x.text());
      return { overview_bytes: (await post("results.overview")).length, grid_bytes: (await post("results.grid")).length };
    }, [url, runs] as const);

    // Interactions on the grid: each from the event to the updated DOM and the next frame.
    const interact = (action: string) =>
      page.evaluate(async (act) => {
        const root = document.querySelector(".cases-grid")!;
        // React commits each update at once: the first DOM change after the event is the new view.
        const changed = new Promise<void>((r) => {
          const mo = new MutationObserver(() => {
            mo.disconnect();
            r();
          });
          mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
        });
        const t0 = performance.now();
        if (act.startsWith("select:")) {
          const [, label, value] = act.split(":");
          const sel = Array.from(document.querySelectorAll("label")).find((l) => l.textContent === label)!;
          const el = document.getElementById(sel.htmlFor) as HTMLSelectElement;
          el.value = value;
          el.dispatchEvent(new Event("change", { bubbles: true }));
        } else if (act.startsWith("check:")) {
          const label = Array.from(document.querySelectorAll("label.check")).find((l) => l.textContent?.startsWith(act.slice(6)))!;
          (label.querySelector("input") as HTMLInputElement).click();
        } else if (act.startsWith("sort:")) {
          const btn = Array.from(document.querySelectorAll(".g-head button")).find((b) => b.textContent?.startsWith(act.slice(5))) as HTMLButtonElement;
          btn.click();
        }
        await changed;
        await new Promise<void>((r) => requestAnimationFrame(() => r()));
        return performance.now() - t0;
      }, action);
    log("grid", grid);
    const filterTimes: number[] = [];
    const sortTimes: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      filterTimes.push(await interact("select:Model:synthetic-model-03"));
      filterTimes.push(await interact("select:Outcome:incorrect"));
      filterTimes.push(await interact("check:Models disagree"));
      filterTimes.push(await interact("select:Case type:missing"));
      sortTimes.push(await interact("sort:Right"));
      sortTimes.push(await interact("sort:Case"));
      await page.goto(`${results}&tab=cases`);
      await page.waitForFunction(gridReady, undefined, { polling: "raf" });
    }

    log("filters", filterTimes, "sorts", sortTimes);
    // Scrolling: a continuous scroll of 90 px per frame through the grid; frame intervals show
    // whether it keeps up (16.7 ms is one frame at 60 Hz).
    const scroll = await page.evaluate(async () => {
      const el = document.querySelector(".g-scroll") as HTMLElement;
      el.scrollTop = 0;
      const frames = await new Promise<number[]>((resolve) => {
        const intervals: number[] = [];
        let last = 0;
        let n = 0;
        const step = (t: number) => {
          if (last) intervals.push(t - last);
          last = t;
          el.scrollTop += 90;
          if (++n < 240) requestAnimationFrame(step);
          else resolve(intervals);
        };
        requestAnimationFrame(step);
      });
      const rendered = document.querySelectorAll(".g-row").length;
      return { frames, rendered };
    });
    const sortedFrames = [...scroll.frames].sort((a, b) => a - b);
    // Leaderboard sort.
    await load(results, leaderboardReady);
    const lbSort: number[] = [];
    for (let i = 0; i < REPEATS * 2; i++) {
      lbSort.push(
        await page.evaluate(async (k) => {
          const table = document.querySelector("table.leaderboard")!;
          const changed = new Promise<void>((r) => {
            const mo = new MutationObserver(() => {
              mo.disconnect();
              r();
            });
            mo.observe(table, { subtree: true, childList: true, attributes: true, characterData: true });
          });
          const btn = Array.from(document.querySelectorAll("table.leaderboard thead button")).find((b) => b.textContent?.startsWith(k)) as HTMLButtonElement;
          const t0 = performance.now();
          btn.click();
          await changed;
          await new Promise<void>((r) => requestAnimationFrame(() => r()));
          return performance.now() - t0;
        }, i % 2 ? "M1" : "Model"),
      );
    }

    Object.assign(out, {
      ms: {
        leaderboard_first_visit: round(coldLeaderboard),
        leaderboard_median: round(median(warmLeaderboard)),
        leaderboard_max: round(max(warmLeaderboard)),
        leaderboard_in_app_median: round(median(leaderboardInApp)),
        leaderboard_in_app_max: round(max(leaderboardInApp)),
        grid_median: round(median(grid)),
        grid_max: round(max(grid)),
        grid_in_app_median: round(median(gridInApp)),
        grid_in_app_max: round(max(gridInApp)),
        grid_filter_median: round(median(filterTimes)),
        grid_filter_max: round(max(filterTimes)),
        grid_sort_median: round(median(sortTimes)),
        grid_sort_max: round(max(sortTimes)),
        leaderboard_sort_median: round(median(lbSort)),
        leaderboard_sort_max: round(max(lbSort)),
        scroll_frame_median: round(median(scroll.frames)),
        scroll_frame_p95: round(sortedFrames[Math.floor(sortedFrames.length * 0.95)]),
        scroll_frames_over_50ms: scroll.frames.filter((f) => f > 50).length,
        scroll_frames: scroll.frames.length,
      },
      grid_rows_in_dom_while_scrolling: scroll.rendered,
      load_average: loadavg().map(round),
      ...sizes,
      arrivals_ms: breakdowns,
    });
    console.log(JSON.stringify(out, null, 2));
    writeFileSync(process.env.BENCH_OUT ?? "/tmp/psebench-results-bench.json", JSON.stringify(out, null, 2));
  } finally {
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
