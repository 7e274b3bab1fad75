// One evaluated case as a transcript (Inspect AI style): the narrative, every question and answer,
// the final structured answer; then how it was scored, the metadata and the raw JSON. Previous and
// next step through the cases of the grid's current filter (buttons, J/K or ←/→).

import { ReactNode, useEffect, useMemo } from "react";
import { useApi } from "../../api/client";
import type { FinalAnswer, InfoTurn, JsonValue, RepeatOutcome, TrajectoryView } from "../../api/generated";
import { CaseTypeBadge, Id, VerdictBadge } from "../../components/Badges";
import { ErrorBanner, Loading } from "../../components/Feedback";
import { JsonBlock, KeyValues, Section, Tabs } from "../../components/Layout";
import { humanize, jsonText, num, tokens, usd, verdictKey } from "../../format";
import { href, navigate, Route, setQuery } from "../../router";
import { trajectoryBase, trajectoryLink } from "./CasesGrid";
import { reasoningSummary, reasoningText } from "./reasoning";
import { cellWords, correctOf, filterFromQuery, filterRows, Grid, neighbours, present, sortFromQuery, sortRows, verdictOf } from "./grid";

type Extra = Record<string, JsonValue | undefined>;
const extra = (x: object) => x as unknown as Extra;

const INFO_STATUS: Record<string, { icon: string; word: string; cls: string }> = {
  answered: { icon: "✓", word: "Answered", cls: "info-answered" },
  refused_too_vague: { icon: "✗", word: "Refused: the question was too vague", cls: "info-refused" },
  unknown: { icon: "?", word: "Unknown: not in the record", cls: "info-unknown" },
};

function Message({ who, kind, tag, children, details, reasoning }: { who: string; kind: string; tag?: ReactNode; children: ReactNode; details?: ReactNode; reasoning?: ReactNode }) {
  return (
    <li className={`msg msg-${kind}`}>
      <div className="msg-head">
        <span className="msg-who">{who}</span>
        {tag}
      </div>
      {reasoning}
      <div className="msg-body">{children}</div>
      {details}
    </li>
  );
}

/** A reasoning model's reasoning, kept apart from its answer and closed until asked for. */
function Reasoning({ turn }: { turn: Extra }) {
  const summary = reasoningSummary(turn);
  const text = reasoningText(turn);
  if (!summary || !text) return null;
  return (
    <details className="msg-reasoning" data-testid="turn-reasoning">
      <summary>
        {summary}
        <span className="sr-only"> — written before the answer; never read as the answer</span>
      </summary>
      <pre className="reasoning-text">{text}</pre>
    </details>
  );
}

function TurnDetails({ turn, raw }: { turn: Extra; raw?: string }) {
  const pv = turn.prompt_versions as Record<string, JsonValue> | undefined;
  const items: [ReactNode, ReactNode][] = [];
  if (turn.turn !== undefined) items.push(["Turn", `${jsonText(turn.turn)}${turn.forced ? " (final turn: an answer was required)" : ""}`]);
  if (turn.prompt_tokens !== undefined) items.push(["Tokens", `${num(Number(turn.prompt_tokens))} in, ${num(Number(turn.completion_tokens ?? 0))} out`]);
  if (turn.reasoning_tokens !== undefined) items.push(["Reasoning tokens", `${num(Number(turn.reasoning_tokens))} (part of the tokens out)`]);
  if (turn.latency_ms !== undefined) items.push(["Time", `${num(Number(turn.latency_ms))} ms`]);
  if (turn.cache_hit !== undefined) items.push(["From the cache", turn.cache_hit ? "yes (no new call was made)" : "no"]);
  if (turn.attempts !== undefined && Number(turn.attempts) > 1) items.push(["Attempts", jsonText(turn.attempts)]);
  if (pv && typeof pv === "object") items.push(["Prompt versions", Object.entries(pv).map(([k, v]) => `${k} ${jsonText(v)}`).join(" · ")]);
  if (turn.parse_notes) items.push(["Reading notes", JSON.stringify(turn.parse_notes)]);
  if (turn.provider_error) items.push(["Provider problem", jsonText(turn.provider_error)]);
  if (turn.dropped_fields) items.push(["Fields dropped", JSON.stringify(turn.dropped_fields)]);
  return (
    <details className="msg-details">
      <summary>Details{raw !== undefined ? ": raw reply, tokens, time" : ""}</summary>
      {items.length > 0 && <KeyValues items={items} />}
      {raw !== undefined && (
        <>
          <div className="small muted raw-label">Raw reply</div>
          <pre className="raw">{raw || "(empty)"}</pre>
        </>
      )}
    </details>
  );
}

