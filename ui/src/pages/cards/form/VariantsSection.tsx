// Missing-information variants: early, partial reports of this card's events, with the
// conditions they leave open and the facts they leave out.

import { Checkbox, TextArea, TextInput } from "../../../components/Forms";
import { nameTitle } from "../logic";
import { BC_PATH, EL_PATH, entriesAt, fieldDomId, freeName, getAt, listAt, setAt, textAt, toggleName, VARIANTS } from "./cardForm";
import { Findings, Group, Section, useForm, useNotes } from "./FormParts";

export function VariantsSection() {
  const { doc, edit } = useForm();
  const raw = getAt(doc, [VARIANTS]);
  const variants = Array.isArray(raw) ? raw : [];
  if (raw === undefined && doc.event_type === "Uncertain") return null;
  const ids = variants.map((_, i) => textAt(doc, [VARIANTS, i, "missing_variant_id"]));
  const add = () =>
    edit((d) =>
      setAt(d, [VARIANTS, variants.length], {
        missing_variant_id: freeName("missing_new_fact", ids),
        summary: "",
        masked_boundary_conditions: [],
        masked_basic_event_elements: [],
        why_reasonable_in_real_world: "",
        why_not_classifiable_from_remaining_event_description: "",
      }),
    );
  return (
    <Section
      at={`/${VARIANTS}`}
      title="Missing-information variants"
      intro="Early, partial reports of this card's events: some facts are not known yet, so what is left fits this card and another card of the clause."
    >
      {!Array.isArray(raw) && raw !== undefined && <p className="warn-text small">This part is not a list; fix it in the JSON view.</p>}
      {variants.map((_, i) => (
        <Variant key={i} index={i} />
      ))}
      <button type="button" className="btn btn-small" onClick={add}>
        + Add a variant
      </button>
    </Section>
  );
}

function Variant({ index }: { index: number }) {
  const { doc, edit } = useForm();
  const path = [VARIANTS, index];
  const at = `/${VARIANTS}/${index}`;
  const id = textAt(doc, [...path, "missing_variant_id"]);
  const conditions = entriesAt(doc, BC_PATH).map(([n]) => n);
  const slots = entriesAt(doc, EL_PATH).map(([n]) => n);
  const maskedBc = listAt(doc, [...path, "masked_boundary_conditions"]);
  const maskedEl = listAt(doc, [...path, "masked_basic_event_elements"]);
  const text = (field: string) => ({
    value: textAt(doc, [...path, field]),
    onChange: (v: string) => edit((d) => setAt(d, [...path, field], v)),
    wrapId: fieldDomId(`${at}/${field}`),
  });
  const idNotes = useNotes(`${at}/missing_variant_id`);
  const summaryNotes = useNotes(`${at}/summary`);
  const whyNotes = useNotes(`${at}/why_reasonable_in_real_world`);
  const whyNotNotes = useNotes(`${at}/why_not_classifiable_from_remaining_event_description`);
  return (
    <Group
      at={at}
      title={`Variant ${index + 1}`}
      actions={
        <button type="button" className="btn btn-small" aria-label={`Remove variant ${index + 1}`} onClick={() => edit((d) => setAt(d, path, undefined))}>
          Remove
        </button>
      }
    >
      <TextInput label="Variant name" hint='Starts with "missing_" and names what is withheld, e.g. missing_outcome_severity.' {...text("missing_variant_id")} notes={idNotes} />
      <TextArea label="What the first report looks like" rows={2} {...text("summary")} notes={summaryNotes} />
      <div className="grid-2">
        <fieldset className="form-checks" id={fieldDomId(`${at}/masked_boundary_conditions`)}>
          <legend>Conditions the report leaves open</legend>
          <Findings at={`${at}/masked_boundary_conditions`} />
          {conditions.map((c) => (
            <Checkbox key={c} label={nameTitle(c)} checked={maskedBc.includes(c)} onChange={(on) => edit((d) => toggleName(d, [...path, "masked_boundary_conditions"], c, on))} />
          ))}
          <Strangers names={maskedBc.filter((c) => !conditions.includes(c))} what="condition" onDrop={(c) => edit((d) => toggleName(d, [...path, "masked_boundary_conditions"], c, false))} />
        </fieldset>
        <fieldset className="form-checks" id={fieldDomId(`${at}/masked_basic_event_elements`)}>
          <legend>Facts left out of the report</legend>
          <Findings at={`${at}/masked_basic_event_elements`} />
          {slots.map((s) => (
            <Checkbox key={s} label={nameTitle(s)} checked={maskedEl.includes(s)} onChange={(on) => edit((d) => toggleName(d, [...path, "masked_basic_event_elements"], s, on))} />
          ))}
          <Strangers names={maskedEl.filter((s) => !slots.includes(s))} what="fact slot" onDrop={(s) => edit((d) => toggleName(d, [...path, "masked_basic_event_elements"], s, false))} />
        </fieldset>
      </div>
      <TextArea label="Why these facts are missing in real first reports" rows={2} {...text("why_reasonable_in_real_world")} notes={whyNotes} />
      <TextArea label="Why what is left cannot decide the verdict" hint="Name the other card the remaining facts also fit." rows={3} {...text("why_not_classifiable_from_remaining_event_description")} notes={whyNotNotes} />
      {id === "" && <p className="muted small">Give the variant a name.</p>}
    </Group>
  );
}

function Strangers({ names, what, onDrop }: { names: string[]; what: string; onDrop: (name: string) => void }) {
  return (
    <>
      {names.map((n) => (
        <div key={n} className="row gap-s">
          <span>
            <span aria-hidden>⚠ </span>
            <code className="id">{n}</code> is listed but is not a {what} of this card.
          </span>
          <button type="button" className="btn btn-small" aria-label={`Take ${n} off the list`} onClick={() => onDrop(n)}>
            Take it off
          </button>
        </div>
      ))}
    </>
  );
}
