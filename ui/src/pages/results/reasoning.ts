// A reasoning model's reasoning on a transcript turn (the engine keeps it in the turn's
// `reasoning`, with `reasoning_tokens` when the provider reports them).

import type { JsonValue } from "../../api/generated";
import { num } from "../../format";

type Extra = Record<string, JsonValue | undefined>;

/** The turn's reasoning, trimmed; null when it has none. */
export function reasoningText(turn: Extra): string | null {
  const text = typeof turn.reasoning === "string" ? turn.reasoning.trim() : "";
  return text || null;
}

/** What the collapsed reasoning is called: "Model's reasoning (1,234 tokens)", or without the
 * count when the provider did not report one; null when the turn has no reasoning. */
export function reasoningSummary(turn: Extra): string | null {
  if (!reasoningText(turn)) return null;
  const n = Number(turn.reasoning_tokens ?? 0);
  return Number.isFinite(n) && n > 0 ? `Model's reasoning (${num(n)} ${n === 1 ? "token" : "tokens"})` : "Model's reasoning";
}
