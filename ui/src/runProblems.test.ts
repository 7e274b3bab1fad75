import { describe, expect, it } from "vitest";
import { finishedWithProblems, problemsMessage, shownStatus } from "./runProblems";

const warning = { unusable: 3, finished: 3, message: "Finished with problems: 3 of 3 cases …" };

describe("runs that finished with problems", () => {
  it("shows a finished run with a warning as its own state", () => {
    expect(shownStatus("completed", warning)).toBe("completed_with_problems");
    expect(finishedWithProblems({ status: "completed", problems: warning })).toBe(true);
    expect(problemsMessage({ status: "completed", problems: warning })).toBe(warning.message);
  });
  it("shows an anchor job kept as failed for a resume with the same warning", () => {
    expect(shownStatus("failed", warning)).toBe("completed_with_problems");
  });
  it("leaves plain finishes and other statuses as they are", () => {
    expect(shownStatus("completed", null)).toBe("completed");
    expect(shownStatus("completed", undefined)).toBe("completed");
    expect(shownStatus("failed", null)).toBe("failed");
    expect(shownStatus("running", warning)).toBe("running");
    expect(shownStatus("cancelled", warning)).toBe("cancelled");
    expect(finishedWithProblems({ status: "completed", problems: null })).toBe(false);
    expect(problemsMessage({ status: "running", problems: warning })).toBe(null);
  });
});
