// Smoke test of the real desktop app window: starts PSEBench Studio through WebKitWebDriver (the
// WebDriver server of the system's WebKitGTK, which Tauri uses), waits for the UI to render from a
// fresh store, checks what it shows, calls the engine through the app's IPC, saves a screenshot,
// then clicks through two features that run inside the app's own process: "Try the demo model" in
// Settings (a model endpoint the app serves) and "Start sharing" on a review session (reviewer links
// the app serves), checking from outside the window that each answers while on and stops when off.
// Usage: node smoke.mjs /abs/path/to/psebench-studio OUT.png   (run under Xvfb and a D-Bus session)
import { execSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
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

// Wait for the Home page to render (from a new store, with the built-in MN29 library loaded). In
// CI the debug build seeds the store beside the Rust tests on two cores: allow about a minute.
let heading = "";
for (let i = 0; i < 500; i++) {
  heading = await exec("const h = document.querySelector('h1'); return h ? h.textContent : '';");
  const stats = await exec("return document.querySelector('.stat-value') ? document.querySelector('.stat-value').textContent : '';");
  if (heading === "PSEBench Studio" && stats && stats !== "0") break;
  await sleep(100);
}
const firstPaintMs = Date.now() - started;
if (heading !== "PSEBench Studio") fail(`the main window shows "${heading}" instead of the Home page`);
// The window starts hidden and is shown once its page has loaded (src-tauri/src/main.rs).
const visibility = await exec("return document.visibilityState;");
if (visibility !== "visible") fail(`the window was not shown: the page is ${visibility}`);
// On Linux the app names only the generic font families (ui/src/fonts.ts): WebKitGTK would draw
// in sans-serif anyway, after a second font lookup for every size and weight.
const family = await exec("return getComputedStyle(document.body).fontFamily;");
if (process.platform === "linux" && family !== "sans-serif") fail(`the page's font is "${family}", not the generic sans-serif`);
// With GPU compositing off, nothing in the app's own process draws with OpenGL, and the app keeps
// GTK and WebKit from starting OpenGL's drivers there (crates/desktop-startup/src/webkit_env.rs):
// without a graphics card, Mesa's software driver and LLVM, 20 MB. WebKit's web process still loads them.
if (process.platform === "linux") {
  const children = (pid) => {
    try {
      return execSync(`pgrep -P ${pid}`).toString().trim().split("\n").filter(Boolean).flatMap((c) => [c, ...children(c)]);
    } catch {
      return [];
    }
  };
  const appPid = children(driver.pid).find((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("WebKit");
    } catch {
      return false;
    }
  });
  if (!appPid) fail("the app's process was not found under WebKitWebDriver");
  const drivers = [...new Set(readFileSync(`/proc/${appPid}/maps`, "utf8").split("\n").map((l) => l.split(/\s+/)[5] ?? "").filter((f) => /_dri\.so|libEGL_|libGLX_|libLLVM/.test(f)))];
  if (drivers.length) fail(`the app's process loaded OpenGL's drivers: ${drivers.join(", ")}`);
}
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

// ---- Clicking through the window -------------------------------------------------------------
const ipc = async (method, params = {}) => {
  const r = await execAsync(
    "const [m, p] = [arguments[0], arguments[1]]; const done = arguments[arguments.length - 1]; window.__TAURI_INTERNALS__.invoke('api', {method: m, params: p}).then((r) => done(JSON.stringify(r))).catch((e) => done('ERR ' + JSON.stringify(e)));",
    [method, params],
  );
  if (String(r).startsWith("ERR")) fail(`the engine call ${method} failed: ${r}`);
  return JSON.parse(r);
};
const go = (hash) => exec("location.hash = arguments[0];", [hash]);
/** Wait until the script returns something truthy; fail with `what` after about 40 s. */
async function waitUntil(what, script, args = []) {
  for (let i = 0; i < 400; i++) {
    const v = await exec(script, args);
    if (v) return v;
    await sleep(100);
  }
  const seen = await exec("return document.querySelector('main') ? document.querySelector('main').innerText : document.body.innerText;").catch(() => "");
  fail(`waited in vain for ${what}; the window shows:\n${String(seen).slice(0, 1500)}`);
}
const textOf = (testId) => `const e = document.querySelector('[data-testid="${testId}"]'); return e ? e.textContent : '';`;
/** A real WebDriver click on the button whose text is `name`. */
async function clickButton(name) {
  const xpath = `//button[normalize-space(.)=${JSON.stringify(name)}]`;
  await waitUntil(`the button "${name}"`, "return document.evaluate(arguments[0], document, null, 9, null).singleNodeValue !== null;", [xpath]);
  const el = await wd("POST", `${S}/element`, { using: "xpath", value: xpath });
  await wd("POST", `${S}/element/${Object.values(el)[0]}/click`, {});
}
/** Type into the input labelled `label`, replacing what it holds (again if the page re-rendered
 * the field between the clearing and the typing, which a controlled React input can do). */
