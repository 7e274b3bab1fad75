// The case-by-model grid (promptfoo style): one row per case, one column per model, each cell a
// compact verdict mark with ✓/✗ and the number of questions asked. Filters and sort live in the
// URL; only the visible rows are rendered, so 5,074 × 15 stays smooth. A cell opens its transcript.

import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Select } from "../../components/Forms";
import { CASE_TYPE_LABEL, num, plural } from "../../format";
import { Route, setQuery } from "../../router";
import { Breakable } from "../../components/Breakable";
import { asksOf, cellWords, correctOf, filterFromQuery, filterRows, filterToQuery, Grid, GridFilter, GridSort, GridSortKey, isFiltered, NO_FILTER, present, sortFromQuery, sortRows, sortToQuery, verdictOf, VERDICTS } from "./grid";

/** Rows hold two lines, so a long case id wraps whole instead of being cut. */
export const ROW_H = 40;
/** The header row is taller: model names wrap onto two lines. */
export const HEAD_H = 48;
const OVERSCAN = 10;
const VERDICT_ICON = ["–", "▲", "●", "◆"];
const VERDICT_CLASS = ["none", "reportable", "non-reportable", "uncertain"];
const TYPE_SHORT = ["Complete", "Missing", "Uncertain"];

/** Set several query parameters at once (one history replacement, one re-render). */
export function setQueries(values: Record<string, string | null>) {
  const hash = window.location.hash.replace(/^#/, "") || "/";
  const [path, q = ""] = hash.split("?", 2);
  const query = new URLSearchParams(q);
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === "") query.delete(k);
    else query.set(k, v);
  }
  const keys = Object.keys(values);
  // setQuery notifies listeners; use it for the last key so the route updates once.
  const last = keys[keys.length - 1];
  const rest = new URLSearchParams(query);
  if (last !== undefined) rest.delete(last);
  const s = rest.toString();
  history.replaceState(null, "", `#${path}${s ? `?${s}` : ""}`);
  if (last !== undefined) setQuery(last, values[last]);
}

/** The shared part of every trajectory link from the grid: runs, filters and sort. */
export function trajectoryBase(route: Route): string {
  const q = new URLSearchParams(route.query);
  q.delete("tab");
  q.delete("run");
  q.delete("case");
  q.delete("ttab");
  q.delete("repeat");
  const s = q.toString();
  return `#/results/trajectory?${s}${s ? "&" : ""}`;
}

export function trajectoryLink(base: string, run: string, caseId: string): string {
  return `${base}run=${encodeURIComponent(run)}&case=${encodeURIComponent(caseId)}`;
}

type RowProps = { g: Grid; r: number; base: string; focus: number | null; order: number[]; clauseName: (id: string) => string };

const GridRow = memo(function GridRow({ g, r, base, focus, order, clauseName }: RowProps) {
  const caseId = g.caseIds[r];
  const gold = g.gold[r];
  const clauseId = g.clauses[g.clause[r]];
  const models = g.models.length;
  return (
    <div className="g-row" role="row" aria-rowindex={r + 2}>
      <div className="g-c g-case" role="rowheader">
        <span className="g-id" title={caseId}>
          <Breakable text={caseId} />
        </span>
      </div>
      <div className="g-c" role="cell">
        <span className="g-type">{TYPE_SHORT[g.caseType[r]]}</span>
      </div>
      <div className="g-c g-clause" role="cell" title={`${clauseName(clauseId)} (${clauseId})`}>
        <span className="g-clause-text">{clauseName(clauseId)}</span>
      </div>
      <div className="g-c" role="cell">
        <span className={`badge verdict verdict-${VERDICT_CLASS[gold]}`}>
          <span aria-hidden className="badge-icon">
            {VERDICT_ICON[gold]}
          </span>
          {VERDICTS[gold]}
        </span>
      </div>
      <div className="g-c num" role="cell">
        {g.right[r]}
        <span className="muted">/{models}</span>
      </div>
      {order.map((m) => {
        const code = g.cells[m][r];
        if (!present(code))
          return (
            <div key={m} className={`g-c g-m ${focus === m ? "g-focus" : ""}`} role="cell">
              <span className="g-absent" title="Not evaluated">
                <span aria-hidden>·</span>
                <span className="sr-only">not evaluated</span>
              </span>
            </div>
          );
        const v = verdictOf(code);
        const ok = correctOf(code);
        const asks = asksOf(code);
        const words = `${g.models[m]}: ${cellWords(code)}`;
        return (
          <div key={m} className={`g-c g-m ${focus === m ? "g-focus" : ""}`} role="cell">
            <a className={`gc ${ok ? "gc-ok" : "gc-bad"} gc-${VERDICT_CLASS[v]}`} href={trajectoryLink(base, g.modelRuns[m], caseId)} title={words} aria-label={`${words}. Open the transcript.`}>
              <span className="gc-v" aria-hidden>
                {VERDICT_ICON[v]}
              </span>
              <span className="gc-mark" aria-hidden>
                {ok ? "✓" : "✗"}
              </span>
              <span className="gc-q" aria-hidden>
                {asks > 0 ? (asks >= 15 ? "15+" : asks) : ""}
              </span>
            </a>
          </div>
        );
      })}
    </div>
  );
});

