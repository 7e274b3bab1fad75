// "Draft every clause": choose the model and kinds, read the plan (what is drafted, what is skipped
// and why, calls, tokens, cost, where the text goes), confirm a remote destination, then follow the
// job with a progress bar that can stop it. Stopped or interrupted jobs can be resumed.

import { useEffect, useState } from "react";
import { useAction, useApi, useProgress } from "../../../api/client";
import type { DraftAllRun, DraftKind, ModelView, Progress } from "../../../api/generated";
import { LocalityBadge, StatusBadge } from "../../../components/Badges";
import { RunProblemsLine } from "../../../components/RunProblemsLine";
import { shownStatus } from "../../../runProblems";
import { CallsDisclosure } from "../../../components/CallLedger";
import { Modal } from "../../../components/Dialog";
import { ErrorBanner, Loading, toast } from "../../../components/Feedback";
import { Checkbox } from "../../../components/Forms";
import { RunProgress } from "../../../components/Progress";
import { num, plural, tokens, usd, when } from "../../../format";
import { useDebounced } from "../../anchors/hooks";
import { isResumable } from "../../../runStatus";
import { ModelSelect } from "./ModelChoice";
import { defaultModel, KIND_LABEL } from "./logic";

const KINDS: DraftKind[] = ["complete", "uncertain", "missing"];

function fromRun(r: DraftAllRun): Progress {
  return { run_id: r.run_id, kind: "authoring", status: r.status, total: 0, done: r.drafts, counters: {}, elapsed_secs: 0, eta_secs: null, message: r.error };
}

export function DraftAllProgress({ run, live }: { run: DraftAllRun | { run_id: string }; live?: Progress }) {
  const cancel = useAction("authoring.draft_all_cancel");
  const resume = useAction("authoring.draft_all_resume");
  const p = live ?? ("status" in run ? fromRun(run) : undefined);
  if (!p) return <Loading label="Starting…" />;
  return (
    <div className="stack" data-testid="draft-all-progress">
      <RunProgress
        progress={p}
        unit="drafts"
        onCancel={() => cancel.run({ run_id: run.run_id })}
        cancelText="Drafts finished so far are kept; you can resume the job later."
      />
      {isResumable(p.status) && (
        <div className="row gap">
          <button
            className="btn"
            disabled={resume.busy}
            onClick={async () => {
              const r = await resume.run({ run_id: run.run_id });
              if (r) toast("Drafting resumed: clauses already drafted are skipped.");
            }}
          >
            {resume.busy ? "Resuming…" : "Resume"}
          </button>
          <span className="small muted">Drafts made so far are kept; resuming drafts what is still missing.</span>
        </div>
      )}
      <ErrorBanner error={cancel.error ?? resume.error} onDismiss={() => (cancel.clearError(), resume.clearError())} title="That did not work." />
    </div>
  );
}

function RunLine({ run }: { run: DraftAllRun }) {
  const live = useProgress(run.run_id);
  return (
    <li className="stack draft-run">
      <div className="row gap wrap small">
        <StatusBadge status={shownStatus(live?.status ?? run.status, run.problems)} />
        <span>
          {run.kinds.map((k) => KIND_LABEL[k].toLowerCase()).join(", ")} with {run.model}
        </span>
        <span className="muted">{when(run.created_at)}</span>
      </div>
      <RunProblemsLine run={run} />
      {(live?.status ?? run.status) !== "completed" && <DraftAllProgress run={run} live={live} />}
      <CallsDisclosure runId={run.run_id} />
    </li>
  );
}

/** The drafting jobs of this policy, with progress, Stop and Resume. */
export function DraftAllRuns({ policyId }: { policyId: string }) {
  const runs = useApi("authoring.draft_all_list", {});
  const mine = (runs.data ?? []).filter((r) => r.policy === policyId).slice(0, 5);
  if (mine.length === 0) return null;
  return (
    <details className="card draft-runs" open={mine.some((r) => r.status !== "completed")}>
      <summary>
        <strong>Drafting jobs</strong> <span className="muted small">({mine.length})</span>
      </summary>
      <ul className="plain-list stack">
        {mine.map((r) => (
          <RunLine key={r.run_id} run={r} />
        ))}
      </ul>
    </details>
  );
}

