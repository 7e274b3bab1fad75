// The paper's tables (rendered from the engine's generic Table model) and the five charts, each
// with its downloads.

import { memo, useMemo, useState } from "react";
import { api } from "../../api/client";
import { saveDownload } from "../../api/files";
import type { ChartView, Table } from "../../api/generated";
import { toast } from "../../components/Feedback";
import { bestCells, cellText } from "./metrics";

function useDownload() {
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (key: string, get: () => Promise<Parameters<typeof saveDownload>[0]>) => {
    setBusy(key);
    try {
      toast(await saveDownload(await get()));
    } catch (e) {
      toast(`The download failed: ${(e as Error).message}`, "error");
    } finally {
      setBusy(null);
    }
  };
  return { busy, run };
}

const TableView = memo(function TableView({ t, runIds }: { t: Table; runIds: string[] }) {
  const best = useMemo(() => bestCells(t), [t]);
  const dl = useDownload();
  const formats: [string, string][] = [
    ["csv", "CSV"],
    ["md", "Markdown"],
    ["tex", "LaTeX"],
  ];
  return (
    <section className="card paper-table" aria-labelledby={`t-${t.id}`}>
      <div className="card-head">
        <h2 id={`t-${t.id}`}>{t.title}</h2>
        <div className="row gap" role="group" aria-label={`Download ${t.title}`}>
          <span className="small muted">Download</span>
          {formats.map(([f, label]) => (
            <button
              key={f}
              className="btn btn-small"
              disabled={dl.busy !== null}
              aria-label={`${label}: download ${t.title}`}
              onClick={() => dl.run(f, () => api("results.table_file", { run_ids: runIds, table: t.id, format: f }))}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      <p className="small muted caption">{t.caption}</p>
      {/* Focusable so that a wide table can be scrolled with the keyboard. */}
      <div className="table-wrap" role="region" aria-label={`${t.title} (table)`} tabIndex={0}>
        <table className="data">
          <caption className="sr-only">{t.title}</caption>
          <thead>
            <tr>
              {t.columns.map((c, i) => (
                <th key={i} style={{ textAlign: c.align }} scope="col">
                  {c.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {t.rows.map((r, ri) => (
              <tr key={ri}>
                {r.map((cell, ci) => {
                  const isBest = best.has(`${ri}:${ci}`);
                  const align = t.columns[ci]?.align ?? "left";
                  return (
                    <td key={ci} style={{ textAlign: align }} className={`${isBest ? "best" : ""} ${align === "right" ? "num" : ""}`}>
                      {cellText(cell)}
                      {isBest && <span className="sr-only"> (best)</span>}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
});

export function TablesTab({ tables, runIds }: { tables: Table[]; runIds: string[] }) {
  return (
    <div className="stack">
      <p className="muted">The tables of the paper, computed from the chosen runs. Best values per column are in bold; “–” means not defined for these cases.</p>
      {tables.map((t) => (
        <TableView key={t.id} t={t} runIds={runIds} />
      ))}
    </div>
  );
}

const ChartFigure = memo(function ChartFigure({ c, runIds }: { c: ChartView; runIds: string[] }) {
  const dl = useDownload();
  // Shown as an image: the SVG comes from the engine and may carry imported model names.
  const src = useMemo(() => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(c.svg)}`, [c.svg]);
  return (
    <figure className="card chart-card" aria-labelledby={`c-${c.id}`}>
      <div className="card-head chart-head">
        {/* The chart draws its own title (it travels with the downloads); the heading is for
            screen readers and the page outline only, so the title is not shown twice. */}
        <h2 id={`c-${c.id}`} className="sr-only">
          {c.title}
        </h2>
        <div className="row gap" role="group" aria-label={`Download ${c.title}`}>
          <button className="btn btn-small" disabled={dl.busy !== null} aria-label={`PNG (2×): download ${c.title}`} onClick={() => dl.run("png", () => api("results.chart_file", { run_ids: runIds, chart: c.id, format: "png", scale: 2 }))}>
            PNG (2×)
          </button>
          <button className="btn btn-small" disabled={dl.busy !== null} aria-label={`SVG: download ${c.title}`} onClick={() => dl.run("svg", () => api("results.chart_file", { run_ids: runIds, chart: c.id, format: "svg" }))}>
            SVG
          </button>
        </div>
      </div>
      <div className="chart-img">
        <img src={src} alt={`${c.title}. ${c.caption}`} loading="lazy" decoding="async" />
      </div>
      {/* The chart draws its caption too, under the plot: here for screen readers only. */}
      <figcaption className="sr-only">{c.caption}</figcaption>
    </figure>
  );
});

export function ChartsTab({ charts, runIds }: { charts: ChartView[]; runIds: string[] }) {
  return (
    <div className="charts-grid">
      {charts.map((c) => (
        <ChartFigure key={c.id} c={c} runIds={runIds} />
      ))}
    </div>
  );
}
