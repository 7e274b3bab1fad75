// Configure a run: which cases, which models in which role, turns and repeats; a plan that says
// what the run will do, cost and where data goes; Start only once remote sending is confirmed.

import { useEffect, useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { CaseSummary, Clause, EvaluationPlan, EvaluationRunRequest, ModelView, Protocol } from "../../api/generated";
import { LocalityBadge } from "../../components/Badges";
import { ProtocolBadge, ProtocolChoiceField } from "../../components/Protocol";
import { DEFAULT_PROTOCOL, planPolicies, protocolMeaning } from "../../components/protocol";
import { BatchPlan, BatchSwitch } from "../../components/BatchMode";
import { canBatch } from "../../components/batch";
import { EmptyState, ErrorBanner, Loading, toast } from "../../components/Feedback";
import { Checkbox, Field, NumberInput, Select, TextInput } from "../../components/Forms";
import { CASE_TYPE_LABEL, num, plural, tokens, usd } from "../../format";
import { setQuery } from "../../router";
import { CapForecastNote, parseCap, SpendingCapField } from "../../components/SpendingCap";
import { ALL_CASES, buildSelection, CaseChoice, describeSelection } from "./selection";
import { PlanConcurrency } from "../../components/RequestsInFlight";
import { keepRoles, proposeRoles, Roles, selfRoleWarnings } from "./roles";

const LAST_KEY = "psebench.evaluate.last";

function lastRoles(): Partial<Roles> {
  try {
    return JSON.parse(localStorage.getItem(LAST_KEY) ?? "{}") as Partial<Roles>;
  } catch {
    return {};
  }
}

/** A value that follows `value` after it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const ROLE_HELP = {
  model: "The model being evaluated: it reads each case, may ask questions, and gives a verdict.",
  info: "Answers the model's questions using only the facts recorded for the case.",
  judge: "Checks whether each rationale addresses the case's boundary conditions (metric M4).",
};

function ModelSelect({ label, hint, value, onChange, models }: { label: string; hint: string; value: string; onChange: (v: string) => void; models: ModelView[] }) {
  const m = models.find((x) => x.name === value);
  return (
    <div className="role-field">
      <Select
        label={label}
        value={value}
        onChange={onChange}
        options={models.map((x) => ({ value: x.name, label: `${x.name} — ${x.local ? "on this computer" : `remote (${hostFromDestination(x.destination)})`}` }))}
        hint={hint}
      />
      {m && (
        <div className="role-where small">
          <LocalityBadge local={m.local} /> <span className="muted">{m.destination}</span>
        </div>
      )}
    </div>
  );
}

/** "openai-compatible at api.example.com (remote)" → "api.example.com". */
function hostFromDestination(d: string): string {
  const m = d.match(/ at (.+?) \((?:local|remote)\)$/);
  return m ? m[1] : d;
}

function PlanBox({
  plan,
  error,
  loading,
  models,
  confirmed,
  onConfirm,
  policyName,
}: {
  plan?: EvaluationPlan;
  error?: { message: string };
  loading: boolean;
  models: ModelView[];
  confirmed: boolean;
  onConfirm: (v: boolean) => void;
  policyName: (id: string) => string | undefined;
}) {
  if (error && !loading) {
    return (
      <div className="plan plan-problem" role="status">
        <h3>Plan</h3>
        <p>
          <strong>This run cannot start yet.</strong> {error.message}
        </p>
      </div>
    );
  }
  if (!plan) return <div className="plan">{loading ? <Loading label="Working out the plan…" /> : <p className="muted">Choose the cases and the models to see the plan.</p>}</div>;
  const remote = plan.destinations.filter((d) => d.remote);
  const remoteHosts = Array.from(new Set(remote.map((d) => hostFromDestination(d.destination))));
  const unpriced = plan.estimate.usd === null ? Array.from(new Set(plan.destinations.map((d) => d.model))).filter((n) => {
    const m = models.find((x) => x.name === n);
    return m && !m.local && (m.price_in === null || m.price_out === null);
  }) : [];
  const policies = planPolicies(plan, policyName);
  return (
    <div className={`plan ${loading ? "plan-stale" : ""}`} aria-busy={loading} aria-live="polite">
      <h3>Plan</h3>
      <p className="plan-protocol row gap wrap" data-testid="plan-protocol">
        <ProtocolBadge protocol={plan.protocol} /> <span className="small muted">{protocolMeaning(plan.protocol)}</span>
      </p>
      <dl className="plan-figures">
        <div>
          <dt>Cases</dt>
          <dd>
            <strong>{num(plan.cases)}</strong>
            <span className="small muted plan-breakdown">
              {Object.entries(plan.by_type)
                .map(([t, n]) => `${num(n)} ${(CASE_TYPE_LABEL[t] ?? t).toLowerCase()}`)
                .join(" · ")}
            </span>
          </dd>
        </div>
        {policies && (
          <div>
            <dt>Policies</dt>
            <dd>
              {policies} <span className="small muted">(each case is shown its own policy)</span>
            </dd>
          </div>
        )}
        <div>
          <dt>Evaluation items</dt>
          <dd>
            <strong>{num(plan.items)}</strong> <span className="small muted">{plan.items !== plan.cases ? `(${num(plan.cases)} cases × ${num(plan.items / Math.max(plan.cases, 1))} repeats)` : "(one per case)"}</span>
          </dd>
        </div>
        <div>
          <dt>Estimated model calls</dt>
          <dd>
            about <strong>{num(plan.estimate.calls)}</strong>
          </dd>
        </div>
        <div>
          <dt>Estimated tokens</dt>
          <dd>
            about <strong>{tokens(plan.estimate.input_tokens)}</strong> in, <strong>{tokens(plan.estimate.output_tokens)}</strong> out
          </dd>
        </div>
        <div>
          <dt>Estimated cost</dt>
          <dd>
            {plan.estimate.usd === null ? (
              <span>
                <strong>unknown</strong> — no price registered{unpriced.length ? ` for ${unpriced.join(", ")}` : ""}
              </span>
            ) : (
              <strong>{plan.estimate.usd === 0 ? "free (local models)" : `about ${usd(plan.estimate.usd)}`}</strong>
            )}
          </dd>
        </div>
      </dl>
      <p className="small muted">Assumes {plan.estimate.assumptions}.</p>
      <CapForecastNote cap={plan.cap} unit="items" />
      <BatchPlan usd={plan.estimate.usd} usdBatch={plan.estimate.usd_batch} note={plan.batch} />
      <h4>Where the case text goes</h4>
      <ul className="plain-list destinations">
        {plan.destinations.map((d) => (
          <li key={d.role}>
            <span className="dest-role">{d.role[0].toUpperCase() + d.role.slice(1)}</span>
            <span>
              <strong>{d.model}</strong> <LocalityBadge local={!d.remote} /> <span className="small muted">{hostFromDestination(d.destination)}</span>
            </span>
          </li>
        ))}
      </ul>
      <PlanConcurrency endpoints={plan.concurrency} />
      {plan.sends_data_off_machine && (
        <div className="remote-confirm">
          <Checkbox
            label={`This run sends case text to ${remoteHosts.join(", ")} (remote). I confirm that this is allowed for these cases.`}
            checked={confirmed}
            onChange={onConfirm}
          />
        </div>
      )}
    </div>
  );
}

export function RunForm({ models, cases, clauses, policyName = () => undefined }: { models: ModelView[]; cases: CaseSummary[]; clauses: Clause[]; policyName?: (id: string) => string | undefined }) {
  const last = useMemo(lastRoles, []);
  const [protocol, setProtocol] = useState<Protocol>(DEFAULT_PROTOCOL);
  const [choice, setChoice] = useState<CaseChoice>(ALL_CASES);
  const [roles, setRoles] = useState<Roles>(() => proposeRoles(models, last));
  const [turns, setTurns] = useState(10);
  const [concurrency, setConcurrency] = useState(4);
  const [repeat, setRepeat] = useState(1);
  const [label, setLabel] = useState("");
  const [capText, setCapText] = useState("");
  const cap = parseCap(capText);
  const [batch, setBatch] = useState(false);
  const [confirmedFor, setConfirmedFor] = useState<string | null>(null);
  const start = useAction("evaluation.start");
  const roleWarnings = selfRoleWarnings(roles, models.length);

  // Keep the role choices valid when models are added or removed.
  useEffect(() => {
    setRoles((r) => keepRoles(models, r));
  }, [models]);

  const numbersOk = Number.isInteger(turns) && turns >= 1 && turns <= 50 && Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 256 && Number.isInteger(repeat) && repeat >= 1 && repeat <= 20;
  const req: EvaluationRunRequest | null =
    roles.model && roles.info && roles.judge && numbersOk && !cap.error
      ? {
          cases: buildSelection(choice),
          model: roles.model,
          info_model: roles.info,
          judge_model: roles.judge,
          turns,
          concurrency,
          repeat,
          batch,
          protocol,
          ...(label.trim() ? { label: label.trim() } : {}),
          ...(cap.cap !== undefined ? { max_cost_usd: cap.cap } : {}),
        }
      : null;
  const planReq = useDebounced(req ? { ...req, label: undefined } : null, 250);
  const plan = useApi("evaluation.plan", planReq);
  const fresh = plan.data && planReq && JSON.stringify(planReq) === JSON.stringify(req ? { ...req, label: undefined } : null) && !plan.loading;
  const remoteKey = plan.data ? JSON.stringify(plan.data.destinations.filter((d) => d.remote).map((d) => d.destination)) : "";
  // Any change of where data goes asks again.
  useEffect(() => setConfirmedFor(null), [remoteKey]);
  const confirmed = confirmedFor === remoteKey;
  const needsConfirm = Boolean(plan.data?.sends_data_off_machine) && !confirmed;

  const origins = useMemo(() => Array.from(new Set(cases.map((c) => c.origin))).sort(), [cases]);
  const clauseCounts = useMemo(() => {
    const m = new Map<string, number>();
    for (const c of cases) m.set(c.clause_id, (m.get(c.clause_id) ?? 0) + 1);
    return m;
  }, [cases]);
  const clauseLabel = (id: string) => clauses.find((c) => c.clause_id === id)?.label ?? id;
  const clauseOptions = [
    { value: "", label: "Every clause" },
    ...clauses.filter((c) => clauseCounts.has(c.clause_id)).map((c) => ({ value: c.clause_id, label: `${c.label} — ${c.short_title} (${clauseCounts.get(c.clause_id)})` })),
    ...Array.from(clauseCounts.keys())
      .filter((id) => !clauses.some((c) => c.clause_id === id))
      .map((id) => ({ value: id, label: `${id} (${clauseCounts.get(id)})` })),
  ];
  const setC = <K extends keyof CaseChoice>(k: K, v: CaseChoice[K]) => setChoice((c) => ({ ...c, [k]: v }));

  const onStart = async () => {
    if (!req) return;
    // Batch mode only when a chosen model has a batch API (the switch is disabled otherwise).
    const r = await start.run({ ...req, batch: req.batch && canBatch(plan.data?.batch) });
    if (r) {
      try {
        localStorage.setItem(LAST_KEY, JSON.stringify(roles));
      } catch {
        /* remembered for this session only */
      }
      toast("The run has started. You can leave this page; it keeps going.");
      setQuery("run", r.run_id);
      document.getElementById("main")?.scrollTo({ top: 0, behavior: "smooth" });
    }
  };

  return (
    <div className="run-form">
      <div className="run-form-fields">
        <fieldset>
          <legend>Cases</legend>
          <div className="form-grid">
            <Select
              label="Case type"
              value={choice.type}
              onChange={(v) => setC("type", v as CaseChoice["type"])}
              options={[
                { value: "", label: "Every case type" },
                { value: "complete", label: "Complete" },
                { value: "missing", label: "Missing information" },
                { value: "uncertain", label: "Uncertain (gray zone)" },
              ]}
            />
            <Select
              label="Origin"
              value={choice.origin}
              onChange={(v) => setC("origin", v)}
              options={[{ value: "", label: "Every origin" }, ...origins.map((o) => ({ value: o, label: o[0].toUpperCase() + o.slice(1) }))]}
            />
          </div>
          <Select label="Clause" value={choice.clause} onChange={(v) => setC("clause", v)} options={clauseOptions} />
          <div className="form-grid">
            <Field label="At most this many cases" hint="Empty: every matching case.">
              {(id) => (
                <input id={id} type="number" min={1} value={choice.limit ?? ""} placeholder="all" onChange={(e) => setC("limit", e.target.value === "" ? null : Number(e.target.value))} />
              )}
            </Field>
            <Field label="Random sample seed" hint={choice.limit ? "Empty: the first cases in store order. Same seed, same sample." : "Used with a limit."}>
              {(id) => (
                <input id={id} type="number" min={0} value={choice.seed ?? ""} placeholder="none" disabled={!choice.limit} onChange={(e) => setC("seed", e.target.value === "" ? null : Number(e.target.value))} />
              )}
            </Field>
          </div>
          <p className="small selection-line">
            {describeSelection(choice, clauseLabel)}. <span className="muted">Selection:</span> <code>{buildSelection(choice)}</code>
          </p>
        </fieldset>
        <fieldset>
          <legend>Models</legend>
          <ModelSelect label="Model under test" hint={ROLE_HELP.model} value={roles.model} onChange={(v) => setRoles((r) => ({ ...r, model: v }))} models={models} />
          <ModelSelect label="Information provider" hint={ROLE_HELP.info} value={roles.info} onChange={(v) => setRoles((r) => ({ ...r, info: v }))} models={models} />
          <ModelSelect label="Judge" hint={ROLE_HELP.judge} value={roles.judge} onChange={(v) => setRoles((r) => ({ ...r, judge: v }))} models={models} />
          {roleWarnings.length > 0 && (
            <div className="role-warnings" role="status" data-testid="role-warnings">
              {roleWarnings.map((w) => (
                <p key={w.role} className="small">
                  <span aria-hidden>⚠ </span>
                  {w.text}
                </p>
              ))}
            </div>
          )}
        </fieldset>
        <ProtocolChoiceField
          value={protocol}
          onChange={setProtocol}
          note={
            protocol === "paper" ? (
              <p className="small protocol-note">
                The model under test gets the paper&apos;s instructions, a reply that is not clean JSON counts as no verdict, and the judge reads only the
                rationale and the boundary conditions.
              </p>
            ) : null
          }
        />
        <fieldset>
          <legend>Run settings</legend>
          <div className="form-grid form-grid-3">
            <NumberInput label="Turns per case" value={turns} onChange={setTurns} min={1} max={50} hint="The last turn must be an answer." />
            <NumberInput label="Cases at once" value={concurrency} onChange={setConcurrency} min={1} max={256} hint={batch && canBatch(plan.data?.batch) ? "Not used in batch mode: every case goes out together in each round." : "Parallel cases; providers may slow this down."} />
            <NumberInput label="Repeats" value={repeat} onChange={setRepeat} min={1} max={20} hint="Above 1: measures consistency (pass^k)." />
          </div>
          {!numbersOk && <p className="small error-text">Turns must be 1–50, cases at once 1–256 and repeats 1–20 (whole numbers).</p>}
          <BatchSwitch on={batch} onChange={setBatch} note={plan.data?.batch} />
          <div className="form-grid">
            <SpendingCapField value={capText} onChange={setCapText} unit="case" error={cap.error} />
            <TextInput label="Name of the run (optional)" value={label} onChange={setLabel} placeholder="e.g. baseline, temperature 0" />
          </div>
        </fieldset>
      </div>
      <aside className="run-form-plan">
        <PlanBox
          plan={plan.data}
          error={plan.error}
          loading={plan.loading || !fresh}
          models={models}
          confirmed={confirmed}
          onConfirm={(v) => setConfirmedFor(v ? remoteKey : null)}
          policyName={policyName}
        />
        <ErrorBanner error={start.error} onDismiss={start.clearError} title="The run did not start." />
        <button className="btn btn-primary btn-start" disabled={!req || !fresh || !!plan.error || needsConfirm || start.busy} onClick={onStart}>
          {start.busy ? "Starting…" : plan.data ? `Start the run (${plural(plan.data.items, "item")})` : "Start the run"}
        </button>
        {needsConfirm && fresh && <p className="small muted">Tick the confirmation above to start.</p>}
      </aside>
    </div>
  );
}

export function NoModels() {
  return (
    <EmptyState title="No models registered yet" actions={<a className="btn btn-primary" href="#/settings">Add models in Settings</a>}>
      A run needs three models: the model under test, an information provider that answers its questions, and a judge. One model can play several
      roles, but the results are more trustworthy when the model under test neither answers its own questions nor judges itself.
    </EmptyState>
  );
}
