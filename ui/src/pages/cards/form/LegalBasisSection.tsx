// The passages of the policy the verdict rests on, and how they lead to it.

import { useId } from "react";
import { TextArea } from "../../../components/Forms";
import { fieldDomId, listAt, setAt, textAt } from "./cardForm";
import { Findings, PassageSuggestions, Section, TextList, useForm, useNotes } from "./FormParts";

const LB = ["fixed_fields", "governing_legal_basis"];

export function LegalBasisSection() {
  const { doc, edit } = useForm();
  const listId = useId();
  const meaningNotes = useNotes("/fixed_fields/governing_legal_basis/meaning");
  return (
    <Section at="/fixed_fields/governing_legal_basis" title="Legal basis" intro="The clause and guidance passages that decide the verdict, spelled exactly as the policy names them.">
      <PassageSuggestions id={listId} />
      <div id={fieldDomId("/fixed_fields/governing_legal_basis/value")} tabIndex={-1}>
        <h4 className="form-sub">Passages</h4>
        <Findings at="/fixed_fields/governing_legal_basis/value" />
        <TextList
          at="/fixed_fields/governing_legal_basis/value"
          items={listAt(doc, [...LB, "value"])}
          onChange={(items) => edit((d) => setAt(d, [...LB, "value"], items))}
          itemWord="passage"
          addLabel="Add a passage"
          multiline={false}
          suggestions={listId}
        />
      </div>
      <TextArea
        label="How these passages lead to the verdict"
        rows={3}
        value={textAt(doc, [...LB, "meaning"])}
        onChange={(v) => edit((d) => setAt(d, [...LB, "meaning"], v))}
        notes={meaningNotes}
        wrapId={fieldDomId("/fixed_fields/governing_legal_basis/meaning")}
      />
    </Section>
  );
}
