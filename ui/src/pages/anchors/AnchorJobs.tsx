// The anchor jobs (sorting by topic, translation) started from this page or the CLI: their state,
// live while they run, with Stop for a running one and Resume for a stopped one that has anchors
// left. Opening a row shows the job's outcomes in the same dialog it was started from.

import { api, useAction, useAllProgress, useApi } from "../../api/client";
import type { AnchorJobKind, AnchorJobView } from "../../api/generated";
import { StatusBadge } from "../../components/Badges";
import { RunProblemsLine } from "../../components/RunProblemsLine";
import { shownStatus } from "../../runProblems";
import { Column, DataTable } from "../../components/DataTable";
import { ErrorBanner, toast } from "../../components/Feedback";
import { Section } from "../../components/Layout";
import { num, usd, when } from "../../format";
import { canResumeJob, JOB_KIND_LABEL } from "./logic";

export function AnchorJobs({ onOpen }: { onOpen: (runId: string, kind: AnchorJobKind) => void }) {
  const jobs = useApi("anchor_job.list", {});
  const progress = useAllProgress();
  const resume = useAction("anchor_job.resume");
  const list = jobs.data ?? [];
  if (list.length === 0) return jobs.error ? <ErrorBanner error={jobs.error} title="The anchor jobs could not be read." /> : null;
  const columns: Column<AnchorJobView>[] = [
    { key: "when", header: "Started", width: "11rem", render: (j) => when(j.created_at), sort: (j) => j.created_at },
    {
      key: "kind",
      header: "Job",
      render: (j) => (
        <>
          {JOB_KIND_LABEL[j.kind] ?? j.kind}
          <RunProblemsLine run={j} />
        </>
      ),
      sort: (j) => j.kind,
    },
    { key: "status", header: "Status", width: "10rem", render: (j) => <StatusBadge status={shownStatus(progress.get(j.run_id)?.status ?? j.status, j.problems)} />, sort: (j) => j.status },
    { key: "model", header: "Model", render: (j) => j.model, sort: (j) => j.model },
    {
      key: "done",
      header: "Done",
      align: "right",
      width: "7rem",
      render: (j) => {
        const p = progress.get(j.run_id);
        const done = p && p.done >= j.done ? p.done : j.done;
        return `${num(done)} / ${num(j.total)}`;
      },
      sort: (j) => j.done,
    },
    { key: "failed", header: "Failed", align: "right", width: "5rem", render: (j) => num(j.result.failed), sort: (j) => j.result.failed },
    { key: "cost", header: "Cost", align: "right", width: "6rem", render: (j) => usd(j.result.cost_usd), sort: (j) => j.result.cost_usd },
    {
      key: "act",
      header: "",
      label: "Actions",
      width: "7rem",
      render: (j) => {
        const live = progress.get(j.run_id)?.status;
        if ((live ?? j.status) === "running")
          return (
            <button
              className="btn btn-small"
              onClick={async (e) => {
                e.stopPropagation();
                try {
                  await api("anchor_job.cancel", { run_id: j.run_id });
                  toast("Stopping after the anchors in flight; finished outcomes are kept.");
                } catch (err) {
                  toast(`The job could not be stopped: ${(err as Error).message}`, "error");
                }
              }}
            >
              Stop
            </button>
          );
        return canResumeJob(j, live) ? (
          <button
            className="btn btn-small"
            disabled={resume.busy}
            onClick={async (e) => {
              e.stopPropagation();
              if (await resume.run({ run_id: j.run_id })) toast("Resuming: only the anchors not done yet (and those that failed) are sent.");
            }}
          >
            Resume
          </button>
        ) : null;
      },
    },
  ];
  return (
    <Section title="Model jobs">
      <ErrorBanner error={resume.error} onDismiss={resume.clearError} title="The job did not resume." />
      <DataTable<AnchorJobView>
        rows={list}
        columns={columns}
        rowKey={(j) => j.run_id}
        onOpen={(j) => onOpen(j.run_id, j.kind)}
        caption="Sorting and translation jobs, newest first. Open one to see each anchor's outcome."
        maxHeight={220}
      />
    </Section>
  );
}
