// Results: pick finished runs (kept in the URL), then the leaderboard, the paper's tables, the
// charts, the case-by-model grid, and any case's transcript (#/results/trajectory?run=…&case=…).

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { EvaluationRunView } from "../../api/generated";
import { EmptyState, ErrorBanner, Loading, Notice } from "../../components/Feedback";
import { SimulationBadge, StatusBadge } from "../../components/Badges";
import { PageHeader, Tabs } from "../../components/Layout";
import { plural, when } from "../../format";
import { setQuery, useRoute } from "../../router";
import { CasesGrid } from "./CasesGrid";
import { ComparabilityBanner } from "./Comparability";
import { decodeGrid } from "./grid";
import { Leaderboard } from "./Leaderboard";
import { ChartsTab, TablesTab } from "./TablesCharts";
import { isImported, isSimulation, runModel } from "../evaluate/selection";
import { TrajectoryPage } from "./Trajectory";
import { isExample, selectionWithout } from "./examples";
import { DeleteRunDialog, RemoveExamplesDialog } from "../evaluate/DeleteRun";
import "./results.css";
import { DEFAULT_POLICY } from "../../api/generated";

const TABS = [
  { id: "leaderboard", label: "Leaderboard" },
  { id: "tables", label: "Tables" },
  { id: "charts", label: "Charts" },
  { id: "cases", label: "Cases" },
];

function RunPicker({ finished, selected, onDelete }: { finished: EvaluationRunView[]; selected: string[]; onDelete: (runId: string) => void }) {
  const chosen = new Set(selected);
  const set = (ids: string[]) => setQuery("runs", ids.join(","));
  const toggle = (id: string, on: boolean) => set(finished.map((r) => r.run_id).filter((x) => (x === id ? on : chosen.has(x))));
  const unknown = selected.filter((id) => !finished.some((r) => r.run_id === id));
  return (
    <details className="run-picker card" open={selected.length === 0}>
      <summary>
        <strong>Runs compared</strong>{" "}
        <span className="muted">
          {selected.length === 0
            ? "none chosen"
            : `${plural(selected.length, "run")}: ${finished
                .filter((r) => chosen.has(r.run_id))
                .map(runModel)
                .slice(0, 6)
                .join(", ")}${selected.length > 6 ? "…" : ""}`}
        </span>
      </summary>
      <div className="row gap picker-actions">
        <button className="btn btn-small" onClick={() => set(finished.map((r) => r.run_id))}>
          All finished runs
        </button>
        <button className="btn btn-small" onClick={() => set([])}>
          None
        </button>
      </div>
      <fieldset className="picker-list">
        <legend className="sr-only">Finished runs</legend>
        {finished.map((r) => (
          <div key={r.run_id} className="picker-row">
            <label className="picker-item">
              <input type="checkbox" checked={chosen.has(r.run_id)} onChange={(e) => toggle(r.run_id, e.target.checked)} />
              <span className="picker-model">{runModel(r)}</span>
              {r.label && <span className="small muted">{r.label}</span>}
              <span className="small muted">
                {plural(r.counts.done, "case")} · {when(r.finished_at ?? r.created_at)}
              </span>
              {isImported(r) && <span className="badge tag">imported</span>}
              {r.problems && <StatusBadge status="completed_with_problems" />}
              {isSimulation(r) && <SimulationBadge />}
              <code className="id">{r.run_id}</code>
            </label>
            <button className="btn btn-small btn-ghost" onClick={() => onDelete(r.run_id)} aria-label={`Delete run… ${runModel(r)} (${r.run_id})`}>
              Delete run…
            </button>
          </div>
        ))}
      </fieldset>
      {unknown.length > 0 && <p className="small error-text">Not a finished run (left out of the choice above): {unknown.join(", ")}.</p>}
    </details>
  );
}

