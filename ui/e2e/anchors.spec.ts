// The Anchors page in a real browser: buckets and filters over the 754 built-in samples, imports
// (JSONL and .txt files) with duplicates reported, an all-or-nothing error, moving an anchor by
// hand, a topical pre-sort and a translation through a scripted mock model, and removal.

import { expect, test, watchErrors } from "./fixtures";
import { addMockModel, addRemoteModel, MockLlm, OwnStudio, startMockLlm, startStudio } from "./mockllm";

const FALL = "CareManagement_7_Fall";
const JA_TEXT = "夜間、患者がベッドから転倒し、左大腿骨頸部を骨折した。整形外科で手術を受けた。";

const SCRIPT = {
  rules: [
    {
      name: "presort",
      when: { system_contains: "You sort short healthcare incident texts by topic" },
      reply: { json: { clause_id: FALL, reason: "The report describes a patient who fell out of bed." } },
    },
    {
      name: "translate",
      when: { system_contains: "You translate healthcare incident reports into English" },
      reply: { json: { translation: "At night the patient fell out of bed and broke the left femoral neck. Orthopaedics operated." } },
    },
  ],
};

let mock: MockLlm;
let studio: OwnStudio;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  studio = await startStudio();
  mock = await startMockLlm(SCRIPT);
  await addMockModel(studio, mock, "sorter");
  await addRemoteModel(studio, "cloud");
});

test.afterAll(() => {
  mock?.stop();
  studio?.stop();
});

