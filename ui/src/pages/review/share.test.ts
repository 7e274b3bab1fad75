import { describe, expect, it } from "vitest";
import { DEFAULT_SHARE_PORT, linkUrl, shareLinkBase, sharePort, shareStateText } from "./logic";

describe("sharing reviewer links", () => {
  const tok = "a".repeat(64);

  it("links start with the address they are served at, else this computer's default", () => {
    const on = { serving: true, base_url: "http://192.168.1.7:9000" };
    expect(linkUrl(shareLinkBase(on), `/review/${tok}`)).toBe(`http://192.168.1.7:9000/review/${tok}`);
    expect(shareLinkBase({ serving: false, base_url: null })).toBe(`http://127.0.0.1:${DEFAULT_SHARE_PORT}`);
    expect(shareLinkBase(undefined, 9100)).toBe("http://127.0.0.1:9100");
    // A stale address of a server that stopped is not used.
    expect(shareLinkBase({ serving: false, base_url: "http://10.0.0.2:8766" })).toBe("http://127.0.0.1:8766");
  });

  it("says plainly whether the links are served", () => {
    expect(shareStateText({ serving: true, base_url: "http://127.0.0.1:8766" })).toBe("Reviewer links are being served at http://127.0.0.1:8766");
    expect(shareStateText({ serving: false, base_url: null })).toMatch(/^Not being served/);
    expect(shareStateText(undefined)).toMatch(/^Checking/);
  });

  it("reads the port field", () => {
    expect(sharePort("")).toEqual({ port: DEFAULT_SHARE_PORT });
    expect(sharePort(" 9000 ")).toEqual({ port: 9000 });
    expect(sharePort("0")).toEqual({ port: 0 });
    expect(sharePort("80")).toHaveProperty("error");
    expect(sharePort("70000")).toHaveProperty("error");
    expect(sharePort("87a")).toHaveProperty("error");
  });
});
