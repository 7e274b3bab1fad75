// Helpers for the expert review tests: extra `psebench serve` processes (a review server on the
// test's store, or a second reviewer's own copy of the app) and direct API calls with headers.

import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ApiMethod, ApiMethods } from "../src/api/generated";
import { BIN, registerLink, ROOT } from "./fixtures";

export const UI_DIR = join(ROOT, "ui/dist");

/** The JSON line `psebench serve --json` prints; `token` and `link` are null on a review server. */
export type Served = {
  proc: ChildProcess;
  info: { url: string; port: number; links: { reviewer: string; link: string | null }[]; token: string | null; link: string | null };
};

/** Start `psebench serve … --json` on a store and read the line it prints when ready. */
export function serve(args: string[], db: string, home: string): Promise<Served> {
  return new Promise((ok, fail) => {
    const proc = spawn(BIN, ["serve", "--port", "0", "--json", "--ui-dir", UI_DIR, ...args], {
      env: { ...process.env, PSEBENCH_DB: db, HOME: home, XDG_DATA_HOME: join(home, "data") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => fail(new Error(`psebench serve did not start: ${stderr}`)), 20_000);
    createInterface({ input: proc.stdout }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      clearTimeout(timer);
      const info = JSON.parse(line) as Served["info"];
      if (info.link) registerLink(info.link);
      ok({ proc, info });
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`psebench serve exited with ${code}: ${stderr}`));
    });
  });
}

/** A second copy of the app: `psebench serve` on a new, empty store. */
export async function otherApp(): Promise<Served & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "psebench-e2e-other-"));
  const s = await serve([], join(dir, "store.db"), dir);
  return { ...s, dir };
}

/** The header that carries an owner server's key. */
export function asOwner(s: Served): Record<string, string> {
  return s.info.token ? { authorization: `Bearer ${s.info.token}` } : {};
}

/** Call an API method; returns the HTTP status and the body (never throws on HTTP errors). */
export async function call(base: string, method: ApiMethod, params: unknown = {}, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const url = `${base.replace(/\/$/, "")}/api/${method}`;
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(params) });
  const text = await r.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: r.status, body };
}

/** Like `call`, but throws unless the answer is 200. */
export async function ok<M extends ApiMethod>(base: string, method: M, params: unknown = {}, headers: Record<string, string> = {}): Promise<ApiMethods[M]["result"]> {
  const r = await call(base, method, params, headers);
  if (r.status !== 200) throw new Error(`${method}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as ApiMethods[M]["result"];
}

/** The 64-hex token of a personal link. */
export function tokenOf(link: string): string {
  const m = link.match(/\/review\/([0-9a-f]{64})$/);
  if (!m) throw new Error(`not a review link: ${link}`);
  return m[1];
}

/**
 * A fresh store served for one test file (started in beforeAll). The shared `studio` fixture lives
 * as long as a worker, so a file that loads cases into it would change the store other files see;
 * these review tests use their own.
 */
export type FileStudio = {
  url: string;
  link: string;
  /** Headers that carry the server's key, for `call` and `ok`. */
  owner: Record<string, string>;
  dir: string;
  api: <M extends ApiMethod>(method: M, params?: ApiMethods[M]["params"]) => Promise<ApiMethods[M]["result"]>;
  close: () => void;
};

export async function fileStudio(): Promise<FileStudio> {
  const dir = mkdtempSync(join(tmpdir(), "psebench-e2e-review-"));
  const s = await serve([], join(dir, "store.db"), dir);
  const url = s.info.url;
  const owner = asOwner(s);
  return {
    url,
    link: s.info.link ?? url,
    owner,
    dir,
    api: (method, params = {}) => ok(url, method, params, owner),
    close: () => {
      s.proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
