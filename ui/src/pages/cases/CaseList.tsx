// The case list: filters kept in the address, counts, a virtualised sortable table, import and
// export, and an empty state that offers the demo cases.

import { useMemo, useState } from "react";
import { api, EngineError, useAction, useApi } from "../../api/client";
import { saveDownload, toUpload } from "../../api/files";
import type { CaseSummary, CasesImportResult, Clause, Upload } from "../../api/generated";
import { CaseTypeBadge, VerdictBadge } from "../../components/Badges";
import { Breakable } from "../../components/Breakable";
import { Column, DataTable } from "../../components/DataTable";
import { Modal } from "../../components/Dialog";
import { EmptyState, ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { Checkbox, FilePicker } from "../../components/Forms";
import { PageHeader } from "../../components/Layout";
import { CASE_TYPE_LABEL, num, plural, VERDICT_LABEL, verdictKey } from "../../format";
import { href, navigate, setQuery, useRoute } from "../../router";
import { clauseOptions } from "../cards/logic";
import { activeCaseFilters, CASE_FILTER_KEYS, caseFilterFromQuery, countBy, filterQuery, ORIGIN_LABEL } from "./logic";
import { usePolicyId } from "../../policyChoice";
import { CaseTabs } from "./CaseTabs";

function ImportCases({ onClose }: { onClose: () => void }) {
  const [file, setFile] = useState<Upload | null>(null);
  const [replace, setReplace] = useState(false);
  const [result, setResult] = useState<CasesImportResult | null>(null);
  const imp = useAction("cases.import");
  const run = async () => {
    if (!file) return;
    const r = await imp.run({ file, replace });
    if (r) {
      setResult(r);
      toast(`Imported ${plural(r.imported, "case")} from ${r.file}.`);
    }
  };
  return (
    <Modal
      title="Import cases"
      onClose={onClose}
      footer={
        result ? (
          <button className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        ) : (
          <>
            <button className="btn" onClick={onClose}>
              Cancel
            </button>
            <button className="btn btn-primary" disabled={!file || imp.busy} onClick={run}>
              {imp.busy ? "Importing…" : "Import"}
            </button>
          </>
        )
      }
    >
      {result ? (
        <Notice kind="success" title="Import finished.">
          {plural(result.imported, "new case")}, {plural(result.replaced, "replaced case")}, {plural(result.unchanged, "unchanged case")} from {result.file}.
        </Notice>
      ) : (
        <>
          <p className="muted">
            Choose a <code>cases.jsonl</code> file (one case per line, in the PSEBench case format). Every line is checked first; if any line has a
            problem, nothing is imported and the problem is named with its line number.
          </p>
          <FilePicker label="Choose a cases file…" accept=".jsonl,.json,.ndjson" onFiles={async (f) => setFile(await toUpload(f[0]))} />
          {file && <div className="small">Selected: {file.name}</div>}
          <Checkbox
            label="Replace cases that changed"
            checked={replace}
            onChange={setReplace}
            hint="When a case id is already stored with different content, use the file's version. Without this, such a file is refused."
          />
        </>
      )}
      <ErrorBanner error={imp.error} onDismiss={imp.clearError} title="Nothing was imported." />
      {imp.error?.code === "conflict" && !replace && (
        <p className="small">To overwrite the stored cases with the file's version, tick “Replace cases that changed” and import again.</p>
      )}
    </Modal>
  );
}

export function CaseList() {
  const route = useRoute();
  const filter = useMemo(() => caseFilterFromQuery(route.query), [route.query]);
  const carry = useMemo(() => filterQuery(route.query), [route.query]);
  const all = useApi("cases.list", { include_excluded: true });
  const shown = useApi("cases.list", filter);
  const policy = useApi("policy.show", { id: usePolicyId() });
  const demo = useAction("demo.load");
  const [importing, setImporting] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<EngineError | undefined>();

  const clauses = useMemo<Clause[]>(() => policy.data?.clauses ?? [], [policy.data?.clauses]);
  const clauseById = useMemo(() => new Map(clauses.map((c) => [c.clause_id, c])), [clauses]);
  const everything = useMemo(() => all.data ?? [], [all.data]);
  const rows = useMemo(() => shown.data ?? [], [shown.data]);
  const active = activeCaseFilters(filter);
  const byType = useMemo(() => countBy(rows, (r) => r.case_type), [rows]);
  const excludedCount = useMemo(() => everything.filter((c) => c.excluded).length, [everything]);
  const origins = useMemo(() => Object.keys(countBy(everything, (r) => r.origin)).sort(), [everything]);
  // Cards that have cases of the chosen type under the chosen clause.
  const cardChoices = useMemo(() => {
    const ids = new Set(
      everything
        .filter((c) => (!filter.clause_id || c.clause_id === filter.clause_id) && (!filter.case_type || c.case_type === filter.case_type))
        .map((c) => c.clause_card_id),
    );
    return [...ids].sort();
  }, [everything, filter.clause_id, filter.case_type]);
  const clausesWithCases = useMemo(() => new Set(everything.map((c) => c.clause_id)), [everything]);

  const columns: Column<CaseSummary>[] = useMemo(
    () => [
      {
        key: "case",
        header: "Clause and case",
        render: (c) => {
          const cl = clauseById.get(c.clause_id);
          return (
            <div className="cell-card">
              <span className="clip" title={cl ? `${cl.short_title} (${cl.label})` : c.clause_id}>
                {cl?.short_title ?? c.clause_id}
              </span>
              <code className="id id-wrap" title={c.case_id}>
                <Breakable text={c.case_id} />
              </code>
            </div>
          );
        },
        sort: (c) => `${String(clauseById.get(c.clause_id)?.global_no ?? 999).padStart(3, "0")} ${c.case_id}`,
      },
      { key: "type", header: "Case type", width: "11rem", render: (c) => <CaseTypeBadge caseType={c.case_type} />, sort: (c) => c.case_type },
      { key: "gold", header: "Expected verdict", width: "10rem", render: (c) => <VerdictBadge verdict={c.gold_verdict} />, sort: (c) => VERDICT_LABEL[verdictKey(c.gold_verdict)] },
      { key: "words", header: "Words", align: "right", width: "4.8rem", render: (c) => num(c.narrative_words), sort: (c) => c.narrative_words },
      { key: "origin", header: "Origin", width: "6rem", render: (c) => ORIGIN_LABEL[c.origin] ?? c.origin, sort: (c) => c.origin },
      {
        key: "excluded",
        header: <span title="Excluded from runs">Runs</span>,
        label: "In runs",
        width: "7rem",
        render: (c) =>
          c.excluded ? (
            <span className="badge excluded-badge">
              <span aria-hidden className="badge-icon">
                ⊘
              </span>
              Excluded
            </span>
          ) : (
            <span className="muted small">Included</span>
          ),
        sort: (c) => (c.excluded ? 1 : 0),
      },
    ],
    [clauseById],
  );

  const exportCases = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      toast(await saveDownload(await api("cases.export", { filter })));
    } catch (e) {
      setExportError(e as EngineError);
    } finally {
      setExporting(false);
    }
  };
  const clearFilters = () => CASE_FILTER_KEYS.forEach((k) => setQuery(k, null));

  const noCases = all.data !== undefined && everything.length === 0;

  return (
    <div className="cases-page">
      <PageHeader
        title="Cases"
        subtitle="Benchmark cases: an event narrative with its expected verdict, legal basis and the facts behind it, built from a clause card."
        actions={
          <>
            <button className="btn" onClick={() => setImporting(true)}>
              <span aria-hidden>⤒</span> Import cases…
            </button>
            {everything.length > 0 && (
              <button className="btn" disabled={exporting || rows.length === 0} onClick={exportCases} title="Download the cases shown below as cases.jsonl">
                <span aria-hidden>⤓</span> Export {active > 0 ? `${num(rows.length)} shown` : plural(rows.length, "case")}
              </button>
            )}
          </>
        }
      />
      <CaseTabs active="cases" />
      <ErrorBanner error={exportError} onDismiss={() => setExportError(undefined)} title="The cases were not exported." />
      <ErrorBanner error={demo.error} onDismiss={demo.clearError} title="The demo cases could not be opened." />
      <ErrorBanner error={shown.error ?? all.error} title="The cases could not be read." />
      {!all.data && !all.error ? (
        <Loading label="Loading cases…" />
      ) : noCases ? (
        <EmptyState
          title="No cases yet"
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
                {demo.busy ? "Opening…" : "Open the 90 demo cases"}
              </button>
              <a className="btn" href="#/generate">
                Generate cases
              </a>
              <button className="btn" onClick={() => setImporting(true)}>
                Import cases…
              </button>
            </>
          }
        >
          Generate cases from the card library, or open the 90 demo cases to try everything now. You can also import a <code>cases.jsonl</code> file.
        </EmptyState>
      ) : (
        <>
          <div className="filters" role="search" aria-label="Filter the cases">
            <div className="field">
              <label htmlFor="cases-type">Case type</label>
              <select id="cases-type" value={filter.case_type ?? ""} onChange={(e) => setQuery("type", e.target.value || null)}>
                <option value="">All case types</option>
                {Object.entries(CASE_TYPE_LABEL).map(([k, v]) => (
                  <option key={k} value={k}>
                    {v}
                  </option>
                ))}
              </select>
            </div>
            <div className="field field-wide">
              <label htmlFor="cases-clause">Clause</label>
              <select
                id="cases-clause"
                value={filter.clause_id ?? ""}
                onChange={(e) => {
                  setQuery("clause", e.target.value || null);
                  setQuery("card", null);
                }}
              >
                <option value="">All clauses</option>
                {clauseOptions(clauses.filter((c) => clausesWithCases.has(c.clause_id) || c.clause_id === filter.clause_id)).map((g) => (
                  <optgroup key={g.category} label={g.category}>
                    {g.options.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </div>
            <div className="field field-wide">
              <label htmlFor="cases-card">Card</label>
              <select id="cases-card" value={filter.clause_card_id ?? ""} onChange={(e) => setQuery("card", e.target.value || null)}>
                <option value="">All cards</option>
                {(filter.clause_card_id && !cardChoices.includes(filter.clause_card_id) ? [filter.clause_card_id, ...cardChoices] : cardChoices).map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="cases-origin">Origin</label>
              <select id="cases-origin" value={filter.origin ?? ""} onChange={(e) => setQuery("origin", e.target.value || null)}>
                <option value="">Any origin</option>
                {["demo", "imported", "generated", ...origins.filter((o) => !ORIGIN_LABEL[o])].map((o) => (
                  <option key={o} value={o}>
                    {ORIGIN_LABEL[o] ?? o}
                  </option>
                ))}
              </select>
            </div>
            <div className="field field-check">
              <Checkbox label={`Show excluded cases (${num(excludedCount)})`} checked={filter.include_excluded} onChange={(v) => setQuery("excluded", v ? "1" : null)} />
            </div>
          </div>
          <div className="row between wrap list-counts">
            <span aria-live="polite">
              {active > 0 ? (
                <>
                  Showing <strong>{num(rows.length)}</strong> of {plural(everything.length, "case")}
                  <button className="btn btn-small btn-clear" onClick={clearFilters}>
                    Clear filters
                  </button>
                </>
              ) : (
                <strong>{plural(rows.length, "case")}</strong>
              )}
              {!filter.include_excluded && excludedCount > 0 && <span className="muted small"> · {num(excludedCount)} excluded from runs not shown</span>}
            </span>
            <span className="muted small">
              {(["complete", "missing", "uncertain"] as const)
                .filter((t) => byType[t])
                .map((t) => `${num(byType[t])} ${CASE_TYPE_LABEL[t].toLowerCase()}`)
                .join(" · ")}
            </span>
          </div>
          {!shown.data && !shown.error ? (
            <Loading label="Loading cases…" />
          ) : (
            <DataTable<CaseSummary>
              rows={rows}
              columns={columns}
              rowKey={(c) => c.case_id}
              onOpen={(c) => navigate(href("/cases", c.case_id, carry))}
              caption="Benchmark cases"
              rowHeight={64}
              maxHeight="page"
              empty={
                <EmptyState
                  title="No cases match these filters"
                  actions={
                    <button className="btn" onClick={clearFilters}>
                      Clear filters
                    </button>
                  }
                >
                  Try another case type or clause{excludedCount > 0 && !filter.include_excluded ? ", or show excluded cases" : ""}.
                </EmptyState>
              }
            />
          )}
        </>
      )}
      {importing && <ImportCases onClose={() => setImporting(false)} />}
    </div>
  );
}
