// A card's history: every version (who, when, why), the audit decisions, and the differences
// between any two versions.

import { useEffect, useMemo, useState } from "react";
import { useApi } from "../../api/client";
import type { CardDetail, CardVersion } from "../../api/generated";
import { Id, StatusBadge } from "../../components/Badges";
import { DiffText } from "../../components/DiffText";
import { ErrorBanner, Loading } from "../../components/Feedback";
import { plural, when } from "../../format";
import { href } from "../../router";
import { diffBlocks, diffCounts } from "./logic";

function DiffView({ cardId, from, to }: { cardId: string; from: number; to: number }) {
  const diff = useApi("card.diff", from === to ? null : { card_id: cardId, from, to });
  const [opened, setOpened] = useState<Set<number>>(new Set());
  useEffect(() => setOpened(new Set()), [from, to]);
  const blocks = useMemo(() => diffBlocks(diff.data?.lines ?? []), [diff.data]);
  if (from === to) return <p className="muted">Choose two different versions to compare.</p>;
  if (diff.error) return <ErrorBanner error={diff.error} title="The differences could not be shown." />;
  if (!diff.data) return <Loading label="Comparing…" />;
  const st = diffCounts(blocks);
  const parts = [
    st.changed > 0 && (
      <span key="c" className="diff-count-changed">
        {plural(st.changed, "line")} changed
      </span>
    ),
    st.added > 0 && (
      <span key="a" className="diff-count-add">
        <span aria-hidden>+</span>
        {plural(st.added, "line")} added
      </span>
    ),
    st.removed > 0 && (
      <span key="r" className="diff-count-del">
        <span aria-hidden>−</span>
        {plural(st.removed, "line")} removed
      </span>
    ),
  ].filter(Boolean);
  return (
    <div className="diff">
      <div className="diff-summary small" aria-live="polite">
        From version {from} to version {to}:{" "}
        {parts.length === 0 ? (
          "no differences."
        ) : (
          <>
            {parts.flatMap((p, i) => (i === 0 ? [p] : [", ", p]))}.
          </>
        )}
      </div>
      <div className="diff-body" role="table" aria-label={`Differences from version ${from} to version ${to}`}>
        {blocks.map((b, bi) =>
          b.kind === "skip" && !opened.has(bi) ? (
            <div key={bi} role="row" className="diff-skip">
              <span role="cell">
                <button type="button" className="link" onClick={() => setOpened(new Set(opened).add(bi))}>
                  Show {plural(b.rows.length, "unchanged line")}
                </button>
              </span>
            </div>
          ) : (
            b.rows.map((r, ri) => (
              <div key={`${bi}-${ri}`} role="row" className={`diff-row diff-${r.kind}`}>
                <span role="cell" className="diff-no" aria-label={r.oldNo ? `old line ${r.oldNo}` : undefined}>
                  {r.oldNo ?? ""}
                </span>
                <span role="cell" className="diff-no" aria-label={r.newNo ? `new line ${r.newNo}` : undefined}>
                  {r.newNo ?? ""}
                </span>
                <span role="cell" className="diff-sign">
                  <span aria-hidden>{r.kind === "added" ? "+" : r.kind === "removed" ? "−" : " "}</span>
                  <span className="sr-only">{r.kind === "added" ? "added" : r.kind === "removed" ? "removed" : ""}</span>
                </span>
                <span role="cell" className="diff-text">
                  <DiffText kind={r.kind} text={r.text} parts={r.parts} />
                </span>
              </div>
            ))
          ),
        )}
      </div>
    </div>
  );
}

