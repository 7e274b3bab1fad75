// Label audit: screen stored or imported cases against the whole policy with one or more models,
// see per case each model's verdict and clauses next to the by-construction label, filter, export,
// and send the disputed cases to an expert review.
//
// Route: #/cases?view=audit (&audit=<run id>, &disputed=1, &aclause=<clause id>).

import { useEffect, useMemo, useState } from "react";
import { api, useAction, useAllProgress, useApi, useProgress } from "../../api/client";
import { saveDownload } from "../../api/files";
import type { Clause, LabelAuditRow, LabelAuditRunView } from "../../api/generated";
import { StatusBadge, VerdictBadge } from "../../components/Badges";
import { RunProblemsLine } from "../../components/RunProblemsLine";
import { shownStatus } from "../../runProblems";
import { Column, DataTable } from "../../components/DataTable";
import { CallsDisclosure, RunCalls } from "../../components/CallLedger";
import { EmptyState, ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { Checkbox } from "../../components/Forms";
import { KeyValues, PageHeader, Section } from "../../components/Layout";
import { RunProgress } from "../../components/Progress";
import { num, plural, tokens, usd, when } from "../../format";
import { usePolicyId } from "../../policyChoice";
import { href, navigate, setQuery, useRoute } from "../../router";
import { AuditScope, disputedShare, reviewAddress, scopeFilter, screenWords } from "./labelAudit";
import { CaseTabs } from "./CaseTabs";
import { isResumable } from "../../runStatus";

function NewAudit({ clauses }: { clauses: Clause[] }) {
  const models = useApi("models.list", {});
  const start = useAction("label_audit.start");
  const [scope, setScope] = useState<AuditScope>({ kind: "all" });
  const [picked, setPicked] = useState<string[]>([]);
  const [remoteOk, setRemoteOk] = useState(false);
  const filter = scopeFilter(scope);
  const plan = useApi("label_audit.plan", picked.length > 0 ? { cases: filter, models: picked } : null);
  useEffect(() => setRemoteOk(false), [filter, picked]);
  const p = plan.data;
  const blocked = !p || p.cases === 0 || (p.sends_data_off_machine && !remoteOk) || start.busy;
  return (
    <Section title="Screen cases">
      <p className="muted">
        Each model reads every clause of the policy and a case's facts, and says which clauses the facts meet, whether the policy leaves an open question,
        and its verdict. A case is disputed when most of the models disagree with the label the case was built with.
      </p>
      <div className="row gap wrap">
        <div className="field">
          <label htmlFor="audit-scope">Cases</label>
          <select
            id="audit-scope"
            value={scope.kind === "all" ? "all" : scope.kind === "type" ? `type:${scope.verdict}` : `clause:${scope.clause}`}
            onChange={(e) => {
              const v = e.target.value;
              if (v === "all") setScope({ kind: "all" });
              else if (v.startsWith("type:")) setScope({ kind: "type", verdict: v.slice(5) as "Reportable" | "Non-reportable" | "Uncertain" });
              else setScope({ kind: "clause", clause: v.slice(7) });
            }}
          >
            <option value="all">Every case</option>
            <option value="type:Reportable">Cases labelled Reportable</option>
            <option value="type:Non-reportable">Cases labelled Non-reportable</option>
            <option value="type:Uncertain">Cases labelled Uncertain</option>
            {clauses.map((c) => (
              <option key={c.clause_id} value={`clause:${c.clause_id}`}>
                {c.label} — {c.short_title}
              </option>
            ))}
          </select>
        </div>
      </div>
      <fieldset className="audit-models">
        <legend>Screening models (one to five; models of different families make a stronger check)</legend>
        {(models.data ?? []).length === 0 && <p className="small">No model is registered yet: add one in Settings.</p>}
        <div className="row gap wrap">
          {(models.data ?? []).map((m) => (
            <Checkbox
              key={m.name}
              label={`${m.name} (${m.local ? "on this computer" : "remote"})`}
              checked={picked.includes(m.name)}
              onChange={(on) => setPicked((cur) => (on ? [...cur, m.name].slice(0, 5) : cur.filter((x) => x !== m.name)))}
            />
          ))}
        </div>
      </fieldset>
      <ErrorBanner error={plan.error} title="The audit could not be planned." />
      {p && (
        <div className="plan">
          <KeyValues
            items={[
              ["Cases", num(p.cases)],
              ["Model calls", num(p.calls)],
              ["Tokens (estimate)", `${tokens(p.input_tokens)} in, ${tokens(p.output_tokens)} out`],
              ["Cost (estimate)", p.usd === null ? "unknown: a remote model has no price" : usd(p.usd)],
              ["Where the text goes", p.destinations.map((d) => `${d.model}: ${d.destination}`).join("; ")],
            ]}
          />
          {p.notes.map((n) => (
            <p key={n} className="small muted">
              {n}
            </p>
          ))}
          {p.sends_data_off_machine && (
            <Checkbox
              label="Send the policy and these cases' facts to the remote models listed above"
              checked={remoteOk}
              onChange={setRemoteOk}
              hint="Some of the chosen models run off this computer."
            />
          )}
        </div>
      )}
      <ErrorBanner error={start.error} onDismiss={start.clearError} title="The audit did not start." />
      <button
        className="btn btn-primary"
        disabled={blocked}
        onClick={async () => {
          const r = await start.run({ cases: filter, models: picked });
          if (r) {
            toast("The label audit started; its progress is shown below.");
            setQuery("audit", r.run_id);
          }
        }}
      >
        {start.busy ? "Starting…" : p ? `Screen ${plural(p.cases, "case")}` : "Choose models to plan the audit"}
      </button>
    </Section>
  );
}

function AuditList({ runs, selected }: { runs: LabelAuditRunView[]; selected: string | null }) {
  const resume = useAction("label_audit.resume");
  const progress = useAllProgress();
  const columns: Column<LabelAuditRunView>[] = [
    { key: "when", header: "Started", width: "11rem", render: (r) => when(r.created_at), sort: (r) => r.created_at },
    { key: "status", header: "Status", width: "8rem", render: (r) => <StatusBadge status={shownStatus(progress.get(r.run_id)?.status ?? r.status, r.problems)} />, sort: (r) => r.status },
    {
      key: "models",
      header: "Models",
      render: (r) => (
        <>
          {r.models.join(", ")}
          <RunProblemsLine run={r} />
        </>
      ),
      sort: (r) => r.models.join(","),
    },
    { key: "cases", header: "Screened", align: "right", width: "7rem", render: (r) => `${num(r.screened)} / ${num(r.cases)}`, sort: (r) => r.screened },
    { key: "disputed", header: "Disputed", align: "right", width: "6rem", render: (r) => num(r.disputed), sort: (r) => r.disputed },
    { key: "cost", header: "Cost", align: "right", width: "6rem", render: (r) => usd(r.cost_usd), sort: (r) => r.cost_usd },
    {
      key: "act",
      header: "",
      label: "Actions",
      width: "7rem",
      render: (r) =>
        isResumable(r.status) && progress.get(r.run_id)?.status !== "running" ? (
          <button
            className="btn btn-small"
            disabled={resume.busy}
            onClick={async (e) => {
              e.stopPropagation();
              if (await resume.run({ run_id: r.run_id })) toast("Resuming: only the cases not yet screened are sent.");
            }}
          >
            Resume
          </button>
        ) : null,
    },
  ];
  return (
    <Section title="Audits">
      <ErrorBanner error={resume.error} onDismiss={resume.clearError} title="The audit did not resume." />
      <DataTable<LabelAuditRunView>
        rows={runs}
        columns={columns}
        rowKey={(r) => r.run_id}
        onOpen={(r) => setQuery("audit", r.run_id)}
        selectedKey={selected ?? undefined}
        caption="Label audits, newest first. Open one to see its results."
        maxHeight={260}
      />
    </Section>
  );
}

function AuditResults({ runId, clauses }: { runId: string; clauses: Clause[] }) {
  const route = useRoute();
  const disputedOnly = route.query.get("disputed") === "1";
  const clause = route.query.get("aclause") ?? "";
  const live = useProgress(runId);
  const [openCase, setOpenCase] = useState<string | null>(null);
  const results = useApi("label_audit.results", { run_id: runId, disputed_only: disputedOnly, clause: clause || undefined });
  const { reload } = results;
  // Refresh the table as the audit advances.
  useEffect(() => {
    if (live) reload();
  }, [live?.done, live?.status, reload, live]);
  const r = results.data;
  const clauseLabel = useMemo(() => new Map(clauses.map((c) => [c.clause_id, c.label])), [clauses]);
  const columns: Column<LabelAuditRow>[] = useMemo(() => {
    const base: Column<LabelAuditRow>[] = [
      {
        key: "case",
        header: "Case",
        render: (row) => (
          <a href={href("/cases", row.case_id)} className="clip" title={row.case_id}>
            <code className="id">{row.case_id}</code>
          </a>
        ),
        sort: (row) => row.case_id,
      },
      { key: "clause", header: "Clause", width: "12rem", render: (row) => clauseLabel.get(row.clause_id) ?? row.clause_id, sort: (row) => row.clause_id },
      { key: "label", header: "Label", width: "10rem", render: (row) => <VerdictBadge verdict={row.label} />, sort: (row) => row.label },
    ];
    const perModel: Column<LabelAuditRow>[] = (r?.models ?? []).map((m) => ({
      key: `m:${m}`,
      header: m,
      render: (row: LabelAuditRow) => {
        const v = row.verdicts[m];
        if (!v) return <span className="muted">not screened yet</span>;
        return (
          <span className={v.agrees ? "" : "audit-disagrees"}>
            <span aria-hidden>{v.agrees ? "✓ " : "✗ "}</span>
            <span className="sr-only">{v.agrees ? "agrees: " : "disagrees: "}</span>
            {screenWords(v)}
          </span>
        );
      },
      sort: (row: LabelAuditRow) => (row.verdicts[m]?.agrees ? 1 : 0),
    }));
    const flag: Column<LabelAuditRow> = {
      key: "disputed",
      header: "Disputed",
      width: "6rem",
      render: (row) => (row.disputed ? <strong className="audit-disagrees">disputed</strong> : <span className="muted">agreed</span>),
      sort: (row) => (row.disputed ? 0 : 1),
    };
    return [...base, ...perModel, flag];
  }, [r?.models, clauseLabel]);
  if (results.error && !r) return <ErrorBanner error={results.error} title="The audit's results could not be read." />;
  if (!r) return <Loading />;
  const disputedIds = r.disputed.map((d) => d.case_id);
  return (
    <Section
      title="Results"
      actions={
        <>
          <button
            className="btn"
            onClick={async () => {
              try {
                toast(await saveDownload(await api("label_audit.export", { run_id: runId })));
              } catch (e) {
                toast(`The export failed: ${(e as Error).message}`, "error");
              }
            }}
          >
            Export CSV
          </button>
          <button className="btn btn-primary" disabled={disputedIds.length === 0} onClick={() => navigate(reviewAddress(disputedIds))}>
            Review the {plural(disputedIds.length, "disputed case")}
          </button>
        </>
      }
    >
      {live && live.status === "running" && (
        <RunProgress
          progress={live}
          unit="screens"
          onCancel={async () => {
            try {
              await api("label_audit.cancel", { run_id: runId });
              toast("Stopping after the calls in flight…");
            } catch (e) {
              toast(`The audit could not be stopped: ${(e as Error).message}`, "error");
            }
          }}
        />
      )}
      <div className="row gap wrap">
        <StatusBadge status={shownStatus(live?.status ?? r.status, r.problems)} />
        <span>
          <strong>{num(r.screened)}</strong> screened, <strong>{num(r.agree)}</strong> agree with their label, disputed:{" "}
          <strong>{disputedShare(r.disputed.length, r.screened)}</strong>
        </span>
      </div>
      <RunProblemsLine run={r} />
      <p className="small muted">{r.tie_rule}</p>
      <div className="filters" role="search" aria-label="Filter the audit's results">
        <Checkbox label="Only disputed cases" checked={disputedOnly} onChange={(on) => setQuery("disputed", on ? "1" : null)} />
        <div className="field">
          <label htmlFor="audit-clause">Clause</label>
          <select id="audit-clause" value={clause} onChange={(e) => setQuery("aclause", e.target.value || null)}>
            <option value="">Every clause</option>
            {clauses.map((c) => (
              <option key={c.clause_id} value={c.clause_id}>
                {c.label} — {c.short_title}
              </option>
            ))}
          </select>
        </div>
      </div>
      {r.rows.length === 0 ? (
        <Notice kind="info" title="Nothing to show.">
          {disputedOnly || clause ? "No case matches these filters." : "No case has been screened yet."}
        </Notice>
      ) : (
        <DataTable<LabelAuditRow>
          rows={r.rows}
          columns={columns}
          rowKey={(row) => row.case_id}
          onOpen={(row) => setOpenCase(row.case_id)}
          selectedKey={openCase}
          caption="Each screened case: its label and each model's screen. Open a case to see every model's calls."
        />
      )}
      {openCase && (
        <section className="card" aria-label={`Model calls for case ${openCase}`}>
          <div className="row gap wrap">
            <strong>Every model's calls for case</strong> <code className="id">{openCase}</code>
            <button className="btn btn-small btn-ghost" onClick={() => setOpenCase(null)}>
              Close
            </button>
          </div>
          <RunCalls runId={runId} item={openCase} />
        </section>
      )}
      <CallsDisclosure runId={runId} summary="Every model call of this audit" />
    </Section>
  );
}

export function LabelAudit() {
  const route = useRoute();
  const selected = route.query.get("audit");
  const policy = useApi("policy.show", { id: usePolicyId() });
  const runs = useApi("label_audit.list", {});
  const clauses = policy.data?.clauses ?? [];
  const list = runs.data ?? [];
  const shown = selected ?? list[0]?.run_id ?? null;
  return (
    <>
      <PageHeader title="Cases" subtitle="Check the cases' labels against the whole policy: several models screen each case, and you see where they disagree." />
      <CaseTabs active="audit" />
      <NewAudit clauses={clauses} />
      <ErrorBanner error={runs.error} title="The audits could not be listed." />
      {runs.loading && !runs.data && <Loading />}
      {runs.data && list.length === 0 && <EmptyState title="No label audit yet">Choose models above and screen the cases.</EmptyState>}
      {list.length > 0 && <AuditList runs={list} selected={shown} />}
      {shown && <AuditResults key={shown} runId={shown} clauses={clauses} />}
    </>
  );
}

export function auditRunLabel(r: LabelAuditRunView): string {
  return `${r.models.join(", ")} · ${when(r.created_at)}`;
}
