// One candidate of a generation run: the case as accepted (narrative, facts with withheld slots
// marked, expected verdict), the full provenance as a timeline of stages and attempts with every
// model call behind a disclosure, and the anchor it was seeded with. A dropped candidate says why.

import { ReactNode, useState } from "react";
import { useApi } from "../../api/client";
import type { Provenance, ProvenanceAttempt } from "../../api/generated";
import { CallList } from "../../components/CallLedger";
import { CaseTypeBadge, EventTypeBadge, Id, VerdictBadge } from "../../components/Badges";
import { ErrorBanner, Loading, Notice } from "../../components/Feedback";
import { JsonBlock, Tabs } from "../../components/Layout";
import { humanize, jsonText, tokens, usd, when } from "../../format";
import { href } from "../../router";
import type { ClauseIndex } from "../anchors/clauses";
import { clauseLabel, clauseShort } from "../anchors/clauses";
import { CANDIDATE_STATUS, displayValue, dropReasonParts, factsOf, groupAttempts, lastNarrative, leakRows, ROLE_LABEL, STAGE_LABEL, STAGE_LONG, stageEntries, stageSummary } from "./logic";

export function CandidateStatus({ status }: { status: string }) {
  const s = CANDIDATE_STATUS[status] ?? { label: status, icon: "•" };
  return (
    <span className={`badge cand cand-${status}`}>
      <span aria-hidden className="badge-icon">
        {s.icon}
      </span>
      {s.label}
    </span>
  );
}

type CaseLike = {
  case_id?: string;
  gold_verdict?: string;
  gold_clause?: string | null;
  gold_legal_basis?: string[];
  narrative?: string;
  elements?: { name: string; meaning: string; value: string | null }[];
  masked_elements?: string[];
  boundary_conditions?: { name: string; meaning: string; value: boolean }[];
  missing_variant_id?: string | null;
};

