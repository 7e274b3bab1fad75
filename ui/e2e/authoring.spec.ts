// Authoring cards from a policy in the browser, on a policy pack of the user's own and a mock model:
// the extraction with its chosen sections and the model's check of its choice, approval refused without a name and then
// given; a complete-case draft read as a form, as JSON, with its problems and coverage; one draft
// rejected with a reason, the next accepted into the library; the accepted card audited and then
// approved by named people; and "Draft every clause" from its plan to a finished job.

import { expect, test, watchErrors } from "./fixtures";
import { addMockModel, addRemoteModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

const POLICY = "riverland-ae";
const FALL = "RL_Falls_1_LastingHarm";
const REP = "CardRep_1_Falls_1";
const NONREP = "CardNonrep_1_Falls_1";

const fallCard = (id: string, eventType: string, lasting: boolean) => ({
  clause_card_id: id,
  clause_card_definition: `A patient falls in the service's care and the harm ${lasting ? "still limits them" : "is gone"} a week later.`,
  clause_id: FALL,
  event_type: eventType,
  fixed_fields: {
    governing_legal_basis: { value: ["Falls clause 1", "Lasting harm"], meaning: "The clause needs harm lasting beyond a week." },
    boundary_conditions: {
      fall_in_care: { value: true, meaning: "The patient fell while in the service's care.", corresponding_basic_event_elements: ["fall_description"] },
      harm_lasting: { value: lasting, meaning: "Harm from the fall still limited the patient after seven days.", corresponding_basic_event_elements: ["harm_course"] },
    },
  },
  basic_event_elements: {
    fall_description: { field_type: "string", meaning: "How, where and when the patient fell.", allowed_content: "concrete circumstances", disallowed_content: "verdict words" },
    harm_course: { field_type: "string", meaning: "The harm the fall caused and how it developed over the following days.", allowed_content: "concrete course", disallowed_content: "verdict words" },
  },
  constraints_on_basic_event_elements_instantiation: ['No slot value and no sentence of the narrative may contain the words "reportable" or "non-reportable".'],
});

const uncertainCard = {
  clause_card_id: "CardUnc_1_Falls_1",
  clause_card_definition: "A patient falls during a home visit by staff, and it is unclear whether that counts as the service's care.",
  clause_id: FALL,
  event_type: "Uncertain",
  fixed_fields: {
    governing_legal_basis: { value: ["Falls clause 1", "Care of the service"], meaning: "The policy does not settle whether a home visit is care of the service." },
    boundary_conditions: {
      fall_in_care: { value: false, meaning: "The fall happened outside the premises, during a visit by staff.", corresponding_basic_event_elements: ["fall_description"] },
      harm_lasting: { value: true, meaning: "Harm from the fall still limited the patient after seven days.", corresponding_basic_event_elements: ["fall_description"] },
    },
  },
  basic_event_elements: {
    fall_description: { field_type: "string", meaning: "Where the patient fell, who was with them, and the harm a week later.", allowed_content: "concrete events", disallowed_content: "verdict words" },
  },
  constraints_on_basic_event_elements_instantiation: [
    'Never use the words "uncertain", "uncertainty", "indeterminate", "escalate", "escalation", "inconclusive", "reportable" or "non-reportable" in slot values or narrative.',
  ],
  x_open_question: { section_id: "Care of the service", question: "Is a home visit by staff care of the service when the fall happens in the patient's own house?" },
};

const MEDS = "RL_Meds_1_WrongPatient";

const SCRIPT = {
  rules: [
    {
      // Slow and never right, so that a "draft every clause" job can be stopped in the middle.
      name: "meds-slow",
      when: { system_contains: "You draft clause cards for a patient-safety test library", last_user_contains: "Medicines clause 1" },
      latency_ms: 1200,
      reply: { json: { target_clause_id: MEDS, clause_cards: [], self_check: [] } },
    },
    {
      name: "extract",
      when: { system_contains: "You help a compliance team build a library" },
      reply: { json: { relevant_sections: [{ section_id: "Lasting harm", criteria: ["defines_term"], why: "It says when harm counts as lasting." }] } },
    },
    {
      name: "check",
      when: { system_contains: "You review a selection of policy sections" },
      reply: { json: { add: [{ section_id: "Care of the service", reason: "It says when a patient is in the service's care." }], remove: [] } },
    },
    {
      name: "unc",
      when: { system_contains: "You draft Uncertain clause cards" },
      reply: { json: { target_clause_id: FALL, uncertain_cards: [uncertainCard], self_check: [{ check: "open question names a passage", passed: true, note: "" }] } },
    },
    {
      name: "variants",
      when: { system_contains: "You write missing-information variants" },
      reply: {
        json: {
          parent_card_id: REP,
          missing_information_variants: [
            {
              missing_variant_id: "missing_harm_course",
              summary: "The report describes the fall but not yet how the injury developed.",
              masked_boundary_conditions: ["harm_lasting"],
              masked_basic_event_elements: ["harm_course"],
              why_reasonable_in_real_world: "The first report is written on the day of the fall, before the week has passed.",
              why_not_classifiable_from_remaining_event_description: `The facts also fit ${NONREP}, where the harm is gone.`,
            },
          ],
        },
      },
    },
    {
      name: "complete",
      when: { system_contains: "You draft clause cards for a patient-safety test library" },
      reply: {
        json: {
          target_clause_id: FALL,
          clause_cards: [fallCard(REP, "Reportable", true), fallCard(NONREP, "Non_Reportable", false)],
          self_check: [{ check: "legal basis only from the passages", passed: true, note: "Both cards cite the clause and Lasting harm." }],
        },
      },
    },
  ],
};

let mock: MockLlm;
let studio: OwnStudio;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await startStudio();
  mock = await startMockLlm(SCRIPT);
  await addMockModel(studio, mock, "author");
  await addRemoteModel(studio, "cloud", true);
  await studio.api("policy.create", {
    id: POLICY,
    name: "Riverland adverse event rule",
    jurisdiction: "Riverland Health Authority",
    reporting_deadline: "within 10 working days of discovery",
    statute: "",
    clauses: [
      { clause_id: FALL, label: "Falls clause 1", category: "Falls", text: "A patient falls while in the care of the service and is left with harm lasting beyond a week.", short_title: "" },
      { clause_id: MEDS, label: "Medicines clause 1", category: "Medicines", text: "A medicine meant for one patient is given to another.", short_title: "" },
    ],
    guidance_markdown:
      "# Lasting harm\nHarm counts as lasting when it still limits the patient after seven days.\n\n# Care of the service\nAny time the patient is on the premises or with staff off site.\n",
  });
});

