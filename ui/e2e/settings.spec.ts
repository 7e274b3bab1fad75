import { expect, test, watchErrors } from "./fixtures";

test.describe.configure({ mode: "serial" });

test("add a local model through the form, test it, edit and remove it", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/settings`);
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await expect(page.getByText("No models yet")).toBeVisible();

  await page.getByRole("button", { name: "Add a model" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a model" });
  await expect(dialog).toBeVisible();
  // Saving an empty form explains what is missing instead of failing.
  await dialog.getByRole("button", { name: "Add model" }).click();
  await expect(dialog.getByText("This provider needs the server's address.")).toBeVisible();
  // The usual local addresses are one click away.
  await dialog.getByRole("button", { name: /Ollama/ }).click();
  await expect(dialog.getByLabel("Server address (base URL)")).toHaveValue("http://localhost:11434/v1");
  await dialog.getByLabel("Name in PSEBench Studio").fill("local-asker");
  await dialog.getByLabel("Model id").fill("asker");
  await dialog.getByLabel("Server address (base URL)").fill(studio.mockBase);
  await expect(dialog.getByText(/Case text stays with 127\.0\.0\.1/)).toBeVisible();
  await dialog.getByLabel("Price of input ($ per million tokens)").fill("0.5");
  await dialog.getByRole("button", { name: "Add model" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Added local-asker.")).toBeVisible();

  const row = page.getByRole("row", { name: /local-asker/ });
  await expect(row.getByText("On this computer")).toBeVisible();
  await expect(row.getByText("No key")).toBeVisible();
  await expect(row.getByText("$0.50 in · – out")).toBeVisible();

  // Test: one short real call to the mock provider.
  await page.getByRole("button", { name: "Test local-asker" }).click();
  await expect(page.getByText("It answered")).toBeVisible();
  await expect(page.getByText(/Reply: .*ASK/)).toBeVisible();

  // Edit keeps the name and changes the price.
  await page.getByRole("button", { name: "Edit local-asker" }).click();
  const edit = page.getByRole("dialog", { name: "Edit local-asker" });
  await edit.getByLabel("Price of output ($ per million tokens)").fill("2");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toBeHidden();
  await expect(row.getByText("$0.50 in · $2.00 out")).toBeVisible();

  // Remove asks first.
  await page.getByRole("button", { name: "Remove local-asker" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove local-asker?" });
  await expect(confirm.getByText(/keep their results/)).toBeVisible();
  await confirm.getByRole("button", { name: "Remove the model" }).click();
  await expect(page.getByText("No models yet")).toBeVisible();
  expect(errors).toEqual([]);
});

test("a remote model is marked as remote, and a key is never shown", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await page.goto(`${studio.url}#/settings`);
  await page.getByRole("button", { name: "Add a model" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add a model" });
  await dialog.getByLabel("Provider kind").selectOption("openai");
  await dialog.getByLabel("Name in PSEBench Studio").fill("cloud-gpt");
  await dialog.getByLabel("Model id").fill("gpt-4o-mini");
  await expect(dialog.getByText(/Case text will be sent to api\.openai\.com/)).toBeVisible();
  await dialog.getByLabel("Read it from an environment variable").check();
  await dialog.getByLabel("Environment variable name").fill("OPENAI_API_KEY");
  await dialog.getByRole("button", { name: "Add model" }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole("row", { name: /cloud-gpt/ });
  await expect(row.getByText("Remote")).toBeVisible();
  await expect(row.getByText("api.openai.com")).toBeVisible();
  await expect(row.getByText("Environment variable")).toBeVisible();
  await expect(row.getByText("OPENAI_API_KEY")).toBeVisible();
  await expect(page.getByText("1 model is remote.")).toBeVisible();

  // A key typed into the form goes to the keyring (unavailable here): the error is a sentence and nothing is saved.
  await page.getByRole("button", { name: "Edit cloud-gpt" }).click();
  const edit = page.getByRole("dialog", { name: "Edit cloud-gpt" });
  await edit.getByLabel("Store a key in this computer's keyring").check();
  await edit.getByLabel("API key").fill("sk-secret-123");
  await expect(edit.getByLabel("API key")).toHaveAttribute("type", "password");
  await edit.getByRole("button", { name: "Save changes" }).click();
  const outcome = await Promise.race([
    edit.getByRole("alert").first().waitFor().then(() => "error" as const),
    edit.waitFor({ state: "hidden" }).then(() => "saved" as const),
  ]);
  if (outcome === "saved") {
    // A keyring is available on this machine: the key is stored and only its presence is shown.
    await expect(row.getByText("A key is stored in the keyring")).toBeVisible();
  } else {
    await expect(edit.getByText(/No keyring on this computer|The model was not saved/)).toBeVisible();
    await edit.getByRole("button", { name: "Cancel" }).click();
  }
  await expect(page.getByText("sk-secret-123")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("data: store location, cache and usage; appearance: theme", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("model.add", { name: "answerer", kind: "openai-compatible", model: "answerer", base_url: studio.mockBase, local: false });
  await studio.api("model.test", { name: "answerer" });
  await page.goto(`${studio.url}#/settings?tab=data`);
  await expect(page.getByRole("heading", { name: "Where your data lives" })).toBeVisible();
  await expect(page.getByText("store.db")).toBeVisible();
  // The log folder sits next to the database file.
  const store = await studio.api("store.info", {});
  expect(store.log_folder.startsWith(store.path.replace(/store\.db$/, ""))).toBe(true);
  await expect(page.getByText(store.log_folder, { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: `Copy path ${store.log_folder}` })).toBeVisible();
  await expect(page.getByText("replies stored")).toBeVisible();
  await expect(page.getByRole("cell", { name: "Model tests" }).first()).toBeVisible();
  await expect(page.getByRole("row", { name: /Total/ })).toBeVisible();

  await page.getByRole("tab", { name: "Appearance" }).click();
  await page.getByLabel(/^Dark/).check();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.getByLabel(/^Same as this computer/).check();
  // "Same as this computer" follows the OS setting: light in this browser, dark when the OS is dark.
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(errors).toEqual([]);
});

test("moving a model to another server drops its key link until it is confirmed", async ({ page, studio }) => {
  const errors = watchErrors(page);
  await studio.api("model.add", { name: "moving", kind: "openai-compatible", model: "m", base_url: "https://one.example.com/v1", api_key_env: "MOVING_KEY", local: false });
  await page.goto(`${studio.url}#/settings`);
  await page.getByRole("button", { name: "Edit moving" }).click();
  const edit = page.getByRole("dialog", { name: "Edit moving" });
  await edit.getByLabel("Server address (base URL)").fill("https://two.example.com/v1");
  await expect(edit.getByText(/will not be sent there unless you confirm it/)).toBeVisible();
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toBeHidden();
  const row = page.getByRole("row", { name: /moving/ });
  await expect(row.getByText("Key not sent:")).toBeVisible();
  await expect(row.getByText(/https:\/\/one\.example\.com to https:\/\/two\.example\.com/)).toBeVisible();
  await expect(row).toContainText("No key");

  // Confirmed in the form: the variable is used again and the notice goes away.
  await page.getByRole("button", { name: "Edit moving" }).click();
  await edit.getByLabel("Read it from an environment variable").check();
  await edit.getByLabel("Environment variable name").fill("MOVING_KEY");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toBeHidden();
  await expect(row.getByText("MOVING_KEY", { exact: true })).toBeVisible();
  await expect(row.getByText("Key not sent:")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("find a model server on this computer and add one of its models in one click", async ({ page, studio }) => {
  const errors = watchErrors(page);
  const port = new URL(studio.mockBase).port;
  await page.goto(`${studio.url}#/settings`);
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Model servers on this computer" }) });
  await section.getByLabel("Also try this port (optional)").fill("70000");
  await expect(section.getByText("A port is a whole number from 1 to 65535.")).toBeVisible();
  await expect(section.getByRole("button", { name: "Find local servers" })).toBeDisabled();
  await section.getByLabel("Also try this port (optional)").fill(port);
  await section.getByRole("button", { name: "Find local servers" }).click();
  await expect(section.getByText(`on port ${port}`)).toBeVisible();
  const add = section.getByRole("button", { name: /^Add .* as / }).first();
  const label = (await add.getAttribute("aria-label")) ?? "";
  const name = label.replace(/^Add .* as /, "");
  await add.click();
  await expect(page.getByText(`Added ${name}`)).toBeVisible();
  await expect(section.getByText(`registered as ${name}`)).toBeVisible();
  const models = (await studio.api("models.list", {})) as { name: string; local: boolean; base_url: string }[];
  const added = models.find((m) => m.name === name)!;
  expect(added.local).toBe(true);
  expect(added.base_url).toBe(`http://127.0.0.1:${port}/v1`);
  expect(errors).toEqual([]);
});
