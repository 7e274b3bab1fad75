import { describe, expect, it } from "vitest";
import { isResumable } from "./runStatus";

describe("isResumable", () => {
  it("offers Resume for runs that stopped before the end, of any kind", () => {
    for (const s of ["cancelled", "failed", "interrupted", "cost_capped"]) expect(isResumable(s)).toBe(true);
  });
  it("never for runs that are working, about to start, finished, or of unknown state", () => {
    for (const s of ["running", "pending", "completed", "", undefined]) expect(isResumable(s)).toBe(false);
  });
});
