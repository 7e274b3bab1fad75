// Setting up a review: which cases (a seeded stratified sample, or hand-picked), who reviews, how
// many reviewers rate each case, and the guidelines shown before the first case.

import { useEffect, useMemo, useState } from "react";
import { useAction, useApi } from "../../api/client";
import type { CaseSummary, ReviewSelection } from "../../api/generated";
import { CaseTypeBadge, Id, VerdictBadge } from "../../components/Badges";
import { DataTable } from "../../components/DataTable";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { Checkbox, NumberInput, TextInput } from "../../components/Forms";
import { PageHeader, Section } from "../../components/Layout";
import { CASE_TYPE_LABEL, num, plural } from "../../format";
import { href, navigate, useRoute } from "../../router";
import { DEFAULT_GUIDELINES_TEXT } from "./logic";
import { Markdown } from "./markdown";

const MAX_SEED = 2 ** 53 - 1;

export function randomSeed(): number {
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return (a[0] % 2 ** 21) * 2 ** 32 + a[1];
}

function CasePicker({ picked, setPicked }: { picked: Set<string>; setPicked: (s: Set<string>) => void }) {
  const cases = useApi("cases.list", { include_excluded: false });
  const [text, setText] = useState("");
  const [type, setType] = useState("");
  const [clause, setClause] = useState("");
  const [onlyPicked, setOnlyPicked] = useState(false);
  const all = useMemo(() => cases.data ?? [], [cases.data]);
  const clauses = useMemo(() => Array.from(new Set(all.map((c) => c.clause_id))).sort(), [all]);
  const f = text.trim().toLowerCase();
  const rows = all.filter(
    (c) =>
      (!type || c.case_type === type) &&
      (!clause || c.clause_id === clause) &&
      (!onlyPicked || picked.has(c.case_id)) &&
      (!f || `${c.case_id} ${c.clause_id} ${c.clause_card_id} ${c.gold_verdict}`.toLowerCase().includes(f)),
  );
  const toggle = (id: string) => {
    const s = new Set(picked);
    if (s.has(id)) s.delete(id);
    else s.add(id);
    setPicked(s);
  };
  if (cases.error) return <ErrorBanner error={cases.error} title="The cases could not be listed." />;
  if (!cases.data) return <Loading />;
  return (
    <div className="stack">
      <div className="filters">
        <div className="field">
          <label htmlFor="pick-search">Search</label>
          <input id="pick-search" type="search" value={text} placeholder="Case id, clause or card" onChange={(e) => setText(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="pick-type">Case type</label>
          <select id="pick-type" value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">All types</option>
            {Object.entries(CASE_TYPE_LABEL).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="pick-clause">Clause</label>
          <select id="pick-clause" value={clause} onChange={(e) => setClause(e.target.value)}>
            <option value="">All clauses</option>
            {clauses.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <Checkbox label="Only picked cases" checked={onlyPicked} onChange={setOnlyPicked} />
      </div>
      <div className="row gap wrap">
        <strong>{plural(picked.size, "case")} picked</strong>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            const s = new Set(picked);
            rows.forEach((r) => s.add(r.case_id));
            setPicked(s);
          }}
        >
          Pick all {rows.length} shown
        </button>
        <button type="button" className="btn btn-small" onClick={() => setPicked(new Set())} disabled={picked.size === 0}>
          Clear
        </button>
      </div>
      <div className="rev-picker">
      <DataTable<CaseSummary>
        rows={rows}
        rowKey={(c) => c.case_id}
        onOpen={(c) => toggle(c.case_id)}
        maxHeight={380}
        caption="Cases to pick from"
        columns={[
          {
            key: "pick",
            header: <span className="sr-only">Picked</span>,
            label: "Picked",
            render: (c) => (
              <input
                type="checkbox"
                aria-label={`Pick ${c.case_id}`}
                checked={picked.has(c.case_id)}
                onClick={(e) => e.stopPropagation()}
                onChange={() => toggle(c.case_id)}
              />
            ),
          },
          { key: "id", header: "Case", render: (c) => <Id value={c.case_id} />, sort: (c) => c.case_id },
          { key: "type", header: "Type", render: (c) => <CaseTypeBadge caseType={c.case_type} />, sort: (c) => c.case_type },
          {
            key: "clause",
            header: "Clause",
            render: (c) => (
              <span className="truncate rev-clause" title={c.clause_id}>
                {c.clause_id}
              </span>
            ),
            sort: (c) => c.clause_id,
          },
          { key: "gold", header: "Verdict", render: (c) => <VerdictBadge verdict={c.gold_verdict} />, sort: (c) => c.gold_verdict },
          { key: "words", header: "Words", align: "right", render: (c) => num(c.narrative_words), sort: (c) => c.narrative_words },
        ]}
      />
      </div>
    </div>
  );
}

/** `headingOffset`: the level a "#" heading of the preview takes, one below the heading the editor stands under. */
export function GuidelinesEditor({ value, onChange, label = "Guidelines (Markdown)", headingOffset = 2 }: { value: string; onChange: (v: string) => void; label?: string; headingOffset?: number }) {
  return (
    <div className="rev-editor">
      <div className="field">
        <label htmlFor="rev-guidelines">{label}</label>
        <textarea id="rev-guidelines" value={value} onChange={(e) => onChange(e.target.value)} spellCheck />
        <div className="hint">Headings (#), lists (- or 1.), **bold**, *italic*, [links](https://…). Shown before the first case and on demand (G).</div>
      </div>
      <div className="field">
        <span className="field-label" id="rev-preview-label">
          <strong>Preview</strong>
        </span>
        <div className="rev-preview" role="region" aria-labelledby="rev-preview-label" tabIndex={0}>
          <Markdown text={value || DEFAULT_GUIDELINES_TEXT} headingOffset={headingOffset} className="rv-md" />
        </div>
      </div>
    </div>
  );
}

/** The rationale task: a switch, then the evaluation runs whose judged rationales reviewers check. */
function RationaleChoice({ on, setOn, runs, setRuns }: { on: boolean; setOn: (v: boolean) => void; runs: Set<string>; setRuns: (s: Set<string>) => void }) {
  const list = useApi("evaluation.list", {});
  const evalRuns = (list.data ?? []).filter((r) => r.counts.done > 0);
  return (
    <div className="stack">
      <Checkbox
        label="Also check the M4 judge against the reviewers"
        checked={on}
        onChange={setOn}
        hint="For each case that a chosen run's judge scored, reviewers also read that model's rationale (after their own verdict is locked) and tick the conditions it establishes. The results then compare the judge with them (Cohen's kappa)."
      />
      {on &&
        (list.error ? (
          <ErrorBanner error={list.error} title="The evaluation runs could not be listed." />
        ) : !list.data ? (
          <Loading />
        ) : evalRuns.length === 0 ? (
          <Notice kind="warn">There are no evaluation runs with finished cases yet; run an evaluation first.</Notice>
        ) : (
          <fieldset className="rev-runs">
            <legend>Rationales from these runs</legend>
            {evalRuns.map((r) => (
              <Checkbox
                key={r.run_id}
                label={`${r.config.model || r.label || r.run_id} · ${r.run_id} (${plural(r.counts.done, "case")})`}
                checked={runs.has(r.run_id)}
                onChange={(v) => {
                  const next = new Set(runs);
                  if (v) next.add(r.run_id);
                  else next.delete(r.run_id);
                  setRuns(next);
                }}
              />
            ))}
          </fieldset>
        ))}
    </div>
  );
}

export function NewSession() {
  const available = useApi("review.available", {});
  const create = useAction("review.create");
  // `?cases=a,b,c` (from the label audit) starts with exactly those cases picked.
  const prefilled = (useRoute().query.get("cases") ?? "").split(",").filter(Boolean);
  const [name, setName] = useState(() =>
    prefilled.length > 0
      ? `Disputed labels ${new Date().toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" })}`
      : `Review ${new Date().toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" })}`,
  );
  const [mode, setMode] = useState<"stratified" | "cases">(prefilled.length > 0 ? "cases" : "stratified");
  const [counts, setCounts] = useState<[number, number, number] | null>(null);
  const [byClause, setByClause] = useState(false);
  const [seed, setSeed] = useState<number>(() => randomSeed());
  const [picked, setPicked] = useState<Set<string>>(() => new Set(prefilled));
  const [reviewers, setReviewers] = useState<string[]>([]);
  const [newReviewer, setNewReviewer] = useState("");
  const [overlap, setOverlap] = useState(2);
  const [guidelines, setGuidelines] = useState(DEFAULT_GUIDELINES_TEXT);
  const [problem, setProblem] = useState<string | null>(null);
  const [rationaleOn, setRationaleOn] = useState(false);
  const [rationaleRuns, setRationaleRuns] = useState<Set<string>>(new Set());

  const av = available.data;
  useEffect(() => {
    if (av && counts === null) setCounts([Math.min(30, av.complete), Math.min(30, av.missing), Math.min(30, av.uncertain)]);
  }, [av, counts]);

  const addReviewer = () => {
    const n = newReviewer.trim().replace(/\s+/g, " ");
    if (!n) return;
    if (n.includes(",")) {
      setProblem("Reviewer names cannot contain commas.");
      return;
    }
    if (reviewers.some((r) => r.toLowerCase() === n.toLowerCase())) {
      setProblem(`“${n}” is already a reviewer.`);
      return;
    }
    setProblem(null);
    setReviewers([...reviewers, n]);
    setNewReviewer("");
  };

  const c = counts ?? [0, 0, 0];
  const caseCount = mode === "stratified" ? c[0] + c[1] + c[2] : picked.size;
  const k = Math.min(Math.max(1, overlap || 1), Math.max(1, reviewers.length));
  // With fewer reviewers than the overlap asked for, the overlap shown is the number of reviewers.
  const shownOverlap = reviewers.length > 0 && Number.isFinite(overlap) ? Math.min(overlap, reviewers.length) : overlap;
  const perReviewer = reviewers.length ? (caseCount * k) / reviewers.length : 0;
  const tooMany = av && mode === "stratified" && (c[0] > av.complete || c[1] > av.missing || c[2] > av.uncertain);

  const submit = async () => {
    setProblem(null);
    const pending = newReviewer.trim();
    const names = pending && !reviewers.includes(pending) ? [...reviewers, pending] : reviewers;
    if (!name.trim()) return setProblem("Give the review a name.");
    if (names.length === 0) return setProblem("Name at least one reviewer.");
    if (caseCount === 0) return setProblem(mode === "stratified" ? "Ask for at least one case." : "Pick at least one case.");
    if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) return setProblem(`The seed must be a whole number from 0 to ${MAX_SEED}.`);
    if (rationaleOn && rationaleRuns.size === 0) return setProblem("Choose at least one evaluation run for the rationale task, or turn it off.");
    const selection: ReviewSelection =
      mode === "stratified"
        ? { kind: "stratified", complete: c[0], missing: c[1], uncertain: c[2], by_clause: byClause }
        : { kind: "cases", case_ids: Array.from(picked) };
    const r = await create.run({
      name: name.trim(),
      selection,
      reviewers: names,
      overlap: Math.min(Math.max(1, overlap || 1), names.length),
      seed,
      guidelines: guidelines.trim() ? guidelines : null,
      rationale_from: rationaleOn ? Array.from(rationaleRuns) : null,
    });
    if (r) {
      toast(`Created “${r.summary.name}”: ${plural(r.summary.cases, "case")}, ${plural(r.summary.reviewers.length, "reviewer")}.`);
      navigate(href("/review", r.summary.session_id));
    }
  };

  return (
    <>
      <PageHeader
        title="New review"
        subtitle="Choose the cases, name the reviewers and say how many of them rate each case."
        actions={
          <a className="btn" href="#/review">
            Cancel
          </a>
        }
      />
      <form
        className="rev-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Section title="Name">
          <TextInput label="Name of the review" value={name} onChange={setName} hint="Reviewers see this name at the top of every page." />
        </Section>

        <Section title="Cases">
          <div className="rev-choice-row" role="radiogroup" aria-label="How to choose the cases">
            <label>
              <input type="radio" name="rev-mode" checked={mode === "stratified"} onChange={() => setMode("stratified")} /> A random sample of each case type
            </label>
            <label>
              <input type="radio" name="rev-mode" checked={mode === "cases"} onChange={() => setMode("cases")} /> Cases I pick
            </label>
          </div>
          {mode === "stratified" && (
            <div className="stack">
              {available.error && <ErrorBanner error={available.error} title="The cases could not be counted." />}
              {!av ? (
                <Loading />
              ) : av.complete + av.missing + av.uncertain === 0 ? (
                <Notice kind="warn">
                  There are no cases to review yet. Generate cases, or open the 90 demo cases from <a href="#/">Home</a>.
                </Notice>
              ) : (
                <>
                  <div className="rev-counts">
                    {(["complete", "missing", "uncertain"] as const).map((t, i) => (
                      <NumberInput
                        key={t}
                        label={CASE_TYPE_LABEL[t]}
                        value={c[i]}
                        min={0}
                        max={av[t]}
                        onChange={(v) => {
                          const n: [number, number, number] = [...c];
                          n[i] = Number.isFinite(v) ? Math.max(0, Math.floor(v)) : 0;
                          setCounts(n);
                        }}
                        hint={`${num(av[t])} available`}
                      />
                    ))}
                  </div>
                  {tooMany && <p className="error-text small">You asked for more cases of a type than there are; lower the number.</p>}
                  <Checkbox
                    label="Spread each type over the clauses"
                    checked={byClause}
                    onChange={setByClause}
                    hint={`Each type's share is divided among the ${av.by_clause.length} clauses in proportion to how many cases each has, so that no clause is left out by chance.`}
                  />
                  <div className="field rev-narrow">
                    <label htmlFor="rev-seed">Seed</label>
                    <div className="row gap">
                      <input
                        id="rev-seed"
                        type="number"
                        min={0}
                        max={MAX_SEED}
                        value={Number.isFinite(seed) ? seed : ""}
                        onChange={(e) => setSeed(e.target.value === "" ? NaN : Number(e.target.value))}
                        aria-describedby="rev-seed-hint"
                      />
                      <button type="button" className="btn" onClick={() => setSeed(randomSeed())}>
                        New seed
                      </button>
                    </div>
                    <div className="hint" id="rev-seed-hint">
                      The same seed with the same cases gives the same sample and the same assignment; it is kept with the review.
                    </div>
                  </div>
                </>
              )}
            </div>
          )}
          {mode === "cases" && <CasePicker picked={picked} setPicked={setPicked} />}
        </Section>

        <Section title="Reviewers">
          <div className="stack">
            <div className="rev-add">
              <div className="field">
                <label htmlFor="rev-new-reviewer">Reviewer's name</label>
                <input
                  id="rev-new-reviewer"
                  value={newReviewer}
                  placeholder="e.g. Dr. Ana Ruiz"
                  onChange={(e) => setNewReviewer(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") {
                      e.preventDefault();
                      addReviewer();
                    }
                  }}
                />
              </div>
              <button type="button" className="btn" onClick={addReviewer} disabled={!newReviewer.trim()}>
                Add reviewer
              </button>
            </div>
            {reviewers.length > 0 ? (
              <ul className="rev-chips plain-list" aria-label="Reviewers">
                {reviewers.map((r) => (
                  <li key={r} className="rev-chip">
                    {r}
                    <button type="button" className="btn-ghost btn-small" aria-label={`Remove ${r}`} onClick={() => setReviewers(reviewers.filter((x) => x !== r))}>
                      ✕
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted small">Add each reviewer by name (press Enter after each). Names appear on their links and in the results.</p>
            )}
            <div className="rev-narrow">
            <NumberInput
              label="Reviewers per case"
              value={shownOverlap}
              min={1}
              max={Math.max(1, reviewers.length)}
              onChange={setOverlap}
              hint={
                reviewers.length === 1
                  ? `With one reviewer, each case is rated once (${num(caseCount)} ratings). Agreement between reviewers needs at least 2.`
                  : reviewers.length
                  ? `Each case is rated by ${k} of the ${reviewers.length} reviewers: ${num(caseCount * k)} ratings in all, about ${num(perReviewer)} per reviewer. Agreement between reviewers needs at least 2.`
                  : "Two or more reviewers per case make agreement between reviewers measurable."
              }
            />
            </div>
          </div>
        </Section>

        <Section title="Rationale task (optional)">
          <RationaleChoice on={rationaleOn} setOn={setRationaleOn} runs={rationaleRuns} setRuns={setRationaleRuns} />
        </Section>

        <Section title="Guidelines">
          <p className="muted small">Reviewers read these before their first case and can open them at any time. The text below is a suggestion; change it as you like.</p>
          <GuidelinesEditor value={guidelines} onChange={setGuidelines} />
        </Section>

        {problem && (
          <p className="error-text" role="alert">
            {problem}
          </p>
        )}
        <ErrorBanner error={create.error} onDismiss={create.clearError} title="The review was not created." />
        <div className="row gap">
          <button type="submit" className="btn btn-primary" disabled={create.busy || !!tooMany}>
            Create the review ({plural(caseCount, "case")})
          </button>
          <a className="btn" href="#/review">
            Cancel
          </a>
        </div>
      </form>
    </>
  );
}
