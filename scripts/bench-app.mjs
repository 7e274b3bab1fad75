// Benchmark (not a test) of the desktop app: cold start to first paint and memory.
// Launches the app binary N times through WebKitWebDriver on a fresh store each time, and reports
// the time from launch to the Home page showing real data, plus the resident memory of the app and
// its web content process after start (and, with --results RUNS, after opening the Results page).
// Usage (under Xvfb and D-Bus, see scripts/bench-app); --detail also prints where the time went:
//   node scripts/bench-app.mjs APP_BINARY [--runs 5] [--db STORE] [--results run1,run2,... --models N] [--detail]
import { execSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const app = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const runs = Number(opt("--runs", "5"));
const db = opt("--db", null);
const results = opt("--results", null);
const models = Number(opt("--models", "1"));
const detail = args.includes("--detail");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Memory of the app's processes: RSS counts shared libraries once per process; PSS splits shared
// pages between the processes that map them, so the PSS sum is what the app really occupies.
function memory(pids) {
  const per = [];
  for (const pid of pids) {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (name === "WebKitWebDriver") continue;
      const rss = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
      // One reading of the rollup for all three figures, so that they describe the same moment.
      const roll = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const kb = (k) => Number(roll.match(new RegExp(`^${k}:\\s+(\\d+)`, "m"))?.[1] ?? 0) / 1024;
      per.push({ name, rss, pss: kb("Pss"), anon: kb("Pss_Anon"), file: kb("Pss_File") });
    } catch {}
  }
  return per;
}
// The kernel's accounting of each process, from /proc/PID/stat (in ticks, 10 ms here): processor
// time used so far and when it started. --detail prints both at first paint, to tell a late start
// of WebKit's processes from a slow one.
const TICK_MS = 1000 / Number(execSync("getconf CLK_TCK").toString().trim() || 100);
function processTimes(pids) {
  return pids.flatMap((pid) => {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      return name === "WebKitWebDriver" ? [] : [{ name, cpu: (Number(f[11]) + Number(f[12])) * TICK_MS, start: Number(f[19]) * TICK_MS }];
    } catch {
      return [];
    }
  });
}
function timesAtPaint(pids) {
  const all = processTimes(pids);
  const app = all.find((p) => !p.name.startsWith("WebKit"))?.start ?? 0;
  const cpu = all.map((p) => `${p.name} ${Math.round(p.cpu)}`).join(", ");
  const started = all.map((p) => `${p.name} +${Math.round(p.start - app)}`).join(", ");
  return `processor time at first paint (ms): ${cpu}; processes started (ms after the app): ${started}`;
}

// Other processes that map the big libraries the app's processes share (WebKit, and Mesa's
// software renderer with LLVM) take a part of their pages, so the app's PSS reads lower while they
// run: a second Xvfb, for example, lowered the sum with Results open from 248 to 241 MB. The
// display server this bench started is part of every measurement and is not counted here.
const SHARED_LIBS = ["libwebkit2gtk", "libjavascriptcoregtk", "libLLVM", "swrast_dri"];
function othersSharing(pids) {
  const display = (process.env.DISPLAY ?? "").trim();
  const mine = new Set(pids.map(String));
  const found = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    if (mine.has(pid) || pid === String(process.pid)) continue;
    try {
      const name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (name === "WebKitWebDriver") continue;
      if (name === "Xvfb" && display && cmd.includes(display)) continue;
      const maps = readFileSync(`/proc/${pid}/maps`, "utf8");
      const libs = SHARED_LIBS.filter((l) => maps.includes(l));
      if (libs.length) found.push(`${name} (${pid}: ${libs.join(", ")})`);
    } catch {}
  }
  return found;
}
let sharing = [];

const rssMb = (pids) => memory(pids).reduce((a, p) => a + p.rss, 0);
const pssMb = (pids) => memory(pids).reduce((a, p) => a + p.pss, 0);

