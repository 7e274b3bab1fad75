import { describe, expect, it } from "vitest";
import { keepRoles, proposeRoles, selfRoleWarnings } from "./roles";

const m = (name: string, local = true) => ({ name, local });

describe("models proposed for the roles", () => {
  it("gives each role its own model when there are enough", () => {
    expect(proposeRoles([m("a"), m("b"), m("c")], {})).toEqual({ model: "a", info: "b", judge: "c" });
    // Models named after a role, then local ones, are preferred for that role.
    expect(proposeRoles([m("asker"), m("my-judge"), m("info-x")], {})).toEqual({ model: "asker", info: "info-x", judge: "my-judge" });
    expect(proposeRoles([m("cloud", false), m("cloud2", false), m("local")], {})).toEqual({ model: "cloud", info: "local", judge: "cloud2" });
  });

  it("with two models, keeps the model under test out of the other roles", () => {
    expect(proposeRoles([m("a"), m("b")], {})).toEqual({ model: "a", info: "b", judge: "b" });
    expect(proposeRoles([m("a"), m("b")], { model: "b" })).toEqual({ model: "b", info: "a", judge: "a" });
  });

  it("with one model, proposes it for every role", () => {
    expect(proposeRoles([m("only")], {})).toEqual({ model: "only", info: "only", judge: "only" });
    expect(proposeRoles([], {})).toEqual({ model: "", info: "", judge: "" });
  });

  it("keeps remembered choices, but not one that repeats a model while another is free", () => {
    const models = [m("a"), m("b"), m("c")];
    expect(proposeRoles(models, { model: "c", info: "a", judge: "b" })).toEqual({ model: "c", info: "a", judge: "b" });
    // Remembered: the same model everywhere; proposed: three different ones.
    expect(proposeRoles(models, { model: "b", info: "b", judge: "b" })).toEqual({ model: "b", info: "a", judge: "c" });
    // A remembered model that is gone is replaced.
    expect(proposeRoles(models, { model: "gone", info: "c", judge: "gone" })).toEqual({ model: "a", info: "c", judge: "b" });
  });

  it("keeps the current choices when models change, and fills a role whose model is gone", () => {
    const models = [m("a"), m("b"), m("c")];
    // A deliberate repeat stays.
    expect(keepRoles(models, { model: "a", info: "a", judge: "a" })).toEqual({ model: "a", info: "a", judge: "a" });
    expect(keepRoles(models, { model: "a", info: "b", judge: "gone" })).toEqual({ model: "a", info: "b", judge: "c" });
    expect(keepRoles(models, { model: "gone", info: "b", judge: "c" })).toEqual({ model: "a", info: "b", judge: "c" });
  });
});

describe("warnings when the model under test plays another role", () => {
  it("names the risk of each self-role in plain words", () => {
    expect(selfRoleWarnings({ model: "a", info: "b", judge: "c" }, 3)).toEqual([]);
    const both = selfRoleWarnings({ model: "a", info: "a", judge: "a" }, 3);
    expect(both.map((w) => w.role)).toEqual(["info", "judge"]);
    expect(both[0].text).toMatch(/^a is both the model under test and the information provider/);
    expect(both[0].text).toMatch(/leak/);
    expect(both[1].text).toMatch(/grades its own rationales/);
    expect(both[1].text).toMatch(/inflate M4/);
    expect(both[1].text).toMatch(/Choose another model/);
    // With one model registered, the way out is to register another.
    expect(selfRoleWarnings({ model: "a", info: "b", judge: "a" }, 1)[0].text).toMatch(/Register a second model in Settings/);
    expect(selfRoleWarnings({ model: "", info: "", judge: "" }, 0)).toEqual([]);
  });
});