export function History({ detail, onEditFrom, onAudit }: { detail: CardDetail; onEditFrom: (version: number) => void; onAudit: () => void }) {
  const versions: CardVersion[] = detail.versions;
  const newest = versions[0]?.version ?? detail.summary.version;
  const [from, setFrom] = useState(versions[1]?.version ?? newest);
  const [to, setTo] = useState(newest);
  useEffect(() => {
    setFrom(versions[1]?.version ?? newest);
    setTo(newest);
  }, [newest, versions]);
  const cardId = detail.summary.card_id;
  const compare = (a: number, b: number) => {
    setFrom(a);
    setTo(b);
    document.getElementById("diff-section")?.scrollIntoView({ block: "start", behavior: "smooth" });
  };

  return (
    <div className="stack">
      <section className="card" aria-labelledby="versions-title">
        <div className="card-head">
          <h2 id="versions-title">Versions</h2>
          <span className="muted small">{plural(versions.length, "version")}; every saved edit is kept</span>
        </div>
        <div className="table-wrap" role="region" aria-label="Versions of the card" tabIndex={0}>
          <table className="data">
            <thead>
              <tr>
                <th scope="col" style={{ textAlign: "right", width: "4rem" }}>
                  Version
                </th>
                <th scope="col">Saved</th>
                <th scope="col">Author</th>
                <th scope="col">Note</th>
                <th scope="col">Content</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.version} className={v.version === detail.shown_version ? "selected" : ""}>
                  <td style={{ textAlign: "right" }}>
                    <strong>{v.version}</strong>
                    {v.version === detail.summary.version && <span className="sr-only"> (current)</span>}
                  </td>
                  <td className="nowrap">
                    {when(v.created_at)}
                    {v.version === detail.summary.version && <span className="badge current-badge">current</span>}
                  </td>
                  <td>{v.author}</td>
                  <td>{v.note ?? <span className="muted">–</span>}</td>
                  <td>
                    <span title={`SHA-256 of the content: ${v.content_sha}`}>
                      <Id value={v.content_sha.slice(0, 10)} />
                    </span>
                  </td>
                  <td className="nowrap">
                    <div className="row gap">
                      {v.version === detail.shown_version ? (
                        <span className="muted small">Shown</span>
                      ) : (
                        <a className="btn btn-small" href={href("/cards", cardId, { version: v.version === detail.summary.version ? null : String(v.version) })}>
                          View
                        </a>
                      )}
                      {v.version !== newest && (
                        <button type="button" className="btn btn-small" onClick={() => compare(v.version, newest)}>
                          Compare with current
                        </button>
                      )}
                      {v.version !== newest && (
                        <button type="button" className="btn btn-small" onClick={() => onEditFrom(v.version)} title="Open this version in the editor; saving it makes a new version">
                          Restore…
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section className="card" id="diff-section" aria-labelledby="diff-title">
        <div className="card-head">
          <h2 id="diff-title">Differences between versions</h2>
        </div>
        {versions.length < 2 ? (
          <p className="muted">There is only one version so far. After the card is edited or re-imported, you can compare versions here.</p>
        ) : (
          <>
            <div className="filters diff-pick">
              <div className="field">
                <label htmlFor="diff-from">From version</label>
                <select id="diff-from" value={from} onChange={(e) => setFrom(Number(e.target.value))}>
                  {versions.map((v) => (
                    <option key={v.version} value={v.version}>
                      {v.version} · {v.author}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor="diff-to">To version</label>
                <select id="diff-to" value={to} onChange={(e) => setTo(Number(e.target.value))}>
                  {versions.map((v) => (
                    <option key={v.version} value={v.version}>
                      {v.version} · {v.author}
                    </option>
                  ))}
                </select>
              </div>
              <p className="muted small diff-legend">
                <span className="diff-count-add">+ added</span> and <span className="diff-count-del">− removed</span> lines are marked with a sign and a
                colour; in a changed line, the words that changed are highlighted.
              </p>
            </div>
            <DiffView cardId={cardId} from={from} to={to} />
          </>
        )}
      </section>

      <section className="card" aria-labelledby="audit-title">
        <div className="card-head">
          <h2 id="audit-title">Audit decisions</h2>
          <button type="button" className="btn btn-small" onClick={onAudit}>
            Record a decision…
          </button>
        </div>
        {detail.audit_log.length === 0 ? (
          <p className="muted">No audit decision has been recorded for this card yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Decision</th>
                  <th scope="col">By</th>
                  <th scope="col" style={{ textAlign: "right" }}>
                    On version
                  </th>
                  <th scope="col">Notes</th>
                </tr>
              </thead>
              <tbody>
                {detail.audit_log.map((a, i) => (
                  <tr key={i}>
                    <td className="nowrap">{when(a.at)}</td>
                    <td>
                      <StatusBadge status={a.status} />
                    </td>
                    <td>{a.auditor}</td>
                    <td style={{ textAlign: "right" }}>{a.version}</td>
                    <td>{a.notes ?? <span className="muted">–</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
