// The call ledger, shown the same way everywhere: every model call behind a generation attempt,
// an extraction, a draft, a label-audit case or a whole run, with its role, prompt and version,
// model, tokens, cost, time, cache use, reading notes and failed tries, and the request and reply
// behind a disclosure.

import { useState } from "react";
import "./CallLedger.css";
import { useApi } from "../api/client";
import type { LedgerCall } from "../api/generated";
import { ErrorBanner, Loading, Notice } from "./Feedback";
import { humanize, jsonText, num, plural, tokens, usd, when } from "../format";

/** What every view's calls have in common (generation, authoring and ledger rows). */
export type CallLike = {
  role: string | null;
  prompt_name: string | null;
  prompt_versions: { [key in string]?: string };
  model: string;
  request: unknown;
  response_text: string | null;
  parse_notes: string[];
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_ms: number;
  cache_hit: boolean;
  attempt?: number | null;
  stage?: string;
  provider_model?: string | null;
  failed_attempts?: string[];
  ok?: boolean;
  error?: string | null;
  item?: string | null;
  at?: string;
};

/** Plain names of the roles that call models outside generation (generation passes its own). */
export const CALL_ROLE_LABEL: Record<string, string> = {
  self_check: "Check the selection",
  drafter: "Draft the cards",
  screener: "Screen against every clause",
  eval: "Model under test",
  info: "Information provider",
  judge: "Judge",
  judge_rejudge: "Judge (re-judging)",
  anchor_presort: "Sort the anchor",
  anchor_translate: "Translate the anchor",
};

/** The messages of a stored request, as text. */
export function requestMessages(request: unknown): { role: string; content: string }[] {
  if (!request || typeof request !== "object") return [];
  const m = (request as { messages?: unknown }).messages;
  if (!Array.isArray(m)) return [];
  return m.map((x) => {
    const o = (x ?? {}) as { role?: unknown; content?: unknown };
    return { role: jsonText(o.role ?? ""), content: typeof o.content === "string" ? o.content : JSON.stringify(o.content, null, 2) };
  });
}

/** Failed tries kept with the call (in its own field, or inside the request of older rows). */
export function failedTries(call: CallLike): string[] {
  if (call.failed_attempts && call.failed_attempts.length > 0) return call.failed_attempts;
  const inside = (call.request as { failed_attempts?: unknown } | null)?.failed_attempts;
  return Array.isArray(inside) ? inside.map((x) => jsonText(x)) : [];
}

function messageLabel(role: string): string {
  if (role === "system") return "Instructions (system message)";
  if (role === "user") return "Input (user message)";
  if (role === "assistant") return "Earlier reply (assistant message)";
  return role;
}

