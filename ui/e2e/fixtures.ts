// Test fixtures: every test file gets a `psebench serve` on a fresh store in a temporary folder,
// and a loopback mock LLM provider that answers like the models of a scripted scenario.

import { test as base, expect, Page } from "@playwright/test";
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import type { ApiMethod, ApiMethods } from "../src/api/generated";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = process.env.PSEBENCH_BIN ?? join(ROOT, "target/debug/psebench");
const UI_DIR = join(ROOT, "ui/dist");

let template: string | null = null;

/**
 * Put at `db` a store already seeded with the built-in policies, library and anchors, as after a
 * first start: seeding takes about two seconds in the debug build the tests run, so each worker
 * seeds one template (with this build's `psebench status`) and copies it for every new store.
 * The app opens the copy as any store it opened before. The template's write-ahead log, if the
 * process left one, is copied with it.
 */
export function seededStore(db: string) {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), "psebench-e2e-template-"));
    const path = join(dir, "store.db");
    execFileSync(BIN, ["--db", path, "status"], { env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "data") }, stdio: "ignore" });
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    template = path;
  }
  copyFileSync(template, db);
  if (existsSync(`${template}-wal`)) copyFileSync(`${template}-wal`, `${db}-wal`);
}

/** Start a process and resolve with the first stdout line matching `pattern`. */
function startAndRead(cmd: string, args: string[], env: Record<string, string>, pattern: RegExp): Promise<{ proc: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((ok, fail) => {
    const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const rl = createInterface({ input: proc.stdout });
    const timer = setTimeout(() => fail(new Error(`${cmd} ${args.join(" ")} did not start: ${stderr}`)), 20_000);
    rl.on("line", (line) => {
      const m = line.match(pattern);
      if (m) {
        clearTimeout(timer);
        ok({ proc, match: m });
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`${cmd} exited with ${code}: ${stderr}`));
    });
  });
}

/** The scripted models: "asker" thinks (a `<think>` block), asks once, then answers; "answerer" answers at once, "garbage" writes prose, "slow" answers after 0.7 s. */
export const MOCK_SCRIPT = {
  rules: [
    { name: "info", when: { system_contains: "look-up service" }, reply: { json: { status: "answered", answer_to_eval: "The patient stayed 3 days in intensive care.", fields_used: [] } } },
    { name: "judge", when: { system_contains: "You review the written reasoning", last_user_regex: "- name: (\\w+)" }, reply: { json: { hits: ["{{1}}"], explanations: {} } } },
    {
      name: "asker-first",
      when: { model: "asker", user_turns_max: 1 },
      reply: {
        reasoning: "Whether the harm was serious depends on the stay in intensive care; {not yet known}.",
        form: "think_tags",
        answer: { json: { action: "ASK", ask_question: "How long did the patient stay in intensive care?", final_verdict: null, targeted_clause: null, clause_and_guidance_evidence: null, rationale: null } },
      },
    },
    {
      name: "asker-then",
      when: { model: "asker" },
      reply: { json: { action: "ANSWER", ask_question: null, final_verdict: "Reportable", targeted_clause: "Care Management Events clause 1", clause_and_guidance_evidence: ["Care Management Events clause 1"], rationale: "A serious injury followed a medication error." } },
    },
    { name: "garbage", when: { model: "garbage" }, reply: { text: "Probably reportable, I would say, but let me think about it at length." } },
    {
      name: "slow",
      when: { model: "slow" },
      latency_ms: 700,
      reply: { json: { action: "ANSWER", ask_question: null, final_verdict: "Non-reportable", targeted_clause: null, clause_and_guidance_evidence: ["General Recommendation 1"], rationale: "Slowly considered." } },
    },
    {
      name: "answerer",
      reply: { json: { action: "ANSWER", ask_question: null, final_verdict: "Non-reportable", targeted_clause: null, clause_and_guidance_evidence: ["General Recommendation 1"], rationale: "The harm stayed below the serious-injury threshold." } },
    },
  ],
};

export type Studio = {
  url: string;
  /** The link `psebench serve` printed: `${url}#owner=KEY` (opening it signs the tab in). */
  link: string;
  /** This launch's key (scripts send it as `Authorization: Bearer KEY`). */
  token: string;
  dir: string;
  mockBase: string;
  /** Call the API directly (setup steps that are not under test). */
  api: <M extends ApiMethod>(method: M, params?: ApiMethods[M]["params"]) => Promise<ApiMethods[M]["result"]>;
};

type Running = { studio: Studio; stop: () => void };

