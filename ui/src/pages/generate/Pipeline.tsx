// How one case is made, as a small diagram a patient-safety expert can read: facts filled in and
// checked, a narrative written, read back and checked, and for missing-information variants an
// incomplete first report written, read back and checked for leaks. Each role has one name
// everywhere (ROLE_LABEL).

import { ROLE_LABEL } from "./logic";

function Box({ title, role, who, kind }: { title: string; role: string; who: "writer" | "checker"; kind?: "check" }) {
  return (
    <li className={`pipe-box ${kind === "check" ? "pipe-check" : "pipe-write"}`}>
      <span className="pipe-title">{title}</span>
      <span className="pipe-role">{role}</span>
      <span className={`pipe-who pipe-who-${who}`}>
        <span aria-hidden>{who === "writer" ? "✎ " : "✓ "}</span>
        {who === "writer" ? "writer model" : "checker model"}
      </span>
    </li>
  );
}

function Arrow({ back = false, label }: { back?: boolean; label: string }) {
  return (
    <li className="pipe-arrow" aria-label={label}>
      <span aria-hidden>{back ? "⇄" : "→"}</span>
    </li>
  );
}

export function PipelineDiagram() {
  return (
    <div className="pipeline" aria-label="How a case is made">
      <div className="pipe-inputs small">
        <span className="pipe-input">
          <strong>Clause card</strong> — the exact kind of event and its verdict
        </span>
        <span aria-hidden>+</span>
        <span className="pipe-input">
          <strong>Anchor</strong> — a real report to borrow the setting from
        </span>
      </div>
      <div className="pipe-phase">
        <h3>
          <span className="pipe-step">1</span> Facts
        </h3>
        <ol className="pipe-row">
          <Box title="Fill in the facts" role={ROLE_LABEL.instantiator} who="writer" />
          <Arrow back label="then, until the check passes (up to 3 attempts)" />
          <Box title="Check the facts against the card" role={ROLE_LABEL.instantiation_verifier} who="checker" kind="check" />
        </ol>
      </div>
      <div className="pipe-phase">
        <h3>
          <span className="pipe-step">2</span> Narrative
        </h3>
        <ol className="pipe-row">
          <Box title="Write the report" role={ROLE_LABEL.narrator} who="writer" />
          <Arrow label="then" />
          <Box title="Read it back into facts" role={ROLE_LABEL.extractor} who="checker" kind="check" />
          <Arrow label="then" />
          <Box title="Check nothing was lost or changed" role={ROLE_LABEL.narrative_verifier} who="checker" kind="check" />
          <Arrow label="then" />
          <Box title="Check the facts against every clause" role={ROLE_LABEL.clause_screen} who="checker" kind="check" />
        </ol>
      </div>
      <div className="pipe-phase pipe-missing">
        <h3>
          <span className="pipe-step">3</span> Incomplete report <span className="muted small">(for a missing-information variant, when the card has one)</span>
        </h3>
        <ol className="pipe-row">
          <Box title="Write the incomplete first report" role={ROLE_LABEL.missing_narrator} who="writer" />
          <Arrow label="then" />
          <Box title="Read it back into facts" role={ROLE_LABEL.extractor} who="checker" kind="check" />
          <Arrow label="then" />
          <Box title="Check nothing withheld leaks" role={ROLE_LABEL.missing_verifier} who="checker" kind="check" />
        </ol>
      </div>
      <ul className="pipe-notes small">
        <li>
          <strong>Up to 3 attempts per stage.</strong> When a check fails, its list of problems goes back to the writer for the next attempt. A candidate
          that fails three times is dropped, and the reason is kept.
        </li>
        <li>
          <strong>The clause screen reads the facts against the whole policy</strong> without seeing the card&apos;s verdict. If it finds another clause
          met (or, for an undecided card, no open question), its reasons go back to the writer, who fills in the facts again. The screen and the quick checks
          below are additions of the studio protocol; the paper protocol has neither.
        </li>
        <li>
          <strong>Quick checks in code come first</strong> and cost nothing: verdict words, clause or recommendation numbers, card ids, empty facts, and
          withheld facts copied into an incomplete report.
        </li>
        <li>
          <strong>The verdict is known by construction.</strong> Every accepted case inherits its card's verdict, clause and legal basis; nobody labels it
          afterwards.
        </li>
      </ul>
    </div>
  );
}
