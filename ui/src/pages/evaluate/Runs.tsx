// One run's live progress and outcome, and the list of every run with its actions.

import { useState } from "react";
import { CallsDisclosure } from "../../components/CallLedger";
import { api, useAction, useAllProgress, useApi, useProgress } from "../../api/client";
import { saveDownload, toUpload } from "../../api/files";
import type { EvaluationRunView, Progress, ResumeParams, RunStatus } from "../../api/generated";
import { SimulationBadge, StatusBadge } from "../../components/Badges";
import { shownStatus } from "../../runProblems";
import { BatchPanel } from "../../components/BatchPanel";
import { DataTable } from "../../components/DataTable";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { FilePicker } from "../../components/Forms";
import { KeyValues, Section } from "../../components/Layout";
import { ProgressBar, RunProgress } from "../../components/Progress";
import { ResumeCapDialog } from "../../components/SpendingCap";
import { jsonText, num, pct, plural, usd, when } from "../../format";
import { href, setQuery } from "../../router";
import { RejudgeDialog } from "./Rejudge";
import { DeleteRunDialog } from "./DeleteRun";
import { MadeWithPanel, ProtocolBadge } from "../../components/Protocol";
import { runProtocol } from "../../components/protocol";
import { accuracySoFar, canResume, describeSelection, isImported, isSimulation, parseSelection, runModel, simulatedRoles } from "./selection";
import { isResumable } from "../../runStatus";

