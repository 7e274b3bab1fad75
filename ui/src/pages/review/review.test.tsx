import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { firstOpenSection, interpretKey, ItemFacts, KeyContext, KeyState } from "./keys";
import { Markdown, parseInline, parseMarkdown, safeHref } from "./markdown";
import { ActiveTime } from "./timer";
import { adjudicationBlocker, alphaReading, DEFAULT_GUIDELINES_TEXT, kappaReading, linkUrl, ratingDistributions, reviewLinkToken } from "./logic";
import type { ReviewVerdict } from "../../api/generated";

const html = (md: string) => renderToStaticMarkup(<Markdown text={md} headingOffset={0} />);

/** Each text renders within 100 ms: the best of three, so that a busy test machine does not fail it. */
function rendersEachWithin100ms(texts: string[]) {
  for (const text of texts) {
    let ms = Infinity;
    for (let k = 0; k < 3 && ms >= 100; k++) {
      const t0 = performance.now();
      html(text);
      ms = Math.min(ms, performance.now() - t0);
    }
    expect(ms, `${JSON.stringify(text.slice(0, 12))}… took ${ms.toFixed(0)} ms`).toBeLessThan(100);
  }
}

describe("markdown renderer", () => {
  it("renders headings, paragraphs, lists and emphasis", () => {
    const out = html("# Title\n\nSome *soft* and **strong** words with `code`.\n\n- one\n- two\n\n3. three\n4. four\n");
    expect(out).toContain("<h1>Title</h1>");
    expect(out).toContain("<p>Some <em>soft</em> and <strong>strong</strong> words with <code>code</code>.</p>");
    expect(out).toContain("<ul><li>one</li><li>two</li></ul>");
    expect(out).toContain('<ol start="3"><li>three</li><li>four</li></ol>');
  });

  it("joins indented continuation lines into the list item and nests lists", () => {
    const blocks = parseMarkdown("1. **Realism.** Would a team\n   write this?\n   - sub point\n2. Next");
    expect(blocks).toHaveLength(1);
    const list = blocks[0];
    expect(list.t).toBe("list");
    if (list.t !== "list") return;
    expect(list.items).toHaveLength(2);
    expect(list.items[0][0]).toEqual({ t: "p", c: [{ t: "strong", c: [{ t: "text", s: "Realism." }] }, { t: "text", s: " Would a team write this?" }] });
    expect(list.items[0][1].t).toBe("list");
  });

  it("escapes HTML instead of interpreting it", () => {
    const out = html('<script>alert("x")</script>\n\n<img src=x onerror=alert(1)> **<b>bold</b>**');
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<b>");
    expect(out).toContain("&lt;script&gt;");
    expect(out).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("links only to http, https and mailto addresses", () => {
    expect(safeHref("https://example.org/a")).toBe("https://example.org/a");
    expect(safeHref("mailto:lead@example.org")).toBe("mailto:lead@example.org");
    expect(safeHref("javascript:alert(1)")).toBeNull();
    expect(safeHref("JaVaScRiPt:alert(1)")).toBeNull();
    expect(safeHref("data:text/html,<b>")).toBeNull();
    expect(safeHref('https://x.org/" onclick="a')).toBeNull();
    const out = html("[policy](https://example.org/mn) and [bad](javascript:alert(1))");
    expect(out).toContain('<a href="https://example.org/mn" target="_blank" rel="noopener noreferrer">policy</a>');
    expect(out).not.toContain("javascript");
    expect(out).toContain("bad");
  });

  it("renders pipe tables with alignment (the engine's summary table)", () => {
    const out = html("| Case type | Cases |\n|---|---:|\n| Complete | 30 |\n| All | 90 |\n");
    expect(out).toContain('<th style="text-align:left">Case type</th><th style="text-align:right">Cases</th>');
    expect(out).toContain('<td style="text-align:right">30</td>');
    expect((out.match(/<tr>/g) ?? []).length).toBe(3);
  });

  it("keeps backslash-escaped markers and underscores inside words", () => {
    expect(parseInline("\\*not em\\* and snake_case_name")).toEqual([{ t: "text", s: "*not em* and snake_case_name" }]);
  });

  it("parses the default guidelines without losing text", () => {
    const out = html(DEFAULT_GUIDELINES_TEXT);
    expect(out).toContain("<h1>Reviewing benchmark cases</h1>");
    expect(out).toContain("<strong>Realism, 1 to 5.</strong>");
    expect(out).toContain("<em>Missing information</em>");
    expect((out.match(/<li>/g) ?? []).length).toBe(10);
    expect(out).toContain("<strong>If you review from a pack file:</strong>");
  });

  it("renders hostile guidelines lines in linear time (no regex backtracking)", () => {
    const spaces = " ".repeat(6000);
    const dashes = "-".repeat(6000);
    const hostile = [
      `# a${spaces}b`,
      `# a${spaces}#${spaces}b`,
      `a | b\n|${dashes}x`,
      `a | b\n|${spaces}-${spaces}x`,
      `a | b\n|-${spaces}|${spaces}-${spaces}x`,
      `a | b\n${"| - ".repeat(3000)}x`,
      `- - -${spaces}x`,
      `word${spaces}x\n`.repeat(20),
    ];
    // Before the fix the first pattern alone took over 30 s each time.
    rendersEachWithin100ms(hostile);
  });

  it("reads inline marks without partners in linear time (guidelines may hold 200,000 characters)", () => {
    const n = 50_000;
    const hostile = ["[".repeat(n), "[a](".repeat(n / 4), "[[[[".repeat(n / 4) + "]", "* a".repeat(n / 3), "_".repeat(n), "`".repeat(n), "** a".repeat(n / 4), "[x]".repeat(n / 3)];
    // Before, each mark without a partner searched to the end of the text: seconds, not milliseconds.
    rendersEachWithin100ms(hostile);
  });

  it("keeps heading and table-separator rules: closing hashes, optional outer pipes, colons", () => {
    expect(parseMarkdown("## Title ##  ")).toEqual([{ t: "h", level: 2, c: [{ t: "text", s: "Title" }] }]);
    expect(parseMarkdown("   ### C#")[0]).toEqual({ t: "h", level: 3, c: [{ t: "text", s: "C" }] });
    expect(parseMarkdown("#")[0].t).toBe("p");
    expect(parseMarkdown("#no space")[0].t).toBe("p");
    expect(parseMarkdown("####### seven")[0].t).toBe("p");
    expect(parseMarkdown("    # four spaces")[0].t).toBe("p");
    expect(parseMarkdown("# ###")).toEqual([{ t: "h", level: 1, c: [] }]);
    for (const sep of ["---|---", "|:--|--:|", " | :-: | - ", "-"]) {
      expect(parseMarkdown(`a | b\n${sep}\n1 | 2`)[0].t, sep).toBe("table");
    }
    for (const sep of ["|-||-|", "| - x |", "|", "| : |", "-- -"]) {
      expect(parseMarkdown(`a | b\n${sep}`)[0].t, sep).toBe("p");
    }
    const t = parseMarkdown("a | b | c\n:-- | :-: | --:\n1 | 2 | 3")[0];
    expect(t.t === "table" && t.align).toEqual(["left", "center", "right"]);
  });
});

const VK: Record<string, ReviewVerdict> = { "1": "Reportable", "2": "Non-reportable", "3": "Missing information", "4": "Uncertain" };
const fresh: ItemFacts = { realism: null, plausibility: null, blindVerdict: null, revealed: false, agree: null, hasPrev: false, hasNext: true };
const ctx = (key: string, extra: Partial<KeyContext> = {}): KeyContext => ({ key, screen: "item", ...extra });

describe("keyboard scheme", () => {
  it("rates realism, then plausibility, then chooses the verdict with number keys", () => {
    let st: KeyState = { section: firstOpenSection(fresh) };
    expect(st.section).toBe("realism");
    let r = interpretKey(st, ctx("4"), fresh, VK);
    expect(r.command).toEqual({ kind: "set", field: "realism", value: 4 });
    expect(r.state.section).toBe("plausibility");
    st = r.state;
    const f1 = { ...fresh, realism: 4 };
    r = interpretKey(st, ctx("5"), f1, VK);
    expect(r.command).toEqual({ kind: "set", field: "plausibility", value: 5 });
    expect(r.state.section).toBe("verdict");
    const f2 = { ...f1, plausibility: 5 };
    r = interpretKey(r.state, ctx("3"), f2, VK);
    expect(r.command).toEqual({ kind: "verdict", verdict: "Missing information" });
    expect(interpretKey(r.state, ctx("5"), f2, VK).command.kind).toBe("none");
  });

  it("reveals with Enter only after a verdict is chosen, then agree keys and next", () => {
    const st: KeyState = { section: "verdict" };
    expect(interpretKey(st, ctx("Enter"), fresh, VK).command.kind).toBe("hint");
    expect(interpretKey(st, ctx("a"), fresh, VK).command.kind).toBe("hint");
    const chosen = { ...fresh, realism: 3, plausibility: 3, blindVerdict: "Reportable" as ReviewVerdict };
    const r = interpretKey(st, ctx("Enter"), chosen, VK);
    expect(r.command).toEqual({ kind: "reveal" });
    expect(r.state.section).toBe("agree");
    const revealed = { ...chosen, revealed: true };
    expect(interpretKey(r.state, ctx("A"), revealed, VK).command).toEqual({ kind: "agree", value: true });
    expect(interpretKey(r.state, ctx("d"), revealed, VK).command).toEqual({ kind: "agree", value: false });
    expect(interpretKey(r.state, ctx("Enter"), revealed, VK).command.kind).toBe("hint");
    expect(interpretKey(r.state, ctx("Enter"), { ...revealed, agree: true }, VK).command).toEqual({ kind: "next" });
    expect(interpretKey({ section: "verdict" }, ctx("2"), revealed, VK).command.kind).toBe("hint");
  });

  it("goes to the rationale task with T, answers none with N, and keeps Enter until it is answered", () => {
    const st: KeyState = { section: "agree" };
    const done = { ...fresh, realism: 3, plausibility: 3, blindVerdict: "Reportable" as ReviewVerdict, revealed: true, agree: true };
    // Items without a rationale task leave T and N alone.
    expect(interpretKey(st, ctx("t"), done, VK).handled).toBe(false);
    const pending = { ...done, hasRationale: true, rationalePending: true };
    expect(interpretKey(st, ctx("t"), { ...pending, revealed: false }, VK).command.kind).toBe("hint");
    expect(interpretKey(st, ctx("T"), pending, VK).command).toEqual({ kind: "rationale" });
    expect(interpretKey(st, ctx("n"), pending, VK).command).toEqual({ kind: "rationale-none" });
    expect(interpretKey(st, ctx("Enter"), pending, VK).command.kind).toBe("hint");
    expect(interpretKey(st, ctx("Enter"), { ...pending, rationalePending: false }, VK).command).toEqual({ kind: "next" });
  });

  it("moves between cases with J/K and the arrow keys, and opens guidelines and the key sheet", () => {
    const st: KeyState = { section: "realism" };
    expect(interpretKey(st, ctx("j"), fresh, VK).command).toEqual({ kind: "next" });
    expect(interpretKey(st, ctx("ArrowRight"), fresh, VK).command).toEqual({ kind: "next" });
    expect(interpretKey(st, ctx("K"), fresh, VK).command).toEqual({ kind: "prev" });
    expect(interpretKey(st, ctx("ArrowLeft"), fresh, VK).command).toEqual({ kind: "prev" });
    expect(interpretKey(st, ctx("g"), fresh, VK).command).toEqual({ kind: "guidelines" });
    expect(interpretKey(st, ctx("?"), fresh, VK).command).toEqual({ kind: "shortcuts" });
    expect(interpretKey(st, ctx("v"), fresh, VK).state.section).toBe("verdict");
  });

  it("never takes keys while typing, from a dialog, or with modifiers", () => {
    const st: KeyState = { section: "realism" };
    for (const k of ["1", "j", "a", "Enter", "?"]) {
      expect(interpretKey(st, ctx(k, { typing: true }), fresh, VK).handled).toBe(false);
      expect(interpretKey(st, ctx(k, { dialogOpen: true }), fresh, VK).handled).toBe(false);
    }
    expect(interpretKey(st, ctx("Escape", { typing: true }), fresh, VK).command).toEqual({ kind: "leave-text" });
    expect(interpretKey(st, ctx("1", { ctrl: true }), fresh, VK).handled).toBe(false);
    expect(interpretKey(st, ctx("r", { meta: true }), fresh, VK).handled).toBe(false);
  });

  it("leaves Enter to buttons and starts from the guidelines screen", () => {
    const chosen = { ...fresh, blindVerdict: "Uncertain" as ReviewVerdict };
    expect(interpretKey({ section: "verdict" }, ctx("Enter", { onButton: true }), chosen, VK).handled).toBe(false);
    expect(interpretKey({ section: "realism" }, ctx("Enter", { screen: "guidelines" }), null, VK).command).toEqual({ kind: "start" });
    expect(interpretKey({ section: "realism" }, ctx("1", { screen: "guidelines" }), null, VK).handled).toBe(false);
    expect(interpretKey({ section: "realism" }, ctx("1", { screen: "loading" }), null, VK).handled).toBe(false);
  });

  it("starts the number keys at the first open question", () => {
    expect(firstOpenSection({ ...fresh, realism: 2 })).toBe("plausibility");
    expect(firstOpenSection({ ...fresh, realism: 2, plausibility: 3 })).toBe("verdict");
    expect(firstOpenSection({ ...fresh, realism: 2, plausibility: 3, blindVerdict: "Reportable", revealed: true })).toBe("agree");
  });
});

describe("time tracking", () => {
  it("counts time while visible and active, not while hidden or idle", () => {
    const t = new ActiveTime(60_000);
    t.start(0);
    expect(t.take(10_000)).toBe(10);
    t.setVisible(false, 20_000); // 10 s more while visible
    expect(t.take(50_000)).toBe(10); // hidden: nothing
    t.setVisible(true, 50_000);
    expect(t.take(55_000)).toBe(5);
    // No activity for more than the idle limit: only up to the limit counts.
    expect(t.take(300_000)).toBe(55);
    t.activity(400_000);
    expect(t.take(402_500)).toBe(2.5);
  });

  it("keeps fractions below a tenth and stops counting when stopped", () => {
    const t = new ActiveTime();
    t.start(1000);
    expect(t.take(1050)).toBe(0);
    expect(t.take(1120)).toBe(0.1);
    t.stop(2000);
    expect(t.running).toBe(false);
    expect(t.take(9000)).toBe(0.9); // 20 ms left over + 880 ms
    expect(t.take(20_000)).toBe(0);
  });

  it("starts afresh for a new case", () => {
    const t = new ActiveTime();
    t.start(0);
    t.pendingMs(5000);
    t.start(5000);
    expect(t.take(6000)).toBe(1);
  });
});

describe("review helpers", () => {
  it("reads kappa and alpha in plain words", () => {
    expect(kappaReading(0.7)).toBe("substantial");
    expect(kappaReading(0.81)).toBe("almost perfect");
    expect(kappaReading(-0.1)).toBe("worse than chance");
    expect(kappaReading(null)).toBe("");
    expect(alphaReading(0.85)).toBe("reliable");
    expect(alphaReading(0.7)).toBe("tentative");
    expect(alphaReading(0.3)).toBe("unreliable");
  });

  it("counts ratings per case type", () => {
    const d = ratingDistributions([
      { case_type: "complete", answers: [{ realism: 5, plausibility: 4 }, { realism: 5, plausibility: null }] as never },
      { case_type: "missing", answers: [{ realism: 1, plausibility: 2 }] as never },
    ]);
    expect(d.find((x) => x.caseType === "complete")!.realism).toEqual([0, 0, 0, 0, 2]);
    expect(d.find((x) => x.caseType === "complete")!.plausibility).toEqual([0, 0, 0, 1, 0]);
    expect(d.find((x) => x.caseType === "uncertain")!.realism).toEqual([0, 0, 0, 0, 0]);
  });

  it("finds a personal link's token and builds link addresses", () => {
    const tok = "ab".repeat(32);
    expect(reviewLinkToken(`/review/${tok}`)).toBe(tok);
    expect(reviewLinkToken(`/review/${tok}/`)).toBe(tok);
    expect(reviewLinkToken("/")).toBeNull();
    expect(reviewLinkToken("/review/")).toBeNull();
    expect(reviewLinkToken("/review/a/b")).toBeNull();
    expect(linkUrl("http://192.168.1.4:8766/", `/review/${tok}`)).toBe(`http://192.168.1.4:8766/review/${tok}`);
  });
});

describe("keyboard help", () => {
  it("lists the rationale key only for sessions with a rationale task", async () => {
    const { shortcutsFor, ShortcutSheet } = await import("./Questionnaire");
    expect(shortcutsFor(true).some(([k]) => k === "T")).toBe(true);
    expect(shortcutsFor(false).some(([k]) => k === "T")).toBe(false);
    expect(shortcutsFor(false).length).toBe(shortcutsFor(true).length - 1);
    expect(renderToStaticMarkup(<ShortcutSheet rationale={false} />)).not.toContain("rationale");
    expect(renderToStaticMarkup(<ShortcutSheet rationale />)).toContain("rationale");
  });
});

describe("adjudication", () => {
  it("waits for a final call and a name: nothing is chosen beforehand", () => {
    expect(adjudicationBlocker(null, "Dr. Lead")).toMatch(/Choose the final call/);
    expect(adjudicationBlocker("reject", " ")).toMatch(/Enter your name/);
    expect(adjudicationBlocker("accept", "Dr. Lead")).toBeNull();
  });
});