export function DraftAllDialog({ policyId, models, onClose }: { policyId: string; models: ModelView[]; onClose: () => void }) {
  const [model, setModel] = useState(defaultModel(models));
  const [kinds, setKinds] = useState<DraftKind[]>(["complete", "uncertain"]);
  const [confirmed, setConfirmed] = useState(false);
  const [runId, setRunId] = useState<string | null>(null);
  const request = useDebounced(model && kinds.length ? { policy: policyId, model, kinds, label: null } : null, 250);
  const plan = useApi("authoring.draft_all_plan", runId ? null : request);
  const start = useAction("authoring.draft_all_start");
  const live = useProgress(runId);
  useEffect(() => setConfirmed(false), [model]);
  const p = plan.data;
  const remote = p?.sends_data_off_machine ?? false;
  const blocker = kinds.length === 0 ? "Choose at least one kind of draft." : !p ? "Working out the plan…" : p.to_draft === 0 ? "There is nothing to draft." : remote && !confirmed ? "Tick the confirmation to send policy text to the remote model." : null;
  const m = models.find((x) => x.name === model);
  return (
    <Modal
      title="Draft every clause"
      wide
      onClose={onClose}
      footer={
        runId ? (
          <button className="btn" onClick={onClose}>
            {live?.status === "running" ? "Close (the job keeps running)" : "Close"}
          </button>
        ) : (
          <>
            {blocker && <span className="small muted">{blocker}</span>}
            <button className="btn" onClick={onClose}>
              Cancel
            </button>
            <button
              className="btn btn-primary"
              disabled={!!blocker || start.busy || plan.loading}
              onClick={async () => {
                const r = await start.run({ policy: policyId, model, kinds, label: null });
                if (r) setRunId(r.run_id);
              }}
            >
              {start.busy ? "Starting…" : p ? `Start drafting ${plural(p.to_draft, "item")}` : "Start drafting"}
            </button>
          </>
        )
      }
    >
      {runId ? (
        <div className="stack">
          <p>Drafts are stored as they are made and wait for review in each clause. The job keeps running if you close this window.</p>
          <DraftAllProgress run={{ run_id: runId }} live={live} />
        </div>
      ) : (
        <div className="stack">
          <div className="row gap wrap align-end">
            <ModelSelect id="all-model" label="Model" models={models} value={model} onChange={setModel} />
          </div>
          <fieldset className="radio-group">
            <legend>What to draft for each clause</legend>
            {KINDS.map((k) => (
              <label key={k}>
                <input type="checkbox" checked={kinds.includes(k)} onChange={(e) => setKinds(e.target.checked ? KINDS.filter((x) => x === k || kinds.includes(x)) : kinds.filter((x) => x !== k))} />{" "}
                {KIND_LABEL[k]}
              </label>
            ))}
          </fieldset>
          <ErrorBanner error={plan.error} title="The plan could not be made." />
          {p && (
            <div className="stack" data-testid="draft-all-plan">
              <p>
                <strong>{plural(p.to_draft, "item")} to draft</strong>
                {p.skipped > 0 && <>, {plural(p.skipped, "item")} skipped</>}. About {num(p.calls)} model calls, {tokens(p.input_tokens)} tokens in and{" "}
                {tokens(p.output_tokens)} out; cost {p.usd === null ? <>unknown (no price registered for {p.model})</> : <strong>{usd(p.usd)}</strong>}.
              </p>
              <table className="data compact">
                <caption className="cap-left">Per clause</caption>
                <thead>
                  <tr>
                    <th>Clause</th>
                    <th>Kind</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {p.items.map((it, i) => (
                    <tr key={i}>
                      <td>
                        {it.label} <code className="id">{it.clause_id}</code>
                      </td>
                      <td>
                        {KIND_LABEL[it.kind]}
                        {it.parent_card_id ? ` for ${it.parent_card_id}` : ""}
                      </td>
                      <td className={it.state === "no approved extraction" ? "warn-text" : undefined}>
                        {it.state === "no approved extraction" ? "skipped: no approved extraction" : it.state === "drafted" ? "already drafted" : "to draft"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="row gap wrap small">
                <span>Where the text goes:</span>
                {m && <LocalityBadge local={!p.sends_data_off_machine} />}
                <code className="id">{p.destination}</code>
              </div>
              {p.notes.length > 0 && (
                <ul className="small muted">
                  {p.notes.map((n) => (
                    <li key={n}>{n}</li>
                  ))}
                </ul>
              )}
              {remote && (
                <div className="destination destination-remote">
                  <Checkbox
                    label="I understand that the approved policy sections and clause texts will be sent to the remote model above."
                    checked={confirmed}
                    onChange={setConfirmed}
                    hint="Check that your organisation allows this provider to read the policy."
                  />
                </div>
              )}
            </div>
          )}
          <ErrorBanner error={start.error} onDismiss={start.clearError} title="The job did not start." />
        </div>
      )}
    </Modal>
  );
}
