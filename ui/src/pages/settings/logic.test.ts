import { describe, expect, it } from "vitest";
import type { ModelView } from "../../api/generated";
import { checkForm, emptyForm, ENV_KEY_HINT, formFromView, formToRequest, isLoopback, keyMovesToNewServer, keySourceText, offersSessionKey, priceText, sessionKeyRequest, stageLabel } from "./logic";

const view: ModelView = {
  name: "gpt",
  kind: "openai",
  model: "gpt-4o-mini",
  base_url: "https://api.openai.com/v1",
  api_key_env: null,
  key_in_keyring: true,
  temperature: 0,
  top_p: null,
  max_tokens: null,
  seed: null,
  price_in: 0.15,
  price_out: 0.6,
  price_cached_in: null,
  local_flag: false,
  concurrency: 8,
  timeout_secs: 120,
  api_version: null,
  key_link_dropped: null,
  simulation: false,
  local: false,
  destination: "openai at api.openai.com (remote)",
  key_source: "keyring",
  key_for_session_only: false,
};

describe("model form", () => {
  it("explains what is missing for each provider", () => {
    const e = checkForm(emptyForm(), { editing: false, keyStored: false });
    expect(Object.keys(e).sort()).toEqual(["base_url", "model", "name"]);
    const openai = { ...emptyForm(), kind: "openai" as const, name: "x", model: "gpt", keyMode: "keyring" as const };
    expect(checkForm(openai, { editing: false, keyStored: false }).key).toMatch(/Paste the API key/);
    // Editing a model whose key is stored: no new key needed.
    expect(checkForm(openai, { editing: true, keyStored: true }).key).toBeUndefined();
    expect(checkForm({ ...openai, keyMode: "env", keyEnv: "1BAD" }, { editing: false, keyStored: false }).keyEnv).toBeDefined();
    expect(checkForm({ ...openai, keyMode: "none", name: "has space" }, { editing: false, keyStored: false }).name).toBeDefined();
    expect(checkForm({ ...openai, keyMode: "none", base_url: "ftp://x" }, { editing: false, keyStored: false }).base_url).toMatch(/http/);
    const problems = checkForm({ ...openai, keyMode: "none", temperature: "3", concurrency: "0", price_in: "-1" }, { editing: false, keyStored: false });
    for (const field of ["temperature", "concurrency", "price_in"] as const) expect(problems[field]).toBeTypeOf("string");
  });
  it("sends only what was given; a stored key is kept unless replaced", () => {
    const f = formFromView(view);
    expect(f.base_url).toBe(""); // the provider default
    expect(f.keyMode).toBe("keyring");
    const req = formToRequest(f);
    expect(req).toEqual({ name: "gpt", kind: "openai", model: "gpt-4o-mini", local: false, temperature: 0, price_in: 0.15, price_out: 0.6, concurrency: 8, timeout_secs: 120 });
    expect("api_key" in req).toBe(false);
    expect(formToRequest({ ...f, key: " sk-new " }).api_key).toBe("sk-new");
    expect(formToRequest({ ...f, keyMode: "env", keyEnv: "OPENAI_API_KEY" }).api_key_env).toBe("OPENAI_API_KEY");
  });
  it("asks to confirm a key only when the address moves to another server", () => {
    const f = formFromView(view);
    expect(keyMovesToNewServer(f, view)).toBe(false);
    expect(keyMovesToNewServer({ ...f, base_url: "https://api.openai.com/v2" }, view)).toBe(false);
    expect(keyMovesToNewServer({ ...f, base_url: "https://proxy.example.com/v1" }, view)).toBe(true);
    expect(keyMovesToNewServer({ ...f, base_url: "https://api.openai.com:8443/v1" }, view)).toBe(true);
    expect(keyMovesToNewServer({ ...f, base_url: "https://proxy.example.com/v1", key: "sk-new" }, view)).toBe(false);
    expect(keyMovesToNewServer({ ...f, base_url: "https://proxy.example.com/v1", keyMode: "none" }, view)).toBe(false);
    expect(keyMovesToNewServer({ ...f, base_url: "https://proxy.example.com/v1" }, null)).toBe(false);
    expect(formToRequest({ ...f, confirmNewHost: true }).confirm_key_for_new_host).toBe(true);
  });
  it("previews where data goes and words the key source and prices", () => {
    expect(isLoopback("http://localhost:11434/v1")).toBe(true);
    expect(isLoopback("http://127.0.0.1:8080/v1")).toBe(true);
    expect(isLoopback("http://[::1]:9/v1")).toBe(true);
    expect(isLoopback("https://api.openai.com/v1")).toBe(false);
    expect(isLoopback("not a url")).toBe(false);
    expect(keySourceText(view)).toBe("A key is stored in the keyring");
    expect(keySourceText({ ...view, api_key_env: "K", key_in_keyring: false })).toBe("Environment variable K");
    expect(keySourceText({ ...view, key_in_keyring: false })).toBe("No key");
    expect(keySourceText({ ...view, key_in_keyring: false, key_for_session_only: true })).toMatch(/memory for this session only/);
  });

  it("offers to hold the key in memory only when the keyring is missing", () => {
    expect(offersSessionKey({ code: "keyring_unavailable" })).toBe(true);
    expect(offersSessionKey({ code: "secrets" })).toBe(false);
    expect(offersSessionKey(undefined)).toBe(false);
    const req = sessionKeyRequest({ name: "m", kind: "openai", model: "x", api_key: "sk-1", local: false });
    expect(req).toEqual({ name: "m", kind: "openai", model: "x", api_key: "sk-1", local: false, key_for_session: true });
    expect(ENV_KEY_HINT).toMatch(/when it starts/);
    expect(priceText(view)).toBe("$0.15 in · $0.60 out");
    expect(priceText({ ...view, price_in: 0.075, price_out: null })).toBe("$0.075 in · – out");
    expect(priceText({ ...view, price_in: null, price_out: null })).toBeNull();
    expect(stageLabel("eval")).toBe("Model under test");
    expect(stageLabel("card-drafting")).toBe("Card drafting");
  });
});
