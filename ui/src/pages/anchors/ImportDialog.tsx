// Import anchors: one JSONL or CSV file, or any number of .txt files; optional bucket, source and
// language for every record; the result says what was added, what was skipped as a duplicate of
// what, and which defaults were applied. Nothing is stored when any record has a problem.

import { useState } from "react";
import { useAction } from "../../api/client";
import { toUpload } from "../../api/files";
import type { AnchorImportResult } from "../../api/generated";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Notice } from "../../components/Feedback";
import { FilePicker, Select, TextInput } from "../../components/Forms";
import { plural } from "../../format";
import type { ClauseIndex } from "./clauses";
import { clauseOptions } from "./clauses";
import { duplicateSentence, importFilesProblem, importSummary } from "./logic";
import { currentPolicy } from "../../policyChoice";

export function ImportDialog({ clauses, onClose, onShowAdded }: { clauses: ClauseIndex | undefined; onClose: () => void; onShowAdded: (ids: string[]) => void }) {
  const [files, setFiles] = useState<File[]>([]);
  const [clause, setClause] = useState("");
  const [source, setSource] = useState("");
  const [language, setLanguage] = useState("");
  const [result, setResult] = useState<AnchorImportResult | null>(null);
  const imp = useAction("anchors.import");
  const problem = files.length > 0 ? importFilesProblem(files.map((f) => f.name)) : null;

  const run = async () => {
    const uploads = await Promise.all(files.map(toUpload));
    const r = await imp.run({
      files: uploads,
      options: {
        clause_id: clause || null,
        source: source.trim() || null,
        language: language.trim() || null,
        policy: currentPolicy(),
      },
    });
    if (r) setResult(r);
  };

  return (
    <Modal
      title="Import anchors"
      wide
      onClose={onClose}
      footer={
        result ? (
          <>
            {result.added.length > 0 && (
              <button className="btn" onClick={() => onShowAdded(result.added)}>
                Show the new anchors
              </button>
            )}
            <button className="btn btn-primary" onClick={onClose}>
              Done
            </button>
          </>
        ) : (
          <>
            <button className="btn" onClick={onClose}>
              Cancel
            </button>
            <button className="btn btn-primary" disabled={files.length === 0 || !!problem || imp.busy} onClick={run}>
              {imp.busy ? "Importing…" : files.length > 1 ? `Import ${files.length} files` : "Import"}
            </button>
          </>
        )
      }
    >
      {result ? (
        <div className="stack" data-testid="import-result">
          <Notice kind={result.added.length > 0 ? "success" : "info"} title={`Imported from ${result.file}.`}>
            {importSummary(result).join(" ")}
          </Notice>
          {result.duplicates.length > 0 && (
            <div>
              <h3>Skipped as duplicates ({result.duplicates.length})</h3>
              <ul className="small">
                {result.duplicates.map((d) => (
                  <li key={`${d.location}-${d.anchor_id}`}>{duplicateSentence(d)}</li>
                ))}
              </ul>
              <p className="muted small">Duplicates are found by the text itself (spacing aside), whatever their id.</p>
            </div>
          )}
          {result.notes.length > 0 && (
            <div>
              <h3>Defaults applied</h3>
              <ul className="small">
                {result.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            </div>
          )}
        </div>
      ) : (
        <>
          <p>
            Import incident reports that have already been de-identified. They stay in this computer's store and are sent to a model only when you generate
            cases (or sort or translate them with a model).
          </p>
          <details className="small formats">
            <summary>File formats</summary>
            <ul>
              <li>
                <strong>JSONL</strong>: one JSON object per line with <code>text</code>, and optionally <code>anchor_id</code>, <code>source</code>,{" "}
                <code>language</code> and <code>clause_id</code>.
              </li>
              <li>
                <strong>CSV</strong>: a header row naming the same columns; <code>text</code> is required.
              </li>
              <li>
                <strong>Text files</strong>: pick one or more <code>.txt</code> files; each file is one anchor, named after the file.
              </li>
            </ul>
          </details>
          <FilePicker
            label={files.length ? "Choose other files…" : "Choose files…"}
            accept=".jsonl,.ndjson,.csv,.txt"
            multiple
            onFiles={setFiles}
            hint="One .jsonl or .csv file, or several .txt files — or drop them here"
          />
          {files.length > 0 && (
            <div className="small">
              Selected: {files.map((f) => f.name).join(", ")} ({plural(files.length, "file")})
            </div>
          )}
          {problem && <div className="error-text small" role="alert">{problem}</div>}
          <div className="grid-3">
            <Select
              label="Put every anchor in this bucket"
              value={clause}
              onChange={setClause}
              options={[{ value: "", label: "As the file says (or not sorted)" }, ...clauseOptions(clauses)]}
              hint="Overrides any clause_id in the file."
            />
            <TextInput label="Source" value={source} onChange={setSource} placeholder="e.g. our reporting system, 2024" hint="For records that name none (default: the file name)." />
            <TextInput label="Language" value={language} onChange={setLanguage} placeholder="en" hint="A language code such as en or ja, for records that name none (default: en)." />
          </div>
          <ErrorBanner error={imp.error} onDismiss={imp.clearError} title="Nothing was imported." />
        </>
      )}
    </Modal>
  );
}
