// The questionnaire's keyboard scheme, as a pure function from (state, key, context) to a command
// and the next state. The page turns commands into API calls and focus moves.
//
//   1–5        rate the highlighted question (realism, then plausibility), then move to the next one
//   1–4        (on the verdict question) choose your own verdict — the keys come from the engine
//   ↑ ↓        change the choice in the highlighted question (handled by the choice group itself)
//   Tab        move between questions (the browser's own focus order)
//   R P V      jump to realism, plausibility or the verdict
//   Enter      save your verdict and show the by-construction verdict; on a finished case, next case
//   A / D      agree / disagree with the by-construction verdict (after it is shown)
//   C          write a comment (Esc leaves the comment box)
//   T / N      go to the model's rationale (items with a rationale task) / it establishes none
//   J or →     next case;  K or ←  previous case
//   L          list of your cases;  G  guidelines;  ?  this list of keys;  Esc  close

import type { ReviewVerdict } from "../../api/generated";

export type Section = "realism" | "plausibility" | "verdict" | "agree";
export const SECTIONS: Section[] = ["realism", "plausibility", "verdict", "agree"];

export type Screen = "loading" | "guidelines" | "item" | "done";

/** What the key handler needs to know about the item on screen. */
export type ItemFacts = {
  realism: number | null;
  plausibility: number | null;
  blindVerdict: ReviewVerdict | null;
  revealed: boolean;
  agree: boolean | null;
  hasPrev: boolean;
  hasNext: boolean;
  /** The item has a rationale task, and it is not answered yet. */
  hasRationale?: boolean;
  rationalePending?: boolean;
};

export type KeyContext = {
  key: string;
  ctrl?: boolean;
  meta?: boolean;
  alt?: boolean;
  /** Focus is in a text field (the comment box): only Esc is ours. */
  typing?: boolean;
  /** Focus is on a button or link, where Enter and Space belong to that control. */
  onButton?: boolean;
  /** A dialog is open (it handles its own keys; Esc closes it). */
  dialogOpen?: boolean;
  screen: Screen;
};

export type Command =
  | { kind: "none" }
  | { kind: "set"; field: "realism" | "plausibility"; value: number }
  | { kind: "verdict"; verdict: ReviewVerdict }
  | { kind: "reveal" }
  | { kind: "agree"; value: boolean }
  | { kind: "next" }
  | { kind: "prev" }
  | { kind: "start" }
  | { kind: "guidelines" }
  | { kind: "shortcuts" }
  | { kind: "list" }
  | { kind: "comment" }
  | { kind: "rationale" }
  | { kind: "rationale-none" }
  | { kind: "leave-text" }
  | { kind: "focus"; section: Section }
  | { kind: "hint"; text: string };

export type KeyState = { section: Section };

export type KeyResult = { command: Command; state: KeyState; handled: boolean };

/** The first question still open on an item (where the number keys start). */
export function firstOpenSection(f: ItemFacts): Section {
  if (f.realism === null) return "realism";
  if (f.plausibility === null) return "plausibility";
  if (!f.revealed) return "verdict";
  return "agree";
}

/** The question after `s` once `s` is answered. */
export function nextSection(s: Section, f: ItemFacts): Section {
  switch (s) {
    case "realism":
      return f.plausibility === null ? "plausibility" : f.revealed ? (f.agree === null ? "agree" : "plausibility") : "verdict";
    case "plausibility":
      return f.revealed ? "agree" : "verdict";
    case "verdict":
      return f.revealed ? "agree" : "verdict";
    case "agree":
      return "agree";
  }
}

const none = (state: KeyState, handled = false): KeyResult => ({ command: { kind: "none" }, state, handled });

/**
 * Interpret one key press. `verdictKeys` maps the engine's verdict keys ("1"…"4") to verdicts;
 * `scaleMax` is the number of points on the rating scales (5).
 */
