// Hash-based routing (works the same in the desktop app and in `psebench serve`):
// `#/cards/CardRep_1_X?tab=history` → { path: "/cards/CardRep_1_X", parts: ["cards", "CardRep_1_X"], query }.

import { useSyncExternalStore } from "react";

export type Route = {
  path: string;
  parts: string[];
  query: URLSearchParams;
};

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, "") || "/";
  const [pathPart, queryPart = ""] = raw.split("?", 2);
  const path = pathPart.startsWith("/") ? pathPart : `/${pathPart}`;
  const parts = path.split("/").filter(Boolean).map((p) => decodeURIComponent(p));
  return { path, parts, query: new URLSearchParams(queryPart) };
}

let current = parseHash(typeof window !== "undefined" ? window.location.hash : "");
const listeners = new Set<() => void>();
if (typeof window !== "undefined") {
  window.addEventListener("hashchange", () => {
    current = parseHash(window.location.hash);
    listeners.forEach((l) => l());
  });
}

export function useRoute(): Route {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}

/** Build a link: href("/cards", id, {tab: "history"}) → "#/cards/<id>?tab=history". */
export function href(base: string, ...rest: (string | Record<string, string | undefined | null> | undefined)[]): string {
  let path = base;
  let query = "";
  for (const r of rest) {
    if (r === undefined) continue;
    if (typeof r === "string") path += `/${encodeURIComponent(r)}`;
    else {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(r)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
      const s = q.toString();
      if (s) query = `?${s}`;
    }
  }
  return `#${path}${query}`;
}

export function navigate(to: string) {
  const target = to.startsWith("#") ? to : `#${to}`;
  if (window.location.hash !== target) window.location.hash = target;
}

/** Replace one query parameter of the current route (no new history entry for filters). */
export function setQuery(key: string, value: string | null) {
  const r = parseHash(window.location.hash);
  if (value === null || value === "") r.query.delete(key);
  else r.query.set(key, value);
  const q = r.query.toString();
  const next = `#${r.path}${q ? `?${q}` : ""}`;
  history.replaceState(null, "", next);
  current = parseHash(next);
  listeners.forEach((l) => l());
}
