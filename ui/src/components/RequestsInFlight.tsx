// How many model requests a run really keeps in flight: per endpoint in a plan, and live while it runs.

import type { EndpointConcurrency } from "../api/generated";
import { num } from "../format";

/** The live line under a running run's progress ("Requests in flight: 61 of 64 allowed …"), from its counters. */
export function RequestsInFlight({ counters, running }: { counters: Record<string, number | undefined>; running: boolean }) {
  const allowed = counters.requests_allowed;
  if (!running || allowed === undefined) return null;
  const now = counters.requests_in_flight ?? 0;
  const ceiling = counters.requests_ceiling ?? allowed;
  const cuts = counters.rate_limit_cuts ?? 0;
  let why = "";
  if (cuts > 0 && allowed < ceiling) why = ` (cut from ${num(ceiling)} after rate limits; it grows back as requests succeed)`;
  else if (cuts > 0) why = ` (back to ${num(ceiling)} after ${num(cuts)} rate-limit cut${cuts === 1 ? "" : "s"})`;
  return (
    <div className="small muted" data-testid="requests-in-flight">
      Requests in flight: {num(now)} of {num(allowed)} allowed{why}
    </div>
  );
}

/** The plan's per-endpoint view: requests in flight at most, and what bounds them. */
export function PlanConcurrency({ endpoints }: { endpoints: EndpointConcurrency[] }) {
  if (endpoints.length === 0) return null;
  return (
    <div className="plan-concurrency" data-testid="plan-concurrency">
      <h4>Requests in flight</h4>
      <ul className="plain-list">
        {endpoints.map((e) => (
          <li key={e.endpoint}>
            <strong>up to {num(e.max_in_flight)}</strong> at {e.endpoint}{" "}
            <span className="small muted">
              ({e.models.join(", ")}; registered for {num(e.registered_limit)}, starting limit {num(e.effective_limit)})
            </span>
            <div className="small muted">{e.note}</div>
          </li>
        ))}
      </ul>
    </div>
  );
}
