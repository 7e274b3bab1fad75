// Which stored data each API method shows, in the kinds of the engine's change events (see the
// `change_feed` module of the engine). A page's data is fetched again when a kind it shows changes,
// wherever the change was made: this page, another page, the command line, a reviewer.

import type { ChangeKind } from "./generated";

export const ALL_KINDS: readonly ChangeKind[] = [
  "reviews",
  "runs",
  "results",
  "cases",
  "cards",
  "anchors",
  "models",
  "policies",
  "batches",
  "authoring",
  "label_audit",
];

// By the method's first part (`review.show` → `review`). A method not listed here (store
// information, library statistics, the demo) follows every kind.
const BY_AREA: Record<string, readonly ChangeKind[]> = {
  review: ["reviews"],
  authoring: ["authoring", "cards", "policies", "runs"],
  policies: ["policies", "cards"],
  policy: ["policies", "cards"],
  cards: ["cards", "policies"],
  card: ["cards", "policies"],
  cases: ["cases", "reviews"],
  case: ["cases", "reviews"],
  label_audit: ["label_audit", "runs", "cards", "cases"],
  models: ["models"],
  model: ["models"],
  batches: ["batches", "runs"],
  cache: ["runs", "results"],
  usage: ["runs", "results"],
  calls: ["runs", "results"],
  evaluation: ["runs", "results", "models"],
  metrics: ["runs", "results", "cases"],
  results: ["runs", "results", "cases"],
  anchors: ["anchors"],
  anchor: ["anchors"],
  anchor_job: ["anchors", "runs", "batches"],
  generation: ["runs", "cases", "cards", "anchors"],
  jobs: ["runs"],
};

/** The kinds of stored data a method's answer depends on. */
export function kindsOfMethod(method: string): readonly ChangeKind[] {
  return BY_AREA[method.split(".")[0]] ?? ALL_KINDS;
}

/** The kinds named by a `change` event's data; kinds this page does not know are left out. */
export function kindsOfEvent(data: string): ChangeKind[] {
  try {
    const parsed = JSON.parse(data) as { kinds?: unknown };
    if (!Array.isArray(parsed.kinds)) return [];
    return parsed.kinds.filter((k): k is ChangeKind => ALL_KINDS.includes(k as ChangeKind));
  } catch {
    return [];
  }
}

/** A number that moves whenever one of `kinds` changed (the sum of their change counts). */
export function versionOf(counts: ReadonlyMap<ChangeKind, number>, kinds: readonly ChangeKind[]): number {
  return kinds.reduce((sum, k) => sum + (counts.get(k) ?? 0), 0);
}
