import { expect, test, watchErrors } from "./fixtures";

/** A card that passes the schema but names an element it does not define (rule bc-unknown-element). */
function brokenCard(id: string) {
  return {
    clause_card_id: id,
    clause_card_definition: "A patient is seriously harmed after a drug is given despite an allergy that was recorded before the dose.",
    clause_id: "CareManagement_1_MedicationError",
    event_type: "Reportable",
    fixed_fields: {
      governing_legal_basis: { meaning: "A medication error followed by serious harm.", value: ["Care Management Events clause 1", "General Recommendation 1"] },
      boundary_conditions: {
        serious_outcome_present: { value: true, meaning: "Death or serious injury followed.", corresponding_basic_event_elements: ["outcome_type"] },
        allergy_known_before_dose: { value: true, meaning: "The allergy was on record before the dose.", corresponding_basic_event_elements: ["allergy_recrd"] },
      },
    },
    basic_event_elements: {
      outcome_type: { field_type: "enum", meaning: "What happened to the patient.", allowed_content: "One of the values.", disallowed_content: "Minor outcomes.", allowed_values: ["death", "serious_injury"] },
      allergy_record: { field_type: "string", meaning: "Where the allergy was documented.", allowed_content: "Chart banner, pharmacy profile.", disallowed_content: "Verdict words." },
    },
    constraints_on_basic_event_elements_instantiation: ["Never write the word reportable in a slot or the narrative."],
  };
}

test("browse and filter the library; the clause filter comes from the address", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cards`);
  await expect(page.getByRole("heading", { name: "Card library", level: 1 })).toBeVisible();
  // The first listing of a new store lints the whole library (207 cards); in the tests' debug build
  // beside the Rust tests on two cores that has taken over 10 s (later listings reuse the report).
  await expect(page.getByText(/^\d+ cards$/)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Library check:")).toBeVisible();

  await page.getByLabel("Category").selectOption("Care Management");
  await page.getByLabel("Clause").selectOption({ label: "Medication error (Care Management Events clause 1)" });
  await expect(page.getByText(/Showing 10 of \d+ cards/)).toBeVisible();
  await page.getByLabel("Event type").selectOption("Reportable");
  await expect(page.getByText(/Showing 4 of \d+ cards/)).toBeVisible();
  await expect(page.locator("tbody tr")).toHaveCount(4);
  await expect(page.locator("tbody tr").first()).toContainText("Reportable");

  // Free-text search over ids and definitions; nothing matches → an empty state with a way out.
  await page.getByLabel("Search").fill("no-such-words-anywhere");
  await expect(page.getByRole("heading", { name: "No cards match these filters" })).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(page.getByText(/^\d+ cards$/)).toBeVisible();
  await expect(page.getByLabel("Search")).toHaveValue("");

  // Linked from the Policy page: the clause is preselected.
  await page.goto(`${studio.url}#/policy`);
  await page.getByRole("cell", { name: "Surgical Events clause 1" }).click();
  await page.getByRole("link", { name: "Cards for this clause" }).click();
  await expect(page).toHaveURL(/#\/cards\?clause=Surgical_1_WrongBodyPart/);
  await expect(page.getByLabel("Clause")).toHaveValue("Surgical_1_WrongBodyPart");
  await expect(page.getByText(/Showing \d+ of \d+ cards/)).toBeVisible();
  await expect(page.locator("tbody tr").first()).toContainText("Wrong body part");

  // Sorting by a column.
  await page.getByRole("button", { name: /Event type/ }).click();
  await expect(page.locator("th[aria-sort='ascending']")).toHaveCount(1);

  // Export what is shown.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: /Export \d+ shown/ }).click();
  expect((await download).suggestedFilename()).toBe("cards.jsonl");
  expect(errors).toEqual([]);
});

