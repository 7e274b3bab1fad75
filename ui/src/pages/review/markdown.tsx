// A small, safe Markdown renderer for review guidelines and the summary table.
//
// Text is parsed into a tree and rendered as React elements, never as HTML: anything that looks
// like a tag is shown as the characters it is. Supported: headings, paragraphs, bullet and
// numbered lists (nested by indentation), block quotes, fenced code, horizontal rules, pipe
// tables with alignment, **strong**, *emphasis*, `code`, and [links](https://…) whose address is
// http, https or mailto (other addresses are shown as plain text).

import { Fragment, ReactNode } from "react";

export type Inline =
  | { t: "text"; s: string }
  | { t: "strong"; c: Inline[] }
  | { t: "em"; c: Inline[] }
  | { t: "code"; s: string }
  | { t: "link"; href: string; c: Inline[] }
  | { t: "br" };

export type Align = "left" | "center" | "right" | null;

export type Block =
  | { t: "h"; level: number; c: Inline[] }
  | { t: "p"; c: Inline[] }
  | { t: "list"; ordered: boolean; start: number; items: Block[][] }
  | { t: "quote"; c: Block[] }
  | { t: "code"; s: string }
  | { t: "hr" }
  | { t: "table"; align: Align[]; head: Inline[][]; rows: Inline[][][] };

