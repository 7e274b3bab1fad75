import { defineConfig } from "@playwright/test";

// End-to-end tests of the real UI in Debian's Chromium against `psebench serve` (see fixtures.ts).
// Run: `npm run e2e` (after `npm run build` and `cargo build -p psebench-cli`).
export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts/,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [["list"]],
  outputDir: "../../tests/e2e/test-results",
  use: {
    browserName: "chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
