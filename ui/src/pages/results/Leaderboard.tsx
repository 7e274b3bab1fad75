// Leaderboard: one row per model with M1–M8 (F1 cells explain precision, recall and counts on hover
// and focus; M1, M7 and M8 show their 95 % bootstrap interval), then paired tests between models.

import { memo, useMemo, useState } from "react";
import type { MetricsReport, ModelMetrics } from "../../api/generated";
import { Tip, useTip } from "../../components/Tooltip";
import { num } from "../../format";
import { Breakable } from "../../components/Breakable";
import { marksByModel, protocolsOf, RunMarkBadges, sharedProtocolText } from "./Comparability";
import { SimulationBadge } from "../../components/Badges";
import { ANSWERED, answeredCount, bestIndices, ciText, mcnemarVerdict, metricCi, metricPrf, METRICS, MetricKey, metricValue, prfText, pValueText, withoutTranscriptNote } from "./metrics";

type SortKey = "model" | "answered" | "tokens" | MetricKey;
type Sort = { key: SortKey; dir: "asc" | "desc" };

const answered = answeredCount;

function sortValue(m: ModelMetrics, key: SortKey): number | string | null {
  if (key === "model") return m.model;
  if (key === "answered") return m.cases > 0 ? answered(m) / m.cases : null;
  if (key === "tokens") return m.tokens.avg_completion_tokens;
  return metricValue(m, key);
}

export function sortModels(models: ModelMetrics[], sort: Sort): ModelMetrics[] {
  const f = sort.dir === "asc" ? 1 : -1;
  return [...models].sort((a, b) => {
    const x = sortValue(a, sort.key);
    const y = sortValue(b, sort.key);
    if (x === y) return a.model.localeCompare(b.model);
    if (x === null) return 1;
    if (y === null) return -1;
    if (typeof x === "number" && typeof y === "number") return (x - y) * f;
    return String(x).localeCompare(String(y), undefined, { numeric: true }) * f;
  });
}

function SortHeader({ label, sub, explain, k, sort, onSort, align = "right" }: { label: string; sub?: string; explain?: string; k: SortKey; sort: Sort; onSort: (k: SortKey) => void; align?: "left" | "right" }) {
  const { triggerProps, nodes } = useTip(explain ? <span><strong>{sub ?? label}.</strong> {explain}</span> : null, explain ? `${sub ?? label}: ${explain}` : undefined);
  const active = sort.key === k;
  return (
    <th scope="col" style={{ textAlign: align }} aria-sort={active ? (sort.dir === "asc" ? "ascending" : "descending") : "none"} className={`lb-th ${active ? "sorted" : ""}`}>
      <button className="th-sort" onClick={() => onSort(k)} {...(explain ? triggerProps : {})}>
        <span className="lb-head">
          <span className="lb-key">{label}</span>
          {sub && <span className="lb-sub">{sub}</span>}
        </span>
        <span aria-hidden className="sort-mark">
          {active ? (sort.dir === "asc" ? "▲" : "▼") : "↕"}
        </span>
      </button>
      {explain && nodes}
    </th>
  );
}

const MetricCell = memo(function MetricCell({ m, k, best }: { m: ModelMetrics; k: MetricKey; best: boolean }) {
  const v = metricValue(m, k);
  const prf = metricPrf(m, k);
  const ci = metricCi(m, k);
  const info = METRICS.find((x) => x.key === k)!;
  const shown = v === null ? "–" : v.toFixed(1);
  return (
    <td className={`num lb-cell ${best ? "best" : ""}`}>
      {v === null ? (
        <span className="muted" title="Not defined: no case in this metric's subset">
          –
        </span>
      ) : prf ? (
        <Tip tip={<span>{prfText(prf)}</span>} text={`${info.name} ${shown}: ${prfText(prf)}`}>
          {shown}
        </Tip>
      ) : (
        <span>{shown}</span>
      )}
      {best && <span className="sr-only"> (best)</span>}
      {k === "M4" && m.m4_unjudged > 0 && (
        <span className="ci unjudged" title="Correct answers with a rationale but no usable judge result count as 0 hits. Re-judge the run from the Evaluate page.">
          {num(m.m4_unjudged)} unjudged
        </span>
      )}
      {ci && (
        <span className="ci" title="95 % bootstrap confidence interval">
          <span className="sr-only">95 % interval </span>
          {ciText(ci)}
        </span>
      )}
    </td>
  );
});

