// The protocol a run follows (`paper` or `studio`) and "Made with": what a run recorded about how
// it was made, in words (unit-tested in protocol.test.ts; the components in Protocol.tsx stay thin).

import type { EvaluationPlan, PolicyEdition, Protocol, RunProvenance } from "../api/generated";

export const DEFAULT_PROTOCOL: Protocol = "studio";

export type ProtocolChoice = { value: Protocol; label: string; detail: string };

/** The two choices, the recommended one first. */
export const PROTOCOL_CHOICES: ProtocolChoice[] = [
  {
    value: "studio",
    label: "Studio — the paper's method with this application's additions (recommended)",
    detail: "Extra checks and clearer instructions that make fewer cases and replies go to waste.",
  },
  {
    value: "paper",
    label: "Paper — the paper's method only, for numbers comparable with the paper",
    detail: "Everything this application adds is turned off, so results can be set beside the published ones.",
  },
];

/** "Studio" or "Paper". */
export function protocolName(p: Protocol): string {
  return p === "paper" ? "Paper" : "Studio";
}

/** What the protocol means, in one phrase. */
export function protocolMeaning(p: Protocol): string {
  return p === "paper" ? "the paper's method only" : "the paper's method with this application's additions";
}

/** The words shown for a run without a record of how it was made. */
export const NOT_RECORDED = "Not recorded (imported, or made by an older version; such runs followed the studio protocol)";

/** The first `n` characters of a fingerprint (the full one goes on hover). */
export function shortHash(hash: string, n = 12): string {
  return hash.length > n ? hash.slice(0, n) : hash;
}

/** "summary edition" or "imported official text". */
export function editionName(edition: string): string {
  if (edition === "official") return "imported official text";
  if (edition === "summary") return "summary edition";
  return edition;
}

export type Fingerprint = { short: string; full: string };

export type MadeWithPolicy = { policy: string; name: string; edition: string; hash: Fingerprint };

export type MadeWithPrompt = { name: string; version: string };

/** A run's provenance as the "Made with" panel shows it. */
export type MadeWith = {
  protocol: Protocol;
  protocolName: string;
  protocolMeaning: string;
  policies: MadeWithPolicy[];
  library: Fingerprint;
  /** "12 cases" (evaluation) or "3 cards" (generation). */
  caseSet: string;
  caseSetHash: Fingerprint;
  /** The judge of an evaluation run; null for generation runs and runs without one on record. */
  judge: string | null;
  prompts: MadeWithPrompt[];
};

const fp = (h: string): Fingerprint => ({ short: shortHash(h), full: h });

const count = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/**
 * A run's provenance in words, or null when the run recorded none (imported runs, runs made by
 * an older version). `kind` says what the case set counts: an evaluation's cases or a
 * generation's cards. `policyName` turns a policy id into its name when it is known.
 */
export function madeWith(p: RunProvenance | null | undefined, kind: "evaluation" | "generation", policyName: (id: string) => string | undefined = () => undefined): MadeWith | null {
  if (!p) return null;
  return {
    protocol: p.protocol,
    protocolName: protocolName(p.protocol),
    protocolMeaning: protocolMeaning(p.protocol),
    policies: p.policy_editions.map((e: PolicyEdition) => ({ policy: e.policy, name: policyName(e.policy) ?? e.policy, edition: editionName(e.edition), hash: fp(e.source_hash) })),
    library: fp(p.library_fingerprint),
    caseSet: kind === "generation" ? count(p.case_count, "card", "cards") : count(p.case_count, "case", "cases"),
    caseSetHash: fp(p.case_set_fingerprint),
    judge: p.judge_model ?? null,
    prompts: Object.entries(p.prompt_versions)
      .filter((e): e is [string, string] => typeof e[1] === "string")
      .map(([name, version]) => ({ name, version })),
  };
}

/** The protocol a run followed: its recorded one, else studio (what runs before protocols did). */
export function runProtocol(p: RunProvenance | null | undefined): Protocol {
  return p?.protocol ?? DEFAULT_PROTOCOL;
}

/** The re-judge dialog's choices: "" keeps the run's own protocol (named), then each protocol. */
export function rejudgeChoices(own: Protocol, recorded: boolean): { value: "" | Protocol; label: string }[] {
  const ownText = recorded ? `The run's own protocol (${protocolName(own)})` : `The run's own protocol (not recorded, so ${protocolName(own)})`;
  return [
    { value: "", label: ownText },
    { value: "studio", label: "Studio — the judge also reads the clause's wording" },
    { value: "paper", label: "Paper — the judge reads only the rationale and the boundary conditions" },
  ];
}

/** The plan's policies line when the cases come from more than one policy (null otherwise). */
export function planPolicies(plan: Pick<EvaluationPlan, "policies">, policyName: (id: string) => string | undefined = () => undefined): string | null {
  if (plan.policies.length < 2) return null;
  return plan.policies.map((p) => policyName(p) ?? p).join(", ");
}
