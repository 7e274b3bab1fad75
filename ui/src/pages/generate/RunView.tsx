// One generation run: live progress (Stop, Resume), what it was asked to do, its statistics and the
// case browser with each candidate's provenance.

import { useMemo, useState } from "react";
import { CallsDisclosure } from "../../components/CallLedger";
import { useAction, useApi, useProgress } from "../../api/client";
import type { GenerationCandidateView, GenerationRunView, Progress } from "../../api/generated";
import { CaseTypeBadge, Id, StatusBadge } from "../../components/Badges";
import { RunProblemsLine } from "../../components/RunProblemsLine";
import { problemsMessage, shownStatus } from "../../runProblems";
import { BatchPanel } from "../../components/BatchPanel";
import { DataTable } from "../../components/DataTable";
import { EmptyState, ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { KeyValues, PageHeader, Section, Stat, Tabs } from "../../components/Layout";
import { RunProgress } from "../../components/Progress";
import { ResumeCapDialog } from "../../components/SpendingCap";
import { CASE_TYPE_LABEL, num, plural, tokens, usd, when } from "../../format";
import { href, setQuery, useRoute } from "../../router";
import type { ClauseIndex } from "../anchors/clauses";
import { clauseShort } from "../anchors/clauses";
import { CandidateDetail, CandidateStatus } from "./CandidateDetail";
import { CANDIDATE_STATUS, cardsInWords, ROLE_LABEL, runConfig, STAGE_LABEL } from "./logic";
import { isResumable } from "../../runStatus";
import { RunStats } from "./RunStats";
import { useThrottled } from "../anchors/hooks";
import { MadeWithPanel, ProtocolBadge } from "../../components/Protocol";

function progressFromRun(r: GenerationRunView): Progress {
  const c = r.counts;
  return {
    run_id: r.run_id,
    kind: "generation",
    status: r.status,
    total: c.total,
    done: c.done,
    counters: { accepted: c.accepted, dropped: c.dropped, retries: c.retries, input_tokens: c.input_tokens, output_tokens: c.output_tokens, cost_usd: c.cost_usd },
    elapsed_secs: 0,
    eta_secs: null,
    message: r.error,
  };
}

function CaseBrowser({ runId, clauses, tick }: { runId: string; clauses: ClauseIndex | undefined; tick: number }) {
  const route = useRoute();
  const q = route.query;
  const status = q.get("status") ?? "";
  const type = q.get("type") ?? "";
  const clause = q.get("clause") ?? "";
  const card = q.get("card") ?? "";
  const open = q.get("case");
  const cands = useApi("generation.candidates", { run_id: runId });
  const { reload } = cands;
  useThrottled(tick, reload);
  const all = useMemo(() => cands.data ?? [], [cands.data]);
  const rows = useMemo(
    () => all.filter((c) => (!status || c.status === status) && (!type || c.case_type === type) && (!clause || c.clause_id === clause) && (!card || c.clause_card_id === card)),
    [all, status, type, clause, card],
  );
  const clausesIn = useMemo(() => Array.from(new Set(all.map((c) => c.clause_id))).sort((a, b) => (clauses?.byId.get(a)?.global_no ?? 99) - (clauses?.byId.get(b)?.global_no ?? 99)), [all, clauses]);
  const cardsIn = useMemo(() => Array.from(new Set(all.map((c) => c.clause_card_id))).sort(), [all]);
  const count = (k: string, v: string) => all.filter((c) => (c as unknown as Record<string, string>)[k] === v).length;
  if (cands.error) return <ErrorBanner error={cands.error} title="The candidates could not be listed." />;
  if (!cands.data) return <Loading />;
  return (
    <div className="stack">
      <div className="filters narrow-selects" role="search" aria-label="Filter candidates">
        <div className="field">
          <label htmlFor="c-status">Status</label>
          <select id="c-status" value={status} onChange={(e) => setQuery("status", e.target.value || null)}>
            <option value="">Any status ({all.length})</option>
            {["accepted", "dropped", "pending", "skipped"].map((s) => (
              <option key={s} value={s}>
                {CANDIDATE_STATUS[s].label} ({count("status", s)})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="c-type">Case type</label>
          <select id="c-type" value={type} onChange={(e) => setQuery("type", e.target.value || null)}>
            <option value="">Any type</option>
            {["complete", "missing", "uncertain"].map((t) => (
              <option key={t} value={t}>
                {CASE_TYPE_LABEL[t]} ({count("case_type", t)})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="c-clause">Clause</label>
          <select id="c-clause" value={clause} onChange={(e) => setQuery("clause", e.target.value || null)}>
            <option value="">Any clause</option>
            {clausesIn.map((c) => (
              <option key={c} value={c}>
                {clauseShort(clauses, c)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="c-card">Card</label>
          <select id="c-card" value={card} onChange={(e) => setQuery("card", e.target.value || null)}>
            <option value="">Any card</option>
            {cardsIn.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <span className="muted small filter-count" aria-live="polite">
          {rows.length === all.length ? plural(all.length, "candidate") : `${rows.length} of ${plural(all.length, "candidate")}`}
        </span>
      </div>
      <DataTable<GenerationCandidateView>
        rows={rows}
        rowKey={(c) => c.candidate_id}
        selectedKey={open}
        onOpen={(c) => setQuery("case", c.candidate_id === open ? null : c.candidate_id)}
        maxHeight={open ? 300 : 520}
        caption="Candidate cases of this run"
        empty={<EmptyState title="No candidate matches these filters">Change the filters above.</EmptyState>}
        columns={[
          { key: "status", header: "Status", render: (c) => <CandidateStatus status={c.status} />, sort: (c) => c.status },
          { key: "type", header: "Case type", render: (c) => <CaseTypeBadge caseType={c.case_type} />, sort: (c) => c.case_type },
          { key: "clause", header: "Clause", render: (c) => <span className="cell-clip" title={clauseShort(clauses, c.clause_id)}>{clauseShort(clauses, c.clause_id)}</span>, sort: (c) => clauses?.byId.get(c.clause_id)?.global_no ?? 99 },
          {
            key: "card",
            header: "Card and anchor",
            render: (c) => (
              <div className="anchor-cell">
                <code className="id">{c.clause_card_id}</code>
                <code className="id">{c.anchor_id}</code>
              </div>
            ),
            sort: (c) => `${c.clause_card_id} ${c.anchor_id}`,
          },
          {
            key: "why",
            header: "Outcome",
            render: (c) =>
              c.status === "dropped" ? (
                <span className="small">stopped at {STAGE_LABEL[c.drop_stage ?? ""] ?? c.drop_stage}</span>
              ) : c.status === "accepted" ? (
                <span className="small muted">{c.narrative_words ?? "–"} words</span>
              ) : c.status === "skipped" ? (
                <span className="small muted">complete case dropped</span>
              ) : (
                ""
              ),
          },
        ]}
      />
      {open && <CandidateDetail key={open} id={open} clauses={clauses} />}
    </div>
  );
}

export function RunView({ runId, clauses }: { runId: string; clauses: ClauseIndex | undefined }) {
  const route = useRoute();
  const tab = route.query.get("tab") ?? "cases";
  const run = useApi("generation.show", { run_id: runId });
  const live = useProgress(runId);
  const cancel = useAction("generation.cancel");
  const resume = useAction("generation.resume");
  const [raisingCap, setRaisingCap] = useState(false);
  const r = run.data;
  const { reload } = run;
  const tick = live?.done ?? 0;
  useThrottled(tick, reload);
  if (run.error)
    return (
      <>
        <a href={href("/generate", { tab: "runs" })}>← All generation runs</a>
        <ErrorBanner error={run.error} title="This run could not be shown." />
      </>
    );
  if (!r) return <Loading />;
  const cfg = runConfig(r.config);
  const progress = live && (live.status === "running" || r.status === "running" || live.done >= r.counts.done) ? live : progressFromRun(r);
  const status = live?.status ?? r.status;
  const running = status === "running";
  const c = r.counts;
  return (
    <>
      <a href={href("/generate", { tab: "runs" })} className="small">
        ← All generation runs
      </a>
      <PageHeader
        title={r.label ?? "Generation run"}
        subtitle={
          <>
            <StatusBadge status={shownStatus(status, r.problems)} /> <Id value={r.run_id} /> · created {when(r.created_at)}
            {r.finished_at && !running ? ` · ${status === "completed" ? "finished" : "stopped"} ${when(r.finished_at)}` : ""}
          </>
        }
        actions={
          isResumable(status) && !running ? (
            <button
              className="btn btn-primary"
              disabled={resume.busy}
              onClick={async () => {
                if (status === "cost_capped") {
                  setRaisingCap(true);
                  return;
                }
                const x = await resume.run({ run_id: runId });
                if (x) toast("Resumed: finished candidates are kept and only the rest is generated.");
              }}
            >
              {status === "cost_capped" ? "Resume with a higher cap…" : "Resume"}
            </button>
          ) : undefined
        }
      />
      <ErrorBanner error={cancel.error ?? resume.error} onDismiss={() => (cancel.clearError(), resume.clearError())} />
      {raisingCap && (
        <ResumeCapDialog
          runId={runId}
          capped={status === "cost_capped"}
          currentCap={cfg.maxCost}
          spent={c.cost_usd}
          busy={resume.busy}
          onClose={() => setRaisingCap(false)}
          onResume={async (p) => {
            const x = await resume.run(p);
            if (x) {
              setRaisingCap(false);
              toast("Resumed: finished candidates are kept and only the rest is generated.");
            }
          }}
        />
      )}
      {(running || isResumable(status)) && (
        <Section title={running ? "Working" : status === "cost_capped" ? "Stopped: cost cap" : "Stopped"}>
          <RunProgress
            progress={{ ...progress, status }}
            unit="candidate cases"
            onCancel={async () => {
              const x = await cancel.run({ run_id: runId });
              if (x) toast("Stopping after the calls in flight; finished work is kept.");
            }}
            cancelText="Finished candidates and every stored attempt are kept; Resume finishes the rest later, reusing answered calls."
          />
          <p className="small muted">
            {num(c.units_done)} of {num(c.units_total)} card × anchor pairs done.{" "}
            {running ? "You can leave this page; the run keeps going." : ""}
          </p>
          {!running && r.error && r.error !== progress.message && <Notice kind="warn">{r.error}</Notice>}
        </Section>
      )}
      {status === "completed" && r.problems && (
        <Notice kind="warn" title="Finished with problems.">
          {problemsMessage({ status, problems: r.problems })}
        </Notice>
      )}
      {status === "completed" && !r.problems && (
        <Notice kind="success" title="Finished.">
          {plural(c.accepted, "case")} accepted and added to the cases library; {c.dropped} dropped{c.skipped ? `, ${c.skipped} skipped` : ""}.{" "}
          <a href={href("/cases")}>Browse all cases</a>
        </Notice>
      )}
      {cfg.batch && (
        <Section>
          <BatchPanel runId={runId} running={running} />
        </Section>
      )}
      <div className="grid-stats">
        <Stat label="accepted" value={num(c.accepted)} />
        <Stat label="dropped" value={num(c.dropped)} hint={c.skipped ? `${c.skipped} skipped` : undefined} />
        <Stat label="retries" value={num(c.retries)} hint={plural(c.attempts, "attempt")} />
        <Stat label="tokens" value={tokens(c.input_tokens + c.output_tokens)} hint={`${num(c.calls)} calls${c.cache_hits ? `, ${c.cache_hits} from cache` : ""}`} />
        <Stat label="cost" value={usd(c.cost_usd)} />
      </div>
      <div className="card">
        <MadeWithPanel provenance={r.config.provenance} kind="generation" />
      </div>
      <CallsDisclosure runId={runId} roleLabels={ROLE_LABEL} summary="Model calls of this run" />
      <details className="card run-config">
        <summary>
          <strong>What this run was asked to do</strong>
        </summary>
        <KeyValues
          items={[
            ["Cards", cardsInWords(cfg.cards, (id) => (clauses?.byId.has(id) ? clauseShort(clauses, id) : null))],
            ["Anchors per card", `${cfg.anchorsPerCard ?? "?"} (${cfg.anchorOrigin === "builtin" ? "built-in samples only" : cfg.anchorOrigin === "imported" ? "imported only" : "built-in and imported"}), seed ${cfg.seed ?? 0}`],
            ["Writer model", cfg.model],
            ["Checker model", cfg.verifierModel],
            ["Clause screen model", cfg.protocol === "paper" ? "not used (the paper protocol has no clause screen)" : cfg.screenModel],
            ["Missing-information variants", cfg.includeMissing === false ? "not generated" : "generated"],
            ["Work at once", cfg.batch ? "every pair at once (batch mode)" : String(cfg.concurrency ?? "?")],
            ["Calls", cfg.batch ? "Batch mode: through the providers' batch APIs where they have one" : "One by one (online)"],
            ["Spending cap", cfg.maxCost !== null ? usd(cfg.maxCost) : "none"],
            ["Prompt versions", Object.entries(cfg.promptVersions).map(([k, v]) => `${k}@${v}`).join(", ") || "–"],
            ...(cfg.warnings.length ? ([["Planner notes", cfg.warnings.join(" ")]] as [string, string][]) : []),
          ]}
        />
      </details>
      <Tabs
        label="Run views"
        active={tab}
        onChange={(t) => setQuery("tab", t)}
        tabs={[
          { id: "cases", label: `Cases (${num(c.total)})` },
          { id: "stats", label: "Statistics" },
        ]}
      />
      {tab === "cases" ? (
        <div role="tabpanel" aria-labelledby="tab-cases">
          <CaseBrowser runId={runId} clauses={clauses} tick={tick} />
        </div>
      ) : (
        <div role="tabpanel" aria-labelledby="tab-stats">
          <RunStats runId={runId} tick={tick} clauses={clauses} />
        </div>
      )}
    </>
  );
}

export function RunsList() {
  const runs = useApi("generation.list", {});
  if (runs.error) return <ErrorBanner error={runs.error} />;
  if (!runs.data) return <Loading />;
  if (runs.data.length === 0)
    return (
      <EmptyState level={2} title="No generation runs yet" actions={<a className="btn btn-primary" href={href("/generate", { tab: "new" })}>Set up a run</a>}>
        Runs you start appear here with their progress, statistics and every case they produced.
      </EmptyState>
    );
  return (
    <DataTable<GenerationRunView>
      rows={runs.data}
      rowKey={(r) => r.run_id}
      onOpen={(r) => setQuery("run", r.run_id)}
      initialSort={{ key: "created", dir: "desc" }}
      caption="Generation runs"
      columns={[
        {
          key: "run",
          header: "Run",
          render: (r) => (
            <div className="anchor-cell">
              <a href={href("/generate", { run: r.run_id })} onClick={(e) => e.stopPropagation()}>
                {r.label ?? runConfig(r.config).cards}
              </a>
              <code className="id">{r.run_id}</code>
              {runConfig(r.config).protocol === "paper" && <ProtocolBadge protocol="paper" />}
              <RunProblemsLine run={r} />
              {runConfig(r.config).batch && (
                <span className="badge batch-tag" title="Calls go through the providers' batch APIs (about half the price; answers can take hours)">
                  batch mode
                </span>
              )}
            </div>
          ),
          sort: (r) => r.label ?? r.run_id,
        },
        { key: "status", header: "Status", render: (r) => <StatusBadge status={shownStatus(r.status, r.problems)} />, sort: (r) => r.status },
        { key: "units", header: "Card × anchor pairs", align: "right", render: (r) => `${num(r.counts.units_done)} / ${num(r.counts.units_total)}`, sort: (r) => r.counts.units_total },
        { key: "acc", header: "Accepted", align: "right", render: (r) => num(r.counts.accepted), sort: (r) => r.counts.accepted },
        { key: "drop", header: "Dropped", align: "right", render: (r) => num(r.counts.dropped), sort: (r) => r.counts.dropped },
        { key: "cost", header: "Cost", align: "right", render: (r) => usd(r.counts.cost_usd), sort: (r) => r.counts.cost_usd },
        { key: "created", header: "Created", render: (r) => when(r.created_at), sort: (r) => r.created_at },
      ]}
    />
  );
}

