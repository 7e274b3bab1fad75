import { defineConfig } from "@playwright/test";

// End-to-end tests of the real UI in Debian's Chromium against `psebench serve` (see fixtures.ts).
// Run: `npm run e2e` (after `npm run build` and `cargo build -p psebench-cli`).
export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts/,
  // Under scripts/test-all (PLAYWRIGHT_RETRIES set) the tests share two cores with the Rust tests
  // and the Windows build, and a slow moment can exceed a local timeout twice in a row; the waits
  // end as soon as the page is ready, so the longer ones cost time only when something is wrong.
  timeout: process.env.PLAYWRIGHT_RETRIES ? 90_000 : 60_000,
  expect: { timeout: process.env.PLAYWRIGHT_RETRIES ? 20_000 : 10_000 },
  fullyParallel: false,
  workers: 2,
  // scripts/test-all runs these beside the Rust tests and the Windows build on two cores and sets
  // PLAYWRIGHT_RETRIES=1: a test that passes only on its second try is listed as "flaky" in the
  // output, so it is seen, without one slow moment failing the whole run. Locally: no retries.
  retries: Number(process.env.PLAYWRIGHT_RETRIES ?? 0),
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
