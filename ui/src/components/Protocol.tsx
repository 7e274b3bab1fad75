// The protocol choice of a new run, its badge, and a run's "Made with" panel. The words and the
// formatting live in protocol.ts; the list of what the studio protocol adds comes from the engine
// (`protocol.additions`), the same list the documentation reads.

import { ReactNode, useId } from "react";
import { useApi } from "../api/client";
import type { Protocol, RunProvenance } from "../api/generated";
import { KeyValues } from "./Layout";
import { madeWith, NOT_RECORDED, PROTOCOL_CHOICES, protocolName } from "./protocol";
import "./protocol.css";

export function ProtocolBadge({ protocol }: { protocol: Protocol }) {
  return (
    <span className={`badge protocol protocol-${protocol}`} title={protocol === "paper" ? "The paper's method only" : "The paper's method with this application's additions"}>
      <span aria-hidden className="badge-icon">
        {protocol === "paper" ? "▤" : "✚"}
      </span>
      {protocolName(protocol)} protocol
    </span>
  );
}

/** What the studio protocol adds to the paper's method, as the engine lists it. */
export function StudioAdditions({ summary = "What does the studio protocol add?" }: { summary?: string }) {
  const additions = useApi("protocol.additions", {});
  return (
    <details className="protocol-additions small">
      <summary>{summary}</summary>
      {additions.error && <p className="error-text">The list could not be loaded: {additions.error.message}</p>}
      {!additions.data && !additions.error && <p className="muted">Loading…</p>}
      {additions.data && (
        <>
          <p>Under the paper protocol, the additions that concern generation and evaluation are turned off.</p>
          <ul>
            {additions.data.map((a) => (
              <li key={a.id}>
                {a.what} <span className="muted">Effect: {a.changes}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </details>
  );
}

/** The protocol of a new run: a radio group with the studio protocol recommended, and what it adds. */
export function ProtocolChoiceField({ value, onChange, note, hideLegend = false }: { value: Protocol; onChange: (p: Protocol) => void; note?: ReactNode; hideLegend?: boolean }) {
  const name = useId();
  return (
    <fieldset className={`protocol-choice ${hideLegend ? "protocol-choice-bare" : ""}`}>
      <legend className={hideLegend ? "sr-only" : undefined}>Protocol</legend>
      {PROTOCOL_CHOICES.map((c) => (
        <div key={c.value} className="protocol-option">
          <label>
            <input type="radio" name={name} value={c.value} checked={value === c.value} onChange={() => onChange(c.value)} />
            {c.label}
          </label>
          <div className="hint">{c.detail}</div>
        </div>
      ))}
      {note}
      <StudioAdditions />
    </fieldset>
  );
}

function Hash({ short, full }: { short: string; full: string }) {
  return (
    <code className="id" title={full}>
      {short}
    </code>
  );
}

/** How a run was made: protocol, policy edition, card library, case set, judge and prompts. */
export function MadeWithPanel({ provenance, kind, title = "Made with" }: { provenance: RunProvenance | null | undefined; kind: "evaluation" | "generation"; title?: string }) {
  const policies = useApi("policies.list", {});
  const nameOf = (id: string) => policies.data?.find((p) => p.id === id)?.name;
  const m = madeWith(provenance, kind, nameOf);
  const headId = useId();
  return (
    <section className="made-with" aria-labelledby={headId} data-testid="made-with">
      <h3 id={headId}>{title}</h3>
      {!m ? (
        <p className="small muted">{NOT_RECORDED}</p>
      ) : (
        <KeyValues
          items={[
            [
              "Protocol",
              <span className="row gap wrap">
                <ProtocolBadge protocol={m.protocol} /> <span className="small muted">{m.protocolMeaning}</span>
              </span>,
            ],
            [
              m.policies.length === 1 ? "Policy" : "Policies",
              <ul className="plain-list">
                {m.policies.map((p) => (
                  <li key={p.policy}>
                    {p.name}, {p.edition} <span className="small muted">text</span> <Hash {...p.hash} />
                  </li>
                ))}
              </ul>,
            ],
            ["Card library", <Hash {...m.library} />],
            [
              kind === "generation" ? "Cards used" : "Case set",
              <span>
                {m.caseSet} <Hash {...m.caseSetHash} />
              </span>,
            ],
            ...(kind === "evaluation" ? ([["Judge", m.judge ?? <span className="muted">not on record</span>]] as [ReactNode, ReactNode][]) : []),
            [
              "Prompts",
              <details className="small">
                <summary>{m.prompts.length === 1 ? "1 prompt" : `${m.prompts.length} prompts`}, with their versions</summary>
                <ul className="plain-list made-with-prompts">
                  {m.prompts.map((p) => (
                    <li key={p.name}>
                      <code className="id">{p.name}</code> <span className="muted">version</span> <code className="id">{p.version}</code>
                    </li>
                  ))}
                </ul>
              </details>,
            ],
          ]}
        />
      )}
    </section>
  );
}
