// The text of one diff line: whole, or with the words that changed marked (struck through when
// removed, underlined when added, so the mark does not rely on colour alone). The row itself says
// "added" or "removed" to screen readers, so the text stays exactly the line's.

import { Fragment, ReactNode } from "react";
import type { DiffPart } from "../diff";

export function DiffText({ kind, text, parts }: { kind: "same" | "added" | "removed"; text: string; parts?: DiffPart[] }): ReactNode {
  if (!parts || kind === "same") return text || " ";
  return parts.map((p, i) =>
    p.changed ? (
      <mark key={i} className={`diff-word diff-word-${kind}`}>
        {p.text}
      </mark>
    ) : (
      <Fragment key={i}>{p.text}</Fragment>
    ),
  );
}
