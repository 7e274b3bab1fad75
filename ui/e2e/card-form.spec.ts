// The card editor's form: editing a condition and a rule, the engine's findings next to the
// field, saving a version, and the same change in the JSON view. Then the form on a live page:
// changes made elsewhere never reset what the user typed, and a newer version of the same card is
// announced instead of being overwritten.

import { Page } from "@playwright/test";
import { expect, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

const ID = "CardNonrep_1_CareManagement_1";

function form(page: Page) {
  return page.getByTestId("card-form");
}

test("edit a built-in card in the form: the checks point at the field, errors block saving, the change is saved and shows in the JSON view", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cards/${ID}`);
  await page.getByRole("button", { name: "Edit card" }).click();

  // The form is the default view.
  await expect(page.getByRole("button", { name: "Form", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(form(page).getByText("Non-reportable", { exact: true })).toBeVisible();
  const condition = form(page).getByRole("region", { name: /^Condition 1:/ });
  const meaning = condition.getByLabel("What it means");
  await expect(meaning).toHaveValue(/\S/);
  await expect(page.locator("#editor-status")).toContainText("No problems");

  // Emptying a required value: the engine's finding appears next to that field and Save is blocked.
  await meaning.fill("");
  await expect(condition.getByTestId("field-findings")).toContainText("must not be empty");
  await expect(page.locator("#editor-status")).toContainText("1 error");
  await page.getByLabel("Your name").fill("Dana Reyes");
  await expect(page.getByRole("button", { name: "Save as version 2" })).toBeDisabled();
  await expect(page.getByText("Fix the error first.")).toBeVisible();

  // Fix it with new wording, and edit a rule for generated cases.
  const newMeaning = "True when the drug, dose, route or timing that reached the patient differed from the order (reworded in the form).";
  await meaning.fill(newMeaning);
  const rules = form(page).getByRole("region", { name: "Rules for generated cases" });
  const rule = rules.getByLabel("Rule 1", { exact: true });
  const newRule = "error_description names the step where the order and the administration parted (edited in the form).";
  await rule.fill(newRule);
  await expect(condition.getByTestId("field-findings")).toHaveCount(0);
  await expect(page.locator("#editor-status")).toContainText("No problems");

  // A rule can be added, moved and removed with named buttons.
  const ruleCount = await rules.getByRole("listitem").count();
  await rules.getByRole("button", { name: "+ Add a rule" }).click();
  await expect(rules.getByLabel(`Rule ${ruleCount + 1}`, { exact: true })).toBeFocused();
  await rules.getByLabel(`Rule ${ruleCount + 1}`, { exact: true }).fill("A rule added for a moment.");
  await rules.getByRole("button", { name: `Move rule ${ruleCount + 1} up` }).click();
  await expect(rules.getByLabel(`Rule ${ruleCount}`, { exact: true })).toHaveValue("A rule added for a moment.");
  await rules.getByRole("button", { name: `Remove rule ${ruleCount}` }).click();
  await expect(rules.getByRole("listitem")).toHaveCount(ruleCount);
  await expect(rules.getByLabel("Rule 1", { exact: true })).toHaveValue(newRule);

  // Save with a note; the new version is in the history.
  await expect(page.locator("#editor-status")).toContainText("No problems");
  await page.getByLabel("What changed (optional)").fill("Reworded the first condition and rule in the form");
  await page.getByRole("button", { name: "Save as version 2" }).click();
  await expect(page.getByText(`Saved version 2 of ${ID}`)).toBeVisible();
  await page.getByRole("tab", { name: /History/ }).click();
  await expect(page.getByRole("cell", { name: "Reworded the first condition and rule in the form" })).toBeVisible();

  // The JSON view shows the same card, with both changes; the choice of view is remembered.
  await page.getByRole("tab", { name: /Edit/ }).click();
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  const json = page.getByRole("textbox", { name: `Card document of ${ID} (JSON)` });
  await expect(json).toHaveValue(new RegExp(`"meaning": "${newMeaning.replace(/[()]/g, "\\$&")}"`));
  await expect(json).toHaveValue(new RegExp(newRule.replace(/[()]/g, "\\$&")));
  await expect(json).toHaveValue(/"x_ruled_out": \{/); // fields the form does not edit are kept
  await page.reload();
  await expect(page.getByRole("button", { name: "JSON", exact: true })).toHaveAttribute("aria-pressed", "true");
  // Back to the form for the next test.
  await page.getByRole("button", { name: "Form", exact: true }).click();
  expect(errors).toEqual([]);
});

test("a JSON text the form cannot read is kept, and the form says so", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cards/${ID}?tab=edit`);
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  const json = page.getByRole("textbox", { name: `Card document of ${ID} (JSON)` });
  const text = await json.inputValue();
  const broken = text.replace('"clause_id":', '"clause_id"');
  await json.fill(broken);
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByText("The form cannot show this text.")).toBeVisible();
  await page.getByRole("button", { name: "Go back to the JSON view to fix it" }).click();
  await expect(json).toHaveValue(broken);
  await json.fill(text);
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(form(page)).toBeVisible();
  expect(errors).toEqual([]);
});

