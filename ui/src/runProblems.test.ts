import { describe, expect, it } from "vitest";
import { finishedWithProblems, shownStatus } from "./runProblems";

const warning = { unusable: 3, finished: 3, message: "Finished with problems: 3 of 3 cases …" };

describe("runs that finished with problems", () => {
  it("shows a finished run with a warning as its own state", () => {
    expect(shownStatus("completed", warning)).toBe("completed_with_problems");
    expect(finishedWithProblems({ status: "completed", problems: warning })).toBe(true);
  });
  it("leaves plain finishes and other statuses as they are", () => {
    expect(shownStatus("completed", null)).toBe("completed");
    expect(shownStatus("completed", undefined)).toBe("completed");
    expect(shownStatus("failed", warning)).toBe("failed");
    expect(finishedWithProblems({ status: "completed", problems: null })).toBe(false);
  });
});
