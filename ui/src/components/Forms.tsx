// Form controls that always carry a visible label, an optional hint and an error.

import { ReactNode, useId, useRef, useState } from "react";

/**
 * A labelled control. `notes` (for example the checks' findings on this field) are shown under it
 * and read with it (`describedBy`); `wrapId` names the field so a link can bring it into view.
 */
export function Field({
  label,
  hint,
  error,
  notes,
  wrapId,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  notes?: ReactNode;
  wrapId?: string;
  children: (id: string, describedBy?: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={`field ${error ? "field-error" : ""}`} id={wrapId}>
      <label htmlFor={id}>{label}</label>
      {children(id, notes ? `${id}-notes` : undefined)}
      {hint && !error && <div className="hint">{hint}</div>}
      {error && (
        <div className="hint error-text" role="alert">
          {error}
        </div>
      )}
      {notes && <div id={`${id}-notes`}>{notes}</div>}
    </div>
  );
}

export function TextInput({
  label,
  value,
  onChange,
  hint,
  error,
  placeholder,
  type = "text",
  autoFocus,
  notes,
  wrapId,
  list,
  onBlur,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: ReactNode;
  error?: string | null;
  placeholder?: string;
  type?: string;
  autoFocus?: boolean;
  notes?: ReactNode;
  wrapId?: string;
  /** The id of a `<datalist>` of suggestions. */
  list?: string;
  onBlur?: () => void;
}) {
  return (
    <Field label={label} hint={hint} error={error} notes={notes} wrapId={wrapId}>
      {(id, describedBy) => (
        <input
          id={id}
          type={type}
          value={value}
          placeholder={placeholder}
          autoFocus={autoFocus}
          list={list}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          onChange={(e) => onChange(e.target.value)}
          onBlur={onBlur}
        />
      )}
    </Field>
  );
}

export function NumberInput({ label, value, onChange, min, max, step, hint }: { label: string; value: number; onChange: (v: number) => void; min?: number; max?: number; step?: number; hint?: ReactNode }) {
  return (
    <Field label={label} hint={hint}>
      {(id) => (
        <input
          id={id}
          type="number"
          value={Number.isFinite(value) ? value : ""}
          min={min}
          max={max}
          step={step}
          onChange={(e) => onChange(e.target.value === "" ? NaN : Number(e.target.value))}
        />
      )}
    </Field>
  );
}

export function Select({
  label,
  value,
  onChange,
  options,
  hint,
  notes,
  wrapId,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: { value: string; label: string }[];
  hint?: ReactNode;
  notes?: ReactNode;
  wrapId?: string;
}) {
  return (
    <Field label={label} hint={hint} notes={notes} wrapId={wrapId}>
      {(id, describedBy) => (
        <select id={id} value={value} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value)}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function TextArea({
  label,
  value,
  onChange,
  rows = 6,
  hint,
  mono = false,
  notes,
  wrapId,
  readOnly,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  rows?: number;
  hint?: ReactNode;
  mono?: boolean;
  notes?: ReactNode;
  wrapId?: string;
  readOnly?: boolean;
}) {
  return (
    <Field label={label} hint={hint} notes={notes} wrapId={wrapId}>
      {(id, describedBy) => (
        <textarea id={id} rows={rows} className={mono ? "mono" : ""} value={value} readOnly={readOnly} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}

export function Checkbox({ label, checked, onChange, hint, disabled }: { label: string; checked: boolean; onChange: (v: boolean) => void; hint?: ReactNode; disabled?: boolean }) {
  const id = useId();
  return (
    <div className={`checkbox ${disabled ? "checkbox-disabled" : ""}`}>
      <input id={id} type="checkbox" checked={checked} disabled={disabled} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
    </div>
  );
}

/** Pick files with a button or by dropping them on the area. */
export function FilePicker({
  label,
  accept,
  multiple = false,
  onFiles,
  hint,
}: {
  label: string;
  accept?: string;
  multiple?: boolean;
  onFiles: (files: File[]) => void;
  hint?: ReactNode;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const id = useId();
  return (
    <div
      className={`dropzone ${over ? "dropzone-over" : ""}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const files = Array.from(e.dataTransfer.files);
        if (files.length) onFiles(multiple ? files : files.slice(0, 1));
      }}
    >
      <input
        ref={input}
        id={id}
        type="file"
        tabIndex={-1}
        aria-hidden
        className="sr-only"
        accept={accept}
        multiple={multiple}
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          if (files.length) onFiles(files);
          e.target.value = "";
        }}
      />
      <button className="btn" type="button" onClick={() => input.current?.click()} aria-describedby={`${id}-hint`}>
        {label}
      </button>
      <span id={`${id}-hint`} className="muted small">
        {hint ?? "or drop a file here"}
      </span>
    </div>
  );
}
