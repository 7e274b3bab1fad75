// The Generate page in a real browser: a run for one built-in card with 2 anchors against a mock
// provider scripted to pass, with the facts check failing once (a retry) and the check of the
// second incomplete report failing three times (a dropped candidate). The plan shows cost and asks
// for a confirmation when a remote model is chosen (that run is never started).

import { expect, test, watchErrors } from "./fixtures";
import { addMockModel, addRemoteModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

const CARD = "CardRep_1_CareManagement_7";
const FALL_TITLE = "18. Death or serious injury associated with a fall";
const FACTS_ISSUE = "alternative_cause_findings does not say what the evaluation showed about other causes; name the monitoring and test results.";
const LEAK = "The phrase about the hospitalist at the bedside suggests a serious injury was found.";

const SLOTS = {
  person_status_at_time_of_fall: "Inpatient on the medical ward, day 4 of admission for pneumonia",
  fall_location_and_time: "Unwitnessed, found on the floor beside the bed in room 612 at 02:50",
  events_immediately_before_fall: "Tried to walk to the bathroom without calling for help and said she felt unsteady",
  alternative_cause_findings: "Telemetry showed sinus rhythm throughout; glucose 7.1 mmol/L; earlier films showed no old fracture",
  outcome_type: "serious_injury",
  injury_diagnosis: "Displaced left femoral neck fracture on hip films",
  treatment_and_course: "Hemiarthroplasty the next morning; walking with a frame at discharge on day 11",
};
// The facts borrow a word of the anchor, so that no two pairs send the same request (the response
// cache would otherwise answer the second pair's checks with the first pair's verdicts).
const FILLED = { ...SLOTS, alternative_cause_findings: `${SLOTS.alternative_cause_findings}; reviewed with the {{1}} team` };
const VISIBLE = { ...SLOTS, outcome_type: null, injury_diagnosis: null, treatment_and_course: null };

const COMMON =
  "The patient, an inpatient on the medical ward on day 4 of admission for pneumonia, was found unwitnessed on the floor beside the bed in room 612 at 02:50. She had tried to walk to the bathroom without calling for help and said she felt unsteady. Telemetry showed sinus rhythm throughout, glucose was 7.1 mmol/L and earlier films showed no old fracture.";
const COMPLETE = `{{1}} — night shift. ${COMMON} Hip films showed a displaced left femoral neck fracture; she had a hemiarthroplasty the next morning and was walking with a frame at discharge on day 11.`;
const MISSING = `{{1}} — night shift. ${COMMON} The hospitalist came to the bedside and she was sent for imaging.`;

const leakRow = (leaked: boolean) => ({
  boundary_condition: "death_or_serious_injury_present",
  leak_verdict: leaked ? "leaked" : "indeterminate",
  evidence_phrase: leaked ? "the hospitalist came to the bedside" : null,
  explanation: leaked ? "A bedside visit at night hints that an injury was found." : "Nothing is said about an injury, so either answer stays possible.",
});

// The card's variant also withholds whether the injury was an isolated minor fracture treated
// conservatively; nothing in the incomplete report decides it.
const minorFractureRow = { ...leakRow(false), boundary_condition: "isolated_minor_fracture_treated_conservatively" };

const SCRIPT = {
  rules: [
    { name: "inst", when: { system_contains: "You fill in the facts", last_user_regex: "# Anchor\\s+(\\S+)" }, reply: { json: { slot_values: FILLED } } },
    {
      name: "iver",
      when: { system_contains: "You are a strict reviewer" },
      replies: [{ json: { pass: false, issues: [FACTS_ISSUE] } }, { json: { pass: true, issues: [] } }],
    },
    { name: "narr", when: { system_contains: "You write the free-text description", last_user_regex: "# Anchor\\s+(\\S+ \\S+)" }, reply: { json: { event_narrative: COMPLETE } } },
    { name: "mnarr", when: { system_contains: "You write the first, incomplete report", last_user_regex: "# Anchor\\s+(\\S+ \\S+)" }, reply: { json: { event_narrative: MISSING } } },
    { name: "extr-missing", when: { system_contains: "You read a description", last_user_contains: "sent for imaging" }, reply: { json: { slot_values: VISIBLE } } },
    { name: "extr", when: { system_contains: "You read a description" }, reply: { json: { slot_values: SLOTS } } },
    { name: "nver", when: { system_contains: "kept the facts" }, reply: { json: { pass: true, issues: [] } } },
    // The clause screen finds the fall clause met, as the Reportable card requires.
    {
      name: "screen",
      when: { system_contains: "You screen one event's facts" },
      reply: {
        json: {
          clauses_met: [{ clause_id: "CareManagement_7_Fall", why: "a fall in care with a hip fracture" }],
          open_question: { present: false, section_id: null, why: null },
          verdict: "Reportable",
        },
      },
    },
    {
      name: "mver",
      when: { system_contains: "intentionally incomplete" },
      replies: [
        { json: { per_bc_check: [leakRow(false), minorFractureRow], pass: true, issues: [] } },
        { json: { per_bc_check: [leakRow(true), minorFractureRow], pass: false, issues: [LEAK] } },
      ],
    },
  ],
};

let mock: MockLlm;
let studio: OwnStudio;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await startStudio();
  mock = await startMockLlm(SCRIPT);
  await addMockModel(studio, mock, "writer");
  await addRemoteModel(studio, "cloud", true);
  await addRemoteModel(studio, "cloud-unpriced", false);
});

