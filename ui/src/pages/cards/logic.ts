// Presentation helpers of the Card library: filters from the address, where a lint finding points,
// card ids inside prose, diff display, remembered names. No engine rules live here.

import type { CardFilter, Clause, DiffLine, LintProblem } from "../../api/generated";
import { type DiffPart, pairRun } from "../../diff";
import { DEFAULT_POLICY } from "../../api/generated";

// ---- Filters ------------------------------------------------------------------------------

export const FILTER_KEYS = ["q", "category", "clause", "type", "status"] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

/** The library filter written in the address (`#/cards?clause=…&status=draft&q=allergy`). */
export function filterFromQuery(q: URLSearchParams, policy: string = DEFAULT_POLICY): CardFilter {
  const f: CardFilter = { policy };
  const get = (k: FilterKey) => q.get(k)?.trim() || undefined;
  if (get("q")) f.search = get("q");
  if (get("category")) f.category = get("category");
  if (get("clause")) f.clause = get("clause");
  if (get("type")) f.event_type = get("type");
  if (get("status")) f.status = get("status");
  return f;
}

export function activeFilterCount(f: CardFilter): number {
  return [f.search, f.category, f.clause, f.event_type, f.status].filter(Boolean).length;
}

/** Clause choices grouped by category, in policy order, labelled "short title (label)". */
export function clauseOptions(clauses: Clause[], category?: string): { category: string; options: { value: string; label: string }[] }[] {
  const groups: { category: string; options: { value: string; label: string }[] }[] = [];
  for (const c of [...clauses].sort((a, b) => a.global_no - b.global_no)) {
    if (category && c.category !== category) continue;
    let g = groups.find((x) => x.category === c.category);
    if (!g) groups.push((g = { category: c.category, options: [] }));
    g.options.push({ value: c.clause_id, label: `${c.short_title} (${c.label})` });
  }
  return groups;
}

export function categories(clauses: Clause[]): string[] {
  const out: string[] = [];
  for (const c of [...clauses].sort((a, b) => a.global_no - b.global_no)) if (!out.includes(c.category)) out.push(c.category);
  return out;
}

// ---- JSON pointers ------------------------------------------------------------------------

