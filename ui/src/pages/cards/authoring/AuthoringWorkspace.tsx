// "Author from policy": for the policy in use, pick a clause, settle which policy sections bear on
// it (left) and draft cards from those sections (right). Drafting every clause at once runs as a
// background job.
//
// Address: #/cards?view=author&aclause=<clause id>&x=<extraction id>&draft=<draft id>

import { useCallback, useMemo, useState } from "react";
import { useApi } from "../../../api/client";
import { EmptyState, ErrorBanner, Loading } from "../../../components/Feedback";
import { PageHeader } from "../../../components/Layout";
import { plural } from "../../../format";
import { navigate, href, useRoute } from "../../../router";
import { usePolicyId } from "../../../policyChoice";
import { LibraryTabs } from "../LibraryTabs";
import { DraftAllDialog, DraftAllRuns } from "./DraftAllDialog";
import { DraftPanel } from "./DraftPanel";
import { ExtractionPanel } from "./ExtractionPanel";
import { cardCountsByClause, cardCountWords, clauseStates, extractionWords } from "./logic";
import "./authoring.css";

export function AuthoringWorkspace() {
  const route = useRoute();
  const policyId = usePolicyId();
  const policy = useApi("policy.show", { id: policyId });
  const models = useApi("models.list", {});
  const extractions = useApi("authoring.extractions", { policy: policyId, clause: null });
  const drafts = useApi("authoring.drafts", { policy: policyId });
  const cards = useApi("cards.list", { policy: policyId });
  const cardCounts = useMemo(() => cardCountsByClause(cards.data ?? []), [cards.data]);
  const [allOpen, setAllOpen] = useState(false);
  const closeAll = useCallback(() => setAllOpen(false), []);
  const clauses = useMemo(() => [...(policy.data?.clauses ?? [])].sort((a, b) => a.global_no - b.global_no), [policy.data]);
  const states = useMemo(
    () => clauseStates(clauses.map((c) => c.clause_id), extractions.data ?? [], drafts.data ?? []),
    [clauses, extractions.data, drafts.data],
  );
  const clauseId = route.query.get("aclause") ?? "";
  const clause = clauses.find((c) => c.clause_id === clauseId);
  const clauseDrafts = useMemo(() => (drafts.data ?? []).filter((d) => d.clause_id === clauseId), [drafts.data, clauseId]);
  const openDraft = route.query.get("draft");
  const currentDraft = clauseDrafts.find((d) => d.draft_id === openDraft) ?? [...clauseDrafts].sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  const shownDraft = useApi("authoring.draft_show", currentDraft ? { id: currentDraft.draft_id } : null);
  const cited = useMemo(() => new Set(currentDraft && shownDraft.data?.draft_id === currentDraft.draft_id ? shownDraft.data.cited : []), [currentDraft, shownDraft.data]);
  const pick = (id: string) => navigate(href("/cards", { view: "author", aclause: id }));
  const modelList = models.data ?? [];

  return (
    <div className="cards-page author-page">
      <PageHeader
        title="Card library"
        subtitle={`Write clause cards for ${policy.data?.name ?? "the policy"} with a model's help: settle which policy sections bear on a clause, draft cards from those sections, then accept, audit and approve.`}
        actions={
          <button
            className="btn"
            onClick={() => setAllOpen(true)}
            disabled={modelList.length === 0}
            title={modelList.length === 0 ? "Register a model in Settings first." : "Plan and run drafting for every clause with an approved extraction."}
          >
            Draft every clause…
          </button>
        }
      />
      <LibraryTabs active="author" />
      <ErrorBanner error={policy.error ?? extractions.error ?? drafts.error ?? models.error} title="The authoring workspace could not be loaded." />
      <DraftAllRuns policyId={policyId} />
      {!policy.data || !extractions.data || !drafts.data ? (
        <Loading />
      ) : (
        <div className="author-layout">
          <nav className="card clause-picker" aria-label="Clauses">
            <h2 className="small-head">Clauses</h2>
            <ul className="plain-list">
              {clauses.map((c) => {
                const s = states.get(c.clause_id);
                return (
                  <li key={c.clause_id}>
                    <button className={`clause-pick ${c.clause_id === clauseId ? "active" : ""}`} aria-current={c.clause_id === clauseId ? "true" : undefined} onClick={() => pick(c.clause_id)}>
                      <span className="clause-pick-title">
                        {c.global_no}. {c.short_title}
                      </span>
                      {c.label !== c.short_title && <span className="small muted">{c.label}</span>}
                      <span className="small muted" data-testid="clause-card-counts">
                        {cards.data ? cardCountWords(cardCounts.get(c.clause_id)) : ""}
                      </span>
                      <span className={`small ${s?.approved ? "ok-text" : "muted"}`}>{extractionWords(s)}</span>
                      {s && s.drafts > 0 && (
                        <span className="small muted">
                          {plural(s.drafts, "draft")}
                          {s.openDrafts > 0 ? `, ${s.openDrafts} to review` : ""}
                        </span>
                      )}
                    </button>
                  </li>
                );
              })}
            </ul>
          </nav>
          {!clause ? (
            <EmptyState title="Choose a clause to author">
              Pick a clause on the left. First a model proposes which sections of the policy bear on it and you approve that choice; then cards are drafted
              from the approved sections, checked in code, and wait for you to accept or reject them.
            </EmptyState>
          ) : (
            <div className="author-panels">
              <header className="author-clause">
                <h2>
                  {clause.global_no}. {clause.short_title} {clause.label !== clause.short_title && <span className="muted small">{clause.label}</span>}
                </h2>
                <p className="readable small">{clause.summary}</p>
              </header>
              <ExtractionPanel
                key={`x-${clause.clause_id}`}
                policyId={policyId}
                clauseId={clause.clause_id}
                clauseName={clause.label}
                models={modelList}
                versions={(extractions.data ?? []).filter((x) => x.clause_id === clause.clause_id)}
                cited={cited}
              />
              <DraftPanel
                key={`d-${clause.clause_id}`}
                policyId={policyId}
                clauseId={clause.clause_id}
                clauseName={clause.label}
                models={modelList}
                hasApproved={!!states.get(clause.clause_id)?.approved}
                drafts={clauseDrafts}
                currentId={currentDraft?.draft_id}
              />
            </div>
          )}
        </div>
      )}
      {allOpen && <DraftAllDialog policyId={policyId} models={modelList} onClose={closeAll} />}
    </div>
  );
}