/** "a", "a and b", "a, b and c". */
function listWords(words: string[]): string {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

const RESUME_NOTE = "Resuming runs only the unfinished cases; model replies already received are reused from the cache and cost nothing again.";

async function exportRun(runId: string) {
  try {
    const d = await api("evaluation.export", { run_id: runId });
    toast(await saveDownload(d));
  } catch (e) {
    toast(`The export failed: ${(e as Error).message}`, "error");
  }
}

/** The run picked in the URL: live progress while it works, then its outcome and next steps. */
export function RunPanel({ runId }: { runId: string }) {
  const run = useApi("evaluation.show", { run_id: runId });
  const live = useProgress(runId);
  const resume = useAction("evaluation.resume");
  const [rejudging, setRejudging] = useState(false);
  const [raisingCap, setRaisingCap] = useState(false);
  const r = run.data;

  if (run.error && !r)
    return (
      <Section title="Run">
        <ErrorBanner error={run.error} title="This run could not be found." />
        <button className="btn" onClick={() => setQuery("run", null)}>
          Close
        </button>
      </Section>
    );
  if (!r) return <Loading />;
  const cfg = r.config;
  const running = live?.status === "running" || (!live && r.status === "running");
  const status = live && live.status !== "running" && r.status === "running" ? live.status : running ? "running" : r.status;
  const progress: Progress = live ?? {
    run_id: r.run_id,
    kind: "eval",
    status,
    total: r.counts.total,
    done: r.counts.done,
    counters: {
      correct: r.counts.correct,
      asks: r.counts.asks,
      parse_failures: r.counts.parse_failures,
      errors: r.counts.with_errors,
      prompt_tokens: r.counts.prompt_tokens,
      completion_tokens: r.counts.completion_tokens,
      cost_usd: r.counts.cost_usd,
    },
    elapsed_secs: 0,
    eta_secs: null,
    message: null,
  };
  const acc = accuracySoFar(r.counts);
  const title = `${runModel(r)}${r.label ? ` · ${r.label}` : ""}`;
  return (
    <Section
      title={
        <>
          Run: {title} {isSimulation(r) && <SimulationBadge />}
        </>
      }
      actions={
        <button className="btn btn-ghost" onClick={() => setQuery("run", null)} aria-label="Close this run's panel">
          ✕
        </button>
      }
    >
      <div className="run-panel">
        {running ? (
          <RunProgress
            progress={{ ...progress, status: "running" }}
            onCancel={async () => {
              try {
                await api("evaluation.cancel", { run_id: runId });
                toast("Stopping after the cases in flight…");
              } catch (e) {
                toast(`The run could not be stopped: ${(e as Error).message}`, "error");
              }
            }}
          />
        ) : (
          <>
            {live ? <RunProgress progress={{ ...live, status, message: null }} /> : <StaticProgress r={r} />}
            {status === "completed" && r.problems && (
              <Notice kind="warn" title="Finished with problems.">
                {r.problems.message}
              </Notice>
            )}
            {status === "completed" && !r.problems && (
              <Notice kind="success" title="Finished.">
                {plural(r.counts.done, "case")} evaluated{acc !== null ? `; verdicts correct in ${pct(acc)} %` : ""}.{" "}
                {isImported(r) ? "Imported from a trajectories file." : ""}
              </Notice>
            )}
            {isResumable(status) && (
              <Notice
                kind="warn"
                title={status === "cancelled" ? "Stopped." : status === "interrupted" ? "Interrupted." : status === "cost_capped" ? "Stopped: cost cap." : "Stopped by a problem."}
              >
                {r.error ?? live?.message ?? (status === "interrupted" ? "The program working on this run closed before it finished." : "")} {canResume({ ...r, status }) ? RESUME_NOTE : ""}
              </Notice>
            )}
            <ErrorBanner error={resume.error} onDismiss={resume.clearError} title="The run did not resume." />
            <div className="row gap wrap">
              {status === "completed" && (
                <a className="btn btn-primary" href={href("/results", { runs: r.run_id })}>
                  See the results
                </a>
              )}
              {canResume({ ...r, status }) && (
                <button
                  className="btn btn-primary"
                  disabled={resume.busy}
                  onClick={async () => {
                    if (status === "cost_capped") {
                      setRaisingCap(true);
                      return;
                    }
                    const x = await resume.run({ run_id: r.run_id });
                    if (x) toast("Resuming: only the unfinished cases are run.");
                  }}
                >
                  {status === "cost_capped" ? "Resume with a higher cap…" : "Resume the run"}
                </button>
              )}
              {canResume({ ...r, status }) && status !== "cost_capped" && cfg.max_cost_usd !== undefined && (
                <button className="btn" onClick={() => setRaisingCap(true)}>
                  Change the spending cap…
                </button>
              )}
              {r.counts.done > 0 && (
                <button className="btn" onClick={() => exportRun(r.run_id)}>
                  Export trajectories
                </button>
              )}
              {r.counts.done > 0 && (
                <button className="btn" onClick={() => setRejudging(true)}>
                  Re-judge (M4)
                </button>
              )}
            </div>
            {raisingCap && (
              <ResumeCapDialog
                runId={r.run_id}
                capped={status === "cost_capped"}
                currentCap={cfg.max_cost_usd ?? null}
                spent={r.counts.cost_usd}
                busy={resume.busy}
                onClose={() => setRaisingCap(false)}
                onResume={async (p: ResumeParams) => {
                  const x = await resume.run(p);
                  if (x) {
                    setRaisingCap(false);
                    toast("Resuming: only the unfinished cases are run.");
                  }
                }}
              />
            )}
            {rejudging && (
              <RejudgeDialog
                runId={r.run_id}
                currentJudge={cfg.judge_model ?? null}
                runProtocol={runProtocol(cfg.provenance)}
                protocolRecorded={!!cfg.provenance}
                onClose={() => setRejudging(false)}
              />
            )}
          </>
        )}
        {cfg.batch === true && <BatchPanel runId={r.run_id} running={running} />}
        {isSimulation(r) && (
          <Notice kind="warn" title="A simulation.">
            The built-in demo model played the {listWords(simulatedRoles(r))} in this run. It is a scripted simulation for learning the app, not a real
            language model: these results say nothing about any real model.
          </Notice>
        )}
        <MadeWithPanel provenance={cfg.provenance} kind="evaluation" />
        <CallsDisclosure runId={r.run_id} summary="Model calls of this run" />
        <details className="run-details">
          <summary>Run settings</summary>
          <KeyValues
            items={[
              ["Run id", <code className="id">{r.run_id}</code>],
              ["Cases", typeof cfg.cases === "string" ? `${describeSelection(parseSelection(cfg.cases))} (${cfg.cases})` : "–"],
              ["Model under test", jsonText(cfg.model ?? "–")],
              ["Information provider", jsonText(cfg.info_model ?? "–")],
              ["Judge", jsonText(cfg.judge_model ?? "–")],
              ["Turns per case", jsonText(cfg.turns ?? "–")],
              ["Repeats", jsonText(cfg.repeat ?? 1)],
              ["Spending cap", cfg.max_cost_usd !== undefined ? usd(cfg.max_cost_usd) : "none"],
              ["Calls", cfg.batch === true ? "Batch mode: through the providers' batch APIs where they have one" : "One by one (online)"],
              ["Created", when(r.created_at)],
            ]}
          />
        </details>
      </div>
    </Section>
  );
}

function StaticProgress({ r }: { r: EvaluationRunView }) {
  return (
    <div className="run-progress">
      <div className="row gap">
        <StatusBadge status={shownStatus(r.status, r.problems)} />
        <strong>
          {num(r.counts.done)} / {num(r.counts.total)} cases
        </strong>
      </div>
      <ProgressBar value={r.counts.done} max={r.counts.total} label={`${r.counts.done} of ${r.counts.total} cases done`} />
    </div>
  );
}

function ImportDialog({ onClose }: { onClose: () => void }) {
  const imp = useAction("evaluation.import");
  const [file, setFile] = useState<File | null>(null);
  return (
    <Modal
      title="Import trajectories"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn btn-primary"
            disabled={!file || imp.busy}
            onClick={async () => {
              if (!file) return;
              const r = await imp.run({ file: await toUpload(file) });
              if (r) {
                toast(`Imported ${plural(r.run_ids.length, "run")} from ${file.name}.`);
                onClose();
              }
            }}
          >
            {imp.busy ? "Importing…" : "Import"}
          </button>
        </>
      }
    >
      <p>
        Load a <code>trajectories.jsonl</code> file exported from PSEBench Studio or written by another tool. Each model in the file becomes a finished run
        that you can score and compare in Results. The file's cases must already be in this store (import their <code>cases.jsonl</code> first).
      </p>
      <ErrorBanner error={imp.error} onDismiss={imp.clearError} title="Nothing was imported." />
      <FilePicker label="Choose a trajectories file" accept=".jsonl,.json,application/x-ndjson" onFiles={(f) => setFile(f[0])} hint={file ? `Chosen: ${file.name}` : "or drop it here"} />
    </Modal>
  );
}

