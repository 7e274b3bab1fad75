// Small React hooks shared by the Anchors and Generate pages.

import { useEffect, useRef, useState } from "react";

/** `value`, once it has stopped changing for `ms` milliseconds. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** Call `fn` when `value` changes (not on mount), at most every `ms` milliseconds, with a trailing call. */
export function useThrottled(value: number, fn: () => void, ms = 2000) {
  const last = useRef(0);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const wait = Math.max(0, last.current + ms - Date.now());
    const t = setTimeout(() => {
      last.current = Date.now();
      fn();
    }, wait);
    return () => clearTimeout(t);
  }, [value, fn, ms]);
}
