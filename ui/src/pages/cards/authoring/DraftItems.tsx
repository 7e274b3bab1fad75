// A drafted item read as a form: a card (definition, event type, conditions with their truth values
// and the slots that realise them, slots, constraints, legal basis, an Uncertain card's open
// question) or a missing-information variant.

import { EventTypeBadge } from "../../../components/Badges";
import { readCard } from "../types";
import { TruthValue } from "../parts";
import { asText, conditionWords, openQuestion } from "./logic";

function Variant({ v }: { v: Record<string, unknown> }) {
  const list = (k: string) => (Array.isArray(v[k]) ? (v[k] as unknown[]).map(String) : []);
  return (
    <dl className="kv draft-kv">
      <div className="kv-row">
        <dt>Summary</dt>
        <dd>{asText(v.summary)}</dd>
      </div>
      <div className="kv-row">
        <dt>Conditions left unknown</dt>
        <dd>{list("masked_boundary_conditions").join(", ") || "–"}</dd>
      </div>
      <div className="kv-row">
        <dt>Facts left out</dt>
        <dd>{list("masked_basic_event_elements").join(", ") || "–"}</dd>
      </div>
      <div className="kv-row">
        <dt>Why this happens in real reports</dt>
        <dd>{asText(v.why_reasonable_in_real_world)}</dd>
      </div>
      <div className="kv-row">
        <dt>Why the rest cannot decide it</dt>
        <dd>{asText(v.why_not_classifiable_from_remaining_event_description)}</dd>
      </div>
    </dl>
  );
}

function Card({ item }: { item: unknown }) {
  const c = readCard(item);
  const q = openQuestion(item);
  const bcs = Object.entries(c.fixed_fields.boundary_conditions);
  const els = Object.entries(c.basic_event_elements);
  return (
    <div className="stack">
      <div className="row gap wrap">
        <EventTypeBadge eventType={c.event_type} />
        <span className="readable">{c.clause_card_definition || <em className="muted">No definition</em>}</span>
      </div>
      {q && (
        <div className="open-question" data-testid="open-question">
          <strong>Open question</strong> <code className="id">{q.section_id}</code>
          <p className="readable">{q.question}</p>
        </div>
      )}
      <table className="data compact">
        <caption className="cap-left">Conditions</caption>
        <thead>
          <tr>
            <th>Condition</th>
            <th>Value</th>
            <th>Meaning</th>
            <th>Realised by</th>
          </tr>
        </thead>
        <tbody>
          {bcs.map(([name, bc]) => (
            <tr key={name}>
              <td>
                {conditionWords(name)} <code className="id">{name}</code>
              </td>
              <td>{typeof bc?.value === "boolean" ? <TruthValue value={bc.value} /> : <span className="error-text">not true/false</span>}</td>
              <td>{String(bc?.meaning ?? "")}</td>
              <td>{Array.isArray(bc?.corresponding_basic_event_elements) ? bc.corresponding_basic_event_elements.join(", ") : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="data compact">
        <caption className="cap-left">Fact slots</caption>
        <thead>
          <tr>
            <th>Slot</th>
            <th>Meaning</th>
            <th>Allowed</th>
            <th>Not allowed</th>
          </tr>
        </thead>
        <tbody>
          {els.map(([name, el]) => (
            <tr key={name}>
              <td>
                <code className="id">{name}</code>
              </td>
              <td>{String(el?.meaning ?? "")}</td>
              <td>{typeof el?.allowed_content === "string" ? el.allowed_content : JSON.stringify(el?.allowed_content ?? "")}</td>
              <td>{typeof el?.disallowed_content === "string" ? el.disallowed_content : JSON.stringify(el?.disallowed_content ?? "")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div>
        <h4>Constraints</h4>
        <ul className="small">
          {c.constraints_on_basic_event_elements_instantiation.map((t, i) => (
            <li key={i}>{t}</li>
          ))}
        </ul>
      </div>
      <div>
        <h4>Legal basis</h4>
        <p className="small">
          {c.fixed_fields.governing_legal_basis.value.map((v) => (
            <code key={v} className="id legal-id">
              {v}
            </code>
          ))}{" "}
          {c.fixed_fields.governing_legal_basis.meaning}
        </p>
      </div>
    </div>
  );
}

export function DraftItem({ item, itemId, kind, errors, warnings }: { item: unknown; itemId: string; kind: string; errors: number; warnings: number }) {
  return (
    <article className="draft-item" data-item={itemId} aria-label={`Drafted ${kind === "missing" ? "variant" : "card"} ${itemId}`}>
      <header className="row between wrap">
        <h3>
          <code className="id">{itemId}</code>
        </h3>
        <span className="small">
          {errors > 0 && <span className="error-text">{errors} error{errors === 1 ? "" : "s"} </span>}
          {warnings > 0 && <span className="warn-text">{warnings} warning{warnings === 1 ? "" : "s"}</span>}
          {errors === 0 && warnings === 0 && <span className="muted">No problems</span>}
        </span>
      </header>
      {kind === "missing" ? <Variant v={(item && typeof item === "object" ? item : {}) as Record<string, unknown>} /> : <Card item={item} />}
    </article>
  );
}
