// The "New policy" form's pure logic: an empty form, the checks the app can make before asking the
// engine (the engine checks everything again, including clashes with stored packs), the engine's
// field-by-field problems read back from its error, and a policy file read into the form.

import type { NewClause, NewPolicy } from "../../api/generated";

/** One problem as the engine reports it in the error detail of `policy.create`. */
type FieldProblem = { field: string; message: string };

export const ID_RULE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export function emptyClause(): NewClause {
  return { clause_id: "", label: "", category: "", text: "", short_title: "" };
}

export function emptyPolicy(): NewPolicy {
  return { id: "", name: "", jurisdiction: "", reporting_deadline: "", statute: "", clauses: [emptyClause()], guidance_markdown: "" };
}

/** Field path (`name`, `clauses[1].label`) → message. */
export type Problems = Record<string, string>;

/** What the app can tell before sending: empty fields, malformed or repeated ids and labels. */
export function checkPolicy(p: NewPolicy): Problems {
  const out: Problems = {};
  if (!p.id.trim()) out.id = "Give the policy a short id (letters, digits, '.', '_' or '-').";
  else if (!ID_RULE.test(p.id.trim())) out.id = "The id may only hold letters A-Z and a-z, digits, '.', '_' and '-', and may not start with a dot.";
  if (!p.name.trim()) out.name = "Give the policy a name people will recognise.";
  if (!p.jurisdiction.trim()) out.jurisdiction = "Say where the policy applies (a state, a country, a health system).";
  if (!p.reporting_deadline.trim()) out.reporting_deadline = "Say when a report is due under this policy.";
  if (p.clauses.length === 0) out.clauses = "Add at least one clause.";
  const ids = new Set<string>();
  const labels = new Set<string>();
  p.clauses.forEach((c, i) => {
    const f = (k: string) => `clauses[${i}].${k}`;
    const id = c.clause_id.trim();
    if (!id) out[f("clause_id")] = "Give the clause an id.";
    else if (!ID_RULE.test(id)) out[f("clause_id")] = "Only letters, digits, '.', '_' and '-' are allowed.";
    else if (ids.has(id)) out[f("clause_id")] = `The clause id "${id}" is used twice.`;
    ids.add(id);
    const label = c.label.trim();
    if (!label) out[f("label")] = "Give the clause a label, the name cards and answers cite.";
    else if (labels.has(label)) out[f("label")] = `The label "${label}" is used twice.`;
    labels.add(label);
    if (!c.category.trim()) out[f("category")] = "Give the clause a category.";
    if (!c.text.trim()) out[f("text")] = "Give the clause's wording or a faithful summary.";
  });
  return out;
}

/** The engine's problems (sent as JSON in the error's detail), by field. */
export function problemsFromDetail(detail: string | null | undefined): Problems {
  if (!detail) return {};
  try {
    const list = JSON.parse(detail) as FieldProblem[];
    if (!Array.isArray(list)) return {};
    const out: Problems = {};
    for (const p of list) if (p && typeof p.field === "string" && typeof p.message === "string") out[p.field] ??= p.message;
    return out;
  } catch {
    return {};
  }
}

/** The headings of the guidance Markdown: each becomes a section id. */
export function guidanceHeadings(markdown: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && line.match(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/);
    if (m && m[1].trim()) out.push(m[1].trim().split(/\s+/).join(" "));
  }
  return out;
}

/** A policy file (the JSON `psebench policy create` reads) as form values, or a plain message. */
export function policyFromFile(text: string): { policy: NewPolicy } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { error: "This file is not JSON. A policy file is a JSON object with id, name, jurisdiction, reporting_deadline, clauses and guidance_markdown." };
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return { error: "A policy file must hold one JSON object." };
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === "string" ? x : "");
  const clauses = Array.isArray(o.clauses)
    ? o.clauses.map((c) => {
        const r = (c && typeof c === "object" ? c : {}) as Record<string, unknown>;
        return { clause_id: str(r.clause_id), label: str(r.label), category: str(r.category), text: str(r.text), short_title: str(r.short_title) };
      })
    : [];
  return {
    policy: {
      id: str(o.id),
      name: str(o.name),
      jurisdiction: str(o.jurisdiction),
      reporting_deadline: str(o.reporting_deadline),
      statute: str(o.statute),
      clauses: clauses.length ? clauses : [emptyClause()],
      guidance_markdown: str(o.guidance_markdown),
    },
  };
}
