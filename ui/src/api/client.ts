// Typed access to the engine: `api("cards.list", {...})` and the `useApi` hook for pages.

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { ApiMethod, ApiMethods, Progress } from "./generated";
import { callRaw, EngineError, onProgress } from "./transport";

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

export type Loaded<T> = {
  data: T | undefined;
  error: EngineError | undefined;
  loading: boolean;
  reload: () => void;
};

/**
 * Load data for a page. `params` null means "not yet" (nothing is fetched). Reloads when the
 * parameters change or when stored data changes.
 */
export function useApi<M extends ApiMethod>(method: M, params: Params<M> | null): Loaded<Result<M>> {
  const version = useDataVersion();
  const [state, setState] = useState<{ data?: Result<M>; error?: EngineError; loading: boolean }>({ loading: params !== null });
  const [tick, setTick] = useState(0);
  const key = params === null ? null : JSON.stringify(params);
  const seq = useRef(0);
  useEffect(() => {
    if (key === null) {
      setState({ loading: false });
      return;
    }
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    api(method, JSON.parse(key) as Params<M>)
      .then((data) => {
        if (mine === seq.current) setState({ data, loading: false });
      })
      .catch((error: EngineError) => {
        if (mine === seq.current) setState((s) => ({ data: s.data, error, loading: false }));
      });
  }, [method, key, version, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
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
