// Import card files: choose files, see what the linter finds, then import them as drafts (all or nothing).

import { useState } from "react";
import { api, EngineError, useAction } from "../../api/client";
import { toUpload } from "../../api/files";
import type { CardsImportResult, LintReport, Upload } from "../../api/generated";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { FilePicker } from "../../components/Forms";
import { Modal } from "../../components/Dialog";
import { plural } from "../../format";
import { href } from "../../router";
import { blocksImport, groupProblems } from "./logic";
import { NameField, useRememberedName } from "../../components/NameField";
import { LintCount, SeverityBadge } from "./parts";
import { currentPolicy } from "../../policyChoice";

function Findings({ report }: { report: LintReport }) {
  const groups = groupProblems(report.problems);
  return (
    <ul className="import-findings">
      {groups.map((g) => (
        <li key={g.key}>
          <div className="row gap wrap">
            <strong>{g.cardId ?? g.path}</strong>
            {g.cardId && <span className="muted small">in {g.path}</span>}
            <LintCount errors={g.problems.filter((p) => p.severity === "error").length} warnings={g.problems.filter((p) => p.severity === "warning").length} />
          </div>
          <ul className="finding-list">
            {g.problems.map((p, i) => (
              <li key={i} className={blocksImport(p) ? "finding finding-blocking" : "finding"}>
                <SeverityBadge severity={p.severity} />
                <span>
                  {p.message}{" "}
                  <span className="muted small">
                    (<code>{p.rule}</code>
                    {p.pointer && (
                      <>
                        {" "}
                        at <code>{p.pointer}</code>
                      </>
                    )}
                    ){blocksImport(p) && <strong> — stops the import</strong>}
                  </span>
                </span>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

export function ImportDialog({ onClose }: { onClose: () => void }) {
  const [files, setFiles] = useState<Upload[]>([]);
  const [report, setReport] = useState<LintReport | null>(null);
  const [checking, setChecking] = useState(false);
  const [checkError, setCheckError] = useState<EngineError | undefined>();
  const { name: author, setName: setAuthor, prefilled: authorPrefilled, remember: rememberAuthor } = useRememberedName("author");
  const [result, setResult] = useState<CardsImportResult | null>(null);
  const imp = useAction("cards.import");

  const pick = async (picked: File[]) => {
    setResult(null);
    setReport(null);
    imp.clearError();
    setCheckError(undefined);
    setChecking(true);
    try {
      const uploads = await Promise.all(picked.map(toUpload));
      setFiles(uploads);
      setReport(await api("cards.lint_files", { files: uploads, policy: currentPolicy() }));
    } catch (e) {
      setCheckError(e as EngineError);
    } finally {
      setChecking(false);
    }
  };

  const blocking = report?.problems.filter(blocksImport) ?? [];
  const cardCount = report ? new Set(report.problems.map((p) => p.clause_card_id).filter(Boolean)).size : 0;

  const doImport = async () => {
    rememberAuthor();
    const r = await imp.run({ files, policy: currentPolicy(), author: author.trim() });
    if (r) {
      setResult(r);
      const n = r.added.length + r.updated.length;
      toast(n > 0 ? `Imported ${plural(n, "card")} as drafts.` : "Nothing new: every card was already in the library.");
    }
  };

  const footer = result ? (
    <button className="btn btn-primary" onClick={onClose}>
      Done
    </button>
  ) : (
    <>
      <button className="btn" onClick={onClose}>
        Cancel
      </button>
      <button
        className="btn btn-primary"
        disabled={!report || files.length === 0 || blocking.length > 0 || !author.trim() || imp.busy}
        onClick={doImport}
        title={!author.trim() ? "Enter your name first" : undefined}
      >
        {imp.busy ? "Importing…" : "Import as drafts"}
      </button>
    </>
  );

  return (
    <Modal title="Import clause cards" onClose={onClose} footer={footer} wide>
      {!result && (
        <>
          <p className="muted">
            Choose one or more card files: <code>.json</code> (one card per file) or <code>.jsonl</code> (one card per line). The app checks them first;
            nothing is stored until you import. Imported cards arrive as <strong>drafts</strong>: they are used for generation only after someone approves
            them. A card whose id is already in the library becomes a new version of it.
          </p>
          <FilePicker label="Choose card files…" accept=".json,.jsonl,application/json" multiple onFiles={pick} hint="or drop files here" />
        </>
      )}
      {checking && <Loading label="Checking the files…" />}
      <ErrorBanner error={checkError} title="The files could not be checked." />
      {report && !result && (
        <>
          <div className="row gap wrap">
            <strong>{files.map((f) => f.name).join(", ")}</strong>
          </div>
          {report.problems.length === 0 ? (
            <Notice kind="success" title="No problems found.">
              The files follow the schema and every authoring rule the app checks.
            </Notice>
          ) : blocking.length > 0 ? (
            <Notice kind="warn" title={`${plural(blocking.length, "problem")} stop${blocking.length === 1 ? "s" : ""} this import.`}>
              Imports are all or nothing: fix the files and choose them again. Problems that do not stop the import are listed too.
            </Notice>
          ) : (
            <Notice kind="info" title={`${plural(report.errors, "error")} and ${plural(report.warnings, "warning")} found${cardCount ? ` in ${plural(cardCount, "card")}` : ""}.`}>
              These do not stop the import: the cards arrive as drafts and you can fix them in the card editor. A card with errors cannot be approved until
              they are fixed.
            </Notice>
          )}
          {report.problems.length > 0 && <Findings report={report} />}
          <NameField role="author" label="Your name" value={author} onChange={setAuthor} prefilled={authorPrefilled} hint="Recorded as the author of the imported versions." />
        </>
      )}
      <ErrorBanner error={imp.error} onDismiss={imp.clearError} title="Nothing was imported." />
      {result && (
        <div className="stack">
          <Notice kind="success" title="Import finished.">
            {plural(result.added.length, "new card")}, {plural(result.updated.length, "updated card")}, {plural(result.unchanged.length, "unchanged card")}.
            {result.lint.errors > 0 && ` ${plural(result.lint.errors, "lint error")} to fix before approval.`}
          </Notice>
          <ul className="plain-list">
            {[...result.added.map((id) => [id, "new"]), ...result.updated.map((id) => [id, "new version"]), ...result.unchanged.map((id) => [id, "unchanged"])].map(
              ([id, what]) => (
                <li key={id} className="row gap">
                  <a href={href("/cards", id)} onClick={onClose}>
                    Open {id}
                  </a>
                  <span className="muted small">{what}</span>
                </li>
              ),
            )}
          </ul>
        </div>
      )}
    </Modal>
  );
}
