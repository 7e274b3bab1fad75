// The policy in use: chosen on the Policy page and remembered in this browser, so the card library,
// cases, anchors, generation and evaluation all follow it. The built-in default until one is chosen.

import { useSyncExternalStore } from "react";
import { DEFAULT_POLICY } from "./api/generated";

const KEY = "psebench.policy";
const listeners = new Set<() => void>();

function read(): string {
  try {
    return window.localStorage.getItem(KEY) || DEFAULT_POLICY;
  } catch {
    return DEFAULT_POLICY;
  }
}

let current = typeof window === "undefined" ? DEFAULT_POLICY : read();

/** Use `id` from now on (null: back to the default policy). */
export function choosePolicy(id: string | null) {
  current = id || DEFAULT_POLICY;
  try {
    if (id) window.localStorage.setItem(KEY, id);
    else window.localStorage.removeItem(KEY);
  } catch {
    // Storage may be unavailable (private windows); the choice then lasts until reload.
  }
  listeners.forEach((l) => l());
}

export function currentPolicy(): string {
  return current;
}

/** The policy in use (re-renders when another one is chosen). */
export function usePolicyId(): string {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
    () => current,
  );
}
