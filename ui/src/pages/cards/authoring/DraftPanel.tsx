// The right panel: draft complete-case cards, Uncertain cards or missing-information variants for
// the clause from its approved extraction, list the clause's drafts and open one.

import { useEffect, useMemo, useState } from "react";
import { useAction, useApi } from "../../../api/client";
import type { DraftKind, DraftSummary, ModelView } from "../../../api/generated";
import { EmptyState, ErrorBanner, toast } from "../../../components/Feedback";
import { plural, when } from "../../../format";
import { setQuery } from "../../../router";
import { DraftView } from "./DraftView";
import { Blocked, ModelSelect, useRemoteGuard } from "./ModelChoice";
import { defaultModel, draftBlocker, draftStatusLabel, KIND_LABEL } from "./logic";

export function DraftPanel({
  policyId,
  clauseId,
  clauseName,
  models,
  hasApproved,
  drafts,
  currentId,
}: {
  policyId: string;
  clauseId: string;
  clauseName: string;
  models: ModelView[];
  hasApproved: boolean;
  drafts: DraftSummary[];
  currentId: string | undefined;
}) {
  const [kind, setKind] = useState<DraftKind>("complete");
  const [parent, setParent] = useState("");
  const [model, setModel] = useState("");
  useEffect(() => {
    if (!models.some((m) => m.name === model)) setModel(defaultModel(models));
  }, [models, model]);
  const cards = useApi("cards.list", { policy: policyId, clause: clauseId });
  const parents = (cards.data ?? []).filter((c) => c.event_type !== "Uncertain");
  const draft = useAction("authoring.draft");
  const { guard, dialog } = useRemoteGuard(models);
  const blocker = draftBlocker(hasApproved, kind, parent, model);
  const sorted = useMemo(() => [...drafts].sort((a, b) => b.created_at.localeCompare(a.created_at)), [drafts]);
  const current = sorted.find((d) => d.draft_id === currentId);

  const run = () =>
    guard(model, <>The approved policy sections of {clauseName}{kind === "missing" ? " and the parent card" : ""}</>, async () => {
      const r = await draft.run({ policy: policyId, clause: clauseId, kind, parent: kind === "missing" ? parent : null, model });
      if (r) {
        toast(`Drafted ${plural(r.cards.length, kind === "missing" ? "variant" : "card")} in ${plural(r.attempts, "attempt")}.`);
        setQuery("draft", r.draft_id);
      }
    });

  return (
    <section className="card author-panel" aria-labelledby="d-title">
      <div className="card-head">
        <h2 id="d-title">2. Drafted cards</h2>
      </div>
      <fieldset className="radio-group" disabled={!hasApproved}>
        <legend>What to draft</legend>
        {(["complete", "uncertain", "missing"] as DraftKind[]).map((k) => (
          <label key={k}>
            <input type="radio" name="draft-kind" checked={kind === k} onChange={() => setKind(k)} /> {KIND_LABEL[k]}
          </label>
        ))}
      </fieldset>
      {kind === "missing" && hasApproved && (
        <div className="field">
          <label htmlFor="d-parent">Parent card</label>
          <select id="d-parent" value={parent} onChange={(e) => setParent(e.target.value)}>
            <option value="">Choose a card of this clause…</option>
            {parents.map((c) => (
              <option key={c.card_id} value={c.card_id}>
                {c.card_id} ({c.status})
              </option>
            ))}
          </select>
          {cards.data && parents.length === 0 && <p className="small muted">This clause has no Reportable or Non-reportable card yet: draft and accept complete-case cards first.</p>}
        </div>
      )}
      {kind === "complete" && hasApproved && parents.length > 0 && (
        <p className="small readable" data-testid="draft-gaps-only">
          This clause already has {plural(parents.length, "reportable or non-reportable card")}. They stay as they are: the model is shown them, with the
          combinations of their conditions that no card covers, and drafts only for what they leave open.
        </p>
      )}
      <div className="row gap wrap align-end">
        {models.length > 0 && <ModelSelect id="d-model" label="Model" models={models} value={model} onChange={setModel} />}
        <button className="btn btn-primary" disabled={!!blocker || draft.busy} onClick={run}>
          {draft.busy ? "Drafting…" : `Draft ${KIND_LABEL[kind].toLowerCase()}`}
        </button>
      </div>
      <Blocked reason={blocker} />
      {draft.busy && (
        <p className="small muted row gap">
          <span className="spinner" aria-hidden /> The model is drafting; problems found in code go back to it (up to three attempts).
        </p>
      )}
      <ErrorBanner error={draft.error} onDismiss={draft.clearError} title="Nothing was drafted." />
      {sorted.length > 0 && (
        <div className="field">
          <label htmlFor="d-pick">Draft</label>
          <select id="d-pick" value={current?.draft_id ?? ""} onChange={(e) => setQuery("draft", e.target.value)}>
            {sorted.map((d) => (
              <option key={d.draft_id} value={d.draft_id}>
                {KIND_LABEL[d.kind]} — {draftStatusLabel(d)} — {plural(d.item_ids.length, "item")}, {plural(d.errors, "error")} ({when(d.created_at)})
              </option>
            ))}
          </select>
        </div>
      )}
      {!current ? (
        hasApproved && (
          <EmptyState title="No draft for this clause yet">
            Choose what to draft above. The model writes from the approved sections only; every draft is checked in code and waits for a person to accept
            or reject it.
          </EmptyState>
        )
      ) : (
        <DraftView key={current.draft_id} id={current.draft_id} policyId={policyId} onRetry={blocker || draft.busy ? undefined : run} />
      )}
      {dialog}
    </section>
  );
}
