// Which cases a run uses, as the engine's selection string (`all`, or a filter such as
// `type=missing,clause=ID,origin=demo,limit=20,seed=1`), and back.

import type { EvaluationRunView, ItemCounts } from "../../api/generated";
import { isResumable } from "../../runStatus";

export type CaseChoice = {
  /** "" = every case type. */
  type: "" | "complete" | "missing" | "uncertain";
  /** Clause id, "" = every clause. */
  clause: string;
  /** "" = every origin; otherwise demo, imported or generated. */
  origin: string;
  /** Largest number of cases (null = no limit). */
  limit: number | null;
  /** Random sample seed, used with a limit (null = the first cases in store order). */
  seed: number | null;
};

export const ALL_CASES: CaseChoice = { type: "", clause: "", origin: "", limit: null, seed: null };

const positive = (n: number | null): n is number => n !== null && Number.isFinite(n) && n > 0;

export function buildSelection(c: CaseChoice): string {
  const parts: string[] = [];
  if (c.type) parts.push(`type=${c.type}`);
  if (c.clause.trim()) parts.push(`clause=${c.clause.trim()}`);
  if (c.origin) parts.push(`origin=${c.origin}`);
  if (positive(c.limit)) {
    parts.push(`limit=${Math.floor(c.limit)}`);
    if (c.seed !== null && Number.isFinite(c.seed) && c.seed >= 0) parts.push(`seed=${Math.floor(c.seed)}`);
  }
  return parts.length ? parts.join(",") : "all";
}

export function parseSelection(s: string): CaseChoice {
  const out: CaseChoice = { ...ALL_CASES };
  const t = s.trim();
  if (!t || t === "all" || !t.includes("=")) return out;
  for (const part of t.split(",")) {
    const [k, v = ""] = part.split("=", 2).map((x) => x.trim());
    if (k === "type" && (v === "complete" || v === "missing" || v === "uncertain")) out.type = v;
    else if (k === "clause") out.clause = v;
    else if (k === "origin") out.origin = v;
    else if (k === "limit" && v !== "") out.limit = Number(v);
    else if (k === "seed" && v !== "") out.seed = Number(v);
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = { complete: "complete", missing: "missing-information", uncertain: "uncertain" };
const ORIGIN_WORDS: Record<string, string> = { demo: "demo", imported: "imported", generated: "generated" };

/** "20 randomly chosen missing-information cases of Care Management Events clause 1 (seed 1)". */
export function describeSelection(c: CaseChoice, clauseLabel?: (id: string) => string): string {
  const kind = [c.origin ? ORIGIN_WORDS[c.origin] ?? c.origin : "", c.type ? TYPE_WORDS[c.type] : ""].filter(Boolean).join(" ");
  const cases = kind ? `${kind} cases` : "cases";
  const of = c.clause ? ` of ${clauseLabel ? clauseLabel(c.clause) : c.clause}` : "";
  if (positive(c.limit)) {
    const n = Math.floor(c.limit);
    return c.seed !== null && Number.isFinite(c.seed) ? `${n} randomly chosen ${cases}${of} (seed ${c.seed})` : `The first ${n} ${cases}${of}`;
  }
  return `All ${cases}${of}`;
}

/** Runs that can be resumed (stopped, failed, interrupted or stopped at their spending cap, and not imported). */
export function canResume(r: EvaluationRunView): boolean {
  return !isImported(r) && isResumable(r.status) && r.counts.done < r.counts.total;
}

export function isImported(r: EvaluationRunView): boolean {
  return r.config.imported === true;
}

/** The roles the built-in demo model (a simulation) played in a run, in plain words. */
export function simulatedRoles(r: EvaluationRunView): string[] {
  const m = r.config.models;
  if (!m) return [];
  const roles: [typeof m.eval, string][] = [
    [m.eval, "model under test"],
    [m.info, "information provider"],
    [m.judge, "judge"],
  ];
  return roles.filter(([x]) => x.simulation === true).map(([, role]) => role);
}

/** A simulation (the built-in demo model) played some role in the run: its results are labelled so. */
export function isSimulation(r: EvaluationRunView): boolean {
  return simulatedRoles(r).length > 0;
}

/** The model under test; imported runs without one show their label or id. */
export function runModel(r: EvaluationRunView): string {
  return r.config.model || (r.label ?? r.run_id);
}

/** Verdict accuracy so far (percent of finished cases), null when nothing is finished. */
export function accuracySoFar(c: Pick<ItemCounts, "done" | "correct">): number | null {
  return c.done > 0 ? (100 * c.correct) / c.done : null;
}
