// Accessibility checked by machine: every page of `psebench serve`, the dialogs the main flows
// open, and a reviewer's questionnaire are scanned with axe-core (WCAG 2.0/2.1 A and AA rules, the
// best-practice rules, and the experimental rule that a control's name contains its visible words),
// in the light and the dark theme, with the demo cases and the example results loaded.
// A serious or critical finding fails the test with a list that says what to fix and where.
// Set AXE_ALL=1 to also print the moderate and minor findings.

import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { join } from "node:path";
import { expect, registerMockModels, Studio, test, watchErrors } from "./fixtures";
import { serve, Served } from "./review-helpers";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];
// Experimental in axe-core 4, so off unless asked for by name: "a control's accessible name
// contains the words it shows" (WCAG 2.5.3, for people who steer the app by voice).
const EXTRA_RULES = ["label-content-name-mismatch"];
type Theme = "light" | "dark";

// The theme only changes colours (styles.css swaps colour variables; the page is the same), so the
// light theme gets every rule and the dark theme the rules that read colours. This halves the
// time of the scans of big pages (the card library has thousands of elements).
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * Scan the page (or only `within`, e.g. an open dialog) and return one readable line per serious
 * or critical finding: where, the rule, its impact, the elements, and what to do.
 */
async function scan(page: Page, where: string, theme: Theme, within?: string): Promise<string[]> {
  // Only the violations are described in full (describing every passing element is most of the
  // work on a big page).
  const resultTypes = ["violations" as const];
  // In the light theme: the tagged rules, plus the extra ones switched on by name (axe's `rules`
  // option adds to `runOnly`); in the dark theme the colour rules.
  const builder =
    theme === "light"
      ? new AxeBuilder({ page }).options({ resultTypes, rules: Object.fromEntries(EXTRA_RULES.map((r) => [r, { enabled: true }])) }).withTags(TAGS)
      : new AxeBuilder({ page }).options({ resultTypes }).withRules(COLOUR_RULES);
  if (within) builder.include(within);
  const t0 = Date.now();
  const all = (await builder.analyze()).violations;
  where = `${where} (${theme})`;
  if (process.env.AXE_ALL) console.log(`[axe] ${where}: ${Date.now() - t0} ms`);
  const serious = all.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (process.env.AXE_ALL) {
    for (const v of all.filter((x) => !serious.includes(x))) console.log(`[axe ${v.impact}] ${where}: ${v.id} (${v.nodes.length}) ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(" | ")}`);
  }
  return serious.map((v) => {
    const targets = v.nodes.map((n) => `      ${n.target.join(" ")}${n.failureSummary ? ` — ${n.failureSummary.split("\n").slice(1).join(" ").trim()}` : ""}`);
    const shown = targets.slice(0, 8);
    if (targets.length > shown.length) shown.push(`      … and ${targets.length - shown.length} more`);
    return `${where}: ${v.id} (${v.impact}, ${v.nodes.length} element${v.nodes.length === 1 ? "" : "s"}): ${v.help} (${v.helpUrl})\n${shown.join("\n")}`;
  });
}

/** Scan in the light theme, switch the page to the dark theme, scan again, and go back to light. */
async function scanBothThemes(page: Page, where: string, within?: string): Promise<string[]> {
  const found = await scan(page, where, "light", within);
  await useTheme(page, "dark");
  found.push(...(await scan(page, where, "dark", within)));
  await useTheme(page, "light");
  return found;
}

/** Fail with every finding at once (an empty list passes). */
function expectClean(findings: string[]) {
  expect(findings, `Serious or critical accessibility findings:\n\n${findings.join("\n\n")}\n`).toEqual([]);
}

/** Follow the operating system's light or dark setting (the app's default) and check it took. */
async function useTheme(page: Page, theme: Theme) {
  await page.emulateMedia({ colorScheme: theme });
  await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
}

/** Wait until the page shows `ready` and nothing is loading any more. */
async function settle(page: Page, ready: Locator) {
  await expect(ready).toBeVisible({ timeout: 20_000 });
  await expect(page.locator(".loading")).toHaveCount(0, { timeout: 20_000 });
}

type Setup = { exampleRuns: string; exampleRun: string; sessionId: string; firstCase: string };
const setup: Setup = { exampleRuns: "", exampleRun: "", sessionId: "", firstCase: "" };

async function load(studio: Studio) {
  if (setup.exampleRun) return;
  await studio.api("demo.load");
  const examples = await studio.api("demo.example_results");
  await registerMockModels(studio);
  const session = await studio.api("review.create", {
    name: "Accessibility review",
    selection: { kind: "stratified", complete: 1, missing: 1, uncertain: 1, by_clause: false },
    reviewers: ["Ana", "Ben"],
    overlap: 2,
    seed: 7,
  });
  setup.exampleRuns = examples.run_ids.join(",");
  setup.exampleRun = examples.run_ids[0];
  setup.sessionId = session.summary.session_id;
  setup.firstCase = (await studio.api("cases.list", { include_excluded: false }))[0].case_id;
}