test("buckets show the clauses and filter the anchor list", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/anchors`);
  await expect(page.getByRole("heading", { name: "Anchors", level: 1 })).toBeVisible();
  await expect(page.getByText(/An anchor is a de-identified incident report/)).toBeVisible();
  await expect(page.getByText("754 anchors", { exact: true })).toBeVisible();
  await expect(page.getByText("Every clause has at least 25 anchors.")).toBeVisible();

  // The target changes what counts as "enough".
  await page.getByLabel("Anchors per card").fill("30");
  await expect(page.getByText("29 clauses have fewer than 30 anchors")).toBeVisible();
  await page.getByLabel("Anchors per card").fill("25");

  // A bucket filters the list, and the filter is in the address.
  await page.getByRole("button", { name: /^18\. Death or serious injury associated with a fall .*: 26 anchors/ }).click();
  await expect(page).toHaveURL(new RegExp(`clause=${FALL}`));
  await expect(page.getByText("26 anchors match, of 754")).toBeVisible();
  await expect(page.getByLabel("Bucket", { exact: true })).toHaveValue(FALL);

  // Text search over the whole text, combined with the bucket.
  await page.getByLabel("Search the text").fill("left leg shortened");
  await expect(page.getByText("1 anchor match, of 754")).toBeVisible();
  const row = page.getByRole("row", { name: /syn_CareManagement_7_Fall_1/ });
  await row.focus();
  await page.keyboard.press("Enter");
  const preview = page.getByRole("region", { name: "Anchor syn_CareManagement_7_Fall_1" });
  await expect(preview.getByText(/Complained of left hip pain/)).toBeVisible();
  await expect(preview.getByText("Bucket of the built-in sample")).toBeVisible();
  await expect(preview.getByText("Content hash")).toBeVisible();
  await expect(preview.getByTitle("A synthetic sample that comes with the app")).toBeVisible();
  await preview.getByRole("button", { name: "Close the preview" }).click();
  await expect(preview).toHaveCount(0);

  // Origin and language filters; clearing brings everything back.
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page.getByText("754 anchors", { exact: true })).toBeVisible();
  await page.getByLabel("Origin").selectOption("imported");
  await expect(page.getByText("No anchor matches these filters")).toBeVisible();
  await page.getByLabel("Origin").selectOption("builtin");
  await expect(page.getByText("754 anchors match, of 754")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).click();
  expect(errors).toEqual([]);
});

test("imports JSONL and text files, reports duplicates, and imports nothing from a broken file", async ({ page }) => {
  const errors = watchErrors(page);
  const builtin = await studio.api("anchor.show", { anchor_id: "syn_CareManagement_7_Fall_2" });
  await page.goto(`${studio.url}#/anchors`);

  // JSONL: one new report (in the fall bucket) and a copy of a built-in sample with other spacing.
  await page.getByRole("button", { name: "Import anchors…" }).click();
  let dialog = page.getByRole("dialog", { name: "Import anchors" });
  const jsonl = [
    JSON.stringify({ anchor_id: "e2e-1", text: "Ward 3B, 04:10. Patient found sitting on the floor of the shower room after slipping on a wet tile.", source: "our reports", clause_id: FALL }),
    JSON.stringify({ anchor_id: "e2e-copy", text: `  ${builtin.text.replace(/ /g, "  ")}` }),
  ].join("\n");
  await dialog.locator('input[type="file"]').setInputFiles({ name: "reports.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(jsonl) });
  await expect(dialog.getByText("Selected: reports.jsonl (1 file)")).toBeVisible();
  await dialog.getByRole("button", { name: "Import", exact: true }).click();
  let result = dialog.getByTestId("import-result");
  await expect(result.getByText("Added 1 anchor.")).toBeVisible();
  await expect(result.getByText("Skipped 1 duplicate: the same text is already stored.")).toBeVisible();
  await expect(result.getByText("reports.jsonl:2 (e2e-copy) has the same text as syn_CareManagement_7_Fall_2.")).toBeVisible();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);

  // Two .txt files: a Japanese report (no bucket) and a copy of the one just imported.
  await page.getByRole("button", { name: "Import anchors…" }).click();
  dialog = page.getByRole("dialog", { name: "Import anchors" });
  await dialog.locator('input[type="file"]').setInputFiles([
    { name: "report-ja.txt", mimeType: "text/plain", buffer: Buffer.from(JA_TEXT) },
    { name: "again.txt", mimeType: "text/plain", buffer: Buffer.from("Ward 3B, 04:10. Patient found sitting on the floor of the shower room after slipping on a wet tile.\n") },
  ]);
  await dialog.getByLabel("Language").fill("ja");
  await dialog.getByLabel("Source").fill("JQ sample");
  await dialog.getByRole("button", { name: "Import 2 files" }).click();
  result = dialog.getByTestId("import-result");
  await expect(result.getByText(/Added 1 anchor\./)).toBeVisible();
  await expect(result.getByText(/1 new anchor is not sorted into a clause yet/)).toBeVisible();
  await expect(result.getByText(/has the same text as e2e-1\./)).toBeVisible();
  await dialog.getByRole("button", { name: "Show the new anchors" }).click();
  await expect(page.getByLabel("Origin")).toHaveValue("imported");
  await expect(page.getByText("2 anchors match, of 756")).toBeVisible();
  const preview = page.getByRole("region", { name: "Anchor report-ja" });
  await expect(preview.getByText(JA_TEXT)).toBeVisible();
  await expect(preview.getByText("Japanese (ja)")).toBeVisible();
  await expect(preview.getByText("JQ sample")).toBeVisible();

  // A broken line: the whole file is refused and the problem is named.
  await page.getByRole("button", { name: "Import anchors…" }).click();
  dialog = page.getByRole("dialog", { name: "Import anchors" });
  await dialog.locator('input[type="file"]').setInputFiles({ name: "bad.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from('{"text": "A fine report about a fall on the stairs."}\n{"anchor_id": "x"}\n') });
  await dialog.getByRole("button", { name: "Import", exact: true }).click();
  await expect(dialog.getByRole("alert").getByText("Nothing was imported.")).toBeVisible();
  await expect(dialog.getByText(/bad.jsonl: 1 problem found, so no anchor was imported. First: bad.jsonl:2: "text" is missing/)).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  expect((await studio.api("anchors.list", { clause_id: null, origin: "imported", unbucketed_only: false, language: null })).length).toBe(2);
  expect(errors).toEqual([]);
});

test("pre-sorts an unsorted anchor with a model and translates it, keeping the original", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/anchors?clause=unsorted`);
  await expect(page.getByText("1 anchor match, of 756")).toBeVisible();
  await page.getByRole("button", { name: "Sort with a model…" }).click();
  const dialog = page.getByRole("dialog", { name: "Sort anchors into buckets with a model" });
  await expect(dialog.getByText("A sort by topic, not a judgement.")).toBeVisible();
  await expect(dialog.getByText(/does not decide whether anything is reportable/)).toBeVisible();

  // A remote model needs a confirmation before anything is sent.
  await dialog.getByLabel("Model").selectOption("cloud");
  await expect(dialog.getByTestId("destination").getByTitle("Requests leave this computer")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Sort 1 anchor" })).toBeDisabled();
  await expect(dialog.getByLabel("I understand that this anchor text leaves this computer.")).toBeVisible();

  // The local mock model: no confirmation needed.
  await dialog.getByLabel("Model").selectOption("sorter");
  await expect(dialog.getByTestId("destination").getByTitle("Requests stay on this computer")).toBeVisible();
  await expect(dialog.getByLabel("Not sorted yet (1)")).toBeChecked();
  await dialog.getByRole("button", { name: "Sort 1 anchor" }).click();
  const res = dialog.getByTestId("batch-result");
  await expect(res.getByText(/1 anchor processed, 1 moved to a new bucket/)).toBeVisible();
  const row = res.getByRole("row", { name: /report-ja/ });
  await expect(row.getByText("Changed")).toBeVisible();
  await expect(row.getByText("18. Death or serious injury associated with a fall")).toBeVisible();
  await expect(row.getByText("The report describes a patient who fell out of bed.")).toBeVisible();
  await row.click(); // opens the anchor
  await expect(dialog).toHaveCount(0);
  const preview = page.getByRole("region", { name: "Anchor report-ja" });
  await expect(preview.getByText("Sorted by a model: “The report describes a patient who fell out of bed.”")).toBeVisible();

  // Translation keeps the original.
  await page.getByRole("button", { name: "Translate to English…" }).click();
  const tr = page.getByRole("dialog", { name: "Translate anchors to English" });
  await expect(tr.getByText("The original is kept.")).toBeVisible();
  await tr.getByLabel("Model").selectOption("sorter");
  await tr.getByRole("button", { name: "Translate 1 anchor" }).click();
  await expect(tr.getByTestId("batch-result").getByText(/1 anchor processed, 1 translated/)).toBeVisible();
  await tr.getByRole("button", { name: "Done" }).click();
  await expect(preview.getByText(/At night the patient fell out of bed/)).toBeVisible();
  await expect(preview.getByText(/translated from Japanese \(ja\) by sorter/)).toBeVisible();
  await preview.getByText(/Show the text as imported/).click();
  await expect(preview.getByText(JA_TEXT)).toBeVisible();
  expect(errors).toEqual([]);
});

test("moves an anchor to another bucket by hand and removes selected anchors", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/anchors?anchor=e2e-1`);
  const preview = page.getByRole("region", { name: "Anchor e2e-1" });
  await expect(preview.getByText("Bucket named in the imported file")).toBeVisible();
  await preview.getByRole("button", { name: "Move to bucket…" }).click();
  const dialog = page.getByRole("dialog", { name: "Move to a bucket" });
  await dialog.getByLabel("Find a clause").fill("medication");
  await dialog.getByRole("radio", { name: /12\. Medication error/ }).check();
  await dialog.getByRole("button", { name: "Move" }).click();
  await expect(page.getByText("Moved e2e-1 to 12. Medication error.")).toBeVisible();
  await expect(preview.getByText("Bucket set by a person")).toBeVisible();
  await expect(preview.getByText("12. Medication error")).toBeVisible();
  expect((await studio.api("anchor.show", { anchor_id: "e2e-1" })).clause_id).toBe("CareManagement_1_MedicationError");

  // Select two anchors and remove them (asked once).
  await page.getByLabel("Origin").selectOption("imported");
  await page.getByLabel("Select e2e-1").check();
  await page.getByLabel("Select report-ja").check();
  await expect(page.getByText("2 selected")).toBeVisible();
  await page.getByRole("button", { name: "Remove selected…" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove 2 anchors?" });
  await expect(confirm.getByText(/cannot be undone/)).toBeVisible();
  await confirm.getByRole("button", { name: "Remove 2 anchors" }).click();
  await expect(page.getByText("Removed 2 anchors.")).toBeVisible();
  await expect(page.getByText("No anchor matches these filters")).toBeVisible();
  expect(errors).toEqual([]);
});
