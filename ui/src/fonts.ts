// Which font families the page names: the system's interface font, except in the desktop app on
// Linux (see `preferGenericFonts`).

import { host } from "./api/transport";

/**
 * In the desktop app on Linux, the style sheet names only the generic families (`sans-serif`,
 * `monospace`; styles.css, `:root[data-fonts="generic"]`).
 *
 * WebKitGTK hands `system-ui` to fontconfig as if it were a family's name. Where fontconfig does
 * not alias that name strongly to a font (Debian's configuration does not), WebKit turns the match
 * down and looks up `sans-serif` next, so the text is drawn in the sans-serif font either way,
 * after a second lookup. Each lookup walks the whole font list, about 2 ms for every size and
 * weight a page shows, and Home's first drawing shows about a dozen (BENCHMARKS.md, "Desktop
 * app", round six). Browsers, and the app on Windows (Segoe UI) and macOS, keep `system-ui`.
 */
export function preferGenericFonts(
  root: HTMLElement = document.documentElement,
  inApp: boolean = host() === "tauri",
  userAgent: string = typeof navigator === "undefined" ? "" : navigator.userAgent,
) {
  if (inApp && /Linux/.test(userAgent) && !/Android/.test(userAgent)) root.setAttribute("data-fonts", "generic");
}
