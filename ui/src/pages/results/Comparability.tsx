// Whether the runs shown side by side can be compared: a warning with one sentence when they were
// made differently (protocol, prompts, policy edition, case set or judge), and per model row the
// protocol its run followed and a "differs" mark saying in what.

import type { Comparability, RunMark } from "../../api/generated";
import { Notice } from "../../components/Feedback";
import { Tip } from "../../components/Tooltip";

/** The mark of each model, by the name the metrics report gives it. */
export function marksByModel(c: Comparability | undefined): Map<string, RunMark> {
  return new Map((c?.marks ?? []).filter((m) => m.model !== "").map((m) => [m.model, m]));
}

const ASPECTS: Record<string, string> = {
  protocol: "Protocol",
  prompts: "Prompts",
  "policy edition": "Policy text",
  "case set": "Cases",
  judge: "Judge",
};

/** "protocol: paper" as "Protocol: paper". */
export function differenceText(d: string): string {
  const at = d.indexOf(": ");
  if (at < 0) return d;
  const aspect = d.slice(0, at);
  return `${ASPECTS[aspect] ?? aspect}: ${d.slice(at + 2)}`;
}

/** Above the results: what differs between the runs, in one sentence; nothing when all is alike. */
export function ComparabilityBanner({ c }: { c: Comparability | undefined }) {
  if (!c?.sentence) return null;
  if (c.comparable) {
    // Only runs that do not record how they were made: say so quietly.
    return <p className="small muted comparability-note">{c.sentence}</p>;
  }
  return (
    <Notice kind="warn" title="These numbers are not directly comparable.">
      {c.sentence} Models marked <span className="badge differs-badge">† differs</span> were made differently from the others; point at or tab to the mark
      to see how.
    </Notice>
  );
}

const PROTOCOL_TEXT: Record<string, { label: string; explain: string }> = {
  paper: { label: "paper protocol", explain: "Made with the paper's method and nothing more." },
  studio: { label: "studio protocol", explain: "Made with the paper's method plus this application's additions." },
};

/** The protocols the runs shown follow (recorded ones only). */
export function protocolsOf(c: Comparability | undefined): Set<string> {
  return new Set((c?.marks ?? []).flatMap((m) => (m.protocol ? [m.protocol] : [])));
}

/** One line under the leaderboard when every run follows the same protocol; null otherwise. */
export function sharedProtocolText(c: Comparability | undefined): string | null {
  const protocols = protocolsOf(c);
  if (protocols.size !== 1 || (c?.marks ?? []).some((m) => m.unrecorded)) return null;
  const p = [...protocols][0];
  const text = PROTOCOL_TEXT[p];
  return text ? `Every run here follows the ${text.label}: ${text.explain.charAt(0).toLowerCase()}${text.explain.slice(1)}` : null;
}

/**
 * Under a model's name: the protocol of its run (when the runs shown do not all follow the same
 * one), and the mark when it differs from the others. "Not recorded" is shown only beside runs
 * that do record how they were made.
 */
export function RunMarkBadges({ mark, showProtocol, showUnrecorded }: { mark: RunMark | undefined; showProtocol: boolean; showUnrecorded: boolean }) {
  if (!mark) return null;
  const protocol = mark.protocol && showProtocol ? PROTOCOL_TEXT[mark.protocol] : undefined;
  if (!protocol && !(mark.unrecorded && showUnrecorded) && mark.differs.length === 0) return null;
  const differs = mark.differs.map(differenceText);
  return (
    <span className="run-marks">
      {protocol && (
        <span className="badge tag" title={protocol.explain}>
          {protocol.label}
        </span>
      )}
      {mark.unrecorded && showUnrecorded && (
        <span className="badge tag" title="This run does not record how it was made (imported from a file, or made by an older version).">
          not recorded
        </span>
      )}
      {differs.length > 0 && (
        <Tip
          className="badge differs-badge"
          tip={
            <span>
              <strong>Made differently from the other runs shown.</strong>
              <ul className="differs-list">
                {differs.map((d) => (
                  <li key={d}>{d}</li>
                ))}
              </ul>
            </span>
          }
          text={`Made differently from the other runs shown: ${differs.join("; ")}.`}
        >
          † differs
        </Tip>
      )}
    </span>
  );
}
