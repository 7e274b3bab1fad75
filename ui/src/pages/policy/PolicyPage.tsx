// Policy: the clauses, the guidance sections, the evidence vocabulary, and the official text.

import { useEffect, useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import { ConfirmDialog } from "../../components/Dialog";
import { NewPolicyDialog } from "./NewPolicyDialog";
import { toUpload } from "../../api/files";
import type { Clause, GuidanceSection, PolicyView, Upload } from "../../api/generated";
import { Id } from "../../components/Badges";
import { DataTable } from "../../components/DataTable";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { FilePicker, Select } from "../../components/Forms";
import { KeyValues, PageHeader, Section, Tabs } from "../../components/Layout";
import { plural, when } from "../../format";
import { setQuery, useRoute } from "../../router";
import { choosePolicy, usePolicyId } from "../../policyChoice";

function appliesTo(g: GuidanceSection): string {
  return Array.isArray(g.applies_to) ? g.applies_to.join(", ") : String(g.applies_to);
}

/** Bring the part named by `?focus=` (linked from cards and cases) into view. */
function useScrollTo(id: string | null) {
  useEffect(() => {
    if (id) document.getElementById(id)?.scrollIntoView({ block: "start" });
  }, [id]);
}

function ClauseList({ policy, filter, focus }: { policy: PolicyView; filter: string; focus: string | null }) {
  const focused = policy.clauses.find((c) => c.clause_id === focus || c.label === focus)?.clause_id ?? null;
  const [open, setOpen] = useState<string | null>(focused);
  useScrollTo(focused ? "clause-detail" : null);
  const f = filter.toLowerCase();
  const rows = policy.clauses.filter((c) => !f || `${c.label} ${c.short_title} ${c.summary} ${c.category}`.toLowerCase().includes(f));
  const selected = rows.find((c) => c.clause_id === open);
  return (
    <div className="stack">
      <DataTable<Clause>
        rows={rows}
        rowKey={(c) => c.clause_id}
        onOpen={(c) => setOpen(c.clause_id === open ? null : c.clause_id)}
        selectedKey={open}
        caption="Clauses of the policy"
        columns={[
          { key: "no", header: "#", align: "right", width: "3rem", render: (c) => c.global_no, sort: (c) => c.global_no },
          { key: "category", header: "Category", render: (c) => c.category, sort: (c) => c.category },
          { key: "title", header: "Event", render: (c) => <strong>{c.short_title}</strong>, sort: (c) => c.short_title },
          { key: "label", header: "Clause label", render: (c) => c.label, sort: (c) => c.label },
          { key: "conf", header: "Confidence", render: (c) => c.confidence },
        ]}
      />
      {selected && (
        <Section title={`${selected.label}: ${selected.short_title}`} id="clause-detail">
          <p className="narrative">{selected.summary}</p>
          <KeyValues
            items={[
              ["Clause id", <Id value={selected.clause_id} />],
              ["Statute", selected.statute_ref],
              ["Where this summary comes from", selected.provenance],
              ["Confidence", selected.confidence],
              ...(selected.notes ? ([["Notes", selected.notes]] as [string, string][]) : []),
            ]}
          />
          <div className="row gap">
            <a className="btn" href={`#/cards?clause=${encodeURIComponent(selected.clause_id)}`}>
              Cards for this clause
            </a>
          </div>
        </Section>
      )}
    </div>
  );
}

function GuidanceList({ policy, filter, focus }: { policy: PolicyView; filter: string; focus: string | null }) {
  const focused = policy.guidance.find((g) => g.id === focus)?.id ?? null;
  useScrollTo(focused ? `g-${focused.replace(/\s+/g, "-")}` : null);
  const f = filter.toLowerCase();
  const rows = policy.guidance.filter((g) => !f || `${g.id} ${g.topic} ${g.summary}`.toLowerCase().includes(f));
  return (
    <div className="stack">
      {rows.map((g) => (
        <section key={g.id} className={g.id === focused ? "card focused" : "card"} id={`g-${g.id.replace(/\s+/g, "-")}`}>
          <div className="card-head">
            <h2>{g.topic && g.topic !== g.id ? `${g.id}: ${g.topic}` : g.id}</h2>
            {g.status && (
              <span className={`badge ${g.status === "confirmed" ? "status-approved" : "status-failed"}`}>
                <span className="badge-icon" aria-hidden>
                  {g.status === "confirmed" ? "✓" : "?"}
                </span>
                {g.status}
              </span>
            )}
          </div>
          <p className="narrative">{g.summary}</p>
          <div className="small muted">Applies to: {appliesTo(g)}</div>
          {g.status_note && <div className="small muted">{g.status_note}</div>}
        </section>
      ))}
    </div>
  );
}

function EvidenceList({ policy, filter, focus }: { policy: PolicyView; filter: string; focus: string | null }) {
  const f = filter.toLowerCase();
  const rows = policy.evidence.filter((e) => !f || `${e.id} ${e.title}`.toLowerCase().includes(f));
  return (
    <>
      <p className="muted">
        Models cite these identifiers as evidence, spelled exactly as shown (they are compared verbatim). Clause labels are also the targeted-clause
        vocabulary.
      </p>
      <DataTable
        rows={rows}
        rowKey={(e) => e.id}
        selectedKey={focus}
        caption="Evidence vocabulary"
        columns={[
          { key: "id", header: "Identifier", render: (e) => <code>{e.id}</code>, sort: (e) => e.id },
          { key: "kind", header: "Kind", render: (e) => e.kind, sort: (e) => e.kind },
          { key: "title", header: "What it is", render: (e) => e.title },
        ]}
      />
    </>
  );
}

function OfficialText({ policy }: { policy: PolicyView }) {
  const [clauses, setClauses] = useState<Upload | null>(null);
  const [guidance, setGuidance] = useState<Upload | null>(null);
  const imp = useAction("policy.import");
  const [open, setOpen] = useState<string | null>(null);
  const sections = policy.official_sections;
  return (
    <div className="stack">
      <Notice>
        Import the official statute and guidance as Markdown files, with a heading (<code>#</code>, <code>##</code>, …) before each clause or
        recommendation. Each heading becomes an evidence identifier; headings that match a known identifier
        {policy.clauses[0] ? ` (for example “${policy.clauses[0].label}”${policy.guidance[0] ? ` or “${policy.guidance[0].id}”` : ""})` : ""} take its place. Our summaries are kept alongside. Models then see the official text instead of the summaries.
      </Notice>
      <div className="grid-2">
        <div className="field">
          <strong>Statutory clauses (Markdown)</strong>
          <FilePicker label="Choose clause text…" accept=".md,.markdown,.txt" onFiles={async (f) => setClauses(await toUpload(f[0]))} />
          {clauses && <span className="small">Selected: {clauses.name}</span>}
        </div>
        <div className="field">
          <strong>Guidance (Markdown)</strong>
          <FilePicker label="Choose guidance text…" accept=".md,.markdown,.txt" onFiles={async (f) => setGuidance(await toUpload(f[0]))} />
          {guidance && <span className="small">Selected: {guidance.name}</span>}
        </div>
      </div>
      <ErrorBanner error={imp.error} onDismiss={imp.clearError} title="The official text was not imported." />
      <div>
        <button
          className="btn btn-primary"
          disabled={imp.busy || (!clauses && !guidance)}
          onClick={async () => {
            const r = await imp.run({ policy: policy.id, clauses: clauses ?? undefined, guidance: guidance ?? undefined });
            if (r) {
              const d = r.documents.map((x) => `${x.file}: ${plural(x.sections, "section")}, ${x.matched.length} matched`).join("; ");
              toast(`Imported ${d}.`);
              setClauses(null);
              setGuidance(null);
            }
          }}
        >
          Import official text
        </button>
      </div>
      {sections.length > 0 && (
        <Section title={`Imported sections (${sections.length})`}>
          <DataTable
            rows={sections}
            rowKey={(s) => `${s.source}-${s.ord}`}
            onOpen={(s) => setOpen(`${s.source}-${s.ord}` === open ? null : `${s.source}-${s.ord}`)}
            selectedKey={open}
            caption="Imported official sections"
            columns={[
              { key: "source", header: "Document", render: (s) => s.source },
              { key: "heading", header: "Heading", render: (s) => s.heading },
              { key: "id", header: "Evidence id", render: (s) => <code>{s.evidence_id}</code> },
              {
                key: "matched",
                header: "Matched",
                render: (s) => (s.matched ? <span className="badge status-approved">✓ known id</span> : <span className="badge">new id</span>),
              },
              { key: "at", header: "Imported", render: (s) => when(s.imported_at) },
            ]}
          />
          {open && (
            <pre className="json" style={{ maxHeight: 320 }}>
              {sections.find((s) => `${s.source}-${s.ord}` === open)?.body}
            </pre>
          )}
        </Section>
      )}
    </div>
  );
}

export function PolicyPage() {
  const route = useRoute();
  const chosen = usePolicyId();
  const id = route.query.get("policy") ?? chosen;
  const tab = route.query.get("tab") ?? "clauses";
  const [filter, setFilter] = useState("");
  const focus = route.query.get("focus");
  const policy = useApi("policy.show", { id });
  const list = useApi("policies.list", {});
  const remove = useAction("policy.delete");
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const p = policy.data;
  const tabs = useMemo(
    () => [
      { id: "clauses", label: `Clauses${p ? ` (${p.clauses.length})` : ""}` },
      { id: "guidance", label: `Guidance${p ? ` (${p.guidance.length})` : ""}` },
      { id: "evidence", label: `Evidence vocabulary${p ? ` (${p.evidence.length})` : ""}` },
      { id: "import", label: "Official text" },
    ],
    [p],
  );
  const dialog = creating && (
    <NewPolicyDialog
      onClose={() => setCreating(false)}
      onCreated={(newId) => {
        setCreating(false);
        toast(`Created the policy ${newId}.`);
        choosePolicy(newId);
        setQuery("policy", newId);
      }}
    />
  );
  const newButton = (
    <button className="btn btn-primary" onClick={() => setCreating(true)}>
      New policy
    </button>
  );
  if (policy.error)
    return (
      <>
        <ErrorBanner error={policy.error} title="The policy could not be shown." />
        <button
          className="btn"
          onClick={() => {
            choosePolicy(null);
            setQuery("policy", null);
          }}
        >
          Show the default policy
        </button>
        {dialog}
      </>
    );
  if (!p) return <Loading />;
  const official = p.official_text.clauses || p.official_text.guidance;
  const packs = list.data ?? [];
  return (
    <>
      <PageHeader
        title={p.name}
        subtitle={[p.jurisdiction, p.statute].filter((x) => x.trim()).join(" · ")}
        actions={
          <>
            {!p.builtin && (
              <button className="btn" onClick={() => setDeleting(true)}>
                Delete policy
              </button>
            )}
            {newButton}
          </>
        }
      />
      {packs.length > 1 && (
        <div className="filters">
          <Select
            label="Policy"
            value={p.id}
            onChange={(v) => {
              choosePolicy(v);
              setQuery("policy", v);
            }}
            options={packs.map((x) => ({ value: x.id, label: `${x.name} (${x.id}${x.builtin ? ", built in" : ""})` }))}
          />
        </div>
      )}
      {p.reporting_deadline && <p className="muted small">Reporting deadline: {p.reporting_deadline}</p>}
      <ErrorBanner error={remove.error} onDismiss={remove.clearError} title="The policy was not deleted." />
      {dialog}
      {deleting && (
        <ConfirmDialog
          title={`Delete the policy ${p.id}?`}
          confirmLabel="Delete policy"
          danger
          onCancel={() => setDeleting(false)}
          onConfirm={async () => {
            setDeleting(false);
            const r = await remove.run({ id: p.id });
            if (r) {
              toast(`Deleted the policy ${r.id}.`);
              choosePolicy(null);
              setQuery("policy", null);
            }
          }}
        >
          <p>Its clauses and guidance are removed from this store. A policy that cards or cases still use cannot be deleted.</p>
        </ConfirmDialog>
      )}
      {official ? (
        <Notice kind="success" title="Official text imported.">
          {plural(p.official_text.sections, "section")} ({p.official_text.matched} matched to known identifiers). Models see the official text; our summaries
          remain for reference.
        </Notice>
      ) : (
        <Notice kind="warn" title={`${p.edition.charAt(0).toUpperCase()}${p.edition.slice(1)} edition.`}>
          {p.edition_notice}{" "}
          <button className="link" onClick={() => setQuery("tab", "import")}>
            Import the official text
          </button>
        </Notice>
      )}
      <Tabs tabs={tabs} active={tab} onChange={(t) => setQuery("tab", t)} label="Policy sections" />
      {tab !== "import" && (
        <div className="filters">
          <div className="field">
            <label htmlFor="policy-filter">Filter</label>
            <input id="policy-filter" type="search" value={filter} placeholder="Words in a title or summary" onChange={(e) => setFilter(e.target.value)} />
          </div>
        </div>
      )}
      {tab === "clauses" && <ClauseList policy={p} filter={filter} focus={focus} />}
      {tab === "guidance" && <GuidanceList policy={p} filter={filter} focus={focus} />}
      {tab === "evidence" && <EvidenceList policy={p} filter={filter} focus={focus} />}
      {tab === "import" && <OfficialText policy={p} />}
    </>
  );
}
