// "New policy": a form for a policy pack of the user's own (id, name, jurisdiction, reporting
// deadline, an editable list of clauses, guidance as Markdown) or a policy file loaded into it.
// Problems are shown next to their fields, first from the app's own checks, then from the engine's.

import { useState } from "react";
import { useAction } from "../../api/client";
import type { NewClause, NewPolicy } from "../../api/generated";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Notice } from "../../components/Feedback";
import { Field, FilePicker, TextInput } from "../../components/Forms";
import { checkPolicy, emptyClause, emptyPolicy, guidanceHeadings, policyFromFile, problemsFromDetail, type Problems } from "./newPolicy";

function ClauseEditor({
  n,
  clause,
  problems,
  onChange,
  onRemove,
}: {
  n: number;
  clause: NewClause;
  problems: Problems;
  onChange: (c: NewClause) => void;
  onRemove: (() => void) | null;
}) {
  const p = (k: string) => problems[`clauses[${n - 1}].${k}`] ?? null;
  return (
    <fieldset className="card stack" aria-label={`Clause ${n}`}>
      <legend>Clause {n}</legend>
      <div className="grid-2">
        <TextInput label={`Clause ${n} id`} value={clause.clause_id} error={p("clause_id")} placeholder="Falls_1_LastingHarm" onChange={(v) => onChange({ ...clause, clause_id: v })} />
        <TextInput label={`Clause ${n} label`} value={clause.label} error={p("label")} placeholder="Falls clause 1" onChange={(v) => onChange({ ...clause, label: v })} />
        <TextInput label={`Clause ${n} category`} value={clause.category} error={p("category")} placeholder="Falls" onChange={(v) => onChange({ ...clause, category: v })} />
        <TextInput label={`Clause ${n} short title`} value={clause.short_title} hint="Optional; the label is shown when empty." onChange={(v) => onChange({ ...clause, short_title: v })} />
      </div>
      <Field label={`Clause ${n} text`} error={p("text")} hint="The clause's wording, or a faithful summary of it.">
        {(id) => <textarea id={id} rows={3} value={clause.text} onChange={(e) => onChange({ ...clause, text: e.target.value })} />}
      </Field>
      {onRemove && (
        <div>
          <button type="button" className="btn" onClick={onRemove}>
            Remove clause {n}
          </button>
        </div>
      )}
    </fieldset>
  );
}

export function NewPolicyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) {
  const [p, setP] = useState<NewPolicy>(emptyPolicy);
  const [problems, setProblems] = useState<Problems>({});
  const [fileError, setFileError] = useState<string | null>(null);
  const create = useAction("policy.create");
  const headings = guidanceHeadings(p.guidance_markdown);
  const set = (patch: Partial<NewPolicy>) => setP((old) => ({ ...old, ...patch }));
  const setClause = (i: number, c: NewClause) => setP((old) => ({ ...old, clauses: old.clauses.map((x, k) => (k === i ? c : x)) }));

  const submit = async () => {
    const local = checkPolicy(p);
    setProblems(local);
    create.clearError();
    if (Object.keys(local).length > 0) return;
    const r = await create.run(p);
    if (r) onCreated(r.id);
  };
  const serverProblems = problemsFromDetail(create.error?.detail);
  const shown: Problems = { ...serverProblems, ...problems };
  const count = Object.keys(shown).length;

  return (
    <Modal
      title="New policy"
      wide
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={create.busy} onClick={submit}>
            {create.busy ? "Creating…" : "Create policy"}
          </button>
        </>
      }
    >
      <div className="stack">
        <p className="muted">
          Write the policy your team reports under: its clauses (the kinds of event that must be reported) and the guidance that explains them. Each
          heading of the guidance becomes a section that cards and answers can cite by its heading.
        </p>
        <div className="field">
          <strong>Load from file</strong>
          <FilePicker
            label="Load a policy file…"
            accept=".json"
            hint="A JSON file as psebench policy create reads it; the form is filled in for you to check."
            onFiles={async (f) => {
              const r = policyFromFile(await f[0].text());
              if ("error" in r) setFileError(`${f[0].name}: ${r.error}`);
              else {
                setFileError(null);
                setProblems({});
                setP(r.policy);
              }
            }}
          />
          {fileError && (
            <div className="hint error-text" role="alert">
              {fileError}
            </div>
          )}
        </div>
        {count > 0 && (
          <Notice kind="warn" title="Some fields need attention.">
            {count === 1 ? "One field needs" : `${count} fields need`} a change; each is marked below.
          </Notice>
        )}
        {create.error && Object.keys(serverProblems).length === 0 && <ErrorBanner error={create.error} onDismiss={create.clearError} title="The policy was not created." />}
        <div className="grid-2">
          <TextInput label="Policy id" value={p.id} error={shown.id ?? null} placeholder="riverland-ae" hint="Letters, digits, '.', '_' or '-'; it cannot be changed later." onChange={(v) => set({ id: v })} />
          <TextInput label="Policy name" value={p.name} error={shown.name ?? null} placeholder="Riverland adverse event rule" onChange={(v) => set({ name: v })} />
          <TextInput label="Jurisdiction" value={p.jurisdiction} error={shown.jurisdiction ?? null} placeholder="Riverland Health Authority" onChange={(v) => set({ jurisdiction: v })} />
          <TextInput
            label="Reporting deadline"
            value={p.reporting_deadline}
            error={shown.reporting_deadline ?? null}
            placeholder="within 10 working days of discovery"
            onChange={(v) => set({ reporting_deadline: v })}
          />
          <TextInput label="Law or rule (optional)" value={p.statute} onChange={(v) => set({ statute: v })} />
        </div>
        <h3>Clauses ({p.clauses.length})</h3>
        {shown.clauses && (
          <div className="hint error-text" role="alert">
            {shown.clauses}
          </div>
        )}
        {p.clauses.map((c, i) => (
          <ClauseEditor
            key={i}
            n={i + 1}
            clause={c}
            problems={shown}
            onChange={(x) => setClause(i, x)}
            onRemove={p.clauses.length > 1 ? () => setP((old) => ({ ...old, clauses: old.clauses.filter((_, k) => k !== i) })) : null}
          />
        ))}
        <div>
          <button type="button" className="btn" onClick={() => setP((old) => ({ ...old, clauses: [...old.clauses, emptyClause()] }))}>
            Add a clause
          </button>
        </div>
        <Field
          label="Guidance (Markdown)"
          error={shown.guidance_markdown ?? null}
          hint={
            headings.length > 0
              ? `Sections: ${headings.join(" · ")}`
              : "Start each section with a heading (# Heading). Text before the first heading becomes a section called Preamble."
          }
        >
          {(id) => <textarea id={id} rows={10} className="mono" value={p.guidance_markdown} onChange={(e) => set({ guidance_markdown: e.target.value })} />}
        </Field>
      </div>
    </Modal>
  );
}
