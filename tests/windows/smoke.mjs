// The Windows smoke suite: psebench.exe (the Windows build of the command-line tool) run under Wine,
// one check per function. scripts/test-windows prepares everything and starts it:
//   node tests/windows/smoke.mjs BIN_DIR WORK_DIR
// BIN_DIR holds psebench.exe and psebench-startup-check.exe (the desktop app's start-up before its
// window) with WebView2Loader.dll (and, for Wine 8
// only, the test-only bcryptprimitives.dll); WORK_DIR is an empty folder for the files the checks
// write. WINEPREFIX must name a prepared Wine prefix.
// Files are named to the program with Windows paths (Z:\...), the data folder is the default one
// under %APPDATA%, the model endpoint is `psebench.exe mock-llm serve` under Wine and the server is
// `psebench.exe serve` under Wine, both reached from this (Linux) side over HTTP.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, statSync } from "node:fs";
import { join } from "node:path";

const [binDir, work] = process.argv.slice(2);
const prefix = process.env.WINEPREFIX;
if (!binDir || !work || !prefix) {
  console.error("usage: WINEPREFIX=... node tests/windows/smoke.mjs BIN_DIR WORK_DIR");
  process.exit(2);
}
const exe = join(binDir, "psebench.exe");
const appExe = join(binDir, "psebench-startup-check.exe");
const wine = process.env.WINE || "wine";
// A key only this suite knows; the mock model refuses requests without it.
const KEY = "sk-wine-smoke-7f3a";
const KEY_VAR = "PSEBENCH_WINE_TEST_KEY";

/** A Linux path as Windows programs under Wine name it (drive Z: is the Linux root). */
const win = (p) => "Z:" + p.replace(/\//g, "\\");

class CheckFailed extends Error {}
const fail = (msg) => {
  throw new CheckFailed(msg);
};
const expect = (cond, msg) => cond || fail(msg);

/** The environment of every psebench.exe started here: no PSEBENCH_DB, so the default data folder is used. */
function wineEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.PSEBENCH_DB;
  if (!(KEY_VAR in extra)) delete env[KEY_VAR];
  return env;
}

/** Run `psebench.exe ARGS` under Wine and wait. Returns { code, out, err }. */
function pse(args, { input, env } = {}) {
  const r = spawnSync(wine, [exe, ...args], { cwd: work, env: wineEnv(env), input, encoding: "utf8", timeout: 300_000 });
  if (r.error) fail(`could not start Wine: ${r.error.message}`);
  return { code: r.status, out: r.stdout ?? "", err: r.stderr ?? "" };
}

/** Run a command that must succeed with --json and return its parsed output. */
function pseJson(args, opts) {
  const r = pse([...args, "--json"], opts);
  if (r.code !== 0) fail(`psebench ${args.join(" ")} failed (exit ${r.code}): ${r.err.trim() || r.out.trim()}`);
  try {
    return JSON.parse(r.out);
  } catch {
    fail(`psebench ${args.join(" ")} printed no JSON: ${r.out.slice(0, 300)}`);
  }
}

/** Start a long-running psebench.exe and wait for its first output line matching `ready`. */
function startBackground(args, ready) {
  const child = spawn(wine, [exe, ...args], { cwd: work, env: wineEnv(), stdio: ["ignore", "pipe", "pipe"] });
  background.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new CheckFailed(`psebench ${args.join(" ")} did not start within 120 s: ${err.trim()}`)), 120_000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new CheckFailed(`psebench ${args.join(" ")} stopped (exit ${code}) before it was ready: ${err.trim() || out.trim()}`));
    });
  });
}
const background = [];

// What the checks pass to each other.
const state = {};

// ---------------------------------------------------------------------------------------------

