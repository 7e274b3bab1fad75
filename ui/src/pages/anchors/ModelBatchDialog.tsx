// Sort anchors into buckets with a model (a topical sort, never a reportability judgement), or
// translate them to English (the original is kept). Both say where the text goes before sending,
// ask for a confirmation when it leaves the computer, and show the outcome for every anchor.

import { useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { AnchorBatchResult, AnchorSummary } from "../../api/generated";
import { LocalityBadge } from "../../components/Badges";
import { DataTable } from "../../components/DataTable";
import { Modal } from "../../components/Dialog";
import { EmptyState, ErrorBanner, Notice } from "../../components/Feedback";
import { Checkbox, Select } from "../../components/Forms";
import { plural, tokens, usd } from "../../format";
import type { ClauseIndex } from "./clauses";
import { clauseShort } from "./clauses";
import { batchSummary, needsTranslation, OUTCOME_ICON, OUTCOME_LABEL } from "./logic";
import { currentPolicy } from "../../policyChoice";

type Scope = "unsorted" | "selected" | "all";

export function ModelBatchDialog({
  kind,
  all,
  selected,
  clauses,
  onClose,
  onOpenAnchor,
}: {
  kind: "presort" | "translate";
  all: AnchorSummary[];
  selected: string[];
  clauses: ClauseIndex | undefined;
  onClose: () => void;
  onOpenAnchor: (id: string) => void;
}) {
  const models = useApi("models.list", {});
  const [model, setModel] = useState("");
  const [scope, setScope] = useState<Scope>(selected.length > 0 ? "selected" : kind === "presort" ? "unsorted" : "all");
  const [confirmed, setConfirmed] = useState(false);
  const [result, setResult] = useState<AnchorBatchResult | null>(null);
  const presort = useAction("anchors.presort");
  const translate = useAction("anchors.translate");
  const action = kind === "presort" ? presort : translate;

  const list = models.data ?? [];
  const chosen = list.find((m) => m.name === model) ?? list[0];
  const unsortedCount = all.filter((a) => a.clause_id === null).length;
  const untranslated = useMemo(() => needsTranslation(all), [all]);
  const selectedForTranslation = selected.filter((id) => untranslated.some((a) => a.anchor_id === id));
  const count =
    kind === "presort"
      ? scope === "selected"
        ? selected.length
        : scope === "unsorted"
          ? unsortedCount
          : all.length
      : scope === "selected"
        ? selectedForTranslation.length
        : untranslated.length;
  const remote = chosen ? !chosen.local : false;
  const title = kind === "presort" ? "Sort anchors into buckets with a model" : "Translate anchors to English";

  const run = async () => {
    if (!chosen) return;
    const r =
      kind === "presort"
        ? await presort.run({
            model: chosen.name,
            only_unbucketed: scope === "unsorted",
            anchor_ids: scope === "selected" ? selected : [],
            policy: currentPolicy(),
            concurrency: null,
          })
        : await translate.run({ model: chosen.name, anchor_ids: scope === "selected" ? selectedForTranslation : [], concurrency: null });
    if (r) setResult(r);
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
      <button className="btn btn-primary" disabled={!chosen || count === 0 || action.busy || (remote && !confirmed)} onClick={run}>
        {action.busy ? (kind === "presort" ? "Sorting…" : "Translating…") : kind === "presort" ? `Sort ${plural(count, "anchor")}` : `Translate ${plural(count, "anchor")}`}
      </button>
    </>
  );

  return (
    <Modal title={title} wide onClose={onClose} footer={footer}>
      {result ? (
        <div className="stack" data-testid="batch-result">
          <Notice kind={result.failed > 0 ? "warn" : "success"} title={kind === "presort" ? "Sorting finished." : "Translation finished."}>
            {batchSummary(kind, result)} {tokens(result.input_tokens + result.output_tokens)} tokens, {usd(result.cost_usd)}.
          </Notice>
          <DataTable
            rows={result.items}
            rowKey={(i) => i.anchor_id}
            maxHeight={360}
            caption={kind === "presort" ? "Outcome per anchor" : "Translation outcome per anchor"}
            onOpen={(i) => onOpenAnchor(i.anchor_id)}
            columns={[
              { key: "id", header: "Anchor", render: (i) => <code className="id">{i.anchor_id}</code>, sort: (i) => i.anchor_id },
              {
                key: "outcome",
                header: "Outcome",
                render: (i) => (
                  <span className={`badge outcome-${i.outcome}`}>
                    <span aria-hidden className="badge-icon">
                      {OUTCOME_ICON[i.outcome] ?? "•"}
                    </span>
                    {OUTCOME_LABEL[i.outcome] ?? i.outcome}
                  </span>
                ),
                sort: (i) => i.outcome,
              },
              ...(kind === "presort" ? [{ key: "bucket", header: "Bucket", render: (i: (typeof result.items)[number]) => clauseShort(clauses, i.clause_id), sort: (i: (typeof result.items)[number]) => clauseShort(clauses, i.clause_id) }] : []),
              { key: "note", header: kind === "presort" ? "The model's reason (or the problem)" : "Note", render: (i) => <span className="small">{i.note ?? ""}</span> },
            ]}
          />
        </div>
      ) : models.data && list.length === 0 ? (
        <EmptyState title="No model is registered yet" actions={<a className="btn btn-primary" href="#/settings">Add a model in Settings</a>}>
          {kind === "presort" ? "Sorting by topic needs a model." : "Translation needs a model."} Register one (local or remote) in Settings, then come back.
        </EmptyState>
      ) : (
        <>
          {kind === "presort" ? (
            <Notice title="A sort by topic, not a judgement.">
              The model reads each report and names the clause whose kind of event it is about, so that cards borrow settings from related reports. It
              does not decide whether anything is reportable. Buckets a person set by hand are never changed.
            </Notice>
          ) : (
            <Notice title="The original is kept.">
              Anchors not in English are translated so that the writing models can borrow their setting. The original text and language stay with each
              anchor and are shown beside the translation.
            </Notice>
          )}
          <div className="grid-2">
            <Select
              label="Model"
              value={chosen?.name ?? ""}
              onChange={(v) => {
                setModel(v);
                setConfirmed(false);
              }}
              options={list.map((m) => ({ value: m.name, label: `${m.name} (${m.local ? "on this computer" : "remote"})` }))}
            />
            <fieldset className="radio-group">
              <legend>Which anchors</legend>
              {kind === "presort" && (
                <label>
                  <input type="radio" name="scope" checked={scope === "unsorted"} onChange={() => setScope("unsorted")} /> Not sorted yet ({unsortedCount})
                </label>
              )}
              {selected.length > 0 && (
                <label>
                  <input type="radio" name="scope" checked={scope === "selected"} onChange={() => setScope("selected")} /> The selected anchors (
                  {kind === "presort" ? selected.length : selectedForTranslation.length})
                </label>
              )}
              <label>
                <input type="radio" name="scope" checked={scope === "all"} onChange={() => setScope("all")} />{" "}
                {kind === "presort" ? `Every anchor (${all.length}); hand-set buckets stay` : `Every anchor not yet in English (${untranslated.length})`}
              </label>
            </fieldset>
          </div>
          {chosen && (
            <div className={`destination ${remote ? "destination-remote" : ""}`} data-testid="destination">
              <div className="row gap wrap">
                <LocalityBadge local={!remote} />
                <span>
                  The text of {plural(count, "anchor")} will be sent to <strong>{chosen.name}</strong> at <code>{chosen.destination}</code>.
                </span>
              </div>
              {remote && (
                <Checkbox
                  label="I understand that this anchor text leaves this computer."
                  checked={confirmed}
                  onChange={setConfirmed}
                  hint="Only send text that is de-identified and that your organisation allows to be processed by this provider."
                />
              )}
            </div>
          )}
          {count === 0 && (
            <p className="muted small">{kind === "presort" ? "No anchor is waiting to be sorted in this choice." : "Every anchor in this choice is already in English."}</p>
          )}
          {action.busy && (
            <div className="loading" role="status">
              <span className="spinner" aria-hidden /> Working through {plural(count, "anchor")}; each one is saved as soon as its answer arrives.
            </div>
          )}
          <ErrorBanner error={action.error} onDismiss={action.clearError} title={kind === "presort" ? "The anchors were not sorted." : "The anchors were not translated."} />
        </>
      )}
    </Modal>
  );
}