function FactsTable({ facts, showMeaning }: { facts: ReturnType<typeof factsOf>["facts"]; showMeaning: boolean }) {
  return (
    <table className="data facts" data-testid="facts">
      <caption className="sr-only">Facts of the event</caption>
      <thead>
        <tr>
          <th style={{ width: "22%" }}>Fact</th>
          {showMeaning && <th style={{ width: "33%" }}>What it holds</th>}
          <th>Value</th>
        </tr>
      </thead>
      <tbody>
        {facts.map((f) => (
          <tr key={f.name} className={f.withheld ? "withheld" : ""}>
            <td>
              <div className="fact-name">{humanize(f.name)}</div>
              <code className="id">{f.name}</code>
            </td>
            {showMeaning && <td className="small">{f.meaning}</td>}
            <td>
              {f.withheld && (
                <div>
                  <span className="badge withheld-badge">
                    <span aria-hidden className="badge-icon">
                      ⊘
                    </span>
                    Withheld from this report
                  </span>
                </div>
              )}
              {f.value === null ? (
                <span className="muted">none (empty by design)</span>
              ) : (
                <span className={f.withheld ? "muted small" : ""}>
                  {f.withheld ? "Known only to the information provider: " : ""}
                  {displayValue(f.value)}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ValuesTable({ value, compare, caption }: { value: unknown; compare?: unknown; caption: string }) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return <JsonBlock value={value} maxHeight={260} />;
  const entries = Object.entries(value as Record<string, unknown>);
  const other = compare && typeof compare === "object" ? (compare as Record<string, unknown>) : null;
  return (
    <table className="data compact">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th style={{ width: "28%" }}>Fact</th>
          <th>{other ? "Read back from the narrative" : "Value"}</th>
          {other && <th>Intended</th>}
        </tr>
      </thead>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <td>{humanize(k)}</td>
            <td>{v === null || v === undefined ? <span className="muted">not found (null)</span> : jsonText(v)}</td>
            {other && <td className="muted">{other[k] === null || other[k] === undefined ? "null" : jsonText(other[k])}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AttemptItem({ a, canonical }: { a: ProvenanceAttempt; canonical: unknown }) {
  const guard = a.guard_findings.length > 0;
  const leaks = leakRows(a.verifier);
  const cost = a.calls.reduce((s, c) => s + c.cost_usd, 0);
  const tok = a.calls.reduce((s, c) => s + c.input_tokens + c.output_tokens, 0);
  const ms = a.calls.reduce((s, c) => s + c.latency_ms, 0);
  return (
    <li className={`tl-attempt ${a.passed ? "tl-pass" : "tl-fail"}`} data-testid="attempt">
      <div className="tl-head">
        <span className="tl-mark" aria-hidden>
          {a.passed ? "✓" : "✕"}
        </span>
        <strong>Attempt {a.attempt}</strong>
        <span className={`badge ${a.passed ? "status-completed" : "attempt-failed"}`}>{a.passed ? "Passed" : "Failed"}</span>
        <span className="muted small">
          {when(a.created_at)} · {a.calls.length} {a.calls.length === 1 ? "call" : "calls"} · {tokens(tok)} tokens · {usd(cost)} · {(ms / 1000).toFixed(1)} s
        </span>
      </div>
      {guard ? (
        <div className="tl-findings tl-guard">
          <strong>Caught by a quick check in code</strong> <span className="muted small">(no checker call was needed)</span>
          <ul>
            {a.guard_findings.map((g) => (
              <li key={g}>{g}</li>
            ))}
          </ul>
        </div>
      ) : (
        a.issues.length > 0 && (
          <div className="tl-findings">
            <strong>{a.passed ? "Notes" : "Problems the checker found"}</strong>
            <ul>
              {a.issues.map((g) => (
                <li key={g}>{g}</li>
              ))}
            </ul>
            {!a.passed && <div className="muted small">These went back to the writer for the next attempt.</div>}
          </div>
        )
      )}
      {leaks.length > 0 && (
        <table className="data compact leak-table">
          <caption>Withheld conditions: can a reader settle them from the report?</caption>
          <thead>
            <tr>
              <th>Condition</th>
              <th>Verdict</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {leaks.map((r) => (
              <tr key={r.condition}>
                <td>{humanize(r.condition)}</td>
                <td>
                  {r.verdict === "leaked" ? (
                    <span className="badge attempt-failed">
                      <span aria-hidden className="badge-icon">
                        !
                      </span>
                      Leaked
                    </span>
                  ) : (
                    <span className="badge status-completed">
                      <span aria-hidden className="badge-icon">
                        ?
                      </span>
                      Still open
                    </span>
                  )}
                </td>
                <td className="small">
                  {r.evidence && <q>{r.evidence}</q>} {r.explanation}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details>
        <summary className="small">What was produced</summary>
        {typeof a.output === "string" ? <div className="narrative tl-narrative">{a.output}</div> : <ValuesTable value={a.output} caption="Facts produced" />}
      </details>
      {a.extracted != null && (
        <details>
          <summary className="small">What the extractor read back</summary>
          <ValuesTable value={a.extracted} compare={canonical} caption="Facts read back" />
        </details>
      )}
      {a.calls.length > 0 && (
        <CallList calls={a.calls} roleLabels={ROLE_LABEL} label={`Model calls of attempt ${a.attempt}`} />
      )}
    </li>
  );
}

/** An attempt number a stage never ran, and the failure of the stage before it that explains why. */
function NotRunItem({ stage, attempt, because }: { stage: string; attempt: number; because: ProvenanceAttempt | null }) {
  const problems = because ? (because.guard_findings.length > 0 ? because.guard_findings : because.issues) : [];
  return (
    <li className="tl-attempt tl-fail tl-not-run" data-testid="attempt">
      <div className="tl-head">
        <span className="tl-mark" aria-hidden>
          –
        </span>
        <strong>Attempt {attempt}</strong>
        <span className="badge attempt-failed">Not run</span>
      </div>
      <div className="tl-findings">
        {because ? (
          <>
            <strong>
              {STAGE_LABEL[because.stage] ?? "An earlier stage"}, attempt {attempt}, failed its check, so there was nothing for the {(STAGE_LABEL[stage] ?? "stage").toLowerCase()} to
              read
            </strong>
            {problems.length > 0 && (
              <ul>
                {problems.map((g) => (
                  <li key={g}>{g}</li>
                ))}
              </ul>
            )}
          </>
        ) : (
          <span className="muted small">This attempt was not recorded.</span>
        )}
      </div>
    </li>
  );
}

function Timeline({ p }: { p: Provenance }) {
  const groups = groupAttempts(p.attempts, p.candidate.candidate_id);
  if (groups.length === 0) return <p className="muted">Nothing has been tried for this candidate yet.</p>;
  const passedFacts = [...p.attempts].reverse().find((a) => a.stage === "instantiation" && a.passed)?.output;
  return (
    <ol className="timeline" data-testid="timeline">
      {groups.map((g) => {
        return (
          <li key={g.key} className="tl-stage">
            <h3>
              {STAGE_LABEL[g.stage] ?? g.stage}
              <span className="muted small"> — {STAGE_LONG[g.stage] ?? ""}</span>
              {g.inherited && <span className="badge inherited">shared with its complete case</span>}
              <span className="small muted"> · {stageSummary(g, p.attempts)}</span>
            </h3>
            <ol className="tl-attempts">
              {stageEntries(g, p.attempts).map((e) =>
                e.kind === "attempt" ? (
                  <AttemptItem key={`${e.attempt.stage}-${e.attempt.attempt}`} a={e.attempt} canonical={passedFacts} />
                ) : (
                  <NotRunItem key={`${g.stage}-${e.attempt}`} stage={g.stage} attempt={e.attempt} because={e.because} />
                ),
              )}
            </ol>
          </li>
        );
      })}
    </ol>
  );
}

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="detail-block">
      <h3>{title}</h3>
      {children}
    </div>
  );
}

export function CandidateDetail({ id, clauses, standalone = false }: { id: string; clauses: ClauseIndex | undefined; standalone?: boolean }) {
  const prov = useApi("generation.provenance", { id });
  const [tab, setTab] = useState("case");
  if (prov.error) return <ErrorBanner error={prov.error} title="The history of this candidate could not be shown." />;
  if (!prov.data) return <Loading label="Loading the case and its history…" />;
  const p = prov.data;
  const c = p.candidate;
  const kase = (p.case ?? null) as CaseLike | null;
  const { facts, fromCase } = factsOf(kase, p.attempts);
  const narrative = kase?.narrative ?? lastNarrative(p.attempts, c.candidate_id);
  const attempts = p.attempts.length;
  const reason = dropReasonParts(c.drop_reason);
  return (
    <section className="card candidate" aria-label={`Candidate ${c.candidate_id}`} data-testid="candidate">
      {standalone && (
        <a className="small" href={href("/generate", { run: c.run_id, case: c.candidate_id })}>
          ← Back to the run
        </a>
      )}
      <div className="card-head wrap-head">
        <div>
          <h2>
            {clauseShort(clauses, c.clause_id)} <span className="muted">· {c.missing_variant_id ? "incomplete first report" : c.case_type === "uncertain" ? "gray-zone case" : "complete case"}</span>
          </h2>
          <div className="row gap wrap">
            <CandidateStatus status={c.status} />
            <CaseTypeBadge caseType={c.case_type} />
            <span className="small muted">card verdict</span>
            <EventTypeBadge eventType={c.event_type} />
            <Id value={c.candidate_id} />
          </div>
        </div>
        <div className="row gap wrap">
          <a className="btn" href={href("/cards", c.clause_card_id)}>
            Open card {c.clause_card_id}
          </a>
          {c.case_id && c.status === "accepted" && (
            <a className="btn" href={href("/cases", c.case_id)}>
              Open the case
            </a>
          )}
          {!standalone && (
            <a className="btn-ghost" href={href("/generate", "case", c.candidate_id)}>
              Open on its own page
            </a>
          )}
        </div>
      </div>
      {c.status === "dropped" && (
        <Notice kind="warn" title={`Dropped at “${STAGE_LABEL[c.drop_stage ?? ""] ?? c.drop_stage ?? "?"}”.`}>
          <div data-testid="drop-reason">
            {reason.lead}
            {reason.problems.length > 0 && (
              <ul className="drop-problems">
                {reason.problems.map((x) => (
                  <li key={x}>{x}</li>
                ))}
              </ul>
            )}
          </div>
        </Notice>
      )}
      {c.status === "skipped" && (
        <Notice title="Skipped.">{c.drop_reason ?? "Its complete case was dropped, so this incomplete report was never written."}</Notice>
      )}
      {c.status === "pending" && <Notice title="Not finished yet.">This candidate has not been accepted or dropped yet; resume the run to finish it.</Notice>}
      <Tabs
        label="Candidate details"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: "case", label: "Case" },
          { id: "provenance", label: `How it was made (${attempts} ${attempts === 1 ? "attempt" : "attempts"})` },
          { id: "anchor", label: "Anchor" },
        ]}
      />
      {tab === "case" && (
        <div className="stack" role="tabpanel" aria-labelledby="tab-case">
          {kase && (
            <div className="gold">
              <div>
                <div className="small muted">Expected verdict</div>
                <VerdictBadge verdict={kase.gold_verdict} />
              </div>
              {kase.gold_clause && (
                <div>
                  <div className="small muted">Clause</div>
                  <strong>{kase.gold_clause}</strong>
                </div>
              )}
              {kase.gold_legal_basis && kase.gold_legal_basis.length > 0 && (
                <div>
                  <div className="small muted">Legal basis</div>
                  <div className="row gap wrap">
                    {kase.gold_legal_basis.map((b) => (
                      <span key={b} className="badge chip">
                        {b}
                      </span>
                    ))}
                  </div>
                </div>
              )}
            </div>
          )}
          {kase && c.case_type === "missing" && (
            <p className="small muted">
              This report deliberately leaves out decisive facts, so a careful triager should ask for them before deciding. The expected verdict is that of
              the full event ({clauseLabel(clauses, c.clause_id)}).
            </p>
          )}
          <Block title={kase ? "Narrative" : "Last narrative written (rejected)"}>
            {narrative ? <div className="narrative case-narrative">{narrative}</div> : <p className="muted">No narrative was written.</p>}
          </Block>
          <Block title={fromCase ? "Facts" : "Facts (as last filled in)"}>
            {facts.length ? <FactsTable facts={facts} showMeaning={fromCase} /> : <p className="muted">No facts were filled in.</p>}
          </Block>
          {kase?.boundary_conditions && kase.boundary_conditions.length > 0 && (
            <Block title="Conditions that decide the verdict">
              <table className="data compact">
                <thead>
                  <tr>
                    <th>Condition</th>
                    <th>Meaning</th>
                    <th>Holds</th>
                  </tr>
                </thead>
                <tbody>
                  {kase.boundary_conditions.map((b) => (
                    <tr key={b.name}>
                      <td>{humanize(b.name)}</td>
                      <td className="small">{b.meaning}</td>
                      <td>{b.value ? "✓ Yes" : "✕ No"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Block>
          )}
          {kase && (
            <details>
              <summary className="small">The case as exported (JSON)</summary>
              <JsonBlock value={kase} maxHeight={360} />
            </details>
          )}
        </div>
      )}
      {tab === "provenance" && (
        <div role="tabpanel" aria-labelledby="tab-provenance">
          <p className="small muted">
            Card version {p.card_version ?? "?"} · anchor <code className="id">{c.anchor_id}</code>
            {c.missing_variant_id ? (
              <>
                {" "}
                · variant <code className="id">{c.missing_variant_id}</code>. The facts and the complete narrative come from its complete case.
              </>
            ) : null}
          </p>
          <Timeline p={p} />
        </div>
      )}
      {tab === "anchor" && (
        <div role="tabpanel" aria-labelledby="tab-anchor" className="stack">
          {p.anchor_text ? <div className="narrative anchor-text">{p.anchor_text}</div> : <p className="muted">The anchor's text is no longer stored.</p>}
          <a href={href("/anchors", { anchor: c.anchor_id })}>Show {c.anchor_id} on the Anchors page</a>
        </div>
      )}
    </section>
  );
}
