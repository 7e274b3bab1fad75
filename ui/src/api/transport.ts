// The one place that knows how the UI reaches the engine: Tauri IPC inside the desktop app,
// HTTP (`psebench serve`) inside a web browser. Everything else calls `call()`, `onProgress()` and
// `onDataChange()`.

// In the desktop window the engine is reached through Tauri (small modules, in the first file so the
// first call does not wait for another file to load).
import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { ApiError, ChangeKind, Progress } from "./generated";
import { ALL_KINDS, kindsOfEvent } from "./liveData";
import { forgetOwnerKey, ownerKey } from "./ownerKey";
import { readEventStream } from "./sse";

export type Host = "tauri" | "http";

declare global {
  interface Window {
    __TAURI_INTERNALS__?: unknown;
  }
}

export function host(): Host {
  return typeof window !== "undefined" && window.__TAURI_INTERNALS__ ? "tauri" : "http";
}

/** An error from the engine (or from reaching it), always with a sentence for people. */
export class EngineError extends Error {
  code: string;
  detail: string | null;
  constructor(e: { code: string; message: string; detail?: string | null }) {
    super(e.message);
    this.code = e.code;
    this.detail = e.detail ?? null;
  }
}

function asEngineError(e: unknown): EngineError {
  if (e instanceof EngineError) return e;
  if (e && typeof e === "object" && "code" in e && "message" in e) {
    const x = e as ApiError;
    return new EngineError({ code: String(x.code), message: String(x.message), detail: x.detail ?? null });
  }
  if (typeof e === "string") {
    try {
      return asEngineError(JSON.parse(e));
    } catch {
      return new EngineError({ code: "internal", message: e });
    }
  }
  return new EngineError({ code: "internal", message: e instanceof Error ? e.message : String(e) });
}

let reviewToken: string | null = null;

// `psebench serve` answers 401 to a browser that did not come through the link it printed (the
// link carries the session's key, see ownerKey.ts). Once that happens the app shows one full-page
// notice instead, and the refused key (one of an earlier start) is dropped.
let ownerKeyMissing = false;
const keyListeners = new Set<() => void>();

function markOwnerKeyMissing() {
  if (ownerKeyMissing) return;
  ownerKeyMissing = true;
  forgetOwnerKey();
  keyListeners.forEach((l) => l());
}

/** The headers that say who is calling: a reviewer's link token, else the owner's key if known. */
function whoHeaders(): Record<string, string> {
  if (reviewToken) return { "x-review-token": reviewToken };
  const key = ownerKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** Whether the server refused this page for lack of its key (see `useOwnerKeyMissing`). */
export function isOwnerKeyMissing(): boolean {
  return ownerKeyMissing;
}

export function onOwnerKeyMissing(l: () => void): () => void {
  keyListeners.add(l);
  return () => keyListeners.delete(l);
}

/** Calls made from a reviewer's personal link carry its token. */
export function setReviewToken(token: string | null) {
  reviewToken = token;
}

async function callHttp(method: string, params: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json", ...whoHeaders() };
  let resp: Response;
  try {
    resp = await fetch(`/api/${method}`, { method: "POST", headers, body: JSON.stringify(params ?? {}) });
  } catch (e) {
    throw new EngineError({
      code: "unreachable",
      message: "PSEBench Studio's server cannot be reached. Is `psebench serve` still running?",
      detail: String(e),
    });
  }
  if (resp.status === 401) markOwnerKeyMissing();
  const text = await resp.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    throw new EngineError({ code: "internal", message: `The server answered with something that is not JSON (HTTP ${resp.status}).`, detail: text.slice(0, 500) });
  }
  if (!resp.ok) throw asEngineError(body ?? { code: "internal", message: `HTTP ${resp.status}` });
  return body;
}

async function callTauri(method: string, params: unknown): Promise<unknown> {
  try {
    return await invoke("api", { method, params: params ?? {} });
  } catch (e) {
    throw asEngineError(e);
  }
}

