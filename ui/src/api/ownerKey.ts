// The owner's key of `psebench serve`, in a web browser.
//
// The link the server prints carries the key in the address's fragment:
// `http://127.0.0.1:8765/#owner=KEY`. A browser never sends the fragment to a server, so the key
// reaches only this page. At start-up (before the router reads the address) the key is taken from
// there, kept in this tab's sessionStorage (which belongs to this origin, port included, and lasts
// until the tab is closed; a reload keeps it), and the address becomes `#/`, so the key is not
// left in the address bar or the history. Every API call sends it as `Authorization: Bearer KEY`
// (see transport.ts). It is never put in a cookie: a browser sends the cookies of 127.0.0.1 to
// every port of 127.0.0.1, that is, to any other local server the browser visits.
//
// The router imports this module first, so the key is gone from the address before any route is
// read. Inside the desktop app there is no key and none is needed.

const STORAGE_NAME = "psebench.ownerKey";
const FRAGMENT = /^#owner=([A-Za-z0-9_-]+)$/;

let key: string | null = null;

function stored(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_NAME);
  } catch {
    return null; // storage switched off: the key lives in memory only (a reload then needs the link)
  }
}

function keep(value: string | null) {
  try {
    if (value) window.sessionStorage.setItem(STORAGE_NAME, value);
    else window.sessionStorage.removeItem(STORAGE_NAME);
  } catch {
    /* storage switched off: memory only */
  }
}

/** The key in an address fragment like `#owner=KEY`, if it is one. */
export function keyInFragment(hash: string): string | null {
  const m = FRAGMENT.exec(hash);
  return m ? m[1] : null;
}

/**
 * If the address carries a key, keep it and replace the address with `#/`. Returns the key taken,
 * or null when the address carries none.
 */
export function takeKeyFromAddress(): string | null {
  if (typeof window === "undefined") return null;
  const found = keyInFragment(window.location.hash);
  if (!found) return null;
  key = found;
  keep(found);
  window.history.replaceState(window.history.state, "", `${window.location.pathname}${window.location.search}#/`);
  return found;
}

/** This tab's key, or null when the page was opened without the link. */
export function ownerKey(): string | null {
  if (key === null && typeof window !== "undefined") key = stored();
  return key;
}

/** Drop a key the server refused (it belongs to an earlier start of the server). */
export function forgetOwnerKey() {
  key = null;
  if (typeof window !== "undefined") keep(null);
}

if (typeof window !== "undefined") {
  takeKeyFromAddress();
  // The link opened in a tab that already shows the app (the address changes only after `#`):
  // take the key, then start again with it so nothing refused without it stays on screen. This
  // listener is registered before the router's, which then sees `#/`.
  window.addEventListener("hashchange", () => {
    const prior = ownerKey();
    const found = takeKeyFromAddress();
    if (found && found !== prior) window.location.reload();
  });
}
