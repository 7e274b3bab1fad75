// One review session, for its owner: progress, personal links and packs, answering in this app,
// results, adjudication, exports and guidelines. A session opened from a review pack ("visiting")
// only offers answering, sending the answers back, and reading the guidelines.

import { useState } from "react";
import { api, useAction, useApi } from "../../api/client";
import { saveDownload, toUpload } from "../../api/files";
import type { Download, ReviewLinks, ReviewPackMergeReport, ReviewSessionDetail, ReviewShareStatus } from "../../api/generated";
import { Id } from "../../components/Badges";
import { DataTable } from "../../components/DataTable";
import { ConfirmDialog } from "../../components/Dialog";
import { ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { FilePicker } from "../../components/Forms";
import { KeyValues, PageHeader, Section, Tabs } from "../../components/Layout";
import { ProgressBar } from "../../components/Progress";
import { CASE_TYPE_LABEL, duration, num, plural, when } from "../../format";
import { href, navigate, setQuery, useRoute } from "../../router";
import { AdjudicationTab } from "./Adjudication";
import { DEFAULT_SHARE_PORT, linkUrl, shareLinkBase, sharePort, shareStateText } from "./logic";
import { Markdown } from "./markdown";
import { GuidelinesEditor } from "./NewSession";
import { ResultsTab } from "./Results";
import { EngineError } from "../../api/client";

function ProgressTab({ d }: { d: ReviewSessionDetail }) {
  const s = d.summary;
  const sel = d.selection;
  return (
    <div className="stack">
      <DataTable
        rows={d.progress}
        rowKey={(p) => p.reviewer}
        caption="Progress per reviewer"
        columns={[
          { key: "r", header: "Reviewer", render: (p) => <strong className="rev-nowrap">{p.reviewer}</strong>, sort: (p) => p.reviewer },
          {
            key: "bar",
            header: "Complete",
            width: "34%",
            render: (p) => (
              <div className="rev-bar" style={{ gridTemplateColumns: "1fr 4.5rem" }}>
                <ProgressBar value={p.completed} max={p.items} label={`${p.reviewer}: ${p.completed} of ${p.items} cases complete`} />
                <span className="rev-bar-count">
                  {p.completed} / {p.items}
                </span>
              </div>
            ),
            sort: (p) => (p.items ? p.completed / p.items : 0),
          },
          { key: "blind", header: "Own verdicts given", align: "right", render: (p) => num(p.blind_saved), sort: (p) => p.blind_saved },
          { key: "time", header: "Time spent", align: "right", render: (p) => duration(p.time_spent_secs), sort: (p) => p.time_spent_secs },
          { key: "last", header: "Last answer", render: (p) => when(p.last_answer_at), sort: (p) => p.last_answer_at ?? "" },
          {
            key: "how",
            header: "Access",
            render: (p) => (
              <span className="small">
                {p.link_active ? "personal link" : ""}
                {p.link_active && p.packs_issued ? " · " : ""}
                {p.packs_issued ? plural(p.packs_issued, "pack") : ""}
                {!p.link_active && !p.packs_issued ? <span className="muted">none yet</span> : ""}
              </span>
            ),
          },
        ]}
      />
      <p className="muted small">
        Progress only: what each reviewer answered is in Results and Adjudication. A case is complete when it has both ratings, the reviewer's own verdict,
        the reveal and an agree or disagree mark{d.rationale_items > 0 ? ", and, on cases with a model's rationale, the ticks of the conditions it establishes" : ""}.
      </p>
      <Section title="About this review">
        <KeyValues
          items={[
            ["Session", <Id value={s.session_id} />],
            ["Cases", d.cases_by_type.map((t) => `${t.count} ${(CASE_TYPE_LABEL[t.case_type] ?? t.case_type).toLowerCase()}`).join(", ")],
            [
              "How they were chosen",
              sel
                ? sel.kind === "stratified"
                  ? `A random sample (${sel.complete} complete, ${sel.missing} missing, ${sel.uncertain} uncertain${sel.by_clause ? ", spread over clauses" : ""})`
                  : `Picked by hand (${sel.case_ids.length})`
                : "From a review pack",
            ],
            ["Seed", d.seed === null ? "–" : <code>{d.seed}</code>],
            [
              "Rationale task",
              d.rationale_items > 0
                ? `${plural(d.rationale_items, "case")} with a model's rationale to check${d.rationale_runs.length ? ` (from ${d.rationale_runs.join(", ")})` : ""}`
                : "None",
            ],
            ["Reviewers per case", s.overlap],
            ["Created", when(s.created_at)],
          ]}
        />
      </Section>
    </div>
  );
}

/**
 * "Share": serve this review's personal links from the running app (this computer only, or the
 * local network), with its on/off state. The engine starts and stops the listener; this only asks.
 */
function ShareBox({ d, status, reload }: { d: ReviewSessionDetail; status: ReviewShareStatus | undefined; reload: () => void }) {
  const start = useAction("review.share_start");
  const stop = useAction("review.share_stop");
  const [lan, setLan] = useState(false);
  const [portText, setPortText] = useState(String(DEFAULT_SHARE_PORT));
  const [cert, setCert] = useState("");
  const [key, setKey] = useState("");
  const port = sharePort(portText);
  const closed = d.summary.closed_at != null;
  const serving = status?.serving ?? false;
  const copy = (text: string) =>
    navigator.clipboard?.writeText(text).then(
      () => toast("Copied."),
      () => toast("Copying is not allowed here; select the command and copy it.", "error"),
    );
  const begin = async () => {
    if ("error" in port) return;
    const r = await start.run({
      session: d.summary.session_id,
      lan,
      port: port.port,
      ...(lan && cert.trim() && key.trim() ? { tls_cert: cert.trim(), tls_key: key.trim() } : {}),
    });
    if (r) toast(`Reviewer links are being served at ${r.base_url ?? ""}.`);
    reload();
  };
  const end = async () => {
    const r = await stop.run({ session: d.summary.session_id });
    if (r) toast("Reviewer links are no longer served.");
    reload();
  };
  return (
    <Section title="Share">
      <div className="stack">
        <div data-testid="share-state" data-serving={serving ? "yes" : "no"}>
          {serving ? (
            <Notice kind="success" title="On.">
              {shareStateText(status)}
              {status?.lan ? " (computers on your local network can open them)" : " (only this computer can open them)"}. Each link opens only its
              reviewer's cases. Sharing stops when you stop it here or close the app (or stop psebench serve).
            </Notice>
          ) : (
            <Notice kind="info" title="Off.">
              {shareStateText(status)}
              {status?.note ? ` ${status.note}` : ""}
            </Notice>
          )}
        </div>
        {serving && status?.plain_http_on_lan && (
          <Notice kind="warn" title="Plain HTTP.">
            <span data-testid="lan-plain-http">
              The links and the reviewers' answers travel unencrypted on your local network. Use it only on a network you trust, or stop and start
              again with a certificate. Closing the review makes every link stop working.
            </span>
          </Notice>
        )}
        {serving ? (
          <div className="row gap">
            <button className="btn" disabled={stop.busy} onClick={end}>
              Stop sharing
            </button>
          </div>
        ) : (
          <div className="stack">
            <fieldset className="field">
              <legend>Who can open the links</legend>
              <label className="row gap">
                <input type="radio" name="share-where" checked={!lan} onChange={() => setLan(false)} /> This computer only
              </label>
              <label className="row gap">
                <input type="radio" name="share-where" checked={lan} onChange={() => setLan(true)} /> Computers on my local network
              </label>
            </fieldset>
            {lan && (
              <Notice kind="warn" title="Plain HTTP unless you give a certificate.">
                <span data-testid="lan-plain-http">
                  Without a certificate the links and the reviewers' answers travel unencrypted on your local network. Use it only on a network you
                  trust, or give a certificate and its key below (then the links start with https://). Closing the review makes every link stop
                  working.
                </span>
              </Notice>
            )}
            {lan && (
              <div className="grid-2">
                <div className="field">
                  <label htmlFor="share-cert">Certificate file (PEM, optional)</label>
                  <input id="share-cert" value={cert} onChange={(e) => setCert(e.target.value)} placeholder="/path/to/cert.pem" />
                </div>
                <div className="field">
                  <label htmlFor="share-key">Its private key file (PEM)</label>
                  <input id="share-key" value={key} onChange={(e) => setKey(e.target.value)} placeholder="/path/to/key.pem" />
                </div>
              </div>
            )}
            <div className="field">
              <label htmlFor="share-port">Port</label>
              <input id="share-port" inputMode="numeric" value={portText} onChange={(e) => setPortText(e.target.value)} style={{ maxWidth: "8rem" }} />
              {"error" in port ? <div className="error-text small">{port.error}</div> : <div className="hint">8766 unless it is taken; 0 picks any free port.</div>}
            </div>
            <div className="row gap">
              <button className="btn btn-primary" disabled={start.busy || closed || "error" in port || status?.available === false} onClick={begin}>
                Start sharing
              </button>
            </div>
            {status?.available === false && <p className="small muted">This program cannot serve links itself; use the command below.</p>}
          </div>
        )}
        <ErrorBanner error={start.error} onDismiss={start.clearError} title="The links are not being served." />
        <ErrorBanner error={stop.error} onDismiss={stop.clearError} title="Sharing did not stop." />
        {status && (
          <details>
            <summary>Serve them without the app, from a terminal</summary>
            <div className="row gap" style={{ marginTop: "0.5rem" }}>
              <code className="rev-cmd" aria-label="Command to start the review server">
                {status.headless_command}
              </code>
              <button className="btn btn-small" onClick={() => copy(status.headless_command)}>
                Copy
              </button>
            </div>
            <p className="small muted">
              It serves only this review and prints every reviewer's link; add <code>--new-links</code> to replace links given out before. Stop
              sharing here first if it uses the same port.
            </p>
          </details>
        )}
      </div>
    </Section>
  );
}

function LinksTab({ d }: { d: ReviewSessionDetail }) {
  const links = useAction("review.links");
  const pack = useAction("review.pack_export");
  const merge = useAction("review.pack_merge");
  const share = useApi("review.share_status", { session: d.summary.session_id });
  const [made, setMade] = useState<Record<string, string>>({});
  const base = shareLinkBase(share.data);
  const [rotate, setRotate] = useState<string | null>(null);
  const [report, setReport] = useState<ReviewPackMergeReport | null>(null);
  const closed = d.summary.closed_at != null;
  const remember = (r: ReviewLinks | undefined) => {
    if (!r) return;
    const next = { ...made };
    for (const l of r.links) if (l.path) next[l.reviewer] = l.path;
    setMade(next);
    const n = r.links.filter((l) => l.path).length;
    toast(n ? `Made ${plural(n, "new link")}. Copy ${n === 1 ? "it" : "each"} now: it is shown only once.` : "Every reviewer already has a link.");
  };
  const copy = (text: string) =>
    navigator.clipboard?.writeText(text).then(
      () => toast("Copied."),
      () => toast("Copying is not allowed here; select the link and copy it.", "error"),
    );
  return (
    <div className="stack">
      <ShareBox d={d} status={share.data} reload={share.reload} />
      <ErrorBanner error={share.error} title="Whether the links are being served could not be read." />
      <Section title="Personal links">
        <div className="stack">
        <p>
          Each reviewer opens their own link in a web browser while this app shares the review (above). Each link opens only that reviewer's cases;
          nobody else's answers can be seen or changed with it.
          {share.data?.serving ? "" : " The links below start with the address they will have once sharing is on."}
        </p>
        {closed && (
          <Notice kind="info" title="This review is closed.">
            Its links are refused and no new ones can be made until you reopen it.
          </Notice>
        )}
        <DataTable
          rows={d.progress}
          rowKey={(p) => p.reviewer}
          caption="Personal links"
          columns={[
            { key: "r", header: "Reviewer", render: (p) => <strong>{p.reviewer}</strong> },
            {
              key: "link",
              header: "Link",
              render: (p) =>
                made[p.reviewer] ? (
                  <div className="rev-url">
                    <code data-testid={`link-${p.reviewer}`}>{linkUrl(base, made[p.reviewer])}</code>
                    <button className="btn btn-small" onClick={() => copy(linkUrl(base, made[p.reviewer]))} aria-label={`Copy ${p.reviewer}'s link`}>
                      Copy
                    </button>
                  </div>
                ) : p.link_active ? (
                  <span className="small muted">Given out earlier and still valid (links are shown only once; replace it to see a new one)</span>
                ) : (
                  <span className="small muted">No link yet</span>
                ),
            },
            {
              key: "act",
              header: <span className="sr-only">Actions</span>,
              label: "Actions",
              align: "right",
              render: (p) =>
                p.link_active || made[p.reviewer] ? (
                  <button className="btn btn-small" disabled={closed} onClick={() => setRotate(p.reviewer)}>
                    Replace link
                  </button>
                ) : (
                  <button
                    className="btn btn-small"
                    disabled={closed}
                    onClick={async () => remember(await links.run({ session_id: d.summary.session_id, reviewers: [p.reviewer], rotate: false }))}
                  >
                    Make link
                  </button>
                ),
            },
          ]}
        />
        <div className="row gap">
          <button
            className="btn btn-primary"
            disabled={links.busy || closed}
            onClick={async () => remember(await links.run({ session_id: d.summary.session_id, reviewers: [], rotate: false }))}
          >
            Make links for everyone without one
          </button>
        </div>
        <ErrorBanner error={links.error} onDismiss={links.clearError} title="No link was made." />
        </div>
        {rotate && (
          <ConfirmDialog
            title={`Replace ${rotate}'s link?`}
            confirmLabel="Replace the link"
            onCancel={() => setRotate(null)}
            onConfirm={async () => {
              const who = rotate;
              setRotate(null);
              remember(await links.run({ session_id: d.summary.session_id, reviewers: [who], rotate: true }));
            }}
          >
            <p>
              The old link stops working at once. {rotate}'s answers are kept, and the new link continues where they stopped. Send the new link to{" "}
              {rotate} only.
            </p>
          </ConfirmDialog>
        )}
      </Section>

      <Section title="Review packs (no server needed)">
        <div className="stack">
        <p>
          A pack is a file with one reviewer's cases. They open it in their own copy of PSEBench Studio (Expert review → Open a review pack), answer there,
          and send you back an answers file to merge here. Merging the same file twice changes nothing.
        </p>
        <Notice>
          A pack carries the by-construction verdicts, so that they can be shown after each blind verdict. The app keeps them hidden until then, but the
          file itself is not secret: send it only to its reviewer.
        </Notice>
        <div className="row gap wrap">
          {d.progress.map((p) => (
            <button
              key={p.reviewer}
              className="btn"
              disabled={pack.busy}
              onClick={async () => {
                const r = await pack.run({ session: d.summary.session_id, reviewer: p.reviewer });
                if (r) toast(await saveDownload(r));
              }}
            >
              Export pack for {p.reviewer}
            </button>
          ))}
        </div>
        <ErrorBanner error={pack.error} onDismiss={pack.clearError} title="The pack was not exported." />
        <h3 style={{ marginTop: "1.4rem" }}>Merge an answers file</h3>
        <FilePicker
          label="Merge answers…"
          accept=".json,application/json"
          hint="a review-answers-….json file sent back by a reviewer, or drop it here"
          onFiles={async (f) => {
            setReport(null);
            const r = await merge.run({ file: await toUpload(f[0]) });
            if (r) setReport(r);
          }}
        />
        <ErrorBanner error={merge.error} onDismiss={merge.clearError} title="Nothing was merged." />
        {report && (
          <Notice kind="success" title={report.items_changed > 0 ? `Merged ${report.reviewer}'s answers.` : "Nothing new in this file."}>
            <span data-testid="merge-report">
              {plural(report.items_in_file, "answered case")} in the file; {plural(report.items_changed, "case")} changed, {plural(report.fields_updated, "answer part")}{" "}
              updated
              {report.items_changed === 0 ? " (these answers were already here)" : ""}.
            </span>
            {report.kept.length > 0 && (
              <details className="small">
                <summary>{plural(report.kept.length, "part")} kept as they were</summary>
                <ul>
                  {report.kept.map((k, i) => (
                    <li key={i}>{k}</li>
                  ))}
                </ul>
              </details>
            )}
          </Notice>
        )}
        </div>
      </Section>
    </div>
  );
}

function AnswerTab({ d }: { d: ReviewSessionDetail }) {
  const visiting = d.summary.role === "visiting";
  return (
    <div className="stack">
      <p>
        {visiting
          ? "Answer the cases of this review pack here. Your answers are saved in this app; when you are done (or want to send what you have), use “Send answers back”."
          : "A reviewer who works on this computer can answer here. Choose your name: you will see your own cases only, and the verdict each case was built to have only after you save your own."}
      </p>
      <div className="grid-3">
        {d.progress.map((p) => (
          <div key={p.reviewer} className="card stack">
            <div>
              <strong>{p.reviewer}</strong>
              <div className="small muted">
                {p.completed} of {p.items} complete · {duration(p.time_spent_secs)}
              </div>
            </div>
            <ProgressBar value={p.completed} max={p.items} label={`${p.reviewer}: ${p.completed} of ${p.items} cases complete`} />
            <a className="btn btn-primary" href={href("/review", d.summary.session_id, "answer", p.reviewer)}>
              {p.completed > 0 || p.blind_saved > 0 ? "Continue" : "Start"} as {p.reviewer}
            </a>
          </div>
        ))}
      </div>
    </div>
  );
}

function SendBackTab({ d }: { d: ReviewSessionDetail }) {
  const send = useAction("review.pack_answers");
  return (
    <div className="stack">
      <p>
        Save the answers file and send it to the person running the review (by e-mail or on a USB stick). They merge it into their copy; sending it again
        later with more answers is fine.
      </p>
      <div className="row gap wrap">
        {d.progress.map((p) => (
          <button
            key={p.reviewer}
            className="btn btn-primary"
            disabled={send.busy}
            onClick={async () => {
              const r = await send.run({ session: d.summary.session_id, reviewer: p.reviewer });
              if (r) toast(await saveDownload(r));
            }}
          >
            Save {p.reviewer}'s answers file ({p.completed} of {p.items} complete)
          </button>
        ))}
      </div>
      <ErrorBanner error={send.error} onDismiss={send.clearError} title="The answers file was not made." />
    </div>
  );
}

function textDownload(file_name: string, mime: string, text: string, description: string): Download {
  const bytes = new TextEncoder().encode(text);
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { file_name, mime, base64: btoa(s), description };
}

function ExportTab({ d }: { d: ReviewSessionDetail }) {
  const summary = useApi("review.summary", { session: d.summary.session_id });
  const [error, setError] = useState<EngineError | null>(null);
  const id = d.summary.session_id;
  const download = async (format: "csv" | "jsonl") => {
    setError(null);
    try {
      toast(await saveDownload(await api("review.export", { session: id, format })));
    } catch (e) {
      setError(e as EngineError);
    }
  };
  return (
    <div className="stack">
      <Section title="Every answer (long format)">
        <p className="muted">
          One row per reviewer, case and question (realism, plausibility, own verdict, agree, comment, time spent), with the case type and the
          by-construction verdict: ready for R, Python or a spreadsheet.
        </p>
        <div className="row gap">
          <button className="btn btn-primary" onClick={() => download("csv")}>
            Download CSV
          </button>
          <button className="btn" onClick={() => download("jsonl")}>
            Download JSONL
          </button>
        </div>
        <ErrorBanner error={error} onDismiss={() => setError(null)} title="The export failed." />
      </Section>
      <Section
        title="Summary table"
        actions={
          summary.data && (
            <>
              <button className="btn" onClick={async () => toast(await saveDownload(textDownload(`review-summary-${id}.md`, "text/markdown", summary.data!.markdown, "Review summary (Markdown)")))}>
                Download Markdown
              </button>
              <button className="btn" onClick={async () => toast(await saveDownload(textDownload(`review-summary-${id}.tex`, "application/x-tex", summary.data!.latex, "Review summary (LaTeX)")))}>
                Download LaTeX
              </button>
            </>
          )
        }
      >
        <ErrorBanner error={summary.error} title="The summary could not be made." />
        {!summary.data && !summary.error && <Loading />}
        {summary.data && (
          <>
            <Markdown text={summary.data.markdown} headingOffset={2} className="rev-summary" />
            <details>
              <summary>LaTeX (booktabs)</summary>
              <pre className="json">{summary.data.latex}</pre>
            </details>
          </>
        )}
      </Section>
    </div>
  );
}

function GuidelinesTab({ d }: { d: ReviewSessionDetail }) {
  const [text, setText] = useState(d.guidelines);
  const saveIt = useAction("review.set_guidelines");
  if (d.summary.role === "visiting") return <Markdown text={d.guidelines} headingOffset={1} className="rv-md" />;
  const changed = text.trim() !== d.guidelines.trim();
  return (
    <div className="stack">
      <GuidelinesEditor value={text} onChange={setText} headingOffset={1} />
      <ErrorBanner error={saveIt.error} onDismiss={saveIt.clearError} title="The guidelines were not saved." />
      <div className="row gap">
        <button
          className="btn btn-primary"
          disabled={!changed || saveIt.busy}
          onClick={async () => {
            const r = await saveIt.run({ session: d.summary.session_id, markdown: text });
            if (r) toast("Guidelines saved. Reviewers see them the next time they open them; packs exported from now on carry them.");
          }}
        >
          Save guidelines
        </button>
        <button className="btn" disabled={!changed} onClick={() => setText(d.guidelines)}>
          Undo changes
        </button>
      </div>
    </div>
  );
}

export function SessionPage({ sessionId }: { sessionId: string }) {
  const route = useRoute();
  const detail = useApi("review.show", { session: sessionId });
  const del = useAction("review.delete");
  const close = useAction("review.close");
  const reopen = useAction("review.reopen");
  const [asking, setAsking] = useState(false);
  const [closing, setClosing] = useState(false);
  const d = detail.data;
  if (detail.error)
    return (
      <>
        <PageHeader title="Expert review" />
        <ErrorBanner error={detail.error} title="This review could not be opened." />
        <a className="btn" href="#/review">
          All reviews
        </a>
      </>
    );
  if (!d) return <Loading />;
  const visiting = d.summary.role === "visiting";
  const tabs = visiting
    ? [
        { id: "answer", label: "Answer" },
        { id: "send", label: "Send answers back" },
        { id: "guidelines", label: "Guidelines" },
      ]
    : [
        { id: "progress", label: "Progress" },
        { id: "links", label: "Share links and packs" },
        { id: "answer", label: "Answer here" },
        { id: "results", label: "Results" },
        { id: "adjudication", label: "Adjudication" },
        { id: "export", label: "Export" },
        { id: "guidelines", label: "Guidelines" },
      ];
  const tab = tabs.find((t) => t.id === route.query.get("tab"))?.id ?? tabs[0].id;
  const s = d.summary;
  return (
    <>
      <div className="small">
        <a href="#/review">← All reviews</a>
      </div>
      <PageHeader
        title={s.name}
        subtitle={`${plural(s.cases, "case")} · ${plural(s.reviewers.length, "reviewer")} (${s.reviewers.join(", ")}) · each case rated by ${s.overlap} · ${num(s.completed)} of ${num(s.assignments)} answers complete${visiting ? " · opened from a review pack" : ""}`}
        actions={
          <>
            {!visiting && s.closed_at == null && (
              <button className="btn" onClick={() => setClosing(true)}>
                Close review…
              </button>
            )}
            {!visiting && s.closed_at != null && (
              <button
                className="btn"
                disabled={reopen.busy}
                onClick={async () => {
                  if (await reopen.run({ session: s.session_id })) toast(`“${s.name}” is open again: the links given out before work again.`);
                }}
              >
                Reopen review
              </button>
            )}
            <button className="btn" onClick={() => setAsking(true)}>
              Delete…
            </button>
          </>
        }
      />
      {s.closed_at != null && (
        <Notice kind="info" title="Closed.">
          <span data-testid="review-closed">
            You closed this review on {when(s.closed_at)}: every reviewer link of it is refused. The answers stay here for results and exports.
          </span>
        </Notice>
      )}
      <ErrorBanner error={close.error ?? reopen.error} onDismiss={() => (close.clearError(), reopen.clearError())} title="Nothing changed." />
      <Tabs tabs={tabs} active={tab} onChange={(t) => setQuery("tab", t)} label="Review sections" />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === "progress" && <ProgressTab d={d} />}
        {tab === "links" && <LinksTab d={d} />}
        {tab === "answer" && <AnswerTab d={d} />}
        {tab === "send" && <SendBackTab d={d} />}
        {tab === "results" && <ResultsTab sessionId={s.session_id} />}
        {tab === "adjudication" && <AdjudicationTab sessionId={s.session_id} />}
        {tab === "export" && <ExportTab d={d} />}
        {tab === "guidelines" && <GuidelinesTab key={d.guidelines} d={d} />}
      </div>
      <ErrorBanner error={del.error} onDismiss={del.clearError} title="The review was not deleted." />
      {closing && (
        <ConfirmDialog
          title={`Close “${s.name}”?`}
          confirmLabel="Close the review"
          onCancel={() => setClosing(false)}
          onConfirm={async () => {
            setClosing(false);
            if (await close.run({ session: s.session_id })) toast(`Closed “${s.name}”: its links no longer work.`);
          }}
        >
          <p>
            Every reviewer's link stops working at once: reviewers who open it are told the review has been closed. Their answers stay here for results
            and exports, and you can reopen the review later.
          </p>
        </ConfirmDialog>
      )}
      {asking && (
        <ConfirmDialog
          title={`Delete “${s.name}”?`}
          danger
          confirmLabel="Delete the review"
          onCancel={() => setAsking(false)}
          onConfirm={async () => {
            setAsking(false);
            const r = await del.run({ session: s.session_id });
            if (r) {
              toast(`Deleted “${s.name}”.`);
              navigate("#/review");
            }
          }}
        >
          <p>
            Every answer, link and adjudication decision of this review is deleted{visiting ? " from this app" : ""}. The cases stay; cases this review
            excluded from runs stay excluded. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
