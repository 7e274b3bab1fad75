// The clause-card library in numbers, like the paper's dataset tables: cards by category and
// event type, cards and variants per clause, and the shape of cards and of missing variants.

import { useState } from "react";
import { useApi } from "../../api/client";
import type { LibraryStats } from "../../api/generated";
import { ErrorBanner, Loading } from "../../components/Feedback";
import { Checkbox } from "../../components/Forms";
import { Section } from "../../components/Layout";
import { EVENT_TYPE_LABEL, num, plural } from "../../format";
import type { ClauseIndex } from "../anchors/clauses";
import { usePolicyId } from "../../policyChoice";

const R = { textAlign: "right" as const };

function Tables({ s, clauses }: { s: LibraryStats; clauses: ClauseIndex | undefined }) {
  const cat = s.by_category.reduce(
    (t, r) => ({ rep: t.rep + r.reportable, non: t.non + r.non_reportable, unc: t.unc + r.uncertain, total: t.total + r.total }),
    { rep: 0, non: 0, unc: 0, total: 0 },
  );
  const cl = s.by_clause.reduce((t, r) => ({ c: t.c + r.complete_cards, m: t.m + r.missing_variants, u: t.u + r.uncertain_cards }), { c: 0, m: 0, u: 0 });
  const measures = Array.from(new Set(s.shape.map((r) => r.measure)));
  const withheldLabels = ["1", "2", "3", "4", "5 or more"];
  return (
    <div className="stack" data-testid="library-stats">
      <Section title="Cards by category and event type">
          <table className="data compact">
            <thead>
              <tr>
                <th>Category</th>
                <th style={R}>Reportable</th>
                <th style={R}>Non-reportable</th>
                <th style={R}>Uncertain</th>
                <th style={R}>Total</th>
              </tr>
            </thead>
            <tbody>
              {s.by_category.map((r) => (
                <tr key={r.category}>
                  <td>{r.category}</td>
                  <td style={R}>{num(r.reportable)}</td>
                  <td style={R}>{num(r.non_reportable)}</td>
                  <td style={R}>{num(r.uncertain)}</td>
                  <td style={R}>
                    <strong>{num(r.total)}</strong>
                  </td>
                </tr>
              ))}
              <tr className="total-row">
                <td>Total</td>
                <td style={R}>{num(cat.rep)}</td>
                <td style={R}>{num(cat.non)}</td>
                <td style={R}>{num(cat.unc)}</td>
                <td style={R}>{num(cat.total)}</td>
              </tr>
            </tbody>
          </table>
        </Section>
      <Section title="Missing-information variants">
          <p className="small">
            {plural(s.missing.variants, "variant")} on {plural(s.missing.parents_with_variants, "card")} ({num(s.missing.parents_with_one)} with one,{" "}
            {num(s.missing.parents_with_more)} with more). Each withholds a few decisive facts.
          </p>
          <table className="data compact">
            <caption className="sr-only">Facts withheld per variant</caption>
            <thead>
              <tr>
                <th>Facts withheld</th>
                {withheldLabels.map((l) => (
                  <th key={l} style={R}>
                    {l}
                  </th>
                ))}
                <th style={R}>Mean</th>
                <th style={R}>Median</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>Variants</td>
                {withheldLabels.map((l, i) => (
                  <td key={l} style={R}>
                    {num(s.missing.withheld[i] ?? 0)}
                  </td>
                ))}
                <td style={R}>{num(s.missing.mean, 1)}</td>
                <td style={R}>{num(s.missing.median, 1)}</td>
              </tr>
            </tbody>
          </table>
        </Section>
      <Section title="Boundary conditions and facts per card">
        <table className="data compact">
          <thead>
            <tr>
              <th>Per card</th>
              <th>Event type</th>
              <th style={R}>Cards</th>
              <th style={R}>Mean</th>
              <th style={R}>Median</th>
              <th style={R}>≤ 2</th>
              <th style={R}>3–4</th>
              <th style={R}>≥ 5</th>
              <th style={R}>Range</th>
            </tr>
          </thead>
          <tbody>
            {measures.flatMap((m) =>
              s.shape
                .filter((r) => r.measure === m)
                .map((r, i) => (
                  <tr key={`${m}-${r.event_type}`}>
                    <td>{i === 0 ? (m === "boundary_conditions" ? "Boundary conditions" : m === "basic_event_elements" ? "Facts (basic event elements)" : m) : ""}</td>
                    <td>{EVENT_TYPE_LABEL[r.event_type] ?? r.event_type}</td>
                    <td style={R}>{num(r.cards)}</td>
                    <td style={R}>{num(r.mean, 1)}</td>
                    <td style={R}>{num(r.median, 1)}</td>
                    <td style={R}>{num(r.at_most_2)}</td>
                    <td style={R}>{num(r.from_3_to_4)}</td>
                    <td style={R}>{num(r.at_least_5)}</td>
                    <td style={R}>{r.min === null ? "–" : `${r.min}–${r.max}`}</td>
                  </tr>
                )),
            )}
          </tbody>
        </table>
      </Section>
      <Section title="Cards and variants per clause">
        <table className="data compact">
          <thead>
            <tr>
              <th style={{ ...R, width: "3rem" }}>#</th>
              <th>Clause</th>
              <th style={R}>Complete-case cards</th>
              <th style={R}>Missing variants</th>
              <th style={R}>Uncertain cards</th>
            </tr>
          </thead>
          <tbody>
            {s.by_clause.map((r) => (
              <tr key={r.clause_id}>
                <td style={R}>{r.global_no}</td>
                <td>
                  <a href={`#/cards?clause=${encodeURIComponent(r.clause_id)}`}>{clauses?.byId.get(r.clause_id)?.short_title ?? r.label}</a>{" "}
                  <span className="muted small">{r.label}</span>
                </td>
                <td style={R}>{num(r.complete_cards)}</td>
                <td style={R}>{num(r.missing_variants)}</td>
                <td style={R}>{num(r.uncertain_cards)}</td>
              </tr>
            ))}
            <tr className="total-row">
              <td />
              <td>Total</td>
              <td style={R}>{num(cl.c)}</td>
              <td style={R}>{num(cl.m)}</td>
              <td style={R}>{num(cl.u)}</td>
            </tr>
          </tbody>
        </table>
      </Section>
    </div>
  );
}

export function LibraryStatsView({ clauses }: { clauses: ClauseIndex | undefined }) {
  const [approvedOnly, setApprovedOnly] = useState(true);
  const stats = useApi("library.stats", { approved_only: approvedOnly, policy: usePolicyId() });
  return (
    <div className="stack">
      <div className="row between wrap">
        <p className="muted">
          {stats.data ? `${num(stats.data.cards)} ${approvedOnly ? "approved " : ""}cards.` : " "} Complete-case cards are Reportable and Non-reportable cards;
          uncertain cards describe gray zones of the policy.
        </p>
        <Checkbox label="Approved cards only (what generation uses)" checked={approvedOnly} onChange={setApprovedOnly} />
      </div>
      {stats.error ? <ErrorBanner error={stats.error} /> : stats.data ? <Tables s={stats.data} clauses={clauses} /> : <Loading />}
    </div>
  );
}
