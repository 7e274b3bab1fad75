// Pure helpers of the expert review pages: default guidelines, how to read agreement statistics,
// rating distributions for the chart, personal-link addresses.

import type { QueueItem, StatValue } from "../../api/generated";

/** Guidelines offered when a new review is set up (the owner can edit them). */
export const DEFAULT_GUIDELINES_TEXT = `# Reviewing benchmark cases

Thank you for taking part. Each screen shows one incident report written for PSEBench, a benchmark
that asks language models whether a patient-safety event has to be reported under the policy the
cases were written for. The reports are synthetic: each one was built from a clause card, so
the answer it should get is known in advance. Your review tells us whether the reports read like
real ones and whether that answer holds up.

## For each case

1. **Read the report** the way you would read one arriving at your desk.
2. **Realism, 1 to 5.** Could a care team have written this about a real event? 1: no real event
   could produce it. 5: nothing gives it away as made up. Every point is described beside its number.
3. **Plausibility, 1 to 5.** Do the facts fit with one another: timeline, people, actions and
   outcome? 1: they contradict each other. 5: everything fits.
4. **Your own verdict.** *Reportable*, *Non-reportable*, *Missing information* (facts that decide
   it are not in the report) or *Uncertain* (the facts are there, but the policy does not settle it).
   Make up your mind before looking at anything else.
5. **Compare.** Saving your verdict shows the verdict the case was built to have, with the
   conditions that decide it or the facts that were left out. Mark whether you agree, and add a
   comment when something is off: a detail, a phrase, or the verdict itself.

Your verdict is locked once the answer is shown, so that it stays a blind judgement. Ratings, the
agree mark and comments can still be changed afterwards.

## Good to know

- Every answer is saved the moment you give it. Stop whenever you like: the review opens again at
  the first case you have not finished.
- Time on a case is counted only while the page is open and you are working on it.
- Nobody else sees your answers, and you do not see theirs.
- **If you review from a pack file:** the file itself holds the verdict each case was built to
  have. The app keeps it hidden until your own verdict is saved, but nothing in the file can hide
  it from someone who opens the file in an editor, so please do not. The file is signed: answers
  from an edited pack, or an answers file edited by hand, are refused when they are merged.
- Keys: **1–5** ratings, **1–4** your verdict, **Enter** show the answer, **A** / **D** agree or
  disagree, **J** or **→** next case, **K** or **←** previous case, **G** these guidelines,
  **?** every key.
`;

/** Plain-language reading of a kappa (Landis and Koch's bands). */
export function kappaReading(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "";
  if (v < 0) return "worse than chance";
  if (v <= 0.2) return "slight";
  if (v <= 0.4) return "fair";
  if (v <= 0.6) return "moderate";
  if (v <= 0.8) return "substantial";
  return "almost perfect";
}

/** Plain-language reading of Krippendorff's alpha (his own thresholds, 0.667 and 0.800). */
export function alphaReading(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "";
  if (v >= 0.8) return "reliable";
  if (v >= 0.667) return "tentative";
  if (v < 0) return "worse than chance";
  return "unreliable";
}

export const KAPPA_GUIDE = "κ: below 0 worse than chance · 0–0.20 slight · 0.21–0.40 fair · 0.41–0.60 moderate · 0.61–0.80 substantial · 0.81–1 almost perfect";
export const ALPHA_GUIDE = "α: 0.800 or more reliable · 0.667–0.799 tentative · below 0.667 unreliable";

/** "0.72" or a dash. */
export function statText(s: StatValue): string {
  return s.value === null || s.value === undefined ? "–" : s.value.toFixed(2);
}

/** "4.5 ± 0.6" or a dash. */
export function meanSdText(m: { mean: number | null; sd: number | null; n: number }): string {
  if (m.mean === null) return "–";
  return m.sd === null ? m.mean.toFixed(2) : `${m.mean.toFixed(2)} ± ${m.sd.toFixed(2)}`;
}

export const CASE_TYPES = ["complete", "missing", "uncertain"] as const;

/** Counts of ratings 1–5 per case type, for realism and plausibility. */
export type Distribution = { caseType: string; realism: number[]; plausibility: number[] };

export function ratingDistributions(items: Pick<QueueItem, "case_type" | "answers">[]): Distribution[] {
  const by = new Map<string, Distribution>();
  for (const t of CASE_TYPES) by.set(t, { caseType: t, realism: [0, 0, 0, 0, 0], plausibility: [0, 0, 0, 0, 0] });
  for (const it of items) {
    let d = by.get(it.case_type);
    if (!d) {
      d = { caseType: it.case_type, realism: [0, 0, 0, 0, 0], plausibility: [0, 0, 0, 0, 0] };
      by.set(it.case_type, d);
    }
    for (const a of it.answers) {
      if (a.realism !== null && a.realism >= 1 && a.realism <= 5) d.realism[a.realism - 1]++;
      if (a.plausibility !== null && a.plausibility >= 1 && a.plausibility <= 5) d.plausibility[a.plausibility - 1]++;
    }
  }
  return Array.from(by.values());
}

/** Where a personal link leads: the review server's address plus the link's path. */
export function linkUrl(base: string, path: string): string {
  const b = base.trim().replace(/\/+$/, "");
  return `${b}${path.startsWith("/") ? path : `/${path}`}`;
}

/** The token of a personal link's address (`/review/<token>`), or null. */
export function reviewLinkToken(pathname: string): string | null {
  const m = pathname.match(/^\/review\/([A-Za-z0-9_-]{8,200})\/?$/);
  return m ? m[1] : null;
}

/** Name of a file for a reviewer, safe on every system. */
export function safeFilePart(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "review";
}

/** Why an adjudication cannot be recorded yet (in words), or null: a final call and a name are both needed. */
export function adjudicationBlocker(kind: string | null, adjudicator: string): string | null {
  if (!kind) return "Choose the final call first: nothing is chosen for you.";
  if (!adjudicator.trim()) return "Enter your name: the queue keeps it with the decision.";
  return null;
}
