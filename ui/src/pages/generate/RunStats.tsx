// A run's statistics like the paper's dataset appendix: survival per case type, the attempt on
// which each stage passed, where dropped candidates stopped, narrative length, case counts.

import { useState } from "react";
import { useThrottled } from "../anchors/hooks";
import { useApi } from "../../api/client";
import type { CaseCountRow, GenerationStats } from "../../api/generated";
import { ErrorBanner, Loading } from "../../components/Feedback";
import { Section } from "../../components/Layout";
import { CASE_TYPE_LABEL, num, pct } from "../../format";
import type { ClauseIndex } from "../anchors/clauses";
import { attemptSegments, STAGE_LABEL, STAGE_LONG } from "./logic";

const ORDINAL = ["1st", "2nd", "3rd"];

export function AttemptBar({ stage, attempts, cases }: { stage: string; attempts: number[]; cases: number }) {
  const segs = attemptSegments(attempts, cases);
  const text = segs.map((s) => `${ORDINAL[s.attempt - 1]} attempt: ${s.count} (${pct(s.pct)}%)`).join(", ");
  return (
    <div className="attempt-row" data-testid={`attempts-${stage}`}>
      <div className="attempt-stage">
        <strong>{STAGE_LABEL[stage] ?? stage}</strong>
        <span className="muted small"> · {num(cases)} accepted</span>
      </div>
      {cases === 0 ? (
        <div className="muted small">No accepted case went through this stage.</div>
      ) : (
        <>
          <div className="attempt-bar" role="img" aria-label={`${STAGE_LABEL[stage] ?? stage}: ${text}`}>
            {segs.map((s) =>
              s.count > 0 ? (
                <span key={s.attempt} className={`attempt-seg att-${s.attempt}`} style={{ width: `${s.pct}%` }} title={`${ORDINAL[s.attempt - 1]} attempt: ${s.count}`}>
                  {s.pct >= 12 ? `${ORDINAL[s.attempt - 1]}` : ""}
                </span>
              ) : null,
            )}
          </div>
          <div className="attempt-labels small" aria-hidden>
            {segs.map((s) => (
              <span key={s.attempt}>
                <span className={`swatch att-${s.attempt}`} /> {ORDINAL[s.attempt - 1]}: {num(s.count)} ({pct(s.pct)}%)
              </span>
            ))}
          </div>
        </>
      )}
    </div>
  );
}

function CountTable({ rows, firstHeader, caption, clauses }: { rows: CaseCountRow[]; firstHeader: string; caption: string; clauses?: ClauseIndex }) {
  const byLabel = new Map((clauses?.list ?? []).map((c) => [c.label, c]));
  const total = rows.reduce(
    (t, r) => ({ complete: t.complete + r.complete, missing: t.missing + r.missing, uncertain: t.uncertain + r.uncertain, total: t.total + r.total }),
    { complete: 0, missing: 0, uncertain: 0, total: 0 },
  );
  return (
    <table className="data compact">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          {rows.some((r) => r.global_no !== null) && <th style={{ textAlign: "right", width: "3rem" }}>#</th>}
          <th>{firstHeader}</th>
          <th style={{ textAlign: "right" }}>Complete</th>
          <th style={{ textAlign: "right" }}>Missing information</th>
          <th style={{ textAlign: "right" }}>Uncertain</th>
          <th style={{ textAlign: "right" }}>Total</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            {rows.some((x) => x.global_no !== null) && <td style={{ textAlign: "right" }}>{r.global_no ?? ""}</td>}
            <td>
              {byLabel.get(r.key) ? (
                <>
                  {byLabel.get(r.key)!.short_title} <span className="muted small">{r.key}</span>
                </>
              ) : (
                r.key
              )}
            </td>
            <td style={{ textAlign: "right" }}>{num(r.complete)}</td>
            <td style={{ textAlign: "right" }}>{num(r.missing)}</td>
            <td style={{ textAlign: "right" }}>{num(r.uncertain)}</td>
            <td style={{ textAlign: "right" }}>
              <strong>{num(r.total)}</strong>
            </td>
          </tr>
        ))}
        <tr className="total-row">
          {rows.some((r) => r.global_no !== null) && <td />}
          <td>Total</td>
          <td style={{ textAlign: "right" }}>{num(total.complete)}</td>
          <td style={{ textAlign: "right" }}>{num(total.missing)}</td>
          <td style={{ textAlign: "right" }}>{num(total.uncertain)}</td>
          <td style={{ textAlign: "right" }}>{num(total.total)}</td>
        </tr>
      </tbody>
    </table>
  );
}