test("a card reads like a decision table with links to its facts and the policy", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cards?clause=CareManagement_1_MedicationError&type=Reportable`);
  // Keyboard: focus the first row and open it with Enter.
  const row = page.locator("tbody tr").filter({ has: page.getByText("CardRep_1_CareManagement_1", { exact: true }) });
  await row.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#\/cards\/CardRep_1_CareManagement_1/);
  await expect(page.getByRole("heading", { name: "Reportable card: Medication error", level: 1 })).toBeVisible();
  await expect(page.getByText("Built-in, audited by the PSEBench Studio team")).toBeVisible();

  const table = page.getByRole("table", { name: /Boundary conditions of the card/ });
  await expect(table.getByRole("rowheader", { name: /Serious injury or death present/ })).toBeVisible();
  await expect(table.getByText("holds").first()).toBeVisible();
  await expect(page.getByText("When every condition is as shown, the verdict is")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Legal basis" })).toBeVisible();

  // A fact chip opens the fact slot it names.
  await table.getByRole("button", { name: "outcome type" }).click();
  await expect(page).toHaveURL(/tab=elements/);
  await expect(page.getByRole("heading", { name: "Outcome type", level: 3 })).toBeVisible();
  await expect(page.locator(":focus")).toHaveAttribute("id", "el-outcome_type");

  // Tabs by arrow keys.
  await page.getByRole("tab", { name: /Fact slots/ }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("heading", { name: "Instantiation constraints" })).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByText("Why the rest cannot be classified").first()).toBeVisible();
  // Card ids named in a variant's reasoning are links.
  await expect(page.getByRole("link", { name: "CardNonrep_1_CareManagement_1" })).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByText("No problems found.")).toBeVisible();

  // The legal basis links into the Policy page.
  await page.getByRole("tab", { name: "Decision table" }).click();
  await page.getByRole("link", { name: /General Recommendation 3/ }).click();
  await expect(page).toHaveURL(/#\/policy\?tab=guidance&focus=General/);
  await expect(page.locator("section.card.focused")).toContainText("General Recommendation 3");

  // A card whose reading was doubted says why the library reads the clause that way (x_decision).
  await page.goto(`${studio.url}#/cards/CardRep_2_Surgical_1`);
  const why = page.getByRole("complementary", { name: "Why the card reads the clause this way" });
  await expect(why).toContainText("stays under Surgical Events clause 1");
  // A card without such a decision shows no note.
  await page.goto(`${studio.url}#/cards/CardRep_1_CareManagement_1`);
  await expect(page.getByRole("heading", { name: "Reportable card: Medication error", level: 1 })).toBeVisible();
  await expect(page.getByRole("complementary", { name: "Why the card reads the clause this way" })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("import a card, see its lint error, fix it in the editor, save and audit it", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const id = "CardRep_90_CareManagement_1";
  await page.goto(`${studio.url}#/cards`);
  await page.getByRole("button", { name: "Import cards…" }).click();
  const dialog = page.getByRole("dialog", { name: "Import clause cards" });
  await dialog.locator('input[type="file"]').setInputFiles({ name: "allergy-card.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(brokenCard(id), null, 2)) });
  await expect(dialog.getByText(/2 errors and 0 warnings found in 1 card/)).toBeVisible();
  await expect(dialog.getByText(/refers to an element "allergy_recrd" that this card does not define/)).toBeVisible();
  // The import needs a name.
  await expect(dialog.getByRole("button", { name: "Import as drafts" })).toBeDisabled();
  await dialog.getByLabel("Your name").fill("Dana Reyes");
  await dialog.getByRole("button", { name: "Import as drafts" }).click();
  await expect(dialog.getByText("Import finished.")).toBeVisible();
  await dialog.getByRole("link", { name: `Open ${id}` }).click();

  await expect(page.getByRole("heading", { name: "Reportable card: Medication error" })).toBeVisible();
  await expect(page.locator(".card-view-head .status-draft")).toContainText("Draft");
  await expect(page.getByRole("tab", { name: /Lint/ })).toContainText("2");

  // Approving is refused while the card has lint errors; the engine's sentence is shown.
  await page.getByRole("button", { name: "Record audit decision…" }).click();
  let audit = page.getByRole("dialog", { name: "Record an audit decision" });
  await audit.getByRole("radio", { name: /Approved/ }).check();
  await expect(audit.getByText("This card has 2 lint errors.")).toBeVisible();
  await audit.getByLabel("Auditor").fill("Dana Reyes");
  await audit.getByRole("button", { name: "Mark as approved" }).click();
  await expect(audit.getByRole("alert").filter({ hasText: "The decision was not recorded." })).toContainText("still has 2 lint errors, so");
  await audit.getByRole("button", { name: "Cancel" }).click();

  // The lint tab names the problem and leads to the editor.
  await page.getByRole("tab", { name: /Lint/ }).click();
  const finding = page.locator(".lint-item", { hasText: "allergy_recrd" });
  await expect(finding).toContainText("bc-unknown-element");
  await finding.getByRole("button", { name: "Fix in the editor" }).click();
  await expect(page).toHaveURL(/tab=edit/);
  // The editor opens as a form: the finding sits next to the condition's fact slots, where the cursor goes.
  const slots = page.getByTestId("card-form").getByRole("region", { name: /^Condition 2:/ }).getByRole("group", { name: "Fact slots that show whether it holds" });
  await expect(slots.getByText(/refers to an element "allergy_recrd"/)).toBeVisible();
  await expect(slots.getByRole("checkbox").first()).toBeFocused();
  // The same draft in the JSON view.
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  const editor = page.getByRole("textbox", { name: `Card document of ${id} (JSON)` });
  await expect(page.locator("#editor-status")).toContainText("2 errors");
  await expect(page.getByRole("button", { name: "Save as version 2" })).toBeDisabled();

  // Fix it: the live check clears, Save becomes possible.
  const text = await editor.inputValue();
  await editor.fill(text.replace('"allergy_recrd"', '"allergy_record"'));
  await expect(page.locator("#editor-status")).toContainText("No problems");
  await expect(page.getByLabel("Your name")).toHaveValue("Dana Reyes"); // remembered from the import
  await page.getByLabel("What changed (optional)").fill("Fixed the element name of the allergy condition");
  await expect(page.getByText("Saving creates version 2 and sets the card back to Draft")).toBeVisible();
  await page.getByRole("button", { name: "Save as version 2" }).click();
  await expect(page.getByText(`Saved version 2 of ${id}`)).toBeVisible();
  await expect(page.getByRole("tab", { name: /Lint/ })).toContainText("No problems");

  // Audit: approve.
  await page.getByRole("button", { name: "Record audit decision…" }).click();
  audit = page.getByRole("dialog", { name: "Record an audit decision" });
  await expect(audit.getByLabel("Auditor")).toHaveValue("Dana Reyes");
  await audit.getByRole("radio", { name: /Approved/ }).check();
  await audit.getByLabel("Notes (optional)").fill("Checked against clause 1 and GR 1.");
  await audit.getByRole("button", { name: "Mark as approved" }).click();
  await expect(audit).toBeHidden();
  await expect(page.locator(".card-view-head .status-approved")).toContainText("Approved");
  await expect(page.locator(".card-view-head")).toContainText("Approved by Dana Reyes");

  // History: both versions, the audit decision, and the difference marked with − and + (and the changed word).
  await page.getByRole("tab", { name: /History/ }).click();
  await expect(page.getByRole("cell", { name: "Fixed the element name of the allergy condition" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Checked against clause 1 and GR 1." })).toBeVisible();
  const diff = page.getByRole("table", { name: "Differences from version 1 to version 2" });
  // A one-word fix is one changed line, with the changed word marked on both sides.
  await expect(page.getByText("From version 1 to version 2: 1 line changed.")).toBeVisible();
  const removed = diff.locator(".diff-removed");
  const added = diff.locator(".diff-added");
  await expect(removed).toContainText('"allergy_recrd"');
  await expect(removed.locator(".diff-sign")).toContainText("−");
  await expect(added).toContainText('"allergy_record"');
  await expect(added.locator(".diff-sign")).toContainText("+");
  await expect(removed.locator("mark.diff-word")).toHaveText(["allergy_recrd"]);
  await expect(added.locator("mark.diff-word")).toHaveText(["allergy_record"]);

  // An older version can be viewed.
  await page.getByRole("link", { name: "View", exact: true }).click();
  await expect(page.getByText("You are looking at version 1, an older version.")).toBeVisible();
  await page.getByRole("link", { name: "Show the current version" }).click();
  await expect(page.getByText("an older version")).toBeHidden();
  expect(errors).toEqual([]);
});

test("unsaved edits hold navigation until the user decides; Esc closes dialogs", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cards/CardNonrep_1_CareManagement_1?tab=edit`);
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  const editor = page.getByRole("textbox", { name: /Card document of CardNonrep_1_CareManagement_1/ });
  await expect(page.getByText("This is a built-in card, audited by the PSEBench Studio team.")).toBeVisible();
  await editor.fill((await editor.inputValue()).replace('"value": false', '"value": true'));
  await expect(page.getByRole("tab", { name: /Edit/ })).toContainText("unsaved changes");

  // Leaving by a link asks first; Esc keeps the edits.
  await page.getByRole("link", { name: "Cases", exact: true }).click();
  const leave = page.getByRole("dialog", { name: "Leave without saving?" });
  await expect(leave).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(leave).toBeHidden();
  await expect(page).toHaveURL(/#\/cards\/CardNonrep_1_CareManagement_1/);
  // Other tabs of the same card keep the draft.
  await page.getByRole("tab", { name: "Decision table" }).click();
  await page.getByRole("tab", { name: /Edit/ }).click();
  await expect(editor).toHaveValue(/"value": true,\n\s+"meaning": "Judged/);

  // Keyboard: open the audit dialog with Enter, close it with Esc; focus returns to the button.
  const auditButton = page.getByRole("button", { name: "Record audit decision…" });
  await auditButton.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog", { name: "Record an audit decision" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Record an audit decision" })).toBeHidden();
  await expect(auditButton).toBeFocused();

  // Discard asks once, then the stored card is unchanged.
  await page.getByRole("button", { name: "Discard changes" }).click();
  await page.getByRole("dialog", { name: "Discard your changes?" }).getByRole("button", { name: "Discard changes" }).click();
  await expect(page.getByRole("tab", { name: "Decision table" })).toHaveAttribute("aria-selected", "true");
  await page.getByRole("link", { name: "Cases", exact: true }).click();
  await expect(page).toHaveURL(/#\/cases/);
  const stored = await studio.api("card.show", { card_id: "CardNonrep_1_CareManagement_1" });
  expect(stored.summary.version).toBe(1);
  expect(errors).toEqual([]);
});