export function CallRow({ call, roleLabels }: { call: CallLike; roleLabels?: Record<string, string> }) {
  const role = call.role ?? call.stage ?? "";
  const label = roleLabels?.[role] ?? CALL_ROLE_LABEL[role] ?? humanize(role);
  const version = call.prompt_name ? call.prompt_versions[call.prompt_name] : undefined;
  const messages = requestMessages(call.request);
  const failed = failedTries(call);
  const broken = call.ok === false;
  return (
    <li className={`tl-call${broken ? " tl-call-failed" : ""}`} data-testid="ledger-call">
      <div className="tl-call-head">
        <strong title={role && label !== role ? `Role in the call ledger: ${role}` : undefined}>{label}</strong>
        {call.attempt != null && <span className="small">attempt {call.attempt}</span>}
        <span className="small" title={call.provider_model ? `The provider answered as ${call.provider_model}` : undefined}>
          {call.model}
        </span>
        {call.prompt_name && (
          <code className="id" title="Prompt template and version">
            {call.prompt_name}
            {version ? `@${version}` : ""}
          </code>
        )}
        <span className="small muted tl-usage">
          {tokens(call.input_tokens)} in · {tokens(call.output_tokens)} out · {usd(call.cost_usd)} · {num(call.latency_ms)} ms
          {call.cache_hit ? " · from the cache" : ""}
          {call.at ? ` · ${when(call.at)}` : ""}
        </span>
      </div>
      {broken && (
        <div className="small tl-notes" role="note">
          <strong>The call failed:</strong> {call.error ?? "no reason was recorded"}
        </div>
      )}
      {call.parse_notes.length > 0 && (
        <ul className="small muted tl-notes" aria-label="Notes on reading the reply">
          {call.parse_notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      )}
      {failed.length > 0 && (
        <details className="small">
          <summary>
            {plural(failed.length, "failed try", "failed tries")} before {broken ? "giving up" : "the answer"}
          </summary>
          <ul className="plain-list">
            {failed.map((f, i) => (
              <li key={i}>{f}</li>
            ))}
          </ul>
        </details>
      )}
      <details className="tl-raw">
        <summary className="small">Request and response</summary>
        {messages.length === 0 && <div className="small muted">The request was not kept for this call.</div>}
        {messages.map((m, i) => (
          <div key={i} className="tl-msg">
            <div className="small muted">{messageLabel(m.role)}</div>
            <pre className="call-text">{m.content}</pre>
          </div>
        ))}
        <div className="tl-msg">
          <div className="small muted">Raw response</div>
          <pre className="call-text">{call.response_text ?? "(no response)"}</pre>
        </div>
        {Object.keys(call.prompt_versions).length > 1 && (
          <div className="small muted">
            Templates: {Object.entries(call.prompt_versions).map(([k, v]) => `${k}@${v ?? ""}`).join(", ")}
          </div>
        )}
      </details>
    </li>
  );
}

/** A list of calls, in the order they were made. */
export function CallList({ calls, roleLabels, label }: { calls: CallLike[]; roleLabels?: Record<string, string>; label: string }) {
  if (calls.length === 0) return <div className="small muted">No model calls are recorded here.</div>;
  return (
    <ol className="tl-calls" aria-label={label}>
      {calls.map((c, i) => (
        <CallRow key={i} call={c} roleLabels={roleLabels} />
      ))}
    </ol>
  );
}

/** Totals of a list of calls, as one line. */
export function callTotals(calls: CallLike[]): string {
  const cost = calls.reduce((s, c) => s + c.cost_usd, 0);
  const tok = calls.reduce((s, c) => s + c.input_tokens + c.output_tokens, 0);
  const hits = calls.filter((c) => c.cache_hit).length;
  return `${plural(calls.length, "call")} · ${tokens(tok)} tokens · ${usd(cost)}${hits ? ` · ${num(hits)} from the cache` : ""}`;
}

const PAGE = 200;

/** The calls of a run (or of one item of it), read from the ledger page by page. */
export function RunCalls({ runId, item, roleLabels }: { runId: string | null; item?: string; roleLabels?: Record<string, string> }) {
  const [limit, setLimit] = useState(PAGE);
  const calls = useApi("calls.list", { run_id: runId, item: item ?? null, step: null, attempt: null, role: null, offset: null, limit });
  if (calls.loading && !calls.data) return <Loading label="Loading the model calls…" />;
  if (calls.error) return <ErrorBanner error={calls.error} title="The model calls could not be read" />;
  const rows: LedgerCall[] = calls.data ?? [];
  if (rows.length === 0) return <Notice>No model calls are recorded for this {item ? "item" : "run"} yet.</Notice>;
  return (
    <div className="call-ledger" data-testid="call-ledger">
      <div className="small muted">{callTotals(rows)}{rows.length >= limit ? " (first ones shown)" : ""}</div>
      <CallList calls={rows} roleLabels={roleLabels} label={item ? `Model calls of ${item}` : "Model calls of this run"} />
      {rows.length >= limit && (
        <button className="btn btn-small" onClick={() => setLimit((l) => l + PAGE)}>
          Show {PAGE} more calls
        </button>
      )}
    </div>
  );
}

/** A "Model calls" disclosure that reads the ledger only once opened. */
export function CallsDisclosure({ runId, item, roleLabels, summary = "Model calls" }: { runId: string | null; item?: string; roleLabels?: Record<string, string>; summary?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="run-details call-ledger-disclosure" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>{summary}</summary>
      {open && <RunCalls runId={runId} item={item} roleLabels={roleLabels} />}
    </details>
  );
}