async function statusShowsTheDataFolderUnderAppData() {
  const s = pseJson(["status"]);
  const text = JSON.stringify(s);
  expect(/AppData\\\\Roaming\\\\psebench/i.test(text), `status does not name a data folder under %APPDATA%: ${text.slice(0, 400)}`);
  const users = join(prefix, "drive_c", "users");
  const found = readdirSync(users)
    .map((u) => join(users, u, "AppData", "Roaming", "psebench", "psebench.db"))
    .filter((p) => existsSync(p));
  expect(found.length === 1, `no store file psebench.db under ${users}/*/AppData/Roaming/psebench`);
  state.store = found[0];
}

async function demoCasesLoad() {
  const r = pseJson(["demo", "load"]);
  const cases = pseJson(["cases", "list"]);
  const n = Array.isArray(cases) ? cases.length : (cases.cases ?? []).length;
  expect(n >= 90, `after demo load the store lists ${n} cases, expected the 90 demo cases (load said ${JSON.stringify(r).slice(0, 200)})`);
}

async function demoResultsLoad() {
  pseJson(["demo", "results"]);
  const runs = pseJson(["eval", "list"]);
  const list = Array.isArray(runs) ? runs : runs.runs;
  expect(Array.isArray(list) && list.length >= 3, `after demo results, eval list shows ${JSON.stringify(runs).slice(0, 300)}`);
  state.demoRuns = list.map((r) => r.run_id ?? r.id);
  expect(state.demoRuns.every(Boolean), `eval list entries carry no run id: ${JSON.stringify(list[0])}`);
}

async function metricsOnTheDemoResults() {
  const m = pseJson(["metrics", "--run", ...state.demoRuns]);
  const text = JSON.stringify(m);
  expect(/"M1"|"m1"/.test(text), `metrics printed no M1: ${text.slice(0, 300)}`);
}

