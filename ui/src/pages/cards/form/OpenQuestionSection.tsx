// An Uncertain card's open question: the passage that leaves the case open and the question it
// leaves (the extension field x_open_question).

import { useId } from "react";
import { TextArea, TextInput } from "../../../components/Forms";
import { fieldDomId, getAt, isObject, setAt, textAt } from "./cardForm";
import { PassageSuggestions, Section, useForm, useNotes } from "./FormParts";

export function OpenQuestionSection() {
  const { doc, edit } = useForm();
  const listId = useId();
  const raw = getAt(doc, ["x_open_question"]);
  const sectionNotes = useNotes("/x_open_question/section_id");
  const questionNotes = useNotes("/x_open_question/question");
  if (raw === undefined && doc.event_type !== "Uncertain") return null;
  if (raw !== undefined && !isObject(raw)) {
    return (
      <Section at="/x_open_question" title="Open question">
        <p className="warn-text small">The open question is not written as a passage and a question; fix it in the JSON view.</p>
      </Section>
    );
  }
  return (
    <Section at="/x_open_question" title="Open question" intro="The question the policy leaves open for this card's events, and the passage that leaves it open.">
      <PassageSuggestions id={listId} />
      <TextInput
        label="Passage that leaves it open"
        list={listId}
        value={textAt(doc, ["x_open_question", "section_id"])}
        onChange={(v) => edit((d) => setAt(d, ["x_open_question", "section_id"], v))}
        notes={sectionNotes}
        wrapId={fieldDomId("/x_open_question/section_id")}
      />
      <TextArea
        label="The question"
        hint="The exact question, ending in a question mark."
        rows={3}
        value={textAt(doc, ["x_open_question", "question"])}
        onChange={(v) => edit((d) => setAt(d, ["x_open_question", "question"], v))}
        notes={questionNotes}
        wrapId={fieldDomId("/x_open_question/question")}
      />
    </Section>
  );
}
