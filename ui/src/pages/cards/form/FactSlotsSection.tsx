// The fact slots (basic event elements): neutral facts a case fills in, each with its kind of
// value, what it holds, what a value may look like and what it must not contain.

import { Select, TextArea } from "../../../components/Forms";
import { FIELD_TYPE_LABEL, nameTitle } from "../logic";
import { EL_PATH, entriesAt, fieldDomId, freeName, getAt, listAt, pointerOf, removeSlot, renameSlot, setAt, textAt, type Doc } from "./cardForm";
import { Findings, Group, NameInput, Section, TextList, useForm, useNotes } from "./FormParts";

export function FactSlotsSection() {
  const { doc, edit } = useForm();
  const names = entriesAt(doc, EL_PATH).map(([n]) => n);
  const add = () =>
    edit((d) => setAt(d, [...EL_PATH, freeName("new_fact", names)], { field_type: "string", meaning: "", allowed_content: "", disallowed_content: "" }));
  return (
    <Section
      at={pointerOf(EL_PATH)}
      title="Fact slots"
      intro="The neutral facts a generated case fills in. A slot says what fact it holds, never a conclusion; every slot shows at least one condition."
    >
      {names.map((name, i) => (
        <FactSlot key={i} index={i} name={name} names={names} />
      ))}
      <button type="button" className="btn btn-small" onClick={add}>
        + Add a fact slot
      </button>
    </Section>
  );
}

function FactSlot({ index, name, names }: { index: number; name: string; names: string[] }) {
  const { doc, edit } = useForm();
  const path = [...EL_PATH, name];
  const at = pointerOf(path);
  const fieldType = textAt(doc, [...path, "field_type"]);
  const set = (key: string, v: Doc[string] | undefined) => edit((d) => setAt(d, [...path, key], v));
  const typeNotes = useNotes(`${at}/field_type`);
  const meaningNotes = useNotes(`${at}/meaning`);
  const known = Object.keys(FIELD_TYPE_LABEL);
  return (
    <Group
      at={at}
      title={`Fact slot ${index + 1}: ${nameTitle(name)}`}
      actions={
        <button type="button" className="btn btn-small" aria-label={`Remove fact slot ${index + 1} (${nameTitle(name)})`} onClick={() => edit((d) => removeSlot(d, name))}>
          Remove
        </button>
      }
    >
      <div className="grid-2">
        <NameInput label="Short name" name={name} taken={names} onRename={(to) => edit((d) => renameSlot(d, name, to))} />
        <Select
          label="Kind of value"
          value={fieldType}
          options={[
            ...(known.includes(fieldType) ? [] : [{ value: fieldType, label: fieldType ? `Unknown kind "${fieldType}"` : "Not set" }]),
            ...known.map((k) => ({ value: k, label: `${FIELD_TYPE_LABEL[k].label}: ${FIELD_TYPE_LABEL[k].hint}` })),
          ]}
          onChange={(v) => set("field_type", v)}
          notes={typeNotes}
          wrapId={fieldDomId(`${at}/field_type`)}
        />
      </div>
      <TextArea label="What fact it holds" rows={3} value={textAt(doc, [...path, "meaning"])} onChange={(v) => set("meaning", v)} notes={meaningNotes} wrapId={fieldDomId(`${at}/meaning`)} />
      <Content path={path} field="allowed_content" label="What a value may look like" word="example" />
      <Content path={path} field="disallowed_content" label="What a value must not contain" word="exclusion" />
      {(fieldType === "enum" || getAt(doc, [...path, "allowed_values"]) !== undefined) && (
        <div id={fieldDomId(`${at}/allowed_values`)} tabIndex={-1}>
          <h5 className="form-sub">Allowed values (one is chosen for each case)</h5>
          <Findings at={`${at}/allowed_values`} />
          <TextList at={`${at}/allowed_values`} items={listAt(doc, [...path, "allowed_values"])} onChange={(items) => set("allowed_values", items)} itemWord="value" addLabel="Add a value" multiline={false} />
        </div>
      )}
    </Group>
  );
}

/** Allowed or disallowed content: one text, or a list of texts, as the card has it. */
function Content({ path, field, label, word }: { path: string[]; field: string; label: string; word: string }) {
  const { doc, edit } = useForm();
  const at = pointerOf([...path, field]);
  const v = getAt(doc, [...path, field]);
  const notes = useNotes(at);
  if (Array.isArray(v)) {
    return (
      <div id={fieldDomId(at)} tabIndex={-1}>
        <h5 className="form-sub">{label}</h5>
        <Findings at={at} />
        <TextList at={at} items={listAt(doc, [...path, field])} onChange={(items) => edit((d) => setAt(d, [...path, field], items))} itemWord={word} addLabel={`Add an ${word}`} />
      </div>
    );
  }
  return <TextArea label={label} rows={3} value={textAt(doc, [...path, field])} onChange={(t) => edit((d) => setAt(d, [...path, field], t))} notes={notes} wrapId={fieldDomId(at)} />;
}
