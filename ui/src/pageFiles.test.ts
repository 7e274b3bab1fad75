import { afterEach, describe, expect, it } from "vitest";
import { createElement, type ComponentType } from "react";
import { currentRoute, parseHash, setRoutePreparer, subscribeRoute } from "./router";
import { pageFromFile, preparePage } from "./pageFiles";

function hashSettled(): Promise<void> {
  return new Promise((ok) => window.addEventListener("hashchange", () => setTimeout(ok, 0), { once: true }));
}
const tick = () => new Promise((ok) => setTimeout(ok, 0));

describe("a page's file", () => {
  it("is read once; afterwards its page opens without waiting", async () => {
    let loads = 0;
    let release: () => void = () => {};
    const Component: ComponentType = () => createElement("p", null, "ready");
    pageFromFile("slowpage", () => {
      loads += 1;
      return new Promise((ok) => (release = () => ok(Component)));
    });
    const waiting = preparePage(parseHash("#/slowpage?tab=x"));
    expect(waiting).not.toBeNull();
    expect(preparePage(parseHash("#/slowpage"))).not.toBeNull();
    release();
    await waiting;
    expect(loads).toBe(1);
    expect(preparePage(parseHash("#/slowpage/other"))).toBeNull();
    // Home (in the first file) and unknown addresses never wait.
    expect(preparePage(parseHash("#/"))).toBeNull();
    expect(preparePage(parseHash("#/no-such-page"))).toBeNull();
  });

  it("that cannot be read is not waited for", async () => {
    pageFromFile("brokenpage", () => Promise.reject(new Error("gone")));
    await expect(preparePage(parseHash("#/brokenpage"))).resolves.toBeUndefined();
  });
});

describe("the router", () => {
  afterEach(() => setRoutePreparer(null));

  it("keeps the old route until the new one is prepared, and a later address wins", async () => {
    window.location.hash = "#/start";
    await hashSettled();
    const shown: string[] = [];
    const stop = subscribeRoute(() => shown.push(currentRoute().path));
    const gates = new Map<string, () => void>();
    setRoutePreparer((to) => (to.path === "/start" ? null : new Promise<void>((ok) => gates.set(to.path, ok))));

    window.location.hash = "#/first";
    await hashSettled();
    expect(currentRoute().path).toBe("/start");
    window.location.hash = "#/second";
    await hashSettled();
    expect(currentRoute().path).toBe("/start");
    // The first address is ready only after the user went on: it is never shown.
    gates.get("/first")?.();
    await tick();
    expect(currentRoute().path).toBe("/start");
    gates.get("/second")?.();
    await tick();
    expect(currentRoute().path).toBe("/second");
    // Back to a page that needs no wait: shown at once.
    window.location.hash = "#/start";
    await hashSettled();
    expect(shown).toEqual(["/second", "/start"]);
    stop();
  });
});