function HeaderCell({ label, k, sort, title, className = "" }: { label: string; k: GridSortKey; sort: GridSort; title?: string; className?: string }) {
  const shown = <Breakable text={label} />;
  const active = sort?.key === k;
  const next: GridSort = active ? (sort.dir === "asc" ? { key: k, dir: "desc" } : null) : { key: k, dir: k === "right" ? "asc" : "asc" };
  return (
    <div className={`g-c g-h ${className}`} role="columnheader" aria-sort={active ? (sort.dir === "asc" ? "ascending" : "descending") : "none"}>
      <button className="th-sort" title={title ?? `Sort by ${label}`} onClick={() => setQuery("sort", sortToQuery(next))}>
        <span className="g-h-label">{shown}</span>
        <span aria-hidden className="sort-mark">
          {active ? (sort.dir === "asc" ? "▲" : "▼") : "↕"}
        </span>
      </button>
    </div>
  );
}

export function CasesGrid({ g, route, clauseName }: { g: Grid; route: Route; clauseName: (id: string) => string }) {
  const filter = useMemo(() => filterFromQuery(route.query, g.models), [route.query, g.models]);
  const sort = useMemo(() => sortFromQuery(route.query), [route.query]);
  const filterKey = JSON.stringify(filter);
  const sortKey = JSON.stringify(sort);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const rows = useMemo(() => sortRows(g, filterRows(g, filter), sort), [g, filterKey, sortKey]);
  const base = trajectoryBase(route);

  const set = (f: Partial<GridFilter>) => setQueries(filterToQuery({ ...filter, ...f }, g.models));
  const clauseOptions = useMemo(() => {
    const ids = g.clauses.slice().sort((a, b) => clauseName(a).localeCompare(clauseName(b), undefined, { numeric: true }));
    return [{ value: "", label: "Every clause" }, ...ids.map((id) => ({ value: id, label: clauseName(id) }))];
  }, [g.clauses, clauseName]);
  const focusName = filter.model !== null ? g.models[filter.model] : null;

  return (
    <div className="stack cases-grid">
      <div className="grid-filters" role="search" aria-label="Filter the cases">
        <Select
          label="Model"
          value={focusName ?? ""}
          onChange={(v) => set({ model: v ? g.models.indexOf(v) : null })}
          options={[{ value: "", label: "Any model" }, ...g.models.map((m) => ({ value: m, label: m }))]}
        />
        <Select
          label="Case type"
          value={filter.type}
          onChange={(v) => set({ type: v })}
          options={[{ value: "", label: "Every type" }, ...["complete", "missing", "uncertain"].map((t) => ({ value: t, label: CASE_TYPE_LABEL[t] }))]}
        />
        <Select label="Clause" value={filter.clause} onChange={(v) => set({ clause: v })} options={clauseOptions} />
        <Select
          label="Expected verdict"
          value={filter.gold}
          onChange={(v) => set({ gold: v })}
          options={[{ value: "", label: "Any" }, { value: "Reportable", label: "Reportable" }, { value: "Non-reportable", label: "Non-reportable" }, { value: "Uncertain", label: "Uncertain" }]}
        />
        <Select
          label="Outcome"
          value={filter.outcome}
          onChange={(v) => set({ outcome: v as GridFilter["outcome"] })}
          options={[
            { value: "", label: "Any" },
            { value: "correct", label: focusName ? "Correct" : "Every model correct" },
            { value: "incorrect", label: focusName ? "Incorrect" : "Some model incorrect" },
          ]}
        />
        <Select
          label="Questions"
          value={filter.asked}
          onChange={(v) => set({ asked: v as GridFilter["asked"] })}
          options={[
            { value: "", label: "Any" },
            { value: "yes", label: focusName ? "Asked" : "Some model asked" },
            { value: "no", label: focusName ? "Did not ask" : "No model asked" },
          ]}
        />
        <div className="filter-checks">
          <label className="check">
            <input type="checkbox" checked={filter.disagree} onChange={(e) => set({ disagree: e.target.checked })} />
            Models disagree
          </label>
          <label className="check">
            <input type="checkbox" checked={filter.noAnswer} onChange={(e) => set({ noAnswer: e.target.checked })} />
            No answer{focusName ? "" : " (any model)"}
          </label>
        </div>
        <div className="filter-clear">
          {isFiltered(filter) || filter.model !== null ? (
            <button className="btn btn-small" onClick={() => setQueries(filterToQuery(NO_FILTER, g.models))}>
              Clear filters
            </button>
          ) : null}
        </div>
      </div>
      <p className="small muted filter-note">
        {focusName ? `Outcome, questions and “no answer” look at ${focusName}; its column comes first and is outlined.` : "Choose a model to apply outcome, questions and “no answer” to that model alone."}
      </p>
      <div className="row between wrap grid-status">
        <p className="small" role="status" aria-live="polite">
          Showing <strong>{num(rows.length)}</strong> of {plural(g.rows, "case")}{rows.length > 0 ? " — select a cell to read its transcript." : "."}
        </p>
        <p className="small muted legend" aria-hidden>
          <span className="gc-v legend-rep">▲</span> Reportable <span className="gc-v legend-non">●</span> Non-reportable <span className="gc-v legend-unc">◆</span> Uncertain{" "}
          <span className="gc-v">–</span> no answer · ✓ correct ✗ incorrect · number = questions asked
        </p>
      </div>
      {rows.length === 0 ? (
        <div className="empty">
          <h3>No case matches these filters</h3>
          <button className="btn" onClick={() => setQueries(filterToQuery(NO_FILTER, g.models))}>
            Clear filters
          </button>
        </div>
      ) : (
        <GridBody g={g} rows={rows} base={base} focus={filter.model} sort={sort} clauseName={clauseName} resetKey={filterKey} />
      )}
    </div>
  );
}

