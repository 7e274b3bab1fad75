// The read-only views of a card: the decision table with its legal basis, the fact slots, the
// instantiation constraints, the missing-information variants and the lint findings.

import type { EvidenceItem, LintProblem } from "../../api/generated";
import { Id, VerdictBadge } from "../../components/Badges";
import { EmptyState, Notice } from "../../components/Feedback";
import { humanize } from "../../format";
import { href } from "../../router";
import { CardTab, contentItems, FIELD_TYPE_LABEL, nameTitle, partId, pointerLabel, pointerTarget } from "./logic";
import { NameChip, ProseWithCardIds, ProseWithNames, SeverityBadge, TruthValue } from "./parts";
import type { CardDoc } from "./types";

export type Show = (tab: CardTab, anchor?: string) => void;

/** Link to where an evidence identifier is explained on the Policy page. */
export function evidenceHref(id: string, evidence: EvidenceItem[]): string | null {
  const item = evidence.find((e) => e.id === id);
  if (!item) return null;
  const tab = item.kind === "clause" ? "clauses" : item.kind === "guidance" ? "guidance" : "evidence";
  return href("/policy", { tab, focus: id });
}

export function LegalBasisLinks({ ids, evidence }: { ids: string[]; evidence: EvidenceItem[] | undefined }) {
  return (
    <ul className="evidence-list">
      {ids.map((id, i) => {
        const link = evidence ? evidenceHref(id, evidence) : null;
        return (
          <li key={`${id}-${i}`}>
            {link ? (
              <a href={link} className="evidence-link">
                <span aria-hidden>§</span> {id}
              </a>
            ) : (
              <span className="evidence-unknown" title="Not in the policy's evidence vocabulary">
                <span aria-hidden>⚠</span> {id}
                {evidence && <span className="sr-only"> (not in the evidence vocabulary)</span>}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function DecisionTable({ card, evidence, show }: { card: CardDoc; evidence: EvidenceItem[] | undefined; show: Show }) {
  const bcs = Object.entries(card.fixed_fields.boundary_conditions);
  const elements = card.basic_event_elements;
  const lb = card.fixed_fields.governing_legal_basis;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="dt-title">
        <div className="card-head">
          <h2 id="dt-title">Decision table</h2>
          <span className="muted small">{bcs.length === 1 ? "1 condition" : `${bcs.length} conditions`}</span>
        </div>
        <p className="muted small dt-intro">
          An event belongs to this card when every condition below has the value shown. Each condition is realized by the facts listed beside it.
        </p>
        {bcs.length === 0 ? (
          <EmptyState title="This card has no boundary conditions">Add them in the editor: they decide when the card applies.</EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="data decision stack-narrow">
              <caption className="sr-only">Boundary conditions of the card, with their required truth value, meaning and the facts that realize them</caption>
              <thead>
                <tr>
                  <th scope="col">Condition</th>
                  <th scope="col">Truth value</th>
                  <th scope="col">What it means</th>
                  <th scope="col">Shown by these facts</th>
                </tr>
              </thead>
              <tbody>
                {bcs.map(([name, bc]) => (
                  <tr key={name} id={partId("bc", name)} tabIndex={-1} className="target">
                    <th scope="row" className="dt-name">
                      <span className="dt-human">{nameTitle(name)}</span>
                      <Id value={name} />
                    </th>
                    <td className="dt-truth" data-label="Truth value">
                      <TruthValue value={Boolean(bc.value)} />
                    </td>
                    <td className="dt-meaning" data-label="What it means">
                      {bc.meaning}
                    </td>
                    <td className="dt-facts" data-label="Shown by these facts">
                      <div className="chips">
                        {(bc.corresponding_basic_event_elements ?? []).map((el) => (
                          <NameChip key={el} name={el} kind="el" missing={!(el in elements)} onClick={() => show("elements", partId("el", el))} />
                        ))}
                        {(bc.corresponding_basic_event_elements ?? []).length === 0 && <span className="muted small">No facts listed</span>}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <div className="dt-verdict">
          <span className="muted">When every condition is as shown, the verdict is</span>
          <VerdictBadge verdict={card.event_type} />
          {card.event_type === "Uncertain" && <span className="muted small">The policy does not settle these facts: the right answer is to escalate.</span>}
        </div>
      </section>
      <section className="card target" id="legal-basis" tabIndex={-1} aria-labelledby="lb-title">
        <div className="card-head">
          <h2 id="lb-title">Legal basis</h2>
          <span className="muted small">Gold evidence for citation scoring</span>
        </div>
        {lb.value.length === 0 ? <p className="muted">No legal basis is listed.</p> : <LegalBasisLinks ids={lb.value} evidence={evidence} />}
        {lb.meaning && <p className="narrative lb-meaning">{lb.meaning}</p>}
      </section>
    </div>
  );
}

export function FactSlots({ card, show }: { card: CardDoc; show: Show }) {
  const elements = Object.entries(card.basic_event_elements);
  const bcs = Object.entries(card.fixed_fields.boundary_conditions);
  const variants = card.missing_information_variants ?? [];
  if (elements.length === 0) return <EmptyState title="This card has no fact slots">Fact slots are the concrete facts a case is written from.</EmptyState>;
  return (
    <div className="stack">
      <h2 className="sr-only">Fact slots</h2>
      <p className="muted small">
        Fact slots (basic event elements) are the concrete facts every case from this card is written from. The generator fills each slot within what is
        allowed here.
      </p>
      {elements.map(([name, el]) => {
        const ft = FIELD_TYPE_LABEL[el.field_type] ?? { label: el.field_type, hint: "" };
        const realizes = bcs.filter(([, bc]) => (bc.corresponding_basic_event_elements ?? []).includes(name)).map(([n]) => n);
        const maskedBy = variants.filter((v) => (v.masked_basic_event_elements ?? []).includes(name));
        const allowed = contentItems(el.allowed_content);
        const disallowed = contentItems(el.disallowed_content);
        return (
          <article key={name} id={partId("el", name)} tabIndex={-1} className="card slot target" aria-labelledby={`${partId("el", name)}-h`}>
            <div className="slot-head">
              <h3 id={`${partId("el", name)}-h`}>{nameTitle(name)}</h3>
              <Id value={name} />
              <span className="badge ftype" title={ft.hint}>
                {ft.label}
              </span>
            </div>
            <p className="slot-meaning">{el.meaning}</p>
            {el.field_type === "enum" && (
              <div className="slot-values">
                <span className="labelled-label">Allowed values</span>
                <ul className="chips">
                  {(el.allowed_values ?? []).map((v) => (
                    <li key={v} className="chip chip-value" title={v}>
                      {humanize(v)}
                    </li>
                  ))}
                  {(el.allowed_values ?? []).length === 0 && <li className="muted small">None listed</li>}
                </ul>
              </div>
            )}
            <div className="slot-content">
              <div className="slot-allowed">
                <div className="labelled-label">
                  <span aria-hidden>✓</span> Allowed content
                </div>
                {allowed.length === 0 ? <p className="muted small">Nothing specified.</p> : allowed.length === 1 ? <p>{allowed[0]}</p> : <ul>{allowed.map((a, i) => <li key={i}>{a}</li>)}</ul>}
              </div>
              <div className="slot-disallowed">
                <div className="labelled-label">
                  <span aria-hidden>✗</span> Not allowed
                </div>
                {disallowed.length === 0 ? (
                  <p className="muted small">Nothing specified.</p>
                ) : disallowed.length === 1 ? (
                  <p>{disallowed[0]}</p>
                ) : (
                  <ul>{disallowed.map((a, i) => <li key={i}>{a}</li>)}</ul>
                )}
              </div>
            </div>
            <div className="slot-foot row gap wrap small">
              <span className="muted">Realizes</span>
              {realizes.length === 0 ? (
                <span className="lint-warn">
                  <span aria-hidden>⚠</span> no condition
                </span>
              ) : (
                realizes.map((b) => <NameChip key={b} name={b} kind="bc" onClick={() => show("decision", partId("bc", b))} />)
              )}
              {maskedBy.length > 0 && (
                <>
                  <span className="muted slot-sep">Withheld in</span>
                  {maskedBy.map((v) => (
                    <button key={v.missing_variant_id} type="button" className="chip chip-mv" onClick={() => show("variants", partId("mv", variants.indexOf(v)))}>
                      {humanize(v.missing_variant_id)}
                    </button>
                  ))}
                </>
              )}
            </div>
          </article>
        );
      })}
    </div>
  );
}

export function Constraints({ card, show }: { card: CardDoc; show: Show }) {
  const list = card.constraints_on_basic_event_elements_instantiation;
  const names = new Set(Object.keys(card.basic_event_elements));
  return (
    <section className="card">
      <div className="card-head">
        <h2>Instantiation constraints</h2>
        <span className="muted small">{list.length === 1 ? "1 constraint" : `${list.length} constraints`}</span>
      </div>
      <p className="muted small">Rules every generated case must respect: how the facts fit together, and what the text must never say.</p>
      {list.length === 0 ? (
        <p className="muted">This card lists no constraints.</p>
      ) : (
        <ol className="constraints">
          {list.map((c, i) => (
            <li key={i} id={partId("constraint", i)} tabIndex={-1} className="target">
              <ProseWithNames text={c} names={names} onName={(n) => show("elements", partId("el", n))} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function Variants({ card, knownCards, show }: { card: CardDoc; knownCards: Set<string>; show: Show }) {
  const variants = card.missing_information_variants ?? [];
  if (card.event_type === "Uncertain" && variants.length === 0) {
    return (
      <EmptyState title="Uncertain cards have no missing-information variants">
        An Uncertain card describes a gray zone of the policy with every fact known, so nothing is withheld from its cases.
      </EmptyState>
    );
  }
  if (variants.length === 0) {
    return (
      <EmptyState title="No missing-information variants">
        A variant withholds decision-critical facts from the narrative, so the model under test must ask for them. Add variants in the editor under{" "}
        <code>missing_information_variants</code>.
      </EmptyState>
    );
  }
  const bcs = card.fixed_fields.boundary_conditions;
  const els = card.basic_event_elements;
  return (
    <div className="stack">
      <h2 className="sr-only">Missing-information variants</h2>
      <p className="muted small">
        Each variant withholds some facts from the narrative. The model under test has to notice and ask for them before it can decide; the withheld facts
        are the gold answer for which questions it should ask.
      </p>
      {variants.map((v, i) => (
        <article key={`${v.missing_variant_id}-${i}`} id={partId("mv", i)} tabIndex={-1} className="card variant target" aria-labelledby={`${partId("mv", i)}-h`}>
          <div className="slot-head">
            <h3 id={`${partId("mv", i)}-h`}>{nameTitle(v.missing_variant_id)}</h3>
            <Id value={v.missing_variant_id} />
          </div>
          <p className="variant-summary">{v.summary}</p>
          <div className="variant-masked">
            <div>
              <div className="labelled-label">Conditions left open</div>
              <div className="chips">
                {(v.masked_boundary_conditions ?? []).map((b) => (
                  <NameChip key={b} name={b} kind="bc" missing={!(b in bcs)} onClick={() => show("decision", partId("bc", b))} />
                ))}
                {(v.masked_boundary_conditions ?? []).length === 0 && <span className="muted small">None</span>}
              </div>
            </div>
            <div>
              <div className="labelled-label">Facts withheld from the narrative</div>
              <div className="chips">
                {(v.masked_basic_event_elements ?? []).map((e) => (
                  <NameChip key={e} name={e} kind="el" missing={!(e in els)} onClick={() => show("elements", partId("el", e))} />
                ))}
                {(v.masked_basic_event_elements ?? []).length === 0 && <span className="muted small">None</span>}
              </div>
            </div>
          </div>
          <div className="variant-why">
            <div>
              <div className="labelled-label">Why this happens in real reporting</div>
              <p>{v.why_reasonable_in_real_world}</p>
            </div>
            <div>
              <div className="labelled-label">Why the rest cannot be classified</div>
              <p>
                <ProseWithCardIds text={v.why_not_classifiable_from_remaining_event_description} known={knownCards} />
              </p>
            </div>
          </div>
        </article>
      ))}
    </div>
  );
}

export function LintFindings({
  problems,
  olderVersion,
  show,
  openInEditor,
}: {
  problems: LintProblem[];
  olderVersion: boolean;
  show: Show;
  openInEditor: (pointer: string) => void;
}) {
  return (
    <div className="stack">
      <h2 className="sr-only">Lint findings</h2>
      {olderVersion && (
        <Notice>These findings are for the current version of the card, not the older version you are looking at.</Notice>
      )}
      {problems.length === 0 ? (
        <div className="calm-ok" role="status">
          <span className="calm-icon" aria-hidden>
            ✓
          </span>
          <div>
            <strong>No problems found.</strong>
            <div className="muted">This card follows the schema and every authoring rule the app can check.</div>
          </div>
        </div>
      ) : (
        <>
          <p className="muted small">
            Errors must be fixed before the card can be audited or approved. Warnings are worth a look but do not block anything.
          </p>
          <ul className="lint-list">
            {problems.map((p, i) => {
              const t = pointerTarget(p.pointer);
              return (
                <li key={i} className={`lint-item lint-item-${p.severity}`}>
                  <SeverityBadge severity={p.severity} />
                  <div className="lint-body">
                    <div>{p.message}</div>
                    <div className="muted small lint-meta">
                      Rule <code>{p.rule}</code> · at <code title={p.pointer || "/"}>{pointerLabel(p.pointer)}</code>
                    </div>
                  </div>
                  <div className="lint-actions">
                    {!olderVersion && (
                      <button type="button" className="btn btn-small" onClick={() => show(t.tab, t.anchor)}>
                        {t.label}
                      </button>
                    )}
                    <button type="button" className="btn btn-small" onClick={() => openInEditor(p.pointer)}>
                      Fix in the editor
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}
