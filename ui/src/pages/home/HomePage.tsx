// Home: what the store holds, where the user is in the workflow, and the next step.

import { ReactNode, useEffect, useState } from "react";
import { prefetch, useAction, useAllProgress, useApi } from "../../api/client";
import { shownStatus } from "../../runProblems";
import { StatusBadge } from "../../components/Badges";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { PageHeader, Section, Stat } from "../../components/Layout";
import { RunProgress } from "../../components/Progress";
import { num, plural, when } from "../../format";
import { href, navigate } from "../../router";
import { homeCounts, isExample } from "../results/examples";
import { RemoveExamplesDialog } from "../evaluate/DeleteRun";
import { usePolicyId } from "../../policyChoice";

type Step = { n: number; title: string; state: "done" | "todo" | "optional"; text: ReactNode; action?: ReactNode };

function count(list: { key: string; count: number }[] | undefined, key?: string): number {
  if (!list) return 0;
  return list.filter((c) => key === undefined || c.key === key).reduce((a, c) => a + c.count, 0);
}

/** At start, when the window opens on Home: ask for the store's summary (what Home first shows)
 * while the page's code starts, so the first drawing can show it. Null on other pages. */
export function prefetchHome(): Promise<void> | null {
  const hash = window.location.hash.replace(/^#/, "");
  return hash === "" || hash === "/" ? prefetch("store.info", {}) : null;
}

export function HomePage() {
  const info = useApi("store.info", {});
  const policy = useApi("policy.show", { id: usePolicyId() });
  const runs = useApi("evaluation.list", {});
  const models = useApi("models.list", {});
  const demo = useAction("demo.load");
  const exampleResults = useAction("demo.example_results");
  const [removingExamples, setRemovingExamples] = useState(false);
  const progress = useAllProgress();

  useEffect(() => {
    // Benchmarks read this: when the Home page first showed real data (ms since navigation start).
    if (info.data) {
      const w = window as unknown as { __psebenchFirstPaint?: number };
      if (w.__psebenchFirstPaint === undefined) requestAnimationFrame(() => (w.__psebenchFirstPaint ??= performance.now()));
    }
  }, [info.data]);
  if (info.error) return <ErrorBanner error={info.error} title="The store could not be read." />;
  if (!info.data) return <Loading />;
  const d = info.data;
  const cards = count(d.cards_by_status);
  const approved = count(d.cards_by_status, "approved");
  const cases = count(d.cases_by_type);
  // Only the user's own work counts: example runs of fictional models are reported apart.
  const ownRuns = (runs.data ?? []).filter((r) => !isExample(r));
  const finished = ownRuns.filter((r) => r.status === "completed");
  const examples = homeCounts(runs.data ?? []).exampleFinished;
  const exploreResults = async () => {
    if (examples.length > 0) {
      navigate(href("/results", { runs: examples.join(",") }));
      return;
    }
    const r = await exampleResults.run({});
    if (r) navigate(href("/results", { runs: r.run_ids.join(",") }));
  };
  const running = Array.from(progress.values()).filter((p) => p.status === "running");
  const official = policy.data ? policy.data.official_text.clauses || policy.data.official_text.guidance : false;

  const steps: Step[] = [
    {
      n: 1,
      title: "Policy",
      state: official ? "done" : "optional",
      text: official
        ? "Official clause and guidance text is imported."
        : `You are using the ${policy.data?.edition ?? "summary"} edition of ${policy.data?.name ?? "the policy"}. Import the official text before real triage work.`,
      action: <a className="btn" href={href("/policy", { tab: "import" })}>{official ? "View policy" : "Import official text"}</a>,
    },
    {
      n: 2,
      title: "Clause cards",
      state: approved > 0 ? "done" : "todo",
      text: `${num(approved)} of ${num(cards)} cards are approved and ready to generate from.`,
      action: <a className="btn" href="#/cards">Open the card library</a>,
    },
    {
      n: 3,
      title: "Cases",
      state: cases > 0 ? "done" : "todo",
      text:
        cases > 0 ? (
          `${num(cases)} cases: ${d.cases_by_type.map((c) => `${num(c.count)} ${c.key}`).join(", ")}.`
        ) : (
          "No cases yet. Generate them from the card library, or open the 90 hand-written demo cases to try everything now."
        ),
      action:
        cases > 0 ? (
          <a className="btn" href="#/cases">Browse cases</a>
        ) : (
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
            <a className="btn" href="#/generate">Generate</a>
          </>
        ),
    },
    {
      n: 4,
      title: "Models",
      state: (models.data?.length ?? 0) > 0 ? "done" : "todo",
      text:
        (models.data?.length ?? 0) > 0
          ? `${plural(models.data!.length, "model")} registered (${models.data!.filter((m) => m.local).length} on this computer).`
          : "Register the models to evaluate, and the information provider and judge models.",
      action: <a className="btn" href="#/settings">Models and keys</a>,
    },
    {
      n: 5,
      title: "Evaluation runs",
      state: ownRuns.length > 0 ? "done" : "todo",
      text:
        ownRuns.length > 0
          ? `${plural(ownRuns.length, "run")}, ${num(finished.length)} finished.`
          : `Run a model through the two-role environment.${examples.length > 0 ? " The example runs of fictional models do not count here." : ""}`,
      action: <a className="btn" href="#/evaluate">Evaluate</a>,
    },
    {
      n: 6,
      title: "Results",
      state: finished.length > 0 ? "done" : "todo",
      text:
        finished.length > 0
          ? "Leaderboard, the paper's tables, charts and every transcript."
          : examples.length > 0
            ? "Results appear when one of your runs finishes. Example results of fictional models are loaded to explore meanwhile; they do not count as yours."
            : "Results appear when a run finishes. Until then you can explore example results of fictional models.",
      action: (
        <>
          {finished.length > 0 ? (
            <a className="btn" href="#/results">
              See results
            </a>
          ) : (
            <button className="btn" disabled={exampleResults.busy} onClick={exploreResults}>
              Explore results
            </button>
          )}
          {examples.length > 0 && (
            <button className="btn btn-ghost" onClick={() => setRemovingExamples(true)}>
              Remove example results
            </button>
          )}
        </>
      ),
    },
    {
      n: 7,
      title: "Expert review",
      state: "optional",
      text: "Have patient-safety experts rate cases for realism and plausibility, blind to the expected verdict.",
      action: <a className="btn" href="#/review">Expert review</a>,
    },
  ];

  return (
    <>
      <PageHeader title="PSEBench Studio" subtitle="Build, check and run policy-grounded benchmarks for patient-safety event triage." />
      <ErrorBanner error={demo.error} onDismiss={demo.clearError} />
      <ErrorBanner error={exampleResults.error} onDismiss={exampleResults.clearError} title="The example results could not be created." />
      {removingExamples && <RemoveExamplesDialog onClose={() => setRemovingExamples(false)} />}
      {running.length > 0 && (
        <Section title="Running now">
          <div className="stack">
            {running.map((p) => (
              <div key={p.run_id}>
                <a href={p.kind === "eval" ? href("/evaluate", { run: p.run_id }) : p.kind === "anchors" ? href("/anchors") : href("/generate", { run: p.run_id })}>{p.run_id}</a>
                <RunProgress progress={p} unit={p.kind === "eval" ? "cases" : p.kind === "anchors" ? "anchors" : "candidates"} />
              </div>
            ))}
          </div>
        </Section>
      )}
      <div className="grid-3">
        <Stat label="approved clause cards" value={num(approved)} hint={`${num(cards)} in the library`} />
        <Stat label="benchmark cases" value={num(cases)} />
        <Stat label="finished evaluation runs" value={num(finished.length)} />
      </div>
      <Section title="Where you are">
        <ol className="steps">
          {steps.map((s) => (
            <li key={s.n} className={`step-item step-${s.state}`}>
              <span className="step-mark" aria-hidden>
                {s.state === "done" ? "✓" : s.n}
              </span>
              <div className="step-text">
                <strong>{s.title}</strong>
                <span className="sr-only">{s.state === "done" ? " (done)" : s.state === "todo" ? " (to do)" : " (optional)"}</span>
                <div className="muted">{s.text}</div>
              </div>
              <div className="row gap">{s.action}</div>
            </li>
          ))}
        </ol>
      </Section>
      {ownRuns.length > 0 && (
        <Section title="Recent runs">
          <ul className="plain-list">
            {ownRuns.slice(0, 5).map((r) => (
              <li key={r.run_id} className="row gap">
                <StatusBadge status={shownStatus(r.status, r.problems)} />
                <a href={r.status === "completed" ? href("/results", { runs: r.run_id }) : href("/evaluate", { run: r.run_id })}>
                  {r.config.model || r.run_id}
                </a>
                <span className="muted small">
                  {num(r.counts.done)}/{num(r.counts.total)} cases · {when(r.created_at)}
                </span>
                {r.problems && r.status === "completed" && <span className="small warn-text">{r.problems.message}</span>}
              </li>
            ))}
          </ul>
        </Section>
      )}
      <Notice>
        Data lives in <code>{d.path}</code>. Nothing leaves this computer unless you run a remote model, and the app says so before it does.
      </Notice>
    </>
  );
}
