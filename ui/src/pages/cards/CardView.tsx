// One clause card: a header that says what it is, then tabs (decision table, fact slots,
// constraints, missing variants, lint, history, edit) and the audit decision.

import { useCallback, useEffect, useMemo, useState } from "react";
import { api, EngineError, useApi } from "../../api/client";
import type { CardDetail } from "../../api/generated";
import { EventTypeBadge, Id, StatusBadge } from "../../components/Badges";
import { ConfirmDialog } from "../../components/Dialog";
import { ErrorBanner, Loading, Notice } from "../../components/Feedback";
import { Tabs } from "../../components/Layout";
import { EVENT_TYPE_LABEL, when } from "../../format";
import { href, Route, setQuery, useRoute } from "../../router";
import { useUnsavedChanges } from "../../unsaved";
import { AuditDialog } from "./AuditDialog";
import { Constraints, DecisionTable, FactSlots, LintFindings, Variants } from "./CardSections";
import { CardEditor, JumpRequest } from "./Editor";
import { History } from "./History";
import { CardTab } from "./logic";
import { LintCount, OriginBadge, ProvisionalBadge } from "./parts";
import { readCard } from "./types";
import { usePolicyId } from "../../policyChoice";

const TABS: CardTab[] = ["decision", "elements", "constraints", "variants", "lint", "history", "edit"];

