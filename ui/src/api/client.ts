// Typed access to the engine: `api("cards.list", {...})` and the `useApi` hook for pages.

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { ApiMethod, ApiMethods, ChangeKind, Progress } from "./generated";
import { kindsOfMethod, versionOf } from "./liveData";
import { callRaw, EngineError, onDataChange, onProgress } from "./transport";

export { EngineError } from "./transport";

export type Params<M extends ApiMethod> = ApiMethods[M]["params"];
export type Result<M extends ApiMethod> = ApiMethods[M]["result"];

export function api<M extends ApiMethod>(method: M, params: Params<M>): Promise<Result<M>> {
  return callRaw(method, params) as Promise<Result<M>>;
}

// A data version that changes after every successful change (import, save, audit, …), so that
// every page showing stored data reloads it.
let dataVersion = 0;
const versionListeners = new Set<() => void>();

export function dataChanged() {
  dataVersion += 1;
  versionListeners.forEach((l) => l());
}

function useDataVersion(): number {
  return useSyncExternalStore(
    (l) => {
      versionListeners.add(l);
      return () => versionListeners.delete(l);
    },
    () => dataVersion,
  );
}

// How many times each kind of stored data changed since the page opened, as the engine's change
// events tell (changes made anywhere on the store). Events are gathered for a moment so that a
// burst of writes (a reviewer answering, a run finishing its items) costs one reload.
const LIVE_DEBOUNCE_MS = 250;
let changeCounts: ReadonlyMap<ChangeKind, number> = new Map();
const changeListeners = new Set<() => void>();
let liveStarted = false;

function startLive() {
  if (liveStarted) return;
  liveStarted = true;
  const pending = new Set<ChangeKind>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  onDataChange((kinds) => {
    kinds.forEach((k) => pending.add(k));
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      const next = new Map(changeCounts);
      pending.forEach((k) => next.set(k, (next.get(k) ?? 0) + 1));
      pending.clear();
      changeCounts = next;
      changeListeners.forEach((l) => l());
    }, LIVE_DEBOUNCE_MS);
  });
}

/** A number that moves when data `method` shows was changed anywhere. */
function useLiveVersion(method: ApiMethod): number {
  useEffect(startLive, []);
  return useSyncExternalStore(
    (l) => {
      changeListeners.add(l);
      return () => changeListeners.delete(l);
    },
    () => versionOf(changeCounts, kindsOfMethod(method)),
  );
}

// Answers asked for while the first page's code was still starting (see `prefetch`), each taken
// once by the first `useApi` that mounts wanting the same method and parameters soon after; one
// that has arrived by then is shown in the page's very first drawing.
const EARLY_KEPT_MS = 3000;
type Early = { answer: Promise<unknown>; at: number; arrived?: { data: unknown } };
const early = new Map<string, Early>();

/** Ask now for data the first page will show, so the call runs while the page's code starts.
 * Resolves when the answer is here (or the call failed). */
export function prefetch<M extends ApiMethod>(method: M, params: Params<M>): Promise<void> {
  const key = `${method} ${JSON.stringify(params)}`;
  const known = early.get(key);
  if (known) return known.answer.then(() => {}, () => {});
  const entry: Early = { answer: api(method, params), at: performance.now() };
  early.set(key, entry);
  // An answer nobody takes is dropped quietly (the page asks again and shows its own error).
  return entry.answer.then(
    (data) => {
      entry.arrived = { data };
    },
    () => {},
  );
}

function takeEarly(method: string, key: string): Early | undefined {
  const k = `${method} ${key}`;
  const e = early.get(k);
  early.delete(k);
  return e && performance.now() - e.at < EARLY_KEPT_MS ? e : undefined;
}

export type Loaded<T> = {
  data: T | undefined;
  error: EngineError | undefined;
  loading: boolean;
  reload: () => void;
};

/**
 * Load data for a page. `params` null means "not yet" (nothing is fetched). Reloads when the
 * parameters change or when stored data changes. A reload because data it shows changed
 * elsewhere (see `useLiveVersion`) happens quietly: `loading` stays false and the data shown
 * stays until the new answer replaces it, so forms and scroll positions are kept.
 */
