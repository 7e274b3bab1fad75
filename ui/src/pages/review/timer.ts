// Time spent on a case: counted only while the page is visible and the reviewer is active (a key,
// a click, a scroll or a pointer move within the last two minutes). The page takes the time
// counted so far when it saves an answer, when the reviewer moves to another case, when the page
// is hidden, and every 30 seconds, and sends it as `add_time_secs`.

import { useEffect, useRef } from "react";

export const IDLE_AFTER_MS = 120_000;
export const REPORT_EVERY_MS = 30_000;

export class ActiveTime {
  private acc = 0;
  private mark: number | null = null;
  private lastActivity = -Infinity;
  private visible = true;

  constructor(private readonly idleMs = IDLE_AFTER_MS) {}

  /** Start counting (a new case is on screen). Counts as activity. */
  start(now: number) {
    this.acc = 0;
    this.mark = now;
    this.lastActivity = now;
  }

  /** Stop counting; what was counted is kept until taken. */
  stop(now: number) {
    this.advance(now);
    this.mark = null;
  }

  get running(): boolean {
    return this.mark !== null;
  }

  activity(now: number) {
    this.advance(now);
    this.lastActivity = now;
  }

  setVisible(visible: boolean, now: number) {
    this.advance(now);
    this.visible = visible;
    if (visible) this.lastActivity = now;
  }

  private advance(now: number) {
    if (this.mark === null) return;
    if (this.visible) {
      const until = Math.min(now, this.lastActivity + this.idleMs);
      const from = this.mark;
      if (until > from) this.acc += until - from;
    }
    this.mark = now;
  }

  /** Milliseconds counted and not yet taken. */
  pendingMs(now: number): number {
    this.advance(now);
    return this.acc;
  }

  /** Take the counted time in seconds (tenths); the remainder below a tenth stays counted. */
  take(now: number): number {
    this.advance(now);
    const tenths = Math.floor(this.acc / 100);
    this.acc -= tenths * 100;
    return tenths / 10;
  }
}

/**
 * Count active time for the case on screen (`itemNo`, null when none) and report it through
 * `report(itemNo, secs)`. Returns a function that takes the time counted so far for the current
 * case (to send along with an answer).
 */
export function useActiveTime(itemNo: number | null, report: (itemNo: number, secs: number) => void): () => number {
  const timer = useRef(new ActiveTime());
  const current = useRef<number | null>(null);
  const reportRef = useRef(report);
  reportRef.current = report;

  useEffect(() => {
    const t = timer.current;
    const now = Date.now();
    const before = current.current;
    if (before !== null) {
      const secs = t.take(now);
      if (secs > 0) reportRef.current(before, secs);
    }
    current.current = itemNo;
    if (itemNo !== null) t.start(now);
    else t.stop(now);
  }, [itemNo]);

  useEffect(() => {
    const t = timer.current;
    let lastMove = 0;
    const active = () => t.activity(Date.now());
    const move = () => {
      const now = Date.now();
      if (now - lastMove > 5000) {
        lastMove = now;
        t.activity(now);
      }
    };
    const flush = (min: number) => {
      const n = current.current;
      if (n === null) return;
      if (t.pendingMs(Date.now()) < min * 1000) return;
      const secs = t.take(Date.now());
      if (secs > 0) reportRef.current(n, secs);
    };
    const visibility = () => {
      const visible = document.visibilityState === "visible";
      t.setVisible(visible, Date.now());
      if (!visible) flush(0.1);
    };
    const hide = () => flush(0.1);
    window.addEventListener("keydown", active, true);
    window.addEventListener("pointerdown", active, true);
    window.addEventListener("wheel", active, { passive: true, capture: true });
    window.addEventListener("scroll", active, { passive: true, capture: true });
    window.addEventListener("pointermove", move, { passive: true });
    document.addEventListener("visibilitychange", visibility);
    window.addEventListener("pagehide", hide);
    t.setVisible(document.visibilityState !== "hidden", Date.now());
    const every = setInterval(() => flush(1), REPORT_EVERY_MS);
    return () => {
      window.removeEventListener("keydown", active, true);
      window.removeEventListener("pointerdown", active, true);
      window.removeEventListener("wheel", active, { capture: true });
      window.removeEventListener("scroll", active, { capture: true });
      window.removeEventListener("pointermove", move);
      document.removeEventListener("visibilitychange", visibility);
      window.removeEventListener("pagehide", hide);
      clearInterval(every);
      flush(0.1);
    };
  }, []);

  return () => timer.current.take(Date.now());
}