type Screen = { name: string; path: (s: Setup) => string; ready: (page: Page) => Locator };
const h1 = (name: string | RegExp) => (page: Page) => page.getByRole("heading", { level: 1, name });

const SCREENS: Screen[] = [
  { name: "Home", path: () => "#/", ready: (p) => p.getByRole("heading", { level: 1 }).first() },
  { name: "Policy", path: () => "#/policy", ready: h1(/./) },
  { name: "Policy · clauses", path: () => "#/policy?tab=clauses", ready: h1(/./) },
  { name: "Card library", path: () => "#/cards", ready: (p) => p.locator("tbody tr").first() },
  { name: "Card library · author", path: () => "#/cards?view=author", ready: h1("Card library") },
  { name: "Card", path: () => "#/cards/CardRep_1_CareManagement_7", ready: (p) => p.getByRole("heading", { name: "Decision table" }) },
  { name: "Card · history", path: () => "#/cards/CardRep_1_CareManagement_7?tab=history", ready: (p) => p.getByRole("heading", { name: "Versions", exact: true }) },
  { name: "Card · edit (form)", path: () => "#/cards/CardUnc_1_CareManagement_1?tab=edit", ready: (p) => p.getByRole("heading", { name: "Open question" }) },
  { name: "Anchors", path: () => "#/anchors", ready: (p) => p.getByText("754 anchors", { exact: true }) },
  { name: "Generate", path: () => "#/generate", ready: h1("Generate cases") },
  { name: "Generate · runs", path: () => "#/generate?tab=runs", ready: (p) => p.getByRole("heading", { name: "No generation runs yet" }) },
  { name: "Generate · library", path: () => "#/generate?tab=library", ready: h1("Generate cases") },
  { name: "Cases", path: () => "#/cases", ready: (p) => p.locator("tbody tr").first() },
  { name: "Cases · label audit", path: () => "#/cases?view=audit", ready: h1(/./) },
  { name: "Case", path: (s) => `#/cases/${s.firstCase}`, ready: (p) => p.getByRole("heading", { name: "Ground truth" }) },
  { name: "Evaluate", path: () => "#/evaluate", ready: h1("Evaluate") },
  { name: "Evaluate · run", path: (s) => `#/evaluate?run=${s.exampleRun}`, ready: (p) => p.getByText("Finished.") },
  { name: "Results", path: () => "#/results", ready: (p) => p.getByRole("columnheader", { name: /M1/ }) },
  { name: "Results · tables", path: () => "#/results?tab=tables", ready: (p) => p.locator("table.data").first() },
  { name: "Results · charts", path: () => "#/results?tab=charts", ready: (p) => p.locator(".chart-img img").first() },
  { name: "Results · cases", path: () => "#/results?tab=cases", ready: (p) => p.locator(".g-c").first() },
  { name: "Results · transcript", path: (s) => `#/results/trajectory?runs=${s.exampleRuns}&run=${s.exampleRun}&case=${s.firstCase}`, ready: (p) => p.getByRole("heading", { level: 2, name: / on case / }) },
  { name: "Expert review", path: () => "#/review", ready: (p) => p.getByRole("table", { name: "Review sessions" }) },
  { name: "New review", path: () => "#/review/new", ready: h1("New review") },
  ...["progress", "links", "answer", "send", "results", "adjudication", "export", "guidelines"].map(
    (tab): Screen => ({ name: `Review session · ${tab}`, path: (s) => `#/review/${s.sessionId}?tab=${tab}`, ready: h1("Accessibility review") }),
  ),
  { name: "Settings", path: () => "#/settings", ready: (p) => p.getByRole("heading", { name: "Registered models" }) },
  ...["store", "appearance"].map((tab): Screen => ({ name: `Settings · ${tab}`, path: () => `#/settings?tab=${tab}`, ready: h1("Settings") })),
];

test("every page passes the scan in the light and the dark theme", async ({ page, studio }) => {
  test.setTimeout(600_000);
  const errors = watchErrors(page);
  await load(studio);
  await page.goto(`${studio.url}#/`);
  await useTheme(page, "light");
  const findings: string[] = [];
  for (const s of SCREENS) {
    await page.goto(`${studio.url}${s.path(setup)}`);
    await settle(page, s.ready(page));
    findings.push(...(await scanBothThemes(page, s.name)));
  }
  expectClean(findings);
  expect(errors).toEqual([]);
});

type DialogCase = { name: string; path: (s: Setup) => string; open: (page: Page) => Promise<void>; dialog: string | RegExp };
const button = (name: string | RegExp) => async (page: Page) => {
  await page.getByRole("button", { name }).first().click();
};