/** Only these addresses become links. */
export function safeHref(raw: string): string | null {
  const url = raw.trim();
  if (/^(https?:\/\/|mailto:)/i.test(url) && !/[\s<>"'`]/.test(url)) return url;
  return null;
}

// ---------------------------------------------------------------- inline

function findClosing(s: string, from: number, marker: string): number {
  let i = from;
  while (i < s.length) {
    if (s[i] === "\\") {
      i += 2;
      continue;
    }
    if (s.startsWith(marker, i)) return i;
    i++;
  }
  return -1;
}

/**
 * `findClosing` (and plain `indexOf` for markers that cannot be escaped) with a memory per
 * marker: the reader only moves forward, so once a marker was found at `at` searching from
 * `from`, every search from a place between the two finds the same one, and once a marker is
 * missing from `from` on, it is missing from every later place. A text full of `[` or `*` with no
 * partner therefore costs time in proportion to its length, not to its square.
 */
function closingFinder(src: string) {
  const seen = new Map<string, { from: number; at: number }>();
  return (from: number, marker: string, escapes: boolean): number => {
    const key = (escapes ? "e" : "p") + marker;
    const last = seen.get(key);
    if (last && from >= last.from && (last.at === -1 || from <= last.at)) return last.at;
    const at = escapes ? findClosing(src, from, marker) : src.indexOf(marker, from);
    seen.set(key, { from, at });
    return at;
  };
}

/** Parse inline Markdown. Newlines inside a paragraph become spaces (two trailing spaces: a line break). */
export function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  // `text` is the current line's text since the last inline element, `done` the earlier lines of
  // the same run of text: trailing spaces are only ever trimmed from the current line, so a long
  // paragraph costs time in proportion to its length.
  let done = "";
  let text = "";
  const flush = () => {
    const s = done + text;
    if (s) out.push({ t: "text", s });
    done = "";
    text = "";
  };
  const closing = closingFinder(src);
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === "\\" && i + 1 < src.length && /[\\`*_[\]()#+\-.!|>~<]/.test(src[i + 1])) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (ch === "\n") {
      if (text.endsWith("  ")) {
        text = trimSpacesEnd(text);
        flush();
        out.push({ t: "br" });
      } else {
        done += trimSpacesEnd(text) + " ";
        text = "";
      }
      i++;
      while (src[i] === " ") i++;
      continue;
    }
    if (ch === "`") {
      const end = closing(i + 1, "`", false);
      if (end > i + 1) {
        flush();
        out.push({ t: "code", s: src.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if ((ch === "*" || ch === "_") && src[i + 1] === ch) {
      const marker = ch + ch;
      const end = closing(i + 2, marker, true);
      if (end > i + 2 && src[i + 2] !== " ") {
        flush();
        out.push({ t: "strong", c: parseInline(src.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if (ch === "*" || ch === "_") {
      const prev = i > 0 ? src[i - 1] : " ";
      const wordInside = ch === "_" && /[A-Za-z0-9]/.test(prev);
      const end = closing(i + 1, ch, true);
      if (!wordInside && end > i + 1 && src[i + 1] !== " " && src[end - 1] !== " " && !(ch === "_" && /[A-Za-z0-9]/.test(src[end + 1] ?? ""))) {
        flush();
        out.push({ t: "em", c: parseInline(src.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (ch === "[") {
      const close = closing(i + 1, "]", true);
      if (close > i && src[close + 1] === "(") {
        const end = closing(close + 2, ")", false);
        if (end > close) {
          const label = src.slice(i + 1, close);
          const href = safeHref(src.slice(close + 2, end));
          flush();
          if (href) out.push({ t: "link", href, c: parseInline(label) });
          else out.push(...parseInline(label));
          i = end + 1;
          continue;
        }
      }
    }
    text += ch;
    i++;
  }
  flush();
  return out;
}

// ---------------------------------------------------------------- blocks

// Every pattern here matches in time linear in the line: no two neighbouring parts can take the
// same characters (like `\s*#*\s*$` or `\s*\|?\s*` did), so a failing match cannot try every way
// of splitting a long run of spaces between them. Headings and table separators are read with
// small functions instead of one regex.
const RE_HEADING_OPEN = /^ {0,3}(#{1,6})(?=\s)/;
const RE_UL = /^( *)([-*+])\s+(.*)$/;
const RE_OL = /^( *)(\d{1,9})[.)]\s+(.*)$/;
const RE_FENCE = /^ {0,3}(```|~~~)/;
const RE_HR = /^ {0,3}([-*_])( *\1){2,}\s*$/;
const RE_QUOTE = /^ {0,3}> ?(.*)$/;
const RE_SEP_CELL = /^:?-+:?$/;

/** Text without trailing spaces (a loop: `/ +$/` is quadratic on a long run of inner spaces). */
function trimSpacesEnd(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === " ") end--;
  return s.slice(0, end);
}

/** An ATX heading: up to three spaces, one to six `#`, white space, the text; closing `#`s dropped. */
function matchHeading(line: string): { level: number; text: string } | null {
  const open = RE_HEADING_OPEN.exec(line);
  if (!open) return null;
  const text = line.slice(open[0].length).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  return { level: open[1].length, text: text.slice(0, end).trimEnd() };
}

/** A table's separator row: cells of dashes with optional colons, outer pipes optional. */
function isTableSeparator(line: string): boolean {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|")) s = s.slice(0, -1);
  return s.split("|").every((cell) => RE_SEP_CELL.test(cell.trim()));
}

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\" && s[i + 1] === "|") {
      cur += "|";
      i++;
    } else if (s[i] === "|") {
      cells.push(cur.trim());
      cur = "";
    } else cur += s[i];
  }
  cells.push(cur.trim());
  return cells;
}

function isTableStart(lines: string[], i: number): boolean {
  return lines[i].includes("|") && i + 1 < lines.length && lines[i + 1].includes("-") && isTableSeparator(lines[i + 1]);
}

function startsBlock(lines: string[], i: number): boolean {
  const l = lines[i];
  return matchHeading(l) !== null || RE_FENCE.test(l) || RE_HR.test(l) || RE_QUOTE.test(l) || RE_UL.test(l) || RE_OL.test(l) || isTableStart(lines, i);
}

/** Parse Markdown text into blocks. */
export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, "\n").replace(/\t/g, "    ").split("\n");
  return parseLines(lines);
}

function parseLines(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = line.match(RE_FENCE);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      blocks.push({ t: "code", s: body.join("\n") });
      continue;
    }
    const h = matchHeading(line);
    if (h) {
      blocks.push({ t: "h", level: h.level, c: parseInline(h.text) });
      i++;
      continue;
    }
    if (RE_HR.test(line)) {
      blocks.push({ t: "hr" });
      i++;
      continue;
    }
    if (RE_QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && RE_QUOTE.test(lines[i])) body.push(lines[i++].match(RE_QUOTE)![1]);
      blocks.push({ t: "quote", c: parseLines(body) });
      continue;
    }
    if (isTableStart(lines, i)) {
      const head = splitRow(lines[i]);
      const align: Align[] = splitRow(lines[i + 1]).map((c) =>
        c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : c.startsWith(":") ? "left" : null,
      );
      i += 2;
      const rows: Inline[][][] = [];
      while (i < lines.length && lines[i].trim() && lines[i].includes("|")) {
        const cells = splitRow(lines[i++]);
        rows.push(head.map((_, k) => parseInline(cells[k] ?? "")));
      }
      blocks.push({ t: "table", align: head.map((_, k) => align[k] ?? null), head: head.map((c) => parseInline(c)), rows });
      continue;
    }
    const ul = line.match(RE_UL);
    const ol = line.match(RE_OL);
    if (ul || ol) {
      const ordered = !!ol;
      const re = ordered ? RE_OL : RE_UL;
      const base = (ul ?? ol)![1].length;
      const start = ol ? Number(ol[2]) : 1;
      const items: Block[][] = [];
      while (i < lines.length) {
        const m = lines[i].match(re);
        if (!m || m[1].length !== base) break;
        const body = [m[3]];
        const contentIndent = lines[i].length - m[3].length;
        i++;
        // Continuation: indented lines, or lazy paragraph lines; a blank line continues only
        // when the next line is indented.
        while (i < lines.length) {
          const l = lines[i];
          const indent = l.length - l.trimStart().length;
          if (!l.trim()) {
            const next = lines[i + 1];
            if (next !== undefined && next.trim() && next.length - next.trimStart().length > base) {
              body.push("");
              i++;
              continue;
            }
            break;
          }
          if (indent > base) {
            body.push(l.slice(Math.min(indent, contentIndent)));
            i++;
            continue;
          }
          if (!startsBlock(lines, i)) {
            body.push(l.trim());
            i++;
            continue;
          }
          break;
        }
        items.push(parseLines(body));
      }
      blocks.push({ t: "list", ordered, start, items });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i].trim() && (para.length === 0 || !startsBlock(lines, i))) para.push(lines[i++]);
    blocks.push({ t: "p", c: parseInline(para.join("\n")) });
  }
  return blocks;
}

// ---------------------------------------------------------------- rendering

/** The words of inline content, without its markup (to name a table by its column headers). */
function plainText(nodes: Inline[]): string {
  return nodes.map((n) => (n.t === "text" || n.t === "code" ? n.s : n.t === "br" ? " " : plainText(n.c))).join("");
}

function renderInline(nodes: Inline[]): ReactNode {
  return nodes.map((n, k) => {
    switch (n.t) {
      case "text":
        return <Fragment key={k}>{n.s}</Fragment>;
      case "strong":
        return <strong key={k}>{renderInline(n.c)}</strong>;
      case "em":
        return <em key={k}>{renderInline(n.c)}</em>;
      case "code":
        return <code key={k}>{n.s}</code>;
      case "br":
        return <br key={k} />;
      case "link":
        return (
          <a key={k} href={n.href} target="_blank" rel="noopener noreferrer">
            {renderInline(n.c)}
          </a>
        );
    }
  });
}

function renderBlocks(blocks: Block[], offset: number, tight = false): ReactNode {
  return blocks.map((b, k) => {
    switch (b.t) {
      case "h": {
        const level = Math.min(6, b.level + offset);
        const H = `h${level}` as "h1";
        return <H key={k}>{renderInline(b.c)}</H>;
      }
      case "p":
        return tight ? <Fragment key={k}>{renderInline(b.c)}</Fragment> : <p key={k}>{renderInline(b.c)}</p>;
      case "hr":
        return <hr key={k} />;
      case "code":
        return (
          <pre key={k} className="md-code">
            <code>{b.s}</code>
          </pre>
        );
      case "quote":
        return <blockquote key={k}>{renderBlocks(b.c, offset)}</blockquote>;
      case "list": {
        const items = b.items.map((item, j) => <li key={j}>{renderBlocks(item, offset, item.length === 1 && item[0].t === "p")}</li>);
        return b.ordered ? (
          <ol key={k} start={b.start !== 1 ? b.start : undefined}>
            {items}
          </ol>
        ) : (
          <ul key={k}>{items}</ul>
        );
      }
      case "table":
        return (
          // Focusable so that a wide table can be scrolled with the keyboard.
          <div key={k} className="md-table-wrap" role="region" aria-label={`Table: ${b.head.map(plainText).join(", ")}`} tabIndex={0}>
            <table className="data md-table">
              <thead>
                <tr>
                  {b.head.map((c, j) => (
                    <th key={j} style={{ textAlign: b.align[j] ?? "left" }}>
                      {renderInline(c)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {b.rows.map((r, j) => (
                  <tr key={j}>
                    {r.map((c, m) => (
                      <td key={m} style={{ textAlign: b.align[m] ?? "left" }}>
                        {renderInline(c)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
    }
  });
}

/**
 * Markdown as React elements. `headingOffset` shifts heading levels (a "# Title" inside a page
 * whose own title is an h1 becomes an h2 with offset 1).
 */
export function Markdown({ text, headingOffset = 1, className = "" }: { text: string; headingOffset?: number; className?: string }) {
  return <div className={`markdown ${className}`}>{renderBlocks(parseMarkdown(text), headingOffset)}</div>;
}
