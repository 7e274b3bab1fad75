// The card form's view of the draft: the draft is JSON text held by the card view; the form reads
// it, and every edit writes a changed copy of the document back as text. Edits touch only the part
// they change, so fields the form does not show (extension fields, unknown keys) keep their values
// and their place. Which lint finding belongs next to which field is decided here too; the checks
// themselves are the engine's.

import type { LintProblem } from "../../../api/generated";
import { pointerTokens } from "../logic";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Doc = { [key: string]: Json };

export type ParsedDraft = { ok: true; doc: Doc } | { ok: false; reason: string };

/** Read the draft text as a card document (an object); say in words why not. */
export function parseDraft(text: string): ParsedDraft {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `The text is not valid JSON (${(e as Error).message}).` };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return { ok: false, reason: "The text is valid JSON but not a card: a card is one object in curly brackets { … }." };
  return { ok: true, doc: v as Doc };
}

/** The document as text, in the layout the engine stores (two-space indent, final newline). */
export function writeDraft(doc: Doc): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// ---- Reading -------------------------------------------------------------------------------

export function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);
}

/** The value at a path of keys and indexes, or undefined. */
export function getAt(doc: Json, path: (string | number)[]): Json | undefined {
  let cur: Json | undefined = doc;
  for (const k of path) {
    if (typeof k === "number") cur = Array.isArray(cur) ? cur[k] : undefined;
    else cur = isObject(cur) ? cur[k] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

export function textAt(doc: Json, path: (string | number)[]): string {
  const v = getAt(doc, path);
  return typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);
}

export function listAt(doc: Json, path: (string | number)[]): string[] {
  const v = getAt(doc, path);
  return Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))) : [];
}

export function entriesAt(doc: Json, path: (string | number)[]): [string, Json][] {
  const v = getAt(doc, path);
  return isObject(v) ? Object.entries(v) : [];
}

// ---- Writing -------------------------------------------------------------------------------

/** A copy of `node` with `value` at `path` (missing objects on the way are created; an existing key keeps its place). */
function setIn(node: Json | undefined, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value as Json;
  const [k, ...rest] = path;
  if (typeof k === "number") {
    const arr = Array.isArray(node) ? [...node] : [];
    if (value === undefined && rest.length === 0) arr.splice(k, 1);
    else arr[k] = setIn(arr[k], rest, value);
    return arr;
  }
  const obj: { [key: string]: Json } = isObject(node) ? { ...node } : {};
  if (value === undefined && rest.length === 0) delete obj[k];
  else obj[k] = setIn(obj[k], rest, value);
  return obj;
}

/** A copy of the document with `value` at `path`; `undefined` removes the key or list item. */
export function setAt(doc: Doc, path: (string | number)[], value: Json | undefined): Doc {
  return setIn(doc, path, value) as Doc;
}

/** A copy of an object with one key renamed in place (the other keys keep their order). */
export function renameKey(obj: { [key: string]: Json }, from: string, to: string): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(obj)) out[k === from ? to : k] = v;
  return out;
}

/** A list with the item at `from` moved to `to`. */
export function moveItem<T>(list: T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length || from === to) return list;
  const out = [...list];
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x);
  return out;
}