export function pointerTokens(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function escapeToken(t: string): string {
  return t.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A DOM id for a named part of the card view (names are free text in imported cards). */
export function partId(kind: "bc" | "el" | "mv" | "constraint", name: string | number): string {
  return `${kind}-${String(name).replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}

export type CardTab = "decision" | "elements" | "constraints" | "variants" | "lint" | "history" | "edit";

/** Where in the card view a finding points: the tab and the element to scroll to. */
export function pointerTarget(pointer: string): { tab: CardTab; anchor?: string; label: string } {
  const t = pointerTokens(pointer);
  if (t[0] === "fixed_fields" && t[1] === "boundary_conditions") {
    return t[2] !== undefined ? { tab: "decision", anchor: partId("bc", t[2]), label: "Show the condition" } : { tab: "decision", label: "Show the conditions" };
  }
  if (t[0] === "fixed_fields" && t[1] === "governing_legal_basis") return { tab: "decision", anchor: "legal-basis", label: "Show the legal basis" };
  if (t[0] === "basic_event_elements") {
    return t[1] !== undefined ? { tab: "elements", anchor: partId("el", t[1]), label: "Show the fact slot" } : { tab: "elements", label: "Show the fact slots" };
  }
  if (t[0] === "constraints_on_basic_event_elements_instantiation") {
    return t[1] !== undefined ? { tab: "constraints", anchor: partId("constraint", t[1]), label: "Show the constraint" } : { tab: "constraints", label: "Show the constraints" };
  }
  if (t[0] === "missing_information_variants") {
    return t[1] !== undefined ? { tab: "variants", anchor: partId("mv", t[1]), label: "Show the variant" } : { tab: "variants", label: "Show the variants" };
  }
  return { tab: "decision", anchor: "card-top", label: "Show the card" };
}

/** A short, readable description of a pointer: "boundary_conditions › serious_harm › corresponding_basic_event_elements › 0". */
export function pointerLabel(pointer: string): string {
  const t = pointerTokens(pointer);
  if (t.length === 0) return "whole card";
  return t.filter((x) => x !== "fixed_fields").join(" › ");
}

/**
 * The line (1-based) where every value of a JSON text starts, by JSON Pointer; object members
 * are located at their key. Tolerates broken JSON: what was read before the break is located.
 */
export function pointerLines(text: string): Map<string, number> {
  const map = new Map<string, number>([["", 1]]);
  let i = 0;
  let line = 1;
  const fail = () => {
    throw new Error("unreadable");
  };
  const ws = () => {
    while (i < text.length) {
      const c = text[i];
      if (c === "\n") {
        line++;
        i++;
      } else if (c === " " || c === "\t" || c === "\r") i++;
      else break;
    }
  };
  const str = (): string => {
    i++; // opening quote
    let out = "";
    while (i < text.length && text[i] !== '"') {
      const c = text[i];
      if (c === "\\") {
        const n = text[i + 1];
        if (n === "u") {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
          continue;
        }
        out += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[n] ?? n;
        i += 2;
        continue;
      }
      if (c === "\n") fail();
      out += c;
      i++;
    }
    if (i >= text.length) fail();
    i++; // closing quote
    return out;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const at = line;
        const key = str();
        const p = `${path}/${escapeToken(key)}`;
        if (!map.has(p)) map.set(p, at);
        ws();
        if (text[i] !== ":") fail();
        i++;
        value(p);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let k = 0; ; k++) {
        ws();
        const p = `${path}/${k}`;
        map.set(p, line);
        value(p);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') {
      str();
    } else {
      const start = i;
      while (i < text.length && !/[,\]}\s]/.test(text[i])) i++;
      if (i === start) fail();
    }
  };
  try {
    value("");
  } catch {
    /* keep what was located before the break */
  }
  return map;
}

/** The line a pointer refers to, or the nearest enclosing part that could be located. */
export function lineOfPointer(text: string, pointer: string): number {
  const map = pointerLines(text);
  let p = pointer;
  for (;;) {
    const hit = map.get(p);
    if (hit !== undefined) return hit;
    if (!p) return 1;
    p = p.slice(0, p.lastIndexOf("/"));
  }
}

/** Character offset of the start of a line (1-based). */
export function offsetOfLine(text: string, line: number): number {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const n = text.indexOf("\n", off);
    if (n < 0) return text.length;
    off = n + 1;
  }
  return off;
}

/** The line named in a parse message: "edited card:16:21: …" or "… at line 12 column 5" → 16 / 12. */
export function lineInMessage(message: string): number | null {
  const m = message.match(/:(\d+):\d+:/) ?? message.match(/line (\d+)/i);
  return m ? Number(m[1]) : null;
}

/** "edited card:16:21: not valid JSON (expected ident)" → a sentence with the place in words. */
export function parseMessage(message: string): string {
  const m = message.match(/^.*?:(\d+):(\d+): (.*)$/s);
  return m ? `Line ${m[1]}, column ${m[2]}: ${m[3]}. Check for a missing comma, quote or bracket near there.` : message;
}

// ---- Prose with ids -----------------------------------------------------------------------

export type Piece = string | { id: string };

/** Split text so that every word that is a known id can become a link. */
export function splitKnownIds(text: string, known: Set<string> | ((w: string) => boolean)): Piece[] {
  const isKnown = typeof known === "function" ? known : (w: string) => known.has(w);
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(/[A-Za-z0-9_]+/g)) {
    const w = m[0];
    if (!w.includes("_") || !isKnown(w)) continue;
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push({ id: w });
    last = at + w.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// ---- Diff ---------------------------------------------------------------------------------

/** A line of a diff; `parts` marks the changed words of a line that replaces a similar one. */
export type DiffRow = { kind: "same" | "added" | "removed"; text: string; oldNo: number | null; newNo: number | null; parts?: DiffPart[] };
export type DiffBlock = { kind: "lines"; rows: DiffRow[] } | { kind: "skip"; rows: DiffRow[] };

export function diffStats(lines: DiffLine[]): { added: number; removed: number } {
  return {
    added: lines.filter((l) => l.kind === "added").length,
    removed: lines.filter((l) => l.kind === "removed").length,
  };
}

/** Lines edited in place (a removed line paired with the similar line replacing it), and the lines only added or only removed. */
export function diffCounts(blocks: DiffBlock[]): { changed: number; added: number; removed: number } {
  const rows = blocks.flatMap((b) => b.rows);
  return {
    changed: rows.filter((r) => r.kind === "added" && r.parts).length,
    added: rows.filter((r) => r.kind === "added" && !r.parts).length,
    removed: rows.filter((r) => r.kind === "removed" && !r.parts).length,
  };
}

/** Number the lines of both versions and fold long unchanged stretches, keeping `context` lines around changes. */
export function diffBlocks(lines: DiffLine[], context = 3): DiffBlock[] {
  let o = 0;
  let n = 0;
  const rows: DiffRow[] = lines.map((l) => {
    const kind = l.kind === "added" || l.kind === "removed" ? l.kind : "same";
    if (kind === "same") return { kind, text: l.text, oldNo: ++o, newNo: ++n };
    if (kind === "removed") return { kind, text: l.text, oldNo: ++o, newNo: null };
    return { kind, text: l.text, oldNo: null, newNo: ++n };
  });
  // Within a run of changes, show what was removed before what replaced it.
  for (let i = 0; i < rows.length; ) {
    if (rows[i].kind === "same") {
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && rows[j].kind !== "same") j++;
    const run = rows.slice(i, j);
    const ordered = [...run.filter((r) => r.kind === "removed"), ...run.filter((r) => r.kind === "added")];
    // A removed line and the added line that replaces it: mark the words that changed.
    pairRun(ordered).forEach((parts, k) => {
      if (parts) ordered[k] = { ...ordered[k], parts };
    });
    rows.splice(i, run.length, ...ordered);
    i = j;
  }
  const keep = rows.map(() => false);
  rows.forEach((r, i) => {
    if (r.kind === "same") return;
    for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) keep[k] = true;
  });
  const blocks: DiffBlock[] = [];
  let i = 0;
  while (i < rows.length) {
    const shown = keep[i];
    let j = i;
    while (j < rows.length && keep[j] === shown) j++;
    const slice = rows.slice(i, j);
    // A fold of one or two lines saves nothing: show them.
    if (!shown && slice.length > 2) blocks.push({ kind: "skip", rows: slice });
    else {
      const prev = blocks[blocks.length - 1];
      if (prev && prev.kind === "lines") prev.rows.push(...slice);
      else blocks.push({ kind: "lines", rows: slice });
    }
    i = j;
  }
  return blocks;
}

// ---- Lint ---------------------------------------------------------------------------------

/** Rules the engine refuses an import for (the rest are kept on the imported drafts). */
export const IMPORT_BLOCKING_RULES = ["parse", "schema", "duplicate-card-id", "clause-unknown"];

export function blocksImport(p: LintProblem): boolean {
  return p.severity === "error" && IMPORT_BLOCKING_RULES.includes(p.rule);
}

/** Group findings by card (or by file when a document has no id). */
export function groupProblems(problems: LintProblem[]): { key: string; cardId: string | null; path: string; problems: LintProblem[] }[] {
  const out: { key: string; cardId: string | null; path: string; problems: LintProblem[] }[] = [];
  for (const p of problems) {
    const key = p.clause_card_id ? `card:${p.clause_card_id}` : `file:${p.path}`;
    let g = out.find((x) => x.key === key);
    if (!g) out.push((g = { key, cardId: p.clause_card_id, path: p.path, problems: [] }));
    g.problems.push(p);
  }
  return out;
}

/** `serious_injury_present` → "Serious injury present" (for headings). */
export function nameTitle(name: string): string {
  const h = name.replace(/_/g, " ").replace(/\s+/g, " ").trim();
  return h.charAt(0).toUpperCase() + h.slice(1);
}

// ---- Words --------------------------------------------------------------------------------

export const ORIGIN_LABEL: Record<string, string> = {
  builtin: "Built-in",
  edited: "Your edit of a built-in card",
  imported: "Imported",
  authored: "Drafted in the app",
};

export const FIELD_TYPE_LABEL: Record<string, { label: string; hint: string }> = {
  string: { label: "Text", hint: "Always filled in with a concrete fact." },
  string_or_null: { label: "Text or empty", hint: "May be left empty when the fact does not apply." },
  enum: { label: "One of a list", hint: "Exactly one of the allowed values." },
};

/** Allowed/disallowed content is free text or a list of illustrations. */
export function contentItems(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x : JSON.stringify(x)));
  if (typeof v === "string") return v.trim() ? [v] : [];
  return [JSON.stringify(v)];
}

/** Why an audit decision cannot be recorded yet (in words), or null: a decision and a name are both needed. */
export function decisionBlocker(status: string | null, name: string): string | null {
  if (!status) return "Choose a decision first: nothing is chosen for you.";
  if (!name.trim()) return "Enter your name: it is recorded with the decision.";
  return null;
}
