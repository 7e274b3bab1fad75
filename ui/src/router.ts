// Hash-based routing (works the same in the desktop app and in `psebench serve`):
// `#/cards/CardRep_1_X?tab=history` → { path: "/cards/CardRep_1_X", parts: ["cards", "CardRep_1_X"], query }.

import { useSyncExternalStore } from "react";
// First: the owner's key leaves the address (`#owner=KEY`) before any route is read from it.
import "./api/ownerKey";

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

/**
 * A page with unsaved work can hold navigation: the guard is asked before the route changes and
 * returns false to stay (it then offers `proceed`, which leaves anyway).
 */
export type NavigationGuard = (to: Route, proceed: () => void) => boolean;
let guard: NavigationGuard | null = null;

export function setNavigationGuard(g: NavigationGuard | null) {
  guard = g;
}

function allowed(target: string): boolean {
  if (!guard) return true;
  const to = parseHash(target);
  return guard(to, () => {
    guard = null;
    window.location.hash = target;
  });
}

if (typeof window !== "undefined") {
  // In-app links: hold the click before the address changes (no history entry).
  document.addEventListener(
    "click",
    (e) => {
      if (!guard || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.("a[href^='#/']");
      if (!a || a.getAttribute("target")) return;
      const target = a.getAttribute("href")!;
      if (!allowed(target)) e.preventDefault();
    },
    true,
  );
  window.addEventListener("hashchange", (e) => {
    // Back/forward and typed addresses: put the old address back when the guard holds.
    if (guard && !allowed(window.location.hash)) {
      history.replaceState(null, "", new URL(e.oldURL).hash || "#/");
      return;
    }
    const next = parseHash(window.location.hash);
    const wait = preparer?.(next);
    if (!wait) return show(next);
    // The old page stays until the new one can be drawn; a later change of address wins.
    const mine = ++pending;
    void wait.then(() => {
      if (mine === pending) show(parseHash(window.location.hash));
    });
  });
}

let pending = 0;

function show(route: Route) {
  pending += 1;
  current = route;
  listeners.forEach((l) => l());
}

/** Something to wait for before a route is shown (the page's file, see pageFiles.ts), or null. */
export type RoutePreparer = (to: Route) => Promise<void> | null;
let preparer: RoutePreparer | null = null;

export function setRoutePreparer(p: RoutePreparer | null) {
  preparer = p;
}

/** The route pages show now (after any wait for the page's file). */
export function currentRoute(): Route {
  return current;
}

/** Be told when the route pages show changes; returns the function that stops it. */
export function subscribeRoute(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useRoute(): Route {
  return useSyncExternalStore(subscribeRoute, currentRoute);
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
  if (window.location.hash !== target && allowed(target)) window.location.hash = target;
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
