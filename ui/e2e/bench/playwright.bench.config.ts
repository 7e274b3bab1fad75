import { defineConfig } from "@playwright/test";
import base from "../playwright.config";

// Not part of the test suite: screenshots for review (`*.shots.ts`) and the Results performance
// benchmark (`*.bench.ts`). Run: npx playwright test -c e2e/bench/playwright.bench.config.ts <file>
export default defineConfig({
  ...base,
  testDir: ".",
  testMatch: /.*\.(shots|bench)\.ts/,
  timeout: 600_000,
  workers: 1,
  outputDir: "../../../tests/e2e/bench-results",
});