/** `base`, or `base_2`, `base_3`, … : the first that is not taken. */
export function freeName(base: string, taken: string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}_${i}`)) return `${base}_${i}`;
}

/** Why a new short name cannot be used, or null. */
export function nameProblem(name: string, current: string, taken: string[]): string | null {
  const n = name.trim();
  if (!n) return "A short name is needed: other parts of the card refer to it.";
  if (n !== current && taken.includes(n)) return `"${n}" is already used on this card; choose another name.`;
  return null;
}

export const BC_PATH = ["fixed_fields", "boundary_conditions"];
export const EL_PATH = ["basic_event_elements"];
export const VARIANTS = "missing_information_variants";
export const CONSTRAINTS = "constraints_on_basic_event_elements_instantiation";

/** Replace or drop a name in the string list at `path` (drop when `to` is null). */
function renameInList(doc: Doc, path: (string | number)[], from: string, to: string | null): Doc {
  const v = getAt(doc, path);
  if (!Array.isArray(v) || !v.includes(from)) return doc;
  const next = to === null ? v.filter((x) => x !== from) : v.map((x) => (x === from ? to : x));
  return setAt(doc, path, next);
}

function eachVariant(doc: Doc, f: (doc: Doc, i: number) => Doc): Doc {
  const vs = getAt(doc, [VARIANTS]);
  let out = doc;
  if (Array.isArray(vs)) vs.forEach((_, i) => (out = f(out, i)));
  return out;
}

/** Rename a condition; the variants that leave it open follow. */
export function renameCondition(doc: Doc, from: string, to: string): Doc {
  const bcs = getAt(doc, BC_PATH);
  if (!isObject(bcs) || from === to) return doc;
  const out = setAt(doc, BC_PATH, renameKey(bcs, from, to));
  return eachVariant(out, (d, i) => renameInList(d, [VARIANTS, i, "masked_boundary_conditions"], from, to));
}

/** Remove a condition and the variants' mentions of it. */
export function removeCondition(doc: Doc, name: string): Doc {
  const out = setAt(doc, [...BC_PATH, name], undefined);
  return eachVariant(out, (d, i) => renameInList(d, [VARIANTS, i, "masked_boundary_conditions"], name, null));
}

/** Rename a fact slot; the conditions it shows and the variants that leave it out follow. */
export function renameSlot(doc: Doc, from: string, to: string): Doc {
  const els = getAt(doc, EL_PATH);
  if (!isObject(els) || from === to) return doc;
  let out = setAt(doc, EL_PATH, renameKey(els, from, to));
  for (const [bc] of entriesAt(out, BC_PATH)) out = renameInList(out, [...BC_PATH, bc, "corresponding_basic_event_elements"], from, to);
  return eachVariant(out, (d, i) => renameInList(d, [VARIANTS, i, "masked_basic_event_elements"], from, to));
}

/** Remove a fact slot and every mention of it. */
export function removeSlot(doc: Doc, name: string): Doc {
  let out = setAt(doc, [...EL_PATH, name], undefined);
  for (const [bc] of entriesAt(out, BC_PATH)) out = renameInList(out, [...BC_PATH, bc, "corresponding_basic_event_elements"], name, null);
  return eachVariant(out, (d, i) => renameInList(d, [VARIANTS, i, "masked_basic_event_elements"], name, null));
}

/** Add or take away a name in a list of names (a condition's fact slots, a variant's masks). */
export function toggleName(doc: Doc, path: (string | number)[], name: string, on: boolean): Doc {
  const list = listAt(doc, path);
  if (on === list.includes(name)) return doc;
  return setAt(doc, path, on ? [...list, name] : list.filter((x) => x !== name));
}

// ---- Top-level fields ----------------------------------------------------------------------

/** Top-level fields the form has a section for; the rest are shown as they are. */
export const FORM_FIELDS = [
  "clause_card_id",
  "clause_card_definition",
  "clause_id",
  "event_type",
  "fixed_fields",
  "basic_event_elements",
  CONSTRAINTS,
  VARIANTS,
  "x_open_question",
  "x_ruled_out",
];

/** The fields of the document the form has no section for (extension fields, unknown keys), in document order. */
export function otherFields(doc: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) if (!FORM_FIELDS.includes(k)) out[k] = v;
  return out;
}

// ---- Findings next to fields ---------------------------------------------------------------

export function escapeToken(t: string): string {
  return t.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function pointerOf(path: (string | number)[]): string {
  return path.map((k) => `/${escapeToken(String(k))}`).join("");
}

/**
 * The pointers the form shows a field or a group for, given the document. Findings are placed at
 * the deepest of these that contains the finding's pointer.
 */
export function formPointers(doc: Doc): string[] {
  const out: string[] = [
    "/clause_card_id",
    "/clause_card_definition",
    "/clause_id",
    "/event_type",
    "/fixed_fields",
    "/fixed_fields/governing_legal_basis",
    "/fixed_fields/governing_legal_basis/value",
    "/fixed_fields/governing_legal_basis/meaning",
    pointerOf(BC_PATH),
    pointerOf(EL_PATH),
    `/${CONSTRAINTS}`,
    "/x_ruled_out",
  ];
  listAt(doc, ["fixed_fields", "governing_legal_basis", "value"]).forEach((_, i) => out.push(pointerOf(["fixed_fields", "governing_legal_basis", "value", i])));
  for (const [name] of entriesAt(doc, BC_PATH)) {
    const p = pointerOf([...BC_PATH, name]);
    out.push(p, `${p}/value`, `${p}/meaning`, `${p}/corresponding_basic_event_elements`);
  }
  for (const [name] of entriesAt(doc, EL_PATH)) {
    const p = pointerOf([...EL_PATH, name]);
    out.push(p, `${p}/field_type`, `${p}/meaning`, `${p}/allowed_content`, `${p}/disallowed_content`, `${p}/allowed_values`);
  }
  listAt(doc, [CONSTRAINTS]).forEach((_, i) => out.push(`/${CONSTRAINTS}/${i}`));
  const vs = getAt(doc, [VARIANTS]);
  if (vs !== undefined) {
    out.push(`/${VARIANTS}`);
    if (Array.isArray(vs)) {
      vs.forEach((_, i) => {
        const p = `/${VARIANTS}/${i}`;
        out.push(p, ...VARIANT_FIELDS.map((f) => `${p}/${f}`));
      });
    }
  }
  if (getAt(doc, ["x_open_question"]) !== undefined || doc.event_type === "Uncertain") {
    out.push("/x_open_question", "/x_open_question/section_id", "/x_open_question/question");
  }
  for (const [clause] of entriesAt(doc, ["x_ruled_out"])) out.push(pointerOf(["x_ruled_out", clause]));
  for (const k of Object.keys(otherFields(doc))) out.push(pointerOf([k]));
  return out;
}

export const VARIANT_FIELDS = [
  "missing_variant_id",
  "summary",
  "masked_boundary_conditions",
  "masked_basic_event_elements",
  "why_reasonable_in_real_world",
  "why_not_classifiable_from_remaining_event_description",
];

/** The deepest of `pointers` that is `pointer` or contains it; null when none does (the whole card). */
export function placeOf(pointer: string, pointers: Iterable<string>): string | null {
  const want = pointerTokens(pointer);
  let best: string | null = null;
  let bestLen = -1;
  for (const p of pointers) {
    const t = pointerTokens(p);
    if (t.length === 0 || t.length > want.length || t.length <= bestLen) continue;
    if (t.every((x, i) => x === want[i])) {
      best = p;
      bestLen = t.length;
    }
  }
  return best;
}

/** Findings by the form field they belong to; the ones no field holds (a parse error, the whole card) apart. */
export function placeFindings(problems: LintProblem[], pointers: string[]): { byField: Map<string, LintProblem[]>; unplaced: LintProblem[] } {
  const byField = new Map<string, LintProblem[]>();
  const unplaced: LintProblem[] = [];
  for (const p of problems) {
    const at = p.rule === "parse" ? null : placeOf(p.pointer, pointers);
    if (at === null) unplaced.push(p);
    else byField.set(at, [...(byField.get(at) ?? []), p]);
  }
  return { byField, unplaced };
}

/** The DOM id of the form field for a pointer (pointers hold free text). */
export function fieldDomId(pointer: string): string {
  return `cf${pointer.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}

// ---- Which view -----------------------------------------------------------------------------

export type EditorView = "form" | "json";
const VIEW_KEY = "psebench.cardEditor.view";

/** The view the user chose last time; the form unless they chose JSON. */
export function rememberedView(): EditorView {
  try {
    return localStorage.getItem(VIEW_KEY) === "json" ? "json" : "form";
  } catch {
    return "form";
  }
}

export function rememberView(v: EditorView) {
  try {
    localStorage.setItem(VIEW_KEY, v);
  } catch {
    /* a browser that keeps nothing: the choice lasts for this page only */
  }
}
