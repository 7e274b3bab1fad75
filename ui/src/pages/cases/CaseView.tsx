// One case: the narrative as the model reads it, the ground truth beside it, the conditions and
// facts it was built from (withheld facts marked), the raw JSON, and exclusion from runs.

import { useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { CaseDetail } from "../../api/generated";
import { CaseTypeBadge, Id, StatusBadge, VerdictBadge } from "../../components/Badges";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { TextArea } from "../../components/Forms";
import { JsonBlock, Tabs } from "../../components/Layout";
import { CASE_TYPE_LABEL, humanize, plural, when, words } from "../../format";
import { href, setQuery, useRoute } from "../../router";
import { LegalBasisLinks } from "../cards/CardSections";
import { nameTitle } from "../cards/logic";
import { TruthValue } from "../cards/parts";
import { caseFilterFromQuery, factRows, filterQuery, neighbours, ORIGIN_LABEL } from "./logic";
import { DEFAULT_POLICY } from "../../api/generated";

function ExcludeDialog({ detail, onClose }: { detail: CaseDetail; onClose: () => void }) {
  const [reason, setReason] = useState("");
  const act = useAction("case.set_excluded");
  const id = detail.case.case_id;
  return (
    <Modal
      title="Exclude this case from runs?"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn btn-primary"
            disabled={!reason.trim() || act.busy}
            onClick={async () => {
              const r = await act.run({ case_id: id, excluded: true, reason: reason.trim() });
              if (r) {
                toast(`${id} is excluded from new runs.`);
                onClose();
              }
            }}
          >
            Exclude from runs
          </button>
        </>
      }
    >
      <p>
        New evaluation runs will leave this case out. It stays in the store, finished runs keep their results, and you can include it again at any time.
      </p>
      <TextArea label="Reason" value={reason} onChange={setReason} rows={3} hint="Recorded with the case, e.g. “narrative names the verdict” or “duplicate of another case”." />
      <ErrorBanner error={act.error} onDismiss={act.clearError} title="The case was not excluded." />
    </Modal>
  );
}

