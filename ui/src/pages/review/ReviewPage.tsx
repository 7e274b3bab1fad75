// Expert review, the owner's side: the list of review sessions, opening a review pack received
// from someone else, and the routes to a new session, a session's tabs and answering in this app.
//
// Routes: #/review · #/review/new · #/review/<session> [?tab=…] · #/review/<session>/answer/<reviewer>

import { useState } from "react";
import { useAction, useApi } from "../../api/client";
import { toUpload } from "../../api/files";
import type { ReviewPackOpened, ReviewSessionSummary } from "../../api/generated";
import { Id } from "../../components/Badges";
import { DataTable } from "../../components/DataTable";
import { EmptyState, ErrorBanner, Loading, Notice } from "../../components/Feedback";
import { FilePicker } from "../../components/Forms";
import { PageHeader, Section } from "../../components/Layout";
import { ProgressBar } from "../../components/Progress";
import { num, plural, when } from "../../format";
import { href, navigate, useRoute } from "../../router";
import { AnswerHere } from "./AnswerHere";
import { NewSession } from "./NewSession";
import { SessionPage } from "./Session";
import "./review.css";

/** Per-reviewer progress bars of one session (loads the session's detail). */
export function ReviewerBars({ sessionId }: { sessionId: string }) {
  const d = useApi("review.show", { session: sessionId });
  if (!d.data) return <span className="muted small">…</span>;
  return (
    <div className="rev-bars">
      {d.data.progress.map((p) => (
        <div key={p.reviewer} className="rev-bar">
          <span className="truncate" title={p.reviewer}>
            {p.reviewer}
          </span>
          <ProgressBar value={p.completed} max={p.items} label={`${p.reviewer}: ${p.completed} of ${p.items} cases complete`} />
          <span className="rev-bar-count">
            {p.completed} / {p.items}
          </span>
        </div>
      ))}
    </div>
  );
}

function OpenPack() {
  const open = useAction("review.pack_open");
  const [opened, setOpened] = useState<ReviewPackOpened | null>(null);
  return (
    <Section title="Received a review pack?">
      <p className="muted">
        Someone running a review can send you a pack file with the cases assigned to you. Open it here, answer the cases in this app, then send the answers
        file back to them. Nothing leaves this computer unless you send that file.
      </p>
      <FilePicker
        label="Open a review pack…"
        accept=".json,application/json"
        hint="a review-pack-….json file, or drop it here"
        onFiles={async (f) => {
          setOpened(null);
          const r = await open.run({ file: await toUpload(f[0]) });
          if (r) setOpened(r);
        }}
      />
      <ErrorBanner error={open.error} onDismiss={open.clearError} title="The review pack was not opened." />
      {opened && (
        <Notice kind="success" title={opened.already_open ? "Pack opened again." : "Pack opened."}>
          “{opened.session_name}” for {opened.reviewer}: {plural(opened.items, "case")}
          {opened.answered > 0 ? `, ${opened.answered} already answered` : ""}.{" "}
          {opened.already_open && opened.fields_updated > 0 ? `${plural(opened.fields_updated, "answer part")} brought in from the pack. ` : ""}
          <a className="btn btn-primary btn-small" href={href("/review", opened.session_id, "answer", opened.reviewer)}>
            Start answering
          </a>
        </Notice>
      )}
    </Section>
  );
}

function SessionList() {
  const list = useApi("review.list", {});
  const info = useApi("store.info", {});
  const rows = list.data ?? [];
  const owned = rows.filter((s) => s.role === "owner");
  const visiting = rows.filter((s) => s.role === "visiting");
  const cases = (info.data?.cases_by_type ?? []).reduce((a, c) => a + c.count, 0);
  const columns = [
    {
      key: "name",
      header: "Review",
      render: (s: ReviewSessionSummary) => (
        <div>
          <a href={href("/review", s.session_id)}>
            <strong>{s.name}</strong>
          </a>
          <div className="rev-nowrap">
            <Id value={s.session_id} />
            {s.closed_at != null && <span className="small muted"> · closed</span>}
          </div>
        </div>
      ),
      sort: (s: ReviewSessionSummary) => s.name,
    },
    { key: "cases", header: "Cases", align: "right" as const, render: (s: ReviewSessionSummary) => num(s.cases), sort: (s: ReviewSessionSummary) => s.cases },
    {
      key: "reviewers",
      header: "Reviewers and progress",
      render: (s: ReviewSessionSummary) => <ReviewerBars sessionId={s.session_id} />,
    },
    {
      key: "overlap",
      header: "Raters per case",
      align: "right" as const,
      render: (s: ReviewSessionSummary) => s.overlap,
      sort: (s: ReviewSessionSummary) => s.overlap,
    },
    {
      key: "done",
      header: "Answers complete",
      align: "right" as const,
      render: (s: ReviewSessionSummary) => `${num(s.completed)} / ${num(s.assignments)}`,
      sort: (s: ReviewSessionSummary) => (s.assignments ? s.completed / s.assignments : 0),
    },
    { key: "created", header: "Created", render: (s: ReviewSessionSummary) => when(s.created_at), sort: (s: ReviewSessionSummary) => s.created_at },
  ];
  return (
    <>
      <PageHeader
        title="Expert review"
        subtitle="Patient-safety experts rate cases for realism and plausibility and give their own verdict before they see the one each case was built to have."
        actions={
          <a className="btn btn-primary" href="#/review/new">
            New review
          </a>
        }
      />
      <ErrorBanner error={list.error} title="The review sessions could not be read." />
      {list.loading && !list.data && <Loading />}
      {list.data && owned.length === 0 && (
        <EmptyState
          level={2}
          title="No review sessions yet"
          actions={
            cases > 0 ? (
              <a className="btn btn-primary" href="#/review/new">
                Set up a review
              </a>
            ) : (
              <a className="btn btn-primary" href="#/">
                Get cases first
              </a>
            )
          }
        >
          {cases > 0
            ? `A review draws a sample of your ${num(cases)} cases (by default 30 of each type), names the reviewers and how many of them rate each case, and gives each reviewer a personal link or a review pack.`
            : "A review needs cases. Generate them, or open the 90 demo cases from Home, then set up a review here."}
        </EmptyState>
      )}
      {owned.length > 0 && (
        <Section title={`Your reviews (${owned.length})`}>
          <DataTable rows={owned} rowKey={(s) => s.session_id} onOpen={(s) => navigate(href("/review", s.session_id))} caption="Review sessions" columns={columns} />
        </Section>
      )}
      {visiting.length > 0 && (
        <Section title={`Reviews you are answering for someone else (${visiting.length})`}>
          <DataTable
            rows={visiting}
            rowKey={(s) => s.session_id}
            onOpen={(s) => navigate(href("/review", s.session_id))}
            caption="Review packs opened here"
            columns={columns.filter((c) => c.key !== "overlap")}
          />
        </Section>
      )}
      <OpenPack />
    </>
  );
}

export function ReviewPage() {
  const route = useRoute();
  const [, second, third, fourth] = route.parts;
  if (second === "new") return <NewSession />;
  if (second && third === "answer") return <AnswerHere sessionId={second} reviewer={fourth ?? null} />;
  if (second) return <SessionPage sessionId={second} />;
  return <SessionList />;
}