/** Call one engine API method. Each call's duration is noted in the page's performance timeline
 * (a measure named "api METHOD"), which scripts/bench-app --detail reads; the newest few hundred are kept. */
export async function callRaw(method: string, params: unknown): Promise<unknown> {
  const start = performance.now();
  try {
    return await (host() === "tauri" ? callTauri(method, params) : callHttp(method, params));
  } finally {
    noteDuration(method, start);
  }
}

const KEPT_MEASURES = 500;
let measures = 0;

function noteDuration(method: string, start: number) {
  try {
    if (++measures > KEPT_MEASURES) {
      performance.clearMeasures();
      measures = 1;
    }
    performance.measure(`api ${method}`, { start, end: performance.now() });
  } catch {
    // A browser without User Timing level 3: nothing is noted.
  }
}

type Listener = (p: Progress) => void;
type ChangeListener = (kinds: ChangeKind[]) => void;
const listeners = new Set<Listener>();
const changeListeners = new Set<ChangeListener>();
let started = false;

/** What arrives on the event channel: job progress, and kinds of stored data that changed. */
type Deliver = { progress: (p: Progress) => void; change: (kinds: ChangeKind[]) => void };

function startEvents() {
  if (started) return;
  started = true;
  const deliver: Deliver = {
    progress: (p) => listeners.forEach((l) => l(p)),
    change: (kinds) => {
      if (kinds.length) changeListeners.forEach((l) => l(kinds));
    },
  };
  if (host() === "tauri") {
    void listen<Progress>("job-progress", (ev) => deliver.progress(ev.payload));
    void listen<{ kinds: ChangeKind[] }>("data-change", (ev) => deliver.change(kindsOfEvent(JSON.stringify(ev.payload))));
    return;
  }
  // A reviewer's page follows nothing: the review server tells reviewers of no changes.
  if (reviewToken || typeof fetch === "undefined") return;
  void followEvents(deliver);
}

const RECONNECT_MS = 2000;

/**
 * Read `/api/events` (progress and change events) with `fetch` so that it carries the key as a header (an `EventSource` cannot
 * send one, and the key is never put in an address). After a lost connection it connects again;
 * it stops for good when the server refuses the key (401, which shows the notice), refuses the
 * request otherwise (4xx) or has no jobs to report (204).
 */
async function followEvents(deliver: Deliver) {
  let connectedBefore = false;
  while (!ownerKeyMissing) {
    try {
      const resp = await fetch("/api/events", { headers: { accept: "text/event-stream", ...whoHeaders() }, cache: "no-store" });
      if (resp.status === 401) {
        markOwnerKeyMissing();
        return;
      }
      // 204: nothing to follow (a review server); other 4xx answers will not change by retrying.
      if (resp.status === 204 || (resp.status >= 400 && resp.status < 500)) return;
      if (resp.ok && resp.body) {
        // What changed while the connection was lost is not known: everything may have.
        if (connectedBefore) deliver.change([...ALL_KINDS]);
        connectedBefore = true;
        await readEventStream(resp.body, (ev) => {
          if (ev.event === "change") {
            deliver.change(kindsOfEvent(ev.data));
            return;
          }
          if (ev.event !== "progress") return;
          try {
            deliver.progress(JSON.parse(ev.data) as Progress);
          } catch {
            /* ignore a malformed event */
          }
        });
      }
    } catch {
      /* the connection was lost or refused: try again below */
    }
    await new Promise((ok) => setTimeout(ok, RECONNECT_MS));
  }
}

/** Follow progress of long jobs (evaluation and generation runs). Returns an unsubscribe function. */
export function onProgress(l: Listener): () => void {
  startEvents();
  listeners.add(l);
  return () => listeners.delete(l);
}

/**
 * Follow changes to stored data, made here or anywhere else on the same store (another page, the
 * command line, a reviewer): called with the kinds that changed. Returns an unsubscribe function.
 */
export function onDataChange(l: ChangeListener): () => void {
  startEvents();
  changeListeners.add(l);
  return () => changeListeners.delete(l);
}