export function interpretKey(state: KeyState, ctx: KeyContext, item: ItemFacts | null, verdictKeys: Record<string, ReviewVerdict>, scaleMax = 5): KeyResult {
  const k = ctx.key;
  if (ctx.ctrl || ctx.meta || ctx.alt) return none(state);
  if (ctx.dialogOpen) return none(state); // the dialog closes itself on Esc
  if (ctx.typing) return k === "Escape" ? { command: { kind: "leave-text" }, state, handled: true } : none(state);
  const lower = k.length === 1 ? k.toLowerCase() : k;
  if (k === "?") return { command: { kind: "shortcuts" }, state, handled: true };
  if (lower === "g") return { command: { kind: "guidelines" }, state, handled: true };

  if (ctx.screen === "guidelines") {
    if (k === "Enter" && !ctx.onButton) return { command: { kind: "start" }, state, handled: true };
    return none(state);
  }
  if (ctx.screen === "done") {
    if (lower === "k" || k === "ArrowLeft") return { command: { kind: "prev" }, state, handled: true };
    if (lower === "l") return { command: { kind: "list" }, state, handled: true };
    return none(state);
  }
  if (ctx.screen !== "item" || !item) return none(state);

  if (lower === "j" || k === "ArrowRight") return { command: { kind: "next" }, state, handled: true };
  if (lower === "k" || k === "ArrowLeft") return { command: { kind: "prev" }, state, handled: true };
  if (lower === "l") return { command: { kind: "list" }, state, handled: true };

  if (lower === "r") return { command: { kind: "focus", section: "realism" }, state: { section: "realism" }, handled: true };
  if (lower === "p") return { command: { kind: "focus", section: "plausibility" }, state: { section: "plausibility" }, handled: true };
  if (lower === "v") return { command: { kind: "focus", section: "verdict" }, state: { section: "verdict" }, handled: true };

  if (lower === "a" || lower === "d") {
    if (!item.revealed) {
      return {
        command: { kind: "hint", text: "Agree or disagree once the by-construction verdict is shown: choose your own verdict, then press Enter." },
        state,
        handled: true,
      };
    }
    return { command: { kind: "agree", value: lower === "a" }, state: { section: "agree" }, handled: true };
  }
  if (lower === "c") {
    if (!item.revealed) return { command: { kind: "hint", text: "The comment box opens once the by-construction verdict is shown." }, state, handled: true };
    return { command: { kind: "comment" }, state, handled: true };
  }

  if (lower === "t" || lower === "n") {
    if (!item.hasRationale) return none(state);
    if (!item.revealed) return { command: { kind: "hint", text: "The model's rationale is shown once the by-construction verdict is open." }, state, handled: true };
    return { command: { kind: lower === "t" ? "rationale" : "rationale-none" }, state, handled: true };
  }

  if (k === "Enter" && !ctx.onButton) {
    if (!item.revealed) {
      if (item.blindVerdict === null) {
        return { command: { kind: "hint", text: "Choose your own verdict first (keys 1–4 on the verdict question)." }, state: { section: "verdict" }, handled: true };
      }
      return { command: { kind: "reveal" }, state: { section: "agree" }, handled: true };
    }
    if (item.agree === null) return { command: { kind: "hint", text: "Press A to agree or D to disagree, then Enter for the next case." }, state: { section: "agree" }, handled: true };
    if (item.rationalePending) {
      return { command: { kind: "hint", text: "Tick the conditions the model's rationale establishes (T to go there), or N for none of them; then Enter." }, state, handled: true };
    }
    return { command: { kind: "next" }, state, handled: true };
  }

  if (/^[0-9]$/.test(k) || verdictKeys[lower] !== undefined) {
    const section = state.section;
    if (section === "realism" || section === "plausibility") {
      const v = Number(k);
      if (!Number.isInteger(v) || v < 1 || v > scaleMax) return none(state, true);
      const after: ItemFacts = { ...item, [section]: v };
      return { command: { kind: "set", field: section, value: v }, state: { section: nextSection(section, after) }, handled: true };
    }
    if (section === "verdict") {
      const v = verdictKeys[lower];
      if (!v) return none(state, true);
      if (item.revealed) return { command: { kind: "hint", text: "Your own verdict is locked once the by-construction verdict has been shown." }, state, handled: true };
      return { command: { kind: "verdict", verdict: v }, state, handled: true };
    }
    return none(state, true);
  }
  return none(state);
}
