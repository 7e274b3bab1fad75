// Settings: what each provider kind needs, the model form's values and checks, and small words.

import type { ModelAddRequest, ModelView, ProviderKind } from "../../api/generated";

export type ProviderInfo = {
  kind: ProviderKind;
  label: string;
  /** The base URL must be given (no public default). */
  needsBase: boolean;
  defaultBase?: string;
  basePlaceholder: string;
  modelLabel: string;
  modelPlaceholder: string;
  /** Offers an API version field (Azure api-version, Anthropic anthropic-version). */
  apiVersion?: { label: string; placeholder: string };
  /** A key is normally needed. */
  needsKey: boolean;
};

export const PROVIDERS: ProviderInfo[] = [
  {
    kind: "openai-compatible",
    label: "OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter…)",
    needsBase: true,
    basePlaceholder: "http://localhost:11434/v1",
    modelLabel: "Model id",
    modelPlaceholder: "llama3.1:8b",
    needsKey: false,
  },
  {
    kind: "openai",
    label: "OpenAI",
    needsBase: false,
    defaultBase: "https://api.openai.com/v1",
    basePlaceholder: "https://api.openai.com/v1",
    modelLabel: "Model id",
    modelPlaceholder: "gpt-4o-mini",
    needsKey: true,
  },
  {
    kind: "azure",
    label: "Azure OpenAI",
    needsBase: true,
    basePlaceholder: "https://my-resource.openai.azure.com",
    modelLabel: "Deployment name",
    modelPlaceholder: "my-gpt-4o-deployment",
    apiVersion: { label: "API version", placeholder: "2024-10-21" },
    needsKey: true,
  },
  {
    kind: "anthropic",
    label: "Anthropic",
    needsBase: false,
    defaultBase: "https://api.anthropic.com",
    basePlaceholder: "https://api.anthropic.com",
    modelLabel: "Model id",
    modelPlaceholder: "claude-sonnet-4-5",
    apiVersion: { label: "API version (anthropic-version)", placeholder: "2023-06-01" },
    needsKey: true,
  },
  {
    kind: "gemini",
    label: "Google Gemini",
    needsBase: false,
    defaultBase: "https://generativelanguage.googleapis.com",
    basePlaceholder: "https://generativelanguage.googleapis.com",
    modelLabel: "Model id",
    modelPlaceholder: "gemini-2.5-flash",
    needsKey: true,
  },
];

export function providerInfo(kind: string): ProviderInfo {
  return PROVIDERS.find((p) => p.kind === kind) ?? PROVIDERS[0];
}

/** Short provider names for lists. */
export const PROVIDER_SHORT: Record<string, string> = {
  "openai-compatible": "OpenAI-compatible",
  openai: "OpenAI",
  azure: "Azure OpenAI",
  anthropic: "Anthropic",
  gemini: "Gemini",
};

/** Servers people run on their own computer, with their usual addresses. */
export const LOCAL_PRESETS: { name: string; base: string }[] = [
  { name: "Ollama", base: "http://localhost:11434/v1" },
  { name: "LM Studio", base: "http://localhost:1234/v1" },
  { name: "vLLM", base: "http://localhost:8000/v1" },
  { name: "llama.cpp server", base: "http://localhost:8080/v1" },
];

export type KeyMode = "keyring" | "env" | "none";

export type ModelForm = {
  kind: ProviderKind;
  name: string;
  model: string;
  base_url: string;
  api_version: string;
  keyMode: KeyMode;
  /** A new key typed now (stored in the keyring on save, never shown again). */
  key: string;
  keyEnv: string;
  /** Keep the key link when the address moves to another server (see `keyMovesToNewServer`). */
  confirmNewHost: boolean;
  temperature: string;
  max_tokens: string;
  price_in: string;
  price_out: string;
  local: boolean;
  concurrency: string;
  timeout_secs: string;
};

