// Sort anchors into buckets with a model (a topical sort, never a reportability judgement), or
// translate them to English (the original is kept). Both say where the text goes before sending,
// ask for a confirmation when it leaves the computer, and then run as a job: a progress bar with
// counts, a Stop button, and the outcome of every anchor as it arrives. Closing the dialog leaves
// the job running; the Anchors page lists it.

import { useEffect, useMemo, useState } from "react";
import { api, useAction, useApi, useProgress } from "../../api/client";
import type { AnchorJobKind, AnchorSummary } from "../../api/generated";
import { LocalityBadge, StatusBadge } from "../../components/Badges";
import { CallsDisclosure } from "../../components/CallLedger";
import { DataTable } from "../../components/DataTable";
import { Modal } from "../../components/Dialog";
import { EmptyState, ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { Checkbox, Select } from "../../components/Forms";
import { ProgressBar } from "../../components/Progress";
import { num, plural, tokens, usd } from "../../format";
import type { ClauseIndex } from "./clauses";
import { clauseShort } from "./clauses";
import { batchSummary, jobCounts, needsTranslation, OUTCOME_ICON, OUTCOME_LABEL } from "./logic";
import { currentPolicy } from "../../policyChoice";

type Scope = "unsorted" | "selected" | "all";

/** A started job: live progress, a Stop button while it runs, and each anchor's outcome. */
export function AnchorJobPanel({
  runId,
  kind,
  clauses,
  onOpenAnchor,
}: {
  runId: string;
  kind: AnchorJobKind;
  clauses: ClauseIndex | undefined;
  onOpenAnchor: (id: string) => void;
}) {
  const live = useProgress(runId);
  const job = useApi("anchor_job.show", { run_id: runId });
  const { reload } = job;
  const view = job.data;
  const status = live?.status ?? view?.status ?? "running";
  const running = status === "running" || status === "pending";
  // New outcomes as the job advances (events), and a slow poll in case an event was missed.
  useEffect(() => {
    reload();
  }, [live?.done, live?.status, reload]);
  useEffect(() => {
    if (!running) return;
    const t = window.setInterval(reload, 1500);
    return () => window.clearInterval(t);
  }, [running, reload]);
  const [stopping, setStopping] = useState(false);
  if (job.error && !view) return <ErrorBanner error={job.error} title="The job could not be read." />;
  if (!view) return <Loading />;
  const c = jobCounts(view, live);
  const r = view.result;
  return (
    <div className="stack" data-testid="batch-result">
      <div className="run-progress" aria-live="polite">
        <div className="row between">
          <div className="row gap">
            <StatusBadge status={status} />
            <strong>
              {num(c.done)} / {num(c.total)} anchors
            </strong>
            <code className="id">{runId}</code>
          </div>
          {running && (
            <button
              className="btn"
              disabled={stopping}
              onClick={async () => {
                setStopping(true);
                try {
                  await api("anchor_job.cancel", { run_id: runId });
                  toast("Stopping after the anchors in flight; finished outcomes are kept.");
                } catch (e) {
                  toast(`The job could not be stopped: ${(e as Error).message}`, "error");
                  setStopping(false);
                }
              }}
            >
              {stopping ? "Stopping…" : "Stop"}
            </button>
          )}
        </div>
        <ProgressBar value={c.done} max={c.total} label={`${c.done} of ${c.total} anchors done`} />
        <div className="row gap wrap small muted">
          <span>{num(c.changed)} {kind === "presort" ? "moved" : "translated"}</span>
          <span>{num(c.unchanged)} unchanged</span>
          {c.kept > 0 && <span>{num(c.kept)} kept as set by hand</span>}
          <span>{num(c.failed)} failed</span>
          <span>{tokens(c.tokens)} tokens</span>
          <span>{usd(c.cost)}</span>
        </div>
      </div>
      {!running && (
        <Notice
          kind={status === "completed" && r.failed === 0 ? "success" : "warn"}
          title={status === "completed" ? (kind === "presort" ? "Sorting finished." : "Translation finished.") : "The job stopped before every anchor was done."}
        >
          {batchSummary(kind, r)} {tokens(r.input_tokens + r.output_tokens)} tokens, {usd(r.cost_usd)}.
          {view.pending > 0 && ` ${plural(view.pending, "anchor")} still to do: resume the job from the Anchors page.`}
          {view.error && <div className="small">{view.error}</div>}
        </Notice>
      )}
      <DataTable
        rows={r.items}
        rowKey={(i) => i.anchor_id}
        maxHeight={360}
        caption={kind === "presort" ? "Outcome per anchor" : "Translation outcome per anchor"}
        onOpen={(i) => onOpenAnchor(i.anchor_id)}
        empty={<p className="muted small">No anchor is done yet; outcomes appear here as they arrive.</p>}
        columns={[
          { key: "id", header: "Anchor", width: "30%", render: (i) => <code className="id">{i.anchor_id}</code>, sort: (i) => i.anchor_id },
          {
            key: "outcome",
            header: "Outcome",
            width: "9rem",
            render: (i) => (
              <span className={`badge outcome-${i.outcome}`}>
                <span aria-hidden className="badge-icon">
                  {OUTCOME_ICON[i.outcome] ?? "•"}
                </span>
                {OUTCOME_LABEL[i.outcome] ?? i.outcome}
              </span>
            ),
            sort: (i) => i.outcome,
          },
          ...(kind === "presort"
            ? [{ key: "bucket", header: "Bucket", width: "25%", render: (i: (typeof r.items)[number]) => clauseShort(clauses, i.clause_id), sort: (i: (typeof r.items)[number]) => clauseShort(clauses, i.clause_id) }]
            : []),
          { key: "note", header: kind === "presort" ? "The model's reason (or the problem)" : "Note", render: (i) => <span className="small">{i.note ?? ""}</span> },
        ]}
      />
      <CallsDisclosure runId={runId} />
    </div>
  );
}

export function ModelBatchDialog({
  kind,
  all,
  selected,
  clauses,
  onClose,
  onOpenAnchor,
  jobRunId,
}: {
  kind: AnchorJobKind;
  all: AnchorSummary[];
  selected: string[];
  clauses: ClauseIndex | undefined;
  onClose: () => void;
  onOpenAnchor: (id: string) => void;
  /** Open on a job already started (from the Anchors page's list). */
  jobRunId?: string;
}) {
  const models = useApi("models.list", {});
  const [model, setModel] = useState("");
  const [scope, setScope] = useState<Scope>(selected.length > 0 ? "selected" : kind === "presort" ? "unsorted" : "all");
  const [confirmed, setConfirmed] = useState(false);
  const [useBatch, setUseBatch] = useState(false);
  const [runId, setRunId] = useState<string | null>(jobRunId ?? null);
  const action = useAction("anchor_job.start");
  const live = useProgress(runId);

  const list = models.data ?? [];
  const chosen = list.find((m) => m.name === model) ?? list[0];
  const unsortedCount = all.filter((a) => a.clause_id === null).length;
  const untranslated = useMemo(() => needsTranslation(all), [all]);
  const selectedForTranslation = selected.filter((id) => untranslated.some((a) => a.anchor_id === id));
  const count =
    kind === "presort"
      ? scope === "selected"
        ? selected.length
        : scope === "unsorted"
          ? unsortedCount
          : all.length
      : scope === "selected"
        ? selectedForTranslation.length
        : untranslated.length;
  const remote = chosen ? !chosen.local : false;
  // OpenAI-compatible servers (local ones included) have no batch API.
  const canBatch = chosen !== undefined && chosen !== null && chosen.kind !== "openai-compatible";
  const title = kind === "presort" ? "Sort anchors into buckets with a model" : "Translate anchors to English";

  const run = async () => {
    if (!chosen) return;
    const r = await action.run({
      kind,
      model: chosen.name,
      only_unbucketed: kind === "presort" && scope === "unsorted",
      anchor_ids: scope === "selected" ? (kind === "presort" ? selected : selectedForTranslation) : [],
      policy: kind === "presort" ? currentPolicy() : null,
      concurrency: null,
      batch: canBatch && useBatch,
      label: null,
    });
    if (r) setRunId(r.run_id);
  };

  const jobRunning = runId !== null && (live === undefined || live.status === "running");
  const footer = runId ? (
    <button className="btn btn-primary" onClick={onClose} title={jobRunning ? "The job keeps running; the Anchors page lists it." : undefined}>
      {jobRunning ? "Close (the job keeps running)" : "Done"}
    </button>
  ) : (
    <>
      <button className="btn" onClick={onClose}>
        Cancel
      </button>
      <button className="btn btn-primary" disabled={!chosen || count === 0 || action.busy || (remote && !confirmed)} onClick={run}>
        {action.busy ? "Starting…" : kind === "presort" ? `Sort ${plural(count, "anchor")}` : `Translate ${plural(count, "anchor")}`}
      </button>
    </>
  );

  return (
    <Modal title={title} wide onClose={onClose} footer={footer}>
      {runId ? (
        <AnchorJobPanel runId={runId} kind={kind} clauses={clauses} onOpenAnchor={onOpenAnchor} />
      ) : models.data && list.length === 0 ? (
        <EmptyState title="No model is registered yet" actions={<a className="btn btn-primary" href="#/settings">Add a model in Settings</a>}>
          {kind === "presort" ? "Sorting by topic needs a model." : "Translation needs a model."} Register one (local or remote) in Settings, then come back.
        </EmptyState>
      ) : (
        <>
          {kind === "presort" ? (
            <Notice title="A sort by topic, not a judgement.">
              The model reads each report and names the clause whose kind of event it is about, so that cards borrow settings from related reports. It
              does not decide whether anything is reportable. Buckets a person set by hand are never changed.
            </Notice>
          ) : (
            <Notice title="The original is kept.">
              Anchors not in English are translated so that the writing models can borrow their setting. The original text and language stay with each
              anchor and are shown beside the translation.
            </Notice>
          )}
          <div className="grid-2">
            <Select
              label="Model"
              value={chosen?.name ?? ""}
              onChange={(v) => {
                setModel(v);
                setConfirmed(false);
              }}
              options={list.map((m) => ({ value: m.name, label: `${m.name} (${m.local ? "on this computer" : "remote"})` }))}
            />
            <fieldset className="radio-group">
              <legend>Which anchors</legend>
              {kind === "presort" && (
                <label>
                  <input type="radio" name="scope" checked={scope === "unsorted"} onChange={() => setScope("unsorted")} /> Not sorted yet ({unsortedCount})
                </label>
              )}
              {selected.length > 0 && (
                <label>
                  <input type="radio" name="scope" checked={scope === "selected"} onChange={() => setScope("selected")} /> The selected anchors (
                  {kind === "presort" ? selected.length : selectedForTranslation.length})
                </label>
              )}
              <label>
                <input type="radio" name="scope" checked={scope === "all"} onChange={() => setScope("all")} />{" "}
                {kind === "presort" ? `Every anchor (${all.length}); hand-set buckets stay` : `Every anchor not yet in English (${untranslated.length})`}
              </label>
            </fieldset>
          </div>
          {chosen && (
            <div className={`destination ${remote ? "destination-remote" : ""}`} data-testid="destination">
              <div className="row gap wrap">
                <LocalityBadge local={!remote} />
                <span>
                  The text of {plural(count, "anchor")} will be sent to <strong>{chosen.name}</strong> at <code>{chosen.destination}</code>.
                </span>
              </div>
              {remote && (
                <Checkbox
                  label="I understand that this anchor text leaves this computer."
                  checked={confirmed}
                  onChange={setConfirmed}
                  hint="Only send text that is de-identified and that your organisation allows to be processed by this provider."
                />
              )}
            </div>
          )}
          {canBatch && (
            <Checkbox
              label="Use the provider's batch API (half the price; answers can take up to 24 hours)"
              checked={useBatch}
              onChange={setUseBatch}
              hint="The requests go out together as one batch. You can close the app meanwhile; reopening it or pressing Resume on the job picks the batch up again."
            />
          )}
          {count === 0 && (
            <p className="muted small">{kind === "presort" ? "No anchor is waiting to be sorted in this choice." : "Every anchor in this choice is already in English."}</p>
          )}
          <p className="muted small">
            The anchors are handled as a job: each outcome is saved as soon as its answer arrives, you can stop it at any time, and closing this
            window leaves it running.
          </p>
          <ErrorBanner error={action.error} onDismiss={action.clearError} title={kind === "presort" ? "The sorting job did not start." : "The translation job did not start."} />
        </>
      )}
    </Modal>
  );
}