test.afterAll(() => {
  mock?.stop();
  studio?.stop();
});

test("extract, approve, draft, reject, accept, audit and approve, then draft every clause", async ({ page }) => {
  test.setTimeout(60_000);
  const errors = watchErrors(page);
  await page.addInitScript((id) => window.localStorage.setItem("psebench.policy", id), POLICY);
  await page.goto(`${studio.url}#/cards`);
  await page.getByRole("tab", { name: "Author from policy" }).click();
  await expect(page.getByText("Choose a clause to author")).toBeVisible();
  const falls = page.getByRole("button", { name: /Falls clause 1/ });
  await expect(falls).toContainText("No extraction yet");
  await falls.click();

  // Drafting waits for an approved extraction, and says so.
  await expect(page.getByRole("button", { name: "Draft complete-case cards" })).toBeDisabled();
  await expect(page.getByText(/Drafting starts from an approved extraction/)).toBeVisible();

  // A remote model asks before the policy text leaves; cancelled here.
  await page.getByLabel("Model").first().selectOption("cloud");
  await page.getByRole("button", { name: "Run extraction" }).click();
  const remote = page.getByRole("dialog", { name: "Send policy text to a remote model?" });
  await expect(remote).toContainText("outside this computer");
  await remote.getByRole("button", { name: "Cancel" }).click();
  await page.getByLabel("Model").first().selectOption("author");

  // The extraction: the chosen section highlighted with its reason, the model's check's suggestion.
  await page.getByRole("button", { name: "Run extraction" }).click();
  const x = page.getByTestId("extraction");
  await expect(x).toBeVisible();
  const lasting = x.locator('[data-section="Lasting harm"]');
  const care = x.locator('[data-section="Care of the service"]');
  await expect(lasting).toHaveClass(/sec-chosen/);
  await expect(lasting).toContainText("It says when harm counts as lasting.");
  await expect(care).not.toHaveClass(/sec-chosen/);
  await expect(lasting).toContainText("Defines a term — It says when harm counts as lasting.");
  await expect(lasting).not.toContainText("defines_term");
  await expect(care).toContainText("The model’s check suggests adding it: It says when a patient is in the service's care.");
  await expect(x.getByTestId("self-check")).toContainText("Add Care of the service");

  // Take the suggestion; approval needs a name.
  await care.getByRole("checkbox").check();
  await expect(care).toHaveClass(/sec-chosen/);
  const approve = x.getByRole("button", { name: "Approve extraction" });
  await x.getByLabel("Approved by").fill("");
  await expect(approve).toBeDisabled();
  await expect(x.getByText("Enter your name to approve: it is recorded with the decision.")).toBeVisible();
  await x.getByLabel("Approved by").fill("Dana Reviewer");
  await approve.click();
  await expect(x.getByText("Approved by Dana Reviewer")).toBeVisible();
  await expect(falls).toContainText("Extraction approved (version 1)");
  await x.getByText("The assembled document (what drafting reads)").click();
  await expect(x.getByText(/Policy passages for Falls clause 1/)).toBeVisible();

  // Draft complete-case cards: form, JSON, problems, self-check and coverage.
  await page.getByRole("button", { name: "Draft complete-case cards" }).click();
  const d = page.getByTestId("draft-view");
  await expect(d).toContainText("Waiting for review");
  await expect(d.locator(`[data-item="${REP}"]`)).toContainText("the harm still limits them a week later");
  await expect(d.locator(`[data-item="${NONREP}"]`)).toContainText("does not hold");
  await expect(lasting).toContainText("Cited by the draft");
  await d.getByRole("tab", { name: "JSON" }).click();
  await expect(d.locator("pre.json")).toContainText(`"clause_card_id": "${REP}"`);
  await d.getByRole("tab", { name: /Problems/ }).click();
  await expect(d.getByText(/No problems found|warning/).first()).toBeVisible();
  await d.getByRole("tab", { name: "Self-check" }).click();
  await expect(d.getByTestId("draft-self-check")).toContainText("legal basis only from the passages");
  await d.getByRole("tab", { name: "Coverage" }).click();
  const cov = d.getByTestId("coverage");
  await expect(cov).toContainText("2 of 4");
  await expect(cov.locator("tbody tr")).toHaveCount(2);

  // Reject: a name and a reason are required, and the reason is kept.
  await d.getByRole("button", { name: "Reject…" }).click();
  const rej = page.getByRole("dialog", { name: "Reject the draft" });
  await rej.getByLabel("Rejected by").fill("Dana Reviewer");
  await expect(rej.getByRole("button", { name: "Reject draft" })).toBeDisabled();
  await rej.getByLabel("Reason").fill("The definitions should name the seven days.");
  await rej.getByRole("button", { name: "Reject draft" }).click();
  await expect(rej).toBeHidden();
  await expect(d).toContainText("Reason: The definitions should name the seven days.");

  // A second draft is accepted into the library.
  await page.getByRole("button", { name: "Draft complete-case cards" }).click();
  await expect(d).toContainText("Waiting for review");
  await d.getByRole("button", { name: "Accept…" }).click();
  const acc = page.getByRole("dialog", { name: "Accept the draft" });
  await expect(acc.getByRole("checkbox")).toHaveCount(2);
  // The name typed to reject is offered to accept (the same role), and says so.
  await expect(acc.getByLabel("Accepted by")).toHaveValue("Dana Reviewer");
  await expect(acc.getByText("Filled in with the name you last used to accept or reject a draft. You can change it.")).toBeVisible();
  await acc.getByLabel("Accepted by").fill("Dana Reviewer");
  await acc.getByRole("button", { name: "Accept 2 cards" }).click();
  await expect(acc).toBeHidden();
  await d.getByRole("link", { name: REP }).click();

  // In the library as a draft; audited, then approved, each by a named person.
  await expect(page).toHaveURL(new RegExp(`#/cards/${REP}`));
  await expect(page.locator(".badge.status").first()).toContainText("Draft");
  await page.getByRole("button", { name: "Record audit decision…" }).click();
  let audit = page.getByRole("dialog", { name: "Record an audit decision" });
  // Nothing chosen beforehand; the approver's and the acceptor's name are not the auditor's.
  await expect(audit.getByRole("radio", { checked: true })).toHaveCount(0);
  await expect(audit.getByRole("button", { name: "Record the decision" })).toBeDisabled();
  await expect(audit.getByLabel("Auditor")).toHaveValue("");
  await audit.getByRole("radio", { name: /Audited/ }).check();
  await audit.getByLabel("Auditor").fill("Lee Auditor");
  await audit.getByRole("button", { name: "Mark as audited" }).click();
  await expect(audit).toBeHidden();
  await page.getByRole("button", { name: "Record audit decision…" }).click();
  audit = page.getByRole("dialog", { name: "Record an audit decision" });
  await audit.getByRole("radio", { name: /Approved/ }).check();
  await audit.getByLabel("Auditor").fill("Kim Approver");
  await audit.getByRole("button", { name: "Mark as approved" }).click();
  await expect(audit).toBeHidden();
  await expect(page.locator(".badge.status").first()).toContainText("Approved");

  // Missing-information variants for the approved card.
  await page.goto(`${studio.url}#/cards?view=author&aclause=${FALL}`);
  await page.getByLabel("Missing-information variants").check();
  await expect(page.getByText("Choose the card that the missing-information variants belong to.")).toBeVisible();
  await page.getByLabel("Parent card").selectOption(REP);
  await page.getByRole("button", { name: "Draft missing-information variants" }).click();
  await expect(d).toContainText(new RegExp(`Missing-information variants\\s*for ${REP}`));
  await expect(d.locator('[data-item="missing_harm_course"]')).toContainText("Conditions left unknownharm_lasting");

  // Draft every clause: the plan skips the clause without an approved extraction, then the job runs.
  await page.goto(`${studio.url}#/cards?view=author`);
  await page.getByRole("button", { name: "Draft every clause…" }).click();
  const all = page.getByRole("dialog", { name: "Draft every clause" });
  const plan = all.getByTestId("draft-all-plan");
  await expect(plan).toContainText("1 item to draft");
  await expect(plan.locator("tbody tr").filter({ hasText: "Medicines clause 1" }).first()).toContainText("skipped: no approved extraction");
  await expect(plan.locator("tbody tr").filter({ hasText: "Uncertain cards" }).filter({ hasText: "Falls clause 1" })).toContainText("to draft");
  await all.getByRole("button", { name: "Start drafting 1 item" }).click();
  const progress = all.getByTestId("draft-all-progress");
  await expect(progress).toContainText("Finished");
  await expect(progress).toContainText("1 drafted");
  await all.locator(".modal-foot").getByRole("button", { name: "Close" }).click();
  await expect(page.getByRole("button", { name: /Falls clause 1/ })).toContainText("4 drafts, 2 to review");

  // The job's Uncertain card: its open question, compared with the nearest library card, then an
  // edit without the open question is checked again and its new problem shown.
  await page.getByRole("button", { name: /Falls clause 1/ }).click();
  await expect(d).toContainText("Uncertain cards");
  await expect(d.getByTestId("open-question")).toContainText("Is a home visit by staff care of the service");
  await expect(care).toContainText("Cited by the draft");
  await d.getByRole("tab", { name: "Compare" }).click();
  await expect(d.getByTestId("draft-compare")).toContainText(/only in the draft/);
  await d.getByRole("button", { name: "Edit JSON…" }).click();
  const edit = page.getByRole("dialog", { name: "Edit the draft" });
  const { x_open_question: _dropped, ...withoutQuestion } = uncertainCard;
  await edit.getByLabel("Items (JSON)").fill("[{");
  await expect(edit.getByText(/This is not valid JSON yet/)).toBeVisible();
  await edit.getByLabel("Items (JSON)").fill(JSON.stringify([withoutQuestion], null, 2));
  await edit.getByLabel("Edited by").fill("Dana Reviewer");
  await edit.getByRole("button", { name: "Save and check" }).click();
  await expect(edit.getByTestId("edit-result")).toContainText("draft-open-question");
  await edit.locator(".modal-foot").getByRole("button", { name: "Close" }).click();
  await expect(d).toContainText("Has errors");
  await expect(d).toContainText("Edited by Dana Reviewer");
  expect(errors).toEqual([]);
});

