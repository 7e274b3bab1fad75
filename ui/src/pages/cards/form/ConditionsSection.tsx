// The conditions that together decide the verdict: each with its short name, whether it holds
// for this card's events, what it means, and the fact slots that show it.

import { Checkbox, Select, TextArea } from "../../../components/Forms";
import { nameTitle } from "../logic";
import { BC_PATH, EL_PATH, entriesAt, fieldDomId, freeName, getAt, listAt, pointerOf, removeCondition, renameCondition, setAt, textAt, toggleName } from "./cardForm";
import { Findings, Group, NameInput, Section, useForm, useNotes } from "./FormParts";

export function ConditionsSection() {
  const { doc, edit } = useForm();
  const names = entriesAt(doc, BC_PATH).map(([n]) => n);
  const add = () =>
    edit((d) => setAt(d, [...BC_PATH, freeName("new_condition", names)], { value: true, meaning: "", corresponding_basic_event_elements: [] }));
  return (
    <Section
      at={pointerOf(BC_PATH)}
      title="Conditions"
      intro="The facts, true or false, that together decide the verdict of this card's events. Each is shown by one or more fact slots."
    >
      {names.map((name, i) => (
        <Condition key={i} index={i} name={name} names={names} />
      ))}
      <button type="button" className="btn btn-small" onClick={add}>
        + Add a condition
      </button>
    </Section>
  );
}

function Condition({ index, name, names }: { index: number; name: string; names: string[] }) {
  const { doc, edit } = useForm();
  const path = [...BC_PATH, name];
  const at = pointerOf(path);
  const value = getAt(doc, [...path, "value"]);
  const slots = entriesAt(doc, EL_PATH).map(([n]) => n);
  const listed = listAt(doc, [...path, "corresponding_basic_event_elements"]);
  const strangers = listed.filter((s) => !slots.includes(s));
  const valueNotes = useNotes(`${at}/value`);
  const meaningNotes = useNotes(`${at}/meaning`);
  const title = `Condition ${index + 1}: ${nameTitle(name)}`;
  return (
    <Group
      at={at}
      title={title}
      actions={
        <button type="button" className="btn btn-small" aria-label={`Remove condition ${index + 1} (${nameTitle(name)})`} onClick={() => edit((d) => removeCondition(d, name))}>
          Remove
        </button>
      }
    >
      <div className="grid-2">
        <NameInput label="Short name" name={name} taken={names} onRename={(to) => edit((d) => renameCondition(d, name, to))} />
        <Select
          label="For this card's events, the condition is"
          value={value === true ? "true" : value === false ? "false" : ""}
          options={[
            ...(typeof value === "boolean" ? [] : [{ value: "", label: "Not set" }]),
            { value: "true", label: "True: it holds" },
            { value: "false", label: "False: it does not hold" },
          ]}
          onChange={(v) => edit((d) => setAt(d, [...path, "value"], v === "true" ? true : v === "false" ? false : null))}
          notes={valueNotes}
          wrapId={fieldDomId(`${at}/value`)}
        />
      </div>
      <TextArea
        label="What it means"
        hint="The criterion in plain words, with the inclusion or exclusion it stands for."
        rows={4}
        value={textAt(doc, [...path, "meaning"])}
        onChange={(v) => edit((d) => setAt(d, [...path, "meaning"], v))}
        notes={meaningNotes}
        wrapId={fieldDomId(`${at}/meaning`)}
      />
      <fieldset className="form-checks" id={fieldDomId(`${at}/corresponding_basic_event_elements`)}>
        <legend>Fact slots that show whether it holds</legend>
        <Findings at={`${at}/corresponding_basic_event_elements`} />
        {slots.length === 0 && <p className="muted small">The card has no fact slots yet; add them below.</p>}
        {slots.map((s) => (
          <Checkbox key={s} label={nameTitle(s)} checked={listed.includes(s)} onChange={(on) => edit((d) => toggleName(d, [...path, "corresponding_basic_event_elements"], s, on))} />
        ))}
        {strangers.map((s) => (
          <div key={s} className="row gap-s">
            <span>
              <span aria-hidden>⚠ </span>
              <code className="id">{s}</code> is listed but is not a fact slot of this card.
            </span>
            <button type="button" className="btn btn-small" aria-label={`Take ${s} off condition ${index + 1}`} onClick={() => edit((d) => toggleName(d, [...path, "corresponding_basic_event_elements"], s, false))}>
              Take it off
            </button>
          </div>
        ))}
      </fieldset>
    </Group>
  );
}

