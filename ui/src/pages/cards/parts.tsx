// Small pieces shared by the Card library views.

import type { LintProblem } from "../../api/generated";
import { humanize } from "../../format";
import { href } from "../../router";
import { ORIGIN_LABEL, splitKnownIds } from "./logic";

/** Errors and warnings as icon + number (never colour alone); a calm tick when there are none. */
export function LintCount({ errors, warnings }: { errors: number; warnings: number }) {
  if (errors === 0 && warnings === 0) {
    return (
      <span className="lint-count lint-none" title="No problems">
        <span aria-hidden>✓</span>
        <span className="sr-only">No problems</span>
      </span>
    );
  }
  return (
    <span className="lint-count">
      {errors > 0 && (
        <span className="lint-err" title={`${errors} error${errors === 1 ? "" : "s"}`}>
          <span aria-hidden>✖</span> {errors}
          <span className="sr-only"> error{errors === 1 ? "" : "s"}</span>
        </span>
      )}
      {warnings > 0 && (
        <span className="lint-warn" title={`${warnings} warning${warnings === 1 ? "" : "s"}`}>
          <span aria-hidden>⚠</span> {warnings}
          <span className="sr-only"> warning{warnings === 1 ? "" : "s"}</span>
        </span>
      )}
    </span>
  );
}

export function SeverityBadge({ severity }: { severity: LintProblem["severity"] }) {
  return severity === "error" ? (
    <span className="badge sev-error">
      <span aria-hidden className="badge-icon">
        ✖
      </span>
      Error
    </span>
  ) : (
    <span className="badge sev-warning">
      <span aria-hidden className="badge-icon">
        ⚠
      </span>
      Warning
    </span>
  );
}

export function OriginBadge({ origin }: { origin: string }) {
  const label = ORIGIN_LABEL[origin] ?? origin;
  const title =
    origin === "builtin"
      ? "Built-in, audited by the PSEBench Studio team"
      : origin === "edited"
        ? "A built-in card you changed; the built-in text stays in its history"
        : undefined;
  return (
    <span className={`badge origin origin-${origin}`} title={title}>
      <span aria-hidden className="badge-icon">
        {origin === "builtin" ? "★" : origin === "edited" ? "✎" : "⤒"}
      </span>
      {label}
    </span>
  );
}

/** A condition's intended truth value as a word and an icon. */
export function TruthValue({ value }: { value: boolean }) {
  return value ? (
    <span className="truth truth-yes">
      <span aria-hidden className="truth-icon">
        ✓
      </span>
      holds
    </span>
  ) : (
    <span className="truth truth-no">
      <span aria-hidden className="truth-icon">
        ✗
      </span>
      does not hold
    </span>
  );
}

/** A named thing of the card (condition or fact slot) as a chip; clickable when `onClick` is given. */
export function NameChip({ name, kind, onClick, missing = false }: { name: string; kind: "bc" | "el"; onClick?: () => void; missing?: boolean }) {
  const text = humanize(name);
  const cls = `chip chip-${kind} ${missing ? "chip-missing" : ""}`;
  const title = missing ? `${name}: not defined on this card` : name;
  if (onClick && !missing) {
    return (
      <button type="button" className={cls} onClick={onClick} title={`${name}: show this ${kind === "el" ? "fact slot" : "condition"}`}>
        {text}
      </button>
    );
  }
  return (
    <span className={cls} title={title}>
      {missing && <span aria-hidden>⚠ </span>}
      {text}
      {missing && <span className="sr-only"> (not defined on this card)</span>}
    </span>
  );
}

/** Text in which known card ids become links to those cards. */
export function ProseWithCardIds({ text, known }: { text: string; known: Set<string> }) {
  const pieces = splitKnownIds(text, known);
  return (
    <>
      {pieces.map((p, i) =>
        typeof p === "string" ? (
          <span key={i}>{p}</span>
        ) : (
          <a key={i} href={href("/cards", p.id)} className="id-link">
            {p.id}
          </a>
        ),
      )}
    </>
  );
}

/** Text in which names of fact slots become buttons that show them. */
export function ProseWithNames({ text, names, onName }: { text: string; names: Set<string>; onName: (n: string) => void }) {
  const pieces = splitKnownIds(text, names);
  return (
    <>
      {pieces.map((p, i) =>
        typeof p === "string" ? (
          <span key={i}>{p}</span>
        ) : (
          <button key={i} type="button" className="inline-name" onClick={() => onName(p.id)} title={`Show the fact slot ${p.id}`}>
            {p.id}
          </button>
        ),
      )}
    </>
  );
}

/** "24 Nov 2026" (the time is in the title where it matters). */
export function day(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
}

/** Shown when a card cites guidance the policy pack marks provisional (not yet checked against the official text). */
export function ProvisionalBadge({ ids, long = false }: { ids: string[]; long?: boolean }) {
  if (ids.length === 0) return null;
  const title = `Rests on provisional guidance (not yet checked against the official text): ${ids.join(", ")}`;
  return (
    <span className="badge badge-provisional" title={title}>
      <span aria-hidden>⚑</span> provisional
      {long ? <span className="provisional-ids">: {ids.join(", ")}</span> : <span className="sr-only">: {ids.join(", ")}</span>}
    </span>
  );
}
