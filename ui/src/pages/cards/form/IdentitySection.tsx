// What the card is: its id, clause and verdict (fixed here: they decide where the card belongs)
// and its definition, which the user edits.

import { TextArea } from "../../../components/Forms";
import { EVENT_TYPE_LABEL } from "../../../format";
import { fieldDomId, setAt, textAt } from "./cardForm";
import { Findings, Section, useForm, useNotes } from "./FormParts";

export function IdentitySection() {
  const { doc, edit, clauseTitle } = useForm();
  const clauseId = textAt(doc, ["clause_id"]);
  const eventType = textAt(doc, ["event_type"]);
  const title = clauseTitle(clauseId);
  const definitionNotes = useNotes("/clause_card_definition");
  return (
    <Section at="(identity)" title="What the card covers">
      <dl className="kv form-fixed">
        <div className="kv-row" id={fieldDomId("/clause_card_id")} tabIndex={-1}>
          <dt>Card</dt>
          <dd>
            <code className="id">{textAt(doc, ["clause_card_id"])}</code>
            <Findings at="/clause_card_id" />
          </dd>
        </div>
        <div className="kv-row" id={fieldDomId("/clause_id")} tabIndex={-1}>
          <dt>Clause</dt>
          <dd>
            {title ?? <code className="id">{clauseId}</code>}
            <Findings at="/clause_id" />
          </dd>
        </div>
        <div className="kv-row" id={fieldDomId("/event_type")} tabIndex={-1}>
          <dt>Verdict of its events</dt>
          <dd>
            {EVENT_TYPE_LABEL[eventType] ?? eventType}
            <Findings at="/event_type" />
          </dd>
        </div>
      </dl>
      <p className="muted small">The card, its clause and its verdict are fixed: a card for another clause or verdict is a new card.</p>
      <TextArea
        label="Definition: which events belong to this card"
        hint="One paragraph a reader can use to sort an event into or out of this card without reading the conditions."
        rows={6}
        value={textAt(doc, ["clause_card_definition"])}
        onChange={(v) => edit((d) => setAt(d, ["clause_card_definition"], v))}
        notes={definitionNotes}
        wrapId={fieldDomId("/clause_card_definition")}
      />
    </Section>
  );
}
