// The reviewer's questionnaire: one case per screen, realism and plausibility with every point
// described, the reviewer's own verdict first and blind, then the by-construction verdict with its
// reasons, agree/disagree and a comment; on items with a rationale task, a model's rationale whose
// established conditions the reviewer ticks (shown only once the verdict is locked). Every answer is saved as it is given; time on each case is
// counted while the reviewer is active. Used over a personal link and inside the desktop app (with
// a token from review.local_token): the engine enforces blind-first either way.

import { ReactNode, Ref, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, EngineError } from "../../api/client";
import type { RationaleTask, ReviewAnswerPatch, ReviewAnswerSaved, ReviewAnswerState, ReviewItemView, ReviewMe, ReviewReveal, ReviewVerdict } from "../../api/generated";
import { VerdictBadge } from "../../components/Badges";
import { Modal } from "../../components/Dialog";
import { ProgressBar } from "../../components/Progress";
import { CASE_TYPE_LABEL, duration, humanize, plural } from "../../format";
import { ChoiceGroup, focusGroup } from "./ChoiceGroup";
import { firstOpenSection, interpretKey, ItemFacts, KeyState, Screen, Section } from "./keys";
import { Markdown } from "./markdown";
import { useActiveTime } from "./timer";
import "./review.css";

type SaveState = { status: "idle" | "saving" | "saved" | "error"; error?: EngineError; retry?: () => void };
type Dialog = null | "guidelines" | "shortcuts" | "list";

const VERDICT_ICON: Record<string, string> = { Reportable: "▲", "Non-reportable": "●", Uncertain: "◆", "Missing information": "?" };

export const SHORTCUTS: [string, string][] = [
  ["1 – 5", "Rate the highlighted question (realism, then plausibility); the highlight then moves on"],
  ["1 – 4", "On the verdict question: choose your own verdict"],
  ["↑ ↓", "Change the choice in the question that has the focus"],
  ["Tab", "Move to the next question (Shift+Tab: back)"],
  ["R  P  V", "Go to realism, plausibility or your verdict"],
  ["Enter", "Save your verdict and show the by-construction verdict; on a finished case, go to the next case"],
  ["A  /  D", "Agree / disagree with the by-construction verdict"],
  ["C", "Write a comment (Esc leaves the comment box)"],
  ["T", "Go to the model's rationale, where there is one (Space ticks a condition; N: none of them)"],
  ["J  or  →", "Next case"],
  ["K  or  ←", "Previous case"],
  ["L", "List of your cases, to jump to any of them"],
  ["G", "Guidelines"],
  ["?", "This list of keys"],
  ["Esc", "Close a window, or leave the comment box"],
];

function statusOf(i: { complete: boolean; realism: number | null; plausibility: number | null; blind_verdict: string | null; has_comment?: boolean }) {
  if (i.complete) return { icon: "✓", text: "Complete", cls: "done" };
  if (i.realism !== null || i.plausibility !== null || i.blind_verdict !== null) return { icon: "◐", text: "Started", cls: "started" };
  return { icon: "○", text: "Not started", cls: "todo" };
}

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  const tag = el.tagName.toLowerCase();
  if (tag === "textarea" || tag === "select") return true;
  if (tag === "input") {
    const type = (el as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit", "range"].includes(type);
  }
  return el.isContentEditable;
}

function isButtonLike(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  if (el.getAttribute("role") === "radio") return false;
  const tag = el.tagName.toLowerCase();
  return tag === "button" || tag === "a" || tag === "summary" || el.getAttribute("role") === "button" || el.getAttribute("role") === "tab";
}

function ErrorLine({ error, action }: { error: EngineError; action?: ReactNode }) {
  return (
    <div className="banner banner-error" role="alert">
      <div className="banner-icon" aria-hidden>
        !
      </div>
      <div className="banner-body">
        <strong>Your last answer was not saved.</strong> {error.message} {action}
      </div>
    </div>
  );
}

/** The by-construction verdict and its reasons. Shown beside the report on wide screens ("side")
 * and below the verdict on narrow ones ("inline"); CSS shows one of the two. */
