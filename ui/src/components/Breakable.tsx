// Long names (model names, ids) that may wrap after a separator, or between the words of a
// CamelCase name, instead of in the middle of a word or being cut short.

import { Fragment, ReactNode } from "react";
import { breakParts } from "../format";

export function Breakable({ text }: { text: string }): ReactNode {
  const parts = breakParts(text);
  if (parts.length < 2) return text;
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {p}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}
