// Smoke test of the real desktop app window: starts PSEBench Studio through WebKitWebDriver (the
// WebDriver server of the system's WebKitGTK, which Tauri uses), waits for the UI to render from a
// fresh store, checks what it shows, calls the engine through the app's IPC, and saves a screenshot.
// Usage: node smoke.mjs /abs/path/to/psebench-studio OUT.png   (run under Xvfb and a D-Bus session)
import { spawn } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [app, shot] = process.argv.slice(2);
if (!app || !shot) {
  console.error("usage: node smoke.mjs APP_BINARY SCREENSHOT.png");
  process.exit(2);
}
const port = 4445 + Math.floor(Math.random() * 1000);
const home = mkdtempSync(join(tmpdir(), "psebench-app-"));
const env = { ...process.env, TAURI_WEBVIEW_AUTOMATION: "true", HOME: home, XDG_DATA_HOME: join(home, "data"), PSEBENCH_DB: join(home, "store.db") };
const driver = spawn("WebKitWebDriver", [`--port=${port}`], { env, stdio: "ignore" });
const base = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fail = (msg) => {
  console.error(`app smoke test FAILED: ${msg}`);
  driver.kill();
  process.exit(1);
};

async function wd(method, path, body) {
  const r = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
  const j = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${JSON.stringify(j.value ?? j)}`);
  return j.value;
}

const started = Date.now();
for (let i = 0; ; i++) {
  try {
    await fetch(`${base}/status`);
    break;
  } catch {
    if (i > 100) fail("WebKitWebDriver did not start");
    await sleep(100);
  }
}
let session;
try {
  const s = await wd("POST", "/session", { capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: app, args: [] } } } });
  session = s.sessionId;
} catch (e) {
  fail(`the app did not start: ${e.message}`);
}
const S = `/session/${session}`;
const exec = (script, args = []) => wd("POST", `${S}/execute/sync`, { script, args });
const execAsync = (script, args = []) => wd("POST", `${S}/execute/async`, { script, args });

// Wait for the Home page to render (from a new store, with the built-in MN29 library loaded).
let heading = "";
for (let i = 0; i < 150; i++) {
  heading = await exec("const h = document.querySelector('h1'); return h ? h.textContent : '';");
  const stats = await exec("return document.querySelector('.stat-value') ? document.querySelector('.stat-value').textContent : '';");
  if (heading === "PSEBench Studio" && stats && stats !== "0") break;
  await sleep(100);
}
const firstPaintMs = Date.now() - started;
if (heading !== "PSEBench Studio") fail(`the main window shows "${heading}" instead of the Home page`);
const text = await exec("return document.body.innerText;");
for (const expected of ["Where you are", "approved clause cards", "summary edition of"]) {
  if (!text.includes(expected)) fail(`the Home page does not show "${expected}"`);
}
// The app's own IPC reaches the engine (not an HTTP server).
const info = await execAsync(
  "const done = arguments[arguments.length - 1]; window.__TAURI_INTERNALS__.invoke('api', {method: 'store.info', params: {}}).then((r) => done(JSON.stringify(r))).catch((e) => done('ERR ' + JSON.stringify(e)));",
);
if (String(info).startsWith("ERR")) fail(`the engine call failed: ${info}`);
const parsed = JSON.parse(info);
if (!parsed.policies.includes("mn29")) fail("the store has no MN29 policy pack");
if (!parsed.path.startsWith(home)) fail(`the store is not where PSEBENCH_DB points: ${parsed.path}`);
// Two animation frames so the screenshot is current, then save it.
await execAsync("const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));");
const png = await wd("GET", `${S}/screenshot`);
writeFileSync(shot, Buffer.from(png, "base64"));
await wd("DELETE", S).catch(() => {});
driver.kill();
console.log(`app smoke test passed: Home rendered ${firstPaintMs} ms after launch (including WebDriver start); store at ${parsed.path}; screenshot ${shot}`);
process.exit(0);
