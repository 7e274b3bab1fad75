// Anchors: the real (de-identified) incident reports that seed the setting and style of generated
// cases. Buckets per clause, a filtered list with a preview, import, move, remove, and the optional
// model helpers (topical pre-sort, translation).

import { ReactNode, useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { AnchorFilter, AnchorSummary } from "../../api/generated";
import { Id } from "../../components/Badges";
import { Column, DataTable } from "../../components/DataTable";
import { ConfirmDialog } from "../../components/Dialog";
import { EmptyState, ErrorBanner, Loading, toast } from "../../components/Feedback";
import { KeyValues, PageHeader, Section } from "../../components/Layout";
import { plural, when } from "../../format";
import { setQuery, useRoute } from "../../router";
import { BucketDialog } from "./BucketDialog";
import { BucketOverview } from "./BucketOverview";
import { clauseLabel, clauseShort, useClauses } from "./clauses";
import { ImportDialog } from "./ImportDialog";
import { bucketOriginText, bucketRows, DEFAULT_PER_CARD, languageName, languagesOf, needsTranslation } from "./logic";
import { ModelBatchDialog } from "./ModelBatchDialog";
import { AnchorJobs } from "./AnchorJobs";
import type { AnchorJobKind } from "../../api/generated";
import "./anchors.css";
import { useDebounced } from "./hooks";
import { usePolicyId } from "../../policyChoice";

export function OriginBadge({ origin }: { origin: string }) {
  return origin === "builtin" ? (
    <span className="badge origin-builtin" title="A synthetic sample that comes with the app">
      <span aria-hidden className="badge-icon">◇</span>Built-in sample
    </span>
  ) : (
    <span className="badge origin-imported" title="Imported by you">
      <span aria-hidden className="badge-icon">⤓</span>Imported
    </span>
  );
}


function AnchorPreview({
  id,
  clauses,
  onMove,
  onRemove,
  onClose,
}: {
  id: string;
  clauses: ReturnType<typeof useClauses>;
  onMove: () => void;
  onRemove: () => void;
  onClose: () => void;
}) {
  const a = useApi("anchor.show", { anchor_id: id });
  if (a.error)
    return (
      <Section title="Anchor">
        <ErrorBanner error={a.error} title="This anchor could not be shown." />
      </Section>
    );
  if (!a.data) return <Loading />;
  const x = a.data;
  return (
    <section className="card anchor-preview" aria-label={`Anchor ${x.anchor_id}`}>
      <div className="card-head">
        <div>
          <h2>Anchor</h2>
          <Id value={x.anchor_id} />
        </div>
        <div className="row gap">
          <OriginBadge origin={x.origin} />
          <button className="btn-ghost" onClick={onClose} aria-label="Close the preview">
            ✕
          </button>
        </div>
      </div>
      <div className="narrative anchor-text">{x.text}</div>
      <KeyValues
        items={[
          [
            "Bucket",
            <>
              <div>
                {x.clause_id ? (
                  <>
                    <strong>{clauseShort(clauses, x.clause_id)}</strong> <span className="muted">({clauseLabel(clauses, x.clause_id)})</span>
                  </>
                ) : (
                  <strong>Not sorted yet</strong>
                )}
              </div>
              <div className="muted small">{bucketOriginText(x.bucket_origin, x.bucket_note)}</div>
            </>,
          ],
          ["Source", x.source],
          [
            "Language",
            <>
              {languageName(x.language)}
              {x.original_language && (
                <span className="muted small">
                  {" "}
                  · translated from {languageName(x.original_language)}
                  {x.translated_by ? ` by ${x.translated_by}` : ""}
                </span>
              )}
            </>,
          ],
          ...(x.original_text
            ? ([
                [
                  "Original text",
                  <details>
                    <summary>Show the text as imported{x.original_language ? ` (${languageName(x.original_language)})` : ""}</summary>
                    <div className="narrative anchor-original" lang={x.original_language ?? undefined}>
                      {x.original_text}
                    </div>
                  </details>,
                ],
              ] as [string, ReactNode][])
            : []),
          [
            "Content hash",
            <>
              <Id value={x.content_sha} />
              <div className="muted small">The same text (spacing aside) always has the same hash; a second copy is skipped on import.</div>
            </>,
          ],
          ...(x.file_name ? ([["File", x.file_name]] as [string, string][]) : []),
          ["Added", when(x.created_at)],
        ]}
      />
      <div className="row gap wrap">
        <button className="btn" onClick={onMove}>
          Move to bucket…
        </button>
        <button className="btn" onClick={onRemove}>
          Remove…
        </button>
      </div>
    </section>
  );
}

export function AnchorsPage() {
  const route = useRoute();
  const q = route.query;
  const bucket = q.get("clause") ?? ""; // clause id, "unsorted" or ""
  const origin = q.get("origin") ?? "";
  const language = q.get("language") ?? "";
  const open = q.get("anchor");
  const [search, setSearch] = useState(q.get("q") ?? "");
  const debounced = useDebounced(search.trim(), 250);
  const [targetText, setTargetText] = useState(String(DEFAULT_PER_CARD));
  const target = Math.min(1000, Math.max(1, Math.round(Number(targetText)) || DEFAULT_PER_CARD));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<null | "import" | "presort" | "translate" | "move" | "remove">(null);
  const [removeIds, setRemoveIds] = useState<string[]>([]);
  const [openJob, setOpenJob] = useState<string | undefined>(undefined);

  const clauses = useClauses();
  const buckets = useApi("anchors.buckets", { policy: usePolicyId() });
  const everything = useApi("anchors.list", { clause_id: null, origin: null, unbucketed_only: false, language: null });
  const filter: AnchorFilter = {
    clause_id: bucket && bucket !== "unsorted" ? bucket : null,
    origin: origin || null,
    unbucketed_only: bucket === "unsorted",
    language: language || null,
    search: debounced || undefined,
  };
  const list = useApi("anchors.list", filter);
  const remove = useAction("anchors.remove");

  const all = useMemo(() => everything.data ?? [], [everything.data]);
  const rows = useMemo(() => (buckets.data && clauses ? bucketRows(buckets.data, clauses.list, target) : null), [buckets.data, clauses, target]);
  const languages = useMemo(() => languagesOf(all), [all]);
  const shown = list.data ?? [];
  const filtered = !!(bucket || origin || language || debounced);

  const pickBucket = (b: string) => {
    setQuery("clause", b || null);
  };
  const toggle = (id: string, on: boolean) =>
    setSelected((s) => {
      const n = new Set(s);
      if (on) n.add(id);
      else n.delete(id);
      return n;
    });
  const allShownSelected = shown.length > 0 && shown.every((a) => selected.has(a.anchor_id));

  const doRemove = async () => {
    const ids = removeIds;
    setDialog(null);
    const r = await remove.run({ anchor_ids: ids });
    if (r) {
      toast(`Removed ${plural(r.count, "anchor")}.`);
      setSelected((s) => new Set([...s].filter((x) => !ids.includes(x))));
      if (open && ids.includes(open)) setQuery("anchor", null);
    }
  };

  const narrowColumns: Column<AnchorSummary>[] = [
    { key: "origin", header: "Origin", render: (a) => <OriginBadge origin={a.origin} />, sort: (a) => a.origin },
    {
      key: "lang",
      header: "Language",
      render: (a) => (
        <span>
          {a.language}
          {a.translated && <span className="badge translated" title="Translated; the original is kept">translated</span>}
        </span>
      ),
      sort: (a) => a.language,
    },
    { key: "words", header: "Words", align: "right", render: (a) => a.words, sort: (a) => a.words },
  ];
  if (buckets.error) return <ErrorBanner error={buckets.error} title="The anchors could not be read." />;
  const builtinCount = all.filter((a) => a.origin === "builtin").length;
  const importedCount = all.length - builtinCount;

  return (
    <>
      <PageHeader
        title="Anchors"
        subtitle="Real incident reports that give generated cases their setting and voice."
        actions={
          <button className="btn btn-primary" onClick={() => setDialog("import")}>
            Import anchors…
          </button>
        }
      />
      <p className="intro">
        An anchor is a de-identified incident report from real practice. It never decides a case's verdict: when a case is generated from a clause card,
        the anchor lends it a ward, the people involved, the equipment and the way reports are written, so that cases read like real ones and differ from
        each other. Each anchor sits in the topical bucket of one of the policy’s clauses, and a card only borrows from its own clause's bucket. The{" "}
        {builtinCount} synthetic samples that come with the app are marked <em>Built-in sample</em>; add your own reports beside them
        {importedCount > 0 ? ` (you have imported ${importedCount})` : ""}.
      </p>

      <Section
        title="Buckets"
        actions={
          <div className="field inline-field">
            <label htmlFor="target">Anchors per card</label>
            <input
              id="target"
              type="number"
              min={1}
              max={1000}
              value={targetText}
              onChange={(e) => setTargetText(e.target.value)}
            />
          </div>
        }
      >
        {rows ? <BucketOverview rows={rows.rows} unsorted={rows.unsorted} target={target} active={bucket} onPick={pickBucket} /> : <Loading />}
      </Section>

      <AnchorJobs
        onOpen={(runId: string, kind: AnchorJobKind) => {
          setOpenJob(runId);
          setDialog(kind);
        }}
      />

      <Section
        title="All anchors"
        actions={
          <>
            <button className="btn" onClick={() => { setOpenJob(undefined); setDialog("presort"); }}>
              Sort with a model…
            </button>
            <button className="btn" onClick={() => { setOpenJob(undefined); setDialog("translate"); }} disabled={needsTranslation(all).length === 0} title={needsTranslation(all).length === 0 ? "Every anchor is in English" : undefined}>
              Translate to English…
            </button>
          </>
        }
      >
        <div className="filters anchors-filters" role="search" aria-label="Filter anchors">
          <div className="field">
            <label htmlFor="f-bucket">Bucket</label>
            <select id="f-bucket" value={bucket} onChange={(e) => pickBucket(e.target.value)}>
              <option value="">All buckets</option>
              <option value="unsorted">Not sorted yet ({rows?.unsorted?.total ?? 0})</option>
              {rows?.rows.map((r) => (
                <option key={r.clauseId} value={r.clauseId ?? ""}>
                  {r.no}. {r.title} ({r.total})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="f-origin">Origin</label>
            <select id="f-origin" value={origin} onChange={(e) => setQuery("origin", e.target.value || null)}>
              <option value="">Built-in and imported</option>
              <option value="builtin">Built-in samples ({builtinCount})</option>
              <option value="imported">Imported ({importedCount})</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="f-lang">Language</label>
            <select id="f-lang" value={language} onChange={(e) => setQuery("language", e.target.value || null)}>
              <option value="">Any language</option>
              {languages.map((l) => (
                <option key={l} value={l}>
                  {languageName(l)}
                </option>
              ))}
            </select>
          </div>
          <div className="field grow">
            <label htmlFor="f-search">Search the text</label>
            <input id="f-search" type="search" value={search} placeholder="Words in the report, its id or source" onChange={(e) => setSearch(e.target.value)} />
          </div>
          {filtered && (
            <button
              className="btn"
              onClick={() => {
                setSearch("");
                ["clause", "origin", "language"].forEach((k) => setQuery(k, null));
              }}
            >
              Clear filters
            </button>
          )}
        </div>
        <div className="row between wrap list-bar">
          <span className="muted small" aria-live="polite">
            {list.data ? (filtered ? `${plural(shown.length, "anchor")} match, of ${all.length}` : plural(all.length, "anchor")) : " "}
          </span>
          {selected.size > 0 && (
            <div className="row gap selection-bar">
              <strong>{selected.size} selected</strong>
              <button className="btn btn-small" onClick={() => { setOpenJob(undefined); setDialog("presort"); }}>
                Sort selected with a model…
              </button>
              <button
                className="btn btn-small"
                onClick={() => {
                  setRemoveIds([...selected]);
                  setDialog("remove");
                }}
              >
                Remove selected…
              </button>
              <button className="btn-ghost btn-small" onClick={() => setSelected(new Set())}>
                Clear selection
              </button>
            </div>
          )}
        </div>
        <ErrorBanner error={list.error ?? remove.error} onDismiss={remove.clearError} />
        <div className={`anchors-split ${open ? "with-preview" : ""}`}>
          <div className="anchors-list">
            <DataTable<AnchorSummary>
              rows={shown}
              rowKey={(a) => a.anchor_id}
              onOpen={(a) => setQuery("anchor", a.anchor_id === open ? null : a.anchor_id)}
              selectedKey={open}
              rowHeight={58}
              maxHeight={560}
              caption="Anchors"
              empty={
                list.data ? (
                  filtered ? (
                    <EmptyState title="No anchor matches these filters">Change or clear the filters above.</EmptyState>
                  ) : (
                    <EmptyState title="No anchors yet" actions={<button className="btn btn-primary" onClick={() => setDialog("import")}>Import anchors…</button>}>
                      Import de-identified incident reports as JSONL, CSV or text files.
                    </EmptyState>
                  )
                ) : (
                  <Loading />
                )
              }
              columns={[
                {
                  key: "sel",
                  width: "2.4rem",
                  header: (
                    <input
                      type="checkbox"
                      aria-label="Select every anchor shown"
                      checked={allShownSelected}
                      onChange={(e) => setSelected(e.target.checked ? new Set([...selected, ...shown.map((a) => a.anchor_id)]) : new Set([...selected].filter((id) => !shown.some((a) => a.anchor_id === id))))}
                    />
                  ),
                  label: "Select",
                  render: (a) => (
                    <input
                      type="checkbox"
                      aria-label={`Select ${a.anchor_id}`}
                      checked={selected.has(a.anchor_id)}
                      onClick={(e) => e.stopPropagation()}
                      onKeyDown={(e) => e.stopPropagation()}
                      onChange={(e) => toggle(a.anchor_id, e.target.checked)}
                    />
                  ),
                },
                {
                  key: "text",
                  header: "Report",
                  render: (a) => (
                    <div className="anchor-cell">
                      <span className="anchor-preview-text">{a.preview}</span>
                      <code className="id">{a.anchor_id}</code>
                    </div>
                  ),
                  sort: (a) => a.anchor_id,
                },
                { key: "bucket", header: "Bucket", render: (a) => (a.clause_id ? <span className="cell-clip" title={clauseShort(clauses, a.clause_id)}>{clauseShort(clauses, a.clause_id)}</span> : <span className="muted">Not sorted</span>), sort: (a) => clauses?.byId.get(a.clause_id ?? "")?.global_no ?? 999 },
                ...(open ? [] : narrowColumns),
              ]}
            />
          </div>
          {open && (
            <AnchorPreview
              id={open}
              clauses={clauses}
              onClose={() => setQuery("anchor", null)}
              onMove={() => setDialog("move")}
              onRemove={() => {
                setRemoveIds([open]);
                setDialog("remove");
              }}
            />
          )}
        </div>
      </Section>

      {dialog === "import" && (
        <ImportDialog
          clauses={clauses}
          onClose={() => setDialog(null)}
          onShowAdded={(ids) => {
            setDialog(null);
            setSearch("");
            ["clause", "language"].forEach((k) => setQuery(k, null));
            setQuery("origin", "imported");
            if (ids.length) setQuery("anchor", ids[0]);
          }}
        />
      )}
      {(dialog === "presort" || dialog === "translate") && (
        <ModelBatchDialog
          kind={dialog}
          all={all}
          selected={[...selected]}
          clauses={clauses}
          jobRunId={openJob}
          onClose={() => {
            setDialog(null);
            setOpenJob(undefined);
          }}
          onOpenAnchor={(id) => {
            setDialog(null);
            setQuery("anchor", id);
          }}
        />
      )}
      {dialog === "move" && open && (
        <BucketDialog
          anchorId={open}
          current={all.find((a) => a.anchor_id === open)?.clause_id ?? null}
          clauses={clauses}
          onClose={() => setDialog(null)}
          onMoved={(c) => {
            setDialog(null);
            toast(c ? `Moved ${open} to ${clauseShort(clauses, c)}.` : `Took ${open} out of every bucket.`);
          }}
        />
      )}
      {dialog === "remove" && (
        <ConfirmDialog
          title={removeIds.length === 1 ? "Remove this anchor?" : `Remove ${removeIds.length} anchors?`}
          confirmLabel={removeIds.length === 1 ? "Remove the anchor" : `Remove ${removeIds.length} anchors`}
          danger
          onCancel={() => setDialog(null)}
          onConfirm={doRemove}
        >
          <p>
            {removeIds.length <= 5 ? removeIds.join(", ") : `${removeIds.slice(0, 5).join(", ")} and ${removeIds.length - 5} more`} will be deleted from
            this computer's store. Cases already generated from them keep their anchor id but can no longer show its text. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
