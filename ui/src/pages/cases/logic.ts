// Presentation helpers of the Cases pages: the filter kept in the address, counts, neighbours.

import type { CaseFilter, CaseSummary, CaseType } from "../../api/generated";

export const CASE_FILTER_KEYS = ["type", "clause", "card", "origin", "excluded"] as const;

const CASE_TYPES: CaseType[] = ["complete", "missing", "uncertain"];

/** `#/cases?type=missing&clause=…&card=…&origin=demo&excluded=1` → the engine's CaseFilter. */
export function caseFilterFromQuery(q: URLSearchParams): CaseFilter {
  const f: CaseFilter = { include_excluded: q.get("excluded") === "1" };
  const type = q.get("type");
  if (type && (CASE_TYPES as string[]).includes(type)) f.case_type = type as CaseType;
  const clause = q.get("clause")?.trim();
  if (clause) f.clause_id = clause;
  const card = q.get("card")?.trim();
  if (card) f.clause_card_id = card;
  const origin = q.get("origin")?.trim();
  if (origin) f.origin = origin;
  return f;
}

/** The filter part of the address, to carry from the list into a case and back. */
export function filterQuery(q: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of CASE_FILTER_KEYS) {
    const v = q.get(k);
    if (v) out[k] = v;
  }
  return out;
}

export function activeCaseFilters(f: CaseFilter): number {
  return [f.case_type, f.clause_id, f.clause_card_id, f.origin, f.include_excluded || undefined].filter(Boolean).length;
}

export function countBy<T>(rows: T[], key: (r: T) => string): Record<string, number> {
  const m: Record<string, number> = {};
  for (const r of rows) m[key(r)] = (m[key(r)] ?? 0) + 1;
  return m;
}

/** Previous and next case in the list the user came from, and the position in it. */
export function neighbours(rows: CaseSummary[], caseId: string): { prev: string | null; next: string | null; index: number; total: number } {
  const i = rows.findIndex((r) => r.case_id === caseId);
  return {
    prev: i > 0 ? rows[i - 1].case_id : null,
    next: i >= 0 && i < rows.length - 1 ? rows[i + 1].case_id : null,
    index: i,
    total: rows.length,
  };
}

export const ORIGIN_LABEL: Record<string, string> = {
  demo: "Demo",
  imported: "Imported",
  generated: "Generated",
};

/** Element rows of a case with whether each was withheld from the narrative. */
export function factRows(elements: { name: string; meaning: string; value: string | null }[], masked: string[]) {
  const hidden = new Set(masked);
  return elements.map((e) => ({ ...e, masked: hidden.has(e.name) }));
}
