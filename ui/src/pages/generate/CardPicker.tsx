// Tick the cards to generate from: search by id, clause, or words of the definition.

import { useMemo, useState } from "react";
import type { CardSummary } from "../../api/generated";
import { EventTypeBadge, StatusBadge } from "../../components/Badges";
import { plural } from "../../format";
import type { ClauseIndex } from "../anchors/clauses";
import { clauseShort } from "../anchors/clauses";

export function CardPicker({
  cards,
  clauses,
  chosen,
  onChange,
}: {
  cards: CardSummary[];
  clauses: ClauseIndex | undefined;
  chosen: string[];
  onChange: (ids: string[]) => void;
}) {
  const [q, setQ] = useState("");
  const [approvedOnly, setApprovedOnly] = useState(true);
  const set = useMemo(() => new Set(chosen), [chosen]);
  const shown = useMemo(() => {
    const words = q.trim().toLowerCase().split(/\s+/).filter(Boolean);
    return cards
      .filter((c) => !approvedOnly || c.status === "approved" || set.has(c.card_id))
      .filter((c) => {
        if (words.length === 0) return true;
        const hay = `${c.card_id} ${clauseShort(clauses, c.clause_id)} ${c.clause_label ?? ""} ${c.category ?? ""} ${c.event_type} ${c.definition}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      })
      .sort((a, b) => (clauses?.byId.get(a.clause_id)?.global_no ?? 99) - (clauses?.byId.get(b.clause_id)?.global_no ?? 99) || a.card_id.localeCompare(b.card_id));
  }, [cards, clauses, q, approvedOnly, set]);
  const toggle = (id: string, on: boolean) => onChange(on ? [...chosen, id] : chosen.filter((x) => x !== id));
  return (
    <div className="card-picker">
      <div className="row gap wrap">
        <div className="field grow">
          <label htmlFor="card-search">Find cards</label>
          <input id="card-search" type="search" value={q} placeholder="Card id, clause, or words of the definition" onChange={(e) => setQ(e.target.value)} />
        </div>
        <label className="row gap small picker-approved">
          <input type="checkbox" checked={approvedOnly} onChange={(e) => setApprovedOnly(e.target.checked)} /> Approved cards only
        </label>
      </div>
      <div className="row between small picker-bar">
        <span aria-live="polite">
          {plural(chosen.length, "card")} ticked · {plural(shown.length, "card")} shown
        </span>
        {chosen.length > 0 && (
          <button type="button" className="btn-ghost btn-small" onClick={() => onChange([])}>
            Untick all
          </button>
        )}
      </div>
      <ul className="picker-list" aria-label="Cards">
        {shown.map((c) => (
          <li key={c.card_id} className={set.has(c.card_id) ? "checked" : ""}>
            <label>
              <input
                type="checkbox"
                checked={set.has(c.card_id)}
                onChange={(e) => toggle(c.card_id, e.target.checked)}
                aria-label={`${c.card_id}: ${clauseShort(clauses, c.clause_id)}, ${c.event_type.replace("_", "-")}`}
              />
              <span className="picker-main">
                <span className="row gap wrap">
                  <strong>{clauseShort(clauses, c.clause_id)}</strong>
                  <EventTypeBadge eventType={c.event_type} />
                  {c.status !== "approved" && <StatusBadge status={c.status} />}
                  <code className="id">{c.card_id}</code>
                </span>
                <span className="picker-def muted small">{c.definition}</span>
              </span>
            </label>
          </li>
        ))}
        {shown.length === 0 && <li className="muted small picker-none">No card matches “{q}”.</li>}
      </ul>
      {chosen.some((id) => cards.find((c) => c.card_id === id)?.status !== "approved") && (
        <p className="small warn-text">
          <span aria-hidden>⚠ </span>Some ticked cards are not approved: cases from them rest on a specification no person has signed off.
        </p>
      )}
    </div>
  );
}