export function ResultsPage() {
  const route = useRoute();
  const isTrajectory = route.parts[1] === "trajectory";
  const runsParam = route.query.get("runs");
  const runs = useApi("evaluation.list", {});
  const finished = useMemo(() => (runs.data ?? []).filter((r) => r.status === "completed"), [runs.data]);
  const single = route.query.get("run");
  const selected = useMemo(() => (runsParam ? runsParam.split(",").filter(Boolean) : isTrajectory && single ? [single] : []), [runsParam, isTrajectory, single]);
  const tab = TABS.some((t) => t.id === route.query.get("tab")) ? route.query.get("tab")! : "leaderboard";
  const examples = useAction("demo.example_results");
  const [deleting, setDeleting] = useState<string | null>(null);
  const [removingExamples, setRemovingExamples] = useState(false);

  // First visit: compare every finished run (real runs only, once there are any).
  useEffect(() => {
    // Not while the list reloads after a deletion: it may still hold the deleted runs.
    if (isTrajectory || runsParam !== null || finished.length === 0 || runs.loading) return;
    const real = finished.filter((r) => !isExample(r));
    setQuery("runs", (real.length ? real : finished).map((r) => r.run_id).join(","));
  }, [isTrajectory, runsParam, finished, runs.loading]);
  const showingExamples = selected.some((id) => isExample((runs.data ?? []).find((r) => r.run_id === id)));
  const showingSimulations = (runs.data ?? []).filter((r) => selected.includes(r.run_id) && isSimulation(r)).map(runModel);

  const req = selected.length ? { run_ids: selected } : null;
  // Each view loads only what it shows: the leaderboard the metrics report, the tables and charts
  // the full overview, the case grid its compact grid. What was loaded once is kept.
  const wanted = useRef({ report: false, overview: false, grid: false });
  if (!isTrajectory && tab === "leaderboard") wanted.current.report = true;
  if (!isTrajectory && (tab === "tables" || tab === "charts")) wanted.current.overview = true;
  if (isTrajectory || tab === "cases") wanted.current.grid = true;
  const report = useApi("metrics.runs", wanted.current.report ? req : null);
  const overview = useApi("results.overview", wanted.current.overview ? req : null);
  const grid = useApi("results.grid", wanted.current.grid ? req : null);
  const decoded = useMemo(() => (grid.data ? decodeGrid(grid.data) : undefined), [grid.data]);
  const firstRun = (runs.data ?? []).find((r) => r.run_id === selected[0]);
  const policyId = firstRun?.config.policy ?? DEFAULT_POLICY;
  const policy = useApi("policy.show", wanted.current.grid ? { id: policyId } : null);
  const clauseNames = useMemo(() => new Map((policy.data?.clauses ?? []).map((c) => [c.clause_id, c.label])), [policy.data]);
  const clauseName = useCallback((id: string) => clauseNames.get(id) ?? id, [clauseNames]);

  if (isTrajectory) {
    return (
      <>
        <PageHeader title="Transcript" subtitle="One case as the model under test worked through it." />
        <ErrorBanner error={grid.error} title="The grid could not be loaded; stepping between cases is unavailable." />
        <TrajectoryPage route={route} grid={decoded} runIds={selected} />
      </>
    );
  }

  if (runs.error) return <ErrorBanner error={runs.error} title="The runs could not be listed." />;
  if (!runs.data) return <Loading />;
  if (finished.length === 0) {
    return (
      <>
        <PageHeader title="Results" />
        <EmptyState
          title="No finished runs yet"
          actions={
            <>
              <a className="btn btn-primary" href="#/evaluate">
                Start a run
              </a>
              <a className="btn" href="#/evaluate">
                Import trajectories
              </a>
              <button
                className="btn"
                disabled={examples.busy}
                onClick={async () => {
                  const r = await examples.run({});
                  if (r) setQuery("runs", r.run_ids.join(","));
                }}
              >
                Explore example results
              </button>
            </>
          }
        >
          Results appear here when an evaluation run finishes: a leaderboard with M1–M8, the paper's tables and charts, and every case's transcript. You
          can also import trajectories made elsewhere on the Evaluate page. To see what this page offers before you have set up a model, explore example
          results: three fictional models on the 90 demo cases (no model is called, and the numbers say nothing about any real model).
        </EmptyState>
        <ErrorBanner error={examples.error} onDismiss={examples.clearError} title="The example results could not be created." />
      </>
    );
  }

  const metrics = report.data ?? overview.data?.report;
  const models = metrics?.models.length ?? decoded?.models.length;
  const cases = metrics ? Math.max(0, ...metrics.models.map((m) => m.cases)) : decoded?.rows;
  return (
    <>
      <PageHeader
        title="Results"
        subtitle={
          models !== undefined && cases !== undefined ? (
            <>
              {plural(models, "model")} · {plural(cases, "case")} · policy {policyId.toUpperCase()}
            </>
          ) : (
            "Compare models on the same cases."
          )
        }
      />
      <RunPicker finished={finished} selected={selected} onDelete={setDeleting} />
      {(runs.data ?? [])
        .filter((r) => r.problems && selected.includes(r.run_id))
        .map((r) => (
          <Notice key={r.run_id} kind="warn" title={`${runModel(r)}: finished with problems.`}>
            {r.problems?.message}
          </Notice>
        ))}
      {showingExamples && (
        <Notice kind="warn" title="Example results.">
          Runs named <code>example-…</code> belong to fictional models made up to show how these screens work; their numbers say nothing about any real
          model. They do not count as your runs.{" "}
          <button className="btn btn-small" onClick={() => setRemovingExamples(true)}>
            Remove example results
          </button>
        </Notice>
      )}
      {showingSimulations.length > 0 && (
        <Notice kind="warn" title="Simulated results.">
          {Array.from(new Set(showingSimulations)).join(", ")} {showingSimulations.length === 1 ? "was" : "were"} made with the built-in demo model, a
          scripted simulation for learning the app. It is not a real language model; these numbers say nothing about any real model.
        </Notice>
      )}
      {deleting && <DeleteRunDialog runId={deleting} onClose={() => setDeleting(null)} onDeleted={(id) => setQuery("runs", selectionWithout(selected, [id]))} />}
      {removingExamples && <RemoveExamplesDialog onClose={() => setRemovingExamples(false)} onRemoved={(ids) => setQuery("runs", selectionWithout(selected, ids))} />}
      {selected.length === 0 ? (
        <EmptyState title="Choose runs to compare">Tick one or more finished runs above.</EmptyState>
      ) : (
        <>
          <ComparabilityBanner c={metrics?.comparability} />
          <Tabs tabs={TABS} active={tab} onChange={(t) => setQuery("tab", t === "leaderboard" ? null : t)} label="Results views" />
          <div role="tabpanel" aria-labelledby={`tab-${tab}`} className="results-panel">
            {tab === "cases" ? (
              <>
                <ErrorBanner error={grid.error} title="The case grid could not be loaded." />
                {decoded ? <CasesGrid g={decoded} route={route} clauseName={clauseName} /> : !grid.error && <Loading label="Loading the case grid…" />}
              </>
            ) : (
              <>
                <ErrorBanner error={(tab === "leaderboard" ? report.error : overview.error) ?? undefined} title="These results could not be computed." />
                {tab === "leaderboard" && (report.data ? <Leaderboard report={report.data} /> : !report.error && <Loading label="Scoring the runs…" />)}
                {tab !== "leaderboard" && !overview.data && !overview.error && <Loading label="Preparing the tables and charts…" />}
                {overview.data && tab === "tables" && <TablesTab tables={overview.data.tables} runIds={selected} />}
                {overview.data && tab === "charts" && <ChartsTab charts={overview.data.charts} runIds={selected} />}
              </>
            )}
          </div>
        </>
      )}
    </>
  );
}
