// Word-level differences inside changed lines. The engine compares versions line by line; when a
// removed line and the added line that replaces it are mostly the same, the words that changed are
// marked so that a one-word edit does not read as a whole new line. Pure functions only.

/** A piece of a line: `changed` pieces are the words removed (on the old line) or added (on the new). */
export type DiffPart = { text: string; changed: boolean };

/** Words, runs of spaces and single punctuation marks, so a change is marked word by word. */
export function tokens(line: string): string[] {
  return line.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? [];
}

/** Longest common subsequence of two token lists, as pairs of indices (in order). */
function lcs(a: string[], b: string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  // Lines are short (a card's JSON lines, a paragraph at most): the quadratic table is fine, but
  // cap it so a pathological pair of lines cannot stall the page.
  if (n * m > 250_000) return [];
  const t: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    }
  }
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push([i, j]);
      i++;
      j++;
    } else if (t[i + 1][j] >= t[i][j + 1]) i++;
    else j++;
  }
  return out;
}

/** Merge neighbouring pieces of the same kind; a space between two changed words joins them. */
function merge(parts: DiffPart[]): DiffPart[] {
  const spaced = parts.map((p, i) => {
    if (p.changed || !/^\s+$/.test(p.text)) return p;
    const before = parts[i - 1];
    const after = parts[i + 1];
    return before?.changed && after?.changed ? { ...p, changed: true } : p;
  });
  const joined = join(spaced);
  // Spaces at the edges of a mark belong to the unchanged text around it.
  const trimmed = joined.flatMap((p) => {
    if (!p.changed) return [p];
    const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(p.text)!;
    return [
      { text: m[1], changed: false },
      { text: m[2], changed: m[2] !== "" },
      { text: m[3], changed: false },
    ].filter((x) => x.text !== "");
  });
  return join(trimmed);
}

function join(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (last && last.changed === p.changed) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

function mark(toks: string[], kept: Set<number>): DiffPart[] {
  return merge(toks.map((text, i) => ({ text, changed: !kept.has(i) })));
}

/**
 * The words of `before` and `after` that differ: `before`'s removed words and `after`'s added
 * words are `changed`; the rest is shared. The pieces of each side join back to its line.
 */
export function wordDiff(before: string, after: string): { before: DiffPart[]; after: DiffPart[]; shared: number } {
  const a = tokens(before);
  const b = tokens(after);
  const common = lcs(a, b);
  const shared = common.filter(([i]) => /\S/.test(a[i])).reduce((s, [i]) => s + a[i].length, 0);
  return { before: mark(a, new Set(common.map(([i]) => i))), after: mark(b, new Set(common.map(([, j]) => j))), shared };
}

/**
 * Whether two lines are versions of one another (worth a word-level view): they share at least
 * half of the longer line's visible characters, or they share something and differ in a single
 * word ("allergy_recrd" → "allergy_record" in the same quotes). Otherwise they are shown as a
 * removed and an added line.
 */
export function similar(before: string, after: string): boolean {
  const visible = (s: string) => s.replace(/\s+/g, "").length;
  const longer = Math.max(visible(before), visible(after));
  if (longer === 0) return false;
  const d = wordDiff(before, after);
  if (d.shared * 2 >= longer) return true;
  const changedWords = (parts: DiffPart[]) => parts.filter((p) => p.changed).reduce((n, p) => n + p.text.split(/\s+/).filter(Boolean).length, 0);
  return d.shared > 0 && changedWords(d.before) <= 1 && changedWords(d.after) <= 1;
}

export type DiffLineKind = "same" | "added" | "removed";

/**
 * Word-level pieces for a run of changed lines: the i-th removed line is paired with the i-th
 * added line when they are similar. Returns the pieces per line of the run (same order), or null
 * for a line shown whole.
 */
export function pairRun(run: { kind: DiffLineKind; text: string }[]): (DiffPart[] | null)[] {
  const removed = run.map((r, i) => (r.kind === "removed" ? i : -1)).filter((i) => i >= 0);
  const added = run.map((r, i) => (r.kind === "added" ? i : -1)).filter((i) => i >= 0);
  const out: (DiffPart[] | null)[] = run.map(() => null);
  for (let k = 0; k < Math.min(removed.length, added.length); k++) {
    const before = run[removed[k]].text;
    const after = run[added[k]].text;
    if (!similar(before, after)) continue;
    const d = wordDiff(before, after);
    out[removed[k]] = d.before;
    out[added[k]] = d.after;
  }
  return out;
}