/** The scrolling part: only the rows in view (plus a margin) are in the page. */
const GridBody = memo(function GridBody({ g, rows, base, focus, sort, clauseName, resetKey }: { g: Grid; rows: number[]; base: string; focus: number | null; sort: GridSort; clauseName: (id: string) => string; resetKey: string }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [range, setRange] = useState<[number, number]>([0, 40]);
  const measure = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const top = Math.max(0, el.scrollTop - HEAD_H);
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((top + el.clientHeight) / ROW_H) + OVERSCAN);
    setRange((r) => (r[0] === first && r[1] === last ? r : [first, last]));
  }, [rows.length]);
  useEffect(() => {
    measure();
  }, [measure]);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let frame = 0;
    const onScroll = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        measure();
      });
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => {
      el.removeEventListener("scroll", onScroll);
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [measure]);
  // A new filter starts at the top.
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [resetKey]);
  const [first, last] = range;
  // The chosen model's column comes first.
  const order = useMemo(() => (focus === null ? g.models.map((_, i) => i) : [focus, ...g.models.map((_, i) => i).filter((i) => i !== focus)]), [g.models, focus]);
  const cols = `var(--g-case) var(--g-type) var(--g-clause) var(--g-gold) var(--g-right) repeat(${g.models.length}, var(--g-model))`;
  return (
    <div className="g-scroll" ref={scroller} style={{ ["--g-cols" as string]: cols, height: Math.min(rows.length * ROW_H + HEAD_H + 18, 760) }}>
      <div className="g-table" role="table" aria-label="Verdicts by case and model" aria-rowcount={rows.length + 1} aria-colcount={5 + g.models.length}>
        <div className="g-row g-head" role="row" aria-rowindex={1}>
          <HeaderCell label="Case" k="case" sort={sort} className="g-case" />
          <HeaderCell label="Type" k="type" sort={sort} />
          <HeaderCell label="Clause" k="clause" sort={sort} />
          <HeaderCell label="Expected" k="gold" sort={sort} title="Sort by the expected (gold) verdict" />
          <HeaderCell label="Right" k="right" sort={sort} title="Sort by how many models were right (hardest cases first)" />
          {order.map((i) => (
            <HeaderCell key={g.models[i]} label={g.models[i]} k={`m${i}`} sort={sort} title={`${g.models[i]}: sort by outcome (correct first)`} className={`g-mh ${focus === i ? "g-focus" : ""}`} />
          ))}
        </div>
        <div style={{ height: first * ROW_H }} aria-hidden />
        {rows.slice(first, last).map((r) => (
          <GridRow key={r} g={g} r={r} base={base} focus={focus} order={order} clauseName={clauseName} />
        ))}
        <div style={{ height: Math.max(0, rows.length - last) * ROW_H }} aria-hidden />
      </div>
    </div>
  );
});