export function useApi<M extends ApiMethod>(method: M, params: Params<M> | null): Loaded<Result<M>> {
  const version = useDataVersion();
  const live = useLiveVersion(method);
  const last = useRef<{ method: string; key: string | null; version: number; tick: number } | null>(null);
  const key = params === null ? null : JSON.stringify(params);
  // An answer asked for at start: shown at once when it has arrived, else awaited below.
  const first = useRef<Early | undefined | null>(null);
  if (first.current === null) first.current = key === null ? undefined : takeEarly(method, key);
  // Whether the first drawing showed the early answer. Not the same as "it has arrived" when the
  // effect below runs: an answer landing between the drawing and the effect is still to be shown.
  const shownFirst = useRef(false);
  // `key`: the parameters the state is about. When the parameters change, the drawing before the
  // effect below runs still holds the old state; it must already say "loading", or a form could
  // take the old answer as the one for its new parameters (Evaluate's Start button was enabled
  // for that one drawing, and a click on it then was lost).
  const [state, setState] = useState<{ data?: Result<M>; error?: EngineError; loading: boolean; key: string | null }>(() => {
    const arrived = first.current?.arrived;
    shownFirst.current = arrived !== undefined;
    return arrived ? { data: arrived.data as Result<M>, loading: false, key } : { loading: params !== null, key };
  });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    if (key === null) {
      last.current = null;
      setState({ loading: false, key });
      return;
    }
    const before = last.current;
    last.current = { method, key, version, tick };
    const early = before === null ? first.current : undefined;
    first.current = undefined;
    // Already shown in the first drawing: nothing to ask. (One that arrived since is taken below.)
    if (early && shownFirst.current) return;
    const quiet = before !== null && before.method === method && before.key === key && before.version === version && before.tick === tick;
    const mine = ++seq.current;
    if (!quiet) setState((s) => ({ ...s, loading: true, key }));
    const asked = early?.answer ?? api(method, JSON.parse(key) as Params<M>);
    (asked as Promise<Result<M>>)
      .then((data) => {
        if (mine === seq.current) setState({ data, loading: false, key });
      })
      .catch((error: EngineError) => {
        if (mine === seq.current) setState((s) => ({ data: s.data, error, loading: false, key }));
      });
  }, [method, key, version, tick, live]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const loading = state.loading || (key !== null && state.key !== key);
  return { data: state.data, error: state.error, loading, reload };
}

/** Run an action that changes stored data; on success every page reloads what it shows. */
export function useAction<M extends ApiMethod>(method: M) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<EngineError | undefined>();
  const run = useCallback(
    async (params: Params<M>): Promise<Result<M> | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        const r = await api(method, params);
        dataChanged();
        return r;
      } catch (e) {
        setError(e as EngineError);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [method],
  );
  return { run, busy, error, clearError: () => setError(undefined) };
}

// Latest progress of every run seen since the app opened.
const progressByRun = new Map<string, Progress>();
const progressListeners = new Set<() => void>();
let progressSnapshot: Map<string, Progress> = new Map();
let subscribed = false;

function ensureProgress() {
  if (subscribed) return;
  subscribed = true;
  onProgress((p) => {
    const before = progressByRun.get(p.run_id)?.status;
    progressByRun.set(p.run_id, p);
    progressSnapshot = new Map(progressByRun);
    progressListeners.forEach((l) => l());
    if (before !== p.status && p.status !== "running") dataChanged();
  });
  api("jobs.active", {}).then((list) => {
    for (const p of list) if (!progressByRun.has(p.run_id)) progressByRun.set(p.run_id, p);
    progressSnapshot = new Map(progressByRun);
    progressListeners.forEach((l) => l());
  }).catch(() => {});
}

/** Progress of every run (live). */
export function useAllProgress(): Map<string, Progress> {
  ensureProgress();
  return useSyncExternalStore(
    (l) => {
      progressListeners.add(l);
      return () => progressListeners.delete(l);
    },
    () => progressSnapshot,
  );
}

export function useProgress(runId: string | null | undefined): Progress | undefined {
  const all = useAllProgress();
  return runId ? all.get(runId) : undefined;
}
