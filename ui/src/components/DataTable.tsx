// A dense, calm table: sortable columns, sticky header, row hover, keyboard-openable rows, and
// virtualised rendering so thousands of rows stay fast.

import { ReactNode, useEffect, useMemo, useRef, useState } from "react";

export type Column<T> = {
  key: string;
  header: ReactNode;
  /** Plain-text header for screen readers and sort buttons when `header` is not a string. */
  label?: string;
  align?: "left" | "right" | "center";
  width?: string;
  render: (row: T) => ReactNode;
  /** Value to sort by; omit to make the column unsortable. */
  sort?: (row: T) => string | number | null | undefined;
};

export type SortState = { key: string; dir: "asc" | "desc" } | null;

export function sortRows<T>(rows: T[], columns: Column<T>[], sort: SortState): T[] {
  if (!sort) return rows;
  const col = columns.find((c) => c.key === sort.key);
  if (!col?.sort) return rows;
  const get = col.sort;
  const factor = sort.dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = get(a);
    const y = get(b);
    if (x === y) return 0;
    if (x === null || x === undefined) return 1; // nulls last either way
    if (y === null || y === undefined) return -1;
    if (typeof x === "number" && typeof y === "number") return (x - y) * factor;
    return String(x).localeCompare(String(y), undefined, { numeric: true }) * factor;
  });
}

/** The rows to render for a scroll position: [first, last) with some overscan. */
export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 8): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return [first, last];
}

/** The nearest ancestor that scrolls vertically, or null for the document. */
function scrollParent(el: HTMLElement): HTMLElement | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const y = getComputedStyle(p).overflowY;
    if (y === "auto" || y === "scroll") return p;
  }
  return null;
}

export function DataTable<T>({
  rows,
  columns,
  rowKey,
  onOpen,
  initialSort = null,
  rowHeight = 38,
  maxHeight = 560,
  caption,
  empty,
  selectedKey,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  onOpen?: (row: T) => void;
  initialSort?: SortState;
  rowHeight?: number;
  /** Height of the table's own scroll box, or "page": the table grows with the page (which scrolls it) and keeps its header in view. */
  maxHeight?: number | "page";
  caption?: string;
  empty?: ReactNode;
  selectedKey?: string | null;
}) {
  const [sort, setSort] = useState<SortState>(initialSort);
  const sorted = useMemo(() => sortRows(rows, columns, sort), [rows, columns, sort]);
  const scroller = useRef<HTMLDivElement>(null);
  const grow = maxHeight === "page";
  const fallback = grow ? 800 : maxHeight;
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(fallback);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (grow) {
      // The page scrolls the table: follow the nearest scrolling ancestor (the app's main area).
      const page = scrollParent(el);
      const measure = () => {
        const top = page ? page.getBoundingClientRect().top : 0;
        setScrollTop(Math.max(0, top - el.getBoundingClientRect().top));
        setViewport(page ? page.clientHeight : window.innerHeight);
      };
      measure();
      const target: HTMLElement | Window = page ?? window;
      target.addEventListener("scroll", measure, { passive: true });
      const ro = new ResizeObserver(measure);
      ro.observe(el);
      return () => {
        target.removeEventListener("scroll", measure);
        ro.disconnect();
      };
    }
    const ro = new ResizeObserver(() => setViewport(el.clientHeight || fallback));
    ro.observe(el);
    return () => ro.disconnect();
  }, [grow, fallback]);
  const virtual = sorted.length > 200;
  const [first, last] = virtual ? visibleRange(scrollTop, viewport, rowHeight, sorted.length) : [0, sorted.length];
  const toggle = (key: string) =>
    setSort((s) => (s?.key === key ? (s.dir === "asc" ? { key, dir: "desc" } : null) : { key, dir: "asc" }));

  if (rows.length === 0 && empty) return <>{empty}</>;
  return (
    <div
      className={`table-wrap ${grow ? "table-grow" : ""}`}
      ref={scroller}
      style={grow ? undefined : { maxHeight }}
      onScroll={grow ? undefined : (e) => setScrollTop((e.target as HTMLDivElement).scrollTop)}
    >
      <table className="data">
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => {
              const active = sort?.key === c.key;
              return (
                <th
                  key={c.key}
                  style={{ width: c.width, textAlign: c.align ?? "left" }}
                  aria-sort={active ? (sort.dir === "asc" ? "ascending" : "descending") : c.sort ? "none" : undefined}
                >
                  {c.sort ? (
                    <button className="th-sort" onClick={() => toggle(c.key)}>
                      {c.header}
                      <span aria-hidden className="sort-mark">
                        {active ? (sort.dir === "asc" ? "▲" : "▼") : "↕"}
                      </span>
                    </button>
                  ) : (
                    c.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {virtual && first > 0 && <tr style={{ height: first * rowHeight }} aria-hidden />}
          {sorted.slice(first, last).map((r) => {
            const k = rowKey(r);
            return (
              <tr
                key={k}
                style={virtual ? { height: rowHeight } : undefined}
                className={`${onOpen ? "clickable" : ""} ${selectedKey === k ? "selected" : ""}`}
                tabIndex={onOpen ? 0 : undefined}
                onClick={onOpen ? () => onOpen(r) : undefined}
                onKeyDown={
                  onOpen
                    ? (e) => {
                        if (e.key === "Enter") onOpen(r);
                      }
                    : undefined
                }
              >
                {columns.map((c) => (
                  <td key={c.key} style={{ textAlign: c.align ?? "left" }}>
                    {c.render(r)}
                  </td>
                ))}
              </tr>
            );
          })}
          {virtual && last < sorted.length && <tr style={{ height: (sorted.length - last) * rowHeight }} aria-hidden />}
        </tbody>
      </table>
    </div>
  );
}
