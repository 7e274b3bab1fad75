// The library list: filters (kept in the address), counts, a sortable table, the library-wide
// check, import and export.

import { Breakable } from "../../components/Breakable";
import { useEffect, useMemo, useRef, useState } from "react";
import { api, EngineError, useApi } from "../../api/client";
import { saveDownload } from "../../api/files";
import type { CardSummary, Clause, LintReport } from "../../api/generated";
import { EventTypeBadge, StatusBadge } from "../../components/Badges";
import { Column, DataTable } from "../../components/DataTable";
import { EmptyState, ErrorBanner, Loading, toast } from "../../components/Feedback";
import { PageHeader } from "../../components/Layout";
import { EVENT_TYPE_LABEL, num, plural, STATUS_LABEL, when } from "../../format";
import { href, navigate, setQuery, useRoute } from "../../router";
import { ImportDialog } from "./ImportDialog";
import { LibraryTabs } from "./LibraryTabs";
import { day, LintCount, ProvisionalBadge } from "./parts";
import { activeFilterCount, categories, clauseOptions, FILTER_KEYS, filterFromQuery, groupProblems, ORIGIN_LABEL } from "./logic";
import { usePolicyId } from "../../policyChoice";

function LibraryCheck({ report }: { report: LintReport | undefined }) {
  if (!report) return null;
  const groups = groupProblems(report.problems);
  if (report.problems.length === 0) {
    return (
      <div className="library-check library-check-ok" role="status">
        <span className="lc-icon" aria-hidden>
          ✓
        </span>
        <span>
          <strong>Library check:</strong> no problems in any card.
        </span>
      </div>
    );
  }
  return (
    <details className={`library-check ${report.errors > 0 ? "library-check-err" : "library-check-warn"}`}>
      <summary>
        <span className="lc-icon" aria-hidden>
          {report.errors > 0 ? "!" : "⚠"}
        </span>
        <span>
          <strong>Library check:</strong> {plural(report.errors, "error")} and {plural(report.warnings, "warning")} in {plural(groups.length, "card")}.{" "}
          {report.errors > 0 && <span className="muted">Cards with errors cannot be approved, so they are not used for generation.</span>}
        </span>
        <span className="lc-more muted small">Show</span>
      </summary>
      <ul className="lc-list">
        {groups.map((g) => (
          <li key={g.key}>
            {g.cardId ? <a href={href("/cards", g.cardId, { tab: "lint" })}>{g.cardId}</a> : <code>{g.path}</code>}{" "}
            <LintCount errors={g.problems.filter((p) => p.severity === "error").length} warnings={g.problems.filter((p) => p.severity === "warning").length} />
            <span className="muted small"> {g.problems[0].message}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

function SearchBox({ value }: { value: string }) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const sent = useRef(value);
  // The address changed from elsewhere (Clear filters, a link): show it and drop pending typing.
  useEffect(() => {
    if (value === sent.current) return;
    clearTimeout(timer.current);
    sent.current = value;
    setText(value);
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <div className="field field-search">
      <label htmlFor="cards-q">Search</label>
      <input
        id="cards-q"
        type="search"
        value={text}
        placeholder="Card id or words"
        onChange={(e) => {
          const v = e.target.value;
          setText(v);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => {
            sent.current = v.trim();
            setQuery("q", v.trim() || null);
          }, 250);
        }}
      />
    </div>
  );
}

export function CardList() {
  const route = useRoute();
  const policyId = usePolicyId();
  const filter = useMemo(() => filterFromQuery(route.query, policyId), [route.query, policyId]);
  const policy = useApi("policy.show", { id: policyId });
  const active = activeFilterCount(filter);
  const all = useApi("cards.list", { policy: policyId });
  // Without filters the whole library is what is shown: no second request.
  const filtered = useApi("cards.list", active > 0 ? filter : null);
  const shown = active > 0 ? filtered : all;
  const check = useApi("cards.lint_library", { policy: policyId });
  const [importing, setImporting] = useState(false);
  const [exportError, setExportError] = useState<EngineError | undefined>();
  const [exporting, setExporting] = useState(false);

  const clauses = useMemo<Clause[]>(() => policy.data?.clauses ?? [], [policy.data?.clauses]);
  const clauseById = useMemo(() => new Map(clauses.map((c) => [c.clause_id, c])), [clauses]);
  const rows = shown.data ?? [];
  const total = all.data?.length ?? 0;
  const byStatus = useMemo(() => {
    const m: Record<string, number> = {};
    for (const c of all.data ?? []) m[c.status] = (m[c.status] ?? 0) + 1;
    return m;
  }, [all.data]);

  const columns: Column<CardSummary>[] = useMemo(
    () => [
      {
        key: "clause",
        header: "Clause and definition",
        render: (c) => {
          const cl = clauseById.get(c.clause_id);
          return (
            <div className="cell-card">
              <span className="clip cell-clause" title={`${cl?.short_title ?? c.clause_id} · ${c.clause_label ?? c.clause_id}`}>
                <strong>{cl?.short_title ?? c.clause_id}</strong> <span className="muted small">{c.clause_label ?? ""}</span>
              </span>
              <span className="clip cell-def" title={c.definition}>
                {c.definition || <em className="muted">No definition</em>}
              </span>
              <code className="id id-wrap" title={c.card_id}>
                <Breakable text={c.card_id} />
              </code>
            </div>
          );
        },
        sort: (c) => (clauseById.get(c.clause_id)?.global_no ?? 999) * 1000 + ["Reportable", "Non_Reportable", "Uncertain"].indexOf(c.event_type),
      },
      {
        key: "type",
        header: "Event type",
        width: "9.4rem",
        render: (c) => <EventTypeBadge eventType={c.event_type} />,
        sort: (c) => EVENT_TYPE_LABEL[c.event_type] ?? c.event_type,
      },
      {
        key: "counts",
        header: (
          <span className="th-wrap" title="Boundary conditions · fact slots · missing-information variants">
            Conditions · facts · variants
          </span>
        ),
        label: "Boundary conditions, fact slots and missing-information variants",
        align: "right",
        width: "9.6rem",
        render: (c) => (
          <span className="counts" title={`${plural(c.boundary_conditions, "boundary condition")}, ${plural(c.elements, "fact slot")}, ${plural(c.variants, "missing-information variant")}`}>
            {c.boundary_conditions} · {c.elements} · {c.variants}
          </span>
        ),
        sort: (c) => c.boundary_conditions * 10000 + c.elements * 100 + c.variants,
      },
      {
        key: "lint",
        header: "Problems",
        width: "6.2rem",
        render: (c) => <LintCount errors={c.lint_errors} warnings={c.lint_warnings} />,
        sort: (c) => c.lint_errors * 1000 + c.lint_warnings,
      },
      {
        key: "status",
        header: "Status",
        width: "7.4rem",
        render: (c) => (
          <div className="cell-status">
            <StatusBadge status={c.status} />
            <ProvisionalBadge ids={c.provisional} />
            <span className="muted small" title={c.origin === "builtin" ? "Built-in, audited by the PSEBench Studio team" : undefined}>
              {c.origin === "builtin" ? "Built-in" : c.origin === "edited" ? "Edited built-in" : (ORIGIN_LABEL[c.origin] ?? c.origin)}
            </span>
          </div>
        ), sort: (c) => ["draft", "audited", "approved"].indexOf(c.status) },
      { key: "version", header: <abbr title="Version">Ver.</abbr>, label: "Version", align: "right", width: "3.4rem", render: (c) => num(c.version), sort: (c) => c.version },
      {
        key: "updated",
        header: "Updated",
        width: "6.6rem",
        render: (c) => (
          <span className="small nowrap" title={when(c.updated_at)}>
            {day(c.updated_at)}
          </span>
        ),
        sort: (c) => c.updated_at,
      },
    ],
    [clauseById],
  );

  const exportCards = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      const d = await api("cards.export", { filter });
      toast(await saveDownload(d));
    } catch (e) {
      setExportError(e as EngineError);
    } finally {
      setExporting(false);
    }
  };

  const clearFilters = () => {
    for (const k of FILTER_KEYS) setQuery(k, null);
  };

  return (
    <div className="cards-page">
      <PageHeader
        title="Card library"
        subtitle={`Each clause card turns one decision region of a clause of ${policy.data?.name ?? "the policy"} into conditions, facts and a legal basis. Only approved cards are used to generate cases.`}
        actions={
          <>
            <button className="btn" onClick={() => setImporting(true)}>
              <span aria-hidden>⤒</span> Import cards…
            </button>
            <button className="btn" onClick={exportCards} disabled={exporting || rows.length === 0} title="Download the cards shown below as cards.jsonl">
              <span aria-hidden>⤓</span> Export {active > 0 ? `${num(rows.length)} shown` : "all"}
            </button>
          </>
        }
      />
      <LibraryTabs active="library" />
      <ErrorBanner error={exportError} onDismiss={() => setExportError(undefined)} title="The cards were not exported." />
      <LibraryCheck report={check.data} />
      <div className="filters" role="search" aria-label="Filter the card library">
        <SearchBox value={route.query.get("q") ?? ""} />
        <div className="field">
          <label htmlFor="cards-category">Category</label>
          <select
            id="cards-category"
            value={filter.category ?? ""}
            onChange={(e) => {
              setQuery("category", e.target.value || null);
              const cl = filter.clause ? clauseById.get(filter.clause) : undefined;
              if (e.target.value && cl && cl.category !== e.target.value) setQuery("clause", null);
            }}
          >
            <option value="">All categories</option>
            {categories(clauses).map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-clause">
          <label htmlFor="cards-clause">Clause</label>
          <select id="cards-clause" value={filter.clause ?? ""} onChange={(e) => setQuery("clause", e.target.value || null)}>
            <option value="">All {clauses.length} clauses</option>
            {clauseOptions(clauses, filter.category).map((g) => (
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
        <div className="field">
          <label htmlFor="cards-type">Event type</label>
          <select id="cards-type" value={filter.event_type ?? ""} onChange={(e) => setQuery("type", e.target.value || null)}>
            <option value="">All event types</option>
            {Object.entries(EVENT_TYPE_LABEL).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="cards-status">Audit status</label>
          <select id="cards-status" value={filter.status ?? ""} onChange={(e) => setQuery("status", e.target.value || null)}>
            <option value="">Any status</option>
            {["draft", "audited", "approved"].map((s) => (
              <option key={s} value={s}>
                {STATUS_LABEL[s]}
                {byStatus[s] !== undefined ? ` (${byStatus[s]})` : ""}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="row between wrap list-counts">
        <span aria-live="polite">
          {all.data ? (
            active > 0 ? (
              <>
                Showing <strong>{num(rows.length)}</strong> of {plural(total, "card")}
                <button className="btn btn-small btn-clear" onClick={clearFilters}>
                  Clear filters
                </button>
              </>
            ) : (
              <>
                <strong>{plural(total, "card")}</strong>
              </>
            )
          ) : (
            " "
          )}
        </span>
        {all.data && total > 0 && (
          <span className="muted small">
            {["approved", "audited", "draft"]
              .filter((s) => byStatus[s])
              .map((s) => `${num(byStatus[s])} ${STATUS_LABEL[s].toLowerCase()}`)
              .join(" · ")}
          </span>
        )}
      </div>
      <ErrorBanner error={shown.error ?? all.error ?? policy.error} title="The card library could not be read." />
      {!shown.data && !shown.error ? (
        <Loading label="Loading the card library…" />
      ) : total === 0 && all.data ? (
        <EmptyState
          title="The card library is empty"
          actions={
            <>
              <a className="btn btn-primary" href={href("/cards", { view: "author" })}>
                Author cards from the policy
              </a>
              <button className="btn" onClick={() => setImporting(true)}>
                Import cards…
              </button>
            </>
          }
        >
          Clause cards describe when an event is reportable under a clause. Draft them from the policy text with a model&apos;s help, or import card files
          (<code>.json</code> or <code>.jsonl</code>).
        </EmptyState>
      ) : (
        <DataTable<CardSummary>
          rows={rows}
          columns={columns}
          rowKey={(c) => c.card_id}
          onOpen={(c) => navigate(href("/cards", c.card_id))}
          caption="Clause cards"
          rowHeight={72}
          maxHeight="page"
          empty={
            <EmptyState
              title="No cards match these filters"
              actions={
                <button className="btn" onClick={clearFilters}>
                  Clear filters
                </button>
              }
            >
              Try fewer words, another clause, or any status.
            </EmptyState>
          }
        />
      )}
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
    </div>
  );
}