export function RunsList({ openRun }: { openRun: string | null }) {
  const runs = useApi("evaluation.list", {});
  const progress = useAllProgress();
  const resume = useAction("evaluation.resume");
  const [importing, setImporting] = useState(false);
  const [deleting, setDeleting] = useState<string | null>(null);
  const list = runs.data ?? [];
  const liveCounts = (r: EvaluationRunView): { done: number; total: number; correct: number; cost: number; status: RunStatus } => {
    const p = progress.get(r.run_id);
    if (p && p.status === "running") return { done: p.done, total: p.total, correct: p.counters.correct ?? 0, cost: p.counters.cost_usd ?? 0, status: "running" };
    return { done: r.counts.done, total: r.counts.total, correct: r.counts.correct, cost: r.counts.cost_usd, status: r.status };
  };
  return (
    <Section
      title="All runs"
      actions={
        <button className="btn" onClick={() => setImporting(true)}>
          Import trajectories
        </button>
      }
    >
      <ErrorBanner error={runs.error} title="The runs could not be listed." />
      <ErrorBanner error={resume.error} onDismiss={resume.clearError} title="The run did not resume." />
      {runs.loading && !runs.data && <Loading />}
      {runs.data && (
        <DataTable<EvaluationRunView>
          rows={list}
          rowKey={(r) => r.run_id}
          selectedKey={openRun}
          caption="Evaluation runs"
          initialSort={null}
          empty={<p className="muted">No runs yet. Configure one above, or import trajectories made elsewhere.</p>}
          columns={[
            {
              key: "model",
              header: "Model under test",
              sort: (r) => runModel(r),
              render: (r) => (
                <div className="run-cell">
                  <strong>{runModel(r)}</strong>
                  {r.label && <span className="muted small"> · {r.label}</span>}
                  {isImported(r) && <span className="badge tag">imported</span>}
                  {isSimulation(r) && <SimulationBadge />}
                  {r.config.provenance?.protocol === "paper" && <ProtocolBadge protocol="paper" />}
                  {r.config.batch === true && (
                    <span className="badge batch-tag" title="Calls go through the providers' batch APIs (about half the price; answers can take hours)">
                      batch mode
                    </span>
                  )}
                  {r.problems && r.status === "completed" && (
                    <div className="small run-error">
                      <span aria-hidden>⚠ </span>
                      {r.problems.message}
                    </div>
                  )}
                  {r.error && ["failed", "interrupted", "cost_capped"].includes(r.status) && (
                    <div className="small run-error">
                      <span aria-hidden>⚠ </span>
                      {r.error}
                    </div>
                  )}
                </div>
              ),
            },
            { key: "status", header: "Status", sort: (r) => liveCounts(r).status, render: (r) => <StatusBadge status={shownStatus(liveCounts(r).status, r.problems)} /> },
            {
              key: "done",
              header: "Cases done",
              align: "right",
              sort: (r) => liveCounts(r).done,
              render: (r) => {
                const c = liveCounts(r);
                return (
                  <span>
                    {num(c.done)} / {num(c.total)}
                  </span>
                );
              },
            },
            {
              key: "acc",
              header: "Correct so far",
              align: "right",
              sort: (r) => accuracySoFar(liveCounts(r)),
              render: (r) => {
                const a = accuracySoFar(liveCounts(r));
                return a === null ? <span className="muted">–</span> : `${pct(a)} %`;
              },
            },
            { key: "cost", header: "Cost", align: "right", sort: (r) => liveCounts(r).cost, render: (r) => (isImported(r) ? <span className="muted">–</span> : usd(liveCounts(r).cost)) },
            { key: "created", header: "Created", sort: (r) => r.created_at, render: (r) => <span className="small">{when(r.created_at)}</span> },
            {
              key: "actions",
              header: <span className="sr-only">Actions</span>,
              render: (r) => {
                const c = liveCounts(r);
                return (
                  <div className="row gap run-actions">
                    {c.status === "completed" && (
                      <a className="btn btn-small" href={href("/results", { runs: r.run_id })}>
                        Results
                      </a>
                    )}
                    {c.status === "running" && (
                      <a className="btn btn-small" href={href("/evaluate", { run: r.run_id })}>
                        Watch
                      </a>
                    )}
                    {canResume({ ...r, status: c.status }) && (
                      <button
                        className="btn btn-small"
                        title={RESUME_NOTE}
                        disabled={resume.busy}
                        onClick={async () => {
                          if (c.status === "cost_capped") {
                            // A higher cap is needed: the run's panel asks for it.
                            setQuery("run", r.run_id);
                            return;
                          }
                          const x = await resume.run({ run_id: r.run_id });
                          if (x) {
                            toast("Resuming: only the unfinished cases are run; cached replies are reused.");
                            setQuery("run", r.run_id);
                          }
                        }}
                      >
                        Resume
                      </button>
                    )}
                    {c.status !== "running" && c.status !== "completed" && !canResume({ ...r, status: c.status }) && (
                      <a className="btn btn-small" href={href("/evaluate", { run: r.run_id })}>
                        Details
                      </a>
                    )}
                    {c.done > 0 && (
                      <button className="btn btn-small btn-ghost" onClick={() => exportRun(r.run_id)} aria-label={`Export the trajectories of ${runModel(r)} (${r.run_id})`}>
                        Export
                      </button>
                    )}
                    <button
                      className="btn btn-small btn-ghost"
                      onClick={() => setDeleting(r.run_id)}
                      aria-label={`Delete run… ${runModel(r)} (${r.run_id})`}
                      title={c.status === "running" ? "Stop the run first; then it can be deleted." : "Delete this run and its transcripts"}
                    >
                      Delete run…
                    </button>
                  </div>
                );
              },
            },
          ]}
        />
      )}
      {list.some((r) => canResume(r)) && <p className="small muted">{RESUME_NOTE}</p>}
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
      {deleting && (
        <DeleteRunDialog
          runId={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={(id) => {
            if (openRun === id) setQuery("run", null);
          }}
        />
      )}
    </Section>
  );
}