async function mockModelServesOverWindowsSockets() {
  const script = join(work, "mock-script.json");
  writeFileSync(script, JSON.stringify({ require_key: KEY, demo: true }));
  const m = await startBackground(["mock-llm", "serve", "--port", "0", "--script", win(script)], /listening on (http:\/\/127\.0\.0\.1:(\d+))/);
  state.mockRoot = m[1];
  const r = await fetch(`${state.mockRoot}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
  expect(r.ok, `the mock under Wine answered GET /v1/models with HTTP ${r.status}`);
  const refused = await fetch(`${state.mockRoot}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(refused.status === 401, `the mock accepted a request without the key (HTTP ${refused.status})`);
}

async function modelKeyInCredentialManager() {
  const add = pse(
    ["models", "add", "wine-keyring", "--kind", "openai-compatible", "--model", "demo", "--base-url", `${state.mockRoot}/v1`, "--api-key-stdin", "--json"],
    { input: `${KEY}\n` },
  );
  expect(add.code === 0, `models add with a key on standard input failed (exit ${add.code}): ${add.err.trim()}`);
  const v = JSON.parse(add.out);
  expect(/keyring|credential/i.test(String(v.key_source)), `the key is not in the keyring: key_source is ${JSON.stringify(v.key_source)}`);
  expect(!add.out.includes(KEY) && !add.err.includes(KEY), "models add printed the key");
  // The entry is in Wine's Credential Manager (its registry), under the name the README gives.
  const reg = spawnSync(wine, ["reg", "query", "HKCU\\Software\\Wine\\Credential Manager\\Generic: model:wine-keyring.psebench"], { env: wineEnv(), encoding: "utf8" });
  expect(reg.status === 0 && reg.stdout.includes("model:wine-keyring.psebench"), `no Credential Manager entry model:wine-keyring.psebench: ${reg.stdout}${reg.stderr}`);
  expect(!reg.stdout.includes(KEY), "Credential Manager's entry shows the key in plain text");
  // A new process reads the key back from Credential Manager and the mock accepts it.
  const t = pseJson(["models", "test", "wine-keyring"]);
  expect(t.output_tokens > 0 || t.reply, `models test gave no reply: ${JSON.stringify(t)}`);
  // Nothing of the key lands in the data folder.
  const storeBytes = readFileSync(state.store);
  expect(!storeBytes.includes(Buffer.from(KEY)), "the key was written into the store file");
}

async function modelKeyFromEnvironmentVariable() {
  pseJson(["models", "add", "wine-env", "--kind", "openai-compatible", "--model", "demo", "--base-url", `${state.mockRoot}/v1`, "--api-key-env", KEY_VAR]);
  const t = pseJson(["models", "test", "wine-env"], { env: { [KEY_VAR]: KEY } });
  expect(t.output_tokens > 0 || t.reply, `models test with the key in ${KEY_VAR} gave no reply: ${JSON.stringify(t)}`);
  const without = pse(["models", "test", "wine-env"]);
  expect(without.code !== 0, "models test succeeded without the environment variable set");
  expect(without.err.includes(KEY_VAR), `without the variable the error does not name it: ${without.err.trim()}`);
}

/** The requests the mock model has received so far. */
async function mockRequests() {
  const reqs = await (await fetch(`${state.mockRoot}/_mock/requests`)).json();
  return Array.isArray(reqs) ? reqs : reqs.requests;
}

async function evalRunAgainstTheMock() {
  // Earlier checks sent requests without the key on purpose; only the run's requests count here.
  const seen = (await mockRequests()).length;
  const r = pseJson(
    ["eval", "run", "--cases", "origin=demo,limit=3,seed=1", "--model", "wine-keyring", "--info-model", "wine-keyring", "--judge-model", "wine-env", "--concurrency", "2", "--yes"],
    { env: { [KEY_VAR]: KEY } },
  );
  const text = JSON.stringify(r);
  state.run = r.run_id ?? r.run?.run_id ?? r.id;
  expect(state.run, `eval run printed no run id: ${text.slice(0, 300)}`);
  const shown = pseJson(["eval", "show", state.run]);
  const s = JSON.stringify(shown);
  expect(/"completed"/i.test(s), `the run did not complete: ${s.slice(0, 400)}`);
  const during = (await mockRequests()).slice(seen);
  expect(during.length >= 3, `the mock saw ${during.length} requests during the run`);
  const bad = during.filter((q) => !q.had_key || q.outcome !== "ok");
  expect(bad.length === 0, `${bad.length} requests of the run came without the key or were refused: ${String(JSON.stringify(bad[0])).slice(0, 300)}`);
}

async function evalExportWritesTrajectories() {
  const out = join(work, "exports", "run.jsonl");
  pseJson(["eval", "export", state.run, "--out", win(out)]);
  expect(existsSync(out), `eval export wrote nothing at ${out}`);
  const text = readFileSync(out, "utf8");
  const lines = text.split("\n").filter((l) => l.trim());
  expect(lines.length === 3, `eval export wrote ${lines.length} trajectories, expected 3`);
  expect(!text.includes("\r\n"), "eval export wrote CR LF line ends (the README promises LF everywhere)");
  for (const l of lines) JSON.parse(l);
  state.trajectories = out;
}

async function importsAcceptCrLfAndByteOrderMark() {
  const cases = join(work, "exports", "cases.jsonl");
  pseJson(["cases", "export", "--out", win(cases)]);
  const crlf = (p) => {
    const q = p.replace(/\.jsonl$/, "-windows.jsonl");
    writeFileSync(q, "\ufeff" + readFileSync(p, "utf8").replace(/\n/g, "\r\n"));
    return q;
  };
  const m = pseJson(["metrics", "--cases", win(crlf(cases)), "--trajectories", win(crlf(state.trajectories))]);
  expect(/"M1"|"m1"/.test(JSON.stringify(m)), "metrics over CR LF files with a byte-order mark gave no M1");
}

async function casesExportDataset() {
  const dir = join(work, "exports", "dataset");
  pseJson(["cases", "export", "--dataset", win(dir)]);
  for (const f of ["README.md", join("data", "complete.jsonl"), join("data", "missing.jsonl"), join("data", "uncertain.jsonl")]) {
    expect(existsSync(join(dir, f)) && statSync(join(dir, f)).size > 0, `cases export --dataset did not write ${f}`);
  }
  const readme = readFileSync(join(dir, "README.md"), "utf8");
  expect(readme.startsWith("---\n"), "the dataset README does not start with its YAML card");
}

async function csvAndPngDownloadsFromTheServer() {
  const m = await startBackground(["serve", "--port", "0", "--json"], /\{.*"token".*\}/);
  const info = JSON.parse(m[0]);
  const call = async (method, body) => {
    const r = await fetch(`http://127.0.0.1:${info.port}/api/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${info.token}` },
      body: JSON.stringify(body),
    });
    const j = await r.json();
    expect(r.ok, `${method} answered HTTP ${r.status}: ${JSON.stringify(j).slice(0, 300)}`);
    return j.result ?? j;
  };
  const runs = [...state.demoRuns, state.run];
  const csv = await call("results.table_file", { run_ids: runs, table: "table1_overall", format: "csv" });
  expect(csv.file_name === "table1_overall.csv", `the CSV download is named ${csv.file_name}`);
  const text = Buffer.from(csv.base64, "base64").toString("utf8");
  expect(!text.startsWith("\ufeff") && !text.includes("\r\n"), "the CSV has a byte-order mark or CR LF line ends (the README says LF, no mark)");
  expect(text.split("\n").filter(Boolean).length >= 5, `the CSV has too few rows:\n${text}`);
  writeFileSync(join(work, "exports", csv.file_name), text);
  const png = await call("results.chart_file", { run_ids: runs, chart: "m5_m6_scatter", format: "png" });
  const bytes = Buffer.from(png.base64, "base64");
  expect(png.mime === "image/png" && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "the chart download is not a PNG image");
  expect(bytes.length > 5000, `the PNG is only ${bytes.length} bytes`);
  writeFileSync(join(work, "exports", png.file_name), bytes);
}