function descendants(pid) {
  try {
    const out = execSync(`pgrep -P ${pid}`).toString().trim().split("\n").filter(Boolean).map(Number);
    return out.flatMap((c) => [c, ...descendants(c)]);
  } catch {
    return [];
  }
}

async function once(i) {
  const port = 5600 + i;
  const home = mkdtempSync(join(tmpdir(), "psebench-bench-"));
  const env = { ...process.env, TAURI_WEBVIEW_AUTOMATION: "true", HOME: home, XDG_DATA_HOME: join(home, "data"), PSEBENCH_DB: db ?? join(home, "store.db") };
  const driver = spawn("WebKitWebDriver", [`--port=${port}`], { env, stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  const wd = async (method, path, body) => {
    const r = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    const j = await r.json();
    if (!r.ok) throw new Error(JSON.stringify(j.value ?? j));
    return j.value;
  };
  for (let k = 0; k < 100; k++) {
    try {
      await fetch(`${base}/status`);
      break;
    } catch {
      await sleep(50);
    }
  }
  const launched = Date.now();
  if (detail) console.log(`run ${i}: launched ${launched}`);
  const { sessionId } = await wd("POST", "/session", { capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: app, args: [] } } } });
  const S = `/session/${sessionId}`;
  const exec = (script) => wd("POST", `${S}/execute/sync`, { script, args: [] });
  let paint = null;
  for (let k = 0; k < 400 && paint === null; k++) {
    paint = await exec("return window.__psebenchFirstPaint === undefined ? null : performance.timeOrigin + window.__psebenchFirstPaint;");
    if (paint === null) await sleep(25);
  }
  // No first paint within the wait (an error page, a failed start) counts as missing, not as a time.
  const firstPaintMs = paint === null ? null : paint - launched;
  if (detail) console.log(`run ${i}: ${timesAtPaint(descendants(driver.pid))}`);
  if (detail && paint === null) {
    // Why no first paint was seen: what the page shows and whether WebKit considers it visible
    // (a hidden page gets no animation frames).
    const state = await exec(`return [document.visibilityState, document.hasFocus(), !!document.querySelector(".steps"), document.body.innerText.slice(0, 400), String(window.__psebenchFirstPaint), location.href];`).catch((e) => String(e));
    console.log(`run ${i}: no first paint; page state (visibility, focus, Home drawn, text, mark, address): ${JSON.stringify(state)}`);
  }
  if (detail) {
    const [origin, nav, entries] = await exec(`const n = performance.getEntriesByType("navigation")[0];
      return [performance.timeOrigin, n ? [Math.round(n.responseEnd), Math.round(n.domContentLoadedEventEnd), Math.round(n.loadEventEnd)] : null,
        [...performance.getEntriesByType("resource"), ...performance.getEntriesByType("measure"), ...performance.getEntriesByType("mark")].sort((a, b) => a.startTime - b.startTime)
          .map((e) => [e.name.slice(0, 60), Math.round(e.startTime), Math.round(e.duration)])];`);
    if (paint !== null) console.log(`run ${i}: page began loading ${Math.round(origin - launched)} ms after launch; page load (response end, DOM ready, load): ${JSON.stringify(nav)}; first paint at ${Math.round(paint - origin)} ms of the page`);
    for (const [name, start, dur] of entries) console.log(`  ${name}  +${start}  ${dur}`);
  }
  await sleep(500);
  const pids = descendants(driver.pid);
  const rssStart = rssMb(pids);
  const pssStart = pssMb(pids);
  sharing = [...new Set([...sharing, ...othersSharing(pids)])];
  if (i === 0) console.log("processes after start:", memory(pids).map((p) => `${p.name} RSS ${p.rss.toFixed(0)} MB / PSS ${p.pss.toFixed(0)} MB (${p.anon.toFixed(0)} anonymous, ${p.file.toFixed(0)} files)`).join("; "));
  let resultsMs = null;
  let rssResults = null;
  let pssResults = null;
  if (results) {
    // The page itself notes when the rows are all there (a MutationObserver set up before the
    // navigation; the frame after the rows arrived, as for the first paint), so the figure does not
    // include the WebDriver polling's own delay.
    await exec(`window.__benchReady = null; window.__benchStart = performance.now();
      const obs = new MutationObserver(() => {
        if (window.__benchReady === null && document.querySelectorAll("table.leaderboard tbody tr").length >= ${models}) {
          obs.disconnect(); requestAnimationFrame(() => (window.__benchReady = performance.now()));
        }
      });
      obs.observe(document.body, { childList: true, subtree: true });
      window.location.hash = '#/results?runs=${results}'; return true;`);
    let ready = null;
    for (let k = 0; k < 600 && ready === null; k++) {
      ready = await exec("return window.__benchReady === null ? null : window.__benchReady - window.__benchStart;");
      if (ready === null) await sleep(20);
    }
    resultsMs = ready;
    if (detail) {
      const entries = await exec(`return [...performance.getEntriesByType("resource"), ...performance.getEntriesByType("measure"), ...performance.getEntriesByType("mark")]
        .filter((e) => e.startTime >= window.__benchStart - 1).sort((a, b) => a.startTime - b.startTime)
        .map((e) => [e.name.slice(0, 60), Math.round(e.startTime - window.__benchStart), Math.round(e.duration), e.transferSize ?? 0]);`);
      console.log(`run ${i}: Results ready at ${ready === null ? '–' : ready.toFixed(0)} ms; requests (name, start, duration ms):`);
      for (const [name, start, dur] of entries) console.log(`  ${name}  +${start}  ${dur}`);
    }
    await sleep(500);
    rssResults = rssMb(descendants(driver.pid));
    pssResults = pssMb(descendants(driver.pid));
    sharing = [...new Set([...sharing, ...othersSharing(descendants(driver.pid))])];
    if (i === 0 && process.env.BENCH_SMAPS_DIR) {
      // The full memory map of each process, for taking the PSS apart (one file per process).
      for (const pid of descendants(driver.pid)) {
        try {
          writeFileSync(join(process.env.BENCH_SMAPS_DIR, `${readFileSync(`/proc/${pid}/comm`, "utf8").trim()}.smaps`), readFileSync(`/proc/${pid}/smaps`));
        } catch {}
      }
    }
    if (i === 0) console.log("processes with Results open:", memory(descendants(driver.pid)).map((p) => `${p.name} RSS ${p.rss.toFixed(0)} MB / PSS ${p.pss.toFixed(0)} MB (${p.anon.toFixed(0)} anonymous, ${p.file.toFixed(0)} files)`).join("; "));
  }
  await wd("DELETE", S).catch(() => {});
  driver.kill();
  return { firstPaintMs, rssStart, pssStart, resultsMs, rssResults, pssResults };
}

const all = [];
for (let i = 0; i < runs; i++) all.push(await once(i));
const med = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
};
const f = (x, d = 0) => (x === null ? "–" : x.toFixed(d));
console.log(`runs: ${runs}`);
console.log(`cold start to first paint (ms): median ${f(med(all.map((r) => r.firstPaintMs)))}, each: ${all.map((r) => f(r.firstPaintMs)).join(", ")}`);
console.log(`memory after start (MB, all app processes): RSS sum ${f(med(all.map((r) => r.rssStart)), 1)}, PSS sum ${f(med(all.map((r) => r.pssStart)), 1)}`);
if (results) {
  console.log(`Results page ready (ms): median ${f(med(all.map((r) => r.resultsMs)))}, each: ${all.map((r) => f(r.resultsMs)).join(", ")}`);
  console.log(`memory with Results open (MB): RSS sum ${f(med(all.map((r) => r.rssResults)), 1)}, PSS sum ${f(med(all.map((r) => r.pssResults)), 1)}`);
}
if (sharing.length) {
  console.log(`caution: other processes mapped the app's shared libraries during these runs, so the PSS sums above read lower than on an otherwise idle machine: ${sharing.join("; ")}`);
}