test("a drafting job stopped in the middle is resumed and finishes", async ({ page }) => {
  const errors = watchErrors(page);
  const x = await studio.api("authoring.extract", { policy: POLICY, clause: MEDS, model: "author" });
  await studio.api("authoring.approve", { extraction_id: x.extraction_id, approved_by: "Dana Reviewer", sections: x.sections.map((s) => s.section_id), notes: null });
  await page.addInitScript((id) => window.localStorage.setItem("psebench.policy", id), POLICY);
  await page.goto(`${studio.url}#/cards?view=author`);
  await page.getByRole("button", { name: "Draft every clause…" }).click();
  const all = page.getByRole("dialog", { name: "Draft every clause" });
  await expect(all.getByTestId("draft-all-plan")).toContainText("2 items to draft");
  await all.getByRole("button", { name: "Start drafting 2 items" }).click();
  const progress = all.getByTestId("draft-all-progress");
  await expect(progress).toContainText("Running");
  await progress.getByRole("button", { name: "Stop" }).click();
  await page.getByRole("dialog", { name: "Stop this run?" }).getByRole("button", { name: "Stop the run" }).click();
  await expect(progress).toContainText("Stopped");
  await progress.getByRole("button", { name: "Resume" }).click();
  await expect(progress).toContainText("Finished", { timeout: 20_000 });
  await expect(progress).toContainText("2 not drafted");
  await all.locator(".modal-foot").getByRole("button", { name: "Close" }).click();
  await expect(page.getByRole("button", { name: /Medicines clause 1/ })).toContainText("2 drafts, 2 to review");
  expect(errors).toEqual([]);
});