function pretty(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

export function CardView({ cardId }: { cardId: string }) {
  const route = useRoute();
  const tabQ = route.query.get("tab") as CardTab | null;
  const tab: CardTab = tabQ && TABS.includes(tabQ) ? tabQ : "decision";
  const versionQ = route.query.get("version");
  const version = versionQ && /^\d+$/.test(versionQ) ? Number(versionQ) : undefined;

  const shown = useApi("card.show", version ? { card_id: cardId, version } : { card_id: cardId });
  const currentOnly = useApi("card.show", version ? { card_id: cardId } : null);
  const current: CardDetail | undefined = version ? currentOnly.data : shown.data;
  const policyId = usePolicyId();
  const policy = useApi("policy.show", { id: policyId });
  const library = useApi("cards.list", { policy: policyId });
  const knownCards = useMemo(() => new Set((library.data ?? []).map((c) => c.card_id)), [library.data]);

  const [draft, setDraft] = useState<string | null>(null);
  // The version the edit started from and the text it started with (to tell whether anything was typed).
  const [editBase, setEditBase] = useState<{ version: number; text: string } | null>(null);
  const [restoredFrom, setRestoredFrom] = useState<number | null>(null);
  const [jump, setJump] = useState<JumpRequest>(null);
  const [anchor, setAnchor] = useState<{ id: string; seq: number } | null>(null);
  const [auditing, setAuditing] = useState(false);
  const [restoreAsk, setRestoreAsk] = useState<number | null>(null);
  const [restoreError, setRestoreError] = useState<EngineError | undefined>();
  const [fullDefinition, setFullDefinition] = useState(false);

  const baseText = useMemo(() => (current ? pretty(current.card) : ""), [current]);
  const dirty = draft !== null && draft !== baseText;
  const guard = useUnsavedChanges(
    dirty,
    useCallback((to: Route) => to.path === route.path, [route.path]),
  );

  // Opening the editor starts from the current version.
  useEffect(() => {
    if (tab === "edit" && draft === null && current) {
      setDraft(baseText);
      setEditBase({ version: current.summary.version, text: baseText });
    }
  }, [tab, draft, current, baseText]);

  // The card may change while it is being edited (another window, the command line, a reviewer).
  // An edit nobody has typed into yet simply follows; typed work is never replaced without asking.
  const movedOn = draft !== null && current !== undefined && editBase !== null && current.summary.version !== editBase.version;
  const untouched = movedOn && draft === editBase?.text && restoredFrom === null;
  useEffect(() => {
    if (untouched && current) {
      setDraft(baseText);
      setEditBase({ version: current.summary.version, text: baseText });
    }
  }, [untouched, current, baseText]);
  const startFromCurrent = () => {
    if (!current) return;
    setDraft(baseText);
    setEditBase({ version: current.summary.version, text: baseText });
    setRestoredFrom(null);
  };
  const changedSince =
    movedOn && !untouched && current
      ? {
          version: current.summary.version,
          author: current.versions.find((v) => v.version === current.summary.version)?.author ?? null,
          onLoadLatest: startFromCurrent,
          onKeepMine: () => setEditBase({ version: current.summary.version, text: baseText }),
        }
      : null;

  const show = useCallback((t: CardTab, a?: string) => {
    setQuery("tab", t === "decision" ? null : t);
    if (a) setAnchor({ id: a, seq: Date.now() });
  }, []);

  // Scroll to, focus and briefly highlight the part a link pointed at.
  useEffect(() => {
    if (!anchor) return;
    const t = setTimeout(() => {
      const el = document.getElementById(anchor.id);
      if (!el) return;
      el.scrollIntoView({ block: "center" });
      el.focus({ preventScroll: true });
      el.classList.remove("flash");
      void el.offsetWidth;
      el.classList.add("flash");
    }, 30);
    return () => clearTimeout(t);
  }, [anchor, tab, shown.data]);

  const openInEditor = (pointer: string) => {
    if (draft === null) startFromCurrent();
    setQuery("version", null);
    setQuery("tab", "edit");
    setJump({ pointer, seq: Date.now() });
  };

  const restore = async (v: number) => {
    setRestoreError(undefined);
    try {
      const d = await api("card.show", { card_id: cardId, version: v });
      setDraft(pretty(d.card));
      setEditBase({ version: d.summary.version, text: pretty(d.card) });
      setRestoredFrom(v);
      setQuery("version", null);
      setQuery("tab", "edit");
    } catch (e) {
      setRestoreError(e as EngineError);
    }
  };

  if (shown.error && !shown.data) {
    return (
      <div className="stack">
        <nav className="crumbs" aria-label="Breadcrumb">
          <a href="#/cards">Card library</a>
        </nav>
        <ErrorBanner error={shown.error} title="This card could not be shown." />
        <a className="btn" href="#/cards">
          Back to the card library
        </a>
      </div>
    );
  }
  if (!shown.data) return <Loading label="Loading the card…" />;

  const d = shown.data;
  const s = d.summary;
  const card = readCard(d.card);
  const clause = policy.data?.clauses.find((c) => c.clause_id === card.clause_id);
  const older = d.shown_version !== s.version;
  const lintProblems = current?.lint ?? d.lint;
  const errors = current?.summary.lint_errors ?? s.lint_errors;
  const warnings = current?.summary.lint_warnings ?? s.lint_warnings;
  const variants = card.missing_information_variants ?? [];
  const typeWord = EVENT_TYPE_LABEL[card.event_type] ?? card.event_type;
  // A built-in card may say which provisional point it rests on (x_provisional_note).
  const rawNote = (d.card as Record<string, unknown> | null)?.x_provisional_note;
  const provisionalNote = typeof rawNote === "string" && rawNote.trim() !== "" ? rawNote : null;
  // Why the library reads the clause this way where the reading was doubted (x_decision).
  const rawDecision = (d.card as Record<string, unknown> | null)?.x_decision;
  const decisionNote = typeof rawDecision === "string" && rawDecision.trim() !== "" ? rawDecision : null;
  // The whole definition on the decision table; two lines elsewhere, so the work area stays in view.
  const clamp = tab !== "decision" && !fullDefinition && card.clause_card_definition.length > 200;

  const tabs = [
    { id: "decision", label: "Decision table" },
    { id: "elements", label: `Fact slots (${Object.keys(card.basic_event_elements).length})` },
    { id: "constraints", label: `Constraints (${card.constraints_on_basic_event_elements_instantiation.length})` },
    { id: "variants", label: `Missing variants (${variants.length})` },
    {
      id: "lint",
      label: (
        <span className="row gap-s">
          Lint <LintCount errors={errors} warnings={warnings} />
        </span>
      ),
    },
    { id: "history", label: `History (${d.versions.length})` },
    {
      id: "edit",
      label: (
        <span>
          Edit
          {dirty && (
            <span className="unsaved-dot" title="Unsaved changes">
              {" "}
              ● <span className="sr-only">unsaved changes</span>
            </span>
          )}
        </span>
      ),
    },
  ];

  return (
    <div className="card-view">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={href("/cards", clause ? { clause: clause.clause_id } : undefined)}>Card library</a>
        <span aria-hidden> › </span>
        <span>{clause ? clause.short_title : card.clause_id}</span>
      </nav>
      <header className="card-view-head target" id="card-top" tabIndex={-1}>
        <div className="cvh-main">
          <div className="row gap wrap cvh-badges">
            <EventTypeBadge eventType={card.event_type} />
            <StatusBadge status={s.status} />
            <OriginBadge origin={s.origin} />
            <ProvisionalBadge ids={s.provisional} long />
          </div>
          {provisionalNote && <p className="small provisional-note">{provisionalNote}</p>}
          <h1>
            {typeWord} card: {clause ? clause.short_title : card.clause_id}
          </h1>
          <Id value={s.card_id} />
          <p className={`narrative definition ${clamp ? "clamped" : ""}`} id="card-definition">
            {card.clause_card_definition || <em className="muted">This card has no definition.</em>}
          </p>
          {clamp && (
            <button type="button" className="link small" aria-controls="card-definition" onClick={() => setFullDefinition(true)}>
              Show the whole definition
            </button>
          )}
          <dl className="cvh-meta">
            <div>
              <dt>Version</dt>
              <dd>
                {d.shown_version}
                {older ? ` (older; current is ${s.version})` : ""}
              </dd>
            </div>
            <div>
              <dt>Clause</dt>
              <dd>
                {clause ? (
                  <a href={href("/policy", { tab: "clauses", focus: clause.clause_id })}>
                    {clause.label}: {clause.short_title}
                  </a>
                ) : (
                  <span>
                    <span aria-hidden>⚠ </span>
                    {card.clause_id} (not a clause of this policy)
                  </span>
                )}
              </dd>
            </div>
            <div>
              <dt>Audit</dt>
              <dd>
                {s.auditor ? (
                  <>
                    {s.status === "draft" ? "Set to draft" : s.status === "approved" ? "Approved" : "Audited"} by {s.auditor}
                    {d.audited_at ? `, ${when(d.audited_at)}` : ""}
                  </>
                ) : (
                  <span className="muted">Not audited yet</span>
                )}
              </dd>
            </div>
            {s.origin === "builtin" && (
              <div>
                <dt>Source</dt>
                <dd>Built-in, audited by the PSEBench Studio team</dd>
              </div>
            )}
          </dl>
          {d.audit_notes && <p className="small audit-notes">Audit notes: {d.audit_notes}</p>}
          {s.status !== "approved" && (
            <p className="small muted">
              Not used to generate cases until it is approved.
            </p>
          )}
        </div>
        <div className="cvh-actions">
          <button className="btn btn-primary" onClick={() => setAuditing(true)}>
            Record audit decision…
          </button>
          <button className="btn" onClick={() => show("edit")}>
            <span aria-hidden>✎</span> Edit card
          </button>
        </div>
      </header>

      {older && (
        <Notice kind="warn" title={`You are looking at version ${d.shown_version}, an older version.`}>
          The current version is {s.version}.{" "}
          <a href={href("/cards", cardId, { tab: tab === "decision" ? null : tab })}>Show the current version</a>
          {" · "}
          <button type="button" className="link" onClick={() => (dirty ? setRestoreAsk(d.shown_version) : restore(d.shown_version))}>
            Edit starting from this version
          </button>
        </Notice>
      )}
      <ErrorBanner error={restoreError} onDismiss={() => setRestoreError(undefined)} title="That version could not be opened." />

      <Tabs tabs={tabs} active={tab} onChange={(t) => show(t as CardTab)} label="Parts of the card" />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === "decision" && (
          <>
            {decisionNote && (
              <aside className="decision-note" aria-label="Why the card reads the clause this way">
                <strong>Why the card reads the clause this way.</strong> {decisionNote}
              </aside>
            )}
            <DecisionTable card={card} evidence={policy.data?.evidence} show={show} />
          </>
        )}
        {tab === "elements" && <FactSlots card={card} show={show} />}
        {tab === "constraints" && <Constraints card={card} show={show} />}
        {tab === "variants" && <Variants card={card} knownCards={knownCards} show={show} />}
        {tab === "lint" && <LintFindings problems={lintProblems} olderVersion={older} show={show} openInEditor={openInEditor} />}
        {tab === "history" && <History detail={d} onEditFrom={(v) => (dirty ? setRestoreAsk(v) : restore(v))} onAudit={() => setAuditing(true)} />}
        {tab === "edit" && current && draft !== null && (
          <>
            <p className="muted small">
              {restoredFrom !== null ? (
                <>
                  Editing a copy of <strong>version {restoredFrom}</strong>. Saving makes it version {current.summary.version + 1}.
                </>
              ) : (
                <>
                  Editing the current version ({current.summary.version}). The card is checked as you type.
                </>
              )}
            </p>
            <CardEditor
              detail={current}
              baseText={baseText}
              draft={draft}
              setDraft={setDraft}
              jump={jump}
              baseVersion={editBase?.version ?? current.summary.version}
              changedSince={changedSince}
              evidence={policy.data?.evidence ?? []}
              clauses={policy.data?.clauses ?? []}
              onSaved={() => {
                setDraft(null);
                setEditBase(null);
                setRestoredFrom(null);
                show("decision");
              }}
              onDiscard={() => {
                setDraft(null);
                setEditBase(null);
                setRestoredFrom(null);
                show("decision");
              }}
            />
          </>
        )}
      </div>

      {auditing && current && <AuditDialog detail={current} onClose={() => setAuditing(false)} onShowLint={() => show("lint")} />}
      {guard.pending && (
        <ConfirmDialog title="Leave without saving?" confirmLabel="Leave and discard" danger onCancel={guard.stay} onConfirm={guard.leave}>
          Your edits to {cardId} have not been saved. If you leave now they are lost.
        </ConfirmDialog>
      )}
      {restoreAsk !== null && (
        <ConfirmDialog
          title="Replace your unsaved edits?"
          confirmLabel={`Edit version ${restoreAsk} instead`}
          danger
          onCancel={() => setRestoreAsk(null)}
          onConfirm={() => {
            const v = restoreAsk;
            setRestoreAsk(null);
            void restore(v);
          }}
        >
          The editor holds changes that are not saved. Opening version {restoreAsk} replaces them.
        </ConfirmDialog>
      )}
    </div>
  );
}