function AnswerFields({ a }: { a: FinalAnswer }) {
  const evidence = a.clause_and_guidance_evidence ?? [];
  return (
    <dl className="answer">
      <div>
        <dt>Verdict</dt>
        <dd>{a.final_verdict && verdictKey(a.final_verdict) !== "none" ? <VerdictBadge verdict={a.final_verdict} /> : <span>{a.final_verdict ? `“${a.final_verdict}” (not one of the three verdicts)` : "none"}</span>}</dd>
      </div>
      <div>
        <dt>Targeted clause</dt>
        <dd>{a.targeted_clause ?? <span className="muted">none</span>}</dd>
      </div>
      <div>
        <dt>Evidence cited</dt>
        <dd>
          {evidence.length ? (
            <ul className="chips">
              {evidence.map((e) => (
                <li key={e} className="chip">
                  {e}
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
      </div>
      <div>
        <dt>Rationale</dt>
        <dd className="rationale">{a.rationale || <span className="muted">none</span>}</dd>
      </div>
    </dl>
  );
}

function Transcript({ v }: { v: TrajectoryView }) {
  const t = v.trajectory;
  const lastAnswer = t.turns.map((x, i) => (x.role === "eval" && x.action === "ANSWER" ? i : -1)).reduce((a, b) => Math.max(a, b), -1);
  return (
    <ol className="transcript">
      <Message who="Case" kind="case" tag={<span className="small muted">what the model under test reads</span>}>
        <p className="narrative">{v.case.narrative}</p>
      </Message>
      {t.turns.map((turn, i) => {
        if (turn.role === "info") {
          const it = turn;
          const s = INFO_STATUS[it.status] ?? { icon: "?", word: it.status, cls: "info-unknown" };
          return (
            <Message
              key={i}
              who="Information provider"
              kind="info"
              tag={
                <span className={`info-status ${s.cls}`}>
                  <span aria-hidden>{s.icon}</span> {s.word}
                </span>
              }
              details={<TurnDetails turn={extra(it)} />}
            >
              <p className="msg-text">{it.answer || <span className="muted">(no text)</span>}</p>
              {it.fields_used.length > 0 && (
                <div className="small fields-used">
                  Facts used:{" "}
                  <ul className="chips inline">
                    {it.fields_used.map((f) => (
                      <li key={f} className="chip">
                        {humanize(f)}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </Message>
          );
        }
        const et = turn;
        const x = extra(et);
        if (et.action === "ASK")
          return (
            <Message key={i} who="Model under test" kind="model" tag={<span className="action-tag">Asks</span>} reasoning={<Reasoning turn={x} />} details={<TurnDetails turn={x} raw={et.raw} />}>
              <p className="msg-text">{et.ask_question || <span className="muted">(an empty question)</span>}</p>
            </Message>
          );
        if (et.action === "ANSWER") {
          const final = i === lastAnswer && t.final ? t.final : parseAnswer(et.raw);
          return (
            <Message key={i} who="Model under test" kind="model answer" tag={<span className="action-tag">Answers</span>} reasoning={<Reasoning turn={x} />} details={<TurnDetails turn={x} raw={et.raw} />}>
              {final ? <AnswerFields a={final} /> : <pre className="raw">{et.raw}</pre>}
            </Message>
          );
        }
        return (
          <Message key={i} who="Model under test" kind="problem" tag={<span className="problem-tag"><span aria-hidden>⚠</span> No readable answer</span>} reasoning={<Reasoning turn={x} />} details={<TurnDetails turn={x} />}>
            <p className="small">
              This reply could not be read as a question or an answer{x.parse_error ? `: ${jsonText(x.parse_error)}` : "."}
            </p>
            <div className="small muted raw-label">Raw reply</div>
            <pre className="raw">{et.raw || "(empty)"}</pre>
          </Message>
        );
      })}
      {!t.final && (
        <li className="msg msg-end">
          <strong>The case ended without a readable answer.</strong> It counts as a wrong verdict.{t.error ? ` ${t.error}` : ""}
        </li>
      )}
    </ol>
  );
}

function parseAnswer(raw: string): FinalAnswer | null {
  try {
    const j: unknown = JSON.parse(raw);
    return j && typeof j === "object" && "final_verdict" in j ? (j as FinalAnswer) : null;
  } catch {
    return null;
  }
}

function Match({ ok, yes = "Match", no = "Differs" }: { ok: boolean; yes?: string; no?: string }) {
  return (
    <span className={ok ? "match-ok" : "match-bad"}>
      <span aria-hidden>{ok ? "✓" : "✗"}</span> {ok ? yes : no}
    </span>
  );
}

function Scoring({ v }: { v: TrajectoryView }) {
  const t = v.trajectory;
  const c = v.case;
  const predicted = t.final?.final_verdict ?? null;
  const predClause = t.final?.targeted_clause ?? null;
  const gold = new Set(c.gold_legal_basis);
  const cited = new Set(t.final?.clause_and_guidance_evidence ?? []);
  const union = Array.from(new Set([...c.gold_legal_basis, ...cited]));
  const hits = new Set(t.judge?.hits ?? []);
  const explanations = (t.judge ? (extra(t.judge).explanations as Record<string, JsonValue> | undefined) : undefined) ?? {};
  const recovered = new Set(t.turns.filter((x): x is InfoTurn => x.role === "info" && x.status === "answered").flatMap((x) => x.fields_used));
  const asks = t.turns.filter((x) => x.role === "eval" && x.action === "ASK").length;
  const extraRecovered = Array.from(recovered).filter((f) => !c.masked_elements.includes(f));
  const judgeError = t.judge ? extra(t.judge).judge_error : undefined;
  return (
    <div className="stack scoring">
      <section className="card">
        <h2>Verdict and clause</h2>
        <table className="data compare">
          <thead>
            <tr>
              <th>
                <span className="sr-only">What</span>
              </th>
              <th>Expected</th>
              <th>Given</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Verdict (M1)</th>
              <td>
                <VerdictBadge verdict={c.gold_verdict} />
              </td>
              <td>{predicted ? <VerdictBadge verdict={predicted} /> : <span className="muted">no readable verdict</span>}</td>
              <td>
                <Match ok={v.correct} yes="Correct" no="Wrong" />
              </td>
            </tr>
            <tr>
              <th scope="row">Targeted clause (M2)</th>
              <td>
                {c.gold_clause ?? <span className="muted">none (not reportable)</span>}
                {v.gold_clause_title && <div className="small muted">{v.gold_clause_title}</div>}
              </td>
              <td>{predClause ?? <span className="muted">none</span>}</td>
              <td>{c.gold_verdict === "Reportable" && predicted === "Reportable" ? <Match ok={predClause === c.gold_clause} /> : <span className="small muted">Counts only when both verdicts are Reportable</span>}</td>
            </tr>
          </tbody>
        </table>
      </section>
      <section className="card">
        <h2>Evidence (M3)</h2>
        <p className="small muted">{v.correct ? "This case counts toward M3 because its verdict is correct." : "This case does not count toward M3: its verdict is wrong."}</p>
        {union.length === 0 ? (
          <p className="muted">No evidence expected and none cited.</p>
        ) : (
          <ul className="plain-list evidence-list">
            {union.map((e) => {
              const inGold = gold.has(e);
              const inCited = cited.has(e);
              return (
                <li key={e} className="evidence-row">
                  {inGold && inCited ? <Match ok yes="Cited as expected" /> : inGold ? <Match ok={false} no="Expected, not cited" /> : <span className="match-extra"><span aria-hidden>+</span> Cited, not expected</span>}
                  <span>{e}</span>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section className="card">
        <h2>Boundary conditions (M4, judged)</h2>
        <p className="small muted">
          {t.judge
            ? `The judge found ${hits.size} of ${c.boundary_conditions.length} boundary conditions addressed correctly in the rationale.`
            : "Not judged: the judge only reads rationales of cases with a correct verdict."}
          {judgeError ? ` The judge did not give a usable answer: ${jsonText(judgeError)}` : ""}
        </p>
        <ul className="plain-list bc-list">
          {c.boundary_conditions.map((b) => (
            <li key={b.name} className="bc">
              <div className="row gap wrap">
                {t.judge ? <Match ok={hits.has(b.name)} yes="Addressed" no="Not addressed" /> : <span className="muted">–</span>}
                <strong>{humanize(b.name)}</strong>
                <span className="small muted">{b.value ? "holds in this case" : "does not hold in this case"}</span>
              </div>
              <div className="small">{b.meaning}</div>
              {explanations[b.name] !== undefined && <div className="small judge-note">Judge: {jsonText(explanations[b.name])}</div>}
            </li>
          ))}
        </ul>
      </section>
      {c.case_type === "missing" && (
        <section className="card">
          <h2>Missing information (M5, M6)</h2>
          <p className="small">
            {asks > 0 ? `The model asked ${asks} question${asks === 1 ? "" : "s"}.` : "The model did not ask any question, although facts were withheld."}
          </p>
          <ul className="plain-list">
            {c.masked_elements.map((m) => (
              <li key={m} className="row gap">
                <Match ok={recovered.has(m)} yes="Recovered" no="Not recovered" />
                <span>{humanize(m)}</span>
              </li>
            ))}
          </ul>
          {extraRecovered.length > 0 && <p className="small muted">Also obtained (not withheld): {extraRecovered.map(humanize).join(", ")}.</p>}
        </section>
      )}
    </div>
  );
}

function Metadata({ v, repeat }: { v: TrajectoryView; repeat: number }) {
  const t = v.trajectory;
  const x = extra(t);
  const info = x.info_usage as Record<string, number> | undefined;
  const judge = x.judge_usage as Record<string, number> | undefined;
  const firstEval = t.turns.find((y) => y.role === "eval");
  const pv = firstEval ? (extra(firstEval).prompt_versions as Record<string, JsonValue> | undefined) : undefined;
  const usage = (u?: Record<string, number>) => (u ? `${tokens(u.prompt_tokens ?? 0)} in, ${tokens(u.completion_tokens ?? 0)} out` : "–");
  return (
    <Section>
      <KeyValues
        items={[
          ["Model under test", v.models.model ?? t.model],
          ["Information provider", v.models.info_model ?? "–"],
          ["Judge", v.models.judge_model ?? "–"],
          ["Run", <Id value={t.run_id} />],
          ["Repeat", String(repeat + 1)],
          ["Case", <Id value={v.case.case_id} />],
          ["Case type", <CaseTypeBadge caseType={v.case.case_type} />],
          ["Clause", `${v.case.gold_clause ?? v.case.clause_id}`],
          ["Clause card", <Id value={v.case.clause_card_id} />],
          ...(v.case.missing_variant_id ? ([["Missing-information variant", <Id value={v.case.missing_variant_id} />]] as [string, ReactNode][]) : []),
          ["Model under test: tokens", `${tokens(t.usage.prompt_tokens)} in, ${tokens(t.usage.completion_tokens)} out${typeof t.usage.reasoning_tokens === "number" ? ` (${tokens(t.usage.reasoning_tokens)} of them reasoning)` : ""}`],
          ["Information provider: tokens", usage(info)],
          ["Judge: tokens", usage(judge)],
          ["Cost", typeof x.cost_usd === "number" ? usd(x.cost_usd) : "–"],
          ["Prompt versions", pv ? Object.entries(pv).map(([k, val]) => `${k} ${jsonText(val)}`).join(" · ") : "–"],
          ...(t.error ? ([["Problem", t.error]] as [string, ReactNode][]) : []),
        ]}
      />
    </Section>
  );
}

/** "Repeat 2 of 3: Reportable, correct" — what a repeat's button says to a screen reader. */
export function repeatWords(r: RepeatOutcome, i: number, n: number): string {
  return `Repeat ${i + 1} of ${n}: ${r.verdict ?? "no readable verdict"}, ${r.correct ? "correct" : "wrong"}`;
}

/** Pick any repeat of the case (runs with repeats evaluate each case several times). */
function RepeatPicker({ repeats, current }: { repeats: RepeatOutcome[]; current: number }) {
  const at = repeats.findIndex((r) => r.repeat === current);
  return (
    <div className="repeat-picker" data-testid="repeat-picker">
      <p className="small">
        <strong>
          Repeat {at + 1} of {repeats.length}
        </strong>{" "}
        <span className="muted">— this case was evaluated {repeats.length} times. Choose one to read it:</span>
      </p>
      <div role="group" aria-label="Repeats of this case" className="row gap wrap">
        {repeats.map((r, i) => (
          <button
            key={r.repeat}
            type="button"
            className="btn btn-small repeat-choice"
            aria-pressed={r.repeat === current}
            aria-label={repeatWords(r, i, repeats.length)}
            title={repeatWords(r, i, repeats.length)}
            onClick={() => setQuery("repeat", r.repeat ? String(r.repeat) : null)}
          >
            Repeat {i + 1}{" "}
            <span aria-hidden className={r.correct ? "match-ok" : "match-bad"}>
              {r.correct ? "✓" : "✗"}
            </span>{" "}
            {r.verdict ?? "no verdict"}
          </button>
        ))}
      </div>
    </div>
  );
}

const TABS = [
  { id: "transcript", label: "Transcript" },
  { id: "scoring", label: "Scoring" },
  { id: "metadata", label: "Metadata" },
  { id: "json", label: "Raw JSON" },
];

export function TrajectoryPage({ route, grid, runIds }: { route: Route; grid: Grid | undefined; runIds: string[] }) {
  const runId = route.query.get("run") ?? "";
  const caseId = route.query.get("case") ?? "";
  const repeat = Number(route.query.get("repeat") ?? 0) || 0;
  const tab = TABS.some((x) => x.id === route.query.get("ttab")) ? route.query.get("ttab")! : "transcript";
  const data = useApi("results.trajectory", runId && caseId ? { run_id: runId, case_id: caseId, ...(repeat ? { repeat } : {}) } : null);

  // Where this case sits in the grid's current filter and sort.
  const nav = useMemo(() => {
    if (!grid) return null;
    const m = grid.modelRuns.indexOf(runId);
    const row = grid.caseIds.indexOf(caseId);
    if (m < 0 || row < 0) return null;
    const filter = filterFromQuery(route.query, grid.models);
    const order = sortRows(grid, filterRows(grid, filter), sortFromQuery(route.query)).filter((r) => present(grid.cells[m][r]));
    const n = neighbours(order, row);
    return { m, row, order, ...n };
  }, [grid, runId, caseId, route.query]);
  const base = trajectoryBase(route);
  const prevHref = nav && nav.prev !== null ? trajectoryLink(base, runId, grid!.caseIds[nav.prev]) : null;
  const nextHref = nav && nav.next !== null ? trajectoryLink(base, runId, grid!.caseIds[nav.next]) : null;
  const backQuery = new URLSearchParams(route.query);
  ["run", "case", "ttab", "repeat"].forEach((k) => backQuery.delete(k));
  backQuery.set("tab", "cases");
  if (!backQuery.get("runs") && runIds.length) backQuery.set("runs", runIds.join(","));
  const backHref = `#/results?${backQuery.toString()}`;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      const el = e.target as HTMLElement | null;
      if (el && (el.closest("input, textarea, select, [role=tablist], [role=dialog]") || el.isContentEditable)) return;
      if ((e.key === "j" || e.key === "ArrowRight") && nextHref) {
        e.preventDefault();
        navigate(nextHref);
      } else if ((e.key === "k" || e.key === "ArrowLeft") && prevHref) {
        e.preventDefault();
        navigate(prevHref);
      } else if (e.key === "Escape") {
        navigate(backHref);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [prevHref, nextHref, backHref]);

  const v = data.data && data.data.case.case_id === caseId ? data.data : undefined;
  return (
    <div className="stack trajectory">
      <div className="traj-nav row between wrap">
        <a className="btn" href={backHref}>
          ← Back to the cases
        </a>
        <div className="row gap">
          {nav && nav.index >= 0 ? (
            <span className="small muted" aria-live="polite">
              Case {num(nav.index + 1)} of {num(nav.order.length)} in the current filter
            </span>
          ) : grid ? (
            <span className="small muted">This case is not in the grid's current filter.</span>
          ) : null}
          <a className={`btn ${prevHref ? "" : "disabled"}`} href={prevHref ?? undefined} aria-disabled={!prevHref} aria-keyshortcuts="k ArrowLeft" title="Previous case (K or ←)">
            ← Previous
          </a>
          <a className={`btn ${nextHref ? "" : "disabled"}`} href={nextHref ?? undefined} aria-disabled={!nextHref} aria-keyshortcuts="j ArrowRight" title="Next case (J or →)">
            Next →
          </a>
        </div>
      </div>
      <ErrorBanner error={data.error} title="This transcript could not be opened." />
      {!v && data.loading && <Loading label="Opening the transcript…" />}
      {v && (
        <>
          <header className="traj-head">
            <div>
              <h2>
                {v.trajectory.model} on case <span className="mono">{v.case.case_id}</span>
              </h2>
              <dl className="traj-summary">
                <div>
                  <dt>Case type</dt>
                  <dd>
                    <CaseTypeBadge caseType={v.case.case_type} />
                  </dd>
                </div>
                <div>
                  <dt>Expected</dt>
                  <dd>
                    <VerdictBadge verdict={v.case.gold_verdict} />
                    {v.case.gold_clause && (
                      <span className="small">
                        {v.case.gold_clause}
                        {v.gold_clause_title ? ` — ${v.gold_clause_title}` : ""}
                      </span>
                    )}
                  </dd>
                </div>
                <div>
                  <dt>Given</dt>
                  <dd>
                    <VerdictBadge verdict={v.trajectory.final?.final_verdict ?? null} />
                    {v.trajectory.final?.targeted_clause && <span className="small">{v.trajectory.final.targeted_clause}</span>}
                    <span className={`outcome ${v.correct ? "match-ok" : "match-bad"}`}>
                      <span aria-hidden>{v.correct ? "✓" : "✗"}</span> {v.correct ? "Correct" : "Wrong"}
                    </span>
                  </dd>
                </div>
              </dl>
            </div>
          </header>
          {v.repeats.length > 1 && <RepeatPicker repeats={v.repeats} current={repeat} />}
          {grid && nav && (
            <OtherModels grid={grid} row={nav.row} current={nav.m} base={base} />
          )}
          <Tabs tabs={TABS} active={tab} onChange={(id) => setQuery("ttab", id === "transcript" ? null : id)} label="Views of this case" />
          <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
            {tab === "transcript" && <Transcript v={v} />}
            {tab === "scoring" && <Scoring v={v} />}
            {tab === "metadata" && <Metadata v={v} repeat={repeat} />}
            {tab === "json" && (
              <div className="stack">
                <JsonBlock value={v.trajectory} maxHeight={640} />
                <details>
                  <summary>The case (ground truth)</summary>
                  <JsonBlock value={v.case} maxHeight={480} />
                </details>
              </div>
            )}
          </div>
          <p className="small muted">Keys: J or → next case, K or ← previous case, Esc back to the grid.</p>
        </>
      )}
      {!runId || !caseId ? (
        <p>
          Choose a case in the <a href={href("/results", { runs: runIds.join(","), tab: "cases" })}>grid</a>.
        </p>
      ) : null}
    </div>
  );
}

function OtherModels({ grid, row, current, base }: { grid: Grid; row: number; current: number; base: string }) {
  if (grid.models.length < 2) return null;
  return (
    <div className="other-models">
      <span className="small muted">All models on this case:</span>
      <ul className="chips">
        {grid.models.map((m, i) => {
          const code = grid.cells[i][row];
          if (!present(code)) return null;
          const words = `${m}: ${cellWords(code)}`;
          return (
            <li key={m}>
              <a className={`chip model-chip ${i === current ? "current" : ""} ${correctOf(code) ? "gc-ok" : "gc-bad"}`} href={trajectoryLink(base, grid.modelRuns[i], grid.caseIds[row])} aria-current={i === current ? "page" : undefined} title={words} aria-label={words}>
                <span aria-hidden>{["–", "▲", "●", "◆"][verdictOf(code)]}</span> {m} <span aria-hidden>{correctOf(code) ? "✓" : "✗"}</span>
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
