// The rules every generated case must obey.

import { CONSTRAINTS, listAt, setAt } from "./cardForm";
import { Section, TextList, useForm } from "./FormParts";

export function ConstraintsSection() {
  const { doc, edit } = useForm();
  return (
    <Section
      at={`/${CONSTRAINTS}`}
      title="Rules for generated cases"
      intro="What every case made from this card must respect: how the facts fit together, how they match each condition, and words the case must never use."
    >
      <TextList at={`/${CONSTRAINTS}`} items={listAt(doc, [CONSTRAINTS])} onChange={(items) => edit((d) => setAt(d, [CONSTRAINTS], items))} itemWord="rule" addLabel="Add a rule" />
    </Section>
  );
}
