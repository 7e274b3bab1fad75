// A session's results: ratings per case type, agreement with the by-construction verdict (the
// paper's "28/30"), agreement between reviewers with a reading guide, and the rating
// distributions as stacked bars.

import { useRef } from "react";
import { useApi } from "../../api/client";
import { saveDownload } from "../../api/files";
import type { Fraction, JudgeAgreement, PairStat, RationaleStats, ReviewStats, StatValue, TypeStats } from "../../api/generated";
import { EmptyState, ErrorBanner, Loading, toast } from "../../components/Feedback";
import { Section, Stat } from "../../components/Layout";
import { CASE_TYPE_LABEL, num, plural, when } from "../../format";
import { ALPHA_GUIDE, alphaReading, Distribution, KAPPA_GUIDE, kappaReading, meanSdText, ratingDistributions, statText } from "./logic";

const TYPE_LABEL: Record<string, string> = { ...CASE_TYPE_LABEL, all: "All cases" };

function Frac({ f, unit }: { f: Fraction; unit: string }) {
  if (f.n === 0) return <span className="muted">–</span>;
  return (
    <span title={`${f.agreed} of ${f.n} ${unit}`}>
      <strong>{f.text}</strong>
    </span>
  );
}

function StatCell({ s, kind }: { s: StatValue; kind: "kappa" | "alpha" }) {
  if (s.value === null || s.value === undefined) {
    return (
      <div className="rev-stat-cell" style={{ alignItems: "flex-start" }}>
        <span className="muted">– not available</span>
        {s.note && <span className="rev-reading">{s.note}</span>}
      </div>
    );
  }
  const reading = kind === "kappa" ? kappaReading(s.value) : alphaReading(s.value);
  return (
    <div className="rev-stat-cell" style={{ alignItems: "flex-start" }}>
      <span className="rev-stat-value">
        {statText(s)} <span className="rev-reading">({reading})</span>
      </span>
      {s.note && <span className="rev-reading">{s.note}</span>}
    </div>
  );
}

function PairsNote({ pairs }: { pairs: PairStat[] }) {
  if (pairs.length <= 1) return null;
  return (
    <details className="small">
      <summary>Per pair of reviewers ({pairs.length})</summary>
      <ul className="plain-list">
        {pairs.map((p) => (
          <li key={`${p.a}-${p.b}`}>
            {p.a} and {p.b}: {statText(p.stat)} {p.stat.value !== null ? `(${kappaReading(p.stat.value)})` : p.stat.note ? `— ${p.stat.note}` : ""}, n = {p.stat.n}
          </li>
        ))}
      </ul>
    </details>
  );
}

// Colour-blind-safe diverging palette (ColorBrewer PuOr, 5 classes): 1 orange … 5 purple.
const SCALE_COLORS = ["#e66101", "#fdb863", "#d9d9d9", "#b2abd2", "#5e3c99"];
const SCALE_TEXT = ["#ffffff", "#1c2330", "#1c2330", "#1c2330", "#ffffff"];

