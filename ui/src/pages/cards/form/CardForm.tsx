// The card as a form. It reads the draft text and writes every change back into it, so the JSON
// view and the engine's checks always see the same document. Findings of the checks are shown
// next to the field they point at; the others are listed by the editor above the form.

import { useCallback, useMemo } from "react";
import type { Clause, EvidenceItem, LintProblem } from "../../../api/generated";
import { Notice } from "../../../components/Feedback";
import { Doc, parseDraft, writeDraft } from "./cardForm";
import { ConditionsSection } from "./ConditionsSection";
import { ConstraintsSection } from "./ConstraintsSection";
import { FactSlotsSection } from "./FactSlotsSection";
import { FormContext, FormState } from "./FormParts";
import { IdentitySection } from "./IdentitySection";
import { LegalBasisSection } from "./LegalBasisSection";
import { OpenQuestionSection } from "./OpenQuestionSection";
import { OtherFieldsSection } from "./OtherFieldsSection";
import { RuledOutSection } from "./RuledOutSection";
import { VariantsSection } from "./VariantsSection";

export function CardForm({
  draft,
  setDraft,
  byField,
  evidence,
  clauses,
  onShowJson,
}: {
  draft: string;
  setDraft: (text: string) => void;
  byField: Map<string, LintProblem[]>;
  evidence: EvidenceItem[];
  clauses: Clause[];
  onShowJson: () => void;
}) {
  const parsed = useMemo(() => parseDraft(draft), [draft]);
  const doc = parsed.ok ? parsed.doc : null;
  const edit = useCallback(
    (change: (d: Doc) => Doc) => {
      // From the text as it is now, so the change touches only its own part of the document.
      const now = parseDraft(draft);
      if (now.ok) setDraft(writeDraft(change(now.doc)));
    },
    [draft, setDraft],
  );
  const state: FormState | null = useMemo(
    () =>
      doc && {
        doc,
        edit,
        findingsAt: (p: string) => byField.get(p) ?? [],
        evidence,
        clauseIds: clauses.map((c) => c.clause_id),
        clauseTitle: (id: string) => {
          const c = clauses.find((x) => x.clause_id === id);
          return c ? `${c.label}: ${c.short_title}` : null;
        },
      },
    [doc, edit, byField, evidence, clauses],
  );
  if (!parsed.ok || !state) {
    return (
      <Notice kind="warn" title="The form cannot show this text.">
        <p>{parsed.ok ? "" : parsed.reason} Nothing was changed or thrown away: your text is kept as you wrote it.</p>
        <button type="button" className="btn" onClick={onShowJson}>
          Go back to the JSON view to fix it
        </button>
      </Notice>
    );
  }
  return (
    <FormContext.Provider value={state}>
      <div className="stack card-form" data-testid="card-form">
        <IdentitySection />
        <LegalBasisSection />
        <ConditionsSection />
        <FactSlotsSection />
        <ConstraintsSection />
        <VariantsSection />
        <OpenQuestionSection />
        <RuledOutSection />
        <OtherFieldsSection onShowJson={onShowJson} />
      </div>
    </FormContext.Provider>
  );
}