/** `Studio.api` for a server at `url` with its key: the engine's answer, or an error with its message. */
export function apiAt(url: string, token: string): Studio["api"] {
  return async <M extends ApiMethod>(method: M, params: unknown = {}) => {
    const r = await fetch(`${url}api/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(params),
    });
    const body: unknown = await r.json();
    if (!r.ok) throw new Error(`${method}: ${(body as { message?: string }).message}`);
    return body as ApiMethods[M]["result"];
  };
}

// The printed links of the owner servers started by the tests, by origin. A test page's first
// visit to one of these servers goes through its link, as a person would (see the `page` fixture).
const LINKS = new Map<string, string>();

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** Note the printed link of a server the tests started (its key travels in the link). */
export function registerLink(link: string) {
  LINKS.set(new URL(link).origin, link);
}

/**
 * Open a server's printed link in `page`, as a person would: the page keeps the key of the link's
 * fragment for this tab and takes it out of the address, which becomes `${url}#/`.
 */
export async function signIn(page: Page, server: { link: string; url: string }) {
  if (!server.link.startsWith(`${server.url}#owner=`)) throw new Error(`not a printed link of ${server.url}: ${server.link}`);
  await page.goto(server.link);
  await page.waitForURL(`${server.url}#/`);
}

async function startStudio(): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), "psebench-e2e-"));
  const scriptPath = join(dir, "mock.json");
  writeFileSync(scriptPath, JSON.stringify(MOCK_SCRIPT));
  const mock = await startAndRead(BIN, ["mock-llm", "serve", "--port", "0", "--script", scriptPath], {}, /OpenAI base (http:\/\/\S+\/v1)/);
  // The key is read from --token-file here (other helpers read it from the printed JSON line); the
  // link is the one the server printed.
  const tokenFile = join(dir, "owner.key");
  seededStore(join(dir, "store.db"));
  const serve = await startAndRead(
    BIN,
    ["serve", "--port", "0", "--json", "--ui-dir", UI_DIR, "--token-file", tokenFile],
    { PSEBENCH_DB: join(dir, "store.db"), HOME: dir, XDG_DATA_HOME: join(dir, "data") },
    /^(\{.*"url":"http:\/\/.*\})$/,
  );
  const { url, link } = JSON.parse(serve.match[1]) as { url: string; link: string };
  const token = readFileSync(tokenFile, "utf8").trim();
  if (link !== `${url}#owner=${token}`) throw new Error(`the printed link ${link} does not carry the key of ${tokenFile}`);
  registerLink(link);
  return {
    studio: { url, link, token, dir, mockBase: mock.match[1].replace(/\)$/, ""), api: apiAt(url, token) },
    stop: () => {
      serve.proc.kill();
      mock.proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// One studio (server + fresh store) per test file: a worker may run several files one after
// another, and each file must start from an empty store.
export const test = base.extend<{ studio: Studio }, { studios: Map<string, Running> }>({
  // The first visit of a test page to a server the tests started goes through its printed link
  // (the page keeps the key for its tab), then on to the address asked for. Pages opened with
  // `newPage()` call `signIn` themselves: the key is kept per tab.
  page: async ({ page }, use) => {
    const signedIn = new Set<string>();
    const goto = page.goto.bind(page);
    page.goto = async (url, options) => {
      const origin = originOf(url);
      const link = LINKS.get(origin);
      if (link && !signedIn.has(origin)) {
        signedIn.add(origin);
        await goto(link);
      }
      return goto(url, options);
    };
    await use(page);
  },
  studios: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's first parameter as an object pattern; `{}` asks for no other fixture
    async ({}, use) => {
      const pool = new Map<string, Running>();
      await use(pool);
      for (const r of pool.values()) r.stop();
    },
    { scope: "worker" },
  ],
  studio: async ({ studios }, use, testInfo) => {
    let running = studios.get(testInfo.file);
    if (!running) {
      for (const [file, r] of studios) {
        r.stop();
        studios.delete(file);
      }
      running = await startStudio();
      studios.set(testInfo.file, running);
    }
    await use(running.studio);
  },
});

/** Register the scripted models (all on the loopback mock). */
/** Run one model on a case selection through the API (info and judge models "info" and "judge") and wait until it has finished. */
export async function runEvalToEnd(studio: Studio, model: string, cases: string, opts: { repeat?: number; concurrency?: number } = {}): Promise<string> {
  const { repeat = 1, concurrency = 4 } = opts;
  const { run_id } = await studio.api("evaluation.start", { cases, model, info_model: "info", judge_model: "judge", turns: 4, concurrency, repeat, batch: false });
  for (let i = 0; i < 200; i++) {
    const r = await studio.api("evaluation.show", { run_id });
    if (r.status === "completed") return run_id;
    if (["failed", "cancelled"].includes(r.status)) throw new Error(`${model}: ${r.status} ${r.error}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`${model} did not finish`);
}

export async function registerMockModels(studio: Studio, names = ["asker", "answerer", "garbage", "info", "judge"]) {
  for (const name of names) {
    await studio.api("model.add", { name, kind: "openai-compatible", model: name, base_url: studio.mockBase, local: false });
  }
}

/** Fail the test on any uncaught page error or console error (other than expected HTTP errors). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 4\d\d/.test(m.text())) errors.push(m.text());
  });
  return errors;
}

export { expect };
