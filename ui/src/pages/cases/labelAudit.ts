// Pure helpers of the Label audit view: the case selection a form describes, the words for a
// model's screen, and the share of disputed cases.

export type AuditScope = { kind: "all" } | { kind: "clause"; clause: string } | { kind: "type"; verdict: "Reportable" | "Non-reportable" | "Uncertain" };

/** The `cases` filter string `cases.screen_*` takes. */
export function scopeFilter(s: AuditScope): string {
  switch (s.kind) {
    case "all":
      return "all";
    case "clause":
      return s.clause;
    case "type":
      return `type:${s.verdict}`;
  }
}

/** "12 of 90 (13.3 %)" style share, or "–" when nothing was screened. */
export function disputedShare(disputed: number, screened: number): string {
  if (screened <= 0) return "–";
  return `${disputed} of ${screened} (${((100 * disputed) / screened).toFixed(1)} %)`;
}

/** One model's screen of a case in a few words. */
export function screenWords(v: { verdict: string | null; clauses_met: string[]; open_question: boolean }): string {
  const parts: string[] = [v.verdict ?? "no readable verdict"];
  if (v.clauses_met.length > 0) parts.push(`meets ${v.clauses_met.join(", ")}`);
  if (v.open_question) parts.push("open question");
  return parts.join(" · ");
}

/** The address of a new review session prefilled with these cases. */
export function reviewAddress(caseIds: string[]): string {
  return `#/review/new?cases=${encodeURIComponent(caseIds.join(","))}`;
}