export function emptyForm(): ModelForm {
  return {
    kind: "openai-compatible",
    name: "",
    model: "",
    base_url: "",
    api_version: "",
    keyMode: "none",
    key: "",
    keyEnv: "",
    confirmNewHost: false,
    temperature: "0",
    max_tokens: "",
    price_in: "",
    price_out: "",
    local: false,
    concurrency: "8",
    timeout_secs: "120",
  };
}

const str = (v: number | null | undefined) => (v === null || v === undefined ? "" : String(v));

export function formFromView(m: ModelView): ModelForm {
  const info = providerInfo(m.kind);
  return {
    kind: m.kind,
    name: m.name,
    model: m.model,
    base_url: info.defaultBase && m.base_url === info.defaultBase ? "" : m.base_url,
    api_version: m.api_version ?? "",
    keyMode: m.api_key_env ? "env" : m.key_in_keyring ? "keyring" : "none",
    key: "",
    keyEnv: m.api_key_env ?? "",
    confirmNewHost: false,
    temperature: str(m.temperature),
    max_tokens: str(m.max_tokens),
    price_in: str(m.price_in),
    price_out: str(m.price_out),
    local: m.local_flag,
    concurrency: String(m.concurrency),
    timeout_secs: String(m.timeout_secs),
  };
}

const NAME_RE = /^[A-Za-z0-9._:-]{1,64}$/;
const ENV_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function numberOrNull(s: string): number | null {
  if (s.trim() === "") return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : NaN;
}

/** Problems with the form, by field (empty when it can be saved). */
export function checkForm(f: ModelForm, opts: { editing: boolean; keyStored: boolean }): Partial<Record<keyof ModelForm, string>> {
  const e: Partial<Record<keyof ModelForm, string>> = {};
  const info = providerInfo(f.kind);
  if (!NAME_RE.test(f.name)) e.name = "Use up to 64 letters, digits, dots, dashes, underscores or colons (no spaces).";
  if (!f.model.trim()) e.model = `Enter the ${info.modelLabel.toLowerCase()}.`;
  if (info.needsBase && !f.base_url.trim()) e.base_url = "This provider needs the server's address.";
  if (f.base_url.trim()) {
    try {
      const u = new URL(f.base_url.trim());
      if (u.protocol !== "http:" && u.protocol !== "https:") e.base_url = "The address must start with http:// or https://.";
    } catch {
      e.base_url = "This is not a web address; for example http://localhost:11434/v1.";
    }
  }
  if (f.keyMode === "keyring" && !f.key.trim() && !(opts.editing && opts.keyStored)) e.key = "Paste the API key, or choose another key source.";
  if (f.keyMode === "env" && !ENV_RE.test(f.keyEnv.trim())) e.keyEnv = "Enter the variable's name, for example OPENAI_API_KEY.";
  const t = numberOrNull(f.temperature);
  if (t !== null && (Number.isNaN(t) || t < 0 || t > 2)) e.temperature = "Between 0 and 2.";
  const mt = numberOrNull(f.max_tokens);
  if (mt !== null && (Number.isNaN(mt) || mt < 1 || !Number.isInteger(mt))) e.max_tokens = "A whole number of tokens, or empty for the provider's default.";
  for (const k of ["price_in", "price_out"] as const) {
    const p = numberOrNull(f[k]);
    if (p !== null && (Number.isNaN(p) || p < 0)) e[k] = "Dollars per million tokens, 0 or more.";
  }
  const c = numberOrNull(f.concurrency);
  if (c === null || Number.isNaN(c) || c < 1 || c > 1024 || !Number.isInteger(c)) e.concurrency = "A whole number from 1 to 1024.";
  const to = numberOrNull(f.timeout_secs);
  if (to === null || Number.isNaN(to) || to < 1 || to > 3600 || !Number.isInteger(to)) e.timeout_secs = "Seconds, from 1 to 3600.";
  return e;
}