const DIALOGS: DialogCase[] = [
  { name: "New policy", path: () => "#/policy", open: button("New policy"), dialog: /policy/i },
  { name: "Import clause cards", path: () => "#/cards", open: button("Import cards…"), dialog: "Import clause cards" },
  { name: "Draft every clause", path: () => "#/cards?view=author", open: button("Draft every clause…"), dialog: /./ },
  { name: "Record audit decision", path: () => "#/cards/CardRep_1_CareManagement_7", open: button("Record audit decision…"), dialog: /./ },
  { name: "Import anchors", path: () => "#/anchors", open: button("Import anchors…"), dialog: /./ },
  { name: "Sort anchors with a model", path: () => "#/anchors", open: button("Sort with a model…"), dialog: "Sort anchors into buckets with a model" },
  {
    name: "Move an anchor to a bucket",
    path: () => "#/anchors?anchor=syn_CareManagement_7_Fall_1",
    open: async (page) => page.getByRole("region", { name: "Anchor syn_CareManagement_7_Fall_1" }).getByRole("button", { name: "Move to bucket…" }).click(),
    dialog: "Move to a bucket",
  },
  { name: "Import cases", path: () => "#/cases", open: button("Import cases…"), dialog: "Import cases" },
  { name: "Exclude a case", path: (s) => `#/cases/${s.firstCase}`, open: button("Exclude from runs…"), dialog: "Exclude this case from runs?" },
  { name: "Import trajectories", path: () => "#/evaluate", open: button("Import trajectories"), dialog: "Import trajectories" },
  { name: "Re-judge a run", path: (s) => `#/evaluate?run=${s.exampleRun}`, open: button("Re-judge (M4)"), dialog: /./ },
  { name: "Delete a run", path: () => "#/evaluate", open: button(/^Delete run… /), dialog: "Delete this run?" },
  { name: "Remove example results", path: () => "#/", open: button("Remove example results"), dialog: "Remove the example results?" },
  { name: "Add a model", path: () => "#/settings", open: button(/^Add a model/), dialog: /./ },
  { name: "Edit a model", path: () => "#/settings", open: button(/^Edit/), dialog: /./ },
  { name: "Remove a model", path: () => "#/settings", open: button(/^Remove/), dialog: /^Remove / },
  { name: "Close a review", path: (s) => `#/review/${s.sessionId}`, open: button("Close review…"), dialog: /^Close / },
  { name: "Delete a review", path: (s) => `#/review/${s.sessionId}`, open: button("Delete…"), dialog: /^Delete / },
];

test("every dialog passes the scan in the light and the dark theme", async ({ page, studio }) => {
  test.setTimeout(300_000);
  const errors = watchErrors(page);
  await load(studio);
  await page.goto(`${studio.url}#/`);
  await useTheme(page, "light");
  const findings: string[] = [];
  for (const d of DIALOGS) {
    await page.goto(`${studio.url}${d.path(setup)}`);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    // The page has its data (a dialog some pages render beside their list appears only then).
    await expect(page.locator(".loading")).toHaveCount(0);
    await d.open(page);
    const dialog = page.getByRole("dialog", { name: d.dialog });
    await expect(dialog).toBeVisible();
    await expect(page.locator(".loading")).toHaveCount(0);
    findings.push(...(await scanBothThemes(page, `Dialog “${d.name}”`, '[role="dialog"]')));
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
  }
  expectClean(findings);
  expect(errors).toEqual([]);
});

let reviewServer: Served | null = null;
test.afterAll(() => reviewServer?.proc.kill());

test("a reviewer's questionnaire and its dialogs pass the scan in both themes", async ({ page, studio }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  await load(studio);
  reviewServer = await serve(["--review", setup.sessionId, "--lan"], join(studio.dir, "store.db"), studio.dir);
  const link = reviewServer.info.links.find((l) => l.reviewer === "Ana")!.link!;
  // The link names this computer's network address; the browser uses the loopback address.
  const url = `http://127.0.0.1:${reviewServer.info.port}${new URL(link).pathname}`;
  const findings: string[] = [];
  await page.goto(url);
  await useTheme(page, "light");
  await settle(page, page.getByRole("heading", { name: "How to review" }));
  findings.push(...(await scanBothThemes(page, "Questionnaire: guidelines")));
  await page.keyboard.press("Enter");
  await settle(page, page.getByRole("heading", { name: /^Case 1 of 3/ }));
  findings.push(...(await scanBothThemes(page, "Questionnaire: a case")));
  for (const [key, name] of [["?", "Keyboard shortcuts"], ["g", "Guidelines"], ["l", "Your cases"]]) {
    await page.keyboard.press(key);
    await expect(page.getByRole("dialog", { name })).toBeVisible();
    findings.push(...(await scanBothThemes(page, `Questionnaire dialog “${name}”`, '[role="dialog"]')));
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
  }
  expectClean(findings);
  expect(errors).toEqual([]);
});
