// Configure a generation run, with a live plan beside the form: what will be generated, the anchors
// each clause has, calls, tokens and cost, and where data goes. A new run starts from a small sample;
// remote destinations, and any run of more than LARGE_RUN_CALLS model calls, need a tick before Start.

import { ReactNode, useEffect, useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { AnchorBucket, CardSummary, GenerationPlan, ModelView } from "../../api/generated";
import type { EngineError } from "../../api/client";
import { LocalityBadge } from "../../components/Badges";
import { BatchPlan, BatchSwitch } from "../../components/BatchMode";
import { canBatch } from "../../components/batch";
import { EmptyState, ErrorBanner, Loading } from "../../components/Feedback";
import { Checkbox, NumberInput, Select, TextInput } from "../../components/Forms";
import { CapForecastNote, parseCap, SpendingCapField } from "../../components/SpendingCap";
import { Section } from "../../components/Layout";
import { CASE_TYPE_LABEL, EVENT_TYPE_LABEL, num, plural, tokens, usd } from "../../format";
import { href, navigate } from "../../router";
import type { ClauseIndex } from "../anchors/clauses";
import { clauseShort } from "../anchors/clauses";
import { CardPicker } from "./CardPicker";
import {
  availability,
  DEFAULT_FORM,
  destinationsKey,
  destinationWords,
  formProblem,
  GenerationForm,
  isLargeRun,
  largeRunKey,
  largeRunText,
  SAMPLE_SIZE,
  selectedCards,
  STAGE_LABEL,
  startWaitsFor,
  toRequest,
} from "./logic";
import { useDebounced } from "../anchors/hooks";
import { usePolicyId } from "../../policyChoice";
import { PlanConcurrency } from "../../components/RequestsInFlight";
import { ProtocolBadge, ProtocolChoiceField } from "../../components/Protocol";
import { protocolMeaning } from "../../components/protocol";

// The form survives leaving the page (for this session of the app).
let remembered: GenerationForm | null = null;


function modelLabel(m: ModelView): string {
  return `${m.name} — ${m.local ? "on this computer" : "remote"}`;
}

function CostLine({ plan, models }: { plan: GenerationPlan; models: ModelView[] }) {
  const e = plan.estimate;
  if (e.usd !== null) {
    const allLocal = plan.destinations.every((d) => !d.remote);
    return (
      <span>
        <strong className="plan-cost">{usd(e.usd)}</strong>
        <span className="muted small">{allLocal ? " — local models cost nothing per call" : " estimated from the registered prices"}</span>
      </span>
    );
  }
  const unpriced = plan.destinations
    .filter((d) => d.remote)
    .map((d) => models.find((m) => m.name === d.model))
    .filter((m): m is ModelView => !!m && (m.price_in === null || m.price_out === null))
    .map((m) => m.name);
  return (
    <span>
      <strong className="plan-cost">unknown</strong>
      <span className="muted small">
        {" "}
        — no price registered{unpriced.length ? ` for ${Array.from(new Set(unpriced)).join(", ")}` : ""}. Add prices in{" "}
        <a href="#/settings">Settings</a> to see an estimate.
      </span>
    </span>
  );
}

function PlanBox({
  plan,
  loading,
  error,
  problem,
  selected,
  clauses,
  buckets,
  form,
  models,
  confirmed,
  setConfirmed,
  largeConfirmed,
  setLargeConfirmed,
  onStart,
  starting,
}: {
  plan: GenerationPlan | undefined;
  loading: boolean;
  error: EngineError | undefined;
  problem: ReactNode;
  selected: CardSummary[];
  clauses: ClauseIndex | undefined;
  buckets: AnchorBucket[] | undefined;
  form: GenerationForm;
  models: ModelView[];
  confirmed: boolean;
  setConfirmed: (v: boolean) => void;
  largeConfirmed: boolean;
  setLargeConfirmed: (v: boolean) => void;
  onStart: () => void;
  starting: boolean;
}) {
  const avail = useMemo(
    () =>
      availability(selected, buckets ?? [], form.anchorOrigin, form.anchorsPerCard).sort(
        (a, b) => (clauses?.byId.get(a.clauseId)?.global_no ?? 99) - (clauses?.byId.get(b.clauseId)?.global_no ?? 99),
      ),
    [selected, buckets, form.anchorOrigin, form.anchorsPerCard, clauses],
  );
  const short = avail.filter((a) => a.state !== "enough");
  const remote = plan?.sends_data_off_machine ?? false;
  const large = isLargeRun(plan);
  const waitsFor = plan && !problem && !error ? startWaitsFor({ needed: remote, given: confirmed }, { needed: large, given: largeConfirmed }) : null;
  const canStart = !!plan && !problem && !error && !waitsFor && plan.candidates > 0;
  const stale = loading && !!plan;

  const availTable = (
    <table className="data compact" data-testid="availability">
      <caption className="sr-only">Anchors available per clause</caption>
      <thead>
        <tr>
          <th>Clause</th>
          <th style={{ textAlign: "right" }}>Cards</th>
          <th style={{ textAlign: "right" }}>Anchors in bucket</th>
          <th style={{ textAlign: "right" }}>Used per card</th>
        </tr>
      </thead>
      <tbody>
        {avail.map((a) => (
          <tr key={a.clauseId}>
            <td>
              {clauseShort(clauses, a.clauseId)}
              {a.state === "none" && (
                <>
                  {" "}
                  <a className="small" href={href("/anchors", { clause: a.clauseId })}>
                    add anchors
                  </a>
                </>
              )}
            </td>
            <td style={{ textAlign: "right" }}>{a.cards}</td>
            <td style={{ textAlign: "right" }}>{a.available}</td>
            <td style={{ textAlign: "right" }}>
              {a.state === "enough" ? (
                a.used
              ) : a.state === "few" ? (
                <span className="warn-text">
                  <span aria-hidden>⚠ </span>
                  {a.used} <span className="sr-only">(fewer than requested)</span>
                </span>
              ) : (
                <span className="error-text">
                  <span aria-hidden>✕ </span>none — left out
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );

  return (
    <section className="card plan-box" aria-labelledby="plan-title" aria-busy={loading}>
      <div className="card-head">
        <h2 id="plan-title">Plan</h2>
        {loading && (
          <span className="muted small row gap">
            <span className="spinner" aria-hidden /> updating
          </span>
        )}
      </div>
      {problem ? (
        <p className="muted">{problem}</p>
      ) : error ? (
        <ErrorBanner error={error} title="This run cannot be planned." />
      ) : !plan ? (
        <Loading label="Working out the plan…" />
      ) : (
        <div className={`stack ${stale ? "stale" : ""}`} data-testid="plan">
          <p className="plan-protocol row gap wrap" data-testid="plan-protocol">
            <ProtocolBadge protocol={plan.protocol} />
            <span className="small muted">
              {protocolMeaning(plan.protocol)}
              {plan.protocol === "paper" ? " — no clause screen, no quick checks in code, one try for a checker's reply" : ""}
            </span>
          </p>
          <div className="plan-figures">
            <div>
              <div className="plan-num">{num(plan.cards)}</div>
              <div className="small muted">{plan.cards === 1 ? "card" : "cards"}</div>
              <ul className="plan-breakdown small">
                {["Reportable", "Non_Reportable", "Uncertain"]
                  .filter((t) => plan.cards_by_type[t])
                  .map((t) => (
                    <li key={t}>
                      {plan.cards_by_type[t]} {EVENT_TYPE_LABEL[t] ?? t}
                    </li>
                  ))}
              </ul>
            </div>
            <div>
              <div className="plan-num">{num(plan.units)}</div>
              <div className="small muted">card × anchor pairs</div>
            </div>
            <div>
              <div className="plan-num" data-testid="plan-candidates">
                {num(plan.candidates)}
              </div>
              <div className="small muted">candidate cases</div>
              <ul className="plan-breakdown small" data-testid="plan-by-type">
                {["complete", "missing", "uncertain"]
                  .filter((t) => plan.candidates_by_type[t])
                  .map((t) => (
                    <li key={t}>
                      {plan.candidates_by_type[t]} {(CASE_TYPE_LABEL[t] ?? t).toLowerCase()}
                    </li>
                  ))}
              </ul>
            </div>
          </div>

          <div>
            <h3>Anchors per clause</h3>
            {short.length === 0 ? (
              <p className="small">
                <span aria-hidden>✓ </span>Every clause has at least {form.anchorsPerCard} anchors{form.anchorOrigin !== "all" ? ` (${form.anchorOrigin === "builtin" ? "built-in samples" : "imported"})` : ""}.
              </p>
            ) : (
              <p className="small warn-text">
                <span aria-hidden>⚠ </span>
                {plural(short.length, "clause")} {short.length === 1 ? "has" : "have"} fewer than {form.anchorsPerCard} anchors
                {form.anchorOrigin !== "all" ? ` (${form.anchorOrigin === "builtin" ? "built-in samples only" : "imported only"})` : ""}; their cards use what there is.
              </p>
            )}
            {avail.length <= 6 ? (
              availTable
            ) : (
              <details>
                <summary className="small">Show all {avail.length} clauses</summary>
                {availTable}
              </details>
            )}
            {plan.unapproved_cards.length > 0 && (
              <p className="small warn-text">
                <span aria-hidden>⚠ </span>Not approved: {plan.unapproved_cards.join(", ")}.
              </p>
            )}
            {plan.warnings.length > 0 && (
              <details className="small">
                <summary>Planner notes ({plan.warnings.length})</summary>
                <ul>
                  {plan.warnings.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              </details>
            )}
          </div>

          <div>
            <h3>Calls, tokens and cost</h3>
            <dl className="kv plan-kv">
              <div className="kv-row">
                <dt>Model calls</dt>
                <dd>about {num(plan.estimate.calls)}</dd>
              </div>
              <div className="kv-row">
                <dt>Tokens</dt>
                <dd>
                  about {tokens(plan.estimate.input_tokens)} in, {tokens(plan.estimate.output_tokens)} out
                </dd>
              </div>
              <div className="kv-row">
                <dt>Cost</dt>
                <dd data-testid="plan-cost">
                  <CostLine plan={plan} models={models} />
                </dd>
              </div>
            </dl>
            <CapForecastNote cap={plan.cap} unit="card × anchor pairs" />
            <PlanConcurrency endpoints={plan.concurrency} />
            <details className="small">
              <summary>By stage and how this is estimated</summary>
              <table className="data compact">
                <thead>
                  <tr>
                    <th>Stage</th>
                    <th style={{ textAlign: "right" }}>Calls</th>
                    <th style={{ textAlign: "right" }}>Tokens in</th>
                    <th style={{ textAlign: "right" }}>Tokens out</th>
                  </tr>
                </thead>
                <tbody>
                  {plan.estimate.per_stage.map((s) => (
                    <tr key={s.stage}>
                      <td>{STAGE_LABEL[s.stage] ?? s.stage}</td>
                      <td style={{ textAlign: "right" }}>{num(s.calls)}</td>
                      <td style={{ textAlign: "right" }}>{tokens(s.input_tokens)}</td>
                      <td style={{ textAlign: "right" }}>{tokens(s.output_tokens)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="muted">Assumes {plan.estimate.assumptions}. Real usage is recorded for every call.</p>
            </details>
            <BatchPlan usd={plan.estimate.usd} usdBatch={plan.estimate.usd_batch} note={plan.batch} />
          </div>

          <div>
            <h3>Where data goes</h3>
            <ul className="plain-list" data-testid="destinations">
              {plan.destinations.map((d) => (
                <li key={d.role} className="dest-row">
                  <div className="small muted">{destinationWords(d.role)}</div>
                  <div className="row gap wrap">
                    <LocalityBadge local={!d.remote} />
                    <strong>{d.model}</strong>
                    <code className="id">{d.destination}</code>
                  </div>
                </li>
              ))}
            </ul>
          </div>

          {remote && (
            <div className="destination destination-remote">
              <Checkbox
                label="I understand that card text, anchor text and the generated facts and reports will be sent to the remote destinations above."
                checked={confirmed}
                onChange={setConfirmed}
                hint="Anchors should be de-identified; check that your organisation allows this provider to process them."
              />
            </div>
          )}

          {large && (
            <div className="destination destination-large" data-testid="large-run">
              <Checkbox
                label={largeRunText(plan)}
                checked={largeConfirmed}
                onChange={setLargeConfirmed}
                hint="A run this size is best started after a small sample has shown that the cards and the models work well together. Fewer cards or anchors per card make it smaller."
              />
            </div>
          )}
        </div>
      )}
      <div className="plan-start">
        <button className="btn btn-primary btn-large" disabled={!canStart || starting || stale} onClick={onStart}>
          {starting ? "Starting…" : plan && !problem && !error ? `Start generating ${plural(plan.candidates, "candidate case")}` : "Start generating"}
        </button>
        {waitsFor && <span className="small muted">{waitsFor}</span>}
      </div>
    </section>
  );
}

export function Configure({ clauses }: { clauses: ClauseIndex | undefined }) {
  const models = useApi("models.list", {});
  const cards = useApi("cards.list", { policy: usePolicyId() });
  const buckets = useApi("anchors.buckets", { policy: usePolicyId() });
  const [form, setFormState] = useState<GenerationForm>(remembered ?? DEFAULT_FORM);
  const setForm = (patch: Partial<GenerationForm>) =>
    setFormState((f) => {
      const n = { ...f, ...patch };
      remembered = n;
      return n;
    });
  const list = models.data ?? [];
  // Default writer: the first model on this computer, else the first registered.
  useEffect(() => {
    if (!models.data || models.data.length === 0) return;
    if (!form.model || !models.data.some((m) => m.name === form.model)) {
      setForm({ model: (models.data.find((m) => m.local) ?? models.data[0]).name });
    }
  }, [models.data, form.model]);

  const allCards = useMemo(() => cards.data ?? [], [cards.data]);
  const approved = allCards.filter((c) => c.status === "approved");
  const selected = useMemo(() => selectedCards(form, allCards), [form, allCards]);
  const problem = formProblem(form);
  const policyId = usePolicyId();
  const request = useDebounced(problem ? null : toRequest(form, policyId, allCards), 350);
  const plan = useApi("generation.plan", problem ? null : request);
  const planData = problem ? undefined : plan.data;
  const destKey = destinationsKey(planData);
  const [confirmedKey, setConfirmedKey] = useState("");
  const confirmed = !!destKey && confirmedKey === destKey;
  // A large run's tick holds for the request and plan it was given for.
  const largeKey = largeRunKey(problem ? null : request, planData);
  const [largeConfirmedKey, setLargeConfirmedKey] = useState("");
  const largeConfirmed = !!largeKey && largeConfirmedKey === largeKey;
  const start = useAction("generation.start");

  const clausesWithApproved = useMemo(() => {
    const n = new Map<string, number>();
    for (const c of approved) n.set(c.clause_id, (n.get(c.clause_id) ?? 0) + 1);
    return (clauses?.list ?? []).map((c) => ({ value: c.clause_id, label: `${c.global_no}. ${c.short_title} (${n.get(c.clause_id) ?? 0} approved)` }));
  }, [clauses, approved]);

  if (models.error) return <ErrorBanner error={models.error} />;
  if (!models.data || !cards.data) return <Loading />;

  if (approved.length === 0 && form.mode !== "chosen") {
    return (
      <EmptyState
        title="No approved cards yet"
        actions={
          <>
            <a className="btn btn-primary" href="#/cards">
              Open the card library
            </a>
            <button className="btn" onClick={() => setForm({ mode: "chosen" })}>
              Choose draft cards anyway
            </button>
          </>
        }
      >
        Cases are generated from clause cards that a person has audited and approved. Approve cards in the card library first.
      </EmptyState>
    );
  }

  const onStart = async () => {
    if (!request) return;
    // Batch mode only when a chosen model has a batch API (the switch is disabled otherwise).
    const r = await start.run({ ...request, batch: request.batch && canBatch(planData?.batch) });
    if (r) navigate(href("/generate", { run: r.run_id }));
  };

  return (
    <div className="configure">
      <div className="configure-form stack">
        <Section title="Cards">
          <fieldset className="radio-group">
            <legend className="sr-only">Which cards</legend>
            <label>
              <input type="radio" name="cards" checked={form.mode === "sample"} onChange={() => setForm({ mode: "sample" })} /> A small sample to try first:{" "}
              {plural(Math.min(SAMPLE_SIZE, approved.length), "approved card")} (one reportable, one not reportable and one uncertain where the library has them, each from a
              different clause)
            </label>
            <label>
              <input type="radio" name="cards" checked={form.mode === "all"} onChange={() => setForm({ mode: "all" })} /> All approved cards ({approved.length})
            </label>
            <label>
              <input type="radio" name="cards" checked={form.mode === "clause"} onChange={() => setForm({ mode: "clause" })} /> The approved cards of one clause
            </label>
            <label>
              <input type="radio" name="cards" checked={form.mode === "chosen"} onChange={() => setForm({ mode: "chosen" })} /> Cards I choose
            </label>
          </fieldset>
          {form.mode === "sample" && (
            <p className="indent small" data-testid="sample-cards">
              <span className="muted">The sample: </span>
              {selected.map((c, i) => (
                <span key={c.card_id}>
                  {i > 0 && ", "}
                  <code className="id">{c.card_id}</code> <span className="muted">({clauseShort(clauses, c.clause_id)})</span>
                </span>
              ))}
              . <span className="muted">When the sample looks right, choose more cards or more anchors.</span>
            </p>
          )}
          {form.mode === "clause" && (
            <div className="indent">
              <Select label="Clause" value={form.clause} onChange={(v) => setForm({ clause: v })} options={[{ value: "", label: "Choose a clause…" }, ...clausesWithApproved]} />
            </div>
          )}
          {form.mode === "chosen" && (
            <div className="indent">
              <CardPicker cards={allCards} clauses={clauses} chosen={form.chosen} onChange={(ids) => setForm({ chosen: ids })} />
            </div>
          )}
          <div className="spaced" />
          <Checkbox
            label="Also generate missing-information variants"
            checked={form.includeMissing}
            onChange={(v) => setForm({ includeMissing: v })}
            hint="For cards that define them: the same facts, reported before the decisive ones are known."
          />
        </Section>

        <Section title="Anchors">
          <div className="grid-2">
            <NumberInput
              label="Anchors per card"
              value={form.anchorsPerCard}
              min={1}
              max={1000}
              onChange={(v) => setForm({ anchorsPerCard: v })}
              hint="Drawn from the card's clause bucket; a bucket with fewer gives all it has. One case per anchor."
            />
            <Select
              label="Take anchors from"
              value={form.anchorOrigin}
              onChange={(v) => setForm({ anchorOrigin: v as GenerationForm["anchorOrigin"] })}
              options={[
                { value: "all", label: "Built-in samples and imported anchors" },
                { value: "imported", label: "Imported anchors only" },
                { value: "builtin", label: "Built-in samples only" },
              ]}
            />
          </div>
        </Section>

        <Section title="Models">
          {list.length === 0 ? (
            <EmptyState title="No model is registered yet" actions={<a className="btn btn-primary" href="#/settings">Add a model in Settings</a>}>
              Generation needs a model to write the cases and one to check them (the same model can do both). Models on this computer keep everything
              here.
            </EmptyState>
          ) : (
            <div className="grid-2">
              <Select
                label="Writer model"
                value={form.model}
                onChange={(v) => setForm({ model: v })}
                options={list.map((m) => ({ value: m.name, label: modelLabel(m) }))}
                hint="Fills in the facts and writes the reports."
              />
              <Select
                label="Checker model"
                value={form.verifierModel}
                onChange={(v) => setForm({ verifierModel: v })}
                options={[{ value: "", label: "Same as the writer" }, ...list.map((m) => ({ value: m.name, label: modelLabel(m) }))]}
                hint="Reads the reports back and checks facts and reports. A different model catches more."
              />
              {form.protocol === "paper" ? (
                <div className="field" data-testid="screen-not-used">
                  <span className="field-label">Clause screen model</span>
                  <p className="hint">Not used: under the paper protocol no clause screen runs, so no case&apos;s facts are checked against the other clauses of the policy.</p>
                </div>
              ) : (
                <Select
                  label="Clause screen model"
                  value={form.screenModel}
                  onChange={(v) => setForm({ screenModel: v })}
                  options={[{ value: "", label: "Same as the checker" }, ...list.map((m) => ({ value: m.name, label: modelLabel(m) }))]}
                  hint="Checks each case's facts against every clause of the policy. Best a model of another family than the writer."
                />
              )}
            </div>
          )}
        </Section>

        <Section title="Protocol">
          <ProtocolChoiceField
            hideLegend
            value={form.protocol ?? "studio"}
            onChange={(p) => setForm({ protocol: p })}
            note={
              form.protocol === "paper" ? (
                <p className="small protocol-note" data-testid="paper-note">
                  <strong>No clause screen runs:</strong> the cases&apos; facts are not checked against the other clauses of the policy, so the clause screen
                  model is not used. There are no quick checks in code, and a checker&apos;s reply that cannot be read is not asked for again.
                </p>
              ) : null
            }
          />
        </Section>

        <Section title="Run settings">
          <div className="grid-3">
            <NumberInput label="Seed" value={form.seed} min={0} onChange={(v) => setForm({ seed: v })} hint="The same seed picks the same anchors." />
            <NumberInput
              label="Work at once"
              value={form.concurrency}
              min={1}
              max={256}
              onChange={(v) => setForm({ concurrency: v })}
              hint={form.batch && canBatch(planData?.batch) ? "Not used in batch mode: every pair goes out together at each stage." : "Card × anchor pairs in progress at the same time."}
            />
            <TextInput label="Name (optional)" value={form.label} onChange={(v) => setForm({ label: v })} placeholder="e.g. Falls pilot" />
          </div>
          <BatchSwitch on={form.batch} onChange={(v) => setForm({ batch: v })} note={planData?.batch} />
          <div className="grid-3">
            <SpendingCapField value={form.maxCost ?? ""} onChange={(v) => setForm({ maxCost: v })} unit="card × anchor pair" error={parseCap(form.maxCost ?? "").error} />
          </div>
        </Section>
        <ErrorBanner error={start.error} onDismiss={start.clearError} title="The run did not start." />
      </div>
      <div className="configure-plan">
        <PlanBox
          plan={planData}
          loading={plan.loading || (!!request && JSON.stringify(request) !== JSON.stringify(problem ? null : toRequest(form, policyId, allCards)))}
          error={problem ? undefined : plan.error}
          problem={
            list.length === 0 ? (
              <>
                No model is registered yet. <a href="#/settings">Add one in Settings</a>: it writes and checks the cases, and the plan then shows what a run
                would cost.
              </>
            ) : (
              problem
            )
          }
          selected={selected}
          clauses={clauses}
          buckets={buckets.data}
          form={form}
          models={list}
          confirmed={confirmed}
          setConfirmed={(v) => setConfirmedKey(v ? destKey : "")}
          largeConfirmed={largeConfirmed}
          setLargeConfirmed={(v) => setLargeConfirmedKey(v ? largeKey : "")}
          onStart={onStart}
          starting={start.busy}
        />
      </div>
    </div>
  );
}
