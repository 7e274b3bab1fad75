// Helpers for test files that change the store a lot (generation, imports): a `psebench serve`
// on a fresh store of the file's own (the shared worker fixture's store may be reused by the next
// file that runs in the same worker, so these files leave it untouched), and a loopback mock LLM
// with a script of the file's own. Models registered on the mock are local (loopback).

import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { apiAt, BIN, registerLink, ROOT, seededStore, Studio } from "./fixtures";

export type MockLlm = { base: string; stop: () => void };

export function startMockLlm(script: unknown): Promise<MockLlm> {
  const dir = mkdtempSync(join(tmpdir(), "psebench-mock-"));
  const path = join(dir, "script.json");
  writeFileSync(path, JSON.stringify(script));
  return new Promise((ok, fail) => {
    const proc: ChildProcess = spawn(BIN, ["mock-llm", "serve", "--port", "0", "--script", path], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => fail(new Error(`mock-llm did not start: ${stderr}`)), 20_000);
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const m = line.match(/OpenAI base (http:\/\/\S+\/v1)/);
      if (m) {
        clearTimeout(timer);
        ok({
          base: m[1].replace(/\)$/, ""),
          stop: () => {
            proc.kill();
            rmSync(dir, { recursive: true, force: true });
          },
        });
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`mock-llm exited with ${code}: ${stderr}`));
    });
  });
}

/** Register a model on a mock (loopback: shown as "on this computer"). */
export async function addMockModel(studio: Studio, mock: MockLlm, name: string) {
  await studio.api("model.add", { name, kind: "openai-compatible", model: name, base_url: mock.base, local: false });
}

/** Register a remote model that is never called (for plans and confirmations only). */
export async function addRemoteModel(studio: Studio, name: string, price = true) {
  await studio.api("model.add", {
    name,
    kind: "openai-compatible",
    model: name,
    base_url: "https://llm.example.com/v1",
    local: false,
    ...(price ? { price_in: 3, price_out: 15 } : {}),
  });
}

export type OwnStudio = Studio & { stop: () => void };

/**
 * Start `psebench serve` on a fresh store in a temporary folder (call `stop()` when done). `env`
 * adds variables for the server (e.g. batch-mode timing, a provider key's variable).
 */
export function startStudio(env: Record<string, string> = {}): Promise<OwnStudio> {
  const dir = mkdtempSync(join(tmpdir(), "psebench-e2e-own-"));
  seededStore(join(dir, "store.db"));
  return new Promise((ok, fail) => {
    const proc = spawn(BIN, ["serve", "--port", "0", "--json", "--ui-dir", join(ROOT, "ui/dist")], {
      env: { ...process.env, ...env, PSEBENCH_DB: join(dir, "store.db"), HOME: dir, XDG_DATA_HOME: join(dir, "data") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => fail(new Error(`psebench serve did not start: ${stderr}`)), 20_000);
    createInterface({ input: proc.stdout }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      clearTimeout(timer);
      const { url, link, token } = JSON.parse(line) as { url: string; link: string; token: string };
      registerLink(link);
      ok({
        url,
        link,
        token,
        dir,
        mockBase: "",
        api: apiAt(url, token),
        stop: () => {
          proc.kill();
          rmSync(dir, { recursive: true, force: true });
        },
      });
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`psebench serve exited with ${code}: ${stderr}`));
    });
  });
}
