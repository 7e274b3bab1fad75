// Long names (model names, ids) that may wrap after a separator instead of in the middle of a word.

import { Fragment, ReactNode } from "react";

export function Breakable({ text }: { text: string }): ReactNode {
  const parts = text.split(/(?<=[-_.:/])/);
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
