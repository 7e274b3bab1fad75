// Unsaved work: warn before the window closes, and hold in-app navigation until the user decides.

import { useEffect, useRef, useState } from "react";
import { Route, setNavigationGuard } from "./router";

/**
 * While `dirty`, leaving the page (closing the window, or any route for which `stays(to)` is false)
 * is held. `pending` is set while the user is being asked; `leave()` goes on, `stay()` stays.
 */
export function useUnsavedChanges(dirty: boolean, stays: (to: Route) => boolean) {
  const [pending, setPending] = useState<(() => void) | null>(null);
  const staysRef = useRef(stays);
  staysRef.current = stays;
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    setNavigationGuard((to, proceed) => {
      if (staysRef.current(to)) return true;
      setPending(() => proceed);
      return false;
    });
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      setNavigationGuard(null);
    };
  }, [dirty]);
  return {
    pending: pending !== null,
    leave: () => {
      const go = pending;
      setPending(null);
      go?.();
    },
    stay: () => setPending(null),
  };
}
