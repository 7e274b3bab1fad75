// A labelled radio group for the questionnaire: every point with its key, its name and what it
// means, a roving tab stop (Tab enters the group at the chosen point), ↑/↓ to change the choice,
// Space or a click to choose. The page's own keys (numbers, letters) are handled by the page.

import { forwardRef, ReactNode, useId } from "react";

export type Choice<V> = { value: V; key: string; label: ReactNode; meaning?: ReactNode; icon?: ReactNode };

type Props<V> = {
  title: string;
  /** Under the title: what the question asks. */
  question?: ReactNode;
  options: Choice<V>[];
  value: V | null;
  onChange: (v: V) => void;
  disabled?: boolean;
  disabledNote?: ReactNode;
  /** The question the number keys act on (shown highlighted). */
  active?: boolean;
  keysNote?: string;
  onFocusGroup?: () => void;
  compact?: boolean;
  /** When disabled, show only the chosen point. */
  collapseWhenDisabled?: boolean;
  name: string;
};

function ChoiceGroupInner<V>(
  { title, question, options, value, onChange, disabled = false, disabledNote, active = false, keysNote, onFocusGroup, compact = false, collapseWhenDisabled = false, name }: Props<V>,
  ref: React.ForwardedRef<HTMLDivElement>,
) {
  const id = useId();
  const chosen = options.findIndex((o) => o.value === value);
  const tabStop = chosen >= 0 ? chosen : 0;
  const focusAt = (el: HTMLElement, i: number) => {
    const group = el.closest("[role=radiogroup]");
    const radios = group?.querySelectorAll<HTMLElement>("[role=radio]");
    radios?.[i]?.focus();
  };
  return (
    <div
      ref={ref}
      role="radiogroup"
      aria-labelledby={`${id}-t`}
      aria-describedby={question ? `${id}-q` : undefined}
      aria-disabled={disabled || undefined}
      className={`q-group ${active ? "q-active" : ""} ${compact ? "q-compact" : ""} ${disabled ? "q-disabled" : ""}`}
      data-question={name}
      onFocus={onFocusGroup}
    >
      <div className="q-head">
        <h3 id={`${id}-t`}>{title}</h3>
        {keysNote && (
          <span className="q-keys" aria-hidden>
            {keysNote}
            {active && " · now"}
          </span>
        )}
      </div>
      {question && (
        <p id={`${id}-q`} className="q-question">
          {question}
        </p>
      )}
      {disabled && disabledNote && <p className="q-locked small">{disabledNote}</p>}
      <div className="q-options">
        {options.map((o, i) => {
          const checked = i === chosen;
          if (disabled && collapseWhenDisabled && !checked) return null;
          return (
            <div
              key={String(o.value)}
              role="radio"
              aria-checked={checked}
              aria-disabled={disabled || undefined}
              aria-keyshortcuts={o.key}
              tabIndex={i === tabStop ? 0 : -1}
              className={`choice ${checked ? "choice-on" : ""}`}
              onClick={() => {
                if (!disabled) onChange(o.value);
              }}
              onKeyDown={(e) => {
                if (e.ctrlKey || e.metaKey || e.altKey) return;
                if (e.key === " ") {
                  e.preventDefault();
                  if (!disabled) onChange(o.value);
                } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                  e.preventDefault();
                  const n = Math.max(0, Math.min(options.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)));
                  if (!disabled && n !== i) onChange(options[n].value);
                  focusAt(e.currentTarget, n);
                } else if (e.key === "Home" || e.key === "End") {
                  e.preventDefault();
                  const n = e.key === "Home" ? 0 : options.length - 1;
                  if (!disabled) onChange(options[n].value);
                  focusAt(e.currentTarget, n);
                }
              }}
            >
              <span className="choice-mark" aria-hidden>
                {checked ? "●" : "○"}
              </span>
              <kbd className="choice-key" aria-hidden>
                {o.key}
              </kbd>
              <span className="choice-text">
                <span className="choice-label">
                  {o.icon}
                  {o.label}
                </span>
                {o.meaning && <span className="choice-meaning">{o.meaning}</span>}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

export const ChoiceGroup = forwardRef(ChoiceGroupInner) as <V>(p: Props<V> & { ref?: React.Ref<HTMLDivElement> }) => ReturnType<typeof ChoiceGroupInner>;

/** Focus the chosen point of a group (or its first point). */
export function focusGroup(el: HTMLElement | null | undefined) {
  const target = el?.querySelector<HTMLElement>("[role=radio][tabindex='0']") ?? el?.querySelector<HTMLElement>("[role=radio]");
  target?.focus();
}