export function RatingChart({ dists }: { dists: Distribution[] }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const rows: { label: string; counts: number[] }[] = [];
  for (const d of dists) {
    rows.push({ label: `${TYPE_LABEL[d.caseType] ?? d.caseType} · realism`, counts: d.realism });
    rows.push({ label: `${TYPE_LABEL[d.caseType] ?? d.caseType} · plausibility`, counts: d.plausibility });
  }
  const W = 760;
  const left = 250;
  const right = 60;
  const rowH = 26;
  const gap = 10;
  const top = 10;
  const H = top + rows.length * (rowH + gap) + 26;
  const plotW = W - left - right;
  const title = "How reviewers rated each case type (share of ratings at each point, 1–5)";
  return (
    <figure className="chart rev-chart">
      <svg ref={svgRef} viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="rev-chart-title rev-chart-desc" xmlns="http://www.w3.org/2000/svg">
        <title id="rev-chart-title">{title}</title>
        <desc id="rev-chart-desc">
          {rows.map((r) => `${r.label}: ${r.counts.map((c, i) => `${c} rated ${i + 1}`).join(", ")}`).join(". ")}
        </desc>
        {rows.map((r, i) => {
          const total = r.counts.reduce((a, b) => a + b, 0);
          const y = top + i * (rowH + gap);
          let x = left;
          return (
            <g key={r.label}>
              <text x={left - 10} y={y + rowH / 2 + 4} textAnchor="end" fontSize="13">
                {r.label}
              </text>
              {total === 0 ? (
                <text x={left} y={y + rowH / 2 + 4} fontSize="12" className="axis">
                  no ratings yet
                </text>
              ) : (
                r.counts.map((c, k) => {
                  const w = (c / total) * plotW;
                  const seg = (
                    <g key={k}>
                      <rect x={x} y={y} width={w} height={rowH} fill={SCALE_COLORS[k]} style={{ stroke: "var(--surface, #ffffff)" }} strokeWidth={c > 0 ? 1 : 0}>
                        <title>{`${c} of ${total} rated ${k + 1}`}</title>
                      </rect>
                      {w >= 22 && (
                        <text x={x + w / 2} y={y + rowH / 2 + 4} textAnchor="middle" fontSize="12" style={{ fill: SCALE_TEXT[k] }}>
                          {c}
                        </text>
                      )}
                    </g>
                  );
                  x += w;
                  return seg;
                })
              )}
              {total > 0 && (
                <text x={W - right + 8} y={y + rowH / 2 + 4} fontSize="12" className="axis">
                  n = {total}
                </text>
              )}
            </g>
          );
        })}
        {[0, 25, 50, 75, 100].map((p) => (
          <text key={p} x={left + (p / 100) * plotW} y={H - 6} fontSize="11" textAnchor="middle" className="axis">
            {p}%
          </text>
        ))}
      </svg>
      <figcaption className="stack">
        <div className="rev-legend" aria-label="Rating colours">
          {SCALE_COLORS.map((c, i) => (
            <span key={c}>
              <span className="rev-swatch" style={{ background: c }} aria-hidden />
              {i + 1}
              {i === 0 ? " (lowest)" : i === 4 ? " (highest)" : ""}
            </span>
          ))}
          <button
            className="btn btn-small"
            onClick={async () => {
              const el = svgRef.current;
              if (!el) return;
              const clone = el.cloneNode(true) as SVGSVGElement;
              clone.querySelectorAll("text").forEach((t) => {
                t.setAttribute("fill", t.classList.contains("axis") ? "#5b6576" : (t.style.fill || "#1c2330"));
                t.setAttribute("font-family", "sans-serif");
              });
              const text = new XMLSerializer().serializeToString(clone);
              const bytes = new TextEncoder().encode(text);
              let s = "";
              for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
              toast(await saveDownload({ file_name: "review-ratings.svg", mime: "image/svg+xml", base64: btoa(s), description: "Rating distributions" }));
            }}
          >
            Download SVG
          </button>
        </div>
        <span className="muted small">
          Each bar is one case type and one scale; segments show how many ratings fell on each point, numbers inside are counts. Longer purple means rated
          higher.
        </span>
      </figcaption>
    </figure>
  );
}

