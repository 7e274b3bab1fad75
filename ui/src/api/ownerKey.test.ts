import { beforeEach, describe, expect, it, vi } from "vitest";

// The module takes the key at import, as it does at the app's start: each test imports it afresh.
async function load() {
  vi.resetModules();
  return import("./ownerKey");
}

describe("the owner's key from the printed link", () => {
  beforeEach(() => {
    window.sessionStorage.clear();
    window.history.replaceState(null, "", "/");
  });

  it("is taken from the fragment, kept for the tab and removed from the address", async () => {
    window.history.replaceState(null, "", "/#owner=Abc-_123");
    const m = await load();
    expect(m.ownerKey()).toBe("Abc-_123");
    expect(window.location.hash).toBe("#/");
    expect(window.location.href).not.toContain("Abc-_123");
    expect(window.sessionStorage.getItem("psebench.ownerKey")).toBe("Abc-_123");
    // A reload: the address has no key, the tab's storage still has it.
    const again = await load();
    expect(again.ownerKey()).toBe("Abc-_123");
  });

  it("is absent when the page was opened without the link, and routes are left alone", async () => {
    window.history.replaceState(null, "", "/#/cards/X?tab=history");
    const m = await load();
    expect(m.ownerKey()).toBeNull();
    expect(window.location.hash).toBe("#/cards/X?tab=history");
  });

  it("is forgotten when the server refuses it", async () => {
    window.history.replaceState(null, "", "/#owner=old");
    const m = await load();
    m.forgetOwnerKey();
    expect(m.ownerKey()).toBeNull();
    expect(window.sessionStorage.getItem("psebench.ownerKey")).toBeNull();
  });

  it("reads only the fragment form of the link", async () => {
    const { keyInFragment } = await load();
    expect(keyInFragment("#owner=k3y")).toBe("k3y");
    expect(keyInFragment("#/owner=k3y")).toBeNull();
    expect(keyInFragment("#owner=")).toBeNull();
    expect(keyInFragment("#owner=a b")).toBeNull();
  });
});
