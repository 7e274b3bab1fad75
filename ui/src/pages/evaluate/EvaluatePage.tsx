// Evaluate: configure a run (cases, models, turns, repeats) against a live plan of what it will do,
// cost and send where; watch it run; and manage every run (results, resume, export, import).

import { useAction, useApi } from "../../api/client";
import { EmptyState, ErrorBanner, Loading, toast } from "../../components/Feedback";
import { PageHeader, Section } from "../../components/Layout";
import { useRoute } from "../../router";
import { NoModels, RunForm } from "./RunForm";
import { RunPanel, RunsList } from "./Runs";
import "./evaluate.css";
import { usePolicyId } from "../../policyChoice";

function NewRun() {
  const models = useApi("models.list", {});
  const cases = useApi("cases.list", { include_excluded: false });
  const policy = useApi("policy.show", { id: usePolicyId() });
  const policies = useApi("policies.list", {});
  const policyName = (id: string) => policies.data?.find((p) => p.id === id)?.name;
  const demo = useAction("demo.load");
  const error = models.error ?? cases.error;
  return (
    <Section title="New run">
      <ErrorBanner error={error} title="The run form could not be prepared." />
      <ErrorBanner error={demo.error} onDismiss={demo.clearError} />
      {(!models.data || !cases.data) && !error && <Loading />}
      {models.data && cases.data && cases.data.length === 0 && (
        <EmptyState
          title="No cases to evaluate yet"
          actions={
            <>
              <button
                className="btn btn-primary"
                disabled={demo.busy}
                onClick={async () => {
                  const r = await demo.run({});
                  if (r) toast(`Loaded ${r.imported} demo cases.`);
                }}
              >
                Open the 90 demo cases
              </button>
              <a className="btn" href="#/generate">
                Generate cases
              </a>
              <a className="btn" href="#/cases">
                Import cases
              </a>
            </>
          }
        >
          A run evaluates a model on benchmark cases. Start with the 90 hand-written demo cases, or generate cases from the clause-card library.
        </EmptyState>
      )}
      {models.data && cases.data && cases.data.length > 0 && models.data.length === 0 && <NoModels />}
      {models.data && cases.data && cases.data.length > 0 && models.data.length > 0 && (
        <RunForm models={models.data} cases={cases.data} clauses={policy.data?.clauses ?? []} policyName={policyName} />
      )}
    </Section>
  );
}

export function EvaluatePage() {
  const route = useRoute();
  const runId = route.query.get("run");
  return (
    <>
      <PageHeader
        title="Evaluate"
        subtitle="Run a model through the two-role environment: it reads each case, may ask the information provider for missing facts, then gives a verdict."
      />
      {runId && <RunPanel key={runId} runId={runId} />}
      <NewRun />
      <RunsList openRun={runId} />
    </>
  );
}
