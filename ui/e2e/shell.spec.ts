import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BIN, expect, ROOT, signIn, test, watchErrors } from "./fixtures";

test("home shows the workflow and opens the demo cases", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(studio.url);
  await expect(page.getByRole("heading", { name: "PSEBench Studio", level: 1 })).toBeVisible();
  await expect(page.getByText(/You are using the summary edition of Minnesota/)).toBeVisible();
  await page.getByRole("button", { name: "Open the 90 demo cases" }).click();
  await expect(page.getByText("Loaded 90 demo cases.")).toBeVisible();
  await expect(page.getByText("90 cases: 30 complete, 30 missing, 30 uncertain.")).toBeVisible();
  expect(errors).toEqual([]);
});

test("navigation works from the keyboard with a visible focus", async ({ page, studio }) => {
  await page.goto(studio.url);
  await page.keyboard.press("Tab"); // skip link
  await page.keyboard.press("Tab");
  const focused = page.locator(":focus");
  await expect(focused).toHaveText(/Home/);
  const outline = await focused.evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe("none");
  await page.getByRole("link", { name: "Policy" }).press("Enter");
  await expect(page).toHaveURL(/#\/policy/);
});

test("policy page lists clauses, guidance and evidence, and imports official text", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/policy`);
  await expect(page.getByRole("heading", { name: /Minnesota Adverse Health Events/ })).toBeVisible();
  await expect(page.getByText("Summary edition.")).toBeVisible();
  await expect(page.getByRole("cell", { name: "Surgical Events clause 1" })).toBeVisible();
  await page.getByRole("tab", { name: /Guidance/ }).click();
  await expect(page.getByRole("heading", { name: /General Recommendation 1/ })).toBeVisible();
  await page.getByRole("tab", { name: /Evidence vocabulary/ }).click();
  await expect(page.getByRole("cell", { name: "General Recommendation 3", exact: true })).toBeVisible();
  await page.getByRole("tab", { name: "Official text" }).click();
  const md = "# Surgical Events clause 1\nThe official words of clause one.\n\n# Surgical Events clause 2\nThe official words of clause two.\n";
  await page.locator('input[type="file"]').first().setInputFiles({ name: "statute.md", mimeType: "text/markdown", buffer: Buffer.from(md) });
  await page.getByRole("button", { name: "Import official text" }).click();
  await expect(page.getByText(/Imported statute.md: 2 sections, 2 matched/)).toBeVisible();
  await expect(page.getByText("Official text imported.")).toBeVisible();
  expect(errors).toEqual([]);
});

test("the printed link signs the tab in; without it the app shows only how to get in", async ({ browser, studio }) => {
  // A browser that never opened the link (its own context) gets the notice, not the app.
  const stranger = await browser.newContext();
  try {
    const page = await stranger.newPage();
    await page.goto(`${studio.url}#/cases`);
    await expect(page.getByRole("heading", { name: "Open the link that psebench serve printed" })).toBeVisible();
    await expect(page.getByText("That link carries this session's key")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
    // An old-style link with a wrong key gets a plain page.
    const wrong = await page.goto(`${studio.url}?token=not-the-key`);
    expect(wrong?.status()).toBe(401);
    await expect(page.getByRole("heading", { name: "This link is not valid" })).toBeVisible();
    // A link with a wrong key in the fragment: the server refuses it, the notice shows.
    await page.goto(`${studio.url}#owner=not-the-key`);
    await expect(page.getByRole("heading", { name: "Open the link that psebench serve printed" })).toBeVisible();

    // The printed link: the key stays in this tab and leaves the address; no cookie is set.
    const onTheWire: string[] = [];
    page.on("request", (r) => onTheWire.push(r.url()));
    await signIn(page, studio);
    expect(page.url()).toBe(`${studio.url}#/`);
    await expect(page.getByRole("heading", { name: "PSEBench Studio", level: 1 })).toBeVisible();
    await expect(page.getByText(/approved clause cards/)).toBeVisible(); // figures from the API
    await page.goto(`${studio.url}#/cases`);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.getByText("Open the link that psebench serve printed")).toHaveCount(0);
    expect(await stranger.cookies()).toEqual([]);
    expect(onTheWire.filter((u) => u.includes(studio.token))).toEqual([]);

    // A reload keeps the tab signed in.
    await page.reload();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.locator('nav a[aria-current="page"]')).toHaveText(/Cases/);
    await expect(page.getByText("Open the link that psebench serve printed")).toHaveCount(0);

    // A second tab on the same address, opened without the link, does not share the key.
    const second = await stranger.newPage();
    await second.goto(`${studio.url}#/cases`);
    await expect(second.getByRole("heading", { name: "Open the link that psebench serve printed" })).toBeVisible();
    await expect(second.getByRole("navigation", { name: "Main" })).toHaveCount(0);

    // An old-style link with the right key is sent on to the fragment form and signs the tab in.
    const third = await stranger.newPage();
    await third.goto(`${studio.url}?token=${studio.token}`);
    await third.waitForURL(`${studio.url}#/`);
    await expect(third.getByRole("heading", { name: "PSEBench Studio", level: 1 })).toBeVisible();
    expect(await stranger.cookies()).toEqual([]);

    // The first tab still works (the second tab's refusal did not touch it).
    await page.reload();
    await expect(page.locator('nav a[aria-current="page"]')).toHaveText(/Cases/);
  } finally {
    await stranger.close();
  }
});

test("serve --open: the private forwarding page leads the browser in with the key of the link", async ({ browser }) => {
  // The browser is replaced by a script that notes which page it was given (PSEBENCH_OPENER).
  const dir = mkdtempSync(join(tmpdir(), "psebench-e2e-open-"));
  const noted = join(dir, "opened.txt");
  const opener = join(dir, "fake-browser");
  writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${noted}.part'\nmv '${noted}.part' '${noted}'\n`);
  chmodSync(opener, 0o755);
  const proc = spawn(BIN, ["serve", "--port", "0", "--json", "--open", "--ui-dir", join(ROOT, "ui/dist")], {
    env: { ...process.env, PSEBENCH_DB: join(dir, "store.db"), HOME: dir, XDG_DATA_HOME: join(dir, "data"), TMPDIR: dir, PSEBENCH_OPENER: opener },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const context = await browser.newContext();
  try {
    const line = await new Promise<string>((ok) => createInterface({ input: proc.stdout }).once("line", ok));
    const info = JSON.parse(line) as { url: string; link: string };
    await expect.poll(() => existsSync(noted)).toBe(true);
    const forwarding = readFileSync(noted, "utf8");
    const page = await context.newPage();
    await page.goto(`file://${forwarding}`);
    await page.waitForURL(`${info.url}#/`);
    await expect(page.getByRole("heading", { name: "PSEBench Studio", level: 1 })).toBeVisible();
    await expect(page.getByText("Open the link that psebench serve printed")).toHaveCount(0);
    expect(page.url()).not.toContain(new URL(info.link).hash.slice("#owner=".length));
    expect(await context.cookies()).toEqual([]);
    // Stopped the way a service manager stops it (SIGTERM), the server deletes the page.
    proc.kill("SIGTERM");
    await expect.poll(() => existsSync(forwarding), { timeout: 15_000 }).toBe(false);
  } finally {
    await context.close();
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
