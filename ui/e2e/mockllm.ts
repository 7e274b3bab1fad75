// A second loopback mock LLM with a script of the test file's own (the shared fixture's mock
// answers like the evaluation roles). Started once per worker; models registered on it are local
// (loopback), so nothing leaves the machine.

import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BIN, Studio } from "./fixtures";

export type MockLlm = { base: string; stop: () => void };

export function startMockLlm(script: unknown): Promise<MockLlm> {
  const dir = mkdtempSync(join(tmpdir(), "psebench-mock-"));
  const path = join(dir, "script.json");
  writeFileSync(path, JSON.stringify(script));
  return new Promise((ok, fail) => {
    const proc: ChildProcess = spawn(BIN, ["mock-llm", "serve", "--port", "0", "--script", path], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr?.on("data", (d) => (stderr += d.toString()));
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
  await studio.api("models.add", { name, kind: "openai-compatible", model: name, base_url: mock.base, local: false });
}

/** Register a remote model that is never called (for plans and confirmations only). */
export async function addRemoteModel(studio: Studio, name: string, price = true) {
  await studio.api("models.add", {
    name,
    kind: "openai-compatible",
    model: name,
    base_url: "https://llm.example.com/v1",
    local: false,
    ...(price ? { price_in: 3, price_out: 15 } : {}),
  });
}
