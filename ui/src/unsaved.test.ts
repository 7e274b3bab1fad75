import { afterEach, describe, expect, it } from "vitest";
import { navigate, parseHash, Route, setNavigationGuard } from "./router";

function waitHash(): Promise<void> {
  return new Promise((ok) => window.addEventListener("hashchange", () => setTimeout(ok, 0), { once: true }));
}

describe("navigation guard (unsaved changes)", () => {
  afterEach(() => setNavigationGuard(null));

  it("holds in-app links that leave the page and lets the user go on later", async () => {
    window.location.hash = "#/cards/A?tab=edit";
    await waitHash();
    const asked: Route[] = [];
    let proceed: (() => void) | null = null;
    setNavigationGuard((to, go) => {
      if (to.path === "/cards/A") return true;
      asked.push(to);
      proceed = go;
      return false;
    });
    const a = document.createElement("a");
    a.href = "#/cases";
    document.body.appendChild(a);
    const ev = new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 });
    a.dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(asked.map((r) => r.path)).toEqual(["/cases"]);
    expect(window.location.hash).toBe("#/cards/A?tab=edit");

    // A link within the same card is not held.
    a.href = "#/cards/A?tab=history";
    const ev2 = new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 });
    const moved = waitHash();
    a.dispatchEvent(ev2);
    expect(ev2.defaultPrevented).toBe(false);
    await moved;
    expect(window.location.hash).toBe("#/cards/A?tab=history");

    // Leaving anyway clears the guard and goes where the link pointed.
    const changed = waitHash();
    proceed!();
    await changed;
    expect(parseHash(window.location.hash).path).toBe("/cases");
    a.remove();
  });

  it("holds navigate() and puts the old address back after back/forward", async () => {
    window.location.hash = "#/cards/B";
    await waitHash();
    let held = 0;
    setNavigationGuard(() => {
      held++;
      return false;
    });
    navigate("/cases");
    expect(window.location.hash).toBe("#/cards/B");
    const changed = waitHash();
    window.location.hash = "#/results"; // as if the user pressed Back
    await changed;
    expect(window.location.hash).toBe("#/cards/B");
    expect(held).toBe(2);
  });
});
