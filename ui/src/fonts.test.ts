import { describe, expect, it } from "vitest";
import { preferGenericFonts } from "./fonts";

const LINUX_APP = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15";
const WINDOWS_APP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0";

describe("preferGenericFonts", () => {
  it("names the generic families in the desktop app on Linux", () => {
    const root = document.createElement("html");
    preferGenericFonts(root, true, LINUX_APP);
    expect(root.getAttribute("data-fonts")).toBe("generic");
  });

  it("keeps the system's interface font in the app on Windows and in any browser", () => {
    for (const [inApp, ua] of [[true, WINDOWS_APP], [false, LINUX_APP], [false, WINDOWS_APP]] as const) {
      const root = document.createElement("html");
      preferGenericFonts(root, inApp, ua);
      expect(root.hasAttribute("data-fonts")).toBe(false);
    }
  });
});