async function reviewPackExportAndMerge() {
  const s = pseJson(["review", "create", "--name", "Wine check", "--reviewers", "Ana", "--sample", "1,1,1", "--seed", "7"]);
  const session = s.session_id ?? s.summary?.session_id ?? s.id;
  expect(session, `review create printed no session id: ${JSON.stringify(s).slice(0, 300)}`);
  const pack = join(work, "review", "ana-pack.json");
  mkdirSync(join(work, "review"), { recursive: true });
  pseJson(["review", "pack", "export", session, "--reviewer", "Ana", "--out", win(pack)]);
  expect(existsSync(pack), "review pack export wrote no file");
  // The reviewer's side: a store of their own (--db), as on another computer.
  const theirs = ["--db", win(join(work, "review", "reviewer.db"))];
  const opened = pseJson([...theirs, "review", "pack", "open", win(pack)]);
  expect(opened.items === 3, `the opened pack holds ${opened.items} items, expected 3`);
  pseJson([...theirs, "review", "answer", opened.session_id, "--reviewer", "Ana", "--item", "1", "--realism", "4", "--plausibility", "5", "--verdict", "Reportable"]);
  const answers = join(work, "review", "ana-answers.json");
  pseJson([...theirs, "review", "pack", "answers", opened.session_id, "--out", win(answers)]);
  const merged = pseJson(["review", "pack", "merge", win(answers)]);
  expect(merged.items_changed === 1, `merging the answers changed ${merged.items_changed} items, expected 1`);
  const again = pseJson(["review", "pack", "merge", win(answers)]);
  expect(again.items_changed === 0, "merging the same answers twice changed something");
  state.session = session;
}

