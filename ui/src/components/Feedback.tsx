// Errors as sentences with a way forward, empty states that say what belongs here, notices,
// loading placeholders and short-lived toasts.

import { ReactNode, useEffect, useState, useSyncExternalStore } from "react";
import type { EngineError } from "../api/transport";

const NEXT_STEP: Record<string, string> = {
  unreachable: "Check that PSEBench Studio is still running, then try again.",
  store_unavailable: "The database cannot be used right now. Nothing was changed.",
  provider: "The model provider did not answer properly. Check the model in Settings and try again; finished work is kept.",
  secrets: "Store the model's API key in Settings, or name an environment variable that holds it.",
  forbidden: "This action is not allowed here.",
  unauthorized: "Open the link that psebench serve printed (or start it again and open the new link).",
};

export function ErrorBanner({ error, onDismiss, title, action }: { error: EngineError | undefined | null; onDismiss?: () => void; title?: string; action?: ReactNode }) {
  if (!error) return null;
  // With an action of its own (Try again), the banner needs no general hint.
  const hint = action ? undefined : NEXT_STEP[error.code];
  return (
    <div className="banner banner-error" role="alert">
      <div className="banner-icon" aria-hidden>!</div>
      <div className="banner-body">
        <strong>{title ?? "That did not work."}</strong> <span>{error.message}</span>
        {hint && <div className="muted small">{hint}</div>}
        {action && <div className="row gap banner-action">{action}</div>}
        {error.detail && (
          <details className="small">
            <summary>Technical details</summary>
            <pre className="detail">{error.detail}</pre>
          </details>
        )}
      </div>
      {onDismiss && (
        <button className="btn-ghost btn-small" onClick={onDismiss} aria-label="Dismiss this message">
          ✕
        </button>
      )}
    </div>
  );
}

export function Notice({ kind = "info", title, children }: { kind?: "info" | "warn" | "success"; title?: string; children: ReactNode }) {
  const icon = kind === "warn" ? "⚠" : kind === "success" ? "✓" : "i";
  return (
    <div className={`banner banner-${kind}`} role={kind === "warn" ? "alert" : "status"}>
      <div className="banner-icon" aria-hidden>
        {icon}
      </div>
      <div className="banner-body">
        {title && <strong>{title} </strong>}
        {children}
      </div>
    </div>
  );
}

/** `level` is the heading level of the title: 2 where the empty state stands right under the page's title, 3 inside a section. */
export function EmptyState({ title, children, actions, level = 3 }: { title: string; children?: ReactNode; actions?: ReactNode; level?: 2 | 3 }) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <div className="empty">
      <Heading>{title}</Heading>
      {children && <div className="muted">{children}</div>}
      {actions && <div className="row gap">{actions}</div>}
    </div>
  );
}

/** A placeholder while data loads (shown only if loading takes a moment, to avoid flicker). */
export function Loading({ label = "Loading…" }: { label?: string }) {
  const [show, setShow] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setShow(true), 150);
    return () => clearTimeout(t);
  }, []);
  if (!show) return null;
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden /> {label}
    </div>
  );
}

// Toasts: short confirmations ("Saved cards.jsonl to ~/Downloads").
type Toast = { id: number; text: string; kind: "success" | "error" };
let toasts: Toast[] = [];
let nextId = 1;
const toastListeners = new Set<() => void>();

export function toast(text: string, kind: "success" | "error" = "success") {
  const t = { id: nextId++, text, kind };
  toasts = [...toasts, t];
  toastListeners.forEach((l) => l());
  setTimeout(() => {
    toasts = toasts.filter((x) => x.id !== t.id);
    toastListeners.forEach((l) => l());
  }, 6000);
}

export function Toasts() {
  const list = useSyncExternalStore(
    (l) => {
      toastListeners.add(l);
      return () => toastListeners.delete(l);
    },
    () => toasts,
  );
  return (
    <div className="toasts" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role="status">
          {t.text}
        </div>
      ))}
    </div>
  );
}
