// Pages kept in files of their own (see App.tsx), and the wait for a page's file before the
// address moves to it.
//
// React shows a page whose code is still loading as a spinner and, once it has shown one, keeps it
// for at least 300 ms (so that spinners do not flash). A page's file is on this computer and
// arrives in a few milliseconds, so waiting for it before the route changes (the old page stays
// meanwhile) opens the page at once. A page opened before its file arrived (a direct address at
// start, before `preparePage` ran) still works: it suspends like any lazy component.

import { ComponentType, createElement, lazy, useState } from "react";
import type { Route } from "./router";

type Entry = { load: () => Promise<ComponentType>; loaded?: ComponentType; loading?: Promise<void> };
const files = new Map<string, Entry>();

function fetchFile(entry: Entry, page: string): Promise<void> {
  entry.loading ??= entry.load().then((component) => {
    entry.loaded = component;
    // Noted in the performance timeline (scripts/bench-app --detail).
    performance.mark?.(`page file ${page}`);
  });
  return entry.loading;
}

/** A page component read from its own file the first time it is shown. */
export function pageFromFile(page: string, load: () => Promise<ComponentType>): ComponentType {
  const entry: Entry = { load };
  files.set(page, entry);
  const Lazy = lazy(() => fetchFile(entry, page).then(() => ({ default: entry.loaded as ComponentType })));
  function Page() {
    // Decided once per mount: a page first shown through `Lazy` stays under it (switching to the
    // loaded component later would mount the page afresh and lose what the user typed).
    const [viaLazy] = useState(() => !entry.loaded);
    return viaLazy || !entry.loaded ? createElement(Lazy) : createElement(entry.loaded);
  }
  Page.displayName = `Page(${page})`;
  return Page;
}

/** The wait before `to` is shown: its page's file, when it has not arrived yet; null otherwise. A
 * file that cannot be read is not waited for (the page's own error shows). */
export function preparePage(to: Route): Promise<void> | null {
  const entry = files.get(to.parts[0] ?? "");
  if (!entry || entry.loaded) return null;
  return fetchFile(entry, to.parts[0] ?? "").catch(() => {});
}
