// The left panel: which policy sections bear on the clause. Run an extraction, read the model's
// choice with its reasons and its check of its own choice, tick sections in or out, and approve in a
// named person's name. Sections cited by the selected draft are marked.

import { useEffect, useMemo, useState } from "react";
import { CallList, callTotals } from "../../../components/CallLedger";
import { useAction, useApi } from "../../../api/client";
import type { Extraction, ExtractionSummary, ModelView, PolicySection } from "../../../api/generated";
import { EmptyState, ErrorBanner, Loading, Notice, toast } from "../../../components/Feedback";
import { TextArea } from "../../../components/Forms";
import { plural, when } from "../../../format";
import { setQuery, useRoute } from "../../../router";
import { NameField, useRememberedName } from "../../../components/NameField";
import { Blocked, ModelSelect, useRemoteGuard } from "./ModelChoice";
import { approveBlocker, criterionWords, keptSections, toggle } from "./logic";

function SectionRow({
  s,
  x,
  kept,
  editable,
  cited,
  onToggle,
}: {
  s: PolicySection;
  x: Extraction;
  kept: boolean;
  editable: boolean;
  cited: boolean;
  onToggle: () => void;
}) {
  const chosen = x.sections.find((c) => c.section_id === s.section_id) ?? x.proposed.find((c) => c.section_id === s.section_id);
  const add = x.self_check.add.find((a) => a.section_id === s.section_id);
  const remove = x.self_check.remove.find((a) => a.section_id === s.section_id);
  const checkId = `sec-${s.section_id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return (
    <li className={`sec-row ${kept ? "sec-chosen" : ""} ${cited ? "sec-cited" : ""}`} data-section={s.section_id}>
      <div className="row gap sec-head">
        <input id={checkId} type="checkbox" checked={kept} disabled={!editable} onChange={onToggle} aria-label={`Keep section ${s.heading}`} />
        <label htmlFor={checkId} className="sec-title">
          <strong>{s.heading}</strong> <code className="id">{s.section_id}</code>
        </label>
        {kept && <span className="badge sec-badge">Chosen</span>}
        {cited && <span className="badge sec-badge sec-badge-cited">Cited by the draft</span>}
      </div>
      {chosen && kept && (
        <div className="sec-why small">
          {chosen.criteria.length > 0 && <span className="muted">{chosen.criteria.map(criterionWords).join(" · ")} — </span>}
          {chosen.why}
          {chosen.added_by && <span className="muted"> (added by {chosen.added_by})</span>}
        </div>
      )}
      {add && (
        <div className="sec-suggest small" data-suggest="add">
          <span aria-hidden>＋ </span>The model’s check suggests adding it: {add.reason}
        </div>
      )}
      {remove && (
        <div className="sec-suggest small" data-suggest="remove">
          <span aria-hidden>− </span>The model’s check suggests leaving it out: {remove.reason}
        </div>
      )}
      <details className="sec-body small">
        <summary>Read the section</summary>
        <p className="readable">{s.body}</p>
        <p className="muted">{s.origin}</p>
      </details>
    </li>
  );
}

function Approve({ x, kept, onDone }: { x: Extraction; kept: string[]; onDone: () => void }) {
  const { name, setName, prefilled, remember } = useRememberedName("approver");
  const [notes, setNotes] = useState("");
  const approve = useAction("authoring.approve");
  const blocker = approveBlocker(name, kept.length, x.status);
  return (
    <div className="approve-box stack">
      <h3>Approve this selection</h3>
      <p className="small muted">
        {plural(kept.length, "section")} kept. Drafting uses only the approved sections; approving makes this version the clause's context.
      </p>
      <NameField role="approver" label="Approved by" value={name} onChange={setName} prefilled={prefilled} hint="Your name, recorded with the approval." />
      <TextArea label="Approval notes (optional)" value={notes} onChange={setNotes} rows={2} />
      <div className="row gap wrap">
        <button
          className="btn btn-primary"
          disabled={!!blocker || approve.busy}
          onClick={async () => {
            remember();
            const r = await approve.run({ extraction_id: x.extraction_id, approved_by: name.trim(), sections: kept, notes: notes.trim() || null });
            if (r) {
              toast(`Version ${r.version} of the extraction is approved.`);
              onDone();
            }
          }}
        >
          {approve.busy ? "Approving…" : "Approve extraction"}
        </button>
        <Blocked reason={blocker} />
      </div>
      <ErrorBanner error={approve.error} onDismiss={approve.clearError} title="The extraction was not approved." />
    </div>
  );
}

function ExtractionView({ id, sections, cited }: { id: string; sections: PolicySection[]; cited: Set<string> }) {
  const shown = useApi("authoring.extraction_show", { id });
  const [toggled, setToggled] = useState<Set<string>>(new Set());
  const [onlyRelevant, setOnlyRelevant] = useState(false);
  useEffect(() => setToggled(new Set()), [id]);
  const x = shown.data;
  const order = useMemo(() => sections.map((s) => s.section_id), [sections]);
  const chosen = useMemo(() => x?.sections.map((s) => s.section_id) ?? [], [x]);
  const kept = useMemo(() => keptSections(order, chosen, toggled), [order, chosen, toggled]);
  if (shown.error) return <ErrorBanner error={shown.error} title="The extraction could not be read." />;
  if (!x) return <Loading label="Reading the extraction…" />;
  const editable = x.status !== "approved";
  const keptSet = new Set(kept);
  const suggested = new Set([...x.self_check.add, ...x.self_check.remove].map((a) => a.section_id));
  const list = onlyRelevant ? sections.filter((s) => keptSet.has(s.section_id) || suggested.has(s.section_id) || cited.has(s.section_id)) : sections;
  return (
    <div className="stack" data-testid="extraction">
      <div className="row gap wrap small">
        <span className={`badge status status-${x.status === "approved" ? "approved" : "draft"}`}>
          {x.status === "approved" ? `Approved by ${x.approved_by ?? "?"}` : "Waiting for approval"}
        </span>
        <span className="muted">
          Version {x.version} · {x.model} · {plural(x.attempts, "attempt")} · {x.edition === "official" ? "official text" : "summary text"} · {when(x.created_at)}
        </span>
      </div>
      {x.notes && <p className="small">Notes: {x.notes}</p>}
      {x.problems.length > 0 && (
        <Notice kind="warn" title={`${plural(x.problems.length, "problem")} with the model's reply`}>
          <ul className="plain-list">
            {x.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </Notice>
      )}
      {x.rejected_ids.length > 0 && (
        <p className="small warn-text" data-testid="rejected-ids">
          <span aria-hidden>⚠ </span>Left out because the policy has no such section: {x.rejected_ids.join(", ")}
        </p>
      )}
      <div className="selfcheck-box" data-testid="self-check">
        <h3>The model&apos;s check of its own choice</h3>
        {x.self_check.add.length === 0 && x.self_check.remove.length === 0 ? (
          <p className="small muted">No section to add or remove.</p>
        ) : (
          <ul className="plain-list small">
            {x.self_check.add.map((a) => (
              <li key={`a-${a.section_id}`}>
                <strong>Add {a.section_id}</strong>: {a.reason}
              </li>
            ))}
            {x.self_check.remove.map((a) => (
              <li key={`r-${a.section_id}`}>
                <strong>Remove {a.section_id}</strong>: {a.reason}
              </li>
            ))}
          </ul>
        )}
        {x.self_check.notes.length > 0 && <p className="small muted">{x.self_check.notes.join(" ")}</p>}
      </div>
      <div className="row between wrap">
        <h3>
          Policy sections <span className="muted small">({plural(kept.length, "chosen section")} of {sections.length})</span>
        </h3>
        <label className="small row gap">
          <input type="checkbox" checked={onlyRelevant} onChange={(e) => setOnlyRelevant(e.target.checked)} /> Only chosen, suggested and cited
        </label>
      </div>
      {editable && <p className="small muted">Tick a section to add it, untick to leave it out, then approve.</p>}
      <ul className="plain-list sec-list">
        {list.map((s) => (
          <SectionRow
            key={s.section_id}
            s={s}
            x={x}
            kept={keptSet.has(s.section_id)}
            editable={editable}
            cited={cited.has(s.section_id)}
            onToggle={() => setToggled(toggle(toggled, s.section_id))}
          />
        ))}
      </ul>
      {editable && <Approve x={x} kept={kept} onDone={() => setToggled(new Set())} />}
      <details className="doc-box">
        <summary>The assembled document (what drafting reads)</summary>
        <div className="readable doc-text">{x.document}</div>
      </details>
      <details className="small">
        <summary>Model calls ({x.calls.length})</summary>
        <div className="small muted">{callTotals(x.calls)}</div>
        <CallList calls={x.calls} roleLabels={{ extractor: "Choose the policy sections" }} label="Model calls of this extraction" />
      </details>
    </div>
  );
}