test("what the user typed survives changes made elsewhere; a newer version of the same card is announced", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/cards/${ID}?tab=edit`);
  const definition = form(page).getByLabel("Definition: which events belong to this card");
  const typed = "Typed in the form before anything changed elsewhere.";
  await definition.fill(typed);
  const rule = form(page).getByRole("region", { name: "Rules for generated cases" }).getByLabel("Rule 2", { exact: true });
  await rule.fill("A rule typed in the form.");

  // Another card changes (as another window or script would): the page fetches the card again.
  const refetched = page.waitForResponse((r) => r.url().endsWith("/api/card.show"));
  await studio.api("card.audit", { card_id: "CardRep_1_CareManagement_1", status: "draft", auditor: "Sam Other", notes: "changed elsewhere" });
  await refetched;
  await expect(definition).toHaveValue(typed);
  await expect(rule).toHaveValue("A rule typed in the form.");
  await expect(page.getByText("This card changed since you started editing.")).toHaveCount(0);
  // The page still works: more typing is checked.
  await definition.fill(`${typed} And more.`);
  await expect(page.locator("#editor-status")).toContainText("No problems");

  // The same card gets a newer version from elsewhere (another process on the HTTP API).
  const stored = await studio.api("card.show", { card_id: ID });
  const theirs = { ...(stored.card as Record<string, unknown>), clause_card_definition: "Their wording, saved elsewhere." };
  await studio.api("card.save", { card_id: ID, json: JSON.stringify(theirs, null, 2), author: "Sam Other", note: "saved elsewhere" });
  const notice = page.getByRole("alert").filter({ hasText: "This card changed since you started editing." });
  await expect(notice).toContainText(`Sam Other saved version ${stored.summary.version + 1}`);
  await expect(definition).toHaveValue(`${typed} And more.`);
  await expect(rule).toHaveValue("A rule typed in the form.");
  await page.getByLabel("Your name").fill("Dana Reyes");
  const next = stored.summary.version + 2;
  await expect(page.getByRole("button", { name: `Save as version ${next}` })).toBeDisabled();
  await expect(page.getByText("Someone else saved this card since you started")).toBeVisible();

  // The user decides to keep their edits; saving then makes the next version on top of theirs.
  await notice.getByRole("button", { name: /Keep my edits/ }).click();
  await expect(notice).toBeHidden();
  await page.getByRole("button", { name: `Save as version ${next}` }).click();
  await expect(page.getByText(`Saved version ${next} of ${ID}`)).toBeVisible();
  const after = await studio.api("card.show", { card_id: ID });
  expect((after.card as Record<string, unknown>).clause_card_definition).toBe(`${typed} And more.`);
  expect(after.versions.map((v) => v.author)).toContain("Sam Other");
  expect(errors).toEqual([]);
});