export function Leaderboard({ report }: { report: MetricsReport }) {
  const [sort, setSort] = useState<Sort>({ key: "M1", dir: "desc" });
  const onSort = (k: SortKey) => setSort((s) => (s.key === k ? { key: k, dir: s.dir === "asc" ? "desc" : "asc" } : { key: k, dir: k === "model" ? "asc" : "desc" }));
  const rows = useMemo(() => sortModels(report.models, sort), [report.models, sort]);
  const best = useMemo(() => {
    const out: Record<string, Set<number>> = {};
    for (const info of METRICS) {
      const b = bestIndices(rows.map((m) => metricValue(m, info.key)));
      out[info.key] = rows.length > 1 ? b : new Set();
    }
    return out;
  }, [rows]);
  const hasConsistency = report.models.some((m) => m.consistency);
  const marks = useMemo(() => marksByModel(report.comparability), [report.comparability]);
  const someRecorded = (report.comparability?.marks ?? []).some((m) => !m.unrecorded);
  // Each row names its run's protocol when the runs shown do not all follow the same one.
  const mixedProtocols = protocolsOf(report.comparability).size > 1;
  const sharedProtocol = sharedProtocolText(report.comparability);
  const refused = report.refused_pairs ?? [];
  return (
    <div className="stack">
      <div className="table-wrap leaderboard-wrap">
        <table className="data leaderboard">
          <caption className="sr-only">Leaderboard: one row per model, metrics M1 to M8 in percent; sort with the column buttons</caption>
          <thead>
            <tr>
              <SortHeader label="Model" k="model" sort={sort} onSort={onSort} align="left" />
              {METRICS.map((m) => (
                <SortHeader key={m.key} label={m.key} sub={m.name} explain={m.explain} k={m.key} sort={sort} onSort={onSort} />
              ))}
              <SortHeader label={ANSWERED.label} sub={ANSWERED.sub} explain={ANSWERED.explain} k="answered" sort={sort} onSort={onSort} />
              <SortHeader label="Tokens" sub="out per case" explain="Average number of tokens the model under test wrote per case, over all its turns." k="tokens" sort={sort} onSort={onSort} />
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.model}>
                <th scope="row" className="lb-model">
                  <Breakable text={m.model} />
                  {report.simulations?.includes(m.model) && <SimulationBadge />}
                  <RunMarkBadges mark={marks.get(m.model)} showProtocol={mixedProtocols} showUnrecorded={someRecorded} />
                </th>
                {METRICS.map((info) => (
                  <MetricCell key={info.key} m={m} k={info.key} best={best[info.key].has(rows.indexOf(m))} />
                ))}
                <td className="num">
                  {num(answered(m))} <span className="muted">/ {num(m.cases)}</span>
                  {withoutTranscriptNote(m) && <span className="ci">{withoutTranscriptNote(m)}</span>}
                </td>
                <td className="num">{m.tokens.avg_completion_tokens === null ? "–" : num(m.tokens.avg_completion_tokens)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="small muted">
        All metrics are percentages; the best value of each column is in bold. Point at or tab to an F1 value for its precision, recall and counts
        (TP, FP, FN). Intervals under M1, M7 and M8 are 95 % bootstrap intervals over cases.
        {sharedProtocol && ` ${sharedProtocol}`}
      </p>
      {(report.paired_tests.length > 0 || refused.length > 0) && <PairedTests report={report} />}
      {hasConsistency && <ConsistencyTable report={report} />}
    </div>
  );
}