export function ExtractionPanel({
  policyId,
  clauseId,
  clauseName,
  models,
  versions,
  cited,
}: {
  policyId: string;
  clauseId: string;
  clauseName: string;
  models: ModelView[];
  versions: ExtractionSummary[];
  cited: Set<string>;
}) {
  const route = useRoute();
  const sections = useApi("authoring.sections", { id: policyId });
  const [model, setModel] = useState("");
  useEffect(() => {
    if (!models.some((m) => m.name === model)) setModel((models.find((m) => m.local) ?? models[0])?.name ?? "");
  }, [models, model]);
  const extract = useAction("authoring.extract");
  // The clause's last extraction that failed, kept by the engine until the clause is extracted
  // again: it shows after a reload and in other windows too.
  const failures = useApi("authoring.extraction_failures", { policy: policyId, clause: clauseId });
  const failed = failures.data?.[0] ?? null;
  const { guard, dialog } = useRemoteGuard(models);
  const sorted = useMemo(() => [...versions].sort((a, b) => b.version - a.version), [versions]);
  const picked = route.query.get("x");
  const current = sorted.find((v) => v.extraction_id === picked) ?? sorted[0];

  const run = () =>
    guard(model, <>The text of {clauseName} and of the policy's sections</>, async () => {
      const r = await extract.run({ policy: policyId, clause: clauseId, model });
      failures.reload();
      if (r) {
        toast(`Extraction done: ${plural(r.sections.length, "section")} chosen in ${plural(r.attempts, "attempt")}.`);
        setQuery("x", r.extraction_id);
      }
    });

  return (
    <section className="card author-panel" aria-labelledby="x-title">
      <div className="card-head">
        <h2 id="x-title">1. Policy sections for this clause</h2>
      </div>
      <div className="row gap wrap align-end">
        {models.length > 0 ? (
          <ModelSelect id="x-model" label="Model" models={models} value={model} onChange={setModel} />
        ) : (
          <p className="small">
            No model is registered yet. <a href="#/settings">Add one in Settings</a> to run an extraction.
          </p>
        )}
        <button className="btn btn-primary" disabled={!model || extract.busy} onClick={run}>
          {extract.busy ? "Extracting…" : current ? "Run a new extraction" : "Run extraction"}
        </button>
      </div>
      {extract.busy && (
        <p className="small muted row gap">
          <span className="spinner" aria-hidden /> The model is reading the policy; this can take a minute.
        </p>
      )}
      <ErrorBanner
        error={extract.error}
        onDismiss={extract.clearError}
        title="Extraction failed."
        action={
          <button className="btn btn-small" disabled={!model || extract.busy} onClick={run}>
            Try again
          </button>
        }
      />
      {failed && !extract.error && !extract.busy && (
        <div data-testid="extraction-failed">
          <Notice kind="warn">
            <p>
              <strong>Failed:</strong> after {plural(failed.attempts, "try", "tries")} the model&apos;s reply could not be used as a choice of policy sections ({failed.reason}).
              Nothing was stored for approval. Try again, or choose another model.
            </p>
            <p className="small muted">
              {failed.model} · {plural(failed.attempts, "attempt")} · {when(failed.failed_at)}
            </p>
            <button className="btn btn-small" disabled={!model} onClick={run}>
              Try again
            </button>
          </Notice>
        </div>
      )}
      <ErrorBanner error={sections.error} title="The policy's sections could not be read." />
      {sorted.length > 1 && (
        <div className="field">
          <label htmlFor="x-version">Version</label>
          <select id="x-version" value={current?.extraction_id ?? ""} onChange={(e) => setQuery("x", e.target.value)}>
            {sorted.map((v) => (
              <option key={v.extraction_id} value={v.extraction_id}>
                Version {v.version} — {v.status === "approved" ? `approved by ${v.approved_by ?? "?"}` : "waiting for approval"} ({plural(v.sections.length, "section")})
              </option>
            ))}
          </select>
        </div>
      )}
      {!current ? (
        <EmptyState title="No extraction for this clause yet">
          An extraction asks the model which sections of the policy bear on this clause, and why. You check its choice, change it if needed and approve it;
          cards are then drafted from the approved sections only.
        </EmptyState>
      ) : !sections.data ? (
        <Loading />
      ) : (
        <ExtractionView key={current.extraction_id} id={current.extraction_id} sections={sections.data.sections} cited={cited} />
      )}
      {dialog}
    </section>
  );
}
