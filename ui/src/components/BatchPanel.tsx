// "Provider batches": the batches a batch-mode run has sent, one row each with its state and
// counts, fetched again every few seconds while the run runs. Used by the Evaluate and Generate
// run views.

import { useEffect } from "react";
import { useApi } from "../api/client";
import type { BatchView } from "../api/generated";
import { num } from "../format";
import { BATCH_REFRESH_MS, batchState, batchSummary, batchTime } from "./batch";
import { DataTable } from "./DataTable";
import { ErrorBanner, Loading } from "./Feedback";
import "./batch.css";

function StateBadge({ state }: { state: string }) {
  const s = batchState(state);
  return (
    <span className={`badge status status-${s.badge}`}>
      <span aria-hidden className="badge-icon">
        {s.icon}
      </span>
      {s.label}
    </span>
  );
}

export function BatchPanel({ runId, running }: { runId: string; running: boolean }) {
  const batches = useApi("batches.list", { run_id: runId });
  const { reload } = batches;
  useEffect(() => {
    if (!running) return;
    const t = setInterval(reload, BATCH_REFRESH_MS);
    return () => clearInterval(t);
  }, [running, reload]);
  const list = batches.data ?? [];
  return (
    <section className="batch-panel" aria-labelledby={`batches-${runId}`}>
      <h3 id={`batches-${runId}`}>Provider batches</h3>
      <ErrorBanner error={batches.error} title="The provider batches could not be listed." />
      {!batches.data && !batches.error && <Loading label="Looking up the batches…" />}
      {batches.data && (
        <>
          <p className="batch-summary" role="status" aria-live="polite">
            {batchSummary(list, running)}
          </p>
          {list.length > 0 && (
            <DataTable<BatchView>
              rows={list}
              rowKey={(b) => b.batch_id}
              caption="Provider batches of this run"
              initialSort={{ key: "sent", dir: "desc" }}
              maxHeight={320}
              columns={[
                {
                  key: "model",
                  header: "Model",
                  sort: (b) => b.model_name,
                  render: (b) => (
                    <div className="batch-model">
                      <strong>{b.model_name}</strong>
                      <code className="id" title={b.provider_batch_id ? `The provider's id: ${b.provider_batch_id}` : "Not accepted by the provider yet"}>
                        {b.batch_id}
                      </code>
                    </div>
                  ),
                },
                { key: "provider", header: "Provider", sort: (b) => b.provider, render: (b) => b.provider },
                {
                  key: "state",
                  header: "State",
                  sort: (b) => b.state,
                  render: (b) => (
                    <div>
                      <StateBadge state={b.state} />
                      {b.error && <div className="small batch-error">{b.error}</div>}
                    </div>
                  ),
                },
                { key: "says", header: "Provider says", sort: (b) => b.provider_status, render: (b) => b.provider_status ?? <span className="muted">–</span> },
                { key: "requests", header: "Requests", align: "right", sort: (b) => b.requests, render: (b) => num(b.requests) },
                { key: "answered", header: "Answered", align: "right", sort: (b) => b.succeeded, render: (b) => num(b.succeeded) },
                { key: "failed", header: "Failed", align: "right", sort: (b) => b.failed, render: (b) => (b.failed ? <strong className="batch-failed">{num(b.failed)}</strong> : "0") },
                { key: "sent", header: "Sent", sort: (b) => b.created_at, render: (b) => <span className="small">{batchTime(b.created_at)}</span> },
                { key: "ended", header: "Ended", sort: (b) => b.ended_at, render: (b) => <span className="small">{batchTime(b.ended_at)}</span> },
              ]}
            />
          )}
        </>
      )}
    </section>
  );
}