function Stats({ s, clauses }: { s: GenerationStats; clauses: ClauseIndex | undefined }) {
  const [allClauses, setAllClauses] = useState(false);
  const clauseRows = allClauses ? s.by_clause : s.by_clause.filter((r) => r.total > 0);
  const dropTotal = s.drops_by_stage.reduce((a, d) => a + d.candidates, 0);
  return (
    <div className="stack" data-testid="run-stats">
      <Section title="How many candidates survived the checks?">
        <table className="data compact" data-testid="success">
          <caption className="sr-only">Success rate per case type</caption>
          <thead>
            <tr>
              <th>Case type</th>
              <th style={{ textAlign: "right" }}>Started</th>
              <th style={{ textAlign: "right" }}>Accepted</th>
              <th style={{ textAlign: "right" }}>Dropped</th>
              <th style={{ textAlign: "right" }}>Success rate</th>
              <th style={{ width: "28%" }}>
                <span className="sr-only">Bar</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {s.success.map((r) => (
              <tr key={r.case_type}>
                <td>{CASE_TYPE_LABEL[r.case_type] ?? r.case_type}</td>
                <td style={{ textAlign: "right" }}>{num(r.initiated)}</td>
                <td style={{ textAlign: "right" }}>{num(r.accepted)}</td>
                <td style={{ textAlign: "right" }}>{num(r.dropped)}</td>
                <td style={{ textAlign: "right" }}>{r.success_pct === null ? "–" : `${pct(r.success_pct)}%`}</td>
                <td aria-hidden>
                  {r.success_pct !== null && (
                    <span className="mini-bar">
                      <span style={{ width: `${r.success_pct}%` }} />
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted small">Started = accepted + dropped. Missing-information variants never started because their complete case was dropped are not counted.</p>
        {dropTotal > 0 && (
          <div className="small" data-testid="drops">
            <strong>Where candidates stopped:</strong>{" "}
            {s.drops_by_stage.map((d, i) => (
              <span key={d.stage}>
                {i > 0 ? "; " : ""}
                {STAGE_LABEL[d.stage] ?? d.stage} ({STAGE_LONG[d.stage] ?? d.stage}): {num(d.candidates)}
              </span>
            ))}
            .
          </div>
        )}
      </Section>

      <Section title="On which attempt did each stage pass?">
        <div className="attempt-legend small muted" aria-hidden>
          <span>
            <span className="swatch att-1" /> 1st attempt
          </span>
          <span>
            <span className="swatch att-2" /> 2nd attempt (after feedback)
          </span>
          <span>
            <span className="swatch att-3" /> 3rd and last attempt
          </span>
        </div>
        {s.winning_attempts.map((w) => (
          <AttemptBar key={w.stage} stage={w.stage} attempts={w.attempts} cases={w.cases} />
        ))}
        <p className="muted small">Among accepted cases; each bar adds up to 100% of the cases that went through the stage.</p>
      </Section>

      <Section title="How long are the narratives? (words)">
          <table className="data compact" data-testid="lengths">
            <thead>
              <tr>
                <th>Case type</th>
                {["n", "Mean", "Median", "Min", "25%", "75%", "95%", "Max"].map((h) => (
                  <th key={h} style={{ textAlign: "right" }}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {s.narrative_length.map((r) => (
                <tr key={r.case_type}>
                  <td>{CASE_TYPE_LABEL[r.case_type] ?? r.case_type}</td>
                  <td style={{ textAlign: "right" }}>{num(r.n)}</td>
                  {[r.mean, r.median, r.min, r.p25, r.p75, r.p95, r.max].map((v, i) => (
                    <td key={i} style={{ textAlign: "right" }}>
                      {num(v, 1)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </Section>

      <Section title="Accepted cases by category and type">
        <CountTable rows={s.by_category} firstHeader="Category" caption="Cases by category and case type" />
      </Section>
      <Section
        title="Accepted cases by clause and type"
        actions={
          <label className="row gap small">
            <input type="checkbox" checked={allClauses} onChange={(e) => setAllClauses(e.target.checked)} /> Show clauses without cases
          </label>
        }
      >
        {clauseRows.length === 0 ? <p className="muted">No case has been accepted yet.</p> : <CountTable rows={clauseRows} firstHeader="Clause" caption="Cases by clause and case type" clauses={clauses} />}
      </Section>
    </div>
  );
}

export function RunStats({ runId, tick, clauses }: { runId: string; tick: number; clauses: ClauseIndex | undefined }) {
  const stats = useApi("generation.stats", { run_id: runId });
  const { reload } = stats;
  useThrottled(tick, reload);
  if (stats.error) return <ErrorBanner error={stats.error} title="The statistics could not be computed." />;
  if (!stats.data) return <Loading />;
  return <Stats s={stats.data} clauses={clauses} />;
}