test.afterAll(() => {
  mock?.stop();
  studio?.stop();
});

test("plans a run with cost and asks before data leaves, then generates, retries and drops as scripted", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/generate`);
  await expect(page.getByRole("heading", { name: "Generate cases", level: 1 })).toBeVisible();

  // The pipeline, explained.
  const diagram = page.getByLabel("How a case is made");
  await expect(diagram.getByText("Fill in the facts")).toBeVisible();
  await expect(diagram.getByText("Check nothing withheld leaks")).toBeVisible();
  // One name per role: the checker of the incomplete report is named after its stage.
  await expect(diagram.getByText("Incomplete-report checker")).toBeVisible();
  await expect(diagram).not.toContainText("Missing-variant");
  await expect(diagram.getByText("Up to 3 attempts per stage.")).toBeVisible();
  await expect(diagram.getByText(/Quick checks in code come first/)).toBeVisible();

  // One chosen card, 2 anchors, one pair at a time.
  await page.getByLabel("Cards I choose").check();
  await page.getByLabel("Find cards").fill(CARD);
  await page.getByRole("checkbox", { name: new RegExp(`^${CARD}:`) }).check();
  await expect(page.getByText("1 card ticked")).toBeVisible();
  await page.getByLabel("Anchors per card").fill("2");
  await page.getByLabel("Work at once").fill("1");
  await page.getByLabel("Name (optional)").fill("Falls pilot");

  // A remote, priced writer: cost in dollars, and Start waits for a confirmation.
  await page.getByLabel("Writer model").selectOption("cloud");
  const plan = page.getByTestId("plan");
  await expect(plan.getByTestId("plan-candidates")).toHaveText("4");
  await expect(plan.getByTestId("plan-by-type")).toHaveText("2 complete2 missing information");
  const fallRow = plan.getByTestId("availability").getByRole("row", { name: new RegExp(FALL_TITLE) });
  await expect(fallRow.getByRole("cell").nth(2)).toHaveText("26");
  await expect(fallRow.getByRole("cell").nth(3)).toHaveText("2");
  await expect(plan.getByTestId("plan-cost")).toContainText("$");
  await expect(plan.getByTestId("plan-cost")).toContainText("estimated from the registered prices");
  await expect(plan.getByTestId("destinations").getByTitle("Requests leave this computer").first()).toBeVisible();
  const start = page.getByRole("button", { name: "Start generating 4 candidate cases" });
  await expect(start).toBeDisabled();
  const confirm = page.getByLabel(/I understand that card text, anchor text/);
  await confirm.check();
  await expect(start).toBeEnabled();

  // A remote writer without a price: the cost is unknown, and the confirmation is asked again.
  await page.getByLabel("Writer model").selectOption("cloud-unpriced");
  await expect(plan.getByTestId("plan-cost")).toContainText("unknown");
  await expect(plan.getByTestId("plan-cost")).toContainText("no price registered for cloud-unpriced");
  await expect(page.getByLabel(/I understand that card text, anchor text/)).not.toBeChecked();
  await expect(start).toBeDisabled();

  // The local mock model: nothing leaves the computer; start it.
  await page.getByLabel("Writer model").selectOption("writer");
  await expect(plan.getByTestId("plan-cost")).toContainText("$0");
  await expect(page.getByLabel(/I understand that card text, anchor text/)).toHaveCount(0);
  await expect(plan.getByTestId("destinations").getByTitle("Requests stay on this computer")).toHaveCount(3);
  await expect(start).toBeEnabled();
  await start.click();

  await expect(page).toHaveURL(/#\/generate\?run=gen/);
  await expect(page.getByRole("heading", { name: "Falls pilot", level: 1 })).toBeVisible();
  await expect(page.getByText("Finished.", { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(/3 cases accepted and added to the cases library; 1 dropped/)).toBeVisible();
  expect(errors).toEqual([]);
});

test("shows the run's statistics like the paper's tables", async ({ page }) => {
  const errors = watchErrors(page);
  const [run] = await studio.api("generation.list");
  await page.goto(`${studio.url}#/generate?run=${run.run_id}&tab=stats`);
  const success = page.getByTestId("success");
  await expect(success.getByRole("row", { name: /^Complete 2 2 0 100\.0%/ })).toBeVisible();
  await expect(success.getByRole("row", { name: /^Missing information 2 1 1 50\.0%/ })).toBeVisible();
  await expect(page.getByRole("img", { name: "Facts: 1st attempt: 1 (33.3%), 2nd attempt: 2 (66.7%), 3rd attempt: 0 (0.0%)" })).toBeVisible();
  await expect(page.getByRole("img", { name: /^Narrative: 1st attempt: 3 \(100\.0%\)/ })).toBeVisible();
  await expect(page.getByRole("img", { name: /^Incomplete report: 1st attempt: 1 \(100\.0%\)/ })).toBeVisible();
  await expect(page.getByTestId("lengths").getByRole("row", { name: /^Complete 2 / })).toBeVisible();
  await expect(page.getByRole("row", { name: /^Care Management 2 1 0 3$/ })).toBeVisible();
  await expect(page.getByRole("row", { name: /^18 Death or serious injury associated with a fall Care Management Events clause 7 2 1 0 3$/ })).toBeVisible();
  expect(errors).toEqual([]);
});

