// One draft: its items as a form and as JSON, the problems found in code (per item), the model's
// own checks, which combinations of conditions the clause's cards cover, and a drafted card beside
// its nearest library card. Accept, edit or reject while it is open.

import { useCallback, useMemo, useState } from "react";
import { CallList, callTotals } from "../../../components/CallLedger";
import { useApi } from "../../../api/client";
import type { Draft } from "../../../api/generated";
import { DiffText } from "../../../components/DiffText";
import { EmptyState, ErrorBanner, Loading, Notice } from "../../../components/Feedback";
import { JsonBlock, Tabs } from "../../../components/Layout";
import { plural, when } from "../../../format";
import { href } from "../../../router";
import { diffBlocks, diffStats } from "../logic";
import { SeverityBadge } from "../parts";
import { AcceptDialog, EditDialog, RejectDialog } from "./DraftActions";
import { DraftItem } from "./DraftItems";
import { conditionWords, draftFailedReason, draftHasNothing, draftStatusLabel, groupDraftProblems, isOpen, KIND_LABEL } from "./logic";

function Problems({ d }: { d: Draft }) {
  const groups = groupDraftProblems(d.problems, d.item_ids);
  if (groups.length === 0) return <p className="small">No problems found in the drafted items.</p>;
  return (
    <div className="stack" data-testid="draft-problems">
      {groups.map((g) => (
        <section key={g.itemId ?? "draft"} className="problem-group">
          <h4>
            {g.itemId ? <code className="id">{g.itemId}</code> : "The draft as a whole"}{" "}
            <span className="small muted">
              {plural(g.errors, "error")}, {plural(g.warnings, "warning")}
            </span>
          </h4>
          <ul className="plain-list">
            {g.problems.map((p, i) => (
              <li key={i} className="problem-row small">
                <SeverityBadge severity={p.severity} /> <code className="id">{p.rule}</code> {p.message}
                {p.pointer && <span className="muted"> (at {p.pointer})</span>}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function Coverage({ d }: { d: Draft }) {
  const c = d.coverage;
  if (!c) return <p className="small muted">No coverage report for this kind of draft.</p>;
  return (
    <div className="stack" data-testid="coverage">
      <p>
        <strong>
          {c.covered} of {c.combinations}
        </strong>{" "}
        combinations of the {plural(c.conditions.length, "condition")} are admitted by a card ({c.cards.length ? `counting ${c.cards.join(", ")}` : "no cards"}).
      </p>
      {c.note && <p className="small muted">{c.note}</p>}
      {c.gaps.length === 0 ? (
        <p className="small">
          <span aria-hidden>✓ </span>No gaps: every combination is covered by a card.
        </p>
      ) : (
        <table className="data compact">
          <caption className="cap-left">Combinations no card admits{c.gaps.length >= 32 ? " (the first 32)" : ""}</caption>
          <thead>
            <tr>
              {c.conditions.map((n) => (
                <th key={n} title={n}>
                  {conditionWords(n)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {c.gaps.map((g, i) => (
              <tr key={i}>
                {c.conditions.map((n) => (
                  <td key={n}>{g[n] === undefined ? "–" : g[n] ? "holds" : "does not hold"}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function SelfCheckList({ d }: { d: Draft }) {
  if (d.self_check.length === 0) return <p className="small muted">The model reported no checks of its own.</p>;
  return (
    <ul className="plain-list" data-testid="draft-self-check">
      {d.self_check.map((s, i) => (
        <li key={i} className="small">
          <span className={s.passed ? "ok-text" : "warn-text"}>{s.passed ? "✓ passed" : "✗ not passed"}</span> {s.check}
          {s.note && <span className="muted"> — {s.note}</span>}
        </li>
      ))}
    </ul>
  );
}

function Compare({ d, policyId }: { d: Draft; policyId: string }) {
  const cards = useApi("cards.list", { policy: policyId, clause: d.clause_id });
  const [item, setItem] = useState(d.item_ids[0] ?? "");
  const nearest = d.nearest.find((n) => n.item_id === item)?.card_id ?? (d.kind === "missing" ? d.parent_card_id : null);
  const [chosen, setChosen] = useState<string | null>(null);
  const against = chosen ?? nearest ?? "";
  const diff = useApi("authoring.draft_diff", item && against ? { draft_id: d.draft_id, item_id: item, against } : null);
  const blocks = useMemo(() => diffBlocks(diff.data?.lines ?? [], 1000), [diff.data]);
  const others = (cards.data ?? []).filter((c) => !d.item_ids.includes(c.card_id) || d.status === "accepted");
  return (
    <div className="stack" data-testid="draft-compare">
      <div className="row gap wrap">
        <div className="field">
          <label htmlFor="cmp-item">Drafted item</label>
          <select id="cmp-item" value={item} onChange={(e) => (setItem(e.target.value), setChosen(null))}>
            {d.item_ids.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="cmp-against">Compare with</label>
          <select id="cmp-against" value={against} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose a library card…</option>
            {others.map((c) => (
              <option key={c.card_id} value={c.card_id}>
                {c.card_id}
                {c.card_id === nearest ? " (nearest)" : ""}
              </option>
            ))}
          </select>
        </div>
      </div>
      {!against ? (
        <EmptyState title="No library card to compare with">This clause has no card in the library yet; the drafted cards would be its first.</EmptyState>
      ) : diff.error ? (
        <ErrorBanner error={diff.error} title="The comparison could not be made." />
      ) : !diff.data ? (
        <Loading label="Comparing…" />
      ) : (
        <div className="diff">
          <div className="diff-summary small">
            {against} (−) against {item} (+): {plural(diffStats(diff.data.lines).removed, "line")} only in the library card,{" "}
            {plural(diffStats(diff.data.lines).added, "line")} only in the draft.
          </div>
          <div className="diff-body" role="table" aria-label={`${item} against ${against}`}>
            {blocks.flatMap((b, bi) =>
              b.rows.map((r, ri) => (
                <div key={`${bi}-${ri}`} role="row" className={`diff-row diff-${r.kind}`}>
                  <span role="cell" className="diff-no">
                    {r.oldNo ?? ""}
                  </span>
                  <span role="cell" className="diff-no">
                    {r.newNo ?? ""}
                  </span>
                  <span role="cell" className="diff-sign">
                    <span aria-hidden>{r.kind === "added" ? "+" : r.kind === "removed" ? "−" : " "}</span>
                    <span className="sr-only">{r.kind === "added" ? "only in the draft" : r.kind === "removed" ? "only in the library card" : ""}</span>
                  </span>
                  <span role="cell" className="diff-text">
                    <DiffText kind={r.kind} text={r.text} parts={r.parts} />
                  </span>
                </div>
              )),
            )}
          </div>
        </div>
      )}
    </div>
  );
}

export function DraftView({ id, policyId, onRetry }: { id: string; policyId: string; onRetry?: () => void }) {
  const shown = useApi("authoring.draft_show", { id });
  const [tab, setTab] = useState("form");
  const [dialog, setDialog] = useState<"accept" | "edit" | "reject" | null>(null);
  const [acceptedNow, setAcceptedNow] = useState<string[] | null>(null);
  // A stable closer, so that reloading the draft behind an open dialog does not move the focus.
  const closeDialog = useCallback(() => setDialog(null), []);
  const d = shown.data;
  if (shown.error) return <ErrorBanner error={shown.error} title="The draft could not be read." />;
  if (!d) return <Loading label="Reading the draft…" />;
  const groups = groupDraftProblems(d.problems, d.item_ids);
  const count = (itemId: string, sev: string) => d.problems.filter((p) => p.item_id === itemId && p.severity === sev).length;
  const errors = d.problems.filter((p) => p.severity === "error").length;
  const accepted = acceptedNow ?? (d.status === "accepted" ? d.accepted_ids : []);
  return (
    <div className="stack draft-view" data-testid="draft-view">
      <div className="row between wrap">
        <div className="row gap wrap">
          <span className={`badge draft-status draft-status-${d.status}`}>{draftStatusLabel(d)}</span>
          <strong>{KIND_LABEL[d.kind]}</strong>
          {d.parent_card_id && <span className="small">for <code className="id">{d.parent_card_id}</code></span>}
        </div>
        <span className="small muted">
          {d.model} · {plural(d.attempts, "attempt")} · from extraction version {d.extraction_version} · {when(d.created_at)}
        </span>
      </div>
      {draftHasNothing(d) && (
        <div data-testid="draft-failed">
          <Notice kind="warn">
            <p>
              <strong>Failed:</strong> {draftFailedReason(d)} Nothing was drafted to accept.
            </p>
            {onRetry && (
              <button className="btn btn-small" onClick={onRetry}>
                Try again
              </button>
            )}
          </Notice>
        </div>
      )}
      {isOpen(d) && (
        <div className="row gap wrap">
          <button className="btn btn-primary" onClick={() => setDialog("accept")}>
            Accept…
          </button>
          <button className="btn" onClick={() => setDialog("edit")}>
            Edit JSON…
          </button>
          <button className="btn" onClick={() => setDialog("reject")}>
            Reject…
          </button>
          {errors > 0 && <span className="small warn-text">{plural(errors, "error")} left: items with errors cannot be accepted until they are fixed.</span>}
        </div>
      )}
      {d.edited_by && (
        <p className="small muted">
          Edited by {d.edited_by} {when(d.edited_at)}.
        </p>
      )}
      {d.status === "rejected" && (
        <Notice kind="info" title={`Rejected by ${d.decided_by ?? "?"}`}>
          Reason: {d.decision_notes}
        </Notice>
      )}
      {accepted.length > 0 && (
        <Notice kind="success" title={`Accepted${d.decided_by ? ` by ${d.decided_by}` : ""}`}>
          In the library as drafts:{" "}
          {accepted.map((c, i) => (
            <span key={c}>
              {i > 0 && ", "}
              <a href={href("/cards", c)}>{c}</a>
            </span>
          ))}
          . Open a card and record an audit decision: audited first, then approved.
        </Notice>
      )}
      <Tabs
        label="Draft views"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: "form", label: d.kind === "missing" ? "Variants" : "Cards" },
          { id: "json", label: "JSON" },
          { id: "problems", label: `Problems (${d.problems.length})` },
          { id: "selfcheck", label: "Self-check" },
          { id: "coverage", label: "Coverage" },
          { id: "compare", label: "Compare" },
        ]}
      />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === "form" && (
          <div className="stack">
            {d.items.map((it, i) => (
              <DraftItem key={d.item_ids[i] ?? i} item={it} itemId={d.item_ids[i] ?? `item ${i + 1}`} kind={d.kind} errors={count(d.item_ids[i], "error")} warnings={count(d.item_ids[i], "warning")} />
            ))}
            {groups.some((g) => g.itemId === null) && <Problems d={{ ...d, problems: d.problems.filter((p) => !p.item_id) }} />}
          </div>
        )}
        {tab === "json" && <JsonBlock value={d.items} />}
        {tab === "problems" && <Problems d={d} />}
        {tab === "selfcheck" && <SelfCheckList d={d} />}
        {tab === "coverage" && <Coverage d={d} />}
        {tab === "compare" && <Compare d={d} policyId={policyId} />}
      </div>
      <details className="small">
        <summary>Model calls ({d.calls.length})</summary>
        <div className="small muted">{callTotals(d.calls)}</div>
        <CallList calls={d.calls} roleLabels={undefined} label="Model calls of this draft" />
      </details>
      {dialog === "accept" && <AcceptDialog draft={d} onClose={closeDialog} onAccepted={setAcceptedNow} />}
      {dialog === "reject" && <RejectDialog draft={d} onClose={closeDialog} />}
      {dialog === "edit" && <EditDialog draft={d} onClose={closeDialog} />}
    </div>
  );
}

