import { beforeEach, describe, expect, it } from "vitest";
import { nameHint, prefilledText, rememberName, rememberedName } from "./names";

describe("remembered names", () => {
  beforeEach(() => localStorage.clear());

  it("offers a name only in the role it was typed in", () => {
    expect(rememberedName("auditor")).toBe("");
    rememberName("author", "  Dana Reyes ");
    expect(rememberedName("author")).toBe("Dana Reyes");
    // Never another role's name.
    expect(rememberedName("auditor")).toBe("");
    expect(rememberedName("approver")).toBe("");
    expect(rememberedName("draftDecider")).toBe("");
    expect(rememberedName("adjudicator")).toBe("");
    rememberName("auditor", "Sam");
    rememberName("approver", "Kim");
    expect(rememberedName("auditor")).toBe("Sam");
    expect(rememberedName("approver")).toBe("Kim");
    expect(rememberedName("author")).toBe("Dana Reyes");
    // A blank name does not replace the remembered one.
    rememberName("auditor", "   ");
    expect(rememberedName("auditor")).toBe("Sam");
  });

  it("keeps the names typed before roles were kept apart in their own role", () => {
    localStorage.setItem("psebench.auditor", "Lee");
    localStorage.setItem("psebench.review.adjudicator", "Dr. Lead");
    expect(rememberedName("auditor")).toBe("Lee");
    expect(rememberedName("adjudicator")).toBe("Dr. Lead");
    expect(rememberedName("approver")).toBe("");
  });

  it("says under the field where a filled-in name came from, while the field holds it", () => {
    expect(prefilledText("approver")).toBe("Filled in with the name you last used to approve a policy extraction. You can change it.");
    expect(nameHint("auditor", "Sam", "Sam", "Your name.")).toBe(`Your name. ${prefilledText("auditor")}`);
    expect(nameHint("auditor", "Sam", "Sam")).toBe(prefilledText("auditor"));
    // Changed, or nothing remembered: the field's own hint only.
    expect(nameHint("auditor", "Sam", "Kim", "Your name.")).toBe("Your name.");
    expect(nameHint("auditor", "", "", "Your name.")).toBe("Your name.");
  });
});