function GroundTruth({ d, evidence }: { d: CaseDetail; evidence: Parameters<typeof LegalBasisLinks>[0]["evidence"] }) {
  const c = d.case;
  return (
    <section className="card truth-panel" aria-labelledby="gt-title">
      <h2 id="gt-title">Ground truth</h2>
      <dl className="gt">
        <div>
          <dt>Targeted clause</dt>
          <dd>
            {c.gold_clause ? (
              <a href={href("/policy", { tab: "clauses", focus: c.gold_clause })}>
                {c.gold_clause}
                {d.clause_label === c.gold_clause && d.clause_short_title ? `: ${d.clause_short_title}` : ""}
              </a>
            ) : (
              <span className="muted">None ({c.gold_verdict === "Reportable" ? "missing" : "only Reportable cases target a clause"})</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Legal basis</dt>
          <dd>{c.gold_legal_basis.length ? <LegalBasisLinks ids={c.gold_legal_basis} evidence={evidence} /> : <span className="muted">None listed</span>}</dd>
        </div>
        <div>
          <dt>Built from card</dt>
          <dd>
            {d.card_status ? (
              <span className="row gap wrap">
                <a href={href("/cards", c.clause_card_id)} className="id-link">
                  {c.clause_card_id}
                </a>
                <StatusBadge status={d.card_status} />
              </span>
            ) : (
              <span>
                <Id value={c.clause_card_id} /> <span className="muted small">(not in this library)</span>
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Clause of the card</dt>
          <dd>
            {d.clause_label ? (
              <a href={href("/policy", { tab: "clauses", focus: c.clause_id })}>
                {d.clause_short_title} ({d.clause_label})
              </a>
            ) : (
              <Id value={c.clause_id} />
            )}
          </dd>
        </div>
        {c.missing_variant_id && (
          <div>
            <dt>Missing variant</dt>
            <dd>
              {d.card_status ? (
                <a href={href("/cards", c.clause_card_id, { tab: "variants" })}>{nameTitle(c.missing_variant_id)}</a>
              ) : (
                nameTitle(c.missing_variant_id)
              )}{" "}
              <Id value={c.missing_variant_id} />
            </dd>
          </div>
        )}
        <div>
          <dt>Anchor</dt>
          <dd>{c.anchor_id ? <Id value={c.anchor_id} /> : <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Origin</dt>
          <dd>
            {ORIGIN_LABEL[d.meta.origin] ?? d.meta.origin}, {when(d.meta.created_at)}
          </dd>
        </div>
      </dl>
    </section>
  );
}

export function CaseView({ caseId }: { caseId: string }) {
  const route = useRoute();
  const tab = route.query.get("tab") === "json" ? "json" : "case";
  const carry = useMemo(() => filterQuery(route.query), [route.query]);
  const detail = useApi("case.detail", { case_id: caseId });
  const list = useApi("cases.list", caseFilterFromQuery(route.query));
  // The evidence vocabulary of the case's own policy.
  const policy = useApi("policy.show", { id: detail.data?.case.policy ?? DEFAULT_POLICY });
  const include = useAction("case.set_excluded");
  const [excluding, setExcluding] = useState(false);

  if (detail.error && !detail.data) {
    return (
      <div className="stack">
        <nav className="crumbs" aria-label="Breadcrumb">
          <a href={href("/cases", carry)}>Cases</a>
        </nav>
        <ErrorBanner error={detail.error} title="This case could not be shown." />
        <a className="btn" href={href("/cases", carry)}>
          Back to the cases
        </a>
      </div>
    );
  }
  if (!detail.data) return <Loading label="Loading the case…" />;
  const d = detail.data;
  const c = d.case;
  const nb = neighbours(list.data ?? [], caseId);
  const facts = factRows(c.elements, c.masked_elements);
  const withheld = facts.filter((f) => f.masked);

  return (
    <div className="case-view">
      <nav className="crumbs row between wrap" aria-label="Breadcrumb">
        <span>
          <a href={href("/cases", carry)}>Cases</a>
          <span aria-hidden> › </span>
          <span>{d.clause_short_title ?? c.clause_id}</span>
        </span>
        {nb.index >= 0 && (
          <span className="row gap case-nav">
            {nb.prev ? (
              <a className="btn btn-small" href={href("/cases", nb.prev, { ...carry, tab: tab === "json" ? "json" : null })}>
                <span aria-hidden>‹</span> Previous
              </a>
            ) : (
              <span className="btn btn-small is-disabled" aria-disabled="true">
                <span aria-hidden>‹</span> Previous
              </span>
            )}
            <span className="muted small">
              {nb.index + 1} of {nb.total}
            </span>
            {nb.next ? (
              <a className="btn btn-small" href={href("/cases", nb.next, { ...carry, tab: tab === "json" ? "json" : null })}>
                Next <span aria-hidden>›</span>
              </a>
            ) : (
              <span className="btn btn-small is-disabled" aria-disabled="true">
                Next <span aria-hidden>›</span>
              </span>
            )}
          </span>
        )}
      </nav>
      <header className="case-head">
        <div className="case-head-main">
          <div className="row gap wrap">
            <CaseTypeBadge caseType={c.case_type} />
            {d.meta.excluded && (
              <span className="badge excluded-badge">
                <span aria-hidden className="badge-icon">
                  ⊘
                </span>
                Excluded from runs
              </span>
            )}
          </div>
          <h1>
            {d.clause_short_title ?? humanize(c.clause_id)}: {CASE_TYPE_LABEL[c.case_type]?.toLowerCase() ?? c.case_type} case
          </h1>
          <Id value={c.case_id} />
        </div>
        <div className="case-head-actions">
          <div className="gold-verdict">
            <span className="muted small">Expected verdict</span>
            <VerdictBadge verdict={c.gold_verdict} />
          </div>
          {d.meta.excluded ? (
            <button
              className="btn"
              disabled={include.busy}
              onClick={async () => {
                const r = await include.run({ case_id: c.case_id, excluded: false });
                if (r) toast(`${c.case_id} is included in runs again.`);
              }}
            >
              Include in runs again
            </button>
          ) : (
            <button className="btn" onClick={() => setExcluding(true)}>
              <span aria-hidden>⊘</span> Exclude from runs…
            </button>
          )}
        </div>
      </header>
      {d.meta.excluded && (
        <Notice kind="warn" title="This case is excluded from new runs.">
          {d.meta.excluded_reason ? <>Reason: {d.meta.excluded_reason}</> : "No reason was recorded."}
        </Notice>
      )}
      <ErrorBanner error={include.error} onDismiss={include.clearError} title="The case was not included again." />

      <Tabs
        tabs={[
          { id: "case", label: "Case" },
          { id: "json", label: "Raw JSON" },
        ]}
        active={tab}
        onChange={(t) => setQuery("tab", t === "case" ? null : t)}
        label="Views of the case"
      />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === "json" ? (
          <JsonBlock value={c} maxHeight={720} />
        ) : (
          <div className="stack">
            <div className="case-grid">
              <section className="card narrative-panel" aria-labelledby="nar-title">
                <div className="card-head">
                  <h2 id="nar-title">Event description</h2>
                  <span className="muted small">{plural(words(c.narrative), "word")}</span>
                </div>
                <p className="muted small">What the model under test reads.</p>
                <div className="narrative case-narrative">{c.narrative}</div>
                {withheld.length > 0 && (
                  <p className="withheld-note small">
                    <span aria-hidden>? </span>
                    {plural(withheld.length, "fact is", "facts are")} withheld from this description: {withheld.map((f) => humanize(f.name)).join(", ")}. The model
                    must ask for {withheld.length === 1 ? "it" : "them"}.
                  </p>
                )}
              </section>
              <GroundTruth d={d} evidence={policy.data?.evidence} />
            </div>

            <section className="card" aria-labelledby="bc-title">
              <div className="card-head">
                <h2 id="bc-title">Boundary conditions</h2>
                <span className="muted small">Their truth values decide the expected verdict</span>
              </div>
              <div className="table-wrap">
                <table className="data case-table stack-narrow">
                  <thead>
                    <tr>
                      <th scope="col">Condition</th>
                      <th scope="col">Truth value</th>
                      <th scope="col">What it means</th>
                    </tr>
                  </thead>
                  <tbody>
                    {c.boundary_conditions.map((b) => (
                      <tr key={b.name}>
                        <th scope="row">
                          <span className="dt-human">{nameTitle(b.name)}</span>
                          <Id value={b.name} />
                        </th>
                        <td className="nowrap" data-label="Truth value">
                          <TruthValue value={b.value} />
                        </td>
                        <td className="case-meaning" data-label="What it means">
                          {b.meaning}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>

            <section className="card" aria-labelledby="facts-title">
              <div className="card-head">
                <h2 id="facts-title">Facts</h2>
                <span className="muted small">
                  {plural(facts.length, "fact")}
                  {withheld.length > 0 ? `, ${withheld.length} withheld` : ""}
                </span>
              </div>
              <p className="muted small">
                The facts the case was written from. The information provider answers the model's questions from this list
                {withheld.length > 0 ? "; facts marked withheld are not in the description, so the model must ask for these." : "."}
              </p>
              <div className="table-wrap">
                <table className="data case-table stack-narrow">
                  <thead>
                    <tr>
                      <th scope="col">Fact</th>
                      <th scope="col">Value</th>
                      <th scope="col">What it captures</th>
                    </tr>
                  </thead>
                  <tbody>
                    {facts.map((f) => (
                      <tr key={f.name} className={f.masked ? "fact-masked" : ""}>
                        <th scope="row">
                          <span className="dt-human">{nameTitle(f.name)}</span>
                          <Id value={f.name} />
                        </th>
                        <td className="fact-value" data-label="Value">
                          {f.masked && (
                            <span className="badge withheld-badge">
                              <span aria-hidden className="badge-icon">
                                ?
                              </span>
                              Withheld from the narrative
                            </span>
                          )}
                          <div>{f.value ?? <span className="muted">empty (does not apply)</span>}</div>
                        </td>
                        <td className="case-meaning muted" data-label="What it captures">
                          {f.meaning}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          </div>
        )}
      </div>
      {excluding && <ExcludeDialog detail={d} onClose={() => setExcluding(false)} />}
    </div>
  );
}