function Reveal({ reveal, where }: { reveal: ReviewReveal; where: "side" | "inline" }) {
  const m = reveal.material;
  return (
    <section className={`rv-reveal rv-reveal-${where}`} aria-labelledby={`rv-reveal-title-${where}`} data-testid={where === "side" ? "reveal" : "reveal-inline"}>
      <h3 id={`rv-reveal-title-${where}`}>The verdict this case was built to have</h3>
      <div className="rv-compare">
        <div>
          <div className="muted small">By construction</div>
          <VerdictBadge verdict={m.expected_verdict} />
        </div>
        <div>
          <div className="muted small">Your verdict</div>
          <VerdictBadge verdict={reveal.your_blind_verdict} />
        </div>
        <div className={`rv-match ${reveal.matches_your_verdict ? "yes" : "no"}`}>
          {reveal.matches_your_verdict ? "✓ The same" : "≠ Different"}
        </div>
      </div>
      <p>{m.explanation}</p>
      <dl className="rv-facts">
        <dt>Case type</dt>
        <dd>{CASE_TYPE_LABEL[m.case_type] ?? m.case_type}</dd>
        {m.clause_label && (
          <>
            <dt>Clause</dt>
            <dd>{m.clause_label}</dd>
          </>
        )}
        {m.card_definition && (
          <>
            <dt>What the clause covers</dt>
            <dd>{m.card_definition}</dd>
          </>
        )}
      </dl>
      {m.boundary_conditions.length > 0 && (
        <>
          <h4>Conditions that decide the case</h4>
          <table className="data rv-conditions">
            <thead>
              <tr>
                <th>Condition</th>
                <th>In this case</th>
              </tr>
            </thead>
            <tbody>
              {m.boundary_conditions.map((c) => (
                <tr key={c.name}>
                  <td>
                    <strong>{humanize(c.name)}</strong>
                    {c.meaning && <div className="small muted">{c.meaning}</div>}
                  </td>
                  <td className={c.value ? "cond-yes" : "cond-no"}>{c.value ? "✓ Yes" : "✗ No"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {m.withheld_elements.length > 0 && (
        <>
          <h4>Facts left out of the report</h4>
          <ul className="rv-withheld">
            {m.withheld_elements.map((e) => (
              <li key={e.name}>
                <strong>{humanize(e.name)}</strong>
                {e.meaning && <span className="muted"> — {e.meaning}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {m.missing_summary && <p className="small">{m.missing_summary}</p>}
      {m.why_not_classifiable && (
        <p className="small">
          <strong>Why the report cannot be classified as it stands: </strong>
          {m.why_not_classifiable}
        </p>
      )}
      {(m.legal_basis.length > 0 || m.legal_basis_meaning) && (
        <p className="small muted">
          Legal basis: {m.legal_basis.join("; ")}
          {m.legal_basis_meaning ? ` — ${m.legal_basis_meaning}` : ""}
        </p>
      )}
    </section>
  );
}

/** The keys that apply to a session: T (the model's rationale) only where some case has a rationale task. */
export function shortcutsFor(rationale: boolean): [string, string][] {
  return rationale ? SHORTCUTS : SHORTCUTS.filter(([k]) => k !== "T");
}

export function ShortcutSheet({ rationale }: { rationale: boolean }) {
  return (
    <table className="data rv-keys-table">
      <caption className="sr-only">Keyboard shortcuts</caption>
      <thead>
        <tr>
          <th>Key</th>
          <th>What it does</th>
        </tr>
      </thead>
      <tbody>
        {shortcutsFor(rationale).map(([k, v]) => (
          <tr key={k}>
            <td>
              <kbd>{k}</kbd>
            </td>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The rationale task: a model's rationale and the case's conditions to tick. Native checkboxes,
 * so Tab moves between them and Space ticks; every change saves the whole list. */
function RationaleCheck({
  task,
  ticked,
  onChange,
  firstBox,
}: {
  task: RationaleTask;
  ticked: string[] | null;
  onChange: (names: string[]) => void;
  firstBox: Ref<HTMLInputElement>;
}) {
  const toggle = (name: string, on: boolean) => {
    const now = new Set(ticked ?? []);
    if (on) now.add(name);
    else now.delete(name);
    onChange(task.conditions.filter((c) => now.has(c.name)).map((c) => c.name));
  };
  return (
    <section className="rv-rationale" aria-labelledby="rv-rationale-title" data-testid="rationale-task">
      <h3 id="rv-rationale-title">Check a model&apos;s rationale</h3>
      <p className="small muted">
        A model under test wrote this reasoning for the case. Tick each condition the reasoning really works with and treats the way the case says
        (as met when it holds, as not met when it does not). Mentioning a word is not enough. <kbd>T</kbd> comes here, <kbd>Space</kbd> ticks,{" "}
        <kbd>N</kbd> none of them.
      </p>
      <blockquote className="rv-rationale-text" data-testid="rationale-text">
        {task.rationale}
      </blockquote>
      <fieldset className="rv-rationale-conds">
        <legend>Conditions the rationale establishes</legend>
        {task.conditions.map((c, i) => (
          <label key={c.name} className="rv-rationale-cond">
            <input
              type="checkbox"
              ref={i === 0 ? firstBox : undefined}
              checked={ticked?.includes(c.name) ?? false}
              onChange={(e) => toggle(c.name, e.target.checked)}
            />
            <span>
              <strong>{humanize(c.name)}</strong>{" "}
              <span className={c.value ? "cond-yes" : "cond-no"}>{c.value ? "(holds in this case)" : "(does not hold in this case)"}</span>
              {c.meaning && <span className="small muted"> — {c.meaning}</span>}
            </span>
          </label>
        ))}
      </fieldset>
      <div className="row gap wrap rv-rationale-foot">
        <button className="btn btn-small" onClick={() => onChange([])} aria-keyshortcuts="N">
          It establishes none of them <kbd>N</kbd>
        </button>
        <span className="small" role="status" data-testid="rationale-status">
          {ticked === null ? "Not answered yet: tick the conditions, or choose none." : `Saved: ${ticked.length} of ${task.conditions.length} ticked.`}
        </span>
      </div>
    </section>
  );
}

/**
 * The questionnaire for one reviewer token. `mode` "link" fills the page (a personal link);
 * "app" sits inside the desktop app with `exit` as a way back.
 */
export function Questionnaire({ token, mode, exit }: { token: string; mode: "link" | "app"; exit?: ReactNode }) {
  const [me, setMe] = useState<ReviewMe | null>(null);
  const [loadError, setLoadError] = useState<EngineError | null>(null);
  const [screen, setScreen] = useState<Screen>("loading");
  const [itemNo, setItemNo] = useState<number | null>(null);
  const [view, setView] = useState<ReviewItemView | null>(null);
  const [answer, setAnswer] = useState<ReviewAnswerState | null>(null);
  const [reveal, setReveal] = useState<ReviewReveal | null>(null);
  const [comment, setComment] = useState("");
  const [save, setSave] = useState<SaveState>({ status: "idle" });
  const [keys, setKeys] = useState<KeyState>({ section: "realism" });
  const [dialog, setDialog] = useState<Dialog>(null);
  const [hint, setHint] = useState<string | null>(null);
  const [itemError, setItemError] = useState<EngineError | null>(null);

  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const pending = useRef(0);
  const current = useRef<number | null>(null);
  const savedComment = useRef<string>("");
  const commentTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const groups = useRef<Record<Section, HTMLDivElement | null>>({ realism: null, plausibility: null, verdict: null, agree: null });
  const commentBox = useRef<HTMLTextAreaElement>(null);
  const startButton = useRef<HTMLButtonElement>(null);
  const rationaleBox = useRef<HTMLInputElement>(null);
  const wantFocus = useRef<Section | null>(null);
  const wantTop = useRef(false);

  // ------------------------------------------------------------ saving

  const enqueue = useCallback(<T,>(fn: () => Promise<T>, quiet = false): Promise<T> => {
    if (!quiet) {
      pending.current++;
      setSave({ status: "saving" });
    }
    const p = queue.current.then(fn);
    queue.current = p.then(
      () => undefined,
      () => undefined,
    );
    if (!quiet) {
      p.then(
        () => {
          pending.current--;
          if (pending.current === 0) setSave((s) => (s.status === "error" ? s : { status: "saved" }));
        },
        () => {
          pending.current--;
        },
      );
    }
    return p;
  }, []);

  const applySaved = useCallback((n: number, saved: ReviewAnswerSaved) => {
    setMe((m) =>
      m
        ? {
            ...m,
            progress: saved.progress,
            resume_item_no: saved.resume_item_no,
            items: m.items.map((i) =>
              i.item_no === n
                ? {
                    ...i,
                    realism: saved.answer.realism,
                    plausibility: saved.answer.plausibility,
                    blind_verdict: saved.answer.blind_verdict,
                    revealed: saved.answer.revealed_at !== null,
                    agree: saved.answer.agree,
                    has_comment: saved.answer.comment !== null,
                    complete: saved.answer.complete,
                    rationale_done: saved.answer.rationale_established != null,
                  }
                : i,
            ),
          }
        : m,
    );
    if (current.current === n && pending.current === 0) {
      setAnswer((a) => (a ? { ...saved.answer, comment: a.comment } : saved.answer));
    }
  }, []);

  const takeTimeRef = useRef<() => number>(() => 0);

  const sendPatch = useCallback(
    (n: number, patch: ReviewAnswerPatch, quiet = false): Promise<void> => {
      const add = n === current.current ? takeTimeRef.current() : 0;
      const full: ReviewAnswerPatch = add > 0 ? { ...patch, add_time_secs: add } : patch;
      const run = () => api("review.answer", { token, item_no: n, patch: full });
      return enqueue(run, quiet).then(
        (saved) => applySaved(n, saved),
        (e: EngineError) => {
          setSave({ status: "error", error: e, retry: () => void sendPatch(n, patch).catch(() => {}) });
          throw e;
        },
      );
    },
    [token, enqueue, applySaved],
  );

  const reportTime = useCallback(
    (n: number, secs: number) => {
      enqueue(() => api("review.answer", { token, item_no: n, patch: { add_time_secs: secs } }), true).catch(() => {
        /* time is best effort; the next report carries on */
      });
    },
    [token, enqueue],
  );
  const takeTime = useActiveTime(screen === "item" && view ? view.item_no : null, reportTime);
  takeTimeRef.current = takeTime;

  // The closing screen shows the time spent as the session's owner sees it: read it again once
  // the time of the last case (reported as that case leaves the screen, just above) is saved.
  useEffect(() => {
    if (screen !== "done") return;
    let gone = false;
    queue.current
      .then(() => api("review.me", { token }))
      .then((m) => {
        if (!gone) setMe((cur) => (cur ? { ...cur, time_spent_secs: m.time_spent_secs } : cur));
      })
      .catch(() => {
        /* the figure stays as it was; the answers themselves are saved */
      });
    return () => {
      gone = true;
    };
  }, [screen, token]);

  // ------------------------------------------------------------ loading

  useEffect(() => {
    let gone = false;
    api("review.me", { token })
      .then((m) => {
        if (gone) return;
        setMe(m);
        const started = m.items.some((i) => i.realism !== null || i.plausibility !== null || i.blind_verdict !== null);
        const resume = m.resume_item_no ?? m.items[0]?.item_no ?? null;
        setItemNo(resume);
        if (!started) setScreen("guidelines");
        else if (m.resume_item_no === null) setScreen("done");
        else setScreen("item");
      })
      .catch((e: EngineError) => !gone && setLoadError(e));
    return () => {
      gone = true;
    };
  }, [token]);

  useEffect(() => {
    if (itemNo === null || screen !== "item") return;
    if (view?.item_no === itemNo) return;
    let gone = false;
    current.current = null;
    setItemError(null);
    // Load after every queued save, so that going back shows what was just answered.
    queue.current
      .then(() => api("review.item", { token, item_no: itemNo }))
      .then((v) => {
        if (gone) return;
        current.current = v.item_no;
        setView(v);
        setAnswer(v.answer);
        setReveal(v.reveal);
        setComment(v.answer.comment ?? "");
        savedComment.current = v.answer.comment ?? "";
        const facts: ItemFacts = {
          realism: v.answer.realism,
          plausibility: v.answer.plausibility,
          blindVerdict: v.answer.blind_verdict,
          revealed: v.reveal !== null,
          agree: v.answer.agree,
          hasPrev: v.prev_item_no !== null,
          hasNext: v.next_item_no !== null,
        };
        const s = firstOpenSection(facts);
        setKeys({ section: s });
        wantFocus.current = s;
        wantTop.current = true;
      })
      .catch((e: EngineError) => !gone && setItemError(e));
    return () => {
      gone = true;
    };
  }, [itemNo, screen, token, view?.item_no]);

  // Move the focus where the keys act, after the screen shows it.
  useEffect(() => {
    const s = wantFocus.current;
    if (!s || screen !== "item" || !view) return;
    wantFocus.current = null;
    if (wantTop.current) {
      // A new case starts at the top of the page, with its progress in view.
      wantTop.current = false;
      document.getElementById("main")?.scrollTo({ top: 0 });
    }
    focusGroup(groups.current[s]);
  });

  useEffect(() => {
    if (screen === "guidelines") startButton.current?.focus();
  }, [screen]);

  useEffect(() => {
    if (!hint) return;
    const t = setTimeout(() => setHint(null), 6000);
    return () => clearTimeout(t);
  }, [hint]);

  // ------------------------------------------------------------ actions

  const flushComment = useCallback(() => {
    if (commentTimer.current) {
      clearTimeout(commentTimer.current);
      commentTimer.current = null;
    }
    const n = current.current;
    if (n === null || !answer) return;
    const text = comment;
    if (text === savedComment.current) return;
    savedComment.current = text;
    sendPatch(n, { comment: text }).catch(() => {});
  }, [answer, comment, sendPatch]);

  const goTo = useCallback(
    (n: number | null) => {
      flushComment();
      if (n === null) {
        setView(null);
        current.current = null;
        setScreen("done");
        return;
      }
      setDialog(null);
      setScreen("item");
      if (n !== itemNo || view?.item_no !== n) {
        setView(null);
        setItemNo(n);
      }
    },
    [flushComment, itemNo, view],
  );

  const setRating = (field: "realism" | "plausibility", value: number) => {
    if (!view || !answer) return;
    setAnswer({ ...answer, [field]: value });
    sendPatch(view.item_no, { [field]: value }).catch(() => {});
  };

  const chooseVerdict = (v: ReviewVerdict) => {
    if (!view || !answer) return;
    if (reveal) {
      setHint("Your own verdict is locked once the by-construction verdict has been shown.");
      return;
    }
    setAnswer({ ...answer, blind_verdict: v });
    sendPatch(view.item_no, { blind_verdict: v }).catch(() => {});
  };

  const doReveal = () => {
    if (!view || !answer) return;
    if (reveal) return;
    if (!answer.blind_verdict) {
      setHint("Choose your own verdict first (keys 1–4 on the verdict question).");
      setKeys({ section: "verdict" });
      focusGroup(groups.current.verdict);
      return;
    }
    const n = view.item_no;
    enqueue(() => api("review.reveal", { token, item_no: n }))
      .then((r) => {
        if (current.current !== n) return;
        setReveal(r);
        setAnswer((a) => (a ? { ...a, revealed_at: r.revealed_at } : a));
        setMe((m) => (m ? { ...m, items: m.items.map((i) => (i.item_no === n ? { ...i, revealed: true } : i)) } : m));
        setKeys({ section: "agree" });
        wantFocus.current = "agree";
        // The rationale task (if any) is given only once the verdict is revealed.
        if (view.has_rationale_task) {
          api("review.item", { token, item_no: n })
            .then((v) => current.current === n && setView(v))
            .catch(() => {});
        }
      })
      .catch((e: EngineError) => setSave({ status: "error", error: e, retry: doReveal }));
  };

  const setAgree = (v: boolean) => {
    if (!view || !answer) return;
    if (!reveal) {
      setHint("Agree or disagree once the by-construction verdict is shown: choose your own verdict, then press Enter.");
      return;
    }
    setAnswer({ ...answer, agree: v });
    sendPatch(view.item_no, { agree: v }).catch(() => {});
  };

  const setRationale = (names: string[]) => {
    if (!view || !answer) return;
    if (!reveal) {
      setHint("The model's rationale is shown once your own verdict is saved and the by-construction verdict is open.");
      return;
    }
    setAnswer({ ...answer, rationale_established: names });
    sendPatch(view.item_no, { rationale_established: names }).catch(() => {});
  };

  const next = () => {
    if (!view) return;
    goTo(view.next_item_no);
  };
  const prev = () => {
    if (screen === "done") {
      const last = me?.items[me.items.length - 1]?.item_no ?? null;
      if (last !== null) goTo(last);
      return;
    }
    if (view?.prev_item_no) goTo(view.prev_item_no);
  };

  const facts: ItemFacts | null =
    view && answer
      ? {
          realism: answer.realism,
          plausibility: answer.plausibility,
          blindVerdict: answer.blind_verdict,
          revealed: reveal !== null,
          agree: answer.agree,
          hasPrev: view.prev_item_no !== null,
          hasNext: view.next_item_no !== null,
          hasRationale: view.has_rationale_task,
          rationalePending: view.has_rationale_task && answer.rationale_established == null,
        }
      : null;

  const verdictKeys = useMemo(() => {
    const m: Record<string, ReviewVerdict> = {};
    for (const o of me?.verdict_options ?? []) m[o.key.toLowerCase()] = o.verdict;
    return m;
  }, [me]);

  // ------------------------------------------------------------ keys

  const onKey = useRef<(e: KeyboardEvent) => void>(() => {});
  onKey.current = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.isComposing) return;
    const r = interpretKey(
      keys,
      {
        key: e.key,
        ctrl: e.ctrlKey,
        meta: e.metaKey,
        alt: e.altKey,
        typing: isTyping(e.target),
        onButton: isButtonLike(e.target),
        dialogOpen: dialog !== null,
        screen: screen === "item" && !view ? "loading" : screen,
      },
      facts,
      verdictKeys,
      me?.realism_anchors.length ?? 5,
    );
    if (!r.handled) return;
    e.preventDefault();
    const c = r.command;
    if (r.state.section !== keys.section) setKeys(r.state);
    switch (c.kind) {
      case "set":
        setRating(c.field, c.value);
        focusGroup(groups.current[r.state.section]);
        break;
      case "verdict":
        chooseVerdict(c.verdict);
        break;
      case "reveal":
        doReveal();
        break;
      case "agree":
        setAgree(c.value);
        focusGroup(groups.current.agree);
        break;
      case "next":
        next();
        break;
      case "prev":
        prev();
        break;
      case "start":
        goTo(itemNo);
        break;
      case "guidelines":
        setDialog("guidelines");
        break;
      case "shortcuts":
        setDialog("shortcuts");
        break;
      case "list":
        setDialog("list");
        break;
      case "comment":
        commentBox.current?.focus();
        break;
      case "rationale":
        rationaleBox.current?.focus();
        break;
      case "rationale-none":
        setRationale([]);
        break;
      case "leave-text":
        (e.target as HTMLElement).blur?.();
        flushComment();
        focusGroup(groups.current.agree);
        break;
      case "focus":
        focusGroup(groups.current[c.section]);
        break;
      case "hint":
        setHint(c.text);
        if (r.state.section !== keys.section) focusGroup(groups.current[r.state.section]);
        break;
    }
  };
  useEffect(() => {
    const h = (e: KeyboardEvent) => onKey.current(e);
    window.addEventListener("keydown", h);
    return () => window.removeEventListener("keydown", h);
  }, []);

  // Debounced comment save.
  useEffect(() => {
    if (!answer || comment === savedComment.current) return;
    if (commentTimer.current) clearTimeout(commentTimer.current);
    commentTimer.current = setTimeout(() => flushComment(), 800);
    return () => {
      if (commentTimer.current) clearTimeout(commentTimer.current);
    };
  }, [comment, answer, flushComment]);

  // ------------------------------------------------------------ render

  if (loadError) {
    const bad = loadError.code === "forbidden" || loadError.code === "not_found";
    // The organiser closed the review: the server's own sentence says so.
    const closed = loadError.code === "forbidden" && loadError.message.startsWith("This review has been closed");
    return (
      <div className={mode === "link" ? "rv rv-link" : "rv"}>
        <div className="rv-message" role="alert">
          <h1>{closed ? "This review has been closed" : bad ? "This review link does not work" : "The review could not be opened"}</h1>
          {closed ? (
            <p>{loadError.message}</p>
          ) : bad ? (
            <p>
              The link may have been replaced by a newer one, or the review may have ended. Ask the person who sent it to you for a new link. Your
              answers given so far are kept.
            </p>
          ) : (
            <p>{loadError.message}</p>
          )}
          {!bad && (
            <p className="muted small">
              If the review server was stopped, ask the person running the review to start it again, then reload this page.
            </p>
          )}
          {exit}
        </div>
      </div>
    );
  }
  if (!me) {
    return (
      <div className={mode === "link" ? "rv rv-link" : "rv"}>
        <div className="loading" role="status">
          <span className="spinner" aria-hidden /> Opening your review…
        </div>
      </div>
    );
  }

  const total = me.progress.total;
  const done = me.progress.completed;
  const rationaleTasks = me.items.some((i) => i.has_rationale_task);
  const verdictChoices = me.verdict_options.map((o) => ({
    value: o.verdict,
    key: o.key,
    label: o.verdict,
    meaning: o.meaning,
    icon: (
      <span className={`rv-vicon verdict-${o.verdict.replace(/\s+/g, "-").toLowerCase()}`} aria-hidden>
        {VERDICT_ICON[o.verdict]}
      </span>
    ),
  }));
  const remaining = me.items.filter((i) => !i.complete);

  const saveNote =
    save.status === "saving" ? (
      <span className="rv-save saving">Saving…</span>
    ) : save.status === "saved" ? (
      <span className="rv-save saved">
        <span aria-hidden>✓ </span>Saved
      </span>
    ) : save.status === "error" ? (
      <span className="rv-save error">
        <span aria-hidden>! </span>Not saved
      </span>
    ) : (
      <span className="rv-save">Answers are saved as you give them</span>
    );

  return (
    <div className={mode === "link" ? "rv rv-link" : "rv"}>
      <header className="rv-top">
        <div className="rv-title">
          {mode === "link" ? <h1>{me.session_name}</h1> : <h2 className="rv-h">{me.session_name}</h2>}
          <div className="muted small">
            Expert review · reviewing as <strong>{me.reviewer}</strong>
          </div>
        </div>
        <div className="rv-progress">
          <div className="row between small">
            <strong>{screen === "item" && itemNo !== null ? `Case ${me.items.findIndex((i) => i.item_no === itemNo) + 1} of ${total}` : plural(total, "case")}</strong>
            <span className="muted">
              {done} of {total} complete
            </span>
          </div>
          <ProgressBar value={done} max={total} label={`${done} of ${total} cases complete`} />
        </div>
        <div className="rv-actions">
          <button className="btn btn-small" onClick={() => setDialog("list")} aria-keyshortcuts="L">
            Cases <kbd>L</kbd>
          </button>
          <button className="btn btn-small" onClick={() => setDialog("guidelines")} aria-keyshortcuts="G">
            Guidelines <kbd>G</kbd>
          </button>
          <button className="btn btn-small" onClick={() => setDialog("shortcuts")} aria-keyshortcuts="?">
            Keys <kbd>?</kbd>
          </button>
          {exit}
        </div>
      </header>
      <div className="rv-statusline">
        <span role="status" aria-live="polite">
          {saveNote}
        </span>
        <span className="rv-hint" role="status" aria-live="polite">
          {hint}
        </span>
      </div>
      {save.status === "error" && save.error && (
        <ErrorLine
          error={save.error}
          action={
            save.retry && (
              <button className="btn btn-small" onClick={() => save.retry?.()}>
                Try again
              </button>
            )
          }
        />
      )}

      {screen === "guidelines" && (
        <section className="rv-guidelines card" aria-labelledby="rv-g-title">
          <h2 id="rv-g-title" className="sr-only">
            Guidelines
          </h2>
          <Markdown text={me.guidelines} headingOffset={1} className="rv-md" />
          <div className="row gap wrap rv-start">
            <button ref={startButton} className="btn btn-primary" onClick={() => goTo(itemNo)}>
              {me.progress.completed > 0 ? `Continue at case ${me.items.findIndex((i) => i.item_no === itemNo) + 1}` : "Start with the first case"}
            </button>
            <span className="muted small">
              Press <kbd>Enter</kbd> to start. The guidelines stay one key away (<kbd>G</kbd>); <kbd>?</kbd> lists every key.
            </span>
          </div>
        </section>
      )}

      {screen === "done" && (
        <section className="rv-done card" aria-live="polite">
          {remaining.length === 0 ? (
            <>
              <h2>{total === 1 ? "The case is complete." : `All ${total} cases are complete.`} Thank you!</h2>
              <p>
                Your answers are saved{mode === "link" ? "; you can close this page" : ""}. Time spent: {duration(me.time_spent_secs)}. You can still go
                back and change ratings, agree marks and comments (<kbd>K</kbd> or the list of cases).
              </p>
            </>
          ) : (
            <>
              <h2>You reached the last case</h2>
              <p>
                {remaining.length} of {plural(total, "case")} {remaining.length === 1 ? "is" : "are"} not finished yet. Everything you answered is saved.
              </p>
              <div className="row gap wrap">
                {remaining.slice(0, 12).map((i) => (
                  <button key={i.item_no} className="btn" onClick={() => goTo(i.item_no)}>
                    Case {me.items.findIndex((x) => x.item_no === i.item_no) + 1}
                  </button>
                ))}
              </div>
            </>
          )}
        </section>
      )}

      {screen === "item" && !view && !itemError && (
        <div className="loading" role="status">
          <span className="spinner" aria-hidden /> Opening the case…
        </div>
      )}
      {screen === "item" && itemError && (
        <div className="banner banner-error" role="alert">
          <div className="banner-icon" aria-hidden>
            !
          </div>
          <div className="banner-body">
            <strong>This case could not be opened.</strong> {itemError.message}
          </div>
        </div>
      )}

      {screen === "item" && view && answer && (
        <div className="rv-grid">
          <div className="rv-left">
            <div className="rv-left-inner">
              <article className="rv-case" aria-labelledby="rv-case-title">
                <h2 id="rv-case-title" className="rv-case-title">
                  Case {me.items.findIndex((i) => i.item_no === view.item_no) + 1} <span className="muted">of {total}</span>
                </h2>
                <div className="narrative rv-narrative" data-testid="narrative">
                  {view.narrative}
                </div>
              </article>
              {reveal && <Reveal reveal={reveal} where="side" />}
            </div>
          </div>
          <div className="rv-questions">
            <ChoiceGroup<number>
              ref={(el) => {
                groups.current.realism = el;
              }}
              name="realism"
              title="Realism"
              question="Would a care team really write this report about a real event?"
              options={me.realism_anchors.map((a) => ({ value: a.value, key: String(a.value), label: a.label, meaning: a.meaning }))}
              value={answer.realism}
              onChange={(v) => {
                setRating("realism", v);
                setKeys({ section: "realism" });
              }}
              active={keys.section === "realism"}
              keysNote="keys 1–5"
              onFocusGroup={() => keys.section !== "realism" && setKeys({ section: "realism" })}
            />
            <ChoiceGroup<number>
              ref={(el) => {
                groups.current.plausibility = el;
              }}
              name="plausibility"
              title="Plausibility"
              question="Do the facts of the report fit together?"
              options={me.plausibility_anchors.map((a) => ({ value: a.value, key: String(a.value), label: a.label, meaning: a.meaning }))}
              value={answer.plausibility}
              onChange={(v) => {
                setRating("plausibility", v);
                setKeys({ section: "plausibility" });
              }}
              active={keys.section === "plausibility"}
              keysNote="keys 1–5"
              onFocusGroup={() => keys.section !== "plausibility" && setKeys({ section: "plausibility" })}
            />
            <ChoiceGroup<ReviewVerdict>
              ref={(el) => {
                groups.current.verdict = el;
              }}
              name="verdict"
              title="Your verdict"
              question={reveal ? undefined : "Decide on your own before you see the verdict the case was built to have."}
              options={verdictChoices}
              value={answer.blind_verdict}
              onChange={(v) => {
                chooseVerdict(v);
                setKeys({ section: "verdict" });
              }}
              disabled={reveal !== null}
              disabledNote="Locked: you have seen the by-construction verdict."
              collapseWhenDisabled
              active={keys.section === "verdict"}
              keysNote={`keys ${me.verdict_options.map((o) => o.key).join(" ")}`}
              onFocusGroup={() => keys.section !== "verdict" && setKeys({ section: "verdict" })}
              compact
            />
            {!reveal && (
              <div className="rv-reveal-action">
                <button className="btn btn-primary" onClick={doReveal} disabled={!answer.blind_verdict} aria-keyshortcuts="Enter">
                  Save my verdict and show the by-construction verdict <kbd>Enter</kbd>
                </button>
                {!answer.blind_verdict && <p className="small muted">Choose your own verdict first; it cannot be changed once the answer is shown.</p>}
              </div>
            )}
            {reveal && (
              <>
                <Reveal reveal={reveal} where="inline" />
                <p className="rv-see-reveal small">
                  <span aria-hidden>← </span>The by-construction verdict is shown beside the report:{" "}
                  <VerdictBadge verdict={reveal.material.expected_verdict} />{" "}
                  <span className={`rv-match ${reveal.matches_your_verdict ? "yes" : "no"}`}>
                    {reveal.matches_your_verdict ? "✓ the same as yours" : "≠ different from yours"}
                  </span>
                </p>
                <ChoiceGroup<boolean>
                  ref={(el) => {
                    groups.current.agree = el;
                  }}
                  name="agree"
                  title="Do you agree with the by-construction verdict?"
                  options={[
                    { value: true, key: "A", label: "Agree", meaning: "The case supports the verdict it was built to have." },
                    { value: false, key: "D", label: "Disagree", meaning: "The verdict it was built to have is not right for this report (say why below)." },
                  ]}
                  value={answer.agree}
                  onChange={(v) => {
                    setAgree(v);
                    setKeys({ section: "agree" });
                  }}
                  active={keys.section === "agree"}
                  keysNote="keys A D"
                  onFocusGroup={() => keys.section !== "agree" && setKeys({ section: "agree" })}
                  compact
                />
                <div className="field rv-comment">
                  <label htmlFor="rv-comment">
                    Comment <span className="muted small">(optional · <kbd>C</kbd> to write, <kbd>Esc</kbd> to leave)</span>
                  </label>
                  <textarea
                    id="rv-comment"
                    ref={commentBox}
                    rows={3}
                    value={comment}
                    placeholder="Anything off in this case: a detail, the wording, the verdict…"
                    onChange={(e) => setComment(e.target.value)}
                    onBlur={flushComment}
                  />
                </div>
                {view.rationale_task && (
                  <RationaleCheck task={view.rationale_task} ticked={answer.rationale_established ?? null} onChange={setRationale} firstBox={rationaleBox} />
                )}
              </>
            )}
            {!reveal && view.has_rationale_task && (
              <p className="small muted">After your verdict you will also check a model&apos;s reasoning for this case.</p>
            )}
            {answer.complete && (
              <p className="rv-complete" role="status">
                <span aria-hidden>✓ </span>This case is complete. <kbd>Enter</kbd> or <kbd>J</kbd> for the next case.
              </p>
            )}
            <nav className="rv-nav" aria-label="Cases">
              <button className="btn" onClick={prev} disabled={!view.prev_item_no} aria-keyshortcuts="K">
                ← Previous <kbd>K</kbd>
              </button>
              <button className="btn" onClick={next} aria-keyshortcuts="J">
                {view.next_item_no ? "Next" : "Finish"} → <kbd>J</kbd>
              </button>
            </nav>
          </div>
        </div>
      )}

      <p className="rv-keyline small muted" aria-hidden={screen !== "item"}>
        Keys: <kbd>1</kbd>–<kbd>5</kbd> rate · <kbd>1</kbd>–<kbd>4</kbd> verdict · <kbd>Enter</kbd> show the answer · <kbd>A</kbd>/<kbd>D</kbd> agree ·{" "}
        {rationaleTasks && (
          <>
            <kbd>T</kbd> rationale ·{" "}
          </>
        )}
        <kbd>J</kbd>/<kbd>K</kbd> next/previous · <kbd>?</kbd> all keys
      </p>

      {dialog === "guidelines" && (
        <Modal title="Guidelines" onClose={() => setDialog(null)} wide>
          <Markdown text={me.guidelines} headingOffset={2} className="rv-md" />
        </Modal>
      )}
      {dialog === "shortcuts" && (
        <Modal title="Keyboard shortcuts" onClose={() => setDialog(null)}>
          <ShortcutSheet rationale={rationaleTasks} />
        </Modal>
      )}
      {dialog === "list" && (
        <Modal title="Your cases" onClose={() => setDialog(null)} wide>
          <table className="data rv-list">
            <caption className="sr-only">Your cases and how far you are with each</caption>
            <thead>
              <tr>
                <th>Case</th>
                <th>Status</th>
                <th style={{ textAlign: "right" }}>Realism</th>
                <th style={{ textAlign: "right" }}>Plausibility</th>
                <th>Your verdict</th>
                <th>Agree</th>
              </tr>
            </thead>
            <tbody>
              {me.items.map((i, k) => {
                const s = statusOf(i);
                return (
                  <tr key={i.item_no} className={i.item_no === itemNo && screen === "item" ? "selected" : ""}>
                    <td>
                      <button className="link" onClick={() => goTo(i.item_no)}>
                        Case {k + 1}
                      </button>
                    </td>
                    <td>
                      <span className={`rv-st rv-st-${s.cls}`}>
                        <span aria-hidden>{s.icon} </span>
                        {s.text}
                      </span>
                    </td>
                    <td style={{ textAlign: "right" }}>{i.realism ?? "–"}</td>
                    <td style={{ textAlign: "right" }}>{i.plausibility ?? "–"}</td>
                    <td>{i.blind_verdict ? <VerdictBadge verdict={i.blind_verdict} /> : "–"}</td>
                    <td>{i.agree === null ? "–" : i.agree ? "Agree" : "Disagree"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Modal>
      )}
    </div>
  );
}
