// For a Non-reportable or Uncertain card: the fact that keeps its events out of each neighbouring
// clause (the extension field x_ruled_out, one entry per clause).

import { TextArea } from "../../../components/Forms";
import { entriesAt, fieldDomId, getAt, isObject, pointerOf, setAt, textAt } from "./cardForm";
import { Section, useForm, useNotes } from "./FormParts";

export function RuledOutSection() {
  const { doc, edit, clauseTitle } = useForm();
  const raw = getAt(doc, ["x_ruled_out"]);
  if (raw === undefined && doc.event_type === "Reportable") return null;
  if (raw !== undefined && !isObject(raw)) {
    return (
      <Section at="/x_ruled_out" title="Neighbouring clauses ruled out">
        <p className="warn-text small">This part is not written as one entry per clause; fix it in the JSON view.</p>
      </Section>
    );
  }
  const entries = entriesAt(doc, ["x_ruled_out"]);
  return (
    <Section
      at="/x_ruled_out"
      title="Neighbouring clauses ruled out"
      intro="Clauses easily mistaken for this one: for each, the fact every case of this card shows that keeps it out of that clause."
    >
      {entries.length === 0 && <p className="muted small">No clause is ruled out here. A rule for generated cases that names the clause does the same.</p>}
      {entries.map(([clause], i) => (
        <RuledOut key={i} clause={clause} title={clauseTitle(clause)} onDrop={() => edit((d) => setAt(d, ["x_ruled_out", clause], undefined))} />
      ))}
      <AddClause taken={entries.map(([c]) => c)} />
    </Section>
  );
}

function RuledOut({ clause, title, onDrop }: { clause: string; title: string | null; onDrop: () => void }) {
  const { doc, edit } = useForm();
  const at = pointerOf(["x_ruled_out", clause]);
  const notes = useNotes(at);
  return (
    <div className="form-ruled-out">
      <TextArea
        label={`What keeps the events out of ${title ?? clause}`}
        rows={2}
        value={textAt(doc, ["x_ruled_out", clause])}
        onChange={(v) => edit((d) => setAt(d, ["x_ruled_out", clause], v))}
        notes={notes}
        wrapId={fieldDomId(at)}
      />
      <button type="button" className="btn btn-small" aria-label={`Remove the entry for ${title ?? clause}`} onClick={onDrop}>
        Remove
      </button>
    </div>
  );
}

function AddClause({ taken }: { taken: string[] }) {
  const { edit, clauseIds, clauseTitle } = useForm();
  const free = clauseIds.filter((c) => !taken.includes(c));
  if (free.length === 0) return null;
  return (
    <label className="row gap-s small">
      Add an entry for
      <select
        value=""
        onChange={(e) => {
          const c = e.target.value;
          if (c) edit((d) => setAt(d, ["x_ruled_out", c], ""));
        }}
      >
        <option value="">choose a clause…</option>
        {free.map((c) => (
          <option key={c} value={c}>
            {clauseTitle(c) ?? c}
          </option>
        ))}
      </select>
    </label>
  );
}
