// Generate cases: set up a run (with a live plan and the pipeline explained), follow runs, read
// their statistics and every candidate's provenance, and see the card library in numbers.
//
// Routes: #/generate (?tab=new|runs|library), #/generate?run=<id> (&tab=cases|stats, &case=<candidate>),
// #/generate/case/<candidate or case id>.

import { useAllProgress, useApi } from "../../api/client";
import { EmptyState } from "../../components/Feedback";
import { PageHeader, Section, Tabs } from "../../components/Layout";
import { RunProgress } from "../../components/Progress";
import { href, setQuery, useRoute } from "../../router";
import { useClauses } from "../anchors/clauses";
import "../anchors/anchors.css";
import { CandidateDetail } from "./CandidateDetail";
import { Configure } from "./Configure";
import "./generate.css";
import { LibraryStatsView } from "./LibraryStats";
import { PipelineDiagram } from "./Pipeline";
import { RunsList, RunView } from "./RunView";

function RunningNow() {
  const all = useAllProgress();
  const running = Array.from(all.values()).filter((p) => p.kind === "generation" && p.status === "running");
  if (running.length === 0) return null;
  return (
    <Section title="Running now">
      <div className="stack">
        {running.map((p) => (
          <div key={p.run_id}>
            <a href={href("/generate", { run: p.run_id })}>Open run {p.run_id}</a>
            <RunProgress progress={p} unit="candidate cases" />
          </div>
        ))}
      </div>
    </Section>
  );
}

export function GeneratePage() {
  const route = useRoute();
  const clauses = useClauses();
  const runs = useApi("generation.list", {});
  const runId = route.query.get("run");
  if (route.parts[1] === "case" && route.parts[2]) {
    return (
      <>
        <PageHeader title="Generated case" subtitle="The case, how it was made, and the anchor it was seeded with." />
        <CandidateDetail id={route.parts[2]} clauses={clauses} standalone />
      </>
    );
  }
  if (runId) return <RunView runId={runId} clauses={clauses} />;
  const tab = route.query.get("tab") ?? "new";
  const n = runs.data?.length;
  return (
    <>
      <PageHeader title="Generate cases" subtitle="Turn approved clause cards into verified benchmark cases, each seeded by a real incident report." />
      <RunningNow />
      <Tabs
        label="Generation"
        active={tab}
        onChange={(t) => setQuery("tab", t === "new" ? null : t)}
        tabs={[
          { id: "new", label: "New run" },
          { id: "runs", label: `Runs${n !== undefined ? ` (${n})` : ""}` },
          { id: "library", label: "Library statistics" },
        ]}
      />
      {tab === "new" && (
        <div role="tabpanel" aria-labelledby="tab-new" className="stack">
          <details className="card pipeline-card" open={!n}>
            <summary>
              <h2 className="summary-head">How a case is made</h2> <span className="muted small">— two checked phases, plus one for missing-information variants</span>
            </summary>
            <PipelineDiagram />
          </details>
          <Configure clauses={clauses} />
        </div>
      )}
      {tab === "runs" && (
        <div role="tabpanel" aria-labelledby="tab-runs">
          <RunsList />
        </div>
      )}
      {tab === "library" && (
        <div role="tabpanel" aria-labelledby="tab-library">
          <LibraryStatsView clauses={clauses} />
        </div>
      )}
      {tab !== "new" && tab !== "runs" && tab !== "library" && <EmptyState title="There is no such view here." />}
    </>
  );
}
