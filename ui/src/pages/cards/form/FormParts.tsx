// Pieces every section of the card form uses: the shared state (the document and how to change
// it, the findings by field), the findings shown under a field, a short-name input that renames
// on leaving it, and an editable list of texts.

import { createContext, ReactNode, useContext, useEffect, useId, useRef, useState } from "react";
import type { EvidenceItem, LintProblem } from "../../../api/generated";
import { Field } from "../../../components/Forms";
import { SeverityBadge } from "../parts";
import { Doc, fieldDomId, moveItem, nameProblem } from "./cardForm";

export type FormState = {
  doc: Doc;
  /** Change the document; the new text becomes the draft (and is checked like any other edit). */
  edit: (change: (doc: Doc) => Doc) => void;
  findingsAt: (pointer: string) => LintProblem[];
  evidence: EvidenceItem[];
  /** The policy's clause ids, for the neighbouring-clause entries. */
  clauseIds: string[];
  clauseTitle: (clauseId: string) => string | null;
};

export const FormContext = createContext<FormState | null>(null);

export function useForm(): FormState {
  const f = useContext(FormContext);
  if (!f) throw new Error("the card form's sections are used inside CardForm only");
  return f;
}

/** The checks' findings on one field (nothing when there are none). */
export function Findings({ at }: { at: string }) {
  const { findingsAt } = useForm();
  const list = findingsAt(at);
  if (list.length === 0) return null;
  return (
    <ul className="form-findings" data-testid="field-findings">
      {list.map((p, i) => (
        <li key={i} className={`form-finding form-finding-${p.severity}`}>
          <SeverityBadge severity={p.severity} /> <span>{p.message}</span>
        </li>
      ))}
    </ul>
  );
}

/** Findings under a field, or undefined so the field has no notes. */
export function useNotes(at: string): ReactNode | undefined {
  const { findingsAt } = useForm();
  return findingsAt(at).length > 0 ? <Findings at={at} /> : undefined;
}

/** A group of fields (a condition, a fact slot, …) that findings on the whole group point at. */
export function Group({ at, title, children, actions }: { at: string; title: ReactNode; children: ReactNode; actions?: ReactNode }) {
  const headingId = useId();
  return (
    <section className="form-group" id={fieldDomId(at)} tabIndex={-1} aria-labelledby={headingId}>
      <div className="row between wrap form-group-head">
        <h4 id={headingId}>{title}</h4>
        {actions && <div className="row gap-s wrap">{actions}</div>}
      </div>
      <Findings at={at} />
      {children}
    </section>
  );
}

/** A section of the form (definition, conditions, …). */
/** The policy's passages as suggestions for a passage field (`list={id}` on the input). */
export function PassageSuggestions({ id }: { id: string }) {
  const { evidence } = useForm();
  return (
    <datalist id={id}>
      {evidence.map((e) => (
        <option key={e.id} value={e.id}>
          {e.title}
        </option>
      ))}
    </datalist>
  );
}

export function Section({ at, title, intro, children }: { at: string; title: string; intro?: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className="card form-section" id={fieldDomId(at)} tabIndex={-1} aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      {intro && <p className="muted small readable">{intro}</p>}
      <Findings at={at} />
      {children}
    </section>
  );
}

/**
 * The short name of a condition or fact slot. Other parts of the card refer to it, so a new name
 * is taken when the user leaves the field (or presses Enter), and only if it is free.
 */
export function NameInput({ label, name, taken, onRename }: { label: string; name: string; taken: string[]; onRename: (to: string) => void }) {
  const [text, setText] = useState(name);
  useEffect(() => setText(name), [name]);
  const problem = nameProblem(text, name, taken);
  const commit = () => {
    if (!problem && text.trim() !== name) onRename(text.trim());
  };
  return (
    <Field label={label} error={problem} hint="Other parts of the card refer to this name; they follow when you change it.">
      {(id) => (
        <input
          id={id}
          className="mono"
          value={text}
          spellCheck={false}
          aria-invalid={problem ? true : undefined}
          onChange={(e) => setText(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === "Enter") commit();
            if (e.key === "Escape") setText(name);
          }}
        />
      )}
    </Field>
  );
}

/**
 * A list of texts the user can add to, edit, remove and reorder (rules, passages, allowed values).
 * `itemWord` names one item in the labels ("Rule 2", "Move rule 2 up").
 */
export function TextList({
  at,
  items,
  onChange,
  itemWord,
  addLabel,
  multiline = true,
  suggestions,
}: {
  at: string;
  items: string[];
  onChange: (items: string[]) => void;
  itemWord: string;
  addLabel: string;
  multiline?: boolean;
  suggestions?: string;
}) {
  const [focusAt, setFocusAt] = useState<number | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusAt === null) return;
    const el = listRef.current?.querySelectorAll<HTMLElement>("[data-item-input]")[focusAt];
    if (el) el.focus();
    else addRef.current?.focus();
    setFocusAt(null);
  }, [focusAt]);
  const word = itemWord.charAt(0).toUpperCase() + itemWord.slice(1);
  return (
    <div className="text-list">
      <ol ref={listRef} className="text-list-items">
        {items.map((item, i) => {
          const label = `${word} ${i + 1}`;
          return (
            <li key={i} className="text-list-item" id={fieldDomId(`${at}/${i}`)}>
              <ItemInput label={label} value={item} multiline={multiline} suggestions={suggestions} at={`${at}/${i}`} onChange={(v) => onChange(items.map((x, k) => (k === i ? v : x)))} />
              <div className="row gap-s text-list-actions">
                <button type="button" className="btn btn-small" aria-label={`Move ${itemWord} ${i + 1} up`} disabled={i === 0} onClick={() => { onChange(moveItem(items, i, i - 1)); setFocusAt(i - 1); }}>
                  <span aria-hidden>↑</span>
                </button>
                <button type="button" className="btn btn-small" aria-label={`Move ${itemWord} ${i + 1} down`} disabled={i === items.length - 1} onClick={() => { onChange(moveItem(items, i, i + 1)); setFocusAt(i + 1); }}>
                  <span aria-hidden>↓</span>
                </button>
                <button type="button" className="btn btn-small" aria-label={`Remove ${itemWord} ${i + 1}`} onClick={() => { onChange(items.filter((_, k) => k !== i)); setFocusAt(Math.min(i, items.length - 2)); }}>
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      {items.length === 0 && <p className="muted small">None yet.</p>}
      <button type="button" ref={addRef} className="btn btn-small" onClick={() => { onChange([...items, ""]); setFocusAt(items.length); }}>
        + {addLabel}
      </button>
    </div>
  );
}

function ItemInput({ label, value, multiline, suggestions, at, onChange }: { label: string; value: string; multiline: boolean; suggestions?: string; at: string; onChange: (v: string) => void }) {
  const notes = useNotes(at);
  return (
    <Field label={label} notes={notes}>
      {(id, describedBy) =>
        multiline ? (
          <textarea id={id} data-item-input rows={Math.min(6, Math.max(2, Math.ceil(value.length / 90)))} value={value} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input id={id} data-item-input list={suggestions} value={value} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value)} />
        )
      }
    </Field>
  );
}
