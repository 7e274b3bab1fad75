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

// A page whose parameters change (Evaluate's plan, for one) must not show the old answer as if it
// were the new one, not even in the one drawing before its effects run.
function Plan({ limit, seen }: { limit: number; seen: (loading: boolean, data: unknown) => void }) {
  const plan = useApi("evaluation.plan", { limit } as never);
  seen(plan.loading, plan.data);
  return <p>{plan.loading ? "loading" : plan.data ? "ready" : "nothing"}</p>;
}

describe("an answer for other parameters", () => {
  it("counts as loading from the first drawing with the new parameters", async () => {
    answers.length = 0;
    const box = document.createElement("div");
    const root = createRoot(box);
    const draws: Array<{ limit: number; loading: boolean; data: unknown }> = [];
    const draw = (limit: number) => <Plan limit={limit} seen={(loading, data) => draws.push({ limit, loading, data })} />;
    root.render(draw(90));
    await vi.waitFor(() => expect(answers).toHaveLength(1));
    answers[0]({ items: 90 });
    await vi.waitFor(() => expect(box.textContent).toBe("ready"));
    draws.length = 0;
    root.render(draw(6));
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    // Every drawing with the new parameters, the first included, says it is loading.
    const withNew = draws.filter((d) => d.limit === 6);
    expect(withNew.length).toBeGreaterThan(0);
    expect(withNew.every((d) => d.loading)).toBe(true);
    answers[1]({ items: 6 });
    await vi.waitFor(() => expect(box.textContent).toBe("ready"));
    expect(draws[draws.length - 1]).toEqual({ limit: 6, loading: false, data: { items: 6 } });
  });
});
