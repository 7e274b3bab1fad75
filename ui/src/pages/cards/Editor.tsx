// The card editor: the card as a form or as JSON with line numbers (both edit the same draft
// text), checked by the engine as you type; errors block saving, warnings do not. Saving makes a
// new version and sets the card back to draft.

import { useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from "react";
import { api, EngineError, useAction } from "../../api/client";
import type { CardDetail, Clause, EvidenceItem, LintReport } from "../../api/generated";
import { ConfirmDialog } from "../../components/Dialog";
import { ErrorBanner, Notice, toast } from "../../components/Feedback";
import { TextInput } from "../../components/Forms";
import { plural } from "../../format";
import { lineInMessage, lineOfPointer, offsetOfLine, parseMessage, pointerLabel } from "./logic";
import { NameField, useRememberedName } from "../../components/NameField";
import { SeverityBadge } from "./parts";
import { CardForm } from "./form/CardForm";
import { EditorView, fieldDomId, formPointers, parseDraft, placeFindings, placeOf, rememberedView, rememberView } from "./form/cardForm";

const LINE_PX = 20;

export type JumpRequest = { pointer: string; seq: number } | null;

/** Line of each finding in the text being edited. */
function findingLines(text: string, report: LintReport | null): Map<number, "error" | "warning"> {
  const out = new Map<number, "error" | "warning">();
  for (const p of report?.problems ?? []) {
    const line = p.rule === "parse" ? lineInMessage(p.message) ?? 1 : lineOfPointer(text, p.pointer);
    if (out.get(line) !== "error") out.set(line, p.severity);
  }
  return out;
}

export function CardEditor({
  detail,
  baseText,
  draft,
  setDraft,
  onSaved,
  onDiscard,
  jump,
  baseVersion,
  changedSince,
  evidence,
  clauses,
}: {
  detail: CardDetail;
  baseText: string;
  draft: string;
  setDraft: (s: string) => void;
  onSaved: (d: CardDetail) => void;
  onDiscard: () => void;
  jump: JumpRequest;
  /** The version the edit started from (a save is refused if the card has moved on since). */
  baseVersion: number;
  /** Said when someone else saved the card after this edit started: what to offer the user. */
  changedSince: { version: number; author: string | null; onLoadLatest: () => void; onKeepMine: () => void } | null;
  evidence: EvidenceItem[];
  clauses: Clause[];
}) {
  const [view, setView] = useState<EditorView>(rememberedView);
  const choose = (v: EditorView) => {
    setView(v);
    rememberView(v);
  };
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const [report, setReport] = useState<LintReport | null>(null);
  const [checkedText, setCheckedText] = useState<string | null>(null);
  const [checkError, setCheckError] = useState<EngineError | undefined>();
  const { name: author, setName: setAuthor, prefilled: authorPrefilled, remember: rememberAuthor } = useRememberedName("author");
  const [note, setNote] = useState("");
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const save = useAction("card.save");
  const dirty = draft !== baseText;
  const s = detail.summary;

  // Check as the user types (debounced); only the latest answer counts.
  useEffect(() => {
    let stale = false;
    const t = setTimeout(() => {
      api("card.check", { json: draft, policy: s.policy_id })
        .then((r) => {
          if (stale) return;
          setReport(r);
          setCheckedText(draft);
          setCheckError(undefined);
        })
        .catch((e: EngineError) => {
          if (!stale) setCheckError(e);
        });
    }, 400);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [draft, s.policy_id]);

  const lineTexts = useMemo(() => draft.split("\n"), [draft]);
  const lines = lineTexts.length;

  // Long lines wrap; a hidden copy of the text measures how tall each line is so the line numbers
  // stay beside their lines.
  const mirror = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [heights, setHeights] = useState<number[]>([]);
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, [view]);
  useLayoutEffect(() => {
    const m = mirror.current;
    const el = area.current;
    if (!m || !el) return;
    const cs = getComputedStyle(el);
    m.style.width = `${el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)}px`;
    setHeights(Array.from(m.children).map((c) => (c as HTMLElement).offsetHeight || LINE_PX));
  }, [lineTexts, width, view]);
  const topOf = (line: number) => heights.slice(0, line - 1).reduce((a, h) => a + h, 0) || (line - 1) * LINE_PX;
  const marks = useMemo(() => findingLines(checkedText ?? draft, report), [checkedText, draft, report]);
  const checking = checkedText !== draft;
  // In the form, findings sit next to their field; the rest are listed above it.
  const parsedDraft = useMemo(() => parseDraft(draft), [draft]);
  const pointers = useMemo(() => (parsedDraft.ok ? formPointers(parsedDraft.doc) : []), [parsedDraft]);
  const placed = useMemo(() => placeFindings(report?.problems ?? [], pointers), [report, pointers]);
  const errors = report?.errors ?? 0;
  const warnings = report?.warnings ?? 0;

  const goToLine = (line: number) => {
    const el = area.current;
    if (!el) return;
    const start = offsetOfLine(draft, line);
    const end = draft.indexOf("\n", start);
    el.focus();
    el.setSelectionRange(start, end < 0 ? draft.length : end);
    el.scrollTop = Math.max(0, topOf(line) - el.clientHeight / 3);
    if (gutter.current) gutter.current.scrollTop = el.scrollTop;
  };

  /** Bring the form field a finding points at into view and put the cursor in it. */
  const goToField = (pointer: string) => {
    const at = placeOf(pointer, pointers);
    const el = at === null ? null : document.getElementById(fieldDomId(at));
    if (!el) return;
    const control = el.matches("input, textarea, select") ? el : (el.querySelector<HTMLElement>("input, textarea, select") ?? el);
    el.scrollIntoView({ block: "center" });
    control.focus({ preventScroll: true });
  };

  const lineOf = (pointer: string, message: string, rule: string) => (rule === "parse" ? lineInMessage(message) ?? 1 : lineOfPointer(draft, pointer));

  // Only when a new jump is requested, not on every keystroke: the effect event reads the current
  // text without making it a dependency.
  const jumpNow = useEffectEvent(() => {
    if (!jump) return;
    if (view === "form" && parsedDraft.ok) goToField(jump.pointer);
    else goToLine(lineOfPointer(draft, jump.pointer));
  });
  useEffect(() => {
    jumpNow();
  }, [jump?.seq]);

  const blockReason = changedSince
    ? "Someone else saved this card since you started: choose above what to do."
    : !dirty
      ? "No changes yet."
      : checking
        ? "Checking your changes…"
        : errors > 0
          ? `Fix ${errors === 1 ? "the error" : `the ${errors} errors`} first.`
          : !author.trim()
            ? "Enter your name to save."
            : null;

  const doSave = async () => {
    rememberAuthor();
    const d = await save.run({ card_id: s.card_id, json: draft, author: author.trim(), note: note.trim() || null, base_version: baseVersion });
    if (d) {
      toast(`Saved version ${d.summary.version} of ${d.summary.card_id}. It is a draft until it is approved again.`);
      setNote("");
      onSaved(d);
    }
  };

  return (
    <div className="stack editor">
      {s.origin === "builtin" && (
        <Notice title="This is a built-in card, audited by the PSEBench Studio team.">
          Saving creates your own version of it. The built-in text stays in the history, where you can compare your version with it.
        </Notice>
      )}
      {changedSince && (
        <Notice kind="warn" title="This card changed since you started editing.">
          <p>
            {changedSince.author ? `${changedSince.author} saved` : "Someone saved"} version {changedSince.version} while you were editing version {baseVersion}. Your edits are still here
            and have not been saved. Saving now would put your version over theirs, so decide first.
          </p>
          <div className="row gap wrap">
            <button type="button" className="btn" onClick={changedSince.onKeepMine}>
              Keep my edits (saving makes version {changedSince.version + 1})
            </button>
            <button type="button" className="btn btn-danger" onClick={changedSince.onLoadLatest}>
              Drop my edits and open version {changedSince.version}
            </button>
          </div>
        </Notice>
      )}
      <div className="row gap wrap editor-views" role="group" aria-label="Edit the card as">
        <span className="small muted">Edit as</span>
        <button type="button" className={`btn btn-small ${view === "form" ? "btn-primary" : ""}`} aria-pressed={view === "form"} onClick={() => choose("form")}>
          Form
        </button>
        <button type="button" className={`btn btn-small ${view === "json" ? "btn-primary" : ""}`} aria-pressed={view === "json"} onClick={() => choose("json")}>
          JSON
        </button>
        <span className="small muted">Both show the same card and run the same checks.</span>
      </div>
      {view === "json" && (
        <div className="editor-frame">
          <div className="editor-mirror" ref={mirror} aria-hidden>
            {lineTexts.map((l, i) => (
              <div key={i}>{l || " "}</div>
            ))}
          </div>
          <div className="editor-gutter" ref={gutter} aria-hidden>
            {Array.from({ length: lines }, (_, i) => {
              const m = marks.get(i + 1);
              return (
                <div key={i} className={m ? `gl gl-${m}` : "gl"} style={{ height: heights[i] ?? LINE_PX }}>
                  {m && <span className="gl-mark">{m === "error" ? "✖" : "⚠"}</span>}
                  {i + 1}
                </div>
              );
            })}
          </div>
          <textarea
            ref={area}
            className="editor-text"
            aria-label={`Card document of ${s.card_id} (JSON)`}
            aria-describedby="editor-status"
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onScroll={(e) => {
              if (gutter.current) gutter.current.scrollTop = (e.target as HTMLTextAreaElement).scrollTop;
            }}
          />
        </div>
      )}
      <div id="editor-status" className={`editor-status ${errors > 0 ? "es-err" : warnings > 0 ? "es-warn" : "es-ok"}`} aria-live="polite">
        {checkError ? (
          <span>The check could not run: {checkError.message}</span>
        ) : checking && !report ? (
          <span className="muted">Checking…</span>
        ) : errors === 0 && warnings === 0 ? (
          <span>
            <span aria-hidden>✓ </span>No problems{checking ? " (checking your latest changes…)" : "."}
          </span>
        ) : (
          <span>
            <span aria-hidden>{errors > 0 ? "✖ " : "⚠ "}</span>
            {plural(errors, "error")}, {plural(warnings, "warning")}
            {errors > 0 ? " — errors must be fixed before saving." : " — warnings do not stop saving."}
            {checking && <span className="muted"> Checking your latest changes…</span>}
          </span>
        )}
      </div>
      {report && report.problems.length > 0 && (
        <ul className="lint-list editor-problems" aria-label="Problems in the edited card">
          {report.problems.map((p, i) => {
            const line = lineOf(p.pointer, p.message, p.rule);
            const inForm = view === "form" && parsedDraft.ok;
            const field = inForm && p.rule !== "parse" ? placeOf(p.pointer, pointers) : null;
            return (
              <li key={i} className={`lint-item lint-item-${p.severity}`}>
                <SeverityBadge severity={p.severity} />
                <div className="lint-body">
                  <div>{p.rule === "parse" ? parseMessage(p.message) : p.message}</div>
                  <div className="muted small lint-meta">
                    Rule <code>{p.rule}</code> · at <code>{pointerLabel(p.pointer)}</code>
                    {inForm && (field ? " · also shown next to its field below" : " · about the whole card")}
                  </div>
                </div>
                <div className="lint-actions">
                  {inForm ? (
                    field && (
                      <button type="button" className="btn btn-small" onClick={() => goToField(p.pointer)}>
                        Show the field
                      </button>
                    )
                  ) : (
                    <button type="button" className="btn btn-small" onClick={() => goToLine(line)}>
                      Go to line {line}
                    </button>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {view === "form" && <CardForm draft={draft} setDraft={setDraft} byField={placed.byField} evidence={evidence} clauses={clauses} onShowJson={() => choose("json")} />}
      <section className="card save-box" aria-labelledby="save-title">
        <h2 id="save-title">Save your changes</h2>
        <p className="muted small">
          Saving creates version {s.version + 1} and sets the card back to <strong>Draft</strong>
          {s.status !== "draft" ? ` (it is ${s.status} now)` : ""}. Drafts are not used to generate cases until someone approves them again.
        </p>
        <div className="grid-2">
          <NameField role="author" label="Your name" value={author} onChange={setAuthor} prefilled={authorPrefilled} hint="Recorded as the author of the new version." />
          <TextInput label="What changed (optional)" value={note} onChange={setNote} placeholder="e.g. fixed the element name in a condition" />
        </div>
        <ErrorBanner error={save.error} onDismiss={save.clearError} title="The card was not saved." />
        <div className="row gap wrap save-actions">
          <button className="btn btn-primary" disabled={blockReason !== null || save.busy} onClick={doSave}>
            {save.busy ? "Saving…" : `Save as version ${s.version + 1}`}
          </button>
          <button className="btn" onClick={() => (dirty ? setConfirmDiscard(true) : onDiscard())}>
            {dirty ? "Discard changes" : "Close the editor"}
          </button>
          {blockReason && <span className="muted small">{blockReason}</span>}
        </div>
      </section>
      {confirmDiscard && (
        <ConfirmDialog
          title="Discard your changes?"
          confirmLabel="Discard changes"
          danger
          onCancel={() => setConfirmDiscard(false)}
          onConfirm={() => {
            setConfirmDiscard(false);
            onDiscard();
          }}
        >
          Your edits to {s.card_id} have not been saved and will be lost. The stored card stays as it is.
        </ConfirmDialog>
      )}
    </div>
  );
}
