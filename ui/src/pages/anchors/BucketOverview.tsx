// The topical buckets (one per clause of the policy) at a glance: how many anchors each holds (built-in samples and imported),
// against the number a card would like to draw; clicking a bucket filters the list below.

import { useEffect, useRef } from "react";
import type { BucketRow } from "./logic";
import { barScale, bucketSummary } from "./logic";

// A bucket's button is named by what it shows (so that a speech user can say the visible words),
// in reading order, with the counts spelled out in words only a screen reader reads.
function Flag({ row, target }: { row: BucketRow; target: number }) {
  if (row.clauseId === null) return <span className="bucket-flag flag-few">never used</span>;
  if (row.state === "empty")
    return (
      <span className="bucket-flag flag-empty">
        <span aria-hidden>✕ </span>none
      </span>
    );
  if (row.state === "few")
    return (
      <span className="bucket-flag flag-few" title={`Fewer than ${target} anchors: cards of this clause use all ${row.total}`}>
        <span aria-hidden>⚠ </span>under {target}
      </span>
    );
  return (
    <span className="bucket-flag flag-ok">
      <span aria-hidden>✓ </span>
      {target}+
    </span>
  );
}

export function BucketOverview({
  rows,
  unsorted,
  target,
  active,
  onPick,
}: {
  rows: BucketRow[];
  unsorted: BucketRow | null;
  target: number;
  active: string;
  onPick: (bucket: string) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  // Keep the chosen bucket in view inside the list (without scrolling the page).
  useEffect(() => {
    const ul = list.current;
    const el = ul?.querySelector<HTMLElement>("button.active");
    if (!ul || !el) return;
    const top = el.offsetTop - ul.offsetTop;
    if (top < ul.scrollTop || top + el.offsetHeight > ul.scrollTop + ul.clientHeight) ul.scrollTop = Math.max(0, top - ul.clientHeight / 3);
  }, [active]);
  const scale = barScale(unsorted ? [...rows, unsorted] : rows, target);
  const all = unsorted ? [...rows, unsorted] : rows;
  return (
    <>
      <p className="small">{bucketSummary(rows, target)}</p>
      <div className="bucket-legend small muted" aria-hidden>
        <span>
          <span className="swatch seg-builtin" /> built-in samples
        </span>
        <span>
          <span className="swatch seg-imported" /> imported
        </span>
        <span>
          <span className="swatch swatch-target" /> {target} per card
        </span>
      </div>
      <ul className="bucket-grid" ref={list}>
        {all.map((r) => {
          const key = r.clauseId ?? "unsorted";
          const on = active === key;
          return (
            <li key={key}>
              <button
                type="button"
                className={`bucket-row state-${r.clauseId === null ? "unsorted" : r.state} ${on ? "active" : ""}`}
                aria-pressed={on}
                title={r.no === null ? "Anchors not sorted yet" : `${r.no}. ${r.title} — ${r.label}`}
                onClick={() => onPick(on ? "" : key)}
              >
                <span className="bucket-no">{r.no === null ? <span aria-hidden>–</span> : `${r.no}.`}</span>
                <span className="bucket-name">
                  <span className="bucket-title">{r.title}</span>
                  {r.label && <span className="muted bucket-label">{r.label}</span>}
                </span>
                <span className="sr-only">: </span>
                <span className="bucket-bar" aria-hidden>
                  <span className="seg seg-builtin" style={{ width: `${(100 * r.builtin) / scale}%` }} />
                  <span className="seg seg-imported" style={{ width: `${(100 * r.imported) / scale}%` }} />
                  {r.clauseId !== null && <span className="bucket-target" style={{ left: `${(100 * target) / scale}%` }} />}
                </span>
                <span className="bucket-count">
                  {r.total}
                  <span className="sr-only">{` ${r.total === 1 ? "anchor" : "anchors"} (${r.builtin} built-in, ${r.imported} imported), `}</span>
                </span>
                <Flag row={r} target={target} />
              </button>
            </li>
          );
        })}
      </ul>
    </>
  );
}