/** The request for `model.add`. A stored key is kept when no new one is typed. */
export function formToRequest(f: ModelForm): ModelAddRequest {
  const info = providerInfo(f.kind);
  const req: ModelAddRequest = { name: f.name.trim(), kind: f.kind, model: f.model.trim(), local: f.local };
  if (f.confirmNewHost) req.confirm_key_for_new_host = true;
  if (f.base_url.trim()) req.base_url = f.base_url.trim();
  if (info.apiVersion && f.api_version.trim()) req.api_version = f.api_version.trim();
  if (f.keyMode === "keyring" && f.key.trim()) req.api_key = f.key.trim();
  if (f.keyMode === "env") req.api_key_env = f.keyEnv.trim();
  const set = (k: "temperature" | "max_tokens" | "price_in" | "price_out" | "concurrency" | "timeout_secs") => {
    const n = numberOrNull(f[k]);
    if (n !== null && !Number.isNaN(n)) req[k] = n;
  };
  set("temperature");
  set("max_tokens");
  set("price_in");
  set("price_out");
  set("concurrency");
  set("timeout_secs");
  return req;
}

/** Whether saving failed only because this computer has no OS keyring (the key can then be held in memory for the session). */
export function offersSessionKey(error: { code: string } | undefined | null): boolean {
  return error?.code === "keyring_unavailable";
}

/** The same request with its key held in memory for this session instead of the keyring. */
export function sessionKeyRequest(req: ModelAddRequest): ModelAddRequest {
  return { ...req, key_for_session: true };
}

/** What the form says about reading a key from an environment variable. */
export const ENV_KEY_HINT =
  "PSEBench Studio reads environment variables when it starts: set the variable, then start the app (or psebench serve) again so it sees it. Its value is never stored.";

/** Whether an address is this computer (mirrors the engine's rule, for the form's preview only). */
export function isLoopback(base: string): boolean {
  try {
    const h = new URL(base).hostname.replace(/^\[|\]$/g, "");
    return h === "localhost" || h.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(h) || h === "::1";
  } catch {
    return false;
  }
}

/** Scheme, host and port of an address (what a key is sent to), or the text itself. */
export function originOf(base: string): string {
  try {
    return new URL(base).origin;
  } catch {
    return base.trim();
  }
}

/**
 * Whether saving the form would send an existing key link (keyring key or environment variable)
 * to another server than before: the engine drops the link then, unless a new key is typed or
 * the move is confirmed.
 */
export function keyMovesToNewServer(f: ModelForm, existing: Pick<ModelView, "base_url"> | null): boolean {
  if (!existing || f.keyMode === "none" || (f.keyMode === "keyring" && f.key.trim() !== "")) return false;
  const base = f.base_url.trim() || providerInfo(f.kind).defaultBase || "";
  return base !== "" && originOf(base) !== originOf(existing.base_url);
}

export function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

/** Where a model's key comes from, in words. */
export function keySourceText(m: Pick<ModelView, "key_source" | "api_key_env" | "key_in_keyring" | "key_for_session_only">): string {
  if (m.key_for_session_only) return "Key held in memory for this session only; it is forgotten when the app closes";
  if (m.api_key_env) return `Environment variable ${m.api_key_env}`;
  if (m.key_in_keyring) return "A key is stored in the keyring";
  return "No key";
}

/** "$0.15 in · $0.60 out per million tokens", or null when no price is registered. */
export function priceText(m: Pick<ModelView, "price_in" | "price_out">): string | null {
  if (m.price_in === null && m.price_out === null) return null;
  const p = (v: number | null) => (v === null ? "–" : `$${Math.abs(v * 100 - Math.round(v * 100)) > 1e-6 ? v.toFixed(3) : v.toFixed(2)}`);
  return `${p(m.price_in)} in · ${p(m.price_out)} out`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** Words for the engine's usage stages. */
export const STAGE_LABEL: Record<string, string> = {
  eval: "Model under test",
  info: "Information provider",
  judge: "Judge (M4)",
  "models-test": "Model tests",
};

export function stageLabel(stage: string | null): string {
  if (!stage) return "Other";
  return STAGE_LABEL[stage] ?? stage.replace(/[-_]/g, " ").replace(/^./, (c) => c.toUpperCase());
}