test("opens an accepted case with its provenance timeline and a dropped candidate with its reason", async ({ page }) => {
  const errors = watchErrors(page);
  const [run] = await studio.api("generation.list");
  await page.goto(`${studio.url}#/generate?run=${run.run_id}`);
  await page.getByLabel("Status").selectOption("accepted");
  await page.getByLabel("Case type").selectOption("missing");
  await expect(page.getByText("1 of 4 candidates")).toBeVisible();
  const row = page.getByRole("row", { name: /Accepted/ });
  await row.focus();
  await page.keyboard.press("Enter");

  const cand = page.getByTestId("candidate");
  await expect(cand.getByRole("heading", { name: /18\. Death or serious injury associated with a fall · incomplete first report/ })).toBeVisible();
  await expect(cand.getByText("Reportable").first()).toBeVisible();
  await expect(cand.getByText(/sent for imaging/).first()).toBeVisible();
  const facts = cand.getByTestId("facts");
  await expect(facts.getByText("Withheld from this report")).toHaveCount(3);
  await expect(facts.getByRole("row", { name: /injury diagnosis/ })).toContainText("Known only to the information provider: Displaced left femoral neck fracture");
  await expect(cand.getByRole("link", { name: `Open card ${CARD}` })).toHaveAttribute("href", `#/cards/${CARD}`);
  const caseId = (await cand.getByRole("link", { name: "Open the case" }).getAttribute("href"))!;
  expect(caseId).toMatch(/^#\/cases\/gen/);

  // Provenance: the shared facts stage failed once with the checker's issue, then passed; the
  // clause screen of the complete record is shared too.
  await cand.getByRole("tab", { name: /How it was made \(5 attempts\)/ }).click();
  const tl = cand.getByTestId("timeline");
  const facts1 = tl.getByTestId("attempt").first();
  await expect(tl.getByText("shared with its complete case").first()).toBeVisible();
  await expect(facts1).toContainText("Attempt 1");
  await expect(facts1).toContainText("Failed");
  await expect(facts1.getByText(FACTS_ISSUE, { exact: true })).toBeVisible();
  await expect(facts1).toContainText("These went back to the writer for the next attempt.");
  await expect(facts1.getByText("Fact writer", { exact: true })).toBeVisible();
  await expect(facts1.getByTitle("Prompt template and version").first()).toContainText(/^gen_instantiator@\w+/);
  await expect(facts1.getByText("Fact checker", { exact: true })).toBeVisible();
  await facts1.getByText("Request and response").first().click();
  await expect(facts1.getByText("Instructions (system message)").first()).toBeVisible();
  await expect(facts1.getByText(/You fill in the facts of one synthetic/).first()).toBeVisible();
  await expect(tl.getByTestId("attempt").nth(1)).toContainText("Passed");
  await expect(tl.getByText(/passed on attempt 2, after 1 failed attempt/).first()).toBeVisible();
  // The clause screen is numbered after the facts it read: its attempt 1 is shown as not run,
  // with the problems of the facts attempt that stopped it.
  const screen = tl.locator(".tl-stage", { hasText: "Clause screen" });
  await expect(screen.getByRole("heading")).toContainText("passed on attempt 2; attempt 1 not run");
  const notRun = screen.locator(".tl-not-run");
  await expect(notRun).toContainText("Not run");
  await expect(notRun).toContainText("Facts, attempt 1, failed its check, so there was nothing for the clause screen to read");
  await expect(notRun.getByText(FACTS_ISSUE, { exact: true })).toBeVisible();
  await expect(tl.locator(".badge", { hasText: "Still open" })).toHaveCount(2);

  // The same candidate on its own page.
  await cand.getByRole("link", { name: "Open on its own page" }).click();
  await expect(page).toHaveURL(/#\/generate\/case\/gen/);
  await expect(page.getByRole("heading", { name: "Generated case", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "← Back to the run" }).click();

  // The dropped candidate says where and why.
  await page.getByLabel("Case type").selectOption("");
  await page.getByLabel("Status").selectOption("dropped");
  await page.getByRole("row", { name: /Dropped/ }).click();
  const dropped = page.getByTestId("candidate");
  await expect(dropped.getByText("Dropped at “Incomplete report”.")).toBeVisible();
  await expect(dropped.getByTestId("drop-reason")).toContainText("All 3 attempts failed.");
  await expect(dropped.getByTestId("drop-reason")).toContainText(LEAK);
  await dropped.getByRole("tab", { name: /How it was made/ }).click();
  await expect(dropped.getByText("Leaked").first()).toBeVisible();
  await expect(dropped.getByText(/failed 3 of 3 attempts/)).toBeVisible();
  expect(errors).toEqual([]);
});

test("lists runs and shows the library statistics", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/generate?tab=runs`);
  const row = page.getByRole("row", { name: /Falls pilot/ });
  await expect(row).toContainText("Finished");
  await expect(row).toContainText("2 / 2");
  await row.press("Enter").catch(() => {});
  await page.goto(`${studio.url}#/generate?tab=library`);
  const lib = page.getByTestId("library-stats");
  await expect(lib.getByRole("heading", { name: "Cards by category and event type" })).toBeVisible();
  await expect(lib.getByRole("row", { name: /^Total/ }).first()).toBeVisible();
  await expect(lib.getByRole("link", { name: "Death or serious injury associated with a fall" })).toHaveAttribute("href", "#/cards?clause=CareManagement_7_Fall");
  expect(errors).toEqual([]);
});

test("the paper protocol is sent: its plan has no clause screen, and the run says it was made under it", async ({ page }) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/generate`);
  await page.getByLabel("Cards I choose").check();
  await page.getByLabel("Find cards").fill(CARD);
  await page.getByRole("checkbox", { name: new RegExp(`^${CARD}:`) }).check();
  await page.getByLabel("Anchors per card").fill("1");
  await page.getByLabel("Work at once").fill("1");
  await page.getByLabel("Name (optional)").fill("Paper pilot");
  await page.getByLabel("Writer model").selectOption("writer");
  const plan = page.getByTestId("plan");
  const protocol = page.getByRole("group", { name: "Protocol" });
  await expect(protocol.getByRole("radio", { name: /^Studio — / })).toBeChecked();
  await expect(plan.getByTestId("plan-protocol")).toContainText("Studio protocol");
  await expect(plan.getByTestId("destinations").getByRole("listitem")).toHaveCount(3);
  await expect(plan.getByTestId("destinations")).toContainText("Clause screen");
  await expect(page.getByLabel("Clause screen model")).toBeVisible();

  await protocol.getByRole("radio", { name: /^Paper — the paper's method only/ }).check();
  await expect(page.getByTestId("paper-note")).toContainText("No clause screen runs");
  await expect(page.getByLabel("Clause screen model")).toHaveCount(0);
  await expect(page.getByTestId("screen-not-used")).toContainText("Not used");
  await expect(plan.getByTestId("plan-protocol")).toContainText("Paper protocol");
  await expect(plan.getByTestId("plan-protocol")).toContainText("no clause screen");
  await expect(plan.getByTestId("destinations").getByRole("listitem")).toHaveCount(2);
  await expect(plan.getByTestId("destinations")).not.toContainText("Clause screen");

  await page.getByRole("button", { name: "Start generating 2 candidate cases" }).click();
  await expect(page.getByRole("heading", { name: "Paper pilot", level: 1 })).toBeVisible();
  await expect(page.getByText("Finished.", { exact: true })).toBeVisible({ timeout: 60_000 });
  const made = page.getByTestId("made-with");
  await expect(made.getByText("Paper protocol")).toBeVisible();
  await expect(made).toContainText("1 card");
  await made.getByText(/prompts, with their versions/).click();
  await expect(made.getByText("gen_instantiator")).toBeVisible();
  await expect(made.getByText("gen_clause_screen")).toHaveCount(0);
  await page.getByText("What this run was asked to do").click();
  await expect(page.getByText("not used (the paper protocol has no clause screen)")).toBeVisible();
  // No model call of this run went to the clause screen.
  const [run] = (await studio.api("generation.list")).filter((r) => r.label === "Paper pilot");
  const calls = await studio.api("calls.list", { run_id: run.run_id, item: null, step: null, attempt: null, role: null, offset: null, limit: null });
  expect(calls.length).toBeGreaterThan(0);
  expect(calls.filter((c) => c.stage === "clause_screen" || c.role === "clause_screen")).toEqual([]);
  expect(errors).toEqual([]);
});
