// Fields the form has no place for (notes of the built-in library such as x_decision, fields of
// other tools): shown as they are, kept untouched, editable in the JSON view.

import { TextArea } from "../../../components/Forms";
import { otherFields } from "./cardForm";
import { Findings, Section, useForm } from "./FormParts";

export function OtherFieldsSection({ onShowJson }: { onShowJson: () => void }) {
  const { doc } = useForm();
  const other = otherFields(doc);
  const keys = Object.keys(other);
  if (keys.length === 0) return null;
  return (
    <Section at="(other)" title="Other fields" intro="Extra notes the card carries. The form keeps them as they are; change them in the JSON view.">
      {keys.map((k) => (
        <Findings key={k} at={`/${k}`} />
      ))}
      <TextArea label="Other fields, as they are stored" mono readOnly rows={Math.min(14, JSON.stringify(other, null, 2).split("\n").length)} value={JSON.stringify(other, null, 2)} onChange={() => undefined} />
      <button type="button" className="btn btn-small" onClick={onShowJson}>
        Edit them in the JSON view
      </button>
    </Section>
  );
}
