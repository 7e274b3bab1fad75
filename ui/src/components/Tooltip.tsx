// Tooltips that work with the mouse and the keyboard: shown on hover and on focus, hidden on
// blur, mouse-out and Esc. The text is also the trigger's accessible description.

import { CSSProperties, ReactNode, useCallback, useId, useRef, useState } from "react";
import { createPortal } from "react-dom";
import "./Tooltip.css";

type Place = { left: number; top: number; above: boolean };

/** Props for any focusable trigger (a button, or a span with tabIndex 0) plus the tooltip itself. */
export function useTip(tip: ReactNode, text?: string) {
  const [place, setPlace] = useState<Place | null>(null);
  const id = useId();
  const anchor = useRef<HTMLElement | null>(null);
  const show = useCallback((e: { currentTarget: Element }) => {
    const r = e.currentTarget.getBoundingClientRect();
    const above = r.bottom + 120 > window.innerHeight;
    const left = Math.min(Math.max(r.left + r.width / 2, 160), window.innerWidth - 160);
    setPlace({ left, top: above ? r.top - 6 : r.bottom + 6, above });
  }, []);
  const hide = useCallback(() => setPlace(null), []);
  const triggerProps = {
    ref: (el: HTMLElement | null) => {
      anchor.current = el;
    },
    "aria-describedby": `${id}-d`,
    onMouseEnter: show,
    onMouseLeave: hide,
    onFocus: show,
    onBlur: hide,
    onKeyDown: (e: React.KeyboardEvent) => {
      if (e.key === "Escape" && place) {
        e.stopPropagation();
        hide();
      }
    },
  };
  const style: CSSProperties | undefined = place ? { left: place.left, top: place.top } : undefined;
  const nodes = (
    <>
      <span id={`${id}-d`} className="sr-only">
        {text ?? tip}
      </span>
      {place &&
        createPortal(
          <div role="tooltip" id={id} className={`tip ${place.above ? "tip-above" : ""}`} style={style}>
            {tip}
          </div>,
          document.body,
        )}
    </>
  );
  return { triggerProps, nodes };
}

/** A focusable piece of text with a tooltip. */
export function Tip({ tip, text, children, className = "" }: { tip: ReactNode; text?: string; children: ReactNode; className?: string }) {
  const { triggerProps, nodes } = useTip(tip, text);
  return (
    <span {...triggerProps} tabIndex={0} className={`tip-trigger ${className}`}>
      {children}
      {nodes}
    </span>
  );
}