function PairedTests({ report }: { report: MetricsReport }) {
  // With many models there are many pairs (15 models: 105); show one model's pairs by default.
  const many = report.models.length > 4;
  const top = [...report.models].sort((a, b) => (b.M1 ?? -1) - (a.M1 ?? -1))[0]?.model ?? "";
  const [focus, setFocus] = useState(many ? top : "");
  const tests = focus ? report.paired_tests.filter((t) => t.model_a === focus || t.model_b === focus) : report.paired_tests;
  const refused = (report.refused_pairs ?? []).filter((p) => !focus || p.model_a === focus || p.model_b === focus);
  return (
    <section className="card">
      <div className="card-head">
        <h2>Do the models really differ?</h2>
      </div>
      <p className="muted small section-note">
        Paired McNemar tests on verdict correctness: for each pair of models, the cases both evaluated, how often only one of them was right, and the
        exact two-sided p-value. A small p (below 0.05) means the difference in M1 is unlikely to be chance.
      </p>
      {many && (
        <div className="pairs-filter">
          <label htmlFor="pairs-focus">Pairs with</label>
          <select id="pairs-focus" value={focus} onChange={(e) => setFocus(e.target.value)}>
            {report.models.map((m) => (
              <option key={m.model} value={m.model}>
                {m.model}
                {m.model === top ? " (highest M1)" : ""}
              </option>
            ))}
            <option value="">every pair ({report.paired_tests.length})</option>
          </select>
        </div>
      )}
      {tests.length > 0 && (
        <div className="table-wrap pairs-wrap">
          <table className="data">
            <caption className="sr-only">Paired McNemar tests between models</caption>
            <thead>
              <tr>
                <th>Model A</th>
                <th>Model B</th>
                <th className="num">Shared cases</th>
                <th className="num">Only A right</th>
                <th className="num">Only B right</th>
                <th className="num">p (exact)</th>
                <th>Reading</th>
              </tr>
            </thead>
            <tbody>
              {tests.map((t) => (
                <tr key={`${t.model_a}|${t.model_b}`}>
                  <td>{t.model_a}</td>
                  <td>{t.model_b}</td>
                  <td className="num">{num(t.shared_cases)}</td>
                  <td className="num">{num(t.a_only)}</td>
                  <td className="num">{num(t.b_only)}</td>
                  <td className={`num ${t.p_value < 0.05 ? "best" : ""}`}>{pValueText(t.p_value)}</td>
                  <td className="small">{mcnemarVerdict(t)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {refused.length > 0 && (
        <div className="refused-pairs">
          <h3>Pairs not tested</h3>
          <ul>
            {refused.map((p) => (
              <li key={`${p.model_a}|${p.model_b}`}>
                <strong>
                  {p.model_a} and {p.model_b}:
                </strong>{" "}
                {p.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function ConsistencyTable({ report }: { report: MetricsReport }) {
  return (
    <section className="card">
      <div className="card-head">
        <h2>Consistency over repeats</h2>
      </div>
      <p className="muted small section-note">Runs with repeats evaluate every case several times. pass^k is the share of cases given the right verdict every time.</p>
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr>
              <th>Model</th>
              <th className="num">Repeats (k)</th>
              <th className="num">Cases with all repeats</th>
              <th className="num">Same verdict every time</th>
              <th className="num">pass^k</th>
            </tr>
          </thead>
          <tbody>
            {report.models
              .filter((m) => m.consistency)
              .map((m) => (
                <tr key={m.model}>
                  <td>{m.model}</td>
                  <td className="num">{m.consistency!.repeats}</td>
                  <td className="num">{num(m.consistency!.cases)}</td>
                  <td className="num">{m.consistency!.same_verdict_pct === null ? "–" : m.consistency!.same_verdict_pct.toFixed(1)}</td>
                  <td className="num">{m.consistency!.pass_all_k_pct === null ? "–" : m.consistency!.pass_all_k_pct.toFixed(1)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