function TypeTable({ stats }: { stats: ReviewStats }) {
  return (
    <div className="table-wrap">
      <table className="data">
        <caption className="sr-only">Ratings and agreement with the by-construction verdict, per case type</caption>
        <thead>
          <tr>
            <th>Case type</th>
            <th style={{ textAlign: "right" }}>Cases</th>
            <th style={{ textAlign: "right" }}>Realism, mean ± SD</th>
            <th style={{ textAlign: "right" }}>Plausibility, mean ± SD</th>
            <th style={{ textAlign: "right" }}>Own verdict = by construction</th>
            <th style={{ textAlign: "right" }}>Marked “agree”</th>
          </tr>
        </thead>
        <tbody>
          {stats.by_type.map((t: TypeStats) => (
            <tr key={t.case_type} style={t.case_type === "all" ? { fontWeight: 600 } : undefined}>
              <td>{TYPE_LABEL[t.case_type] ?? t.case_type}</td>
              <td style={{ textAlign: "right" }}>{num(t.cases)}</td>
              <td style={{ textAlign: "right" }} className="rev-nowrap">
                {meanSdText(t.realism)} <span className="muted small">n = {t.realism.n}</span>
              </td>
              <td style={{ textAlign: "right" }} className="rev-nowrap">
                {meanSdText(t.plausibility)} <span className="muted small">n = {t.plausibility.n}</span>
              </td>
              <td style={{ textAlign: "right" }}>
                <Frac f={t.cases_blind_agreement} unit="cases" /> <span className="muted small">cases</span>
                <div className="muted small">
                  {t.blind_agreement.n ? `${t.blind_agreement.text} answers` : ""}
                </div>
              </td>
              <td style={{ textAlign: "right" }}>
                <Frac f={t.cases_agree_mark} unit="cases" /> <span className="muted small">cases</span>
                <div className="muted small">{t.agree_mark.n ? `${t.agree_mark.text} answers` : ""}</div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One statistic in a compact cell: value and n, the reason in a tooltip when undefined. */
function CompactStat({ s }: { s: StatValue }) {
  if (s.value === null || s.value === undefined) {
    return (
      <span className="muted" title={s.note ?? undefined}>
        – <span className="small">n = {s.n}</span>
      </span>
    );
  }
  return (
    <span>
      {statText(s)} <span className="muted small">n = {s.n}</span>
    </span>
  );
}

/** Agreement between reviewers over the cases of each type on its own. */
export function InterRaterByTypeTable({ stats }: { stats: ReviewStats }) {
  if (!stats.inter_rater_by_type.length) return null;
  return (
    <div className="table-wrap">
      <table className="data" data-testid="inter-rater-by-type">
        <caption className="sr-only">Reviewers' agreement with each other, by case type</caption>
        <thead>
          <tr>
            <th>Case type</th>
            <th style={{ textAlign: "right" }}>Cases</th>
            <th style={{ textAlign: "right" }}>Realism, alpha</th>
            <th style={{ textAlign: "right" }}>Plausibility, alpha</th>
            <th style={{ textAlign: "right" }}>Own verdict, Fleiss&apos; kappa</th>
            <th style={{ textAlign: "right" }}>Own verdict, alpha</th>
          </tr>
        </thead>
        <tbody>
          {stats.inter_rater_by_type.map((t) => (
            <tr key={t.case_type}>
              <td>{TYPE_LABEL[t.case_type] ?? t.case_type}</td>
              <td style={{ textAlign: "right" }}>{num(t.cases)}</td>
              <td style={{ textAlign: "right" }}>
                <CompactStat s={t.inter_rater.realism.krippendorff_alpha_ordinal} />
              </td>
              <td style={{ textAlign: "right" }}>
                <CompactStat s={t.inter_rater.plausibility.krippendorff_alpha_ordinal} />
              </td>
              <td style={{ textAlign: "right" }}>
                <CompactStat s={t.inter_rater.verdict.fleiss_kappa} />
              </td>
              <td style={{ textAlign: "right" }}>
                <CompactStat s={t.inter_rater.verdict.krippendorff_alpha_nominal} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const share = (x: number | null | undefined) => (x === null || x === undefined ? "–" : x.toFixed(2));

/** The M4 judge against reviewers on the rationale task: one row per reviewer and one pooled. */
export function JudgeAgreementTable({ r }: { r: RationaleStats }) {
  const rows: { label: string; a: JudgeAgreement; strong: boolean }[] = [
    ...r.per_reviewer.map((a) => ({ label: a.reviewer ?? "", a, strong: false })),
    { label: "All reviewers (pooled)", a: r.pooled, strong: true },
    ...r.by_type.map((t) => ({ label: `${TYPE_LABEL[t.case_type] ?? t.case_type} cases, all reviewers`, a: t.agreement, strong: false })),
  ];
  return (
    <>
      <div className="table-wrap">
        <table className="data" data-testid="judge-agreement">
          <caption className="sr-only">Agreement between the M4 judge and reviewers on the rationale task</caption>
          <thead>
            <tr>
              <th>Reviewer</th>
              <th style={{ textAlign: "right" }}>Items</th>
              <th style={{ textAlign: "right" }}>n (decisions)</th>
              <th style={{ textAlign: "right" }}>Observed agreement</th>
              <th style={{ textAlign: "right" }}>Expected by chance</th>
              <th>Cohen&apos;s kappa and reading</th>
              <th>Both · judge only · reviewer only · neither</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ label, a, strong }) => (
              <tr key={label} style={strong ? { fontWeight: 600 } : undefined}>
                <td>{label}</td>
                <td style={{ textAlign: "right" }}>{num(a.items)}</td>
                <td style={{ textAlign: "right" }}>{num(a.kappa.n)}</td>
                <td style={{ textAlign: "right" }}>{share(a.observed_agreement)}</td>
                <td style={{ textAlign: "right" }}>{share(a.expected_agreement)}</td>
                <td>
                  <StatCell s={a.kappa} kind="kappa" />
                  {a.caution && <div className="rev-reading warn-text">{a.caution}</div>}
                </td>
                <td className="rev-nowrap">
                  {a.both} · {a.judge_only} · {a.reviewer_only} · {a.neither}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        {plural(r.items_with_task, "case")} carried a model&apos;s rationale from {r.runs.join(", ")}. Each condition of each answered case is one decision:
        does the rationale establish it? Kappa compares the judge&apos;s decisions with each reviewer&apos;s beyond what chance would give; pooled puts
        every reviewer&apos;s decisions together, then the same for each case type. {KAPPA_GUIDE}
      </p>
    </>
  );
}

export function ResultsTab({ sessionId }: { sessionId: string }) {
  const stats = useApi("review.stats", { session: sessionId });
  const all = useApi("review.queue", { session_id: sessionId, include_decided: true, include_unflagged: true, threshold: null, low_rating: null });
  if (stats.error) return <ErrorBanner error={stats.error} title="The results could not be computed." />;
  if (!stats.data) return <Loading />;
  const s = stats.data;
  const ir = s.inter_rater;
  if (s.completed === 0 && s.by_type.every((t) => t.realism.n === 0 && t.blind_agreement.n === 0)) {
    return (
      <EmptyState title="No answers yet">
        Results appear as reviewers answer. Send personal links or review packs from “Links and packs”, or answer here.
      </EmptyState>
    );
  }
  const rowsIR: { what: string; stat: string; s: StatValue; kind: "kappa" | "alpha"; pairs?: PairStat[] }[] = [
    { what: "Realism", stat: "Cohen's kappa, quadratic weights", s: ir.realism.weighted_kappa, kind: "kappa", pairs: ir.realism.weighted_kappa_pairs },
    { what: "Realism", stat: "Krippendorff's alpha, ordinal", s: ir.realism.krippendorff_alpha_ordinal, kind: "alpha" },
    { what: "Plausibility", stat: "Cohen's kappa, quadratic weights", s: ir.plausibility.weighted_kappa, kind: "kappa", pairs: ir.plausibility.weighted_kappa_pairs },
    { what: "Plausibility", stat: "Krippendorff's alpha, ordinal", s: ir.plausibility.krippendorff_alpha_ordinal, kind: "alpha" },
    { what: "Own verdict", stat: "Cohen's kappa", s: ir.verdict.cohen_kappa, kind: "kappa", pairs: ir.verdict.cohen_kappa_pairs },
    { what: "Own verdict", stat: "Fleiss' kappa", s: ir.verdict.fleiss_kappa, kind: "kappa" },
    { what: "Own verdict", stat: "Krippendorff's alpha, nominal", s: ir.verdict.krippendorff_alpha_nominal, kind: "alpha" },
  ];
  return (
    <div className="stack">
      <div className="grid-3">
        <Stat label="answers complete" value={`${num(s.completed)} / ${num(s.assignments)}`} hint={`${plural(s.cases, "case")}, each rated by ${s.overlap}`} />
        <Stat label="reviewers" value={num(s.reviewers.length)} hint={s.reviewers.join(", ")} />
        <Stat label="computed" value={<span style={{ fontSize: "1rem" }}>{when(s.computed_at)}</span>} hint="Results include unfinished answers where they can." />
      </div>
      <Section title="Ratings and agreement with the by-construction verdict">
        <TypeTable stats={s} />
        <p className="muted small">
          Ratings are on 1–5 scales, pooled over reviewers (SD with n − 1). Agreement counts cases: a case agrees when every reviewer assigned to it gave
          the by-construction verdict blind (or marked “agree” after seeing it), out of the cases all of them answered. Below each count, the same over
          single answers.
        </p>
      </Section>
      <Section title="Agreement between reviewers">
        <div className="table-wrap">
          <table className="data">
            <caption className="sr-only">Agreement between reviewers</caption>
            <thead>
              <tr>
                <th>Question</th>
                <th>Statistic</th>
                <th>Value and reading</th>
                <th style={{ textAlign: "right" }}>n (cases)</th>
              </tr>
            </thead>
            <tbody>
              {rowsIR.map((r) => (
                <tr key={`${r.what}-${r.stat}`}>
                  <td>{r.what}</td>
                  <td>{r.stat}</td>
                  <td>
                    <StatCell s={r.s} kind={r.kind} />
                    {r.pairs && <PairsNote pairs={r.pairs} />}
                  </td>
                  <td style={{ textAlign: "right" }}>{r.s.n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="rev-guide">
          <span>{KAPPA_GUIDE}</span>
          <span>{ALPHA_GUIDE}</span>
        </div>
        <p className="muted small">
          Kappa compares two reviewers (Cohen) or several (Fleiss) beyond what chance would give; alpha allows any number of reviewers and missing answers.
          With few cases these numbers move a lot: read them with their n.
        </p>
      </Section>
      {s.inter_rater_by_type.length > 0 && (
        <Section title="Reviewers' agreement with each other, by case type">
          <InterRaterByTypeTable stats={s} />
          <p className="muted small">
            The same statistics over the cases of one type at a time (alpha: Krippendorff&apos;s, ordinal for the ratings, nominal for the verdicts). A dash
            means the type has too few co-rated cases or no variation; hover it for the reason.
          </p>
        </Section>
      )}
      <Section title="Each reviewer against the by-construction verdict">
        <div className="table-wrap">
          <table className="data">
            <caption className="sr-only">Agreement with the by-construction verdict per reviewer</caption>
            <thead>
              <tr>
                <th>Reviewer</th>
                {s.per_reviewer[0]?.by_type.map((t) => (
                  <th key={t.case_type} style={{ textAlign: "right" }}>
                    {TYPE_LABEL[t.case_type] ?? t.case_type}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {s.per_reviewer.map((r) => (
                <tr key={r.reviewer}>
                  <td>{r.reviewer}</td>
                  {r.by_type.map((t) => (
                    <td key={t.case_type} style={{ textAlign: "right" }}>
                      {t.blind_agreement.n ? t.blind_agreement.text : "–"} <span className="muted small">own</span> ·{" "}
                      {t.agree_mark.n ? t.agree_mark.text : "–"} <span className="muted small">agree</span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
      {s.rationale && (
        <Section title="The M4 judge against reviewers (rationale task)">
          <JudgeAgreementTable r={s.rationale} />
        </Section>
      )}
      <Section title="Rating distributions">
        {all.data ? <RatingChart dists={ratingDistributions(all.data.items)} /> : all.error ? <ErrorBanner error={all.error} /> : <Loading />}
      </Section>
    </div>
  );
}
