// The early answer (asked for while the first page's code starts) must reach the page whenever it
// lands: before the first drawing, between the drawing and the page's effects, or after both.
import { describe, expect, it, vi } from "vitest";
import { createRoot } from "react-dom/client";

const answers: Array<(value: unknown) => void> = [];
vi.mock("./transport", () => ({
  EngineError: class extends Error {},
  callRaw: vi.fn(() => new Promise((resolve) => answers.push(resolve))),
  onDataChange: () => () => {},
  onProgress: () => () => {},
}));

const { prefetch, useApi } = await import("./client");

function Summary({ drawn }: { drawn: () => void }) {
  const info = useApi("store.info", {});
  drawn();
  return <p>{info.data ? "shown" : info.loading ? "loading" : "nothing"}</p>;
}

async function showsTheAnswer(land: "before" | "between" | "after") {
  answers.length = 0;
  void prefetch("store.info", {});
  if (land === "before") {
    answers[0]({ cards_by_status: [] });
    await Promise.resolve();
  }
  const box = document.createElement("div");
  let first = true;
  // "between": the answer lands while the page draws, so it is there when the effects run but was
  // not there for the drawing.
  const drawn = () => {
    if (first && land === "between") answers[0]({ cards_by_status: [] });
    first = false;
  };
  createRoot(box).render(<Summary drawn={drawn} />);
  if (land === "after") {
    await vi.waitFor(() => expect(box.textContent).toBe("loading"));
    answers[0]({ cards_by_status: [] });
  }
  await vi.waitFor(() => expect(box.textContent).toBe("shown"), { timeout: 2000 });
  // The early call was used: the page did not ask a second time.
  expect(answers).toHaveLength(1);
}

describe("an answer asked for at start", () => {
  it("is shown when it arrived before the first drawing", () => showsTheAnswer("before"));
  it("is shown when it lands between the first drawing and the page's effects", () => showsTheAnswer("between"));
  it("is shown when it lands after both", () => showsTheAnswer("after"));
});
