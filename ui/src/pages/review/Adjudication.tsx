// The adjudication queue: cases where reviewers disagree with each other or with the
// by-construction verdict, or rate a case low. The owner sees every answer side by side and records
// the final call (accept, relabel, reject — optionally excluding the case from runs); every decision
// is kept with who made it.

import { useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { AdjudicationDecision, QueueItem, ReviewAdjudication, ReviewVerdict } from "../../api/generated";
import { CaseTypeBadge, Id, VerdictBadge } from "../../components/Badges";
import { EmptyState, ErrorBanner, Loading, toast } from "../../components/Feedback";
import { Checkbox } from "../../components/Forms";
import { NameField, useRememberedName } from "../../components/NameField";
import { adjudicationBlocker } from "./logic";
import { duration, humanize, when } from "../../format";

const VERDICTS: ReviewVerdict[] = ["Reportable", "Non-reportable", "Missing information", "Uncertain"];

function decisionText(d: AdjudicationDecision): string {
  return d.kind === "accept" ? "Accepted as it is" : d.kind === "reject" ? "Rejected" : `Relabelled as ${d.verdict}`;
}

function History({ sessionId, caseId }: { sessionId: string; caseId: string }) {
  const h = useApi("review.adjudications", { session: sessionId, case_id: caseId });
  if (!h.data || h.data.length === 0) return null;
  return (
    <details className="rev-history">
      <summary>Decisions on this case ({h.data.length})</summary>
      <ol>
        {h.data.map((d: ReviewAdjudication) => (
          <li key={d.id} className={d.superseded ? "superseded" : ""}>
            <strong>{decisionText(d.decision)}</strong> by {d.adjudicator}, {when(d.decided_at)}
            {d.excluded_case ? " · excluded the case from runs" : ""}
            {d.restored_case ? " · brought the case back into runs" : ""}
            {d.superseded ? " (replaced by a later decision)" : " (in force)"}
            {d.note && <div className="muted">“{d.note}”</div>}
          </li>
        ))}
      </ol>
    </details>
  );
}

function DecisionForm({ sessionId, item }: { sessionId: string; item: QueueItem }) {
  const adj = useAction("review.adjudicate");
  // No call is chosen beforehand, not even the one in force: the adjudicator picks one.
  const [kind, setKind] = useState<"accept" | "relabel" | "reject" | null>(null);
  const [verdict, setVerdict] = useState<ReviewVerdict>(
    item.decision?.decision.kind === "relabel" ? item.decision.decision.verdict : VERDICTS.find((v) => v !== item.expected_verdict) ?? "Uncertain",
  );
  const [exclude, setExclude] = useState(false);
  const [note, setNote] = useState("");
  const { name: who, setName: setWho, prefilled, remember } = useRememberedName("adjudicator");
  const blocker = adjudicationBlocker(kind, who);
  const id = item.case_id.replace(/[^A-Za-z0-9_-]/g, "_");
  const submit = async () => {
    if (!kind) return;
    remember();
    const decision: AdjudicationDecision = kind === "relabel" ? { kind, verdict } : { kind };
    const r = await adj.run({ session_id: sessionId, case_id: item.case_id, decision, adjudicator: who.trim(), note: note.trim() || null, exclude: kind === "reject" && exclude });
    if (r) {
      toast(`${decisionText(r.decision)}: ${item.case_id}${r.excluded_case ? ", excluded from runs" : ""}${r.restored_case ? ", back in runs" : ""}.`);
      setNote("");
    }
  };
  return (
    <form
      className="rev-decide"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      aria-label={`Decision on ${item.case_id}`}
    >
      <fieldset>
        <legend>Final call</legend>
        <label>
          <input type="radio" name={`k-${id}`} checked={kind === "accept"} onChange={() => setKind("accept")} /> Accept the case as it is
        </label>
        <label>
          <input type="radio" name={`k-${id}`} checked={kind === "relabel"} onChange={() => setKind("relabel")} /> Relabel: the right answer is…
        </label>
        {kind === "relabel" && (
          <select aria-label="Right answer" value={verdict} onChange={(e) => setVerdict(e.target.value as ReviewVerdict)}>
            {VERDICTS.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        )}
        <label>
          <input type="radio" name={`k-${id}`} checked={kind === "reject"} onChange={() => setKind("reject")} /> Reject: not fit for the benchmark
        </label>
        {kind === "reject" && (
          <Checkbox label="Exclude this case from runs" checked={exclude} onChange={setExclude} hint="The case stays in the store, flagged; runs leave it out. A later accept brings it back." />
        )}
      </fieldset>
      <div className="stack">
        <NameField role="adjudicator" label="Adjudicator" value={who} onChange={setWho} prefilled={prefilled} hint="Say who decides; the queue keeps it with the decision." />
      </div>
      <div className="field">
        <label htmlFor={`note-${id}`}>Note (optional)</label>
        <textarea id={`note-${id}`} rows={3} value={note} onChange={(e) => setNote(e.target.value)} placeholder="Why this call, for whoever reads the review later" />
      </div>
      <div className="rev-decide-actions">
        <ErrorBanner error={adj.error} onDismiss={adj.clearError} title="The decision was not recorded." />
        {blocker && <p className="small muted blocked-reason">{blocker}</p>}
        <button type="submit" className="btn btn-primary" disabled={adj.busy || !!blocker}>
          Record decision
        </button>
      </div>
    </form>
  );
}

function QueueCard({ sessionId, item }: { sessionId: string; item: QueueItem }) {
  return (
    <section className="card rev-queue-item" aria-labelledby={`q-${item.case_id}`} data-testid="queue-item">
      <div className="card-head">
        <div className="row gap wrap">
          <h3 id={`q-${item.case_id}`} style={{ margin: 0 }}>
            <Id value={item.case_id} />
          </h3>
          <CaseTypeBadge caseType={item.case_type} />
          <span className="small muted">{item.clause_id}</span>
          <span className="small">
            Built to be <VerdictBadge verdict={item.expected_verdict} />
          </span>
        </div>
        <div className="row gap">
          {item.excluded_in_dataset && (
            <span className="badge status-failed">
              <span className="badge-icon" aria-hidden>
                ⊘
              </span>
              Excluded from runs
            </span>
          )}
          {item.decision ? (
            <span className="badge status-approved">
              <span className="badge-icon" aria-hidden>
                ✓
              </span>
              {decisionText(item.decision.decision)} by {item.decision.adjudicator}
            </span>
          ) : item.reasons.length > 0 ? (
            <span className="badge status-audited">
              <span className="badge-icon" aria-hidden>
                …
              </span>
              To decide
            </span>
          ) : null}
        </div>
      </div>
      {item.reasons.length > 0 && (
        <ul className="rev-reasons" aria-label="Why this case is here">
          {item.reasons.map((r) => (
            <li key={r.code} className="rev-reason">
              <span aria-hidden>⚑ </span>
              {r.text}
            </li>
          ))}
        </ul>
      )}
      <details>
        <summary>Report</summary>
        <div className="narrative">{item.narrative}</div>
      </details>
      <div className="table-wrap">
        <table className="data rev-answers">
          <caption className="sr-only">Answers of the reviewers</caption>
          <thead>
            <tr>
              <th>Reviewer</th>
              <th style={{ textAlign: "right" }}>Realism</th>
              <th style={{ textAlign: "right" }}>Plausibility</th>
              <th>Own verdict</th>
              <th>Agrees with by-construction</th>
              <th>Comment</th>
              <th style={{ textAlign: "right" }}>Time</th>
            </tr>
          </thead>
          <tbody>
            {item.answers.map((a) => (
              <tr key={a.reviewer}>
                <td>
                  {a.reviewer}
                  {!a.complete && <div className="small muted">not finished</div>}
                </td>
                <td style={{ textAlign: "right" }}>{a.realism ?? "–"}</td>
                <td style={{ textAlign: "right" }}>{a.plausibility ?? "–"}</td>
                <td>{a.blind_verdict ? <VerdictBadge verdict={a.blind_verdict} /> : <span className="muted">–</span>}</td>
                <td>{a.agree === null ? "–" : a.agree ? "✓ Agrees" : "✗ Disagrees"}</td>
                <td className="comment">{a.comment ?? ""}</td>
                <td style={{ textAlign: "right" }}>{duration(a.time_spent_secs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {item.rationale && (
        <details>
          <summary>The model&apos;s rationale: the M4 judge and the reviewers</summary>
          <blockquote className="rv-rationale-text">{item.rationale.rationale}</blockquote>
          <div className="table-wrap">
            <table className="data">
              <caption className="sr-only">Conditions the rationale establishes, according to the judge and to each reviewer</caption>
              <thead>
                <tr>
                  <th>Condition</th>
                  <th>M4 judge</th>
                  {item.answers.map((a) => (
                    <th key={a.reviewer}>{a.reviewer}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {item.rationale.conditions.map((c) => (
                  <tr key={c.name}>
                    <td>
                      {humanize(c.name)} <span className="muted small">({c.value ? "holds" : "does not hold"})</span>
                    </td>
                    <td>{item.judge_established ? (item.judge_established.includes(c.name) ? "✓ established" : "✗ not") : "–"}</td>
                    {item.answers.map((a) => (
                      <td key={a.reviewer}>{a.rationale_established ? (a.rationale_established.includes(c.name) ? "✓ established" : "✗ not") : "–"}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
      <History sessionId={sessionId} caseId={item.case_id} />
      <DecisionForm key={item.decision?.id ?? "none"} sessionId={sessionId} item={item} />
    </section>
  );
}

export function AdjudicationTab({ sessionId }: { sessionId: string }) {
  const [threshold, setThreshold] = useState(2);
  const [low, setLow] = useState(2);
  const [showDecided, setShowDecided] = useState(false);
  const [showAll, setShowAll] = useState(false);
  const q = useApi("review.queue", { session_id: sessionId, threshold, low_rating: low, include_decided: showDecided, include_unflagged: showAll });
  return (
    <div className="stack">
      <p className="muted">
        Cases come here when reviewers give different verdicts, when a blind verdict differs from the by-construction one, when someone disagrees with it,
        when ratings of the same case are far apart, or when a rating is low.
      </p>
      <div className="filters">
        <div className="field">
          <label htmlFor="adj-threshold">Ratings far apart: more than</label>
          <select id="adj-threshold" value={threshold} onChange={(e) => setThreshold(Number(e.target.value))}>
            {[0, 1, 2, 3].map((t) => (
              <option key={t} value={t}>
                {t} point{t === 1 ? "" : "s"} apart
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="adj-low">Low rating: at or below</label>
          <select id="adj-low" value={low} onChange={(e) => setLow(Number(e.target.value))}>
            <option value={0}>off</option>
            {[1, 2, 3].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <Checkbox label="Show decided cases too" checked={showDecided} onChange={setShowDecided} />
        <Checkbox label="Show every case" checked={showAll} onChange={setShowAll} />
      </div>
      <ErrorBanner error={q.error} title="The queue could not be built." />
      {!q.data && !q.error && <Loading />}
      {q.data && (
        <>
          <p>
            <strong>{q.data.pending}</strong> case{q.data.pending === 1 ? "" : "s"} to decide · {q.data.decided} decided
          </p>
          {q.data.items.length === 0 ? (
            <EmptyState level={2} title={q.data.pending + q.data.decided === 0 ? "Nothing to adjudicate" : "Every flagged case has a decision"}>
              {q.data.pending + q.data.decided === 0
                ? "No case is flagged with these settings. Cases appear here as reviewers answer."
                : "Tick “Show decided cases too” to see or change the decisions."}
            </EmptyState>
          ) : (
            q.data.items.map((it) => <QueueCard key={it.case_id} sessionId={sessionId} item={it} />)
          )}
        </>
      )}
    </div>
  );
}
