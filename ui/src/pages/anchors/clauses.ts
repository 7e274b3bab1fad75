// The policy's clauses in the user's words ("7. Fall — Care Management Events clause 7"), shared
// by the Anchors and Generate pages.

import { useMemo } from "react";
import { useApi } from "../../api/client";
import type { Clause } from "../../api/generated";
import { usePolicyId } from "../../policyChoice";

export type ClauseIndex = {
  list: Clause[];
  byId: Map<string, Clause>;
};

export function indexClauses(clauses: Clause[]): ClauseIndex {
  const list = [...clauses].sort((a, b) => a.global_no - b.global_no);
  return { list, byId: new Map(list.map((c) => [c.clause_id, c])) };
}

/** The clauses of a policy (default: the policy in use), sorted by their global number. */
export function useClauses(policy?: string): ClauseIndex | undefined {
  const chosen = usePolicyId();
  const p = useApi("policy.show", { id: policy ?? chosen });
  return useMemo(() => (p.data ? indexClauses(p.data.clauses) : undefined), [p.data]);
}

/** "7. Fall" for a clause id, or the id itself when the policy does not know it. */
export function clauseShort(ix: ClauseIndex | undefined, id: string | null | undefined): string {
  if (!id) return "Not sorted";
  const c = ix?.byId.get(id);
  return c ? `${c.global_no}. ${c.short_title}` : id;
}

/** "Care Management Events clause 7" (the targeted-clause label), or the id. */
export function clauseLabel(ix: ClauseIndex | undefined, id: string | null | undefined): string {
  if (!id) return "";
  return ix?.byId.get(id)?.label ?? id;
}

/** Options for a clause picker: "7. Fall (Care Management Events clause 7)". */
export function clauseOptions(ix: ClauseIndex | undefined): { value: string; label: string }[] {
  return (ix?.list ?? []).map((c) => ({ value: c.clause_id, label: `${c.global_no}. ${c.short_title} (${c.label})` }));
}