async function typeInto(label, text) {
  const xpath = `//input[@id=//label[normalize-space(.)=${JSON.stringify(label)}]/@for]`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const el = await wd("POST", `${S}/element`, { using: "xpath", value: xpath });
    const id = Object.values(el)[0];
    await wd("POST", `${S}/element/${id}/clear`, {});
    await sleep(100);
    await wd("POST", `${S}/element/${id}/value`, { text });
    await sleep(200);
    const now = await exec("return document.evaluate(arguments[0], document, null, 9, null).singleNodeValue?.value ?? null;", [xpath]);
    if (now === text) return;
  }
  fail(`could not type "${text}" into the field "${label}"`);
}
/** The HTTP status `url` answers with from outside the app, or "refused". */
async function statusOf(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    return "refused";
  }
}

// "Try the demo model": the app starts an OpenAI-compatible endpoint in its own process.
await ipc("demo.load");
await go("#/settings");
await waitUntil("the demo model's state in Settings", `return document.querySelector('[data-testid="demo-model-state"]')?.textContent.includes('Not started.');`);
await clickButton("Try the demo model");
await waitUntil("the demo model to run", `return document.querySelector('[data-testid="demo-model-state"]')?.textContent.includes('Running.');`);
const demo = await ipc("demo.model_status");
if (!demo.running || !demo.base_url) fail(`the window says the demo model runs but the engine says ${JSON.stringify(demo)}`);
const models = await fetch(`${demo.base_url.replace(/\/$/, "")}/models`).then((r) => r.json()).catch((e) => fail(`the demo model does not answer at ${demo.base_url}: ${e.message}`));
if (!JSON.stringify(models).includes("demo")) fail(`the demo model's /models does not list it: ${JSON.stringify(models)}`);
await clickButton("Stop the demo model");
await waitUntil("the demo model to stop", `return document.querySelector('[data-testid="demo-model-state"]')?.textContent.includes('Stopped.');`);
if ((await statusOf(`${demo.base_url.replace(/\/$/, "")}/models`)) !== "refused") fail("the demo model still answers after Stop");

// "Start sharing": the app serves a review session's reviewer links on a listener of its own.
const review = await ipc("review.create", {
  name: "Window check",
  selection: { kind: "stratified", complete: 1, missing: 1, uncertain: 1, by_clause: false },
  reviewers: ["Ana"],
  seed: 7,
});
await go(`#/review/${review.summary.session_id}?tab=links`);
await waitUntil("the Share state", `return document.querySelector('[data-testid="share-state"]')?.getAttribute('data-serving') === 'no';`);
await typeInto("Port", "0");
await clickButton("Start sharing");
await waitUntil("the links to be served", `return document.querySelector('[data-testid="share-state"]')?.getAttribute('data-serving') === 'yes';`);
await clickButton("Make links for everyone without one");
const link = await waitUntil("Ana's link", textOf("link-Ana"));
if (!/^http:\/\/127\.0\.0\.1:\d+\/review\/[0-9a-f]{64}$/.test(link)) fail(`Ana's link looks wrong: ${link}`);
const served = await fetch(link).then(async (r) => ({ status: r.status, body: await r.text() })).catch((e) => fail(`the reviewer link does not answer: ${e.message}`));
if (served.status !== 200 || !served.body.includes("<div id=\"root\"")) fail(`the reviewer link answered ${served.status} without the app's page`);
await clickButton("Stop sharing");
await waitUntil("sharing to stop", `return document.querySelector('[data-testid="share-state"]')?.getAttribute('data-serving') === 'no';`);
if ((await statusOf(link)) !== "refused") fail("the reviewer link still answers after Stop sharing");

await wd("DELETE", S).catch(() => {});
driver.kill();
console.log(
  `app smoke test passed: Home rendered ${firstPaintMs} ms after launch (including WebDriver start); store at ${parsed.path}; screenshot ${shot}; ` +
    `the demo model answered at ${demo.base_url} and stopped; reviewer links were served at ${new URL(link).origin} and stopped (${Date.now() - started} ms in all)`,
);
process.exit(0);
