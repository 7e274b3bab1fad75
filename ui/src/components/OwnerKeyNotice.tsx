// The page shown when `psebench serve` refuses the browser because it did not come through the
// printed link (which carries the session's key). Nothing else can work until it does.

import { useEffect, useSyncExternalStore } from "react";
import { isOwnerKeyMissing, onOwnerKeyMissing } from "../api/transport";

/** True once the server has answered 401 (no key, or the key of an earlier start). */
export function useOwnerKeyMissing(): boolean {
  return useSyncExternalStore(onOwnerKeyMissing, isOwnerKeyMissing, () => false);
}

export function OwnerKeyNotice() {
  useEffect(() => {
    document.title = "Open the printed link · PSEBench Studio";
  }, []);
  return (
    <main id="main" className="owner-key-notice">
      <h1>Open the link that psebench serve printed</h1>
      <p>
        This server only answers a browser tab that arrived through the link it printed when it started, something like{" "}
        <code>http://127.0.0.1:8765/#owner=…</code>. That link carries this session's key, so other users of this computer, web pages and programs
        without the key cannot reach your data.
      </p>
      <p>
        Find the link in the terminal where <code>psebench serve</code> runs and open it. The key is kept in that tab only (a reload keeps it): a
        new tab or window needs the link again. Each start makes a new key: if the server was restarted, use the newest link, or stop it and start
        it again.
      </p>
    </main>
  );
}