async function forbiddenFileNamesAreRefused() {
  for (const name of ["CON.csv", "a?b.csv", "nul.jsonl"]) {
    const out = join(work, "exports", name);
    const r = pse(["review", "export", state.session, "--out", win(out)]);
    expect(r.code !== 0, `an export to ${name} succeeded`);
    expect(/Windows cannot save a file under this name/.test(r.err), `an export to ${name} failed without a plain reason: ${r.err.trim()}`);
  }
  const ok = join(work, "exports", "review.csv");
  const r = pse(["review", "export", state.session, "--out", win(ok)]);
  expect(r.code === 0 && existsSync(ok), `the same export to review.csv failed: ${r.err.trim()}`);
}

async function appStartUpBeforeItsWindow() {
  // Under Wine there is no WebView2 Runtime: the app must say so plainly, after it has found its
  // data folder and opened the same store as psebench.exe.
  const r = spawnSync(wine, [appExe], { cwd: work, env: wineEnv(), encoding: "utf8", timeout: 300_000 });
  if (r.error) fail(`could not start Wine: ${r.error.message}`);
  const out = r.stdout ?? "";
  expect(/^Data folder: .*AppData\\Roaming\\psebench\s*$/m.test(out), `the app's data folder is not under %APPDATA%:\n${out}${r.stderr}`);
  expect(/^Store: opened .*psebench\.db\s*$/m.test(out), `the app did not open the store:\n${out}`);
  expect(/^Log file: in .*logs/m.test(out), `the app has no log file:\n${out}`);
  expect(/^Window: cannot be shown/m.test(out), `the app thinks it can show a window under Wine:\n${out}`);
  // The loader was asked (it is there, beside the program) and found no runtime.
  expect(/^Window: cannot be shown \(no runtime found/m.test(out), `the WebView2 loader was not asked as the app asks it:\n${out}`);
  expect(out.includes("WebView2 Runtime, which is not installed") && out.includes("https://developer.microsoft.com/microsoft-edge/webview2/"), `the missing-WebView2 message is not the plain one:\n${out}`);
  expect(r.status === 1, `the app's start-up check ended with exit ${r.status}, expected 1 (cannot start)`);
}

// ---------------------------------------------------------------------------------------------

const checks = [
  ["status names a data folder under %APPDATA% and the store file appears there", statusShowsTheDataFolderUnderAppData],
  ["demo load: the 90 demo cases", demoCasesLoad],
  ["demo results: example runs appear in eval list", demoResultsLoad],
  ["metrics on the demo results", metricsOnTheDemoResults],
  ["mock-llm serve under Wine answers over HTTP and refuses a missing key", mockModelServesOverWindowsSockets],
  ["models add with the key in Credential Manager; models test reads it back", modelKeyInCredentialManager],
  ["models add with the key in an environment variable; missing variable named", modelKeyFromEnvironmentVariable],
  ["eval run of 3 demo cases against the mock over HTTP", evalRunAgainstTheMock],
  ["eval export writes the run's trajectories (LF line ends)", evalExportWritesTrajectories],
  ["imports read CR LF files with a byte-order mark (metrics --cases --trajectories)", importsAcceptCrLfAndByteOrderMark],
  ["cases export --dataset writes the dataset folder", casesExportDataset],
  ["psebench serve under Wine: a table as CSV and a chart as PNG", csvAndPngDownloadsFromTheServer],
  ["review pack export, open in another store, answer, answers file, merge", reviewPackExportAndMerge],
  ["file names Windows forbids are refused with a plain message", forbiddenFileNamesAreRefused],
  ["the app's start-up before its window: data folder, store, the missing-WebView2 message", appStartUpBeforeItsWindow],
];

mkdirSync(join(work, "exports"), { recursive: true });
let failed = 0;
const started = Date.now();
for (const [what, check] of checks) {
  const t0 = Date.now();
  try {
    await check();
    console.log(`ok    ${what}  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    console.log(`FAIL  ${what}\n      ${e instanceof CheckFailed ? e.message : e.stack}`);
  }
}
for (const child of background) child.kill();
console.log(`\n${checks.length - failed} of ${checks.length} Windows checks passed under Wine in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
process.exit(failed ? 1 : 0);
