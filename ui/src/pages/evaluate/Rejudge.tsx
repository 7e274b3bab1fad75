// Re-judge a finished or imported run: only the M4 judge runs again, with a model the user picks.
// The policy context, the cases' boundary conditions and the models' rationales go to that model,
// so a remote choice is confirmed first.

import { useState } from "react";
import { useAction, useApi } from "../../api/client";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, Notice, toast } from "../../components/Feedback";
import { Checkbox, Select } from "../../components/Forms";
import type { Protocol } from "../../api/generated";
import { rejudgeChoices } from "../../components/protocol";

export function RejudgeDialog({
  runId,
  currentJudge,
  runProtocol,
  protocolRecorded,
  onClose,
}: {
  runId: string;
  currentJudge: string | null;
  /** The protocol the run was made with (studio when it recorded none). */
  runProtocol: Protocol;
  protocolRecorded: boolean;
  onClose: () => void;
}) {
  const models = useApi("models.list", {});
  const rejudge = useAction("evaluation.rejudge");
  const list = models.data ?? [];
  const [name, setName] = useState<string>("");
  const [onlyMissing, setOnlyMissing] = useState(false);
  const [remoteOk, setRemoteOk] = useState(false);
  // "": the run's own protocol (the engine's default when none is sent).
  const [protocol, setProtocol] = useState<"" | Protocol>("");
  const chosen = list.find((m) => m.name === (name || currentJudge || list[0]?.name));
  const remote = chosen ? !chosen.local : false;
  const start = async () => {
    if (!chosen) return;
    const r = await rejudge.run({ run_id: runId, judge_model: chosen.name, only_missing: onlyMissing, concurrency: null, ...(protocol ? { protocol } : {}) });
    if (r) {
      toast(`Re-judging with ${chosen.name}; the run shows its progress.`);
      onClose();
    }
  };
  return (
    <Modal
      title="Re-judge this run (M4)"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={!chosen || rejudge.busy || (remote && !remoteOk)} onClick={start}>
            {rejudge.busy ? "Starting…" : "Re-judge"}
          </button>
        </>
      }
    >
      <p>
        Only the judge runs again: it reads each correct answer's rationale and ticks the case's boundary conditions the rationale establishes. Verdicts,
        questions and every other metric stay as they are. Earlier judgements are replaced.
      </p>
      {list.length === 0 ? (
        <Notice kind="warn" title="No model is registered.">
          Add a judge model in Settings first.
        </Notice>
      ) : (
        <Select
          label="Judge model"
          value={chosen?.name ?? ""}
          onChange={(v) => {
            setName(v);
            setRemoteOk(false);
          }}
          options={list.map((m) => ({ value: m.name, label: `${m.name} — ${m.destination}` }))}
          hint={currentJudge ? `The run was judged by ${currentJudge}.` : "This run has no judge on record (for example, it was imported)."}
        />
      )}
      <Select
        label="Protocol"
        value={protocol}
        onChange={(v) => setProtocol(v as "" | Protocol)}
        options={rejudgeChoices(runProtocol, protocolRecorded)}
        hint={
          protocol && protocol !== runProtocol
            ? "The new judgements follow another protocol than the rest of this run; its M4 is then not comparable with runs judged the run's own way."
            : "What the judge is shown. Keep the run's own protocol unless you mean to compare with runs made the other way."
        }
      />
      <Checkbox
        label="Only answers without a usable judgement"
        checked={onlyMissing}
        onChange={setOnlyMissing}
        hint="Leave unticked to judge every correct answer with a rationale again."
      />
      {remote && chosen && (
        <Checkbox
          label={`Send the rationales and the cases' conditions to ${chosen.destination}`}
          checked={remoteOk}
          onChange={setRemoteOk}
          hint="This model runs off this computer; the text leaves the machine."
        />
      )}
      <ErrorBanner error={rejudge.error} onDismiss={rejudge.clearError} title="Re-judging did not start." />
    </Modal>
  );
}
